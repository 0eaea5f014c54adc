"""Syntax trees: grammars, parsing with a per-file cache, incremental re-parse, errors.

Grammars come from `tree_sitter_language_pack` (bundled, works offline). Both it and
`tree_sitter` are imported lazily, on the first structural edit or syntax check: a reply
that never needs a tree never pays for them, so the CLI and the server start fast. Parsed
trees are cached per file and re-parsed incrementally when the text changes, so a second
resolution against an edited document reuses most of the tree (benchmarks/README.md has
the numbers).

Everything the later stages (outline, targets, spans, structure, data_paths) need from a
tree comes from here: `grammar_for` / `grammar`, `parse`, the `Parsed` record,
`error_nodes`, and `locked` for the entry points that touch the shared cache.
"""

from __future__ import annotations

import functools
import importlib
import importlib.machinery
import importlib.util
import itertools
import os
import threading
import typing
from collections import OrderedDict
from collections.abc import Callable
from functools import cache, lru_cache
from typing import TYPE_CHECKING, Any, TypeVar

from lsp_server.linediff import common_prefix, common_suffix, local_opcodes
from lsp_server.model import ErrorCode
from lsp_server.resolve import cache as text_cache
from lsp_server.resolve import languages as L
from lsp_server.resolve.language_names import language_name_for
from lsp_server.resolve.outcome import refused

if TYPE_CHECKING:
    from tree_sitter import Language, Node, Parser, Query, Tree

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
def bindings_dir() -> str | None:
    """The pack's folder of compiled grammars, found without importing the pack.

    Importing `tree_sitter_language_pack` loads three large grammars (C#, YAML, embedded
    templates) whatever the file's language, a large part of a cold structural edit;
    `find_spec` only locates the package.
    """
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
    folder = bindings_dir()
    if folder is None or not name.isidentifier():
        return None
    for suffix in importlib.machinery.EXTENSION_SUFFIXES:
        candidate = os.path.join(folder, name + suffix)
        if os.path.isfile(candidate):
            return candidate
    return None


def has_grammar(name: str | None) -> bool:
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
    name = language_name_for(path, hint)
    if has_grammar(name):
        return name
    if hint:  # the path named a language the pack lacks; the fence tag may still help
        alt = language_name_for(None, hint)
        if has_grammar(alt):
            return alt
    return None


def load_language(name: str) -> Language:
    """The tree-sitter Language for a pack grammar, loading only that grammar's binary.

    Equivalent to `tree_sitter_language_pack.get_language(name)`, which it falls back to
    whenever the binary cannot be loaded directly.
    """
    from tree_sitter import Language

    module_name = _SEPARATE_GRAMMARS.get(name)
    if module_name is not None:
        return Language(importlib.import_module(module_name).language())
    path = _binding_file(name)
    if path is not None:
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


