"""Named pipes and devices never stall the server (issue 14, item 7: the server's part).

A reply document the editor has not opened is read from disk by the server, and a reply's
blocks make it read their target files. Opening a named pipe for reading waits for a
writer that may never come; a device may never end. The server reads only regular files,
without waiting, up to its limit, and only in its own worker threads: the thread that reads
the client's messages is never among them, so however many reads are stuck, the server
still reads and answers the next message.

Each test ends by letting any reader still waiting on the pipe go (it reads end of file),
so that a server that did get stuck can still be shut down.
"""

from __future__ import annotations

import asyncio
import os
import time
from pathlib import Path

import pytest
import pytest_lsp
from lsp.conftest import CONFIG, EditorClient, sr, start_session
from pygls.exceptions import JsonRpcException

ANSWER_WITHIN = 10.0  # seconds; a stuck server never answers


@pytest_lsp.fixture(config=CONFIG)
async def editor(lsp_client: EditorClient, tmp_path: Path):
    root = tmp_path / "ws"
    root.mkdir()
    await start_session(lsp_client, "visual-studio-code", root.resolve())
    yield
    await lsp_client.shutdown_session()


def release(fifo: Path, quiet: float = 0.5, limit: float = 15.0) -> None:
    """Open the pipe for writing and close it while anyone waits on it to read, until no
    one has for `quiet` seconds."""
    deadline = time.monotonic() + limit
    last_reader = time.monotonic()
    while time.monotonic() < deadline and time.monotonic() - last_reader < quiet:
        try:
            fd = os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)
        except OSError:  # ENXIO: no reader at the moment
            time.sleep(0.02)
            continue
        os.close(fd)
        last_reader = time.monotonic()


async def test_a_reply_uri_naming_a_pipe_is_refused_at_once(editor: EditorClient):
    fifo = editor.root / "reply.md"
    os.mkfifo(fifo)
    try:
        with pytest.raises(JsonRpcException) as err:
            await asyncio.wait_for(
                editor.command("llmPatch.check", {"uri": editor.uri("reply.md")}), ANSWER_WITHIN
            )
        assert "named pipe" in err.value.message
        assert str(fifo) in err.value.message or editor.uri("reply.md") in err.value.message
        stats = await asyncio.wait_for(editor.command("llmPatch.stats"), ANSWER_WITHIN)
        assert stats["patches"] == 0
    finally:
        await asyncio.to_thread(release, fifo)


async def test_replies_naming_a_pipe_never_stop_the_server_reading_messages(
    editor: EditorClient,
):
    fifo = editor.root / "pipe.py"
    os.mkfifo(fifo)
    try:
        # more analyses at once than pygls has threads on any machine (32 at most)
        for n in range(40):
            editor.open(f"r{n}.llm.md", sr("pipe.py", "x = 1\n", "x = 2\n"))
        await asyncio.sleep(0.5)
        stats = await asyncio.wait_for(editor.command("llmPatch.stats"), ANSWER_WITHIN)
        assert stats["patches"] == 0
    finally:
        await asyncio.to_thread(release, fifo)
