"""Applying a reply: the WorkspaceEdit the editor gets, and the check that it landed.

Every client test runs three times: with the capabilities VS Code, Neovim 0.10 and Neovim 0.11
advertise (Neovim 0.11 negotiates UTF-8 positions, the others UTF-16).
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
import pytest_lsp
from hypothesis import given, settings
from hypothesis import strategies as st
from lsprotocol import types
from pytest_lsp import ClientServerConfig

from lsp_server.linediff import edit_present

from .conftest import EditorClient, make_client, only_text_edits, sr, start_session, whole

R = types.Range
P = types.Position


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


async def test_a_preview_asks_only_where_an_edit_must_be_looked_at(client: EditorClient, ws: Path):
    """VS Code's refactor preview unticks every edit whose annotation needs confirmation:
    a preview that asked for every block applied nothing by default. It opens only when some
    edit asks, so a preview of edits that need no look asks with one edit that changes
    nothing: the preview opens with every block's edit ticked."""
    client.write("p.py", "x = 1\n")
    reply = sr("p.py", "x = 1\n", "x = 2\n")
    report = await client.command("llmPatch.apply", {"text": reply}, {"preview": True})
    assert report["ok"] is True, report["summary"]
    edit = client.received[0].edit
    notes = edit.change_annotations
    if client.spec != "visual-studio-code":
        assert notes is None
        return
    asking = {k for k, a in notes.items() if a.needs_confirmation}
    assert asking == {"llm-patch/preview"}
    (doc,) = edit.document_changes
    for e in doc.edits:
        if e.annotation_id in asking:  # the opener changes nothing
            assert (e.new_text, e.range.start, e.range.end) == ("", e.range.end, e.range.start)
    assert any(e.annotation_id not in asking and e.new_text for e in doc.edits)


FUZZY_FILE = (
    "def mul(a, b):\n    # multiply the two numbers together\n    result = a * b\n"
    "    return result\n"
)
FUZZY_REPLY = sr("a.py", "x = 1\n", "x = 2\n") + sr(
    "m.py",
    "    # multiply the two numbrs together\n    result = a * b\n    return result\n",
    "    return a * b\n",
)


@pytest.mark.only_clients("visual-studio-code")
async def test_a_block_left_out_in_the_preview_is_reported_left_out(client: EditorClient, ws: Path):
    client.write("a.py", "x = 1\n")
    client.write("m.py", FUZZY_FILE)
    client.open("m.py")
    client.leave_out = {client.uri("m.py")}  # the user unticks the fuzzy block's edit
    report = await client.command("llmPatch.apply", {"text": FUZZY_REPLY}, {"preview": True})
    assert [b["status"] for b in report["blocks"]] == ["applied", "skipped"], report["summary"]
    assert report["blocks"][1]["left_out"] is True
    assert report["blocks"][1]["error"]["code"] == "LEFT_OUT"
    assert "STALE_VERSION" not in str(report)
    assert report["ok"] is False
    assert "left out in the editor's preview: #1 m.py" in report["summary"]
    assert "the rest was applied" in report["summary"]
    message = next(m.message for m in client.messages if "left out" in m.message)
    assert "changed: a.py" in message and "applied whole" in message


@pytest.mark.only_clients("visual-studio-code")
async def test_a_file_not_open_left_out_in_the_preview_is_reported_left_out(
    client: EditorClient, ws: Path
):
    """A preview of exact blocks in files the editor has not open: VS Code opens a document
    only for an edit it applies, so a file it opened none for, still as planned on disk,
    was unticked — reported left out, not applied."""
    client.write("a.py", "x = 1\n")
    client.write("b.py", "y = 1\n")
    client.leave_out = {client.uri("b.py")}
    reply = sr("a.py", "x = 1\n", "x = 2\n") + sr("b.py", "y = 1\n", "y = 2\n")
    report = await client.command("llmPatch.apply", {"text": reply}, {"preview": True})
    assert [b["status"] for b in report["blocks"]] == ["applied", "skipped"], report["summary"]
    assert report["blocks"][1]["error"]["code"] == "LEFT_OUT"
    assert "left out in the editor's preview: #1 b.py" in report["summary"]


