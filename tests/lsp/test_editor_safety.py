"""No silent corruption of a buffer (issue 16): an edit is sent only for text the server
has seen, and unsaved work is never deleted or moved away behind the editor's back.

* a plan made before the latest change of a document it edits is made again (and refused
  when the document keeps changing); Neovim opens documents at version 0 and never checks
  that version, so the server cannot leave the check to it;
* a document the client reports `dirty` (unsaved changes the server was not sent) is
  stale: a block on it is refused;
* deleting or moving a document open with unsaved changes, or editing a file with other
  hard links, is asked about first (window/showMessageRequest) and refused without a yes
  (or the caller's `confirmUnsaved`, for unsaved work).

The races are played in-process, where a change can be made at the one moment that
matters; the rest against the real server process, as the editors drive it.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
import pytest_lsp
from pygls.exceptions import JsonRpcException

from lsp_server.lsp import apply
from lsp_server.lsp.analysis import ReplySource
from lsp_server.lsp.server import create_server
from lsp_server.lsp.session import LlmPatchServer

from .conftest import CONFIG, EditorClient, Wire, only_text_edits, sr, start_session

DOC_CHANGES = {"workspace": {"workspaceEdit": {"documentChanges": True}, "applyEdit": True}}


def _server(root: Path) -> tuple[LlmPatchServer, Wire]:
    ls = create_server()
    wire = Wire()
    ls.protocol.set_writer(wire, include_headers=False)
    params = {"processId": None, "rootUri": root.as_uri(), "capabilities": DOC_CHANGES}
    ls.protocol.handle_message(
        {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": params}
    )
    return ls, wire


def _notify(ls: LlmPatchServer, method: str, params: object) -> None:
    ls.protocol.handle_message({"jsonrpc": "2.0", "method": method, "params": params})


def _open(ls: LlmPatchServer, uri: str, text: str, version: int) -> None:
    item = {"uri": uri, "languageId": "python", "version": version, "text": text}
    _notify(ls, "textDocument/didOpen", {"textDocument": item})


def _insert_line_at_top(ls: LlmPatchServer, uri: str, version: int, line: str) -> None:
    at = {"line": 0, "character": 0}
    _notify(
        ls,
        "textDocument/didChange",
        {
            "textDocument": {"uri": uri, "version": version},
            "contentChanges": [{"range": {"start": at, "end": at}, "text": line}],
        },
    )


async def _answer_edits(ls: LlmPatchServer, wire: Wire, applied: bool) -> list[dict]:
    """Answer every `workspace/applyEdit` the server sends; the ones answered so far."""
    answered: list[dict] = []
    while True:
        for msg in wire.sent:
            if msg.get("method") == "workspace/applyEdit" and msg not in answered:
                answered.append(msg)
                reply = {"jsonrpc": "2.0", "id": msg["id"], "result": {"applied": applied}}
                ls.protocol.handle_message(reply)
        await asyncio.sleep(0.01)


async def test_a_plan_made_before_the_latest_keystroke_is_made_again(tmp_path: Path):
    # Neovim's didOpen version is 0; the user inserts a line at the top while the patch is
    # planned: the edit sent must be pinned to the new version, at the shifted line
    ls, wire = _server(tmp_path)
    (tmp_path / "i18n.py").write_text("LABEL = 'count'\nCOUNT = 1\n")
    uri = (tmp_path / "i18n.py").as_uri()
    _open(ls, uri, "LABEL = 'count'\nCOUNT = 1\n", version=0)
    plan_it = ls.analyse
    plans = []

    async def plan_then_type(*args, **kwargs):
        analysis = await plan_it(*args, **kwargs)
        if not plans:
            _insert_line_at_top(ls, uri, 1, "# header\n")
        plans.append(analysis)
        return analysis

    ls.analyse = plan_then_type
    answering = asyncio.ensure_future(_answer_edits(ls, wire, applied=False))
    try:
        await apply.apply(
            ls, ReplySource(sr("i18n.py", "COUNT = 1\n", "COUNT = 3\n")), apply.ApplyOptions()
        )
    finally:
        answering.cancel()
    assert len(plans) == 2
    (sent,) = [m for m in wire.sent if m.get("method") == "workspace/applyEdit"]
    (doc_edit,) = sent["params"]["edit"]["documentChanges"]
    assert doc_edit["textDocument"]["version"] == 1
    (edit,) = doc_edit["edits"]
    assert edit["range"]["start"]["line"] == 2  # below the inserted line, on `COUNT = 1`


async def test_a_document_that_keeps_changing_is_refused_not_edited(tmp_path: Path):
    ls, wire = _server(tmp_path)
    (tmp_path / "a.py").write_text("x = 1\n")
    uri = (tmp_path / "a.py").as_uri()
    _open(ls, uri, "x = 1\n", version=0)
    plan_it = ls.analyse
    versions = iter(range(1, 100))

    async def plan_then_type(*args, **kwargs):
        analysis = await plan_it(*args, **kwargs)
        _insert_line_at_top(ls, uri, next(versions), "# more\n")
        return analysis

    ls.analyse = plan_then_type
    answering = asyncio.ensure_future(_answer_edits(ls, wire, applied=False))
    try:
        report = await apply.apply(
            ls, ReplySource(sr("a.py", "x = 1\n", "x = 2\n")), apply.ApplyOptions()
        )
    finally:
        answering.cancel()
    assert report["ok"] is False
    assert report["error"]["code"] == "STALE_VERSION"
    assert "a.py changed in the editor while the patch was planned" in report["error"]["message"]
    assert report["blocks"][0]["status"] == "failed"
    assert not any(m.get("method") == "workspace/applyEdit" for m in wire.sent)


async def test_a_file_opened_while_the_patch_is_planned_is_planned_again(tmp_path: Path):
    # planned from disk (no version), then opened with unsaved text: the buffer, not the
    # disk, is what the edit lands on
    ls, wire = _server(tmp_path)
    (tmp_path / "a.py").write_text("x = 1\n")
    uri = (tmp_path / "a.py").as_uri()
    plan_it = ls.analyse
    plans = []

    async def plan_then_open(*args, **kwargs):
        analysis = await plan_it(*args, **kwargs)
        if not plans:
            _open(ls, uri, "import os\nx = 1\n", version=0)
        plans.append(analysis)
        return analysis

    ls.analyse = plan_then_open
    answering = asyncio.ensure_future(_answer_edits(ls, wire, applied=False))
    try:
        await apply.apply(ls, ReplySource(sr("a.py", "x = 1\n", "x = 2\n")), apply.ApplyOptions())
    finally:
        answering.cancel()
    assert len(plans) == 2
    (sent,) = [m for m in wire.sent if m.get("method") == "workspace/applyEdit"]
    (doc_edit,) = sent["params"]["edit"]["documentChanges"]
    assert doc_edit["textDocument"]["version"] == 0
    assert doc_edit["edits"][0]["range"]["start"]["line"] == 1


async def test_a_document_opened_at_version_0_and_synced_is_edited_where_it_is_now(
    client: EditorClient, ws: Path
):
    # the plugin flushes its pending changes before it runs the command
    client.write("i18n.py", "LABEL = 'count'\nCOUNT = 1\n")
    uri = client.open("i18n.py", version=0)
    client.replace_all(uri, "# header\nLABEL = 'count'\nCOUNT = 1\n")
    report = await client.command(
        "llmPatch.apply", {"text": sr("i18n.py", "COUNT = 1\n", "COUNT = 3\n")}
    )
    assert report["ok"] is True, report["summary"]
    (doc_edit,) = only_text_edits(client.received[-1])
    assert doc_edit.text_document.version == 1
    await client.wait_for(lambda: "COUNT = 3" in client.text(uri), what="the edit")
    assert client.text(uri) == "# header\nLABEL = 'count'\nCOUNT = 3\n"


# --- dirty: unsaved buffers the server was not sent -------------------------------------------


async def test_a_block_on_a_dirty_document_the_server_was_not_sent_is_refused(
    client: EditorClient, ws: Path
):
    # src/VERSION is modified in the editor (two lines added at its top) but not attached:
    # planned from disk, the edit would land on the wrong lines of the buffer
    version_uri = client.write("src/VERSION", "version = 1\nchannel = stable\n")
    client.write("a.py", "x = 1\n")
    reply = sr("src/VERSION", "channel = stable\n", "channel = beta\n") + sr(
        "a.py", "x = 1\n", "x = 2\n"
    )
    for command in ("llmPatch.check", "llmPatch.apply"):
        report = await client.command(command, {"text": reply, "dirty": [version_uri]})
        assert report["ok"] is False
        (failed,) = [b for b in report["blocks"] if b["status"] == "failed"]
        assert failed["path"] == "src/VERSION"
        assert failed["error"]["code"] == "STALE_VERSION"
        assert "save the file" in failed["error"]["message"]
        assert "src/VERSION has unsaved changes" in report["summary"]
    assert client.received == []

    # with `partial`, the other block still applies
    report = await client.command(
        "llmPatch.apply", {"text": reply, "dirty": [version_uri]}, {"partial": True}
    )
    assert [b["status"] for b in report["blocks"]] == ["failed", "applied"]
    assert (ws / "src/VERSION").read_text() == "version = 1\nchannel = stable\n"
    await client.wait_for(lambda: client.docs.get(client.uri("a.py"), [""])[0] == "x = 2\n")


async def test_a_dirty_document_the_server_has_is_edited_as_usual(client: EditorClient, ws: Path):
    client.write("a.py", "x = 1\n")
    uri = client.open("a.py")
    client.replace_all(uri, "import os\nx = 1\n")
    report = await client.command(
        "llmPatch.apply", {"text": sr("a.py", "x = 1\n", "x = 2\n"), "dirty": [uri]}
    )
    assert report["ok"] is True, report["summary"]
    await client.wait_for(lambda: client.text(uri) == "import os\nx = 2\n", what="the edit")


async def test_dirty_must_be_a_list_of_uris(client: EditorClient, ws: Path):
    for bad in ("file:///a.py", [3], [""], {"a": 1}):
        with pytest.raises(JsonRpcException, match="dirty"):
            await client.command("llmPatch.check", {"text": "x", "dirty": bad})


# --- resource operations on unsaved documents ---------------------------------------------------


def v4a(*ops: str) -> str:
    return "```\n*** Begin Patch\n" + "".join(ops) + "*** End Patch\n```\n"


DELETE_A = v4a("*** Delete File: a.py\n")
MOVE_A = v4a("*** Update File: a.py\n*** Move to: b.py\n@@\n-x = 1\n+x = 2\n")


async def test_deleting_a_document_with_unsaved_work_is_refused(client: EditorClient, ws: Path):
    client.write("a.py", "x = 1\n")
    uri = client.open("a.py")
    client.replace_all(uri, "x = 1\nunsaved = True\n")
    report = await client.command("llmPatch.apply", {"text": DELETE_A})
    assert report["ok"] is False
    assert report["error"]["code"] == "STALE_VERSION"
    assert report["error"]["details"]["unsaved"] is True
    assert "a.py has unsaved changes in the editor" in report["summary"]
    assert "deleting a.py" in report["summary"]
    assert report["blocks"][0]["status"] == "failed"
    assert client.received == []
    assert (ws / "a.py").exists()

    # the caller may say it knows
    report = await client.command("llmPatch.apply", {"text": DELETE_A}, {"confirmUnsaved": True})
    assert report["ok"] is True, report["summary"]
    await client.wait_for(lambda: not (ws / "a.py").exists(), what="the delete")


async def test_deleting_a_saved_open_document_goes_ahead(client: EditorClient, ws: Path):
    client.write("a.py", "x = 1\n")
    client.open("a.py")
    report = await client.command("llmPatch.apply", {"text": DELETE_A})
    assert report["ok"] is True, report["summary"]
    await client.wait_for(lambda: not (ws / "a.py").exists(), what="the delete")


async def test_moving_a_document_with_unsaved_work_is_refused(client: EditorClient, ws: Path):
    client.write("a.py", "x = 1\n")
    uri = client.open("a.py")
    client.replace_all(uri, "# unsaved\nx = 1\n")
    report = await client.command("llmPatch.apply", {"text": MOVE_A})
    assert report["ok"] is False
    assert "moving a.py" in report["summary"]
    assert client.received == []
    assert not (ws / "b.py").exists()


async def test_moving_onto_a_document_with_unsaved_work_edits_its_buffer(
    client: EditorClient, ws: Path
):
    # the file a move replaces gets a text edit (undoable, pinned, asking first), not a
    # disk operation: its unsaved text is replaced in the buffer, where undo brings it back
    client.write("a.py", "x = 1\n")
    client.write("b.py", "y = 1\n")
    uri = client.open("b.py")
    client.replace_all(uri, "y = 2\n")
    report = await client.command("llmPatch.apply", {"text": MOVE_A})
    assert report["ok"] is True, report["summary"]
    (doc_edit,) = only_text_edits(client.received[-1])
    assert doc_edit.text_document.uri == uri
    assert doc_edit.text_document.version == 2
    await client.wait_for(lambda: client.text(uri) == "x = 2\n", what="the edit")


async def test_confirm_unsaved_must_be_a_boolean(client: EditorClient, ws: Path):
    with pytest.raises(JsonRpcException, match="confirmUnsaved"):
        await client.command("llmPatch.apply", {"text": DELETE_A}, {"confirmUnsaved": "yes"})


@pytest.mark.parametrize("opened", [False, True])
async def test_a_move_is_renamed_before_it_is_edited_so_nothing_is_saved_unasked(
    client: EditorClient, ws: Path, opened: bool
):
    """Editors save a document's pending changes when they rename it (Neovim's `:update!`;
    the client here does the same): the text edit of a moved file comes after its rename,
    under the new name, so the moved file's new text stays unsaved in the editor."""
    client.write("a.py", "x = 1\n")
    if opened:
        client.open("a.py")
    report = await client.command("llmPatch.apply", {"text": MOVE_A})
    assert report["ok"] is True, report["summary"]
    ops = client.received[-1].edit.document_changes
    kinds = [type(op).__name__ for op in ops]
    assert kinds == ["RenameFile", "TextDocumentEdit"], kinds
    (doc_edit,) = only_text_edits(client.received[-1])
    assert doc_edit.text_document.uri == client.uri("b.py")
    assert doc_edit.text_document.version is None
    b = client.uri("b.py")
    await client.wait_for(lambda: b in client.docs and client.text(b) == "x = 2\n", what="edit")
    assert (ws / "b.py").read_text() == "x = 1\n"  # on disk: the text the user saved
    assert not (ws / "a.py").exists()
    assert report["unsaved"] == ["b.py"]


