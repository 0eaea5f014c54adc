"""The outline of a parsed file: its named structures, what they are and how they nest.

A structure is a node the language table lists (a class, a function, a heading, a data
key...) that has a usable name; locals inside a function are not structures. Each becomes
an `Item`: its node, kind, name, owner (`Point` for Go's `func (p *Point) Dist`) and
aliases (`Point.Dist`), linked to its enclosing item.

Two ways in, which agree item for item (a property test checks it): `index` walks every
structure of the file once (outlines, suggestions, Markdown); `item_at` decides one node
from its ancestors, which is all a lookup by name needs, and `named` finds every structure
carrying a name from the name's occurrences in the text. Both fill the parse's `memo`, so a
node has one `Item` whichever way it was reached.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from lsp_server.model import PlacementError
from lsp_server.resolve import languages as L
from lsp_server.resolve import syntax
from lsp_server.resolve.syntax import Grammar, Parsed

if TYPE_CHECKING:
    from tree_sitter import Node


@dataclass(slots=True, eq=False)  # items are told apart by identity, as they are used
class Item:
    """One named structure in a file: the syntax node, what it is and what it is called."""

    node: Node
    kind: str
    name: str
    owner: str | None
    aliases: tuple[str, ...]
    weak: bool
    parent: Item | None = None
    children: list[Item] = field(default_factory=list)
    block: bool = False

    def __repr__(self) -> str:
        return f"Item({self.kind} {self.path!r} at byte {self.node.start_byte})"

    @property
    def path(self) -> str:
        parts: list[str] = []
        item: Item | None = self
        while item is not None:
            parts.append(item.name)
            item = item.parent
        return " > ".join(reversed(parts))


# --------------------------------------------------------------------------- names

_IDENT_TYPES = frozenset(
    {
        "identifier",
        "type_identifier",
        "simple_identifier",
        "constant",
        "name",
        "word",
        "property_identifier",
        "private_property_identifier",  # a JavaScript / TypeScript `#private` member
        "field_identifier",
        "namespace_identifier",
        "package_identifier",
        "tag_name",
    }
)
# Patterns used off the common path stay text; `re` compiles and caches them on first use.
_QUALIFIED_SPLIT = r"::|\.|:|->|\\"
_NAME_OK = r"^[\w$@~!?'\-.:\\<>#]+$"
_GENERICS = re.compile(r"<[^<>]*>|\[[^\[\]]*\]")


def strip_generics(s: str) -> str:
    for _ in range(4):
        t = _GENERICS.sub("", s)
        if t == s:
            break
        s = t
    return s


def _follow(node: Node, path: str) -> Node | None:
    cur: Node | None = node
    for step in path.split("/"):
        if cur is None:
            return None
        if step.startswith("#"):
            wanted = set(step[1:].split("|"))
            cur = next((c for c in cur.named_children if c.type in wanted), None)
        elif step.endswith("*"):
            fname = step[:-1]
            nxt = cur.child_by_field_name(fname)
            if nxt is None:
                return None
            while nxt is not None:
                cur = nxt
                nxt = cur.child_by_field_name(fname)
        else:
            cur = cur.child_by_field_name(step)
    return cur


def _split_qualified(text: str) -> tuple[str, str | None, tuple[str, ...]]:
    parts = [p for p in re.split(_QUALIFIED_SPLIT, text) if p]
    if len(parts) < 2:
        return text, None, ()
    aliases = tuple(".".join(parts[i:]) for i in range(len(parts) - 1))
    return parts[-1], parts[-2], aliases + (text,)


def _default_name(node: Node) -> Node | None:
    name_node = node.child_by_field_name("name")
    if name_node is not None:
        return name_node
    declarator = node.child_by_field_name("declarator")
    if declarator is not None:
        return _follow(node, "declarator*")
    return _first_identifier(node, 3)


def _first_identifier(node: Node, depth: int) -> Node | None:
    """The first identifier in a node's head (not its body), looking a few levels down."""
    for child in node.named_children:
        t = child.type
        if t in _IDENT_TYPES or t.endswith(("_name", "_identifier")):
            return child
        if depth > 1 and not any(w in t for w in ("body", "block", "parameter", "argument")):
            found = _first_identifier(child, depth - 1)
            if found is not None:
                return found
            return None
        if "comment" not in t and "attribute" not in t and "modifier" not in t:
            return None
    return None


