"""OpenAI's apply_patch tool: Responses API `apply_patch_call` items with V4A bodies."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from lsp_server.model import Action, ErrorCode, Format, OnExists
from lsp_server.reply import parse_reply
from lsp_server.reply.apply_patch import find_blocks as apply_patch_blocks
from lsp_server.reply.apply_patch import operation_block
from tests.reply.agent_replies import fenced, place

SERVER = """import http


def handler(request):
    if request.path == "/":
        return index()
    return not_found()


def index():
    return "hello"


def not_found():
    return "missing"
"""


def call(kind: str, path: str, diff: str | None = None, n: int = 1) -> dict:
    operation = {"type": kind, "path": path}
    if diff is not None:
        operation["diff"] = diff
    return {
        "type": "apply_patch_call",
        "id": f"apc_{n}",
        "call_id": f"call_{n}",
        "status": "completed",
        "operation": operation,
    }


UPDATE = '@@ def index():\n-    return "hello"\n+    return "hello, world"\n'


def test_one_update_in_prose(tmp_path):
    reply = "Let me greet the world.\n\n" + fenced(call("update_file", "server.py", UPDATE))
    reply += "\n\nThat's the only change.\n"
    placed = place(tmp_path, {"server.py": SERVER}, reply)
    assert placed.formats == [Format.OPENAI_PATCH]
    assert placed.plan.ok
    assert placed.texts["server.py"] == SERVER.replace('"hello"', '"hello, world"')


def test_create_update_and_delete_in_an_array(tmp_path):
    items = [
        call("create_file", "routes/health.py", "+def health():\n+\n+    return 'ok'\n", 1),
        call(
            "update_file",
            "server.py",
            '@@ def handler(request):\n     if request.path == "/":\n         return index()\n'
            '+    if request.path == "/health":\n+        return health()\n'
            '@@ def not_found():\n-    return "missing"\n+    return "404"\n',
            2,
        ),
        call("delete_file", "old.py", None, 3),
    ]
    placed = place(tmp_path, {"server.py": SERVER, "old.py": "x = 1\n"}, fenced(items))
    assert placed.plan.ok, [o.failure for o in placed.plan.outcomes]
    texts = placed.texts
    assert texts["routes/health.py"] == "def health():\n\n    return 'ok'\n"
    assert texts["old.py"] is None
    assert texts["server.py"] == SERVER.replace(
        "        return index()\n",
        '        return index()\n    if request.path == "/health":\n        return health()\n',
    ).replace('"missing"', '"404"')
    blocks = parse_reply(fenced(items)).blocks
    assert [b.action for b in blocks] == [Action.CREATE, Action.MODIFY, Action.DELETE]
    assert blocks[0].on_exists is OnExists.OVERWRITE


def test_a_response_output_with_a_v4a_patch_and_a_search_replace_block(tmp_path):
    response = {
        "id": "resp_1",
        "object": "response",
        "output": [
            {"type": "reasoning", "summary": []},
            {
                "type": "message",
                "role": "assistant",
                "content": [{"type": "output_text", "text": "Updating the handler."}],
            },
            call("update_file", "server.py", UPDATE),
        ],
    }
    patch = "*** Begin Patch\n*** Update File: notes.md\n@@\n-draft\n+final\n*** End Patch\n"
    sr = "cfg.ini\n```\n<<<<<<< SEARCH\nx=1\n=======\nx=2\n>>>>>>> REPLACE\n```\n"
    reply = "The API returned:\n" + fenced(response) + "\nand\n\n" + patch + "\n" + sr
    placed = place(
        tmp_path, {"server.py": SERVER, "notes.md": "draft\n", "cfg.ini": "x=1\n"}, reply
    )
    assert placed.formats == [Format.OPENAI_PATCH, Format.APPLY_PATCH, Format.SEARCH_REPLACE]
    assert placed.plan.ok
    assert placed.texts == {
        "server.py": SERVER.replace('"hello"', '"hello, world"'),
        "notes.md": "final\n",
        "cfg.ini": "x=2\n",
    }


def test_an_operation_given_alone(tmp_path):
    reply = fenced({"type": "update_file", "path": "server.py", "diff": UPDATE})
    placed = place(tmp_path, {"server.py": SERVER}, reply)
    assert placed.formats == [Format.OPENAI_PATCH] and placed.plan.ok


def test_a_body_with_its_own_begin_patch_envelope(tmp_path):
    diff = f"*** Begin Patch\n*** Update File: server.py\n{UPDATE}*** End Patch\n"
    placed = place(tmp_path, {"server.py": SERVER}, fenced(call("update_file", "server.py", diff)))
    assert placed.plan.ok
    assert placed.texts["server.py"] == SERVER.replace('"hello"', '"hello, world"')


def test_a_body_with_its_own_operation_header(tmp_path):
    diff = f"*** Update File: server.py\n{UPDATE}"
    placed = place(tmp_path, {"server.py": SERVER}, fenced(call("update_file", "server.py", diff)))
    assert placed.plan.ok
    assert placed.texts["server.py"] == SERVER.replace('"hello"', '"hello, world"')
    # a header naming another file is refused, not applied to either
    diff = f"*** Update File: other.py\n{UPDATE}"
    (block,) = parse_reply(fenced(call("update_file", "server.py", diff))).blocks
    assert block.error is not None and block.error.code is ErrorCode.MALFORMED_BLOCK


def test_chunks_apply_in_order_after_their_anchors(tmp_path):
    # both functions return a string; the @@ anchors say which is which
    diff = (
        '@@ def index():\n-    return "hello"\n+    return "hi"\n'
        '@@ def not_found():\n-    return "missing"\n+    return "gone"\n'
    )
    placed = place(tmp_path, {"server.py": SERVER}, fenced(call("update_file", "server.py", diff)))
    assert placed.plan.ok
    assert placed.texts["server.py"] == SERVER.replace('"hello"', '"hi"').replace(
        '"missing"', '"gone"'
    )


def test_text_not_found(tmp_path):
    diff = '@@ def index():\n-    return "goodbye"\n+    return "x"\n'
    failure = place(
        tmp_path, {"server.py": SERVER}, fenced(call("update_file", "server.py", diff))
    ).failure()
    assert failure.code is ErrorCode.TEXT_NOT_FOUND
    assert failure.details["closest"]["line"] == 11


def test_malformed_operations():
    cases = {
        "a line without its prefix": (call("update_file", "a.py", "@@\n-x\nplain\n+y\n"), 3),
        "create without +": (call("create_file", "a.py", "x = 1\n"), 1),
        "two files in one body": (
            call("update_file", "a.py", "@@\n-x\n+y\n*** Update File: b.py\n@@\n-x\n+y\n"),
            4,
        ),
        "empty update": (call("update_file", "a.py", "\n"), 1),
    }
    for name, (item, line) in cases.items():
        (block,) = parse_reply(fenced(item)).blocks
        assert block.format is Format.OPENAI_PATCH, name
        assert block.error is not None and block.error.code is ErrorCode.MALFORMED_BLOCK, name
        assert block.error.details["line"] == line, name
        assert block.path == "a.py"
    for item, field in [
        (call("update_file", "a.py"), "missing"),
        (call("rename_file", "a.py", "x"), "operation"),
        (
            {"type": "apply_patch_call", "operation": {"type": "update_file", "diff": "x"}},
            "missing",
        ),
    ]:
        (block,) = parse_reply(fenced(item)).blocks
        assert block.error is not None and block.error.code is ErrorCode.MALFORMED_BLOCK
        assert field in block.error.details


def test_broken_json_is_malformed_under_openai():
    text = fenced(call("update_file", "server.py", UPDATE)).replace('"status"', "status")
    (block,) = parse_reply(text).blocks
    assert block.format is Format.OPENAI_PATCH
    assert block.error.code is ErrorCode.MALFORMED_BLOCK and block.error.details["line"] > 1


PATCH = f"*** Begin Patch\n*** Update File: server.py\n{UPDATE}*** End Patch\n"


def test_codex_apply_patch_strings_in_calls(tmp_path):
    calls = [
        # the freeform apply_patch tool
        {"type": "custom_tool_call", "name": "apply_patch", "input": PATCH},
        # its shell call, as arguments string and as a heredoc
        {
            "type": "function_call",
            "name": "shell",
            "arguments": json.dumps({"command": ["apply_patch", PATCH]}),
        },
        {
            "name": "shell",
            "arguments": {"command": ["bash", "-lc", f"apply_patch <<'EOF'\n{PATCH}EOF\n"]},
        },
    ]
    for item in calls:
        (block,) = parse_reply(fenced(item)).blocks
        assert block.format is Format.APPLY_PATCH and block.path == "server.py", item
        placed = place(tmp_path, {"server.py": SERVER}, fenced(item))
        assert placed.plan.ok
        assert placed.texts["server.py"] == SERVER.replace('"hello"', '"hello, world"')
    # a shell call that is no patch is no edit
    assert parse_reply(fenced({"name": "shell", "arguments": {"command": ["ls"]}})).blocks == ()


BODY_LINES = st.lists(
    st.sampled_from(
        ["@@", "@@ def index():", " keep", "-old", "+new", "", "*** End of File", "stray", "+"]
    ),
    max_size=8,
)


@settings(max_examples=300, deadline=None)
@given(BODY_LINES, st.sampled_from([Action.MODIFY, Action.CREATE]))
def test_an_operation_body_reads_as_the_same_operation_inside_a_patch(lines, action):
    # one grammar: the body alone gives what the same body gives inside `*** Begin Patch`
    body = "\n".join(lines)
    alone = operation_block(Format.OPENAI_PATCH, action, "a.py", body, (1, 1))
    header = "*** Update File: a.py" if action is Action.MODIFY else "*** Add File: a.py"
    patch = "\n".join(["*** Begin Patch", header, *lines, "*** End Patch"])
    inside = apply_patch_blocks(patch.split("\n"))
    if alone.error is None:
        (block,) = inside
        assert block.error is None
        assert (block.action, block.hunks, block.content) == (
            alone.action,
            alone.hunks,
            alone.content,
        )
    else:
        assert any(b.error is not None for b in inside)
