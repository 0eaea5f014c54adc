"""Old text → new text as line operations: the one differ behind text edits and report diffs.

A plan's changes are local splices in big files, so the differ is built for that shape:
common leading and trailing runs are found by comparing list slices (in C), and what is
left is walked splice by splice, or cut at lines that occur exactly once on each side and
in the same order (patience diff), until the gaps are small enough for difflib's matcher.
Each small gap changes as few lines as any diff of it could (see `_small`). On a 5,000-line
file with a few splices this is some fifty times faster than `difflib.unified_diff`.

Lines end where the LSP says they do ("\\n", "\\r\\n" or "\\r"). No LSP types here: the CLI's
report uses this module too, and must not pay for importing lsprotocol.
"""

from __future__ import annotations

import bisect
import itertools
from collections import Counter
from collections.abc import Iterator, Sequence
from typing import NamedTuple, TypeVar

from lsp_server.lines import split_lsp_lines

# Above this many line pairs the line diff falls back to one replace chunk per differing
# region: difflib is quadratic in the worst case and a huge rewrite gains nothing from it.
_MAX_DIFF_CELLS = 40_000_000
_SMALL_DIFF_CELLS = 40_000  # below this, difflib's quadratic matcher is cheap enough

Opcode = tuple[str, int, int, int, int]  # (tag, i1, i2, j1, j2) as in difflib, never "equal"


# --- line operations ------------------------------------------------------------------------


def line_opcodes(a: Sequence[str], b: Sequence[str]) -> list[Opcode]:
    """The changed regions between two line lists, in order, as difflib-style opcodes."""
    return _changed(list(a), list(b), 0, 0)


def all_opcodes(a: Sequence[str], b: Sequence[str]) -> list[tuple[str, int, int, int, int]]:
    """`line_opcodes` with the stretches between them as "equal" opcodes: the whole
    alignment, as difflib's `get_opcodes` gives it."""
    out: list[tuple[str, int, int, int, int]] = []
    pi = pj = 0
    for op in line_opcodes(a, b):
        _, i1, i2, j1, j2 = op
        if i1 > pi:
            out.append(("equal", pi, i1, pj, j1))
        out.append(op)
        pi, pj = i2, j2
    if pi < len(a):
        out.append(("equal", pi, len(a), pj, len(b)))
    return out


def equal_pairs(a: Sequence[str], b: Sequence[str]) -> list[tuple[int, int]]:
    """(i, j) for every line `a[i]` the diff keeps as `b[j]`, in order: what lies between
    the changed regions of `line_opcodes`. Bounded like it (difflib's matcher, asked for
    its matching blocks directly, is cubic on a rewrite whose only common lines repeat)."""
    out: list[tuple[int, int]] = []
    pi = pj = 0
    for _, i1, i2, _, j2 in [*line_opcodes(a, b), ("end", len(a), len(a), len(b), len(b))]:
        out.extend((pi + k, pj + k) for k in range(i1 - pi))
        pi, pj = i2, j2
    return out


def local_opcodes(
    a: Sequence[str], b: Sequence[str], limit: int | None = None
) -> list[Opcode] | None:
    """The changed regions when `b` is `a` with local splices (each back in step with `a`
    within a few dozen lines), else None: a rewrite, which `line_opcodes` would diff in
    depth, or more than about `limit` splices (the walk stops once it has made `limit`
    and more are to come). Work is proportional to the number of splices, never
    quadratic."""
    return _splices(list(a), list(b), 0, 0, limit)


_S = TypeVar("_S", str, bytes)


def common_prefix(a: _S, b: _S) -> int:
    """Length of the common prefix of two texts (or byte strings).

    Chunks of doubling size are compared from the start, then the first unequal chunk is
    halved: the comparisons run in C, and only about twice the common part is copied.
    """
    n = min(len(a), len(b))
    i, k = 0, 1024
    while i < n:
        j = min(n, i + k)
        if a[i:j] != b[i:j]:
            break
        i, k = j, 2 * k
    else:
        return n
    lo, hi = i, min(n, i + k)  # a[:lo] == b[:lo] and a[:hi] != b[:hi]
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if a[lo:mid] == b[lo:mid]:
            lo = mid
        else:
            hi = mid
    return lo


