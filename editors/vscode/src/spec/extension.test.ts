// The fakes must be installed before the extension module is loaded.
import { languageclient, vscode } from "./fakes/install";

import assert from "node:assert/strict";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import * as path from "node:path";
import { afterEach, beforeEach, describe, it } from "node:test";

import type { Probes } from "../discovery";
import { LlmPatchExtension, type Deps } from "../extension";
import { serverReport } from "./fakes/reports";
import { removeTempDirs, tempDir } from "./tmp";

const manifest = JSON.parse(readFileSync(path.join(__dirname, "..", "..", "package.json"), "utf8"));
const { state } = vscode;
const { control } = languageclient;

interface Machine {
  path: Record<string, string>;
  versions: Record<string, string>;
  files: Set<string>;
}

let machine: Machine;
let steps: string[][];
let storage: string;
/** The extension's own folder, as a .vsix installs it: server/ holds the server's wheel. */
let extensionDir: string;
let wheel: string;

function probes(): Probes {
  return {
    which: async (name) => machine.path[name],
    llmPatchVersion: async (python) => machine.versions[python.join(" ")],
    exists: async (p) => machine.files.has(p),
  };
}

function deps(over: Partial<Deps> = {}): Deps {
  return {
    probes: probes(),
    pythonVersion: async () => "3.12.3",
    runStep: async (command, args, onLine) => {
      steps.push([command, ...args]);
      onLine(`ran ${path.basename(command)}`);
      if (args.includes("pip")) {
        // pip succeeded: the private environment now has llm-patch.
        machine.files.add(command);
        machine.versions[command] = "0.1.0";
      }
      return { code: 0, tail: "" };
    },
    platform: "linux",
    now: () => new Date(2025, 0, 2, 10, 0, 0),
    ...over,
  };
}

async function activate(over: Partial<Deps> = {}): Promise<LlmPatchExtension> {
  const context = {
    subscriptions: [] as { dispose(): unknown }[],
    globalStorageUri: vscode.Uri.file(storage),
    extensionPath: extensionDir,
  };
  const ext = new LlmPatchExtension(context as any, deps(over));
  ext.activate();
  await ext.settled();
  return ext;
}

/** Waits for fire-and-forget work (a prompt's follow-up) to reach the expected state. */
async function eventually(check: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (check()) {
      return;
    }
    await new Promise((r) => setTimeout(r, 5));
  }
  assert.fail(`timed out waiting for: ${what}`);
}

function run(command: string): Promise<unknown> {
  const fn = state.commands.get(command);
  assert.ok(fn, `${command} is not registered`);
  return Promise.resolve(fn());
}

function client(i = -1): languageclient.LanguageClient {
  const c = control.instances.at(i);
  assert.ok(c, "no language client was created");
  return c;
}

function statusItem(): vscode.FakeStatusBarItem {
  return state.statusItems[0];
}

// What the real server answers (editors/fixtures/reports.json), words included.
const okReport = serverReport("applied");
const failedReport = serverReport("refused");

beforeEach(() => {
  vscode.reset();
  languageclient.resetControl();
  machine = { path: { "llm-patch": "/usr/bin/llm-patch" }, versions: {}, files: new Set() };
  steps = [];
  storage = tempDir("llm-patch-storage-");
  extensionDir = tempDir("llm-patch-extension-");
  mkdirSync(path.join(extensionDir, "server"));
  wheel = path.join(extensionDir, "server", "llm_patch-0.1.0-py3-none-any.whl");
  writeFileSync(wheel, "");
});

afterEach(removeTempDirs);

