"""CR-only files (classic Mac OS endings: "\\r", never "\\n") are matched and kept byte for
byte in every format, like CRLF files: the plan reads them with "\\n" endings and writes
"\\r" back. Before, a `str_replace` dropped the final "\\r" and every other format refused
the file with TEXT_NOT_FOUND."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lsp_server.edits import EditCapabilities, build_workspace_edit
from lsp_server.lines import LineMap
from lsp_server.model import Format

from .plan_support import apply_on_disk, apply_workspace_edit, put, uri_for

PATH = "mac.txt"


def cr_text(lines: list[str], final: bool) -> str:
    return "\r".join(lines) + ("\r" if final and lines else "")


def replies(lines: list[str], final: bool, i: int, j: int, new: list[str]) -> dict[str, str]:
    """One change (lines[i:j] → new) written in each format that can say it, anchored on
    enough context to be unique (the lines are unique) and never empty."""
    lo, hi = i, j
    if lo == hi:  # an insertion anchors on a neighbour
        if lo > 0:
            lo -= 1
        else:
            hi += 1
    old_ctx = lines[lo:hi]
    new_ctx = lines[lo:i] + new + lines[j:hi]
    nl = "".join(x + "\n" for x in old_ctx), "".join(x + "\n" for x in new_ctx)
    unterminated = hi == len(lines) and not final
    # the tool calls quote text, not lines: the last ending is theirs unless there is none
    inline = ("\n".join(old_ctx), "\n".join(new_ctx)) if unterminated else nl
    out = {
        "search-replace": (
            f"{PATH}\n```\n<<<<<<< SEARCH\n{nl[0]}=======\n{nl[1]}>>>>>>> REPLACE\n```\n"
        ),
        "edit": f"{PATH}\n<<<< EDIT\n{nl[0]}==== REPLACE\n{nl[1]}>>>> EDIT END\n",
        "apply-patch": "*** Begin Patch\n*** Update File: mac.txt\n@@\n"
        + "".join(f" {x}\n" for x in lines[lo:i])
        + "".join(f"-{x}\n" for x in lines[i:j])
        + "".join(f"+{x}\n" for x in new)
        + "".join(f" {x}\n" for x in lines[j:hi])
        + "*** End Patch\n",
        "patch-tool": "```json\n"
        + json.dumps(
            {
                "path": PATH,
                "patches": [
                    {
                        "operation": "replace",
                        "oldText": inline[0],
                        "newText": inline[1],
                    }
                ],
            }
        )
        + "\n```\n",
        "text-editor": "```json\n"
        + json.dumps(
            {
                "command": "str_replace",
                "path": PATH,
                "old_str": inline[0],
                "new_str": inline[1],
            }
        )
        + "\n```\n",
    }
    diff = [f"--- a/{PATH}", f"+++ b/{PATH}", f"@@ -{lo + 1},{hi - lo} +{lo + 1},{len(new_ctx)} @@"]
    diff += [f" {x}" for x in lines[lo:i]]
    minus = [f"-{x}" for x in lines[i:j]]
    plus = [f"+{x}" for x in new]
    tail = [f" {x}" for x in lines[j:hi]]
    if unterminated:  # the last line of each side has no ending
        no_eol = "\\ No newline at end of file"
        if tail:
            tail.append(no_eol)
        else:
            minus.append(no_eol)
            plus.append(no_eol)
    out["unified-diff"] = "\n".join(diff + minus + plus + tail) + "\n"
    b = lines[:i] + new + lines[j:]
    # a whole file that only leaves lines out reads as a snippet of the file, not a rewrite
    # (see the lazy merge): it says a change only when it brings new lines
    if final and new and len(set(b) & set(lines)) * 2 >= len(set(lines)):
        out["whole-file"] = f"{PATH}\n```\n" + "".join(x + "\n" for x in b) + "```\n"
    return out


WORDS = st.sampled_from(["x", "value", "return it", "\tindented", "  two", "ü ✓", "a\tb", "{", "}"])


@st.composite
def edits(draw):
    n = draw(st.integers(1, 12))
    lines = [f"{draw(WORDS)} {k}" for k in range(n)]
    final = draw(st.booleans())
    if n == 1 and not final:
        final = True  # one unterminated line has no "\r": it is not a CR-only file
    i = draw(st.integers(0, n))
    j = draw(st.integers(i, min(n, i + 3)))
    new = [f"{draw(WORDS)} new{k}" for k in range(draw(st.integers(0, 3)))]
    if not new and (i == j or (j - i == n) or (j == n and not final)):
        new = ["added 0"]  # something to change, never the whole file, never the last ending
    return lines, final, i, j, new


@settings(max_examples=150, deadline=None)
@given(case=edits())
def test_every_format_keeps_a_cr_only_file_byte_for_byte(case):
    lines, final, i, j, new = case
    before = cr_text(lines, final).encode()
    after = cr_text(lines[:i] + new + lines[j:], final).encode()
    assert b"\n" not in before and b"\r" in before
    for fmt, reply in replies(lines, final, i, j, new).items():
        with tempfile.TemporaryDirectory() as tmp:
            root = Path(tmp)
            put(root, {PATH: before})
            # a whole file that restates only the file's first block is two readings
            # (whole, or that part): it is applied as the reading this test means
            options = {"read_as": "whole"} if fmt == "whole-file" else {}
            plan = apply_on_disk(reply, root, **options)
            assert plan.ok, (fmt, reply, [o.failure for o in plan.outcomes])
            assert plan.outcomes[0].block.format == Format(fmt)
            assert (root / PATH).read_bytes() == after, (fmt, reply)
            # and through an editor: the WorkspaceEdit gives the same bytes
            built = build_workspace_edit(plan, EditCapabilities(), uri_for)
            got = apply_workspace_edit({PATH: before.decode()}, built.edit)
            assert got[PATH].encode() == after, (fmt, reply)


def test_the_issue_example_keeps_the_final_cr(tmp_path):
    put(tmp_path, {PATH: b"one\rtwo\rthree\r"})
    call = {"command": "str_replace", "path": PATH, "old_str": "one", "new_str": "ONE"}
    plan = apply_on_disk("```json\n" + json.dumps(call) + "\n```\n", tmp_path)
    assert plan.ok
    assert (tmp_path / PATH).read_bytes() == b"ONE\rtwo\rthree\r"


@pytest.mark.parametrize("how", ["structural", "structure-op"])
def test_structural_edits_keep_cr_endings(tmp_path, how):
    put(tmp_path, {"m.py": b"def f():\r    return 1\r\r\rdef g():\r    return 2\r"})
    body = "def g():\n    return 3\n"
    if how == "structural":
        reply = f"```python\n# FILE: m.py\n# TARGET_NODE: function g\n{body}```\n"
    else:
        call = {"operation": "replace_structure", "path": "m.py", "target": "function g"}
        reply = "```json\n" + json.dumps({**call, "content": body}) + "\n```\n"
    plan = apply_on_disk(reply, tmp_path)
    assert plan.ok, [o.failure for o in plan.outcomes]
    assert (
        tmp_path / "m.py"
    ).read_bytes() == b"def f():\r    return 1\r\r\rdef g():\r    return 3\r"


def test_a_new_line_in_a_cr_file_gets_a_cr(tmp_path):
    put(tmp_path, {PATH: b"a\rb"})
    reply = (
        f"--- a/{PATH}\n+++ b/{PATH}\n@@ -1,2 +1,3 @@\n a\n+new\n b\n\\ No newline at end of file\n"
    )
    assert apply_on_disk(reply, tmp_path).ok
    assert (tmp_path / PATH).read_bytes() == b"a\rnew\rb"


def test_a_cr_only_text_has_the_same_lines_for_the_core_and_an_editor():
    lines = LineMap("one\rtwo\rthree\r")
    assert lines.lsp_lines(2, 3) == (1, 2)
    assert lines.core_line(2) == 2