def common_suffix(a: _S, b: _S, limit: int) -> int:
    """Length of the common suffix of two texts, at most `limit`; as `common_prefix`,
    from the end (reversing a big text to reuse `common_prefix` copies all of it)."""
    la, lb = len(a), len(b)
    n = min(limit, la, lb)
    i, k = 0, 1024
    while i < n:
        j = min(n, i + k)
        if a[la - j : la - i] != b[lb - j : lb - i]:
            break
        i, k = j, 2 * k
    else:
        return n
    lo, hi = i, min(n, i + k)  # the last lo are equal, the last hi are not
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if a[la - mid : la - lo] == b[lb - mid : lb - lo]:
            lo = mid
        else:
            hi = mid
    return lo


def _common_tail(a: list[str], b: list[str]) -> int:
    """Length of the common trailing run of lines, by binary search on list slices: the
    comparisons run in C, so a 100k-line file costs microseconds."""
    lo, hi = 0, min(len(a), len(b))
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if a[len(a) - mid :] == b[len(b) - mid :]:
            lo = mid
        else:
            hi = mid - 1
    return lo


def _changed(a: list[str], b: list[str], ai: int, bj: int) -> list[Opcode]:
    """Opcodes without the `equal` ones, offset by ai/bj."""
    if a == b:
        return []
    head = _equal_run(a, b, 0, 0)
    tail = _common_tail(a[head:], b[head:])
    a_mid, b_mid = a[head : len(a) - tail], b[head : len(b) - tail]
    a0, b0 = ai + head, bj + head
    if not a_mid:
        return [("insert", a0, a0, b0, b0 + len(b_mid))]
    if not b_mid:
        return [("delete", a0, a0 + len(a_mid), b0, b0)]
    cells = len(a_mid) * len(b_mid)
    anchors: list[tuple[int, int]] = []
    if cells > _SMALL_DIFF_CELLS:
        spliced = _splices(a_mid, b_mid, a0, b0)
        if spliced is not None:
            return spliced
        anchors = _unique_anchors(a_mid, b_mid)
    if not anchors:
        if cells > _MAX_DIFF_CELLS:
            return [("replace", a0, a0 + len(a_mid), b0, b0 + len(b_mid))]
        return _small(a_mid, b_mid, a0, b0)
    out: list[Opcode] = []
    pi = pj = 0
    for i, j in [*anchors, (len(a_mid), len(b_mid))]:
        if a_mid[pi:i] != b_mid[pj:j]:
            out.extend(_changed(a_mid[pi:i], b_mid[pj:j], a0 + pi, b0 + pj))
        pi, pj = i + 1, j + 1
    return out


_SYNC_LINES = 8  # equal lines after a difference that put the two sides back in step
_SYNC_REACH = 48  # how many lines past a difference (per side) to look for that


def _splices(
    a: list[str], b: list[str], ai: int, bj: int, limit: int | None = None
) -> list[Opcode] | None:
    """Opcodes for two line lists that differ by a few short splices, or None.

    Walks both lists at once: equal runs are skipped by comparing list slices (in C), and
    after each difference the nearest point where `_SYNC_LINES` lines agree again (fewest
    lines consumed on both sides together) ends that splice. Work is proportional to the
    number of splices, not to the file, which is the shape of every plan's change. A side
    that does not come back in step within `_SYNC_REACH` lines (a rewrite, or text too
    repetitive to tell) returns None and the caller diffs the whole region instead.

    Inside a run of repeated lines every nearby offset looks in step, so the nearest one may
    be the wrong one; the walk then finds the rest of that splice where the run ends. Such a
    late piece can slide back through the run to the splice it belongs to, and is joined
    with it (`_slide_together`), so the splice is one change again.
    """
    out: list[Opcode] = []
    i = j = 0
    while True:
        run = _equal_run(a, b, i, j)
        i, j = i + run, j + run
        if i == len(a) or j == len(b):
            if i < len(a) or j < len(b):
                _add(out, _small(a[i:], b[j:], ai + i, bj + j), a, b, ai, bj)
            return out
        sync = _resync(a, b, i, j)
        if sync is None or (limit is not None and len(out) >= limit):
            return None
        x, y = sync
        _add(out, _small(a[i:x], b[j:y], ai + i, bj + j), a, b, ai, bj)
        i, j = x, y


def _add(
    out: list[Opcode], ops: list[Opcode], a: list[str], b: list[str], ai: int, bj: int
) -> None:
    """Append opcodes (offset by ai/bj into `a` and `b`), joining each with the one before
    when they can slide together."""
    for op in ops:
        joined = _slide_together(out[-1], op, a, b, ai, bj) if out else None
        if joined is None:
            out.append(op)
        else:
            out[-1] = joined


