// The fakes must be installed before the extension module is loaded.
import { languageclient, vscode } from "./fakes/install";

import assert from "node:assert/strict";
import { afterEach, beforeEach, describe, it } from "node:test";

import { UNTRUSTED_MESSAGE } from "../commands";
import { LlmPatchExtension, type Deps } from "../extension";
import { serverReport } from "./fakes/reports";
import { removeTempDirs, tempDir } from "./tmp";

// What the extension does with the server's workspace/applyEdit (refusals, confirmation,
// the journal behind Undo Last Patch, the files named in the notification), the caller's
// target, and Restricted Mode.

const { state } = vscode;
const { control } = languageclient;

function deps(): Deps {
  return {
    probes: {
      which: async (name) => (name === "llm-patch" ? "/usr/bin/llm-patch" : undefined),
      llmPatchVersion: async () => undefined,
      exists: async () => false,
    },
    pythonVersion: async () => "3.12.3",
    runStep: async () => ({ code: 0, tail: "" }),
    platform: "linux",
    now: () => new Date(2025, 0, 2, 10, 0, 0),
  };
}

async function activate(): Promise<LlmPatchExtension> {
  const context = {
    subscriptions: [] as { dispose(): unknown }[],
    globalStorageUri: vscode.Uri.file(tempDir("llm-patch-storage-")),
    extensionPath: tempDir("llm-patch-extension-"),
  };
  const ext = new LlmPatchExtension(context as any, deps());
  ext.activate();
  await ext.settled();
  return ext;
}

function client(): languageclient.LanguageClient {
  const c = control.instances.at(-1);
  assert.ok(c, "no language client was created");
  return c;
}

function run(command: string, ...args: unknown[]): Promise<unknown> {
  const fn = state.commands.get(command);
  assert.ok(fn, `${command} is not registered`);
  return Promise.resolve(fn(...args));
}

const uri = (p: string) => vscode.Uri.file(p).toString();

type Change =
  | { textDocument: { uri: string; version: number | null }; edits: { range: any; newText: string }[] }
  | { kind: "create"; uri: string; options?: { overwrite?: boolean } }
  | { kind: "delete"; uri: string }
  | { kind: "rename"; oldUri: string; newUri: string };

/** A server edit replacing the whole first line of a file (positions as the server sends them). */
function lineEdit(p: string, version: number | null, newText: string): Change {
  return {
    textDocument: { uri: uri(p), version },
    edits: [{ range: { start: { line: 0, character: 0 }, end: { line: 1, character: 0 } }, newText }],
  };
}

/** What VS Code does with the server's edit: buffers change (unsaved), resources on disk. */
async function vscodeApplies(params: { edit: { documentChanges?: Change[] } }): Promise<{ applied: boolean }> {
  for (const change of params.edit.documentChanges ?? []) {
    if ("textDocument" in change) {
      const doc = vscode.openFile(vscode.Uri.parse(change.textDocument.uri).fsPath);
      let text = doc.getText();
      for (const e of [...change.edits].reverse()) {
        const start = doc.offsetAt(new vscode.Position(e.range.start.line, e.range.start.character));
        const end = doc.offsetAt(new vscode.Position(e.range.end.line, e.range.end.character));
        text = text.slice(0, start) + e.newText + text.slice(end);
      }
      doc.type(text);
    } else if (change.kind === "create") {
      state.disk.set(vscode.Uri.parse(change.uri).fsPath, "");
    } else if (change.kind === "delete") {
      state.disk.delete(vscode.Uri.parse(change.uri).fsPath);
      const doc = state.documents.find((d) => d.uri.toString() === change.uri);
      if (doc) {
        doc.isClosed = true;
      }
    } else {
      const from = vscode.Uri.parse(change.oldUri).fsPath;
      const text = state.disk.get(from) ?? "";
      state.disk.delete(from);
      state.disk.set(vscode.Uri.parse(change.newUri).fsPath, text);
    }
  }
  return { applied: true };
}

