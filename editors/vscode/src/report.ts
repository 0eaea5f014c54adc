/**
 * The server's JSON report (same shape as `llm-patch apply --json`) and how the extension
 * talks about it: the status bar text, the one-line notification and the full report
 * document. Pure: no `vscode` import, so every wording rule is unit-tested with node --test.
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

export interface Report {
  ok: boolean;
  blocks: BlockReport[];
  files: FileReport[];
  warnings: ReportWarning[];
}

/** What produced a report: our own commands say apply/check; code lenses say applyBlock. */
export type ReportKind = "apply" | "check";

export interface Summary {
  /** Short text for the status bar, e.g. `✓ 4 edits` or `✗ 1 failed`. */
  status: string;
  /** One sentence for a notification. */
  message: string;
  level: "info" | "warning" | "error";
  placed: number;
  failed: number;
  skipped: number;
  files: number;
}

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
  return { ok: value.ok, blocks, files, warnings };
}

export function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}

function isPlaced(b: BlockReport): boolean {
  return b.status === "applied" || b.status === "validated";
}

/** `#2 src/a.py (reply lines 12–20): TEXT_NOT_FOUND — message` */
export function describeFailure(b: BlockReport): string {
  const where = b.path ? ` ${b.path}` : "";
  const lines = b.reply_lines ? ` (reply lines ${b.reply_lines[0]}–${b.reply_lines[1]})` : "";
  const code = b.error?.code ?? b.status.toUpperCase();
  const message = b.error?.message ? ` — ${b.error.message}` : "";
  return `#${b.index}${where}${lines}: ${code}${message}`;
}

export function summarize(report: Report, kind: ReportKind): Summary {
  const placed = report.blocks.filter(isPlaced).length;
  const failedBlocks = report.blocks.filter((b) => b.status === "failed");
  const failed = failedBlocks.length;
  const skipped = report.blocks.filter((b) => b.status === "skipped").length;
  const files = report.files.length;
  const counts = { placed, failed, skipped, files };
  const warningNote =
    report.warnings.length > 0 ? ` (${plural(report.warnings.length, "warning")})` : "";

  if (report.blocks.length === 0) {
    const why = report.warnings[0]?.message;
    return {
      ...counts,
      status: "✗ no edits",
      message: `LLM Patch: no edit blocks found in the reply${why ? ` — ${why}` : "."}`,
      level: "warning",
    };
  }

  if (failed > 0) {
    const first = describeFailure(failedBlocks[0]);
    const more = failed > 1 ? ` (and ${failed - 1} more)` : "";
    // "applied" means written (a partial apply); "validated" means it would have landed.
    const applied = report.blocks.filter((b) => b.status === "applied").length;
    let message: string;
    if (kind === "check") {
      message = `LLM Patch: ${failed} of ${report.blocks.length} blocks would fail. ${first}${more}`;
    } else if (applied > 0) {
      message = `LLM Patch: applied ${plural(applied, "edit")}, ${failed} failed. ${first}${more}`;
    } else {
      message =
        `LLM Patch: ${failed} of ${report.blocks.length} blocks failed; nothing was applied. ` +
        `${first}${more}`;
    }
    return { ...counts, status: `✗ ${failed} failed`, message: message + warningNote, level: "error" };
  }

  if (!report.ok) {
    // No block failed but the server still says no: the editor refused the edit
    // (applied: false) or a warning blocked it. The warnings carry the reason.
    const why = report.warnings.map((w) => w.message).find((m) => m) ?? "the edit was not applied";
    return { ...counts, status: "✗ not applied", message: `LLM Patch: ${why}`, level: "error" };
  }

  const fileNote = files > 0 ? ` in ${plural(files, "file")}` : "";
  if (kind === "check") {
    return {
      ...counts,
      status: `✓ ${plural(placed, "edit")} ready`,
      message: `LLM Patch: all ${plural(placed, "edit")} can be placed${fileNote}${warningNote}.`,
      level: report.warnings.length > 0 ? "warning" : "info",
    };
  }
  return {
    ...counts,
    status: `✓ ${plural(placed, "edit")}`,
    message: `LLM Patch: applied ${plural(placed, "edit")}${fileNote}${warningNote}.`,
    level: report.warnings.length > 0 ? "warning" : "info",
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

/** Markdown table cells must not contain raw pipes or newlines. */
function cell(text: string): string {
  return text.replace(/\|/g, "\\|").replace(/\r?\n/g, " ");
}

/** A fence longer than any backtick run inside `text`, so a diff with ``` in it stays fenced. */
export function fenceFor(text: string): string {
  let longest = 0;
  for (const run of text.match(/`+/g) ?? []) {
    longest = Math.max(longest, run.length);
  }
  return "`".repeat(Math.max(3, longest + 1));
}

/** The whole report as a Markdown document (shown by "Show Last Report"). */
export function formatReport(report: Report, meta: ReportMeta): string {
  const summary = summarize(report, meta.kind);
  const out: string[] = [];
  const title = meta.kind === "check" ? "check" : "apply";
  out.push(`# LLM Patch ${title} report`, "");
  out.push(`${summary.message.replace(/^LLM Patch: /, "")}`, "");
  out.push(`*${clock(meta.time)} · from ${meta.source}*`, "");

  if (report.blocks.length > 0) {
    out.push("## Blocks", "");
    out.push("| # | status | file | format | match | reply lines |");
    out.push("|---|---|---|---|---|---|");
    for (const b of report.blocks) {
      const mark = isPlaced(b) ? "✓" : b.status === "failed" ? "✗" : "–";
      const lines = b.reply_lines ? `${b.reply_lines[0]}–${b.reply_lines[1]}` : "";
      out.push(
        `| ${b.index} | ${mark} ${cell(b.status)} | ${cell(b.path ?? "")} | ${cell(b.format)} | ` +
          `${cell(b.match ?? "")} | ${lines} |`,
      );
    }
    out.push("");
  }

  const failures = report.blocks.filter((b) => b.error);
  if (failures.length > 0) {
    out.push("## Failures", "");
    for (const b of failures) {
      out.push(`- **${describeFailure(b)}**`);
      const details = b.error?.details;
      if (details && Object.keys(details).length > 0) {
        const json = JSON.stringify(details, null, 2);
        const fence = fenceFor(json);
        out.push("", `  ${fence}json`, ...json.split("\n").map((l) => `  ${l}`), `  ${fence}`);
      }
    }
    out.push("");
  }

  if (report.warnings.length > 0) {
    out.push("## Warnings", "");
    for (const w of report.warnings) {
      out.push(`- \`${w.type}\`${w.path ? ` ${w.path}` : ""}: ${w.message}`);
    }
    out.push("");
  }

  if (report.files.length > 0) {
    out.push(meta.kind === "check" ? "## Changes it would make" : "## Changes", "");
    for (const f of report.files) {
      out.push(`### ${f.path} (${f.action})`, "");
      if (f.diff) {
        const fence = fenceFor(f.diff);
        out.push(`${fence}diff`, f.diff.replace(/\n$/, ""), fence, "");
      }
    }
  }
  return out.join("\n");
}

/** Tooltip for the status bar: the summary plus one line per failure. */
export function statusTooltip(report: Report, meta: ReportMeta): string {
  const summary = summarize(report, meta.kind);
  const lines = [summary.message, `${clock(meta.time)} · from ${meta.source}`];
  for (const b of report.blocks.filter((x) => x.status === "failed").slice(0, 5)) {
    lines.push(describeFailure(b));
  }
  lines.push("Click to show the full report.");
  return lines.join("\n");
}
