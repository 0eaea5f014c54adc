/**
 * The extension's contract with the real llm-patch server, over stdio, the way VS Code's
 * language client speaks it: discovery finds the server in the project's environment, then
 * `llmPatch.check` / `llmPatch.apply` go through workspace/executeCommand, the server's
 * workspace/applyEdit is applied like VS Code does (open the document, sync it), and the
 * reports are read by the same code the status bar uses, which shows the server's own words.
 *
 * Skipped when no server is available: set LLM_PATCH_SERVER (a JSON array) or create the
 * repository's .venv (`pip install -e .`).
 */
import assert from "node:assert/strict";
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import * as path from "node:path";
import { pathToFileURL } from "node:url";
import { after, before, describe, it } from "node:test";

import {
  createProtocolConnection,
  StreamMessageReader,
  StreamMessageWriter,
  type ApplyWorkspaceEditParams,
  type ProtocolConnection,
  type TextDocumentEdit,
  type TextEdit,
} from "vscode-languageserver-protocol/node";

import { discoverServer } from "../discovery";
import { nodeProbes } from "../probes";
import { notification, parseReport } from "../report";
import { declareOwnDiscardQuestion, discardedWork, touchedFiles, unsyncedEdits } from "../workspace_edit";
import { tempDir } from "./tmp";

const repoRoot = path.resolve(__dirname, "..", "..", "..", "..");
const repoPython = path.join(repoRoot, ".venv", "bin", "python");

async function serverCommand(): Promise<string[] | undefined> {
  if (process.env.LLM_PATCH_SERVER) {
    return JSON.parse(process.env.LLM_PATCH_SERVER) as string[];
  }
  if (!existsSync(repoPython)) {
    return undefined;
  }
  // The same discovery the extension runs, with the interpreter setting pointing at the repo.
  const found = await discoverServer(
    {
      serverPath: "",
      serverArgs: [],
      interpreter: repoPython,
      pythonExtension: async () => undefined,
      privateVenvPython: "/nonexistent",
      platform: process.platform,
    },
    nodeProbes,
  );
  return found.kind === "found" ? [found.server.command, ...found.server.args] : undefined;
}

/** VS Code's answer to the capabilities that shape the server's edits. */
const capabilities = {
  workspace: {
    applyEdit: true,
    configuration: true,
    workspaceFolders: true,
    workspaceEdit: {
      documentChanges: true,
      resourceOperations: ["create", "rename", "delete"],
      failureHandling: "textOnlyTransactional",
      normalizesLineEndings: true,
      changeAnnotationSupport: { groupsOnLabel: true },
    },
    executeCommand: { dynamicRegistration: true },
  },
  textDocument: {
    synchronization: { dynamicRegistration: true, didSave: true },
    publishDiagnostics: { relatedInformation: true, codeDescriptionSupport: true },
  },
  general: { positionEncodings: ["utf-16"] },
};

function offsetAt(text: string, line: number, character: number): number {
  let offset = 0;
  for (let i = 0; i < line; i++) {
    const next = text.indexOf("\n", offset);
    if (next < 0) {
      return text.length;
    }
    offset = next + 1;
  }
  return Math.min(offset + character, text.length);
}

/** Applies TextEdits like an editor: all against the original text, last first. */
function applyEdits(text: string, edits: TextEdit[]): string {
  const sorted = edits
    .map((e) => ({ e, start: offsetAt(text, e.range.start.line, e.range.start.character) }))
    .sort((a, b) => b.start - a.start);
  let out = text;
  for (const { e, start } of sorted) {
    const end = offsetAt(text, e.range.end.line, e.range.end.character);
    out = out.slice(0, start) + e.newText + out.slice(end);
  }
  return out;
}

interface Session {
  conn: ProtocolConnection;
  child: ChildProcessWithoutNullStreams;
  edits: ApplyWorkspaceEditParams[];
  messages: string[];
  /** The server's questions (window/showMessageRequest), each answered with Esc. */
  questions: string[];
  stderr: string[];
}

