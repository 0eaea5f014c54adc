"""Crash consistency: an apply killed at any step, then recovered, is all old or all new.

The writer journals what it is about to do before its first temporary file
(lsp_server/journal.py); the next apply, or `llm-patch recover`, rolls back an apply that
had not committed and finishes one that had. Here a forked child runs the writer and dies
(`os._exit`, no cleanup — as under SIGKILL) just before each of its disk-changing calls in
turn; then recovery runs, and the tree must be byte for byte, mode for mode, the tree before
or the tree a complete apply leaves, without a temporary file or a journal. Recovery is
killed at each of its own steps too. `fuzz/crash_loop.py` does the same with real SIGKILLs
at random moments of a 200-file apply; a short run of it is the last test here.
"""

from __future__ import annotations

import errno
import os
import shutil
from pathlib import Path

import pytest

from fuzz import crash_loop
from lsp_server import cli, writer
from lsp_server.journal import recover
from lsp_server.model import ErrorCode, FileAction, FileChange, Plan
from lsp_server.plan import plan_reply
from lsp_server.reply import parse_reply
from lsp_server.workspace import DiskWorkspace
from lsp_server.writer import WriteError, write_plan

from .writer_support import REPLY, count_steps, die_at, make_project, plan_for, tree


@pytest.fixture
def site(tmp_path: Path):
    """A project, its tree before, and the tree after a complete apply (made elsewhere)."""
    done = tmp_path / "done"
    make_project(done)
    plan, ws = plan_for(done)
    write_plan(plan, ws)
    root = tmp_path / "root"
    make_project(root)
    return root, tree(root), tree(done)


def fresh(root: Path) -> None:
    shutil.rmtree(root)
    make_project(root)


def steps_of(work, monkeypatch) -> int:
    with monkeypatch.context() as mp:
        counter = count_steps(mp)
        work()
    return counter[0]


def without(monkeypatch, what: str) -> None:
    """Take away what some systems lack: renameat2 (exchange, no-replace), hard links."""
    if what in ("exchange", "links"):
        monkeypatch.setattr(writer, "rename2", lambda *args: False)
    if what == "links":

        def no_links(*args, **kwargs):
            raise OSError(errno.EPERM, "Operation not permitted")

        monkeypatch.setattr(os, "link", no_links)


@pytest.mark.parametrize("lacking", ["", "exchange", "links"])
def test_dying_before_any_step_then_recovering_is_all_old_or_all_new(site, monkeypatch, lacking):
    root, before, after = site
    without(monkeypatch, lacking)
    plan, ws = plan_for(root)
    total = steps_of(lambda: write_plan(plan, ws), monkeypatch)
    fresh(root)
    outcomes = []
    for step in range(1, total + 2):
        fresh(root)
        code = die_at(step, monkeypatch, lambda: write_plan(plan, ws))
        assert code == (137 if step <= total else 0), step
        recover(root)
        now = tree(root)
        assert now in (before, after), f"killed before step {step}: a mixed tree"
        outcomes.append("old" if now == before else "new")
        assert recover(root).outcome == "nothing"  # nothing left to do a second time
    # the commit is one point: every kill before it rolls back, every kill after it finishes
    first_new = outcomes.index("new")
    assert outcomes == ["old"] * first_new + ["new"] * (len(outcomes) - first_new), outcomes
    assert 0 < first_new < total


def test_recovery_killed_at_any_step_is_finished_by_the_next_one(site, monkeypatch):
    root, before, after = site
    plan, ws = plan_for(root)
    total = steps_of(lambda: write_plan(plan, ws), monkeypatch)
    for step in range(2, total, 3):  # a third of the places an apply can die
        fresh(root)
        die_at(step, monkeypatch, lambda: write_plan(plan, ws))
        to_recover = steps_of(lambda: recover(root), monkeypatch)
        for rstep in range(1, to_recover + 1):
            fresh(root)
            die_at(step, monkeypatch, lambda: write_plan(plan, ws))
            assert die_at(rstep, monkeypatch, lambda: recover(root)) == 137
            recover(root)
            assert tree(root) in (before, after), f"apply died at {step}, recovery at {rstep}"


