"""Structural targets: find the syntax node a `TARGET_NODE` names and splice new code there.

Text anchors break on nested, repetitive code (closing braces, JSX, JSON). A structural
target names a node instead (`class UserAuth` / `validate` / `if user.is_active`), and this
module finds exactly that node in a tree-sitter tree and replaces exactly its bytes.

Rules that make this safe:

* exactly one node must match every level, or the block fails with `TARGET_NOT_FOUND`
  (how far the path got, the closest names) or `TARGET_AMBIGUOUS` (every match, with
  lines); there is never a silent fall back to text matching;
* a target inside a syntax error fails with `PARSER_FAILED`: error recovery can re-nest
  the tree, so its boundaries cannot be trusted;
* the node's boundaries include what belongs to it: decorators, annotations, attributes,
  `export` / `template` wrappers and the comments directly above; wrappers and decorators
  the new code does not repeat are kept, so `export function X` never becomes
  `export export function X` and a method keeps its `@property`;
* new code arrives at column 0 as often as not; it is re-indented to the node's
  indentation in the file's own style, keeping its relative indentation.

Grammars come from `tree_sitter_language_pack` 0.13 (bundled, works offline) and are
imported lazily, on the first structural edit, so the server starts fast. Parsed trees and
the index of structures are cached per file and reparsed incrementally when the text
changes, so a second resolution against an edited document costs milliseconds.
"""

from __future__ import annotations

import functools
import itertools
import re
import threading
import typing
from collections import Counter, OrderedDict
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from functools import cache, lru_cache
from typing import TYPE_CHECKING, Any, TypeVar

from lsp_server.model import (
    EditBlock,
    ErrorCode,
    Failure,
    MatchKind,
    Placement,
    PlacementError,
    PlanWarning,
    Target,
    WarningType,
)
from lsp_server.resolve import languages as L

if TYPE_CHECKING:
    from tree_sitter import Language, Node, Parser, Query, Tree

# Operations a Target may ask for (Target.operation).
OPERATIONS = (
    "replace_structure",
    "insert_before_structure",
    "insert_after_structure",
    "delete_structure",
    "read_structure",
    "replace_text_in_structure",
    "replace_all_text_in_structure",
    "move_structure_to_before",
    "move_structure_to_after",
    "move_structure_to_file_start",
    "move_structure_to_file_end",
)

_CACHE_SIZE = 16  # parsed files kept (open documents in an editor are few at a time)


# --------------------------------------------------------------------------- grammars


@lru_cache(maxsize=1)
def supported_languages() -> tuple[str, ...]:
    """Every grammar name the bundled language pack offers."""
    from tree_sitter_language_pack import SupportedLanguage

    return tuple(sorted(typing.get_args(SupportedLanguage)))


# Grammars the pack takes from separate packages instead of its `bindings` folder.
_SEPARATE_GRAMMARS = {
    "yaml": "tree_sitter_yaml",
    "csharp": "tree_sitter_c_sharp",
    "embeddedtemplate": "tree_sitter_embedded_template",
}


@lru_cache(maxsize=1)
def _bindings_dir() -> str | None:
    """The pack's folder of compiled grammars, found without importing the pack.

    Importing `tree_sitter_language_pack` loads three large grammars (C#, YAML, embedded
    templates) whatever the file's language, which costs about 20 ms of a cold structural
    edit; `find_spec` only locates the package.
    """
    import importlib.util
    import os

    try:
        spec = importlib.util.find_spec("tree_sitter_language_pack")
    except (ImportError, ValueError):
        return None
    locations = list(spec.submodule_search_locations or ()) if spec else []
    if not locations:
        return None
    folder = os.path.join(locations[0], "bindings")
    return folder if os.path.isdir(folder) else None


@cache
def _binding_file(name: str) -> str | None:
    """The compiled grammar for `name` in the pack's bindings folder, or None."""
    import importlib.machinery
    import os

    folder = _bindings_dir()
    if folder is None or not name.isidentifier():
        return None
    for suffix in importlib.machinery.EXTENSION_SUFFIXES:
        candidate = os.path.join(folder, name + suffix)
        if os.path.isfile(candidate):
            return candidate
    return None


def _has_grammar(name: str | None) -> bool:
    """`name in supported_languages()`, answered from the file system when it can be.

    A grammar with a compiled binding is in the pack's list (a test checks this for the
    installed pack); only names without one pay for importing the pack to be sure.
    """
    if not name:
        return False
    if name in _SEPARATE_GRAMMARS or _binding_file(name) is not None:
        return True
    return name in supported_languages()


def language_for(path: str | None, hint: str | None = None) -> str | None:
    """The pack's grammar name for a file (by path, refined by a fence tag), or None."""
    name = L.language_name_for(path, hint)
    if _has_grammar(name):
        return name
    if hint:  # the path named a language the pack lacks; the fence tag may still help
        alt = L.language_name_for(None, hint)
        if _has_grammar(alt):
            return alt
    return None


def _load_language(name: str) -> Language:
    """The tree-sitter Language for a pack grammar, loading only that grammar's binary.

    Equivalent to `tree_sitter_language_pack.get_language(name)`, which it falls back to
    whenever the binary cannot be loaded directly.
    """
    from tree_sitter import Language

    module_name = _SEPARATE_GRAMMARS.get(name)
    if module_name is not None:
        import importlib

        return Language(importlib.import_module(module_name).language())
    path = _binding_file(name)
    if path is not None:
        import importlib.util

        # the module keeps the pack's dotted name (its init function is PyInit_<name>) but
        # is not registered in sys.modules, so a later import of the pack is unaffected
        spec = importlib.util.spec_from_file_location(
            f"tree_sitter_language_pack.bindings.{name}", path
        )
        if spec is not None and spec.loader is not None:
            try:
                module = importlib.util.module_from_spec(spec)
                spec.loader.exec_module(module)
                return Language(module.language())
            except Exception:  # fall back to the pack's own loader, which may know better
                pass
    from tree_sitter_language_pack import get_language

    return get_language(name)  # type: ignore[arg-type]


class _Grammar:
    """A language spec bound to its loaded grammar: only node types the grammar knows.

    Queries are compiled on first use: a cold edit that finds its target by name never
    compiles the structure or block query, and a file without syntax errors never
    compiles the error query (each compilation costs milliseconds).
    """

    def __init__(
        self,
        name: str,
        spec: L.LanguageSpec,
        language: Language,
        parser: Parser,
        structures: dict[str, str],
        blocks: frozenset[str],
    ) -> None:
        self.name = name
        self.spec = spec
        self.language = language
        self.parser = parser
        self.structures = structures
        self.blocks = blocks
        # node types that are structures, by grammar symbol id: `node.kind_id in ...` is
        # cheaper than comparing type names, and excludes anonymous tokens of that name
        self.structure_ids = frozenset(
            i
            for i in range(language.node_kind_count)
            if language.node_kind_is_named(i) and language.node_kind_for_id(i) in structures
        )
        self.local_types = frozenset(
            t for t, k in structures.items() if k in L.VARIABLES and t not in spec.kind_rules
        )

    def _query(self, types: Any) -> Query | None:
        from tree_sitter import Query

        types = sorted(types)
        if not types:
            return None
        return Query(self.language, "[" + " ".join(f"({t})" for t in types) + "] @s")

    @functools.cached_property
    def struct_query(self) -> Query | None:
        return self._query(self.structures)

    @functools.cached_property
    def block_query(self) -> Query | None:
        return self._query(self.blocks)

    @functools.cached_property
    def error_query(self) -> Query:
        from tree_sitter import Query

        return Query(self.language, "(ERROR) @e (MISSING) @e")


def _fail(code: ErrorCode, message: str, **details: Any) -> PlacementError:
    details.setdefault("state", "FILE_UNCHANGED")
    return PlacementError(Failure(code, message, details))


@cache
def _grammar(name: str) -> _Grammar:
    try:
        from tree_sitter import Parser

        language = _load_language(name)
    except Exception as exc:  # a broken or missing binary: say so, never guess
        raise _fail(
            ErrorCode.PARSER_FAILED,
            f"the {name} grammar could not be loaded ({exc})",
            language=name,
        ) from exc

    def known(kind: str) -> bool:
        return language.id_for_node_kind(kind, True) is not None

    spec = L.SPECS.get(L.spec_name(name))
    if spec is None:
        kinds = [
            language.node_kind_for_id(i)
            for i in range(language.node_kind_count)
            if language.node_kind_is_named(i) and language.node_kind_is_visible(i)
        ]
        spec = L.generic_spec(name, [k for k in kinds if k])
    structures = {t: k for t, k in spec.structures.items() if known(t)}
    blocks = frozenset(t for t in spec.blocks if known(t) and t not in structures)
    return _Grammar(name, spec, language, Parser(language), structures, blocks)


def _grammar_for(path: str | None, hint: str | None) -> _Grammar:
    name = language_for(path, hint)
    if name is None:
        tabled = ", ".join(L.TABLED_LANGUAGES)
        raise _fail(
            ErrorCode.LANGUAGE_UNSUPPORTED,
            f"no tree-sitter grammar for {path or 'this block'}"
            + (f" (fence tag `{hint}`)" if hint else "")
            + f"; structural targets work for {tabled} and every other grammar in the "
            "language pack (by file extension). Use a SEARCH/REPLACE block instead.",
            path=path,
            hint=hint,
            supported=list(supported_languages()),
            tabled=list(L.TABLED_LANGUAGES),
        )
    return _grammar(name)


# --------------------------------------------------------------------------- parsing