class Grammar:
    """A language spec bound to its loaded grammar: only node types the grammar knows.

    Queries are compiled on first use: a cold edit that finds its target by name never
    compiles the structure or block query, and a file without syntax errors never
    compiles the error query (compiling a query is not free).
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


@cache
def grammar(name: str) -> Grammar:
    try:
        from tree_sitter import Parser

        language = load_language(name)
    except Exception as exc:  # a broken or missing binary: say so, never guess
        raise refused(
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
    return Grammar(name, spec, language, Parser(language), structures, blocks)


def grammar_for(path: str | None, hint: str | None) -> Grammar:
    name = language_for(path, hint)
    if name is None:
        tabled = ", ".join(L.TABLED_LANGUAGES)
        raise refused(
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
    return grammar(name)


class Parsed:
    """A parsed file: its text and tree, plus room for the index of its structures.

    The tree is never edited in place (an incremental reparse edits a copy), so a
    `Parsed` stays valid after its document moved on, and two cache entries may share a
    tree. The outline stage fills `items`, `memo`, `kids` and `by_owner` with its
    `outline.Item`s on demand (see `outline.index` and `outline.item_at`); they live here
    so that they are cached, and forgotten, with the tree they describe, and are typed
    `Any` here because this stage comes before the outline.
    """

    def __init__(self, grammar: Grammar, key: str, text: str, src: bytes, tree: Tree) -> None:
        self.grammar = grammar
        self.key = key
        self.text = text
        self.src = src
        self.tree = tree
        self.lines: list[str] | None = None
        self.starts: list[int] | None = None
        # every structure, in document order, once the whole index is built
        self.items: list[Any] | None = None
        # structures defined outside their owner, by owner
        self.by_owner: dict[str, list[Any]] | None = None
        # (node id, start byte) -> its item, or None when that structure node is not indexed
        self.memo: dict[tuple[int, int], Any] = {}
        # id(item) -> its children, for items met before the whole index was built
        self.kids: dict[int, list[Any]] = {}

    def line_starts(self) -> list[int]:
        """Byte offset where each line starts."""
        if self.starts is None:
            # running sums of (line length + 1), kept in C: a Python loop is much slower
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


_CACHE: OrderedDict[tuple[str, str], Parsed] = OrderedDict()
# Parsers and cached trees are shared and not thread-safe; the server may call from a pool.
_LOCK = threading.RLock()
_F = TypeVar("_F", bound=Callable[..., Any])


def locked(fn: _F) -> _F:
    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        with _LOCK:
            return fn(*args, **kwargs)

    return typing.cast(_F, wrapper)


def encode(text: str) -> bytes:
    return text.encode("utf-8", "surrogatepass")


# A changed span longer than this is split into the lines that really differ: a reply's
# edits are spread over a file, and one span from the first to the last would make
# tree-sitter re-parse nearly everything in between.
SPLIT_BYTES = 2048


def _changed_ranges(a: bytes, b: bytes) -> list[tuple[int, int, int, int]]:
    """Where `b` differs from `a`, in order: (a_start, a_end, b_start, b_end) byte spans."""
    start = common_prefix(a, b)
    suffix = common_suffix(a, b, min(len(a), len(b)) - start)
    a_end, b_end = len(a) - suffix, len(b) - suffix
    whole = [(start, a_end, start, b_end)]
    if min(a_end, b_end) - start <= SPLIT_BYTES:
        return whole
    a_lines, b_lines = a.splitlines(keepends=True), b.splitlines(keepends=True)
    # bytes lines diff alike; past `MAX_REGIONS` splices (or for a rewrite) tree-sitter
    # gains little from a finer split
    ops = local_opcodes(a_lines, b_lines, MAX_REGIONS)  # type: ignore[arg-type]
    if ops is None:
        return whole
    a_at = list(itertools.accumulate(map(len, a_lines), initial=0))
    b_at = list(itertools.accumulate(map(len, b_lines), initial=0))
    return [(a_at[i1], a_at[i2], b_at[j1], b_at[j2]) for _tag, i1, i2, j1, j2 in ops]


# More changed regions than this and they are edited into the tree as one: each
# `tree.edit` walks the tree, and a text changed in thousands of places keeps little of it.
MAX_REGIONS = 256


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


def parse(text: str, grammar: Grammar, key: str | None, base: str | None = None) -> Parsed:
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
        return _remember(cache_key, Parsed(grammar, key or "", text, twin.src, twin.tree))
    if old is None and base is not None:
        old = _CACHE.get((grammar.name, base))
    src = encode(text)
    if old is not None:
        a = old.src
        regions = _changed_ranges(a, src)
        tree = old.tree.copy()  # the old Parsed keeps its tree intact
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
    return _remember(cache_key, Parsed(grammar, key or "", text, src, tree))


def _remember(cache_key: tuple[str, str], parsed: Parsed) -> Parsed:
    _CACHE[cache_key] = parsed
    _CACHE.move_to_end(cache_key)
    while len(_CACHE) > _CACHE_SIZE:
        _CACHE.popitem(last=False)
    return parsed


def cached(language: str, key: str) -> Parsed | None:
    """The parse cached for `key` under grammar `language`, if any (recency unchanged)."""
    return _CACHE.get((language, key))


@locked
def forget_all() -> None:
    """Drop every cached tree."""
    _CACHE.clear()


# `resolve.cache.clear_all` (a benchmark's "cold", memory pressure) drops the trees too
text_cache.on_clear(forget_all)


@locked
def forget(path: str) -> None:
    """Drop cached trees for a closed document."""
    for key in [k for k in _CACHE if k[1] == path]:
        del _CACHE[key]


def captures(
    query: Query, node: Node, name: str, byte_range: tuple[int, int] | None = None
) -> list[Node]:
    """The nodes `query` captures as `@name` under `node` (those overlapping `byte_range`,
    when given), in no reliable order."""
    from tree_sitter import QueryCursor  # deferred, as every tree_sitter import here

    cursor = QueryCursor(query)
    if byte_range is not None:
        cursor.set_byte_range(*byte_range)
    return cursor.captures(node).get(name, [])


def node_at(p: Parsed, row: int, column: int, named: bool = False) -> Node | None:
    """The smallest node (named node, with `named`) spanning the point (row, column)."""
    from tree_sitter import Point  # deferred, as every tree_sitter import here

    at = Point(row, column)
    root = p.tree.root_node
    if named:
        return root.named_descendant_for_point_range(at, at)
    return root.descendant_for_point_range(at, at)


def error_nodes(p: Parsed) -> list[Node]:
    """The ERROR and MISSING nodes of a parse, in document order (outermost first)."""
    if not p.tree.root_node.has_error:
        return []
    found = captures(p.grammar.error_query, p.tree.root_node, "e")
    return sorted(found, key=lambda n: (n.start_byte, -n.end_byte, n.is_missing))


@locked
def syntax_errors(
    text: str, path: str, language: str | None = None, base: str | None = None
) -> list[dict[str, Any]]:
    """Syntax errors tree-sitter finds: 1-based line and column, and what is wrong.

    `path` is also the key the tree is cached under; `base` names a cached tree of a
    similar text to parse incrementally from (see `parse`).
    """
    name = language_for(path, language)
    if name is None:
        return []
    p = parse(text.replace("\r\n", "\n"), grammar(name), path, base)
    out = []
    for node in error_nodes(p):
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
