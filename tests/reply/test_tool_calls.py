"""JSON tool calls: the patch tool, the text-editor tool and structure operations."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lsp_server.model import (
    Action,
    ErrorCode,
    Format,
    HunkKind,
    OnExists,
    Reindent,
)
from lsp_server.reply.tool_calls import find_blocks


def blocks(text: str):
    return find_blocks(text.split("\n"))


def fenced(obj: object, language: str = "json") -> str:
    return f"Apply this:\n```{language}\n{json.dumps(obj, indent=2)}\n```\nThanks.\n"


PATCH = {
    "path": "src/a.py",
    "patches": [
        {"operation": "replace", "oldText": "x = 1\r\n", "newText": "x = 2\r\n"},
        {"operation": "append_eof", "newText": "# end\n"},
        {"operation": "prepend_bof", "fromClipboard": "header"},
        {"operation": "replace", "oldText": "def f", "newText": "def g", "toClipboard": "fn"},
        {"oldText": "a", "newText": "b", "reindent": {"strip": 4, "add": "\t"}},
        {"operation": "overwrite", "newText": "all\n"},
    ],
}


def test_patch_tool_fenced() -> None:
    (b,) = blocks(fenced(PATCH))
    assert b.format == Format.PATCH_TOOL and b.action == Action.MODIFY
    assert b.path == "src/a.py" and b.simultaneous is True and b.error is None
    assert b.reply_lines == (2, 2 + len(json.dumps(PATCH, indent=2).split("\n")) + 1)
    kinds = [h.kind for h in b.hunks]
    assert kinds == [
        HunkKind.REPLACE,
        HunkKind.APPEND_EOF,
        HunkKind.PREPEND_BOF,
        HunkKind.REPLACE,
        HunkKind.REPLACE,
        HunkKind.OVERWRITE,
    ]
    assert (b.hunks[0].old, b.hunks[0].new) == ("x = 1\n", "x = 2\n")  # CRLF normalised
    assert b.hunks[2].from_clipboard == "header" and b.hunks[2].new == ""
    assert b.hunks[3].to_clipboard == "fn"
    assert b.hunks[4].reindent == Reindent("    ", "\t")
    assert b.hunks[5].new == "all\n"


def test_patch_tool_bare_and_on_several_lines() -> None:
    text = "Sure.\n" + json.dumps(PATCH, indent=1) + "\nThat is all."
    (b,) = blocks(text)
    assert b.path == "src/a.py" and len(b.hunks) == 6
    assert b.reply_lines == (2, 1 + len(json.dumps(PATCH, indent=1).split("\n")))


@pytest.mark.parametrize(
    "wrapper",
    [
        {"name": "patch", "arguments": PATCH},
        {"name": "patch", "input": PATCH},
        {"type": "tool_use", "id": "t1", "name": "patch", "input": PATCH},
        {"function": {"name": "patch", "arguments": json.dumps(PATCH)}},
        {
            "id": "c1",
            "type": "function",
            "function": {"name": "patch", "arguments": json.dumps(PATCH)},
        },
        {"tool_calls": [{"function": {"name": "patch", "arguments": json.dumps(PATCH)}}]},
        [PATCH],
    ],
)
def test_wrapped_calls(wrapper: object) -> None:
    (b,) = blocks(fenced(wrapper))
    assert b.format == Format.PATCH_TOOL and len(b.hunks) == 6 and b.error is None


def test_array_of_calls_gives_one_block_each() -> None:
    calls = [PATCH, {"command": "str_replace", "path": "b.py", "old_str": "x", "new_str": "y"}]
    out = blocks(fenced(calls))
    assert [b.format for b in out] == [Format.PATCH_TOOL, Format.TEXT_EDITOR]
    assert out[0].reply_lines == out[1].reply_lines


@pytest.mark.parametrize(
    ("patch", "missing"),
    [
        ({"operation": "replace", "newText": "b"}, "oldText"),
        ({"operation": "replace", "oldText": "", "newText": "b"}, "oldText"),
        ({"operation": "append_eof"}, "newText"),
    ],
)
def test_patch_tool_missing_fields_are_malformed(patch: dict, missing: str) -> None:
    (b,) = blocks(fenced({"path": "a.py", "patches": [patch]}))
    assert b.format == Format.PATCH_TOOL and b.path == "a.py"
    assert b.error is not None and b.error.code == ErrorCode.MALFORMED_BLOCK
    assert b.error.details["missing"] == missing


@pytest.mark.parametrize(
    "bad",
    [
        {"path": "a.py", "patches": []},
        {"path": "a.py", "patches": "nope"},
        {"path": "a.py", "patches": [{"operation": "frobnicate", "newText": "x"}]},
        {"path": "a.py", "patches": [{"oldText": "a", "newText": 3}]},
        {"path": "a.py", "patches": [{"oldText": "a", "newText": "b", "reindent": {"strip": -1}}]},
        {"path": "a.py", "patches": [{"oldText": "a", "newText": "b", "reindent": "x"}]},
        {"patches": [{"oldText": "a", "newText": "b"}]},
    ],
)
def test_patch_tool_invalid_shapes_are_malformed(bad: dict) -> None:
    (b,) = blocks(fenced(bad))
    assert b.error is not None and b.error.code == ErrorCode.MALFORMED_BLOCK


def test_cut_to_clipboard_needs_no_new_text() -> None:
    patch = {"oldText": "def f(): pass\n", "toClipboard": "f"}
    (b,) = blocks(fenced({"path": "a.py", "patches": [patch]}))
    assert b.error is None and b.hunks[0].new == "" and b.hunks[0].to_clipboard == "f"


def test_text_editor_str_replace() -> None:
    call = {"command": "str_replace", "path": "a.py", "old_str": "x\r\n", "new_str": "y\r\n"}
    (b,) = blocks(fenced(call))
    assert b.format == Format.TEXT_EDITOR and b.action == Action.MODIFY
    assert (b.hunks[0].old, b.hunks[0].new, b.hunks[0].kind) == ("x\n", "y\n", HunkKind.REPLACE)


def test_text_editor_str_replace_without_new_str_deletes() -> None:
    (b,) = blocks(fenced({"command": "str_replace", "path": "a.py", "old_str": "x"}))
    assert b.hunks[0].new == "" and b.error is None


def test_text_editor_create_overwrites() -> None:
    (b,) = blocks(fenced({"command": "create", "path": "n.py", "file_text": "a\r\nb\n"}))
    assert b.action == Action.CREATE and b.on_exists == OnExists.OVERWRITE
    assert b.content == "a\nb\n"


@pytest.mark.parametrize("key", ["new_str", "insert_text"])
def test_text_editor_insert(key: str) -> None:
    (b,) = blocks(fenced({"command": "insert", "path": "a.py", "insert_line": 3, key: "z\n"}))
    (h,) = b.hunks
    assert (h.old, h.new, h.kind, h.line_hint) == ("", "z\n", HunkKind.INSERT_AT_LINE, 3)


@pytest.mark.parametrize(
    "call",
    [
        {"command": "insert", "path": "a.py", "new_str": "z"},
        {"command": "insert", "path": "a.py", "insert_line": -1, "new_str": "z"},
        {"command": "insert", "path": "a.py", "insert_line": 2},
        {"command": "create", "path": "a.py"},
        {"command": "str_replace", "path": "a.py", "new_str": "y"},
        {"command": "str_replace", "old_str": "x", "new_str": "y"},
    ],
)
def test_text_editor_malformed(call: dict) -> None:
    (b,) = blocks(fenced(call))
    assert b.format == Format.TEXT_EDITOR
    assert b.error is not None and b.error.code == ErrorCode.MALFORMED_BLOCK


def test_view_undo_and_other_commands_are_not_edits() -> None:
    calls = [
        {"command": "view", "path": "a.py"},
        {"command": "undo_edit", "path": "a.py"},
        {"command": "ls -la"},
    ]
    assert blocks(fenced(calls)) == []


def test_structure_operation() -> None:
    call = {
        "operation": "insert_after_structure",
        "file": "src/a.py",
        "target_node": "class A / def f",
        "code": "def g():\r\n    pass\n",
        "expected_count": 2,
    }
    (b,) = blocks(fenced(call))
    assert b.format == Format.STRUCTURE_OP and b.action == Action.STRUCTURAL
    assert b.path == "src/a.py" and b.content == "def g():\n    pass\n"
    assert b.target is not None
    assert b.target.node == ("class A", "def f")
    assert b.target.operation == "insert_after_structure"
    assert b.target.options == {"expected_count": 2}


@pytest.mark.parametrize(
    ("target", "levels"),
    [
        ("UserAuth\nvalidate\nif user.is_active", ("UserAuth", "validate", "if user.is_active")),
        (["UserAuth", "validate"], ("UserAuth", "validate")),
        ("impl Display for Point", ("impl Display for Point",)),
    ],
)
def test_structure_target_levels(target: object, levels: tuple[str, ...]) -> None:
    (b,) = blocks(fenced({"operation": "read_structure", "path": "a.rs", "target": target}))
    assert b.target is not None and b.target.node == levels and b.content is None


def test_structure_data_path() -> None:
    call = {
        "operation": "replace_structure",
        "path": "c.json",
        "target_path": "a.b[2]",
        "content": "1",
    }
    (b,) = blocks(fenced(call))
    assert b.target is not None and b.target.data_path == "a.b[2]" and b.target.node == ()


def test_structure_without_target_is_malformed() -> None:
    (b,) = blocks(fenced({"operation": "delete_structure", "path": "a.py"}))
    assert b.error is not None and b.error.code == ErrorCode.MALFORMED_BLOCK


@pytest.mark.parametrize(
    "obj",
    [
        {"name": "Alice", "age": 3},
        [1, 2, 3],
        {"operation": "add", "a": 1},
        {"dependencies": {"patches": 1}},
        "just a string",
    ],
)
def test_other_json_is_not_a_block(obj: object) -> None:
    assert blocks(fenced(obj)) == []
    assert blocks(json.dumps(obj)) == []


def test_invalid_json_that_looks_like_a_call_is_malformed_with_position() -> None:
    text = 'Try:\n```json\n{"path": "a.py",\n "patches": [{"oldText": "x" "newText": "y"}]}\n```\n'
    (b,) = blocks(text)
    assert b.path == "a.py" and b.format == Format.PATCH_TOOL
    assert b.error is not None and b.error.code == ErrorCode.MALFORMED_BLOCK
    assert b.error.details["line"] == 4
    assert b.error.details["column"] == 30
    assert b.reply_lines == (2, 5)


def test_invalid_json_without_call_keys_is_ignored() -> None:
    assert blocks('```json\n{"name": "x",}\n```\n') == []


def test_fences_of_other_languages_are_not_tool_calls() -> None:
    assert blocks(fenced(PATCH, "python")) == []


def test_bare_json_inside_prose_lines_is_not_taken() -> None:
    # JSON must start a line; a call quoted mid-sentence is prose
    assert blocks("Use " + json.dumps(PATCH) + " next time.") == []


def test_json_lines_in_one_fence() -> None:
    one = json.dumps({"command": "str_replace", "path": "a.py", "old_str": "a", "new_str": "b"})
    two = json.dumps({"command": "create", "path": "b.py", "file_text": "x"})
    out = blocks(f"```json\n{one}\n{two}\n```")
    assert [b.path for b in out] == ["a.py", "b.py"]


def test_deep_nesting_and_lone_surrogates_do_not_crash() -> None:
    deep = "[" * 100_000 + "]" * 100_000
    assert blocks(deep) == []
    assert blocks(f"```json\n{deep}\n```") == []
    text = '{"command": "create", "path": "a.py", "file_text": "\\ud800x"}'
    (b,) = blocks(text)
    assert b.content == "\ud800x"


def test_huge_numbers_do_not_crash() -> None:
    assert blocks("[" + "9" * 10_000 + "]") == []


@settings(max_examples=300)
@given(st.text(max_size=400))
def test_never_raises_on_arbitrary_text(text: str) -> None:
    for b in blocks(text):
        lo, hi = b.reply_lines
        assert 1 <= lo <= hi


@settings(max_examples=200)
@given(
    st.recursive(
        st.none() | st.booleans() | st.integers() | st.text(max_size=20),
        lambda kids: (
            st.lists(kids, max_size=4)
            | st.dictionaries(
                st.sampled_from(
                    [
                        "path",
                        "patches",
                        "command",
                        "operation",
                        "oldText",
                        "newText",
                        "old_str",
                        "target",
                        "arguments",
                        "function",
                        "name",
                        "insert_line",
                        "reindent",
                        "strip",
                    ]
                ),
                kids,
                max_size=5,
            )
        ),
        max_leaves=20,
    )
)
def test_never_raises_on_arbitrary_json(value: object) -> None:
    blocks(json.dumps(value))
    blocks(fenced(value))


def test_json_cut_off_mid_call_is_incomplete() -> None:
    text = '```json\n{"path": "a.py", "patches": [{"oldText": "x", "newText": "y'
    (b,) = blocks(text)
    assert b.error is not None and b.error.code == ErrorCode.MALFORMED_BLOCK
    assert b.error.details["incomplete"] is True
    assert b.path == "a.py"
