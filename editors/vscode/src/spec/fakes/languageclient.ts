/**
 * Stand-in for `vscode-languageclient/node`: records each client the extension creates and
 * lets a test script the server's answers to workspace/executeCommand, its start failure,
 * or a crash (the error handler's `closed`).
 */

export enum State {
  Stopped = 1,
  Starting = 3,
  Running = 2,
}

export enum CloseAction {
  DoNotRestart = 1,
  Restart = 2,
}

export enum ErrorAction {
  Continue = 1,
  Shutdown = 2,
}

export enum RevealOutputChannelOn {
  Debug = 0,
  Info = 1,
  Warn = 2,
  Error = 3,
  Never = 4,
}

export type RequestHandler = (method: string, params: any) => unknown;

export const control = {
  instances: [] as LanguageClient[],
  /** Answers every sendRequest; throws to simulate an LSP error response. */
  onRequest: ((_method: string, _params: any) => ({ ok: true, blocks: [], files: [], warnings: [] })) as RequestHandler,
  /** When set, start() rejects with it. */
  startError: undefined as Error | undefined,
};

export function resetControl(): void {
  control.instances = [];
  control.onRequest = () => ({ ok: true, blocks: [], files: [], warnings: [] });
  control.startError = undefined;
}

export class LanguageClient {
  state: State = State.Stopped;
  requests: { method: string; params: any }[] = [];
  disposed = false;
  /** Features the extension registered (`registerFeature`), e.g. capabilities it declares. */
  features: { fillClientCapabilities(capabilities: any): void }[] = [];
  /** Handlers the extension put in place of the client's own (window/showMessage). */
  notificationHandlers = new Map<string, (params: any) => void>();
  private stateListeners: ((e: { oldState: State; newState: State }) => void)[] = [];

  constructor(
    readonly id: string,
    readonly name: string,
    readonly serverOptions: any,
    readonly clientOptions: any,
  ) {
    control.instances.push(this);
  }

  onNotification(method: string, handler: (params: any) => void): { dispose(): void } {
    this.notificationHandlers.set(method, handler);
    return { dispose: () => this.notificationHandlers.delete(method) };
  }

  registerFeature(feature: { fillClientCapabilities(capabilities: any): void }): void {
    this.features.push(feature);
  }

  /** The client capabilities as the real client fills them before `initialize`. */
  clientCapabilities(): any {
    const capabilities: any = { window: { showMessage: {} } };
    for (const f of this.features) {
      f.fillClientCapabilities(capabilities);
    }
    return capabilities;
  }

  onDidChangeState(listener: (e: { oldState: State; newState: State }) => void): { dispose(): void } {
    this.stateListeners.push(listener);
    return { dispose: () => undefined };
  }

  setState(newState: State): void {
    const oldState = this.state;
    this.state = newState;
    for (const l of this.stateListeners) {
      l({ oldState, newState });
    }
  }

  async start(): Promise<void> {
    this.setState(State.Starting);
    if (control.startError) {
      this.setState(State.Stopped);
      throw control.startError;
    }
    this.setState(State.Running);
  }

  async dispose(_timeout?: number): Promise<void> {
    this.disposed = true;
    this.setState(State.Stopped);
  }

  async sendRequest(method: string, params: any): Promise<unknown> {
    this.requests.push({ method, params });
    return control.onRequest(method, params);
  }
}
