"""Plan → WorkspaceEdit: minimal text edits in the negotiated encoding, and the edit's shape.

The applier used to check the edits is written here independently of `lsp_server.edits`:
it splits lines with its own regex and counts columns by encoding the line prefix with
Python's codecs, so a shared bug cannot hide itself.
"""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from lsprotocol import types
from pytest_lsp import client_capabilities

from lsp_server.edits import (
    UTF8,
    UTF16,
    UTF32,
    EditCapabilities,
    PositionIndex,
    build_workspace_edit,
    diff_offsets,
    split_lsp_lines,
    text_edits,
)
from lsp_server.model import (
    BlockOutcome,
    EditBlock,
    FileAction,
    FileChange,
    Format,
    MatchKind,
    Placement,
    Plan,
    Status,
)

ENCODINGS = [UTF16, UTF8, UTF32]


# --- an independent reference applier --------------------------------------------------------


def _ref_lines(text: str) -> list[str]:
    parts = re.split(r"(\r\n|\r|\n)", text)
    lines = [parts[i] + parts[i + 1] for i in range(0, len(parts) - 1, 2)]
    lines.append(parts[-1])  # the text after the last ending (maybe "")
    return lines


def _ref_offset(text: str, pos: types.Position, encoding: str) -> int:
    lines = _ref_lines(text)
    assert 0 <= pos.line < len(lines), (pos, len(lines))
    before = sum(len(x) for x in lines[: pos.line])
    body = re.sub(r"(\r\n|\r|\n)$", "", lines[pos.line])
    if encoding == UTF16:
        raw = body.encode("utf-16-le", "surrogatepass")
        assert pos.character * 2 <= len(raw), "column past the end of the line"
        col = len(raw[: pos.character * 2].decode("utf-16-le", "surrogatepass"))
    elif encoding == UTF8:
        raw = body.encode("utf-8", "surrogatepass")
        assert pos.character <= len(raw), "column past the end of the line"
        col = len(raw[: pos.character].decode("utf-8", "surrogatepass"))
    else:
        assert pos.character <= len(body)
        col = pos.character
    return before + col


def _ref_apply(text: str, edits: list, encoding: str) -> str:
    spans = [
        (
            _ref_offset(text, e.range.start, encoding),
            _ref_offset(text, e.range.end, encoding),
            e.new_text,
        )
        for e in edits
    ]
    for a, b in zip(spans, spans[1:], strict=False):
        assert a[1] < b[0], "edits must be sorted, disjoint and not touching"
    for start, end, _ in spans:
        assert start <= end
        for at in (start, end):
            assert not (0 < at < len(text) and text[at - 1] == "\r" and text[at] == "\n"), (
                "an edit boundary splits a CRLF"
            )
    out = text
    for start, end, new_text in reversed(spans):
        out = out[:start] + new_text + out[end:]
    return out


# --- strategies --------------------------------------------------------------------------------

CHARS = st.sampled_from(list("ab xy\t{}") + ["é", "中", "😀", "🎉", "\u2028", "\x0c", "\x85"])
ENDINGS = st.sampled_from(["\n", "\r\n", "\r", "\n"])
LINE = st.builds(lambda body, end: body + end, st.text(CHARS, max_size=8), ENDINGS)
TEXT = st.builds(
    lambda lines, last: "".join(lines) + last,
    st.lists(LINE, max_size=12),
    st.text(CHARS, max_size=6),
)


@st.composite
def related(draw):
    """Two texts where the second is the first with some lines changed, added or removed."""
    old = draw(TEXT)
    lines = split_lsp_lines(old)
    for _ in range(draw(st.integers(0, 4))):
        op = draw(st.sampled_from(["insert", "delete", "change", "char"]))
        at = draw(st.integers(0, len(lines)))
        if op == "insert":
            lines.insert(at, draw(LINE))
        elif lines and op == "delete":
            del lines[min(at, len(lines) - 1)]
        elif lines and op == "change":
            lines[min(at, len(lines) - 1)] = draw(LINE)
        elif lines:
            i = min(at, len(lines) - 1)
            line = lines[i]
            k = draw(st.integers(0, len(line)))
            lines[i] = line[:k] + draw(st.text(CHARS, min_size=1, max_size=3)) + line[k:]
    return old, "".join(lines)


