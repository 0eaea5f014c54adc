"""A file's text as the hunks see it: its lines (each keeping its own ending), their
contents, the dominant ending and a content index, derived once per text and shared across
the blocks of a reply (a result is remembered for the next block on the same file).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import NamedTuple

from lsp_server.lines import content, contents_of, ending, eol_of, split_lines
from lsp_server.resolve.cache import TextCache
from lsp_server.resolve.content_index import ContentIndex


def index_for(text: str, contents: list[str]) -> ContentIndex:
    """The ContentIndex of a text's contents, handed the text itself as the joined contents
    when it has no CR, so an exact search needs no join."""
    return ContentIndex(contents, None if "\r" in text else text)


class _Prepared(NamedTuple):
    """What `FileText.of` derives from a text; shared through `_PREPARED`, never mutated.

    `lines` is None for a text without "\r": its lines are then its contents each with "\n"
    (the last one without, when the text does not end in "\n"), and are only built if a
    rare path asks for them (see `FileText`)."""

    lines: list[str] | None
    contents: list[str]
    eol: str
    index: ContentIndex


# Texts seen recently (open documents, and the results of earlier blocks of the same reply)
_PREPARED: TextCache[_Prepared] = TextCache()


def _prepare(text: str) -> _Prepared:
    prepared = _PREPARED.get(text)
    if prepared is None:
        contents = contents_of(text)
        lines = split_lines(text) if "\r" in text else None
        prepared = _Prepared(lines, contents, eol_of(text), index_for(text, contents))
        _PREPARED.put(text, prepared)
    return prepared


def remember(text: str, ft: FileText) -> None:
    """Keep a result's lines for the next block on the same file (ft is not used after).
    A text already known keeps its entry: its index may have tables built already.

    Not when the lines end in an empty line without an ending (a block whose new text ends
    in a blank line, put at the end of a file without a final newline): that line holds no
    text, so `text` read afresh has one line fewer, and a cached entry would place the next
    block differently from a fresh read of the same text."""
    if ft.ends_in_empty_line():
        return
    if _PREPARED.get(text) is None:
        contents = ft.contents
        lines = ft.lines if "\r" in text else None
        prepared = _Prepared(lines, contents, eol_of(text), index_for(text, contents))
        _PREPARED.put(text, prepared)


@dataclass
class FileText:
    """A file's lines while a block is being placed.

    `contents` (the lines without endings) follow every splice; the `index` is dropped by
    a splice and rebuilt lazily from them.

    The lines with their endings are only kept when some line does not end in a plain
    "\n" (`_lines`); otherwise they are implied by the contents and `_terminated` (whether
    the last line ends in "\n"), and the usual path (find the block, splice, join) never
    builds them: splitting a 100,000-line file into a second list of lines costs more than
    placing a block in it. Anything that asks for `lines` gets them built, once.
    """

    _lines: list[str] | None
    eol: str
    _index: ContentIndex | None = field(default=None, repr=False)
    _contents: list[str] | None = field(default=None, repr=False)
    _terminated: bool = True

    @classmethod
    def of(cls, text: str) -> FileText:
        p = _prepare(text)
        lines = None if p.lines is None else list(p.lines)
        return cls(lines, p.eol, p.index, list(p.contents), text.endswith("\n") or not text)

    @property
    def holds_lines(self) -> bool:
        """Whether the lines with their endings are kept (rather than implied)."""
        return self._lines is not None

    @property
    def lines(self) -> list[str]:
        if self._lines is None:
            self._lines = self.line_slice(0, len(self.contents))
        return self._lines

    @property
    def size(self) -> int:
        """How many lines."""
        return len(self._lines) if self._lines is not None else len(self.contents)

    def line_slice(self, start: int, end: int) -> list[str]:
        """`lines[start:end]`, without building every line."""
        if self._lines is not None:
            return self._lines[start:end]
        contents = self.contents
        out = [c + "\n" for c in contents[start:end]]
        if out and not self._terminated and min(end, len(contents)) == len(contents):
            out[-1] = contents[-1]
        return out

    def ends_in_empty_line(self) -> bool:
        """Whether the last line is empty and has no ending: nothing a text can hold."""
        if self._lines is not None:
            return bool(self._lines) and not self._lines[-1]
        return bool(self.contents) and not self.contents[-1] and not self._terminated

    def terminated(self) -> bool:
        """Whether the last line ends in a newline (an empty text counts as ended)."""
        if self._lines is not None:
            return not self._lines or bool(ending(self._lines[-1]))
        return self._terminated or not self.contents

    def last_line(self) -> str:
        """`lines[-1]` of a non-empty file."""
        return self.line_slice(self.size - 1, self.size)[0]

    @property
    def contents(self) -> list[str]:
        if self._contents is None:
            self._contents = [content(line) for line in self.lines]
        return self._contents

    @property
    def index(self) -> ContentIndex:
        if self._index is None:
            self._index = ContentIndex(self.contents)
        return self._index

    def text(self) -> str:
        if self._lines is not None:
            return "".join(self._lines)
        contents = self.contents
        if contents and self._terminated:
            return "\n".join([*contents, ""])  # one join: `+ "\n"` would copy it all again
        return "\n".join(contents)

    def splice(self, start: int, end: int, new: list[str]) -> None:
        self._index = None
        if self._lines is None and not self._implied(start, end, new):
            self._lines = self.line_slice(0, len(self.contents))  # from here on, a real list
        if self._lines is not None:
            self._lines[start:end] = new
            if self._contents is not None:
                self._contents[start:end] = [content(line) for line in new]
            return
        at_end = end >= len(self.contents)
        self.contents[start:end] = [content(line) for line in new]
        if at_end and new:
            self._terminated = new[-1].endswith("\n")
        elif at_end and end > start:  # the last lines went: the one now last was not last
            self._terminated = True  # before, so it ends in "\n"

    def _implied(self, start: int, end: int, new: list[str]) -> bool:
        """Whether lines implied by contents can stand for `new` spliced at start:end: every
        line ends in a plain "\n", except a last one that becomes the file's last line."""
        last = len(new) - 1
        at_end = end >= len(self.contents)
        if new and self.contents and not self._terminated and start >= len(self.contents):
            return False  # the unterminated last line would no longer be last
        for i, line in enumerate(new):
            if line.endswith("\n") and not line.endswith("\r\n"):
                continue
            if i == last and at_end and not line.endswith("\n"):
                continue
            return False
        return True
