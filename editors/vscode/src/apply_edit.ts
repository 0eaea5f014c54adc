/**
 * The extension's side of the server's `workspace/applyEdit` (a language-client middleware):
 * refuse an edit that would land on text the server never saw, ask before discarding unsaved
 * work, record every touched file before and after (for *Undo Last Patch* and for telling the
 * user what changed), and put the files back on request. The decisions are in
 * workspace_edit.ts and undo.ts; this file reads the editor's state and applies.
 */
import * as vscode from "vscode";

import {
  ABSENT,
  changedEntries,
  endOf,
  planUndo,
  saveIsNoOp,
  type FileState,
  type Journal,
  type SaveHooks,
  type UndoOp,
} from "./undo";
import {
  discardedWork,
  discardQuestion,
  discardReason,
  touchedFiles,
  touchedUris,
  unsyncedEdits,
  unsyncedReason,
  type LspWorkspaceEdit,
  type OpenDocument,
} from "./workspace_edit";

export interface ApplyEditParams {
  label?: string;
  edit: LspWorkspaceEdit & { changeAnnotations?: Record<string, { needsConfirmation?: boolean }> };
}

export interface ApplyEditResult {
  applied: boolean;
  failureReason?: string;
}

/** A patch that landed: its journal, and a number telling patches apart. */
export interface AppliedPatch {
  journal: Journal;
  seq: number;
}

export type UndoOutcome =
  | { kind: "nothing" }
  | { kind: "changed"; files: string[] }
  | { kind: "failed" }
  /** `unsaved`: restored files whose buffers still differ from the disk (saving is the user's call). */
  | { kind: "undone"; files: string[]; unsaved: string[] };

const decoder = new TextDecoder();

/** The same URI as VS Code spells it (the server's spelling may escape differently). */
function canonical(uri: string): string {
  return vscode.Uri.parse(uri).toString();
}

function openDocument(uri: string): vscode.TextDocument | undefined {
  const key = canonical(uri);
  return vscode.workspace.textDocuments.find((d) => !d.isClosed && d.uri.toString() === key);
}

export function displayName(uri: string): string {
  return vscode.workspace.asRelativePath(vscode.Uri.parse(uri), false);
}

/** The text the user sees: the buffer when open (saved or not), else the disk; else absent. */
export async function fileState(uri: string): Promise<FileState> {
  const doc = openDocument(uri);
  let onDisk: Uint8Array | undefined;
  try {
    onDisk = await vscode.workspace.fs.readFile(vscode.Uri.parse(uri));
  } catch {
    onDisk = undefined;
  }
  if (doc && (onDisk !== undefined || doc.isDirty || doc.isUntitled)) {
    return { exists: true, text: doc.getText() };
  }
  return onDisk === undefined ? ABSENT : { exists: true, text: decoder.decode(onDisk) };
}

/**
 * A file's state right after VS Code applied an edit to it: the edited document as VS Code
 * holds it (asked for, not looked up, so a document the edit has just opened is seen too).
 */
async function landedState(uri: string, edited: boolean): Promise<FileState> {
  const state = await fileState(uri);
  const parsed = vscode.Uri.parse(uri);
  if (!edited || !state.exists || parsed.scheme !== "file") {
    return state;
  }
  // The document VS Code holds, when it is known already; opened only when not (each open
  // is one more document VS Code keeps, even after the file moves away).
  const open = openDocument(uri);
  if (open) {
    return { exists: true, text: open.getText() };
  }
  try {
    return { exists: true, text: (await vscode.workspace.openTextDocument(parsed)).getText() };
  } catch {
    return state;
  }
}

function openState(uri: string): OpenDocument | undefined {
  const doc = openDocument(uri);
  return doc ? { dirty: doc.isDirty } : undefined;
}

/** Whether VS Code saves the file by itself (`files.autoSave` other than `off`). */
function autoSaves(uri: string): boolean {
  const mode = vscode.workspace.getConfiguration("files", vscode.Uri.parse(uri)).get<string>("autoSave", "off");
  return mode !== "off";
}

