/**
 * VS Code entry point: finds and starts the llm-patch language server, wires the palette
 * commands to its `llmPatch.apply` / `llmPatch.check` commands, and shows the result (status
 * bar, notification, report document). The decisions live in the pure modules (discovery,
 * report, settings, install, crash); this file only connects them to the editor.
 */
import { promises as fs } from "node:fs";
import * as path from "node:path";

import * as vscode from "vscode";
import {
  CloseAction,
  ErrorAction,
  LanguageClient,
  RevealOutputChannelOn,
  State,
  type LanguageClientOptions,
  type ServerOptions,
} from "vscode-languageclient/node";

import { PatchJournal, type ApplyEditParams, type ApplyEditResult } from "./apply_edit";
import { ReplyCommands } from "./commands";
import { RestartPolicy } from "./crash";
import { discoverServer, pythonNames, type Discovery, type Probes, type ServerCommand } from "./discovery";
import {
  BUNDLED_WHEEL_DIR,
  bundledWheel,
  installSource,
  installSteps,
  MIN_PYTHON,
  pickBasePython,
  venvDir,
  venvPython,
} from "./install";
import { nodeProbes, pythonVersion, runStep } from "./probes";
import { RecentEditors } from "./recent";
import {
  changedFilesLine,
  isRunSummary,
  notification,
  parseReport,
  reportDocument,
  statusTooltip,
  type Report,
  type ReportMeta,
} from "./report";
import { commandArguments, serverSettings, SYNCED_SCHEMES, type ApplyOptions, type ReplySource } from "./settings";
import { declareOwnDiscardQuestion } from "./workspace_edit";

export const CLIENT_ID = "llmPatch";
export const CLIENT_NAME = "LLM Patch";
export const REPORT_SCHEME = "llm-patch-report";
const PYTHON_EXTENSION_ID = "ms-python.python";
/** Server commands whose result is a report; they also run from code actions and lenses. */
const REPORT_COMMANDS = new Set(["llmPatch.apply", "llmPatch.applyBlock", "llmPatch.check"]);

export interface Deps {
  probes: Probes;
  pythonVersion: (python: string[]) => Promise<string | undefined>;
  runStep: typeof runStep;
  platform: NodeJS.Platform;
  now: () => Date;
}

export const defaultDeps: Deps = {
  probes: nodeProbes,
  pythonVersion,
  runStep,
  platform: process.platform,
  now: () => new Date(),
};

/** What `activate` returns: used by the real-editor tests and by other extensions. */
export interface LlmPatchApi {
  readonly lastReport: Report | undefined;
  readonly server: ServerCommand | undefined;
  applyText(text: string, options?: ApplyOptions): Promise<Report | undefined>;
  checkText(text: string): Promise<Report | undefined>;
}

type StatusState = "starting" | "ready" | "missing" | "failed" | "stopped";

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

export class LlmPatchExtension {
  readonly output: vscode.LogOutputChannel;
  readonly status: vscode.StatusBarItem;
  client: LanguageClient | undefined;
  server: ServerCommand | undefined;
  last: { report: Report; meta: ReportMeta } | undefined;
  private readonly reportChanged = new vscode.EventEmitter<vscode.Uri>();
  private readonly policy: RestartPolicy;
  private starting: Promise<boolean> | undefined;
  private stopping = false;
  /** Every file the last patch touched, before and after: *Undo Last Patch* reads it. */
  readonly journal = new PatchJournal();
  /** Recently active editors: the caller's target for replies that name no file. */
  readonly recent = new RecentEditors(["file"]);
  /** Report commands running: the server's own messages about them would say it twice. */
  private inFlight = 0;
  /** The server's messages while a report command runs (see flushServerLines). */
  private held: { type: number; message: string }[] = [];
  private watchingPython = false;
  /** Whether the last start found no server at all (the install is offered). */
  private missing = false;
  /** The command that found no server: run once the install the user was offered succeeds. */
  private afterInstall: (() => Promise<unknown>) | undefined;
  /** Whether the install offer is showing (see offerInstall). */
  private offering = false;
  readonly reportUri = vscode.Uri.parse(`${REPORT_SCHEME}:/LLM Patch Report.md`);

