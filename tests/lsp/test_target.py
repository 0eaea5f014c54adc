"""The caller's `target` (issue 15): the file a block that names no path applies to.

`llmPatch.apply` / `check` / `applyBlock` take `{"target": uri}` beside `text` / `uri`;
the server maps it to a workspace-relative path for the core (`PlanOptions.target`) and
refuses one that is not a file under the workspace, for the whole reply.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from pygls.exceptions import JsonRpcException
from pygls.uris import from_fs_path

from lsp_server.lsp import analysis
from lsp_server.lsp.analysis import ReplySource
from lsp_server.lsp.editor_workspace import EditorView

from .conftest import EditorClient, only_text_edits, sr


@pytest.mark.parametrize("command", ["llmPatch.apply", "llmPatch.check"])
async def test_a_target_outside_the_workspace_is_refused(
    client: EditorClient, ws: Path, tmp_path: Path, command: str
):
    client.write("a.py", "alpha = 1\n")
    outside = tmp_path / "elsewhere.py"
    outside.write_text("alpha = 1\n")
    reply = sr("a.py", "alpha = 1\n", "alpha = 2\n")
    report = await client.command(command, {"text": reply, "target": from_fs_path(str(outside))})
    assert report["ok"] is False
    assert report["error"]["code"] == "OUTSIDE_WORKSPACE"
    assert "outside the workspace" in report["error"]["message"]
    assert str(outside) in report["summary"]
    assert client.received == []
    assert (ws / "a.py").read_text() == "alpha = 1\n"


async def test_a_target_that_is_not_a_file_is_refused(client: EditorClient, ws: Path):
    reply = sr("a.py", "alpha = 1\n", "alpha = 2\n")
    for target in ("untitled:Untitled-1", from_fs_path(str(ws))):
        report = await client.command("llmPatch.check", {"text": reply, "target": target})
        assert report["error"]["code"] == "OUTSIDE_WORKSPACE", target
    for bad in (7, "", ["file:///x"]):
        with pytest.raises(JsonRpcException, match="target"):
            await client.command("llmPatch.apply", {"text": reply, "target": bad})


async def test_a_target_in_the_workspace_leaves_blocks_with_a_path_alone(
    client: EditorClient, ws: Path
):
    client.write("a.py", "alpha = 1\n")
    other = client.write("b.py", "beta = 1\n")
    a = client.open("a.py")
    chat = client.open("chat.llm.md", "x\n" + sr("a.py", "alpha = 1\n", "alpha = 2\n"))
    report = await client.command("llmPatch.applyBlock", {"uri": chat, "block": 0, "target": other})
    assert report["ok"] is True, report["summary"]
    await client.wait_for(lambda: client.text(a) == "alpha = 2\n", what="the edit")
    assert (ws / "b.py").read_text() == "beta = 1\n"


def test_the_target_reaches_the_plan_options_as_a_workspace_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    """The plumbing, whatever the core does with it: the URI becomes the path under the root
    (through a symlinked folder too), and the core is asked with it."""
    from lsp_server import plan as plan_module

    root = tmp_path / "ws"
    (root / "src").mkdir(parents=True)
    (root / "src" / "app.py").write_text("x = 1\n")
    (tmp_path / "link").symlink_to(root / "src")
    seen = []
    real = plan_module.plan_reply

    def spy(parsed, ws, options, cancelled=None):
        seen.append(options.target)
        return real(parsed, ws, options, cancelled)

    monkeypatch.setattr(plan_module, "plan_reply", spy)
    view = EditorView((str(root),), ())
    text = sr("src/app.py", "x = 1\n", "x = 2\n")
    parsed = analysis.parse(text)
    for uri in (
        from_fs_path(str(root / "src" / "app.py")),
        from_fs_path(str(tmp_path / "link" / "app.py")),
    ):
        done = analysis.place(
            ReplySource(text),
            parsed,
            view,
            atomic=True,
            fuzzy_threshold=0.9,
            encoding="utf-16",
            cancelled=lambda: False,
            target=uri,
        )
        assert done.plan.ok
    assert seen == ["src/app.py", "src/app.py"]


# --- with the core's snippet placement -----------------------------------------------------------

APP = "import os\n\n\ndef compute(x):\n    return x + 1\n\n\ndef other():\n    return 2\n"
SNIPPET = (
    "Here is the fix:\n\n```python\ndef compute(x):\n    if x < 0:\n"
    "        raise ValueError(x)\n    return x + 1\n```\n"
)


async def test_a_pathless_snippet_goes_to_the_target_with_a_confirmed_versioned_edit(
    client: EditorClient, ws: Path
):
    client.write("src/app.py", APP)
    client.write("lib/copy.py", APP)  # the same definitions: without a target, ambiguous
    target = client.open("src/app.py", language_id="python")
    report = await client.command("llmPatch.check", {"text": SNIPPET})
    assert report["blocks"][0]["error"]["code"] == "TARGET_AMBIGUOUS"

    report = await client.command("llmPatch.apply", {"text": SNIPPET, "target": target})
    assert report["ok"] is True, report["summary"]
    (block,) = report["blocks"]
    assert (block["path"], block["match"]) == ("src/app.py", "snippet")
    params = client.received[-1]
    (doc_edit,) = only_text_edits(params)
    assert doc_edit.text_document.uri == target
    assert doc_edit.text_document.version == 1
    if client.capabilities.workspace.workspace_edit.change_annotation_support:
        notes = params.edit.change_annotations
        assert notes and all(a.needs_confirmation for a in notes.values())
    await client.wait_for(lambda: "raise ValueError" in client.text(target), what="the edit")
    assert client.text(target) == APP.replace(
        "    return x + 1\n", "    if x < 0:\n        raise ValueError(x)\n    return x + 1\n"
    )
    assert (ws / "lib/copy.py").read_text() == APP


async def test_a_snippet_confirms_even_when_fuzzy_matches_do_not(client: EditorClient, ws: Path):
    await client.settings({"confirmFuzzy": False})
    client.write("src/app.py", APP)
    target = client.uri("src/app.py")
    await client.command("llmPatch.apply", {"text": SNIPPET, "target": target})
    params = client.received[-1]
    if client.capabilities.workspace.workspace_edit.change_annotation_support:
        notes = params.edit.change_annotations
        assert notes and all(a.needs_confirmation for a in notes.values())
