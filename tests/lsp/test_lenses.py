"""Code lenses: above each block of a reply document, where it lands or why it cannot."""

from __future__ import annotations

from pathlib import Path

from lsprotocol import types

from lsp_server.lsp.lenses import lens_title
from lsp_server.model import (
    BlockOutcome,
    ErrorCode,
    Failure,
    MatchKind,
    Placement,
    Status,
)

from .conftest import EditorClient, edit_block, sr


async def test_code_lenses_say_where_each_block_lands(client: EditorClient, ws: Path):
    client.write("a.py", "one = 1\ntwo = 2\nthree = 3\n")
    reply = sr("a.py", "two = 2\n", "two = 22\n") + "\n" + sr("a.py", "four = 4\n", "four = 44\n")
    chat = client.open("c.llm.md", reply)
    lenses = await client.text_document_code_lens_async(
        types.CodeLensParams(text_document=types.TextDocumentIdentifier(uri=chat))
    )
    titles = [lens.command.title for lens in lenses]
    assert titles == ["✓ a.py:2 (exact)", "✗ TEXT_NOT_FOUND"]
    assert [lens.range.start.line for lens in lenses] == [0, 9]
    first = lenses[0].command
    assert first.command == "llmPatch.applyBlock"
    report = await client.command(first.command, *first.arguments)
    assert [b["status"] for b in report["blocks"]] == ["applied"]


def test_lens_titles():
    placed = BlockOutcome(
        edit_block(),
        Status.VALIDATED,
        MatchKind.EXACT,
        placements=(Placement(41, 43, MatchKind.EXACT),),
    )
    fuzzy = BlockOutcome(
        edit_block(),
        Status.VALIDATED,
        MatchKind.FUZZY,
        placements=(Placement(0, 1, MatchKind.FUZZY),),
        score=0.83,
    )
    failed = BlockOutcome(
        edit_block(), Status.FAILED, failure=Failure(ErrorCode.TEXT_NOT_FOUND, "no")
    )
    assert lens_title(placed) == "✓ a.py:42 (exact)"
    assert lens_title(fuzzy) == "✓ a.py:1 (fuzzy 83%)"
    assert lens_title(failed) == "✗ TEXT_NOT_FOUND"
