"""Spans: where a structure starts and ends in its file, and what an edit overwrites.

A structure's boundaries include what belongs to it: decorators, annotations, attributes,
`export` / `template` wrappers and the comments directly above (`layers`). A replacement
overwrites the part of those layers the new code restates (`region_for`): wrappers and
decorators the new code does not repeat are kept, so `export function X` never becomes
`export export function X` and a method keeps its `@property`. Rows are 0-based.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from lsp_server.resolve import languages as L
from lsp_server.resolve import outline, syntax
from lsp_server.resolve.indent import indent_of, width
from lsp_server.resolve.outline import Item
from lsp_server.resolve.syntax import Parsed

if TYPE_CHECKING:
    from tree_sitter import Node


def node_rows(p: Parsed, node: Node) -> tuple[int, int]:
    """First and last line (0-based, inclusive) of a node, trailing blank lines excluded."""
    start = node.start_point.row
    end = node.end_point.row
    if node.end_point.column == 0 and end > start:
        end -= 1
    lines = p.line_list()
    while end > start and end < len(lines) and not lines[end].strip():
        end -= 1
    return start, end


def line_start_byte(p: Parsed, row: int) -> int:
    """Byte offset where line `row` starts (the file's length past the last line)."""
    if row <= 0:
        return 0
    if p.starts is None:  # one row costs far less than the whole table
        near = _near_line_start(p, row)
        if near is not None:
            return near
    starts = p.line_starts()
    return starts[row] if row < len(starts) else len(p.src)


_NEAR_ROWS = 64


def _near_line_start(p: Parsed, row: int) -> int | None:
    """Where line `row` starts, counted from the smallest syntax node around its first
    column when that node starts at most a few lines above; None otherwise."""
    node = syntax.node_at(p, row, 0)
    if node is None:
        return None
    at_row = node.start_point.row
    if at_row > row or row - at_row > _NEAR_ROWS:
        return None
    at = node.start_byte - node.start_point.column  # columns are bytes in tree-sitter
    src = p.src
    if at < 0 or (at > 0 and src[at - 1 : at] != b"\n"):
        return None
    while at_row < row:
        newline = src.find(b"\n", at)
        if newline < 0:
            return None  # past the last line
        at = newline + 1
        at_row += 1
    return at


def _is_sole(parent: Node, child: Node) -> bool:
    count = 0
    for c in parent.named_children:
        t = c.type
        if "decorator" in t or "comment" in t or "attribute" in t or t.endswith("parameter_list"):
            continue
        count += 1
        if count > 1:
            return False
    return count == 1 and any(c.id == child.id for c in parent.named_children)


def _wrapper_chain(p: Parsed, node: Node) -> list[Node]:
    """The node and the wrappers that belong to it, innermost first."""
    chain = [node]
    wrappers = p.grammar.spec.wrappers
    cur = node
    while cur.parent is not None and cur.parent.type in wrappers and _is_sole(cur.parent, cur):
        cur = cur.parent
        chain.append(cur)
    return chain


def _comment_above(p: Parsed, row: int) -> int | None:
    """The first row of a whole-line comment ending on `row`, or None."""
    lines = p.line_list()
    if row < 0 or row >= len(lines):
        return None
    line = lines[row]
    stripped = line.lstrip()
    if not stripped or (row == 0 and stripped.startswith("#!")):
        return None
    col = len(syntax.encode(line[: len(line) - len(stripped)]))
    node = syntax.node_at(p, row, col, named=True)
    while node is not None and L.COMMENT_WORD not in node.type:
        node = node.parent
    if node is None:
        return None
    start_row = node.start_point.row
    first = lines[start_row]
    before = syntax.encode(first)[: node.start_point.column].decode("utf-8", "replace")
    if before.strip():
        return None  # a comment trailing code belongs to that code
    end_row, _ = node_rows(p, node)
    return start_row if end_row == row else None


@dataclass(frozen=True, slots=True)
class Layers:
    """Where a structure starts, layer by layer, and where it ends (0-based rows)."""

    outer_row: int  # doc comments and attached attributes included
    attached_row: int  # attached attributes / decorators included, comments not
    chain: tuple[Node, ...]  # core node first, then its wrappers
    end_row: int
    end_byte: int


def layers(p: Parsed, node: Node) -> Layers:
    """The node with its wrappers, attached attributes and the comments directly above."""
    chain = _wrapper_chain(p, node)
    top = chain[-1]
    attached_types = p.grammar.spec.attached
    start = top.start_point.row
    attached_row = start
    sib = top.prev_named_sibling
    lines = p.line_list()
    while True:
        row = start - 1
        if row < 0 or not lines[row].strip():
            break
        if sib is not None and sib.type in attached_types and node_rows(p, sib)[1] >= row:
            start = sib.start_point.row
            attached_row = min(attached_row, start)
            sib = sib.prev_named_sibling
            continue
        comment_row = _comment_above(p, row)
        if comment_row is None:
            break
        start = comment_row
        if sib is not None and sib.start_point.row >= comment_row:
            sib = sib.prev_named_sibling
    end_row = max(node_rows(p, n)[1] for n in chain)
    end_byte = max(n.end_byte for n in chain)
    return Layers(start, attached_row, tuple(chain), end_row, end_byte)


# --------------------------------------------------------------------------- regions


def _starts_comment(p: Parsed, line: str) -> bool:
    s = line.lstrip()
    if s.startswith("#[") or s.startswith("#!["):
        return False
    return any(s.startswith(m) for m in p.grammar.spec.comment_markers)


def _starts_attribute(p: Parsed, line: str) -> bool:
    s = line.lstrip()
    if s.startswith("@") or s.startswith("#["):
        return True
    return p.grammar.name == "csharp" and s.startswith("[")


_FIRST_WORD = re.compile(r"[\w$@#.<\[-]+|\S")


def _first_word(s: str) -> str:
    m = _FIRST_WORD.search(s)
    return m.group(0) if m else ""


@dataclass(frozen=True, slots=True)
class Region:
    """The part of the file a replacement overwrites."""

    start_row: int
    end_row: int
    start_byte: int  # replacement starts here (mid-line when a wrapper is kept)
    end_byte: int
    mid_line_start: bool
    tail: str  # `;` / `,` after the node on its last line, dropped with it and re-added


def row_of_byte(p: Parsed, b: int) -> int:
    """The 0-based line byte offset `b` is on."""
    return p.src.count(b"\n", 0, b)


def region_for(p: Parsed, item: Item, content_lines: list[str]) -> Region:
    """What replacing `item` by `content_lines` overwrites: from the outermost layer the new
    code restates (its doc comment, its decorators, its wrapper, or the node itself) to
    the node's end, with a trailing `;` / `,` noted so it is not lost."""
    lay = layers(p, item.node)
    first = next((ln for ln in content_lines if ln.strip()), "")
    lines = p.line_list()
    if item.block:
        start_row = item.node.start_point.row
        start_byte = item.node.start_byte
        lead = p.src[line_start_byte(p, start_row) : start_byte].decode("utf-8", "replace")
        if lead.strip() and outline.normalize_head(first).startswith(outline.normalize_head(lead)):
            start_byte = line_start_byte(p, start_row)  # the new code repeats the line's head
    elif _starts_comment(p, first):
        start_row = lay.outer_row
        start_byte = line_start_byte(p, start_row)
    elif _starts_attribute(p, first):
        start_row = lay.attached_row
        start_byte = line_start_byte(p, start_row)
    else:
        word = _first_word(first.strip())
        chosen = lay.chain[0]
        for node in reversed(lay.chain):
            if _first_word(p.first_line(node).strip()) == word:
                chosen = node
                break
        start_byte = chosen.start_byte
        start_row = chosen.start_point.row
        # keep leading attribute / annotation lines the new code does not repeat
        end_row_core = node_rows(p, chosen)[1]
        while start_row < end_row_core and _starts_attribute(p, lines[start_row]):
            nxt = start_row + 1
            start_row = nxt
            ws = indent_of(lines[nxt])
            start_byte = line_start_byte(p, nxt) + len(syntax.encode(ws))
        if _first_word(lines[start_row].strip()) == word:
            start_byte = max(
                start_byte,
                line_start_byte(p, start_row) + len(syntax.encode(indent_of(lines[start_row]))),
            )
    line_begin = line_start_byte(p, start_row)
    before = p.src[line_begin:start_byte].decode("utf-8", "replace")
    mid_start = bool(before.strip())
    end_byte = max(item.node.end_byte, lay.end_byte) if not item.block else item.node.end_byte
    end_row = row_of_byte(p, end_byte if p.src[end_byte - 1 : end_byte] != b"\n" else end_byte - 1)
    line_end = p.src.find(b"\n", end_byte)
    line_end = len(p.src) if line_end < 0 else line_end
    after = p.src[end_byte:line_end].decode("utf-8", "replace")
    tail = ""
    last = next((ln for ln in reversed(content_lines) if ln.strip()), "")
    if after.strip() in (";", ",", ";;"):
        tail = after.strip()
        end_byte = line_end
    elif not after.strip() or (item.block and last.rstrip().endswith(after.strip())):
        end_byte = line_end  # nothing follows, or the new code repeats what follows
    # trailing blank lines inside the node (Markdown sections) stay in the file
    while end_row > start_row and not lines[end_row].strip():
        end_row -= 1
        end_byte = line_start_byte(p, end_row) + len(syntax.encode(lines[end_row]))
    return Region(start_row, end_row, start_byte, end_byte, mid_start, tail)


def splice(p: Parsed, region: Region, new_lines: list[str], indent: str) -> str:
    """The file's text with `region` replaced by `new_lines` (already indented at `indent`)."""
    if region.mid_line_start and new_lines:
        first = new_lines[0][len(indent) :] if new_lines[0].startswith(indent) else new_lines[0]
        new_lines = [first.lstrip(), *new_lines[1:]]
        prefix = p.src[: region.start_byte]
    else:
        prefix = p.src[: line_start_byte(p, region.start_row)]
    body = "\n".join(new_lines)
    if region.tail and new_lines and not new_lines[-1].rstrip().endswith(region.tail):
        body += region.tail
    new = prefix + syntax.encode(body) + p.src[region.end_byte :]
    return new.decode("utf-8", "surrogatepass")


def _blank_gap(lines: list[str], row: int, step: int) -> int:
    n = 0
    row += step
    while 0 <= row < len(lines) and not lines[row].strip():
        n += 1
        row += step
    return n


def separator(p: Parsed, item: Item, start_row: int, end_row: int) -> int:
    """Blank lines to put between the target and new code next to it."""
    if item.block:
        return 0
    spec = p.grammar.spec
    lines = p.line_list()
    siblings = outline.kids(p, item.parent) if item.parent is not None else outline.top(p)
    idx = next((k for k, s in enumerate(siblings) if s is item), -1)
    if idx > 0:
        return min(_blank_gap(lines, start_row, -1), 3)
    if 0 <= idx < len(siblings) - 1:
        return min(_blank_gap(lines, end_row, 1), 3)
    return spec.top_blank_lines if item.parent is None else spec.nested_blank_lines



def delete_rows(lines: list[str], start: int, end: int) -> tuple[list[str], int]:
    """Remove rows [start, end] and the blank lines that would be left doubled.
    Returns the new lines and the first removed row (where the gap now is)."""
    indent = width(indent_of(lines[start])) if start < len(lines) else 0
    above = _blank_gap(lines, start, -1)
    below = _blank_gap(lines, end, 1)
    nxt = end + below + 1
    prv = start - above - 1
    closes = (
        nxt >= len(lines)
        or (lines[nxt].strip() != "" and width(indent_of(lines[nxt])) < indent)
        or (nxt == len(lines) - 1 and not lines[nxt].strip())
    )
    lo, hi = start, end
    if closes:
        lo = start - above  # the gap below separates the enclosing blocks; keep it
    else:
        hi = end + below
    if prv < 0 and nxt >= len(lines):
        lo, hi = start, end
    if hi >= len(lines) - 1 and lines and lines[-1] == "" and hi == len(lines) - 1:
        hi -= 1  # keep the final newline
    return lines[:lo] + lines[hi + 1 :], lo

