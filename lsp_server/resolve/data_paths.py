"""`TARGET_PATH: a.b[2].c` for JSON, YAML and TOML: find one value and change only its text.

Configuration files are where text anchors fail most (`}` and `],` everywhere) and where
reformatting hurts most (key order, comments, indentation, the final newline are part of
the file people review). So a path edit touches the bytes of one value and nothing else:
the rest of the file stays byte-for-byte. The value is found in the tree-sitter tree, so
comments, quoting and layout are the file's own. A missing last key is added (JSON, YAML,
TOML) next to its siblings, in their indentation; an array index one past the end appends.

TOML tables are addressed like any other key (`server.tls.enabled`, `products[1].name`);
how a path is written is `data_path_syntax`'s business.
"""

from __future__ import annotations

import difflib
import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from lsp_server.model import ErrorCode, MatchKind, Placement
from lsp_server.resolve import syntax
from lsp_server.resolve.data_path_syntax import Segment, format_path, parse_data_path
from lsp_server.resolve.indent import dedent, indent_of, reindent, style_of
from lsp_server.resolve.outcome import StructureEdit, refused
from lsp_server.resolve.syntax import Parsed

if TYPE_CHECKING:
    from tree_sitter import Node

@dataclass(frozen=True, slots=True)
class _Hit:
    """A located value: its node (None for `key:` with no value), the node that owns it
    (pair / array element / table) and the node that contains the owner."""

    value: Node | None
    owner: Node
    container: Node | None


@dataclass(slots=True)
class _Missing:
    """The walk stopped: the container where the next segment was expected, the segments
    found and missing, and the keys (or indexes) the container does have."""

    container: Node
    found: list[Segment]
    missing: list[Segment]
    available: list[str]


def _pair_for(p: Any, pairs: list[Node], seg: object) -> tuple[Node | None, list[str]]:
    """The key/value pair whose key is `seg` (the last one if repeated), and every key seen
    (for suggestions). Shared by JSON objects and YAML mappings."""
    keys: list[str] = []
    hit = None
    for pair in pairs:
        key = pair.child_by_field_name("key")
        k = _unquote(p.bytes_of(key)) if key is not None else ""
        keys.append(k)
        if k == str(seg):
            hit = pair
    return hit, keys


def _unquote(text: str) -> str:
    text = text.strip()
    if len(text) >= 2 and text[0] == text[-1] == '"':
        try:
            return str(json.loads(text))
        except ValueError:
            return text[1:-1]
    if len(text) >= 2 and text[0] == text[-1] == "'":
        return text[1:-1].replace("''", "'")
    return text


def _named(node: Node) -> list[Node]:
    return [c for c in node.named_children if "comment" not in c.type]


def _index_of(seg: Segment, size: int) -> int | None:
    if isinstance(seg, int):
        i = seg
    elif seg.lstrip("-").isdecimal() and len(seg) <= 18:  # "²" is a digit int() refuses
        i = int(seg)
    else:
        return None
    if i < 0:
        i += size
    return i if 0 <= i else None


# --------------------------------------------------------------------------- JSON


def _json_walk(p: Parsed, segs: list[Segment]) -> _Hit | _Missing:
    root = p.tree.root_node
    values = _named(root)
    if not values:
        return _Missing(root, [], segs, [])
    node: Node = values[0]
    owner: Node = node
    container: Node | None = None
    for i, seg in enumerate(segs):
        if node.type == "object":
            pairs = [c for c in node.named_children if c.type == "pair"]
            hit, keys = _pair_for(p, pairs, seg)
            if hit is None:
                return _Missing(node, segs[:i], segs[i:], keys)
            container, owner = node, hit
            value = hit.child_by_field_name("value")
            if value is None:
                return _Missing(node, segs[:i], segs[i:], keys)
            node = value
        elif node.type == "array":
            elements = _named(node)
            idx = _index_of(seg, len(elements))
            if idx is None or idx >= len(elements):
                return _Missing(node, segs[:i], segs[i:], [f"[{k}]" for k in range(len(elements))])
            container, owner = node, elements[idx]
            node = elements[idx]
        else:
            return _Missing(node, segs[:i], segs[i:], [])
    return _Hit(node, owner, container)


