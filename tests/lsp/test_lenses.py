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


async def test_after_applying_every_block_says_already_applied(client: EditorClient, ws: Path):
    """After a V4A patch is applied, its lenses invite no second apply: the Add File block
    said `(overwrite)`, the Move block TEXT_NOT_FOUND."""
    client.write("keep.py", "x = 1\n")
    client.write("a.py", "a = 1\n")
    reply = (
        "```\n*** Begin Patch\n*** Add File: new.py\n+print(1)\n"
        "*** Update File: keep.py\n*** Move to: kept.py\n@@\n-x = 1\n+x = 2\n"
        "*** End Patch\n```\n\n" + sr("a.py", "a = 1\n", "a = 2\n")
    )
    chat = client.open("r.llm.md", reply)
    report = await client.command("llmPatch.apply", {"uri": chat})
    assert report["ok"] is True, report["summary"]
    await client.synced()
    client.replace_all(chat, reply + "\n")  # the reply is analysed again
    params = types.CodeLensParams(text_document=types.TextDocumentIdentifier(uri=chat))

    async def titles() -> list[str]:
        return [lens.command.title for lens in await client.text_document_code_lens_async(params)]

    await client.wait_for(lambda: chat in client.diagnostics, what="the new analysis")
    got = await titles()
    assert len(got) == 3 and all(t.endswith("(already applied)") for t in got), got
