"""A server with no workspace edits only the documents the editor has open (issue 14, item 8).

An editor can start the server with no folder open: `rootUri: null`, no workspace folders,
and the server's working directory wherever the editor was started (here `/`). The
working directory is never taken for a workspace: the server is in single-file mode,
where a block may edit a document open in the editor and any other path is refused with
`OUTSIDE_WORKSPACE`, saying why. No `workspace/applyEdit` is sent for a refused reply.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest_lsp
from lsp.conftest import EditorClient, make_client, sr
from lsprotocol import types
from pytest_lsp import ClientServerConfig, client_capabilities

EDITORS = ["visual-studio-code", "neovim@v0.11.0"]
# `python -m lsp_server`, started in `/` as an editor with no folder might start it
FROM_ROOT = (
    "import os, runpy; os.chdir('/'); "
    "runpy.run_module('lsp_server', run_name='__main__', alter_sys=True)"
)


@pytest_lsp.fixture(
    config=ClientServerConfig(
        server_command=[sys.executable, "-c", FROM_ROOT], client_factory=make_client
    ),
    params=EDITORS,
)
async def editor(request, lsp_client: EditorClient, tmp_path: Path):
    lsp_client.spec = request.param
    lsp_client.root = tmp_path.resolve()
    lsp_client.sync_delay = 0.15 if lsp_client.is_neovim else 0.0
    result = await lsp_client.initialize_session(
        types.InitializeParams(
            capabilities=client_capabilities(request.param),
            root_uri=None,
            workspace_folders=None,
        )
    )
    enc = result.capabilities.position_encoding
    lsp_client.encoding = str(getattr(enc, "value", enc) or "utf-16")
    yield
    await lsp_client.shutdown_session()


def _error(report: dict, n: int = 0) -> dict:
    return report["blocks"][n]["error"]


async def test_a_file_that_is_not_open_is_refused_wherever_it_is(editor: EditorClient):
    victim = editor.root / "victim.py"
    victim.write_text("token = 'secret'\n")
    reply = sr(str(victim), "token = 'secret'\n", "token = 'stolen'\n")

    report = await editor.command("llmPatch.apply", {"text": reply})

    assert report["ok"] is False
    assert _error(report)["code"] == "OUTSIDE_WORKSPACE"
    assert "no workspace folder" in _error(report)["message"]
    assert "only documents open in the editor" in _error(report)["message"]
    assert editor.received == []
    assert victim.read_text() == "token = 'secret'\n"


async def test_no_file_is_created_and_no_path_is_read_from_the_working_directory(
    editor: EditorClient,
):
    created = editor.root / "created.py"
    reply = sr(str(created), "", "print('hi')\n") + "\n" + sr("no-such-folder/x.py", "a\n", "b\n")

    report = await editor.command("llmPatch.apply", {"text": reply, "partial": True})

    assert [_error(report, n)["code"] for n in (0, 1)] == ["OUTSIDE_WORKSPACE"] * 2
    assert editor.received == []
    assert not created.exists()


async def test_an_open_document_is_edited_by_its_absolute_path(editor: EditorClient):
    path = editor.root / "open.py"
    path.write_text("x = 1\n")
    uri = editor.open("open.py")

    report = await editor.command("llmPatch.apply", {"text": sr(str(path), "x = 1\n", "x = 2\n")})

    assert report["ok"] is True, report
    await editor.wait_for(lambda: editor.text(uri) == "x = 2\n", what="the edit")


async def test_a_reply_file_names_open_documents_beside_it(editor: EditorClient):
    (editor.root / "open.py").write_text("x = 1\n")
    (editor.root / "closed.py").write_text("y = 1\n")
    target = editor.open("open.py")
    chat = editor.open("chat.llm.md", sr("open.py", "x = 1\n", "x = 2\n"))

    report = await editor.command("llmPatch.apply", {"uri": chat})

    assert report["ok"] is True, report
    await editor.wait_for(lambda: editor.text(target) == "x = 2\n", what="the edit")
    closed = await editor.command("llmPatch.check", {"text": sr("closed.py", "y = 1\n", "y = 2\n")})
    assert _error(closed)["code"] == "OUTSIDE_WORKSPACE"
    assert (editor.root / "closed.py").read_text() == "y = 1\n"
