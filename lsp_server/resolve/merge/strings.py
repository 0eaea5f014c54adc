"""A multi-line string a snippet restates unchanged keeps the file's columns.

A re-indent never moves a line inside a multi-line string literal (its text is content:
a Go raw string's shell script, a template literal). So a definition a snippet restates
at another indentation than the file's (a method shown unindented) would keep the
snippet's columns in its docstring. When the replaced definition's string lines are the
file's, stripped of indentation, in the same order, they are the file's lines: written as
the file has them. A string the snippet changes is the snippet's. Pure.
"""

from __future__ import annotations

from lsp_server.model import Placement
from lsp_server.resolve import literals, syntax
from lsp_server.resolve.syntax import Parsed


def restated_strings(
    p: Parsed, strings: set[int], start: int, text: str, placement: Placement
) -> str:
    """`text` with the replaced definition's multi-line strings as the file has them, when
    the snippet restates them unchanged at another indentation (a method shown unindented
    with its docstring): a re-indent never moves a string's text, so a restated string
    would otherwise keep the snippet's columns."""
    theirs = p.line_list()
    old_rows = sorted(start + r for r in strings)
    if not old_rows:
        return text
    lines = text.split("\n")
    q = syntax.parse(text, p.grammar, "\x00restated")
    lo, hi = placement.start_line, placement.new_end_line or placement.end_line
    new_rows = sorted(r for r in literals.string_rows(q) if lo <= r < hi)
    if len(new_rows) != len(old_rows):
        return text
    if any(lines[b].strip() != theirs[a].strip() for a, b in zip(old_rows, new_rows, strict=True)):
        return text  # the snippet changes a string: its text is the snippet's
    for a, b in zip(old_rows, new_rows, strict=True):
        lines[b] = theirs[a]
    return "\n".join(lines)