def _md_text(p: Parsed, node: Node) -> str:
    return p.first_line(node).strip()


_MD_MARKER = r"^\s*(?:#{1,6}\s+|[-*+]\s+(?:\[[ xX]\]\s+)?|\d+[.)]\s+|>\s?|`{3,}|~{3,})"


def strip_markdown(s: str) -> str:
    prev = None
    while prev != s:
        prev = s
        s = re.sub(_MD_MARKER, "", s, count=1)
    return re.sub(r"\s+", " ", s.rstrip("#").strip())


def _custom_name(rule: str, node: Node, p: Parsed) -> tuple[str, tuple[str, ...]] | None:
    """Names for node types that have no identifier: headings, selectors, data keys."""
    if rule == "md_section":
        heading = next((c for c in node.named_children if c.type.endswith("_heading")), None)
        if heading is None:
            return None
        content = heading.child_by_field_name("heading_content")
        text = p.bytes_of(content) if content is not None else p.bytes_of(heading)
        return strip_markdown(text.split("\n")[0]), ()
    if rule in ("md_item", "md_quote"):
        text = strip_markdown(_md_text(p, node))
        return text[:50], ()
    if rule == "md_code":
        info = next((c for c in node.named_children if c.type == "info_string"), None)
        body = next((c for c in node.named_children if c.type == "code_fence_content"), None)
        first = p.first_line(body).strip() if body is not None else ""
        if info is not None:
            return p.bytes_of(info).strip(), (first,) if first else ()
        return (first, ()) if first else None
    if rule == "html_element":
        tag = next((c for c in node.named_children if c.type.endswith("tag")), None)
        name_node = (
            next((c for c in tag.named_children if c.type == "tag_name"), None) if tag else None
        )
        if name_node is None:
            return None
        name = p.bytes_of(name_node)
        aliases: list[str] = []
        for attr in tag.named_children if tag is not None else ():
            if attr.type != "attribute":
                continue
            key = next((c for c in attr.named_children if c.type == "attribute_name"), None)
            val = next((c for c in attr.named_children if "value" in c.type), None)
            if key is None or val is None:
                continue
            k, v = p.bytes_of(key), p.bytes_of(val).strip("\"'")
            if k == "id":
                aliases += [f"#{v}", f"{name}#{v}"]
            elif k == "class":
                for cls in v.split():
                    aliases += [f".{cls}", f"{name}.{cls}"]
        return name, tuple(aliases)
    if rule == "css_rule":
        sel = next((c for c in node.named_children if c.type == "selectors"), None)
        if sel is None:
            return None
        text = re.sub(r"\s+", " ", p.bytes_of(sel)).strip()
        return text, tuple(s.strip() for s in text.split(",") if s.strip() != text)
    if rule == "css_at":
        head = re.sub(r"\s+", " ", p.first_line(node)).strip().rstrip("{").strip()
        rest = head.split(" ", 1)[1] if " " in head else head
        return head, (rest,)
    if rule == "data_key":
        key = node.child_by_field_name("key")
        if key is None:
            key = next((c for c in node.named_children if "key" in c.type), None)
        if key is None:
            return None
        text = p.bytes_of(key).strip()
        if len(text) >= 2 and text[0] == text[-1] and text[0] in "\"'":
            text = text[1:-1]
        return text, ()
    if rule == "go_method":
        name_node = node.child_by_field_name("name")
        if name_node is None:
            return None
        name = p.bytes_of(name_node)
        recv = node.child_by_field_name("receiver")
        owner = _go_receiver(p.bytes_of(recv)) if recv is not None else None
        return name, ((f"{owner}.{name}", f"({owner}).{name}") if owner else ())
    if rule == "rust_impl":
        typ = node.child_by_field_name("type")
        if typ is None:
            return None
        tname = strip_generics(p.bytes_of(typ)).strip()
        aliases = [f"impl {tname}"]
        trait = node.child_by_field_name("trait")
        if trait is not None:
            tr = strip_generics(p.bytes_of(trait)).strip()
            aliases += [f"impl {tr} for {tname}", f"impl {tr.split('::')[-1]} for {tname}"]
            aliases += [f"{tr} for {tname}", f"{tr.split('::')[-1]} for {tname}"]
        return tname, tuple(aliases)
    if rule in ("constructor", "init", "deinit", "extension"):
        if rule == "extension":
            head = re.sub(r"\s+", " ", p.first_line(node)).strip().rstrip("{:").strip()
            return head, ()
        return rule, ()
    return None