def _strip_key_prefix(content: str, key: Segment, sep: str) -> str:
    """`"build": "tsc"` sent for path scripts.build -> `"tsc"` (the model repeated the key)."""
    if isinstance(key, int):
        return content
    s = content.strip()
    for form in (json.dumps(key), key, f"'{key}'"):
        if s.startswith(form):
            rest = s[len(form) :].lstrip(" \t")
            if rest.startswith(sep):
                rest = rest[len(sep) :].lstrip(" \t")
                if rest.startswith("\n"):  # the value is a block on the following lines
                    return _dedent_text(rest.strip("\n"))
                return rest.strip()
    return content


def _clean_value(content: str, key: Segment, sep: str) -> str:
    s = _strip_key_prefix(content.replace("\r\n", "\n"), key, sep).strip("\n")
    s = s.strip()
    if s.endswith(",") and sep == ":":
        s = s[:-1].rstrip()
    return s


def _line_indent(p: Parsed, row: int) -> str:
    return indent_of(p.line_list()[row])


def _mid_splice(p: Parsed, start: int, end: int, value: str, indent: str) -> tuple[str, int]:
    """Put `value` at byte `start` (mid-line) with continuation lines re-indented under
    `indent`. Returns the new text and the number of lines the value spans."""
    style = style_of(p.line_list()[:2000])
    lines = reindent(value + "\n", indent, style, convert=True)
    if not lines:
        lines = [""]
    lines[0] = lines[0].lstrip()
    body = "\n".join(lines)
    text = (p.src[:start] + syntax.encode(body) + p.src[end:]).decode("utf-8", "surrogatepass")
    return text, len(lines)


def _json_edit(p: Parsed, segs: list[Segment], op: str, content: str | None) -> StructureEdit:
    found = _json_walk(p, segs)
    _guard(p, segs, found)
    if isinstance(found, _Missing):
        if op == "replace_structure" and len(found.missing) == 1 and content:
            return _json_add(p, found, found.missing[0], content)
        raise _not_found(p, segs, found)
    if op == "read_structure":
        return _read_edit(p, found)
    if op == "delete_structure" or (op == "replace_structure" and not (content or "").strip()):
        return _json_delete(p, found)
    if op != "replace_structure" or found.value is None:
        raise _unsupported_op(op, "json")
    value = _clean_value(content or "", segs[-1] if segs else 0, ":")
    node = found.value
    indent = _line_indent(
        p, node.start_point.row if found.owner is node else found.owner.start_point.row
    )
    text, n = _mid_splice(p, node.start_byte, node.end_byte, value, indent)
    row = node.start_point.row
    return _edit(text, row, node.end_point.row + 1, row + n, segs)


def _json_add(p: Parsed, miss: _Missing, key: Segment, content: str) -> StructureEdit:
    container = miss.container
    if container.type not in ("object", "array"):
        raise _not_found(p, miss.found + miss.missing, miss)
    is_array = container.type == "array"
    elements = (
        _named(container) if is_array else [c for c in container.named_children if c.type == "pair"]
    )
    if is_array:
        idx = _index_of(key, len(elements))
        if idx != len(elements):
            raise _not_found(p, miss.found + miss.missing, miss)
    elif isinstance(key, int):
        raise _not_found(p, miss.found + miss.missing, miss)
    value = _clean_value(content, key, ":")
    open_row = container.start_point.row
    multiline = container.end_point.row > open_row
    if elements:
        last = elements[-1]
        indent = _line_indent(p, last.start_point.row) if multiline else ""
        head = "" if is_array else f"{json.dumps(key)}: "
        style = style_of(p.line_list()[:2000])
        lines = reindent(head + value + "\n", indent, style, convert=True)
        lines[0] = lines[0].lstrip()
        joiner = ",\n" + indent if multiline and last.start_point.row != open_row else ", "
        insert = joiner + "\n".join(lines)
        at = last.end_byte
    else:
        base = _line_indent(p, open_row)
        style = style_of(p.line_list()[:2000]) or (" ", 2)
        unit = "\t" if style[0] == "\t" else " " * style[1]
        head = "" if is_array else f"{json.dumps(key)}: "
        if multiline:
            lines = reindent(head + value + "\n", base + unit, style, convert=True)
            insert = "\n" + "\n".join(lines)
            at = container.start_byte + 1
        else:
            lines = reindent(head + value + "\n", base, style, convert=True)
            lines[0] = lines[0].lstrip()
            insert = "\n".join(lines)
            at = container.start_byte + 1
    text = (p.src[:at] + syntax.encode(insert) + p.src[at:]).decode("utf-8", "surrogatepass")
    row = p.src.count(b"\n", 0, at)
    added = insert.count("\n")
    return _edit(text, row, row + 1, row + 1 + added, miss.found + [key], added=True)


