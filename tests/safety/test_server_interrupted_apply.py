"""The language server and an interrupted `llm-patch apply` (issue 23, item 3).

An apply killed between its renames leaves `.llm-patch.journal` and a tree that is half old,
half new. Before, the server planned on that tree without a word: an edit made from it was
later undone by recovery, or mixed new text into a file recovery then could not put back.
Now, while the journal is there, every analysis is one failure naming `llm-patch recover`
(a diagnostic on the reply), and no edit is sent.
"""

from __future__ import annotations

from pathlib import Path

import pytest_lsp
from lsp.conftest import CONFIG, EditorClient, Wire, sr, start_session

from lsp_server.journal import recover
from lsp_server.lsp import apply
from lsp_server.lsp.analysis import ReplySource
from lsp_server.lsp.server import create_server
from lsp_server.writer import write_plan

from .writer_support import die_at, plan_for, search_replace


def _half_applied(root: Path, monkeypatch) -> None:
    """A real apply of two files, killed after it renamed the first in."""
    (root / "a.py").write_text("a = 1\n")
    (root / "b.py").write_text("b = 1\n")
    reply = search_replace("a.py", "a = 1\n", "a = 2\n") + search_replace(
        "b.py", "b = 1\n", "b = 2\n"
    )
    plan, ws = plan_for(root, reply)
    for step in range(1, 40):
        for name, text in (("a.py", "a = 1\n"), ("b.py", "b = 1\n")):
            (root / name).write_text(text)
        assert die_at(step, monkeypatch, lambda: write_plan(plan, ws)) == 137
        if (root / "a.py").read_text() == "a = 2\n" and (root / "b.py").read_text() == "b = 1\n":
            return
        recover(root)
    raise AssertionError("no step leaves a.py new and b.py old")


@pytest_lsp.fixture(config=CONFIG, params=["visual-studio-code"])
async def editor(request, lsp_client: EditorClient, tmp_path: Path):
    root = tmp_path / "ws"
    root.mkdir()
    await start_session(lsp_client, request.param, root.resolve())
    yield
    await lsp_client.shutdown_session()


async def test_a_pending_journal_is_a_diagnostic_naming_recover(editor: EditorClient, monkeypatch):
    _half_applied(editor.root, monkeypatch)
    notes = editor.open("reply.llm.md", sr("b.py", "b = 1\n", "b = 3\n"), language_id="markdown")
    await editor.wait_for(lambda: editor.diagnostics.get(notes), what="a diagnostic")
    messages = [d.message for d in editor.diagnostics[notes]]
    assert any("llm-patch recover" in m for m in messages), messages


async def test_no_edit_is_planned_on_a_half_applied_tree(tmp_path: Path, monkeypatch):
    _half_applied(tmp_path, monkeypatch)
    ls = create_server()
    wire = Wire()
    ls.protocol.set_writer(wire, include_headers=False)
    params = {"processId": None, "rootUri": tmp_path.as_uri(), "capabilities": {}}
    ls.protocol.handle_message(
        {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": params}
    )
    report = await apply.apply(
        ls, ReplySource(sr("a.py", "a = 2\n", "a = 3\n")), apply.ApplyOptions()
    )
    assert report["ok"] is False, report
    assert "llm-patch recover" in report["error"]["message"]
    assert not any(m.get("method") == "workspace/applyEdit" for m in wire.sent)
    assert (tmp_path / "a.py").read_text() == "a = 2\n"  # nothing planned on it, nothing sent
