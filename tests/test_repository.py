"""The repository itself: no unresolved merge left in a tracked file, and docs whose
commands run as written.

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


# the pages a newcomer follows; benchmarks/README.md says once, under its commands, which
# python runs them
_NEWCOMER_DOCS = (
    "README.md",
    "SECURITY.md",
    "docs",
    "editors/README.md",
    "fuzz/README.md",
    "tests/replay/README.md",
)
# the repository's own modules and scripts run by a bare `python` or `pytest`, which is not
# the one the quick start installed into (`.venv/bin/...` has a `/` before the name)
_BARE_RUN = re.compile(
    r"(?:^|[`\s(])(?:python3?\s+(?:-m\s+(?:fuzz|benchmarks|tests)\.|fuzz/|benchmarks/)"
    r"|pytest\s+tests\b)",
    re.M,
)


def _pages() -> list[Path]:
    out = []
    for name in _NEWCOMER_DOCS:
        path = ROOT / name
        out += sorted(path.glob("*.md")) if path.is_dir() else [path]
    return out


def test_the_docs_run_the_repositorys_modules_with_the_venvs_python() -> None:
    """`python -m fuzz.crash_loop` on a fresh machine is another Python, without the
    package or hypothesis: each command says `.venv/bin/python` (as the quick start made)."""
    found = []
    for path in _pages():
        text = path.read_text(encoding="utf-8")
        for m in _BARE_RUN.finditer(text):
            line = text.count("\n", 0, m.start()) + 1
            found.append(f"{path.relative_to(ROOT)}:{line}: {m.group(0).strip()}")
    assert not found, "\n".join(found)


def test_the_docs_never_install_llm_patch_from_a_package_index() -> None:
    """It is not published: `pip install llm-patch` finds nothing (or someone else's)."""
    found = []
    for path in _pages() + [ROOT / "editors" / "vscode" / "README.md"]:
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if re.search(r"\b(pip|pipx|uv tool) install (-U )?llm-patch\b", line):
                if "not published" not in line:
                    found.append(f"{path.relative_to(ROOT)}:{n}: {line.strip()}")
    assert not found, "\n".join(found)
