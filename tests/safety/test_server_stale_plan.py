"""A plan the server keeps between a code action and the apply that follows is checked
against the disk before it is sent (issue 14, item 2).

The usual editor flow asks for code actions on a selection (which plans it) and runs the
chosen action's command a moment later, reusing that plan. A file that is not open in the
editor gets an edit with no version to pin (`version: null`): if it changed on disk in
between, the edit's line and column point into different text. Each test runs against the
real server process, as VS Code and Neovim 0.11 would drive it.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest_lsp
from lsp.conftest import CONFIG, EditorClient, Wire, sr, start_session, whole

from lsp_server.lsp import apply
from lsp_server.lsp.analysis import ReplySource
from lsp_server.lsp.server import create_server

EDITORS = ["visual-studio-code", "neovim@v0.11.0"]


@pytest_lsp.fixture(config=CONFIG, params=EDITORS)
async def editor(request, lsp_client: EditorClient, tmp_path: Path):
    root = tmp_path / "ws"
    root.mkdir()
    await start_session(lsp_client, request.param, root.resolve())
    yield
    await lsp_client.shutdown_session()


async def _offered_apply(editor: EditorClient, reply: str):
    """The *Apply LLM patch* action on a selection of a notes document (trigger Invoked,
    so the server plans the selection and keeps the plan for the apply)."""
    notes = editor.open("notes.md", reply)
    actions = await editor.actions(notes, whole(reply))
    return next(a for a in actions if a.title.startswith("Apply LLM patch"))


async def test_a_file_rewritten_on_disk_after_the_code_action_is_planned_again(
    editor: EditorClient,
):
    editor.write("a.py", "x = 1\ny = 2\n")
    action = await _offered_apply(editor, "Change y:\n\n" + sr("a.py", "y = 2\n", "y = 3\n"))
    editor.write("a.py", "import os\nimport sys\nx = 1\ny = 2\n")

    report = await editor.run_action(action)

    target = editor.uri("a.py")
    assert report["ok"] is True, report
    assert editor.text(target) == "import os\nimport sys\nx = 1\ny = 3\n"


async def test_a_change_only_the_content_hash_sees_is_caught_too(editor: EditorClient):
    # same size, same inode, and the modification time put back: only the bytes differ
    path = editor.root / "a.py"
    editor.write("a.py", "x = 1\ny = 2\n")
    action = await _offered_apply(editor, sr("a.py", "y = 2\n", "y = 3\n"))
    before = path.stat()
    path.write_bytes(b"y = 2\nx = 1\n")
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    after = path.stat()
    assert (after.st_size, after.st_mtime_ns, after.st_ino) == (
        before.st_size,
        before.st_mtime_ns,
        before.st_ino,
    )

    report = await editor.run_action(action)

    assert report["ok"] is True, report
    assert editor.text(editor.uri("a.py")) == "y = 3\nx = 1\n"


async def test_a_file_that_no_longer_places_is_refused_not_edited(editor: EditorClient):
    editor.write("a.py", "x = 1\ny = 2\n")
    action = await _offered_apply(editor, sr("a.py", "y = 2\n", "y = 3\n"))
    editor.write("a.py", "import sys\nx = 1\n")

    report = await editor.run_action(action)

    assert report["ok"] is False
    assert report["blocks"][0]["error"]["code"] == "TEXT_NOT_FOUND"
    assert editor.received == []
    assert (editor.root / "a.py").read_text() == "import sys\nx = 1\n"


async def test_a_file_that_changes_while_the_patch_is_planned_is_refused(tmp_path: Path):
    # in-process, to change the file at the one moment that matters: after the plan read it
    ls = create_server()
    wire = Wire()
    ls.protocol.set_writer(wire, include_headers=False)
    params = {"processId": None, "rootUri": tmp_path.as_uri(), "capabilities": {}}
    ls.protocol.handle_message(
        {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": params}
    )
    target = tmp_path / "a.py"
    target.write_text("x = 1\ny = 2\n")
    plan_it = ls.analyse

    async def plan_then_edit(*args, **kwargs):
        analysis = await plan_it(*args, **kwargs)
        target.write_text("import sys\nx = 1\ny = 2\n")
        return analysis

    ls.analyse = plan_then_edit
    report = await apply.apply(
        ls, ReplySource(sr("a.py", "y = 2\n", "y = 3\n")), apply.ApplyOptions()
    )

    assert report["ok"] is False
    assert report["error"]["code"] == "STALE_VERSION"
    assert "a.py changed on disk since the patch was planned" in report["error"]["message"]
    assert report["blocks"][0]["status"] == "failed"
    assert not any(m.get("method") == "workspace/applyEdit" for m in wire.sent)
    assert target.read_text() == "import sys\nx = 1\ny = 2\n"
