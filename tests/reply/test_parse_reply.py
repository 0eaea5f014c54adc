"""`parse_reply` finds fences once and runs a format's finder only when the reply may hold
its blocks (issue 17 #4). The oracle is the plain way: every finder run on every reply over
a plain list of lines (no shared fences, no gates), overlaps settled by a quadratic scan.
Both must give exactly the same blocks."""

from __future__ import annotations

import ast
import dataclasses
import importlib
import subprocess
import sys
from functools import cache
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lsp_server.model import EditBlock
from lsp_server.reply import FINDERS, Gated, parse_reply
from lsp_server.reply.common import ReplyLines, dedent_indented_fences, find_fences
from lsp_server.reply.page_text import read_web_spaces

TESTS = Path(__file__).resolve().parents[1]


def _finder(entry):
    if isinstance(entry, Gated):
        return importlib.import_module(f"lsp_server.reply.{entry.module}").find_blocks
    return entry


def _view(entry, lines: list[str]) -> list[str]:
    view = getattr(entry, "view", None)
    return view(lines) if view is not None else lines


def oracle(text: str) -> tuple[EditBlock, ...]:
    """Every finder, unconditionally, on plain lines; a block is dropped when it overlaps
    one an earlier finder kept."""
    from lsp_server.reply import whole_file

    lines = read_web_spaces(text.replace("\r\n", "\n").replace("\r", "\n")).split("\n")
    kept: list[EditBlock] = []
    for entry in FINDERS:
        earlier = list(kept)
        for block in _finder(entry)(_view(entry, list(lines))):
            lo, hi = block.reply_lines
            if not any(lo <= b.reply_lines[1] and b.reply_lines[0] <= hi for b in earlier):
                kept.append(block)
    kept.extend(whole_file.stray_markers(list(lines), kept))
    kept.sort(key=lambda b: b.reply_lines)
    return tuple(dataclasses.replace(b, index=i) for i, b in enumerate(kept))


@cache
def corpus() -> tuple[str, ...]:
    """Every multi-line string constant in the test suite: the replies each format's tests
    were written with, whatever formats are added later."""
    out: set[str] = set()
    for path in sorted(TESTS.rglob("*.py")):
        try:
            tree = ast.parse(path.read_text(encoding="utf-8"))
        except (SyntaxError, UnicodeDecodeError):
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                if node.value.count("\n") >= 2 and len(node.value) < 20_000:
                    out.add(node.value)
    return tuple(sorted(out))


@cache
def corpus_lines() -> tuple[str, ...]:
    return tuple(sorted({line for text in corpus() for line in text.split("\n")}))


def test_the_corpus_is_large_enough_to_mean_something():
    assert len(corpus()) > 300
    assert any("*** Begin Patch" in t for t in corpus())
    assert any("TARGET_NODE" in t for t in corpus())


def test_every_reply_in_the_test_suite_parses_as_the_oracle_does():
    for text in corpus():
        assert parse_reply(text).blocks == oracle(text), text


# marker lines of every format, fences plain and indented, and lines that look like them
_VOCABULARY = [
    "<<<<<<< SEARCH", "=======", ">>>>>>> REPLACE", "<<<< EDIT", "==== REPLACE",
    ">>>> EDIT END", "*** Begin Patch", "*** Update File: a.py", "*** Add File: b.py",
    "*** End Patch", "@@", "@@ def f():", "--- a/a.py", "+++ b/a.py", "diff --git a/a.py b/a.py",
    "@@ -1,2 +1,2 @@", "-x = 1", "+x = 2", " y = 3", "```", "```python", "   ```", "   ```diff",
    "~~~", "~~~ts", "````", "a.py", "src/app.py", "# a.py", "FILE: a.py", "# TARGET_NODE: f",
    "TARGET_PATH: a.b", '{"path": "a.py", "content": "x\\n"}', "[", "{", "}", "]",
    '"path": "a.py",', "def f():", "    return 1", "", "Here is the change:", "1. Apply:",
]  # fmt: skip


