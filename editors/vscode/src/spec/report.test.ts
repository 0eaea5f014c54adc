import assert from "node:assert/strict";
import { describe, it } from "node:test";

import {
  describeFailure,
  fenceFor,
  formatReport,
  parseReport,
  plural,
  statusTooltip,
  summarize,
  type Report,
} from "../report";

const time = new Date(2025, 0, 2, 9, 5, 7);

function block(over: Partial<Report["blocks"][number]> = {}): Report["blocks"][number] {
  return {
    index: 0,
    format: "search-replace",
    path: "src/a.py",
    status: "applied",
    match: "exact",
    reply_lines: [3, 9],
    error: null,
    ...over,
  };
}

function report(over: Partial<Report> = {}): Report {
  return { ok: true, blocks: [], files: [], warnings: [], ...over };
}

const notFound = block({
  index: 1,
  path: "src/b.py",
  status: "failed",
  match: null,
  reply_lines: [12, 20],
  error: { code: "TEXT_NOT_FOUND", message: "SEARCH text not found", details: { closest_line: 40 } },
});

describe("parseReport", () => {
  it("keeps a well-formed report", () => {
    const raw = {
      ok: false,
      blocks: [{ ...notFound }],
      files: [{ path: "src/a.py", action: "modify", diff: "--- a\n+++ b\n" }],
      warnings: [{ type: "SYNTAX_BROKEN", message: "does not parse", path: "src/a.py" }],
    };
    assert.deepEqual(parseReport(raw), raw);
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
});

describe("summarize", () => {
  it("counts applied edits for the status bar", () => {
    const r = report({
      blocks: [block(), block({ index: 1 }), block({ index: 2 }), block({ index: 3, path: "b.py" })],
      files: [
        { path: "src/a.py", action: "modify", diff: "" },
        { path: "b.py", action: "modify", diff: "" },
      ],
    });
    const s = summarize(r, "apply");
    assert.equal(s.status, "✓ 4 edits");
    assert.equal(s.message, "LLM Patch: applied 4 edits in 2 files.");
    assert.equal(s.level, "info");
  });

  it("says singular for one edit", () => {
    const s = summarize(report({ blocks: [block()], files: [{ path: "a", action: "modify", diff: "" }] }), "apply");
    assert.equal(s.status, "✓ 1 edit");
    assert.equal(s.message, "LLM Patch: applied 1 edit in 1 file.");
  });

  it("reports an atomic refusal: failed block, nothing applied", () => {
    const r = report({ ok: false, blocks: [block({ status: "validated" }), notFound] });
    const s = summarize(r, "apply");
    assert.equal(s.status, "✗ 1 failed");
    assert.equal(s.level, "error");
    assert.match(s.message, /1 of 2 blocks failed; nothing was applied/);
    assert.match(s.message, /#1 src\/b\.py \(reply lines 12–20\): TEXT_NOT_FOUND — SEARCH text not found/);
  });

  it("reports a partial apply with what landed", () => {
    const r = report({
      ok: false,
      blocks: [block(), notFound, { ...notFound, index: 2 }],
      files: [{ path: "src/a.py", action: "modify", diff: "" }],
    });
    const s = summarize(r, "apply");
    assert.equal(s.status, "✗ 2 failed");
    assert.match(s.message, /^LLM Patch: applied 1 edit, 2 failed\. #1 .*\(and 1 more\)$/);
  });

  it("words a check as a forecast", () => {
    const ok = summarize(report({ blocks: [block({ status: "validated" })], files: [{ path: "a", action: "modify", diff: "" }] }), "check");
    assert.equal(ok.status, "✓ 1 edit ready");
    assert.equal(ok.message, "LLM Patch: all 1 edit can be placed in 1 file.");
    const bad = summarize(report({ ok: false, blocks: [notFound] }), "check");
    assert.match(bad.message, /1 of 1 blocks would fail/);
  });

  it("explains a reply without edit blocks", () => {
    const s = summarize(report({ ok: false, warnings: [{ type: "NO_EDIT_BLOCKS", message: "no edit blocks found" }] }), "apply");
    assert.equal(s.status, "✗ no edits");
    assert.equal(s.level, "warning");
    assert.match(s.message, /no edit blocks found/);
  });

  it("reports a refused edit with the server's reason when no block failed", () => {
    const s = summarize(
      report({ ok: false, blocks: [block()], warnings: [{ type: "STALE", message: "the document changed since the patch was planned" }] }),
      "apply",
    );
    assert.equal(s.status, "✗ not applied");
    assert.match(s.message, /document changed/);
  });

  it("raises the level when there are warnings", () => {
    const s = summarize(
      report({ blocks: [block()], files: [{ path: "a", action: "modify", diff: "" }], warnings: [{ type: "AUTOGENERATED", message: "generated" }] }),
      "apply",
    );
    assert.equal(s.level, "warning");
    assert.match(s.message, /\(1 warning\)\.$/);
  });
});

describe("formatReport", () => {
  it("lists blocks, failures with details, warnings and diffs", () => {
    const r = report({
      ok: false,
      blocks: [block({ path: "we|ird.py" }), notFound],
      files: [{ path: "src/a.py", action: "modify", diff: "--- a/src/a.py\n+++ b/src/a.py\n@@ -1 +1 @@\n-x\n+y\n" }],
      warnings: [{ type: "SYNTAX_BROKEN", message: "does not parse", path: "src/a.py" }],
    });
    const text = formatReport(r, { kind: "apply", source: "clipboard", time });
    assert.match(text, /^# LLM Patch apply report/);
    assert.match(text, /\*09:05:07 · from clipboard\*/);
    assert.match(text, /\| 0 \| ✓ applied \| we\\\|ird\.py \| search-replace \| exact \| 3–9 \|/);
    assert.match(text, /\| 1 \| ✗ failed \| src\/b\.py \|/);
    assert.match(text, /"closest_line": 40/);
    assert.match(text, /- `SYNTAX_BROKEN` src\/a\.py: does not parse/);
    assert.match(text, /### src\/a\.py \(modify\)\n\n```diff\n--- a\/src\/a\.py\n[^]*\n\+y\n```/);
  });

  it("fences a diff that itself contains a fence", () => {
    const diff = "+```python\n+x = 1\n+```\n";
    assert.equal(fenceFor(diff), "````");
    const text = formatReport(report({ blocks: [block()], files: [{ path: "README.md", action: "modify", diff }] }), {
      kind: "apply",
      source: "x",
      time,
    });
    assert.match(text, /````diff\n\+```python\n\+x = 1\n\+```\n````/);
  });

  it("titles a check and its would-be changes", () => {
    const text = formatReport(report({ blocks: [block({ status: "validated" })], files: [{ path: "a", action: "create", diff: "" }] }), {
      kind: "check",
      source: "clipboard",
      time,
    });
    assert.match(text, /^# LLM Patch check report/);
    assert.match(text, /## Changes it would make/);
  });
});

describe("small helpers", () => {
  it("pluralizes", () => {
    assert.equal(plural(0, "edit"), "0 edits");
    assert.equal(plural(1, "edit"), "1 edit");
    assert.equal(plural(2, "file"), "2 files");
  });

  it("describes a failure without optional parts", () => {
    assert.equal(describeFailure(block({ status: "failed", path: null, reply_lines: null })), "#0: FAILED");
  });

  it("lists failures in the tooltip", () => {
    const tip = statusTooltip(report({ ok: false, blocks: [notFound] }), { kind: "apply", source: "clipboard", time });
    assert.match(tip, /#1 src\/b\.py/);
    assert.match(tip, /Click to show the full report\.$/);
  });
});
