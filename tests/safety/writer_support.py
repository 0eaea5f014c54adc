"""Shared by the writer's safety tests: a project that exercises every kind of change, tree
snapshots with modes and owners, and a way to die (like SIGKILL) at any call of the writer."""

from __future__ import annotations

import os
import stat
from collections.abc import Callable
from pathlib import Path
from typing import Any

from lsp_server import writer
from lsp_server.model import Plan
from lsp_server.plan import plan_reply
from lsp_server.reply import parse_reply
from lsp_server.workspace import DiskWorkspace


def search_replace(path: str, old: str, new: str) -> str:
    return f"{path}\n```\n<<<<<<< SEARCH\n{old}=======\n{new}>>>>>>> REPLACE\n```\n"


# modify (CRLF; an executable), create in new nested folders, delete an executable, move an
# executable into a new folder with a change
REPLY = (
    search_replace("src/a.py", "a = 1\n", "a = 2\n")
    + search_replace("run.sh", "echo hi\n", "echo bye\n")
    + "*** Begin Patch\n*** Add File: new/deeper/c.py\n+c = 1\n*** Delete File: tools/old.sh\n"
    "*** Update File: src/b.sh\n*** Move to: moved/b2.sh\n@@\n-b = 1\n+b = 2\n*** End Patch\n"
)


def make_project(root: Path) -> None:
    (root / "src").mkdir(parents=True)
    (root / "tools").mkdir()
    (root / "src" / "a.py").write_bytes(b"a = 1\r\n")
    (root / "src" / "b.sh").write_text("b = 1\n")
    (root / "tools" / "old.sh").write_text("old\n")
    (root / "tools" / "keep.txt").write_text("keep\n")
    (root / "run.sh").write_text("echo hi\n")
    for name in ("run.sh", "tools/old.sh", "src/b.sh"):
        os.chmod(root / name, 0o755)


def tree(top: Path) -> dict[str, Any]:
    """Everything under `top`: bytes, folders, symlinks, with mode, owner and group."""
    out: dict[str, Any] = {}
    for dirpath, dirnames, filenames in os.walk(top, followlinks=False):
        for name in dirnames + filenames:
            p = Path(dirpath) / name
            st = p.lstat()
            rel = p.relative_to(top).as_posix()
            meta = (stat.S_IMODE(st.st_mode), st.st_uid, st.st_gid)
            if stat.S_ISLNK(st.st_mode):
                out[rel] = ("link", os.readlink(p))
            elif stat.S_ISDIR(st.st_mode):
                out[rel] = ("dir", *meta)
            else:
                out[rel] = ("file", p.read_bytes(), *meta)
    return out


def plan_for(root: Path, reply: str = REPLY) -> tuple[Plan, DiskWorkspace]:
    ws = DiskWorkspace(root)
    plan = plan_reply(parse_reply(reply), ws)
    assert plan.ok, [o.failure for o in plan.outcomes if o.failure]
    return plan, ws


# every call by which the writer (or a recovery) changes the disk; dying before any of them
# is dying between two steps of the transaction
STEPS = ("fsync", "link", "replace", "unlink", "mkdir", "rmdir", "chmod")


def count_steps(monkeypatch, on_step: Callable[[int], None] | None = None) -> list[int]:
    """Patch the disk-changing calls to count themselves (and call `on_step(n)` before the
    n-th); returns the counter."""
    counter = [0]

    def wrap(real):
        def call(*args, **kwargs):
            counter[0] += 1
            if on_step is not None:
                on_step(counter[0])
            return real(*args, **kwargs)

        return call

    real_open = os.open
    creating = wrap(real_open)

    def open_(path, flags, *args, **kwargs):
        if flags & os.O_CREAT:
            return creating(path, flags, *args, **kwargs)
        return real_open(path, flags, *args, **kwargs)

    for name in STEPS:
        monkeypatch.setattr(os, name, wrap(getattr(os, name)))
    monkeypatch.setattr(os, "open", open_)
    monkeypatch.setattr(writer, "rename2", wrap(writer.rename2))  # atomic exchange
    return counter


def die_at(step: int, monkeypatch, work: Callable[[], object]) -> int:
    """Run `work` in a forked child that dies (os._exit, as under SIGKILL: no cleanup, no
    rollback) just before its `step`-th disk-changing call. Returns the child's exit code:
    137 when it died there, 0 when it finished first."""
    pid = os.fork()
    if pid == 0:  # the child: never returns into pytest
        code = 1
        try:

            def maybe_die(n: int) -> None:
                if n == step:
                    os._exit(137)

            count_steps(monkeypatch, maybe_die)
            work()
            code = 0
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status)


def crash_where(
    root: Path,
    reset: Callable[[], None],
    work: Callable[[], object],
    monkeypatch,
    reached: Callable[[], bool],
) -> int:
    """Kill `work` before each of its steps in turn (resetting the tree with `reset` and
    recovering in between) until the tree it leaves satisfies `reached`; returns that step.
    The tree is left as the killed run left it."""
    from lsp_server.journal import recover

    for step in range(1, 200):
        reset()
        if die_at(step, monkeypatch, work) != 137:
            break
        if reached():
            return step
        recover(root)
    raise AssertionError("no step leaves the tree in the state wanted")