/** Whether the document is open with unsaved changes. */
export function isUnsaved(uri: string): boolean {
  return openDocument(uri)?.isDirty === true;
}

/** Each file the undo restores, once: a move back is one file, named with where it was. */
function undoneFiles(ops: readonly UndoOp[]): string[] {
  const names = new Map<string, string>();
  for (const op of ops) {
    if (op.kind === "rename") {
      names.set(op.to, `${displayName(op.to)} (moved back from ${displayName(op.from)})`);
    } else if (!names.has(op.uri)) {
      names.set(op.uri, displayName(op.uri));
    }
  }
  return [...names.values()];
}

function saveHooks(doc: vscode.TextDocument): SaveHooks {
  const editor = vscode.workspace.getConfiguration("editor", doc);
  const files = vscode.workspace.getConfiguration("files", doc);
  const actions = editor.get<unknown>("codeActionsOnSave");
  return {
    formatOnSave: editor.get<boolean>("formatOnSave", false) === true,
    trimTrailingWhitespace: files.get<boolean>("trimTrailingWhitespace", false) === true,
    insertFinalNewline: files.get<boolean>("insertFinalNewline", false) === true,
    trimFinalNewlines: files.get<boolean>("trimFinalNewlines", false) === true,
    codeActionsOnSave: Array.isArray(actions)
      ? actions.length > 0
      : typeof actions === "object" && actions !== null && Object.values(actions).some((v) => v !== false && v !== "never"),
  };
}

/**
 * After the undo, a restored document holding exactly the bytes on disk is saved, so it is
 * no longer marked modified (VS Code marks any edit so, even one that restores the saved
 * text). Saving then writes the same bytes: checked right before, and skipped when a save
 * participant could rewrite the text. Whether the document is saved (or was never open).
 */
async function settleRestored(uri: string): Promise<boolean> {
  const doc = openDocument(uri);
  if (!doc || !doc.isDirty) {
    return true;
  }
  let disk: Uint8Array | undefined;
  try {
    disk = await vscode.workspace.fs.readFile(doc.uri);
  } catch {
    disk = undefined;
  }
  if (!saveIsNoOp(new TextEncoder().encode(doc.getText()), disk, saveHooks(doc))) {
    return false;
  }
  return doc.save();
}

export class PatchJournal {
  last: AppliedPatch | undefined;
  private seq = 0;

  /** How many edits have landed so far: compare before and after a command. */
  get count(): number {
    return this.seq;
  }

  /** The middleware: check, confirm, record, apply. */
  async handle(
    params: ApplyEditParams,
    next: (params: ApplyEditParams) => Promise<ApplyEditResult> | ApplyEditResult,
  ): Promise<ApplyEditResult> {
    const touches = touchedFiles(params.edit);
    const unsynced = unsyncedEdits(touches, openState);
    if (unsynced.length > 0) {
      return { applied: false, failureReason: unsyncedReason(unsynced, displayName) };
    }
    const discards = discardedWork(touches, openState);
    if (discards.length > 0) {
      const go = "Apply and Discard";
      const choice = await vscode.window.showWarningMessage(discardQuestion(discards, displayName), { modal: true }, go);
      if (choice !== go) {
        return { applied: false, failureReason: discardReason(discards, displayName) };
      }
    }
    const uris = touchedUris(touches);
    const before = await Promise.all(uris.map(fileState));
    const result = await next(params);
    if (!result.applied) {
      return result;
    }
    const edited = new Set(touches.filter((t) => t.op === "edit").map((t) => t.uri));
    const after = await Promise.all(uris.map((uri) => landedState(uri, edited.has(uri))));
    const journal: Journal = {
      entries: uris.map((uri, i) => ({ uri, before: before[i], after: after[i] })),
      moves: touches.flatMap((t) => (t.op === "rename" ? [{ from: t.uri, to: t.newUri }] : [])),
    };
    const previewed = Object.values(params.edit.changeAnnotations ?? {}).some((a) => a.needsConfirmation);
    if (previewed && uris.length > 0 && changedEntries(journal).length === 0) {
      // VS Code says applied, yet no file is different: every change was left out in the
      // refactor preview. Saying so keeps the report from claiming edits that are not there.
      // (Without the preview VS Code applies all or nothing: `applied` is the whole truth.)
      return { applied: false, failureReason: "no file changed: every change was left out in the preview" };
    }
    this.seq += 1;
    this.last = { journal, seq: this.seq };
    return result;
  }

