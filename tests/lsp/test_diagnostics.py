"""Reply documents: live diagnostics on the blocks that will not land, kept current."""

from __future__ import annotations

import json
from pathlib import Path

from lsprotocol import types

from lsp_server.edits import PositionIndex
from lsp_server.lsp.analysis import Analysis, ReplySource
from lsp_server.lsp.diagnostics import build_diagnostics
from lsp_server.model import (
    BlockOutcome,
    ErrorCode,
    Failure,
    MatchKind,
    ParsedReply,
    Plan,
    PlanWarning,
    Status,
    WarningType,
)

from .conftest import EditorClient, edit_block, sr

R = types.Range
P = types.Position


async def test_failing_block_gets_a_diagnostic_that_clears_when_fixed(
    client: EditorClient, ws: Path
):
    client.write(
        "svc.py", "import os\n\n\ndef handler(event):\n    value = event['key']\n    return value\n"
    )
    bad = "Change it like this:\n\n" + sr(
        "svc.py", "    value = event['name']\n    log(value)\n", "    return event.get('key')\n"
    )
    chat = client.open("reply.llm.md", bad, language_id="markdown")
    await client.wait_for(lambda: client.diagnostics.get(chat), what="a diagnostic")
    (diag,) = client.diagnostics[chat]
    assert diag.severity == types.DiagnosticSeverity.Error
    assert diag.code == "TEXT_NOT_FOUND"
    assert diag.source == "llm-patch"
    assert "svc.py" in diag.message
    # on the block's own lines: the path line (2) through the closing fence (10)
    assert diag.range.start.line == 2
    assert diag.range.end.line == 10
    (related,) = diag.related_information
    assert related.location.uri == client.uri("svc.py")
    assert related.location.range.start.line == 4  # `value = event['key']` is line 5, 0-based 4
    assert "closest match" in related.message

    fixed = bad.replace("['name']\n    log(value)", "['key']\n    return value")
    client.replace_all(chat, fixed)
    await client.wait_for(
        lambda: len(client.diagnostics.get(chat, [1])) == 0, what="diagnostics cleared"
    )


async def test_untitled_buffers_and_patch_files_are_reply_documents(client: EditorClient, ws: Path):
    client.write("a.py", "x = 1\n")
    reply = sr("a.py", "y = 1\n", "y = 2\n")
    untitled = client.open("untitled:Untitled-1", reply)
    patch = client.open("fix.patch", "--- a/a.py\n+++ b/a.py\n@@ -1 +1 @@\n-z = 1\n+z = 2\n")
    note = client.open("note.md", reply)
    await client.wait_for(lambda: client.diagnostics.get(untitled), what="untitled diagnostics")
    await client.wait_for(lambda: client.diagnostics.get(patch), what="patch diagnostics")
    assert note not in client.diagnostics  # an ordinary document is left alone


async def test_target_file_edits_refresh_the_reply_diagnostics(client: EditorClient, ws: Path):
    client.write("t.py", "a = 1\n")
    target = client.open("t.py")
    chat = client.open("c.llm.md", sr("t.py", "b = 1\n", "b = 2\n"))
    await client.wait_for(lambda: client.diagnostics.get(chat), what="a diagnostic")
    client.replace_all(target, "b = 1\n")  # now the anchor exists in the open document
    await client.wait_for(lambda: len(client.diagnostics.get(chat, [1])) == 0, what="cleared")


async def test_closing_a_reply_clears_its_diagnostics(client: EditorClient, ws: Path):
    client.write("a.py", "x = 1\n")
    chat = client.open("c.llm.md", sr("a.py", "nope\n", "x\n"))
    await client.wait_for(lambda: client.diagnostics.get(chat), what="a diagnostic")
    client.text_document_did_close(
        types.DidCloseTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=chat))
    )
    await client.wait_for(lambda: len(client.diagnostics.get(chat, [1])) == 0, what="cleared")


