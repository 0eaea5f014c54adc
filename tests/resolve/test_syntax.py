"""Syntax trees: grammars loaded from their binaries, the parse cache, incremental re-parse
and the syntax check. Fast paths are compared with the reference they replace (the
language pack's loader, a fresh full parse), on generated files with random edits."""

from __future__ import annotations

import os
import random
import typing
from typing import Any
from unittest import mock

from hypothesis import given, settings
from hypothesis import strategies as st

from lsp_server.model import Target
from lsp_server.resolve import cache, outline, syntax
from lsp_server.resolve import languages as L
from lsp_server.resolve.structure import apply_structure, structural_warnings

from .samples import LANGS, PY, random_edit

# --------------------------------------------------------------------------- grammars


def test_grammars_present_in_the_pack_are_known_without_importing_it() -> None:
    from tree_sitter_language_pack import SupportedLanguage

    supported = set(typing.get_args(SupportedLanguage))
    folder = syntax.bindings_dir()
    assert folder is not None
    on_disk = {f.split(".")[0] for f in os.listdir(folder) if not f.startswith("_")}
    names = supported | on_disk | set(L.SPECS) | {"no_such_grammar", "", "bindings"}
    for name in names:
        assert syntax.has_grammar(name) == (name in supported), name


def test_a_grammar_loaded_from_its_binary_is_the_packs_grammar() -> None:
    from tree_sitter import Parser
    from tree_sitter_language_pack import get_language

    for name in ("python", "typescript", "go", "csharp", "yaml", "embeddedtemplate"):
        mine, theirs = syntax.load_language(name), get_language(name)  # type: ignore[arg-type]
        assert mine.node_kind_count == theirs.node_kind_count
        assert mine.abi_version == theirs.abi_version
        snippet = b"def f(x):\n  return [x, {'a': 1}]\n"
        a, b = Parser(mine).parse(snippet), Parser(theirs).parse(snippet)
        assert str(a.root_node) == str(b.root_node)


# --------------------------------------------------------------------------- the cache


def test_a_text_cached_under_another_key_shares_its_tree_and_survives_later_edits() -> None:
    old = "def a():\n    return 1\n\n\ndef b():\n    return 2\n"
    new = old.replace("return 2", "return (")
    syntax.forget("share.py")
    syntax.forget("share.py\x00old")
    try:
        edit = apply_structure(old, "share.py", Target(node=("b",)), "def b():\n    return (\n")
        assert edit.text == new
        first = syntax.cached("python", "share.py")
        assert first is not None
        twin = syntax.parse(old, syntax.grammar("python"), "share.py\x00old")
        assert twin.tree is first.tree  # not parsed again
        syntax.parse(new, syntax.grammar("python"), "share.py")  # edits a copy of that tree
        fresh = syntax.grammar("python").parser.parse(old.encode())
        assert str(twin.tree.root_node) == str(fresh.root_node)
        assert str(first.tree.root_node) == str(fresh.root_node)
        warnings = structural_warnings(old, new, "share.py", edit.placement)
        assert [w.type.name for w in warnings] == ["SYNTAX_BROKEN"]
    finally:
        syntax.forget("share.py")
        syntax.forget("share.py\x00old")


def test_warm_then_edit_reuses_and_updates_the_cached_tree() -> None:
    syntax.forget("cache.py")
    outline.warm(PY, "cache.py")
    key = ("python", "cache.py")
    first = syntax.cached(*key)
    assert first is not None and first.items is not None  # indexed ahead of time
    edited = PY.replace("return 2", "return 22")
    new = apply_structure(edited, "cache.py", Target(node=("b",)), "def b():\n    return 3\n").text
    assert new == PY.replace("return 2", "return 3")
    now = syntax.cached(*key)
    assert now is not None and now.text == edited
    syntax.forget("cache.py")
    assert syntax.cached(*key) is None


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 10_000))
def test_incremental_reparse_agrees_with_a_fresh_parse(seed: int) -> None:
    rng = random.Random(seed)
    text = PY
    outline.warm(text, "inc.py")
    for _ in range(3):
        pos = rng.randrange(len(text))
        cut = rng.randrange(0, 6)
        insert = rng.choice(["", "x", "\n", "    pass\n", "é", "def q():\n    return 0\n"])
        text = text[:pos] + insert + text[pos + cut :]
        incremental = syntax.parse(text, syntax.grammar("python"), "inc.py")
        fresh = syntax.grammar("python").parser.parse(text.encode("utf-8"))
        assert str(incremental.tree.root_node) == str(fresh.root_node)
    syntax.forget("inc.py")


def test_clear_all_also_drops_parsed_trees():
    """Benchmarks' "cold" empties every cache; parsed trees must not survive it."""
    syntax.syntax_errors("def f(:\n    pass\n", "cleared.py")
    assert syntax.cached("python", "cleared.py") is not None
    cache.clear_all()
    assert syntax.cached("python", "cleared.py") is None


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
    split=st.sampled_from([0, 64, syntax.SPLIT_BYTES]),
    regions=st.sampled_from([1, 3, syntax.MAX_REGIONS]),
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
        new = random_edit(new, r)
    if r.random() < 0.3:
        new = new.rstrip("\n")
    key = f"spread_{seed}.{LANGS[lang][0]}"
    g = syntax.grammar(lang)
    try:
        with (
            mock.patch.object(syntax, "SPLIT_BYTES", split),
            mock.patch.object(syntax, "MAX_REGIONS", regions),
        ):
            syntax.parse(old, g, key)
            got = syntax.parse(new, g, key)
        assert _nodes(got.tree) == _nodes(g.parser.parse(new.encode()))
    finally:
        syntax.forget(key)


def test_the_syntax_check_parses_the_old_text_from_the_new_texts_tree() -> None:
    """`base`: with no tree of its own, a key starts from a relative's tree and still gets
    the errors a fresh parse finds."""
    old = "def a():\n    return 1\n\n\ndef b(:\n    return 2\n"
    new = old.replace("return 1", "return (1")
    g = syntax.grammar("python")
    calls: list[Any] = []

    class Spy:
        def parse(self, src: bytes, tree: Any = None) -> Any:
            calls.append(tree)
            return real.parse(src, tree) if tree is not None else real.parse(src)

    real = g.parser
    try:
        after = syntax.syntax_errors(new, "base.py")
        with mock.patch.object(g, "parser", Spy()):
            before = syntax.syntax_errors(old, "base.py\x00old", "python", base="base.py")
        assert len(calls) == 1 and calls[0] is not None  # incremental, from new's tree
        syntax.forget_all()  # no tree left to share: a full parse
        fresh = syntax.syntax_errors(old, "base_fresh.py")
        assert before == fresh and [e["line"] for e in before] == [5]
        assert len(after) > len(before)
    finally:
        for key in ("base.py", "base.py\x00old", "base_fresh.py"):
            syntax.forget(key)
