"""The fast paths of structural resolution give the answers of the slow ones.

Resolution finds a target's first level by searching the file for the level's words and
deciding only the structures around each occurrence (`_named`, `_item_at`), instead of
indexing every structure of the file (`_index`). Grammars are loaded from their binary
without importing the whole language pack, trees are shared between cache entries, and
file names are read without pathlib. Each test here compares a fast path with the
reference it replaces, on generated files with random edits (syntax errors included).
"""

from __future__ import annotations

import random
import typing
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import PurePosixPath
from typing import Any
from unittest import mock

from hypothesis import given, settings
from hypothesis import strategies as st

from lsp_server.model import PlacementError, Target
from lsp_server.resolve import languages as L
from lsp_server.resolve import structure
from lsp_server.resolve.structure import (
    _grammar,
    _index,
    _item_at,
    _kids,
    _named,
    _Parsed,
    _resolve_path,
    _starting_in,
    apply_structure,
)

# --------------------------------------------------------------------------- generated files

# Names that are words of one another (`run` in `rerun`, `run_all`) and recur at several
# depths, so candidate search meets decoys, ambiguity and shadowing.
NAMES = ["run", "rerun", "run_all", "get", "value", "Point", "Gamma", "dist", "alpha"]
TYPES = ["Point", "Gamma", "Shape", "RunBox"]


def _py_unit(r: random.Random) -> str:
    n, m, v = r.choice(NAMES), r.choice(NAMES), r.choice(NAMES)
    c = r.choice(TYPES)
    return r.choice(
        [
            f"def {n}(x):\n    {v} = 1\n    return {m}(x)\n",
            f"def {n}(x):\n    def {m}():\n        return x\n    return {m}()\n",
            f"class {c}:\n    {v} = 1\n\n    def {m}(self):\n        return {n}\n\n"
            f"    def {n}(self):\n        pass\n",
            f"@decorate\ndef {n}():\n    # calls {m}\n    return '{m}'\n",
            f"if TYPE_CHECKING:\n    def {n}():\n        pass\n",
            f"{v} = {n}\n",
            f"class {c}({r.choice(TYPES)}):\n    class {r.choice(TYPES)}:\n"
            f"        def {m}(self):\n            pass\n",
        ]
    )


def _ts_unit(r: random.Random) -> str:
    n, m, v = r.choice(NAMES), r.choice(NAMES), r.choice(NAMES)
    c = r.choice(TYPES)
    return r.choice(
        [
            f"function {n}(a: number) {{\n  const {v} = 1;\n  return {m}(a);\n}}\n",
            f"export class {c} {{\n  {v} = 2;\n"
            f"  {m}(x: number) {{\n    return this.{n};\n  }}\n}}\n",
            f"const {n} = (x: number) => x + 1;\n",
            f"interface {c} {{\n  {m}(): void;\n}}\n",
            f"export function {n}<T>(x: T): T {{\n  // {m}\n  return x;\n}}\n",
            f"if (ready) {{\n  function {n}() {{}}\n}}\n",
        ]
    )


def _go_unit(r: random.Random) -> str:
    n, m, f = r.choice(NAMES), r.choice(NAMES), r.choice(NAMES)
    c = r.choice(TYPES)
    return r.choice(
        [
            f"func {n}(x int) int {{\n\treturn {m}(x)\n}}\n",
            f"type {c} struct {{\n\t{f} int\n}}\n",
            f"func (p *{c}) {m}() int {{\n\treturn p.{f}\n}}\n",
            f"func ({c}) {n}() {{}}\n",
            f"var {f} = {n}\n",
        ]
    )


def _rs_unit(r: random.Random) -> str:
    n, m, f = r.choice(NAMES), r.choice(NAMES), r.choice(NAMES)
    c = r.choice(TYPES)
    return r.choice(
        [
            f"fn {n}() -> i32 {{\n    {m}()\n}}\n",
            f"struct {c} {{\n    {f}: i32,\n}}\n",
            f"impl {c} {{\n    fn {m}(&self) -> i32 {{\n        self.{f}\n    }}\n}}\n",
            f"impl Display for {c} {{\n    fn fmt(&self) {{}}\n}}\n",
            f"mod {n} {{\n    fn {m}() {{}}\n}}\n",
            f"#[test]\nfn {n}() {{}}\n",
        ]
    )