async def test_a_count_mismatch_shows_every_occurrence_found_as_related(
    client: EditorClient, ws: Path
):
    client.write(
        "cfg.py",
        "retries = 3\ntimeout = 30\n\nretries = 3\ntimeout = 30\n\nname = 'x'\n"
        "retries = 3\ntimeout = 30\n",
    )
    call = {
        "file_path": "cfg.py",
        "old_string": "retries = 3\ntimeout = 30\n",
        "new_string": "retries = 5\ntimeout = 60\n",
        "expected_replacements": 2,
    }
    reply = "Raise both limits:\n\n```json\n" + json.dumps(call) + "\n```\n"
    chat = client.open("limits.llm.md", reply, language_id="markdown")
    await client.wait_for(lambda: client.diagnostics.get(chat), what="a diagnostic")
    (diag,) = client.diagnostics[chat]
    assert diag.code == "COUNT_MISMATCH" and diag.severity == types.DiagnosticSeverity.Error
    assert diag.range.start.line == 2  # the fence, the reply's third line
    related = diag.related_information
    assert [r.location.uri for r in related] == [client.uri("cfg.py")] * 3
    # each occurrence, both of its lines (0-based 0-1, 3-4, 7-8), to the end of the second
    ranges = [r.location.range for r in related]
    assert [(r.start.line, r.start.character) for r in ranges] == [(0, 0), (3, 0), (7, 0)]
    assert [(r.end.line, r.end.character) for r in ranges] == [(1, 12), (4, 12), (8, 12)]
    assert [r.message for r in related] == [f"cfg.py:{n}: occurs here" for n in (1, 4, 8)]


def test_diagnostics_sit_on_the_block_lines_of_the_selection():
    reply = "prose\n" * 20
    failed = BlockOutcome(
        edit_block(index=1, lines=(3, 5)),
        Status.FAILED,
        failure=Failure(ErrorCode.TEXT_AMBIGUOUS, "block 1: matches 2 places", {"lines": [1, 9]}),
    )
    placed = BlockOutcome(edit_block(index=0, lines=(1, 2)), Status.VALIDATED, MatchKind.EXACT)
    plan = Plan(
        (placed, failed),
        (),
        (PlanWarning(WarningType.AUTOGENERATED, "a.py looks generated", "a.py"),),
    )
    analysis = Analysis(
        ReplySource(reply, "file:///r.md", 3, line_offset=10, whole_document=False),
        ParsedReply((placed.block, failed.block)),
        plan,
        Path("/ws"),
        {},
    )
    diags = build_diagnostics(analysis, PositionIndex(reply))
    error = next(d for d in diags if d.severity == types.DiagnosticSeverity.Error)
    assert error.range.start.line == 12 and error.range.end.line == 14
    assert error.code == "TEXT_AMBIGUOUS" and error.source == "llm-patch"
    assert error.data["block"] == 1
    warning = next(d for d in diags if d.severity == types.DiagnosticSeverity.Warning)
    assert warning.code == "AUTOGENERATED"
    assert warning.range.start.line == 10  # the first block that targets a.py


def test_reply_level_refusal_is_one_warning():
    analysis = Analysis(
        ReplySource("x"),
        ParsedReply((), Failure(ErrorCode.CONTENT_TOO_LARGE, "too big")),
        Plan((), (), failure=Failure(ErrorCode.CONTENT_TOO_LARGE, "too big")),
        Path("/ws"),
        {},
    )
    (diag,) = build_diagnostics(analysis, PositionIndex("x"))
    assert diag.code == "CONTENT_TOO_LARGE"
    empty = Analysis(
        ReplySource("x"),
        ParsedReply((), Failure(ErrorCode.NO_EDIT_BLOCKS, "none")),
        Plan((), (), failure=Failure(ErrorCode.NO_EDIT_BLOCKS, "none")),
        Path("/ws"),
        {},
    )
    assert build_diagnostics(empty, PositionIndex("x")) == []