def apply_text_edits(text: str, edits: list[types.TextEdit], encoding: str = UTF16) -> str:
    """Apply edits that all refer to `text` (LSP semantics), mapping positions back with the
    library's own `PositionIndex.offset`: the edits must survive that round trip too."""
    index = PositionIndex(text, encoding)
    spans = sorted(
        ((index.offset(e.range.start), index.offset(e.range.end), e.new_text) for e in edits),
        key=lambda s: (s[0], s[1]),
    )
    out: list[str] = []
    pos = 0
    for start, end, new_text in spans:
        assert start >= pos, "overlapping text edits"
        out.append(text[pos:start])
        out.append(new_text)
        pos = end
    out.append(text[pos:])
    return "".join(out)


# --- properties -------------------------------------------------------------------------------


@settings(max_examples=400, deadline=None)
@given(related(), st.sampled_from(ENCODINGS))
def test_edits_turn_old_into_new(pair, encoding):
    old, new = pair
    edits = text_edits(old, new, encoding)
    assert _ref_apply(old, edits, encoding) == new
    assert apply_text_edits(old, edits, encoding) == new


@settings(max_examples=300, deadline=None)
@given(TEXT, TEXT, st.sampled_from(ENCODINGS))
def test_edits_between_unrelated_texts(old, new, encoding):
    edits = text_edits(old, new, encoding)
    assert _ref_apply(old, edits, encoding) == new


@settings(max_examples=200, deadline=None)
@given(TEXT)
def test_identical_texts_need_no_edit(text):
    assert text_edits(text, text) == []


@settings(max_examples=200, deadline=None)
@given(TEXT, st.sampled_from(ENCODINGS))
def test_offset_position_round_trip(text, encoding):
    index = PositionIndex(text, encoding)
    for offset in range(len(text) + 1):
        if 0 < offset < len(text) and text[offset - 1] == "\r" and text[offset] == "\n":
            continue  # not a position a client can name
        pos = index.position(offset)
        assert _ref_offset(text, pos, encoding) == offset
        assert index.offset(pos) == offset


@settings(max_examples=200, deadline=None)
@given(TEXT)
def test_lines_end_only_at_lsp_line_endings(text):
    lines = split_lsp_lines(text)
    assert "".join(lines) == text
    for line in lines[:-1]:
        assert line.endswith(("\n", "\r"))
    for line in lines:
        body = re.sub(r"(\r\n|\r|\n)$", "", line)
        assert "\n" not in body and "\r" not in body


# --- examples ---------------------------------------------------------------------------------


def test_one_changed_word_is_one_small_edit():
    old = "".join(f"line {i}\n" for i in range(200))
    new = old.replace("line 100\n", "line 100!\n")
    (edit,) = text_edits(old, new)
    assert edit.range.start == types.Position(line=100, character=8)
    assert edit.range.end == types.Position(line=100, character=8)
    assert edit.new_text == "!"


def test_columns_after_an_emoji_differ_by_encoding():
    old = 'x = "😀" + old\n'
    new = 'x = "😀" + new\n'
    utf16 = text_edits(old, new, UTF16)
    utf8 = text_edits(old, new, UTF8)
    utf32 = text_edits(old, new, UTF32)
    # "x = \"😀\" + " is 10 code points: the emoji is 2 UTF-16 units and 4 UTF-8 bytes
    assert utf32[0].range.start.character == 10
    assert utf16[0].range.start.character == 11
    assert utf8[0].range.start.character == 13
    for enc, edits in ((UTF16, utf16), (UTF8, utf8), (UTF32, utf32)):
        assert _ref_apply(old, edits, enc) == new


def test_crlf_file_keeps_crlf_and_edits_never_split_it():
    old = "a\r\nb\r\nc\r\n"
    new = "a\r\nB\r\nx\r\nc\r\n"
    edits = text_edits(old, new)
    assert _ref_apply(old, edits, UTF16) == new
    assert all(e.range.start.line <= 2 for e in edits)


def test_ending_change_only():
    old = "a\nb\n"
    new = "a\r\nb\n"
    edits = text_edits(old, new)
    assert _ref_apply(old, edits, UTF16) == new
    (edit,) = edits
    assert edit.range.start.line == 0