# whole blocks of each format, to be fenced, indented, cut short and mixed with other lines
_BLOCKS = [
    ["a.py", "<<<<<<< SEARCH", "x = 1", "=======", "x = 2", ">>>>>>> REPLACE"],
    ["<<<<< SEARCH", "x = 1", "=====", "x = 2", ">>>>> REPLACE"],
    ["a.py", "<<<< EDIT", "x = 1", "==== REPLACE", "x = 2", ">>>> EDIT END"],
    ["--- a/a.py", "+++ b/a.py", "@@ -1 +1 @@", "-x = 1", "+x = 2"],
    ["diff --git a/a.py b/a.py", "--- a/a.py", "+++ b/a.py", "@@", " y", "-x = 1", "+x = 2"],
    ["*** Begin Patch", "*** Update File: a.py", "@@", "-x = 1", "+x = 2", "*** End Patch"],
    ['{"path": "a.py", "content": "x = 2\\n"}'],
    ['[{"path": "a.py", "old_string": "x = 1", "new_string": "x = 2"}]'],
    ["# FILE: a.py", "# TARGET_NODE: f", "def f():", "    return 2"],
    ["# a.py", "x = 2"],
]


@st.composite
def blocks(draw) -> list[str]:
    block = list(draw(st.sampled_from(_BLOCKS)))
    if draw(st.booleans()):
        del block[draw(st.integers(0, len(block) - 1))]
    if draw(st.booleans()):
        fence = draw(st.sampled_from(["```", "```python", "```diff", "```json", "~~~"]))
        block = [fence, *block, fence[:3]]
    return block


@st.composite
def replies(draw) -> str:
    pool = st.sampled_from(_VOCABULARY) | st.sampled_from(corpus_lines())
    parts = draw(st.lists(blocks() | st.lists(pool, max_size=6), max_size=8))
    lines = [line for part in parts for line in part]
    indents = st.sampled_from(["", "", "", "   ", "\t", "\u00a0\u00a0\u00a0", "\u00a0 "])
    indents = draw(st.lists(indents, min_size=len(lines)))
    sep = draw(st.sampled_from(["\n", "\n", "\r\n"]))
    return sep.join(i + line for i, line in zip(indents, lines, strict=False))


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(replies())
def test_parse_reply_gives_exactly_the_oracles_blocks(text):
    assert parse_reply(text).blocks == oracle(text)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(replies())
def test_a_closed_gate_means_the_finder_finds_nothing(text):
    lines = ReplyLines(read_web_spaces(text.replace("\r\n", "\n").replace("\r", "\n")))
    for entry in FINDERS:
        if isinstance(entry, Gated) and not entry.may_find(lines):
            assert _finder(entry)(_view(entry, list(lines))) == [], entry.module


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(replies())
def test_a_per_fence_finders_blocks_each_cover_a_fences_opening_line(text):
    """What `per_fence=True` promises, and parse_reply relies on to skip the finder once
    every fence's opening line is claimed."""
    lines = read_web_spaces(text.replace("\r\n", "\n").replace("\r", "\n")).split("\n")
    openers = {f.start + 1 for f in find_fences(lines)}
    for entry in FINDERS:
        if isinstance(entry, Gated) and entry.per_fence:
            for block in _finder(entry)(_view(entry, list(lines))):
                lo, hi = block.reply_lines
                assert any(lo <= k <= hi for k in openers), (entry.module, block)


@settings(max_examples=300, deadline=None)
@given(replies())
def test_shared_fences_are_the_ones_found_on_plain_lines_and_survive_dedenting(text):
    text = text.replace("\r\n", "\n")
    plain = text.split("\n")
    shared = ReplyLines(text)
    assert find_fences(shared) == find_fences(plain)
    dedented = dedent_indented_fences(plain)
    assert find_fences(dedented) == find_fences(plain)
    assert dedent_indented_fences(shared) == dedented
    assert find_fences(dedent_indented_fences(shared)) == find_fences(plain)


def test_fences_are_found_once_per_reply(monkeypatch):
    from lsp_server.reply import common

    calls = []
    real = common._scan_fences
    monkeypatch.setattr(common, "_scan_fences", lambda lines: calls.append(1) or real(lines))
    text = "a.py\n```python\nx = 1\n```\n\n   ```diff\n   --- a/b.py\n   +++ b/b.py\n   @@\n"
    parse_reply(text + "   -x\n   +y\n   ```\n")
    assert calls == [1]


