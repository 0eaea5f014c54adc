"""The changes lsp/pygls_compat.py makes to pygls: each one in-process, against a server whose
transport is a list, and the first ones also through a real client.

The numbers are those of the module's docstring.
"""

from __future__ import annotations

import asyncio
import io
import json
import logging
import sys
from concurrent.futures import Future
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types
from pygls.exceptions import JsonRpcException, JsonRpcInvalidParams
from pytest_lsp import client_capabilities

from lsp_server.lines import split_lsp_lines
from lsp_server.lsp import document_lines
from lsp_server.lsp.commands import request_cancelled
from lsp_server.lsp.server import create_server
from lsp_server.lsp.session import LlmPatchServer

from .conftest import CONFIG, EditorClient, Wire, only_text_edits, sr


async def answered(wire: Wire, msg_id: object, timeout: float = 5.0) -> dict:
    """The answer to a request the server handles in the background (a worker, a task)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not any(m.get("id") == msg_id and "method" not in m for m in wire.sent):
        assert loop.time() < deadline, f"no answer to {msg_id!r}"
        await asyncio.sleep(0.01)
    return wire.answer(msg_id)


def connected() -> tuple[LlmPatchServer, Wire]:
    """A fresh server, initialised, that writes to a `Wire`."""
    ls = create_server()
    wire = Wire()
    ls.protocol.set_writer(wire, include_headers=False)
    params = {"processId": None, "rootUri": None, "capabilities": {}}
    ls.protocol.handle_message(
        {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": params}
    )
    assert "result" in wire.answer(0)
    return ls, wire


def request(ls: LlmPatchServer, msg_id: object, method: str, params: object = None) -> None:
    ls.protocol.handle_message({"jsonrpc": "2.0", "id": msg_id, "method": method, "params": params})


def notify(ls: LlmPatchServer, method: str, params: object) -> None:
    ls.protocol.handle_message({"jsonrpc": "2.0", "method": method, "params": params})


def test_1_incremental_changes_split_lines_the_lsp_way():
    ls, _ = connected()
    uri = "file:///ws/sep.py"
    text = "doc = 'a\u2028b'\n\x0c\ncount = 1\r\nlast\r"
    item = {"uri": uri, "languageId": "python", "version": 1, "text": text}
    notify(ls, "textDocument/didOpen", {"textDocument": item})
    change = {"range": {"start": {"line": 2, "character": 8}, "end": {"line": 3, "character": 0}}}
    notify(
        ls,
        "textDocument/didChange",
        {
            "textDocument": {"uri": uri, "version": 2},
            "contentChanges": [
                {**change, "text": "5\n"},
                {"text": "whole\n"},
                {**change, "text": ""},
            ],
        },
    )
    # the third change applies to the text the second left (one line: nothing to remove)
    assert ls.workspace.text_documents[uri].source == "whole\n"
    notify(
        ls,
        "textDocument/didChange",
        {"textDocument": {"uri": uri, "version": 3}, "contentChanges": [{"text": text}]},
    )
    notify(
        ls,
        "textDocument/didChange",
        {"textDocument": {"uri": uri, "version": 4}, "contentChanges": [{**change, "text": "5\n"}]},
    )
    doc = ls.workspace.text_documents[uri]
    assert (doc.source, doc.version) == ("doc = 'a\u2028b'\n\x0c\ncount = 5\nlast\r", 4)


def test_2_a_change_to_a_document_that_is_not_open_is_ignored():
    ls, wire = connected()
    before = len(wire.sent)
    notify(
        ls,
        "textDocument/didChange",
        {
            "textDocument": {"uri": "file:///never.md", "version": 3},
            "contentChanges": [{"text": "x"}],
        },
    )
    assert wire.sent[before:] == []  # no error shown to the user


async def test_3_only_the_top_level_object_is_a_message():
    ls, wire = connected()
    original = {"jsonrpc": "2.0", "id": "nested"}
    assert ls.protocol.structure_message(original) is original
    arg = {"original": "a\n", "updated": "b\n", "path": "x.txt", "meta": {"jsonrpc": "2.0"}}
    body = json.dumps(
        {
            "jsonrpc": "2.0",
            "id": 5,
            "method": "workspace/executeCommand",
            "params": {"command": "llmPatch.buildDiff", "arguments": [arg]},
        }
    )
    # pygls's reader decodes with `structure_message` as the object hook
    ls.protocol.handle_message(json.loads(body, object_hook=ls.protocol.structure_message))
    assert "-a\n+b\n" in (await answered(wire, 5))["result"]["diff"]


def test_4_a_request_that_cannot_be_read_is_answered():
    ls, wire = connected()
    request(ls, 7, "textDocument/hover", {"textDocument": {"uri": 5}, "position": "nowhere"})
    error = wire.answer(7)["error"]
    assert error["code"] == JsonRpcInvalidParams.CODE
    assert "invalid parameters for textDocument/hover" in error["message"]
    notify(ls, "textDocument/didOpen", {"textDocument": 5})  # a notification: nothing to answer
    assert [m for m in wire.sent if m.get("id") not in (0, 7)] == []


async def test_5_shutdown_cancels_the_pending_requests_and_answers():
    ls, wire = connected()
    release = asyncio.Event()

    @ls.command("test.wait")
    async def wait(ls: LlmPatchServer, *args: object) -> str:
        await release.wait()
        return "done"

    for n in (1, 2):
        request(ls, n, "workspace/executeCommand", {"command": "test.wait", "arguments": []})
    await asyncio.sleep(0)
    request(ls, 3, "shutdown")
    await asyncio.sleep(0)
    assert wire.answer(3) == {"jsonrpc": "2.0", "id": 3, "result": None}
    for n in (1, 2):
        assert wire.answer(n)["error"]["code"] == types.LSPErrorCodes.RequestCancelled.value
    assert ls.stopping
    release.set()


async def test_6_a_command_sees_the_client_cancel_it():
    ls, wire = connected()
    seen = asyncio.Event()

    @ls.command("test.loop")
    async def loop(ls: LlmPatchServer, *args: object) -> None:
        cancelled = request_cancelled(ls)
        while not cancelled():
            await asyncio.sleep(0.01)
        seen.set()

    request(ls, "c1", "workspace/executeCommand", {"command": "test.loop", "arguments": []})
    await asyncio.sleep(0.05)
    assert not seen.is_set()
    notify(ls, "$/cancelRequest", {"id": "c1"})
    await asyncio.wait_for(seen.wait(), 5)
    assert ls.protocol.was_cancelled("c1")
    assert wire.answer("c1")["error"]["code"] == types.LSPErrorCodes.RequestCancelled.value


def _big_document(ls: LlmPatchServer, uri: str, megabytes: int) -> str:
    line = "    value = compute(alpha, beta, gamma)  # a line of a generated file\n"
    text = line * ((megabytes << 20) // len(line))
    item = {"uri": uri, "languageId": "python", "version": 1, "text": text}
    notify(ls, "textDocument/didOpen", {"textDocument": item})
    return text


def _keystroke(ls: LlmPatchServer, uri: str, version: int, line: int) -> None:
    at = {"line": line, "character": 4}
    change = {"range": {"start": at, "end": at}, "text": "x"}
    notify(
        ls,
        "textDocument/didChange",
        {"textDocument": {"uri": uri, "version": version}, "contentChanges": [change]},
    )


def test_7_a_keystroke_splits_only_the_lines_it_touches(monkeypatch):
    ls, _ = connected()
    uri = "file:///ws/big.py"
    text = _big_document(ls, uri, 2)
    lines = text.count("\n")
    _keystroke(ls, uri, 2, lines // 2)  # the first change counts the document's lines once
    split = []
    monkeypatch.setattr(
        document_lines, "split_lsp_lines", lambda t: split.append(len(t)) or split_lsp_lines(t)
    )
    for n, line in enumerate((10, lines - 3, lines // 3, lines)):
        _keystroke(ls, uri, 3 + n, line)
    assert len(split) == 4 and max(split) < 500, split
    doc = ls.workspace.text_documents[uri]
    assert doc.version == 6
    assert doc.source.count("x") == text.count("x") + 5
    assert doc.source.endswith("\nx")  # the last keystroke was on the empty last line


async def test_8_before_initialize_requests_are_refused_and_notifications_dropped():
    ls = create_server()
    wire = Wire()
    ls.protocol.set_writer(wire, include_headers=False)
    request(ls, 1, "workspace/executeCommand", {"command": "llmPatch.stats", "arguments": []})
    item = {"uri": "file:///ws/a.md", "languageId": "markdown", "version": 1, "text": "x"}
    notify(ls, "textDocument/didOpen", {"textDocument": item})
    request(ls, 2, "shutdown")
    await asyncio.sleep(0.05)
    assert [m["id"] for m in wire.sent] == [1, 2]  # no error shown for the notification
    for msg_id in (1, 2):
        assert wire.answer(msg_id)["error"]["code"] == -32002
    params = {"processId": None, "rootUri": None, "capabilities": {}}
    request(ls, 3, "initialize", params)
    assert "result" in wire.answer(3)
    request(ls, 4, "workspace/executeCommand", {"command": "llmPatch.stats", "arguments": []})
    assert (await answered(wire, 4))["result"]["patches"] == 0


@pytest_lsp.fixture(config=CONFIG)
async def uninitialised(lsp_client: EditorClient):
    yield


async def test_8_a_real_client_before_initialize(uninitialised: EditorClient, tmp_path: Path):
    client = uninitialised  # pytest-lsp's client refuses to send requests this early
    try:
        with pytest.raises(JsonRpcException) as err:
            stats = {"command": "llmPatch.stats"}
            await _raw_request(client, types.WORKSPACE_EXECUTE_COMMAND, stats)
        assert err.value.code == -32002
        client.open(tmp_path.joinpath("early.llm.md").as_uri(), "text")
    finally:
        await client.initialize_session(
            types.InitializeParams(
                capabilities=client_capabilities("visual-studio-code"),
                root_uri=tmp_path.as_uri(),
            )
        )
    assert (await client.command("llmPatch.stats"))["patches"] == 0
    assert not any(m.type == types.MessageType.Error for m in client.messages)
    await client.shutdown_session()


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


async def test_6_a_cancelled_check_is_answered_as_cancelled_not_as_an_internal_error():
    ls, wire = connected()
    reply = sr("/nowhere/a.py", "x = 1\n", "x = 2\n")
    command = {"command": "llmPatch.check", "arguments": [{"text": reply}]}
    request(ls, "k1", "workspace/executeCommand", command)
    notify(ls, "$/cancelRequest", {"id": "k1"})  # before the plan's first check
    answer = await answered(wire, "k1")
    assert answer["error"]["code"] == types.LSPErrorCodes.RequestCancelled.value, answer


async def test_6_a_cancel_for_an_earlier_request_does_not_cancel_a_new_one_with_its_id():
    ls, wire = connected()
    notify(ls, "$/cancelRequest", {"id": "k2"})  # for a request long answered
    reply = sr("/nowhere/a.py", "x = 1\n", "x = 2\n")
    command = {"command": "llmPatch.check", "arguments": [{"text": reply}]}
    request(ls, "k2", "workspace/executeCommand", command)
    answer = await answered(wire, "k2", timeout=30)
    assert "result" in answer, answer


def _framed(payload: dict) -> bytes:
    body = json.dumps(payload).encode()
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def test_9_a_body_over_the_limit_is_skipped_framed_and_answered_with_a_null_id():
    """With a small limit: the oversized body is dropped unread, the stream stays framed
    (the next message is read whole), and the client gets an InvalidRequest whose id is
    null."""
    from lsp_server.lsp.pygls_compat import BoundedInput

    ls, wire = connected()
    big = _framed({"jsonrpc": "2.0", "id": 7, "method": "shutdown", "params": "x" * 500})
    small = _framed({"jsonrpc": "2.0", "id": 8, "method": "shutdown"})
    stream = BoundedInput(io.BytesIO(big + small), limit=200)
    seen = []
    for _ in range(2):
        header = stream.readline()
        length = int(header.split(b":")[1])
        assert stream.readline() == b"\r\n"
        body = stream.read(length)
        assert len(body) < 300  # never the oversized body itself
        seen.append(json.loads(body))
        ls.protocol.handle_message(seen[-1])
    assert seen[1]["id"] == 8  # read whole, right after the skipped one
    error = next(m for m in wire.sent if "error" in m)
    assert error["id"] is None and error["error"]["code"] == -32600
    assert "over the server's limit" in error["error"]["message"]
    assert not any(m.get("id") == 7 for m in wire.sent)


def test_9_a_header_line_without_an_end_is_read_in_bounded_pieces():
    from lsp_server.lsp.pygls_compat import MAX_HEADER_LINE, BoundedInput

    stream = BoundedInput(io.BytesIO(b"X" * (10 * MAX_HEADER_LINE)))
    assert len(stream.readline()) == MAX_HEADER_LINE


async def test_9_a_real_server_answers_a_trillion_byte_content_length_and_lives():
    """`Content-Length: 1000000000000` was a MemoryError that killed the server: now the
    error comes back at once, the server stays up, and it ends cleanly when the client
    closes the stream."""
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "lsp_server",
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
    try:
        params = {"processId": None, "rootUri": None, "capabilities": {}}
        proc.stdin.write(
            _framed({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": params})
        )
        proc.stdin.write(b"Content-Length: 1000000000000\r\n\r\n{")
        await proc.stdin.drain()
        answers = []
        while not any("error" in m for m in answers):
            answers.append(await asyncio.wait_for(_read_framed(proc.stdout), 30))
        error = next(m for m in answers if "error" in m)
        assert error["id"] is None and error["error"]["code"] == -32600
        await asyncio.sleep(0.3)
        assert proc.returncode is None  # still serving
        proc.stdin.close()
        assert await asyncio.wait_for(proc.wait(), 30) == 0
        assert b"MemoryError" not in await proc.stderr.read()
    finally:
        if proc.returncode is None:
            proc.kill()
            await proc.wait()


async def _read_framed(reader: asyncio.StreamReader) -> dict:
    length = 0
    while True:
        line = await reader.readline()
        if line in (b"\r\n", b""):
            break
        if line.lower().startswith(b"content-length:"):
            length = int(line.split(b":")[1])
    return json.loads(await reader.readexactly(length))


async def test_9_over_tcp_a_stream_reader_is_bounded_and_stays_framed():
    """The TCP transport's reader (an asyncio stream), with a small limit: an oversized body
    is skipped and the next message read whole; a header line longer than the stream's limit
    comes in bounded pieces instead of ending the connection."""
    from lsp_server.lsp.pygls_compat import MAX_HEADER_LINE, BoundedStreamInput

    big = _framed({"jsonrpc": "2.0", "id": 7, "method": "shutdown", "params": "x" * 500})
    small = _framed({"jsonrpc": "2.0", "id": 8, "method": "shutdown"})
    raw = asyncio.StreamReader(limit=MAX_HEADER_LINE)
    raw.feed_data(b"X" * (3 * MAX_HEADER_LINE) + b"\r\n" + big + small)
    raw.feed_eof()
    stream = BoundedStreamInput(raw, limit=200)
    line = await stream.readline()
    pieces = [line]
    while not line.endswith(b"\n"):
        line = await stream.readline()
        pieces.append(line)
    assert all(len(p) <= MAX_HEADER_LINE for p in pieces) and len(pieces) > 1
    seen = []
    for _ in range(2):
        header = await stream.readline()
        length = int(header.split(b":")[1])
        assert await stream.readline() == b"\r\n"
        body = await stream.readexactly(length)
        assert len(body) < 300
        seen.append(json.loads(body))
    assert seen[0]["method"] == "$/llmPatch/oversizedMessage"
    assert seen[1]["id"] == 8
    assert await stream.readline() == b""  # the end of the stream ends the loop


async def test_9_a_real_server_over_tcp_answers_a_trillion_byte_content_length():
    """Over TCP, pygls waited for all of a declared 10^12 bytes (buffering what came) and a
    header line over asyncio's 64 KiB limit ended the connection: now the long line is
    read past, and the oversized message is answered at once with a null id."""
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "lsp_server",
        "--tcp",
        f"127.0.0.1:{port}",
        stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.PIPE,
    )
    assert proc.stderr is not None
    try:
        for _ in range(300):
            try:
                reader, writer = await asyncio.open_connection("127.0.0.1", port)
                break
            except OSError:
                await asyncio.sleep(0.1)
        else:
            raise AssertionError("the server never listened")
        params = {"processId": None, "rootUri": None, "capabilities": {}}
        writer.write(_framed({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": params}))
        writer.write(b"X-Padding: " + b"x" * 200_000 + b"\r\n")
        writer.write(_framed({"jsonrpc": "2.0", "id": 2, "method": "shutdown"}))
        await writer.drain()
        answers: list[dict] = []
        while not any(m.get("id") == 2 for m in answers):
            answers.append(await asyncio.wait_for(_read_framed(reader), 30))
        writer.write(b"Content-Length: 1000000000000\r\n\r\n{")
        await writer.drain()
        while not any("error" in m for m in answers):
            answers.append(await asyncio.wait_for(_read_framed(reader), 30))
        error = next(m for m in answers if "error" in m)
        assert error["id"] is None and error["error"]["code"] == -32600
        assert "over the server's limit" in error["error"]["message"]
        assert proc.returncode is None  # still serving
        writer.close()
        await asyncio.wait_for(proc.wait(), 30)  # the connection ended: the server ends
        assert b"MemoryError" not in await proc.stderr.read()
    finally:
        if proc.returncode is None:
            proc.kill()
            await proc.wait()


async def test_10_a_cancel_for_an_answered_request_is_no_warning(caplog):
    """Kate cancels its outline request whenever the text changes, often after the answer
    left: pygls logged each as a warning (on stderr). Nothing above debug now, nothing sent,
    and the cancel is remembered (6)."""
    ls, wire = connected()
    request(ls, 5, "textDocument/hover", _hover_params())
    await answered(wire, 5)
    sent = len(wire.sent)
    with caplog.at_level(logging.DEBUG):
        notify(ls, "$/cancelRequest", {"id": 5})
        await asyncio.sleep(0.05)
    loud = [r for r in caplog.records if r.levelno >= logging.INFO]
    assert not loud, [r.getMessage() for r in loud]
    assert len(wire.sent) == sent
    assert ls.protocol.was_cancelled(5)


async def test_10_the_protocols_own_answers_are_not_internal_errors(caplog):
    """A request for a method the server does not have is answered MethodNotFound, as the
    protocol says; that is the client's question, not a fault: no error logged (the client
    showed "internal error (FeatureRequestError)" in its log)."""
    ls, wire = connected()
    with caplog.at_level(logging.DEBUG):
        request(ls, 6, "textDocument/foldingRange", {"textDocument": {"uri": "file:///x.py"}})
        answer = await answered(wire, 6)
    assert answer["error"]["code"] == -32601
    errors = [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert not errors, [r.getMessage() for r in errors]
    assert not any(
        m.get("method") == "window/logMessage" and m["params"]["type"] == 1 for m in wire.sent
    )


def _hover_params() -> dict:
    at = {"line": 0, "character": 0}
    return {"textDocument": {"uri": "file:///nowhere/x.md"}, "position": at}
