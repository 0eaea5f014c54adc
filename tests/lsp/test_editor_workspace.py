"""What a server plan reads (lsp/editor_workspace.py, workspace.read_regular), without a client.

* reads of the disk are bounded and refuse anything but a regular file, without waiting;
* a plan records what it read from disk, and `changed_on_disk` notices a change by `stat`
  or, when asked, by the bytes' hash;
* with no workspace folder, only open documents can be planned against.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest

from lsp_server.lsp.analysis import ReplySource, parse, place
from lsp_server.lsp.editor_workspace import (
    EditorView,
    OpenDocument,
    SessionWorkspace,
    changed_on_disk,
    fingerprint,
    plan_root,
)
from lsp_server.model import ErrorCode, PlacementError
from lsp_server.workspace import read_regular

from .conftest import sr


def _in_thread(fn, *args):
    """Run `fn` in a thread and give it 5 seconds: a read that waits fails the test."""
    out: dict = {}

    def run() -> None:
        try:
            out["value"] = fn(*args)
        except BaseException as err:  # noqa: BLE001 - handed back to the test
            out["error"] = err

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(5)
    assert not thread.is_alive(), f"{fn} blocked"
    if "error" in out:
        raise out["error"]
    return out["value"]


def test_a_regular_file_is_read_up_to_its_limit_and_one_byte(tmp_path: Path):
    path = tmp_path / "r.md"
    path.write_bytes(b"x" * 100)
    assert read_regular(str(path), "r.md", 100, follow=True) == b"x" * 100
    assert len(read_regular(str(path), "r.md", 99, follow=True)) == 100  # over: the caller says


def _refused(path: str) -> str:
    with pytest.raises(PlacementError) as err:
        _in_thread(lambda: read_regular(path, "the reply", 1000, follow=True))
    assert err.value.failure.code is ErrorCode.IO_ERROR
    return err.value.failure.message


def test_a_pipe_is_refused_without_waiting_for_a_writer(tmp_path: Path):
    fifo = tmp_path / "pipe.md"
    os.mkfifo(fifo)
    assert "a FIFO (named pipe), not a regular file" in _refused(str(fifo))


def test_a_device_that_never_ends_is_refused(tmp_path: Path):
    assert "a character device" in _refused("/dev/zero")
    assert "a folder" in _refused(str(tmp_path))


def _view(*docs: OpenDocument, folders: tuple[str, ...]) -> EditorView:
    return EditorView(folders, docs)


def _analyse(reply: str, view: EditorView):
    source = ReplySource(reply)
    return place(
        source,
        parse(reply),
        view,
        atomic=True,
        fuzzy_threshold=0.8,
        encoding="utf-16",
        cancelled=lambda: False,
    )


def test_a_plan_records_the_files_it_read_from_disk_and_not_the_open_ones(tmp_path: Path):
    (tmp_path / "disk.py").write_text("a = 1\n")
    (tmp_path / "open.py").write_text("b = 1\n")
    opened = OpenDocument((tmp_path / "open.py").as_uri(), "b = 1\n", 3)
    reply = sr("disk.py", "a = 1\n", "a = 2\n") + sr("open.py", "b = 1\n", "b = 2\n")
    analysis = _analyse(reply, _view(opened, folders=(str(tmp_path),)))

    assert analysis.plan.ok
    assert set(analysis.reads) == {"disk.py"}
    assert analysis.reads["disk.py"].fingerprint == fingerprint(str(tmp_path / "disk.py"))
    assert changed_on_disk(tmp_path, analysis.reads, content=True) == []


def test_a_change_is_seen_by_stat_or_only_by_the_content(tmp_path: Path):
    path = tmp_path / "a.py"
    path.write_text("x = 1\ny = 2\n")
    analysis = _analyse(sr("a.py", "y = 2\n", "y = 3\n"), _view(folders=(str(tmp_path),)))
    before = path.stat()
    path.write_text("y = 2\nx = 1\n")  # same size
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert changed_on_disk(tmp_path, analysis.reads, content=False) == []
    assert changed_on_disk(tmp_path, analysis.reads, content=True) == ["a.py"]
    path.write_text("import sys\nx = 1\ny = 2\n")
    assert changed_on_disk(tmp_path, analysis.reads, content=False) == ["a.py"]
    path.unlink()
    assert changed_on_disk(tmp_path, analysis.reads, content=False) == ["a.py"]


def test_a_file_created_after_the_plan_counts_as_a_change(tmp_path: Path):
    analysis = _analyse(sr("new.py", "", "x = 1\n"), _view(folders=(str(tmp_path),)))
    assert analysis.plan.ok
    assert analysis.reads["new.py"].content == "absent"
    (tmp_path / "new.py").write_text("other = 1\n")
    assert changed_on_disk(tmp_path, analysis.reads, content=False) == ["new.py"]


def test_the_first_read_of_a_file_is_the_one_kept(tmp_path: Path):
    path = tmp_path / "a.py"
    path.write_text("x = 1\n")
    root = plan_root(_view(folders=(str(tmp_path),)), None)
    ws = SessionWorkspace(root, {})
    ws.snapshot("a.py")
    first = ws.reads["a.py"]
    path.write_text("x = 22\n")
    ws.snapshot("a.py")
    assert ws.reads["a.py"] == first


def test_without_a_workspace_folder_only_open_documents_are_read(tmp_path: Path):
    (tmp_path / "closed.py").write_text("y = 1\n")
    opened = OpenDocument((tmp_path / "open.py").as_uri(), "x = 1\n", 1)
    view = _view(opened, folders=())
    reply_uri = (tmp_path / "reply.llm.md").as_uri()
    root = plan_root(view, reply_uri)
    assert (root.path, root.single_file) == (tmp_path, True)
    assert plan_root(view, None).path == Path("/")

    ws = SessionWorkspace(root, {"open.py": ("x = 1\n", 1)})
    assert ws.snapshot("open.py").text == "x = 1\n"
    with pytest.raises(PlacementError) as err:
        ws.snapshot("closed.py")
    assert err.value.failure.code is ErrorCode.OUTSIDE_WORKSPACE
    assert "no workspace folder" in err.value.failure.message
    assert ws.reads == {}


def test_single_file_mode_knows_an_open_document_by_a_symlink_to_it(tmp_path: Path):
    (tmp_path / "real.py").write_text("x = 1\n")
    (tmp_path / "alias.py").symlink_to("real.py")
    root = plan_root(_view(folders=()), (tmp_path / "reply.llm.md").as_uri())
    ws = SessionWorkspace(root, {"real.py": ("x = 1\n", 4)})
    assert ws.snapshot("alias.py").text == "x = 1\n"
    with pytest.raises(PlacementError):
        ws.snapshot("other.py")
