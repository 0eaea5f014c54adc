"""What a file is besides its bytes survives every write and every rollback: mode, owner,
group, extended attributes. A file its owner made read-only is refused, not replaced. And
every error names the user's file, never one of llm-patch's temporary files.
"""

from __future__ import annotations

import errno
import json
import os
import resource
import signal
import stat
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from lsp_server.model import ErrorCode
from lsp_server.plan import plan_reply
from lsp_server.reply import parse_reply
from lsp_server.workspace import DiskWorkspace
from lsp_server.writer import WriteError, write_plan

from .writer_support import REPLY, make_project, plan_for, search_replace, tree

CLI = [sys.executable, "-m", "lsp_server.cli"]
ROOT = os.geteuid() == 0
USER, OTHER = 4242, 4243  # uids no one has: as root the tests act as them


def mode(path: Path) -> int:
    return stat.S_IMODE(path.lstat().st_mode)


def test_rollback_puts_deleted_and_moved_files_back_with_their_mode(tmp_path, monkeypatch):
    """The last step before the commit fails: the executable that was deleted and the one
    that was moved come back as they were — mode 0755, not a copy of their bytes at 0644."""
    root = tmp_path / "root"
    make_project(root)
    os.chmod(root / "tools" / "old.sh", 0o750)
    plan, ws = plan_for(root)
    before = tree(root)
    real = os.replace
    saves = []

    def fail_the_commit(src, dst, **kw):
        if dst == ".llm-patch.journal":
            saves.append(dst)
            if len(saves) == 3:  # prepare, commit, committed: the commit record
                raise OSError(errno.EIO, "Input/output error")
        return real(src, dst, **kw)

    monkeypatch.setattr(os, "replace", fail_the_commit)
    with pytest.raises(WriteError):
        write_plan(plan, ws)
    monkeypatch.undo()
    assert tree(root) == before
    assert mode(root / "tools" / "old.sh") == 0o750
    assert mode(root / "src" / "b.sh") == 0o755


@pytest.mark.skipif(not ROOT, reason="only root can give files to other users")
def test_as_root_owner_group_and_special_bits_are_kept(tmp_path):
    root = tmp_path / "root"
    make_project(root)
    os.chown(root / "src" / "a.py", USER, USER)
    os.chown(root / "src" / "b.sh", OTHER, USER)  # moved: the new name keeps its owner
    os.chown(root / "run.sh", USER, OTHER)
    os.chmod(root / "run.sh", 0o4751)  # set-user-ID: cleared by a chown unless set after
    plan, ws = plan_for(root)
    write_plan(plan, ws)
    a, b2, run = root / "src" / "a.py", root / "moved" / "b2.sh", root / "run.sh"
    assert a.read_bytes() == b"a = 2\r\n" and b2.read_text() == "b = 2\n"
    assert (a.stat().st_uid, a.stat().st_gid) == (USER, USER)
    assert (b2.stat().st_uid, b2.stat().st_gid, mode(b2)) == (OTHER, USER, 0o755)
    assert (run.stat().st_uid, run.stat().st_gid, mode(run)) == (USER, OTHER, 0o4751)


def _xattr(path: Path, name: str, value: bytes) -> None:
    try:
        os.setxattr(path, name, value)
    except (OSError, AttributeError) as err:
        pytest.skip(f"no extended attributes here: {err}")


def test_extended_attributes_are_kept(tmp_path):
    root = tmp_path / "root"
    make_project(root)
    _xattr(root / "src" / "a.py", "user.origin", b"hand-written")
    _xattr(root / "src" / "b.sh", "user.origin", b"moved")
    plan, ws = plan_for(root)
    write_plan(plan, ws)
    assert os.getxattr(root / "src" / "a.py", "user.origin") == b"hand-written"
    assert os.getxattr(root / "moved" / "b2.sh", "user.origin") == b"moved"


def test_errors_name_the_users_file_never_a_temporary_one(tmp_path, monkeypatch):
    """Before: `.llm-patch-xxxx: Operation not permitted; nothing was written`."""
    root = tmp_path / "root"
    make_project(root)
    plan, ws = plan_for(root)
    before = tree(root)
    real = os.chmod

    def refuse(path, mode_, **kw):
        temp = path if isinstance(path, str) else str(root / "src" / ".llm-patch-k2j4h5g6")
        if ".llm-patch-" in temp:
            raise PermissionError(errno.EPERM, "Operation not permitted", temp)
        return real(path, mode_, **kw)

    monkeypatch.setattr(os, "chmod", refuse)
    with pytest.raises(WriteError) as err:
        write_plan(plan, ws)
    monkeypatch.undo()
    failure = err.value.failure
    assert failure.code is ErrorCode.PERMISSION_DENIED
    assert failure.message == "src/a.py: Operation not permitted; nothing was written"
    assert failure.details == {"path": "src/a.py"}
    assert tree(root) == before