@pytest.mark.only_clients("visual-studio-code")
async def test_a_declined_preview_is_left_out_not_stale(client: EditorClient, ws: Path):
    client.write("a.py", "x = 1\n")
    client.write("m.py", FUZZY_FILE)
    client.refuse_next = True  # Discard in the preview: applied false, no reason
    report = await client.command("llmPatch.apply", {"text": FUZZY_REPLY})
    assert [b["status"] for b in report["blocks"]] == ["skipped", "skipped"]
    assert {b["error"]["code"] for b in report["blocks"]} == {"LEFT_OUT"}
    assert "nothing was applied" in report["summary"]
    # the project's extension turns "applied, yet nothing changed" into this answer
    client.refuse_next = True
    client.refuse_reason = "no file changed: every change was left out in the preview"
    report = await client.command("llmPatch.apply", {"text": FUZZY_REPLY})
    assert {b["error"]["code"] for b in report["blocks"]} == {"LEFT_OUT"}


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


async def test_already_applied_reply_sends_nothing(client: EditorClient, ws: Path):
    client.write("a.py", "alpha = 10\n")
    report = await client.command(
        "llmPatch.apply", {"text": sr("a.py", "alpha = 1\n", "alpha = 10\n")}
    )
    assert report["ok"] is True
    assert report["files"] == []
    assert client.received == []


async def test_target_node_block_gives_a_versioned_structural_edit(client: EditorClient, ws: Path):
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


@pytest_lsp.fixture(
    config=ClientServerConfig(
        server_command=[sys.executable, "-m", "lsp_server"], client_factory=make_client
    )
)
async def bare(lsp_client: EditorClient, tmp_path: Path):
    root = tmp_path / "ws"
    root.mkdir()
    await start_session(
        lsp_client, "bare", root.resolve(), init_options={"llmPatch": {"atomic": False}}
    )
    yield
    await lsp_client.shutdown_session()


async def test_plain_changes_for_a_client_without_document_changes(bare: EditorClient):
    bare.write("a.py", "x = 1\n")
    target = bare.open("a.py")
    report = await bare.command("llmPatch.apply", {"text": sr("a.py", "x = 1\n", "x = 2\n")})
    assert report["ok"] is True
    edit = bare.received[0].edit
    assert edit.document_changes is None
    assert list(edit.changes) == [target]
    # creating a file is impossible without resource operations: refused, nothing sent
    report = await bare.command(
        "llmPatch.apply", {"text": sr("new.py", "", "y = 1\n")}, {"partial": False}
    )
    assert report["ok"] is False
    assert report["blocks"][0]["error"]["code"] == "IO_ERROR"
    assert len(bare.received) == 1
    # initializationOptions turned `atomic` off: what places is applied
    report = await bare.command(
        "llmPatch.apply", {"text": sr("a.py", "x = 2\n", "x = 3\n") + sr("a.py", "no\n", "n\n")}
    )
    assert [b["status"] for b in report["blocks"]] == ["applied", "failed"]
    await bare.wait_for(lambda: bare.text(target) == "x = 3\n")


LINES = st.lists(st.sampled_from(["a", "b", "def f():", "    return 1", "", "x = 😀"]), max_size=12)


@st.composite
def edited(draw):
    old = draw(LINES)
    new = list(old)
    for _ in range(draw(st.integers(1, 3))):
        i = draw(st.integers(0, len(new)))
        new.insert(i, draw(st.sampled_from(["NEW LINE", "changed = 2", "    pass"])))
    return "\n".join(old) + "\n", "\n".join(new) + "\n"


@settings(max_examples=200, deadline=None)
@given(edited(), st.sampled_from(["", "# typed\n", "import os\n"]), st.booleans())
def test_edit_present_sees_the_edit_despite_typing_around_it(pair, extra, crlf):
    old, new = pair
    now = extra + new + extra
    if crlf:
        now = now.replace("\n", "\r\n")
    assert edit_present(old, new, new)
    assert edit_present(old, new, now)
    assert not edit_present(old, new, old)


def test_edit_present_misses_a_skipped_edit_after_typing():
    old = "alpha = 1\nbeta = 2\n"
    new = "alpha = 2\nbeta = 2\n"
    typed = "alpha = 1\nbeta = 2\n# typed\n"
    assert not edit_present(old, new, typed)


