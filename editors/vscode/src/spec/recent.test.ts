import assert from "node:assert/strict";
import { describe, it } from "node:test";

import { isTargetScheme, RecentEditors } from "../recent";

const schemes = ["file", "untitled"];

describe("RecentEditors", () => {
  it("keeps the most recent editor first, each once, and only synced schemes", () => {
    const recent = new RecentEditors(schemes);
    recent.note("file:///w/a.py");
    recent.note("output:extension-output-1");
    recent.note("file:///w/reply.llm.md");
    recent.note(undefined);
    assert.equal(recent.latest(), "file:///w/reply.llm.md");
    assert.equal(recent.latest("file:///w/reply.llm.md"), "file:///w/a.py", "the reply is never its own target");
    recent.note("file:///w/a.py");
    assert.equal(recent.latest(), "file:///w/a.py");
    assert.equal(recent.latest("file:///w/a.py"), "file:///w/reply.llm.md");
  });

  it("holds at most `limit` editors", () => {
    const recent = new RecentEditors(schemes, 2);
    recent.note("file:///1");
    recent.note("file:///2");
    recent.note("file:///3");
    assert.deepEqual(recent.all(), ["file:///3", "file:///2"]);
    assert.equal(isTargetScheme("git:/x", schemes), false);
    assert.equal(isTargetScheme("untitled:U-1", schemes), true);
  });
});
