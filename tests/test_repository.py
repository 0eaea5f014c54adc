"""The repository itself: no unresolved merge left in a tracked file.

A merge conflict once landed in README.md (the tests passed; the quick start did not read).
Edit markers in examples and test data spell SEARCH / REPLACE; a conflict names a branch.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
_TEXT = {".md", ".py", ".lua", ".ts", ".json", ".toml", ".txt", ".el", ".vim"}
# real model replies kept as test data: aider's early edit markers (`<<<<<<< ORIGINAL` /
# `>>>>>>> UPDATED`, `<<<<<<< HEAD` / `>>>>>>> updated`) are what they quote, not a merge
_DATA = ("tests/replay/cases/",)
_CONFLICT = re.compile(r"^(<<<<<<< (?!SEARCH\b)\S+|>>>>>>> (?!REPLACE\b)\S+)\s*$", re.M)


def _tracked() -> list[Path]:
    try:
        out = subprocess.run(
            ["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True
        ).stdout
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("not a git checkout")
    return [ROOT / name for name in out.decode().split("\0") if name]


def test_no_merge_conflict_markers_in_tracked_files() -> None:
    found = []
    for path in _tracked():
        if path.suffix not in _TEXT or path.relative_to(ROOT).as_posix().startswith(_DATA):
            continue
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        found += [f"{path.relative_to(ROOT)}: {m.group(0)}" for m in _CONFLICT.finditer(text)]
    assert not found, "unresolved merge:\n" + "\n".join(found)
