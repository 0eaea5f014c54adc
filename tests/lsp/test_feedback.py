"""Truthful feedback (issue 16): what the server says matches what happened.

A block whose change is already in the file says "already applied" (not "fuzzy 98%
validated", not FILE_NOT_FOUND for a V4A delete or move that was carried out); counts
agree between the action's title and the edit's label (blocks, and a move is one file);
"1 edit", never "1 edits"; no "100%" for a match that is not exact; no "applied" when
nothing changed; a message shown once, not by both the server and the caller; and after
a code action, which files changed and which are not saved yet.
"""

from __future__ import annotations

from pathlib import Path

from lsprotocol import types

from lsp_server.report import percent

from .conftest import EditorClient, sr, whole

FUNCTION = "".join(f"    v{i} = compute({i}, {i * 7 % 11}, {i * 3 % 5})\n" for i in range(8))


def v4a(*ops: str) -> str:
    return "```\n*** Begin Patch\n" + "".join(ops) + "*** End Patch\n```\n"


async def _applied(client: EditorClient, reply: str, *paths: str) -> dict:
    report = await client.command("llmPatch.apply", {"text": reply})
    assert report["ok"] is True, report["summary"]
    return report


async def test_a_fuzzy_block_applied_before_is_already_applied(client: EditorClient, ws: Path):
    client.write("m.py", "def f():\n" + FUNCTION)
    uri = client.open("m.py")
    lines = FUNCTION.splitlines(keepends=True)
    old = lines[2].replace("compute", "compure") + lines[3] + lines[4]  # a typo: fuzzy
    new = lines[2].replace("compute", "compure") + lines[3].replace(")", ") + 1") + lines[4]
    reply = "Change v3:\n\n" + sr("m.py", old, new)
    first = await _applied(client, reply)
    assert first["blocks"][0]["match"] == "fuzzy"
    await client.wait_for(lambda: ") + 1" in client.text(uri), what="the edit")

    again = await client.command("llmPatch.check", {"text": reply})
    (block,) = again["blocks"]
    assert block["already_applied"] is True
    assert again["summary"] == "nothing to change: 1 edit already applied."
    assert "| already applied |" in again["text"]
    assert "fuzzy" not in again["text"]


async def test_v4a_delete_and_move_applied_before_are_already_applied(
    client: EditorClient, ws: Path
):
    client.write("old.py", "a = 1\n")
    client.write("mv.py", "q = 1\n")
    reply = v4a(
        "*** Delete File: old.py\n",
        "*** Update File: mv.py\n*** Move to: moved.py\n@@\n-q = 1\n+q = 2\n",
    )
    await _applied(client, reply)
    await client.wait_for(
        lambda: not (ws / "old.py").exists() and (ws / "moved.py").exists(), what="the ops"
    )
    moved = client.uri("moved.py")
    await client.wait_for(lambda: client.docs.get(moved, [""])[0] == "q = 2\n", what="moved")
    (ws / "moved.py").write_text("q = 2\n")  # the user saves the moved buffer
    await client.synced()  # the moved buffer's edit reaches the server after its rename

    again = await client.command("llmPatch.check", {"text": reply})
    assert again["ok"] is True, again["summary"]
    assert [b.get("already_applied") for b in again["blocks"]] == [True, True]
    assert again["summary"] == "nothing to change: 2 edits already applied."