# The small record types below are plain classes rather than dataclasses: creating a
# dataclass costs about a millisecond at import, and a cold structural edit imports this
# module; they compare by identity, which is how they are used.


class _Item:
    """One named structure in a file: the syntax node, what it is and what it is called."""

    __slots__ = (
        "node",
        "kind",
        "name",
        "owner",
        "aliases",
        "weak",
        "parent",
        "children",
        "block",
    )

    def __init__(
        self,
        node: Node,
        kind: str,
        name: str,
        owner: str | None,
        aliases: tuple[str, ...],
        weak: bool,
        parent: _Item | None = None,
        children: list[_Item] | None = None,
        block: bool = False,
    ) -> None:
        self.node = node
        self.kind = kind
        self.name = name
        self.owner = owner
        self.aliases = aliases
        self.weak = weak
        self.parent = parent
        self.children: list[_Item] = [] if children is None else children
        self.block = block

    def __repr__(self) -> str:
        return f"_Item({self.kind} {self.path!r} at byte {self.node.start_byte})"

    @property
    def path(self) -> str:
        parts: list[str] = []
        item: _Item | None = self
        while item is not None:
            parts.append(item.name)
            item = item.parent
        return " > ".join(reversed(parts))


class _Parsed:
    """A parsed file: its text and tree, plus the index of structures (built on demand).

    The tree is never edited in place (an incremental reparse edits a copy), so a
    `_Parsed` stays valid after its document moved on, and two cache entries may share a
    tree. Structures are indexed two ways that agree item for item (a property test
    checks it): `_index` walks every structure of the file once (outlines, suggestions,
    Markdown); `_item_at` decides one node from its ancestors, which is all a lookup by
    name needs. Both fill `memo`, so a node has one `_Item` whichever way it was reached.
    """

    def __init__(self, grammar: _Grammar, key: str, text: str, src: bytes, tree: Tree) -> None:
        self.grammar = grammar
        self.key = key
        self.text = text
        self.src = src
        self.tree = tree
        self.items: list[_Item] | None = None
        self.lines: list[str] | None = None
        self.starts: list[int] | None = None
        self.by_owner: dict[str, list[_Item]] | None = None
        # (node id, start byte) -> its item, or None when that structure node is not indexed
        self.memo: dict[tuple[int, int], _Item | None] = {}
        # id(item) -> its children, for items met before the whole index was built
        self.kids: dict[int, list[_Item]] = {}

    def owned(self) -> dict[str, list[_Item]]:
        """Structures defined outside their owner (Go methods, `Point::dist`), by owner."""
        if self.by_owner is None:
            self.by_owner = {}
            for item in _index(self):
                if item.owner:
                    self.by_owner.setdefault(item.owner, []).append(item)
        return self.by_owner

    def line_starts(self) -> list[int]:
        """Byte offset where each line starts."""
        if self.starts is None:
            # running sums of (line length + 1), kept in C: a Python loop costs ms per 10k lines
            lengths = map(len, self.src.split(b"\n")[:-1])
            self.starts = list(itertools.accumulate(map((1).__add__, lengths), initial=0))
        return self.starts

    def line_list(self) -> list[str]:
        if self.lines is None:
            self.lines = self.text.split("\n")
        return self.lines

    def bytes_of(self, node: Node) -> str:
        return self.src[node.start_byte : node.end_byte].decode("utf-8", "replace")

    def first_line(self, node: Node) -> str:
        end = self.src.find(b"\n", node.start_byte)
        end = node.end_byte if end < 0 or end > node.end_byte else end
        return self.src[node.start_byte : end].decode("utf-8", "replace")


_CACHE: OrderedDict[tuple[str, str], _Parsed] = OrderedDict()
# Parsers and cached trees are shared and not thread-safe; the server may call from a pool.
_LOCK = threading.RLock()
_F = TypeVar("_F", bound=Callable[..., Any])


def _locked(fn: _F) -> _F:
    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        with _LOCK:
            return fn(*args, **kwargs)

    return typing.cast(_F, wrapper)


def _encode(text: str) -> bytes:
    return text.encode("utf-8", "surrogatepass")


def _common_prefix(a: bytes, b: bytes) -> int:
    lo, hi = 0, min(len(a), len(b))
    if a[:hi] == b[:hi]:
        return hi
    while hi - lo > 1:  # a[:lo] == b[:lo] and a[:hi] != b[:hi]
        mid = (lo + hi) // 2
        if a[lo:mid] == b[lo:mid]:
            lo = mid
        else:
            hi = mid
    return lo


# A changed span longer than this is split into the lines that really differ: a reply's
# edits are spread over a file, and one span from the first to the last would make
# tree-sitter re-parse nearly everything in between.
_SPLIT_BYTES = 2048


def _changed_ranges(a: bytes, b: bytes) -> list[tuple[int, int, int, int]]:
    """Where `b` differs from `a`, in order: (a_start, a_end, b_start, b_end) byte spans."""
    start = _common_prefix(a, b)
    limit = min(len(a), len(b)) - start
    suffix = _common_prefix(a[::-1][:limit], b[::-1][:limit]) if limit > 0 else 0
    a_end, b_end = len(a) - suffix, len(b) - suffix
    whole = [(start, a_end, start, b_end)]
    if min(a_end, b_end) - start <= _SPLIT_BYTES:
        return whole
    from lsp_server.linediff import local_opcodes

    a_lines, b_lines = a.splitlines(keepends=True), b.splitlines(keepends=True)
    # bytes lines diff alike; past `_MAX_REGIONS` splices (or for a rewrite) tree-sitter
    # gains little from a finer split
    ops = local_opcodes(a_lines, b_lines, _MAX_REGIONS)  # type: ignore[arg-type]
    if ops is None:
        return whole
    a_at = list(itertools.accumulate(map(len, a_lines), initial=0))
    b_at = list(itertools.accumulate(map(len, b_lines), initial=0))
    return [(a_at[i1], a_at[i2], b_at[j1], b_at[j2]) for _tag, i1, i2, j1, j2 in ops]


# More changed regions than this and they are edited into the tree as one: each
# `tree.edit` walks the tree, and a text changed in thousands of places keeps little of it.
_MAX_REGIONS = 256


def _points(
    src: bytes, regions: list[tuple[int, int, int, int]]
) -> list[tuple[tuple[int, int], tuple[int, int]]]:
    """(row, column) of each region's start and end in `src`, counting rows in one pass."""
    out = []
    row, at = 0, 0
    for start, end, _, _ in regions:
        ends = []
        for offset in (start, end):
            row += src.count(b"\n", at, offset)
            at = offset
            ends.append((row, offset - (src.rfind(b"\n", 0, offset) + 1)))
        out.append((ends[0], ends[1]))
    return out


def _parse(text: str, grammar: _Grammar, key: str | None, base: str | None = None) -> _Parsed:
    """Parse `text`, reusing (and incrementally updating) the cached tree for `key`.

    A text another key already holds (the pre-edit text `structural_warnings` checks
    under `path + "\\x00old"` was just resolved under `path`) shares that tree instead of
    being parsed again: trees are immutable here, so sharing is safe. When `key` has no
    tree yet, the one cached under `base` (a close relative of `text`: the same file before
    or after the edit) is the starting point instead of a full parse.
    """
    cache_key = (grammar.name, key or "")
    old = _CACHE.get(cache_key)
    if old is not None and old.text == text:
        _CACHE.move_to_end(cache_key)
        return old
    twin = next(
        (
            q
            for k, q in _CACHE.items()
            if k[0] == grammar.name
            and k != cache_key
            and len(q.text) == len(text)
            and q.text == text
        ),
        None,
    )
    if twin is not None:
        return _remember(cache_key, _Parsed(grammar, key or "", text, twin.src, twin.tree))
    if old is None and base is not None:
        old = _CACHE.get((grammar.name, base))
    src = _encode(text)
    if old is not None:
        a = old.src
        regions = _changed_ranges(a, src)
        tree = old.tree.copy()  # the old _Parsed keeps its tree intact
        points = _points(a, regions)
        # last region first: the earlier regions' positions are still those of `a`
        for (a_start, a_end, b_start, b_end), (start, old_end) in zip(
            reversed(regions), reversed(points), strict=True
        ):
            inserted = src[b_start:b_end]
            lines = inserted.count(b"\n")
            if lines:
                end = (start[0] + lines, b_end - (src.rfind(b"\n", b_start, b_end) + 1))
            else:
                end = (start[0], start[1] + len(inserted))
            tree.edit(
                start_byte=a_start,
                old_end_byte=a_end,
                new_end_byte=a_start + len(inserted),
                start_point=start,
                old_end_point=old_end,
                new_end_point=end,
            )
        tree = grammar.parser.parse(src, tree)
    else:
        tree = grammar.parser.parse(src)
    return _remember(cache_key, _Parsed(grammar, key or "", text, src, tree))


def _remember(cache_key: tuple[str, str], parsed: _Parsed) -> _Parsed:
    _CACHE[cache_key] = parsed
    _CACHE.move_to_end(cache_key)
    while len(_CACHE) > _CACHE_SIZE:
        _CACHE.popitem(last=False)
    return parsed


@_locked
def warm(text: str, path: str, language: str | None = None) -> None:
    """Parse and index an open document ahead of time (didOpen / didChange), if possible.

    Later resolutions against the same or a slightly edited text then reuse the tree.
    Never raises: a file without a grammar is simply not warmed.
    """
    name = language_for(path, language)
    if name is None:
        return
    try:
        _index(_parse(text, _grammar(name), path))
    except PlacementError:
        return