def _go_receiver(text: str) -> str | None:
    inner = text.strip().strip("()").strip()
    if not inner:
        return None
    typ = inner.split()[-1].lstrip("*")
    return strip_generics(typ) or None


def _dynamic_kind(rule: str, node: Node, default: str, p: Parsed) -> str:
    if rule == "value":
        value = node.child_by_field_name("value")
        if value is not None:
            if value.type in (
                "arrow_function",
                "function_expression",
                "function",
                "generator_function",
            ):
                return "function"
            if value.type == "class":
                return "class"
        parent = node.parent
        if parent is not None and p.src[parent.start_byte : parent.start_byte + 5] == b"const":
            return "const"
        return default
    if rule == "keyword":
        words = {c.type for c in node.children if not c.is_named}
        for word, kind in (
            ("enum", "enum"),
            ("interface", "interface"),
            ("protocol", "interface"),
            ("struct", "struct"),
            ("extension", "extension"),
            ("actor", "class"),
            ("object", "object"),
            ("class", "class"),
        ):
            if word in words:
                return kind
        return default
    if rule == "go_type":
        typ = node.child_by_field_name("type")
        if typ is not None and typ.type == "struct_type":
            return "struct"
        if typ is not None and typ.type == "interface_type":
            return "interface"
        return default
    if rule == "c_decl":
        cur: Node | None = node.child_by_field_name("declarator")
        while cur is not None:
            if cur.type == "function_declarator":
                return "function"
            cur = cur.child_by_field_name("declarator")
        return default
    if rule == "lua_assign":
        values = next((c for c in node.named_children if c.type == "expression_list"), None)
        if values is not None and any(
            c.type == "function_definition" for c in values.named_children
        ):
            return "function"
        return default
    return default


def _make_item(node: Node, g: Grammar, p: Parsed) -> Item | None:
    """An index entry for a structure node, or None when it has no usable name."""
    ntype = node.type
    kind = g.structures[ntype]
    if ntype.endswith("_specifier") and node.child_by_field_name("body") is None:
        return None  # `struct Point p;` mentions a type, it does not define one
    rule = g.spec.names.get(ntype)
    if g.spec.name in ("c", "cpp") and ntype in ("declaration", "field_declaration"):
        kind = _dynamic_kind("c_decl", node, kind, p)
    elif ntype in g.spec.kind_rules:
        kind = _dynamic_kind(g.spec.kind_rules[ntype], node, kind, p)
    owner: str | None = None
    aliases: tuple[str, ...] = ()
    if rule is not None and rule.startswith("="):
        got = _custom_name(rule[1:], node, p)
        if got is None:
            return None
        name, aliases = got
        if rule == "=go_method" and aliases:
            owner = aliases[0].split(".")[0]
    else:
        name_node = _follow(node, rule) if rule else _default_name(node)
        if name_node is None:
            return None
        text = p.bytes_of(name_node).strip()
        if text.isidentifier():  # the common case: no qualifier, no generics
            name = text
        elif not text or "\n" in text or not re.match(_NAME_OK, text):
            return None
        else:
            name, owner, aliases = _split_qualified(strip_generics(text) or text)
            if name_node.type in ("pattern", "user_type") and owner:
                name, owner, aliases = text, None, ()
    if not name:
        return None
    if kind == "function" and ntype == "function_declaration" and g.name == "kotlin":
        recv = node.child_by_field_name("receiver")
        if recv is not None:
            owner = strip_generics(p.bytes_of(recv)).strip()
            aliases = (f"{owner}.{name}",)
    return Item(node, kind, name, owner, aliases, ntype in g.spec.weak)


# Kinds whose functions are methods.
_OWNERS = L.TYPES | L.IMPLS


def _callable_or_block_between(node: Node, stop: Node | None, g: Grammar) -> bool:
    cur = node.parent
    while cur is not None and (stop is None or cur.id != stop.id):
        kind = g.structures.get(cur.type)
        if cur.type in g.blocks or (kind is not None and kind in L.CALLABLE):
            return True
        cur = cur.parent
    return False


