"""A block reported already applied holds in the file written.

Found on a real reply (`Todofine0/storm_con_aider`, tests/replay `aider-storm/...` notes in
SOURCES.md): the model restates an insertion an earlier turn made (block 1: the check goes
before `finish()`) and, in the same reply, wraps the lines above it in a `try:` (block 2).
Block 1 is reported already applied — the file holds its new text at its anchor — and block
2 then moves that very text into the `try:`. The file written no longer holds block 1's new
text at its anchor, exit 0: the verdict block 1 was given is not true of the result.
aider, applying the blocks in order, writes the check twice (inside the `try:` and before
`finish()`). Two readings with different files: the reply is refused naming them, or placed
so that every block's verdict is true of what is written — never a verdict the result
contradicts.
"""

from __future__ import annotations

from pathlib import Path

from lsp_server.plan import PlanOptions, plan_reply
from lsp_server.reply import parse_reply
from lsp_server.workspace import DiskWorkspace
from lsp_server.writer import write_plan

FILE = "def f():\n    run()\n    log = path()\n    show(log)\n    finish()\n"

RESTATED = "    show(log)\n    finish()\n"  # block 1's new text: already in the file

REPLY = (
    "m.py\n```python\n<<<<<<< SEARCH\n    finish()\n=======\n"
    + RESTATED
    + ">>>>>>> REPLACE\n```\n\n"
    "m.py\n```python\n<<<<<<< SEARCH\n    run()\n    log = path()\n    show(log)\n=======\n"
    "    try:\n        run()\n        log = path()\n        show(log)\n"
    "    except Exception:\n        pass\n>>>>>>> REPLACE\n```\n"
)


def test_a_block_reported_already_applied_holds_in_the_file_written(tmp_path: Path):
    (tmp_path / "m.py").write_text(FILE)
    plan = plan_reply(parse_reply(REPLY), DiskWorkspace(tmp_path), PlanOptions())
    if not plan.ok:
        return  # refused: the two readings are the user's to choose
    write_plan(plan, DiskWorkspace(tmp_path))
    written = (tmp_path / "m.py").read_text()
    for outcome in plan.outcomes:
        if outcome.already_applied:
            new = outcome.block.hunks[0].new
            assert new in written, f"block reported already applied, its text not in:\n{written}"


def test_the_block_whose_evidence_a_later_block_rewrites_is_refused_naming_the_readings(
    tmp_path: Path,
):
    (tmp_path / "m.py").write_text(FILE)
    plan = plan_reply(parse_reply(REPLY), DiskWorkspace(tmp_path), PlanOptions())
    assert not plan.ok and plan.files == ()
    first, second = plan.outcomes
    assert first.failure is not None and first.failure.code.value == "TEXT_AMBIGUOUS"
    assert first.failure.details["readings"] == ["already applied", "apply again"]
    assert first.failure.details["rewritten_by"] == [second.block.index]
    assert "reply lines" in first.failure.message


def test_a_verdict_no_later_block_touches_stands(tmp_path: Path):
    # the same restated insertion, the later block editing another line: already applied
    (tmp_path / "m.py").write_text(FILE)
    reply = REPLY.split("\n\nm.py\n")[0] + (
        "\n\nm.py\n```python\n<<<<<<< SEARCH\n    run()\n=======\n    start()\n"
        ">>>>>>> REPLACE\n```\n"
    )
    plan = plan_reply(parse_reply(reply), DiskWorkspace(tmp_path), PlanOptions())
    assert plan.ok, plan.outcomes
    assert plan.outcomes[0].already_applied
    (change,) = plan.files
    assert change.new_text == FILE.replace("run()", "start()")
