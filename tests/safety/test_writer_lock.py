"""Lost updates: one apply at a time per workspace, and each file re-checked right before its
own rename.

Before, the "changed on disk" check ran before the temporary files were written: a line
appended to a file while they were being written and fsynced was silently lost, and two
applies started together both exited 0 with one's edits gone.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from lsp_server.disk import workspace_lock
from lsp_server.model import ErrorCode
from lsp_server.writer import WriteError, write_plan

from .writer_support import count_steps, make_project, plan_for, search_replace, tree

CLI = [sys.executable, "-m", "lsp_server.cli"]


def big_project(root: Path, files: int = 40, lines: int = 3000) -> None:
    for i in range(files):
        (root / f"d{i % 4}").mkdir(parents=True, exist_ok=True)
        (root / f"d{i % 4}" / f"f{i}.py").write_text(
            "".join(f"v_{i}_{j} = {j}\n" for j in range(lines))
        )


def reply_changing(root: Path, line: int, files: int = 40) -> str:
    return "".join(
        search_replace(f"d{i % 4}/f{i}.py", f"v_{i}_{line} = {line}\n", f"v_{i}_{line} = 'x'\n")
        for i in range(files)
    )


def test_a_second_apply_waits_for_the_workspace_lock(tmp_path: Path):
    root = tmp_path / "root"
    make_project(root)
    reply = tmp_path / "reply.md"
    reply.write_text(search_replace("src/a.py", "a = 1\n", "a = 2\n"))
    with workspace_lock(root):
        proc = subprocess.Popen(
            [*CLI, "apply", str(reply), "--root", str(root)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        time.sleep(2.0)  # ample time to start, plan and write, were it not waiting
        assert proc.poll() is None, proc.communicate()
        assert (root / "src" / "a.py").read_bytes() == b"a = 1\r\n"
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, (out, err)
    assert (root / "src" / "a.py").read_bytes() == b"a = 2\r\n"


def test_the_lock_gives_up_after_its_wait_with_a_clear_error(tmp_path: Path):
    done = threading.Event()
    with workspace_lock(tmp_path):

        def other() -> None:
            with pytest.raises(WriteError) as err, workspace_lock(tmp_path, wait=0.3):
                pass
            assert err.value.failure.code is ErrorCode.IO_ERROR
            assert "another llm-patch" in err.value.failure.message
            done.set()

        worker = threading.Thread(target=other)
        worker.start()
        worker.join(10)
    assert done.is_set()
    with workspace_lock(tmp_path), workspace_lock(tmp_path):  # re-entrant in one thread
        pass


def test_two_applies_started_together_both_land(tmp_path: Path):
    root = tmp_path / "root"
    big_project(root)
    first, second = tmp_path / "first.md", tmp_path / "second.md"
    first.write_text(reply_changing(root, 100))
    second.write_text(reply_changing(root, 2900))
    procs = [
        subprocess.Popen(
            [*CLI, "apply", str(reply), "--root", str(root)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        for reply in (first, second)
    ]
    for proc in procs:
        out, err = proc.communicate(timeout=300)
        assert proc.returncode == 0, (out[-2000:], err)
    for i in range(40):
        text = (root / f"d{i % 4}" / f"f{i}.py").read_text()
        assert f"v_{i}_100 = 'x'\n" in text and f"v_{i}_2900 = 'x'\n" in text, i


@pytest.mark.parametrize("at_step", [1, 2, 3, 4, 5])
def test_a_file_changed_while_the_new_texts_are_written_is_stale_and_kept(
    tmp_path: Path, monkeypatch, at_step: int
):
    """Someone appends to src/b.sh while the writer prepares (the n-th disk-changing call,
    all before the first rename): the apply stops with STALE_VERSION naming it, every file
    is as it was, and the appended line is still there."""
    root = tmp_path / "root"
    make_project(root)
    plan, ws = plan_for(root)
    before = tree(root)
    fired = []

    def append(n: int) -> None:
        if n == at_step and not fired:
            fired.append(n)
            with open(root / "src" / "b.sh", "a") as fh:
                fh.write("# added meanwhile\n")

    count_steps(monkeypatch, append)
    with pytest.raises(WriteError) as err:
        write_plan(plan, ws)
    monkeypatch.undo()
    assert fired
    assert err.value.failure.code is ErrorCode.STALE_VERSION
    assert err.value.failure.details["path"] == "src/b.sh"
    assert "src/b.sh changed on disk" in err.value.failure.message
    now = tree(root)
    assert now.pop("src/b.sh")[1] == b"b = 1\n# added meanwhile\n"
    before.pop("src/b.sh")
    assert now == before


def test_a_file_saved_by_an_editor_just_before_its_rename_is_stale(tmp_path: Path, monkeypatch):
    """An editor's atomic save (a new file renamed over src/a.py) after the writer's last
    look at src/a.py and before its rename: the rename is an exchange, so the writer sees
    what it took the place of, gives the name back, and stops. The editor's text is kept."""
    root = tmp_path / "root"
    make_project(root)
    plan, ws = plan_for(root)
    real_stat = os.stat
    saved = []

    def stat_then_save(path, *args, **kwargs):
        result = real_stat(path, *args, **kwargs)
        renaming = any(p.suffix == ".old" for p in (root / "src").iterdir())
        if path == "a.py" and renaming and not saved:  # the writer's last look at it
            saved.append(True)
            (root / "src" / "a.py.swp").write_bytes(b"a = 1  # saved meanwhile\r\n")
            os.replace(root / "src" / "a.py.swp", root / "src" / "a.py")
        return result

    monkeypatch.setattr(os, "stat", stat_then_save)
    with pytest.raises(WriteError) as err:
        write_plan(plan, ws)
    monkeypatch.undo()
    assert saved
    assert err.value.failure.code is ErrorCode.STALE_VERSION
    assert err.value.failure.details["path"] == "src/a.py"
    assert (root / "src" / "a.py").read_bytes() == b"a = 1  # saved meanwhile\r\n"
    assert (root / "run.sh").read_text() == "echo hi\n"
    assert not any(".llm-patch" in name for name in tree(root))
