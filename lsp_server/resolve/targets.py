"""Targets: from the levels of a `TARGET_NODE` to exactly one structure, or a refusal.

A target names a structure level by level (`class UserAuth` / `validate` /
`if user.is_active`). Each level is read for the names it may mean, the kinds it asks for
(`def`, `class`, `impl`...), a signature and a Go receiver; it is then looked up among the
structures directly inside the previous level's match, nearest first, and failing that
among the block-bearing statements whose first line it matches (`if x > 0:`).

Rules that make this safe:

* exactly one structure must match every level, or the target fails with
  `TARGET_NOT_FOUND` (how far the path got, the closest names) or `TARGET_AMBIGUOUS`
  (every match, with lines); there is never a silent fall back to text matching;
* a target inside a syntax error fails with `PARSER_FAILED`: error recovery can re-nest
  the tree, so its boundaries cannot be trusted.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from lsp_server.model import ErrorCode, PlacementError, Target
from lsp_server.resolve import languages as L
from lsp_server.resolve import outline, spans, syntax
from lsp_server.resolve.outcome import refused
from lsp_server.resolve.outline import Item
from lsp_server.resolve.syntax import Grammar, Parsed

if TYPE_CHECKING:
    from tree_sitter import Node


# --------------------------------------------------------------------------- levels

_TOKEN = re.compile(r"(?:[^\W\d]|\$)[\w$]*(?:(?:\.|::|->|:)(?:[^\W\d]|[$~])[\w$]*)*|\S")
_NOT_NAMES = frozenset(
    {"extends", "implements", "for", "in", "of", "returns", "return", "with", "where", "as"}
)


@dataclass(frozen=True, slots=True)
class _Level:
    """One level of a target, read: the names it may mean, the kinds it asks for."""

    raw: str
    norm: str
    names: tuple[str, ...]
    kinds: frozenset[str]
    params: str | None
    owner: str | None
    qualified: bool  # a single dotted / `::` name that may be split into levels


def _parse_level(raw: str, markdown: bool = False) -> _Level:
    text = raw.strip()
    if markdown:
        stripped = outline.strip_markdown(text)
        return _Level(raw, stripped, (stripped,), frozenset(), None, None, False)
    norm = outline.normalize_head(text)
    work = re.sub(r"\bpub\s*\([^)]*\)", "pub", norm)
    work = re.sub(r"(?<=\w)#(?=\w)", ".", work)  # Ruby's User#greet
    tokens = _TOKEN.findall(work)
    kinds: set[str] = set()
    owner: str | None = None
    i = 0
    while i < len(tokens):
        low = tokens[i].lower()
        if low in L.MODIFIERS:
            i += 1
        elif low in L.KIND_WORDS and i + 1 < len(tokens):
            kinds |= L.KIND_WORDS[low]
            i += 1
        else:
            break
    rest = tokens[i:]
    if rest and rest[0] == "(" and ")" in rest:  # Go receiver: func (p *Point) Dist
        close = rest.index(")")
        idents = [t for t in rest[1:close] if t[0].isalpha() or t[0] == "_"]
        owner = outline.strip_generics(idents[-1]) if idents else None
        rest = rest[close + 1 :]
    idents = [t for t in rest if (t[0].isalpha() or t[0] in "_$") and t not in _NOT_NAMES]
    names: list[str] = [norm]
    if "(" in rest:
        pos = rest.index("(")
        if pos > 0 and rest[pos - 1] in idents:
            names.append(rest[pos - 1])
    for ident in idents[:6]:
        if ident not in names:
            names.append(ident)
    if owner and idents:
        names.insert(1, f"{owner}.{idents[0]}")
    stripped = outline.strip_generics(norm)
    if stripped != norm:
        names.insert(1, stripped)
    params = None
    if "(" in work:
        start = work.index("(")
        depth = 0
        for j in range(start, len(work)):
            depth += {"(": 1, ")": -1}.get(work[j], 0)
            if depth == 0:
                params = re.sub(r"\s+", "", work[start : j + 1])
                break
    qualified = len(idents) == 1 and len(rest) == 1 and bool(re.search(r"\.|::", idents[0]))
    return _Level(raw, norm, tuple(names), frozenset(kinds), params, owner, qualified)


# `(?<!\s)`: a separator's spaces are tried from the start of their run only, which keeps
# the split linear on a long run of spaces (it was quadratic without it)
_LEVEL_SPLIT = re.compile(r"(?<!\s)\s+(?:>|/|→|»)\s+")
_SPLITTABLE = re.compile(r"^[\w$@#.:~<>()\[\], ]+$")
_CONTROL = frozenset(
    {"if", "elif", "else", "for", "while", "match", "case", "when", "switch", "try", "catch"}
    | {"with", "unless", "until", "return", "do", "foreach", "loop", "guard", "select"}
)


def levels_of(target: Target) -> list[str]:
    """One entry per level. A level written as `A > b` (or `A / b`) is split, unless the
    separator is part of the code (`if x > 0`)."""
    out: list[str] = []
    for level in target.node:
        level = level.strip()
        parts = [x.strip() for x in _LEVEL_SPLIT.split(level) if x.strip()]
        splittable = len(parts) > 1 and all(
            _SPLITTABLE.match(x) and x.split()[0].lower() not in _CONTROL for x in parts
        )
        out.extend(parts if splittable else ([level] if level else []))
    return out


# --------------------------------------------------------------------------- matching


def _header(p: Parsed, node: Node) -> str:
    return outline.normalize_head(p.first_line(node))


def _name_hits(level: _Level, pool: list[Item], markdown: bool) -> list[Item]:
    for name in level.names:
        hits = [c for c in pool if c.name == name or name in c.aliases]
        if hits:
            return hits
    if markdown and level.norm:
        wanted = level.norm[:50]
        hits = [c for c in pool if c.name.startswith(wanted) or c.name[:50] == wanted]
        if hits:
            return hits
        low = wanted.lower()
        return [c for c in pool if c.name.lower() == low]
    return []


def _narrow(level: _Level, hits: list[Item], p: Parsed, last: bool) -> list[Item]:
    if level.kinds:
        hits = [h for h in hits if h.kind in level.kinds] or hits
    if last and not (level.kinds & L.IMPLS):
        plain = [h for h in hits if h.kind not in L.IMPLS]
        hits = plain or hits
    strong = [h for h in hits if not h.weak]
    hits = strong or hits
    if len(hits) > 1 and level.params:
        wanted = level.params
        narrowed = [h for h in hits if wanted in re.sub(r"\s+", "", _header(p, h.node))]
        hits = narrowed or hits
    if len(hits) > 1:
        whole = [h for h in hits if _header(p, h.node) == level.norm]
        hits = whole or hits
    return hits


def _prefix_of(head: str, wanted: str) -> bool:
    if not head.startswith(wanted):
        return False
    if len(head) == len(wanted) or not wanted[-1:].isalnum():
        return True
    nxt = head[len(wanted)]
    return not (nxt.isalnum() or nxt == "_")


def _block_matches(level: _Level, p: Parsed, scope: list[Item] | None) -> list[Node]:
    """Block-bearing nodes whose first line matches the level (whitespace normalised).

    A node's first line is its own text up to the end of the line (`if x:`), or the whole
    line it starts on (`items.forEach((item) => {` for the arrow function). Exact beats
    prefix, the node's own text beats its line's, and among nested nodes that start on
    one line and match through that line, the outermost wins.
    """
    g = p.grammar
    if g.block_query is None or not level.norm:
        return []
    wanted = level.norm
    loose = wanted.rstrip(">").rstrip() or wanted
    squeezed = re.sub(r"\s+", "", loose)
    lines = p.line_list()
    ranges = [(s.node.start_byte, s.node.end_byte) for s in scope] if scope else [(0, len(p.src))]
    ranks: dict[int, list[Node]] = {}
    seen: set[int] = set()
    for lo, hi in ranges:
        # captures come in no reliable order (it changes from one parse to the next):
        # document order keeps the matches, and the ambiguity report, stable
        captured = syntax.captures(g.block_query, p.tree.root_node, "s", (lo, hi))
        captured.sort(key=lambda n: (n.start_byte, -n.end_byte))
        for node in captured:
            if node.start_byte < lo or node.end_byte > hi or node.id in seen:
                continue
            if scope and any(node.id == sc.node.id for sc in scope):
                continue
            seen.add(node.id)
            head = _header(p, node)
            line = outline.normalize_head(lines[node.start_point.row])
            if head == wanted:
                rank = 0
            elif line == wanted:
                rank = 1
            elif _prefix_of(head, loose):
                rank = 2
            elif _prefix_of(line, loose):
                rank = 3
            elif squeezed and re.sub(r"\s+", "", head).startswith(squeezed):
                rank = 4
            else:
                continue
            ranks.setdefault(rank, []).append(node)
    if not ranks:
        return []
    best = min(ranks)
    found = ranks[best]
    if best in (1, 3):  # matched through a shared line: keep the outermost per line
        found.sort(key=lambda n: (n.start_point.row, n.start_byte, -n.end_byte))
        outer: list[Node] = []
        for node in found:
            if (
                outer
                and outer[-1].start_point.row == node.start_point.row
                and (
                    outer[-1].start_byte <= node.start_byte and node.end_byte <= outer[-1].end_byte
                )
            ):
                continue
            outer.append(node)
        found = outer
    return found


def _block_item(node: Node, p: Parsed, parent: Item | None) -> Item:
    return Item(node, "block", _header(p, node), None, (), False, parent, block=True)


def _direct_block(node: Node, scope: list[Item] | None, g: Grammar) -> bool:
    stop_ids = {s.node.id for s in scope} if scope else set()
    cur = node.parent
    while cur is not None and cur.id not in stop_ids:
        if cur.type in g.blocks or cur.type in g.structures:
            return False
        cur = cur.parent
    return True


def _children(p: Parsed, scope: Item) -> list[Item]:
    """Structures directly inside `scope`. A block (`if TYPE_CHECKING:`) is not in the
    index, so its children are the indexed structures inside its bytes whose parent is not."""
    if not scope.block:
        return outline.kids(p, scope)
    blocks = p.grammar.blocks
    inside = outline.items_within(p, scope.node.start_byte, scope.node.end_byte)
    ids = {id(i) for i in inside}
    tops = [i for i in inside if i.parent is None or id(i.parent) not in ids]
    return [i for i in tops if not _inner_block(i.node, scope.node, blocks)] or tops


def _inner_block(node: Node, stop: Node, blocks: frozenset[str]) -> bool:
    cur = node.parent
    while cur is not None and cur.id != stop.id:
        if cur.type in blocks:
            return True
        cur = cur.parent
    return False


def _by_depth(p: Parsed, first: list[Item]) -> Iterator[list[Item]]:
    """The items, then their children, then grandchildren...: nearest structures first."""
    level = first
    while level:
        yield level
        level = [c for item in level for c in outline.kids(p, item)]


def _depth(item: Item) -> int:
    n = 0
    parent = item.parent
    while parent is not None:
        n += 1
        parent = parent.parent
    return n


def _tier_hits(
    p: Parsed, level: _Level, tiers: Iterable[list[Item]], markdown: bool, last: bool
) -> list[Item]:
    """The matches in the nearest tier that has any, narrowed."""
    for tier in tiers:
        hits = _name_hits(level, tier, markdown)
        if hits:
            return _narrow(level, hits, p, last)
    return []


def _top_hits(p: Parsed, level: _Level, markdown: bool, last: bool) -> list[Item] | None:
    """What `_tier_hits(_by_depth(top))` finds for the first level, from the structures
    carrying one of the level's names alone (None when those cannot be listed cheaply).

    Tiers are depths: the top-level structures, their children, and so on, each in
    document order; the candidates of one depth are exactly that tier's items with one
    of the names, in the same order, so `_name_hits` picks the same ones.
    """
    if markdown:  # headings also match by prefix and case: no word to search for
        return None
    found = outline.named(p, set(level.names))
    if found is None:
        return None
    tiers: dict[int, list[Item]] = {}
    for item in found:
        tiers.setdefault(_depth(item), []).append(item)
    return _tier_hits(p, level, (tiers[d] for d in sorted(tiers)), markdown, last)


def resolve_path(
    p: Parsed, levels: list[str], all_matches: bool = False
) -> tuple[list[Item], list[str]]:
    """Walk the levels from the top of the file. Returns the final matches and the chain
    of level texts that matched. Raises TARGET_NOT_FOUND / TARGET_AMBIGUOUS."""
    markdown = p.grammar.spec.name == "markdown"
    scope: list[Item] | None = None
    matched: list[str] = []
    queue = list(levels)
    while queue:
        raw = queue.pop(0)
        level = _parse_level(raw, markdown)
        last = not queue
        if scope is None:
            seed: list[Item] | None = None  # the top-level structures, listed if needed
            found = _top_hits(p, level, markdown, last)
            hits = (
                found
                if found is not None
                else _tier_hits(p, level, _by_depth(p, outline.top(p)), markdown, last)
            )
        else:
            direct = [c for s in scope for c in _children(p, s)]
            direct_ids = {id(c) for c in direct}
            owned = [i for s in scope for i in _owned(p, s.name) if id(i) not in direct_ids]
            seed = direct + owned
            hits = _tier_hits(p, level, _by_depth(p, seed), markdown, last)
        if not hits:
            blocks = _block_matches(level, p, scope)
            if blocks:
                direct_blocks = [b for b in blocks if _direct_block(b, scope, p.grammar)]
                chosen = direct_blocks or blocks
                parent = scope[0] if scope and len(scope) == 1 else None
                hits = [_block_item(b, p, parent) for b in chosen]
        if not hits and level.qualified:
            parts = [x for x in re.split(r"\.|::", level.names[-1]) if x]
            if len(parts) > 1:
                queue[:0] = parts
                continue
        if not hits:
            tiers = list(_by_depth(p, seed if seed is not None else outline.top(p)))
            raise _not_found(p, levels, matched, scope, level, tiers)
        if len(hits) > 1 and not all_matches:
            same_type = len({h.name for h in hits}) == 1 and (
                sum(1 for h in hits if h.kind not in L.IMPLS) <= 1
            )
            if last or not same_type:
                raise _ambiguous(p, levels, raw, hits)
        scope = hits
        matched.append(raw)
    return scope or [], matched


def _owned(p: Parsed, name: str) -> list[Item]:
    """Structures defined outside their owner `name` (Go methods, `Point::dist`)."""
    found = outline.named(p, {name}, owner=True)
    return found if found is not None else outline.owned(p).get(name, [])


def _lines_of(p: Parsed, node: Node) -> list[int]:
    start, end = spans.node_rows(p, node)
    return [start + 1, end + 1]


def describe(item: Item) -> str:
    """What a match is called in reports: its kind, or "block" for a statement block."""
    return "block" if item.block else item.kind


def _not_found(
    p: Parsed,
    levels: list[str],
    matched: list[str],
    scope: list[Item] | None,
    level: _Level,
    tiers: list[list[Item]],
) -> PlacementError:
    pool_names: list[str] = []
    for tier in tiers:
        for item in tier:
            if item.name not in pool_names:
                pool_names.append(item.name)
    wanted = level.names[1] if len(level.names) > 1 else level.norm
    suggestions = difflib.get_close_matches(wanted, pool_names, n=5, cutoff=0.5)
    if not suggestions:
        lowered = {n.lower(): n for n in pool_names}
        suggestions = [
            lowered[n]
            for n in difflib.get_close_matches(wanted.lower(), list(lowered), n=5, cutoff=0.5)
        ]
    details: dict[str, Any] = {
        "target": levels,
        "searched": " > ".join(levels),
        "language": p.grammar.name,
        "failed_level": level.raw,
        "suggestions": suggestions,
        "available": pool_names[:20],
    }
    where = "the file"
    if scope:
        first = scope[0]
        details["parent_found"] = {
            "levels": matched,
            "kind": describe(first),
            "name": first.name,
            "lines": _lines_of(p, first.node),
        }
        lines = details["parent_found"]["lines"]
        where = f"{describe(first)} {first.name} (lines {lines[0]}-{lines[1]})"
    else:
        details["parent_found"] = None
    errors = syntax.error_nodes(p)
    if errors:
        details["syntax_errors"] = [_lines_of(p, e) for e in errors[:10]]
        bare = level.names[1] if len(level.names) > 1 else level.norm
        needle = syntax.encode(bare)
        for err in errors:
            if needle and needle in p.src[err.start_byte : err.end_byte]:
                lines = _lines_of(p, err)
                return refused(
                    ErrorCode.PARSER_FAILED,
                    f"`{level.raw}` is inside a syntax error (lines {lines[0]}-{lines[1]}); "
                    "the parser cannot delimit it. Fix the syntax first or use a "
                    "SEARCH/REPLACE block.",
                    **details,
                    error_lines=lines,
                )
    hint = f"; closest: {', '.join(suggestions)}" if suggestions else ""
    if not suggestions and pool_names:
        hint = f"; available: {', '.join(pool_names[:8])}"
    return refused(
        ErrorCode.TARGET_NOT_FOUND,
        f"no structure matching `{level.raw}` in {where}{hint}",
        **details,
    )


def _ambiguous(p: Parsed, levels: list[str], raw: str, hits: list[Item]) -> PlacementError:
    matches = [
        {
            "kind": describe(h),
            "name": h.name,
            "path": h.path
            if not h.block
            else (f"{h.parent.path} > {h.name}" if h.parent else h.name),
            "lines": _lines_of(p, h.node),
        }
        for h in hits
    ]
    where = ", ".join(f"{m['path']} (lines {m['lines'][0]}-{m['lines'][1]})" for m in matches[:8])
    return refused(
        ErrorCode.TARGET_AMBIGUOUS,
        f"`{raw}` matches {len(hits)} structures: {where}. Add the enclosing structure as a "
        "level, or the signature, to pick one.",
        target=levels,
        searched=" > ".join(levels),
        language=p.grammar.name,
        matches=matches,
    )


def _check_clean(p: Parsed, node: Node, levels: list[str]) -> None:
    """PARSER_FAILED when the node is, or lies inside, a region the parser could not read."""
    bad = node.has_error or node.is_error or node.is_missing
    cur = node.parent
    while not bad and cur is not None:
        bad = cur.is_error
        cur = cur.parent
    if bad:
        errors = [_lines_of(p, e) for e in syntax.error_nodes(p)[:10]]
        lines = _lines_of(p, node)
        raise refused(
            ErrorCode.PARSER_FAILED,
            f"the target `{' > '.join(levels)}` (lines {lines[0]}-{lines[1]}) contains or lies "
            "inside a syntax error, so its boundaries cannot be trusted; fix the syntax "
            "first or use a SEARCH/REPLACE block",
            target=levels,
            lines=lines,
            syntax_errors=errors,
        )


def resolve_one(p: Parsed, levels: list[str]) -> Item:
    """The one structure `levels` name, outside any syntax error. Raises TARGET_NOT_FOUND,
    TARGET_AMBIGUOUS or PARSER_FAILED (see the module docstring)."""
    if not levels:
        raise refused(
            ErrorCode.TARGET_NOT_FOUND,
            "the structural target names no node (TARGET_NODE is empty)",
            target=[],
            searched="",
            parent_found=None,
            suggestions=[i.name for i in outline.index(p) if i.parent is None][:10],
        )
    found, _ = resolve_path(p, levels)
    item = found[0]
    _check_clean(p, item.node, levels)
    return item
