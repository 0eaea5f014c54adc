"""Which line of one text is which line of another, blank lines included.

A line diff pairs equal lines; blank lines all look alike, so a diff pairs any blank line
with any other, and a blank line the reply adds between two new lines can be taken for the
file's blank line a few lines down (whose own bytes then go to the new one). Blank lines
are paired by their neighbours instead: a run of blank lines in one text is a run of the
other when the line above both is the same line — kept, or rewritten (the most alike in
order within a changed stretch) — or the start of both texts; failing that, the line
below both, or the end of both. The run's lines pair from that side, each pair only when
the two lines are equal (the caller says what equal means: the same bytes, or the same
once trailing white space is gone). A run between lines the other text does not have is
its own. Pure.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from rapidfuzz.distance import Indel

from lsp_server.linediff import line_opcodes

_ALIKE = 0.6  # a rewritten line keeps this much of the line it rewrites (Indel similarity)
_WORD = re.compile(r"\w+")
_ALIKE_CELLS = 2_500  # a changed stretch bigger than this (a rewrite) pairs no lines by likeness


def same_lines(a: Sequence[str], b: Sequence[str]) -> list[tuple[int, int]]:
    """(i, j) pairs, in order: `a[i]` and `b[j]` are the same line. Lines with text pair
    by a line diff (equal only); blank lines by their neighbours (see the docstring)."""
    text_a = [i for i, x in enumerate(a) if x.strip()]
    text_b = [j for j, x in enumerate(b) if x.strip()]
    sa, sb = [a[r] for r in text_a], [b[r] for r in text_b]
    runs_b = _runs(b)
    if not runs_b:  # nothing to tie: the diff of the lines with text is the answer
        return _equal(sa, sb, text_a, text_b)
    edges = {s - 1 for s, _ in runs_b} | {e for _, e in runs_b}  # rows a run's tie reads
    equal: list[tuple[int, int]] = []
    alike: dict[int, int] = {}  # b row -> a row: equal or rewritten
    i = j = 0
    ends = ("end", len(sa), len(sa), len(sb), len(sb))
    for _tag, i1, i2, j1, j2 in [*line_opcodes(sa, sb), ends]:
        while i < i1 and j < j1:
            equal.append((text_a[i], text_b[j]))
            alike[text_b[j]] = text_a[i]
            i, j = i + 1, j + 1
        touches = any(text_b[y] in edges for y in range(j1, j2))
        if touches and i1 < i2 and (i2 - i1) * (j2 - j1) <= _ALIKE_CELLS:
            for x, y in _rewritten(sa, sb, i1, i2, j1, j2):
                alike[text_b[y]] = text_a[x]
        i, j = i2, j2
    pairs = equal + _blank_runs(a, b, runs_b, alike)
    return sorted(pairs)


def _equal(
    sa: list[str], sb: list[str], text_a: list[int], text_b: list[int]
) -> list[tuple[int, int]]:
    """The diff's equal pairs of the lines with text, as rows of the whole texts."""
    out: list[tuple[int, int]] = []
    i = j = 0
    for _tag, i1, i2, j1, j2 in [*line_opcodes(sa, sb), ("end", len(sa), 0, len(sb), 0)]:
        while i < i1 and j < j1:
            out.append((text_a[i], text_b[j]))
            i, j = i + 1, j + 1
        i, j = i2, j2
    return out


def _rewritten(
    sa: list[str], sb: list[str], i1: int, i2: int, j1: int, j2: int
) -> list[tuple[int, int]]:
    """Lines of a changed stretch that rewrite each other: the pairing in order, each pair
    alike enough in its words, that is most alike in all (a line is not taken for a later
    one that happens to share some of its words)."""
    n, m = i2 - i1, j2 - j1
    words_a = [_words(sa[i1 + x]) for x in range(n)]
    words_b = [_words(sb[j1 + y]) for y in range(m)]
    similar = Indel.normalized_similarity
    sim = [[similar(wa, wb, score_cutoff=_ALIKE) for wb in words_b] for wa in words_a]
    best = [[0.0] * (m + 1) for _ in range(n + 1)]
    for x in range(n - 1, -1, -1):
        for y in range(m - 1, -1, -1):
            take = sim[x][y] + best[x + 1][y + 1] if sim[x][y] >= _ALIKE else 0.0
            best[x][y] = max(take, best[x + 1][y], best[x][y + 1])
    out: list[tuple[int, int]] = []
    x = y = 0
    while x < n and y < m:
        if sim[x][y] >= _ALIKE and best[x][y] == sim[x][y] + best[x + 1][y + 1]:
            out.append((i1 + x, j1 + y))
            x, y = x + 1, y + 1
        elif best[x][y] == best[x + 1][y]:
            x += 1
        else:
            y += 1
    return out


def _words(line: str) -> list[str] | str:
    """What a line says, for likeness: its words (names and numbers), so that a rewrite
    that keeps a line's names is alike and two lines sharing only `= 1` are not; a line
    of punctuation alone is its characters."""
    words = _WORD.findall(line)
    return words or line.strip()


def _runs(lines: Sequence[str]) -> list[tuple[int, int]]:
    """(first, last + 1) of each run of blank lines."""
    out: list[tuple[int, int]] = []
    k = 0
    while k < len(lines):
        if lines[k].strip():
            k += 1
            continue
        start = k
        while k < len(lines) and not lines[k].strip():
            k += 1
        out.append((start, k))
    return out


def _blank_runs(
    a: Sequence[str], b: Sequence[str], runs_b: list[tuple[int, int]], alike: dict[int, int]
) -> list[tuple[int, int]]:
    """(a row, b row) for the equal blank lines of runs tied by a neighbour."""
    runs_a = _runs(a)
    after = {s - 1: (s, e) for s, e in runs_a}  # the row above a run -> the run
    before = {e: (s, e) for s, e in runs_a}  # the row below a run -> the run
    end_a, end_b = len(a), len(b)
    used: set[tuple[int, int]] = set()
    out: list[tuple[int, int]] = []
    for s, e in runs_b:
        up = -1 if s == 0 else alike.get(s - 1)
        down = end_a if e == end_b else alike.get(e)
        run, from_top = (after.get(up) if up is not None else None), True
        if run is None or run in used:
            run, from_top = (before.get(down) if down is not None else None), False
        if run is None or run in used:
            continue
        used.add(run)
        for k in range(min(e - s, run[1] - run[0])):
            i, j = (run[0] + k, s + k) if from_top else (run[1] - 1 - k, e - 1 - k)
            if a[i] == b[j]:
                out.append((i, j))
    return out