def _slide_together(
    prev: Opcode, op: Opcode, a: list[str], b: list[str], ai: int, bj: int
) -> Opcode | None:
    """One opcode for two whose equal lines in between let one of them slide to the other.

    A pure insertion or deletion can move through the equal lines next to it when those
    lines repeat its own (deleting the second of three equal lines is deleting the third);
    moved until it touches its neighbour, the two are one change. None when neither can.
    """
    p1, p2, q1, q2 = prev[1] - ai, prev[2] - ai, prev[3] - bj, prev[4] - bj
    o1, o2, r1, r2 = op[1] - ai, op[2] - ai, op[3] - bj, op[4] - bj
    gap = o1 - p2  # equal lines between them: a[p2:o1] == b[q2:r1]
    if r1 == r2 and _repeats(a, p2, o1, o2 - o1):  # op deletes: up to prev's end
        p2 += o2 - o1
    elif o1 == o2 and _repeats(b, q2, r1, r2 - r1):  # op inserts: up to prev's end
        q2 += r2 - r1
    elif q1 == q2 and _repeats(a, p1, p1 + gap, p2 - p1):  # prev deletes: down to op's start
        p1, p2, q1, q2 = o1 - (p2 - p1), o2, r1, r2
    elif p1 == p2 and _repeats(b, q1, q1 + gap, q2 - q1):  # prev inserts: down to op's start
        p1, p2, q1, q2 = o1, o2, r1 - (q2 - q1), r2
    else:
        return None
    tag = "replace" if p2 > p1 and q2 > q1 else "delete" if p2 > p1 else "insert"
    return (tag, ai + p1, ai + p2, bj + q1, bj + q2)


def _repeats(lines: list[str], start: int, stop: int, period: int) -> bool:
    """lines[start:stop] == lines[start + period : stop + period]: a group of `period` lines
    next to that stretch can slide through it. Its two ends are compared first, so a long
    stretch between two splices is only copied when it is one repeated line or pattern."""
    if stop <= start:
        return True
    if lines[start] != lines[start + period] or lines[stop - 1] != lines[stop - 1 + period]:
        return False
    return lines[start:stop] == lines[start + period : stop + period]


def _equal_run(a: list[str], b: list[str], i: int, j: int) -> int:
    """How many lines from a[i] and b[j] on are equal: galloping, then bisecting, on slices."""
    n = min(len(a) - i, len(b) - j)
    lo, step = 0, 16
    while lo < n:
        hi = min(n, lo + step)
        if a[i + lo : i + hi] == b[j + lo : j + hi]:
            lo, step = hi, step * 2
            continue
        while hi - lo > 1:  # a[i+lo:i+hi] holds the first difference
            mid = (lo + hi) // 2
            if a[i + lo : i + mid] == b[j + lo : j + mid]:
                lo = mid
            else:
                hi = mid
        return lo
    return n


def _resync(a: list[str], b: list[str], i: int, j: int) -> tuple[int, int] | None:
    """The nearest (x, y) past a difference at (i, j) where both sides run equal again."""
    for spent in range(1, 2 * _SYNC_REACH + 1):
        for dx in range(max(0, spent - _SYNC_REACH), min(spent, _SYNC_REACH) + 1):
            x, y = i + dx, j + spent - dx
            if x > len(a) or y > len(b):
                continue
            if len(a) - x < _SYNC_LINES or len(b) - y < _SYNC_LINES:
                if a[x:] == b[y:]:  # near the end: in step only if both ends agree
                    return x, y
            elif a[x : x + _SYNC_LINES] == b[y : y + _SYNC_LINES]:
                return x, y
    return None