def _cpp_unit(r: random.Random) -> str:
    n, m, f = r.choice(NAMES), r.choice(NAMES), r.choice(NAMES)
    c = r.choice(TYPES)
    return r.choice(
        [
            f"int {n}(int x) {{ return x; }}\n",
            f"class {c} {{\npublic:\n  void {m}();\n  int {f};\n}};\n",
            f"void {c}::{m}() {{ {n}(1); }}\n",
            f"namespace {n} {{\nint {m}() {{ return 0; }}\n}}\n",
            f"struct {c} {{ int {f}; }};\n",
        ]
    )


LANGS: dict[str, tuple[str, Callable[[random.Random], str]]] = {
    "python": ("py", _py_unit),
    "typescript": ("ts", _ts_unit),
    "go": ("go", _go_unit),
    "rust": ("rs", _rs_unit),
    "cpp": ("cpp", _cpp_unit),
}
JUNK = [" ", "\n", "x", "(", "}", "{", "def ", "# ", "//", '"', ":", "    "]


def _file(lang: str, r: random.Random, units: int) -> str:
    head = "package main\n\n" if lang == "go" else ""
    return head + "\n".join(LANGS[lang][1](r) for _ in range(units))


def _edit(text: str, r: random.Random) -> str:
    pos = r.randrange(len(text) + 1)
    cut = r.choice([0, 0, 1, 3])
    return text[:pos] + r.choice(JUNK + [""]) + text[pos + cut :]


def _targets(lang: str, r: random.Random) -> list[str]:
    n, m, c = r.choice(NAMES), r.choice(NAMES), r.choice(TYPES)
    word = {"python": "def", "typescript": "function", "go": "func", "rust": "fn"}.get(lang, "")
    return r.choice(
        [
            [n],
            [f"{word} {n}".strip()],
            [c],
            [f"class {c}"],
            [c, m],
            [f"{c}.{m}"],
            [f"{c}::{m}"],
            [f"func (p *{c}) {m}"],
            [f"impl Display for {c}", "fmt"],
            [f"impl {c}", m],
            [n, m],
            ["if TYPE_CHECKING", n],
            ["zzz_missing"],
            [f"{n}(x)"],
            [f"{n}(x int) int"],
            ["*"],
        ]
    )


# --------------------------------------------------------------------------- helpers


def _fresh(lang: str, text: str) -> _Parsed:
    """A parse of `text` that no cache entry shares."""
    g = _grammar(lang)
    src = text.encode("utf-8", "surrogatepass")
    return _Parsed(g, "", text, src, g.parser.parse(src))


@contextmanager
def _whole_index_only() -> Iterator[None]:
    """Resolution as it was before the fast paths: every lookup walks the whole index."""
    with (
        mock.patch.object(structure, "_top_hits", lambda *a, **k: None),
        mock.patch.object(structure, "_named", lambda *a, **k: None),
    ):
        yield


def _describe(item: structure._Item | None) -> Any:
    if item is None:
        return None
    parent = item.parent
    return (
        item.node.start_byte,
        item.node.end_byte,
        item.node.type,
        item.kind,
        item.name,
        item.owner,
        item.aliases,
        item.weak,
        None if parent is None else (parent.node.start_byte, parent.node.end_byte),
    )


def _outcome(fn: Callable[[], Any]) -> Any:
    try:
        return ("ok", fn())
    except PlacementError as err:
        return ("error", err.failure.code, err.failure.message, err.failure.details)


def _resolved(p: _Parsed, levels: list[str]) -> Any:
    found, matched = _resolve_path(p, levels)
    return [_describe(i) for i in found], matched


# --------------------------------------------------------------------------- the index


