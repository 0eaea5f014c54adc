/**
 * The server settings this extension contributes (section `llmPatch`), their defaults, and
 * the arguments of `llmPatch.apply`. Pure: package.json is checked against this list in a
 * unit test, so a setting cannot be contributed with a different default than the server's.
 */

export type SettingValue = boolean | number | string | string[];

export interface SettingSpec {
  key: string;
  default: SettingValue;
}

/** Settings the server reads through workspace/configuration (section `llmPatch`). */
export const SERVER_SETTINGS: readonly SettingSpec[] = [
  { key: "atomic", default: true },
  { key: "confirmFuzzy", default: true },
  { key: "alwaysPreview", default: false },
  { key: "fuzzyThreshold", default: 0.8 },
  { key: "mode", default: "unrestricted" },
  { key: "logLevel", default: "info" },
  { key: "diagnostics", default: true },
  { key: "diagnosticsDelay", default: 300 },
  { key: "codeLens", default: true },
  { key: "replyFiles", default: ["*.llm.md", "*.patch", "*.diff"] },
  { key: "protectedPaths", default: [] },
  { key: "startupMessage", default: true },
];

/** Settings only the extension reads (how to find and start the server). */
export const CLIENT_SETTINGS: readonly string[] = [
  "server.path",
  "server.args",
  "server.interpreter",
  "server.installSource",
  "trace.server",
];

export type ServerSettings = Record<string, SettingValue>;

function sameType(value: unknown, model: SettingValue): value is SettingValue {
  if (Array.isArray(model)) {
    return Array.isArray(value) && value.every((v) => typeof v === "string");
  }
  return typeof value === typeof model;
}

/**
 * Current values of the server settings, sent as initializationOptions so the first command
 * already honours them (before the server's first workspace/configuration round trip).
 */
export function serverSettings(get: (key: string) => unknown): ServerSettings {
  const out: ServerSettings = {};
  for (const spec of SERVER_SETTINGS) {
    const value = get(spec.key);
    out[spec.key] = sameType(value, spec.default) ? value : spec.default;
  }
  return out;
}

/**
 * The first argument of llmPatch.apply / llmPatch.check. `target` is the caller's file: the
 * one a block that names no path applies to (a chat-window snippet), which the server uses
 * only when the reply itself does not say.
 */
export type ReplySource =
  | { text: string; target?: string }
  | {
      uri: string;
      range?: { start: { line: number; character: number }; end: { line: number; character: number } };
      target?: string;
    };

export interface ApplyOptions {
  partial?: boolean;
  preview?: boolean;
}

/** `[source]` or `[source, options]`: options are sent only when one is set. */
export function commandArguments(source: ReplySource, options: ApplyOptions = {}): unknown[] {
  const opts: ApplyOptions = {};
  if (options.partial) {
    opts.partial = true;
  }
  if (options.preview) {
    opts.preview = true;
  }
  return Object.keys(opts).length > 0 ? [source, opts] : [source];
}

/** URI schemes the server has the text of (the client syncs them): others are sent as text. */
export const SYNCED_SCHEMES: readonly string[] = ["file", "untitled"];
