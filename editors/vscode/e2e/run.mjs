#!/usr/bin/env node
/**
 * The real-VS Code suite: installs the extension's .vsix into VS Code 1.96.4 (the web build in
 * code-server, see setup.sh), opens it in Debian's Chromium (headless, driven over the DevTools
 * protocol by playwright-core) and plays each story in stories/ as a user would: palette,
 * keys, clicks, the clipboard. What reached the disk is read with `git status` of the story's
 * own workspace (a copy of examples/shop), what the user sees from the page.
 *
 *   node e2e/run.mjs [name-filter ...]
 *
 * LLM_PATCH_SERVER     the server as a JSON array (editors/ci.sh sets it); the stories start it
 *                      through llmPatch.server.path/args, except the first-run install story,
 *                      which has none and installs the wheel the .vsix carries.
 * LLM_PATCH_VSIX       the package to test (default: dist/llm-patch.vsix).
 * LLM_PATCH_E2E_ARTIFACTS  where a failing story leaves its screenshot, the page's text and the
 *                      logs (default: e2e-artifacts/ next to this folder's parent).
 * LLM_PATCH_EDITOR_TOOLS   where setup.sh put code-server and playwright-core.
 */
import { spawn, execFileSync } from "node:child_process";
import { createRequire } from "node:module";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

import { VSCode } from "./lib/vscode.mjs";

const HERE = path.dirname(fileURLToPath(import.meta.url));
const EXT_DIR = path.dirname(HERE);
const REPO = path.resolve(EXT_DIR, "..", "..");
const TOOLS = process.env.LLM_PATCH_EDITOR_TOOLS || path.join(os.homedir(), ".cache", "llm-patch-editors");
const CS = path.join(TOOLS, "code-server-4.96.4");
const VSIX = path.resolve(process.env.LLM_PATCH_VSIX || path.join(EXT_DIR, "dist", "llm-patch.vsix"));
const ARTIFACTS = path.resolve(process.env.LLM_PATCH_E2E_ARTIFACTS || path.join(EXT_DIR, "e2e-artifacts"));
const CHROMIUM = process.env.CHROMIUM || "/usr/lib/chromium/chromium";
const require = createRequire(path.join(TOOLS, "e2e-driver") + "/");

function fail(message) {
  console.error(`vscode e2e: ${message}`);
  process.exit(2);
}

if (!fs.existsSync(path.join(CS, ".llm-patch-ready"))) fail(`no code-server in ${CS}: run e2e/setup.sh first`);
if (!fs.existsSync(VSIX)) fail(`no package at ${VSIX}: run npm run package first`);
if (!process.env.LLM_PATCH_SERVER) fail("LLM_PATCH_SERVER is not set (a JSON array: the server's command line)");
const SERVER = JSON.parse(process.env.LLM_PATCH_SERVER);
const { chromium } = require("playwright-core");