def _json_delete(p: Parsed, hit: _Hit) -> StructureEdit:
    owner = hit.owner
    container = hit.container
    if container is None:
        raise refused(ErrorCode.TARGET_NOT_FOUND, "cannot delete the document's root value")
    siblings = (
        _named(container)
        if container.type == "array"
        else [c for c in container.named_children if c.type == "pair"]
    )
    k = next(i for i, s in enumerate(siblings) if s.id == owner.id)
    if k + 1 < len(siblings):
        start, end = owner.start_byte, siblings[k + 1].start_byte
    elif k > 0:
        start, end = siblings[k - 1].end_byte, owner.end_byte
    else:
        start, end = owner.start_byte, owner.end_byte
        line_start = p.src.rfind(b"\n", 0, start) + 1
        line_end = p.src.find(b"\n", end)
        if (
            not p.src[line_start:start].strip()
            and line_end >= 0
            and not p.src[end:line_end].strip()
        ):
            start, end = line_start, line_end + 1
    text = (p.src[:start] + p.src[end:]).decode("utf-8", "surrogatepass")
    row = owner.start_point.row
    return StructureEdit(
        text,
        Placement(row, owner.end_point.row + 1, MatchKind.STRUCTURAL, new_end_line=row),
        {"deleted_line_range_inclusive": [row + 1, owner.end_point.row + 1]},
    )


# --------------------------------------------------------------------------- YAML


def _yaml_inner(node: Node | None) -> Node | None:
    while node is not None and node.type in ("document", "block_node", "flow_node", "stream"):
        kids = _named(node)
        inner = next((k for k in kids if k.type not in ("tag", "anchor")), None)
        if inner is None or node.type == "flow_node" and inner.type.endswith("scalar"):
            return node if node.type != "stream" else inner
        node = inner
    return node


def _yaml_walk(p: Parsed, segs: list[Segment]) -> _Hit | _Missing:
    root = p.tree.root_node
    doc = next((c for c in root.named_children if c.type == "document"), None)
    node = _yaml_inner(doc)
    if node is None:
        return _Missing(root, [], segs, [])
    owner: Node = node
    container: Node | None = None
    for i, seg in enumerate(segs):
        if node.type in ("block_mapping", "flow_mapping"):
            pairs = [
                c for c in node.named_children if c.type in ("block_mapping_pair", "flow_pair")
            ]
            hit, keys = _pair_for(p, pairs, seg)
            if hit is None:
                return _Missing(node, segs[:i], segs[i:], keys)
            container, owner = node, hit
            value = hit.child_by_field_name("value")
            if value is None:
                if i == len(segs) - 1:
                    return _Hit(None, hit, node)
                return _Missing(node, segs[: i + 1], segs[i + 1 :], [])
            node = _yaml_inner(value) or value
        elif node.type in ("block_sequence", "flow_sequence"):
            items = _named(node)
            idx = _index_of(seg, len(items))
            if idx is None or idx >= len(items):
                return _Missing(node, segs[:i], segs[i:], [f"[{k}]" for k in range(len(items))])
            container, owner = node, items[idx]
            item = items[idx]
            if item.type == "block_sequence_item":
                kids = _named(item)
                node = _yaml_inner(kids[0]) if kids else item
                if not kids:
                    return (
                        _Hit(None, item, container)
                        if i == len(segs) - 1
                        else _Missing(node, segs[: i + 1], segs[i + 1 :], [])
                    )
            else:
                node = _yaml_inner(item) or item
        else:
            return _Missing(node, segs[:i], segs[i:], [])
    return _Hit(node, owner, container)


