#!/usr/bin/env bash
# Prepares the real-VS Code end-to-end suite (editors/vscode/e2e) from package registries only:
#
#   * VS Code 1.96.4's web build, as the `code-server` 4.96.4 npm package carries it (the last
#     code-server release for Node 20). Its own postinstall cannot run offline (it installs
#     lib/vscode from a shrinkwrap that pins @vscode/proxy-agent to a GitHub tarball, and
#     @vscode/ripgrep fetches `rg` from GitHub), so this script does those steps itself: the
#     packages with --ignore-scripts, the pin moved to the same version on npm, the native
#     modules compiled against the local Node headers (node-gyp would otherwise download them),
#     Debian's `rg`, and the symlinks the postinstall makes.
#   * playwright-core, which attaches to Debian's Chromium over the DevTools protocol (it never
#     downloads a browser).
#   * Debian packages: chromium, ripgrep, libkrb5-dev (headers for the `kerberos` module).
#
# Usage: setup.sh [DEST]   (default: $LLM_PATCH_EDITOR_TOOLS or ~/.cache/llm-patch-editors)
# Leaves DEST/code-server-4.96.4 and DEST/e2e-driver; a finished build is kept and reused.
# Needs Node 20 with its headers under $NODEDIR/include/node (default /usr), and root for
# apt-get when the Debian packages are missing. ~2 minutes on two cores.
set -euo pipefail

DEST="${1:-${LLM_PATCH_EDITOR_TOOLS:-$HOME/.cache/llm-patch-editors}}"
CS_VERSION="4.96.4"
PROXY_AGENT_VERSION="0.27.0"   # the version lib/vscode's shrinkwrap pins to a GitHub tarball
NODEDIR="${NODEDIR:-/usr}"
mkdir -p "$DEST"
DEST="$(cd "$DEST" && pwd)"
CS="$DEST/code-server-$CS_VERSION"
DRIVER="$DEST/e2e-driver"
export npm_config_update_notifier=false npm_config_fund=false npm_config_audit=false
export JOBS=2   # node-gyp's parallel compiles: the cores we have
say() { printf '  vscode-e2e setup: %s\n' "$*"; }

# ---- Debian packages -------------------------------------------------------------------------
missing=()
command -v chromium >/dev/null || missing+=(chromium fonts-liberation2)
command -v rg >/dev/null || missing+=(ripgrep)
[ -e /usr/include/gssapi/gssapi.h ] || missing+=(libkrb5-dev)
if [ "${#missing[@]}" -gt 0 ]; then
  if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null; then
    echo "vscode-e2e setup: missing ${missing[*]} (install them, or run as root with apt-get)" >&2
    exit 1
  fi
  say "apt-get install ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null 2>&1 ||
    { apt-get update -qq >/dev/null && apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null; }
fi

# ---- Node 20 and its headers -------------------------------------------------------------------
node_major="$(node -p 'process.versions.node.split(".")[0]')"
if [ "$node_major" != 20 ]; then
  echo "vscode-e2e setup: code-server $CS_VERSION runs on Node 20 (found $(node --version))" >&2
  exit 1
fi
if ! grep -q "define NODE_MAJOR_VERSION 20" "$NODEDIR/include/node/node_version.h" 2>/dev/null; then
  echo "vscode-e2e setup: no Node 20 headers under $NODEDIR/include/node (set NODEDIR)" >&2
  exit 1
fi

# ---- code-server (VS Code's web build) -------------------------------------------------------
# The marker is written last, so an interrupted build is started again from scratch.
if [ ! -f "$CS/.llm-patch-ready" ]; then
  say "code-server $CS_VERSION from npm, built offline (~2 min)"
  rm -rf "$CS" "$CS.tmp"
  mkdir -p "$CS.tmp"
  (cd "$CS.tmp" && npm pack --silent "code-server@$CS_VERSION" >/dev/null && tar xzf "code-server-$CS_VERSION.tgz")
  mv "$CS.tmp/package" "$CS"
  rm -rf "$CS.tmp"
  (cd "$CS" && npm install --omit=dev --ignore-scripts --loglevel=error >/dev/null)
  (cd "$CS" && npm_config_nodedir="$NODEDIR" nice npm rebuild argon2 --loglevel=error >/dev/null)
  integrity="$(npm view "@vscode/proxy-agent@$PROXY_AGENT_VERSION" dist.integrity)"
  node - "$CS/lib/vscode/npm-shrinkwrap.json" "$PROXY_AGENT_VERSION" "$integrity" <<'JS'
const fs = require("node:fs");
const [file, version, integrity] = process.argv.slice(2);
const wrap = JSON.parse(fs.readFileSync(file, "utf8"));
const entry = wrap.packages["node_modules/@vscode/proxy-agent"];
if (!entry || entry.version !== version) {
  console.error(`unexpected @vscode/proxy-agent pin: ${JSON.stringify(entry)}`);
  process.exit(1);
}
entry.resolved = `https://registry.npmjs.org/@vscode/proxy-agent/-/proxy-agent-${version}.tgz`;
entry.integrity = integrity;
fs.writeFileSync(file, JSON.stringify(wrap, null, 2));
JS
  (cd "$CS/lib/vscode" && npm install --omit=dev --ignore-scripts --loglevel=error >/dev/null)
  (cd "$CS/lib/vscode" && npm_config_nodedir="$NODEDIR" nice npm rebuild --loglevel=error \
    @parcel/watcher @vscode/deviceid @vscode/spdlog kerberos native-watchdog node-pty >/dev/null)
  mkdir -p "$CS/lib/vscode/node_modules/@vscode/ripgrep/bin"
  cp "$(command -v rg)" "$CS/lib/vscode/node_modules/@vscode/ripgrep/bin/rg"
  # what code-server's postinstall.sh would have linked
  ln -sfn node_modules "$CS/lib/vscode/node_modules.asar"
  ln -sfn code-linux.sh "$CS/lib/vscode/bin/remote-cli/code-server"
  ln -sfn browser-linux.sh "$CS/lib/vscode/bin/helpers/browser.sh"
  (cd "$CS/lib/vscode/extensions" && npm install --omit=dev --loglevel=error >/dev/null)
  touch "$CS/.llm-patch-ready"
else
  say "code-server $CS_VERSION: already built"
fi
XDG_CONFIG_HOME="$DEST/xdg" node "$CS/out/node/entry.js" --version | head -n1

# ---- playwright-core -----------------------------------------------------------------------
if [ ! -f "$DRIVER/node_modules/playwright-core/package.json" ]; then
  say "playwright-core"
  mkdir -p "$DRIVER"
  printf '{ "name": "llm-patch-e2e-driver", "private": true }\n' >"$DRIVER/package.json"
  (cd "$DRIVER" && PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm install --loglevel=error playwright-core@1 >/dev/null)
fi
say "ready: $CS, $DRIVER"
