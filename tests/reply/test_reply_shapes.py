"""The reply parsers read a megabyte of any shape in bounded time; what they skip to get
there is what they would have found nothing in. Speeds are measured in
benchmarks/bench_pathological.py; these tests hold the shortcuts to the slow, obvious
reading."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from lsp_server.reply import parse_reply, tool_calls
from lsp_server.reply.common import MAX_MALFORMED, ReplyLines

CALL = '{"path": "a.py", "patches": [{"oldText": "x = 1", "newText": "x = 2"}]}'
# JSON-ish junk whose only key is "x": a value of it holds a call only by listing one
_TOKENS = ["{", "}", "[", "]", '"x"', ":", ",", "1", " ", "\n", "\n{", "\n[", "<tool_call>"]


def _calls_in(value: Any) -> int:
    if isinstance(value, list):
        return sum(_calls_in(v) for v in value)
    return 1 if isinstance(value, dict) and "patches" in value else 0


def _obvious_bare_spans(text: str) -> list[tuple[int, int]]:
    """Every line that starts (after blanks and a chat tag) a JSON value, decoded on the
    whole rest of the reply, with no shortcut: one span per call the value holds."""
    lines = text.split("\n")
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line) + 1)
    decoder = json.JSONDecoder(strict=False)
    out: list[tuple[int, int]] = []
    k = 0
    while k < len(lines):
        stripped = lines[k].lstrip()
        if stripped.startswith("<tool_call>"):
            stripped = stripped[len("<tool_call>") :].lstrip(" \t")
        if not stripped.startswith(("{", "[")):
            k += 1
            continue
        pos = starts[k] + len(lines[k]) - len(stripped)
        try:
            value, end = decoder.raw_decode(text, pos)
        except (ValueError, RecursionError):
            k += 1
            continue
        last = max(k, max(j for j in range(len(lines)) if starts[j] <= end - 1))
        out += [(k + 1, last + 1)] * _calls_in(value)
        k = last + 1
    return out


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.sampled_from(_TOKENS), max_size=40),
    st.lists(st.sampled_from(_TOKENS), max_size=40),
)
def test_bare_json_calls_are_found_where_an_obvious_decoder_finds_them(before, after):
    """Only lines that may open an object (`{` then a key or `}`) or a list are decoded:
    a line of `{` then anything else is no value, and costs no attempt."""
    text = "".join(before) + "\n" + CALL + "\n" + "".join(after)
    got = [b.reply_lines for b in tool_calls.find_blocks(ReplyLines(text))]
    assert sorted(got) == sorted(_obvious_bare_spans(text))


def _capped(blocks, limit: int) -> None:
    """`limit` malformed blocks, then one block for the rest of the reply, unread."""
    assert len(blocks) == limit + 1
    assert all(b.error is not None for b in blocks)
    last = blocks[-1]
    assert last.error.details == {"unread": True, "malformed_blocks": limit}
    assert f"{limit:,}" in last.error.message


def test_v4a_patches_past_the_malformed_limit_are_one_unread_block():
    """A megabyte of `*** Begin Patch` lines was 62,500 malformed blocks, each reported and
    planned; as for SEARCH/REPLACE markers, the first `MAX_MALFORMED` are reported."""
    reply = "*** Begin Patch\n" * 60_000
    blocks = parse_reply(reply).blocks
    _capped(blocks, MAX_MALFORMED)
    assert blocks[-1].reply_lines == (MAX_MALFORMED + 1, 60_001)


def test_malformed_operations_inside_one_v4a_patch_count_toward_the_limit():
    good = "*** Update File: a.py\n@@\n-x = 1\n+x = 2\n"
    reply = "*** Begin Patch\n" + good + "*** Frob File: a.py\n" * 3_000 + good
    reply += "*** End Patch\n"
    blocks = parse_reply(reply).blocks
    assert blocks[0].error is None and blocks[0].path == "a.py"
    _capped(blocks[1:], MAX_MALFORMED)
    # the unread rest starts at the first operation past the limit and runs to the end
    assert blocks[-1].reply_lines[0] == 1 + 4 + MAX_MALFORMED + 1


def test_a_reply_of_path_and_fence_lines_plans_a_bounded_number_of_blocks(tmp_path):
    """`a.py` and a fence, over and over: each a whole-file block for a one-line file, and
    each a grammar parse in the plan (a megabyte, 55,556 blocks, took 12 s of CPU and more).
    The plan's budget for loose blocks counts each at `LOOSE_BLOCK_LINES` at least."""
    from lsp_server import plan as plan_module
    from lsp_server.plan import PlanOptions, plan_reply
    from lsp_server.workspace import DiskWorkspace

    (tmp_path / "a.py").write_text("x = 1\n", encoding="utf-8")
    reply = "a.py\n```\na.py\n```\n" * 11_111
    parsed = parse_reply(reply)
    assert len(parsed.blocks) == 11_111 and all(b.error is None for b in parsed.blocks)
    plan = plan_reply(parsed, DiskWorkspace(tmp_path), PlanOptions(atomic=False))
    untried = [o for o in plan.outcomes if o.failure and o.failure.details.get("not_tried")]
    tried = len(plan.outcomes) - len(untried)
    assert tried <= plan_module.LOOSE_WORK_LINES // plan_module.LOOSE_BLOCK_LINES + 2
    assert plan.files and plan.files[0].new_text == "a.py\n"  # the first block placed