async def test_a_document_for_a_path_with_no_file_is_not_that_file(client: EditorClient, ws: Path):
    """After an undo that renamed a moved document back, the editor still holds a document
    for the move's destination, with no file behind it. A move onto that path whose text
    equals the buffer's collapsed to a bare delete of the source (its text lost): it is
    refused, naming the document, and nothing is sent."""
    text = "PRICE = 2\n"
    client.write("shop/pricing.py", "PRICE = 1\n")
    client.open("shop/prices.py", text)  # open, synced, and no file on disk
    move = v4a(
        "*** Update File: shop/pricing.py\n*** Move to: shop/prices.py\n",
        "@@\n-PRICE = 1\n+PRICE = 2\n",
    )
    report = await client.command("llmPatch.apply", {"text": move})
    assert report["ok"] is False, report["summary"]
    assert client.received == []
    (block,) = report["blocks"]
    assert block["status"] == "failed"
    assert "no such file is on disk" in block["error"]["message"]
    assert (ws / "shop/pricing.py").read_text() == "PRICE = 1\n"
    # once the buffer is saved, it is the file, and the move replaces it (asking first)
    (ws / "shop/prices.py").write_text(text)
    report = await client.command("llmPatch.apply", {"text": move})
    kinds = [type(op).__name__ for op in client.received[-1].edit.document_changes or []]
    assert report["ok"] is True and kinds, report["summary"]


