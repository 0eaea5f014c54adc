"""The line differ: its fast paths must give diffs as correct (and as small, in changed lines)
as difflib's."""

from __future__ import annotations

import difflib
import re

from hypothesis import example, given, settings
from hypothesis import strategies as st

from lsp_server import linediff
from lsp_server.linediff import diff_offsets, line_opcodes, unified_diff
from lsp_server.lines import split_lsp_lines


def _apply_ops(a: list[str], b: list[str], ops: list) -> list[str]:
    out: list[str] = []
    i = 0
    for _, i1, i2, j1, j2 in ops:
        assert i1 >= i, "opcodes out of order"
        out += a[i:i1] + b[j1:j2]
        i = i2
    return out + a[i:]


def _changed_lines(ops: list) -> int:
    """Lines a diff of these opcodes shows with - or +, the measure the differ keeps minimal.
    (The longer side of each replace is another measure, and the two pull apart: fewer
    changed lines can mean fewer old lines paired with new ones.)"""
    return sum((i2 - i1) + (j2 - j1) for _, i1, i2, j1, j2 in ops)


# few distinct lines, so texts repeat themselves the way code does
_VOCAB = ["x = 1\n", "y = 2\n", "}\n", "    return r\n", "\n", "if a:\n", "pass\n", "end\n"]


@st.composite
def spliced(draw, min_size: int = 0, max_size: int = 60):
    """A line list and a copy with a few short splices, like a plan's change. Big lists are
    drawn from a seeded generator (hypothesis builds long lists element by element, slowly)."""
    rnd = draw(st.randoms(use_true_random=False))
    size = draw(st.integers(min_size, max_size))
    words = [f"{rnd.choice('abcdefgh')}{rnd.randrange(40)}\n" for _ in range(20)]
    a = [rnd.choice(_VOCAB if rnd.random() < 0.6 else words) for _ in range(size)]
    b = list(a)
    for _ in range(draw(st.integers(0, 5))):
        at = rnd.randint(0, len(b))
        cut = rnd.randint(0, 3)
        b[at : at + cut] = [rnd.choice(_VOCAB) for _ in range(rnd.randint(0, 4))]
    return a, b


@settings(max_examples=300, deadline=None)
@given(spliced())
def test_opcodes_turn_old_into_new(pair) -> None:
    a, b = pair
    assert _apply_ops(a, b, line_opcodes(a, b)) == b


@settings(max_examples=60, deadline=None)
@given(spliced(min_size=300, max_size=900))
def test_the_splice_walk_is_correct_and_no_bigger_than_difflib(pair) -> None:
    a, b = pair
    walked = linediff._splices(a, b, 0, 0)
    reference = [
        op
        for op in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes()
        if op[0] != "equal"
    ]
    if walked is not None:
        assert _apply_ops(a, b, walked) == b
        assert _changed_lines(walked) <= _changed_lines(reference)
    ops = line_opcodes(a, b)
    assert _apply_ops(a, b, ops) == b
    assert _changed_lines(ops) <= _changed_lines(reference)


def test_a_splice_in_a_run_of_equal_lines_stays_one_change() -> None:
    """Three of sixty equal lines replaced by one: the walk's nearest sync (one line
    inserted) is the wrong one, and the two lines left to delete turn up where the run
    ends; they slide back and join the insertion."""
    head, tail = [f"head {i}\n" for i in range(40)], [f"tail {i}\n" for i in range(40)]
    a = head + ["x\n"] * 60 + ["y\n"] + tail
    b = a[:40] + ["end\n"] + a[43:]
    walked = linediff._splices(a, b, 0, 0)
    assert walked == [("replace", 40, 43, 40, 41)]
    assert line_opcodes(a, b) == walked


def test_a_rewrite_falls_back_from_the_splice_walk() -> None:
    a = [f"old {i}\n" for i in range(400)]
    b = [f"new {i}\n" for i in range(400)]
    assert linediff._splices(a, b, 0, 0) is None
    assert _apply_ops(a, b, line_opcodes(a, b)) == b
    assert linediff.local_opcodes(a, b) is None


@settings(max_examples=200, deadline=None)
@given(spliced(max_size=600))
def test_local_opcodes_are_the_splices_or_nothing(pair) -> None:
    """What the syntax trees' incremental re-parse uses: ordered opcodes that turn old into
    new, found by the splice walk alone; a few short splices are always found."""
    a, b = pair
    ops = linediff.local_opcodes(a, b)
    assert ops is not None  # at most five splices of a few lines each
    assert _apply_ops(a, b, ops) == b
    assert all(op[0] != "equal" for op in ops)
    assert (ops == []) == (a == b)
    assert linediff.local_opcodes(a, b, limit=len(ops) + 1) == ops  # a limit it stays under


def test_local_opcodes_give_up_past_their_limit_of_splices() -> None:
    a = [f"line {i}\n" for i in range(400)]
    b = list(a)
    for at in range(10, 400, 40):  # ten edits, far apart
        b[at] = "changed\n"
    ops = linediff.local_opcodes(a, b)
    assert ops is not None and len(ops) == 10 and _apply_ops(a, b, ops) == b
    assert linediff.local_opcodes(a, b, limit=10) == ops
    assert linediff.local_opcodes(a, b, limit=3) is None