/** The server's applyEdit, through the extension's middleware, applied by "VS Code". */
function serverEdit(documentChanges: Change[], extra: Record<string, unknown> = {}, next = vscodeApplies): Promise<any> {
  const handle = client().clientOptions.middleware.workspace.handleApplyEdit;
  return Promise.resolve(handle({ label: "LLM patch: test", edit: { documentChanges, ...extra } }, next));
}

function neverCalled(): Promise<{ applied: boolean }> {
  throw new Error("VS Code was asked to apply an edit that should have been refused");
}

beforeEach(() => {
  vscode.reset();
  languageclient.resetControl();
  state.disk.set("/w/a.py", "COUNT = 1\nNAME = 'a'\n");
  state.disk.set("/w/old.py", "gone = True\n");
  state.disk.set("/w/m.py", "moved = 1\n");
});

afterEach(removeTempDirs);

describe("the server's edits, before VS Code applies them", () => {
  it("an edit planned from disk for a buffer with unsaved changes is refused as stale, naming it", async () => {
    await activate();
    vscode.openFile("/w/a.py").type("# added by the user\nCOUNT = 1\nNAME = 'a'\n");
    const result = await serverEdit([lineEdit("/w/a.py", null, "COUNT = 3\n")], {}, neverCalled);
    assert.equal(result.applied, false);
    assert.match(result.failureReason, /^a\.py has unsaved changes the server did not see .*nothing was applied/);
    assert.equal(vscode.openFile("/w/a.py").getText(), "# added by the user\nCOUNT = 1\nNAME = 'a'\n", "the buffer is untouched");
  });

  it("the same edit on a saved buffer, or with the buffer's version, is applied", async () => {
    await activate();
    vscode.openFile("/w/a.py");
    assert.equal((await serverEdit([lineEdit("/w/a.py", null, "COUNT = 3\n")])).applied, true);
    const doc = vscode.openFile("/w/a.py");
    assert.equal(doc.getText(), "COUNT = 3\nNAME = 'a'\n");
    // now dirty, but a versioned edit was planned on this text (the client checks the version)
    assert.equal((await serverEdit([lineEdit("/w/a.py", doc.version, "COUNT = 4\n")])).applied, true);
  });

  it("deleting a file with unsaved changes asks first, naming it; declining applies nothing", async () => {
    await activate();
    vscode.openFile("/w/old.py").type("gone = False  # my unsaved work\n");
    const result = await serverEdit([{ kind: "delete", uri: uri("/w/old.py") }], {}, neverCalled);
    assert.equal(result.applied, false);
    assert.match(result.failureReason, /would discard the unsaved changes of old\.py; nothing was applied/);
    const asked = state.messages.at(-1);
    assert.equal(asked?.level, "warning");
    assert.match(asked?.text ?? "", /the patch deletes old\.py, but that file has unsaved changes, which would be lost/);
    assert.deepEqual(asked?.items, ["Apply and Discard"]);
    assert.equal(asked?.modal, true);
    assert.ok(state.disk.has("/w/old.py"));
  });

  it("moving a file with unsaved changes applies only after the user confirms", async () => {
    await activate();
    vscode.openFile("/w/m.py").type("moved = 2\n");
    state.answers.push("Apply and Discard");
    const result = await serverEdit([{ kind: "rename", oldUri: uri("/w/m.py"), newUri: uri("/w/n.py") }]);
    assert.equal(result.applied, true);
    assert.match(state.messages.at(-1)?.text ?? "", /the patch moves m\.py/);
    assert.ok(state.disk.has("/w/n.py"));
  });

  it("VS Code applying nothing (every change unticked in the preview) is not reported as applied", async () => {
    await activate();
    const result = await serverEdit(
      [lineEdit("/w/a.py", null, "COUNT = 3\n")],
      { changeAnnotations: { "block-0": { label: "block 0", needsConfirmation: true } } },
      async () => ({ applied: true }),
    );
    assert.deepEqual(result, { applied: false, failureReason: "no file changed: every change was left out in the preview" });
    // without the preview VS Code applies all or nothing: its answer stands
    const plain = await serverEdit([lineEdit("/w/a.py", null, "COUNT = 3\n")], {}, async () => ({ applied: true }));
    assert.deepEqual(plain, { applied: true });
  });
});