@pytest.mark.parametrize("op", ["delete", "move"])
async def test_unsaved_work_deleted_or_moved_away_is_asked_about(
    client: EditorClient, ws: Path, op: str
):
    """The user is asked (window/showMessageRequest), not told to set an option they cannot
    reach: a no (or Esc) sends nothing, a yes goes ahead."""
    reply = DELETE_A if op == "delete" else MOVE_A
    client.write("a.py", "x = 1\n")
    uri = client.open("a.py")
    client.replace_all(uri, "x = 1\nunsaved = True\n")
    client.answers = ["Cancel"]
    report = await client.command("llmPatch.apply", {"text": reply})
    assert report["ok"] is False and client.received == []
    (question,) = client.questions
    assert "a.py has unsaved changes" in question.message
    assert [a.title for a in question.actions] == ["Go ahead", "Cancel"]
    assert "confirmUnsaved" not in report["summary"]
    assert "Save or revert the buffer" in report["summary"]

    client.answers = ["Go ahead"]
    report = await client.command("llmPatch.apply", {"text": reply})
    assert report["ok"] is True, report["summary"]
    assert len(client.questions) == 2
    await client.wait_for(lambda: not (ws / "a.py").exists(), what="the operation")


# The declaration of a client that asks about unsaved work itself (VS Code's extension does, as
# it applies the edit): the server must not ask too.
ASKS_ITSELF = {"llmPatch": {"confirmUnsaved": True}}