describe("activation", () => {
  it("registers every contributed command, and only those", async () => {
    await activate();
    const contributed = manifest.contributes.commands.map((c: { command: string }) => c.command).sort();
    assert.deepEqual([...state.commands.keys()].sort(), contributed);
    // None may collide with a server command, which the language client registers itself.
    for (const id of ["llmPatch.apply", "llmPatch.check", "llmPatch.applyBlock", "llmPatch.buildDiff", "llmPatch.stats"]) {
      assert.ok(!contributed.includes(id), id);
    }
  });

  it("starts the discovered server on stdio, syncing every file and untitled document", async () => {
    state.config.set("llmPatch.fuzzyThreshold", 0.9);
    await activate();
    const c = client();
    assert.equal(c.id, "llmPatch");
    assert.deepEqual([c.serverOptions.command, ...c.serverOptions.args], ["/usr/bin/llm-patch", "serve"]);
    assert.deepEqual(c.clientOptions.documentSelector, [{ scheme: "file" }, { scheme: "untitled" }]);
    assert.equal(c.clientOptions.synchronize.configurationSection, "llmPatch");
    assert.deepEqual(c.clientOptions.initializationOptions(), {
      llmPatch: {
        atomic: true,
        confirmFuzzy: true,
        alwaysPreview: false,
        fuzzyThreshold: 0.9,
        mode: "unrestricted",
        logLevel: "info",
        diagnostics: true,
        diagnosticsDelay: 300,
        codeLens: true,
        replyFiles: ["*.llm.md", "*.patch", "*.diff"],
        protectedPaths: [],
        startupMessage: true,
      },
    });
    assert.equal(c.state, languageclient.State.Running);
    // the applyEdit middleware asks before unsaved work is discarded: the server is told
    // (a client capability), so it does not ask the same question first
    assert.deepEqual(c.clientCapabilities().experimental, { llmPatch: { confirmUnsaved: true } });
    assert.equal(statusItem().text, "$(check) LLM Patch");
    assert.equal(statusItem().visible, true);
    assert.ok(state.outputs[0].lines.some((l) => l.includes("Starting the server: /usr/bin/llm-patch serve")));
  });

  it("uses the Python extension's interpreter and follows it when it changes", async () => {
    let changed: (() => void) | undefined;
    state.extensions.set("ms-python.python", {
      isActive: true,
      exports: {
        environments: {
          getActiveEnvironmentPath: () => ({ id: "x", path: "/proj/.venv" }),
          resolveEnvironment: async () => ({ executable: { uri: { fsPath: "/proj/.venv/bin/python" } } }),
          onDidChangeActiveEnvironmentPath: (fn: () => void) => {
            changed = fn;
            return { dispose: () => undefined };
          },
        },
      },
    });
    machine.versions["/proj/.venv/bin/python"] = "0.1.0";
    const ext = await activate();
    assert.deepEqual([client().serverOptions.command, ...client().serverOptions.args], ["/proj/.venv/bin/python", "-m", "lsp_server"]);
    assert.equal(ext.server?.source, "python-extension");
    await eventually(() => changed !== undefined, "subscription to interpreter changes");
    changed?.();
    await eventually(() => control.instances.length === 2, "restart on interpreter change");
    assert.equal(client(0).disposed, true);
  });
});