describe("Undo Last Patch", () => {
  async function applyPatch(): Promise<void> {
    vscode.openFile("/w/a.py");
    const result = await serverEdit([
      lineEdit("/w/a.py", 1, "COUNT = 3\n"),
      { kind: "create", uri: uri("/w/new.py") },
      { textDocument: { uri: uri("/w/new.py"), version: null }, edits: [{ range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } }, newText: "fresh = 1\n" }] },
      { kind: "delete", uri: uri("/w/old.py") },
      { kind: "rename", oldUri: uri("/w/m.py"), newUri: uri("/w/n.py") },
    ]);
    assert.equal(result.applied, true);
  }

  it("puts back every file the patch touched in one WorkspaceEdit: texts, created, deleted, moved", async () => {
    await activate();
    await applyPatch();
    assert.equal(await run("llmPatch.undoLastPatch"), true);
    assert.equal(state.appliedEdits.length, 1, "one WorkspaceEdit, so one undo reverts the undo");
    assert.deepEqual(
      state.appliedEdits[0].ops.map((op) => (op.kind === "rename" ? `rename ${op.from.path} → ${op.to.path}` : `${op.kind} ${op.uri.path}`)),
      ["rename /w/n.py → /w/m.py", "replace /w/a.py", "delete /w/new.py", "create /w/old.py"],
    );
    assert.equal(vscode.openFile("/w/a.py").getText(), "COUNT = 1\nNAME = 'a'\n");
    assert.equal(state.disk.has("/w/new.py"), false);
    assert.equal(state.disk.get("/w/old.py"), "gone = True\n");
    assert.equal(state.disk.get("/w/m.py"), "moved = 1\n");
    assert.equal(state.disk.has("/w/n.py"), false);
    assert.equal(state.messages.at(-1)?.text, "LLM Patch: undid the last patch in 4 files: m.py (moved back from n.py), a.py, new.py, old.py.");
    // the journal is spent: a second undo has nothing to do
    assert.equal(await run("llmPatch.undoLastPatch"), false);
    assert.match(state.messages.at(-1)?.text ?? "", /no patch to undo/);
  });

  it("a file moved and edited by the patch is moved back, then its text restored", async () => {
    await activate();
    const moved = await serverEdit([
      { kind: "rename", oldUri: uri("/w/m.py"), newUri: uri("/w/n.py") },
      lineEdit("/w/n.py", null, "moved = 2\n"),
    ]);
    assert.equal(moved.applied, true);
    assert.equal(vscode.openFile("/w/n.py").getText(), "moved = 2\n");
    assert.equal(await run("llmPatch.undoLastPatch"), true, JSON.stringify(state.messages.at(-1)));
    assert.deepEqual(
      state.appliedEdits[0].ops.map((op) => (op.kind === "rename" ? `rename ${op.from.path} → ${op.to.path}` : `${op.kind} ${op.uri.path}`)),
      ["rename /w/n.py → /w/m.py", "replace /w/m.py"],
    );
    assert.equal(vscode.openFile("/w/m.py").getText(), "moved = 1\n");
    assert.equal(state.disk.has("/w/n.py"), false);
    assert.equal(state.messages.at(-1)?.text, "LLM Patch: undid the last patch in 1 file: m.py (moved back from n.py).");
  });

  it("refuses, naming the file, when a file changed since the patch; nothing is applied", async () => {
    await activate();
    await applyPatch();
    const doc = vscode.openFile("/w/a.py");
    doc.type(doc.getText() + "# typed after the patch\n");
    assert.equal(await run("llmPatch.undoLastPatch"), false);
    assert.equal(state.appliedEdits.length, 0);
    assert.match(state.messages.at(-1)?.text ?? "", /the last patch was not undone: a\.py changed since it was applied/);
    assert.ok(state.disk.has("/w/n.py"));
  });

  it("undoing a move opens no document for the path moved from (VS Code would keep it open with no file)", async () => {
    await activate();
    const moved = await serverEdit([
      { kind: "rename", oldUri: uri("/w/m.py"), newUri: uri("/w/n.py") },
      lineEdit("/w/n.py", null, "moved = 2\n"),
    ]);
    assert.equal(moved.applied, true);
    state.openCalls = [];
    assert.equal(await run("llmPatch.undoLastPatch"), true);
    assert.deepEqual(state.openCalls.filter((p) => p === "/w/n.py"), [], "n.py was opened by the undo");
    assert.equal(vscode.openFile("/w/m.py").getText(), "moved = 1\n");
    assert.equal(state.disk.has("/w/n.py"), false);
    assert.deepEqual(vscode.workspace.textDocuments.filter((d) => !state.disk.has(d.uri.fsPath)).map((d) => d.uri.fsPath), []);
  });

  it("the undo's ranges cover the whole current text, whatever its line breaks", async () => {
    await activate();
    state.disk.set("/w/crlf.py", "a = 1\r\nb = 2\r\n");
    vscode.openFile("/w/crlf.py");
    assert.equal((await serverEdit([lineEdit("/w/crlf.py", 1, "a = 3\r\n")])).applied, true);
    assert.equal(await run("llmPatch.undoLastPatch"), true);
    assert.equal(vscode.openFile("/w/crlf.py").getText(), "a = 1\r\nb = 2\r\n");
  });

  it("files put back to their saved text are not left marked modified; the others are named", async () => {
    await activate();
    // b.py had unsaved work before the patch: the undo restores that work, unsaved.
    state.disk.set("/w/b.py", "B = 1\n");
    vscode.openFile("/w/b.py").type("B = 2  # unsaved work\n");
    const b = vscode.openFile("/w/b.py");
    vscode.openFile("/w/a.py");
    const result = await serverEdit([lineEdit("/w/a.py", 1, "COUNT = 3\n"), lineEdit("/w/b.py", b.version, "B = 3\n")]);
    assert.equal(result.applied, true);
    assert.equal(vscode.openFile("/w/a.py").isDirty, true);
    assert.equal(await run("llmPatch.undoLastPatch"), true);
    const a = vscode.openFile("/w/a.py");
    assert.equal(a.getText(), "COUNT = 1\nNAME = 'a'\n");
    assert.equal(a.isDirty, false, "a.py holds its saved text again");
    assert.equal(state.disk.get("/w/a.py"), "COUNT = 1\nNAME = 'a'\n", "the same bytes");
    assert.equal(b.getText(), "B = 2  # unsaved work\n");
    assert.equal(b.isDirty, true, "b.py keeps the user's unsaved work, unsaved");
    assert.equal(state.disk.get("/w/b.py"), "B = 1\n");
    assert.deepEqual(state.saved, ["/w/a.py"]);
    assert.match(state.messages.at(-1)?.text ?? "", /Not saved yet \(their text differs from the disk\): b\.py\.$/);
  });

  it("a restored file is left modified when saving could rewrite it (format on save)", async () => {
    await activate();
    state.config.set("editor.formatOnSave", true);
    vscode.openFile("/w/a.py");
    assert.equal((await serverEdit([lineEdit("/w/a.py", 1, "COUNT = 3\n")])).applied, true);
    assert.equal(await run("llmPatch.undoLastPatch"), true);
    assert.equal(vscode.openFile("/w/a.py").isDirty, true);
    assert.deepEqual(state.saved, []);
  });

  it("the status bar stops showing the undone patch's result", async () => {
    await activate();
    vscode.openFile("/w/a.py");
    control.onRequest = async () => {
      await serverEdit([lineEdit("/w/a.py", 1, "COUNT = 3\n")]);
      return serverReport("applied");
    };
    state.clipboard = "reply";
    await run("llmPatch.applyFromClipboard");
    const status = state.statusItems[0];
    assert.match(status.text, /✓/);
    assert.equal(await run("llmPatch.undoLastPatch"), true);
    assert.equal(status.text, "$(discard) undone");
    assert.match(status.tooltip ?? "", /undid the last patch in 1 file: a\.py/);
  });

  it("saving the patched files does not block the undo (the text is the same)", async () => {
    await activate();
    await applyPatch();
    vscode.openFile("/w/a.py").save();
    vscode.openFile("/w/new.py").save();
    assert.equal(await run("llmPatch.undoLastPatch"), true);
  });

  it("a refused undo WorkspaceEdit is an error, and the journal is kept", async () => {
    await activate();
    await applyPatch();
    state.applyEditResult = false;
    assert.equal(await run("llmPatch.undoLastPatch"), false);
    assert.match(state.messages.at(-1)?.text ?? "", /did not apply the undo/);
    state.applyEditResult = true;
    assert.equal(await run("llmPatch.undoLastPatch"), true);
  });
});

