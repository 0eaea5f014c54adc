"""The Emacs recipe (editors/emacs/llm-patch.el) in a real headless Emacs with eglot, against
the real server: `emacs --batch -l editors/emacs/tests/e2e.el` (the reply mode, eglot's
confirmation, the edit in the buffer and one undo, a modified buffer of another server shared
so the edit lands on its unsaved text, a check right after an apply saying *already applied*
with nothing saved, CRLF files saved with exactly CRLF whether open or not, a delete of a
buffer with unsaved changes losing nothing, the server's message, a pasted snippet going to
the buffer used last), and the recipe byte-compiled with warnings as errors.

Skipped, saying why, without an Emacs whose eglot loads (editors/ci.sh installs Debian's
emacs-nox and elpa-eglot when it can). The server is this interpreter's `python -m
lsp_server`, the package under test.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
EMACS_DIR = REPO / "editors" / "emacs"


def _emacs_with_eglot() -> str | None:
    emacs = shutil.which("emacs")
    if emacs is None:
        return None
    try:
        done = subprocess.run(
            [emacs, "--batch", "--eval", "(require 'eglot)"],
            capture_output=True,
            timeout=60,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    return emacs if done.returncode == 0 else None


EMACS = _emacs_with_eglot()
needs_emacs = pytest.mark.skipif(
    EMACS is None, reason="no Emacs with eglot (apt-get install emacs-nox elpa-eglot)"
)


@needs_emacs
def test_the_recipe_byte_compiles_without_warnings(tmp_path: Path):
    shutil.copy(EMACS_DIR / "llm-patch.el", tmp_path)
    done = subprocess.run(
        [
            EMACS,
            "--batch",
            "--eval",
            "(setq byte-compile-error-on-warn t)",
            "-f",
            "batch-byte-compile",
            "llm-patch.el",
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr


@needs_emacs
def test_the_recipe_end_to_end(tmp_path: Path):
    env = {
        **os.environ,
        "HOME": str(tmp_path),
        "LLM_PATCH_SERVER": json.dumps([sys.executable, "-m", "lsp_server"]),
    }
    done = subprocess.run(
        [EMACS, "--batch", "-l", str(EMACS_DIR / "tests" / "e2e.el")],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    out = done.stdout + done.stderr
    failed = [line for line in out.splitlines() if line.startswith("FAIL")]
    assert done.returncode == 0 and not failed, out
    assert " passed, 0 failed" in out, out
    for name in (
        "a modified buffer eglot gives another server is shared",
        "llm-patch-check after an apply, nothing saved: already applied",
        "CRLF (not open): the saved file has exactly \\r\\n line ends",
        "CRLF (open): the saved file has exactly \\r\\n line ends",
        "delete of an unsaved buffer: nothing lost",
        "typing between the plan and the edit: typed, then the edit refused or placed right",
    ):
        assert f"ok   {name}" in out, out