def test_a_snippet_placement_always_needs_confirmation():
    """A snippet's place is inferred from names, not quoted: confirmFuzzy off still asks."""
    from lsp_server.edits import EditCapabilities, build_workspace_edit
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

    block = EditBlock(Format.WHOLE_FILE, "a.py", (1, 5), index=0)
    outcome = BlockOutcome(
        block, Status.VALIDATED, MatchKind.SNIPPET, placements=(Placement(0, 1, MatchKind.SNIPPET),)
    )
    change = FileChange(
        "a.py",
        FileAction.MODIFY,
        "def f():\n    return 1\n",
        "def f():\n    return 2\n",
        version=3,
        blocks=(0,),
    )
    plan = Plan((outcome,), (change,))
    for confirm_fuzzy in (True, False):
        built = build_workspace_edit(
            plan, EditCapabilities(), lambda p: f"file:///ws/{p}", confirm_fuzzy=confirm_fuzzy
        )
        (note,) = built.edit.change_annotations.values()
        assert note.needs_confirmation is True
        assert "snippet" in note.label
        assert built.needs_confirmation


# --- an edit the editor applied in part ---------------------------------------------------------


@pytest.mark.parametrize("opened", [False, True])
async def test_a_partly_applied_edit_is_reported_as_what_landed(
    client: EditorClient, ws: Path, opened: bool
):
    """`applied: false, failedChange: 1` after the editor applied the first document change:
    a.py holds the edit, and the report says so (it said "nothing was applied")."""
    client.write("a.py", "a = 1\n")
    client.write("b.py", "b = 1\n")
    if opened:
        client.open("a.py")
        client.open("b.py")
    reply = sr("a.py", "a = 1\n", "a = 2\n") + sr("b.py", "b = 1\n", "b = 2\n")
    client.fail_at = 1
    report = await client.command("llmPatch.apply", {"text": reply})
    assert [b["status"] for b in report["blocks"]] == ["applied", "failed"], report["summary"]
    assert report["ok"] is False
    assert "nothing was applied" not in report["summary"]
    assert "change 1" in report["blocks"][1]["error"]["message"]
    assert client.text(client.uri("a.py")) == "a = 2\n"
    message = next(m.message for m in client.messages if "part of the edit" in m.message)
    assert "changed a.py" in message and "not applied: b.py" in message


async def test_a_move_whose_text_edit_failed_is_reported_as_moved_not_edited(
    client: EditorClient, ws: Path
):
    client.write("a.py", "x = 1\n")
    move = "*** Begin Patch\n*** Update File: a.py\n*** Move to: b.py\n@@\n-x = 1\n+x = 2\n"
    client.fail_at = 1  # the rename lands, the edit under the new name does not
    report = await client.command("llmPatch.apply", {"text": move + "*** End Patch\n"})
    (block,) = report["blocks"]
    assert block["status"] == "failed"
    assert "moved it to b.py" in block["error"]["message"]
    assert "holds the old text" in block["error"]["message"]
    assert (ws / "b.py").read_text() == "x = 1\n"


async def test_nothing_landed_is_still_nothing_applied(client: EditorClient, ws: Path):
    client.write("a.py", "a = 1\n")
    client.fail_at = 0
    report = await client.command("llmPatch.apply", {"text": sr("a.py", "a = 1\n", "a = 2\n")})
    assert report["blocks"][0]["status"] == "failed"
    assert (ws / "a.py").read_text() == "a = 1\n"


def test_failed_change_is_read_with_the_clients_failure_handling():
    from lsp_server.edits import BuiltEdit
    from lsp_server.lsp.partial import expected_landed

    doc = types.TextDocumentEdit(
        text_document=types.OptionalVersionedTextDocumentIdentifier(uri="file:///a", version=None),
        edits=[],
    )
    rename = types.RenameFile(old_uri="file:///m", new_uri="file:///n")
    built = BuiltEdit(
        edit=types.WorkspaceEdit(document_changes=[doc, doc, rename, doc]),
        text_edit_count=3,
        files=(),
        operations=("a.py", "b.py", "m.py", "m.py"),
    )
    assert expected_landed("abort", 2, built) == ({"a.py", "b.py"}, set())
    assert expected_landed(None, 3, built) == ({"a.py", "b.py"}, {"m.py"})
    assert expected_landed("transactional", 2, built) == (set(), set())
    assert expected_landed("undo", 2, built) == (set(), set())
    # with a resource operation, textOnlyTransactional is abort
    assert expected_landed("textOnlyTransactional", 1, built) == ({"a.py"}, set())
    assert expected_landed("abort", None, built) == (None, set())
    assert expected_landed("abort", 9, built) == (None, set())
    text_only = BuiltEdit(
        edit=types.WorkspaceEdit(document_changes=[doc, doc]),
        text_edit_count=2,
        files=(),
        operations=("a.py", "b.py"),
    )
    assert expected_landed("textOnlyTransactional", 1, text_only) == (set(), set())