describe("what the user is told after an apply", () => {
  it("an apply is logged once, at info, whatever the server logged and showed about it", async () => {
    await activate();
    vscode.openFile("/w/a.py");
    control.onRequest = async () => {
      const c = client();
      c.notificationHandlers.get("window/logMessage")?.({ type: 3, message: "LLM patch: applied 2 edits in 2 files: a.py; not saved yet: a.py." });
      c.notificationHandlers.get("window/showMessage")?.({ type: 3, message: "LLM patch: applied 2 edits in 2 files." });
      c.notificationHandlers.get("window/logMessage")?.({ type: 2, message: "journal: 1 pending entry kept" });
      await serverEdit([lineEdit("/w/a.py", 1, "COUNT = 3\n")]);
      return serverReport("applied");
    };
    state.clipboard = "reply";
    await run("llmPatch.applyFromClipboard");
    const lines = state.outputs[0].lines;
    assert.deepEqual(lines.filter((l) => /applied 2 edits/.test(l)), ["[info] LLM Patch: applied 2 edits in 2 files. Changed, not saved yet: a.py."]);
    assert.ok(lines.includes("[info] server: journal: 1 pending entry kept"), lines.join("\n"));
    assert.deepEqual(lines.filter((l) => /^\[(warn|error)\]/.test(l)), []);
    // outside a run the server's log keeps its levels
    client().notificationHandlers.get("window/logMessage")?.({ type: 1, message: "crashed reading settings" });
    assert.equal(lines.at(-1), "[error] server: crashed reading settings");
  });

  it("names moved and deleted files, and does not say 'not saved yet' when auto save saves them", async () => {
    await activate();
    state.disk.set("/w/gone.py", "x = 1\n");
    vscode.openFile("/w/a.py");
    state.config.set("files.autoSave", "afterDelay");
    control.onRequest = async () => {
      await serverEdit([
        { kind: "rename", oldUri: uri("/w/m.py"), newUri: uri("/w/n.py") },
        lineEdit("/w/n.py", null, "moved = 2\n"),
        lineEdit("/w/a.py", 1, "COUNT = 3\n"),
        { kind: "delete", uri: uri("/w/gone.py") },
      ]);
      return serverReport("applied");
    };
    state.clipboard = "reply";
    await run("llmPatch.applyFromClipboard");
    const msg = state.messages.at(-1);
    assert.equal(msg?.text, "LLM Patch: applied 2 edits in 2 files. Changed: m.py → n.py, a.py. Deleted: gone.py.");
    assert.deepEqual(msg?.items, ["Show Report"]);
  });

  it("names the files the patch changed and those not saved yet, with Save All; on the code-action path too", async () => {
    await activate();
    vscode.openFile("/w/a.py");
    control.onRequest = async () => {
      await serverEdit([lineEdit("/w/a.py", 1, "COUNT = 3\n")]);
      return serverReport("applied");
    };
    state.clipboard = "reply";
    state.answers.push("Save All");
    await run("llmPatch.applyFromClipboard");
    const msg = state.messages.at(-1);
    assert.equal(msg?.text, "LLM Patch: applied 2 edits in 2 files. Changed, not saved yet: a.py.");
    assert.deepEqual(msg?.items, ["Save All", "Show Report"]);
    await new Promise((r) => setTimeout(r, 5));
    assert.equal(state.savedAll, 1);

    // a code action runs llmPatch.apply through the client's executeCommand middleware
    vscode.openFile("/w/a.py").save();
    const middleware = client().clientOptions.middleware;
    await middleware.executeCommand("llmPatch.apply", [{ uri: "file:///w/reply.llm.md" }], async () => {
      await serverEdit([lineEdit("/w/a.py", null, "COUNT = 5\n")]);
      return serverReport("applied");
    });
    assert.equal(state.messages.at(-1)?.text, "LLM Patch: applied 2 edits in 2 files. Changed, not saved yet: a.py.");
  });

  it("a refused apply names no files (nothing landed), and the server's own message is not shown twice", async () => {
    await activate();
    control.onRequest = () => {
      // the server says it on window/showMessage too; the report's notification already does
      client().notificationHandlers.get("window/showMessage")?.({ type: 2, message: "LLM patch not applied: 1 of 2 edits failed" });
      return serverReport("refused");
    };
    state.clipboard = "reply";
    await run("llmPatch.applyFromClipboard");
    assert.equal(state.messages.length, 1, JSON.stringify(state.messages));
    assert.deepEqual(state.messages[0].items, ["Show Report"]);
    // said once in the log too: the extension's line, not the server's echo of it
    assert.ok(!state.outputs[0].lines.some((l) => l.includes("LLM patch not applied: 1 of 2 edits failed")), state.outputs[0].lines.join("\n"));
    assert.equal(state.outputs[0].lines.filter((l) => l.includes("1 of 2 blocks failed")).length, 1, state.outputs[0].lines.join("\n"));
    // outside a command the server's messages are shown as VS Code's client would
    client().notificationHandlers.get("window/showMessage")?.({ type: 1, message: "something else" });
    assert.deepEqual(state.messages.at(-1), { level: "error", text: "something else", items: [] });
  });
});

