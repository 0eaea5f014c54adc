"""Counted replacements (`Hunk.every`, `Hunk.expected`): every exact occurrence replaced, the
result checked against `str.replace`, an independent oracle; any other count refused."""

from __future__ import annotations

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from lsp_server.model import ErrorCode, Hunk, MatchKind, PlacementError
from lsp_server.resolve.hunks import apply_hunks

# filler never holds the planted text: "Q" only comes from the plants
FILLER = st.text(alphabet="ab \n", max_size=12)
PLANT = st.sampled_from(["Q", "Qa", "Q\n", "a Q", "Q\nQb\n", "\nQ", "QQ", "Q b\n"])
NEW = st.text(alphabet="xyz\n", max_size=6)


@st.composite
def planted(draw):
    """A text holding `old` some number of times (maybe none), between random filler."""
    old = draw(PLANT)
    count = draw(st.integers(0, 5))
    pieces = [draw(FILLER)]
    for _ in range(count):
        pieces += [old, draw(FILLER)]
    return "".join(pieces), old


@settings(max_examples=300, deadline=None)
@given(planted(), NEW)
def test_every_replaces_what_str_replace_does(case, new):
    text, old = case
    found = text.count(old)
    hunk = Hunk(old, new, every=True)
    if found == 0:
        with pytest.raises(PlacementError) as err:
            apply_hunks(text, [hunk], inline=True)
        assert err.value.failure.code is ErrorCode.TEXT_NOT_FOUND
        return
    result = apply_hunks(text, [hunk], inline=True)
    assert result.text == text.replace(old, new)
    assert len(result.placements) == found
    assert result.match is MatchKind.EXACT


@settings(max_examples=300, deadline=None)
@given(planted(), NEW, st.integers(1, 5))
def test_expected_is_that_count_or_a_refusal(case, new, expected):
    text, old = case
    found = text.count(old)
    hunk = Hunk(old, new, expected=expected)
    if found == expected:
        result = apply_hunks(text, [hunk], inline=True)
        assert result.text == text.replace(old, new)
        assert len(result.placements) == found
        return
    if found == 0 and expected == 1:
        return  # one place asked for and none exact: the ordinary ladder's business
    try:
        result = apply_hunks(text, [hunk], inline=True)
    except PlacementError as err:
        code = err.failure.code
        if found:
            assert code is ErrorCode.COUNT_MISMATCH
            assert err.failure.details["found"] == found
            assert err.failure.details["expected_count"] == expected
        else:
            assert code is ErrorCode.TEXT_NOT_FOUND
            assert err.failure.details["expected_count"] == expected
        return
    # only a text already holding the new text that many times, and no old text, passes
    assert found == 0 and result.already_applied and new.strip()
    assert text.count(new) == expected
    assert result.text == text


@settings(max_examples=200, deadline=None)
@given(planted(), NEW)
def test_without_a_count_several_places_are_ambiguous(case, new):
    text, old = case
    assume(text.count(old) >= 2)
    with pytest.raises(PlacementError) as err:
        apply_hunks(text, [Hunk(old, new)], inline=True)
    assert err.value.failure.code is ErrorCode.TEXT_AMBIGUOUS


LINES = st.lists(st.sampled_from(["a", "b", "", "  a", "ab"]), max_size=6)


@settings(max_examples=200, deadline=None)
@given(LINES, st.integers(1, 4), st.lists(st.sampled_from(["n", "", "m m"]), max_size=3))
def test_whole_line_blocks_every_occurrence(filler, count, new_lines):
    # a line-based hunk (a format that quotes whole lines): the old lines, planted `count`
    # times between filler lines, replaced like str.replace on the text
    old = "Q1\n  Q2\n"
    new = "".join(x + "\n" for x in new_lines)
    body = "".join(x + "\n" for x in filler)
    text = body + (old + body) * count
    for hunk in (Hunk(old, new, every=True), Hunk(old, new, expected=count)):
        result = apply_hunks(text, [hunk])
        assert result.text == text.replace(old, new)
        assert [p.start_line for p in result.placements] == [
            len(filler) + k * (len(filler) + 2) for k in range(count)
        ]
    with pytest.raises(PlacementError) as err:
        apply_hunks(text, [Hunk(old, new, expected=count + 1)])
    assert err.value.failure.code is ErrorCode.COUNT_MISMATCH


def test_several_places_never_come_from_a_loose_rung():
    # the old text only matches once indentation is ignored, in two places: no count of
    # loose matches is taken, it is not found exactly
    text = "def f():\n    x = 1\n\ndef g():\n    x = 1\n"
    for hunk in (Hunk("x = 1\n", "x = 2\n", every=True), Hunk("x = 1\n", "x = 2\n", expected=2)):
        with pytest.raises(PlacementError) as err:
            apply_hunks(text, [hunk])
        assert err.value.failure.code is ErrorCode.TEXT_NOT_FOUND
    # inside lines (the tool calls), the same text is there exactly twice
    result = apply_hunks(text, [Hunk("x = 1", "x = 2", every=True)], inline=True)
    assert result.text == text.replace("x = 1", "x = 2")


def test_crlf_file_keeps_its_endings():
    text = "a = 1\r\nb = a\r\nc = a\r\n"
    result = apply_hunks(text, [Hunk("a", "z", expected=3)], inline=True)
    assert result.text == "z = 1\r\nb = z\r\nc = z\r\n"
