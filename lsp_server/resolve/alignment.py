"""Which file line each line of a fuzzily placed block stands for.

The fuzzy rung compares a block with windows of as many file lines, line i with line i. A
model that skipped one file line, or added an empty line the file does not have, shifts
every line after that point by one: compared line by line, the window then pairs each line
with its neighbour, and a replacement built on that pairing keeps the wrong lines and puts
the new ones one line off. `realign` looks for a better pairing near the window: the file
may have lines the block skips, the block may have empty lines the file lacks, and every
non-empty line of the block must still stand for one file line. It is only used when the
gaps explain the block clearly better than the window does.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

GAP = 0.5  # the cost of one skipped line: a pairing must save more than this per gap
MAX_BAND = 3  # at most this many lines skipped on either side
MAX_LINES = 400  # longer blocks keep the window's pairing (the search grows with the block)
_INF = float("inf")


def realign(
    stripped: Sequence[str],
    old: Sequence[str],
    start: int,
    ratio: Callable[[str, str], float],
) -> tuple[int | None, ...] | None:
    """File line (or None: the file has no such line) for each old line, when a pairing
    with skipped lines beats the window `stripped[start : start + len(old)]`; None when
    the window's own pairing is as good.

    `stripped` are the file's lines without surrounding white space; `ratio(a, b)` is the
    similarity of two stripped lines, 0 to 1.
    """
    n, total = len(old), len(stripped)
    if n > MAX_LINES or n < 2:
        return None
    keys = [line.strip() for line in old]
    memo: dict[tuple[int, int], float] = {}

    def cost(i: int, f: int) -> float:
        got = memo.get((i, f))
        if got is None:
            a, b = keys[i], stripped[f]
            if a == b:
                got = 0.0
            elif not a or not b:
                got = 1.0
            else:
                got = 1.0 - ratio(a, b)
            memo[(i, f)] = got
        return got

    positional = sum(cost(i, start + i) for i in range(n))
    if positional <= GAP:
        return None  # any other pairing skips a line at least: it cannot cost less
    band = min(MAX_BAND, max(1, n // 4))
    width = 2 * band + 1
    # cell (i, off): old[:i] paired, the next file line is start + i + off - band
    table = [[_INF] * width for _ in range(n + 1)]
    back: list[list[tuple[int, int, bool] | None]] = [[None] * width for _ in range(n + 1)]
    for off in range(width):
        f = start + off - band
        if 0 <= f <= total:
            table[0][off] = 0.0  # the region may begin up to `band` lines either way
    for i in range(n + 1):
        row = table[i]
        for off in range(width):
            here = row[off]
            if here == _INF:
                continue
            f = start + i + off - band
            if i > 0 and off + 1 < width and f + 1 <= total and here + GAP < row[off + 1]:
                row[off + 1] = here + GAP  # the block skips file line f
                back[i][off + 1] = (i, off, False)
            if i == n:
                continue
            nxt = table[i + 1]
            if f < total and here + cost(i, f) < nxt[off]:
                nxt[off] = here + cost(i, f)  # old[i] stands for file line f
                back[i + 1][off] = (i, off, True)
            if not keys[i] and off > 0 and here + GAP < nxt[off - 1]:
                nxt[off - 1] = here + GAP  # an empty line the file does not have here
                back[i + 1][off - 1] = (i, off, False)
    best_off = min(range(width), key=lambda o: table[n][o])
    best = table[n][best_off]
    if best >= positional - 1e-9 or best == _INF:
        return None
    rows: list[int | None] = [None] * n
    cell: tuple[int, int] | None = (n, best_off)
    while cell is not None:
        i, off = cell
        step = back[i][off]
        if step is None:
            break
        pi, poff, paired = step
        if paired:
            rows[pi] = start + pi + poff - band
        cell = (pi, poff)
    if all(r is None for r in rows):
        return None
    return tuple(rows)
