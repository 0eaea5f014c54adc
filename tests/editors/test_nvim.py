"""The Neovim plugin (editors/nvim) in real headless Neovims, against the real server.

Each Neovim >= 0.10 found runs the Lua scripts: `unit.lua` (the server's words shown, command
definitions; no server), `e2e.lua` (one server however fast files open, a reply in the
clipboard register, `:LlmPatchApply`, the buffers' new text, one `u` to undo, a failing
block's diagnostic, the preview split), `safety.lua` (no edit at shifted positions, no
unsaved work lost, file operations confirmed), `files.lua` (created, moved and deleted files
undone without touching the user's later work, nothing written the user did not write, CRLF
files kept CRLF, unsaved work a delete or move would take asked about) and `tools.lua`
(review, undo, health, help, lenses, quickfix, statusline, untitled replies, the caller's
target).
The server is this interpreter's `python -m lsp_server`, the package under test.

Neovims come from `editors/scripts/install-neovim.sh` (run by editors/ci.sh): 0.11 from PyPI,
0.10 from Debian trixie in a private root. `LLM_PATCH_NVIM` (paths joined by os.pathsep)
adds others; an `nvim` on PATH counts when it is new enough.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
TESTS = REPO / "editors" / "nvim" / "tests"
TOOLS = Path(os.environ.get("LLM_PATCH_EDITOR_TOOLS", Path.home() / ".cache" / "llm-patch-editors"))
MIN_VERSION = (0, 10)


def _version(nvim: str) -> tuple[int, int, int] | None:
    try:
        out = subprocess.run(
            [nvim, "--version"], capture_output=True, text=True, timeout=30, check=False
        ).stdout
    except (OSError, subprocess.TimeoutExpired):
        return None
    m = re.search(r"NVIM v(\d+)\.(\d+)\.(\d+)", out)
    return (int(m[1]), int(m[2]), int(m[3])) if m else None


def _find_nvims() -> dict[str, str]:
    """Version string → executable, one per version, newest first."""
    candidates = [p for p in os.environ.get("LLM_PATCH_NVIM", "").split(os.pathsep) if p]
    candidates += sorted(str(p) for p in (TOOLS / "bin").glob("nvim-*"))
    on_path = shutil.which("nvim")
    if on_path:
        candidates.append(on_path)
    found: dict[tuple[int, int, int], str] = {}
    for nvim in candidates:
        version = _version(nvim)
        if version and version[:2] >= MIN_VERSION:
            found.setdefault(version, nvim)
    return {".".join(map(str, v)): found[v] for v in sorted(found, reverse=True)}


NVIMS = _find_nvims()
NO_NVIM = (
    "no Neovim >= 0.10 found: run editors/scripts/install-neovim.sh (editors/ci.sh does) "
    "or set LLM_PATCH_NVIM"
)


def _run(nvim: str, script: Path, tmp_path: Path, timeout: int) -> subprocess.CompletedProcess:
    env = dict(os.environ)
    # A private home for Neovim's state (LSP log, shada), so runs neither read nor litter ~.
    for var in ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME"):
        env[var] = str(tmp_path / var.lower())
    env["TMPDIR"] = str(tmp_path)
    env.setdefault("LLM_PATCH_SERVER", json.dumps([sys.executable, "-m", "lsp_server"]))
    return subprocess.run(
        [nvim, "--headless", "--clean", "-l", str(script)],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=env,
        cwd=tmp_path,
        check=False,
    )


def _assert_passed(proc: subprocess.CompletedProcess) -> None:
    output = proc.stdout + proc.stderr
    failed = [line for line in output.splitlines() if line.startswith("FAIL")]
    summary = re.search(r"^(\d+) passed, (\d+) failed$", proc.stdout, re.MULTILINE)
    assert proc.returncode == 0 and not failed and summary, output
    assert int(summary[1]) > 0 and summary[2] == "0", output


@pytest.mark.skipif(not NVIMS, reason=NO_NVIM)
@pytest.mark.parametrize("version", list(NVIMS) or ["none"])
def test_plugin_unit(version: str, tmp_path: Path) -> None:
    _assert_passed(_run(NVIMS[version], TESTS / "unit.lua", tmp_path, timeout=60))


@pytest.mark.skipif(not NVIMS, reason=NO_NVIM)
@pytest.mark.parametrize("version", list(NVIMS) or ["none"])
def test_plugin_end_to_end_with_real_server(version: str, tmp_path: Path) -> None:
    proc = _run(NVIMS[version], TESTS / "e2e.lua", tmp_path, timeout=240)
    _assert_passed(proc)
    # The checks that matter most, named so a silent skip inside the script would show.
    _assert_checked(
        proc,
        "one server: one `llm-patch serve` process",
        "apply: the open buffer has the patch and keeps the unsaved note",
        "undo: one u reverts the whole patch of the open buffer, keeping the note",
        "undo: one u reverts the whole patch of the loaded buffer",
        "failing block: a TEXT_NOT_FOUND diagnostic on the reply buffer",
    )


@pytest.mark.skipif(not NVIMS, reason=NO_NVIM)
@pytest.mark.parametrize("version", list(NVIMS) or ["none"])
def test_plugin_never_corrupts_or_loses_work(version: str, tmp_path: Path) -> None:
    proc = _run(NVIMS[version], TESTS / "safety.lua", tmp_path, timeout=240)
    _assert_passed(proc)
    _assert_checked(
        proc,
        "code action after typing: the edit lands on the right line",
        "version 0 of a changed buffer: refused",
        "a stale second document: the whole edit refused",
        "unsaved buffer without filetype: the edit lands on its unsaved text",
        "delete an unsaved file: refused",
        "a delete of an unsaved buffer reaching the editor: refused naming it",
        "delete: asked first, naming the file",
        "delete an unsaved file: asked first, naming the file",
        "new file: it can be written (its directory exists)",
    )


@pytest.mark.skipif(not NVIMS, reason=NO_NVIM)
@pytest.mark.parametrize("version", list(NVIMS) or ["none"])
def test_plugin_conveniences(version: str, tmp_path: Path) -> None:
    proc = _run(NVIMS[version], TESTS / "tools.lua", tmp_path, timeout=240)
    _assert_passed(proc)
    _assert_checked(
        proc,
        "near-miss preview: the split opens with the diff split into lines",
        "review: applying the accepted block only",
        ":LlmPatchUndo: every file of the patch restored",
        ":help llm_patch opens the help",
        ":help llm-patch opens the help",
        "statusline: redrawn when the server is ready, without a key press",
        "preview with a failing block: the diff of the block that places",
        "review: a failed block cannot be accepted",
        "ranged command: reply lines count from the buffer's first line",
        "ranged command on an unnamed buffer: reply lines count from its first line",
        "code action in an :enew buffer: Apply applies it",
    )


_FILES_RUNS: dict[str, subprocess.CompletedProcess] = {}
# The check that needs the server to say so (item 9 of issue 24): an applied V4A patch's
# blocks all report `already_applied`. Its own test, so the rest of files.lua is judged apart.
_ALREADY_APPLIED = "after a V4A apply"


def _files_run(
    version: str, tmp_path_factory: pytest.TempPathFactory
) -> subprocess.CompletedProcess:
    if version not in _FILES_RUNS:
        tmp = tmp_path_factory.mktemp(f"files-{version}")
        _FILES_RUNS[version] = _run(NVIMS[version], TESTS / "files.lua", tmp, timeout=240)
    return _FILES_RUNS[version]


@pytest.mark.skipif(not NVIMS, reason=NO_NVIM)
@pytest.mark.parametrize("version", list(NVIMS) or ["none"])
def test_plugin_file_operations_and_line_ends(
    version: str, tmp_path_factory: pytest.TempPathFactory
) -> None:
    proc = _files_run(version, tmp_path_factory)
    output = proc.stdout + proc.stderr
    failed = [
        line
        for line in output.splitlines()
        if line.startswith("FAIL") and not line.startswith(f"FAIL - {_ALREADY_APPLIED}")
    ]
    assert not failed and re.search(r"^\d+ passed, \d+ failed$", proc.stdout, re.MULTILINE), output
    _assert_checked(
        proc,
        "created, written, typed: :LlmPatchUndo keeps the file on disk",
        "created, written unchanged: :LlmPatchUndo removes it",
        "move (open): nothing saved the user did not save (the moved file holds its old text)",
        "move (not open): nothing saved the user did not save (the moved file holds its old text)",
        "undo the move (open): the file is back with its text",
        "CRLF (open): the saved file has exactly \\r\\n line ends",
        "CRLF (not open): the saved file has exactly \\r\\n line ends",
        "delete of an unsaved buffer: asked, naming the file",
        "move of an unsaved buffer: :LlmPatchUndo brings the written work back",
    )


@pytest.mark.skipif(not NVIMS, reason=NO_NVIM)
@pytest.mark.parametrize("version", list(NVIMS) or ["none"])
def test_plugin_v4a_blocks_already_applied_after_apply(
    version: str, tmp_path_factory: pytest.TempPathFactory
) -> None:
    proc = _files_run(version, tmp_path_factory)
    _assert_checked(
        proc,
        f"{_ALREADY_APPLIED} (not open): every block already applied",
        f"{_ALREADY_APPLIED} (open): every block already applied",
    )


def _assert_checked(proc: subprocess.CompletedProcess, *names: str) -> None:
    for name in names:
        assert f"ok - {name}" in proc.stdout, proc.stdout


NVIM_010_WRAPPER = TOOLS / "bin" / "nvim-0.10"


@pytest.mark.skipif(not NVIM_010_WRAPPER.exists(), reason="no nvim-0.10 wrapper: " + NO_NVIM)
def test_nvim_010_wrapper_runs_the_terminal_ui(tmp_path: Path) -> None:
    """The Debian 0.10 build runs through a private loader; its terminal UI (which re-executes
    the running program for its server) must still come up and take keys in a terminal."""
    import pty
    import select
    import time

    master, slave = pty.openpty()
    env = dict(os.environ, TERM="xterm-256color", TMPDIR=str(tmp_path))
    for var in ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME"):
        env[var] = str(tmp_path / var.lower())
    proc = subprocess.Popen(
        [str(NVIM_010_WRAPPER), "--clean"],
        stdin=slave,
        stdout=slave,
        stderr=slave,
        cwd=tmp_path,
        env=env,
        start_new_session=True,
    )
    os.close(slave)
    screen = b""
    sent = False
    deadline = time.monotonic() + 60
    try:
        while proc.poll() is None and time.monotonic() < deadline:
            ready, _, _ = select.select([master], [], [], 0.1)
            if ready:
                try:
                    screen += os.read(master, 65536)
                except OSError:
                    break
            # the empty buffer's `~` lines mean the UI is drawn and reads keys
            if not sent and screen.count(b"~") >= 3:
                keys = ":call writefile([string(len(nvim_list_uis()))], 'uis')\r:qa!\r"
                os.write(master, keys.encode())
                sent = True
        proc.wait(timeout=max(1.0, deadline - time.monotonic()))
    finally:
        if proc.poll() is None:
            proc.kill()
        os.close(master)
    assert sent, screen[-2000:]
    assert (tmp_path / "uis").read_text().split() == ["1"], screen[-2000:]
    assert proc.returncode == 0, screen[-2000:]
