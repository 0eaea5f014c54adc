"""Only regular files are read: a FIFO, a device or a socket in the workspace (or named as
the reply) is a clear IO_ERROR naming the path, never a hang, an unbounded read or a
MemoryError. Every test here runs under a timeout, so a regression fails instead of hanging.
"""

from __future__ import annotations

import json
import os
import resource
import socket
import stat
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from lsp_server.model import ErrorCode
from lsp_server.plan import plan_reply
from lsp_server.reply import MAX_REPLY_BYTES, parse_reply
from lsp_server.workspace import DiskWorkspace

from .plan_support import put

REPO = Path(__file__).resolve().parents[2]
LIMIT = 30.0  # seconds: far more than any of these needs, far less than "forever"
MEMORY = 2 << 30  # bytes of address space for a child: ample for the CLI, not for /dev/zero


def sr(path: str) -> str:
    return f"{path}\n```\n<<<<<<< SEARCH\nx = 1\n=======\nx = 2\n>>>>>>> REPLACE\n```\n"


def _limits() -> None:
    """In the child: a regression that reads a device without bound fails fast with a
    MemoryError instead of taking the machine's memory."""
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY, MEMORY))


def cli(*args: str, stdin=None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "lsp_server.cli", *args],
        stdin=stdin,
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=LIMIT,
        preexec_fn=_limits,
    )


def check_refused(root: Path, name: str, kind: str, command: str = "check") -> None:
    """`llm-patch check|apply` of a block on `name`: exit 1, the block refused with
    IO_ERROR naming the path and what it is, the other files untouched."""
    reply = root.parent / f"{root.name}-reply.md"
    reply.write_text(sr(name))
    r = cli(command, str(reply), "--root", str(root), "--json")
    assert r.returncode == 1, r.stdout + r.stderr
    (block,) = json.loads(r.stdout)["blocks"]
    error = block["error"]
    assert error["code"] == "IO_ERROR", error
    assert error["details"]["kind"] == kind
    assert f"{name} is " in error["message"] and "not a regular file" in error["message"]


@pytest.mark.parametrize("command", ["check", "apply"])
def test_a_fifo_in_the_workspace_is_refused_not_waited_on(tmp_path, command):
    os.mkfifo(tmp_path / "pipe.py")
    check_refused(tmp_path, "pipe.py", "fifo", command)


def test_a_symlink_to_a_fifo_is_refused(tmp_path):
    os.mkfifo(tmp_path / "pipe")
    (tmp_path / "alias.py").symlink_to("pipe")
    check_refused(tmp_path, "alias.py", "fifo")


def test_a_socket_in_the_workspace_is_refused(tmp_path):
    with socket.socket(socket.AF_UNIX) as sock:
        sock.bind(str(tmp_path / "s.py"))
        check_refused(tmp_path, "s.py", "socket")


def test_a_character_device_in_the_workspace_is_refused(tmp_path):
    """A /dev/zero-like node reports size 0, so a size check alone lets it through."""
    try:
        os.mknod(tmp_path / "zero.py", stat.S_IFCHR | 0o666, os.makedev(1, 5))
    except OSError as err:
        pytest.skip(f"cannot make a device node here: {err}")
    check_refused(tmp_path, "zero.py", "character-device")


def test_the_plan_refuses_a_fifo_without_opening_it(tmp_path):
    """In-process too (the server plans in a worker thread): no open that waits."""
    os.mkfifo(tmp_path / "pipe.py")
    box: dict = {}
    worker = threading.Thread(
        target=lambda: box.update(
            plan=plan_reply(parse_reply(sr("pipe.py")), DiskWorkspace(tmp_path))
        ),
        daemon=True,
    )
    worker.start()
    worker.join(LIMIT)
    assert not worker.is_alive(), "planning blocked on a FIFO"
    (outcome,) = box["plan"].outcomes
    assert outcome.failure is not None and outcome.failure.code is ErrorCode.IO_ERROR


# --- the reply ----------------------------------------------------------------------------


def test_a_device_as_the_reply_is_refused(tmp_path):
    r = cli("apply", "/dev/zero", "--root", str(tmp_path))
    assert r.returncode == 2, r.stdout + r.stderr
    assert "/dev/zero" in r.stderr and "character device" in r.stderr
    assert "Traceback" not in r.stderr


def test_a_fifo_as_the_reply_is_refused_and_says_how_to_pipe_it(tmp_path):
    os.mkfifo(tmp_path / "reply.fifo")
    r = cli("apply", str(tmp_path / "reply.fifo"), "--root", str(tmp_path), "--json")
    assert r.returncode == 2, r.stdout + r.stderr
    assert "FIFO" in r.stderr and "`-`" in r.stderr
    assert json.loads(r.stdout)["error"]["code"] == "IO_ERROR"


def test_an_endless_stdin_is_read_to_the_limit_only(tmp_path):
    """Too large, as any reply over the limit is (a report, exit 1), not read forever."""
    with open("/dev/zero", "rb") as zero:
        r = cli("apply", "-", "--root", str(tmp_path), "--json", stdin=zero)
    assert r.returncode == 1, r.stdout + r.stderr
    assert json.loads(r.stdout)["error"]["code"] == "CONTENT_TOO_LARGE"
    assert "Traceback" not in r.stderr


def test_a_reply_file_over_the_limit_is_refused_whole(tmp_path):
    put(tmp_path, {"a.py": "x = 1\n"})
    reply = tmp_path / "big.md"
    reply.write_bytes(sr("a.py").encode() + b"x" * MAX_REPLY_BYTES)
    r = cli("apply", str(reply), "--root", str(tmp_path), "--json")
    assert r.returncode == 1, r.stdout + r.stderr
    assert json.loads(r.stdout)["error"]["code"] == "CONTENT_TOO_LARGE"
    assert (tmp_path / "a.py").read_text() == "x = 1\n"


def test_a_reply_at_the_limit_is_still_read(tmp_path):
    put(tmp_path, {"a.py": "x = 1\n"})
    text = sr("a.py")
    reply = tmp_path / "reply.md"
    reply.write_text(text + " " * (MAX_REPLY_BYTES - len(text.encode())))
    r = cli("check", str(reply), "--root", str(tmp_path))
    assert r.returncode == 0, r.stdout + r.stderr