def _small(a: list[str], b: list[str], ai: int, bj: int) -> list[Opcode]:
    """Opcodes for a short differing stretch, with as few changed lines as any diff has.

    difflib's matcher takes the longest common block first and splits around it, which
    reads well (long unchanged runs stay together) but is not always minimal, and what it
    finds depends on where the stretch was cut: once the common head and tail are gone, the
    block it would have matched in the whole texts may straddle the cut, and the stretch can
    come back with more changed lines than difflib finds on the whole texts. So its answer
    is kept only when it matches as many lines as a longest common subsequence; otherwise
    the subsequence itself is the answer (cutting off a common head or tail never shortens
    a longest common subsequence, so the result is minimal however the stretch was cut).
    """
    if not a:
        return [("insert", ai, ai, bj, bj + len(b))]
    if not b:
        return [("delete", ai, ai + len(a), bj, bj)]
    if set(a).isdisjoint(b):
        # no line in common: the one answer is to replace it all (what difflib gives too),
        # found without loading difflib (a one-line change, the commonest stretch of all)
        return [("replace", ai, ai + len(a), bj, bj + len(b))]
    if len(a) * len(b) > _SMALL_DIFF_CELLS:
        # difflib's matcher is cubic when a line recurs all over the stretch (a rewrite
        # whose only common lines are blank); the subsequence table stays N·M/64
        matcher = None
        rows: list[int] | None = _lcs_rows(a, b)
    else:
        # imported on first use: a command whose diffs have no stretch of this kind (most
        # replace a few lines with others) does not load it
        import difflib

        matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
        matched = sum(block.size for block in matcher.get_matching_blocks())
        rows = _longer_subsequence(a, b, matched)
    if matcher is not None and rows is None:
        return [
            (t, i1 + ai, i2 + ai, j1 + bj, j2 + bj)
            for t, i1, i2, j1, j2 in matcher.get_opcodes()
            if t != "equal"
        ]
    out: list[Opcode] = []
    pi = pj = 0
    for i, j in [*_lcs_pairs(a, b, rows), (len(a), len(b))]:
        if i > pi or j > pj:
            tag = "replace" if i > pi and j > pj else "delete" if i > pi else "insert"
            out.append((tag, ai + pi, ai + i, bj + pj, bj + j))
        pi, pj = i + 1, j + 1
    return out


def _longer_subsequence(a: list[str], b: list[str], matched: int) -> list[int] | None:
    """The subsequence table (`_lcs_rows`) when `a` and `b` have a common subsequence longer
    than `matched` lines, else None. Most stretches are settled without the table: every
    line of the shorter side matched, or nothing matched and the sides share no line."""
    if matched == min(len(a), len(b)) or (matched == 0 and set(a).isdisjoint(b)):
        return None
    rows = _lcs_rows(a, b)
    return rows if _lcs_length(rows[-1], len(b)) > matched else None


def _lcs_rows(a: list[str], b: list[str]) -> list[int]:
    """The longest-common-subsequence table of `a` against `b`, one integer per row.

    Bit j of row i is clear where the subsequence of a[:i] and b[:j + 1] is one longer than
    that of a[:i] and b[:j] (the bit-parallel method of Allison and Dix, in Hyyrö's form):
    each line of `a` costs a few operations on len(b)-bit integers, which run in C.
    """
    masks: dict[str, int] = {}
    for j, line in enumerate(b):
        masks[line] = masks.get(line, 0) | (1 << j)
    full = (1 << len(b)) - 1
    row = full
    rows = [row]
    for line in a:
        hit = row & masks.get(line, 0)
        row = ((row + hit) | (row - hit)) & full
        rows.append(row)
    return rows


def _lcs_length(row: int, width: int) -> int:
    """Length of the longest common subsequence of a row's prefix of `a` and b[:width]."""
    return width - (row & ((1 << width) - 1)).bit_count()


def _lcs_pairs(a: list[str], b: list[str], rows: list[int]) -> list[tuple[int, int]]:
    """Index pairs of one longest common subsequence, walking the table back from the end.

    `here` is the length at (i, j); a step left loses one where bit j - 1 of the row is
    clear, so each step counts bits once (for the row above) instead of three times.
    """
    pairs: list[tuple[int, int]] = []
    i, j = len(a), len(b)
    here = _lcs_length(rows[i], j)
    while i and j:
        up = _lcs_length(rows[i - 1], j)
        if a[i - 1] == b[j - 1] and up - (~rows[i - 1] >> (j - 1) & 1) + 1 == here:
            i, j, here = i - 1, j - 1, here - 1
            pairs.append((i, j))
        elif up == here:
            i -= 1
        else:
            j -= 1
            here -= ~rows[i] >> j & 1
    return pairs[::-1]


