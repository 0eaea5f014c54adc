"""The writer is one transaction: all files or none, stale files refused, modes kept."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from lsp_server import writer
from lsp_server.model import Action, EditBlock, ErrorCode, Format, Hunk, ParsedReply
from lsp_server.plan import plan_reply
from lsp_server.workspace import DiskWorkspace
from lsp_server.writer import WriteError, write_plan


def tree(root: Path) -> dict[str, bytes | str]:
    out: dict[str, bytes | str] = {}
    for p in sorted(root.rglob("*")):
        rel = p.relative_to(root).as_posix()
        out[rel] = "dir" if p.is_dir() else p.read_bytes()
    return out


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "root"
    (root / "src").mkdir(parents=True)
    (root / "src" / "a.py").write_bytes(b"a = 1\r\n")
    (root / "src" / "b.py").write_text("b = 1\n")
    (root / "run.sh").write_text("echo hi\n")
    os.chmod(root / "run.sh", 0o755)
    return root


def three_file_plan(root: Path):
    blocks = (
        EditBlock(
            Format.SEARCH_REPLACE, "src/a.py", (1, 2), hunks=(Hunk("a = 1\n", "a = 2\n"),), index=0
        ),
        EditBlock(
            Format.SEARCH_REPLACE, "src/b.py", (3, 4), hunks=(Hunk("b = 1\n", "b = 2\n"),), index=1
        ),
        EditBlock(
            Format.SEARCH_REPLACE,
            "run.sh",
            (5, 6),
            hunks=(Hunk("echo hi\n", "echo bye\n"),),
            index=2,
        ),
        EditBlock(
            Format.APPLY_PATCH, "new/c.py", (7, 8), Action.CREATE, content="c = 1\n", index=3
        ),
    )
    ws = DiskWorkspace(root)
    return plan_reply(ParsedReply(blocks), ws), ws


def test_writes_all_and_keeps_mode_and_endings(project):
    plan, ws = three_file_plan(project)
    write_plan(plan, ws)
    assert (project / "src" / "a.py").read_bytes() == b"a = 2\r\n"
    assert (project / "new" / "c.py").read_text() == "c = 1\n"
    assert stat.S_IMODE((project / "run.sh").stat().st_mode) == 0o755


def test_stale_file_refused_nothing_written(project):
    plan, ws = three_file_plan(project)
    (project / "src" / "b.py").write_text("b = 1  # edited meanwhile\n")
    before = tree(project)
    with pytest.raises(WriteError) as e:
        write_plan(plan, ws)
    assert e.value.failure.code is ErrorCode.STALE_VERSION
    assert tree(project) == before


@pytest.mark.parametrize("fail_at", range(1, 8))
def test_rename_failure_rolls_back(project, monkeypatch, fail_at):
    """Every rename fails in turn: plain renames (the journal's, a saved file's) and the
    atomic exchanges and no-replace renames that put the new texts in place."""
    plan, ws = three_file_plan(project)
    before = tree(project)
    real_replace, real_rename2 = os.replace, writer.rename2
    calls = {"n": 0}

    def fail_here(dst) -> None:
        calls["n"] += 1
        if calls["n"] == fail_at:
            raise OSError(28, "No space left on device", str(dst))

    def flaky(src, dst, **dir_fds):
        fail_here(dst)
        return real_replace(src, dst, **dir_fds)

    def flaky2(fd, src, dst, flags):
        fail_here(dst)
        return real_rename2(fd, src, dst, flags)

    monkeypatch.setattr(os, "replace", flaky)
    monkeypatch.setattr(writer, "rename2", flaky2)
    with pytest.raises(WriteError) as e:
        write_plan(plan, ws)
    assert e.value.failure.code is ErrorCode.IO_ERROR
    assert tree(project) == before
    assert calls["n"] >= fail_at


@pytest.mark.parametrize("fail_at", [1, 3])
def test_fsync_failure_rolls_back(project, monkeypatch, fail_at):
    plan, ws = three_file_plan(project)
    before = tree(project)
    real = os.fsync
    calls = {"n": 0}

    def flaky(fd):
        calls["n"] += 1
        if calls["n"] == fail_at:
            raise OSError(5, "Input/output error")
        return real(fd)

    monkeypatch.setattr(os, "fsync", flaky)
    with pytest.raises(WriteError):
        write_plan(plan, ws)
    assert tree(project) == before
    assert not any(".llm-patch-" in k for k in tree(project))


@pytest.mark.skipif(os.geteuid() == 0, reason="root ignores folder permissions")
def test_read_only_folder_is_permission_denied(project):
    plan, ws = three_file_plan(project)
    os.chmod(project / "src", 0o555)
    try:
        with pytest.raises(WriteError) as e:
            write_plan(plan, ws)
        assert e.value.failure.code is ErrorCode.PERMISSION_DENIED
    finally:
        os.chmod(project / "src", 0o755)


def test_permission_error_from_os_is_reported(project, monkeypatch):
    plan, ws = three_file_plan(project)
    before = tree(project)
    real = os.replace

    real2 = writer.rename2

    def deny(src, dst, **dir_fds):
        if str(dst).endswith("b.py"):
            raise PermissionError(13, "Permission denied", str(dst))
        return real(src, dst, **dir_fds)

    def deny2(fd, src, dst, flags):
        if str(dst).endswith("b.py"):
            raise PermissionError(13, "Permission denied", str(dst))
        return real2(fd, src, dst, flags)

    monkeypatch.setattr(os, "replace", deny)
    monkeypatch.setattr(writer, "rename2", deny2)
    with pytest.raises(WriteError) as e:
        write_plan(plan, ws)
    assert e.value.failure.code is ErrorCode.PERMISSION_DENIED
    assert tree(project) == before
