"""Bytes not asked for change keep their exact bytes.

A reply restates lines it does not change, and loses on the way what a chat window does
not show: trailing whitespace, the indentation of blank lines. A merge result is compared
with the file it was made from, line by line on what a reader sees (trailing whitespace
aside); every result line that IS a file line by that measure, in the same order, is
given the file's own bytes back. Lines the reply changes keep the reply's. Pure.

Blank lines all look alike, so which result blank line is which file blank line is read
from their neighbours, not from a diff of the lines (which pairs any blank line with any
other): a run of blank lines is the file's run when the line above it, or the one below
it, is the same line in both texts — kept, or rewritten (most alike, in order, within a
changed stretch). A run between two lines the file does not have is the reply's own, and
written as the reply wrote it (docs/snippets.md, "Blank lines").
"""

from __future__ import annotations

from lsp_server.linediff import common_prefix, common_suffix
from lsp_server.resolve.blank_pairs import same_lines

_MAX_LINES = 20_000  # a bigger changed middle is a rewrite: its lines are the reply's


def keep_bytes(old: str, new: str) -> str:
    """`new` with the lines it shares with `old` (trailing whitespace aside) as `old` has
    them."""
    if old == new or not old:
        return new
    # The lines both texts begin and end with are found on the characters: a merge of a big
    # file changes a few lines, and splitting both texts into lines would cost several
    # times their size. Only the changed middle is split.
    n_a, n_b = old.count("\n") + 1, new.count("\n") + 1  # lines, as `split("\n")` cuts
    pre, lo = _prefix_lines(old, new)
    suf, a_hi, b_hi = _suffix_lines(old, new)
    if pre + suf >= min(n_a, n_b):  # the two runs meet in the shorter text: no middle there
        return new
    if (n_a - pre - suf) + (n_b - pre - suf) > _MAX_LINES:
        return new
    mid_a, mid_b = old[lo:a_hi].split("\n"), new[lo:b_hi].split("\n")
    ka, kb = [x.rstrip() for x in mid_a], [x.rstrip() for x in mid_b]
    out = list(mid_b)
    changed = False
    equal_b = _equal_rows(ka, kb)
    for j, i in equal_b.items():
        if out[j] != mid_a[i]:
            out[j] = mid_a[i]
            changed = True
    if not changed:
        return new
    return new[:lo] + "\n".join(out) + new[b_hi:]


def _prefix_lines(a: str, b: str) -> tuple[int, int]:
    """How many of the first lines of `a` and `b` (split at "\\n") are equal, and where the
    next line starts (the same in both)."""
    p = common_prefix(a, b)
    lines = a.count("\n", 0, p)
    # the line the common characters end in is equal when it ends there in both texts
    if (p == len(a) or a[p] == "\n") and (p == len(b) or b[p] == "\n"):
        return lines + 1, p + 1
    return lines, a.rfind("\n", 0, p) + 1


def _suffix_lines(a: str, b: str) -> tuple[int, int, int]:
    """How many of the last lines of `a` and `b` (split at "\\n") are equal, and where the
    "\\n" before them is in each (the text's length when there are none)."""
    s = common_suffix(a, b, min(len(a), len(b)))
    ra, rb = len(a) - s, len(b) - s
    lines = a.count("\n", ra)
    # the line the common characters begin in is equal when it begins there in both texts
    if (ra == 0 or a[ra - 1] == "\n") and (rb == 0 or b[rb - 1] == "\n"):
        return lines + 1, ra - 1, rb - 1
    if not lines:
        return 0, len(a), len(b)
    return lines, a.index("\n", ra), b.index("\n", rb)


def _equal_rows(ka: list[str], kb: list[str]) -> dict[int, int]:
    """Row of `kb` -> row of `ka` for the lines that are the same line (`same_lines`)."""
    return {j: i for i, j in same_lines(ka, kb)}