def _rebuild(lines: list[str], a: list[str], b: list[str]) -> tuple[list[str], list[str]]:
    """Both sides again, from the unchanged lines between hunks and the hunks' own lines;
    every hunk header's counts are checked on the way."""
    assert lines[:2] == ["--- a/f\n", "+++ b/f\n"]
    pos_a = pos_b = 0
    rebuilt_a: list[str] = []
    rebuilt_b: list[str] = []
    body = lines[2:]
    k = 0
    while k < len(body):
        m = re.fullmatch(r"@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@\n", body[k])
        assert m, body[k]
        sa, ca = int(m[1]), int(m[2] if m[2] is not None else 1)
        sb, cb = int(m[3]), int(m[4] if m[4] is not None else 1)
        start_a = sa - 1 if ca else sa
        start_b = sb - 1 if cb else sb
        rebuilt_a += a[pos_a:start_a]
        rebuilt_b += b[pos_b:start_b]
        k += 1
        seen_a = seen_b = 0
        while k < len(body) and not body[k].startswith("@@"):
            tag, text = body[k][0], body[k][1:]
            if tag in " -":
                rebuilt_a.append(text)
                seen_a += 1
            if tag in " +":
                rebuilt_b.append(text)
                seen_b += 1
            k += 1
        assert (seen_a, seen_b) == (ca, cb)
        pos_a, pos_b = start_a + ca, start_b + cb
    return rebuilt_a + a[pos_a:], rebuilt_b + b[pos_b:]


def _changes(lines: list[str]) -> int:
    return sum(1 for x in lines[2:] if x[0] in "+-")


_X, _Y = "x = 1\n", "y = 2\n"


@settings(max_examples=300, deadline=None)
@given(spliced(max_size=40), st.integers(0, 4))
# difflib on the whole texts matches a[3:9] with b[3:9]; with the common tail (three x's) cut
# off first, difflib's longest block in what was left gave 3 insertions and 4 deletions
@example(([_X, _X, _Y, _X, _X, _Y, _X, _X, _X, _X], [_Y, _X, _X, _X, _X, _Y, _X, _X, _X]), 0)
def test_unified_diff_is_a_valid_diff_no_longer_than_difflibs(pair, context: int) -> None:
    a, b = pair
    ours = list(unified_diff(a, b, "a/f", "b/f", context))
    theirs = list(difflib.unified_diff(a, b, "a/f", "b/f", n=context))
    if a == b:
        assert ours == theirs == []
        return
    assert _rebuild(ours, a, b) == (a, b)
    assert _changes(ours) <= _changes(theirs)
    # hunk for hunk the same layout: as many hunks as difflib makes from the same changes
    if _changes(ours) == _changes(theirs):
        assert sum(x.startswith("@@") for x in ours) <= sum(x.startswith("@@") for x in theirs)


@settings(max_examples=60, deadline=None)
@given(spliced(min_size=250, max_size=700), st.integers(0, 5))
def test_unified_diff_hunks_rebuild_both_sides(pair, context: int) -> None:
    a, b = pair
    lines = list(unified_diff(a, b, "a/f", "b/f", context))
    if a == b:
        assert lines == []
        return
    assert _rebuild(lines, a, b) == (a, b)


@settings(max_examples=60, deadline=None)
@given(spliced(min_size=200, max_size=600), st.sampled_from(["\n", "\r\n"]))
def test_offset_edits_rebuild_the_new_text(pair, eol: str) -> None:
    a, b = pair
    old = "".join(a).replace("\n", eol)
    new = "".join(b).replace("\n", eol)
    out, pos = [], 0
    for e in diff_offsets(old, new):
        assert e.start >= pos
        assert not (eol == "\r\n" and 0 < e.start < len(old) and old[e.start - 1 : e.start + 1]
                    == "\r\n"), "an edit starts inside a CRLF"
        out += [old[pos : e.start], e.text]
        pos = e.end
    assert "".join(out) + old[pos:] == new


@given(st.lists(st.sampled_from(["a", "\n", "\r", "\r\n", "\x0c", "\u2028", "\x85"])).map("".join))
def test_split_lsp_lines_breaks_only_where_the_lsp_does(text: str) -> None:
    reference = re.findall(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+\Z", text)
    assert split_lsp_lines(text) == reference
    assert "".join(split_lsp_lines(text)) == text


@given(st.lists(st.integers(0, 30), max_size=40))
def test_longest_increasing_is_increasing_and_as_long_as_any(values: list[int]) -> None:
    chain = linediff.longest_increasing(values)
    assert chain == sorted(chain)
    picked = [values[k] for k in chain]
    assert all(x < y for x, y in zip(picked, picked[1:], strict=False))  # strictly
    # the classic O(n^2) length, for comparison
    best = [1] * len(values)
    for k in range(len(values)):
        for m in range(k):
            if values[m] < values[k]:
                best[k] = max(best[k], best[m] + 1)
    assert len(chain) == max(best, default=0)


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.sampled_from(["x\n", "y\n", "z\n"]), max_size=30),
    st.lists(st.sampled_from(["x\n", "y\n", "z\n"]), max_size=30),
)
def test_line_opcodes_change_as_few_lines_as_a_longest_common_subsequence(a, b) -> None:
    """Minimal in +/- lines however the texts are cut: never more than the classic table."""
    ops = line_opcodes(a, b)
    assert _apply_ops(a, b, ops) == b
    table = [[0] * (len(b) + 1) for _ in range(len(a) + 1)]
    for i in range(len(a) - 1, -1, -1):
        for j in range(len(b) - 1, -1, -1):
            table[i][j] = (
                table[i + 1][j + 1] + 1 if a[i] == b[j] else max(table[i + 1][j], table[i][j + 1])
            )
    assert _changed_lines(ops) == len(a) + len(b) - 2 * table[0][0]