def _yaml_value_node(hit: _Hit) -> Node | None:
    """The node whose bytes are the value (a block_node / flow_node under the pair)."""
    owner = hit.owner
    if owner.type in ("block_mapping_pair", "flow_pair"):
        return owner.child_by_field_name("value")
    if owner.type == "block_sequence_item":
        kids = _named(owner)
        return kids[0] if kids else None
    return hit.value


def _row_ops(
    p: Parsed,
    segs: list[Segment],
    op: str,
    content: str | None,
    found: _Hit | _Missing,
    add: Callable[[Parsed, _Missing, Segment, str], StructureEdit],
    fmt: str,
) -> StructureEdit | None:
    """What YAML and TOML paths do alike: add a missing last key, read, delete, refuse an
    unknown operation. None leaves a replace of a found value to the format's own code."""
    _guard(p, segs, found)
    if isinstance(found, _Missing):
        if op == "replace_structure" and len(found.missing) == 1 and content:
            return add(p, found, found.missing[0], content)
        raise _not_found(p, segs, found)
    if op == "read_structure":
        return _read_edit(p, found)
    if op == "delete_structure" or (op == "replace_structure" and not (content or "").strip()):
        return _rows_delete(p, found.owner)
    if op != "replace_structure":
        raise _unsupported_op(op, fmt)
    return None


def _yaml_edit(p: Parsed, segs: list[Segment], op: str, content: str | None) -> StructureEdit:
    found = _yaml_walk(p, segs)
    done = _row_ops(p, segs, op, content, found, _yaml_add, "yaml")
    if done is not None:
        return done
    assert isinstance(found, _Hit)
    key = segs[-1] if segs else 0
    value = _clean_value(content or "", key, ":")
    value_lines = value.split("\n")
    if len(value_lines) > 1 and not isinstance(key, int):
        first = value_lines[0].strip()
        if first in (f"{key}:", f'"{key}":', f"'{key}':"):
            value = _dedent_text("\n".join(value_lines[1:]))
            value_lines = value.split("\n")
    owner = found.owner
    vnode = _yaml_value_node(found)
    key_row = owner.start_point.row
    key_indent = _line_indent(p, key_row)
    multiline = len(value_lines) > 1
    block_scalar = value_lines[0].startswith(("|", ">"))
    if (
        owner.type == "block_sequence_item"
        or owner.type == "flow_pair"
        or (vnode is not None and vnode.start_point.row == key_row and not multiline)
    ):
        if vnode is None:
            raise _unsupported_op(op, "yaml")
        col_indent = " " * vnode.start_point.column
        text, n = _mid_splice(p, vnode.start_byte, vnode.end_byte, value, col_indent)
        row = vnode.start_point.row
        return _edit(text, row, vnode.end_point.row + 1, row + n, segs)
    # a block_mapping_pair: rewrite everything after the colon
    key_node = owner.child_by_field_name("key")
    colon = p.src.find(b":", key_node.end_byte if key_node is not None else owner.start_byte)
    start = colon + 1
    end = vnode.end_byte if vnode is not None else start
    if multiline and not block_scalar:
        if vnode is not None and vnode.start_point.row > key_row:
            child = " " * vnode.start_point.column
        else:
            child = key_indent + "  "
        body = "\n" + "\n".join(child + ln if ln.strip() else "" for ln in value_lines)
    elif block_scalar:
        child = (
            " " * vnode.start_point.column
            if vnode is not None and vnode.start_point.row > key_row
            else key_indent + "  "
        )
        rest = _dedent_text("\n".join(value_lines[1:])).split("\n")
        body = (
            " " + value_lines[0] + "\n" + "\n".join(child + ln if ln.strip() else "" for ln in rest)
        )
    else:
        body = " " + value
    text = (p.src[:start] + syntax.encode(body) + p.src[end:]).decode("utf-8", "surrogatepass")
    end_row = (vnode.end_point.row if vnode is not None else key_row) + 1
    return _edit(text, key_row, end_row, key_row + 1 + body.count("\n"), segs)


def _dedent_text(s: str) -> str:
    return "\n".join(dedent(s.split("\n")))


def _yaml_scalar_key(key: str) -> str:
    if re.fullmatch(r"[A-Za-z0-9_][\w\-. /]*", key) and not key.endswith(" "):
        return key
    return json.dumps(key)


