"""A folder swapped for a symlink while the apply runs is never followed out of the root.

The attack from the report: a tree with many files and `zz/victim.txt`; when the writer is
under way, `rm -r root/zz; ln -s ../honeypot root/zz`. A writer that goes by paths then
writes `honeypot/victim.txt` (the bytes there are the same as the victim's, so no hash
check notices). The writer walks folders by descriptor without following symlinks, so
whenever the swap happens — before the folder is first opened, after its temporary file is
written, between the renames — nothing outside the root changes.
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

import pytest

from lsp_server.model import ErrorCode
from lsp_server.plan import plan_reply
from lsp_server.reply import parse_reply
from lsp_server.workspace import DiskWorkspace
from lsp_server.writer import WriteError, write_plan

from .writer_support import count_steps, search_replace, tree

FILES = 6


def make_site(base: Path) -> tuple[Path, Path]:
    root, honeypot = base / "root", base / "honeypot"
    for i in range(FILES):
        (root / f"d{i % 2}").mkdir(parents=True, exist_ok=True)
        (root / f"d{i % 2}" / f"f{i}.py").write_text(f"x = {i}\n")
    (root / "zz").mkdir()
    (root / "zz" / "victim.txt").write_text("victim\n")
    honeypot.mkdir()
    (honeypot / "victim.txt").write_text("victim\n")  # the same bytes as the one inside
    (honeypot / "keep.txt").write_text("keep\n")
    return root, honeypot


REPLY = "".join(
    search_replace(f"d{i % 2}/f{i}.py", f"x = {i}\n", f"x = {i + 100}\n") for i in range(FILES)
) + search_replace("zz/victim.txt", "victim\n", "pwned\n")


def _steps(base: Path) -> int:
    root, _ = make_site(base)
    ws = DiskWorkspace(root)
    plan = plan_reply(parse_reply(REPLY), ws)
    with pytest.MonkeyPatch.context() as mp:
        counter = count_steps(mp)
        write_plan(plan, ws)
    return counter[0]


def _counted_once() -> int:
    """The apply's steps on this machine, counted when the tests are collected: one case
    per step, none beyond (a case past the last step would only be skipped)."""
    with tempfile.TemporaryDirectory() as base:
        return _steps(Path(base))


STEPS = _counted_once()


@pytest.mark.parametrize("at_step", range(1, STEPS + 1))
def test_a_folder_swapped_for_a_symlink_is_never_followed(tmp_path, monkeypatch, at_step):
    root, honeypot = make_site(tmp_path)
    outside = tree(honeypot)
    ws = DiskWorkspace(root)
    plan = plan_reply(parse_reply(REPLY), ws)
    assert plan.ok
    swapped = []

    def swap(n: int) -> None:
        if n == at_step:
            swapped.append(n)
            shutil.rmtree(root / "zz")
            (root / "zz").symlink_to("../honeypot")

    count_steps(monkeypatch, swap)
    try:
        write_plan(plan, ws)
    except WriteError as err:
        assert err.failure.code in (ErrorCode.STALE_VERSION, ErrorCode.OUTSIDE_WORKSPACE)
        assert err.failure.details["path"] == "zz/victim.txt", err.failure
        monkeypatch.undo()
        # undone everywhere else too
        for i in range(FILES):
            assert (root / f"d{i % 2}" / f"f{i}.py").read_text() == f"x = {i}\n"
    else:
        monkeypatch.undo()
    assert swapped
    assert tree(honeypot) == outside, f"swap at step {at_step} reached outside the root"