@_locked
def forget_all() -> None:
    """Drop every cached tree (`resolve.cache.clear_all`)."""
    _CACHE.clear()


@_locked
def forget(path: str) -> None:
    """Drop cached trees for a closed document."""
    for key in [k for k in _CACHE if k[1] == path]:
        del _CACHE[key]


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
        "field_identifier",
        "namespace_identifier",
        "package_identifier",
        "tag_name",
    }
)
# Patterns used off the common path stay text; `re` compiles and caches them on first use.
_QUALIFIED_SPLIT = r"::|\.|:|->|\\"
_NAME_OK = r"^[\w$@~!?'\-.:\\<>]+$"
_GENERICS = re.compile(r"<[^<>]*>|\[[^\[\]]*\]")


def _strip_generics(s: str) -> str:
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
    named = node.child_by_field_name("name")
    if named is not None:
        return named
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


def _md_text(p: _Parsed, node: Node) -> str:
    return p.first_line(node).strip()


_MD_MARKER = r"^\s*(?:#{1,6}\s+|[-*+]\s+(?:\[[ xX]\]\s+)?|\d+[.)]\s+|>\s?|`{3,}|~{3,})"


def _md_strip(s: str) -> str:
    prev = None
    while prev != s:
        prev = s
        s = re.sub(_MD_MARKER, "", s, count=1)
    return re.sub(r"\s+", " ", s.rstrip("#").strip())


def _custom_name(rule: str, node: Node, p: _Parsed) -> tuple[str, tuple[str, ...]] | None:
    """Names for node types that have no identifier: headings, selectors, data keys."""
    if rule == "md_section":
        heading = next((c for c in node.named_children if c.type.endswith("_heading")), None)
        if heading is None:
            return None
        content = heading.child_by_field_name("heading_content")
        text = p.bytes_of(content) if content is not None else p.bytes_of(heading)
        return _md_strip(text.split("\n")[0]), ()
    if rule in ("md_item", "md_quote"):
        text = _md_strip(_md_text(p, node))
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
        tname = _strip_generics(p.bytes_of(typ)).strip()
        aliases = [f"impl {tname}"]
        trait = node.child_by_field_name("trait")
        if trait is not None:
            tr = _strip_generics(p.bytes_of(trait)).strip()
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
    return _strip_generics(typ) or None


def _dynamic_kind(rule: str, node: Node, default: str, p: _Parsed) -> str:
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


def _make_item(node: Node, g: _Grammar, p: _Parsed) -> _Item | None:
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
            name, owner, aliases = _split_qualified(_strip_generics(text) or text)
            if name_node.type in ("pattern", "user_type") and owner:
                name, owner, aliases = text, None, ()
    if not name:
        return None
    if kind == "function" and ntype == "function_declaration" and g.name == "kotlin":
        recv = node.child_by_field_name("receiver")
        if recv is not None:
            owner = _strip_generics(p.bytes_of(recv)).strip()
            aliases = (f"{owner}.{name}",)
    return _Item(node, kind, name, owner, aliases, ntype in g.spec.weak)


def _callable_or_block_between(node: Node, stop: Node | None, g: _Grammar) -> bool:
    cur = node.parent
    while cur is not None and (stop is None or cur.id != stop.id):
        kind = g.structures.get(cur.type)
        if cur.type in g.blocks or (kind is not None and kind in L.CALLABLE):
            return True
        cur = cur.parent
    return False


def _decide(p: _Parsed, node: Node, parent: _Item | None) -> _Item | None:
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


def _index(p: _Parsed) -> list[_Item]:
    """All named structures, in document order, each linked to its enclosing structure."""
    if p.items is not None:
        return p.items
    from tree_sitter import QueryCursor

    g = p.grammar
    items: list[_Item] = []
    memo = p.memo
    if g.struct_query is not None:
        nodes = QueryCursor(g.struct_query).captures(p.tree.root_node).get("s", [])
        spans = [(n.start_byte, -n.end_byte) for n in nodes]
        if any(spans[i] > spans[i + 1] for i in range(len(spans) - 1)):
            order = sorted(range(len(nodes)), key=spans.__getitem__)
            nodes = [nodes[i] for i in order]
            spans = [spans[i] for i in order]
        stack: list[tuple[_Item, int, int]] = []  # item, its end and start bytes
        for node, (start, neg_end) in zip(nodes, spans, strict=True):
            end = -neg_end
            while stack and (end > stack[-1][1] or start >= stack[-1][1] > stack[-1][2]):
                stack.pop()
            parent = stack[-1][0] if stack else None
            key = _key(node)
            if key in memo:  # decided already by a lookup (`_item_at`): the same object
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


def _item_at(p: _Parsed, node: Node) -> _Item | None:
    """The index entry for `node` (None if it is not an indexed structure), decided from
    its ancestors alone: the same answer `_index` gives, without indexing the file."""
    ids = p.grammar.structure_ids
    if node.kind_id not in ids:
        return None
    memo = p.memo
    key = _key(node)
    if key in memo:
        return memo[key]
    undecided = [node]  # structure nodes between `node` and its nearest known ancestor
    parent: _Item | None = None
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


def _items_within(p: _Parsed, lo: int, hi: int) -> list[_Item]:
    """The indexed structures whose node lies within bytes [lo, hi], in document order."""
    if p.items is not None:
        return [i for i in p.items if lo <= i.node.start_byte and i.node.end_byte <= hi]
    g = p.grammar
    if g.struct_query is None:
        return []
    from tree_sitter import QueryCursor

    cursor = QueryCursor(g.struct_query)
    cursor.set_byte_range(lo, hi)
    nodes = [
        n
        for n in cursor.captures(p.tree.root_node).get("s", [])
        if lo <= n.start_byte and n.end_byte <= hi
    ]
    nodes.sort(key=lambda n: (n.start_byte, -n.end_byte))
    found = []
    for n in nodes:
        item = _item_at(p, n)
        if item is not None:
            found.append(item)
    return found


def _starting_in(p: _Parsed, lo: int, hi: int) -> list[_Item]:
    """The indexed structures whose node starts in bytes [lo, hi), in document order."""
    if p.items is not None:
        return [i for i in p.items if lo <= i.node.start_byte < hi]
    g = p.grammar
    if g.struct_query is None:
        return []
    from tree_sitter import QueryCursor

    cursor = QueryCursor(g.struct_query)
    cursor.set_byte_range(lo, max(lo, min(hi, len(p.src))))
    nodes = [n for n in cursor.captures(p.tree.root_node).get("s", []) if lo <= n.start_byte < hi]
    nodes.sort(key=lambda n: (n.start_byte, -n.end_byte))
    return [item for n in nodes if (item := _item_at(p, n)) is not None]


def _kids(p: _Parsed, item: _Item) -> list[_Item]:
    """`item.children`, without indexing the whole file when it has not been."""
    if p.items is not None:
        return item.children
    got = p.kids.get(id(item))
    if got is None:
        inner = _items_within(p, item.node.start_byte, item.node.end_byte)
        got = p.kids[id(item)] = [i for i in inner if i.parent is item]
    return got


def _top(p: _Parsed) -> list[_Item]:
    """The structures no other structure encloses (needs the whole index)."""
    return [i for i in _index(p) if i.parent is None]


_WORD = re.compile(r"\w+")
_SCAN_LIMIT = 400  # occurrences of a name worth visiting one by one; past that, index all


def _named(p: _Parsed, names: set[str], owner: bool = False) -> list[_Item] | None:
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
            return [i for n in names for i in p.owned().get(n, ())]
        return [i for i in p.items if i.name in names or any(a in names for a in i.aliases)]
    needles: set[bytes] = set()
    for name in names:
        words = _WORD.findall(name)
        if not words:
            return None
        needles.add(_encode(max(words, key=len)))
    root = p.tree.root_node
    ids = p.grammar.structure_ids
    seen: set[tuple[int, int]] = set()
    found: dict[int, _Item] = {}
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
                    item = _item_at(p, node)
                    if item is not None and (
                        (item.owner in names)
                        if owner
                        else (item.name in names or any(a in names for a in item.aliases))
                    ):
                        found[id(item)] = item
                node = node.parent
            at = p.src.find(needle, at + 1)
    return sorted(found.values(), key=lambda i: (i.node.start_byte, -i.node.end_byte))


_OWNERS = L.TYPES | L.IMPLS


# --------------------------------------------------------------------------- levels

_TOKEN = re.compile(r"(?:[^\W\d]|\$)[\w$]*(?:(?:\.|::|->|:)(?:[^\W\d]|[$~])[\w$]*)*|\S")
_WS = re.compile(r"\s+")
_TRAILER = re.compile(r"\s*(?:\{|:|;|=>|\bdo|\bthen|\bbegin|\bwhere)\s*$")
_NOT_NAMES = frozenset(
    {"extends", "implements", "for", "in", "of", "returns", "return", "with", "where", "as"}
)


def _norm(s: str) -> str:
    s = _WS.sub(" ", s).strip()
    whole = s
    for _ in range(3):
        t = _TRAILER.sub("", s)
        if t == s:
            break
        s = t
    return s or whole


class _Level:
    """One level of a target, read: the names it may mean, the kinds it asks for."""

    __slots__ = ("raw", "norm", "names", "kinds", "params", "owner", "qualified")

    def __init__(
        self,
        raw: str,
        norm: str,
        names: tuple[str, ...],
        kinds: frozenset[str],
        params: str | None,
        owner: str | None,
        qualified: bool,  # a single dotted / `::` name that may be split into levels
    ) -> None:
        self.raw = raw
        self.norm = norm
        self.names = names
        self.kinds = kinds
        self.params = params
        self.owner = owner
        self.qualified = qualified


