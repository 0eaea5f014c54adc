"""Imports as one idea: the import lines a block brings, merged into the file's imports.

An import is read as (kind, module, names): `from app.models import Table, Cell`,
`import type { Metadata } from 'next'`, `use std::io::{Read, Write};`. The same import is
recognised whatever its quotes, semicolon, spacing or name order. For each of the block's
imports:

* the file has one of the same module with every name it brings: left alone;
* the file's import of that module has fewer names, all of them among the block's: the
  block's import replaces it (in place);
* the file's has names the block's lacks: the block's new names are added as an import of
  their own, so no name is ever written twice and none the file uses is dropped;
* the file has none of that module: it goes after the file's last import, or after its
  preamble (package clause, module docstring) when it has none.

Go imports are specs: the file's `import ( ... )` group gains the ones it lacks. Pure,
"\\n" texts.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING, NamedTuple

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


_PY_FROM = re.compile(r"^from\s+([\w.]+)\s+import\s+\(?\s*(.*?)\s*,?\s*\)?$")
_PY_IMPORT = re.compile(r"^import\s+([\w.]+(?:\s+as\s+\w+)?(?:\s*,\s*[\w.]+(?:\s+as\s+\w+)?)*)$")
_JS = re.compile(
    r"^import\s+(type\s+)?(?:([\w$]+)\s*,?\s*)?(?:\{\s*(.*?)\s*,?\s*\})?\s*from\s*"
    r"([\'\"])(.+?)\4\s*(;?)$"
)
_RUST = re.compile(r"^(pub\s+)?use\s+([\w:]+?)::(?:\{\s*(.*?)\s*,?\s*\}|(\w+))\s*;$")


class Import(NamedTuple):
    """An import read as one idea: what kind, which module, which names, and how to write
    it with other names (None: it has no names to change)."""

    key: tuple[str, str]
    names: tuple[str, ...]
    write: Callable[[tuple[str, ...]], str] | None


def read_import(text: str) -> Import:
    """`text` (one import statement, perhaps over several lines) as an `Import`."""
    s = re.sub(r"\s+", " ", text).strip()
    m = _PY_FROM.match(s)
    if m:
        mod = m.group(1)
        names = tuple(n.strip() for n in m.group(2).split(",") if n.strip())
        return Import(("py-from", mod), names, lambda ns: f"from {mod} import {', '.join(ns)}")
    m = _PY_IMPORT.match(s)
    if m:
        names = tuple(n.strip() for n in m.group(1).split(","))
        return Import(("py-import", ""), names, lambda ns: f"import {', '.join(ns)}")
    m = _JS.match(s)
    if m and (m.group(2) or m.group(3) is not None):
        kind, default, quote, mod, semi = (
            m.group(1) or "",
            m.group(2),
            m.group(4),
            m.group(5),
            m.group(6),
        )
        names = tuple(n.strip() for n in (m.group(3) or "").split(",") if n.strip())
        names = ((f"default {default}",) if default else ()) + names

        def write_js(ns: tuple[str, ...]) -> str:
            dflt = [n.removeprefix("default ") for n in ns if n.startswith("default ")]
            rest = [n for n in ns if not n.startswith("default ")]
            parts = dflt + ([f"{{ {', '.join(rest)} }}"] if rest else [])
            return f"import {kind}{', '.join(parts)} from {quote}{mod}{quote}{semi}"

        return Import(("js" + kind.strip(), mod), names, write_js)
    m = _RUST.match(s)
    if m:
        pub, mod = m.group(1) or "", m.group(2)
        names = tuple(n.strip() for n in (m.group(3) or m.group(4)).split(",") if n.strip())
        return Import(
            ("rust" + pub.strip(), mod), names, lambda ns: f"{pub}use {mod}::{{{', '.join(ns)}}};"
        )
    return Import(("line", normalise(s.replace("'", '"'))), (), None)


def normalise_import(text: str) -> str:
    """An import as it is compared: kind, module and its names in order; any other line
    whitespace-normalised, quotes as `"`, no trailing `;`."""
    imp = read_import(text)
    if imp.write is None:
        return imp.key[1]
    return f"{imp.key[0]} {imp.key[1]} {' '.join(sorted(imp.names))}"


def normalise(text: str) -> str:
    """A statement as imports (and lines) are compared: whitespace runs as one space, no
    trailing `;`."""
    return re.sub(r"\s+", " ", text).strip().rstrip(";")


def add_imports(
    text: str,
    path: str,
    grammar: Grammar,
    imports: list[str],
    placements: list[Placement],
    restated: list[tuple[str, str]] | None = None,
) -> str:
    """The file with the `imports` it lacks added (each placement appended to
    `placements`). An import the file has, restated under a comment of the block's, is
    never added a second time: (the import, the block's lines) is appended to `restated`
    for the caller to place as an edit of the file's import (the comment is a change the
    reply shows)."""
    p = syntax.parse(text, grammar, path)
    root = p.tree.root_node
    have = [c for c in root.named_children if is_import(p, c)]
    lines = list(p.line_list())
    if grammar.spec.name == "go":
        return _add_go_imports(p, have, imports, placements)
    theirs = [(c, read_import(p.bytes_of(c))) for c in have]
    add: list[str] = []
    swaps: list[tuple[int, int, list[str]]] = []  # file rows [a, b] -> the block's lines
    markers = tuple(grammar.spec.comment_markers)
    for imp in imports:
        code = _uncommented(imp, markers)
        mine = read_import(code)
        same = [(c, t) for c, t in theirs if t.key == mine.key]
        if not same:
            add.extend(imp.split("\n"))
            theirs.append((None, mine))
            continue
        have_names = {n for _c, t in same for n in t.names}
        new_names = tuple(n for n in mine.names if n not in have_names)
        if not new_names or mine.write is None:
            if code != imp and restated is not None:
                restated.append((code, imp))
            continue  # every name it brings is there already
        node, t = same[-1]
        if node is not None and set(t.names) <= set(mine.names) and len(same) == 1:
            a, b = spans.node_rows(p, node)
            swaps.append((a, b, imp.split("\n")))
        else:  # the file's import has names the block's lacks: keep it, add the new ones
            add.append(mine.write(new_names))
        theirs.append((None, mine))
    if not add and not swaps:
        return text
    for a, b, new_lines in sorted(swaps, reverse=True):
        indent = indent_of(lines[a])
        lines[a : b + 1] = [indent + ln if ln.strip() else ln for ln in new_lines]
        placements.append(Placement(a, b + 1, MatchKind.SNIPPET, 1.0, a + len(new_lines)))
    if not add:
        return "\n".join(lines)
    p = syntax.parse("\n".join(lines), grammar, path)
    have = [c for c in p.tree.root_node.named_children if is_import(p, c)]
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


def _uncommented(imp: str, markers: tuple[str, ...]) -> str:
    """The import statement without the comment lines a snippet put above it."""
    lines = imp.split("\n")
    k = 0
    while k < len(lines) - 1 and (not lines[k].strip() or lines[k].lstrip().startswith(markers)):
        k += 1
    return "\n".join(lines[k:])


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
