/**
 * What the server's `workspace/applyEdit` will do to the user's files, read before VS Code
 * applies it: which files it touches, and which of them it must not touch as sent.
 *
 * - A text edit without a version was planned from the file on disk. If that file is open
 *   with unsaved changes, the edit's positions are positions in text the server never saw:
 *   applied, it would land in the wrong place. Refused as stale.
 * - Deleting, moving or overwriting a file that has unsaved changes would throw that work
 *   away: the user must confirm it, naming the file.
 *
 * Pure: the LSP shapes in, plain values out; the extension answers the questions about open
 * documents and shows the confirmation.
 */

export interface LspTextDocumentEdit {
  textDocument: { uri: string; version: number | null };
  edits: unknown[];
}

export interface LspCreateFile {
  kind: "create";
  uri: string;
  options?: { overwrite?: boolean; ignoreIfExists?: boolean };
}

export interface LspRenameFile {
  kind: "rename";
  oldUri: string;
  newUri: string;
  options?: { overwrite?: boolean; ignoreIfExists?: boolean };
}

export interface LspDeleteFile {
  kind: "delete";
  uri: string;
  options?: { recursive?: boolean; ignoreIfNotExists?: boolean };
}

export type LspDocumentChange = LspTextDocumentEdit | LspCreateFile | LspRenameFile | LspDeleteFile;

export interface LspWorkspaceEdit {
  changes?: Record<string, unknown[]>;
  documentChanges?: LspDocumentChange[];
}

/** One thing the edit does to one file. */
export type FileTouch =
  | { op: "edit"; uri: string; version: number | null }
  | { op: "create"; uri: string; overwrite: boolean }
  | { op: "delete"; uri: string }
  | { op: "rename"; uri: string; newUri: string; overwrite: boolean };

/** What the editor knows of an open document. */
export interface OpenDocument {
  dirty: boolean;
}

function isTextDocumentEdit(change: LspDocumentChange): change is LspTextDocumentEdit {
  return "textDocument" in change;
}

/** Every file operation in the edit, in order (`changes` edits carry no version). */
export function touchedFiles(edit: LspWorkspaceEdit): FileTouch[] {
  const out: FileTouch[] = [];
  for (const change of edit.documentChanges ?? []) {
    if (isTextDocumentEdit(change)) {
      out.push({ op: "edit", uri: change.textDocument.uri, version: change.textDocument.version });
    } else if (change.kind === "create") {
      out.push({ op: "create", uri: change.uri, overwrite: change.options?.overwrite === true });
    } else if (change.kind === "delete") {
      out.push({ op: "delete", uri: change.uri });
    } else if (change.kind === "rename") {
      out.push({ op: "rename", uri: change.oldUri, newUri: change.newUri, overwrite: change.options?.overwrite === true });
    }
  }
  for (const uri of Object.keys(edit.changes ?? {})) {
    out.push({ op: "edit", uri, version: null });
  }
  return out;
}

/** Every URI the edit reads or writes (a move's both ends), each once, in order. */
export function touchedUris(touches: readonly FileTouch[]): string[] {
  const uris = touches.flatMap((t) => (t.op === "rename" ? [t.uri, t.newUri] : [t.uri]));
  return [...new Set(uris)];
}

/**
 * Text edits planned from disk for documents that have unsaved changes: their positions are
 * not positions in the text the user has. (An edit to a document created earlier in the same
 * edit is not from disk, and a versioned edit is checked by the language client itself.) A
 * moved file is renamed first and edited under its new name: that edit was planned from the
 * disk's text of the source, so an unsaved source makes it unsynced, named by the source.
 */
export function unsyncedEdits(
  touches: readonly FileTouch[],
  open: (uri: string) => OpenDocument | undefined,
): string[] {
  const created = new Set<string>();
  const movedUnsaved = new Map<string, string>(); // new URI -> its unsaved source
  const out: string[] = [];
  for (const t of touches) {
    if (t.op === "create") {
      created.add(t.uri);
    } else if (t.op === "rename") {
      if (open(t.uri)?.dirty) {
        movedUnsaved.set(t.newUri, t.uri);
      } else {
        created.add(t.newUri);
      }
    } else if (t.op === "edit" && t.version === null && movedUnsaved.has(t.uri)) {
      out.push(movedUnsaved.get(t.uri)!);
    } else if (t.op === "edit" && t.version === null && !created.has(t.uri) && open(t.uri)?.dirty) {
      out.push(t.uri);
    }
  }
  return [...new Set(out)];
}

/** A resource operation that would discard the unsaved changes of `uri`. */
export interface Discard {
  uri: string;
  /** "delete", "move" (a rename's source) or "overwrite" (a create or a rename's target). */
  what: "delete" | "move" | "overwrite";
}

/** Resource operations on documents with unsaved changes: each needs the user's consent. */
export function discardedWork(
  touches: readonly FileTouch[],
  open: (uri: string) => OpenDocument | undefined,
): Discard[] {
  const out: Discard[] = [];
  const dirty = (uri: string) => open(uri)?.dirty === true;
  for (const t of touches) {
    if (t.op === "delete" && dirty(t.uri)) {
      out.push({ uri: t.uri, what: "delete" });
    } else if (t.op === "rename") {
      if (dirty(t.uri)) {
        out.push({ uri: t.uri, what: "move" });
      }
      if (t.overwrite && dirty(t.newUri)) {
        out.push({ uri: t.newUri, what: "overwrite" });
      }
    } else if (t.op === "create" && t.overwrite && dirty(t.uri)) {
      out.push({ uri: t.uri, what: "overwrite" });
    }
  }
  return out;
}

/**
 * Declares, in the client capabilities sent with `initialize`, that the extension asks the
 * user before an edit discards unsaved work (the middleware's question, from `discardedWork`):
 * the server then sends such an edit without asking too, so the question comes once. A client
 * without the declaration (Neovim, Emacs, Kate, ...) is asked by the server.
 */
export function declareOwnDiscardQuestion(capabilities: { experimental?: unknown }): void {
  const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
  const experimental = isObject(capabilities.experimental) ? capabilities.experimental : {};
  const own = isObject(experimental.llmPatch) ? experimental.llmPatch : {};
  capabilities.experimental = { ...experimental, llmPatch: { ...own, confirmUnsaved: true } };
}

const VERBS: Record<Discard["what"], string> = { delete: "deletes", move: "moves", overwrite: "overwrites" };

/** The confirmation question, naming every file whose unsaved changes would be lost. */
export function discardQuestion(discards: readonly Discard[], name: (uri: string) => string): string {
  const parts = discards.map((d) => `${VERBS[d.what]} ${name(d.uri)}`);
  const files = discards.length === 1 ? "that file has" : "those files have";
  return `LLM Patch: the patch ${parts.join(", ")}, but ${files} unsaved changes, which would be lost.`;
}

/** Why an edit was refused, as VS Code's answer to the server (it reaches the report). */
export function unsyncedReason(uris: readonly string[], name: (uri: string) => string): string {
  const names = uris.map(name).join(", ");
  const verb = uris.length === 1 ? "has" : "have";
  return (
    `${names} ${verb} unsaved changes the server did not see (the edit was planned from the file on disk); ` +
    "nothing was applied: save the file, or run the patch again"
  );
}

export function discardReason(discards: readonly Discard[], name: (uri: string) => string): string {
  const names = discards.map((d) => name(d.uri)).join(", ");
  return `the patch would discard the unsaved changes of ${names}; nothing was applied: save or revert first`;
}