  constructor(
    private readonly context: vscode.ExtensionContext,
    private readonly deps: Deps = defaultDeps,
  ) {
    this.output = vscode.window.createOutputChannel(CLIENT_NAME, { log: true });
    this.status = vscode.window.createStatusBarItem("llmPatch.status", vscode.StatusBarAlignment.Right, 100);
    this.status.name = CLIENT_NAME;
    this.policy = new RestartPolicy(4, 3 * 60 * 1000, () => this.deps.now().getTime());
    context.subscriptions.push(this.output, this.status, this.reportChanged);
  }

  get api(): LlmPatchApi {
    // Getters, so callers holding the API see the current report and server.
    // eslint-disable-next-line @typescript-eslint/no-this-alias
    const ext = this;
    return {
      get lastReport() {
        return ext.last?.report;
      },
      get server() {
        return ext.server;
      },
      applyText: (text, options) => ext.run("apply", { text }, "API", options ?? {}),
      checkText: (text) => ext.run("check", { text }, "API", {}),
    };
  }

  activate(): void {
    const c = this.context.subscriptions;
    const reg = (id: string, fn: () => unknown) =>
      c.push(vscode.commands.registerCommand(id, () => fn()));
    const commands = new ReplyCommands(this);
    reg("llmPatch.applyFromClipboard", () => commands.fromClipboard("apply", {}));
    reg("llmPatch.previewFromClipboard", () => commands.fromClipboard("apply", { preview: true }));
    reg("llmPatch.checkClipboard", () => commands.fromClipboard("check", {}));
    reg("llmPatch.applySelection", () => commands.applySelection({}));
    reg("llmPatch.previewSelection", () => commands.applySelection({ preview: true }));
    c.push(
      vscode.commands.registerCommand("llmPatch.applyPatchFile", (uri?: vscode.Uri) => commands.applyDocument(uri)),
      vscode.commands.registerCommand("llmPatch.applyReply", (uri?: vscode.Uri) => commands.applyDocument(uri)),
    );
    reg("llmPatch.undoLastPatch", () => commands.undoLastPatch());
    reg("llmPatch.openClipboardAsReply", () => commands.openClipboardAsReply());
    reg("llmPatch.showLastReport", () => this.showLastReport());
    reg("llmPatch.restartServer", () => this.restart());
    reg("llmPatch.installServer", () => this.install());
    reg("llmPatch.showOutput", () => this.output.show(true));
    c.push(
      vscode.workspace.registerTextDocumentContentProvider(REPORT_SCHEME, {
        onDidChange: this.reportChanged.event,
        provideTextDocumentContent: () =>
          this.last ? reportDocument(this.last.report, this.last.meta) : "No LLM Patch report yet.\n",
      }),
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (e.affectsConfiguration("llmPatch.server")) {
          this.output.info("Server settings changed: restarting the server.");
          void this.restart();
        }
      }),
      vscode.window.onDidChangeActiveTextEditor((editor) => this.recent.note(editor?.document.uri.toString())),
      vscode.workspace.onDidGrantWorkspaceTrust(() => {
        // the server was started read-only (mode restricted) and without the workspace's
        // Python: start it again with the full settings
        this.output.info("The workspace is trusted now: restarting the server with writing allowed.");
        this.watchPythonExtension();
        void this.restart();
      }),
    );
    this.recent.note(vscode.window.activeTextEditor?.document.uri.toString());
    this.watchPythonExtension();
    this.status.show();
    // Not awaited: activation must not wait on a slow or missing server; commands do.
    void this.start();
  }

  /** Resolves when the current start attempt (if any) has finished. */
  async settled(): Promise<void> {
    await this.starting;
  }

  async dispose(): Promise<void> {
    await this.stop();
  }

  // ---- server lifecycle -------------------------------------------------------------------

  private config(): vscode.WorkspaceConfiguration {
    return vscode.workspace.getConfiguration("llmPatch");
  }

  /** A server setting as the server must see it: read-only in an untrusted workspace. */
  private serverSetting(key: string): unknown {
    return key === "mode" && !vscode.workspace.isTrusted ? "restricted" : this.config().get(key);
  }

  /** The server's workspace/configuration answer, with `mode` forced in Restricted Mode. */
  private restrictConfiguration(items: { section?: string }[], values: unknown[]): unknown[] {
    if (vscode.workspace.isTrusted) {
      return values;
    }
    return values.map((value, i) => {
      const section = items[i]?.section;
      if (section === "llmPatch.mode") {
        return "restricted";
      }
      if (section === "llmPatch" && typeof value === "object" && value !== null) {
        return { ...value, mode: "restricted" };
      }
      return value;
    });
  }

  private async pythonExtensionInterpreter(): Promise<string[] | undefined> {
    const ext = vscode.extensions.getExtension(PYTHON_EXTENSION_ID);
    // An untrusted workspace may choose that interpreter (its own .venv): never run it.
    if (!ext || !vscode.workspace.isTrusted) {
      return undefined;
    }
    const api: any = ext.isActive ? ext.exports : await ext.activate();
    const resource = vscode.workspace.workspaceFolders?.[0]?.uri;
    if (api?.environments?.getActiveEnvironmentPath) {
      const envPath = api.environments.getActiveEnvironmentPath(resource);
      const env = api.environments.resolveEnvironment
        ? await api.environments.resolveEnvironment(envPath)
        : undefined;
      const exe: string | undefined = env?.executable?.uri?.fsPath ?? envPath?.path;
      return exe ? [exe] : undefined;
    }
    const details = api?.settings?.getExecutionDetails?.(resource);
    const cmd: unknown = details?.execCommand;
    return Array.isArray(cmd) && cmd.every((x) => typeof x === "string") ? cmd : undefined;
  }

  private watchPythonExtension(): void {
    const ext = vscode.extensions.getExtension(PYTHON_EXTENSION_ID);
    if (!ext || this.watchingPython || !vscode.workspace.isTrusted) {
      return;
    }
    this.watchingPython = true;
    void Promise.resolve(ext.isActive ? ext.exports : ext.activate()).then(
      (api: any) => {
        const event = api?.environments?.onDidChangeActiveEnvironmentPath;
        if (typeof event !== "function") {
          return;
        }
        this.context.subscriptions.push(
          event(() => {
            // Follow the user's interpreter only when that is where the server came from
            // (or when nothing was found yet: the new interpreter may have llm-patch).
            if (!this.server || this.server.source === "python-extension") {
              this.output.info("The Python extension's interpreter changed: restarting the server.");
              void this.restart();
            }
          }),
        );
      },
      (error: unknown) => this.output.warn(`Python extension unavailable: ${errorMessage(error)}`),
    );
  }

  /** The server wheel the .vsix carries (see install.ts), if any. */
  private async bundledWheel(): Promise<string | undefined> {
    const dir = this.context.extensionPath;
    try {
      return bundledWheel(dir, await fs.readdir(path.join(dir, BUNDLED_WHEEL_DIR)));
    } catch {
      return undefined; // a development checkout before `npm run package`
    }
  }

  private storageDir(): string {
    return this.context.globalStorageUri.fsPath;
  }

  async discover(): Promise<Discovery> {
    const cfg = this.config();
    return discoverServer(
      {
        serverPath: cfg.get<string>("server.path", ""),
        serverArgs: cfg.get<string[]>("server.args", ["serve"]),
        interpreter: cfg.get<string>("server.interpreter", ""),
        pythonExtension: () => this.pythonExtensionInterpreter(),
        privateVenvPython: venvPython(venvDir(this.storageDir()), this.deps.platform),
        platform: this.deps.platform,
      },
      this.deps.probes,
    );
  }

  /** Starts the server once; concurrent callers share the attempt. */
  start(): Promise<boolean> {
    if (!this.starting) {
      this.starting = this.doStart().finally(() => {
        this.starting = undefined;
      });
    }
    return this.starting;
  }

  private async doStart(): Promise<boolean> {
    this.setStatus("starting");
    const discovery = await this.discover();
    for (const attempt of discovery.attempts) {
      this.output.info(`Server discovery: ${attempt.detail}`);
    }
    this.missing = discovery.kind === "not-found";
    if (discovery.kind !== "found") {
      this.server = undefined;
      this.setStatus("missing");
      void this.offerInstall(discovery);
      return false;
    }
    const server = discovery.server;
    this.server = server;
    this.output.info(`Starting the server: ${server.description}`);
    const client = this.createClient(server);
    this.client = client;
    client.onDidChangeState((e) => {
      if (client !== this.client) {
        return;
      }
      if (e.newState === State.Running) {
        this.setStatus("ready");
      } else if (e.newState === State.Stopped && !this.stopping) {
        this.setStatus("stopped");
      }
    });
    try {
      await client.start();
      this.setStatus("ready");
      return true;
    } catch (error) {
      this.output.error(`The server failed to start: ${errorMessage(error)}`);
      this.setStatus("failed");
      void vscode.window
        .showErrorMessage(
          `LLM Patch: the server (${server.description}) failed to start: ${errorMessage(error)}`,
          "Show Log",
          "Open Settings",
        )
        .then((choice) => this.onChoice(choice));
      return false;
    }
  }

  private createClient(server: ServerCommand): LanguageClient {
    const serverOptions: ServerOptions = {
      command: server.command,
      args: server.args,
      options: { env: { ...process.env, PYTHONUNBUFFERED: "1" } },
    };
    const clientOptions: LanguageClientOptions = {
      // Every document: anchors must match unsaved buffers, and any text can be a reply.
      documentSelector: SYNCED_SCHEMES.map((scheme) => ({ scheme })),
      outputChannel: this.output,
      revealOutputChannelOn: RevealOutputChannelOn.Never,
      initializationOptions: () => ({ llmPatch: serverSettings((k) => this.serverSetting(k)) }),
      synchronize: { configurationSection: "llmPatch" },
      errorHandler: {
        error: (_error, _message, count) =>
          count !== undefined && count <= 3 ? { action: ErrorAction.Continue } : { action: ErrorAction.Shutdown },
        closed: () => {
          const decision = this.policy.onCrash();
          this.output.warn(decision.message);
          if (decision.restart) {
            void vscode.window.showWarningMessage(`LLM Patch: ${decision.message}`, "Show Log").then((c) => this.onChoice(c));
            return { action: CloseAction.Restart, message: decision.message, handled: true };
          }
          this.setStatus("stopped");
          void vscode.window
            .showErrorMessage(`LLM Patch: ${decision.message}`, "Restart", "Show Log")
            .then((c) => this.onChoice(c));
          return { action: CloseAction.DoNotRestart, message: decision.message, handled: true };
        },
      },
      middleware: {
        // Code actions and code lenses run the server's commands through VS Code's command
        // registry; their reports feed the status bar and the notification like the palette
        // commands do, files changed and unsaved included.
        executeCommand: async (command, args, next) => {
          if (!REPORT_COMMANDS.has(command)) {
            return next(command, args);
          }
          const landed = this.journal.count;
          this.inFlight += 1;
          let result: unknown;
          try {
            result = await next(command, args);
          } finally {
            this.inFlight -= 1;
          }
          const report = parseReport(result);
          if (report) {
            const kind = command === "llmPatch.check" ? "check" : "apply";
            this.record(report, { kind, source: "code action", time: this.deps.now() }, landed);
          }
          return result;
        },
        workspace: {
          // The client calls `next` with the params alone (no token): so do we.
          handleApplyEdit: (params, next) => {
            const apply = next as unknown as (p: ApplyEditParams) => Promise<ApplyEditResult>;
            return this.journal.handle(params, apply);
          },
          configuration: async (params, token, next) => {
            const values = await next(params, token);
            return Array.isArray(values) ? this.restrictConfiguration(params.items, values) : values;
          },
          // A settings change pushes the user's values (mode included) with the notification;
          // untrusted, push nothing, so the server asks, and gets the answer above.
          didChangeConfiguration: (sections, next) => next(vscode.workspace.isTrusted ? sections : undefined),
        },
      },
    };
    const client = new LanguageClient(CLIENT_ID, CLIENT_NAME, serverOptions, clientOptions);
    // The middleware asks before an edit discards unsaved work: the server is told, so that
    // it does not ask the same question first.
    client.registerFeature({
      fillClientCapabilities: declareOwnDiscardQuestion,
      initialize: () => undefined,
      getState: () => ({ kind: "static" }),
      clear: () => undefined,
    });
    client.onNotification("window/showMessage", (params: { type: number; message: string }) => this.serverMessage(params));
    client.onNotification("window/logMessage", (params: { type: number; message: string }) => this.serverLog(params));
    return client;
  }

  /**
   * The server's `window/showMessage`. While one of its reports is on the way, the report's
   * notification says the same thing: the message goes to the log only, so nothing is said
   * twice. Otherwise it is shown like VS Code's client would.
   */
  serverMessage(params: { type: number; message: string }): void {
    if (this.inFlight > 0) {
      this.held.push(params);
      return;
    }
    const show =
      params.type === 1
        ? vscode.window.showErrorMessage
        : params.type === 2
          ? vscode.window.showWarningMessage
          : vscode.window.showInformationMessage;
    void show(params.message);
  }

  /**
   * The server's `window/logMessage`, at its level; while a report command runs, held until
   * the report is in (see flushServerLines).
   */
  serverLog(params: { type: number; message: string }): void {
    if (this.inFlight > 0) {
      this.held.push(params);
      return;
    }
    this.log(params);
  }

  private log(params: { type: number; message: string }): void {
    const text = `server: ${params.message}`;
    if (params.type === 1) {
      this.output.error(text);
    } else if (params.type === 2) {
      this.output.warn(text);
    } else if (params.type === 4) {
      this.output.debug(text);
    } else {
      this.output.info(text);
    }
  }

  /**
   * The server's lines held while its report command ran: its own account of the run is
   * dropped (the report's notification and log line say it, once); anything else is logged
   * at info (a report's outcome is not an error of the extension or the server).
   */
  private flushServerLines(): void {
    const lines = this.held;
    this.held = [];
    for (const line of lines) {
      if (!isRunSummary(line.message)) {
        this.log({ type: Math.max(line.type, 3), message: line.message });
      }
    }
  }

  async stop(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    if (!client) {
      return;
    }
    this.stopping = true;
    try {
      await client.dispose(2000);
    } catch (error) {
      this.output.warn(`Stopping the server: ${errorMessage(error)}`);
    } finally {
      this.stopping = false;
    }
  }

  async restart(): Promise<boolean> {
    this.policy.reset();
    await this.starting;
    await this.stop();
    return this.start();
  }

  /** The running client, starting it first when needed; undefined (after a message) if none. */
  async readyClient(): Promise<LanguageClient | undefined> {
    if (this.starting) {
      await this.starting;
    }
    if (!this.client || this.client.state === State.Stopped) {
      await this.stop();
      if (!(await this.start())) {
        return undefined;
      }
    }
    return this.client;
  }

  private onChoice(choice: string | undefined): void {
    switch (choice) {
      case "Show Log":
        this.output.show(true);
        break;
      case "Open Settings":
        void vscode.commands.executeCommand("workbench.action.openSettings", "llmPatch.server");
        break;
      case "Restart":
        void this.restart();
        break;
      case "Install llm-patch":
        void this.install();
        break;
      case "Show Report":
        void this.showLastReport();
        break;
      case "Save All":
        void vscode.workspace.saveAll(false);
        break;
      default:
        break;
    }
  }

  private async offerInstall(discovery: Discovery): Promise<void> {
    if (discovery.kind === "misconfigured") {
      const choice = await vscode.window.showErrorMessage(`LLM Patch: ${discovery.message}`, "Open Settings", "Show Log");
      this.onChoice(choice);
      return;
    }
    if (this.offering) {
      // One offer at a time: the one showing is the user's to answer (VS Code folds an
      // identical second notification into the first, and answers the second at once with
      // nothing, which would read as a dismissal).
      return;
    }
    this.offering = true;
    let choice: string | undefined;
    try {
      choice = await vscode.window.showWarningMessage(
        "LLM Patch: the llm-patch server was not found (no llmPatch.server setting, no Python with " +
          "llm-patch, nothing on PATH). Install it into a private environment?",
        "Install llm-patch",
        "Open Settings",
        "Show Log",
      );
    } finally {
      this.offering = false;
    }
    if (choice !== "Install llm-patch") {
      // Not installing now: a later install must not run a command the user has moved on from.
      this.afterInstall = undefined;
    }
    this.onChoice(choice);
  }

  /** The one-click install: a venv in global storage, pip install, then start. */
  async install(): Promise<boolean> {
    const cfg = this.config();
    const candidates: string[][] = [];
    const interpreter = cfg.get<string>("server.interpreter", "").trim();
    if (interpreter) {
      candidates.push([interpreter]);
    }
    try {
      const fromExtension = await this.pythonExtensionInterpreter();
      if (fromExtension) {
        candidates.push(fromExtension);
      }
    } catch (error) {
      this.output.warn(`Python extension unavailable: ${errorMessage(error)}`);
    }
    for (const name of pythonNames(this.deps.platform)) {
      const found = await this.deps.probes.which(name);
      if (found) {
        candidates.push([found]);
      }
    }
    const base = await pickBasePython(candidates, this.deps.pythonVersion);
    if (!base.python) {
      const why = base.rejected.length > 0 ? ` (${base.rejected.join("; ")})` : "";
      void vscode.window.showErrorMessage(
        `LLM Patch: no Python ${MIN_PYTHON.join(".")} or newer to install llm-patch with${why}. ` +
          "Install Python, or set llmPatch.server.interpreter.",
        "Open Settings",
      ).then((c) => this.onChoice(c));
      return false;
    }
    const dir = venvDir(this.storageDir());
    await fs.mkdir(path.dirname(dir), { recursive: true });
    const source = installSource(cfg.get<string>("server.installSource", ""), await this.bundledWheel());
    if (!source) {
      void vscode.window
        .showErrorMessage(
          "LLM Patch: this copy of the extension carries no server wheel, and llmPatch.server.installSource " +
            "is empty. Set it to a checkout of llm-patch or a wheel file.",
          "Open Settings",
        )
        .then((c) => this.onChoice(c));
      return false;
    }
    const steps = installSteps(base.python, dir, source, this.deps.platform);
    const failure = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: "LLM Patch", cancellable: true },
      async (progress, token) => {
        for (const [i, step] of steps.entries()) {
          progress.report({ message: `${step.title}…`, increment: i === 0 ? 0 : 100 / steps.length });
          this.output.info(`$ ${step.command} ${step.args.join(" ")}`);
          const result = await this.deps.runStep(
            step.command,
            step.args,
            (line) => this.output.info(line),
            (kill) => token.onCancellationRequested(kill),
          );
          if (token.isCancellationRequested) {
            return "cancelled";
          }
          if (result.code !== 0) {
            const last = result.tail.trim().split("\n").pop() ?? "";
            return `${step.title} failed${last ? `: ${last}` : ""}`;
          }
        }
        return undefined;
      },
    );
    if (failure) {
      this.output.error(`Install: ${failure}`);
      if (failure !== "cancelled") {
        void vscode.window.showErrorMessage(`LLM Patch: ${failure}`, "Show Log").then((c) => this.onChoice(c));
      }
      return false;
    }
    this.output.info(`Installed ${source} into ${dir}.`);
    const then = this.afterInstall;
    this.afterInstall = undefined;
    void vscode.window.showInformationMessage(
      then ? "LLM Patch: llm-patch is installed; starting the server, then your command." : "LLM Patch: llm-patch is installed; starting the server.",
    );
    const started = await this.restart();
    if (started && then) {
      // The command that led to the install runs now, as the user asked for it.
      await then();
    }
    return started;
  }

  // ---- commands ---------------------------------------------------------------------------

  /** Runs llmPatch.apply / llmPatch.check on a reply and records the report. */
  async run(
    kind: "apply" | "check",
    source: ReplySource,
    label: string,
    options: ApplyOptions,
  ): Promise<Report | undefined> {
    // Should no server be found, the install is offered: if the user takes it, this command
    // runs after it (set first: the user may answer the offer before the start returns).
    const retry = () => this.run(kind, source, label, options);
    this.afterInstall = retry;
    const client = await this.readyClient();
    if (this.afterInstall === retry && (client || !this.missing)) {
      this.afterInstall = undefined;
    }
    if (!client) {
      return undefined;
    }
    const opts: ApplyOptions = { ...options };
    if (kind === "apply" && this.config().get<boolean>("alwaysPreview", false)) {
      opts.preview = true;
    }
    const command = kind === "apply" ? "llmPatch.apply" : "llmPatch.check";
    const landed = this.journal.count;
    this.inFlight += 1;
    try {
      const result = await vscode.window.withProgress(
        { location: vscode.ProgressLocation.Window, title: kind === "apply" ? "LLM Patch: applying" : "LLM Patch: checking" },
        () => client.sendRequest("workspace/executeCommand", { command, arguments: commandArguments(source, opts) }),
      );
      const report = parseReport(result);
      if (!report) {
        this.output.warn(`${command} returned no report: ${JSON.stringify(result)}`);
        void vscode.window.showErrorMessage("LLM Patch: the server returned no report (see the log).", "Show Log").then((c) => this.onChoice(c));
        return undefined;
      }
      this.record(report, { kind, source: label, time: this.deps.now() }, landed);
      return report;
    } catch (error) {
      const message = errorMessage(error);
      this.output.error(`${command}: ${message}`);
      this.status.text = "✗ error";
      this.status.tooltip = `${command} failed: ${message}`;
      void vscode.window.showErrorMessage(`LLM Patch: ${message}`, "Show Log").then((c) => this.onChoice(c));
      return undefined;
    } finally {
      this.inFlight -= 1;
    }
  }

  /**
   * Shows a report. `landed` is the journal's count when the command started: when a patch
   * landed since, the notification also names the files it changed and those not saved yet.
   */
  record(report: Report, meta: ReportMeta, landed?: number): void {
    this.last = { report, meta };
    this.status.text = report.label;
    this.status.tooltip = statusTooltip(report, meta);
    this.status.command = "llmPatch.showLastReport";
    this.status.backgroundColor =
      report.level === "error" ? new vscode.ThemeColor("statusBarItem.errorBackground") : undefined;
    this.reportChanged.fire(this.reportUri);
    const files =
      landed !== undefined && this.journal.count > landed ? this.journal.changedFiles(this.journal.count) : undefined;
    const line = files ? changedFilesLine(files.changed, files.unsaved, files.deleted) : "";
    const message = line ? `${notification(report)} ${line}` : notification(report);
    this.output.info(message);
    this.flushServerLines();
    const show =
      report.level === "error"
        ? vscode.window.showErrorMessage
        : report.level === "warning"
          ? vscode.window.showWarningMessage
          : vscode.window.showInformationMessage;
    const items = files && files.unsaved.length > 0 ? ["Save All", "Show Report"] : ["Show Report"];
    void show(message, ...items).then((c) => this.onChoice(c));
  }

  /** After *Undo Last Patch*: the status bar says so instead of the undone patch's result. */
  undone(message: string): void {
    this.status.text = "$(discard) undone";
    this.status.tooltip = `${message}\nClick to show the report of the patch that was undone.`;
    this.status.backgroundColor = undefined;
    this.status.command = "llmPatch.showLastReport";
  }

  async showLastReport(): Promise<void> {
    if (!this.last) {
      void vscode.window.showInformationMessage("LLM Patch: no report yet. Apply or check a reply first.");
      return;
    }
    const doc = await vscode.workspace.openTextDocument(this.reportUri);
    try {
      // The report is Markdown: shown rendered, by VS Code's built-in Markdown preview.
      await vscode.commands.executeCommand("markdown.showPreview", this.reportUri);
    } catch (error) {
      // no Markdown extension (disabled): the source is still readable
      this.output.info(`Markdown preview unavailable (${errorMessage(error)}): showing the report's source.`);
      await vscode.window.showTextDocument(doc, { preview: true });
    }
  }

  private setStatus(state: StatusState): void {
    const where = this.server ? `\nServer: ${this.server.description}` : "";
    this.status.backgroundColor = undefined;
    switch (state) {
      case "starting":
        this.status.text = "$(sync~spin) LLM Patch";
        this.status.tooltip = "Starting the llm-patch server…";
        this.status.command = "llmPatch.showOutput";
        break;
      case "ready":
        if (this.last) {
          this.status.text = this.last.report.label;
          this.status.tooltip = statusTooltip(this.last.report, this.last.meta) + where;
          this.status.command = "llmPatch.showLastReport";
        } else {
          this.status.text = "$(check) LLM Patch";
          this.status.tooltip = `llm-patch is running; no patch applied yet.${where}`;
          this.status.command = "llmPatch.showOutput";
        }
        break;
      case "missing":
        this.status.text = "$(warning) LLM Patch";
        this.status.tooltip = "The llm-patch server was not found. Click to install it.";
        this.status.command = "llmPatch.installServer";
        break;
      case "failed":
      case "stopped":
        this.status.text = "$(error) LLM Patch";
        this.status.tooltip = `The llm-patch server is not running. Click to restart it.${where}`;
        this.status.command = "llmPatch.restartServer";
        this.status.backgroundColor = new vscode.ThemeColor("statusBarItem.errorBackground");
        break;
    }
  }
}

let instance: LlmPatchExtension | undefined;

export function activate(context: vscode.ExtensionContext): LlmPatchApi {
  instance = new LlmPatchExtension(context);
  instance.activate();
  return instance.api;
}

export async function deactivate(): Promise<void> {
  await instance?.dispose();
  instance = undefined;
}
