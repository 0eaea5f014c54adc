"""Inputs that used to take minutes: each finishes well inside a generous bound.

The bounds catch quadratic and cubic blow-ups (tens of seconds to minutes before the fix),
not a slow machine: each case runs in a fraction of its bound. Speeds themselves are
measured in benchmarks/bench_pathological.py.
"""

from __future__ import annotations

import pytest

from lsp_server.model import ErrorCode
from lsp_server.reply import parse_reply
from lsp_server.reply.search_replace import MAX_MALFORMED
from lsp_server.resolve.hunks import rebuild
from tests.hostile.support import bounded, plan_text

MB = 1_000_000


def rewrite(n: int, name: str) -> str:
    """`n` lines whose only lines in common with another such text are the blank ones."""
    return "".join(f"{name}_{i} = {i}\n\n" for i in range(n // 2))


def test_a_whole_file_rewrite_sharing_only_blank_lines_is_not_cubic():
    """`*** Add File:` onto an existing 2,000-line file: 28 s before (difflib's matcher on
    every line of a rewrite whose only common lines are blank)."""
    old, new = rewrite(2_000, "old"), rewrite(2_000, "new")
    reply = "*** Begin Patch\n*** Add File: a.py\n" + "".join(
        "+" + line + "\n" for line in new.splitlines()
    )
    reply += "*** End Patch\n"
    plan = bounded(10, lambda: plan_text(reply, {"a.py": old.encode()}), "Add File rewrite")
    assert plan.ok, [o.failure for o in plan.outcomes]
    assert plan.files[0].new_text == new


def test_rebuild_keeps_each_unchanged_lines_ending():
    """What `_region` pairs lines for: a kept line keeps its own ending (CRLF here) and new
    lines take the file's — with the project's line differ instead of difflib's."""
    old = "a\r\nb\r\n\r\nc\r\n"
    assert rebuild(old, "a\nx\n\nc\n") == "a\r\nx\r\n\r\nc\r\n"
    mixed = "keep\r\nx\nmid\r\ny\nend\n"
    assert rebuild(mixed, "keep\nz\nmid\nw\nend\n") == "keep\r\nz\nmid\r\nw\nend\n"
    big_old, big_new = rewrite(3_000, "old"), rewrite(3_000, "new")
    assert bounded(10, lambda: rebuild(big_old, big_new), "rebuild") == big_new


def test_a_long_prose_line_of_backticked_names_is_linear():
    """240 KB of `name` mentions on one line before a pathless snippet: 42 s before."""
    line = " ".join(f"`name_{i}` and word_{i}.py" for i in range(8_000))
    reply = f"Change {line}\n\n```python\ndef f():\n    return 1\n```\n"
    parsed = bounded(10, lambda: parse_reply(reply), "prose mentions")
    (block,) = parsed.blocks
    assert block.candidates[0] == "word_7999.py"  # the closest mention first
    assert len(block.candidates) == 8_000


@pytest.mark.parametrize(
    "unit",
    [
        "<<<< EDIT\n",
        "a.py\n<<<< EDIT\n",
        "<<<<<<< SEARCH\n",
        "a.py\n<<<<<<< SEARCH\n",
        "```\n<<<<<<< SEARCH\n",
        "------- SEARCH\n",
    ],
    ids=["edit", "edit-path", "search", "search-path", "search-fence", "cline"],
)
def test_a_megabyte_of_block_markers_is_read_in_bounded_time(unit: str):
    """960 KB of marker lines took 9.1 s (EDIT) and 5.6 s (SEARCH) before; now the first
    `MAX_MALFORMED` malformed blocks are reported and the rest is one refusal."""
    reply = unit * (MB // len(unit) - 1)
    parsed = bounded(5, lambda: parse_reply(reply), "marker lines")
    assert len(parsed.blocks) <= MAX_MALFORMED + 1
    last = parsed.blocks[-1]
    assert last.error is not None and last.error.code is ErrorCode.MALFORMED_BLOCK
    assert last.error.details.get("unread") is True
    assert f"{MAX_MALFORMED:,}" in last.error.message


def test_good_blocks_before_the_limit_still_place():
    """The limit counts malformed blocks only: a reply of many well-formed blocks is read
    whole, and a broken one among them is reported alone."""
    good = "a.py\n<<<<<<< SEARCH\nx = 1\n=======\nx = 2\n>>>>>>> REPLACE\n"
    broken = "a.py\n<<<<<<< SEARCH\nx = 1\n"
    parsed = parse_reply(good * (MAX_MALFORMED + 10) + broken + good)
    assert len(parsed.blocks) == MAX_MALFORMED + 12
    assert sum(b.error is not None for b in parsed.blocks) == 1