def _parse_level(raw: str, markdown: bool = False) -> _Level:
    text = raw.strip()
    if markdown:
        stripped = _md_strip(text)
        return _Level(raw, stripped, (stripped,), frozenset(), None, None, False)
    norm = _norm(text)
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
        owner = _strip_generics(idents[-1]) if idents else None
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
    stripped = _strip_generics(norm)
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


def _levels_of(target: Target) -> list[str]:
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


def _header(p: _Parsed, node: Node) -> str:
    return _norm(p.first_line(node))


def _name_hits(level: _Level, pool: list[_Item], markdown: bool) -> list[_Item]:
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


def _narrow(level: _Level, hits: list[_Item], p: _Parsed, last: bool) -> list[_Item]:
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


def _block_matches(level: _Level, p: _Parsed, scope: list[_Item] | None) -> list[Node]:
    """Block-bearing nodes whose first line matches the level (whitespace normalised).

    A node's first line is its own text up to the end of the line (`if x:`), or the whole
    line it starts on (`items.forEach((item) => {` for the arrow function). Exact beats
    prefix, the node's own text beats its line's, and among nested nodes that start on
    one line and match through that line, the outermost wins.
    """
    g = p.grammar
    if g.block_query is None or not level.norm:
        return []
    from tree_sitter import QueryCursor

    wanted = level.norm
    loose = wanted.rstrip(">").rstrip() or wanted
    squeezed = re.sub(r"\s+", "", loose)
    lines = p.line_list()
    ranges = [(s.node.start_byte, s.node.end_byte) for s in scope] if scope else [(0, len(p.src))]
    ranks: dict[int, list[Node]] = {}
    seen: set[int] = set()
    for lo, hi in ranges:
        cursor = QueryCursor(g.block_query)
        cursor.set_byte_range(lo, hi)
        # captures come in no reliable order (it changes from one parse to the next):
        # document order keeps the matches, and the ambiguity report, stable
        captured = cursor.captures(p.tree.root_node).get("s", [])
        captured.sort(key=lambda n: (n.start_byte, -n.end_byte))
        for node in captured:
            if node.start_byte < lo or node.end_byte > hi or node.id in seen:
                continue
            if scope and any(node.id == sc.node.id for sc in scope):
                continue
            seen.add(node.id)
            head = _header(p, node)
            line = _norm(lines[node.start_point.row])
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


def _block_item(node: Node, p: _Parsed, parent: _Item | None) -> _Item:
    return _Item(node, "block", _header(p, node), None, (), False, parent, block=True)


def _direct_block(node: Node, scope: list[_Item] | None, g: _Grammar) -> bool:
    stop_ids = {s.node.id for s in scope} if scope else set()
    cur = node.parent
    while cur is not None and cur.id not in stop_ids:
        if cur.type in g.blocks or cur.type in g.structures:
            return False
        cur = cur.parent
    return True


def _children(p: _Parsed, scope: _Item) -> list[_Item]:
    """Structures directly inside `scope`. A block (`if TYPE_CHECKING:`) is not in the
    index, so its children are the indexed structures inside its bytes whose parent is not."""
    if not scope.block:
        return _kids(p, scope)
    blocks = p.grammar.blocks
    inside = _items_within(p, scope.node.start_byte, scope.node.end_byte)
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


def _by_depth(p: _Parsed, first: list[_Item]) -> Iterator[list[_Item]]:
    """The items, then their children, then grandchildren...: nearest structures first."""
    level = first
    while level:
        yield level
        level = [c for item in level for c in _kids(p, item)]


def _depth(item: _Item) -> int:
    n = 0
    parent = item.parent
    while parent is not None:
        n += 1
        parent = parent.parent
    return n


def _tier_hits(
    p: _Parsed, level: _Level, tiers: Iterable[list[_Item]], markdown: bool, last: bool
) -> list[_Item]:
    """The matches in the nearest tier that has any, narrowed."""
    for tier in tiers:
        hits = _name_hits(level, tier, markdown)
        if hits:
            return _narrow(level, hits, p, last)
    return []


def _top_hits(p: _Parsed, level: _Level, markdown: bool, last: bool) -> list[_Item] | None:
    """What `_tier_hits(_by_depth(top))` finds for the first level, from the structures
    carrying one of the level's names alone (None when those cannot be listed cheaply).

    Tiers are depths: the top-level structures, their children, and so on, each in
    document order; the candidates of one depth are exactly that tier's items with one
    of the names, in the same order, so `_name_hits` picks the same ones.
    """
    if markdown:  # headings also match by prefix and case: no word to search for
        return None
    found = _named(p, set(level.names))
    if found is None:
        return None
    tiers: dict[int, list[_Item]] = {}
    for item in found:
        tiers.setdefault(_depth(item), []).append(item)
    return _tier_hits(p, level, (tiers[d] for d in sorted(tiers)), markdown, last)


