"""The outline of a reply (`textDocument/documentSymbol`): one entry per block, in reply order,
named as its lens is, over the block's lines; nothing for any other document.

Kate asks every document's symbols whatever the server advertises, and took the "method
not found" the server answered for a failure it retried four times per change."""

from __future__ import annotations

from pathlib import Path

from lsprotocol import types

from lsp_server.lsp.server import create_server

from .conftest import EditorClient, Wire, sr


def _params(uri: str) -> types.DocumentSymbolParams:
    return types.DocumentSymbolParams(text_document=types.TextDocumentIdentifier(uri=uri))


def _reply() -> tuple[str, list[tuple[int, int]]]:
    """Two blocks with prose around them, and each block's lines (0-based, inclusive),
    counted here independently of the parser: from each `a.py` line to its closing fence."""
    reply = (
        "Two changes:\n\n"
        + sr("a.py", "two = 2\n", "two = 22\n")
        + "\nand then\n\n"
        + sr("a.py", "four = 4\n", "four = 44\n")
        + "\ndone.\n"
    )
    lines = reply.split("\n")
    starts = [i for i, line in enumerate(lines) if line == "a.py"]
    spans = []
    for start in starts:
        fences = [i for i in range(start + 2, len(lines)) if lines[i] == "```"]
        spans.append((start, fences[0]))
    return reply, spans


async def test_a_reply_outlines_its_blocks(client: EditorClient, ws: Path):
    client.write("a.py", "one = 1\ntwo = 2\nthree = 3\n")
    reply, spans = _reply()
    uri = client.open("c.llm.md", reply, "markdown")
    symbols = await client.text_document_document_symbol_async(_params(uri))
    assert [s.name for s in symbols] == ["✓ a.py:2 (exact)", "✗ a.py: TEXT_NOT_FOUND"]
    for symbol, (first, last) in zip(symbols, spans, strict=True):
        assert isinstance(symbol, types.DocumentSymbol)
        assert symbol.range.start.line <= first and symbol.range.end.line >= last - 1
        assert symbol.range.end.line <= last
        assert symbol.selection_range.start.line == symbol.range.start.line
        assert symbol.detail is not None and symbol.detail.startswith("block ")
    assert symbols[0].range.end.line < symbols[1].range.start.line


async def test_after_applying_the_outline_says_already_applied(client: EditorClient, ws: Path):
    client.write("a.py", "one = 1\ntwo = 2\n")
    reply = sr("a.py", "two = 2\n", "two = 22\n")
    uri = client.open("c.llm.md", reply, "markdown")
    report = await client.command("llmPatch.apply", {"uri": uri})
    assert report["ok"] is True, report["summary"]
    await client.synced()
    client.replace_all(uri, reply + "\n")  # the reply is analysed again
    symbols = await client.text_document_document_symbol_async(_params(uri))
    assert [s.name for s in symbols] == ["✓ a.py (already applied)"]


async def test_any_other_document_has_no_symbols_and_no_error(client: EditorClient, ws: Path):
    uri = client.open("a.py", "def f():\n    return 1\n", "python")
    assert await client.text_document_document_symbol_async(_params(uri)) == []


def test_the_server_advertises_document_symbols():
    """What Kate asks regardless is advertised too: a client that asks only what is
    advertised (VS Code, eglot's imenu) gets the same outline."""
    ls = create_server()
    wire = Wire()
    ls.protocol.set_writer(wire, include_headers=False)
    params = {"processId": None, "rootUri": None, "capabilities": {}}
    ls.protocol.handle_message(
        {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": params}
    )
    assert wire.answer(0)["result"]["capabilities"]["documentSymbolProvider"]


async def test_a_client_without_the_nested_form_gets_the_flat_one(bare_client: EditorClient):
    ws = bare_client.root
    (ws / "a.py").write_text("one = 1\ntwo = 2\n")
    uri = bare_client.open("c.llm.md", sr("a.py", "two = 2\n", "two = 22\n"), "markdown")
    (symbol,) = await bare_client.text_document_document_symbol_async(_params(uri))
    assert isinstance(symbol, types.SymbolInformation)
    assert symbol.name == "✓ a.py:2 (exact)"
    assert symbol.location.uri == uri and symbol.location.range.start.line == 0
