"""The `llmPatch.*` commands: their arguments, their reports, and the replies they refuse."""

from __future__ import annotations

from pathlib import Path

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcException

from .conftest import EditorClient, sr

R = types.Range
P = types.Position


async def test_apply_block_applies_one_block(client: EditorClient, ws: Path):
    client.write("a.py", "alpha = 1\nbeta = 2\n")
    target = client.open("a.py")
    reply = sr("a.py", "alpha = 1\n", "alpha = 10\n") + sr("a.py", "beta = 2\n", "beta = 20\n")
    chat = client.open("chat.llm.md", reply)
    report = await client.command("llmPatch.applyBlock", {"uri": chat, "block": 1})
    assert [b["index"] for b in report["blocks"]] == [1]
    await client.wait_for(lambda: "beta = 20" in client.text(target))
    assert client.text(target) == "alpha = 1\nbeta = 20\n"


async def test_check_publishes_diagnostics_and_applies_nothing(client: EditorClient, ws: Path):
    client.write("a.py", "alpha = 1\n")
    reply = "intro\n" + sr("a.py", "zeta = 1\n", "zeta = 2\n")
    notes = client.open("notes.md", reply, language_id="markdown")
    report = await client.command("llmPatch.check", {"uri": notes})
    assert report["ok"] is False
    assert client.received == []
    await client.wait_for(lambda: client.diagnostics.get(notes), what="diagnostics")
    (diag,) = client.diagnostics[notes]
    assert diag.code == "TEXT_NOT_FOUND"
    assert diag.range.start.line == 1


async def test_invalid_arguments_get_an_error_not_a_crash(client: EditorClient, ws: Path):
    for args in (
        [],
        [42],
        [{"uri": 7}],
        [{"text": "x"}, "not options"],
        [{"uri": "file:///nope/x.md"}],
    ):
        with pytest.raises(JsonRpcException):
            await client.command("llmPatch.apply", *args)
    assert (await client.command("llmPatch.stats"))["patches"] >= 0


async def test_build_diff_and_stats(client: EditorClient, ws: Path):
    result = await client.command(
        "llmPatch.buildDiff", {"original": "a\nb\n", "updated": "a\nc\n", "path": "x.txt"}
    )
    assert result["path"] == "x.txt"
    assert "-b\n+c\n" in result["diff"] and "--- a/x.txt" in result["diff"]
    client.write("a.py", "alpha = 1\n")
    await client.command("llmPatch.apply", {"text": sr("a.py", "alpha = 1\n", "alpha = 2\n")})
    await client.command("llmPatch.apply", {"text": sr("a.py", "nope\n", "x\n")})
    stats = await client.command("llmPatch.stats")
    assert stats["patches"] == 2
    assert stats["conflicts"] == 1
    assert stats["averageLatencyMs"] > 0


async def test_patch_tool_and_structure_commands(client: EditorClient, ws: Path):
    client.write("m.py", "def f():\n    return 1\n\n\ndef g():\n    return 2\n")
    target = client.open("m.py")
    report = await client.command(
        "llmPatch.patch",
        {
            "path": "m.py",
            "patches": [{"operation": "replace", "oldText": "return 2", "newText": "return 20"}],
        },
    )
    assert report["ok"] is True, report
    assert report["blocks"][0]["format"] == "patch-tool"
    await client.wait_for(lambda: "return 20" in client.text(target))
    report = await client.command(
        "llmPatch.structure",
        {"path": "m.py", "target": "function f", "content": "def f():\n    return 10\n"},
    )
    assert report["ok"] is True, report
    assert report["blocks"][0]["match"] == "structural"
    await client.wait_for(lambda: "return 10" in client.text(target))
    assert client.text(target) == "def f():\n    return 10\n\n\ndef g():\n    return 20\n"


async def test_binary_and_huge_replies_are_refused_cleanly(client: EditorClient, ws: Path):
    (ws / "blob.patch").write_bytes(b"\x00\x01\x02" * 100)
    with pytest.raises(JsonRpcException) as err:
        await client.command("llmPatch.check", {"uri": client.uri("blob.patch")})
    assert err.value.data["code"] == "BINARY_FILE"
    huge = "x" * 1_100_000
    report = await client.command("llmPatch.check", {"text": huge})
    assert report["error"]["code"] == "CONTENT_TOO_LARGE"
    chat = client.open("big.llm.md", huge)
    await client.wait_for(lambda: client.diagnostics.get(chat), what="a diagnostic")
    (diag,) = client.diagnostics[chat]
    assert diag.code == "CONTENT_TOO_LARGE"


async def test_a_reply_file_that_is_not_utf8_is_refused_not_replaced(
    client: EditorClient, ws: Path
):
    # the file has U+FFFD where the reply has a Latin-1 é: read with replacement characters,
    # the reply would match exactly and be applied
    client.write("a.py", "x = 'caf\ufffd'\n")
    reply = sr("a.py", "x = 'caf\xe9'\n", "x = 'bar'\n")
    (ws / "latin1.patch").write_bytes(reply.encode("latin-1"))
    (ws / "utf16.patch").write_bytes(reply.encode("utf-16"))
    for command in ("llmPatch.check", "llmPatch.apply"):
        with pytest.raises(JsonRpcException) as err:
            await client.command(command, {"uri": client.uri("latin1.patch")})
        assert "latin1.patch is not UTF-8 text (invalid byte at offset" in err.value.message
        assert err.value.data["code"] == "BINARY_FILE"
        assert err.value.data["details"]["offset"] == reply.encode("latin-1").index(b"\xe9")
    with pytest.raises(JsonRpcException) as err:
        await client.command("llmPatch.check", {"uri": client.uri("utf16.patch")})
    assert "UTF-16-LE byte-order mark" in err.value.message
    assert err.value.data["code"] == "BINARY_FILE"
    assert client.received == []
    assert (ws / "a.py").read_text(encoding="utf-8") == "x = 'caf\ufffd'\n"