def test_lone_cr_and_line_separator_are_respected():
    old = "a\rb\u2028c\nd"
    index = PositionIndex(old)
    assert index.line_count == 3
    assert index.position(old.index("c")) == types.Position(line=1, character=2)
    new = "a\rb\u2028C\nd"
    assert _ref_apply(old, text_edits(old, new), UTF16) == new


def test_append_at_end_without_final_newline():
    old = "one\ntwo"
    new = "one\ntwo\nthree\n"
    (edit,) = text_edits(old, new)
    assert edit.range.start == types.Position(line=1, character=3)
    assert _ref_apply(old, [edit], UTF16) == new


def test_edits_never_touch():
    # line 0 loses its "b\n" and line 1 its "c": the two line edits meet at offset 3
    old = "ab\ncd\n"
    new = "a\rZd\n"
    edits = diff_offsets(old, new)
    assert [(e.start, e.end, e.text) for e in edits] == [(1, 4, "\rZ")]
    # separate lines stay separate edits
    assert len(diff_offsets("a\nb\nc\n", "A\nB\nC\n")) == 3


def test_line_range_covers_whole_lines_in_units():
    index = PositionIndex("😀😀\nabc\n", UTF16)
    rng = index.line_range(0, 0)
    assert rng.end == types.Position(line=0, character=4)
    assert PositionIndex("😀😀\nabc\n", UTF8).line_range(0, 1).end == types.Position(
        line=1, character=3
    )


# --- client capabilities ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("client", "doc_changes", "annotations"),
    [
        ("visual-studio-code", True, True),
        ("neovim@v0.10.0", True, False),
        ("neovim@v0.11.0", True, False),
    ],
)
def test_capabilities_from_captured_clients(client, doc_changes, annotations):
    caps = EditCapabilities.from_client(client_capabilities(client), UTF16)
    assert caps.document_changes is doc_changes
    assert caps.change_annotations is annotations
    assert caps.resource_operations == {"create", "rename", "delete"}


def test_capabilities_of_a_bare_client():
    caps = EditCapabilities.from_client(types.ClientCapabilities(), UTF16)
    assert not caps.document_changes and not caps.change_annotations
    assert not caps.resource_operations


# --- the WorkspaceEdit ------------------------------------------------------------------------


def _outcome(index: int, path: str, match: MatchKind, placements=(), score=None) -> BlockOutcome:
    block = EditBlock(Format.SEARCH_REPLACE, path, (index * 10 + 1, index * 10 + 8), index=index)
    return BlockOutcome(block, Status.VALIDATED, match, placements=placements, score=score)


def _uri(path: str) -> str:
    return f"file:///ws/{path}"


FULL = EditCapabilities()


def test_modify_is_pinned_to_the_document_version():
    plan = Plan(
        (_outcome(0, "a.py", MatchKind.EXACT, (Placement(1, 2, MatchKind.EXACT),)),),
        (FileChange("a.py", FileAction.MODIFY, "x\ny\nz\n", "x\nY\nz\n", version=7, blocks=(0,)),),
    )
    built = build_workspace_edit(plan, FULL, _uri)
    (doc,) = built.edit.document_changes
    assert doc.text_document.uri == "file:///ws/a.py"
    assert doc.text_document.version == 7
    (edit,) = doc.edits
    assert isinstance(edit, types.AnnotatedTextEdit)
    assert edit.range.start == types.Position(line=1, character=0)
    assert built.edit.change_annotations[edit.annotation_id].needs_confirmation is False
    assert not built.needs_confirmation
    assert built.text_edit_count == 1


