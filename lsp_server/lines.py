"""Where a line ends, for the core and for an editor, and how their line numbers meet.

Two definitions of a line meet in this package:

* the core (reply parsers, resolver, plan) ends a line at "\\n" only: a "\\r\\n" ending belongs
  to its line and a lone "\\r" is ordinary text;
* an LSP client also ends a line at a lone "\\r", and never at the other characters
  `str.splitlines` accepts (form feed, U+2028...).

A CR-only text (classic Mac OS endings: "\\r" and never "\\n") is the exception the core
makes: the plan reads it with each "\\r" turned into "\\n" (`from_cr`) and writes the result
back with "\\r" (`to_cr`), so its lines match, place and keep their endings like any other
file's. The swap is exact because such a text has no "\\n" of its own.

Both number the lines of a text alike unless it holds a lone "\\r" and a "\\n"; then one
core line can span several editor lines, and `LineMap` converts between the two numberings.
Model text ("\\n" endings) comes from `to_lf`.
"""

from __future__ import annotations

import bisect
import itertools
import re
from collections.abc import Sequence

_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+\Z")
# Where `str.splitlines` breaks a line and the LSP does not; each is looked for with `in`
# (a C substring search), which is ~50x faster than one regular expression over the text.
NON_LSP_BREAKS = ("\x0b", "\x0c", "\x1c", "\x1d", "\x1e", "\x85", "\u2028", "\u2029")


def split_lsp_lines(text: str) -> list[str]:
    """Lines with their endings, split where the LSP says a line ends ("\\n", "\\r\\n", "\\r")."""
    if "\r" not in text and not any(c in text for c in NON_LSP_BREAKS):
        return text.splitlines(keepends=True)  # only "\n" in this text: the same split, in C
    return _LINE.findall(text)


# --- the core's lines: only "\n" ends one (a "\r\n" ending belongs to its line)


def split_lines(text: str) -> list[str]:
    """Lines with their endings ("\\n" or "\\r\\n" or none for a last unterminated line)."""
    if not text:
        return []
    if not any(c in text for c in NON_LSP_BREAKS) and (
        "\r" not in text or text.count("\r") == text.count("\r\n")
    ):
        return text.splitlines(keepends=True)  # only "\n" ends a line here: the same split, in C
    parts = text.split("\n")
    last = parts.pop()
    out = [p + "\n" for p in parts]
    if last:
        out.append(last)
    return out


def content(line: str) -> str:
    if line.endswith("\r\n"):
        return line[:-2]
    if line.endswith("\n"):
        return line[:-1]
    return line


def ending(line: str) -> str:
    return line[len(content(line)) :]


def dominant_eol(lines: Sequence[str]) -> str:
    crlf = sum(1 for line in lines if line.endswith("\r\n"))
    lf = sum(1 for line in lines if line.endswith("\n")) - crlf
    return "\r\n" if crlf > lf else "\n"


def text_lines(text: str) -> list[str]:
    """A hunk's "\\n"-joined text as a list of lines (a final "\\n" ends the last line)."""
    if not text:
        return []
    body = text[:-1] if text.endswith("\n") else text
    return body.split("\n")


def contents_of(text: str) -> list[str]:
    """`[content(x) for x in split_lines(text)]`, without a call per line."""
    parts = text.split("\n")
    last = parts.pop()  # what follows the last newline: an unterminated line, or nothing
    if "\r" in text:
        parts = [p[:-1] if p.endswith("\r") else p for p in parts]
    if last:
        parts.append(last)  # unterminated: keeps a trailing CR, as `content` does
    return parts


def eol_of(text: str) -> str:
    """`dominant_eol(split_lines(text))` from two counts: every "\\n" ends one line."""
    if "\r" not in text:
        return "\n"
    crlf = text.count("\r\n")
    return "\r\n" if crlf > text.count("\n") - crlf else "\n"


def to_lf(text: str) -> str:
    """The text with "\\n" endings, the form the resolver works on: every "\\r\\n" becomes
    "\\n", and a last line without an ending gets one."""
    lf = text.replace("\r\n", "\n")
    return lf if not lf or lf.endswith("\n") else lf + "\n"


def is_cr_only(text: str) -> bool:
    """Does "\\r" end the lines here, with no "\\n" anywhere (a classic Mac OS file)?"""
    return "\r" in text and "\n" not in text


def from_cr(text: str) -> str:
    """A CR-only text in the core's form: every "\\r" a "\\n"."""
    return text.replace("\r", "\n")


def to_cr(text: str) -> str:
    """The core's form of a CR-only text back to "\\r" endings."""
    return text.replace("\n", "\r")


def has_lone_cr(text: str) -> bool:
    """Does a "\\r" end a line here on its own (an editor line the core does not see)?"""
    return text.count("\r") != text.count("\r\n")


def ends_line(line: str) -> bool:
    """Does this editor line carry its ending (it is not the text's unterminated last line)?"""
    return line.endswith(("\n", "\r"))


def strip_ending(line: str) -> str:
    """An editor line without its ending."""
    if line.endswith("\r\n"):
        return line[:-2]
    if line.endswith(("\n", "\r")):
        return line[:-1]
    return line


def lsp_line_starts(lines: Sequence[str]) -> list[int]:
    """The offset each editor line starts at, given the text's `split_lsp_lines`.

    A text that ends with a line ending has one more line, empty, after it (an editor puts
    the cursor there); an unterminated last line has none after it.
    """
    starts = list(itertools.accumulate(map(len, lines), initial=0))
    if lines and not ends_line(lines[-1]):
        starts.pop()
    return starts


class LineMap:
    """Core line numbers ↔ editor line numbers (both 0-based) for one text."""

    def __init__(self, text: str, lsp_starts: Sequence[int] | None = None):
        # a CR-only text is split at its "\r" by the core too (see `from_cr`)
        self.same = not has_lone_cr(text) or is_cr_only(text)
        if self.same:
            return
        self.core_starts = [0]
        at = text.find("\n")
        while at >= 0:
            self.core_starts.append(at + 1)
            at = text.find("\n", at + 1)
        self.lsp_starts = (
            list(lsp_starts) if lsp_starts is not None else lsp_line_starts(split_lsp_lines(text))
        )

    def core_line(self, lsp_line: int) -> int:
        """The core line that holds the start of an editor line."""
        if self.same:
            return lsp_line
        offset = self.lsp_starts[max(0, min(lsp_line, len(self.lsp_starts) - 1))]
        return bisect.bisect_right(self.core_starts, offset) - 1

    def lsp_line(self, core_line: int) -> int:
        """The editor line a core line starts on."""
        if self.same:
            return core_line
        offset = self.core_starts[max(0, min(core_line, len(self.core_starts) - 1))]
        return bisect.bisect_right(self.lsp_starts, offset) - 1

    def lsp_lines(self, first: int, last: int) -> tuple[int, int]:
        """Core lines first..last (1-based, inclusive, as failures report them) as editor lines
        (0-based, inclusive)."""
        if self.same:
            return first - 1, last - 1
        lo = self.lsp_line(first - 1)
        return lo, max(lo, self.lsp_line(last - 1))
