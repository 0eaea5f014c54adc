"""A text's lines by their offsets: the lazy merge's view of the file.

A merge around placeholders reads a handful of the file's lines closely (the ones the reply
restates, and their neighbours) and keeps the rest as they are. Splitting a 10 MB file into
a list of line strings costs three times the file (a Python string per line); this view
keeps the text and one integer per line (where it starts), makes a line's string when it is
asked for, and hands back whole runs of lines as slices of the text.

The lines are those of `text.split("\\n")`, less the empty piece after a final "\\n" (an
empty text has none), which is how the merge has always read a file.
"""

from __future__ import annotations

import bisect
import itertools
from array import array
from collections.abc import Iterator, Sequence
from typing import overload

_CHUNK = 1 << 18  # characters split at a time: the view never holds a whole-file line list
_ONE = 1


class OffsetLines(Sequence[str]):
    """The lines of `text`, made on demand; `starts[i]` is where line `i` begins, and
    `starts[len]` is one past the end (as if the text ended with "\\n")."""

    __slots__ = ("newline", "starts", "text")

    def __init__(self, text: str) -> None:
        self.text = text
        self.newline = text.endswith("\n")
        self.starts = _starts(text)

    def __len__(self) -> int:
        return len(self.starts) - 1

    @overload
    def __getitem__(self, i: int) -> str: ...

    @overload
    def __getitem__(self, i: slice) -> list[str]: ...

    def __getitem__(self, i: int | slice) -> str | list[str]:
        if isinstance(i, slice):
            return [self[k] for k in range(*i.indices(len(self)))]
        n = len(self)
        if i < 0:
            i += n
        if not 0 <= i < n:
            raise IndexError("line index out of range")
        return self.text[self.starts[i] : self.starts[i + 1] - 1]

    def __iter__(self) -> Iterator[str]:
        for chunk in line_chunks(self.text):
            yield from chunk

    def chars(self, lo: int, hi: int) -> str:
        """Lines `lo` to `hi - 1` as one string joined by "\\n" (no "\\n" after the last)."""
        if lo >= hi:
            return ""
        return self.text[self.starts[lo] : self.starts[hi] - 1]

    def line_at(self, offset: int) -> int:
        """The line that holds character `offset`."""
        return bisect.bisect_right(self.starts, offset) - 1


def line_chunks(text: str) -> Iterator[list[str]]:
    """The lines of `text` (as `OffsetLines` reads them) a megabyte or so at a time: a scan
    of every line that never holds a list of them all."""
    for piece in _pieces(text):
        yield piece.split("\n")[:-1]
    tail = text.rfind("\n") + 1
    if tail < len(text):
        yield [text[tail:]]


def _pieces(text: str) -> Iterator[str]:
    """`text` cut after a "\\n" about every `_CHUNK` characters (the last piece ends where
    the last "\\n" does; what follows it is not yielded)."""
    pos, size = 0, len(text)
    while pos < size:
        cut = text.find("\n", min(pos + _CHUNK, size) - 1)
        if cut < 0:
            cut = text.rfind("\n", pos)
            if cut < 0:
                return
        yield text[pos : cut + 1]
        pos = cut + 1


def _starts(text: str) -> array[int]:
    out = array("q", [0])
    for piece in _pieces(text):
        lengths = map(_ONE.__add__, map(len, piece.split("\n")[:-1]))  # each with its "\n"
        out.extend(itertools.islice(itertools.accumulate(lengths, initial=out[-1]), 1, None))
    if text and not text.endswith("\n"):
        out.append(len(text) + 1)  # the last line has no "\n": as if it had
    return out