def test_fuzzy_blocks_need_confirmation_and_exact_ones_do_not():
    old = "".join(f"l{i}\n" for i in range(20))
    new = old.replace("l2\n", "L2\n").replace("l15\n", "L15\n")
    plan = Plan(
        (
            _outcome(0, "a.py", MatchKind.EXACT, (Placement(2, 3, MatchKind.EXACT, 1.0, 3),)),
            _outcome(
                1, "a.py", MatchKind.FUZZY, (Placement(15, 16, MatchKind.FUZZY, 0.8, 16),), 0.8
            ),
        ),
        (FileChange("a.py", FileAction.MODIFY, old, new, version=1, blocks=(0, 1)),),
    )
    built = build_workspace_edit(plan, FULL, _uri)
    (doc,) = built.edit.document_changes
    first, second = doc.edits
    notes = built.edit.change_annotations
    assert notes[first.annotation_id].needs_confirmation is False
    assert notes[second.annotation_id].needs_confirmation is True
    assert "fuzzy 80%" in notes[second.annotation_id].label
    assert built.needs_confirmation

    relaxed = build_workspace_edit(plan, FULL, _uri, confirm_fuzzy=False)
    assert not any(a.needs_confirmation for a in relaxed.edit.change_annotations.values())
    # a preview asks what an apply asks, no more (VS Code unticks what asks)
    preview = build_workspace_edit(plan, FULL, _uri, preview=True)
    assert preview.edit.change_annotations == notes


def test_create_rename_delete_become_resource_operations():
    plan = Plan(
        (
            _outcome(0, "new.py", MatchKind.CREATE),
            _outcome(1, "old.py", MatchKind.RENAME),
            _outcome(2, "gone.py", MatchKind.DELETE),
        ),
        (
            FileChange("new.py", FileAction.CREATE, None, "print(1)\n", blocks=(0,)),
            FileChange(
                "old.py",
                FileAction.RENAME,
                "a\n",
                "b\n",
                new_path="moved.py",
                version=3,
                blocks=(1,),
            ),
            FileChange("gone.py", FileAction.DELETE, "x\n", None, blocks=(2,)),
        ),
    )
    built = build_workspace_edit(plan, FULL, _uri)
    ops = built.edit.document_changes
    kinds = [type(op).__name__ for op in ops]
    assert kinds == [
        "CreateFile",
        "TextDocumentEdit",
        "RenameFile",
        "TextDocumentEdit",
        "DeleteFile",
    ]
    create, fill, rename, rename_edit, delete = ops
    assert create.options.ignore_if_exists is True
    assert fill.text_document.version is None
    assert fill.edits[0].new_text == "print(1)\n"
    # the moved file is edited under its new name, after the rename (an editor saves a
    # document it renames: an edit sent first would be written to disk unasked)
    assert rename_edit.text_document.uri == "file:///ws/moved.py"
    assert rename_edit.text_document.version is None
    assert rename.old_uri == "file:///ws/old.py" and rename.new_uri == "file:///ws/moved.py"
    assert delete.uri == "file:///ws/gone.py"


def test_a_replaced_file_always_asks_for_confirmation():
    """A modify or delete whose file's content a move or `Add File` replaced asks first,
    even when every block matched exactly: what the file held is lost."""
    plan = Plan(
        (_outcome(0, "a.py", MatchKind.RENAME), _outcome(1, "b.py", MatchKind.RENAME)),
        (
            FileChange("b.py", FileAction.MODIFY, "B\n", "A\n", blocks=(0,), overwrite_dest=True),
            FileChange("c.py", FileAction.DELETE, "C\n", None, blocks=(1,), overwrite_dest=True),
            FileChange("a.py", FileAction.DELETE, "A\n", None, blocks=(0,)),
        ),
    )
    built = build_workspace_edit(plan, FULL, _uri)
    assert built.needs_confirmation
    doc, replaced, moved = built.edit.document_changes
    notes = built.edit.change_annotations
    assert all(notes[e.annotation_id].needs_confirmation for e in doc.edits)
    assert notes[replaced.annotation_id].needs_confirmation
    assert "c.py" in notes[replaced.annotation_id].label
    assert not notes[moved.annotation_id].needs_confirmation
    # a client without annotations still gets the edit (and asks as it always does)
    bare = build_workspace_edit(plan, EditCapabilities(change_annotations=False), _uri)
    assert not bare.edit.change_annotations and not bare.needs_confirmation


def test_which_matches_need_confirmation():
    from lsp_server.edits import needs_confirmation

    sure = [
        MatchKind.EXACT,
        MatchKind.CREATE,
        MatchKind.DELETE,
        MatchKind.RENAME,
        MatchKind.OVERWRITE,
        # only whitespace or indentation differs: certain
        MatchKind.WHITESPACE,
        MatchKind.INDENT,
    ]
    unsure = [MatchKind.STRUCTURAL, MatchKind.ELISION, MatchKind.FUZZY]
    for kind in sure:
        assert not needs_confirmation(kind, confirm_fuzzy=True, preview=False)
        # a preview asks no more than an apply: VS Code unticks what asks (issue 24)
        assert not needs_confirmation(kind, confirm_fuzzy=True, preview=True)
    for kind in unsure:
        assert needs_confirmation(kind, confirm_fuzzy=True, preview=False)
        assert not needs_confirmation(kind, confirm_fuzzy=False, preview=False)


