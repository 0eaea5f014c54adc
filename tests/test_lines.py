"""The line model: model text, and core line numbers ↔ editor line numbers.

The references here split lines with their own regular expressions, so a shared mistake in
`lsp_server.lines` cannot hide itself.
"""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from lsp_server.lines import (
    LineMap,
    has_lone_cr,
    lsp_line_starts,
    split_lsp_lines,
    strip_ending,
    to_lf,
)

TEXT = st.lists(st.sampled_from(["a", "b", " ", "\n", "\r", "\r\n", "\x0c", "😀"])).map("".join)


def _core_starts(text: str) -> list[int]:
    """Offsets where a core line starts: after every "\\n"; in a text without one, after
    every "\\r" (a CR-only file, which the plan reads with "\\n" endings)."""
    ending = "\r" if "\r" in text and "\n" not in text else "\n"
    return [0] + [m.end() for m in re.finditer(ending, text)]


def _editor_starts(text: str) -> list[int]:
    """Offsets where an editor line starts: after every "\\r\\n", "\\r" or "\\n", and 0."""
    return [0] + [m.end() for m in re.finditer(r"\r\n|\r|\n", text)]


@settings(max_examples=300, deadline=None)
@given(TEXT)
def test_to_lf_gives_each_core_line_a_newline(text):
    lines = re.findall(r"[^\n]*\n|[^\n]+\Z", text)
    expected = "".join((x[:-2] if x.endswith("\r\n") else x.rstrip("\n")) + "\n" for x in lines)
    assert to_lf(text) == expected


def test_to_lf_examples():
    assert to_lf("") == ""
    assert to_lf("a") == "a\n"
    assert to_lf("a\r\nb\r\n") == "a\nb\n"
    assert to_lf("a\rb") == "a\rb\n"  # a lone "\r" is text to the core


@settings(max_examples=300, deadline=None)
@given(TEXT)
def test_editor_line_starts(text):
    assert lsp_line_starts(split_lsp_lines(text)) == _editor_starts(text)


@settings(max_examples=300, deadline=None)
@given(TEXT)
def test_line_map_converts_both_ways(text):
    core, editor = _core_starts(text), _editor_starts(text)
    lines = LineMap(text)
    for n, offset in enumerate(editor):
        assert lines.core_line(n) == max(i for i, s in enumerate(core) if s <= offset)
    for n, offset in enumerate(core):
        assert lines.lsp_line(n) == max(i for i, s in enumerate(editor) if s <= offset)
    if not has_lone_cr(text) or "\n" not in text:
        assert core == editor


def test_line_map_reports_ranges_in_editor_lines():
    text = "a\rb\nc\n"  # core lines: "a\rb", "c"; editor lines: "a", "b", "c"
    lines = LineMap(text)
    assert lines.lsp_lines(2, 2) == (2, 2)
    assert lines.lsp_lines(1, 2) == (0, 2)
    assert LineMap("a\nb\n").lsp_lines(1, 2) == (0, 1)


def test_strip_ending():
    assert [strip_ending(x) for x in ("a\r\n", "a\r", "a\n", "a")] == ["a"] * 4