/** A free TCP port on the loopback interface. */
async function freePort() {
  const net = await import("node:net");
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function waitHttp(url, what, ms = 60000) {
  const t0 = Date.now();
  for (;;) {
    try {
      const r = await fetch(url);
      if (r.ok) return;
    } catch {
      /* not up yet */
    }
    if (Date.now() - t0 > ms) throw new Error(`${what} did not come up at ${url}`);
    await sleep(250);
  }
}

/** A child in its own process group, so stopping it stops what it started (the extension host, the server). */
function start(command, args, logFile, env) {
  const out = fs.openSync(logFile, "a");
  const child = spawn(command, args, { detached: true, stdio: ["ignore", out, out], env });
  fs.closeSync(out);
  return child;
}

function stop(child) {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  try {
    process.kill(-child.pid, "SIGTERM");
  } catch {
    /* already gone */
  }
}

const BASE_SETTINGS = {
  // Desktop VS Code's default (web builds default to afterDelay): edits land in unsaved buffers.
  "files.autoSave": "off",
  "workbench.startupEditor": "none",
  "workbench.tips.enabled": false,
  "workbench.enableExperiments": false,
  "telemetry.telemetryLevel": "off",
  "extensions.autoCheckUpdates": false,
  "extensions.autoUpdate": false,
  "update.mode": "none",
  "security.workspace.trust.startupPrompt": "never",
  "security.workspace.trust.untrustedFiles": "open",
  "git.enabled": false,
  "window.confirmBeforeClose": "never",
};

async function loadStories(filters) {
  const dir = path.join(HERE, "stories");
  const stories = [];
  for (const file of fs.readdirSync(dir).filter((f) => f.endsWith(".mjs")).sort()) {
    const mod = await import(path.join(dir, file));
    for (const story of mod.stories) stories.push({ ...story, file });
  }
  return filters.length ? stories.filter((s) => filters.some((f) => s.name.includes(f) || s.file.includes(f))) : stories;
}

async function main() {
  const stories = await loadStories(process.argv.slice(2));
  if (stories.length === 0) fail("no story matches");
  fs.rmSync(ARTIFACTS, { recursive: true, force: true }); // evidence of this run only
  const run = fs.mkdtempSync(path.join(os.tmpdir(), "llm-patch-vscode-e2e-"));
  const data = path.join(run, "data");
  const exts = path.join(run, "exts");
  fs.mkdirSync(path.join(data, "User"), { recursive: true });
  const port = await freePort();
  const cdpPort = await freePort();
  fs.writeFileSync(path.join(run, "config.yaml"), `bind-addr: 127.0.0.1:${port}\nauth: none\ncert: false\n`);
  const csArgs = [
    path.join(CS, "out", "node", "entry.js"),
    "--config", path.join(run, "config.yaml"),
    "--user-data-dir", data,
    "--extensions-dir", exts,
    "--disable-telemetry",
    "--disable-update-check",
  ];
  // The extension host inherits this environment. No llm-patch on PATH and no user site: the
  // extension finds its server only where a story's settings say, or installs it (first run).
  const env = {
    HOME: path.join(run, "home"),
    PATH: "/usr/local/bin:/usr/bin:/bin",
    LANG: "C.UTF-8",
    XDG_CONFIG_HOME: path.join(run, "xdg"),
    PYTHONNOUSERSITE: "1",
    PIP_DISABLE_PIP_VERSION_CHECK: "1",
  };
  for (const k of ["PIP_INDEX_URL", "PIP_EXTRA_INDEX_URL", "PIP_FIND_LINKS", "PIP_CONFIG_FILE", "http_proxy", "https_proxy", "no_proxy", "HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY"]) {
    if (process.env[k]) env[k] = process.env[k];
  }
  // pip's own configuration (an index mirror, a cache) is the user's: keep it for the first-run install.
  for (const f of [path.join(os.homedir(), ".config", "pip", "pip.conf"), path.join(os.homedir(), ".pip", "pip.conf")]) {
    if (!env.PIP_CONFIG_FILE && fs.existsSync(f)) env.PIP_CONFIG_FILE = f;
  }
  fs.mkdirSync(env.HOME, { recursive: true });
  execFileSync("node", [...csArgs, "--install-extension", VSIX], { env: { ...env }, stdio: ["ignore", "ignore", "inherit"] });

  let cs, chrome, browser;
  // Interrupted (Ctrl+C, CI's timeout): stop what this run started, then go.
  for (const signal of ["SIGINT", "SIGTERM"]) {
    process.once(signal, () => {
      stop(chrome);
      stop(cs);
      fs.rmSync(run, { recursive: true, force: true });
      process.exit(130);
    });
  }
  const results = [];
  const started = Date.now();
  try {
    cs = start("node", csArgs, path.join(run, "code-server.log"), env);
    chrome = start(
      CHROMIUM,
      [
        "--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-dev-shm-usage",
        "--remote-debugging-address=127.0.0.1", `--remote-debugging-port=${cdpPort}`,
        `--user-data-dir=${path.join(run, "chrome")}`, "--window-size=1400,900", "about:blank",
      ],
      path.join(run, "chromium.log"),
      { ...process.env, HOME: env.HOME },
    );
    await waitHttp(`http://127.0.0.1:${port}/healthz`, "code-server");
    await waitHttp(`http://127.0.0.1:${cdpPort}/json/version`, "chromium");
    browser = await chromium.connectOverCDP(`http://127.0.0.1:${cdpPort}`);
    const context = browser.contexts()[0];
    const base = `http://127.0.0.1:${port}`;
    await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: base });

    for (const [i, story] of stories.entries()) {
      const ws = path.join(run, "ws", `${String(i).padStart(2, "0")}-${story.name.replace(/[^a-z0-9]+/gi, "-")}`);
      const t0 = Date.now();
      const page = await context.newPage();
      page.on("dialog", (d) => void d.accept().catch(() => {}));
      await page.setViewportSize({ width: 1400, height: 900 });
      page.setDefaultTimeout(10000);
      const vs = new VSCode({ page, base, ws, repo: REPO, data, shots: ARTIFACTS, story: story.name });
      let error;
      try {
        vs.makeWorkspace(story.files ?? {});
        // Restricted Mode stories keep VS Code's workspace trust (the folder starts untrusted);
        // the others run as in a folder the user trusts.
        const trust = story.trusted === false ? {} : { "security.workspace.trust.enabled": false };
        // The story's own mark in the window's title: seen there once the window has read
        // this story's settings, not a previous story's (see openWorkspace).
        const mark = { "window.title": `e2e-${i} \${rootName}` };
        const settings = { ...BASE_SETTINGS, ...mark, ...trust, ...(story.server === false ? {} : { "llmPatch.server.path": SERVER[0], "llmPatch.server.args": SERVER.slice(1) }), ...(story.settings ?? {}) };
        writeSettings(path.join(data, "User", "settings.json"), settings);
        if (story.server === false) fs.rmSync(path.join(data, "User", "globalStorage", "llm-patch.llm-patch"), { recursive: true, force: true });
        await vs.openWorkspace(`e2e-${i} `);
        await story.run(vs);
      } catch (e) {
        error = e;
      }
      const secs = ((Date.now() - t0) / 1000).toFixed(1);
      // `pending` names a fix that lands elsewhere (the server): until then the story's
      // failure is expected and reported, not counted; once it passes, the mark should go.
      if (error && story.pending) {
        const where = await vs.keepEvidence(run).catch((e) => `(no evidence: ${e.message})`);
        console.log(`xfail ${story.name} (${secs}s), pending ${story.pending}: ${brief(error).split("\n")[0]}\n     evidence: ${where}`);
      } else if (error) {
        const where = await vs.keepEvidence(run).catch((e) => `(no evidence: ${e.message})`);
        console.log(`FAIL ${story.name} (${secs}s): ${brief(error)}\n     evidence: ${where}`);
      } else {
        console.log(`ok   ${story.name} (${secs}s)${story.pending ? ` (passes now: drop its pending mark, ${story.pending})` : ""}`);
      }
      results.push({ name: story.name, ok: !error || Boolean(story.pending) });
      await page.close().catch(() => {});
    }
  } finally {
    await browser?.close().catch(() => {});
    stop(chrome);
    stop(cs);
    await sleep(500);
    const failed = results.filter((r) => !r.ok).length;
    if (failed > 0 || results.length < stories.length) {
      fs.mkdirSync(ARTIFACTS, { recursive: true });
      for (const f of ["code-server.log", "chromium.log"]) {
        if (fs.existsSync(path.join(run, f))) fs.copyFileSync(path.join(run, f), path.join(ARTIFACTS, f));
      }
      copyLogs(path.join(data, "logs"), path.join(ARTIFACTS, "vscode-logs"));
    }
    fs.rmSync(run, { recursive: true, force: true });
    const passed = results.filter((r) => r.ok).length;
    console.log(`${passed} passed, ${results.length - passed} failed (${((Date.now() - started) / 1000).toFixed(0)}s)`);
    if (failed > 0) console.log(`vscode e2e: screenshots and logs in ${ARTIFACTS}`);
    process.exitCode = failed > 0 || results.length < stories.length ? 1 : 0;
  }
}

/**
 * The user's settings.json, replaced in one rename (VS Code watches it: a half-written file
 * reads as no settings at all), and only when it changes.
 */
function writeSettings(file, settings) {
  const text = JSON.stringify(settings, null, 2);
  if (fs.existsSync(file) && fs.readFileSync(file, "utf8") === text) return;
  fs.writeFileSync(`${file}.tmp`, text);
  fs.renameSync(`${file}.tmp`, file);
}

/** The first line of a playwright error (its call log is long), with the story's frames. */
function brief(error) {
  const text = String(error?.stack ?? error);
  const [first, ...rest] = text.split("\n");
  const frames = rest.filter((l) => /^\s+at .*(stories|lib)\//.test(l));
  return [first, ...frames].join("\n");
}

function copyLogs(from, to) {
  if (!fs.existsSync(from)) return;
  fs.cpSync(from, to, { recursive: true });
}

main().catch((e) => {
  console.error(e);
  process.exitCode = 1;
});
