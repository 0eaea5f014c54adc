"""The reply fuzz target: any text through the whole core, checked for what must always hold.

`check_reply(text)` parses a reply, plans it against a small in-memory workspace (both
atomic and partial), renders the report as the CLI and the server do, and turns every file
change into LSP text edits, which an independent applier must turn back into the new text.
Anything raised is a bug: the core answers every input with a plan.

Shared by `fuzz/fuzz_reply.py` (long runs, atheris or hypothesis) and the hostile test
suite (a few hundred examples in CI).
"""

from __future__ import annotations

import json
from typing import Any

from hypothesis import strategies as st

from fuzz.lsp_client import apply_text_edits
from lsp_server.edits import text_edits
from lsp_server.model import Plan, Snapshot
from lsp_server.plan import PlanOptions, plan_reply
from lsp_server.reply import parse_reply
from lsp_server.report import report_json
from lsp_server.terminal import render_human
from lsp_server.workspace import decode, digest, relative_path

WORKSPACE: dict[str, bytes] = {
    "a.py": b"x = 1\ndef f():\n    return 1\n\nclass A:\n    def g(self):\n        pass\n",
    "src/b.py": b"\xef\xbb\xbfb = 1\r\nb = 2\r\n",
    "a.json": b'{"a": {"b": [1, 2]}, "c": "d"}\n',
    "conf.yaml": b"a:\n  b: [1, 2]\nc: d\n",
    "README.md": b"# Title\n\n```sh\nmake\n```\n",
    "empty.txt": b"",
    "nonl.txt": b"no final newline",
    "bin.dat": b"\x00\x01\x02",
    "latin1.txt": b"caf\xe9\n",
}


class MemoryWorkspace:
    """A `SnapshotSource` over bytes in a dict: the plan without a disk.

    Paths go through the same root guard as on disk, and bytes through the same decoding.
    """

    def __init__(self, files: dict[str, bytes]):
        self.files = files

    def relative(self, path: str) -> str:
        return relative_path(path)

    def snapshot(self, path: str) -> Snapshot:
        rel = relative_path(path)
        data = self.files.get(rel)
        if data is None:
            return Snapshot(rel, None, is_dir=any(k.startswith(rel + "/") for k in self.files))
        text, bom = decode(data, rel)
        return Snapshot(rel, text, digest=digest(data), bom=bom)


# --- inputs ---------------------------------------------------------------------------------

TOKENS = [
    "<<<<<<< SEARCH",
    "=======",
    ">>>>>>> REPLACE",
    "<<<< EDIT",
    "==== REPLACE",
    ">>>> EDIT END",
    "*** Begin Patch",
    "*** End Patch",
    "*** Update File: a.py",
    "*** Add File: new.py",
    "*** Delete File: nonl.txt",
    "*** Move to: moved.py",
    "@@",
    "@@ def f():",
    "@@ class A:",
    "*** End of File",
    "--- a/a.py",
    "+++ b/a.py",
    "--- /dev/null",
    "+++ b/new.py",
    "+++ /dev/null",
    "@@ -1,2 +1,3 @@",
    "@@ -0,0 +1 @@",
    "@@ -3 +3 @@ def f():",
    "diff --git a/a.py b/a.py",
    "rename from a.py",
    "rename to c.py",
    "new file mode 100644",
    "\\ No newline at end of file",
    "```",
    "````",
    "```python",
    "```json",
    "```diff",
    "~~~",
    "a.py",
    "src/b.py",
    "README.md",
    "# a.py",
    "`a.py`:",
    "**a.json**",
    "FILE: a.json",
    "# FILE: a.py",
    "# TARGET_NODE: function f",
    "# TARGET_NODE: class A / g",
    "// TARGET_PATH: a.b[0]",
    "# TARGET_PATH: c",
    "# ... existing code ...",
    "...",
    '{"path": "a.py", "patches": [{"oldText": "x = 1", "newText": "x = 2"}]}',
    '{"path": "a.py", "patches": [{"operation": "append_eof", "newText": "z = 3"}]}',
    '{"command": "str_replace", "path": "a.py", "old_str": "return 1", "new_str": "return 2"}',
    '{"command": "insert", "path": "a.py", "insert_line": 99, "new_str": "z"}',
    '{"command": "create", "path": "new.py", "file_text": "n = 1\\n"}',
    '{"operation": "replace_structure", "path": "a.py", "target": "f", "content": "def f(): 0"}',
    '{"operation": "read_structure", "path": "a.py", "target": "A"}',
    "apply_patch <<'EOF'",
    "EOF",
    "+x = 3",
    "-x = 1",
    " x = 1",
    "x = 1",
    "def f():",
    "    return 1",
    "    return 2",
    "",
    " ",
    "\t",
    "[",
    "{",
    '{"patches": [',
    "..",
    "../a.py",
    "/etc/passwd",
    "~/x",
    "C:\\x",
    "nonl.txt",
    "no final newline",
    "bin.dat",
    "latin1.txt",
    "empty.txt",
    "conf.yaml",
    "a:",
    "  b: [1, 2]",
    "\ud800",
    "\x00",
    "\r",
    "\u2028",
]
LINE = st.one_of(
    st.sampled_from(TOKENS),
    st.text(max_size=12),
    st.builds(
        lambda a, b: a + b,
        st.sampled_from(["+", "-", " ", "@@ ", "*** ", "#"]),
        st.sampled_from(TOKENS),
    ),
)
REPLIES = st.one_of(
    st.text(max_size=300),  # anything at all, lone surrogates and NUL included
    st.lists(LINE, max_size=40).map("\n".join),
    st.lists(LINE, max_size=40).map("\r\n".join),
)


