"""Hover on a reply document's block: the change that block alone makes."""

from __future__ import annotations

from pathlib import Path

from lsprotocol import types

from .conftest import EditorClient, sr

P = types.Position


async def test_hover_shows_the_block_diff(client: EditorClient, ws: Path):
    client.write("a.py", "one = 1\ntwo = 2\n")
    reply = sr("a.py", "one = 1\n", "one = 10\n") + sr("a.py", "two = 2\n", "two = 20\n")
    chat = client.open("c.llm.md", reply)
    hover = await client.text_document_hover_async(
        types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=chat), position=P(line=10, character=2)
        )
    )
    assert hover is not None
    value = hover.contents.value
    assert "Block 1" in value
    assert "-two = 2\n+two = 20" in value
    assert "+one = 10" not in value  # only this block's own change
    nothing = await client.text_document_hover_async(
        types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=client.open("plain.md", "hello\n")),
            position=P(line=0, character=1),
        )
    )
    assert nothing is None
