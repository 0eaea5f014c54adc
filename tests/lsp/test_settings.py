"""`llmPatch.*` settings: the shapes clients send them in, bad values, and what each one does."""

from __future__ import annotations

from pathlib import Path

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcException

from lsp_server.lsp.settings import Settings

from .conftest import EditorClient, sr


def test_settings_accept_every_shape_clients_send():
    base = Settings()
    nested, _ = base.merged({"llmPatch": {"atomic": False, "fuzzyThreshold": 0.7}})
    dotted, _ = base.merged({"llmPatch.mode": "restricted", "llmPatch.alwaysPreview": True})
    flat, _ = base.merged({"confirmFuzzy": False, "replyFiles": ["*.chat"]})
    assert (nested.atomic, nested.fuzzy_threshold) == (False, 0.7)
    assert dotted.restricted and dotted.always_preview
    assert not flat.confirm_fuzzy and flat.reply_files == ("*.chat",)


def test_bad_settings_are_named_and_not_applied():
    new, problems = Settings().merged(
        {"fuzzyThreshold": 3, "atomic": "yes", "mode": "admin", "logLevel": 5, "unknown": 1}
    )
    assert new == Settings()
    assert len(problems) == 4
    assert any("fuzzyThreshold" in p for p in problems)


RESTRICTED = (
    "Patch tool is disabled in Restricted mode. Use request_mode_upgrade to request write access."
)


async def test_restricted_mode_disables_writing_but_not_checking(client: EditorClient, ws: Path):
    client.write("a.py", "x = 1\n")
    reply = sr("a.py", "x = 1\n", "x = 2\n")
    await client.settings({"mode": "restricted"})
    for command, args in (
        ("llmPatch.apply", [{"text": reply}]),
        ("llmPatch.applyBlock", [{"text": reply, "block": 0}]),
        ("llmPatch.patch", [{"path": "a.py", "patches": []}]),
        ("llmPatch.structure", [{"path": "a.py"}]),
    ):
        with pytest.raises(JsonRpcException) as err:
            await client.command(command, *args)
        assert err.value.message == RESTRICTED
        assert err.value.data["error"]["code"] == "MODE_RESTRICTED"
    assert client.received == []
    report = await client.command("llmPatch.check", {"text": reply})
    assert report["ok"] is True
    notes = client.open("n.md", reply)
    actions = await client.actions(
        notes,
        types.Range(
            start=types.Position(line=0, character=0), end=types.Position(line=6, character=0)
        ),
    )
    titles = [a.title for a in actions]
    assert not any(t.startswith("Apply") for t in titles)
    assert any(t.startswith("Check LLM patch") for t in titles)

    await client.settings({"mode": "unrestricted"})
    assert (await client.command("llmPatch.apply", {"text": reply}))["ok"] is True


async def test_atomic_setting_off_applies_what_places(client: EditorClient, ws: Path):
    client.write("a.py", "x = 1\n")
    target = client.open("a.py")
    await client.settings({"atomic": False})
    reply = sr("a.py", "x = 1\n", "x = 2\n") + sr("a.py", "nope\n", "y\n")
    report = await client.command("llmPatch.apply", {"text": reply})
    assert [b["status"] for b in report["blocks"]] == ["applied", "failed"]
    await client.wait_for(lambda: client.text(target) == "x = 2\n")


@pytest.mark.only_clients("visual-studio-code")
async def test_confirm_fuzzy_setting(client: EditorClient, ws: Path):
    client.write("f.py", "def f():\n    # compute the answer carefully\n    return 42\n")
    reply = sr("f.py", "    # compute answer carefully\n    return 42\n", "    return 43\n")
    await client.settings({"confirmFuzzy": False})
    report = await client.command("llmPatch.apply", {"text": reply})
    assert report["blocks"][0]["match"] == "fuzzy"
    notes = client.received[-1].edit.change_annotations
    assert not any(a.needs_confirmation for a in notes.values())


async def test_always_preview_setting(client: EditorClient, ws: Path):
    client.write("a.py", "x = 1\n")
    await client.settings({"alwaysPreview": True, "logLevel": "debug"})
    await client.command("llmPatch.apply", {"text": sr("a.py", "x = 1\n", "x = 2\n")})
    notes = client.received[-1].edit.change_annotations
    if client.spec == "visual-studio-code":
        # annotated for the preview, and an exact block asks nothing (VS Code would untick
        # it): only the preview's opener asks, an edit that changes nothing
        assert notes
        assert {k for k, a in notes.items() if a.needs_confirmation} == {"llm-patch/preview"}
    await client.wait_for(
        lambda: any(m.type == types.MessageType.Log for m in client.log_messages), what="debug log"
    )


async def test_bad_settings_are_ignored_and_named(client: EditorClient, ws: Path):
    await client.settings({"fuzzyThreshold": "high", "mode": "admin"})
    client.write("a.py", "x = 1\n")
    report = await client.command("llmPatch.apply", {"text": sr("a.py", "x = 1\n", "x = 2\n")})
    assert report["ok"] is True  # still unrestricted
    warnings = [m.message for m in client.log_messages if m.type == types.MessageType.Warning]
    assert any("llmPatch.fuzzyThreshold" in w for w in warnings)
    assert any("llmPatch.mode" in w for w in warnings)


async def test_protected_paths_setting_refuses_those_files(client: EditorClient, ws: Path):
    client.write("deploy/prod.env", "KEY=1\n")
    client.write("a.py", "x = 1\n")
    await client.settings({"protectedPaths": ["deploy/*"]})
    reply = sr("deploy/prod.env", "KEY=1\n", "KEY=2\n") + sr("a.py", "x = 1\n", "x = 2\n")
    report = await client.command("llmPatch.check", {"text": reply})
    codes = {b["path"]: (b.get("error") or {}).get("code") for b in report["blocks"]}
    assert codes == {"deploy/prod.env": "PROTECTED_PATH", "a.py": None}
