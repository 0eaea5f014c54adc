"""The corpus tables: by source, by language, and their place in the README."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.replay.corpus import Case, Replay, rewrite_readme, table


def _replay(source: str, name: str, languages: list[str], outcome: str) -> Replay:
    case = Case(Path("cases") / source / name, {"languages": languages, "expect": "after"})
    return Replay(case, outcome, 0, {}, {})


REPLAYS = [
    _replay("aider", "001", ["go"], "right"),
    _replay("aider", "002", ["go", "markdown"], "refused"),
    _replay("chat", "001", ["rust"], "right"),
    _replay("chat", "002", ["markdown"], "right"),
]


def _rows(text: str) -> dict[str, list[str]]:
    rows = {}
    for line in text.splitlines()[2:]:
        cells = [c.strip() for c in line.strip("|").split("|")]
        rows[cells[0]] = cells[1:]
    return rows


def test_by_source_counts_each_case_in_its_folder():
    rows = _rows(table(REPLAYS))
    assert rows["aider"] == ["2", "1", "1", "0"]
    assert rows["chat"] == ["2", "2", "0", "0"]
    assert rows["**all**"] == ["4", "3", "1", "0"]


def test_by_language_counts_a_case_under_every_language_it_touches_and_once_in_all():
    text = table(REPLAYS, "language")
    rows = _rows(text)
    assert rows["go"] == ["2", "1", "1", "0"]
    assert rows["markdown"] == ["2", "1", "1", "0"]
    assert rows["rust"] == ["1", "1", "0", "0"]
    assert rows["**all**"] == ["4", "3", "1", "0"]
    assert text.splitlines()[0].startswith("| language |")
    # most-touched languages first, the total last
    assert [k for k in rows] == ["go", "markdown", "rust", "**all**"]


def test_readme_tables_are_rewritten_between_their_markers_only():
    readme = (
        "intro\n<!-- replay:begin -->\nold\n<!-- replay:end -->\nmiddle\n"
        "<!-- replay-language:begin -->\nold\n<!-- replay-language:end -->\nend\n"
    )
    out = rewrite_readme(readme, REPLAYS)
    assert out.startswith("intro\n<!-- replay:begin -->\n| source |")
    assert "\nmiddle\n<!-- replay-language:begin -->\n| language |" in out
    assert out.endswith("<!-- replay-language:end -->\nend\n")
    assert "old" not in out
    assert rewrite_readme(out, REPLAYS) == out


def test_readme_without_markers_is_an_error_not_a_silent_skip():
    with pytest.raises(ValueError):
        rewrite_readme("<!-- replay:begin -->\n<!-- replay:end -->\n", REPLAYS)


def test_the_corpus_readme_has_both_tables():
    text = (Path(__file__).resolve().parent / "README.md").read_text(encoding="utf-8")
    for marker in ("replay", "replay-language"):
        assert f"<!-- {marker}:begin -->" in text and f"<!-- {marker}:end -->" in text


# one spelling per language, so that the language table never splits a language in two rows
LANGUAGES = frozenset(
    "c cpp css go html ini java javascript json markdown python rust scss shell text toml"
    " tree-sitter-query typescript yaml".split()
)


def test_every_case_names_its_languages_in_one_spelling():
    from tests.replay.corpus import cases

    for case in cases():
        languages = case.meta.get("languages")
        assert languages, case.name
        assert set(languages) <= LANGUAGES, (case.name, languages)