def _resolve_path(
    p: _Parsed, levels: list[str], all_matches: bool = False
) -> tuple[list[_Item], list[str]]:
    """Walk the levels from the top of the file. Returns the final matches and the chain
    of level texts that matched. Raises TARGET_NOT_FOUND / TARGET_AMBIGUOUS."""
    markdown = p.grammar.spec.name == "markdown"
    scope: list[_Item] | None = None
    matched: list[str] = []
    queue = list(levels)
    while queue:
        raw = queue.pop(0)
        level = _parse_level(raw, markdown)
        last = not queue
        if scope is None:
            seed: list[_Item] | None = None  # the top-level structures, listed if needed
            found = _top_hits(p, level, markdown, last)
            hits = (
                found
                if found is not None
                else _tier_hits(p, level, _by_depth(p, _top(p)), markdown, last)
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
            tiers = list(_by_depth(p, seed if seed is not None else _top(p)))
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


def _owned(p: _Parsed, name: str) -> list[_Item]:
    """Structures defined outside their owner `name` (Go methods, `Point::dist`)."""
    found = _named(p, {name}, owner=True)
    return found if found is not None else p.owned().get(name, [])


def _lines_of(p: _Parsed, node: Node) -> list[int]:
    start, end = _node_rows(p, node)
    return [start + 1, end + 1]


def _describe(item: _Item) -> str:
    return "block" if item.block else item.kind


def _not_found(
    p: _Parsed,
    levels: list[str],
    matched: list[str],
    scope: list[_Item] | None,
    level: _Level,
    tiers: list[list[_Item]],
) -> PlacementError:
    pool_names: list[str] = []
    for tier in tiers:
        for item in tier:
            if item.name not in pool_names:
                pool_names.append(item.name)
    wanted = level.names[1] if len(level.names) > 1 else level.norm
    import difflib  # only failures need it; importing it costs a cold edit 2 ms

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
            "kind": _describe(first),
            "name": first.name,
            "lines": _lines_of(p, first.node),
        }
        lines = details["parent_found"]["lines"]
        where = f"{_describe(first)} {first.name} (lines {lines[0]}-{lines[1]})"
    else:
        details["parent_found"] = None
    errors = _error_nodes(p)
    if errors:
        details["syntax_errors"] = [_lines_of(p, e) for e in errors[:10]]
        bare = level.names[1] if len(level.names) > 1 else level.norm
        needle = _encode(bare)
        for err in errors:
            if needle and needle in p.src[err.start_byte : err.end_byte]:
                lines = _lines_of(p, err)
                return _fail(
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
    return _fail(
        ErrorCode.TARGET_NOT_FOUND,
        f"no structure matching `{level.raw}` in {where}{hint}",
        **details,
    )


def _ambiguous(p: _Parsed, levels: list[str], raw: str, hits: list[_Item]) -> PlacementError:
    matches = [
        {
            "kind": _describe(h),
            "name": h.name,
            "path": h.path
            if not h.block
            else (f"{h.parent.path} > {h.name}" if h.parent else h.name),
            "lines": _lines_of(p, h.node),
        }
        for h in hits
    ]
    where = ", ".join(f"{m['path']} (lines {m['lines'][0]}-{m['lines'][1]})" for m in matches[:8])
    return _fail(
        ErrorCode.TARGET_AMBIGUOUS,
        f"`{raw}` matches {len(hits)} structures: {where}. Add the enclosing structure as a "
        "level, or the signature, to pick one.",
        target=levels,
        searched=" > ".join(levels),
        language=p.grammar.name,
        matches=matches,
    )


def _error_nodes(p: _Parsed) -> list[Node]:
    if not p.tree.root_node.has_error:
        return []
    from tree_sitter import QueryCursor

    found = QueryCursor(p.grammar.error_query).captures(p.tree.root_node).get("e", [])
    return sorted(found, key=lambda n: (n.start_byte, -n.end_byte, n.is_missing))


def _check_clean(p: _Parsed, node: Node, levels: list[str]) -> None:
    """PARSER_FAILED when the node is, or lies inside, a region the parser could not read."""
    bad = node.has_error or node.is_error or node.is_missing
    cur = node.parent
    while not bad and cur is not None:
        bad = cur.is_error
        cur = cur.parent
    if bad:
        errors = [_lines_of(p, e) for e in _error_nodes(p)[:10]]
        lines = _lines_of(p, node)
        raise _fail(
            ErrorCode.PARSER_FAILED,
            f"the target `{' > '.join(levels)}` (lines {lines[0]}-{lines[1]}) contains or lies "
            "inside a syntax error, so its boundaries cannot be trusted; fix the syntax "
            "first or use a SEARCH/REPLACE block",
            target=levels,
            lines=lines,
            syntax_errors=errors,
        )


# --------------------------------------------------------------------------- spans


def _node_rows(p: _Parsed, node: Node) -> tuple[int, int]:
    """First and last line (0-based, inclusive) of a node, trailing blank lines excluded."""
    start = node.start_point.row
    end = node.end_point.row
    if node.end_point.column == 0 and end > start:
        end -= 1
    lines = p.line_list()
    while end > start and end < len(lines) and not lines[end].strip():
        end -= 1
    return start, end


def _line_start_byte(p: _Parsed, row: int) -> int:
    """Byte offset where line `row` starts (the file's length past the last line)."""
    if row <= 0:
        return 0
    if p.starts is None:  # the whole table costs 2 ms per 10k lines; one row, microseconds
        near = _near_line_start(p, row)
        if near is not None:
            return near
    starts = p.line_starts()
    return starts[row] if row < len(starts) else len(p.src)


_NEAR_ROWS = 64


def _near_line_start(p: _Parsed, row: int) -> int | None:
    """Where line `row` starts, counted from the smallest syntax node around its first
    column when that node starts at most a few lines above; None otherwise."""
    from tree_sitter import Point

    node = p.tree.root_node.descendant_for_point_range(Point(row, 0), Point(row, 0))
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


def _wrapper_chain(p: _Parsed, node: Node) -> list[Node]:
    """The node and the wrappers that belong to it, innermost first."""
    chain = [node]
    wrappers = p.grammar.spec.wrappers
    cur = node
    while cur.parent is not None and cur.parent.type in wrappers and _is_sole(cur.parent, cur):
        cur = cur.parent
        chain.append(cur)
    return chain


def _comment_above(p: _Parsed, row: int) -> int | None:
    """The first row of a whole-line comment ending on `row`, or None."""
    from tree_sitter import Point

    lines = p.line_list()
    if row < 0 or row >= len(lines):
        return None
    line = lines[row]
    stripped = line.lstrip()
    if not stripped or (row == 0 and stripped.startswith("#!")):
        return None
    col = len(_encode(line[: len(line) - len(stripped)]))
    node = p.tree.root_node.named_descendant_for_point_range(Point(row, col), Point(row, col))
    while node is not None and L.COMMENT_WORD not in node.type:
        node = node.parent
    if node is None:
        return None
    start_row = node.start_point.row
    first = lines[start_row]
    before = _encode(first)[: node.start_point.column].decode("utf-8", "replace")
    if before.strip():
        return None  # a comment trailing code belongs to that code
    end_row, _ = _node_rows(p, node)
    return start_row if end_row == row else None


class _Layers:
    """Where a structure starts, layer by layer, and where it ends (0-based rows)."""

    __slots__ = ("outer_row", "attached_row", "chain", "end_row", "end_byte")

    def __init__(
        self,
        outer_row: int,  # doc comments and attached attributes included
        attached_row: int,  # attached attributes / decorators included, comments not
        chain: tuple[Node, ...],  # core node first, then its wrappers
        end_row: int,
        end_byte: int,
    ) -> None:
        self.outer_row = outer_row
        self.attached_row = attached_row
        self.chain = chain
        self.end_row = end_row
        self.end_byte = end_byte


def _layers(p: _Parsed, node: Node) -> _Layers:
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
        if sib is not None and sib.type in attached_types and _node_rows(p, sib)[1] >= row:
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
    end_row = max(_node_rows(p, n)[1] for n in chain)
    end_byte = max(n.end_byte for n in chain)
    return _Layers(start, attached_row, tuple(chain), end_row, end_byte)


# --------------------------------------------------------------------------- indentation


def _leading(s: str) -> str:
    return s[: len(s) - len(s.lstrip(" \t"))]


def _width(ws: str, tab: int) -> int:
    return sum(tab if c == "\t" else 1 for c in ws)


def _style(lines: list[str]) -> tuple[str, int] | None:
    """The indentation style of some lines: ("\\t", 1) or (" ", unit); None if unclear."""
    tabs = spaces = 0
    steps: Counter[int] = Counter()
    prev = 0
    for line in lines:
        if not line.strip():
            continue
        ws = _leading(line)
        if ws.startswith("\t"):
            tabs += 1
        elif ws:
            spaces += 1
            width = len(ws)
            if width > prev:
                steps[width - prev] += 1
        prev = len(ws) if not ws.startswith("\t") else prev
    if tabs == 0 and spaces == 0:
        return None
    if tabs > spaces:
        return ("\t", 1)
    for step, _count in steps.most_common():
        if step in (2, 3, 4, 8):
            return (" ", step)
    return None


def _reindent(
    content: str,
    indent: str,
    file_style: tuple[str, int] | None,
    convert: bool,
) -> list[str]:
    """Content lines re-indented so its first line sits at `indent`, relative shape kept."""
    lines = content.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    while lines and not lines[0].strip():
        lines.pop(0)
    while lines and not lines[-1].strip():
        lines.pop()
    if not lines:
        return []
    body = [ln for ln in lines if ln.strip()]
    content_tabs = sum(1 for ln in body if _leading(ln).startswith("\t"))
    tab = file_style[1] if file_style and file_style[0] == " " else 4
    widths = [_width(_leading(ln), tab) for ln in body]
    base = widths[0]
    if min(widths) < base:
        base = min(widths)
    absolute = False
    indent_w = _width(indent, tab)
    if (
        widths[0] == 0
        and indent_w > 0
        and len(body) > 1
        and all(
            _leading(ln).startswith(indent) and len(_leading(ln)) > len(indent) for ln in body[1:]
        )
        and file_style is not None
        and min(widths[1:]) - indent_w == (file_style[1] if file_style[0] == " " else tab)
    ):
        absolute = True  # first line stripped, the rest copied at the file's own indentation
    rels = [w - base for w in widths]
    positive = [r for r in rels if r > 0]
    unit_c = min(positive) if positive else 0
    content_is_tabs = content_tabs > len(body) // 2
    out: list[str] = []
    for line in lines:
        if not line.strip():
            out.append("")
            continue
        ws = _leading(line)
        text = line[len(ws) :]
        if absolute and out:
            rel_w = _width(ws, tab) - indent_w
        else:
            rel_w = _width(ws, tab) - base
        rel_w = max(rel_w, 0)
        out.append(
            indent + _rel_indent(rel_w, unit_c, content_is_tabs, tab, file_style, convert) + text
        )
    return out


def _rel_indent(
    rel_w: int,
    unit_c: int,
    content_is_tabs: bool,
    tab: int,
    file_style: tuple[str, int] | None,
    convert: bool,
) -> str:
    if rel_w == 0:
        return ""
    if file_style is None or not convert:
        return (" " * rel_w) if not content_is_tabs else "\t" * (rel_w // tab) + " " * (rel_w % tab)
    char, unit_f = file_style
    if content_is_tabs:
        levels, rest = divmod(rel_w, tab)
    elif unit_c in (2, 3, 4, 8):
        levels, rest = divmod(rel_w, unit_c)
    else:
        levels, rest = (0, rel_w) if char == " " else divmod(rel_w, tab)
    if char == "\t":
        return "\t" * levels + " " * rest
    return " " * (levels * unit_f + rest)


def _file_style_near(p: _Parsed, row: int) -> tuple[str, int] | None:
    lines = p.line_list()
    lo, hi = max(0, row - 300), min(len(lines), row + 300)
    return _style(lines[lo:hi]) or _style(lines[: min(len(lines), 2000)])


# --------------------------------------------------------------------------- editing


def _starts_comment(p: _Parsed, line: str) -> bool:
    s = line.lstrip()
    if s.startswith("#[") or s.startswith("#!["):
        return False
    return any(s.startswith(m) for m in p.grammar.spec.comment_markers)


def _starts_attribute(p: _Parsed, line: str) -> bool:
    s = line.lstrip()
    if s.startswith("@") or s.startswith("#["):
        return True
    return p.grammar.name == "csharp" and s.startswith("[")


_FIRST_WORD = re.compile(r"[\w$@#.<\[-]+|\S")


def _first_word(s: str) -> str:
    m = _FIRST_WORD.search(s)
    return m.group(0) if m else ""


class _Region:
    """The part of the file a replacement overwrites."""

    __slots__ = ("start_row", "end_row", "start_byte", "end_byte", "mid_line_start", "tail")

    def __init__(
        self,
        start_row: int,
        end_row: int,
        start_byte: int,  # replacement starts here (mid-line when a wrapper is kept)
        end_byte: int,
        mid_line_start: bool,
        tail: str,  # `;` / `,` after the node on its last line, dropped with it and re-added
    ) -> None:
        self.start_row = start_row
        self.end_row = end_row
        self.start_byte = start_byte
        self.end_byte = end_byte
        self.mid_line_start = mid_line_start
        self.tail = tail


def _row_of_byte(p: _Parsed, b: int) -> int:
    return p.src.count(b"\n", 0, b)


def _region_for(p: _Parsed, item: _Item, content_lines: list[str]) -> _Region:
    lay = _layers(p, item.node)
    first = next((ln for ln in content_lines if ln.strip()), "")
    lines = p.line_list()
    if item.block:
        start_row = item.node.start_point.row
        start_byte = item.node.start_byte
        lead = p.src[_line_start_byte(p, start_row) : start_byte].decode("utf-8", "replace")
        if lead.strip() and _norm(first).startswith(_norm(lead)):
            start_byte = _line_start_byte(p, start_row)  # the new code repeats the line's head
    elif _starts_comment(p, first):
        start_row = lay.outer_row
        start_byte = _line_start_byte(p, start_row)
    elif _starts_attribute(p, first):
        start_row = lay.attached_row
        start_byte = _line_start_byte(p, start_row)
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
        end_row_core = _node_rows(p, chosen)[1]
        while start_row < end_row_core and _starts_attribute(p, lines[start_row]):
            nxt = start_row + 1
            start_row = nxt
            ws = _leading(lines[nxt])
            start_byte = _line_start_byte(p, nxt) + len(_encode(ws))
        if _first_word(lines[start_row].strip()) == word:
            start_byte = max(
                start_byte,
                _line_start_byte(p, start_row) + len(_encode(_leading(lines[start_row]))),
            )
    line_begin = _line_start_byte(p, start_row)
    before = p.src[line_begin:start_byte].decode("utf-8", "replace")
    mid_start = bool(before.strip())
    end_byte = max(item.node.end_byte, lay.end_byte) if not item.block else item.node.end_byte
    end_row = _row_of_byte(p, end_byte if p.src[end_byte - 1 : end_byte] != b"\n" else end_byte - 1)
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
        end_byte = _line_start_byte(p, end_row) + len(_encode(lines[end_row]))
    return _Region(start_row, end_row, start_byte, end_byte, mid_start, tail)


def _splice(p: _Parsed, region: _Region, new_lines: list[str], indent: str) -> str:
    if region.mid_line_start and new_lines:
        first = new_lines[0][len(indent) :] if new_lines[0].startswith(indent) else new_lines[0]
        new_lines = [first.lstrip(), *new_lines[1:]]
        prefix = p.src[: region.start_byte]
    else:
        prefix = p.src[: _line_start_byte(p, region.start_row)]
    body = "\n".join(new_lines)
    if region.tail and new_lines and not new_lines[-1].rstrip().endswith(region.tail):
        body += region.tail
    return (prefix + _encode(body) + p.src[region.end_byte :]).decode("utf-8", "surrogatepass")


def _blank_gap(lines: list[str], row: int, step: int) -> int:
    n = 0
    row += step
    while 0 <= row < len(lines) and not lines[row].strip():
        n += 1
        row += step
    return n


def _separator(p: _Parsed, item: _Item, start_row: int, end_row: int) -> int:
    """Blank lines to put between the target and new code next to it."""
    if item.block:
        return 0
    spec = p.grammar.spec
    lines = p.line_list()
    siblings = _kids(p, item.parent) if item.parent is not None else _top(p)
    idx = next((k for k, s in enumerate(siblings) if s is item), -1)
    if idx > 0:
        return min(_blank_gap(lines, start_row, -1), 3)
    if 0 <= idx < len(siblings) - 1:
        return min(_blank_gap(lines, end_row, 1), 3)
    return spec.top_blank_lines if item.parent is None else spec.nested_blank_lines


def _indent_w(line: str) -> int:
    return _width(_leading(line), 4)


def _delete_rows(lines: list[str], start: int, end: int) -> tuple[list[str], int]:
    """Remove rows [start, end] and the blank lines that would be left doubled.
    Returns the new lines and the first removed row (where the gap now is)."""
    indent = _indent_w(lines[start]) if start < len(lines) else 0
    above = _blank_gap(lines, start, -1)
    below = _blank_gap(lines, end, 1)
    nxt = end + below + 1
    prv = start - above - 1
    closes = (
        nxt >= len(lines)
        or (lines[nxt].strip() != "" and _indent_w(lines[nxt]) < indent)
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


def _join(lines: list[str]) -> str:
    return "\n".join(lines)


# --------------------------------------------------------------------------- operations


@dataclass(frozen=True)
class StructureEdit:
    """The outcome of one structure operation on one file.

    `text` is the whole new text; `placement` the span it touched (0-based, end exclusive,
    in the original text; `new_end_line` in the new one); `result` the seed's report
    fields, 1-based inclusive: `lines`, `deleted_line_range_inclusive`, `affected_lines`,
    `total_replacements`, `inserted_at_line`, `target_now_at_line`,
    `source_original_line_range`, `destination_final_line_range`.
    """

    text: str
    placement: Placement
    result: dict[str, Any]
    moved: str | None = None  # the code a move took out (for cross-file moves)


def _option(options: dict[str, Any], *names: str) -> Any:
    for name in names:
        if name in options and options[name] is not None:
            return options[name]
    return None


def _content_lines(content: str | None) -> list[str]:
    return (content or "").replace("\r\n", "\n").split("\n")


def _resolve_one(p: _Parsed, levels: list[str]) -> _Item:
    if not levels:
        raise _fail(
            ErrorCode.TARGET_NOT_FOUND,
            "the structural target names no node (TARGET_NODE is empty)",
            target=[],
            searched="",
            parent_found=None,
            suggestions=[i.name for i in _index(p) if i.parent is None][:10],
        )
    found, _ = _resolve_path(p, levels)
    item = found[0]
    _check_clean(p, item.node, levels)
    return item


def _with_eol(text: str, fn: Any) -> Any:
    """Run an edit on "\\n" text; CRLF files are converted back afterwards."""
    if "\r\n" not in text:
        return fn(text, False)
    return fn(text.replace("\r\n", "\n"), True)


def _crlf(s: str, on: bool) -> str:
    return s.replace("\n", "\r\n") if on else s


@_locked
def apply_structure(
    text: str,
    path: str,
    target: Target,
    content: str | None = None,
    language: str | None = None,
) -> StructureEdit:
    """Perform `target.operation` on the node `target` names in `text`.

    Pure: text in, text out. Raises PlacementError with TARGET_NOT_FOUND,
    TARGET_AMBIGUOUS, LANGUAGE_UNSUPPORTED, PARSER_FAILED, TEXT_NOT_FOUND,
    TEXT_AMBIGUOUS or COUNT_MISMATCH (every failure's details say FILE_UNCHANGED).
    """
    grammar = _grammar_for(path, language)

    def run(t: str, crlf: bool) -> StructureEdit:
        edit = _apply(t, path, grammar, target, content)
        if not crlf:
            return edit
        return StructureEdit(_crlf(edit.text, True), edit.placement, edit.result, edit.moved)

    return _with_eol(text, run)


def _apply(
    text: str, path: str, grammar: _Grammar, target: Target, content: str | None
) -> StructureEdit:
    op = target.operation or "replace_structure"
    if op not in OPERATIONS:
        raise _fail(
            ErrorCode.MALFORMED_BLOCK,
            f"unknown structure operation `{op}`; expected one of {', '.join(OPERATIONS)}",
            operation=op,
            operations=list(OPERATIONS),
        )
    if grammar.spec.data and (
        target.data_path is not None or not grammar.structures or target.node
    ):
        from lsp_server.resolve import data_paths

        dpath = target.data_path if target.data_path is not None else ".".join(_levels_of(target))
        return data_paths.apply_data_path(
            text, grammar.name, dpath, op, content, target.options, key=path
        )
    if target.data_path is not None and not target.node:
        raise _fail(
            ErrorCode.LANGUAGE_UNSUPPORTED,
            f"TARGET_PATH works in JSON, YAML and TOML files; {path} is {grammar.name}. "
            "Use TARGET_NODE to name a structure.",
            path=path,
            language=grammar.name,
            supported=["json", "yaml", "toml"],
        )
    p = _parse(text, grammar, path)
    levels = _levels_of(target)
    item = _resolve_one(p, levels)
    if op == "read_structure":
        lay = _layers(p, item.node)
        return StructureEdit(
            text,
            Placement(
                lay.outer_row, lay.end_row + 1, MatchKind.STRUCTURAL, new_end_line=lay.end_row + 1
            ),
            {"lines": [lay.outer_row + 1, lay.end_row + 1]},
        )
    if op == "replace_structure":
        if not (content or "").strip():
            return _delete(p, item)
        return _replace(p, item, content or "")
    if op == "delete_structure":
        return _delete(p, item)
    if op in ("insert_before_structure", "insert_after_structure"):
        return _insert(p, item, content or "", before=op == "insert_before_structure")
    if op in ("replace_text_in_structure", "replace_all_text_in_structure"):
        return _replace_text(p, item, target.options, all_of=op.startswith("replace_all"))
    return _move_within(p, item, target, levels)


def _replace(p: _Parsed, item: _Item, content: str) -> StructureEdit:
    raw = _content_lines(content)
    region = _region_for(p, item, raw)
    lines = p.line_list()
    indent = _leading(lines[region.start_row])
    style = _file_style_near(p, region.start_row)
    new_lines = _reindent(
        content.replace("\r\n", "\n"), indent, style, p.grammar.spec.convert_indent_units
    )
    new_text = _splice(p, region, new_lines, indent)
    new_end = region.start_row + len(new_lines)
    return StructureEdit(
        new_text,
        Placement(region.start_row, region.end_row + 1, MatchKind.STRUCTURAL, new_end_line=new_end),
        {
            "lines": [region.start_row + 1, new_end],
            "affected_lines": [region.start_row + 1, new_end],
            "original_lines": [region.start_row + 1, region.end_row + 1],
        },
    )


def _delete(p: _Parsed, item: _Item) -> StructureEdit:
    lay = _layers(p, item.node)
    top = item.node if item.block else lay.chain[-1]
    start = top.start_point.row if item.block else lay.outer_row
    end_byte = item.node.end_byte if item.block else lay.end_byte
    row0 = top.start_point.row
    before = p.src[_line_start_byte(p, row0) : top.start_byte]
    eol = p.src.find(b"\n", end_byte)
    eol = len(p.src) if eol < 0 else eol
    after = p.src[end_byte:eol].strip()
    if before.strip() or after not in (b"", b";", b",", b";;"):
        # shares its lines with other code: cut only its own bytes
        new_text = (p.src[: top.start_byte] + p.src[end_byte:]).decode("utf-8", "surrogatepass")
        last = _row_of_byte(p, max(end_byte - 1, top.start_byte))
        return StructureEdit(
            new_text,
            Placement(row0, last + 1, MatchKind.STRUCTURAL, new_end_line=row0 + 1),
            {"deleted_line_range_inclusive": [row0 + 1, last + 1], "lines": [row0 + 1, last + 1]},
        )
    end = _row_of_byte(p, max(end_byte - 1, top.start_byte))
    kept, gap = _delete_rows(list(p.line_list()), start, end)
    return StructureEdit(
        _join(kept),
        Placement(start, end + 1, MatchKind.STRUCTURAL, new_end_line=start),
        {
            "deleted_line_range_inclusive": [start + 1, end + 1],
            "lines": [start + 1, end + 1],
            "now_at_line": gap + 1,
        },
    )


def _insert(p: _Parsed, item: _Item, content: str, before: bool) -> StructureEdit:
    lay = _layers(p, item.node)
    lines = list(p.line_list())
    start, end = lay.outer_row, lay.end_row
    if item.block:
        start = item.node.start_point.row
    indent = _leading(lines[start])
    style = _file_style_near(p, start)
    new_lines = _reindent(
        content.replace("\r\n", "\n"), indent, style, p.grammar.spec.convert_indent_units
    )
    if not new_lines:
        raise _fail(
            ErrorCode.MALFORMED_BLOCK,
            "nothing to insert: the block's code is empty",
            lines=[start + 1, end + 1],
        )
    sep = _separator(p, item, start, end)
    if before:
        out = lines[:start] + new_lines + [""] * sep + lines[start:]
        inserted_at = start
        target_now = start + len(new_lines) + sep
        placement = Placement(
            start, end + 1, MatchKind.STRUCTURAL, new_end_line=end + 1 + len(new_lines) + sep
        )
    else:
        out = lines[: end + 1] + [""] * sep + new_lines + lines[end + 1 :]
        inserted_at = end + 1 + sep
        target_now = start
        placement = Placement(
            start, end + 1, MatchKind.STRUCTURAL, new_end_line=end + 1 + sep + len(new_lines)
        )
    return StructureEdit(
        _join(out),
        placement,
        {
            "inserted_at_line": inserted_at + 1,
            "inserted_lines": [inserted_at + 1, inserted_at + len(new_lines)],
            "target_now_at_line": target_now + 1,
            "lines": [inserted_at + 1, inserted_at + len(new_lines)],
        },
    )


def _replace_text(p: _Parsed, item: _Item, options: dict[str, Any], all_of: bool) -> StructureEdit:
    old = _option(options, "old_text", "oldText", "old", "search", "old_str", "find", "text")
    new = _option(options, "new_text", "newText", "new", "replace", "new_str", "replacement")
    lay = _layers(p, item.node)
    s_row, e_row = lay.outer_row, lay.end_row
    lines = p.line_list()
    struct_lines = [s_row + 1, e_row + 1]
    if not isinstance(old, str) or old == "":
        raise _fail(
            ErrorCode.TEXT_NOT_FOUND,
            "replace_text_in_structure needs a non-empty `old_text`",
            structure_lines=struct_lines,
        )
    new = new if isinstance(new, str) else ""
    old = old.replace("\r\n", "\n")
    new = new.replace("\r\n", "\n")
    segment = "\n".join(lines[s_row : e_row + 1])
    positions = []
    at = segment.find(old)
    while at >= 0:
        positions.append(at)
        at = segment.find(old, at + max(len(old), 1))
    occurrence_lines = [s_row + 1 + segment.count("\n", 0, pos) for pos in positions]
    expected = _option(options, "expected_count", "expectedCount", "expected_replacements")
    if not positions and not (all_of and expected == 0):
        raise _fail(
            ErrorCode.TEXT_NOT_FOUND,
            f"the text to replace does not occur inside lines {struct_lines[0]}-{struct_lines[1]}",
            structure_lines=struct_lines,
            old_text=old,
        )
    if not all_of and len(positions) > 1:
        raise _fail(
            ErrorCode.TEXT_AMBIGUOUS,
            f"the text to replace occurs {len(positions)} times inside lines "
            f"{struct_lines[0]}-{struct_lines[1]} (at lines "
            f"{', '.join(map(str, occurrence_lines))}); give more context or use "
            "replace_all_text_in_structure",
            structure_lines=struct_lines,
            matches=occurrence_lines,
        )
    if all_of and expected is not None and int(expected) != len(positions):
        raise _fail(
            ErrorCode.COUNT_MISMATCH,
            f"expected {expected} occurrences inside lines {struct_lines[0]}-{struct_lines[1]}, "
            f"found {len(positions)}",
            structure_lines=struct_lines,
            expected_count=int(expected),
            found=len(positions),
            matches=occurrence_lines,
        )
    replaced = segment.replace(old, new) if all_of else segment.replace(old, new, 1)
    out = lines[:s_row] + replaced.split("\n") + lines[e_row + 1 :]
    new_end = e_row + 1 + (replaced.count("\n") - segment.count("\n"))
    return StructureEdit(
        _join(out),
        Placement(s_row, e_row + 1, MatchKind.STRUCTURAL, new_end_line=new_end),
        {
            "total_replacements": len(positions),
            "affected_lines": sorted(set(occurrence_lines)),
            "structure_lines": struct_lines,
            "lines": [s_row + 1, new_end],
        },
    )


def _extract(p: _Parsed, item: _Item) -> tuple[list[str], int, int]:
    lay = _layers(p, item.node)
    lines = p.line_list()
    start = item.node.start_point.row if item.block else lay.outer_row
    return lines[start : lay.end_row + 1], start, lay.end_row


def _dedent(block: list[str]) -> str:
    body = [ln for ln in block if ln.strip()]
    if not body:
        return ""
    cut = min(len(_leading(ln)) for ln in body)
    return "\n".join(ln[cut:] if ln.strip() else "" for ln in block) + "\n"


def _destination_levels(target: Target) -> list[str]:
    return move_destination(target)[1]


def move_destination(target: Target) -> tuple[str | None, list[str]]:
    """Where a `move_structure_to_*` goes: (destination file or None for the same file,
    destination levels). Reads `options.destination` (levels as a list, or a string with
    one level per line / `A > b`, or `{"path": ..., "node": ...}`) and
    `options.destination_path`. A different path means a cross-file move, which the plan
    applies with `remove_structure` + `insert_code`."""
    opts = target.options
    dest = _option(opts, "destination", "destination_target", "to", "anchor", "before", "after")
    dest_path = _option(opts, "destination_path", "destination_file", "to_path", "to_file")
    if isinstance(dest, dict):
        dest_path = dest_path or _option(dest, "path", "file")
        dest = _option(dest, "node", "target", "target_node", "structure")
    levels: list[str] = []
    if isinstance(dest, str):
        levels = _levels_of(Target(node=tuple(x for x in dest.split("\n") if x.strip())))
    elif isinstance(dest, list | tuple):
        levels = [str(x) for x in dest]
    return (str(dest_path) if dest_path else None), levels


def _file_start_row(p: _Parsed) -> int:
    """The first line after the file's preamble (shebang, package, imports, includes)."""
    row = 0
    for child in p.tree.root_node.named_children:
        t = child.type
        kids = child.named_children
        directive = t == "string" or (
            t == "expression_statement" and len(kids) == 1 and "string" in kids[0].type
        )
        if (
            directive  # a module docstring, "use strict"
            or any(
                w in t for w in ("import", "package", "include", "use_", "php_tag", "namespace_use")
            )
            or ("comment" in t and child.start_point.row == row)
        ):
            row = _node_rows(p, child)[1] + 1
            lines = p.line_list()
            while row < len(lines) and not lines[row].strip():
                row += 1
            continue
        break
    return row


@_locked
def insert_code(
    text: str,
    path: str,
    code: str,
    where: str,
    anchor: list[str] | None = None,
    language: str | None = None,
) -> tuple[str, list[int]]:
    """Insert a structure's code `before`/`after` the `anchor` structure, or at the file's
    `start`/`end`, re-indented and with the language's blank-line convention.

    Returns the new text and the inserted lines (1-based, inclusive). Used for moves
    within a file and, with `remove_structure`, for moves across files.
    """
    grammar = _grammar_for(path, language)

    def run(t: str, crlf: bool) -> tuple[str, list[int]]:
        out, rng = _insert_code(t, path, grammar, code, where, anchor)
        return _crlf(out, crlf), rng

    return _with_eol(text, run)


def _insert_code(
    text: str, path: str, grammar: _Grammar, code: str, where: str, anchor: list[str] | None
) -> tuple[str, list[int]]:
    p = _parse(text, grammar, path)
    if where in ("before", "after"):
        edit = _insert(p, _resolve_one(p, list(anchor or ())), code, before=where == "before")
        return edit.text, edit.result["inserted_lines"]
    lines = list(p.line_list())
    style = _file_style_near(p, 0)
    new_lines = _reindent(code, "", style, grammar.spec.convert_indent_units)
    sep = grammar.spec.top_blank_lines
    if where == "start":
        row = _file_start_row(p)
        if row >= len(lines) or (row == len(lines) - 1 and not lines[row]):
            before = [""] * sep if row > 0 else []
            out = lines[:row] + before + new_lines + [""]
            first = row + len(before)
        else:
            gap = [""] * sep
            lead = [""] * sep if row > 0 and lines[row - 1].strip() else []
            out = lines[:row] + lead + new_lines + gap + lines[row:]
            first = row + len(lead)
    else:
        body = lines[:]
        trailing_newline = bool(body) and body[-1] == ""
        if trailing_newline:
            body.pop()
        while body and not body[-1].strip():
            body.pop()
        lead = [""] * sep if body else []
        out = body + lead + new_lines + [""]
        first = len(body) + len(lead)
    return _join(out), [first + 1, first + len(new_lines)]


@_locked
def remove_structure(
    text: str, path: str, target: Target, language: str | None = None
) -> tuple[str, str, list[int]]:
    """Cut the structure `target` names: the new text, the removed code (dedented, with
    "\\n" endings) and its original lines (1-based, inclusive)."""
    grammar = _grammar_for(path, language)

    def run(t: str, crlf: bool) -> tuple[str, str, list[int]]:
        p = _parse(t, grammar, path)
        levels = _levels_of(target)
        item = _resolve_one(p, levels)
        block, s, e = _extract(p, item)
        edit = _delete(p, item)
        return _crlf(edit.text, crlf), _dedent(block), [s + 1, e + 1]

    return _with_eol(text, run)


def _move_within(p: _Parsed, item: _Item, target: Target, levels: list[str]) -> StructureEdit:
    op = target.operation
    block, s, e = _extract(p, item)
    code = _dedent(block)
    dest_path, dest_levels = move_destination(target)
    if dest_path is not None and dest_path.replace("\\", "/").lstrip("./") != p.key.lstrip("./"):
        raise _fail(
            ErrorCode.TARGET_NOT_FOUND,
            f"{op} into another file ({dest_path}) changes two files; it is applied by the "
            "plan (remove_structure + insert_code), not inside one file",
            target=levels,
            destination_path=dest_path,
        )
    if op in ("move_structure_to_before", "move_structure_to_after"):
        if not dest_levels:
            raise _fail(
                ErrorCode.TARGET_NOT_FOUND,
                f"{op} needs a destination structure (options.destination)",
                target=levels,
                parent_found=None,
                suggestions=[],
            )
        dest = _resolve_one(p, dest_levels)
        if (
            dest.node.start_byte >= item.node.start_byte
            and dest.node.end_byte <= item.node.end_byte
        ):
            raise _fail(
                ErrorCode.TARGET_NOT_FOUND,
                "the destination lies inside the structure being moved",
                target=levels,
                destination=dest_levels,
            )
    removed = _delete(p, item)
    where = {
        "move_structure_to_before": "before",
        "move_structure_to_after": "after",
        "move_structure_to_file_start": "start",
        "move_structure_to_file_end": "end",
    }[op]
    new_text, rng = _insert_code(removed.text, p.key, p.grammar, code, where, dest_levels)
    return StructureEdit(
        new_text,
        Placement(s, e + 1, MatchKind.STRUCTURAL, new_end_line=s),
        {
            "source_original_line_range": [s + 1, e + 1],
            "destination_final_line_range": rng,
            "lines": rng,
        },
        moved=code,
    )


# --------------------------------------------------------------------------- public API


def resolve_structural(text: str, path: str, block: EditBlock) -> tuple[str, Placement]:
    """Place a structural block (TARGET_NODE / TARGET_PATH / structure-operation JSON).

    `text` is the file's current content. Returns the new text and where the edit landed
    (0-based line span [start, end) of the node in `text`, `new_end_line` in the result).
    Raises PlacementError with TARGET_NOT_FOUND (searched path, `parent_found`,
    `suggestions`), TARGET_AMBIGUOUS (`matches` with lines), LANGUAGE_UNSUPPORTED
    (`supported`) or PARSER_FAILED; never falls back to text matching.
    """
    target = block.target or Target()
    edit = apply_structure(text, path, target, block.content, block.language)
    return edit.text, edit.placement


@_locked
def read_structure(
    text: str, path: str, target: Target, language: str | None = None
) -> list[dict[str, Any]]:
    """Every structure the target names (no uniqueness required), with lines and text."""
    grammar = _grammar_for(path, language)
    text_n = text.replace("\r\n", "\n")
    if grammar.spec.data and (target.data_path is not None or target.node):
        from lsp_server.resolve import data_paths

        dpath = target.data_path if target.data_path is not None else ".".join(_levels_of(target))
        return [data_paths.read_data_path(text_n, grammar.name, dpath, key=path)]
    p = _parse(text_n, grammar, path)
    levels = _levels_of(target)
    if not levels:
        return []
    found, _ = _resolve_path(p, levels, all_matches=True)
    out = []
    lines = p.line_list()
    for item in found:
        lay = _layers(p, item.node)
        start = item.node.start_point.row if item.block else lay.outer_row
        out.append(
            {
                "kind": _describe(item),
                "name": item.name,
                "path": item.path if not item.block else item.name,
                "lines": [start + 1, lay.end_row + 1],
                "text": "\n".join(lines[start : lay.end_row + 1]) + "\n",
            }
        )
    return out


@_locked
def list_structures(text: str, path: str, language: str | None = None) -> list[dict[str, Any]]:
    """An outline of the file: kind, name, 1-based start/end lines and children."""
    grammar = _grammar_for(path, language)
    p = _parse(text.replace("\r\n", "\n"), grammar, path)

    def entry(item: _Item) -> dict[str, Any]:
        lay = _layers(p, item.node)
        return {
            "kind": item.kind,
            "name": item.name,
            "start_line": lay.outer_row + 1,
            "end_line": lay.end_row + 1,
            "children": [entry(c) for c in item.children],
        }

    return [entry(i) for i in _index(p) if i.parent is None]


@_locked
def syntax_errors(
    text: str, path: str, language: str | None = None, base: str | None = None
) -> list[dict[str, Any]]:
    """Syntax errors tree-sitter finds: 1-based line and column, and what is wrong.

    `path` is also the key the tree is cached under; `base` names a cached tree of a
    similar text to parse incrementally from (see `_parse`).
    """
    name = language_for(path, language)
    if name is None:
        return []
    p = _parse(text.replace("\r\n", "\n"), _grammar(name), path, base)
    out = []
    for node in _error_nodes(p):
        out.append(
            {
                "line": node.start_point.row + 1,
                "column": node.start_point.column + 1,
                "end_line": node.end_point.row + 1,
                "kind": "missing" if node.is_missing else "error",
                "text": (f"missing `{node.type}`" if node.is_missing else p.first_line(node)[:60]),
            }
        )
    return out


@_locked
def structural_warnings(
    old_text: str,
    new_text: str,
    path: str,
    placement: Placement | None = None,
    language: str | None = None,
) -> list[PlanWarning]:
    """Checks after an edit: SYNTAX_BROKEN (new errors, or errors that were already
    there), STRUCTURE_EMPTY (a structure in the edited span lost all its code),
    INDENTATION_INCONSISTENT (the edit mixed tabs and spaces where the file did not)."""
    name = language_for(path, language)
    if name is None:
        return []
    warnings: list[PlanWarning] = []
    before = syntax_errors(old_text, path + "\x00old", name)
    after = syntax_errors(new_text, path, name)
    if len(after) > len(before):
        where = ", ".join(f"{e['line']}:{e['column']}" for e in after[:5])
        warnings.append(
            PlanWarning(
                WarningType.SYNTAX_BROKEN,
                f"the edit introduced syntax errors in {path} (at {where})",
                path,
            )
        )
    elif before:
        where = ", ".join(str(e["line"]) for e in before[:5])
        warnings.append(
            PlanWarning(
                WarningType.SYNTAX_BROKEN,
                f"{path} already had syntax errors before the edit (lines {where}); the "
                "structure's boundaries come from error recovery",
                path,
            )
        )
    new_n = new_text.replace("\r\n", "\n")
    if placement is not None:
        p = _parse(new_n, _grammar(name), path)
        lo = placement.start_line
        hi = placement.new_end_line if placement.new_end_line is not None else placement.end_line
        stop = max(hi, lo + 1)
        lo_byte = _line_start_byte(p, lo)
        hi_byte = _line_start_byte(p, stop) if stop < len(p.line_list()) else len(p.src) + 1
        for item in _starting_in(p, lo_byte, hi_byte):
            row = item.node.start_point.row
            if not lo <= row < max(hi, lo + 1):
                continue
            body = item.node.child_by_field_name("body")
            if body is not None and not [c for c in body.named_children if "comment" not in c.type]:
                warnings.append(
                    PlanWarning(
                        WarningType.STRUCTURE_EMPTY,
                        f"{item.kind} {item.name} in {path} has no code left (line {row + 1})",
                        path,
                    )
                )
        lines = new_n.split("\n")
        rest = lines[:lo] + lines[hi:]
        edited = lines[lo:hi]

        def mix(ls: list[str]) -> tuple[bool, bool]:
            tabs = any(_leading(x).startswith("\t") for x in ls if x.strip())
            spaces = any(_leading(x).startswith(" ") for x in ls if x.strip())
            return tabs, spaces

        r_tabs, r_spaces = mix(rest)
        e_tabs, e_spaces = mix(edited)
        if (e_tabs and r_spaces and not r_tabs) or (e_spaces and r_tabs and not r_spaces):
            warnings.append(
                PlanWarning(
                    WarningType.INDENTATION_INCONSISTENT,
                    f"the edited lines {lo + 1}-{hi} of {path} indent with "
                    f"{'tabs' if e_tabs else 'spaces'}; the rest of the file does not",
                    path,
                )
            )
    return warnings