@pytest_lsp.fixture(config=CONFIG)
async def asking_client(lsp_client: EditorClient, tmp_path: Path):
    """VS Code's capabilities with the extension's declaration that it asks itself."""
    root = tmp_path / "ws"
    root.mkdir()
    await start_session(lsp_client, "visual-studio-code", root.resolve(), experimental=ASKS_ITSELF)
    yield
    await lsp_client.shutdown_session()


@pytest.mark.parametrize("op", ["delete", "move"])
async def test_a_client_that_asks_itself_is_not_asked_again(asking_client: EditorClient, op: str):
    """VS Code asked twice (the server's question, then the extension's modal): a client that
    declares `experimental.llmPatch.confirmUnsaved` gets the edit and no question, once per
    session, for code actions and lenses too (whose arguments the server wrote)."""
    client = asking_client
    ws = client.root
    client.write("a.py", "x = 1\n")
    uri = client.open("a.py")
    client.replace_all(uri, "x = 1\nunsaved = True\n")
    client.answers = ["Go ahead"]  # would be taken if the server asked
    report = await client.command(
        "llmPatch.apply", {"text": DELETE_A if op == "delete" else MOVE_A}
    )
    assert report["ok"] is True, report["summary"]
    assert client.questions == []
    (params,) = client.received
    kinds = [getattr(c, "kind", None) for c in params.edit.document_changes or []]
    assert ("delete" if op == "delete" else "rename") in kinds
    await client.wait_for(lambda: not (ws / "a.py").exists(), what="the operation")


