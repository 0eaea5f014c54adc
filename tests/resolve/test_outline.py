"""The outline: which nodes are structures, their kinds, names and nesting; and the fast
ways in (deciding one node, children on demand, the structures carrying a name, those
starting in a span), each compared with indexing the whole file."""

from __future__ import annotations

import random
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from lsp_server.resolve import outline, spans, syntax
from lsp_server.resolve.outline import Item

from .samples import LANGS, NAMES, PY, describe, fresh, random_edit, source_file


def list_structures(text: str, path: str) -> list[dict[str, Any]]:
    """The file's outline: kind, name, first and last line (1-based, comments and
    decorators included) and children of each top-level structure."""
    p = syntax.parse(text, syntax.grammar_for(path, None), path)

    def entry(item: Item) -> dict[str, Any]:
        lay = spans.layers(p, item.node)
        return {
            "kind": item.kind,
            "name": item.name,
            "start_line": lay.outer_row + 1,
            "end_line": lay.end_row + 1,
            "children": [entry(c) for c in item.children],
        }

    return [entry(i) for i in outline.top(p)]


# --------------------------------------------------------------------------- kinds and names


def test_outline_is_nested_with_kinds_and_lines() -> None:
    found = list_structures(PY, "m.py")
    assert [(i["kind"], i["name"], i["start_line"], i["end_line"]) for i in found] == [
        ("function", "a", 4, 5),
        ("function", "b", 8, 9),
        ("class", "C", 12, 17),
    ]
    assert [(c["kind"], c["name"]) for c in found[2]["children"]] == [
        ("method", "m1"),
        ("method", "m2"),
    ]


def test_outline_leaves_out_local_variables() -> None:
    py = "LIMIT = 3\n\n\ndef f():\n    local = 1\n    return local\n"
    names = [i["name"] for i in list_structures(py, "a.py")]
    assert names == ["LIMIT", "f"]
    assert list_structures(py, "a.py")[1]["children"] == []


# --------------------------------------------------------------------------- fast paths


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
    text = source_file(lang, r, units)
    for _ in range(edits):
        text = random_edit(text, r)
    full = fresh(lang, text)
    items = outline.index(full)
    lazy = fresh(lang, text)
    from tree_sitter import QueryCursor

    query = full.grammar.struct_query
    assert query is not None
    nodes = QueryCursor(query).captures(lazy.tree.root_node).get("s", [])
    r.shuffle(nodes)  # any order of lookups gives the same items
    by_start = {(i.node.start_byte, i.node.end_byte, i.node.type): i for i in items}
    for node in nodes:
        want = by_start.get((node.start_byte, node.end_byte, node.type))
        assert describe(outline.item_at(lazy, node)) == describe(want)
    # children listed on demand are the index's children
    lazy2 = fresh(lang, text)
    for item in items:
        node = lazy2.tree.root_node.descendant_for_byte_range(
            item.node.start_byte, item.node.end_byte
        )
        while node is not None and _key(node, item) is False:
            node = node.parent
        assert node is not None
        got = outline.item_at(lazy2, node)
        assert got is not None
        children = [describe(k) for k in item.children]
        assert [describe(k) for k in outline.kids(lazy2, got)] == children
    # every structure carrying a name, found from the name's occurrences alone
    names = {i.name for i in items} | set(NAMES) | {"Display for Point", "Point.dist"}
    for name in names:
        want_named = [i for i in items if i.name == name or name in i.aliases]
        got_named = outline.named(fresh(lang, text), {name})
        if got_named is not None:
            assert [describe(i) for i in got_named] == [describe(i) for i in want_named]
        want_owned = outline.owned(full).get(name, [])
        got_owned = outline.named(fresh(lang, text), {name}, owner=True)
        if got_owned is not None:
            assert [describe(i) for i in got_owned] == [describe(i) for i in want_owned]


def _key(node: Any, item: Item) -> bool:
    return (node.start_byte, node.end_byte, node.type) == (
        item.node.start_byte,
        item.node.end_byte,
        item.node.type,
    )


@settings(max_examples=40, deadline=None)
@given(lang=st.sampled_from(sorted(LANGS)), seed=st.integers(0, 10**9))
def test_structures_starting_on_some_lines_agree_with_the_whole_index(lang: str, seed: int) -> None:
    r = random.Random(seed)
    text = random_edit(source_file(lang, r, r.randint(1, 12)), r)
    full = fresh(lang, text)
    outline.index(full)
    lazy = fresh(lang, text)
    for _ in range(5):
        lo = r.randrange(len(text) + 1)
        hi = r.randrange(lo, len(text) + 2)
        assert [describe(i) for i in outline.starting_in(lazy, lo, hi)] == [
            describe(i) for i in outline.starting_in(full, lo, hi)
        ]


