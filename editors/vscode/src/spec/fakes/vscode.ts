/**
 * A small stand-in for the `vscode` module: just the API surface the extension uses, with
 * every call recorded so tests can assert what a user would have seen (messages, status bar,
 * opened documents) and answer prompts (the button a user would click).
 */

export interface Message {
  level: "info" | "warning" | "error";
  text: string;
  items: string[];
  /** A modal dialog (the user must answer before going on). */
  modal?: boolean;
}

export const state = {
  commands: new Map<string, (...args: any[]) => unknown>(),
  executed: [] as { command: string; args: unknown[] }[],
  messages: [] as Message[],
  /** Answers to the next prompts, in order (the button label, or undefined to dismiss; a promise: answered later). */
  answers: [] as (string | undefined | Promise<string | undefined>)[],
  config: new Map<string, unknown>(),
  clipboard: "",
  statusItems: [] as FakeStatusBarItem[],
  outputs: [] as FakeOutputChannel[],
  openedDocuments: [] as FakeTextDocument[],
  shownDocuments: [] as FakeTextDocument[],
  contentProviders: new Map<string, { provideTextDocumentContent(uri: Uri): string }>(),
  configListeners: [] as ((e: { affectsConfiguration(section: string): boolean }) => void)[],
  extensions: new Map<string, unknown>(),
  progress: [] as { title?: string; messages: string[] }[],
  activeTextEditor: undefined as unknown,
  /** Whether the workspace is trusted (Restricted Mode when false). */
  trusted: true,
  /** Files on the fake disk: path → text. */
  disk: new Map<string, string>(),
  /** Open documents (VS Code's workspace.textDocuments). */
  documents: [] as FakeTextDocument[],
  /** WorkspaceEdits passed to workspace.applyEdit, and the answer to give. */
  appliedEdits: [] as WorkspaceEdit[],
  applyEditResult: true,
  savedAll: 0,
  /** Documents saved one by one (TextDocument.save), by path. */
  saved: [] as string[],
  /** Every workspace.openTextDocument of a file, by path (VS Code keeps such a document open). */
  openCalls: [] as string[],
  openDialogAnswer: undefined as Uri[] | undefined,
  editorListeners: [] as ((editor: { document: FakeTextDocument } | undefined) => void)[],
  trustListeners: [] as (() => void)[],
};

export function reset(): void {
  state.commands.clear();
  state.executed = [];
  state.messages = [];
  state.answers = [];
  state.config.clear();
  state.clipboard = "";
  state.statusItems = [];
  state.outputs = [];
  state.openedDocuments = [];
  state.shownDocuments = [];
  state.contentProviders.clear();
  state.configListeners = [];
  state.extensions.clear();
  state.progress = [];
  state.activeTextEditor = undefined;
  state.trusted = true;
  state.disk.clear();
  state.documents = [];
  state.appliedEdits = [];
  state.applyEditResult = true;
  state.savedAll = 0;
  state.saved = [];
  state.openCalls = [];
  state.openDialogAnswer = undefined;
  state.editorListeners = [];
  state.trustListeners = [];
}

/** Makes `doc` the active editor, telling the extension like VS Code does. */
export function focus(doc: FakeTextDocument | undefined, selection?: Selection): void {
  state.activeTextEditor = doc ? { document: doc, selection: selection ?? new Selection(new Position(0, 0), new Position(0, 0)) } : undefined;
  for (const l of state.editorListeners) {
    l(doc ? { document: doc } : undefined);
  }
}

/** Opens a document on a file of the fake disk (or a new one), as VS Code opens a model. */
export function openFile(p: string, text?: string): FakeTextDocument {
  const uri = Uri.file(p);
  const existing = state.documents.find((d) => d.uri.toString() === uri.toString());
  if (existing) {
    return existing;
  }
  const doc = new FakeTextDocument(uri, text ?? state.disk.get(p) ?? "", "python");
  state.documents.push(doc);
  return doc;
}

export class Disposable {
  constructor(private readonly fn: () => void = () => undefined) {}
  dispose(): void {
    this.fn();
  }
}