def test_a_rewrite_sharing_only_blank_lines_keeps_them_and_changes_the_rest():
    # difflib's matcher is cubic on this shape (every other line the same blank one); the
    # differ answers it from the subsequence table, still minimal
    pairs = 1000
    a = split_lsp_lines("".join(f"alpha_{i} = {i}\n\n" for i in range(pairs)))
    b = split_lsp_lines("".join(f"beta_{i} = {i * 7}\n\n" for i in range(pairs)))
    ops = line_opcodes(a, b)
    assert sum((i2 - i1) + (j2 - j1) for _, i1, i2, j1, j2 in ops) == 2 * pairs


_PIECES = ["x = 1", "y", "", "}", "if a:", "\r", "\n", "\r\n", "\n", "\r\n", "\x0c", "\u2028"]


@st.composite
def edited_texts(draw):
    """A text with every kind of line ending (and none at the end, sometimes) and a copy
    with a few splices, some of which cut into an ending ("\\r" | "\\n")."""
    rnd = draw(st.randoms(use_true_random=False))
    old = "".join(rnd.choice(_PIECES) for _ in range(draw(st.integers(0, 300))))
    new = old
    for _ in range(draw(st.integers(0, 4))):
        at = rnd.randint(0, len(new))
        cut = rnd.randint(0, 6)
        piece = "".join(rnd.choice(_PIECES) for _ in range(rnd.randint(0, 4)))
        new = new[:at] + piece + new[at + cut :]
    return old, new


@settings(max_examples=500, deadline=None)
@given(edited_texts(), st.integers(0, 4))
@example(("a\r\nb\n", "a\rx\nb\n"), 3)  # the change splits a "\r\n"
@example(("a\nb\nc", "a\nb\nd"), 3)  # no ending at the end
@example(("", "a\n"), 3)
@example(("a\n", ""), 0)
def test_a_diff_of_texts_is_the_diff_of_all_their_lines(pair, context: int) -> None:
    """Skipping the equal ends of the texts changes nothing: the same lines, the same
    hunks, the same line numbers as diffing every line."""
    old, new = pair
    whole = list(unified_diff(split_lsp_lines(old), split_lsp_lines(new), "a/f", "b/f", context))
    assert list(linediff.unified_text_diff(old, new, "a/f", "b/f", context)) == whole


@settings(max_examples=300, deadline=None)
@given(
    st.text(alphabet="ab\n", max_size=3000),
    st.text(alphabet="ab\n", max_size=40),
    st.text(alphabet="ab\n", max_size=40),
    st.integers(0, 3000),
)
def test_common_prefix_and_suffix_match_a_character_walk(
    base: str, left: str, right: str, cut: int
) -> None:
    a = base
    b = base[:cut] + left + base[cut + len(right) :]  # long shared runs, as edits leave them
    walk = 0
    while walk < min(len(a), len(b)) and a[walk] == b[walk]:
        walk += 1
    assert linediff.common_prefix(a, b) == walk
    assert linediff.common_prefix(a.encode(), b.encode()) == walk
    for limit in (min(len(a), len(b)), min(len(a), len(b)) - walk):
        tail = 0
        while tail < limit and a[len(a) - 1 - tail] == b[len(b) - 1 - tail]:
            tail += 1
        assert linediff.common_suffix(a, b, limit) == tail


@settings(max_examples=300, deadline=None)
@given(
    a=st.lists(st.sampled_from(["x", "y", "z", "", "w"]), max_size=30),
    b=st.lists(st.sampled_from(["x", "y", "z", "", "v"]), max_size=30),
)
def test_all_opcodes_tile_both_sides_and_equal_means_equal(a, b):
    """The whole alignment (what the merge room pairs lines by) covers both lists end to
    end, in order, its "equal" stretches hold equal lines, and its changes are
    `line_opcodes`'."""
    ops = linediff.all_opcodes(a, b)
    i = j = 0
    for tag, i1, i2, j1, j2 in ops:
        assert (i1, j1) == (i, j)
        if tag == "equal":
            assert a[i1:i2] == b[j1:j2] and i2 > i1
        i, j = i2, j2
    assert (i, j) == (len(a), len(b))
    assert [op for op in ops if op[0] != "equal"] == line_opcodes(a, b)
