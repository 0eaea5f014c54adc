/**
 * The server's JSON report (same shape as `llm-patch apply --json`) and where the extension
 * shows it: the status bar, the notification and the report document. The server writes the
 * words (`summary`, `label`, `level`, `problems`, `text`); the extension only adds its own
 * title and the time and source of the run. Pure: no `vscode` import, so it is unit-tested
 * with node --test.
 */

export interface ReportError {
  code: string;
  message: string;
  details?: Record<string, unknown>;
}

export interface BlockReport {
  index: number;
  format: string;
  path: string | null;
  status: string; // applied | validated | failed | skipped
  match: string | null;
  reply_lines: [number, number] | null;
  error: ReportError | null;
}

export interface FileReport {
  path: string;
  action: string; // modify | create | delete | rename
  diff: string;
}

export interface ReportWarning {
  type: string;
  message: string;
  path?: string;
}

export type ReportLevel = "info" | "warning" | "error";

export interface Report {
  ok: boolean;
  blocks: BlockReport[];
  files: FileReport[];
  warnings: ReportWarning[];
  /** One sentence, e.g. `applied 4 edits in 2 files.` */
  summary: string;
  /** Short text for the status bar, e.g. `✓ 4 edits` or `✗ 1 failed`. */
  label: string;
  level: ReportLevel;
  /** One line per failed block and per warning. */
  problems: string[];
  /** The whole report as Markdown, without a title. */
  text: string;
}

/** What produced a report: our own commands say apply/check; code lenses say applyBlock. */
export type ReportKind = "apply" | "check";

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function asString(value: unknown, fallback = ""): string {
  return typeof value === "string" ? value : fallback;
}

function parseError(value: unknown): ReportError | null {
  if (!isRecord(value)) {
    return null;
  }
  return {
    code: asString(value.code, "ERROR"),
    message: asString(value.message),
    details: isRecord(value.details) ? value.details : undefined,
  };
}

function parseLines(value: unknown): [number, number] | null {
  if (Array.isArray(value) && value.length === 2 && value.every((n) => typeof n === "number")) {
    return [value[0], value[1]];
  }
  return null;
}

/**
 * Accepts whatever `workspace/executeCommand` returned and keeps only a well-formed report.
 * The server is another process (and another project's code): a missing field must degrade
 * the wording, not throw inside a command handler.
 */
export function parseReport(value: unknown): Report | undefined {
  if (!isRecord(value) || typeof value.ok !== "boolean" || !Array.isArray(value.blocks)) {
    return undefined;
  }
  const blocks: BlockReport[] = value.blocks.filter(isRecord).map((b, i) => ({
    index: typeof b.index === "number" ? b.index : i,
    format: asString(b.format, "unknown"),
    path: typeof b.path === "string" ? b.path : null,
    status: asString(b.status, "unknown"),
    match: typeof b.match === "string" ? b.match : null,
    reply_lines: parseLines(b.reply_lines),
    error: parseError(b.error),
  }));
  const files: FileReport[] = (Array.isArray(value.files) ? value.files : [])
    .filter(isRecord)
    .map((f) => ({
      path: asString(f.path),
      action: asString(f.action, "modify"),
      diff: asString(f.diff),
    }));
  const warnings: ReportWarning[] = (Array.isArray(value.warnings) ? value.warnings : [])
    .filter(isRecord)
    .map((w) => ({
      type: asString(w.type, "WARNING"),
      message: asString(w.message),
      path: typeof w.path === "string" ? w.path : undefined,
    }));
  // A server too old to write the words still gets a sentence out of `ok`.
  const summary = asString(value.summary) || (value.ok ? "the server reported success." : "the server reported a failure.");
  const level: ReportLevel =
    value.level === "info" || value.level === "warning" || value.level === "error" ? value.level : value.ok ? "info" : "error";
  return {
    ok: value.ok,
    blocks,
    files,
    warnings,
    summary,
    label: asString(value.label) || (value.ok ? "✓ LLM Patch" : "✗ LLM Patch"),
    level,
    problems: (Array.isArray(value.problems) ? value.problems : []).filter((p): p is string => typeof p === "string"),
    text: asString(value.text) || `${summary}\n`,
  };
}

export interface ReportMeta {
  kind: ReportKind;
  /** Where the reply came from: "clipboard", "selection of notes.md", "code action" … */
  source: string;
  time: Date;
}

function pad2(n: number): string {
  return n < 10 ? `0${n}` : String(n);
}

function clock(time: Date): string {
  return `${pad2(time.getHours())}:${pad2(time.getMinutes())}:${pad2(time.getSeconds())}`;
}

/**
 * The notification: the server's sentence, said by the extension. A notification shows one
 * line (VS Code joins the lines of a longer text into one): a summary that goes on over more
 * lines (a closest match, a diff) is cut to its first, and the rest is left to the report.
 */
export function notification(report: Report): string {
  const [first, ...rest] = report.summary.trimEnd().split(/\r?\n/);
  const more = rest.some((l) => l.trim()) ? " (the details are in the report)" : "";
  return `LLM Patch: ${first.trimEnd()}${more}`;
}

/**
 * Whether a line the server logged or showed while one of its report commands ran is its own
 * account of that run (`LLM patch: applied …`, `LLM patch not applied: …`): the report's
 * notification and log line say it already, so it is not logged a second and third time.
 */
export function isRunSummary(message: string): boolean {
  return /^LLM patch\b/i.test(message.trim());
}

/** The report document ("Show Last Report"): a title and the run's time, then the server's text. */
export function reportDocument(report: Report, meta: ReportMeta): string {
  return `# LLM Patch ${meta.kind} report\n\n*${clock(meta.time)} · from ${meta.source}*\n\n${report.text}`;
}

/** Tooltip for the status bar: the summary, then the first problems. */
export function statusTooltip(report: Report, meta: ReportMeta): string {
  const lines = [notification(report), `${clock(meta.time)} · from ${meta.source}`];
  lines.push(...report.problems.slice(0, 5));
  lines.push("Click to show the full report.");
  return lines.join("\n");
}

/**
 * What the editor adds to the server's sentence after an apply: which files changed, and
 * which of them are not saved yet (VS Code applies edits to buffers; nothing is on disk until
 * they are saved). The server cannot know either: the edit is the editor's to apply.
 */
export function changedFilesLine(changed: readonly string[], unsaved: readonly string[], deleted: readonly string[] = []): string {
  const gone = deleted.length > 0 ? `Deleted: ${deleted.join(", ")}.` : "";
  if (changed.length === 0) {
    return gone;
  }
  const pending = new Set(unsaved);
  const all = changed.join(", ");
  let line: string;
  if (changed.every((f) => pending.has(f))) {
    line = `Changed, not saved yet: ${all}.`;
  } else {
    const notSaved = changed.filter((f) => pending.has(f));
    line = notSaved.length > 0 ? `Changed: ${all} (not saved yet: ${notSaved.join(", ")}).` : `Changed: ${all}.`;
  }
  return gone ? `${line} ${gone}` : line;
}