def _unique_anchors(a: list[str], b: list[str]) -> list[tuple[int, int]]:
    """Pairs (i, j) of lines unique in both lists, longest chain increasing in both."""
    count_a, count_b = Counter(a), Counter(b)
    once_b = {line for line, n in count_b.items() if n == 1}
    unique = {line for line, n in count_a.items() if n == 1 and line in once_b}
    if not unique:
        return []
    where_b = {line: j for j, line in enumerate(b) if line in unique}
    pairs = [(i, where_b[line]) for i, line in enumerate(a) if line in unique]
    # pairs are sorted by i already: the chain is the longest run increasing in j
    return [pairs[k] for k in longest_increasing([j for _, j in pairs])]


def longest_increasing(values: Sequence[int]) -> list[int]:
    """Indices of a longest strictly increasing subsequence of `values`, in order
    (patience sorting: O(n log n))."""
    tails: list[int] = []  # smallest value ending an increasing run of each length
    tail_at: list[int] = []  # ... and its index in `values`
    back = [-1] * len(values)
    for k, value in enumerate(values):
        at = bisect.bisect_left(tails, value)
        if at:
            back[k] = tail_at[at - 1]
        if at == len(tails):
            tails.append(value)
            tail_at.append(k)
        else:
            tails[at] = value
            tail_at[at] = k
    chain: list[int] = []
    k = tail_at[-1] if tail_at else -1
    while k >= 0:
        chain.append(k)
        k = back[k]
    return chain[::-1]


# --- character edits ------------------------------------------------------------------------


class OffsetEdit(NamedTuple):  # not a dataclass: see journal.Entry
    """Replace old[start:end] with `text`; offsets are code points into the old text."""

    start: int
    end: int
    text: str


def _splits_crlf(text: str, at: int) -> bool:
    return 0 < at < len(text) and text[at - 1] == "\r" and text[at] == "\n"


def _trim(old: str, new: str, base: int) -> OffsetEdit | None:
    """One edit for old→new, with the common prefix and suffix left out (never inside a CRLF)."""
    if old == new:
        return None
    limit = min(len(old), len(new))
    p = 0
    while p < limit and old[p] == new[p]:
        p += 1
    while p > 0 and (_splits_crlf(old, p) or _splits_crlf(new, p)):
        p -= 1
    s = 0
    while s < limit - p and old[len(old) - 1 - s] == new[len(new) - 1 - s]:
        s += 1
    while s > 0 and (_splits_crlf(old, len(old) - s) or _splits_crlf(new, len(new) - s)):
        s -= 1
    return OffsetEdit(base + p, base + len(old) - s, new[p : len(new) - s])


def diff_offsets(old: str, new: str, old_lines: Sequence[str] | None = None) -> list[OffsetEdit]:
    """Minimal, sorted, non-touching edits that turn `old` into `new`.

    `old_lines` is `split_lsp_lines(old)` when the caller already has it.
    """
    if old == new:
        return []
    a = list(old_lines) if old_lines is not None else split_lsp_lines(old)
    b = split_lsp_lines(new)
    starts = list(itertools.accumulate(map(len, a), initial=0))
    edits: list[OffsetEdit] = []
    for tag, i1, i2, j1, j2 in _changed(a, b, 0, 0):
        if tag == "replace" and i2 - i1 == j2 - j1:
            # same number of lines: pair them up so each changed line gets its own small edit
            for k in range(i2 - i1):
                edit = _trim(a[i1 + k], b[j1 + k], starts[i1 + k])
                if edit is not None:
                    edits.append(edit)
            continue
        edit = _trim("".join(a[i1:i2]), "".join(b[j1:j2]), starts[i1])
        if edit is not None:
            edits.append(edit)
    return _merge_touching(edits, old)


def _merge_touching(edits: list[OffsetEdit], old: str) -> list[OffsetEdit]:
    """Join edits that touch, so no two edits share a position (some clients mis-order those)."""
    merged: list[OffsetEdit] = []
    for edit in edits:
        if merged and merged[-1].end >= edit.start:
            prev = merged[-1]
            merged[-1] = OffsetEdit(
                prev.start, edit.end, prev.text + old[prev.end : edit.start] + edit.text
            )
        else:
            merged.append(edit)
    return merged


# --- unified diff ---------------------------------------------------------------------------