def _yaml_add(p: Parsed, miss: _Missing, key: Segment, content: str) -> StructureEdit:
    container = miss.container
    if container.type != "block_mapping" or isinstance(key, int):
        raise _not_found(p, miss.found + miss.missing, miss)
    pairs = [c for c in container.named_children if c.type == "block_mapping_pair"]
    indent = " " * container.start_point.column
    value = _clean_value(content, key, ":")
    lines = value.split("\n")
    if len(lines) > 1:
        new = [f"{indent}{_yaml_scalar_key(key)}:"] + [
            indent + "  " + ln if ln.strip() else "" for ln in lines
        ]
    else:
        new = [f"{indent}{_yaml_scalar_key(key)}: {value}"]
    last_row = (
        max(c.end_point.row - (1 if c.end_point.column == 0 else 0) for c in pairs)
        if pairs
        else (container.end_point.row)
    )
    all_lines = p.line_list()
    out = all_lines[: last_row + 1] + new + all_lines[last_row + 1 :]
    return _edit(
        "\n".join(out),
        last_row + 1,
        last_row + 1,
        last_row + 1 + len(new),
        miss.found + [key],
        True,
    )


def _rows_delete(p: Parsed, owner: Node) -> StructureEdit:
    start = owner.start_point.row
    end = owner.end_point.row - (
        1 if owner.end_point.column == 0 and owner.end_point.row > start else 0
    )
    lines = p.line_list()
    line = lines[start]
    before = syntax.encode(line)[: owner.start_point.column].decode("utf-8", "replace")
    if before.strip() and before.strip() != "-":
        raise refused(
            ErrorCode.TARGET_NOT_FOUND,
            "the value shares its line with other entries; replace the enclosing value instead",
            lines=[start + 1, end + 1],
        )
    out = lines[:start] + lines[end + 1 :]
    return StructureEdit(
        "\n".join(out),
        Placement(start, end + 1, MatchKind.STRUCTURAL, new_end_line=start),
        {"deleted_line_range_inclusive": [start + 1, end + 1]},
    )


# --------------------------------------------------------------------------- TOML


def _toml_key_parts(p: Parsed, key: Node) -> list[str]:
    if key.type == "dotted_key":
        parts: list[str] = []
        for c in key.named_children:
            parts.extend(_toml_key_parts(p, c))
        return parts
    return [_unquote(p.bytes_of(key))]


def _toml_key(p: Parsed, node: Node) -> list[str]:
    key = next((c for c in node.named_children if "key" in c.type), None)
    return _toml_key_parts(p, key) if key is not None else []


def _toml_value(node: Node) -> Node | None:
    kids = [c for c in node.named_children if "key" not in c.type and "comment" not in c.type]
    return kids[0] if kids else None


def _toml_pairs(node: Node) -> list[Node]:
    return [c for c in node.named_children if c.type == "pair"]


def _toml_walk_value(
    p: Parsed, pairs: list[Node], segs: list[Segment], done: list[Segment], scope: Node
) -> _Hit | _Missing:
    """Resolve `segs` among `pairs` (dotted keys allowed), then into inline tables/arrays."""
    for pair in pairs:
        parts = _toml_key(p, pair)
        if [str(s) for s in segs[: len(parts)]] == parts:
            node = _toml_value(pair)
            owner: Node = pair
            container: Node | None = scope
            rest = segs[len(parts) :]
            walked = done + segs[: len(parts)]
            for i, seg in enumerate(rest):
                if node is None:
                    break
                if node.type == "inline_table":
                    inner = _toml_pairs(node)
                    found = _toml_walk_value(p, inner, rest[i:], walked + rest[:i], node)
                    return found
                if node.type == "array":
                    elements = _named(node)
                    idx = _index_of(seg, len(elements))
                    if idx is None or idx >= len(elements):
                        return _Missing(node, walked + rest[:i], rest[i:], [])
                    container, owner, node = node, elements[idx], elements[idx]
                    continue
                return _Missing(node, walked + rest[:i], rest[i:], [])
            return _Hit(node, owner, container)
    keys = [".".join(_toml_key(p, pr)) for pr in pairs]
    return _Missing(scope, done, segs, keys)


