"""The options a newcomer reaches for (issue 25): --help, --version, check --dry-run, a
checked --fuzzy-threshold, --strict, --only."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from lsp_server import __version__
from lsp_server.cli import run
from tests.cli.support import llm_patch, put, sr


def test_help_lists_exit_codes_formats_an_example_and_the_docs(tmp_path, capsys):
    assert run(["--help"]) == 0
    text = capsys.readouterr().out
    for words in (
        "exit codes:",
        "0  every block placed",
        "1  a block failed",
        "undo, or a file changed since (named)",
        "2  usage error",
        "SEARCH/REPLACE",
        "*** Begin Patch",
        "unified diffs",
        "example:",
        "llm-patch apply reply.md",
        "https://github.com/llm-patch/llm-patch",
        "undo",
    ):
        assert words in text, words
    assert run(["apply", "--help"]) == 0
    assert "exit codes:" in capsys.readouterr().out


def test_version_comes_from_the_package(capsys):
    assert run(["--version"]) == 0
    assert capsys.readouterr().out.strip() == f"llm-patch {__version__}"


def test_the_version_is_written_in_one_place():
    repo = Path(__file__).resolve().parents[2]
    pyproject = (repo / "pyproject.toml").read_text()
    assert 'dynamic = ["version"]' in pyproject and "\nversion =" not in pyproject


def test_check_accepts_dry_run(tmp_path):
    put(tmp_path, {"a.py": "x = 1\n"})
    r = llm_patch("check", "--dry-run", "-", cwd=tmp_path, stdin=sr("a.py", "x = 1\n", "x = 2\n"))
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "a.py").read_text() == "x = 1\n"


@pytest.mark.parametrize("joined", [True, False])  # `--fuzzy-threshold=2`, `--fuzzy-threshold 2`
@pytest.mark.parametrize("value", ["2", "-1", "0", "nan", "1.01", "abc"])
def test_a_fuzzy_threshold_outside_0_1_is_a_usage_error(tmp_path, value, joined):
    put(tmp_path, {"a.py": "x = 1\n"})
    option = [f"--fuzzy-threshold={value}"] if joined else ["--fuzzy-threshold", value]
    r = llm_patch("check", "-", *option, cwd=tmp_path, stdin=sr("a.py", "x = 1\n", "x = 2\n"))
    assert r.returncode == 2
    assert "wants a number in (0, 1]" in r.stderr


@pytest.mark.parametrize("value", ["1", "0.5", "0.95"])
def test_a_fuzzy_threshold_inside_is_taken(tmp_path, value):
    put(tmp_path, {"a.py": "x = 1\n"})
    r = llm_patch(
        "check",
        "-",
        "--fuzzy-threshold",
        value,
        cwd=tmp_path,
        stdin=sr("a.py", "x = 1\n", "x = 2\n"),
    )
    assert r.returncode == 0


BREAKS = sr("a.py", "y = 2\n", "y = (2\n") + sr("b.py", "z = 1\n", "z = 3\n")


def test_a_syntax_breaking_edit_is_written_with_a_warning_that_names_strict(tmp_path):
    put(tmp_path, {"a.py": "y = 2\n", "b.py": "z = 1\n"})
    report = json.loads(llm_patch("check", "-", "--json", cwd=tmp_path, stdin=BREAKS).stdout)
    (warning,) = report["warnings"]
    assert warning["type"] == "SYNTAX_BROKEN" and "--strict refuses" in warning["hint"]
    r = llm_patch("apply", "-", cwd=tmp_path, stdin=BREAKS)
    assert r.returncode == 0
    assert "! SYNTAX_BROKEN: a.py has syntax errors after the patch" in r.stdout
    assert "--strict refuses an edit that breaks its file's syntax" in r.stdout
    assert (tmp_path / "a.py").read_text() == "y = (2\n"


def test_strict_refuses_a_syntax_breaking_edit_and_writes_nothing(tmp_path):
    put(tmp_path, {"a.py": "y = 2\n", "b.py": "z = 1\n"})
    r = llm_patch("apply", "-", "--strict", cwd=tmp_path, stdin=BREAKS)
    assert r.returncode == 1, r.stdout
    assert "✗ block 1 a.py (reply lines 1-8): SYNTAX_BROKEN" in r.stdout
    assert "refused (--strict; without it the file is written" in r.stdout
    assert "nothing was written" in r.stdout
    assert "! SYNTAX_BROKEN" not in r.stdout  # said once, at the block: nothing to check
    assert (tmp_path / "a.py").read_text() == "y = 2\n"
    assert (tmp_path / "b.py").read_text() == "z = 1\n"
    report = json.loads(
        llm_patch("check", "-", "--strict", "--json", cwd=tmp_path, stdin=BREAKS).stdout
    )
    assert report["ok"] is False
    assert report["blocks"][0]["error"]["code"] == "SYNTAX_BROKEN"
    assert report["files"] == []  # held back like any block beside a failure
    assert report["blocks"][1]["status"] == "skipped"
    assert all(w["type"] != "SYNTAX_BROKEN" for w in report["warnings"])
    assert "SYNTAX_BROKEN" not in "".join(report["problems"][1:])  # one line: the block's


def test_strict_with_partial_writes_the_files_that_parse(tmp_path):
    put(tmp_path, {"a.py": "y = 2\n", "b.py": "z = 1\n"})
    r = llm_patch("apply", "-", "--strict", "--partial", cwd=tmp_path, stdin=BREAKS)
    assert r.returncode == 1
    assert (tmp_path / "a.py").read_text() == "y = 2\n"
    assert (tmp_path / "b.py").read_text() == "z = 3\n"


THREE = (
    sr("a.py", "a = 1\n", "a = 2\n")
    + sr("b.py", "b = 1\n", "b = 2\n")
    + sr("c.py", "c = 1\n", "c = 2\n")
)


def test_only_applies_the_chosen_blocks(tmp_path):
    put(tmp_path, {"a.py": "a = 1\n", "b.py": "b = 1\n", "c.py": "c = 1\n"})
    r = llm_patch("apply", "-", "--only", "1,3", cwd=tmp_path, stdin=THREE)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "only blocks 1, 3 of the reply's 3" in r.stdout
    assert "✓ block 1 a.py" in r.stdout and "✓ block 3 c.py" in r.stdout
    assert "block 2" not in r.stdout
    texts = [(tmp_path / n).read_text() for n in ("a.py", "b.py", "c.py")]
    assert texts == ["a = 2\n", "b = 1\n", "c = 2\n"]


def test_only_is_atomic_over_the_chosen_blocks(tmp_path):
    put(tmp_path, {"a.py": "a = 1\n", "b.py": "b = 9\n", "c.py": "c = 1\n"})
    r = llm_patch("apply", "-", "--only", "1-2", "--json", cwd=tmp_path, stdin=THREE)
    assert r.returncode == 1
    report = json.loads(r.stdout)
    assert [b["index"] for b in report["blocks"]] == [0, 1] and report["only"] == [0, 1]
    assert (tmp_path / "a.py").read_text() == "a = 1\n"


@pytest.mark.parametrize(
    "value, words",
    [
        ("4", "the reply has 3 blocks"),
        ("0", "count from 1"),
        ("x", "block numbers"),
        ("3-2", "a range goes from the lower number to the higher (2-3)"),
    ],
)
def test_only_names_blocks_the_reply_has(tmp_path, value, words):
    put(tmp_path, {"a.py": "a = 1\n", "b.py": "b = 1\n", "c.py": "c = 1\n"})
    r = llm_patch("apply", "-", "--only", value, cwd=tmp_path, stdin=THREE)
    assert r.returncode == 2
    assert words in r.stderr
    assert (tmp_path / "a.py").read_text() == "a = 1\n"


def _synopsis(doc: str) -> dict[str, str]:
    """The command line's synopsis in a document, per subcommand (its continuation lines
    with it)."""
    text = (Path(__file__).resolve().parents[2] / doc).read_text()
    start = text.index("```\nllm-patch apply REPLY|-") + 4
    block = text[start : text.index("```", start)]
    out: dict[str, str] = {}
    command = None
    for line in block.splitlines():
        if line.startswith("llm-patch "):
            command = line.split()[1]
        out[command] = out.get(command, "") + line + "\n"
    return out


@pytest.mark.parametrize("doc", ["README.md", "docs/design.md"])
@pytest.mark.parametrize("command", ["apply", "check", "undo", "recover", "serve"])
def test_the_synopses_name_every_option(doc, command):
    """README's and docs/design.md's synopses are what a newcomer reads first: each option
    the parser takes is in them, and none they name is missing from the parser."""
    import argparse

    from lsp_server.cli.args import parser

    top = parser(command)
    sub = next(a for a in top._actions if isinstance(a, argparse._SubParsersAction))
    options = {
        s
        for action in sub.choices[command]._actions
        for s in action.option_strings
        if s.startswith("--") and s != "--help"
    }
    shown = _synopsis(doc)[command]
    assert {o for o in options if o not in shown} == set(), shown
    named = set(re.findall(r"--[a-z][a-z-]*", shown.split("#")[0]))
    assert named <= options, named - options
