"""Envelopes around the agents' calls: every wrapper gives the same block, whatever the tool's
name; calls that edit nothing are ignored."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lsp_server.model import Action, ErrorCode, Format
from lsp_server.reply import parse_reply
from lsp_server.reply.tool_calls import find_blocks
from tests.reply.agent_replies import fenced, place

ARGS = {"file_path": "a.py", "old_string": "x = 1", "new_string": "x = 2"}
TEXT = json.dumps(ARGS)

ENVELOPES = {
    "bare arguments": ARGS,
    "name + input": {"name": "Edit", "input": ARGS},
    "name + arguments string": {"name": "Edit", "arguments": TEXT},
    "tool + parameters": {"tool": "Edit", "parameters": ARGS},
    "tool_name + tool_input (hooks)": {"tool_name": "Edit", "tool_input": ARGS},
    "function + arguments string": {"function": {"name": "Edit", "arguments": TEXT}},
    "tool_calls": {
        "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "e", "arguments": TEXT}}
        ]
    },
    "tool_use": {"type": "tool_use", "id": "toolu_1", "name": "Edit", "input": ARGS},
    "Anthropic message": {
        "role": "assistant",
        "content": [
            {"type": "text", "text": "Fixing x."},
            {"type": "tool_use", "id": "toolu_1", "name": "Edit", "input": ARGS},
        ],
    },
    "chat completion": {
        "choices": [
            {
                "message": {
                    "role": "assistant",
                    "content": None,
                    "tool_calls": [
                        {
                            "id": "c1",
                            "type": "function",
                            "function": {"name": "edit_file", "arguments": TEXT},
                        }
                    ],
                }
            }
        ]
    },
    "Responses function_call": {
        "output": [{"type": "function_call", "name": "replace", "call_id": "c", "arguments": TEXT}]
    },
    "Gemini functionCall": {
        "candidates": [
            {"content": {"parts": [{"functionCall": {"name": "replace", "args": ARGS}}]}}
        ]
    },
    "Responses stream event": {
        "type": "response.output_item.done",
        "item": {"type": "function_call", "name": "edit", "arguments": TEXT},
    },
    "AI SDK toolCalls": {"toolCalls": [{"toolName": "edit", "args": ARGS}]},
    "MCP tools/call": {"method": "tools/call", "params": {"name": "edit_file", "arguments": ARGS}},
    "Bedrock toolUse": {"toolUse": {"toolUseId": "t1", "name": "Edit", "input": ARGS}},
    "transcript list": [
        {"role": "user", "content": "fix x"},
        {
            "role": "assistant",
            "content": [{"type": "tool_use", "id": "t", "name": "Edit", "input": ARGS}],
        },
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t", "content": "ok"}]},
    ],
}


@pytest.mark.parametrize("name", list(ENVELOPES))
def test_every_envelope_gives_the_same_edit(name, tmp_path):
    reply = f"The agent called:\n\n{fenced(ENVELOPES[name])}\n\nthen stopped.\n"
    (block,) = parse_reply(reply).blocks
    assert (block.format, block.path, block.action) == (Format.CLAUDE_CODE, "a.py", Action.MODIFY)
    assert [(h.old, h.new) for h in block.hunks] == [("x = 1", "x = 2")]
    placed = place(tmp_path, {"a.py": "x = 1\ny = 1\n"}, reply)
    assert placed.plan.ok and placed.texts["a.py"] == "x = 2\ny = 1\n"


@pytest.mark.parametrize("name", list(ENVELOPES))
def test_every_envelope_is_read_bare_too(name):
    reply = f"The agent called:\n{json.dumps(ENVELOPES[name])}\nthen stopped.\n"
    assert [b.path for b in find_blocks(reply.split("\n"))] == ["a.py"]


def test_the_tool_name_does_not_decide():
    # a Write under a name that says otherwise, an Edit under a made-up one
    calls = [
        {"name": "Edit", "input": {"file_path": "b.py", "content": "b\n"}},
        {"name": "totally_custom", "input": ARGS},
    ]
    blocks = parse_reply(fenced(calls)).blocks
    assert [(b.path, b.action) for b in blocks] == [
        ("b.py", Action.OVERWRITE),
        ("a.py", Action.MODIFY),
    ]


def test_calls_that_edit_nothing_are_not_edits():
    message = {
        "role": "assistant",
        "content": [
            {"type": "tool_use", "id": "1", "name": "Read", "input": {"file_path": "a.py"}},
            {"type": "tool_use", "id": "2", "name": "Bash", "input": {"command": "pytest -q"}},
            {"type": "tool_use", "id": "3", "name": "Grep", "input": {"pattern": "x", "path": "."}},
            {"type": "tool_use", "id": "4", "name": "Glob", "input": {"pattern": "**/*.py"}},
        ],
    }
    parsed = parse_reply(fenced(message))
    assert parsed.blocks == () and parsed.failure.code is ErrorCode.NO_EDIT_BLOCKS


def use(n: int, name: str, args: dict) -> dict:
    return {"type": "tool_use", "id": f"toolu_{n}", "name": name, "input": args}


def test_one_message_with_calls_of_every_agent(tmp_path):
    patch = {
        "type": "apply_patch_call",
        "operation": {"type": "create_file", "path": "d.txt", "diff": "+d"},
    }
    gemini = {**ARGS, "old_string": "x = 2", "new_string": "x = 4", "expected_replacements": 1}
    message = {
        "role": "assistant",
        "content": [
            use(1, "Edit", ARGS),
            use(2, "write_to_file", {"path": "c.txt", "content": "c"}),
            use(3, "apply_patch", patch),
            use(4, "replace", gemini),
        ],
    }
    placed = place(tmp_path, {"a.py": "x = 1\ny = 1\n"}, fenced(message))
    assert placed.formats == [Format.CLAUDE_CODE, Format.CLINE, Format.OPENAI_PATCH, Format.GEMINI]
    assert placed.plan.ok, [o.failure for o in placed.plan.outcomes]
    assert placed.texts == {"a.py": "x = 4\ny = 1\n", "c.txt": "c", "d.txt": "d\n"}


def test_a_path_and_a_content_among_other_fields_are_data():
    data = [{"path": "/users", "content": "application/json", "method": "GET"}]
    assert parse_reply(fenced(data)).blocks == ()
    (block,) = parse_reply(
        fenced({"path": "a.txt", "content": "x", "task_progress": "- [x] a"})
    ).blocks
    assert (block.format, block.action) == (Format.CLINE, Action.OVERWRITE)


def test_an_arguments_string_that_is_not_json_is_not_a_call():
    assert parse_reply(fenced({"name": "Edit", "arguments": "{file_path: a.py}"})).blocks == ()


def test_deep_nesting_neither_fails_nor_loops():
    value: object = ARGS
    for _ in range(40):
        value = {"content": [value]}
    assert parse_reply(fenced(value)).blocks == ()
    text = "```json\n" + "[" * 5000 + "]" * 5000 + "\n```\n"
    assert parse_reply(text).failure.code is ErrorCode.NO_EDIT_BLOCKS


@pytest.mark.parametrize(
    "line",
    [
        f"<tool_call>{json.dumps({'name': 'Edit', 'arguments': ARGS})}</tool_call>",
        f"<tool_call>\n{json.dumps({'name': 'Edit', 'arguments': ARGS}, indent=1)}\n</tool_call>",
        f"[TOOL_CALLS] {json.dumps([{'name': 'Edit', 'arguments': ARGS}])}",
        f"<|python_tag|>{json.dumps({'name': 'Edit', 'parameters': ARGS})}",
    ],
)
def test_open_model_chat_template_tags(line, tmp_path):
    reply = f"I will edit the file.\n{line}\n"
    (block,) = parse_reply(reply).blocks
    assert (block.format, block.path) == (Format.CLAUDE_CODE, "a.py")
    placed = place(tmp_path, {"a.py": "x = 1\n"}, reply)
    assert placed.plan.ok and placed.texts["a.py"] == "x = 2\n"


KEYS = [
    "file_path", "path", "filePath", "old_string", "new_string", "replace_all", "edits",
    "content", "expected_replacements", "type", "operation", "diff", "input", "arguments",
    "name", "tool_calls", "function", "output", "command", "patch", "parts", "functionCall",
]  # fmt: skip
SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-2, 3),
    st.sampled_from(["a.py", "", "x = 1", "apply_patch_call", "update_file", "create_file",
                     "delete_file", "@@\n-x = 1\n+x = 2\n", "+y\n", "*** Begin Patch\n"]),
)  # fmt: skip
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3),
        st.dictionaries(st.sampled_from(KEYS), inner, max_size=5),
        st.dictionaries(st.sampled_from(KEYS), inner, max_size=5).map(json.dumps),
    ),
    max_leaves=20,
)


@settings(max_examples=400, deadline=None)
@given(VALUES)
def test_any_shape_of_arguments_parses_without_raising(value):
    # whatever mix of the agents' keys, a reply is parsed, and every block either carries
    # its refusal or is a well-formed edit of one file
    for text in (fenced(value), json.dumps(value)):
        for block in parse_reply(f"Calls:\n{text}\n").blocks:
            assert block.error is not None or block.path
            if block.error is None and block.action is Action.MODIFY:
                assert block.hunks
