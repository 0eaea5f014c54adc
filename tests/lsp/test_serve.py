"""Serving: stdio, TCP, and the log file."""

from __future__ import annotations

import asyncio
import json
import shutil
import socket
import subprocess
import sys
from pathlib import Path

from lsp_server import cli


def _frame(payload: dict) -> bytes:
    body = json.dumps(payload).encode()
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


async def _read_message(reader: asyncio.StreamReader) -> dict:
    length = 0
    while True:
        line = await reader.readline()
        if line in (b"\r\n", b""):
            break
        if line.lower().startswith(b"content-length:"):
            length = int(line.split(b":")[1])
    return json.loads(await reader.readexactly(length))


async def test_serve_over_tcp(tmp_path: Path):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen(
        [sys.executable, "-m", "lsp_server", "--tcp", f"127.0.0.1:{port}"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        for _ in range(100):
            try:
                reader, writer = await asyncio.open_connection("127.0.0.1", port)
                break
            except OSError:
                await asyncio.sleep(0.1)
        else:
            raise AssertionError("the server never listened")
        writer.write(
            _frame(
                {
                    "jsonrpc": "2.0",
                    "id": 1,
                    "method": "initialize",
                    "params": {"processId": None, "rootUri": tmp_path.as_uri(), "capabilities": {}},
                }
            )
        )
        await writer.drain()
        while (message := await asyncio.wait_for(_read_message(reader), 10)).get("id") != 1:
            pass
        caps = message["result"]["capabilities"]
        assert "llmPatch.apply" in caps["executeCommandProvider"]["commands"]
        assert caps["codeActionProvider"]["resolveProvider"] is True
        writer.close()
    finally:
        proc.kill()
        proc.wait()


def test_serve_rejects_a_bad_tcp_address():
    assert cli.run(["serve", "--tcp", "nowhere"]) == 2
    assert cli.run(["serve", "--bogus"]) == 2


def _llm_patch() -> list[str]:
    """The `llm-patch` script installed next to this interpreter (else the same entry point)."""
    script = shutil.which("llm-patch", path=str(Path(sys.executable).parent))
    return [script] if script else [sys.executable, "-m", "lsp_server.cli"]


async def test_serve_with_a_log_file(tmp_path: Path):
    log = tmp_path / "server.log"
    proc = await asyncio.create_subprocess_exec(
        *_llm_patch(),
        "serve",
        "--log-file",
        str(log),
        "--log-level",
        "info",
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    assert proc.stdin is not None and proc.stdout is not None
    try:
        params = {"processId": None, "rootUri": tmp_path.as_uri(), "capabilities": {}}
        proc.stdin.write(
            _frame({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": params})
        )
        await proc.stdin.drain()
        while (message := await asyncio.wait_for(_read_message(proc.stdout), 30)).get("id") != 1:
            pass
        assert (
            "llmPatch.apply"
            in message["result"]["capabilities"]["executeCommandProvider"]["commands"]
        )
        proc.stdin.write(_frame({"jsonrpc": "2.0", "method": "initialized", "params": {}}))
        proc.stdin.write(_frame({"jsonrpc": "2.0", "id": 2, "method": "shutdown"}))
        await proc.stdin.drain()
        while (await asyncio.wait_for(_read_message(proc.stdout), 30)).get("id") != 2:
            pass
        proc.stdin.write(_frame({"jsonrpc": "2.0", "method": "exit"}))
        await proc.stdin.drain()
        assert await asyncio.wait_for(proc.wait(), 30) == 0
    finally:
        if proc.returncode is None:
            proc.kill()
            await proc.wait()
    text = log.read_text(encoding="utf-8")
    assert "llm-patch" in text and " ready (position encoding " in text