async def test_the_title_and_the_label_count_the_same_things(client: EditorClient, ws: Path):
    # block 0 makes two text edits (two lines apart), block 1 one: 3 edits by the title,
    # and the label must not say 4 (or 3 text edits) either way: both count blocks
    client.write("a.py", "a = 1\nb = 2\nc = 3\nd = 4\n")
    client.write("b.py", "x = 1\n")
    client.write("mv.py", "q = 1\n")
    reply = (
        sr("a.py", "a = 1\nb = 2\nc = 3\n", "a = 10\nb = 2\nc = 30\n")
        + sr("b.py", "x = 1\n", "x = 2\n")
        + v4a("*** Update File: mv.py\n*** Move to: lib/mv.py\n@@\n-q = 1\n+q = 2\n")
    )
    notes = client.open("notes.md", reply)
    actions = await client.actions(notes, whole(reply))
    apply_action = next(a for a in actions if a.title.startswith("Apply LLM patch"))
    assert apply_action.title == "Apply LLM patch (3 edits in 3 files)"  # a move is one file
    report = await client.run_action(apply_action)
    assert report["ok"] is True, report["summary"]
    assert client.received[-1].label == "LLM patch: 3 edits in 3 files"
    assert report["summary"] == "applied 3 edits in 3 files."
    await client.wait_for(
        lambda: any(m.type == types.MessageType.Info for m in client.messages), what="a message"
    )
    (info,) = [m.message for m in client.messages if m.type == types.MessageType.Info]
    assert info.startswith("LLM patch: applied 3 edits in 3 files: a.py, b.py, mv.py → lib/mv.py")


async def test_one_edit_is_singular_everywhere(client: EditorClient, ws: Path):
    client.write("a.py", "x = 1\n")
    reply = sr("a.py", "x = 1\n", "x = 2\n")
    notes = client.open("notes.md", reply)
    titles = [a.title for a in await client.actions(notes, whole(reply))]
    assert "Apply LLM patch (1 edit in 1 file)" in titles
    report = await client.command("llmPatch.apply", {"text": reply})
    assert client.received[-1].label == "LLM patch: 1 edit in 1 file"
    assert "1 edits" not in report["summary"] and "1 files" not in report["summary"]


async def test_nothing_changed_is_never_called_applied(client: EditorClient, ws: Path):
    client.write("a.py", "x = 1\n")
    report = await client.command("llmPatch.apply", {"text": sr("a.py", "x = 1\n", "x = 1\n")})
    assert client.received == []
    assert not report["summary"].startswith("applied")
    assert report["summary"] == "nothing to change: 1 edit placed, and no file differs."


def test_a_similarity_short_of_exact_never_reads_100_percent():
    assert percent(1.0) == "100%"
    assert percent(0.996) == "99%"
    assert percent(0.999999) == "99%"
    assert percent(0.8) == "80%"
    assert percent(0.29) == "29%"


async def test_a_quiet_caller_gets_the_report_without_a_message(client: EditorClient, ws: Path):
    client.write("a.py", "x = 1\n")
    reply = sr("a.py", "zeta = 1\n", "zeta = 2\n")
    report = await client.command("llmPatch.apply", {"text": reply}, {"quiet": True})
    assert report["ok"] is False
    loud = await client.command("llmPatch.apply", {"text": reply})
    assert loud["ok"] is False
    await client.wait_for(lambda: client.messages, what="the message")
    assert len(client.messages) == 1  # the second apply's only


async def test_a_code_action_says_which_files_changed_and_which_are_unsaved(
    client: EditorClient, ws: Path
):
    client.write("a.py", "x = 1\n")
    client.write("b.py", "y = 1\n")
    reply = sr("a.py", "x = 1\n", "x = 2\n") + sr("b.py", "y = 1\n", "y = 2\n")
    notes = client.open("notes.md", reply)
    actions = await client.actions(notes, whole(reply))
    report = await client.run_action(next(a for a in actions if a.title.startswith("Apply")))
    assert report["ok"] is True, report["summary"]
    # the editor applied the edit to its buffers: nothing is on disk yet
    assert report["unsaved"] == ["a.py", "b.py"]
    await client.wait_for(
        lambda: any(m.type == types.MessageType.Info for m in client.messages), what="a message"
    )
    (info,) = [m.message for m in client.messages if m.type == types.MessageType.Info]
    assert info == ("LLM patch: applied 2 edits in 2 files: a.py, b.py; not saved yet: a.py, b.py.")
