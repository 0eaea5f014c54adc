"""Reply documents: live diagnostics, code lenses, hover and quick fixes as the reply is edited."""

from __future__ import annotations

from pathlib import Path

from lsprotocol import types

from .conftest import EditorClient
from .test_apply import sr

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


HANDLER = (
    "def handler(event):\n    value = event['key']\n    total = value * 2\n    log(total)\n"
    "    check(total)\n    store(total)\n    notify(total)\n    audit(total)\n    return total\n"
)


async def test_quick_fixes_for_a_failed_anchor(client: EditorClient, ws: Path):
    client.write("svc.py", HANDLER)
    body = HANDLER.split("\n", 1)[1]
    # two of eight lines rewritten: 79.6% alike, just under the 80% fuzzy threshold
    anchor = body.replace("log(total)", "pass").replace("notify(total)", "yield")
    chat = client.open("r.llm.md", sr("svc.py", anchor, "    return event['key'] * 2\n"))
    await client.wait_for(lambda: client.diagnostics.get(chat), what="a diagnostic")
    diagnostics = list(client.diagnostics[chat])
    actions = await client.actions(chat, diagnostics[0].range, diagnostics=diagnostics)
    fixes = {
        a.title.split(" (")[0].split(" at line")[0]: a for a in actions if a.kind == "quickfix"
    }
    assert set(fixes) == {
        "Open the closest match",
        "Apply block 0",
        "Rewrite block 0 to anchor on the closest match",
    }
    assert "80% similar" in next(a.title for a in actions if a.title.startswith("Apply block 0"))

    opened = await client.run_action(fixes["Open the closest match"])
    if client.capabilities.window.show_document:
        assert opened is True
        shown = client.shown_documents[-1]
        assert shown.uri == client.uri("svc.py")
        assert shown.selection.start.line == 1

    rewrite = fixes["Rewrite block 0 to anchor on the closest match"]
    if rewrite.edit is None:  # resolved lazily where the client can resolve `edit`
        rewrite = await client.code_action_resolve_async(rewrite)
    (doc_edit,) = rewrite.edit.document_changes
    assert doc_edit.text_document.uri == chat
    corrected = "".join(e.new_text for e in doc_edit.edits)
    assert "<<<<<<< SEARCH\n" + body + "=======\n" in corrected
    # the rewritten reply places exactly
    rewritten = apply_edits_to(client, chat, doc_edit.edits)
    checked = await client.command("llmPatch.check", {"text": rewritten})
    assert [b["match"] for b in checked["blocks"]] == ["exact"]

    # the looser fuzzy apply goes through, asking for confirmation where the editor can
    report = await client.run_action(fixes["Apply block 0"])
    assert report["blocks"][0]["status"] == "applied"
    assert report["blocks"][0]["match"] == "fuzzy"
    notes = client.received[-1].edit.change_annotations
    if client.spec == "visual-studio-code":
        assert notes and all(a.needs_confirmation for a in notes.values())


def apply_edits_to(client: EditorClient, uri: str, edits) -> str:
    from .conftest import apply_edits

    return apply_edits(client.text(uri), list(edits), client.encoding)


async def test_closing_a_reply_clears_its_diagnostics(client: EditorClient, ws: Path):
    client.write("a.py", "x = 1\n")
    chat = client.open("c.llm.md", sr("a.py", "nope\n", "x\n"))
    await client.wait_for(lambda: client.diagnostics.get(chat), what="a diagnostic")
    client.text_document_did_close(
        types.DidCloseTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=chat))
    )
    await client.wait_for(lambda: len(client.diagnostics.get(chat, [1])) == 0, what="cleared")
