"""Bytes not asked for change keep their exact bytes.

A reply restates lines it does not change, and loses on the way what a chat window does
not show: trailing whitespace, the indentation of blank lines. A merge result is compared
with the file it was made from, line by line on what a reader sees (trailing whitespace
aside); every result line that IS a file line by that measure, in the same order, is
given the file's own bytes back. Lines the reply changes keep the reply's. Pure.
"""

from __future__ import annotations

from lsp_server.linediff import common_prefix, common_suffix, line_opcodes

_MAX_LINES = 20_000  # a bigger changed middle is a rewrite: its lines are the reply's


def keep_bytes(old: str, new: str) -> str:
    """`new` with the lines it shares with `old` (trailing whitespace aside) as `old` has
    them."""
    if old == new or not old:
        return new
    a, b = old.split("\n"), new.split("\n")
    pre = common_prefix(a, b)
    suf = common_suffix(a, b, min(len(a), len(b)) - pre)
    mid_a, mid_b = a[pre : len(a) - suf], b[pre : len(b) - suf]
    if not mid_a or not mid_b or len(mid_a) + len(mid_b) > _MAX_LINES:
        return new
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
    return "\n".join(b[:pre] + out + b[len(b) - suf :])


def _equal_rows(ka: list[str], kb: list[str]) -> dict[int, int]:
    """Row of `kb` -> row of `ka` for the lines an alignment of the two pairs as equal."""
    pairs: dict[int, int] = {}
    i = j = 0
    for _tag, i1, i2, j1, j2 in line_opcodes(ka, kb):
        while i < i1 and j < j1:
            pairs[j] = i
            i, j = i + 1, j + 1
        i, j = i2, j2
    while i < len(ka) and j < len(kb):
        pairs[j] = i
        i, j = i + 1, j + 1
    return pairs
