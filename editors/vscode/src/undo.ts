/**
 * *Undo Last Patch*: every file the last patch touched, put back as it was, in one
 * WorkspaceEdit (so that undo is itself undoable). VS Code's own undo works per editor and
 * per file; a patch that created, moved or edited several files needs this.
 *
 * The extension records each file's state right before the server's edit is applied and
 * right after. Undo is refused when any of those files changed since the patch (typing,
 * another tool, a second patch): it would throw that newer work away. Pure: states in, the
 * operations to apply out.
 */

/** A file as the editor shows it: its text (the buffer if open, else the disk), or absent. */
export interface FileState {
  exists: boolean;
  text: string;
}

export interface JournalEntry {
  uri: string;
  before: FileState;
  after: FileState;
}

/** What one applied patch did, file by file; `moves` are its renames, from → to. */
export interface Journal {
  entries: JournalEntry[];
  moves: { from: string; to: string }[];
}

export type UndoOp =
  /** `from`: where the text is before the undo, when a move back comes first (else `uri`). */
  | { kind: "replace"; uri: string; text: string; from?: string }
  | { kind: "create"; uri: string; text: string }
  | { kind: "delete"; uri: string }
  | { kind: "rename"; from: string; to: string };

export type UndoPlan = { ok: true; ops: UndoOp[] } | { ok: false; changed: string[] };

export const ABSENT: FileState = { exists: false, text: "" };

export function sameState(a: FileState, b: FileState): boolean {
  return a.exists === b.exists && (!a.exists || a.text === b.text);
}

/** The files whose state the patch changed (a patch VS Code applied may still change none). */
export function changedEntries(journal: Journal): JournalEntry[] {
  return journal.entries.filter((e) => !sameState(e.before, e.after));
}

/**
 * The operations that restore every file to its state before the patch, or the files that
 * changed since it (then nothing may be undone). `now` is each file's current state.
 */
export function planUndo(journal: Journal, now: (uri: string) => FileState): UndoPlan {
  const entries = changedEntries(journal);
  const changed = entries.filter((e) => !sameState(now(e.uri), e.after)).map((e) => e.uri);
  if (changed.length > 0) {
    return { ok: false, changed };
  }
  const byUri = new Map(entries.map((e) => [e.uri, e]));
  const done = new Set<string>();
  const ops: UndoOp[] = [];
  // A move is undone by moving back (the editor keeps the tab and its history), then the
  // text is restored if the patch also edited it.
  for (const { from, to } of journal.moves) {
    const source = byUri.get(from);
    const target = byUri.get(to);
    if (!source || !target || done.has(from) || done.has(to)) {
      continue;
    }
    if (source.before.exists && !source.after.exists && !target.before.exists && target.after.exists) {
      ops.push({ kind: "rename", from: to, to: from });
      if (target.after.text !== source.before.text) {
        ops.push({ kind: "replace", uri: from, text: source.before.text, from: to });
      }
      done.add(from);
      done.add(to);
    }
  }
  for (const e of entries) {
    if (done.has(e.uri)) {
      continue;
    }
    if (e.before.exists && e.after.exists) {
      ops.push({ kind: "replace", uri: e.uri, text: e.before.text });
    } else if (e.after.exists) {
      ops.push({ kind: "delete", uri: e.uri });
    } else {
      ops.push({ kind: "create", uri: e.uri, text: e.before.text });
    }
  }
  return { ok: true, ops };
}

/**
 * Where a text ends, as an editor counts lines (`\r\n`, `\n` and `\r` each end one): the
 * end of a range covering all of it. Undo replaces a file's whole text by a range built from
 * the text it verified, without opening the document (opening a moved file's new path would
 * leave that path open after the move back, with no file behind it).
 */
export function endOf(text: string): { line: number; character: number } {
  const lines = text.split(/\r\n|\r|\n/);
  return { line: lines.length - 1, character: lines[lines.length - 1].length };
}

/** Save participants that would change a document's text when it is saved. */
export interface SaveHooks {
  formatOnSave: boolean;
  trimTrailingWhitespace: boolean;
  insertFinalNewline: boolean;
  trimFinalNewlines: boolean;
  codeActionsOnSave: boolean;
}

/**
 * Whether a document the undo restored may be marked saved by saving it: only when saving
 * provably writes the bytes already on disk (its text encodes to exactly those bytes, and no
 * save participant would rewrite it). Otherwise it stays marked modified, which is true.
 */
export function saveIsNoOp(bufferBytes: Uint8Array, diskBytes: Uint8Array | undefined, hooks: SaveHooks): boolean {
  if (diskBytes === undefined || bufferBytes.length !== diskBytes.length) {
    return false;
  }
  if (Object.values(hooks).some(Boolean)) {
    return false;
  }
  return bufferBytes.every((b, i) => b === diskBytes[i]);
}
