"""Markdown around blocks (issue 15): fences indented under list items, `~~~` fences, and
replies copied from a web page (CRLF line ends, U+00A0 no-break spaces). Every format reads
each shape as it reads the plain one: the same file afterwards, placed exactly."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from lsp_server.model import MatchKind
from lsp_server.plan import plan_reply
from lsp_server.reply import parse_reply
from lsp_server.reply.common import dedent_indented_fences
from lsp_server.reply.page_text import indent_spaces, prefix_spaces, read_web_spaces
from lsp_server.workspace import DiskWorkspace

NBSP = "\u00a0"
FILE = "def f():\n    return 1\n\n\ndef g():\n    return 3\n"
AFTER = "def f():\n    return 2\n\n\ndef g():\n    return 3\n"

REPLIES = {
    "search-replace": (
        "a.py\n```python\n<<<<<<< SEARCH\ndef f():\n    return 1\n=======\n"
        "def f():\n    return 2\n>>>>>>> REPLACE\n```\n"
    ),
    "edit": (
        "a.py\n```python\n<<<< EDIT\ndef f():\n    return 1\n==== REPLACE\n"
        "def f():\n    return 2\n>>>> EDIT END\n```\n"
    ),
    "unified-diff": (
        "```diff\n--- a/a.py\n+++ b/a.py\n@@ -1,2 +1,2 @@\n def f():\n-    return 1\n"
        "+    return 2\n```\n"
    ),
    "apply-patch": (
        "```\n*** Begin Patch\n*** Update File: a.py\n@@\n def f():\n-    return 1\n"
        "+    return 2\n*** End Patch\n```\n"
    ),
    "whole-file": "a.py\n```python\n" + AFTER + "```\n",
}


def in_list_item(reply: str, indent: str = "   ") -> str:
    """The reply as the body of a numbered list item: every line indented."""
    body = "".join(indent + line if line.strip() else line for line in reply.splitlines(True))
    return "Two steps:\n\n1. Change `a.py`:\n\n" + body + "\n2. Run the tests.\n"


def tildes(reply: str) -> str:
    return reply.replace("```", "~~~")


def crlf(reply: str) -> str:
    return reply.replace("\n", "\r\n")


def web_spaces(reply: str) -> str:
    """As a rendered page gives it back: every other space of a line's indentation, and the
    spaces in fence and marker lines, as U+00A0."""
    out = []
    for line in reply.split("\n"):
        body = line.lstrip(" ")
        pad = len(line) - len(body)
        indent = "".join(NBSP if i % 2 == 0 else " " for i in range(pad))
        if body.startswith(("```", "~~~", "<<<", ">>>", "***", "@@", "---", "+++")):
            body = body.replace(" ", NBSP)
        out.append(indent + body)
    return "\n".join(out)


SHAPES: dict[str, Callable[[str], str]] = {
    "plain": lambda r: r,
    "list item, 3 spaces": in_list_item,
    "bullet, 2 spaces": lambda r: in_list_item(r, "  ").replace("1. ", "- "),
    "list item, a tab": lambda r: in_list_item(r, "\t"),
    "tilde fence": tildes,
    "tilde fence in a list item": lambda r: in_list_item(tildes(r)),
    "CRLF": crlf,
    "CRLF in a list item": lambda r: crlf(in_list_item(r)),
    "no-break spaces": web_spaces,
    "no-break spaces in a list item": lambda r: web_spaces(in_list_item(r)),
    "all of it": lambda r: crlf(web_spaces(in_list_item(tildes(r)))),
}


def place(tmp_path: Path, reply: str, files: dict[str, str] | None = None):
    for name, text in (files or {"a.py": FILE}).items():
        (tmp_path / name).write_text(text)
    parsed = parse_reply(reply)
    return parsed, plan_reply(parsed, DiskWorkspace(tmp_path))


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("fmt", REPLIES)
def test_every_format_reads_every_markdown_shape_as_the_plain_one(tmp_path, fmt, shape):
    reply = SHAPES[shape](REPLIES[fmt])
    parsed, plan = place(tmp_path, reply)
    assert [b.format.value for b in parsed.blocks] == [fmt], parsed
    assert plan.ok, plan.outcomes
    # a whole file with no-break spaces in its indentation would not parse, where the file
    # did: they were the page's, and the file gets spaces (resolve.merge.place)
    assert [c.new_text for c in plan.files] == [AFTER]
    (outcome,) = plan.outcomes
    if fmt != "whole-file" and "no-break" not in shape and shape != "all of it":
        # nothing was guessed: the list item's indentation is not the block's
        assert outcome.match is MatchKind.EXACT, outcome


@pytest.mark.parametrize("shape", ["list item, 3 spaces", "tilde fence in a list item", "CRLF"])
def test_a_new_file_from_a_list_item_has_no_list_indentation(tmp_path, shape):
    reply = "b.py\n```python\n<<<<<<< SEARCH\n=======\ndef h():\n    return 4\n"
    reply += ">>>>>>> REPLACE\n```\n"
    parsed, plan = place(tmp_path, SHAPES[shape](reply))
    assert plan.ok, plan.outcomes
    assert [(c.path, c.new_text) for c in plan.files] == [("b.py", "def h():\n    return 4\n")]


def test_a_fence_inside_a_blocks_own_text_keeps_its_indentation(tmp_path):
    """A SEARCH/REPLACE block editing a Markdown file whose text holds an indented code
    sample: that fence is the file's content, not a list item around the block."""
    doc = "# Use\n\n1. Install:\n\n   ```sh\n   pip install x\n   ```\n"
    reply = (
        "README.md\n<<<<<<< SEARCH\n   ```sh\n   pip install x\n   ```\n=======\n"
        "   ```sh\n   pip install x==2\n   ```\n>>>>>>> REPLACE\n"
    )
    parsed, plan = place(tmp_path, reply, {"README.md": doc})
    assert plan.ok, plan.outcomes
    assert plan.files[0].new_text == doc.replace("pip install x\n", "pip install x==2\n")
    assert plan.outcomes[0].match is MatchKind.EXACT