@settings(max_examples=60, deadline=None)
@given(
    lang=st.sampled_from(sorted(LANGS)),
    seed=st.integers(0, 10**9),
    units=st.integers(1, 14),
    edits=st.integers(0, 3),
)
def test_deciding_one_node_agrees_with_indexing_the_whole_file(
    lang: str, seed: int, units: int, edits: int
) -> None:
    r = random.Random(seed)
    text = _file(lang, r, units)
    for _ in range(edits):
        text = _edit(text, r)
    full = _fresh(lang, text)
    items = _index(full)
    lazy = _fresh(lang, text)
    from tree_sitter import QueryCursor

    query = full.grammar.struct_query
    assert query is not None
    nodes = QueryCursor(query).captures(lazy.tree.root_node).get("s", [])
    r.shuffle(nodes)  # any order of lookups gives the same items
    by_start = {(i.node.start_byte, i.node.end_byte, i.node.type): i for i in items}
    for node in nodes:
        want = by_start.get((node.start_byte, node.end_byte, node.type))
        assert _describe(_item_at(lazy, node)) == _describe(want)
    # children listed on demand are the index's children
    lazy2 = _fresh(lang, text)
    for item in items:
        node = lazy2.tree.root_node.descendant_for_byte_range(
            item.node.start_byte, item.node.end_byte
        )
        while node is not None and _key(node, item) is False:
            node = node.parent
        assert node is not None
        got = _item_at(lazy2, node)
        assert got is not None
        assert [_describe(k) for k in _kids(lazy2, got)] == [_describe(k) for k in item.children]
    # every structure carrying a name, found from the name's occurrences alone
    names = {i.name for i in items} | set(NAMES) | {"Display for Point", "Point.dist"}
    for name in names:
        want_named = [i for i in items if i.name == name or name in i.aliases]
        got_named = _named(_fresh(lang, text), {name})
        if got_named is not None:
            assert [_describe(i) for i in got_named] == [_describe(i) for i in want_named]
        want_owned = full.owned().get(name, [])
        got_owned = _named(_fresh(lang, text), {name}, owner=True)
        if got_owned is not None:
            assert [_describe(i) for i in got_owned] == [_describe(i) for i in want_owned]


def _key(node: Any, item: structure._Item) -> bool:
    return (node.start_byte, node.end_byte, node.type) == (
        item.node.start_byte,
        item.node.end_byte,
        item.node.type,
    )


@settings(max_examples=40, deadline=None)
@given(lang=st.sampled_from(sorted(LANGS)), seed=st.integers(0, 10**9))
def test_structures_starting_on_some_lines_agree_with_the_whole_index(lang: str, seed: int) -> None:
    r = random.Random(seed)
    text = _edit(_file(lang, r, r.randint(1, 12)), r)
    full = _fresh(lang, text)
    _index(full)
    lazy = _fresh(lang, text)
    for _ in range(5):
        lo = r.randrange(len(text) + 1)
        hi = r.randrange(lo, len(text) + 2)
        assert [_describe(i) for i in _starting_in(lazy, lo, hi)] == [
            _describe(i) for i in _starting_in(full, lo, hi)
        ]


# --------------------------------------------------------------------------- resolution


@settings(max_examples=120, deadline=None)
@given(
    lang=st.sampled_from(sorted(LANGS)),
    seed=st.integers(0, 10**9),
    units=st.integers(1, 14),
    edits=st.integers(0, 2),
)
def test_resolving_by_name_agrees_with_resolving_on_the_whole_index(
    lang: str, seed: int, units: int, edits: int
) -> None:
    r = random.Random(seed)
    text = _file(lang, r, units)
    for _ in range(edits):
        text = _edit(text, r)
    for _ in range(4):
        levels = _targets(lang, r)
        fast = _outcome(lambda: _resolved(_fresh(lang, text), levels))  # noqa: B023
        with _whole_index_only():
            slow = _outcome(lambda: _resolved(_fresh(lang, text), levels))  # noqa: B023
        assert fast == slow, levels


@settings(max_examples=40, deadline=None)
@given(lang=st.sampled_from(sorted(LANGS)), seed=st.integers(0, 10**9))
def test_a_document_being_edited_gets_the_edits_a_fresh_parse_gets(lang: str, seed: int) -> None:
    """The cached, incrementally re-parsed, lazily indexed document against a fresh,
    fully indexed parse of each version, for every operation that edits in place."""
    r = random.Random(seed)
    ext = LANGS[lang][0]
    doc, ref = f"doc_{seed}.{ext}", f"ref_{seed}.{ext}"
    text = _file(lang, r, r.randint(2, 10))
    ops = ["replace_structure", "insert_after_structure", "delete_structure", "read_structure"]
    try:
        for _ in range(5):
            text = _edit(text, r) if r.random() < 0.7 else text
            target = Target(node=tuple(_targets(lang, r)), operation=r.choice(ops))
            code = LANGS[lang][1](r)
            fast = _outcome(
                lambda: _edit_of(apply_structure(text, doc, target, code))  # noqa: B023
            )
            with _whole_index_only():
                structure.forget(ref)
                slow = _outcome(
                    lambda: _edit_of(apply_structure(text, ref, target, code))  # noqa: B023
                )
            assert fast == slow, target
    finally:
        structure.forget(doc)
        structure.forget(ref)


