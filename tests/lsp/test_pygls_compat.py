"""The changes lsp/pygls_compat.py makes to pygls, each seen working through a real client."""

from __future__ import annotations

import asyncio
import json
from concurrent.futures import Future
from pathlib import Path

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcException, JsonRpcInvalidParams

from .conftest import EditorClient, only_text_edits, sr


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
