"""Text copied from a rendered page: no-break spaces where the model wrote spaces.

`read_web_spaces` reads them as spaces on the lines that are structure (fences, marker
lines); `indent_spaces` and `prefix_spaces` are the views a format's finder may ask for
(see `reply.Gated`), reading them as spaces where that format's syntax is.
"""

from __future__ import annotations

from lsp_server.patterns import compiled_on_use
from lsp_server.reply.common import NBSP, ReplyLines, fence_open, find_fences, indented_by
from lsp_server.reply.marker_lines import edit_marker


def read_web_spaces(text: str) -> str:
    """A reply copied from a rendered page can carry no-break spaces (U+00A0) where the model
    wrote spaces. Every NBSP on a line that is a fence (```` ```python ````, `~~~`) or shaped
    like an edit marker (`<<<<<<< SEARCH`, `*** Update File: a.py`, `@@ -1 +1 @@`,
    `--- a/x` over `+++ b/x`) once its NBSPs are spaces reads as a space: those lines are
    structure and are never written to a file. Every other line is left as it is here: an
    NBSP in a line's text may be meant (a string literal, French prose) and is kept.

    In a line's leading blanks an NBSP is a space only where it is syntax, not content: a
    list item's indentation removed from a fence body (`dedent_indented_fences`) matches it
    as a space; a diff's or V4A patch's prefix column reads it as the ` ` prefix
    (`prefix_spaces`); JSON reads it as whitespace between tokens (`indent_spaces`). In
    the text a block carries (old and new lines, a whole file, a structural body) it is
    kept: the placement reads the old text's indentation with the file at hand
    (resolve/reply_chars: a space, unless the file itself indents with it), and text
    written as it stands is written as the reply has it.

    One line in, one line out, and one character for one: line numbers and columns stay."""
    if NBSP not in text:
        return text
    lines = text.split("\n")
    spaced = [line.replace(NBSP, " ") for line in lines]
    for k, line in enumerate(lines):
        if NBSP in line and (fence_open(spaced[k]) or edit_marker(spaced, k) is not None):
            lines[k] = spaced[k]
    return "\n".join(lines)


_leading_blanks = compiled_on_use(r"[ \t\u00a0]+")


def indent_spaces(lines: list[str]) -> list[str]:
    """`lines` with every NBSP in a line's leading blanks read as a space, for a format in
    which leading blanks are never content: JSON allows no NBSP between its tokens, and a
    snippet is re-indented to the file's style. `lines` itself when it holds no NBSP."""
    if isinstance(lines, ReplyLines):
        if NBSP not in lines.text:
            return lines
        return lines.derived("indent_spaces", lambda: _indent_spaces(lines))
    return _indent_spaces(lines)


def _indent_spaces(lines: list[str]) -> list[str]:
    out = lines
    for k, line in enumerate(lines):
        m = _leading_blanks().match(line) if NBSP in line else None
        if m and NBSP in m.group():
            if out is lines:
                out = list(lines)
            out[k] = m.group().replace(NBSP, " ") + line[m.end() :]
    return out


def prefix_spaces(lines: list[str]) -> list[str]:
    """`lines` with an NBSP read as a space where a unified diff or V4A patch keeps its
    syntax: a line's first column (the ` ` / `-` / `+` prefix) and, in the body of a fence
    indented under a list item, the list item's indentation before it. An NBSP after that
    is the line's content, left for the placement to read with the file at hand (a file
    may itself start a line with one). `lines` itself when it holds no NBSP."""
    if isinstance(lines, ReplyLines):
        if NBSP not in lines.text:
            return lines
        # fence lines were read by `read_web_spaces` already: no line changes its kind
        return lines.derived("prefix_spaces", lambda: _prefix_spaces(lines), same_fences=True)
    return _prefix_spaces(lines)


def _prefix_spaces(lines: list[str]) -> list[str]:
    width = [1] * len(lines)  # how many leading characters are syntax, not content
    for f in find_fences(lines):
        m = fence_open(lines[f.start])
        indent = m.group("indent") if m else ""
        stop = f.end if f.end is not None else len(lines)
        body = range(f.start + 1, stop)
        if indent and all(not lines[k].strip() or indented_by(lines[k], indent) for k in body):
            for k in body:
                width[k] = len(indent) + 1
    out = lines
    for k, line in enumerate(lines):
        head = line[: width[k]]
        if NBSP in head:
            if out is lines:
                out = list(lines)
            out[k] = head.replace(NBSP, " ") + line[width[k] :]
    return out
