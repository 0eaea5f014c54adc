"""Settings, restricted mode, cancellation, bad input and failures inside handlers."""

from __future__ import annotations

import asyncio
import json
import socket
import subprocess
import sys
from concurrent.futures import Future
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types
from pygls.exceptions import (
    JsonRpcException,
    JsonRpcInternalError,
    JsonRpcInvalidParams,
    JsonRpcRequestCancelled,
)
from pytest_lsp import ClientServerConfig

from .conftest import EditorClient, make_client, start_session
from .test_apply import sr

RESTRICTED = (
    "Patch tool is disabled in Restricted mode. Use request_mode_upgrade to request write access."
)


async def test_restricted_mode_disables_writing_but_not_checking(client: EditorClient, ws: Path):
    client.write("a.py", "x = 1\n")
    reply = sr("a.py", "x = 1\n", "x = 2\n")
    await client.settings({"mode": "restricted"})
    for command, args in (
        ("llmPatch.apply", [{"text": reply}]),
        ("llmPatch.applyBlock", [{"text": reply, "block": 0}]),
        ("llmPatch.patch", [{"path": "a.py", "patches": []}]),
        ("llmPatch.structure", [{"path": "a.py"}]),
    ):
        with pytest.raises(JsonRpcException) as err:
            await client.command(command, *args)
        assert err.value.message == RESTRICTED
        assert err.value.data["error"]["code"] == "MODE_RESTRICTED"
    assert client.received == []
    report = await client.command("llmPatch.check", {"text": reply})
    assert report["ok"] is True
    notes = client.open("n.md", reply)
    actions = await client.actions(
        notes,
        types.Range(
            start=types.Position(line=0, character=0), end=types.Position(line=6, character=0)
        ),
    )
    titles = [a.title for a in actions]
    assert not any(t.startswith("Apply") for t in titles)
    assert any(t.startswith("Check LLM patch") for t in titles)

    await client.settings({"mode": "unrestricted"})
    assert (await client.command("llmPatch.apply", {"text": reply}))["ok"] is True


async def test_atomic_setting_off_applies_what_places(client: EditorClient, ws: Path):
    client.write("a.py", "x = 1\n")
    target = client.open("a.py")
    await client.settings({"atomic": False})
    reply = sr("a.py", "x = 1\n", "x = 2\n") + sr("a.py", "nope\n", "y\n")
    report = await client.command("llmPatch.apply", {"text": reply})
    assert [b["status"] for b in report["blocks"]] == ["applied", "failed"]
    await client.wait_for(lambda: client.text(target) == "x = 2\n")


async def test_confirm_fuzzy_setting(client: EditorClient, ws: Path):
    if client.spec != "visual-studio-code":
        pytest.skip("only VS Code advertises change annotations")
    client.write("f.py", "def f():\n    # compute the answer carefully\n    return 42\n")
    reply = sr("f.py", "    # compute answer carefully\n    return 42\n", "    return 43\n")
    await client.settings({"confirmFuzzy": False})
    report = await client.command("llmPatch.apply", {"text": reply})
    assert report["blocks"][0]["match"] == "fuzzy"
    notes = client.received[-1].edit.change_annotations
    assert not any(a.needs_confirmation for a in notes.values())


async def _raw_request(client: EditorClient, method: str, params: object) -> object:
    """Send a request exactly as given: pygls' own client would refuse to encode bad params."""
    msg_id = "raw-request"
    future: Future = Future()
    client.protocol._request_futures[msg_id] = future
    body = json.dumps({"jsonrpc": "2.0", "id": msg_id, "method": method, "params": params})
    result = client.protocol.writer.write(_frame_text(body))
    if asyncio.iscoroutine(result):
        await result
    return await asyncio.wait_for(asyncio.wrap_future(future), 10)


def _frame_text(body: str) -> bytes:
    data = body.encode()
    return b"Content-Length: %d\r\n\r\n" % len(data) + data


async def test_always_preview_setting(client: EditorClient, ws: Path):
    client.write("a.py", "x = 1\n")
    await client.settings({"alwaysPreview": True, "logLevel": "debug"})
    await client.command("llmPatch.apply", {"text": sr("a.py", "x = 1\n", "x = 2\n")})
    notes = client.received[-1].edit.change_annotations
    if client.spec == "visual-studio-code":
        assert notes and all(a.needs_confirmation for a in notes.values())
    await client.wait_for(
        lambda: any(m.type == types.MessageType.Log for m in client.log_messages), what="debug log"
    )


async def test_bad_settings_are_ignored_and_named(client: EditorClient, ws: Path):
    await client.settings({"fuzzyThreshold": "high", "mode": "admin"})
    client.write("a.py", "x = 1\n")
    report = await client.command("llmPatch.apply", {"text": sr("a.py", "x = 1\n", "x = 2\n")})
    assert report["ok"] is True  # still unrestricted
    warnings = [m.message for m in client.log_messages if m.type == types.MessageType.Warning]
    assert any("llmPatch.fuzzyThreshold" in w for w in warnings)
    assert any("llmPatch.mode" in w for w in warnings)