def _toml_walk(p: Parsed, segs: list[Segment]) -> _Hit | _Missing:
    root = p.tree.root_node
    tables = [c for c in root.named_children if c.type in ("table", "table_array_element")]
    best: tuple[int, Node] | None = None
    seen: dict[tuple[str, ...], int] = {}
    for table in tables:
        header = _toml_key(p, table)
        if table.type == "table_array_element":
            n = seen.get(tuple(header), 0)
            seen[tuple(header)] = n + 1
            want = [*header, n]
            cand = segs[: len(want)]
            ok = (
                [str(x) for x in cand[:-1]] == header
                and len(cand) == len(want)
                and (_index_of(cand[-1], 10**9) == n)
            )
            length = len(want)
        else:
            ok = [str(x) for x in segs[: len(header)]] == header
            length = len(header)
        if ok and (best is None or length > best[0]):
            best = (length, table)
    if best is not None:
        length, table = best
        rest = segs[length:]
        if not rest:
            return _Hit(table, table, root)
        return _toml_walk_value(p, _toml_pairs(table), rest, segs[:length], table)
    top_pairs = _toml_pairs(root)
    found = _toml_walk_value(p, top_pairs, segs, [], root)
    if isinstance(found, _Missing) and not found.found:
        found.available = found.available + [".".join(_toml_key(p, t)) for t in tables]
    return found


def _toml_edit(p: Parsed, segs: list[Segment], op: str, content: str | None) -> StructureEdit:
    found = _toml_walk(p, segs)
    done = _row_ops(p, segs, op, content, found, _toml_add, "toml")
    if done is not None:
        return done
    assert isinstance(found, _Hit)
    node = found.value
    if node is not None and node.type in ("table", "table_array_element"):
        return _toml_table_replace(p, node, content or "", segs)
    if node is None:
        raise _unsupported_op(op, "toml")
    value = _clean_value(content or "", segs[-1] if segs else 0, "=")
    indent = _line_indent(p, found.owner.start_point.row)
    text, n = _mid_splice(p, node.start_byte, node.end_byte, value, indent)
    row = node.start_point.row
    return _edit(text, row, node.end_point.row + 1, row + n, segs)


def _toml_table_replace(
    p: Parsed, table: Node, content: str, segs: list[Segment]
) -> StructureEdit:
    lines = p.line_list()
    start = table.start_point.row
    end = table.end_point.row - (1 if table.end_point.column == 0 else 0)
    while end > start and not lines[end].strip():
        end -= 1
    new = content.replace("\r\n", "\n").strip("\n").split("\n")
    if not new[0].lstrip().startswith("["):
        start += 1  # keep the header, replace the body
    out = lines[:start] + new + lines[end + 1 :]
    return _edit("\n".join(out), start, end + 1, start + len(new), segs)


def _toml_bare(key: str) -> str:
    return key if re.fullmatch(r"[A-Za-z0-9_\-]+", key) else json.dumps(key)


def _toml_add(p: Parsed, miss: _Missing, key: Segment, content: str) -> StructureEdit:
    scope = miss.container
    if isinstance(key, int) or scope.type not in ("table", "table_array_element", "document"):
        raise _not_found(p, miss.found + miss.missing, miss)
    value = _clean_value(content, key, "=")
    pairs = _toml_pairs(scope)
    lines = p.line_list()
    if pairs:
        row = max(pr.end_point.row - (1 if pr.end_point.column == 0 else 0) for pr in pairs) + 1
    elif scope.type == "document":
        first_table = next((c for c in scope.named_children if c.type.startswith("table")), None)
        row = first_table.start_point.row if first_table is not None else len(lines)
    else:
        row = scope.start_point.row + 1
    new = f"{_toml_bare(key)} = {value}".split("\n")
    out = lines[:row] + new + lines[row:]
    return _edit("\n".join(out), row, row, row + len(new), miss.found + [key], True)


# --------------------------------------------------------------------------- shared


def _edit(
    text: str, start: int, end: int, new_end: int, segs: list[Segment], added: bool = False
) -> StructureEdit:
    result: dict[str, Any] = {
        "lines": [start + 1, max(new_end, start + 1)],
        "data_path": format_path(segs),
    }
    if added:
        result["added_key"] = True
    return StructureEdit(
        text, Placement(start, end, MatchKind.STRUCTURAL, new_end_line=new_end), result
    )


