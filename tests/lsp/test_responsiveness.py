"""The event loop stays free while the server works: diffs run in its workers.

`llmPatch.buildDiff` and an apply diff whole texts (the edit, the report). Two texts
whose only common lines are blank lines are the line differ's hard case; whatever it costs,
it runs in a worker thread, so a request sent meanwhile is answered at once.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest_lsp

from .conftest import CONFIG, EditorClient, sr, start_session

PAIRS = 500  # lines, each followed by a blank one
OLD = "".join(f"alpha_{i} = {i}\n\n" for i in range(PAIRS))
NEW = "".join(f"beta_{i} = {i * 7}\n\n" for i in range(PAIRS))
PROMPT = 1.0  # seconds: far more than answering `llmPatch.stats` takes


@pytest_lsp.fixture(config=CONFIG)
async def editor(lsp_client: EditorClient, tmp_path: Path):
    root = tmp_path / "ws"
    root.mkdir()
    await start_session(lsp_client, "visual-studio-code", root.resolve())
    yield
    await lsp_client.shutdown_session()


async def _answered_meanwhile(editor: EditorClient, work: asyncio.Future) -> float:
    """How long `llmPatch.stats` takes to answer while `work` runs."""
    await asyncio.sleep(0.2)
    loop = asyncio.get_running_loop()
    started = loop.time()
    await asyncio.wait_for(editor.command("llmPatch.stats"), 120)
    return loop.time() - started


async def test_build_diff_does_not_hold_up_other_requests(editor: EditorClient):
    work = asyncio.ensure_future(
        editor.command("llmPatch.buildDiff", {"original": OLD, "updated": NEW, "path": "x.py"})
    )
    waited = await _answered_meanwhile(editor, work)
    result = await asyncio.wait_for(work, 120)
    assert "+beta_0 = 0\n" in result["diff"] and "-alpha_0 = 0\n" in result["diff"]
    assert waited < PROMPT


async def test_an_apply_does_not_hold_up_other_requests(editor: EditorClient):
    editor.write("big.py", OLD)
    work = asyncio.ensure_future(editor.command("llmPatch.apply", {"text": sr("big.py", OLD, NEW)}))
    waited = await _answered_meanwhile(editor, work)
    report = await asyncio.wait_for(work, 120)
    assert report["ok"] is True, report["summary"]
    assert editor.text(editor.uri("big.py")) == NEW
    assert waited < PROMPT
