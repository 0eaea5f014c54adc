/**
 * The palette, menu and key commands that take a reply from somewhere (the clipboard, the
 * selection, a file) and run it through the server, plus *Undo Last Patch*. Each passes the
 * caller's target (the file a reply without paths is about, see recent.ts) and refuses to
 * write in an untrusted workspace.
 */
import * as path from "node:path";

import * as vscode from "vscode";

import type { PatchJournal } from "./apply_edit";
import type { RecentEditors } from "./recent";
import type { Report } from "./report";
import { SYNCED_SCHEMES, type ApplyOptions, type ReplySource } from "./settings";

/** The language of reply documents (`*.llm.md`): Markdown, contributed so it activates us. */
export const REPLY_LANGUAGE = "llm-reply";

/** What an untrusted workspace is told when it asks to write (read-only checks still run). */
export const UNTRUSTED_MESSAGE =
  "LLM Patch: applying is turned off in Restricted Mode (this workspace is not trusted). " +
  "Checks, diagnostics and Check Clipboard still work; trust the workspace to apply.";

/**
 * Whether an editor can be the caller's target: a file in one of the workspace's folders.
 * The server refuses the whole reply for any other target (OUTSIDE_WORKSPACE), so an
 * untitled buffer or a file opened from elsewhere is simply not passed.
 */
export function isTarget(uri: string): boolean {
  const parsed = vscode.Uri.parse(uri);
  return parsed.scheme === "file" && vscode.workspace.getWorkspaceFolder(parsed) !== undefined;
}

/** What the commands need of the extension. */
export interface CommandHost {
  run(kind: "apply" | "check", source: ReplySource, label: string, options: ApplyOptions): Promise<Report | undefined>;
  readyClient(): Promise<unknown>;
  readonly journal: PatchJournal;
  readonly recent: RecentEditors;
  readonly output: { info(message: string): void };
  /** The last patch was undone: the status bar must stop showing its result. */
  undone(message: string): void;
}

export class ReplyCommands {
  constructor(private readonly host: CommandHost) {}

  private async clipboardText(): Promise<string | undefined> {
    const text = await vscode.env.clipboard.readText();
    if (!text.trim()) {
      void vscode.window.showWarningMessage(
        "LLM Patch: the clipboard is empty (CLIPBOARD_MISSING). Copy the model's reply first.",
      );
      return undefined;
    }
    return text;
  }

  /** Writing commands are refused in an untrusted workspace, saying why (checks still run). */
  private writable(): boolean {
    if (vscode.workspace.isTrusted) {
      return true;
    }
    void vscode.window.showWarningMessage(UNTRUSTED_MESSAGE);
    return false;
  }

  /** The active editor, as the target of a reply that names no file (see recent.ts). */
  private activeTarget(): string | undefined {
    const uri = vscode.window.activeTextEditor?.document.uri.toString();
    return uri !== undefined && isTarget(uri) ? uri : undefined;
  }

  async fromClipboard(kind: "apply" | "check", options: ApplyOptions): Promise<Report | undefined> {
    if (kind === "apply" && !this.writable()) {
      return undefined;
    }
    const text = await this.clipboardText();
    if (text === undefined) {
      return undefined;
    }
    const target = this.activeTarget();
    return this.host.run(kind, target ? { text, target } : { text }, "clipboard", options);
  }

  /** *Apply Patch File* (explorer) and the editor title's *Apply Reply*: the whole document. */
  async applyDocument(uri?: vscode.Uri): Promise<Report | undefined> {
    if (!this.writable()) {
      return undefined;
    }
    let chosen = uri ?? vscode.window.activeTextEditor?.document.uri;
    if (!chosen) {
      const picked = await vscode.window.showOpenDialog({
        canSelectMany: false,
        openLabel: "Apply",
        filters: { "Replies and patches": ["patch", "diff", "md"] },
      });
      chosen = picked?.[0];
    }
    if (!chosen) {
      return undefined;
    }
    const name = path.posix.basename(chosen.path) || chosen.toString();
    let source: ReplySource;
    if (SYNCED_SCHEMES.includes(chosen.scheme)) {
      // By URI: the server reads the open buffer (or the file) and puts its diagnostics on it.
      source = { uri: chosen.toString() };
    } else {
      source = { text: (await vscode.workspace.openTextDocument(chosen)).getText() };
    }
    const target = this.host.recent.latest(chosen.toString(), isTarget);
    return this.host.run("apply", target ? { ...source, target } : source, name, {});
  }

  async undoLastPatch(): Promise<boolean> {
    if (!this.writable()) {
      return false;
    }
    const outcome = await this.host.journal.undo();
    switch (outcome.kind) {
      case "nothing":
        void vscode.window.showInformationMessage("LLM Patch: no patch to undo (none was applied in this window since it opened or since the last undo).");
        return false;
      case "changed":
        void vscode.window.showErrorMessage(
          `LLM Patch: the last patch was not undone: ${outcome.files.join(", ")} changed since it was applied, ` +
            "and undoing would lose that. Use Undo in each editor instead.",
        );
        return false;
      case "failed":
        void vscode.window.showErrorMessage("LLM Patch: VS Code did not apply the undo; no file was changed.");
        return false;
      case "undone": {
        const n = outcome.files.length;
        const still =
          outcome.unsaved.length > 0 ? ` Not saved yet (their text differs from the disk): ${outcome.unsaved.join(", ")}.` : "";
        const message = `LLM Patch: undid the last patch in ${n} file${n === 1 ? "" : "s"}: ${outcome.files.join(", ")}.${still}`;
        this.host.output.info(message);
        this.host.undone(message);
        void vscode.window.showInformationMessage(message);
        return true;
      }
    }
  }

  async applySelection(options: ApplyOptions): Promise<Report | undefined> {
    if (!this.writable()) {
      return undefined;
    }
    const editor = vscode.window.activeTextEditor;
    if (!editor) {
      void vscode.window.showWarningMessage("LLM Patch: open the reply and select the blocks to apply.");
      return undefined;
    }
    const doc = editor.document;
    const sel = editor.selection;
    const name = path.posix.basename(doc.uri.path) || doc.uri.toString();
    const label = sel.isEmpty ? name : `selection in ${name}`;
    let source: ReplySource;
    if (SYNCED_SCHEMES.includes(doc.uri.scheme)) {
      // By URI, so the server publishes its diagnostics on the reply itself.
      source = sel.isEmpty
        ? { uri: doc.uri.toString() }
        : {
            uri: doc.uri.toString(),
            range: {
              start: { line: sel.start.line, character: sel.start.character },
              end: { line: sel.end.line, character: sel.end.character },
            },
          };
    } else {
      source = { text: sel.isEmpty ? doc.getText() : doc.getText(sel) };
    }
    // The reply is in this editor: a block without a path is about the one used before it.
    const target = this.host.recent.latest(doc.uri.toString(), isTarget);
    return this.host.run("apply", target ? { ...source, target } : source, label, options);
  }

  async openClipboardAsReply(): Promise<vscode.TextDocument | undefined> {
    const text = await this.clipboardText();
    if (text === undefined) {
      return undefined;
    }
    // An untitled document is a reply document for the server: it gets live diagnostics and
    // code lenses showing which blocks will land before anything changes.
    const doc = await vscode.workspace.openTextDocument({ content: text, language: REPLY_LANGUAGE });
    await vscode.window.showTextDocument(doc, { preview: false });
    void this.host.readyClient();
    return doc;
  }
}