describe("the caller's target", () => {
  it("the clipboard commands pass the active editor", async () => {
    await activate();
    vscode.focus(vscode.openFile("/w/a.py"));
    state.clipboard = "Here is the new `compute`:\n```python\ndef compute(): ...\n```\n";
    await run("llmPatch.applyFromClipboard");
    await run("llmPatch.checkClipboard");
    vscode.focus(undefined);
    await run("llmPatch.previewFromClipboard");
    assert.deepEqual(
      client().requests.map((r) => r.params.arguments),
      [
        [{ text: state.clipboard, target: "file:///w/a.py" }],
        [{ text: state.clipboard, target: "file:///w/a.py" }],
        [{ text: state.clipboard }, { preview: true }],
      ],
    );
  });

  it("only a file in the workspace is a target: the server refuses any other for the whole reply", async () => {
    await activate();
    state.clipboard = "reply";
    vscode.focus(vscode.openFile("/elsewhere/x.py"));
    await run("llmPatch.applyFromClipboard");
    const scratch = new vscode.FakeTextDocument(vscode.Uri.parse("untitled:Untitled-3"), "");
    vscode.focus(scratch);
    await run("llmPatch.applyFromClipboard");
    // Apply Selection in the scratch buffer: the editors before it are not in the workspace
    await run("llmPatch.applySelection");
    assert.deepEqual(
      client().requests.map((r) => r.params.arguments[0]),
      [{ text: "reply" }, { text: "reply" }, { uri: "untitled:Untitled-3" }],
    );
  });

  it("Apply Selection and Preview Selection pass the editor used before the reply", async () => {
    await activate();
    vscode.focus(vscode.openFile("/w/b.py"));
    vscode.focus(vscode.openFile("/w/a.py"));
    const reply = new vscode.FakeTextDocument(vscode.Uri.file("/w/reply.llm.md"), "x\n```python\ndef f(): ...\n```\n");
    state.documents.push(reply);
    vscode.focus(reply, new vscode.Selection(new vscode.Position(1, 0), new vscode.Position(3, 3)));
    await run("llmPatch.applySelection");
    await run("llmPatch.previewSelection");
    const range = { start: { line: 1, character: 0 }, end: { line: 3, character: 3 } };
    assert.deepEqual(
      client().requests.map((r) => r.params.arguments),
      [
        [{ uri: "file:///w/reply.llm.md", range, target: "file:///w/a.py" }],
        [{ uri: "file:///w/reply.llm.md", range, target: "file:///w/a.py" }, { preview: true }],
      ],
    );
  });

  it("Apply Patch File (explorer) and Apply Reply (editor title) send the file by URI", async () => {
    await activate();
    vscode.focus(vscode.openFile("/w/a.py"));
    await run("llmPatch.applyPatchFile", vscode.Uri.file("/w/fix.patch"));
    await run("llmPatch.applyReply", vscode.Uri.file("/w/a.py"));
    state.openDialogAnswer = [vscode.Uri.file("/w/other.diff")];
    vscode.focus(undefined);
    state.activeTextEditor = undefined;
    await run("llmPatch.applyPatchFile");
    assert.deepEqual(
      client().requests.map((r) => r.params.arguments),
      [
        [{ uri: "file:///w/fix.patch", target: "file:///w/a.py" }],
        [{ uri: "file:///w/a.py" }],
        [{ uri: "file:///w/other.diff", target: "file:///w/a.py" }],
      ],
    );
  });
});

