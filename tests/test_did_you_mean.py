"""A whole-file block for a path that does not exist, written for a file the workspace has
under another folder (`path/to/sample.txt` for `sample.txt`), is refused naming that file;
a new file that resembles nothing is still created."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lsp_server.cli import run

SAMPLE = "".join(f"setting_{i} = {i}\n" for i in range(12))


def apply(tmp_path: Path, reply: str, capsys: pytest.CaptureFixture[str]) -> tuple[int, dict]:
    (tmp_path / "reply.md").write_text(reply)
    capsys.readouterr()
    code = run(["apply", str(tmp_path / "reply.md"), "--root", str(tmp_path / "root"), "--json"])
    return code, json.loads(capsys.readouterr().out)


@pytest.fixture
def root(tmp_path: Path) -> Path:
    (tmp_path / "root").mkdir()
    (tmp_path / "root" / "sample.txt").write_text(SAMPLE)
    return tmp_path / "root"


def test_a_look_alike_path_is_refused_naming_the_existing_file(tmp_path, root, capsys):
    changed = SAMPLE.replace("setting_3 = 3", "setting_3 = 30")
    code, report = apply(tmp_path, f"path/to/sample.txt\n```\n{changed}```\n", capsys)
    assert code == 1
    error = report["blocks"][0]["error"]
    assert error["code"] == "FILE_NOT_FOUND"
    assert error["details"]["did_you_mean"] == "sample.txt"
    assert "did you mean sample.txt?" in error["message"]
    assert not (root / "path").exists()
    assert (root / "sample.txt").read_text() == SAMPLE


def test_a_new_file_sharing_little_with_its_namesake_is_created(tmp_path, root, capsys):
    other = "".join(f"unrelated_{i} = {i * 3}\n" for i in range(12))
    code, report = apply(tmp_path, f"docs/sample.txt\n```\n{other}```\n", capsys)
    assert code == 0, report
    assert (root / "docs" / "sample.txt").read_text() == other
    assert (root / "sample.txt").read_text() == SAMPLE