def _edit_of(edit: structure.StructureEdit) -> Any:
    return edit.text, edit.placement, edit.result


# --------------------------------------------------------------------------- the cache


def test_a_text_cached_under_another_key_shares_its_tree_and_survives_later_edits() -> None:
    old = "def a():\n    return 1\n\n\ndef b():\n    return 2\n"
    new = old.replace("return 2", "return (")
    structure.forget("share.py")
    structure.forget("share.py\x00old")
    try:
        edit = apply_structure(old, "share.py", Target(node=("b",)), "def b():\n    return (\n")
        assert edit.text == new
        first = structure._CACHE[("python", "share.py")]
        twin = structure._parse(old, _grammar("python"), "share.py\x00old")
        assert twin.tree is first.tree  # not parsed again
        structure._parse(new, _grammar("python"), "share.py")  # edits a copy of that tree
        fresh = _grammar("python").parser.parse(old.encode())
        assert str(twin.tree.root_node) == str(fresh.root_node)
        assert str(first.tree.root_node) == str(fresh.root_node)
        warnings = structure.structural_warnings(old, new, "share.py", edit.placement)
        assert [w.type.name for w in warnings] == ["SYNTAX_BROKEN"]
    finally:
        structure.forget("share.py")
        structure.forget("share.py\x00old")


# --------------------------------------------------------------------------- grammars, names


def test_grammars_present_in_the_pack_are_known_without_importing_it() -> None:
    from tree_sitter_language_pack import SupportedLanguage

    supported = set(typing.get_args(SupportedLanguage))
    folder = structure._bindings_dir()
    assert folder is not None
    import os

    on_disk = {f.split(".")[0] for f in os.listdir(folder) if not f.startswith("_")}
    names = supported | on_disk | set(L.SPECS) | {"no_such_grammar", "", "bindings"}
    for name in names:
        assert structure._has_grammar(name) == (name in supported), name


def test_a_grammar_loaded_from_its_binary_is_the_packs_grammar() -> None:
    from tree_sitter import Parser
    from tree_sitter_language_pack import get_language

    for name in ("python", "typescript", "go", "csharp", "yaml", "embeddedtemplate"):
        mine, theirs = structure._load_language(name), get_language(name)  # type: ignore[arg-type]
        assert mine.node_kind_count == theirs.node_kind_count
        assert mine.abi_version == theirs.abi_version
        snippet = b"def f(x):\n  return [x, {'a': 1}]\n"
        a, b = Parser(mine).parse(snippet), Parser(theirs).parse(snippet)
        assert str(a.root_node) == str(b.root_node)


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.sampled_from(["", ".", "..", "a", "b.py", ".bashrc", "x.tar.gz", "Dockerfile", "a.b"]),
        max_size=5,
    ),
    st.booleans(),
    st.booleans(),
)
def test_file_names_and_extensions_are_read_like_pathlib(
    parts: list[str], absolute: bool, trailing: bool
) -> None:
    path = ("/" if absolute else "") + "/".join(parts) + ("/" if trailing else "")
    p = PurePosixPath(path)
    assert L._name_and_suffix(path) == (p.name, p.suffix)


@settings(max_examples=60, deadline=None)
@given(lang=st.sampled_from(sorted(LANGS)), seed=st.integers(0, 10**9))
def test_a_line_start_found_near_a_node_is_the_line_table_entry(lang: str, seed: int) -> None:
    r = random.Random(seed)
    text = _edit(_file(lang, r, r.randint(1, 12)), r)
    if r.random() < 0.3:
        text = "\n" * r.randint(1, 90) + text + "\n" * r.randint(0, 90) + "é"
    lines = text.count("\n") + 1
    for row in {0, 1, lines - 1, lines, lines + 3, *(r.randrange(lines) for _ in range(20))}:
        lazy = _fresh(lang, text)
        table = _fresh(lang, text)
        table.line_starts()
        assert structure._line_start_byte(lazy, row) == structure._line_start_byte(table, row)


