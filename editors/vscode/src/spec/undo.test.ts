import assert from "node:assert/strict";
import { describe, it } from "node:test";

import { ABSENT, changedEntries, endOf, planUndo, saveIsNoOp, type FileState, type Journal, type UndoOp } from "../undo";
import { discardedWork, discardQuestion, touchedFiles, touchedUris, unsyncedEdits } from "../workspace_edit";

type Files = Map<string, string>;

/** The oracle: apply undo operations to a plain map of files. */
function applyOps(files: Files, ops: readonly UndoOp[]): Files {
  const out = new Map(files);
  for (const op of ops) {
    if (op.kind === "replace") {
      assert.ok(out.has(op.uri), `replace of missing ${op.uri}`);
      out.set(op.uri, op.text);
    } else if (op.kind === "create") {
      assert.ok(!out.has(op.uri), `create over existing ${op.uri}`);
      out.set(op.uri, op.text);
    } else if (op.kind === "delete") {
      out.delete(op.uri);
    } else {
      assert.ok(out.has(op.from) && !out.has(op.to), `rename ${op.from} → ${op.to}`);
      out.set(op.to, out.get(op.from) ?? "");
      out.delete(op.from);
    }
  }
  return out;
}

function state(files: Files, uri: string): FileState {
  const text = files.get(uri);
  return text === undefined ? ABSENT : { exists: true, text };
}

/** A small deterministic generator (no dependency, same cases on every run). */
function rng(seed: number): () => number {
  let x = seed;
  return () => {
    x = (x * 1103515245 + 12345) & 0x7fffffff;
    return x / 0x7fffffff;
  };
}

describe("planUndo", () => {
  it("restores every file of any patch (edits, creates, deletes, moves): 300 generated patches", () => {
    const random = rng(7);
    const names = ["a", "b", "c", "d", "e"];
    let allMoves = 0;
    for (let n = 0; n < 300; n++) {
      const before: Files = new Map(names.filter(() => random() < 0.6).map((u) => [u, `${u}${Math.floor(random() * 3)}`]));
      const after: Files = new Map(before);
      const moves: { from: string; to: string }[] = [];
      const moved = new Set<string>();
      for (const u of names) {
        if (moved.has(u)) {
          continue; // a move's target is not touched again
        }
        const r = random();
        if (after.has(u) && r < 0.2) {
          after.delete(u);
        } else if (after.has(u) && r < 0.4) {
          after.set(u, `${after.get(u)}+`);
        } else if (!after.has(u) && r < 0.6) {
          after.set(u, "new");
        } else if (after.has(u) && r < 0.75) {
          const to = names.find((t) => !after.has(t) && !before.has(t));
          if (to) {
            after.set(to, random() < 0.5 ? (after.get(u) ?? "") : "edited");
            after.delete(u);
            moves.push({ from: u, to });
            moved.add(to);
          }
        }
      }
      const journal: Journal = {
        entries: names.map((uri) => ({ uri, before: state(before, uri), after: state(after, uri) })),
        moves,
      };
      const plan = planUndo(journal, (uri) => state(after, uri));
      assert.ok(plan.ok, `case ${n}`);
      assert.deepEqual(applyOps(after, plan.ops), before, `case ${n}: ${JSON.stringify({ before: [...before], after: [...after], moves })}`);
      assert.equal(plan.ops.filter((o) => o.kind === "rename").length, moves.length, `case ${n}: each move is undone as a move`);
      allMoves += moves.length;
    }
    assert.ok(allMoves > 30, `the generator makes moves (${allMoves})`);
  });

  it("refuses, naming every file that changed since, and touches nothing", () => {
    const journal: Journal = {
      entries: [
        { uri: "a", before: { exists: true, text: "1" }, after: { exists: true, text: "2" } },
        { uri: "b", before: ABSENT, after: { exists: true, text: "x" } },
        { uri: "c", before: { exists: true, text: "same" }, after: { exists: true, text: "same" } },
      ],
      moves: [],
    };
    const now: Record<string, FileState> = { a: { exists: true, text: "2!" }, b: ABSENT, c: { exists: true, text: "other" } };
    assert.deepEqual(planUndo(journal, (u) => now[u]), { ok: false, changed: ["a", "b"] }, "c was not part of the change");
    assert.deepEqual(changedEntries(journal).map((e) => e.uri), ["a", "b"]);
  });
});