# --- the check ------------------------------------------------------------------------------


def check_reply(text: str, files: dict[str, bytes] | None = None) -> list[Plan]:
    """Everything that must hold for any reply; raises AssertionError (or the bug's own
    exception) when it does not. Returns the plans for callers that look further."""
    files = dict(WORKSPACE if files is None else files)
    parsed = parse_reply(text)
    lines = text.replace("\r\n", "\n").replace("\r", "\n").count("\n") + 1
    assert (parsed.failure is None) == bool(parsed.blocks), parsed.failure
    for k, block in enumerate(parsed.blocks):
        lo, hi = block.reply_lines
        assert 1 <= lo <= hi <= lines, (block.reply_lines, lines)
        assert block.index == k
    plans = []
    for atomic in (True, False):
        plan = plan_reply(parsed, MemoryWorkspace(files), PlanOptions(atomic=atomic))
        plans.append(plan)
        assert len(plan.outcomes) == len(parsed.blocks)
        if atomic and not plan.ok:
            assert plan.files == ()
        for outcome in plan.outcomes:
            if outcome.failure is not None:
                assert outcome.failure.message
        _check_report(plan, cli_possible=_encodable(text))
        _check_edits(plan)
    return plans


def _encodable(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _check_report(plan: Plan, cli_possible: bool) -> None:
    """The report must print: as JSON in a JSON-RPC response (escaped), and — for a reply
    the command line can read, which has no lone surrogates of its own — as UTF-8 JSON and
    text on stdout (a `"\\ud800"` escape inside a tool call must not reach it raw)."""
    report: dict[str, Any] = report_json(plan, applied=False)
    json.dumps(report)
    human = render_human(report, color=False)
    if cli_possible:
        json.dumps(report, ensure_ascii=False).encode("utf-8")
        human.encode("utf-8")


def _check_edits(plan: Plan) -> None:
    """Each file change as LSP edits (UTF-16), applied by an independent applier, gives
    exactly the planned text."""
    for change in plan.files:
        if change.old_text is None or change.new_text is None:
            continue
        edits = [
            {
                "range": {
                    "start": {"line": e.range.start.line, "character": e.range.start.character},
                    "end": {"line": e.range.end.line, "character": e.range.end.character},
                },
                "newText": e.new_text,
            }
            for e in text_edits(change.old_text, change.new_text)
        ]
        assert apply_text_edits(change.old_text, edits) == change.new_text, change.path
