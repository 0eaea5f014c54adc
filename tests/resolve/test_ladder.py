"""The matching ladder: each rung, uniqueness, hints, and the failure messages."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lsp_server.model import ErrorCode, Hunk, HunkKind, MatchKind, PlacementError, Reindent
from lsp_server.resolve.hunks import apply_hunks
from lsp_server.resolve.ladder import locate
from lsp_server.resolve.match import Hints

FILE = [
    "def alpha(x):",
    "    total = 0",
    "    for i in range(x):",
    "        total += i",
    "    return total",
    "",
    "def beta(y):",
    "    return y * 2",
]


def test_exact_unique():
    m = locate(FILE, ["def beta(y):", "    return y * 2"])
    assert (m.start, m.end, m.kind) == (6, 8, MatchKind.EXACT)


def test_trailing_whitespace_rung():
    m = locate(FILE, ["def beta(y):   ", "    return y * 2\t"])
    assert (m.start, m.kind) == (6, MatchKind.WHITESPACE)


def test_indent_rung_dropped_outer_indent():
    m = locate(FILE, ["for i in range(x):", "    total += i"])
    assert (m.start, m.kind) == (2, MatchKind.INDENT)
    assert m.shift is not None
    assert m.shift.apply_all(["for i in range(x):", "    total -= i"]) == [
        "    for i in range(x):",
        "        total -= i",
    ]


def test_indent_rung_tabs_to_spaces_and_back():
    tabbed = ["func f() {", "\tif x {", "\t\treturn 1", "\t}", "}"]
    m = locate(tabbed, ["if x {", "    return 1", "}"])
    assert (m.start, m.kind) == (1, MatchKind.INDENT)
    assert m.shift.apply_all(["if x {", "    return 2", "}"]) == ["\tif x {", "\t\treturn 2", "\t}"]


def test_indent_rung_two_to_four_spaces():
    m = locate(FILE, ["for i in range(x):", "  total += i"])
    assert m.kind is MatchKind.INDENT
    assert m.shift.apply_all(["for i in range(x):", "  if i:", "    total += i"]) == [
        "    for i in range(x):",
        "        if i:",
        "            total += i",
    ]


def test_indent_rung_refuses_different_nesting():
    with pytest.raises(PlacementError):
        locate(FILE, ["for i in range(x):", "total += i"], fuzzy_threshold=1.01)


def test_ambiguous_lists_every_line():
    lines = ["x = 1", "y = 2", "x = 1", "y = 2"]
    with pytest.raises(PlacementError) as e:
        locate(lines, ["x = 1", "y = 2"])
    assert e.value.failure.code is ErrorCode.TEXT_AMBIGUOUS
    assert e.value.failure.details["lines"] == [1, 3]


def test_line_hint_breaks_tie_only_when_one_is_closer():
    lines = ["x = 1", "pad", "pad", "x = 1"]
    assert locate(lines, ["x = 1"], Hints(line=3)).start == 3
    assert locate(lines, ["x = 1"], Hints(line=0)).start == 0
    lines = ["x = 1", "pad", "x = 1"]
    with pytest.raises(PlacementError) as e:
        locate(lines, ["x = 1"], Hints(line=1))  # equally far from both
    assert e.value.failure.code is ErrorCode.TEXT_AMBIGUOUS


def test_anchor_hint_picks_region():
    lines = ["class A:", "  def f():", "    pass", "class B:", "  def f():", "    pass"]
    m = locate(lines, ["  def f():", "    pass"], Hints(anchors=("class B:",)))
    assert m.start == 4


def test_stricter_rung_ambiguity_is_not_overridden():
    lines = ["a()", "b()", "  a()", "a()"]
    with pytest.raises(PlacementError) as e:
        locate(lines, ["a()"])
    assert e.value.failure.details["match"] == "exact"


def test_elision_pieces_in_order():
    m = locate(FILE, ["def alpha(x):", "    ...", "    return total"])
    assert (m.start, m.end, m.kind) == (0, 5, MatchKind.ELISION)
    assert m.elided == ((1, 4),)


def test_fuzzy_one_line_changed():
    lines = [f"line {i} of the file with some words" for i in range(40)]
    block = lines[10:20].copy()
    block[4] = "line 14 of the FILE with other words"
    m = locate(lines, block)
    assert (m.start, m.kind) == (10, MatchKind.FUZZY)
    assert 0.9 <= m.score < 1


def test_fuzzy_refuses_close_runner_up():
    lines = ["def f():", "    return compute(a, b)", "", "def g():", "    return compute(a, c)"]
    with pytest.raises(PlacementError) as e:
        locate(lines, ["def h():", "    return compute(a, d)"])
    assert e.value.failure.code in (ErrorCode.TEXT_AMBIGUOUS, ErrorCode.TEXT_NOT_FOUND)


def test_not_found_reports_closest_region_and_whitespace():
    with pytest.raises(PlacementError) as e:
        locate(FILE, ["def beta(y):", "    return y * 3"], fuzzy_threshold=0.99)
    f = e.value.failure
    assert f.code is ErrorCode.TEXT_NOT_FOUND
    assert f.details["closest"]["line"] == 7
    assert "line 7" in f.message
    assert "-    return y * 3" in f.details["closest"]["diff"]


def test_exact_only_for_insert_after_anchor():
    with pytest.raises(PlacementError):
        locate(FILE, ["def beta(y): "], exact_only=True)


# --- hunks: endings, already-applied, patch-tool rules --------------------------------------


def test_crlf_preserved_and_new_lines_get_crlf():
    text = "a\r\nb\r\nc\r\n"
    r = apply_hunks(text, [Hunk("b\n", "B\nB2\n")])
    assert r.text == "a\r\nB\r\nB2\r\nc\r\n"


def test_mixed_endings_untouched_lines_keep_theirs():
    text = "a\r\nb\nc\r\nd\n"
    r = apply_hunks(text, [Hunk("b\nc\n", "b\nC\n")])
    assert r.text == "a\r\nb\nC\r\nd\n" or r.text == "a\r\nb\nC\nd\n"
    assert r.text.startswith("a\r\nb\n")


def test_missing_final_newline_kept():
    r = apply_hunks("a\nb", [Hunk("b\n", "c\n")])
    assert r.text == "a\nc"


def test_already_applied_is_noop():
    r = apply_hunks("a\nnew\nc\n", [Hunk("old\n", "new\n")])
    assert r.already_applied and r.text == "a\nnew\nc\n"


def test_patch_tool_simultaneous_and_overlap():
    text = "one\ntwo\nthree\n"
    r = apply_hunks(text, [Hunk("one\n", "1\n"), Hunk("three\n", "3\n")], simultaneous=True)
    assert r.text == "1\ntwo\n3\n"
    with pytest.raises(PlacementError) as e:
        apply_hunks(text, [Hunk("one\ntwo\n", "x\n"), Hunk("two\n", "y\n")], simultaneous=True)
    assert e.value.failure.code is ErrorCode.MALFORMED_BLOCK


def test_clipboard_round_trip_and_missing():
    text = "keep\nmove me\nend\n"
    r = apply_hunks(
        text,
        [
            Hunk("move me\n", "", to_clipboard="c"),
            Hunk("", "", kind=HunkKind.APPEND_EOF, from_clipboard="c"),
        ],
    )
    assert r.text == "keep\nend\nmove me\n"
    with pytest.raises(PlacementError) as e:
        apply_hunks(text, [Hunk("end\n", "", from_clipboard="nope")])
    assert e.value.failure.code is ErrorCode.CLIPBOARD_MISSING


def test_reindent_and_precondition():
    r = apply_hunks("x\n", [Hunk("x\n", "    y\n", reindent=Reindent(strip="    ", add="\t"))])
    assert r.text == "\ty\n"
    with pytest.raises(PlacementError) as e:
        apply_hunks("x\n", [Hunk("x\n", "y\n", reindent=Reindent(strip="    "))])
    assert e.value.failure.code is ErrorCode.REINDENT_PRECONDITION


def test_ordered_hunks_use_shifted_hints():
    text = (
        "".join(f"l{i}\n" for i in range(10)) + "x\n" + "".join(f"m{i}\n" for i in range(5)) + "x\n"
    )
    hunks = [Hunk("l1\n", "l1\nextra\nextra2\n", line_hint=2), Hunk("x\n", "X\n", line_hint=17)]
    r = apply_hunks(text, hunks, ordered=True)
    assert r.text.endswith("x\nm0\nm1\nm2\nm3\nm4\nX\n")


lines_st = st.lists(st.sampled_from(["a", "b", "c", "  d", "\te", "", "f()", "g = 1"]), max_size=12)


@settings(max_examples=200)
@given(before=lines_st, old=lines_st.filter(bool), new=lines_st, after=lines_st)
def test_placement_never_edits_outside_reported_span(before, old, new, after):
    """Whatever is placed, the lines outside the reported span are byte-identical."""
    text = "".join(x + "\n" for x in before + old + after)
    try:
        r = apply_hunks(
            text, [Hunk("".join(x + "\n" for x in old), "".join(x + "\n" for x in new))]
        )
    except PlacementError:
        return
    if r.already_applied:
        assert r.text == text
        return
    (p,) = r.placements
    src = text.splitlines(keepends=True)
    out = r.text.splitlines(keepends=True)
    assert out[: p.start_line] == src[: p.start_line]
    tail = len(src) - p.end_line
    assert out[len(out) - tail :] == src[p.end_line :] if tail else True


def test_inline_substring_for_tool_calls():
    text = "x = foo(1) + 2\r\ny = foo(2)\r\n"
    r = apply_hunks(text, [Hunk("foo(1)", "bar(1)")], inline=True)
    assert r.text == "x = bar(1) + 2\r\ny = foo(2)\r\n"
    with pytest.raises(PlacementError) as e:
        apply_hunks(text, [Hunk("foo(", "bar(")], inline=True)
    assert e.value.failure.code is ErrorCode.TEXT_AMBIGUOUS
    assert e.value.failure.details["lines"] == [1, 2]
    r = apply_hunks(
        text, [Hunk("foo(1)", "a(1)"), Hunk("foo(2)", "b(2)")], inline=True, simultaneous=True
    )
    assert r.text == "x = a(1) + 2\r\ny = b(2)\r\n"


def test_inline_clipboard_holds_the_substring():
    r = apply_hunks(
        "a = compute(1)\nb = 0\n",
        [
            Hunk("compute(1)", "cached", to_clipboard="expr"),
            Hunk("0", "", from_clipboard="expr"),
        ],
        inline=True,
    )
    assert r.text == "a = cached\nb = compute(1)\n"


def _handlers(n: int) -> list[str]:
    lines: list[str] = []
    for i in range(n):
        lines += [
            f"def handler_{i}(request):",
            f"    data = request.get('field_{i}')",
            "    if data is None:",
            "        return None",
            "    result = process(data)",
            "    return result",
            "",
        ]
    return lines


def test_fuzzy_in_repetitive_code_picks_the_window_closer_where_windows_differ():
    lines = _handlers(200)
    block = lines[7 * 57 : 7 * 57 + 6]
    block[4] = "    result = proces(data)"  # a typo on a line every handler shares
    m = locate(lines, block)
    assert (m.start, m.kind) == (7 * 57, MatchKind.FUZZY)


def test_fuzzy_stays_ambiguous_when_no_window_is_clearly_closer():
    lines = _handlers(30)
    block = lines[7 * 12 : 7 * 12 + 6]
    block[0] = "def handler_1x(request):"  # as far from handler_12 as from handler_13
    block[1] = "    data = request.get('field_1x')"
    block[4] = "    result = proces(data)"
    with pytest.raises(PlacementError) as e:
        locate(lines, block)
    assert e.value.failure.code is ErrorCode.TEXT_AMBIGUOUS
