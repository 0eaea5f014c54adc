"""A text's lines by their offsets: the lazy merge's view of the file.

A merge around placeholders reads a handful of the file's lines closely (the ones the reply
restates, and their neighbours) and keeps the rest as they are. Splitting a 10 MB file into
a list of line strings costs three times the file (a Python string per line); this view
keeps the text, where each chunk of about `_CHUNK` characters starts (in characters and in
lines: one count of "\\n" per chunk), and the line starts of the chunks a question has
touched. A line's string is made when it is asked for; whole runs of lines leave as slices
of the text.

The lines are those of `text.split("\\n")`, less the empty piece after a final "\\n" (an
empty text has none), which is how the merge has always read a file.
"""

from __future__ import annotations

import bisect
import itertools
from array import array
from collections.abc import Iterator
from collections.abc import Sequence as SequenceABC
from typing import overload

_CHUNK = 1 << 18  # characters to a chunk: the view never holds a whole-file line list
_ONE = 1


class OffsetLines(SequenceABC[str]):
    """The lines of `text`, made on demand. Chunk k holds characters `_chars[k]` to
    `_chars[k + 1]` and lines `_lines[k]` to `_lines[k + 1]`; a last line without "\\n" is
    read as if it had one (its chunk ends one past the text)."""

    __slots__ = ("_chars", "_lines", "_n", "_starts", "newline", "text")

    def __init__(self, text: str) -> None:
        self.text = text
        self.newline = text.endswith("\n")
        chars, lines = [0], [0]
        for cut in _cuts(text):
            lines.append(lines[-1] + text.count("\n", chars[-1], cut))
            chars.append(cut)
        if chars[-1] < len(text):  # the last line has no "\n"
            chars.append(len(text) + 1)
            lines.append(lines[-1] + 1)
        self._chars, self._lines, self._n = chars, lines, lines[-1]
        self._starts: dict[int, array[int]] = {}

    def __len__(self) -> int:
        return self._n

    @overload
    def __getitem__(self, i: int) -> str: ...

    @overload
    def __getitem__(self, i: slice) -> list[str]: ...

    def __getitem__(self, i: int | slice) -> str | list[str]:
        if isinstance(i, slice):
            lo, hi, step = i.indices(self._n)
            if step == 1:  # a run of lines: one slice of the text, split in C
                return self.chars(lo, hi).split("\n") if hi > lo else []
            return [self[k] for k in range(lo, hi, step)]
        if i < 0:
            i += self._n
        if not 0 <= i < self._n:
            raise IndexError("line index out of range")
        return self.text[self.start(i) : self.start(i + 1) - 1]

    def __iter__(self) -> Iterator[str]:
        for chunk in line_chunks(self.text):
            yield from chunk

    def start(self, i: int) -> int:
        """Where line `i` starts; for `i == len(self)`, one past the last line's end."""
        if i >= self._n:
            return self._chars[-1]
        k = bisect.bisect_right(self._lines, i) - 1
        starts = self._starts.get(k)
        if starts is None:
            starts = self._starts[k] = self._chunk_starts(k)
        return starts[i - self._lines[k]]

    def _chunk_starts(self, k: int) -> array[int]:
        lo, hi = self._chars[k], self._chars[k + 1]
        parts = self.text[lo:hi].split("\n")
        if hi <= len(self.text):  # the chunk ends in "\n": no line after it
            parts.pop()
        lengths = map(_ONE.__add__, map(len, parts))  # each line with its "\n"
        return array("q", itertools.accumulate(lengths, initial=lo))

    def chars(self, lo: int, hi: int) -> str:
        """Lines `lo` to `hi - 1` as one string joined by "\\n" (no "\\n" after the last)."""
        if lo >= hi:
            return ""
        return self.text[self.start(lo) : self.start(hi) - 1]

    def line_at(self, offset: int) -> int:
        """The line that holds character `offset`."""
        k = bisect.bisect_right(self._chars, offset) - 1
        return self._lines[k] + self.text.count("\n", self._chars[k], offset)


def line_chunks(text: str) -> Iterator[list[str]]:
    """The lines of `text` (as `OffsetLines` reads them) a chunk at a time: a scan of every
    line that never holds a list of them all."""
    pos = 0
    for cut in _cuts(text):
        yield text[pos:cut].split("\n")[:-1]
        pos = cut
    if pos < len(text):
        yield [text[pos:]]


def _cuts(text: str) -> Iterator[int]:
    """Where `text` is cut into chunks: just after a "\\n", about every `_CHUNK`
    characters; the last cut is just after the last "\\n"."""
    pos, size = 0, len(text)
    while pos < size:
        cut = text.find("\n", min(pos + _CHUNK, size) - 1)
        if cut < 0:
            cut = text.rfind("\n", pos)
            if cut < 0:
                return
        yield cut + 1
        pos = cut + 1
