"""Failures inside handlers: an error answer or a logged background failure, never a dead server."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types
from pygls.exceptions import JsonRpcInternalError
from pytest_lsp import ClientServerConfig

from .conftest import EditorClient, make_client, sr, start_session

FAULTY = Path(__file__).with_name("faulty_server.py")


@pytest_lsp.fixture(
    config=ClientServerConfig(
        server_command=[sys.executable, str(FAULTY)], client_factory=make_client
    )
)
async def faulty(lsp_client: EditorClient, tmp_path: Path):
    root = tmp_path / "ws"
    root.mkdir()
    await start_session(lsp_client, "visual-studio-code", root.resolve())
    yield
    await lsp_client.shutdown_session()


async def test_an_exception_in_a_handler_keeps_the_server_alive(faulty: EditorClient):
    faulty.write("a.py", "x = 1\n")
    with pytest.raises(JsonRpcInternalError) as err:
        await faulty.command("llmPatch.check", {"text": "BOOM"})
    assert "injected failure" in err.value.message
    chat = faulty.open("c.llm.md", "BOOM\n" + sr("a.py", "x = 1\n", "x = 2\n"))
    notes = faulty.open("n.md", "BOOM")
    with pytest.raises(JsonRpcInternalError):
        await faulty.actions(
            notes,
            types.Range(
                start=types.Position(line=0, character=0), end=types.Position(line=0, character=4)
            ),
        )
    await asyncio.sleep(0.5)  # the reply's analysis fails in the background
    assert chat not in faulty.diagnostics
    # ... and the server still works
    report = await faulty.command("llmPatch.apply", {"text": sr("a.py", "x = 1\n", "x = 2\n")})
    assert report["ok"] is True
    await faulty.wait_for(
        lambda: any("injected failure" in m.message for m in faulty.log_messages), what="a log line"
    )