def test_a_file_too_large_for_the_process_is_named(tmp_path):
    """A file-size limit (ulimit -f) makes the temporary file's write fail with EFBIG.
    Before, the message said "(workspace): File too large"."""
    root = tmp_path / "root"
    root.mkdir()
    (root / "big.py").write_text("".join(f"line_{i} = {i}\n" for i in range(20_000)))
    reply = tmp_path / "reply.md"
    reply.write_text(search_replace("big.py", "line_5 = 5\n", "line_5 = 'five'\n"))

    def limit() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # EFBIG instead of a signal
        resource.setrlimit(resource.RLIMIT_FSIZE, (64 * 1024, 64 * 1024))

    done = subprocess.run(
        [*CLI, "apply", str(reply), "--root", str(root), "--json"],
        capture_output=True,
        text=True,
        preexec_fn=limit,
        timeout=120,
        check=False,
    )
    assert done.returncode == 1, done.stderr
    error = json.loads(done.stdout)["error"]
    assert error["message"] == "big.py: File too large; nothing was written"
    assert not any(".llm-patch" in name for name in tree(root))


# --- as an ordinary user -------------------------------------------------------------------


@pytest.fixture
def user_site() -> Iterator[Path]:
    """A folder an ordinary user owns (made by root for the user it acts as, or the
    current user's own): pytest's tmp_path is private to root."""
    base = Path(tempfile.mkdtemp(prefix="llm-patch-user-"))
    os.chmod(base, 0o755)
    try:
        yield base
    finally:
        subprocess.run(["rm", "-rf", str(base)], check=False)


def apply_as_user(base: Path, reply: str) -> dict | None:
    """Plan and write `reply` in `base/root` as an ordinary user — the user `USER` in a
    forked child when the tests run as root (the interpreter itself may be out of that
    user's reach, so no new process is started) — and return the write's failure."""
    if ROOT:
        for p in [base, *base.rglob("*")]:
            if p.stat().st_uid == 0:
                os.chown(p, USER, USER, follow_symlinks=False)
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: never returns into pytest
        try:
            os.close(read)
            if ROOT:
                os.setgroups([])
                os.setgid(USER)
                os.setuid(USER)
            ws = DiskWorkspace(base / "root")
            plan = plan_reply(parse_reply(reply), ws)
            assert plan.ok, plan
            try:
                write_plan(plan, ws)
                result = None
            except WriteError as err:
                result = err.failure.to_json()
            os.write(write, json.dumps(result).encode())
        finally:
            os._exit(0)
    os.close(write)
    with os.fdopen(read, "rb") as fh:
        data = fh.read()
    os.waitpid(pid, 0)
    assert data, "the child died"
    return json.loads(data)


def test_a_read_only_file_is_refused_for_its_owner_before_anything_is_written(user_site):
    """Before: a 0444 file was silently replaced (the rename only needs the folder)."""
    root = user_site / "root"
    make_project(root)
    os.chmod(root / "run.sh", 0o555)
    before = {k: v[:2] for k, v in tree(root).items()}
    error = apply_as_user(user_site, REPLY)
    assert error is not None
    assert error["code"] == "PERMISSION_DENIED"
    assert error["details"]["path"] == "run.sh"
    assert error["message"].startswith("run.sh is not writable for you (mode 0555)")
    assert {k: v[:2] for k, v in tree(root).items()} == before
    assert mode(root / "run.sh") == 0o555


@pytest.mark.skipif(not ROOT, reason="needs two users")
def test_an_ordinary_user_keeps_the_group_of_a_shared_file(user_site):
    """Someone else's group-writable file: an ordinary user cannot give the replacement
    away, so it becomes theirs (as when git rewrites it) — with its group and mode kept."""
    root = user_site / "root"
    root.mkdir()
    shared = root / "shared.py"
    shared.write_text("s = 2\n")
    os.chown(shared, OTHER, USER)
    os.chmod(shared, 0o664)
    error = apply_as_user(user_site, search_replace("shared.py", "s = 2\n", "s = 3\n"))
    assert error is None, error
    st = shared.stat()
    assert shared.read_text() == "s = 3\n"
    assert (st.st_uid, st.st_gid, stat.S_IMODE(st.st_mode)) == (USER, USER, 0o664)
