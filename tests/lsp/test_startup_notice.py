"""At start-up the server says how it reads documents the editor does not share, and tells a
client known to share only some documents (Kate) what to do, once per server process.

Kate sends no `clientInfo`: it is known by the process its `processId` names, which a test
plays with a copy of `sleep` called `kate`.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types
from pygls.uris import from_fs_path
from pytest_lsp import client_capabilities

from lsp_server.lsp.sharing import READ_FROM_DISK

from .conftest import CONFIG, EditorClient, start_session


@pytest_lsp.fixture(config=CONFIG)
async def fresh(lsp_client: EditorClient, tmp_path: Path):
    """A server process not yet initialised: each test starts the session as its client."""
    root = tmp_path / "ws"
    root.mkdir()
    lsp_client.root = root.resolve()
    yield lsp_client
    await lsp_client.shutdown_session()


async def _started(client: EditorClient, count: int = 1) -> None:
    """Wait for the start-up log line (sent, after the settings, just before the message),
    then for an answer sent after both: whatever the server sent at start-up has arrived."""
    await client.wait_for(
        lambda: sum(m.message == READ_FROM_DISK for m in client.log_messages) >= count,
        what="the start-up log line",
    )
    await client.command("llmPatch.stats")


def _told(client: EditorClient) -> list[types.ShowMessageParams]:
    return [m for m in client.messages if "highlightingModeRegex" in m.message]


async def test_kate_is_told_once_how_to_share_every_document(fresh: EditorClient):
    await start_session(fresh, "emacs@v29.1", fresh.root, name="Kate")
    await _started(fresh)
    (told,) = _told(fresh)
    assert told.type == types.MessageType.Info
    assert "editors/README.md" in told.message and '".*"' in told.message
    assert "llmPatch.startupMessage" in told.message  # how to turn it off
    assert fresh.questions == []  # a message, not a request

    # a client that sends `initialized` again, or settings that change, is not told twice
    fresh.protocol.notify(types.INITIALIZED, types.InitializedParams())
    await _started(fresh, 2)
    await fresh.settings({"atomic": False})
    assert len(_told(fresh)) == 1


@contextmanager
def _process_named(name: str, where: Path) -> Iterator[int]:
    """A process called `name` (Linux shows a process's name in /proc/PID/comm)."""
    if not sys.platform.startswith("linux"):
        pytest.skip("a process's name is read from /proc")
    program = where / name
    shutil.copy(shutil.which("sleep") or "/bin/sleep", program)
    proc = subprocess.Popen([str(program), "60"])
    try:
        yield proc.pid
    finally:
        proc.kill()
        proc.wait()


@pytest.fixture
def kate_process(tmp_path: Path) -> Iterator[int]:
    with _process_named("kate", tmp_path) as pid:
        yield pid


async def _start_nameless(client: EditorClient, pid: int) -> None:
    """Start the session as a client that sends no `clientInfo`, only its `processId`."""
    root = from_fs_path(str(client.root))
    await client.initialize_session(
        types.InitializeParams(
            capabilities=client_capabilities("emacs@v29.1"),
            process_id=pid,
            root_uri=root,
            workspace_folders=[types.WorkspaceFolder(uri=root, name="ws")],
        )
    )
    await _started(client)


async def test_kate_without_client_info_is_known_by_its_process(
    fresh: EditorClient, kate_process: int
):
    await _start_nameless(fresh, kate_process)
    assert len(_told(fresh)) == 1


@pytest.mark.parametrize(
    ("program", "line_breaks"),
    [("kate", "normalises"), ("emacs", "decodes-dos"), ("sleep", "as-is")],
)
async def test_a_nameless_client_gets_the_line_breaks_of_its_process(
    fresh: EditorClient, tmp_path: Path, program: str, line_breaks: str
):
    """How newText's line breaks are sent is decided by who the client is, and a client
    with no `clientInfo` is known by its process, for edits as for the start-up message."""
    with _process_named(program, tmp_path) as pid:
        await _start_nameless(fresh, pid)
    (ready,) = [m for m in fresh.log_messages if " ready (" in m.message]
    assert f"line_breaks='{line_breaks}'" in ready.message


@pytest.mark.parametrize(
    ("name", "spec"),
    [
        ("Visual Studio Code", "visual-studio-code"),
        ("Neovim", "neovim@v0.10.0"),
        ("Emacs", "emacs@v29.1"),
        (None, "visual-studio-code"),
    ],
)
async def test_other_clients_get_only_the_log_line(fresh: EditorClient, name, spec):
    await start_session(fresh, spec, fresh.root, name=name)
    await _started(fresh)
    (line,) = [m for m in fresh.log_messages if m.message == READ_FROM_DISK]
    assert line.type == types.MessageType.Info
    assert "NOT_SHARED" in line.message and "\n" not in line.message
    assert fresh.messages == []


@pytest.mark.parametrize("where", ["initializationOptions", "workspace/configuration"])
async def test_the_setting_turns_the_message_off(fresh: EditorClient, where: str):
    off = {"llmPatch": {"startupMessage": False}}
    if where == "workspace/configuration":
        fresh.set_configuration(off)
        await start_session(fresh, "emacs@v29.1", fresh.root, name="Kate")
    else:
        await start_session(fresh, "emacs@v29.1", fresh.root, init_options=off, name="Kate")
    await _started(fresh)
    assert _told(fresh) == []
