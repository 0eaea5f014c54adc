"""The reports the editors' own tests feed their plugins are the server's, word for word.

editors/fixtures/reports.json holds reports as an LLM Patch command returns them: the facts
and the words `lsp_server.report.render` writes about them. The VS Code and Neovim tests show
those words; this test keeps them from drifting away from what the server says.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lsp_server.report import render

FIXTURES = Path(__file__).resolve().parents[2] / "editors" / "fixtures" / "reports.json"
REPORTS: dict[str, dict] = json.loads(FIXTURES.read_text(encoding="utf-8"))["reports"]


@pytest.mark.parametrize("name", sorted(REPORTS))
def test_the_fixture_words_are_the_servers(name: str) -> None:
    stored = REPORTS[name]
    words = render(stored)
    assert {k: stored[k] for k in words} == words, (
        f"editors/fixtures/reports.json[{name!r}] is out of date; the server now writes:\n"
        + json.dumps(words, indent=2, ensure_ascii=False)
    )