def test_clear_all_also_drops_parsed_trees():
    """Benchmarks' "cold" empties every cache; parsed trees must not survive it."""
    from lsp_server.resolve import cache, structure

    structure.syntax_errors("def f(:\n    pass\n", "cleared.py")
    assert any(key[1] == "cleared.py" for key in structure._CACHE)
    cache.clear_all()
    assert not any(key[1] == "cleared.py" for key in structure._CACHE)


# --------------------------------------------------------------------------- incremental parse


def _nodes(tree: Any) -> list[tuple[Any, ...]]:
    """Every node, named or not, with its byte and point span: what a fresh parse gives."""
    out = []
    cursor = tree.walk()
    while True:
        n = cursor.node
        out.append((n.type, n.start_byte, n.end_byte, n.start_point, n.end_point, n.is_missing))
        if cursor.goto_first_child() or cursor.goto_next_sibling():
            continue
        while cursor.goto_parent():
            if cursor.goto_next_sibling():
                break
        else:
            return out


@settings(max_examples=40, deadline=None)
@given(
    lang=st.sampled_from(sorted(LANGS)),
    seed=st.integers(0, 10**9),
    split=st.sampled_from([0, 64, structure._SPLIT_BYTES]),
    regions=st.sampled_from([1, 3, structure._MAX_REGIONS]),
    junk=st.booleans(),
)
def test_a_tree_updated_for_several_spread_edits_is_the_tree_a_fresh_parse_gives(
    lang: str, seed: int, split: int, regions: int, junk: bool
) -> None:
    """A reply edits a file in several places: the cached tree is edited once per changed
    region (not one region from the first change to the last) and re-parsed. Positions of
    every node, rows and columns included, must be those of a full parse of the new text,
    whichever text (old or new) ends without a newline, and when there are more changed
    regions than are edited in one by one (then they go in as one)."""
    r = random.Random(seed)
    units = [LANGS[lang][1](r) for _ in range(r.randint(3, 30))]
    old = "\n".join(units)
    for _ in range(r.randint(1, 6)):
        i = r.randrange(len(units))
        units[i] = LANGS[lang][1](r) if r.random() < 0.6 else ""
    new = "\n".join(units)
    if junk:
        new = _edit(new, r)
    if r.random() < 0.3:
        new = new.rstrip("\n")
    key = f"spread_{seed}.{LANGS[lang][0]}"
    g = _grammar(lang)
    try:
        with (
            mock.patch.object(structure, "_SPLIT_BYTES", split),
            mock.patch.object(structure, "_MAX_REGIONS", regions),
        ):
            structure._parse(old, g, key)
            got = structure._parse(new, g, key)
        assert _nodes(got.tree) == _nodes(g.parser.parse(new.encode()))
    finally:
        structure.forget(key)


def test_the_syntax_check_parses_the_old_text_from_the_new_texts_tree() -> None:
    """`base`: with no tree of its own, a key starts from a relative's tree and still gets
    the errors a fresh parse finds."""
    old = "def a():\n    return 1\n\n\ndef b(:\n    return 2\n"
    new = old.replace("return 1", "return (1")
    g = _grammar("python")
    calls: list[Any] = []

    class Spy:
        def parse(self, src: bytes, tree: Any = None) -> Any:
            calls.append(tree)
            return real.parse(src, tree) if tree is not None else real.parse(src)

    real = g.parser
    try:
        after = structure.syntax_errors(new, "base.py")
        with mock.patch.object(g, "parser", Spy()):
            before = structure.syntax_errors(old, "base.py\x00old", "python", base="base.py")
        assert len(calls) == 1 and calls[0] is not None  # incremental, from new's tree
        structure.forget_all()  # no tree left to share: a full parse
        fresh = structure.syntax_errors(old, "base_fresh.py")
        assert before == fresh and [e["line"] for e in before] == [5]
        assert len(after) > len(before)
    finally:
        for key in ("base.py", "base.py\x00old", "base_fresh.py"):
            structure.forget(key)