describe("workspace edits from the server", () => {
  const edit = {
    documentChanges: [
      { textDocument: { uri: "file:///w/a.py", version: null }, edits: [] },
      { textDocument: { uri: "file:///w/b.py", version: 4 }, edits: [] },
      { kind: "create" as const, uri: "file:///w/c.py" },
      { textDocument: { uri: "file:///w/c.py", version: null }, edits: [] },
      { kind: "rename" as const, oldUri: "file:///w/d.py", newUri: "file:///w/e.py", options: { overwrite: true } },
      { kind: "delete" as const, uri: "file:///w/f.py" },
    ],
    changes: { "file:///w/g.py": [] },
  };
  const touches = touchedFiles(edit);

  it("lists every file operation, a move's both ends once each", () => {
    assert.deepEqual(touches.map((t) => t.op), ["edit", "edit", "create", "edit", "rename", "delete", "edit"]);
    assert.deepEqual(touchedUris(touches), ["a", "b", "c", "d", "e", "f", "g"].map((n) => `file:///w/${n}.py`));
  });

  it("an unversioned edit to a dirty buffer is unsynced; versioned, created or clean ones are not", () => {
    const dirty = new Set(["file:///w/a.py", "file:///w/b.py", "file:///w/c.py", "file:///w/g.py"]);
    const open = (uri: string) => (uri === "file:///w/h.py" ? undefined : { dirty: dirty.has(uri) });
    assert.deepEqual(unsyncedEdits(touches, open), ["file:///w/a.py", "file:///w/g.py"]);
    assert.deepEqual(unsyncedEdits(touches, () => ({ dirty: false })), []);
  });

  it("a moved file's edit, planned from the disk's text of its unsaved source, is unsynced, named by the source", () => {
    const moved = touchedFiles({
      documentChanges: [
        { kind: "rename" as const, oldUri: "file:///w/m.py", newUri: "file:///w/n.py" },
        { textDocument: { uri: "file:///w/n.py", version: null }, edits: [] },
      ],
    });
    assert.deepEqual(unsyncedEdits(moved, (uri) => ({ dirty: uri === "file:///w/m.py" })), ["file:///w/m.py"]);
    assert.deepEqual(unsyncedEdits(moved, () => ({ dirty: false })), []);
  });

  it("deleting, moving or overwriting unsaved work is named in one question", () => {
    const dirty = new Set(["file:///w/d.py", "file:///w/e.py", "file:///w/f.py"]);
    const discards = discardedWork(touches, (uri) => ({ dirty: dirty.has(uri) }));
    assert.deepEqual(discards.map((d) => [d.uri.slice(10), d.what]), [["d.py", "move"], ["e.py", "overwrite"], ["f.py", "delete"]]);
    assert.equal(
      discardQuestion(discards, (u) => u.slice(10)),
      "LLM Patch: the patch moves d.py, overwrites e.py, deletes f.py, but those files have unsaved changes, which would be lost.",
    );
    assert.deepEqual(discardedWork(touches, () => undefined), [], "files that are not open have no unsaved work");
  });
});

describe("endOf", () => {
  it("is where an editor puts the end of any text (every mix of line breaks): 500 generated texts", () => {
    const random = rng(11);
    const pieces = ["a", "bc", " ", "\n", "\r\n", "\r", "é"];
    for (let n = 0; n < 500; n++) {
      let text = "";
      for (let i = Math.floor(random() * 12); i > 0; i--) {
        text += pieces[Math.floor(random() * pieces.length)];
      }
      // The oracle walks the text as an editor does: "\r\n" is one break, a lone "\r" or "\n" one each.
      let line = 0;
      let character = 0;
      for (let i = 0; i < text.length; i++) {
        if (text[i] === "\r" && text[i + 1] === "\n") {
          i += 1;
          line += 1;
          character = 0;
        } else if (text[i] === "\r" || text[i] === "\n") {
          line += 1;
          character = 0;
        } else {
          character += 1;
        }
      }
      assert.deepEqual(endOf(text), { line, character }, JSON.stringify(text));
    }
  });
});

describe("saveIsNoOp", () => {
  const none = { formatOnSave: false, trimTrailingWhitespace: false, insertFinalNewline: false, trimFinalNewlines: false, codeActionsOnSave: false };
  const bytes = (s: string) => new TextEncoder().encode(s);
  it("only when the buffer is the disk's bytes and no save participant would rewrite it", () => {
    assert.equal(saveIsNoOp(bytes("x = 1\n"), bytes("x = 1\n"), none), true);
    assert.equal(saveIsNoOp(bytes("x = 1\n"), bytes("x = 1\r\n"), none), false);
    assert.equal(saveIsNoOp(bytes("x = 1\n"), bytes("x = 2\n"), none), false);
    assert.equal(saveIsNoOp(bytes("x = 1\n"), undefined, none), false);
    for (const hook of Object.keys(none)) {
      assert.equal(saveIsNoOp(bytes("x = 1\n"), bytes("x = 1\n"), { ...none, [hook]: true }), false, hook);
    }
  });
});