def unified_diff(
    a: Sequence[str],
    b: Sequence[str],
    fromfile: str,
    tofile: str,
    context: int = 3,
    first_line: int = 0,
) -> Iterator[str]:
    """The lines of a unified diff of two line lists (lines keep their endings), in the
    layout `diff -u` and `difflib.unified_diff` use: hunks whose changes are at most
    2 × `context` equal lines apart share one hunk. `first_line` is how many lines of
    both files come before `a` and `b` (see `unified_text_diff`)."""
    ops = line_opcodes(a, b)
    if not ops:
        return
    yield f"--- {fromfile}\n"
    yield f"+++ {tofile}\n"
    for hunk in _hunks(ops, context):
        first, last = hunk[0], hunk[-1]
        i1 = max(0, first[1] - context)
        j1 = first[3] - (first[1] - i1)  # the lines before a hunk are equal on both sides
        i2 = min(len(a), last[2] + context)
        j2 = last[4] + (i2 - last[2])
        k = first_line
        yield f"@@ -{_range(k + i1, k + i2)} +{_range(k + j1, k + j2)} @@\n"
        i = i1
        for _, o1, o2, p1, p2 in hunk:
            for line in a[i:o1]:
                yield " " + line
            for line in a[o1:o2]:
                yield "-" + line
            for line in b[p1:p2]:
                yield "+" + line
            i = o2
        for line in a[i:i2]:
            yield " " + line


def unified_text_diff(
    old: str, new: str, fromfile: str, tofile: str, context: int = 3
) -> Iterator[str]:
    """`unified_diff` of two texts split into LSP lines, in time proportional to the change:
    the equal text at both ends is found by comparing the texts in C (`common_prefix`),
    and only the lines between, with `context` more on each side, are split and diffed.

    The cuts are made just after a "\n", which ends a line whichever ending it belongs to,
    so the lines kept are the very lines a whole split gives, and the diff is the same."""
    if old == new:
        return
    head = common_prefix(old, new)
    tail = common_suffix(old, new, min(len(old), len(new)) - head)
    start = old.rfind("\n", 0, head) + 1  # the start of the line holding the first change
    for _ in range(context):
        if start == 0:
            break
        start = old.rfind("\n", 0, start - 1) + 1
    # the first line end inside the common tail ends the last changed line (a "\n" just
    # before the tail may end a line that differs in the other text)
    stop = len(old) - tail
    for _ in range(context + 1):
        cut = old.find("\n", stop)
        if cut < 0:
            stop = len(old)
            break
        stop = cut + 1
    kept = len(old) - stop  # equal trailing characters left out, the same in both texts
    lines_before = old.count("\n", 0, start)
    if old.find("\r", 0, start) >= 0:  # a "\r" alone ends a line too; a "\r\n" ends one
        lines_before += old.count("\r", 0, start) - old.count("\r\n", 0, start)
    yield from unified_diff(
        split_lsp_lines(old[start:stop]),
        split_lsp_lines(new[start : len(new) - kept]),
        fromfile,
        tofile,
        context,
        lines_before,
    )


def _hunks(ops: list[Opcode], context: int) -> Iterator[list[Opcode]]:
    group: list[Opcode] = [ops[0]]
    for op in ops[1:]:
        if op[1] - group[-1][2] <= 2 * context:
            group.append(op)
        else:
            yield group
            group = [op]
    yield group


def _range(start: int, stop: int) -> str:
    """`-l,s` numbers: 1-based first line and count; an empty range names the line before."""
    length = stop - start
    if length == 1:
        return str(start + 1)
    if length == 0:
        return f"{start},0"
    return f"{start + 1},{length}"


def edit_present(old: str, new: str, now: str) -> bool:
    """Is the change old → new in `now`, even if the user has typed elsewhere since?

    Each changed region of `new`, widened to whole lines plus one line of context on each
    side, must appear in `now`. A client that skipped the edit (Neovim does so silently for
    a stale version) leaves at least one of them missing. "\\r\\n" and "\\n" count as the
    same ending: an editor may have normalised them.
    """
    old, new, now = (t.replace("\r\n", "\n") for t in (old, new, now))
    if now == new:
        return True
    if now == old:
        return False
    delta = 0
    for edit in diff_offsets(old, new):
        start = edit.start + delta
        end = start + len(edit.text)
        delta += len(edit.text) - (edit.end - edit.start)
        line_start = new.rfind("\n", 0, start) + 1
        lo = new.rfind("\n", 0, line_start - 1) + 1 if line_start > 0 else 0
        line_end = new.find("\n", end)
        after = new.find("\n", line_end + 1) if line_end != -1 else -1
        hi = after + 1 if after != -1 else len(new)
        fragment = new[lo:hi]
        if fragment and fragment not in now:
            return False
    return True
