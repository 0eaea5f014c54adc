"""Issue 13, the parser's side: replies written wrong are refused (never written as a file),
and replies written loosely but plainly are placed.

Each repro runs the command line in-process (`llm-patch apply reply.md --root ROOT --json`)
against a small tree, and looks at the report and at the bytes on disk.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lsp_server.cli import run
from lsp_server.model import Action, ErrorCode, Format
from lsp_server.reply import parse_reply

FILE_TXT = "line1\nline2\nline3\n"


def apply(
    tmp_path: Path, reply: str, files: dict[str, str], capsys: pytest.CaptureFixture[str]
) -> tuple[int, dict, Path]:
    """Write `files` under a fresh root, apply `reply` to it; (exit code, report, root)."""
    root = tmp_path / "root"
    root.mkdir()
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    reply_path = tmp_path / "reply.md"
    reply_path.write_text(reply)
    capsys.readouterr()
    code = run(["apply", str(reply_path), "--root", str(root), "--json"])
    return code, json.loads(capsys.readouterr().out), root


def malformed(report: dict) -> list[dict]:
    return [
        b["error"]
        for b in report["blocks"]
        if b["status"] == "failed" and b["error"]["code"] == "MALFORMED_BLOCK"
    ]


# --- wrong write 1: a block with markers the parser does not know became the whole file -------

UNKNOWN_SPELLINGS = {
    "broken": ("<<-- SEARCH", "=======", ">>>>>>> REPLACE"),
    "mixed runs": ("<<<--- SEARCH", "=======", ">>>>>>> REPLACE"),
}
# Cline's spellings, unknown when issue 13 was written, are read since issue 15
CLINE_SPELLINGS = {
    "cline": ("------- SEARCH", "=======", "+++++++ REPLACE"),
    "eleven": ("<<<<<<<<<<< SEARCH", "=======", ">>>>>>> REPLACE"),
}


@pytest.mark.parametrize("name", sorted(CLINE_SPELLINGS))
def test_clines_marker_spellings_are_read(tmp_path, capsys, name):
    start, divider, end = CLINE_SPELLINGS[name]
    reply = f"file.txt\n```\n{start}\nline2\n{divider}\nreplaced\n{end}\n```\n"
    code, report, root = apply(tmp_path, reply, {"file.txt": FILE_TXT}, capsys)
    assert code == 0, report
    assert (root / "file.txt").read_text() == "line1\nreplaced\nline3\n"
    assert report["blocks"][0]["format"] == "cline"


@pytest.mark.parametrize("name", sorted(UNKNOWN_SPELLINGS))
def test_unknown_marker_spellings_are_refused_not_written(tmp_path, capsys, name):
    start, divider, end = UNKNOWN_SPELLINGS[name]
    reply = f"file.txt\n```\n{start}\nline2\n{divider}\nreplaced\n{end}\n```\n"
    code, report, root = apply(tmp_path, reply, {"file.txt": FILE_TXT}, capsys)
    assert code == 1 and not report["ok"]
    assert (root / "file.txt").read_text() == FILE_TXT
    (error,) = malformed(report)
    assert error["details"]["line"] == 3 and error["details"]["text"] == start
    assert f"reply line 3: `{start}`" in error["message"]
    assert report["blocks"][0]["format"] != "whole-file"


def test_the_same_block_under_a_valid_one_in_one_fence_is_refused_too(tmp_path, capsys):
    reply = (
        "file.txt\n```\n"
        "<<<<<<< SEARCH\nline1\n=======\nfirst\n>>>>>>> REPLACE\n"  # 3-7: well-formed
        "<<-- SEARCH\nline2\n=======\nreplaced\n>>>>>>> REPLACE\n"  # 8-12: unknown
        "```\n"
    )
    code, report, root = apply(tmp_path, reply, {"file.txt": FILE_TXT}, capsys)
    assert code == 1 and (root / "file.txt").read_text() == FILE_TXT
    good, bad = report["blocks"]
    assert good["status"] == "skipped" and good["format"] == "search-replace"
    assert bad["status"] == "failed" and bad["reply_lines"] == [8, 12]
    assert bad["path"] == "file.txt"
    assert bad["error"]["details"]["line"] == 8
    assert bad["error"]["details"]["text"] == "<<-- SEARCH"


def test_a_fence_without_a_path_holding_a_block_is_refused_not_ignored(tmp_path, capsys):
    reply = "Change it like this:\n```\n------- SEARCH\nline2\n=======\nx\n+++++++ REPLACE\n```\n"
    parsed = parse_reply(reply)
    assert parsed.failure is None
    (b,) = parsed.blocks
    assert b.path is None and b.hunks  # a block: the plan chooses its file (`--file`)
    code, report, root = apply(tmp_path, reply, {"file.txt": FILE_TXT}, capsys)
    assert code == 1 and "--file PATH" in report["blocks"][0]["error"]["message"]
    assert (root / "file.txt").read_text() == FILE_TXT


def test_a_merge_conflict_shown_as_an_example_is_not_an_edit(tmp_path, capsys):
    reply = (
        "Your file has a conflict:\n```\n<<<<<<< HEAD\na\n=======\nb\n>>>>>>> main\n```\n"
        "Fix it:\n\nfile.txt\n```\n<<<<<<< SEARCH\nline2\n=======\nfixed\n>>>>>>> REPLACE\n```\n"
    )
    code, report, root = apply(tmp_path, reply, {"file.txt": FILE_TXT}, capsys)
    assert code == 0, report
    assert (root / "file.txt").read_text() == "line1\nfixed\nline3\n"


@pytest.mark.parametrize(
    "line",
    [
        "<<<<<<< HEAD",
        ">>>>>>> feature",
        "=======",
        "==== REPLACE",
        ">>>> EDIT END",
        "*** End Patch",
        "*** Update File: a.py",
        "diff --git a/a.py b/a.py",
        "@@ -1,3 +1,3 @@",
        "--- a/a.py",
    ],
)
def test_a_whole_file_with_any_marker_shaped_line_is_refused(tmp_path, capsys, line):
    reply = f"a.py\n```python\nx = 1\n    {line}\ny = 2\n```\n"
    code, report, root = apply(tmp_path, reply, {"a.py": "x = 0\n"}, capsys)
    assert code == 1 and (root / "a.py").read_text() == "x = 0\n"
    (error,) = malformed(report)
    assert error["details"]["line"] == 4 and error["details"]["text"] == line


def test_a_markdown_heading_underline_is_not_a_divider(tmp_path, capsys):
    text = "Title\n=======\n\nSome text.\n"
    for k, name in enumerate(("README.md", "docs/index.rst")):
        (tmp_path / str(k)).mkdir()
        reply = f"{name}\n```\n{text}```\n"
        code, report, root = apply(tmp_path / str(k), reply, {}, capsys)
        assert code == 0, report
        assert (root / name).read_text() == text


def test_a_structural_body_with_a_marker_is_refused(tmp_path, capsys):
    reply = (
        "```python\n# FILE: a.py\n# TARGET_NODE: def f\n"
        "def f():\n+++++++ REPLACE\n    return 2\n```\n"
    )
    code, report, root = apply(tmp_path, reply, {"a.py": "def f():\n    return 1\n"}, capsys)
    assert code == 1 and (root / "a.py").read_text() == "def f():\n    return 1\n"
    (error,) = malformed(report)
    assert error["details"]["line"] == 5


@pytest.mark.parametrize("marker", ["+++++++ REPLACE", "<<<<<<<<<<< SEARCH", "<<<<<<< HEAD"])
def test_a_replace_section_never_writes_a_marker_line(tmp_path, capsys, marker):
    reply = (
        "file.txt\n```\n<<<<<<< SEARCH\nline2\n=======\n"
        f"replaced\n{marker}\nmore\n>>>>>>> REPLACE\n```\n"
    )
    code, report, root = apply(tmp_path, reply, {"file.txt": FILE_TXT}, capsys)
    assert code == 1 and (root / "file.txt").read_text() == FILE_TXT
    (error,) = malformed(report)
    assert error["details"]["line"] == 7 and error["details"]["text"] == marker


def test_an_edit_block_adding_a_divider_to_a_python_file_is_refused_but_not_to_markdown():
    body = "<<<< EDIT\nTitle\n==== REPLACE\nTitle\n=======\n>>>> EDIT END"
    (b,) = parse_reply(f"a.py\n{body}\n").blocks
    assert b.error is not None and b.error.details["line"] == 6
    (b,) = parse_reply(f"README.md\n{body}\n").blocks
    assert b.error is None and b.hunks[0].new == "Title\n=======\n"


def test_a_diff_may_add_marker_lines_it_spells_out(tmp_path, capsys):
    # a `+` line says exactly what it adds: a test fixture holding markers is a fine edit
    reply = (
        "```diff\n--- a/fixture.txt\n+++ b/fixture.txt\n@@ -1,1 +1,2 @@\n a\n+<<<<<<< SEARCH\n```\n"
    )
    code, report, root = apply(tmp_path, reply, {"fixture.txt": "a\n"}, capsys)
    assert code == 0, report
    assert (root / "fixture.txt").read_text() == "a\n<<<<<<< SEARCH\n"


# --- an empty line between the opening fence and `<<<<<<< SEARCH` hid the path -----------------


@pytest.mark.parametrize(
    "head",
    [
        "src/a.py\n```python\n\n",  # the repro
        "src/a.py\n\n```python\n\n\n",
        "src/a.py\n\n",
        "```python\nsrc/a.py\n\n",
    ],
)
def test_blank_lines_between_the_path_the_fence_and_the_marker(tmp_path, capsys, head):
    reply = f"{head}<<<<<<< SEARCH\nx = 1\n=======\nx = 10\n>>>>>>> REPLACE\n```\n"
    if not head.startswith("src/a.py\n```") and "```" not in head:
        reply = reply.removesuffix("```\n")
    code, report, root = apply(tmp_path, reply, {"src/a.py": "x = 1\ny = 2\n"}, capsys)
    assert code == 0, report
    assert (root / "src" / "a.py").read_text() == "x = 10\ny = 2\n"
    assert report["blocks"][0]["reply_lines"][0] == 1


def test_blank_lines_do_not_reach_past_prose_or_the_previous_block():
    (b,) = parse_reply("Here is the fix\n\n<<<<<<< SEARCH\nx\n=======\ny\n>>>>>>> REPLACE\n").blocks
    assert b.path is None and b.candidates == ()  # `--file`, or refused: see test_pathless
    first, second = parse_reply(
        "a.py\n<<<<<<< SEARCH\nx\n=======\ny\n>>>>>>> REPLACE\n\n\n"
        "<<<<<<< SEARCH\nu\n=======\nv\n>>>>>>> REPLACE\n"
    ).blocks
    assert (first.path, second.path) == ("a.py", "a.py")  # reused, as before


# --- one hunk that changes nothing made the whole diff fail ------------------------------------


def test_a_context_only_hunk_is_skipped_and_the_rest_placed(tmp_path, capsys):
    text = "a = 1\nb = 2\nc = 3\nd = 4\ne = 5\n"
    reply = (
        "```diff\n--- a/m.py\n+++ b/m.py\n"
        "@@ -1,2 +1,2 @@\n a = 1\n b = 2\n"  # context only
        "@@ -4,2 +4,2 @@\n-d = 4\n+d = 40\n e = 5\n```\n"
    )
    code, report, root = apply(tmp_path, reply, {"m.py": text}, capsys)
    assert code == 0, report
    assert (root / "m.py").read_text() == text.replace("d = 4", "d = 40")
    (warning,) = [w for w in report["warnings"] if w["type"] == "HUNK_SKIPPED"]
    assert warning["path"] == "m.py" and "reply line 4" in warning["message"]


def test_a_context_only_hunk_that_matches_nothing_is_still_skipped():
    (b,) = parse_reply(
        "--- a/m.py\n+++ b/m.py\n@@ -1,1 +1,1 @@\n not in the file\n"
        "@@ -4,1 +4,1 @@\n-d = 4\n+d = 40\n"
    ).blocks
    assert b.error is None and [h.old for h in b.hunks] == ["d = 4\n"]


def test_a_diff_whose_every_hunk_is_context_only_is_still_refused():
    (b,) = parse_reply("--- a/m.py\n+++ b/m.py\n@@ -1,1 +1,1 @@\n a\n@@ -5 +5 @@\n e\n").blocks
    assert b.error is not None and b.error.code is ErrorCode.MALFORMED_BLOCK
    assert "none of its 2 hunks" in b.error.message and "line 3" in b.error.message


def test_a_rename_with_a_context_only_hunk_is_a_rename():
    (b,) = parse_reply(
        "diff --git a/old.py b/new.py\nrename from old.py\nrename to new.py\n"
        "--- a/old.py\n+++ b/new.py\n@@ -1,1 +1,1 @@\n a\n"
    ).blocks
    assert b.error is None and (b.path, b.move_to, b.hunks) == ("old.py", "new.py", ())
    assert b.format is Format.UNIFIED_DIFF and b.action is Action.MODIFY