def test_no_break_spaces_inside_a_line_are_kept(tmp_path):
    """Only structure is read: an NBSP in a string literal is the file's, and stays."""
    text = f"msg = 'a{NBSP}b'\nx = 1\n"
    reply = f"a.py\n```python\n<<<<<<<{NBSP}SEARCH\nx = 1\n=======\nmsg2 = 'c{NBSP}d'\nx = 2\n"
    reply += f">>>>>>>{NBSP}REPLACE\n```\n"
    parsed, plan = place(tmp_path, reply, {"a.py": text})
    assert plan.ok, plan.outcomes
    assert plan.files[0].new_text == f"msg = 'a{NBSP}b'\nmsg2 = 'c{NBSP}d'\nx = 2\n"


def test_json_tool_call_indented_with_no_break_spaces(tmp_path):
    call = '{\n  "command": "str_replace",\n  "path": "a.py",\n  "old_str": "x = 1",\n'
    call += '  "new_str": "x = 2"\n}'
    reply = "```json\n" + call.replace("  ", NBSP + NBSP) + "\n```\n"
    parsed, plan = place(tmp_path, reply, {"a.py": "x = 1\n"})
    assert plan.ok, (parsed, plan.outcomes)
    assert plan.files[0].new_text == "x = 2\n"


# --- the reading rules themselves ------------------------------------------------------------


def test_web_spaces_change_fence_and_marker_lines_only():
    text = "\n".join(
        [
            f"```{NBSP}python",
            f"<<<<<<<{NBSP}SEARCH",
            f"{NBSP}{NBSP}x = 'a{NBSP}b'",
            f"*** Update{NBSP}File: a.py",
            f"@@{NBSP}-1 +1{NBSP}@@",
            f"prose{NBSP}with a no-break space",
        ]
    )
    assert read_web_spaces(text).split("\n") == [
        "``` python",
        "<<<<<<< SEARCH",
        f"{NBSP}{NBSP}x = 'a{NBSP}b'",
        "*** Update File: a.py",
        "@@ -1 +1 @@",
        f"prose{NBSP}with a no-break space",
    ]
    same = "no NBSP here\n"
    assert read_web_spaces(same) is same


def test_indent_spaces_reads_leading_blanks_only():
    lines = [f"{NBSP} x{NBSP}y", f"-{NBSP}z", "plain", f"\t{NBSP}w"]
    assert indent_spaces(lines) == [f"  x{NBSP}y", f"-{NBSP}z", "plain", "\t w"]
    assert indent_spaces(["a", "b"]) == ["a", "b"]


def test_prefix_spaces_reads_the_prefix_column_and_a_list_items_indentation_only():
    lines = [f"{NBSP}a{NBSP}", f" {NBSP}b", "1. Do:", "   ```diff", f"{NBSP} {NBSP}{NBSP}c"]
    lines += [f"  {NBSP}-{NBSP}d", "   ```"]
    assert prefix_spaces(lines) == [
        f" a{NBSP}",
        f" {NBSP}b",  # the prefix is a space already: the NBSP after it is the line's
        "1. Do:",
        "   ```diff",  # (read_web_spaces has read the fence line's own NBSPs)
        "    c",  # the list item's 3 columns and the prefix column
        f"   -{NBSP}d",
        "   ```",
    ]


@pytest.mark.parametrize("fmt", ["unified-diff", "apply-patch"])
def test_a_file_line_that_starts_with_a_no_break_space_is_matched_as_it_is(tmp_path, fmt):
    """A diff or V4A context line ` \u00a0x` is the prefix and the file's line `\u00a0x`:
    only the prefix column is syntax, so the file's own NBSP still matches exactly."""
    text = f"def f(x):\n{NBSP}0\n"
    body = f"@@\n-def f(x):\n+def g(x):\n {NBSP}0\n"
    if fmt == "unified-diff":
        reply = f"--- a/d.txt\n+++ b/d.txt\n{body.replace('@@', '@@ -1,2 +1,2 @@')}"
    else:
        reply = f"*** Begin Patch\n*** Update File: d.txt\n{body}*** End Patch\n"
    parsed, plan = place(tmp_path, reply, {"d.txt": text})
    assert plan.ok, plan.outcomes
    assert plan.files[0].new_text == f"def g(x):\n{NBSP}0\n"
    assert plan.outcomes[0].match is MatchKind.EXACT


def test_a_list_items_indentation_matches_no_break_spaces_as_spaces():
    lines = ["1. Do:", "   ```", f"{NBSP} {NBSP}x", f"{NBSP}  {NBSP}y", "   ```"]
    assert dedent_indented_fences(lines) == ["1. Do:", "   ```", "x", f"{NBSP}y", "   ```"]
    # a body line indented less than the fence: not a list item's body, left alone
    lines = ["   ```", f"{NBSP} x", "   y", "   ```"]
    assert dedent_indented_fences(lines) == lines
