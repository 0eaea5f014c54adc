"""A block whose change is already in the workspace is reported as already applied
(issue 16, truthful feedback): a second run of a reply finds nothing to change, whatever
rung placed it the first time, and V4A deletes and moves that were carried out are not
turned into FILE_NOT_FOUND."""

from __future__ import annotations

import tempfile
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from lsp_server.model import ErrorCode, FileAction, MatchKind, Status
from lsp_server.plan import PlanOptions, plan_reply
from lsp_server.reply import parse_reply
from lsp_server.workspace import DiskWorkspace
from lsp_server.writer import write_plan


def _sr(path: str, old: str, new: str) -> str:
    return f"{path}\n```\n<<<<<<< SEARCH\n{old}=======\n{new}>>>>>>> REPLACE\n```\n"


def _v4a(*ops: str) -> str:
    return "```\n*** Begin Patch\n" + "".join(ops) + "*** End Patch\n```\n"


def _run(root: Path, reply: str):
    plan = plan_reply(parse_reply(reply), DiskWorkspace(root), PlanOptions())
    return plan


def _apply(root: Path, reply: str):
    plan = _run(root, reply)
    assert plan.ok, [o.failure for o in plan.outcomes]
    write_plan(plan, DiskWorkspace(root))
    return plan


LINES = [f"    v{i} = compute({i}, {i * 7 % 11}, {i * 3 % 5})\n" for i in range(12)]


@settings(max_examples=60, deadline=None)
@given(
    start=st.integers(0, 8),
    size=st.integers(3, 4),
    typo=st.one_of(st.none(), st.integers(0, 3)),
    changed=st.integers(0, 3),
)
def test_a_second_run_changes_nothing_and_says_already_applied(start, size, typo, changed):
    """Whatever rung placed a block (exact, or fuzzy when the SEARCH has a typo on a line it
    keeps), running it again changes nothing and every block says so. The oracle is the
    file itself: the second plan must leave its bytes alone."""
    changed %= size
    window = LINES[start : start + size]
    old = list(window)
    if typo is not None and typo % size != changed:
        old[typo % size] = old[typo % size].replace("compute", "compure")
    new = list(old)
    new[changed] = new[changed].replace(")", ") + 1")
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        (root / "m.py").write_text("def f():\n" + "".join(LINES))
        reply = _sr("m.py", "".join(old), "".join(new))
        _apply(root, reply)
        after = (root / "m.py").read_bytes()
        again = _run(root, reply)
        assert again.ok
        assert again.files == ()
        assert [o.already_applied for o in again.outcomes] == [True]
        assert (root / "m.py").read_bytes() == after


def test_a_carried_out_delete_and_move_are_already_applied(tmp_path: Path):
    (tmp_path / "old.py").write_text("a = 1\n")
    (tmp_path / "mv.py").write_text("q = 1\n")
    reply = _v4a(
        "*** Delete File: old.py\n",
        "*** Update File: mv.py\n*** Move to: lib/moved.py\n@@\n-q = 1\n+q = 2\n",
    )
    first = _apply(tmp_path, reply)
    assert {c.action for c in first.files} == {FileAction.DELETE, FileAction.RENAME}
    again = _run(tmp_path, reply)
    assert again.ok, [o.failure for o in again.outcomes]
    assert again.files == ()
    assert [(o.match, o.already_applied) for o in again.outcomes] == [
        (MatchKind.DELETE, True),
        (MatchKind.RENAME, True),
    ]


def test_a_move_whose_destination_lacks_the_change_is_not_applied_yet(tmp_path: Path):
    (tmp_path / "moved.py").write_text("q = 7\n")
    reply = _v4a("*** Update File: mv.py\n*** Move to: moved.py\n@@\n-q = 1\n+q = 2\n")
    (outcome,) = _run(tmp_path, reply).outcomes
    assert outcome.status is Status.FAILED
    assert outcome.failure.code is ErrorCode.FILE_NOT_FOUND


def test_deleting_a_missing_file_named_like_another_is_refused_naming_it(tmp_path: Path):
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "util.py").write_text("x = 1\n")
    (outcome,) = _run(tmp_path, _v4a("*** Delete File: util.py\n")).outcomes
    assert outcome.failure.code is ErrorCode.FILE_NOT_FOUND
    assert outcome.failure.details["did_you_mean"] == "src/util.py"
    assert "did you mean src/util.py?" in outcome.failure.message


def test_deleting_twice_in_one_reply_is_still_an_error(tmp_path: Path):
    (tmp_path / "a.py").write_text("a = 1\n")
    plan = _run(tmp_path, _v4a("*** Delete File: a.py\n", "*** Delete File: a.py\n"))
    assert [o.status for o in plan.outcomes] == [Status.SKIPPED, Status.FAILED]
