"""Codex's apply_patch scenarios (../shared/conformance/codex-apply-patch/).

Two layers: every scenario's patch.txt parses into exactly the blocks we expect, and every
scenario run through the CLI (`llm-patch apply --root <copy of input/> patch.txt`) leaves
the tree byte-for-byte equal to expected/, directories included, as upstream's harness
checks. Scenario 015 expects Codex's non-atomic result, which is ours only with --partial.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from lsp_server.model import Action, ErrorCode, Format, Hunk, HunkKind, OnExists
from lsp_server.reply.apply_patch import find_blocks

from .corpus import CORPORA, missing, working_copy

CORPUS = CORPORA / "codex-apply-patch"

PARTIAL = {"015_failure_after_partial_success_leaves_changes"}


def _scenarios() -> list:
    if not CORPUS.is_dir():  # one skipped case that says how to fetch the corpus
        return [pytest.param("-", marks=pytest.mark.skip(reason=missing("the Codex corpus")))]
    return sorted(p.name for p in CORPUS.iterdir() if p.is_dir())


def _corpus_or_skip() -> None:
    if not CORPUS.is_dir():
        pytest.skip(missing("the Codex apply_patch corpus"))


def _parse(name: str):
    lines = (CORPUS / name / "patch.txt").read_text(encoding="utf-8").split("\n")
    return find_blocks(lines)


def test_corpus_has_all_scenarios():
    _corpus_or_skip()
    assert len(_scenarios()) == 23


# ---------------------------------------------------------------------------------------
# parser level: (path, action, move_to, content, hunks, error code)

M, C, D = Action.MODIFY, Action.CREATE, Action.DELETE


def _h(old: str, new: str, **kw) -> Hunk:
    return Hunk(old, new, **kw)


EXPECTED_BLOCKS: dict[str, list[tuple]] = {
    "001_add_file": [("bar.md", C, None, "This is a new file\n", (), None)],
    "002_multiple_operations": [
        ("nested/new.txt", C, None, "created\n", (), None),
        ("delete.txt", D, None, None, (), None),
        ("modify.txt", M, None, None, (_h("line2\n", "changed\n"),), None),
    ],
    "003_multiple_chunks": [
        (
            "multi.txt",
            M,
            None,
            None,
            (_h("line2\n", "changed2\n"), _h("line4\n", "changed4\n")),
            None,
        )
    ],
    "004_move_to_new_directory": [
        (
            "old/name.txt",
            M,
            "renamed/dir/name.txt",
            None,
            (_h("old content\n", "new content\n"),),
            None,
        )
    ],
    "005_rejects_empty_patch": [(None, M, None, None, (), ErrorCode.MALFORMED_BLOCK)],
    "006_rejects_missing_context": [
        ("modify.txt", M, None, None, (_h("missing\n", "changed\n"),), None)
    ],
    "007_rejects_missing_file_delete": [("missing.txt", D, None, None, (), None)],
    "008_rejects_empty_update_hunk": [("foo.txt", M, None, None, (), ErrorCode.MALFORMED_BLOCK)],
    "009_requires_existing_file_for_update": [
        ("missing.txt", M, None, None, (_h("old\n", "new\n"),), None)
    ],
    "010_move_overwrites_existing_destination": [
        ("old/name.txt", M, "renamed/dir/name.txt", None, (_h("from\n", "new\n"),), None)
    ],
    "011_add_overwrites_existing_file": [("duplicate.txt", C, None, "new content\n", (), None)],
    "012_delete_directory_fails": [("dir", D, None, None, (), None)],
    "013_rejects_invalid_hunk_header": [(None, M, None, None, (), ErrorCode.MALFORMED_BLOCK)],
    "014_update_file_appends_trailing_newline": [
        (
            "no_newline.txt",
            M,
            None,
            None,
            (_h("no newline at end\n", "first line\nsecond line\n"),),
            None,
        )
    ],
    "015_failure_after_partial_success_leaves_changes": [
        ("created.txt", C, None, "hello\n", (), None),
        ("missing.txt", M, None, None, (_h("old\n", "new\n"),), None),
    ],
    "016_pure_addition_update_chunk": [
        (
            "input.txt",
            M,
            None,
            None,
            (_h("", "added line 1\nadded line 2\n", kind=HunkKind.APPEND_EOF),),
            None,
        )
    ],
    "017_whitespace_padded_hunk_header": [
        ("foo.txt", M, None, None, (_h("old\n", "new\n"),), None)
    ],
    "018_whitespace_padded_patch_markers": [
        ("file.txt", M, None, None, (_h("one\n", "two\n"),), None)
    ],
    "019_unicode_simple": [
        (
            "foo.txt",
            M,
            None,
            None,
            (_h("line1\nnaïve café\n", "line1\nnaïve café ✅\n"),),
            None,
        )
    ],
    "020_delete_file_success": [("obsolete.txt", D, None, None, (), None)],
    "020_whitespace_padded_patch_marker_lines": [
        ("file.txt", M, None, None, (_h("one\n", "two\n"),), None)
    ],
    "021_update_file_deletion_only": [
        ("lines.txt", M, None, None, (_h("line1\nline2\nline3\n", "line1\nline3\n"),), None)
    ],
    "022_update_file_end_of_file_marker": [
        (
            "tail.txt",
            M,
            None,
            None,
            (_h("first\nsecond\n", "first\nsecond updated\n", at_eof=True),),
            None,
        )
    ],
}


def test_every_scenario_has_an_expectation():
    _corpus_or_skip()
    assert sorted(EXPECTED_BLOCKS) == _scenarios()


@pytest.mark.parametrize("name", sorted(EXPECTED_BLOCKS))
def test_scenario_parses_to_expected_blocks(name):
    _corpus_or_skip()
    blocks = _parse(name)
    got = [
        (b.path, b.action, b.move_to, b.content, b.hunks, b.error.code if b.error else None)
        for b in blocks
    ]
    assert got == EXPECTED_BLOCKS[name]
    n_lines = len(
        (CORPUS / name / "patch.txt").read_text(encoding="utf-8").rstrip("\n").split("\n")
    )
    assert all(b.format is Format.APPLY_PATCH for b in blocks)
    # the blocks tile the patch: the first covers Begin Patch, the last End Patch
    assert blocks[0].reply_lines[0] == 1
    assert blocks[-1].reply_lines[1] == n_lines
    for before, after in zip(blocks, blocks[1:], strict=False):
        assert before.reply_lines[1] < after.reply_lines[0]
    for b in blocks:
        if b.action is Action.CREATE:
            assert b.on_exists is OnExists.OVERWRITE  # Codex's Add File replaces (011)


def test_parse_errors_name_the_line_and_what_was_expected():
    _corpus_or_skip()
    (empty,) = _parse("005_rejects_empty_patch")
    assert "no file operations" in empty.error.message
    (update,) = _parse("008_rejects_empty_update_hunk")
    assert "line 2" in update.error.message and "@@" in update.error.message
    assert not update.error.details.get("incomplete")
    (bad,) = _parse("013_rejects_invalid_hunk_header")
    assert "line 2" in bad.error.message and "Frobnicate" in bad.error.message


# ---------------------------------------------------------------------------------------
# end to end through the CLI


def _snapshot(root: Path) -> dict[str, str | bytes]:
    out: dict[str, str | bytes] = {}
    if not root.is_dir():
        return out
    for p in sorted(root.rglob("*")):
        rel = p.relative_to(root).as_posix()
        out[rel] = "dir" if p.is_dir() else p.read_bytes()
    return out


@pytest.mark.parametrize("name", _scenarios())
def test_scenario_through_cli(name, tmp_path):
    _corpus_or_skip()
    scenario = CORPUS / name
    work = tmp_path / "work"
    if (scenario / "input").is_dir():
        working_copy(scenario / "input", work)
    else:
        work.mkdir()
    cmd = [sys.executable, "-m", "lsp_server.cli", "apply", "--root", str(work)]
    if name in PARTIAL:
        cmd.append("--partial")
    cmd.append(str(scenario / "patch.txt"))
    # like upstream's harness: the exit status does not matter, only the resulting tree
    subprocess.run(cmd, cwd=tmp_path, capture_output=True, timeout=120, check=False)
    assert _snapshot(work) == _snapshot(scenario / "expected")
