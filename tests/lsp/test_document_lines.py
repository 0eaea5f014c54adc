"""`DocumentLines` (lsp/document_lines.py): a document's lines kept across incremental changes.

Every change must give the text a reference gets by splitting the whole text the LSP's way
and splicing, and the kept line lengths must be those of the new text, whatever the
endings ("\\r" and "\\n" meeting or parting at the change), the characters (columns in
UTF-8, UTF-16 and UTF-32 units) and the chunk boundaries.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from lsprotocol import types

from lsp_server.lines import split_lsp_lines, strip_ending
from lsp_server.lsp import document_lines
from lsp_server.lsp.document_lines import DocumentLines

PIECES = ["a", "bc", "\n", "\r", "\r\n", "é", "😀", " ", "\u2028", "\x0c"]
ENCODINGS = ["utf-8", "utf-16", "utf-32"]


def _units(text: str, encoding: str) -> int:
    if encoding == "utf-8":
        return len(text.encode("utf-8"))
    if encoding == "utf-16":
        return len(text.encode("utf-16-le")) // 2
    return len(text)


def _position(text: str, offset: int, encoding: str) -> types.Position:
    """The client position of an offset that is not inside a line ending."""
    lines = split_lsp_lines(text)
    start = 0
    for number, line in enumerate(lines):
        body = strip_ending(line)
        if offset <= start + len(body):
            return types.Position(line=number, character=_units(body[: offset - start], encoding))
        start += len(line)
    return types.Position(line=len(lines), character=0)  # after a final line ending


def _offsets(text: str) -> list[int]:
    """Every offset a client position can name (none inside "\\r\\n" or past a line's end)."""
    out, start = [], 0
    for line in split_lsp_lines(text):
        out.extend(range(start, start + len(strip_ending(line)) + 1))
        start += len(line)
    if not out or text.endswith(("\n", "\r")):
        out.append(len(text))
    return out


texts = st.lists(st.sampled_from(PIECES), max_size=40).map("".join)


@st.composite
def edits(draw):
    text = draw(texts)
    encoding = draw(st.sampled_from(ENCODINGS))
    steps = []
    current = text
    for _ in range(draw(st.integers(1, 6))):
        offsets = _offsets(current)
        a = draw(st.sampled_from(offsets))
        b = draw(st.sampled_from([o for o in offsets if o >= a]))
        new = draw(texts.filter(lambda t: len(t) <= 12))
        steps.append((_position(current, a, encoding), _position(current, b, encoding), new))
        current = current[:a] + new + current[b:]
        steps[-1] = (*steps[-1], current)
    return text, encoding, steps


@settings(max_examples=300, deadline=None)
@given(case=edits(), chunk=st.sampled_from([1, 3, document_lines.CHUNK]))
def test_changes_give_the_reference_text_and_lines(case, chunk: int):
    text, encoding, steps = case
    # small chunks put most changes across chunk boundaries
    original = document_lines.CHUNK
    document_lines.CHUNK = chunk
    try:
        lines = DocumentLines(text)
        for start, end, new, expected in steps:
            assert lines.apply(types.Range(start=start, end=end), new, encoding) == expected
            assert lines.text == expected
            assert lines.lengths() == [len(line) for line in split_lsp_lines(expected)]
            assert lines.line_count == len(split_lsp_lines(expected))
    finally:
        document_lines.CHUNK = original


def test_positions_past_a_line_or_the_text_clamp_to_their_end():
    lines = DocumentLines("ab\r\ncd")
    past_line = types.Range(
        start=types.Position(line=0, character=9), end=types.Position(line=0, character=9)
    )
    assert lines.apply(past_line, "!", "utf-16") == "ab!\r\ncd"
    past_text = types.Range(
        start=types.Position(line=7, character=0), end=types.Position(line=9, character=3)
    )
    assert lines.apply(past_text, "?", "utf-16") == "ab!\r\ncd?"
    assert lines.lengths() == [5, 3]


def test_a_column_inside_a_character_lands_after_it():
    lines = DocumentLines("😀x\n")
    inside = types.Range(
        start=types.Position(line=0, character=1), end=types.Position(line=0, character=1)
    )
    assert lines.apply(inside, "|", "utf-16") == "😀|x\n"
    assert lines.apply(inside, "|", "utf-8") == "😀||x\n"