async def test_malformed_request_gets_an_error_and_the_server_lives(client: EditorClient, ws: Path):
    with pytest.raises(JsonRpcInvalidParams):
        await _raw_request(
            client, types.TEXT_DOCUMENT_HOVER, {"textDocument": {"uri": 5}, "position": "nowhere"}
        )
    with pytest.raises(JsonRpcException):
        await client.command("llmPatch.nope")
    # unknown documents are answered, not crashed on
    hover = await client.text_document_hover_async(
        types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=client.uri("missing.llm.md")),
            position=types.Position(line=0, character=0),
        )
    )
    assert hover is None
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(
                uri=client.uri("never.md"), version=3
            ),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text="x")],
        )
    )
    assert (await client.command("llmPatch.stats"))["patches"] == 0


async def test_binary_and_huge_replies_are_refused_cleanly(client: EditorClient, ws: Path):
    (ws / "blob.patch").write_bytes(b"\x00\x01\x02" * 100)
    with pytest.raises(JsonRpcException) as err:
        await client.command("llmPatch.check", {"uri": client.uri("blob.patch")})
    assert err.value.data["code"] == "BINARY_FILE"
    huge = "x" * 1_100_000
    report = await client.command("llmPatch.check", {"text": huge})
    assert report["error"]["code"] == "CONTENT_TOO_LARGE"
    chat = client.open("big.llm.md", huge)
    await client.wait_for(lambda: client.diagnostics.get(chat), what="a diagnostic")
    (diag,) = client.diagnostics[chat]
    assert diag.code == "CONTENT_TOO_LARGE"


async def test_a_reply_file_that_is_not_utf8_is_refused_not_replaced(
    client: EditorClient, ws: Path
):
    # the file has U+FFFD where the reply has a Latin-1 é: read with replacement characters,
    # the reply would match exactly and be applied
    client.write("a.py", "x = 'caf\ufffd'\n")
    reply = sr("a.py", "x = 'caf\xe9'\n", "x = 'bar'\n")
    (ws / "latin1.patch").write_bytes(reply.encode("latin-1"))
    (ws / "utf16.patch").write_bytes(reply.encode("utf-16"))
    for command in ("llmPatch.check", "llmPatch.apply"):
        with pytest.raises(JsonRpcException) as err:
            await client.command(command, {"uri": client.uri("latin1.patch")})
        assert "latin1.patch is not UTF-8 text (invalid byte at offset" in err.value.message
        assert err.value.data["code"] == "BINARY_FILE"
        assert err.value.data["details"]["offset"] == reply.encode("latin-1").index(b"\xe9")
    with pytest.raises(JsonRpcException) as err:
        await client.command("llmPatch.check", {"uri": client.uri("utf16.patch")})
    assert "UTF-16-LE byte-order mark" in err.value.message
    assert err.value.data["code"] == "BINARY_FILE"
    assert client.received == []
    assert (ws / "a.py").read_text(encoding="utf-8") == "x = 'caf\ufffd'\n"


async def test_cancel_request_stops_an_apply_between_blocks(client: EditorClient, ws: Path):
    lines = 1_000
    original = "".join(f"line_{i} = {i}\n" for i in range(lines))
    client.write("big.py", original)
    reply = "".join(
        sr("big.py", f"line_{i} = {i}\n", f"line_{i} = -{i}\n") for i in range(0, lines, 5)
    )

    # A plan this size reports progress, and the server waits for the editor to accept the
    # progress token before it plans: the cancel sent just before that answer is always
    # there when the plan checks between blocks, however fast the machine plans.
    def cancel(c: EditorClient) -> None:
        c.protocol.notify(types.CANCEL_REQUEST, types.CancelParams(id="apply-1"))

    client.before_progress = cancel
    params = types.ExecuteCommandParams(command="llmPatch.apply", arguments=[{"text": reply}])
    with pytest.raises(JsonRpcRequestCancelled):
        await client.protocol.send_request_async(
            types.WORKSPACE_EXECUTE_COMMAND, params, msg_id="apply-1"
        )
    assert client.before_progress is None, "the server never asked for a progress token"

    # the answer comes as soon as the request is cancelled; the plan stops at its next check
    async def stats() -> dict:
        return await client.command("llmPatch.stats")

    deadline = asyncio.get_running_loop().time() + 30
    while (await stats())["cancelled"] != 1:
        assert asyncio.get_running_loop().time() < deadline, "the plan was never cancelled"
        await asyncio.sleep(0.05)
    done = await stats()
    assert done["blocks"] == 0, done  # stopped inside the plan: no block was counted
    assert done["applied"] == 0, done
    assert client.received == []
    assert (ws / "big.py").read_text() == original


# --- a server whose core throws -----------------------------------------------------------------

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


# --- a client that supports no documentChanges -------------------------------------------------


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


# --- transports ---------------------------------------------------------------------------------


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
    from lsp_server.server import serve_main

    assert serve_main(["--tcp", "nowhere"]) == 2
    assert serve_main(["--bogus"]) == 2