async function startSession(
  command: string[],
  root: string,
  settings: Record<string, unknown>,
  caps: Record<string, unknown> = capabilities,
): Promise<Session> {
  const child = spawn(command[0], command.slice(1), { cwd: root, env: { ...process.env, PYTHONUNBUFFERED: "1" } });
  const stderr: string[] = [];
  child.stderr.on("data", (d: Buffer) => stderr.push(d.toString()));
  const conn = createProtocolConnection(new StreamMessageReader(child.stdout), new StreamMessageWriter(child.stdin));
  const session: Session = { conn, child, edits: [], messages: [], questions: [], stderr };
  const versions = new Map<string, number>();
  const texts = new Map<string, string>();
  conn.onRequest("workspace/configuration", (params: { items: unknown[] }) => params.items.map(() => settings));
  conn.onRequest("client/registerCapability", () => null);
  conn.onRequest("window/workDoneProgress/create", () => null);
  conn.onNotification("window/showMessage", (p: { message: string }) => {
    session.messages.push(p.message);
  });
  conn.onRequest("window/showMessageRequest", (p: { message: string }) => {
    session.questions.push(p.message);
    return null;
  });
  conn.onNotification("window/logMessage", () => undefined);
  conn.onNotification("textDocument/publishDiagnostics", () => undefined);
  conn.onRequest("workspace/applyEdit", async (params: ApplyWorkspaceEditParams) => {
    session.edits.push(params);
    // What VS Code does with an edit to a file that is not open: open it, apply the edit
    // in memory (dirty), and the language client syncs the new text to the server.
    for (const change of params.edit.documentChanges ?? []) {
      if (!("textDocument" in change)) {
        continue;
      }
      const docEdit = change;
      const uri = docEdit.textDocument.uri;
      const known = texts.get(uri);
      const text = applyEdits(known ?? readFileSync(new URL(uri).pathname, "utf8"), docEdit.edits as TextEdit[]);
      const version = (versions.get(uri) ?? 0) + 1;
      versions.set(uri, version);
      texts.set(uri, text);
      if (known === undefined) {
        await conn.sendNotification("textDocument/didOpen", { textDocument: { uri, languageId: "python", version, text } });
      } else {
        await conn.sendNotification("textDocument/didChange", {
          textDocument: { uri, version },
          contentChanges: [{ text }],
        });
      }
    }
    return { applied: true };
  });
  conn.listen();
  const rootUri = pathToFileURL(root).toString();
  await conn.sendRequest("initialize", {
    processId: process.pid,
    rootUri,
    workspaceFolders: [{ uri: rootUri, name: "ws" }],
    capabilities: caps,
    initializationOptions: { llmPatch: settings },
    clientInfo: { name: "Visual Studio Code", version: "1.91.0" },
  });
  await conn.sendNotification("initialized", {});
  return session;
}

async function stopSession(s: Session | undefined): Promise<void> {
  if (!s) {
    return;
  }
  try {
    await Promise.race([s.conn.sendRequest("shutdown"), new Promise((r) => setTimeout(r, 3000))]);
    await s.conn.sendNotification("exit");
  } catch {
    // The process may already be gone; it is killed below either way.
  }
  s.conn.dispose();
  s.child.kill();
}

const reply = [
  "Rename the greeting and document `area`:",
  "",
  "src/app.py",
  "```python",
  "<<<<<<< SEARCH",
  "def greet(name):",
  '    return "hi " + name',
  "=======",
  "def greet(name):",
  '    return f"Hello, {name}!"',
  ">>>>>>> REPLACE",
  "```",
  "",
  "src/app.py",
  "```python",
  "<<<<<<< SEARCH",
  "def area(r):",
  "=======",
  "def area(r):",
  '    """Area of a circle."""',
  ">>>>>>> REPLACE",
  "```",
  "",
].join("\n");

const original = ["import math", "", "", "def greet(name):", '    return "hi " + name', "", "", "def area(r):", "    return math.pi * r * r", ""].join("\n");

function workspace(): string {
  const root = tempDir("llm-patch-vscode-");
  mkdirSync(path.join(root, "src"));
  writeFileSync(path.join(root, "src", "app.py"), original);
  return root;
}

