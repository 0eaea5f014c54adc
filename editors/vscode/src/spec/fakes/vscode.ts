/**
 * A small stand-in for the `vscode` module: just the API surface the extension uses, with
 * every call recorded so tests can assert what a user would have seen (messages, status bar,
 * opened documents) and answer prompts (the button a user would click).
 */

export interface Message {
  level: "info" | "warning" | "error";
  text: string;
  items: string[];
}

export const state = {
  commands: new Map<string, (...args: any[]) => unknown>(),
  executed: [] as { command: string; args: unknown[] }[],
  messages: [] as Message[],
  /** Answers to the next prompts, in order (the button label, or undefined to dismiss). */
  answers: [] as (string | undefined)[],
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

export class Selection {
  constructor(
    readonly start: Position,
    readonly end: Position,
  ) {}
  get isEmpty(): boolean {
    return this.start.line === this.end.line && this.start.character === this.end.character;
  }
}

export class FakeTextDocument {
  constructor(
    readonly uri: Uri,
    private readonly text: string,
    readonly languageId = "plaintext",
  ) {}
  getText(range?: Selection): string {
    if (!range) {
      return this.text;
    }
    const lines = this.text.split("\n");
    const offset = (p: Position) =>
      lines.slice(0, p.line).reduce((n, l) => n + l.length + 1, 0) + p.character;
    return this.text.slice(offset(range.start), offset(range.end));
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
  return (text: string, ...items: string[]): Promise<string | undefined> => {
    state.messages.push({ level, text, items });
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
    if (arg instanceof Uri) {
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