def test_client_without_document_changes_gets_a_changes_map():
    plan = Plan(
        (_outcome(0, "a.py", MatchKind.EXACT), _outcome(1, "b.py", MatchKind.CREATE)),
        (
            FileChange("a.py", FileAction.MODIFY, "x\n", "y\n", version=2, blocks=(0,)),
            FileChange("b.py", FileAction.CREATE, None, "z\n", blocks=(1,)),
        ),
    )
    caps = EditCapabilities(False, frozenset(), False, UTF16)
    built = build_workspace_edit(plan, caps, _uri)
    assert built.edit.document_changes is None
    assert list(built.edit.changes) == ["file:///ws/a.py"]
    assert [c.path for c in built.unsupported] == ["b.py"]
    assert all(isinstance(e, types.TextEdit) for e in built.edit.changes["file:///ws/a.py"])


def test_no_annotations_for_clients_without_support():
    plan = Plan(
        (_outcome(0, "a.py", MatchKind.FUZZY, score=0.9),),
        (FileChange("a.py", FileAction.MODIFY, "x\n", "y\n", blocks=(0,)),),
    )
    caps = EditCapabilities(True, frozenset({"create"}), False, UTF8)
    built = build_workspace_edit(plan, caps, _uri)
    assert built.edit.change_annotations is None
    (doc,) = built.edit.document_changes
    assert type(doc.edits[0]) is types.TextEdit


@settings(max_examples=60, deadline=None)
@given(
    st.integers(300, 1200),
    st.lists(
        st.tuples(st.integers(0, 10_000), st.sampled_from(["del", "ins", "chg", "dup"])),
        min_size=1,
        max_size=8,
    ),
    st.sampled_from(ENCODINGS),
)
def test_large_repetitive_files_split_at_unique_lines_stay_exact(n, changes, encoding):
    """Regions big enough for the patience split (unique-line anchors) still diff exactly,
    and each scattered change stays a small edit rather than one huge replacement."""
    old_lines = [f"def f{i}(x):\n    return x + 1\n\n" for i in range(n)]
    lines = list(old_lines)
    for at, op in changes:
        i = at % len(lines)
        if op == "del":
            del lines[i]
        elif op == "ins":
            lines.insert(i, "    new()\n")
        elif op == "chg":
            lines[i] = lines[i].replace("+ 1", "- 1")
        else:
            lines.insert(i, lines[(i * 7) % len(lines)])
    old, new = "".join(old_lines), "".join(lines)
    edits = text_edits(old, new, encoding)
    assert _ref_apply(old, edits, encoding) == new
    assert sum(len(e.new_text) for e in edits) <= 40 * len(changes)


def test_every_edit_of_a_block_placed_at_many_places_is_annotated_as_that_block():
    # a replace_all reports a placement per occurrence; a fuzzy block between them keeps
    # its own confirmation
    old = "".join(f"a{i} = name\n" for i in range(3000))
    new = old.replace("name", "title").replace("a1500 = title\n", "a1500 = TITLE\n")
    every = tuple(Placement(i, i + 1, MatchKind.EXACT, 1.0, i + 1) for i in range(3000))
    plan = Plan(
        (
            _outcome(0, "a.py", MatchKind.EXACT, every),
            _outcome(1, "a.py", MatchKind.FUZZY, (Placement(1500, 1501, MatchKind.FUZZY),), 0.9),
        ),
        (FileChange("a.py", FileAction.MODIFY, old, new, version=1, blocks=(0, 1)),),
    )
    built = build_workspace_edit(plan, FULL, _uri)
    (doc,) = built.edit.document_changes
    notes = built.edit.change_annotations
    owners = {e.range.start.line: notes[e.annotation_id].label for e in doc.edits}
    assert len(owners) == 3000
    assert "block 1" in owners.pop(1500)
    assert all("block 0" in label for label in owners.values())
