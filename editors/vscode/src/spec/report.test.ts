import assert from "node:assert/strict";
import { describe, it } from "node:test";

import { changedFilesLine, isRunSummary, notification, parseReport, reportDocument, statusTooltip } from "../report";
import { rawReports, serverReport } from "./fakes/reports";

const time = new Date(2025, 0, 2, 9, 5, 7);

describe("parseReport", () => {
  it("keeps a well-formed report, facts and words", () => {
    const raw = {
      ok: false,
      blocks: [
        {
          index: 1,
          format: "search-replace",
          path: "src/b.py",
          status: "failed",
          match: null,
          reply_lines: [12, 20],
          error: { code: "TEXT_NOT_FOUND", message: "SEARCH text not found", details: { closest_line: 40 } },
        },
      ],
      files: [{ path: "src/a.py", action: "modify", diff: "--- a\n+++ b\n" }],
      warnings: [{ type: "SYNTAX_BROKEN", message: "does not parse", path: "src/a.py" }],
      summary: "1 of 1 blocks failed; nothing was applied.",
      label: "✗ 1 failed",
      level: "error",
      problems: ["#1 src/b.py (reply lines 12-20): TEXT_NOT_FOUND — SEARCH text not found"],
      text: "1 of 1 blocks failed; nothing was applied.\n",
    };
    assert.deepEqual(parseReport(raw), raw);
  });

  it("reads every report the server wrote for the fixtures", () => {
    for (const [name, raw] of Object.entries(rawReports)) {
      const report = parseReport(raw);
      assert.ok(report, name);
      for (const key of ["summary", "label", "level", "problems", "text"] as const) {
        assert.deepEqual(report[key], raw[key], `${name}.${key}`);
      }
    }
  });

  it("rejects what is not a report", () => {
    for (const value of [null, undefined, 3, "ok", [], { ok: true }, { blocks: [] }, { ok: "yes", blocks: [] }]) {
      assert.equal(parseReport(value), undefined, JSON.stringify(value));
    }
  });

  it("fills missing block fields instead of throwing", () => {
    const parsed = parseReport({ ok: true, blocks: [{}, { index: 7, reply_lines: [1] }, 5] });
    assert.ok(parsed);
    assert.equal(parsed.blocks.length, 2);
    assert.deepEqual(parsed.blocks[0], {
      index: 0,
      format: "unknown",
      path: null,
      status: "unknown",
      match: null,
      reply_lines: null,
      error: null,
    });
    assert.equal(parsed.blocks[1].index, 7);
    assert.equal(parsed.blocks[1].reply_lines, null);
    assert.deepEqual(parsed.files, []);
    assert.deepEqual(parsed.warnings, []);
  });

  it("gives a report without words (an older server) a plain sentence from ok", () => {
    const good = parseReport({ ok: true, blocks: [] });
    assert.ok(good);
    assert.equal(good.level, "info");
    assert.equal(good.label, "✓ LLM Patch");
    assert.equal(good.text, `${good.summary}\n`);
    const bad = parseReport({ ok: false, blocks: [], level: "loud", problems: ["x", 3] });
    assert.ok(bad);
    assert.equal(bad.level, "error");
    assert.deepEqual(bad.problems, ["x"]);
  });
});

describe("the server's words, shown", () => {
  it("the notification is the server's summary", () => {
    assert.equal(notification(serverReport("applied")), "LLM Patch: applied 2 edits in 2 files.");
    assert.match(
      notification(serverReport("refused")),
      /^LLM Patch: 1 of 2 blocks failed; nothing was applied\. #1 b\.py \(reply lines 10-18\): TEXT_NOT_FOUND — SEARCH text not found in b\.py \(1 warning\)$/,
    );
    assert.match(notification(serverReport("partial")), /^LLM Patch: applied 1 edit, 2 failed\. #1 .*\(and 1 more\)$/);
    assert.equal(notification(serverReport("checked")), "LLM Patch: all 2 edits can be placed in 2 files.");
  });

  it("the report document is a title, the run's time and source, then the server's text", () => {
    const report = serverReport("refused");
    const text = reportDocument(report, { kind: "apply", source: "clipboard", time });
    assert.match(text, /^# LLM Patch apply report\n\n\*09:05:07 · from clipboard\*\n\n/);
    assert.ok(text.endsWith(report.text));
    assert.match(text, /\| 1 \| ✗ failed \| b\.py \|/);
    assert.match(text, /"line": 3/);
    assert.match(text, /- `SYNTAX_BROKEN` a\.py: does not parse/);
    const check = reportDocument(serverReport("checked"), { kind: "check", source: "clipboard", time });
    assert.match(check, /^# LLM Patch check report/);
    assert.match(check, /## Changes it would make\n\n### a\.py \(modify\)\n\n```diff\n--- a\/a\.py\n[^]*\n\+y\n```/);
  });

  it("the tooltip lists the problems", () => {
    const tip = statusTooltip(serverReport("refused"), { kind: "apply", source: "clipboard", time });
    assert.match(tip, /^LLM Patch: 1 of 2 blocks failed/);
    assert.match(tip, /\n09:05:07 · from clipboard\n#1 b\.py \(reply lines 10-18\): TEXT_NOT_FOUND/);
    assert.match(tip, /\nSYNTAX_BROKEN a\.py: does not parse\n/);
    assert.match(tip, /Click to show the full report\.$/);
  });

  it("the tooltip stops after five problems", () => {
    const report = { ...serverReport("refused"), problems: ["1", "2", "3", "4", "5", "6", "7"] };
    const tip = statusTooltip(report, { kind: "apply", source: "x", time });
    assert.ok(tip.includes("\n5\n") && !tip.includes("\n6\n"), tip);
  });
});

describe("notifications are one line", () => {
  it("a summary over several lines (a closest match, a diff) shows its first line and points to the report", () => {
    const report = serverReport("refused");
    const multi = { ...report, summary: "1 of 1 blocks failed; nothing was applied. #0 a.py: TEXT_NOT_FOUND — closest match at line 3:\n- x = 1\n+ x = 2\n" };
    assert.equal(notification(multi), "LLM Patch: 1 of 1 blocks failed; nothing was applied. #0 a.py: TEXT_NOT_FOUND — closest match at line 3: (the details are in the report)");
    assert.equal(notification({ ...report, summary: "applied 1 edit in 1 file.\n" }), "LLM Patch: applied 1 edit in 1 file.");
  });

  it("the files line names moves and deletes", () => {
    assert.equal(changedFilesLine(["a.py → b.py"], ["a.py → b.py"], ["c.py"]), "Changed, not saved yet: a.py → b.py. Deleted: c.py.");
    assert.equal(changedFilesLine([], [], ["c.py"]), "Deleted: c.py.");
    assert.equal(changedFilesLine(["x.py"], []), "Changed: x.py.");
  });

  it("the server's own account of a run is recognised (and only that)", () => {
    assert.ok(isRunSummary("LLM patch: applied 1 edit in 1 file: a.py."));
    assert.ok(isRunSummary("LLM patch not applied: 1 of 2 edits failed"));
    assert.ok(!isRunSummary("journal: 1 pending entry kept"));
  });
});
