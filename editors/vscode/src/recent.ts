/**
 * Which file a reply without paths is about: the caller's target (`{"target": uri}` beside
 * the reply). The clipboard commands name the active editor; *Apply Selection*, run in the
 * reply itself, names the editor the user was in before it. Pure: the extension feeds it the
 * URIs of the editors as they become active.
 */

/** Whether the URI's scheme is one of `schemes` (targets are files: `file` only). */
export function isTargetScheme(uri: string, schemes: readonly string[]): boolean {
  const colon = uri.indexOf(":");
  return colon > 0 && schemes.includes(uri.slice(0, colon));
}

/** The URIs of recently active editors, most recent first, each once. */
export class RecentEditors {
  private uris: string[] = [];

  constructor(
    private readonly schemes: readonly string[],
    private readonly limit = 20,
  ) {}

  /** An editor became active (undefined: focus left the editors, which changes nothing). */
  note(uri: string | undefined): void {
    if (uri === undefined || !isTargetScheme(uri, this.schemes)) {
      return;
    }
    this.uris = [uri, ...this.uris.filter((u) => u !== uri)].slice(0, this.limit);
  }

  /** Every remembered editor, most recent first. */
  all(): readonly string[] {
    return this.uris;
  }

  /**
   * The most recently active editor other than `except` (the reply being applied) that
   * `accept` takes (the server refuses a target outside the workspace for the whole reply).
   */
  latest(except?: string, accept: (uri: string) => boolean = () => true): string | undefined {
    return this.uris.find((u) => u !== except && accept(u));
  }
}