def _decide(p: Parsed, node: Node, parent: Item | None) -> Item | None:
    """The index entry for structure node `node` whose nearest indexed ancestor is
    `parent`, or None when the node is not indexed (no name, or a local variable)."""
    g = p.grammar
    if parent is not None and parent.kind in L.CALLABLE and node.type in g.local_types:
        return None  # a local variable is not a structure (cheap check first)
    item = _make_item(node, g, p)
    if item is None:
        return None
    if item.kind in L.VARIABLES and (
        (parent is not None and parent.kind in L.CALLABLE)
        or _callable_or_block_between(node, parent.node if parent else None, g)
    ):
        return None
    if item.kind == "function" and parent is not None and parent.kind in _OWNERS:
        item.kind = "method"
    item.parent = parent
    return item


def _key(node: Node) -> tuple[int, int]:
    # a node's id is its subtree's address; the start byte keeps two identical inline
    # leaves apart (structure nodes have children, so this is only belt and braces)
    return node.id, node.start_byte


def index(p: Parsed) -> list[Item]:
    """All named structures, in document order, each linked to its enclosing structure."""
    if p.items is not None:
        return p.items
    g = p.grammar
    items: list[Item] = []
    memo = p.memo
    if g.struct_query is not None:
        nodes = syntax.captures(g.struct_query, p.tree.root_node, "s")
        spans = [(n.start_byte, -n.end_byte) for n in nodes]
        if any(spans[i] > spans[i + 1] for i in range(len(spans) - 1)):
            order = sorted(range(len(nodes)), key=spans.__getitem__)
            nodes = [nodes[i] for i in order]
            spans = [spans[i] for i in order]
        stack: list[tuple[Item, int, int]] = []  # item, its end and start bytes
        for node, (start, neg_end) in zip(nodes, spans, strict=True):
            end = -neg_end
            while stack and (end > stack[-1][1] or start >= stack[-1][1] > stack[-1][2]):
                stack.pop()
            parent = stack[-1][0] if stack else None
            key = _key(node)
            if key in memo:  # decided already by a lookup (`item_at`): the same object
                item = memo[key]
                if item is not None:
                    item.children = []
            else:
                item = memo[key] = _decide(p, node, parent)
            if item is None:
                continue
            if parent is not None:
                parent.children.append(item)
            items.append(item)
            stack.append((item, end, start))
    p.items = items
    p.kids.clear()
    return items


def item_at(p: Parsed, node: Node) -> Item | None:
    """The index entry for `node` (None if it is not an indexed structure), decided from
    its ancestors alone: the same answer `index` gives, without indexing the file."""
    ids = p.grammar.structure_ids
    if node.kind_id not in ids:
        return None
    memo = p.memo
    key = _key(node)
    if key in memo:
        return memo[key]
    undecided = [node]  # structure nodes between `node` and its nearest known ancestor
    parent: Item | None = None
    cur = node.parent
    while cur is not None:
        if cur.kind_id in ids:
            k = _key(cur)
            if k not in memo:
                undecided.append(cur)
            elif memo[k] is not None:
                parent = memo[k]
                break
        cur = cur.parent
    for n in reversed(undecided):  # outermost first: each one's parent is then known
        item = memo[_key(n)] = _decide(p, n, parent)
        if item is not None:
            parent = item
    return memo[key]


def items_within(p: Parsed, lo: int, hi: int) -> list[Item]:
    """The indexed structures whose node lies within bytes [lo, hi], in document order."""
    if p.items is not None:
        return [i for i in p.items if lo <= i.node.start_byte and i.node.end_byte <= hi]
    g = p.grammar
    if g.struct_query is None:
        return []
    nodes = [
        n
        for n in syntax.captures(g.struct_query, p.tree.root_node, "s", (lo, hi))
        if lo <= n.start_byte and n.end_byte <= hi
    ]
    nodes.sort(key=lambda n: (n.start_byte, -n.end_byte))
    found = []
    for n in nodes:
        item = item_at(p, n)
        if item is not None:
            found.append(item)
    return found


def starting_in(p: Parsed, lo: int, hi: int) -> list[Item]:
    """The indexed structures whose node starts in bytes [lo, hi), in document order."""
    if p.items is not None:
        return [i for i in p.items if lo <= i.node.start_byte < hi]
    g = p.grammar
    if g.struct_query is None:
        return []
    within = (lo, max(lo, min(hi, len(p.src))))
    found = syntax.captures(g.struct_query, p.tree.root_node, "s", within)
    nodes = [n for n in found if lo <= n.start_byte < hi]
    nodes.sort(key=lambda n: (n.start_byte, -n.end_byte))
    return [item for n in nodes if (item := item_at(p, n)) is not None]