export class EventEmitter<T> {
  private listeners: ((value: T) => void)[] = [];
  readonly event = (listener: (value: T) => void): Disposable => {
    this.listeners.push(listener);
    return new Disposable(() => {
      this.listeners = this.listeners.filter((l) => l !== listener);
    });
  };
  fire(value: T): void {
    for (const l of [...this.listeners]) {
      l(value);
    }
  }
  dispose(): void {
    this.listeners = [];
  }
}

export class Uri {
  private constructor(
    readonly scheme: string,
    readonly path: string,
  ) {}
  static parse(value: string): Uri {
    const i = value.indexOf(":");
    return new Uri(value.slice(0, i), decodeURIComponent(value.slice(i + 1).replace(/^\/\//, "")));
  }
  static file(p: string): Uri {
    return new Uri("file", p);
  }
  get fsPath(): string {
    return this.path;
  }
  toString(): string {
    return this.scheme === "file" ? `file://${encodeURI(this.path)}` : `${this.scheme}:${encodeURI(this.path)}`;
  }
}

export class ThemeColor {
  constructor(readonly id: string) {}
}

export enum StatusBarAlignment {
  Left = 1,
  Right = 2,
}

export enum ProgressLocation {
  SourceControl = 1,
  Window = 10,
  Notification = 15,
}

export class Position {
  constructor(
    readonly line: number,
    readonly character: number,
  ) {}
}

export class Range {
  constructor(
    readonly start: Position,
    readonly end: Position,
  ) {}
}

export class Selection extends Range {
  get isEmpty(): boolean {
    return this.start.line === this.end.line && this.start.character === this.end.character;
  }
}

export class FakeTextDocument {
  isDirty = false;
  isClosed = false;
  version = 1;
  constructor(
    readonly uri: Uri,
    private text: string,
    readonly languageId = "plaintext",
  ) {}
  get isUntitled(): boolean {
    return this.uri.scheme === "untitled";
  }
  /** The user types: the buffer changes and is not saved. */
  type(text: string): void {
    this.text = text;
    this.isDirty = true;
    this.version += 1;
  }
  offsetAt(p: Position): number {
    const lines = this.text.split("\n");
    return Math.min(lines.slice(0, p.line).reduce((n, l) => n + l.length + 1, 0) + p.character, this.text.length);
  }
  positionAt(offset: number): Position {
    const before = this.text.slice(0, offset).split("\n");
    return new Position(before.length - 1, before[before.length - 1].length);
  }
  async save(): Promise<boolean> {
    state.disk.set(this.uri.fsPath, this.text);
    this.isDirty = false;
    state.saved.push(this.uri.fsPath);
    return true;
  }
  getText(range?: Range): string {
    if (!range) {
      return this.text;
    }
    return this.text.slice(this.offsetAt(range.start), this.offsetAt(range.end));
  }
}

/** The WorkspaceEdit operations the extension builds (undo), kept in order. */
export type EditOp =
  | { kind: "replace"; uri: Uri; range: Range; text: string }
  | { kind: "create"; uri: Uri; contents: string }
  | { kind: "delete"; uri: Uri }
  | { kind: "rename"; from: Uri; to: Uri };

export class WorkspaceEdit {
  ops: EditOp[] = [];
  replace(uri: Uri, range: Range, text: string): void {
    this.ops.push({ kind: "replace", uri, range, text });
  }
  createFile(uri: Uri, options?: { contents?: Uint8Array }): void {
    this.ops.push({ kind: "create", uri, contents: new TextDecoder().decode(options?.contents ?? new Uint8Array()) });
  }
  deleteFile(uri: Uri): void {
    this.ops.push({ kind: "delete", uri });
  }
  renameFile(from: Uri, to: Uri): void {
    this.ops.push({ kind: "rename", from, to });
  }
}

function findDocument(uri: Uri): FakeTextDocument | undefined {
  return state.documents.find((d) => !d.isClosed && d.uri.toString() === uri.toString());
}

/** What VS Code does with a WorkspaceEdit: text edits go to buffers (opened, left unsaved). */
function applyWorkspaceEdit(edit: WorkspaceEdit): void {
  for (const op of edit.ops) {
    if (op.kind === "replace") {
      const doc = findDocument(op.uri) ?? openFile(op.uri.fsPath);
      const text = doc.getText();
      doc.type(text.slice(0, doc.offsetAt(op.range.start)) + op.text + text.slice(doc.offsetAt(op.range.end)));
    } else if (op.kind === "create") {
      state.disk.set(op.uri.fsPath, op.contents);
    } else if (op.kind === "delete") {
      state.disk.delete(op.uri.fsPath);
      const doc = findDocument(op.uri);
      if (doc) {
        doc.isClosed = true;
      }
    } else {
      // The file moves on disk as it is there; an open buffer moves with its own text.
      const doc = findDocument(op.from);
      const onDisk = state.disk.get(op.from.fsPath);
      state.disk.delete(op.from.fsPath);
      state.disk.set(op.to.fsPath, onDisk ?? "");
      if (doc) {
        doc.isClosed = true;
        const moved = openFile(op.to.fsPath, doc.getText());
        if (doc.isDirty) {
          moved.type(doc.getText());
        }
      }
    }
  }
}

export class FakeStatusBarItem {
  text = "";
  tooltip: string | undefined;
  command: string | undefined;
  name: string | undefined;
  backgroundColor: ThemeColor | undefined;
  visible = false;
  constructor(readonly id: string) {}
  show(): void {
    this.visible = true;
  }
  hide(): void {
    this.visible = false;
  }
  dispose(): void {
    this.visible = false;
  }
}

export class FakeOutputChannel {
  lines: string[] = [];
  shown = false;
  constructor(readonly name: string) {}
  private add(level: string, text: string) {
    this.lines.push(`[${level}] ${text}`);
  }
  info(text: string): void {
    this.add("info", text);
  }
  warn(text: string): void {
    this.add("warn", text);
  }
  error(text: string | Error): void {
    this.add("error", String(text));
  }
  debug(text: string): void {
    this.add("debug", text);
  }
  trace(text: string): void {
    this.add("trace", text);
  }
  append(text: string): void {
    this.lines.push(text);
  }
  appendLine(text: string): void {
    this.lines.push(text);
  }
  show(): void {
    this.shown = true;
  }
  dispose(): void {
    /* nothing to release */
  }
}

function message(level: Message["level"]) {
  return (text: string, ...rest: (string | { modal?: boolean })[]): Promise<string | undefined> => {
    const items = rest.filter((r): r is string => typeof r === "string");
    const modal = rest.some((r) => typeof r === "object" && r.modal === true);
    state.messages.push(modal ? { level, text, items, modal } : { level, text, items });
    return Promise.resolve(state.answers.shift());
  };
}

export const window = {
  createOutputChannel(name: string): FakeOutputChannel {
    const channel = new FakeOutputChannel(name);
    state.outputs.push(channel);
    return channel;
  },
  createStatusBarItem(id: string): FakeStatusBarItem {
    const item = new FakeStatusBarItem(id);
    state.statusItems.push(item);
    return item;
  },
  showInformationMessage: message("info"),
  showWarningMessage: message("warning"),
  showErrorMessage: message("error"),
  onDidChangeActiveTextEditor(listener: (editor: { document: FakeTextDocument } | undefined) => void): Disposable {
    state.editorListeners.push(listener);
    return new Disposable();
  },
  async showOpenDialog(): Promise<Uri[] | undefined> {
    return state.openDialogAnswer;
  },
  async withProgress<R>(
    options: { title?: string },
    task: (
      progress: { report(value: { message?: string }): void },
      token: { isCancellationRequested: boolean; onCancellationRequested(fn: () => void): Disposable },
    ) => Promise<R>,
  ): Promise<R> {
    const record = { title: options.title, messages: [] as string[] };
    state.progress.push(record);
    return task(
      { report: (v) => v.message && record.messages.push(v.message) },
      { isCancellationRequested: false, onCancellationRequested: () => new Disposable() },
    );
  },
  async showTextDocument(doc: FakeTextDocument): Promise<unknown> {
    state.shownDocuments.push(doc);
    return { document: doc };
  },
  get activeTextEditor(): unknown {
    return state.activeTextEditor;
  },
};

let untitledCount = 0;

export const workspace = {
  getConfiguration(section: string) {
    return {
      get<T>(key: string, fallback?: T): T | undefined {
        const full = `${section}.${key}`;
        return state.config.has(full) ? (state.config.get(full) as T) : fallback;
      },
    };
  },
  onDidChangeConfiguration(listener: (e: { affectsConfiguration(s: string): boolean }) => void): Disposable {
    state.configListeners.push(listener);
    return new Disposable();
  },
  registerTextDocumentContentProvider(
    scheme: string,
    provider: { provideTextDocumentContent(uri: Uri): string },
  ): Disposable {
    state.contentProviders.set(scheme, provider);
    return new Disposable();
  },
  async openTextDocument(arg: Uri | { content?: string; language?: string }): Promise<FakeTextDocument> {
    let doc: FakeTextDocument;
    if (arg instanceof Uri && arg.scheme === "file") {
      state.openCalls.push(arg.fsPath);
      const open = findDocument(arg);
      if (!open && !state.disk.has(arg.fsPath)) {
        throw new Error(`cannot open ${arg.toString()}: the file does not exist`); // as VS Code
      }
      return open ?? openFile(arg.fsPath);
    } else if (arg instanceof Uri) {
      const provider = state.contentProviders.get(arg.scheme);
      doc = new FakeTextDocument(arg, provider ? provider.provideTextDocumentContent(arg) : "", "markdown");
    } else {
      untitledCount += 1;
      doc = new FakeTextDocument(Uri.parse(`untitled:Untitled-${untitledCount}`), arg.content ?? "", arg.language);
    }
    state.openedDocuments.push(doc);
    return doc;
  },
  workspaceFolders: undefined as unknown,
  get isTrusted(): boolean {
    return state.trusted;
  },
  get textDocuments(): FakeTextDocument[] {
    return state.documents.filter((d) => !d.isClosed);
  },
  onDidGrantWorkspaceTrust(listener: () => void): Disposable {
    state.trustListeners.push(listener);
    return new Disposable();
  },
  /** The one workspace folder is /w. */
  getWorkspaceFolder(uri: Uri): { uri: Uri; name: string; index: number } | undefined {
    return uri.scheme === "file" && uri.path.startsWith("/w/") ? { uri: Uri.file("/w"), name: "w", index: 0 } : undefined;
  },
  /** Paths relative to the fake workspace root /w. */
  asRelativePath(uri: Uri): string {
    return uri.path.startsWith("/w/") ? uri.path.slice(3) : uri.path;
  },
  fs: {
    async readFile(uri: Uri): Promise<Uint8Array> {
      const text = uri.scheme === "file" ? state.disk.get(uri.fsPath) : undefined;
      if (text === undefined) {
        throw new Error(`ENOENT: ${uri.toString()}`);
      }
      return new TextEncoder().encode(text);
    },
  },
  async applyEdit(edit: WorkspaceEdit): Promise<boolean> {
    state.appliedEdits.push(edit);
    if (state.applyEditResult) {
      applyWorkspaceEdit(edit);
    }
    return state.applyEditResult;
  },
  async saveAll(): Promise<boolean> {
    state.savedAll += 1;
    return true;
  },
};

export const commands = {
  registerCommand(id: string, fn: (...args: any[]) => unknown): Disposable {
    if (state.commands.has(id)) {
      throw new Error(`command '${id}' already exists`);
    }
    state.commands.set(id, fn);
    return new Disposable(() => state.commands.delete(id));
  },
  async executeCommand(command: string, ...args: unknown[]): Promise<unknown> {
    state.executed.push({ command, args });
    const fn = state.commands.get(command);
    return fn ? fn(...args) : undefined;
  },
};

export const env = {
  clipboard: {
    async readText(): Promise<string> {
      return state.clipboard;
    },
  },
};

export const extensions = {
  getExtension(id: string): unknown {
    return state.extensions.get(id);
  },
};
