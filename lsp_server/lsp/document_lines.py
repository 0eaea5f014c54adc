"""The lines of an open document, kept up to date as it is edited.

Every keystroke arrives as a `didChange` with a range in (line, column) form. Turning that
range into offsets by splitting the whole text into lines costs the whole document each
time: tens of milliseconds of event loop per keystroke in a file of ten megabytes, and the
loop also reads the client's next messages. Here the length of every line is kept in
chunks of a few hundred lines, each with its total, so finding where a line starts walks
the chunk totals and one chunk, and an edit re-splits only the lines it touches (with one
line more on each side, since a "\\r" and a "\\n" may meet or part). What still grows with
the document is building the new text itself: one copy, done in C.

Lines end where the LSP says ("\\n", "\\r\\n", "\\r"; see `linediff.split_lsp_lines`), and
positions count columns in the client's encoding. A column past the end of its line means
the line's end; a line past the last means the end of the text.
"""

from __future__ import annotations

from lsprotocol import types

from lsp_server.lines import split_lsp_lines, strip_ending

# Lines per chunk: finding a line walks the chunks' totals, then sums within one chunk.
CHUNK = 512


def _units(ch: str, encoding: str) -> int:
    """How many code units of the client's encoding one character takes."""
    if encoding == "utf-8":
        return len(ch.encode("utf-8", "surrogatepass"))
    if encoding == "utf-32":
        return 1
    return 2 if ord(ch) > 0xFFFF else 1


def column(body: str, units: int, encoding: str) -> int:
    """The code point offset in a line (without its ending) of a column counted in the
    client's code units; a column inside a character lands after it, one past the end at
    the end."""
    if body.isascii():
        return min(units, len(body))
    seen = 0
    for index, ch in enumerate(body):
        if seen >= units:
            return index
        seen += _units(ch, encoding)
    return len(body)


class DocumentLines:
    """One document's text and the length of each of its lines (endings included)."""

    def __init__(self, text: str):
        self._chunks: list[list[int]] = []
        self._sizes: list[int] = []  # the chunks' totals
        self._reset(text)

    def _reset(self, text: str) -> None:
        self.text = text
        lengths = [len(line) for line in split_lsp_lines(text)]
        self._set_chunks(0, len(self._chunks), lengths)
        self.line_count = len(lengths)

    def lengths(self) -> list[int]:
        """Every line's length, in order (for tests and rebalancing)."""
        return [n for chunk in self._chunks for n in chunk]

    def apply(self, rng: types.Range, new_text: str, encoding: str) -> str:
        """Replace `rng` by `new_text`; the new text (also kept as `self.text`)."""
        if self.line_count == 0:  # an empty text: whatever the range, this is the text
            self._reset(new_text)
            return self.text
        start, first_line = self._offset(rng.start, encoding)
        end, last_line = self._offset(rng.end, encoding)
        end = max(end, start)
        text = self.text
        self.text = text[:start] + new_text + text[end:]
        growth = len(new_text) - (end - start)
        first = max(0, first_line - 1)
        last = min(self.line_count - 1, last_line + 1)
        region_start = self._line(first)[0]
        last_start, last_length = self._line(last)
        region_end = last_start + last_length + growth
        lengths = [len(line) for line in split_lsp_lines(self.text[region_start:region_end])]
        self._replace(first, last, lengths)
        return self.text

    # -- positions

    def _offset(self, position: types.Position, encoding: str) -> tuple[int, int]:
        """(offset, line) of a client position; past the last line: the end of the text,
        on the last line."""
        if position.line >= self.line_count:
            return len(self.text), self.line_count - 1
        start, length = self._line(position.line)
        body = strip_ending(self.text[start : start + length])
        return start + column(body, position.character, encoding), position.line

    def _locate(self, line: int) -> tuple[int, int, int]:
        """(chunk, index in it, offset of the chunk's first line) of a line."""
        offset = 0
        for index, chunk in enumerate(self._chunks):
            if line < len(chunk):
                return index, line, offset
            line -= len(chunk)
            offset += self._sizes[index]
        raise IndexError(line)

    def _line(self, line: int) -> tuple[int, int]:
        """(offset, length) of a line."""
        chunk, index, offset = self._locate(line)
        lengths = self._chunks[chunk]
        return offset + sum(lengths[:index]), lengths[index]

    # -- the chunks

    def _replace(self, first: int, last: int, lengths: list[int]) -> None:
        """Lines first..last (inclusive) become lines of these lengths."""
        c0, i0, _ = self._locate(first)
        c1, i1, _ = self._locate(last)
        merged = self._chunks[c0][:i0] + lengths + self._chunks[c1][i1 + 1 :]
        self.line_count += len(lengths) - (last - first + 1)
        self._set_chunks(c0, c1 + 1, merged)
        if len(self._chunks) > 2 * (self.line_count // CHUNK) + 8:
            # edits left many small chunks: lay them out again (rare, so cheap overall)
            self._set_chunks(0, len(self._chunks), self.lengths())

    def _set_chunks(self, lo: int, hi: int, lengths: list[int]) -> None:
        """Chunks lo..hi-1 become `lengths`, cut into chunks of at most `CHUNK` lines."""
        pieces = -(-len(lengths) // CHUNK)
        size = -(-len(lengths) // pieces) if pieces else 0
        chunks = [lengths[i : i + size] for i in range(0, len(lengths), size)] if size else []
        self._chunks[lo:hi] = chunks
        self._sizes[lo:hi] = [sum(chunk) for chunk in chunks]