def kids(p: Parsed, item: Item) -> list[Item]:
    """`item.children`, without indexing the whole file when it has not been."""
    if p.items is not None:
        return item.children
    got = p.kids.get(id(item))
    if got is None:
        inner = items_within(p, item.node.start_byte, item.node.end_byte)
        got = p.kids[id(item)] = [i for i in inner if i.parent is item]
    return got


def top(p: Parsed) -> list[Item]:
    """The structures no other structure encloses (needs the whole index)."""
    return [i for i in index(p) if i.parent is None]


_WORD = re.compile(r"\w+")
_SCAN_LIMIT = 400  # occurrences of a name worth visiting one by one; past that, index all


def named(p: Parsed, names: set[str], owner: bool = False) -> list[Item] | None:
    """Every indexed structure called one of `names` (by name or alias; by owner when
    `owner`), in document order, found without indexing the whole file; None when that
    cannot be done cheaply (then the caller uses the whole index).

    Why it finds them all: an item's name, aliases and owner are read from text inside
    its node (an identifier, a receiver, a qualified name with `.` / `::` joints and
    generics removed, a selector or key with whitespace or quotes normalised). So every
    word (\\w+ run) of a name is somewhere in the node's bytes, and climbing from each
    occurrence of that word through its enclosing structures passes every node that
    could carry the name. Markdown headings are normalised further and never come here.
    """
    if p.items is not None:
        if owner:
            return [i for n in names for i in owned(p).get(n, ())]
        return [i for i in p.items if i.name in names or any(a in names for a in i.aliases)]
    needles: set[bytes] = set()
    for name in names:
        words = _WORD.findall(name)
        if not words:
            return None
        needles.add(syntax.encode(max(words, key=len)))
    root = p.tree.root_node
    ids = p.grammar.structure_ids
    seen: set[tuple[int, int]] = set()
    found: dict[int, Item] = {}
    budget = _SCAN_LIMIT
    for needle in needles:
        at = p.src.find(needle)
        while at >= 0:
            budget -= 1
            if budget < 0:
                return None
            node = root.descendant_for_byte_range(at, at + len(needle))
            while node is not None:
                if node.kind_id in ids:
                    k = _key(node)
                    if k in seen:
                        break  # this node and everything above it were visited already
                    seen.add(k)
                    item = item_at(p, node)
                    if item is not None and (
                        (item.owner in names)
                        if owner
                        else (item.name in names or any(a in names for a in item.aliases))
                    ):
                        found[id(item)] = item
                node = node.parent
            at = p.src.find(needle, at + 1)
    return sorted(found.values(), key=lambda i: (i.node.start_byte, -i.node.end_byte))


def owned(p: Parsed) -> dict[str, list[Item]]:
    """Structures defined outside their owner (Go methods, `Point::dist`), by owner."""
    if p.by_owner is None:
        p.by_owner = {}
        for item in index(p):
            if item.owner:
                p.by_owner.setdefault(item.owner, []).append(item)
    return p.by_owner


_WS = re.compile(r"\s+")
_TRAILER = re.compile(r"\s*(?:\{|:|;|=>|\bdo|\bthen|\bbegin|\bwhere)\s*$")


def normalize_head(line: str) -> str:
    """A structure's first line as targets are compared with it: whitespace runs made one
    space, a trailing `{`, `:`, `;`, `=>`, `do`, `then`, `begin` or `where` dropped."""
    s = _WS.sub(" ", line).strip()
    whole = s
    for _ in range(3):
        t = _TRAILER.sub("", s)
        if t == s:
            break
        s = t
    return s or whole


@syntax.locked
def warm(text: str, path: str, language: str | None = None) -> None:
    """Parse and index an open document ahead of time, if it has a grammar.

    Later resolutions against the same or a slightly edited text then reuse the tree.
    Never raises: a file without a grammar, or whose grammar cannot load, is simply not
    warmed.
    """
    name = syntax.language_for(path, language)
    if name is None:
        return
    try:
        index(syntax.parse(text, syntax.grammar(name), path))
    except PlacementError:
        return