async def test_a_client_that_asks_itself_is_still_asked_about_hard_links(
    asking_client: EditorClient, tmp_path: Path
):
    """The declaration covers unsaved work only: no editor asks about hard links."""
    client = asking_client
    outside = tmp_path / "outside.conf"
    outside.write_text("secret = 1\n")
    (client.root / "a.conf").hardlink_to(outside)
    report = await client.command(
        "llmPatch.apply", {"text": sr("a.conf", "secret = 1\n", "s = 2\n")}
    )
    assert report["ok"] is False and client.received == []
    (question,) = client.questions
    assert "other hard links" in question.message


async def test_a_declined_question_is_marked_asked(client: EditorClient, ws: Path):
    """A client without the declaration is asked once; the refusal says the user was asked,
    so a client's own follow-up ("save first?", Emacs) is not asked on top."""
    client.write("a.py", "x = 1\n")
    uri = client.open("a.py")
    client.replace_all(uri, "x = 1\nunsaved = True\n")
    client.answers = ["Cancel"]
    report = await client.command("llmPatch.apply", {"text": DELETE_A})
    assert len(client.questions) == 1
    assert report["error"]["details"]["asked"] is True
    assert report["blocks"][0]["error"]["details"]["asked"] is True


# --- hard links -------------------------------------------------------------------------------


async def test_a_file_with_other_hard_links_is_not_edited_unasked(
    client: EditorClient, ws: Path, tmp_path: Path
):
    """An editor saves in place, which changes the file under every name: a workspace file
    hard-linked to one outside the root is edited only after the user says yes."""
    outside = tmp_path / "outside.conf"
    outside.write_text("secret = 1\n")
    (ws / "a.conf").hardlink_to(outside)
    reply = sr("a.conf", "secret = 1\n", "secret = 2\n")
    report = await client.command("llmPatch.apply", {"text": reply})  # Esc
    assert report["ok"] is False and client.received == []
    assert report["error"]["details"]["hard_links"] is True
    assert "a.conf (2 names)" in report["summary"]
    assert "other hard links" in client.questions[0].message

    client.answers = ["Edit anyway"]
    report = await client.command("llmPatch.apply", {"text": reply})
    assert report["ok"] is True, report["summary"]
    assert client.received


async def test_a_client_that_cannot_ask_is_refused(bare_client: EditorClient):
    ws = bare_client.root
    (ws / "a.py").write_text("x = 1\n")
    (ws / "b.py").hardlink_to(ws / "a.py")
    report = await bare_client.command("llmPatch.apply", {"text": sr("a.py", "x = 1\n", "x = 2\n")})
    assert report["ok"] is False and bare_client.questions == []
    assert (ws / "b.py").read_text() == "x = 1\n"