describe("commands", () => {
  it("Apply from Clipboard sends llmPatch.apply with the text and reports the result", async () => {
    await activate();
    state.clipboard = "a.py\n<<<<<<< SEARCH\nx\n=======\ny\n>>>>>>> REPLACE\n";
    control.onRequest = () => okReport;
    await run("llmPatch.applyFromClipboard");
    assert.deepEqual(client().requests, [
      { method: "workspace/executeCommand", params: { command: "llmPatch.apply", arguments: [{ text: state.clipboard }] } },
    ]);
    assert.equal(statusItem().text, "✓ 2 edits");
    assert.equal(statusItem().command, "llmPatch.showLastReport");
    assert.deepEqual(state.messages.at(-1), { level: "info", text: "LLM Patch: applied 2 edits in 2 files.", items: ["Show Report"] });
  });

  it("llmPatch.alwaysPreview, and Preview from Clipboard, ask for the refactor preview", async () => {
    await activate();
    state.clipboard = "reply";
    await run("llmPatch.previewFromClipboard");
    state.config.set("llmPatch.alwaysPreview", true);
    await run("llmPatch.applyFromClipboard");
    assert.deepEqual(
      client().requests.map((r) => r.params.arguments),
      [
        [{ text: "reply" }, { preview: true }],
        [{ text: "reply" }, { preview: true }],
      ],
    );
  });

  it("a failed block is an error whose Show Report opens the full report", async () => {
    await activate();
    state.clipboard = "reply";
    control.onRequest = () => failedReport;
    state.answers.push("Show Report");
    await run("llmPatch.applyFromClipboard");
    assert.equal(statusItem().text, "✗ 1 failed");
    const msg = state.messages.at(-1);
    assert.equal(msg?.level, "error");
    assert.match(msg?.text ?? "", /1 of 2 blocks failed; nothing was applied\. #1 b\.py \(reply lines 10-18\): TEXT_NOT_FOUND/);
    // rendered: VS Code's Markdown preview of the report document
    await eventually(() => state.executed.some((e) => e.command === "markdown.showPreview"), "report preview shown");
    const shown = state.executed.find((e) => e.command === "markdown.showPreview");
    assert.equal((shown?.args[0] as vscode.Uri).scheme, "llm-patch-report");
    assert.equal(state.shownDocuments.length, 0, "not the Markdown source");
    const doc = state.openedDocuments.find((d) => d.uri.scheme === "llm-patch-report");
    assert.ok(doc);
    const text = doc.getText();
    assert.match(text, /^# LLM Patch apply report/);
    assert.match(text, /from clipboard/);
    assert.match(text, /"line": 3/);
  });

  it("Show Last Report before any report says so", async () => {
    await activate();
    await run("llmPatch.showLastReport");
    assert.equal(state.shownDocuments.length, 0);
    assert.match(state.messages.at(-1)?.text ?? "", /no report yet/);
  });

  it("Check Clipboard calls llmPatch.check", async () => {
    await activate();
    state.clipboard = "reply";
    control.onRequest = () => serverReport("checked");
    await run("llmPatch.checkClipboard");
    assert.equal(client().requests[0].params.command, "llmPatch.check");
    assert.equal(statusItem().text, "✓ 2 edits ready");
  });

  it("an empty clipboard is a warning and sends nothing", async () => {
    await activate();
    state.clipboard = "  \n";
    await run("llmPatch.applyFromClipboard");
    assert.equal(client().requests.length, 0);
    assert.match(state.messages.at(-1)?.text ?? "", /clipboard is empty \(CLIPBOARD_MISSING\)/);
  });

  it("Apply Selection sends the reply's URI and the selected range", async () => {
    await activate();
    const doc = new vscode.FakeTextDocument(vscode.Uri.file("/w/reply.llm.md"), "intro\n\nblock\nblock\nend\n");
    state.activeTextEditor = { document: doc, selection: new vscode.Selection(new vscode.Position(2, 0), new vscode.Position(4, 3)) };
    await run("llmPatch.applySelection");
    state.activeTextEditor = { document: doc, selection: new vscode.Selection(new vscode.Position(1, 0), new vscode.Position(1, 0)) };
    await run("llmPatch.applySelection");
    assert.deepEqual(
      client().requests.map((r) => r.params.arguments),
      [
        [{ uri: "file:///w/reply.llm.md", range: { start: { line: 2, character: 0 }, end: { line: 4, character: 3 } } }],
        [{ uri: "file:///w/reply.llm.md" }],
      ],
    );
  });

  it("Apply Selection sends the text of a document the server does not have", async () => {
    await activate();
    const doc = new vscode.FakeTextDocument(vscode.Uri.parse("output:extension-output-1"), "line0\nline1 diff\nline2\n");
    state.activeTextEditor = { document: doc, selection: new vscode.Selection(new vscode.Position(1, 6), new vscode.Position(2, 5)) };
    await run("llmPatch.applySelection");
    assert.deepEqual(client().requests[0].params.arguments, [{ text: "diff\nline2" }]);
  });

  it("Apply Selection without an editor asks for one", async () => {
    await activate();
    await run("llmPatch.applySelection");
    assert.equal(client().requests.length, 0);
    assert.match(state.messages.at(-1)?.text ?? "", /open the reply/);
  });

  it("Open Clipboard as Reply opens an untitled reply document (Markdown, language llm-reply) with the text", async () => {
    await activate();
    state.clipboard = "Here is the fix:\n```diff\n--- a/x\n+++ b/x\n```\n";
    await run("llmPatch.openClipboardAsReply");
    assert.equal(state.shownDocuments.length, 1);
    const doc = state.shownDocuments[0];
    assert.equal(doc.uri.scheme, "untitled");
    assert.equal(doc.languageId, "llm-reply");
    assert.equal(doc.getText(), state.clipboard);
    assert.equal(client().requests.length, 0, "opening applies nothing");
  });

  it("an error response from the server is shown, not swallowed", async () => {
    await activate();
    state.clipboard = "reply";
    control.onRequest = () => {
      throw new Error("Patch tool is disabled in Restricted mode. Use request_mode_upgrade to request write access.");
    };
    await run("llmPatch.applyFromClipboard");
    assert.equal(statusItem().text, "✗ error");
    assert.deepEqual(state.messages.at(-1), {
      level: "error",
      text: "LLM Patch: Patch tool is disabled in Restricted mode. Use request_mode_upgrade to request write access.",
      items: ["Show Log"],
    });
  });

  it("a result that is not a report is reported as such", async () => {
    await activate();
    state.clipboard = "reply";
    control.onRequest = () => null;
    await run("llmPatch.applyFromClipboard");
    assert.match(state.messages.at(-1)?.text ?? "", /returned no report/);
  });

  it("reports from code actions and code lenses reach the status bar", async () => {
    await activate();
    const middleware = client().clientOptions.middleware;
    const result = await middleware.executeCommand("llmPatch.applyBlock", [{ uri: "untitled:x", index: 0 }], async () => okReport);
    assert.equal(result, okReport);
    assert.equal(statusItem().text, "✓ 2 edits");
    const other = await middleware.executeCommand("llmPatch.stats", [], async () => ({ total: 3 }));
    assert.deepEqual(other, { total: 3 });
    assert.equal(statusItem().text, "✓ 2 edits");
  });
});

describe("server lifecycle", () => {
  it("not found: offers the one-click install, which puts the bundled wheel in a private venv and starts from it", async () => {
    machine.path = { python3: "/usr/bin/python3" };
    state.answers.push("Install llm-patch");
    await activate();
    await eventually(() => control.instances.length === 1, "server started after install");
    const venvPython = path.join(storage, "server-venv", "bin", "python");
    assert.deepEqual(steps, [
      ["/usr/bin/python3", "-m", "venv", "--clear", path.join(storage, "server-venv")],
      // llm-patch is on no package index: the wheel inside the .vsix is what gets installed
      [venvPython, "-m", "pip", "install", "--disable-pip-version-check", "--upgrade", wheel],
    ]);
    assert.match(state.messages[0].text, /server was not found/);
    assert.deepEqual(state.messages[0].items, ["Install llm-patch", "Open Settings", "Show Log"]);
    assert.deepEqual(state.progress[0].messages, [
      "Creating a private Python environment…",
      "Installing llm_patch-0.1.0-py3-none-any.whl…",
    ]);
    assert.deepEqual([client().serverOptions.command, ...client().serverOptions.args], [venvPython, "-m", "lsp_server"]);
    assert.equal(statusItem().text, "$(check) LLM Patch");
  });

  it("the command that found no server runs once the install it offered succeeds", async () => {
    machine.path = { python3: "/usr/bin/python3" };
    await activate(); // the first offer is dismissed
    assert.equal(control.instances.length, 0);
    state.clipboard = "a.py\n<<<<<<< SEARCH\nx\n=======\ny\n>>>>>>> REPLACE\n";
    control.onRequest = () => okReport;
    state.answers.push("Install llm-patch");
    await run("llmPatch.applyFromClipboard");
    await eventually(() => control.instances.length === 1 && client().requests.length === 1, "the apply after the install");
    assert.deepEqual(client().requests[0].params, { command: "llmPatch.apply", arguments: [{ text: state.clipboard }] });
    await eventually(() => state.messages.some((m) => m.text === "LLM Patch: applied 2 edits in 2 files."), "the apply's report");
    assert.ok(state.messages.some((m) => /installed; starting the server, then your command/.test(m.text)));
  });

  it("a command run while the install offer is showing adds no second offer, and runs after the install", async () => {
    machine.path = { python3: "/usr/bin/python3" };
    let answer: (choice: string | undefined) => void = () => undefined;
    state.answers.push(new Promise((resolve) => (answer = resolve))); // the user has not answered yet
    await activate();
    state.clipboard = "reply";
    control.onRequest = () => okReport;
    await run("llmPatch.applyFromClipboard");
    assert.equal(state.messages.filter((m) => /server was not found/.test(m.text)).length, 1, JSON.stringify(state.messages));
    answer("Install llm-patch");
    await eventually(() => control.instances.length === 1 && client().requests.length === 1, "the apply after the install");
    assert.deepEqual(client().requests[0].params, { command: "llmPatch.apply", arguments: [{ text: "reply" }] });
  });

  it("a command whose install offer was dismissed does not run at a later install", async () => {
    machine.path = { python3: "/usr/bin/python3" };
    await activate();
    state.clipboard = "reply";
    await run("llmPatch.applyFromClipboard"); // offered again, dismissed again
    await run("llmPatch.installServer");
    await eventually(() => control.instances.length === 1, "the server after the install");
    await new Promise((r) => setTimeout(r, 20));
    assert.deepEqual(client().requests, []);
  });

  it("llmPatch.server.installSource, when set, is installed instead of the bundled wheel", async () => {
    machine.path = { python3: "/usr/bin/python3" };
    state.config.set("llmPatch.server.installSource", "/src/llm-patch");
    await activate();
    await run("llmPatch.installServer");
    assert.deepEqual(steps.at(-1)?.slice(-1), ["/src/llm-patch"]);
  });

  it("with no bundled wheel and no installSource, the install says what to set and runs nothing", async () => {
    machine.path = { python3: "/usr/bin/python3" };
    rmSync(path.join(extensionDir, "server"), { recursive: true });
    await activate();
    await run("llmPatch.installServer");
    assert.deepEqual(steps, []);
    assert.match(state.messages.at(-1)?.text ?? "", /carries no server wheel.*llmPatch\.server\.installSource/);
  });

  it("not found and dismissed: the status bar offers the install", async () => {
    machine.path = {};
    await activate();
    assert.equal(control.instances.length, 0);
    assert.equal(statusItem().text, "$(warning) LLM Patch");
    assert.equal(statusItem().command, "llmPatch.installServer");
  });

  it("a failing install step is reported with its last output line", async () => {
    machine.path = { python3: "/usr/bin/python3" };
    await activate({
      runStep: async (command, args) => {
        steps.push([command, ...args]);
        return args.includes("pip")
          ? { code: 1, tail: "Processing ./llm_patch-0.1.0-py3-none-any.whl\nERROR: No matching distribution found for pygls<2.2,>=2.1.1" }
          : { code: 0, tail: "" };
      },
    });
    await run("llmPatch.installServer");
    assert.equal(control.instances.length, 0);
    assert.match(state.messages.at(-1)?.text ?? "", /Installing llm_patch-0\.1\.0-py3-none-any\.whl failed: ERROR: No matching distribution found for pygls/);
  });

  it("an install with no new-enough Python says which were tried", async () => {
    machine.path = { python3: "/usr/bin/python3" };
    await activate({ pythonVersion: async () => "3.9.2" });
    await run("llmPatch.installServer");
    assert.equal(steps.length, 0);
    assert.match(state.messages.at(-1)?.text ?? "", /no Python 3\.11 or newer .*\/usr\/bin\/python3 is Python 3\.9/);
  });

  it("a wrong server.path is an error naming the setting, with no install offer", async () => {
    state.config.set("llmPatch.server.path", "/nope/llm-patch");
    await activate();
    assert.equal(control.instances.length, 0);
    assert.equal(state.messages[0].level, "error");
    assert.match(state.messages[0].text, /llmPatch\.server\.path is set to "\/nope\/llm-patch"/);
    assert.deepEqual(state.messages[0].items, ["Open Settings", "Show Log"]);
  });

  it("a server that fails to start is an error, and the status bar offers a restart", async () => {
    control.startError = new Error("spawn /usr/bin/llm-patch EACCES");
    await activate();
    assert.match(state.messages.at(-1)?.text ?? "", /failed to start: spawn \/usr\/bin\/llm-patch EACCES/);
    assert.equal(statusItem().text, "$(error) LLM Patch");
    assert.equal(statusItem().command, "llmPatch.restartServer");
    control.startError = undefined;
    await run("llmPatch.restartServer");
    assert.equal(client().state, languageclient.State.Running);
    assert.equal(statusItem().text, "$(check) LLM Patch");
  });

  it("a crash restarts the server with a message; repeated crashes stop with an error", async () => {
    await activate();
    const { closed } = client().clientOptions.errorHandler;
    for (let i = 1; i <= 4; i++) {
      const result = await closed();
      assert.equal(result.action, languageclient.CloseAction.Restart, `crash ${i}`);
      assert.equal(result.handled, true);
      assert.equal(state.messages.at(-1)?.level, "warning");
      assert.match(state.messages.at(-1)?.text ?? "", new RegExp(`restarting it \\(restart ${i} of 4`));
    }
    const last = await closed();
    assert.equal(last.action, languageclient.CloseAction.DoNotRestart);
    assert.equal(state.messages.at(-1)?.level, "error");
    assert.deepEqual(state.messages.at(-1)?.items, ["Restart", "Show Log"]);
    assert.equal(statusItem().command, "llmPatch.restartServer");
  });

  it("changing llmPatch.server.* restarts the server; other settings do not", async () => {
    await activate();
    const fire = (section: string) => {
      for (const l of state.configListeners) {
        l({ affectsConfiguration: (s: string) => section.startsWith(s) });
      }
    };
    fire("llmPatch.atomic");
    await new Promise((r) => setTimeout(r, 20));
    assert.equal(control.instances.length, 1);
    state.config.set("llmPatch.server.interpreter", "/opt/py/bin/python");
    machine.versions["/opt/py/bin/python"] = "0.1.0";
    fire("llmPatch.server.interpreter");
    await eventually(() => control.instances.length === 2, "restart after settings change");
    assert.equal(client(0).disposed, true);
    assert.equal(client().serverOptions.command, "/opt/py/bin/python");
  });

  it("a command while the server is stopped starts it again first", async () => {
    await activate();
    client().setState(languageclient.State.Stopped);
    assert.equal(statusItem().text, "$(error) LLM Patch");
    state.clipboard = "reply";
    control.onRequest = () => okReport;
    await run("llmPatch.applyFromClipboard");
    assert.equal(control.instances.length, 2);
    assert.equal(client().requests.length, 1);
    assert.equal(statusItem().text, "✓ 2 edits");
  });
});
