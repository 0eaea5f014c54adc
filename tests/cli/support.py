"""Running the command as a user does: a subprocess, in a folder, with an environment."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def llm_patch(
    *args: str,
    cwd: Path,
    stdin: str | None = None,
    env: dict[str, str] | None = None,
) -> subprocess.CompletedProcess[str]:
    environment = {k: v for k, v in os.environ.items() if k != "NO_COLOR"}
    environment["PYTHONPATH"] = str(REPO)
    environment.update(env or {})
    return subprocess.run(
        [sys.executable, "-m", "lsp_server.cli", *args],
        input=stdin,
        capture_output=True,
        text=True,
        cwd=cwd,
        env=environment,
    )


def put(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    return root


def git_repo(root: Path) -> Path:
    """A folder git would call a repository's top (what `git init` leaves that we read)."""
    (root / ".git").mkdir(parents=True)
    (root / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    return root


def sr(path: str, old: str, new: str) -> str:
    """One SEARCH/REPLACE block for `path`."""
    return f"{path}\n```\n<<<<<<< SEARCH\n{old}=======\n{new}>>>>>>> REPLACE\n```\n"