def test_the_next_apply_recovers_first_then_applies(site, monkeypatch, capsys):
    """Today's symptom: 16 of 200 files new, temporary files everywhere, and the re-run
    failing. Now the re-run finds the journal, rolls the tree back, and applies it whole."""
    root, _before, after = site
    plan, ws = plan_for(root)
    total = steps_of(lambda: write_plan(plan, ws), monkeypatch)
    fresh(root)
    die_at(total // 2, monkeypatch, lambda: write_plan(plan, ws))
    assert any(".llm-patch" in name for name in tree(root))
    reply = root.parent / "reply.md"
    reply.write_text(REPLY)
    assert cli.run(["check", str(reply), "--root", str(root)]) in (0, 1)
    assert "interrupted" in capsys.readouterr().err  # a check says so, and writes nothing
    assert any(".llm-patch" in name for name in tree(root))
    assert cli.run(["apply", str(reply), "--root", str(root)]) == 0
    assert "interrupted apply" in capsys.readouterr().err
    assert tree(root) == after


def test_recover_command_reports_what_it_did(site, monkeypatch, capsys):
    root, before, _after = site
    plan, ws = plan_for(root)
    die_at(8, monkeypatch, lambda: write_plan(plan, ws))
    assert cli.run(["recover", "--root", str(root)]) == 0
    out = capsys.readouterr().out
    assert "rolled back" in out and "src/a.py" in out
    assert tree(root) == before
    assert cli.run(["recover", "--root", str(root)]) == 0
    assert "no interrupted apply" in capsys.readouterr().out


def test_recover_sweeps_temporary_files_of_older_versions(tmp_path: Path, capsys):
    (tmp_path / "d").mkdir()
    (tmp_path / "d" / ".llm-patch-ab12_x9z").write_text("half a file")  # tempfile.mkstemp's
    (tmp_path / "d" / "keep.llm-patch-notes").write_text("a file of the user's")
    assert cli.run(["recover", "--root", str(tmp_path), "--json"]) == 0
    assert '"removed": 1' in capsys.readouterr().out
    assert sorted(p.name for p in (tmp_path / "d").iterdir()) == ["keep.llm-patch-notes"]


def test_a_reply_cannot_write_llm_patch_s_own_files(tmp_path: Path):
    """A journal is instructions to the next recovery: no reply may plant one. The plan
    refuses such a path (PROTECTED_PATH, in any spelling), and the writer refuses a plan
    that names one all the same."""
    for name in (".llm-patch.journal", "d/.llm-patch-0123456789abcdef.old"):
        reply = "*** Begin Patch\n*** Add File: " + name + "\n+{}\n*** End Patch\n"
        ws = DiskWorkspace(tmp_path)
        plan = plan_reply(parse_reply(reply), ws)
        assert not plan.files and plan.outcomes[0].failure.code is ErrorCode.PROTECTED_PATH
        planted = Plan((), (FileChange(name, FileAction.CREATE, None, "{}\n"),))
        with pytest.raises(WriteError) as err:
            write_plan(planted, ws)
        assert err.value.failure.code is ErrorCode.PERMISSION_DENIED
        assert list(tmp_path.rglob("*.journal")) == []
        assert not (tmp_path / "d").exists()


def test_a_re_run_reports_blocks_already_applied(tmp_path: Path):
    """After a complete apply (or a recovery that finished one), running the reply again
    says "already applied": not TEXT_AMBIGUOUS because the old line now looks like two of
    its neighbours, and never a fuzzy edit of the neighbour most like it (before, the second
    run turned `retry_limit_seconds = 1` into `retry_limit_second = compute()`)."""
    (tmp_path / "f.py").write_text("".join(f"v_0_{j} = {j}\n" for j in range(50)))
    (tmp_path / "g.py").write_text("retry_limit_seconds = 1\nretry_limit_second = 1\n")
    reply = crash_loop_block("f.py", "v_0_25 = 25\n", "v_0_25 = 'new'\n") + crash_loop_block(
        "g.py", "retry_limit_second = 1\n", "retry_limit_second = compute()\n"
    )
    ws = DiskWorkspace(tmp_path)
    first = plan_reply(parse_reply(reply), ws)
    assert first.ok
    write_plan(first, ws)
    again = plan_reply(parse_reply(reply), DiskWorkspace(tmp_path))
    assert [o.failure for o in again.outcomes] == [None, None]
    assert [o.already_applied for o in again.outcomes] == [True, True]
    assert again.files == ()


def crash_loop_block(path: str, old: str, new: str) -> str:
    return f"{path}\n```\n<<<<<<< SEARCH\n{old}=======\n{new}>>>>>>> REPLACE\n```\n"


def test_real_sigkills_at_random_moments(tmp_path: Path):
    """A short run of fuzz/crash_loop.py: five SIGKILLs of a real `llm-patch apply`, one
    aimed at each state of the journal, each followed by `llm-patch recover`."""
    rounds = crash_loop.run(
        kills=5,
        files=30,
        lines=800,
        seed=1414,
        targets=(None, "prepare", "commit", "committed", "commit"),
    )
    broken = [r for r in rounds if r.result.startswith("BROKEN")]
    assert not broken, crash_loop.summary(rounds)
    assert {r.result for r in rounds} <= {"old", "new"}
