"""The terminal rendering, stated as rules over any report (issue 25): every block gets one
line numbered index + 1, and the last line says whether anything was written."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from lsp_server.terminal import Context, render_human, renumber

statuses = st.sampled_from(["applied", "validated", "failed", "skipped"])


@st.composite
def reports(draw):
    n = draw(st.integers(0, 8))
    blocks = []
    for i in range(n):
        status = draw(statuses)
        b = {
            "index": i,
            "format": "search-replace",
            "path": f"f{i}.py",
            "status": status,
            "match": None if status == "failed" else "exact",
            "reply_lines": [i * 10 + 1, i * 10 + 9],
        }
        if status == "failed":
            b["error"] = {
                "code": "TEXT_NOT_FOUND",
                "message": f"block {i} (reply lines {i * 10 + 1}-{i * 10 + 9}), f{i}.py: gone",
            }
        blocks.append(b)
    files = [{"path": "f.py", "action": "modify", "diff": ""}] * draw(st.integers(0, 2))
    ok = all(b["status"] != "failed" for b in blocks)
    return {"ok": ok and bool(blocks), "blocks": blocks, "files": files, "warnings": []}


@given(reports(), st.booleans())
def test_each_block_has_one_line_numbered_from_1(report, dry):
    text = render_human(report, color=False, context=Context(dry=dry))
    numbers = [int(m) for m in re.findall(r"^[✓✗·] block (\d+) ", text, re.M)]
    assert numbers == [b["index"] + 1 for b in report["blocks"]]
    assert "block 0" not in text


@given(reports(), st.booleans())
def test_the_last_line_says_what_was_written(report, dry):
    last = render_human(report, color=False, context=Context(dry=dry)).rstrip().splitlines()[-1]
    blocks = report["blocks"]
    failed = sum(b["status"] == "failed" for b in blocks)
    written = any(b["status"] == "applied" for b in blocks)
    if not blocks:
        assert last == "✗ no edit blocks in the reply: nothing was written"
    elif failed:
        assert last.startswith(f"✗ {failed} of {len(blocks)} block")
        if written:  # "the 1 that placed was written", "the 2 that placed were written"
            placed = len(blocks) - failed
            assert f"the {placed} that placed {'was' if placed == 1 else 'were'} written" in last
        elif not dry:
            assert "nothing was written" in last
            assert ("--partial" in last) == (failed < len(blocks))
    else:
        assert last.startswith("✓")


@given(st.integers(0, 10**6), st.text(alphabet=" ()-,:", max_size=20))
def test_renumber_adds_one_to_each_block_number(n, tail):
    assert renumber(f"block {n}{tail}") == f"block {n + 1}{tail}"
    assert renumber(f"blocks {n}") == f"blocks {n}"  # only "block N"
