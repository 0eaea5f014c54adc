"""Counted replacements: a hunk whose old text is to be replaced at every place it occurs
(`Hunk.every`, Claude Code's `replace_all`) or at exactly `Hunk.expected` places (Gemini
CLI's `expected_replacements`).

Only exact occurrences count. The looser rungs of the ladder exist to find the one place a
slightly misquoted block meant; a loose rung that matches many places is a guess about
each of them. So `every` and a count above one take exact occurrences only; when exactly
one place is asked for (`expected` 1) and the old text is nowhere exactly, the ordinary
ladder places it, loosely if it must, as it would any block.

Occurrences are found the way the hunk's format quotes a file: inside lines for the tool
calls (`inline`: the old text may be part of a line, like `str.replace`), whole lines
otherwise. They never overlap: each search resumes after the previous occurrence, so the
count and the result are those of `str.replace` on the file's text.
"""

from __future__ import annotations

import bisect
import itertools
from collections.abc import Sequence
from typing import NamedTuple

from lsp_server.lines import text_lines
from lsp_server.model import ErrorCode, Hunk, PlacementError
from lsp_server.resolve.content_index import ContentIndex, candidates


class Region(NamedTuple):
    """File lines [start, end) and the contents that replace them; `spans` are the line
    spans [start, end) of the occurrences inside it (several on one line share a region)."""

    start: int
    end: int
    new_lines: tuple[str, ...]
    spans: tuple[tuple[int, int], ...]
    # whether the file's last line, when the region ends the file, ends in a newline after
    # the replacement (None: as before)
    final_newline: bool | None = None


class Counted(NamedTuple):
    """What a counted hunk does: `regions` to splice (top to bottom, not overlapping), or
    nothing because the change is already there (`already_applied`)."""

    regions: tuple[Region, ...] = ()
    already_applied: bool = False


def place_counted(
    contents: Sequence[str],
    terminated: bool,
    index: ContentIndex,
    hunk: Hunk,
    new: str,
    inline: bool,
) -> Counted | None:
    """The regions a counted hunk replaces, or None when the ordinary one-place ladder
    should place it (no exact occurrence, and exactly one is asked for).

    `contents` are the file's lines without endings, `terminated` whether its last line
    ends in a newline. Raises COUNT_MISMATCH when the exact occurrences are not the number
    asked for, TEXT_NOT_FOUND (with the closest region) when every place or several are
    asked for and none is there.
    """
    want = hunk.expected
    if inline:
        found = _inline_occurrences(contents, terminated, hunk.old, new)
    else:
        found = _line_occurrences(index, text_lines(hunk.old), text_lines(new))
    count = sum(len(r.spans) for r in found)
    if count == 0 and (hunk.every or (want is not None and want > 1)):
        if want is not None and _already_there(contents, terminated, hunk.old, new, want, inline):
            return Counted(already_applied=True)
        # nothing there exactly: the exact rung's refusal names the closest region, as for
        # any block (it searches what the search above did, so it finds nothing either);
        # the ladder is loaded for this refusal only
        from lsp_server.resolve.ladder import locate

        try:
            locate(contents, text_lines(hunk.old), exact_only=True, index=index)
        except PlacementError as err:
            if want is not None:
                err.failure.details["expected_count"] = want
            raise
    if want is not None and count != want and (count or want > 1):
        lines = sorted({start + 1 for r in found for start, _ in r.spans})
        where = ", ".join(map(str, lines[:20])) + (" ..." if len(lines) > 20 else "")
        raise PlacementError.of(
            ErrorCode.COUNT_MISMATCH,
            f"expected {want} occurrence{'s' if want != 1 else ''} of the text to replace, "
            f"found {count}"
            + (f" (at lines {where})" if lines else "")
            + "; quote more of the file to pick the places, or ask for the number found",
            expected_count=want,
            found=count,
            lines=lines,
            length=max(1, len(text_lines(hunk.old))),  # the lines each occurrence runs over
        )
    if not count:
        return None
    return Counted(tuple(found))


def _joined(contents: Sequence[str], terminated: bool) -> tuple[str, list[int]]:
    """The text of `contents` with "\\n" endings (none after an unterminated last line), and
    where each line starts in it."""
    text = "\n".join(contents) + ("\n" if contents and terminated else "")
    starts = list(itertools.accumulate((len(c) + 1 for c in contents), initial=0))
    return text, starts


def _inline_occurrences(
    contents: Sequence[str], terminated: bool, old: str, new: str
) -> list[Region]:
    """Each non-overlapping occurrence of `old` in the text; occurrences that share a line
    make one region, that line's text with each of them replaced (as `str.replace` does)."""
    text, starts = _joined(contents, terminated)
    hits: list[tuple[int, int, int, int]] = []  # offset, end offset, first line, past last
    at = text.find(old) if old else -1
    while at >= 0:
        end = at + len(old)
        first = bisect.bisect_right(starts, at) - 1
        # through the line holding the character after it: an occurrence that ends with a
        # line's newline joins that line to the next when the new text has none, as text does
        last = min(bisect.bisect_right(starts, end), len(contents))
        hits.append((at, end, first, last))
        at = text.find(old, end)
    out: list[Region] = []
    k = 0
    while k < len(hits):
        group = [hits[k]]
        k += 1
        while k < len(hits) and hits[k][2] < group[-1][3]:
            group.append(hits[k])
            k += 1
        first, last = group[0][2], group[-1][3]
        pieces, pos = [], starts[first]
        for lo, hi, _, _ in group:
            pieces += [text[pos:lo], new]
            pos = hi
        pieces.append(text[pos : starts[last]])
        spans = tuple((h[2], h[3]) for h in group)
        replaced = "".join(pieces)
        final = replaced.endswith("\n") if last == len(contents) and replaced else None
        out.append(Region(first, last, tuple(text_lines(replaced)), spans, final))
    return out


def _line_occurrences(index: ContentIndex, old: list[str], new: list[str]) -> list[Region]:
    """Each non-overlapping exact window of whole lines equal to `old`, top to bottom."""
    if not old:
        return []
    out: list[Region] = []
    after = 0
    for start in candidates(index, old, "exact"):
        if start >= after:
            out.append(Region(start, start + len(old), tuple(new), ((start, start + len(old)),)))
            after = start + len(old)
    return out


def _already_there(
    contents: Sequence[str], terminated: bool, old: str, new: str, want: int, inline: bool
) -> bool:
    """No old text left and the new text exactly `want` times: what an earlier apply of the
    same hunk left. (Not asked for `every`: how many places it changed is unknown, and the
    new text being somewhere says nothing.)"""
    if not new.strip() or new == old:
        return False
    text, _ = _joined(contents, terminated)
    return text.count(new if inline else "\n".join(text_lines(new))) == want
