"""Fault injection over a whole transaction: every OS call the writer makes fails in turn.

tests/test_writer.py fails renames and fsyncs of a three-file plan. Here the plan does
everything a reply can do at once — modify (CRLF, executable bit), create in new nested
folders, delete, rename into a new folder — and each call of each kind the writer makes
(file creation — temporary files and the journal —, the write itself with a full disk,
fsync, chmod, mkdir, link, rename, unlink) is made to fail, one at a time. Whatever fails
before the commit, the tree ends byte-identical to before (contents, modes, no temporary
files, no journal, no new folders) and the error names the code; a call that fails after
the commit (removing a saved old file) leaves the new tree, and its leftovers are removed
by the next recovery.
"""

from __future__ import annotations

import errno
import os
import stat
import tempfile
from pathlib import Path

import pytest

from lsp_server.journal import recover
from lsp_server.model import ErrorCode
from lsp_server.plan import plan_reply
from lsp_server.reply import parse_reply
from lsp_server.workspace import DiskWorkspace
from lsp_server.writer import WriteError, write_plan

from .support import search_replace, tree, v4a_add, v4a_delete

REPLY = (
    search_replace("src/a.py", "a = 1\n", "a = 2\n")
    + search_replace("run.sh", "echo hi\n", "echo bye\n")
    + v4a_add("new/deeper/c.py", "c = 1\n")
    + v4a_delete("old.txt")
    + "*** Begin Patch\n*** Update File: src/b.py\n*** Move to: moved/b2.py\n@@\n-b = 1\n+b = 2\n"
    "*** End Patch\n"
)


def make_project(root: Path) -> None:
    (root / "src").mkdir(parents=True)
    (root / "src" / "a.py").write_bytes(b"a = 1\r\n")
    (root / "src" / "b.py").write_text("b = 1\n")
    (root / "old.txt").write_text("old\n")
    (root / "run.sh").write_text("echo hi\n")
    os.chmod(root / "run.sh", 0o755)


def expected_after(root: Path) -> None:
    assert (root / "src" / "a.py").read_bytes() == b"a = 2\r\n"
    assert (root / "new" / "deeper" / "c.py").read_text() == "c = 1\n"
    assert not (root / "old.txt").exists()
    assert (root / "moved" / "b2.py").read_text() == "b = 2\n"
    assert not (root / "src" / "b.py").exists()
    assert stat.S_IMODE((root / "run.sh").stat().st_mode) == 0o755


class Faults:
    """Counts the writer's OS calls by kind and fails the `fail_at`-th call of `kind`."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, kind: str | None, fail_at: int):
        self.kind, self.fail_at = kind, fail_at
        self.calls: dict[str, int] = {}
        real_replace, real_fsync, real_unlink = os.replace, os.fsync, os.unlink
        real_chmod, real_open, real_fdopen = os.chmod, os.open, os.fdopen
        real_mkdir, real_link = os.mkdir, os.link
        faults = self

        def counted(kind: str, err: OSError, real):
            def call(*args, **kwargs):
                faults.calls[kind] = faults.calls.get(kind, 0) + 1
                if kind == faults.kind and faults.calls[kind] == faults.fail_at:
                    raise err
                return real(*args, **kwargs)

            return call

        create = counted("create", OSError(errno.EMFILE, "Too many open files"), real_open)

        def open_(path, flags, *args, **kwargs):
            if flags & os.O_CREAT:  # a new file: temporary, journal (reads are not counted)
                return create(path, flags, *args, **kwargs)
            return real_open(path, flags, *args, **kwargs)

        eio = OSError(errno.EIO, "Input/output error")
        monkeypatch.setattr(os, "replace", counted("replace", eio, real_replace))
        monkeypatch.setattr(os, "fsync", counted("fsync", eio, real_fsync))
        monkeypatch.setattr(
            os, "unlink", counted("unlink", PermissionError(13, "denied"), real_unlink)
        )
        monkeypatch.setattr(
            os, "chmod", counted("chmod", PermissionError(1, "not permitted"), real_chmod)
        )
        monkeypatch.setattr(os, "open", open_)
        monkeypatch.setattr(
            os, "mkdir", counted("mkdir", PermissionError(13, "denied"), real_mkdir)
        )
        monkeypatch.setattr(
            os, "link", counted("link", OSError(errno.EMLINK, "Too many links"), real_link)
        )

        class FullDisk:
            """A file object whose write hits a full disk."""

            def __init__(self, fh):
                self.fh = fh

            def __enter__(self):
                return self

            def __exit__(self, *exc):
                self.fh.close()

            def write(self, data):
                faults.calls["write"] = faults.calls.get("write", 0) + 1
                if faults.kind == "write" and faults.calls["write"] == faults.fail_at:
                    self.fh.write(data[: len(data) // 2])  # half of it made it to disk
                    raise OSError(errno.ENOSPC, "No space left on device")
                return self.fh.write(data)

            def __getattr__(self, name):
                return getattr(self.fh, name)

        monkeypatch.setattr(os, "fdopen", lambda *a, **k: FullDisk(real_fdopen(*a, **k)))


def run_writer(root: Path) -> None:
    ws = DiskWorkspace(root)
    plan = plan_reply(parse_reply(REPLY), ws)
    assert plan.ok, [o.failure for o in plan.outcomes if o.failure]
    write_plan(plan, ws)


def count_calls() -> dict[str, int]:
    with tempfile.TemporaryDirectory() as tmp, pytest.MonkeyPatch.context() as mp:
        root = Path(tmp)
        make_project(root)
        faults = Faults(mp, None, 0)
        run_writer(root)
        expected_after(root)
        return dict(faults.calls)


CALLS = count_calls()
CASES = [(kind, n) for kind, count in sorted(CALLS.items()) for n in range(1, count + 1)]


def test_the_transaction_makes_every_kind_of_call():
    kinds = {"create", "write", "fsync", "chmod", "mkdir", "link", "replace", "unlink"}
    assert kinds <= set(CALLS)


@pytest.mark.parametrize("kind, fail_at", CASES, ids=[f"{k}-{n}" for k, n in CASES])
def test_any_failing_call_leaves_the_tree_as_it_was(tmp_path: Path, monkeypatch, kind, fail_at):
    root = tmp_path / "root"
    make_project(root)
    before = tree(root)
    Faults(monkeypatch, kind, fail_at)
    try:
        run_writer(root)
    except WriteError as err:
        code = err.failure.code
        assert code in (ErrorCode.IO_ERROR, ErrorCode.PERMISSION_DENIED), err.failure
        assert "nothing was written" in err.failure.message
        assert tree(root) == before, f"{kind} #{fail_at} left the tree changed"
        return
    # the failed call was one the writer can do without (a hard link where a rename does,
    # removing a saved old file after the commit): then the whole change must be there,
    # exactly, and the next recovery removes whatever was left over
    monkeypatch.undo()
    expected_after(root)
    if any(".llm-patch" in name for name in tree(root)):
        assert ".llm-patch.journal" in tree(root), "leftovers that no journal names"
        assert recover(root).outcome == "completed"
    expected_after(root)
    assert not any(".llm-patch" in name for name in tree(root))