describe("Restricted Mode (untrusted workspace)", () => {
  it("writing commands say why and send nothing; checks still run; the server is read-only", async () => {
    state.trusted = false;
    await activate();
    state.clipboard = "reply";
    for (const command of ["llmPatch.applyFromClipboard", "llmPatch.previewFromClipboard", "llmPatch.applySelection", "llmPatch.previewSelection", "llmPatch.applyPatchFile", "llmPatch.undoLastPatch"]) {
      await run(command);
      assert.equal(state.messages.at(-1)?.text, UNTRUSTED_MESSAGE, command);
    }
    assert.equal(client().requests.length, 0);
    control.onRequest = () => serverReport("checked");
    await run("llmPatch.checkClipboard");
    assert.equal(client().requests[0].params.command, "llmPatch.check");
    assert.equal(client().clientOptions.initializationOptions().llmPatch.mode, "restricted");
    const configuration = client().clientOptions.middleware.workspace.configuration;
    const answer = await configuration(
      { items: [{ section: "llmPatch" }, { section: "llmPatch.mode" }, { section: "files" }] },
      undefined,
      async () => [{ mode: "unrestricted", atomic: true }, "unrestricted", { eol: "\n" }],
    );
    assert.deepEqual(answer, [{ mode: "restricted", atomic: true }, "restricted", { eol: "\n" }]);
    // a settings change does not push the user's `mode`: the server is told to ask instead
    const pushed: unknown[] = [];
    await client().clientOptions.middleware.workspace.didChangeConfiguration(["llmPatch"], async (s: unknown) => {
      pushed.push(s);
    });
    assert.deepEqual(pushed, [undefined]);
  });

  it("never runs the workspace's Python, and restarts with writing allowed once trusted", async () => {
    state.trusted = false;
    let asked = false;
    state.extensions.set("ms-python.python", {
      isActive: true,
      get exports() {
        asked = true;
        return {};
      },
    });
    await activate();
    assert.equal(asked, false, "the Python extension's interpreter was not even looked up");
    state.trusted = true;
    for (const l of state.trustListeners) {
      l();
    }
    for (let i = 0; i < 100 && control.instances.length < 2; i++) {
      await new Promise((r) => setTimeout(r, 5));
    }
    assert.equal(control.instances.length, 2);
    assert.equal(client().clientOptions.initializationOptions().llmPatch.mode, "unrestricted");
    const pushed: unknown[] = [];
    await client().clientOptions.middleware.workspace.didChangeConfiguration(["llmPatch"], async (s: unknown) => {
      pushed.push(s);
    });
    assert.deepEqual(pushed, [["llmPatch"]], "trusted: settings are pushed as usual");
  });
});
