"""Snippet imports: the import lines a snippet brings, added to the file's import block.

An import the file has (the same statement, whitespace aside) is left alone; one it lacks
goes after the file's last import, or after its preamble (package clause, module
docstring) when it has none. Go imports are specs: the file's `import ( ... )` group gains
the ones it lacks. Part of `snippets`; pure, "\\n" texts.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from lsp_server.model import MatchKind, Placement
from lsp_server.resolve import spans, structure, syntax
from lsp_server.resolve.indent import indent_of
from lsp_server.resolve.syntax import Grammar, Parsed

if TYPE_CHECKING:
    from tree_sitter import Node

_IMPORT_TYPES = frozenset(
    {"use_declaration", "using_directive", "preproc_include", "extern_crate_declaration"}
)
_REQUIRE = re.compile(r"^(?:require|require_relative|load)\b")


def is_import(p: Parsed, node: Node) -> bool:
    """Is this top-level node an import (`import`, `use`, `using`, `#include`, `require`)?"""
    t = node.type
    if "import" in t or t in _IMPORT_TYPES:
        return True
    return p.grammar.spec.name == "ruby" and bool(_REQUIRE.match(p.first_line(node)))


_GO_SPEC = re.compile(r'^\s*(?:[\w.]+\s+)?"[^"]+"\s*$')


def normalise(text: str) -> str:
    """A statement as imports (and lines) are compared: whitespace runs as one space, no
    trailing `;`."""
    return re.sub(r"\s+", " ", text).strip().rstrip(";")


def add_imports(
    text: str, path: str, grammar: Grammar, imports: list[str], placements: list[Placement]
) -> str:
    """The file with the `imports` it lacks added (each placement appended to
    `placements`)."""
    p = syntax.parse(text, grammar, path)
    root = p.tree.root_node
    have = [c for c in root.named_children if is_import(p, c)]
    lines = list(p.line_list())
    if grammar.spec.name == "go":
        return _add_go_imports(p, have, imports, placements)
    known = {normalise(p.bytes_of(c)) for c in have}
    new = [imp for imp in imports if normalise(imp) not in known]
    if not new:
        return text
    add = [ln for imp in new for ln in imp.split("\n")]
    if have:
        row = spans.node_rows(p, have[-1])[1] + 1
        indent = indent_of(lines[have[-1].start_point.row])
        add = [indent + ln if ln.strip() else ln for ln in add]
    else:
        row = structure.file_start_row(p)
        if row < len(lines) and lines[row].strip():
            add = [*add, ""]
        if row > 0 and lines[row - 1].strip():
            add = ["", *add]
    placements.append(Placement(row, row, MatchKind.SNIPPET, 1.0, row + len(add)))
    return "\n".join(lines[:row] + add + lines[row:])


def _go_specs(text: str) -> list[str]:
    """The specs of a Go import declaration, normalised."""
    body = text.replace("import", " ", 1).replace("(", "\n").replace(")", "\n")
    return [normalise(line) for line in body.split("\n") if _GO_SPEC.match(line)]


def _add_go_imports(p: Parsed, have: list, imports: list[str], placements: list[Placement]) -> str:
    """Go imports are specs (`"fmt"`, `str "strings"`), alone or in a parenthesised group:
    the file's group gains the specs it lacks."""
    lines = list(p.line_list())
    wanted = list(dict.fromkeys(spec for imp in imports for spec in _go_specs(imp)))
    present = {spec for c in have for spec in _go_specs(p.bytes_of(c))}
    new = [w for w in wanted if w not in present]
    if not new:
        return p.text
    group = next((c for c in reversed(have) if "(" in p.bytes_of(c)), None)
    if group is not None:
        end = spans.node_rows(p, group)[1]
        inner = [ln for ln in lines[group.start_point.row + 1 : end] if ln.strip()]
        indent = indent_of(inner[0]) if inner else "\t"
        add = [indent + w for w in new]
        row = end
    elif have:
        row = spans.node_rows(p, have[-1])[1] + 1
        add = [f"import {w}" for w in new]
    else:
        row = structure.file_start_row(p)
        add = ["import (", *("\t" + w for w in new), ")", ""]
    placements.append(Placement(row, row, MatchKind.SNIPPET, 1.0, row + len(add)))
    return "\n".join(lines[:row] + add + lines[row:])