def _read_edit(p: Parsed, hit: _Hit) -> StructureEdit:
    node = hit.value or hit.owner
    start, end = node.start_point.row, node.end_point.row
    return StructureEdit(
        p.text,
        Placement(start, end + 1, MatchKind.STRUCTURAL, new_end_line=end + 1),
        {"lines": [start + 1, end + 1], "text": p.bytes_of(node)},
    )


def _unsupported_op(op: str, language: str) -> Exception:
    return refused(
        ErrorCode.TARGET_NOT_FOUND,
        f"`{op}` is not available for a {language} data path; use replace_structure, "
        "delete_structure or read_structure",
        operation=op,
    )


def _not_found(p: Parsed, segs: list[Segment], miss: _Missing) -> Exception:
    wanted = str(miss.missing[0]) if miss.missing else ""
    suggestions = difflib.get_close_matches(wanted, miss.available, n=5, cutoff=0.5)
    found_path = format_path(miss.found)
    lines = [miss.container.start_point.row + 1, miss.container.end_point.row + 1]
    where = f"`{found_path}` (lines {lines[0]}-{lines[1]})" if miss.found else "the document"
    hint = (
        f"; closest: {', '.join(suggestions)}"
        if suggestions
        else (f"; available: {', '.join(miss.available[:10])}" if miss.available else "")
    )
    return refused(
        ErrorCode.TARGET_NOT_FOUND,
        f"no `{format_path(miss.missing)}` in {where} of the {p.grammar.name} file{hint}",
        data_path=format_path(segs),
        searched=format_path(segs),
        parent_found={"path": found_path, "lines": lines} if miss.found else None,
        failed_segment=wanted,
        suggestions=suggestions,
        available=miss.available[:20],
    )


_EDITORS = {"json": _json_edit, "yaml": _yaml_edit, "toml": _toml_edit}


def apply_data_path(
    text: str,
    language: str,
    data_path: str,
    operation: str,
    content: str | None,
    options: dict[str, Any] | None = None,
    key: str | None = None,
) -> StructureEdit:
    """Replace (or add, delete, read) the value at `data_path` in a JSON/YAML/TOML text.
    `key` names the file for the parse cache."""
    editor = _EDITORS.get(language)
    if editor is None:
        raise refused(
            ErrorCode.LANGUAGE_UNSUPPORTED,
            f"TARGET_PATH works in JSON, YAML and TOML files, not {language}",
            language=language,
            supported=sorted(_EDITORS),
        )
    segs = parse_data_path(data_path)
    p = syntax.parse(text, syntax.grammar(language), key or f"\x00data:{language}")
    return editor(p, segs, operation, content)


def _guard(p: Parsed, segs: list[Segment], found: _Hit | _Missing) -> None:
    """PARSER_FAILED when the value (or the place the walk stopped) is inside a syntax
    error: recovery may have re-nested the tree, so the path cannot be trusted there."""
    root = p.tree.root_node
    if not root.has_error:
        return
    if isinstance(found, _Hit):
        node: Node | None = found.owner
        bad = found.owner.has_error or (found.value is not None and found.value.has_error)
        while not bad and node is not None:
            bad = node.is_error
            node = node.parent
        if not bad:
            return
    errors = [[e.start_point.row + 1, e.end_point.row + 1] for e in syntax.error_nodes(p)[:10]]
    raise refused(
        ErrorCode.PARSER_FAILED,
        f"the {p.grammar.name} file has syntax errors (lines "
        f"{', '.join(f'{a}-{b}' for a, b in errors)}) where `{format_path(segs)}` should be, so it "
        "cannot be located reliably; fix the file or use a SEARCH/REPLACE block",
        data_path=format_path(segs),
        syntax_errors=errors,
    )


def read_data_path(
    text: str, language: str, data_path: str, key: str | None = None
) -> dict[str, Any]:
    """The value at `data_path`: its lines (1-based, inclusive) and exact text."""
    edit = apply_data_path(text, language, data_path, "read_structure", None, key=key)
    return {
        "kind": "value",
        "name": data_path,
        "path": data_path,
        "lines": edit.result["lines"],
        "text": edit.result["text"],
    }
