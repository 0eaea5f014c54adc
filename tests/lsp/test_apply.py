"""Applying a reply from the editor: code actions, commands, the WorkspaceEdit the editor gets.

Every test runs three times: with the capabilities VS Code, Neovim 0.10 and Neovim 0.11
advertise (Neovim 0.11 negotiates UTF-8 positions, the others UTF-16).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcException

from .conftest import EditorClient

R = types.Range
P = types.Position


def sr(path: str, search: str, replace: str) -> str:
    """A SEARCH/REPLACE block as a model writes it."""
    return f"{path}\n```\n<<<<<<< SEARCH\n{search}=======\n{replace}>>>>>>> REPLACE\n```\n"


def whole(text: str) -> R:
    lines = text.split("\n")
    return R(start=P(line=0, character=0), end=P(line=len(lines) - 1, character=len(lines[-1])))


def only_text_edits(params: types.ApplyWorkspaceEditParams) -> list[types.TextDocumentEdit]:
    return [
        op for op in params.edit.document_changes or [] if isinstance(op, types.TextDocumentEdit)
    ]


async def test_code_action_on_a_selection_applies_the_patch(client: EditorClient, ws: Path):
    client.write("src/app.py", "def greet(name):\n    return 'hi ' + name\n\nprint(greet('x'))\n")
    target = client.open("src/app.py", language_id="python")
    client.replace_all(target, client.text(target))  # version 2: the edit must pin it
    note = (
        "Sure! Here is the change:\n\n"
        + sr("src/app.py", "    return 'hi ' + name\n", "    return f'hello {name}'\n")
        + "\nAnything else?\n"
    )
    notes = client.open("notes.md", note, language_id="markdown")

    # a cursor without selection in an ordinary document offers nothing
    assert not [
        a
        for a in await client.actions(
            notes, R(start=P(line=3, character=0), end=P(line=3, character=0))
        )
        if "LLM" in a.title
    ]

    actions = await client.actions(
        notes, R(start=P(line=2, character=0), end=P(line=9, character=0))
    )
    titles = [a.title for a in actions]
    assert "Apply LLM patch (1 edit in 1 file)" in titles
    apply = next(a for a in actions if a.title.startswith("Apply LLM patch"))
    assert apply.command.command == "llmPatch.apply"

    report = await client.run_action(apply)
    assert report["ok"] is True
    assert [b["status"] for b in report["blocks"]] == ["applied"]
    assert report["files"][0]["path"] == "src/app.py"
    assert "+    return f'hello {name}'" in report["files"][0]["diff"]

    (params,) = client.received
    (doc_edit,) = only_text_edits(params)
    assert doc_edit.text_document.uri == target
    assert doc_edit.text_document.version == 2
    await client.wait_for(lambda: "hello" in client.text(target))
    assert (
        client.text(target) == "def greet(name):\n    return f'hello {name}'\n\nprint(greet('x'))\n"
    )
    # the disk is the editor's business: nothing was written behind its back
    assert "hi " in (ws / "src/app.py").read_text()


async def test_positions_after_an_emoji_use_the_negotiated_encoding(client: EditorClient, ws: Path):
    text = 'label = "😀 ok"; count = 1\nother = 2\n'
    client.write("emoji.py", text)
    target = client.open("emoji.py")
    reply = sr("emoji.py", 'label = "😀 ok"; count = 1\n', 'label = "😀 ok"; count = 2\n')
    report = await client.command("llmPatch.apply", {"text": reply})
    assert report["ok"] is True
    (doc_edit,) = only_text_edits(client.received[0])
    (edit,) = doc_edit.edits
    # `label = "😀 ok"; count = ` is 24 code points; the emoji is 2 UTF-16 units, 4 UTF-8 bytes
    expected = {"utf-16": 25, "utf-8": 27, "utf-32": 24}[client.encoding]
    assert client.encoding == ("utf-8" if client.spec == "neovim@v0.11.0" else "utf-16")
    assert edit.range.start == P(line=0, character=expected)
    assert edit.new_text == "2"
    await client.wait_for(lambda: client.text(target) != text)
    assert client.text(target) == text.replace("count = 1", "count = 2")


async def test_create_rename_and_delete_are_resource_operations(client: EditorClient, ws: Path):
    client.write("old.py", "value = 1\n")
    client.write("gone.py", "bye\n")
    reply = (
        "*** Begin Patch\n"
        "*** Add File: pkg/new.py\n"
        "+print('new')\n"
        "*** Update File: old.py\n"
        "*** Move to: moved.py\n"
        "@@\n"
        "-value = 1\n"
        "+value = 2\n"
        "*** Delete File: gone.py\n"
        "*** End Patch\n"
    )
    report = await client.command("llmPatch.apply", {"text": reply})
    assert report["ok"] is True, report
    ops = client.received[0].edit.document_changes
    kinds = [type(op).__name__ for op in ops]
    assert "CreateFile" in kinds and "RenameFile" in kinds and "DeleteFile" in kinds
    create = next(op for op in ops if isinstance(op, types.CreateFile))
    assert create.options.ignore_if_exists is True
    assert (ws / "pkg/new.py").exists()
    assert not (ws / "gone.py").exists()
    assert not (ws / "old.py").exists()
    moved = client.uri("moved.py")
    assert client.text(moved) == "value = 2\n"
    assert client.text(client.uri("pkg/new.py")) == "print('new')\n"
    assert {f["action"] for f in report["files"]} == {"create", "rename", "delete"}


async def test_only_uncertain_matches_need_confirmation(client: EditorClient, ws: Path):
    client.write(
        "calc.py",
        "def add(a, b):\n    return a + b\n\n\ndef mul(a, b):\n"
        "    # multiply the two numbers together\n    result = a * b\n    return result\n",
    )
    client.open("calc.py")
    reply = sr("calc.py", "    return a + b\n", "    return b + a\n") + sr(
        "calc.py",
        # one word differs from the file: only the fuzzy rung finds it
        "    # multiply the two numbrs together\n    result = a * b\n    return result\n",
        "    return a * b\n",
    )
    report = await client.command("llmPatch.apply", {"text": reply})
    assert report["ok"] is True, report
    assert [b["match"] for b in report["blocks"]] == ["exact", "fuzzy"]
    params = client.received[0]
    (doc_edit,) = only_text_edits(params)
    if client.spec == "visual-studio-code":
        notes = params.edit.change_annotations
        by_block = {a.label.split()[3]: a for a in notes.values()}
        assert by_block["0"].needs_confirmation is False
        assert by_block["1"].needs_confirmation is True
        assert {type(e) for e in doc_edit.edits} == {types.AnnotatedTextEdit}
        ids = {e.annotation_id for e in doc_edit.edits}
        assert ids == set(notes)
    else:  # Neovim advertises no change-annotation support: plain edits
        assert params.edit.change_annotations is None
        assert {type(e) for e in doc_edit.edits} == {types.TextEdit}


async def test_preview_option_asks_for_everything(client: EditorClient, ws: Path):
    client.write("p.py", "x = 1\n")
    reply = sr("p.py", "x = 1\n", "x = 2\n")
    await client.command("llmPatch.apply", {"text": reply}, {"preview": True})
    notes = client.received[0].edit.change_annotations
    if client.spec == "visual-studio-code":
        assert notes and all(a.needs_confirmation for a in notes.values())
    else:
        assert notes is None


async def test_a_failing_block_means_nothing_is_sent(client: EditorClient, ws: Path):
    client.write("a.py", "alpha = 1\nbeta = 2\n")
    reply = sr("a.py", "alpha = 1\n", "alpha = 10\n") + sr("a.py", "gamma = 3\n", "gamma = 30\n")
    report = await client.command("llmPatch.apply", {"text": reply})
    assert report["ok"] is False
    assert [b["status"] for b in report["blocks"]] == ["skipped", "failed"]
    assert report["blocks"][1]["error"]["code"] == "TEXT_NOT_FOUND"
    assert report["files"] == []
    assert client.received == []
    await client.wait_for(lambda: client.messages, what="a message")
    assert "1 of 2 edits failed" in client.messages[-1].message


async def test_partial_action_applies_only_the_blocks_that_place(client: EditorClient, ws: Path):
    client.write("a.py", "alpha = 1\nbeta = 2\n")
    target = client.open("a.py")
    reply = sr("a.py", "alpha = 1\n", "alpha = 10\n") + sr("a.py", "gamma = 3\n", "gamma = 30\n")
    chat = client.open("chat.llm.md", reply, language_id="markdown")
    # the whole reply document (no selection) is the scope; wait for its analysis
    await client.wait_for(lambda: chat in client.diagnostics, what="diagnostics")
    actions = await client.actions(
        chat, R(start=P(line=0, character=0), end=P(line=0, character=0))
    )
    titles = [a.title for a in actions]
    assert "Apply LLM patch (2 edits in 1 file)" in titles
    partial = next(a for a in actions if a.title.startswith("Apply 1 of 2 edits"))
    report = await client.run_action(partial)
    assert report["ok"] is False
    assert [b["status"] for b in report["blocks"]] == ["applied", "failed"]
    await client.wait_for(lambda: "alpha = 10" in client.text(target))
    assert client.text(target) == "alpha = 10\nbeta = 2\n"


async def test_editor_refusal_is_reported_with_a_reason(client: EditorClient, ws: Path):
    client.write("a.py", "alpha = 1\n")
    client.open("a.py")
    client.refuse_next = True
    report = await client.command(
        "llmPatch.apply", {"text": sr("a.py", "alpha = 1\n", "alpha = 2\n")}
    )
    assert report["ok"] is False
    (block,) = report["blocks"]
    assert block["status"] == "failed"
    assert block["error"]["code"] == "STALE_VERSION"
    await client.wait_for(lambda: client.messages, what="a message")
    message = client.messages[-1]
    assert message.type == types.MessageType.Error
    assert "the document changed since the patch was planned; run it again" in message.message


async def test_stale_document_is_caught_whatever_the_editor_says(client: EditorClient, ws: Path):
    """The user types between planning and applying: VS Code refuses (applied: false),
    Neovim skips the document and says applied: true — both end as STALE_VERSION."""
    client.write("a.py", "alpha = 1\nbeta = 2\n")
    target = client.open("a.py")

    def user_types(c: EditorClient) -> None:
        c.replace_all(target, "alpha = 1\nbeta = 2\n# typed\n")

    client.before_apply = user_types
    report = await client.command(
        "llmPatch.apply", {"text": sr("a.py", "alpha = 1\n", "alpha = 2\n")}
    )
    assert report["ok"] is False
    assert report["blocks"][0]["error"]["code"] == "STALE_VERSION"
    assert client.text(target) == "alpha = 1\nbeta = 2\n# typed\n"
    await client.wait_for(
        lambda: any("run it again" in m.message for m in client.messages), what="a stale message"
    )


async def test_apply_block_applies_one_block(client: EditorClient, ws: Path):
    client.write("a.py", "alpha = 1\nbeta = 2\n")
    target = client.open("a.py")
    reply = sr("a.py", "alpha = 1\n", "alpha = 10\n") + sr("a.py", "beta = 2\n", "beta = 20\n")
    chat = client.open("chat.llm.md", reply)
    report = await client.command("llmPatch.applyBlock", {"uri": chat, "block": 1})
    assert [b["index"] for b in report["blocks"]] == [1]
    await client.wait_for(lambda: "beta = 20" in client.text(target))
    assert client.text(target) == "alpha = 1\nbeta = 20\n"


async def test_already_applied_reply_sends_nothing(client: EditorClient, ws: Path):
    client.write("a.py", "alpha = 10\n")
    report = await client.command(
        "llmPatch.apply", {"text": sr("a.py", "alpha = 1\n", "alpha = 10\n")}
    )
    assert report["ok"] is True
    assert report["files"] == []
    assert client.received == []


async def test_check_publishes_diagnostics_and_applies_nothing(client: EditorClient, ws: Path):
    client.write("a.py", "alpha = 1\n")
    reply = "intro\n" + sr("a.py", "zeta = 1\n", "zeta = 2\n")
    notes = client.open("notes.md", reply, language_id="markdown")
    report = await client.command("llmPatch.check", {"uri": notes})
    assert report["ok"] is False
    assert client.received == []
    await client.wait_for(lambda: client.diagnostics.get(notes), what="diagnostics")
    (diag,) = client.diagnostics[notes]
    assert diag.code == "TEXT_NOT_FOUND"
    assert diag.range.start.line == 1


async def test_invalid_arguments_get_an_error_not_a_crash(client: EditorClient, ws: Path):
    for args in (
        [],
        [42],
        [{"uri": 7}],
        [{"text": "x"}, "not options"],
        [{"uri": "file:///nope/x.md"}],
    ):
        with pytest.raises(JsonRpcException):
            await client.command("llmPatch.apply", *args)
    assert (await client.command("llmPatch.stats"))["patches"] >= 0


async def test_build_diff_and_stats(client: EditorClient, ws: Path):
    result = await client.command(
        "llmPatch.buildDiff", {"original": "a\nb\n", "updated": "a\nc\n", "path": "x.txt"}
    )
    assert result["path"] == "x.txt"
    assert "-b\n+c\n" in result["diff"] and "--- a/x.txt" in result["diff"]
    client.write("a.py", "alpha = 1\n")
    await client.command("llmPatch.apply", {"text": sr("a.py", "alpha = 1\n", "alpha = 2\n")})
    await client.command("llmPatch.apply", {"text": sr("a.py", "nope\n", "x\n")})
    stats = await client.command("llmPatch.stats")
    assert stats["patches"] == 2
    assert stats["conflicts"] == 1
    assert stats["averageLatencyMs"] > 0


async def test_progress_is_reported_for_many_blocks(client: EditorClient, ws: Path):
    client.write("many.py", "".join(f"v{i} = {i}\n" for i in range(20)))
    reply = "".join(sr("many.py", f"v{i} = {i}\n", f"v{i} = {i * 10}\n") for i in range(12))
    report = await client.command("llmPatch.apply", {"text": reply})
    assert report["ok"] is True
    kinds = [v.kind for reports in client.progress_reports.values() for v in reports]
    assert kinds[0] == "begin" and kinds[-1] == "end"


async def test_patch_tool_and_structure_commands(client: EditorClient, ws: Path):
    client.write("m.py", "def f():\n    return 1\n\n\ndef g():\n    return 2\n")
    target = client.open("m.py")
    report = await client.command(
        "llmPatch.patch",
        {
            "path": "m.py",
            "patches": [{"operation": "replace", "oldText": "return 2", "newText": "return 20"}],
        },
    )
    assert report["ok"] is True, report
    assert report["blocks"][0]["format"] == "patch-tool"
    await client.wait_for(lambda: "return 20" in client.text(target))
    report = await client.command(
        "llmPatch.structure",
        {"path": "m.py", "target": "function f", "content": "def f():\n    return 10\n"},
    )
    assert report["ok"] is True, report
    assert report["blocks"][0]["match"] == "structural"
    await client.wait_for(lambda: "return 10" in client.text(target))
    assert client.text(target) == "def f():\n    return 10\n\n\ndef g():\n    return 20\n"


async def test_incremental_sync_breaks_lines_only_where_the_client_does(
    client: EditorClient, ws: Path
):
    # U+2028 and a form feed break no line for an LSP client (Python's splitlines breaks)
    text = "doc = 'a\u2028b'\n\x0c\ncount = 1\n"
    client.write("sep.py", text)
    target = client.open("sep.py")
    start = types.Position(line=2, character=8)
    end = types.Position(line=2, character=9)
    client._send_changes(target, [(types.Range(start=start, end=end), "5")])
    client.docs[target] = [text.replace("count = 1", "count = 5"), 2]
    report = await client.command(
        "llmPatch.apply", {"text": sr("sep.py", "count = 5\n", "count = 6\n")}
    )
    assert report["ok"] is True, report
    (doc_edit,) = only_text_edits(client.received[0])
    assert doc_edit.text_document.version == 2
    assert doc_edit.edits[0].range.start == types.Position(line=2, character=8)
    await client.wait_for(lambda: "count = 6" in client.text(target))
    assert client.text(target) == "doc = 'a\u2028b'\n\x0c\ncount = 6\n"


async def test_target_node_block_gives_a_versioned_structural_edit(
    client: EditorClient, ws: Path
):
    client.write(
        "shapes.py",
        "class Point:\n    def dist(self):\n        return 0\n\n"
        "    def norm(self):\n        return 1\n",
    )
    target = client.open("shapes.py", language_id="python")
    client.replace_all(target, client.text(target))  # version 2
    reply = (
        "Make dist real:\n\n```python\n# FILE: shapes.py\n# TARGET_NODE: class Point\n"
        "# TARGET_NODE: method dist\n"
        "def dist(self):\n    return (self.x**2 + self.y**2) ** 0.5\n```\n"
    )
    notes = client.open("reply.llm.md", reply, language_id="markdown")
    actions = await client.actions(notes, whole(reply))
    apply = next(a for a in actions if a.title.startswith("Apply LLM patch"))
    report = await client.run_action(apply)
    assert report["ok"] is True, report
    assert report["blocks"][0]["match"] == "structural"
    params = client.received[0]
    (doc_edit,) = only_text_edits(params)
    assert doc_edit.text_document.version == 2
    await client.wait_for(lambda: "** 0.5" in client.text(target))
    assert client.text(target).endswith("    def norm(self):\n        return 1\n")
    assert "        return (self.x**2 + self.y**2) ** 0.5\n" in client.text(target)
    if client.spec == "visual-studio-code":
        (note,) = params.edit.change_annotations.values()
        assert "structural" in note.label and note.needs_confirmation is True