def test_reply_lines_are_read_only():
    lines = ReplyLines("a\nb")
    for mutate in (
        lambda: lines.append("c"),
        lambda: lines.__setitem__(0, "z"),
        lambda: lines.pop(),
        lambda: lines.extend(["c"]),
        lambda: lines.sort(),
    ):
        with pytest.raises(TypeError):
            mutate()
    assert lines == ["a", "b"] and list(lines) + ["c"] == ["a", "b", "c"]


def _loaded_by(code: str) -> tuple[list[str], set[str], set[str]]:
    """Run `code` in a fresh interpreter after `import lsp_server.reply`: what it printed,
    the `lsp_server.reply` modules the import loaded, and the `lsp_server` modules `code`
    loaded beyond them."""
    code = (
        "import sys; import lsp_server.reply; base = set(sys.modules); "
        f"{code}; "
        "print(sorted(m[17:] for m in base if m.startswith('lsp_server.reply.'))); "
        "print(sorted(m for m in set(sys.modules) - base if m.startswith('lsp_server')))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout.split("\n")
    return out[:-3], set(ast.literal_eval(out[-3])), set(ast.literal_eval(out[-2]))


# the modules that read one reply format, each loaded the first time a reply may hold its blocks
_GATED = {e.module for e in FINDERS if isinstance(e, Gated)}


def test_a_reply_with_no_markers_imports_no_format_module():
    _, at_import, by_parse = _loaded_by(
        "from lsp_server.reply import parse_reply; parse_reply('just prose, no blocks')"
    )
    # the package loads the helpers every format shares and no format's module, and a reply
    # with no block loads nothing more
    assert "common" in at_import and not at_import & _GATED, at_import
    assert by_parse == set(), by_parse


_FENCED_BLOCK = "a.py\n```python\n<<<<<<< SEARCH\nx = 1\n=======\nx = 2\n>>>>>>> REPLACE\n"


@pytest.mark.parametrize(
    "reply, modules, errors",
    [
        # the block holds its fence's whole body: no line is left to hold a stray marker
        (_FENCED_BLOCK + "```\n", ["search_replace"], []),
        # a line after the block in its fence is left, and it is a marker: reported
        (_FENCED_BLOCK + "<<<<<<< HEAD\n```\n", ["search_replace", "whole_file"], [8]),
        # an unclosed fence runs to the end: the blank line after the block is left
        (_FENCED_BLOCK + "\n", ["search_replace", "whole_file"], []),
    ],
)
def test_the_stray_marker_check_loads_only_when_a_fence_has_a_line_no_block_holds(
    reply, modules, errors
):
    out, _, by_parse = _loaded_by(
        "from lsp_server.reply import parse_reply; "
        f"blocks = parse_reply({reply!r}).blocks; "
        "print([b.reply_lines[0] for b in blocks if b.error is not None])"
    )
    assert out == [str(errors)]
    # exactly the modules of the formats this reply needs (the rest loaded with the package)
    assert by_parse == {f"lsp_server.reply.{m}" for m in modules}, by_parse
    assert parse_reply(reply).blocks == oracle(reply)


_THREADED = r"""
import threading
from lsp_server.reply import parse_reply

REPLY = (
    "a.py\n```python\n<<<<<<< SEARCH\nx = 1\n=======\nx = 2\n>>>>>>> REPLACE\n```\n\n"
    "```python\ndef f():\n    return 1\n```\n"
    "--- a/b.py\n+++ b/b.py\n@@ -1 +1 @@\n-a\n+b\n"
    "*** Begin Patch\n*** Update File: c.py\n@@\n-a\n+b\n*** End Patch\n"
)
barrier = threading.Barrier(8)
errors = []

def parse():
    barrier.wait()
    try:
        parse_reply(REPLY)
    except Exception as exc:  # the race this test is about raised AttributeError
        errors.append(repr(exc))

threads = [threading.Thread(target=parse) for _ in range(8)]
for t in threads:
    t.start()
for t in threads:
    t.join()
print(errors)
"""


def test_threads_parsing_at_once_in_a_fresh_process_all_see_whole_modules() -> None:
    # the server parses on worker threads: a format module imported on first use by one
    # thread must not be seen half-initialised by another (AttributeError: find_blocks)
    for _ in range(4):
        done = subprocess.run(
            [sys.executable, "-c", _THREADED], capture_output=True, text=True, timeout=60
        )
        assert done.returncode == 0, done.stderr
        assert done.stdout.strip() == "[]", done.stdout
