"""Hover on a reply document's block: the change that block alone makes."""

from __future__ import annotations

import asyncio
from pathlib import Path

from lsprotocol import types

from lsp_server.lsp.analysis import Analysis, ReplySource
from lsp_server.lsp.hover import hover_text
from lsp_server.lsp.server import create_server
from lsp_server.model import (
    BlockOutcome,
    EditBlock,
    FileAction,
    FileChange,
    Format,
    Hunk,
    MatchKind,
    ParsedReply,
    Placement,
    Plan,
    Status,
)

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


def test_a_files_only_block_is_shown_from_the_analysis_already_made():
    block = EditBlock(
        Format.SEARCH_REPLACE, "a.py", (1, 7), hunks=(Hunk("one = 1\n", "one = 10\n"),), index=0
    )
    other = EditBlock(Format.SEARCH_REPLACE, "b.py", (8, 14), index=1)
    placed_at = (Placement(0, 1, MatchKind.EXACT),)
    outcome = BlockOutcome(block, Status.VALIDATED, MatchKind.EXACT, placements=placed_at)
    change = FileChange("a.py", FileAction.MODIFY, "one = 1\n", "one = 10\n", blocks=(0,))
    plan = Plan((outcome, BlockOutcome(other, Status.FAILED)), (change,))
    analysis = Analysis(
        ReplySource("reply", "file:///ws/r.llm.md", 4),
        ParsedReply((block, other)),
        plan,
        Path("/ws"),
        {},
    )
    ls = create_server()

    async def no_more_analyses(*args, **kwargs):
        raise AssertionError("the hover planned the reply again")

    ls.analyse = no_more_analyses  # type: ignore[method-assign]
    text = asyncio.run(hover_text(ls, analysis, outcome, markdown=False))
    assert text.startswith("Block 0 · search-replace · a.py — ✓ a.py:1 (exact)")
    assert "-one = 1\n+one = 10\n" in text
