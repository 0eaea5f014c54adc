"""Where a text's multi-line string literals are: the rows a re-indent never touches.

A Go raw string holding a shell script, a Python triple-quoted string, a JavaScript
template literal: the lines after such a literal's first are its content, not code.
Re-indenting them changes the program's data, and counting their leading blanks as the
file's indentation reads the style of the string (four-space shell) instead of the code's
(gofmt's tabs). tree-sitter knows where strings are; this module asks it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from lsp_server.resolve import syntax

if TYPE_CHECKING:
    from tree_sitter import Node

    from lsp_server.resolve.syntax import Grammar, Parsed

# Node types that are one string literal, whatever their inner structure (interpolations
# inside a template are still the template's text as far as lines go).
_STRINGS = frozenset(
    """string raw_string_literal template_string string_literal interpreted_string_literal
    raw_string heredoc_body heredoc_content text_block string_content multiline_string
    line_string_literal multi_line_string_literal verbatim_string_literal
    raw_string_literal_content""".split()
)


def string_rows(p: Parsed) -> frozenset[int]:
    """The 0-based rows inside a multi-line string literal, after the row it starts on."""
    out: set[int] = set()
    stack: list[Node] = [p.tree.root_node]
    while stack:
        node = stack.pop()
        start, end = node.start_point.row, node.end_point.row
        if end <= start:
            continue  # one line: nothing below it to keep
        if node.type in _STRINGS:
            out.update(range(start + 1, end + 1))
            continue
        stack.extend(node.children)
    return frozenset(out)


def string_rows_of(text: str, grammar: Grammar, key: str) -> frozenset[int]:
    """`string_rows` of a text that is not the file (a block's code), parsed on its own."""
    if not any(q in text for q in ('"""', "'''", "`", 'r"', 'R"', '@"', "<<")):
        return frozenset()  # no multi-line literal can open here
    return string_rows(syntax.parse(text, grammar, key + "\x00literals"))