  /**
   * The files the patch numbered `seq` changed (a move named `from → to`), those it deleted,
   * and which changed files are not saved yet: unsaved, and not left to auto save (which
   * saves them by itself).
   */
  changedFiles(seq: number): { changed: string[]; unsaved: string[]; deleted: string[] } | undefined {
    if (!this.last || this.last.seq !== seq) {
      return undefined;
    }
    const entries = changedEntries(this.last.journal);
    const gone = new Set(entries.filter((e) => e.before.exists && !e.after.exists).map((e) => e.uri));
    const movedTo = new Map<string, string>();
    for (const { from, to } of this.last.journal.moves) {
      if (gone.has(from)) {
        movedTo.set(to, from);
        gone.delete(from);
      }
    }
    const name = (uri: string) => {
      const from = movedTo.get(uri);
      return from === undefined ? displayName(uri) : `${displayName(from)} → ${displayName(uri)}`;
    };
    const changed = entries.filter((e) => e.after.exists);
    return {
      changed: changed.map((e) => name(e.uri)),
      unsaved: changed.filter((e) => isUnsaved(e.uri) && !autoSaves(e.uri)).map((e) => name(e.uri)),
      deleted: entries.filter((e) => gone.has(e.uri)).map((e) => displayName(e.uri)),
    };
  }

  /** Puts back every file the last patch touched, unless one changed since. */
  async undo(): Promise<UndoOutcome> {
    const patch = this.last;
    if (!patch) {
      return { kind: "nothing" };
    }
    const entries = changedEntries(patch.journal);
    const states = new Map<string, FileState>();
    for (const e of entries) {
      states.set(e.uri, await fileState(e.uri));
    }
    const plan = planUndo(patch.journal, (uri) => states.get(uri) ?? ABSENT);
    if (!plan.ok) {
      return { kind: "changed", files: plan.changed.map(displayName) };
    }
    const edit = new vscode.WorkspaceEdit();
    const encoder = new TextEncoder();
    for (const op of plan.ops) {
      if (op.kind === "replace") {
        // The range covers the text as it is now (verified above), which a move back only
        // relocates; built from that text, so no document is opened for the path moved from.
        const end = endOf(states.get(op.from ?? op.uri)?.text ?? "");
        const whole = new vscode.Range(new vscode.Position(0, 0), new vscode.Position(end.line, end.character));
        edit.replace(vscode.Uri.parse(op.uri), whole, op.text);
      } else if (op.kind === "create") {
        edit.createFile(vscode.Uri.parse(op.uri), { contents: encoder.encode(op.text) });
      } else if (op.kind === "delete") {
        edit.deleteFile(vscode.Uri.parse(op.uri), { ignoreIfNotExists: true });
      } else {
        edit.renameFile(vscode.Uri.parse(op.from), vscode.Uri.parse(op.to));
      }
    }
    if (!(await vscode.workspace.applyEdit(edit))) {
      return { kind: "failed" };
    }
    this.last = undefined;
    const restored = new Set(plan.ops.flatMap((op) => (op.kind === "replace" ? [op.uri] : op.kind === "rename" ? [op.to] : [])));
    const unsaved: string[] = [];
    for (const uri of restored) {
      if (!(await settleRestored(uri))) {
        unsaved.push(displayName(uri));
      }
    }
    return { kind: "undone", files: undoneFiles(plan.ops), unsaved };
  }
}