describe("against the real server", async () => {
  const command = await serverCommand();
  const skip = command ? false : "no llm-patch server (set LLM_PATCH_SERVER or create .venv)";
  let session: Session | undefined;
  let root = "";

  before(async () => {
    if (command) {
      root = workspace();
      session = await startSession(command, root, {});
    }
  });
  after(() => stopSession(session));

  it("llmPatch.check returns a report the status bar can read, and changes nothing", { skip }, async () => {
    const result = await session!.conn.sendRequest("workspace/executeCommand", {
      command: "llmPatch.check",
      arguments: [{ text: reply }],
    });
    const report = parseReport(result);
    assert.ok(report, JSON.stringify(result));
    assert.equal(report.ok, true, JSON.stringify(report));
    assert.deepEqual(report.blocks.map((b) => [b.path, b.status]), [["src/app.py", "validated"], ["src/app.py", "validated"]]);
    assert.equal(report.label, "✓ 2 edits ready");
    assert.equal(notification(report), "LLM Patch: all 2 edits can be placed in 1 file.");
    assert.match(report.files[0]?.diff ?? "", /\+ {4}return f"Hello, \{name\}!"/);
    assert.equal(session!.edits.length, 0);
  });

  it("takes the caller's target as the extension sends it; one outside the workspace refuses the reply", { skip }, async () => {
    const target = pathToFileURL(path.join(root, "src", "app.py")).toString();
    const inside = parseReport(
      await session!.conn.sendRequest("workspace/executeCommand", { command: "llmPatch.check", arguments: [{ text: reply, target }] }),
    );
    assert.equal(inside?.ok, true, JSON.stringify(inside));
    // why the extension only ever passes a file in a workspace folder (commands.isTarget)
    const outside = tempDir("llm-patch-vscode-");
    writeFileSync(path.join(outside, "x.py"), "x = 1\n");
    const refused = await session!.conn.sendRequest("workspace/executeCommand", {
      command: "llmPatch.check",
      arguments: [{ text: reply, target: pathToFileURL(path.join(outside, "x.py")).toString() }],
    });
    assert.equal(parseReport(refused)?.ok, false);
    assert.equal((refused as { error?: { code?: string } }).error?.code, "OUTSIDE_WORKSPACE", JSON.stringify(refused));
    assert.equal(session!.edits.length, 0);
  });

  it("llmPatch.apply with preview sends one versioned edit, annotated per block, asking only where it must", { skip }, async () => {
    const result = await session!.conn.sendRequest("workspace/executeCommand", {
      command: "llmPatch.apply",
      arguments: [{ text: reply }, { preview: true }],
    });
    const report = parseReport(result);
    assert.ok(report, JSON.stringify(result));
    assert.equal(report.ok, true, JSON.stringify(report) + session!.stderr.join(""));
    assert.equal(report.label, "✓ 2 edits");
    assert.equal(session!.edits.length, 1, "one workspace/applyEdit per apply");
    const edit = session!.edits[0].edit;
    const docEdits = (edit.documentChanges ?? []).filter((c): c is TextDocumentEdit => "textDocument" in c);
    assert.equal(docEdits.length, 1);
    assert.equal(docEdits[0].textDocument.uri, pathToFileURL(path.join(root, "src", "app.py")).toString());
    assert.equal(docEdits[0].textDocument.version, null, "the file was not open");
    const notes = edit.changeAnnotations ?? {};
    const opener = "llm-patch/preview";
    const annotations = Object.entries(notes).filter(([id]) => id !== opener).map(([, a]) => a);
    assert.ok(annotations.length > 0, "change annotations are sent to VS Code");
    // VS Code unticks an edit that needs confirmation: exact blocks do not ask, even in a
    // preview. VS Code opens its preview only when some edit asks: one edit that changes
    // nothing does, so the preview opens with both blocks ticked.
    assert.ok(annotations.every((a) => a.needsConfirmation !== true), "exact blocks need no confirmation");
    assert.equal(notes[opener]?.needsConfirmation, true, JSON.stringify(notes));
    const openers = docEdits[0].edits.filter((e) => (e as { annotationId?: string }).annotationId === opener);
    assert.deepEqual(openers.map((e) => (e as TextEdit).newText), [""], "the opener inserts nothing");
    // One annotation per block, each with its own label (VS Code groups the refactor preview
    // by label): every block can be unticked on its own.
    assert.equal(annotations.length, 2, JSON.stringify(notes));
    assert.equal(new Set(annotations.map((a) => a.label)).size, 2);
    const used = docEdits[0].edits
      .map((e) => (e as { annotationId?: string }).annotationId)
      .filter((id) => id !== opener);
    assert.ok(used.every((id) => id !== undefined && id in notes), JSON.stringify(used));
    assert.equal(new Set(used).size, 2, "the two blocks' text edits carry different annotations");
    const updated = applyEdits(original, docEdits[0].edits as TextEdit[]);
    assert.match(updated, /return f"Hello, \{name\}!"/);
    assert.match(updated, /def area\(r\):\n {4}"""Area of a circle\."""\n {4}return math\.pi/);
  });

  it("a failing block sends no edit and reports the failure", { skip }, async () => {
    const before = session!.edits.length;
    const bad = [
      "src/app.py",
      "```python",
      "<<<<<<< SEARCH",
      "import math",
      "=======",
      "import math",
      "import sys",
      ">>>>>>> REPLACE",
      "```",
      "",
      "src/app.py",
      "```python",
      "<<<<<<< SEARCH",
      "def volume(r):",
      "    return 4 / 3 * math.pi * r ** 3",
      "=======",
      "def volume(r):",
      '    """Volume of a ball."""',
      ">>>>>>> REPLACE",
      "```",
    ].join("\n");
    const result = await session!.conn.sendRequest("workspace/executeCommand", {
      command: "llmPatch.apply",
      arguments: [{ text: bad }],
    });
    const report = parseReport(result);
    assert.ok(report);
    assert.equal(report.ok, false);
    assert.equal(report.label, "✗ 1 failed", JSON.stringify(report, null, 1));
    assert.equal(report.level, "error");
    assert.match(notification(report), /nothing was applied\. #1 src\/app\.py \(reply lines 11-20\): TEXT_NOT_FOUND/);
    assert.equal(session!.edits.length, before, "atomic: nothing sent");
  });
});

describe("the real server's resource operations, as the extension reads them", async () => {
  const command = await serverCommand();
  const skip = command ? false : "no llm-patch server (set LLM_PATCH_SERVER or create .venv)";
  let session: Session | undefined;
  let root = "";

  before(async () => {
    if (command) {
      root = workspace();
      writeFileSync(path.join(root, "old.py"), "gone = True\n");
      writeFileSync(path.join(root, "m.py"), "moved = 1\n");
      session = await startSession(command, root, {});
    }
  });
  after(() => stopSession(session));

  it("a delete, a move and a disk-planned edit are what the applyEdit middleware guards", { skip }, async () => {
    const patch = [
      "*** Begin Patch",
      "*** Delete File: old.py",
      "*** Update File: m.py",
      "*** Move to: n.py",
      "@@",
      "-moved = 1",
      "+moved = 2",
      "*** Update File: src/app.py",
      "@@",
      "-import math",
      "+import math  # used by area",
      "*** End Patch",
      "",
    ].join("\n");
    await session!.conn.sendRequest("workspace/executeCommand", { command: "llmPatch.apply", arguments: [{ text: patch }] });
    assert.equal(session!.edits.length, 1, session!.stderr.join(""));
    const touches = touchedFiles(session!.edits[0].edit);
    const uri = (p: string) => pathToFileURL(path.join(root, p)).toString();
    const rel = (u: string) => u.slice(pathToFileURL(root).toString().length + 1);
    const ops = touches.map((t) => `${t.op} ${rel(t.uri)}${t.op === "rename" ? ` → ${rel(t.newUri)}` : ""}`);
    assert.ok(ops.includes("delete old.py"), ops.join("; "));
    assert.ok(ops.includes("rename m.py → n.py"), ops.join("; "));
    assert.ok(ops.includes("edit src/app.py"), ops.join("; "));
    // those files open with unsaved changes in VS Code: the delete and the move ask first,
    // and the edits planned from disk (the server was not shown the buffers) are refused
    const dirty = (u: string) => ({ dirty: [uri("old.py"), uri("m.py"), uri("src/app.py")].includes(u) });
    assert.deepEqual(
      discardedWork(touches, dirty).map((d) => [rel(d.uri), d.what]),
      [["old.py", "delete"], ["m.py", "move"]],
    );
    assert.deepEqual(unsyncedEdits(touches, dirty).map(rel), ["m.py", "src/app.py"]);
  });
});

describe("unsaved work a delete would take: one question, real server", async () => {
  const command = await serverCommand();
  const skip = command ? false : "no llm-patch server (set LLM_PATCH_SERVER or create .venv)";
  const remove = ["*** Begin Patch", "*** Delete File: old.py", "*** End Patch", ""].join("\n");

  async function deleteUnsaved(declared: boolean): Promise<{ session: Session; root: string }> {
    const root = workspace();
    writeFileSync(path.join(root, "old.py"), "gone = True\n");
    const caps: Record<string, unknown> = { ...structuredClone(capabilities), window: { showMessage: {} } };
    if (declared) {
      declareOwnDiscardQuestion(caps); // what the extension's registered feature fills in
    }
    const session = await startSession(command!, root, {}, caps);
    const uri = pathToFileURL(path.join(root, "old.py")).toString();
    // open in VS Code with unsaved work
    await session.conn.sendNotification("textDocument/didOpen", {
      textDocument: { uri, languageId: "python", version: 1, text: "gone = True\nkept = False\n" },
    });
    await session.conn.sendRequest("workspace/executeCommand", { command: "llmPatch.apply", arguments: [{ text: remove }] });
    return { session, root };
  }

  it("declared (the extension): the server sends the delete unasked; the middleware asks once", { skip }, async () => {
    const { session, root } = await deleteUnsaved(true);
    try {
      assert.deepEqual(session.questions, [], "the server asked too");
      assert.equal(session.edits.length, 1, session.stderr.join(""));
      const uri = pathToFileURL(path.join(root, "old.py")).toString();
      const discards = discardedWork(touchedFiles(session.edits[0].edit), (u) => ({ dirty: u === uri }));
      assert.deepEqual(
        discards.map((d) => d.what),
        ["delete"],
        "the middleware's one question",
      );
    } finally {
      await stopSession(session);
    }
  });

  it("not declared (another client): the server asks, once, and sends nothing on Esc", { skip }, async () => {
    const { session } = await deleteUnsaved(false);
    try {
      assert.equal(session.questions.length, 1);
      assert.match(session.questions[0], /old\.py has unsaved changes/);
      assert.equal(session.edits.length, 0);
    } finally {
      await stopSession(session);
    }
  });
});

describe("restricted mode, real server", async () => {
  const command = await serverCommand();
  const skip = command ? false : "no llm-patch server (set LLM_PATCH_SERVER or create .venv)";
  let session: Session | undefined;

  before(async () => {
    if (command) {
      session = await startSession(command, workspace(), { mode: "restricted" });
    }
  });
  after(() => stopSession(session));

  it("refuses apply with the documented message, which the extension shows as is", { skip }, async () => {
    await assert.rejects(
      session!.conn.sendRequest("workspace/executeCommand", { command: "llmPatch.apply", arguments: [{ text: reply }] }),
      (error: Error) => {
        assert.match(error.message, /Patch tool is disabled in Restricted mode\. Use request_mode_upgrade to request write access\./);
        return true;
      },
    );
    const result = await session!.conn.sendRequest("workspace/executeCommand", {
      command: "llmPatch.check",
      arguments: [{ text: reply }],
    });
    assert.equal(parseReport(result)?.ok, true, "checks still work");
  });
});
