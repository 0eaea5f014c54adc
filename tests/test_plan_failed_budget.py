"""A reply of thousands of near-miss blocks is refused early, not searched for minutes
(issue 14): once the blocks that failed or matched only approximately have searched
`LOOSE_WORK_LINES` file lines, the rest is refused untried."""

from __future__ import annotations

from lsp_server import plan as plan_module
from lsp_server.model import (
    Action,
    EditBlock,
    ErrorCode,
    Format,
    Hunk,
    MatchKind,
    ParsedReply,
    Snapshot,
    Status,
)
from lsp_server.plan import PlanOptions, plan_reply


class _Files:
    def __init__(self, files: dict[str, str]):
        self.files = files

    def snapshot(self, path: str) -> Snapshot:
        return Snapshot(path, self.files.get(path))


def _file(n: int) -> str:
    return "".join(f"def f_{i}(x):\n    return x * {i} + {i % 7}\n\n" for i in range(n // 3))


def _block(i: int, old: str, new: str) -> EditBlock:
    return EditBlock(Format.SEARCH_REPLACE, "m.py", (i, i), hunks=(Hunk(old, new),), index=i)


def test_near_misses_past_the_budget_are_refused_untried() -> None:
    text = _file(6000)
    lines = text.count("\n") + 1
    # blocks found nowhere: each climbs every rung and searches for its closest region
    blocks = [_block(i, f"class Missing{i}:\n    size = {i}\n", f"m{i} = 1\n") for i in range(700)]
    # and one that would place, after them
    blocks.append(_block(700, "def f_5(x):\n", "def f_5(z):\n"))
    plan = plan_reply(ParsedReply(tuple(blocks)), _Files({"m.py": text}), PlanOptions(atomic=False))
    tried = [o for o in plan.outcomes if not o.failure or not o.failure.details.get("not_tried")]
    untried = plan.outcomes[len(tried) :]
    # the failed blocks were tried until their files' lines passed the budget, no further
    assert len(tried) == plan_module.LOOSE_WORK_LINES // lines + 1
    assert all(o.failure and o.failure.code is ErrorCode.TEXT_NOT_FOUND for o in tried)
    assert untried and all(o.status is Status.FAILED for o in untried)
    last = untried[-1].failure
    assert last is not None and last.code is ErrorCode.CONTENT_TOO_LARGE
    assert "not tried" in last.message and f"{len(tried):,} earlier blocks" in last.message
    assert last.details["loose_blocks"] == len(tried)
    assert not plan.files  # the block that would have placed was not tried either


def test_approximate_placements_count_too() -> None:
    text = _file(6000)
    lines = text.count("\n") + 1
    # each block quotes a function with its constant changed: found only approximately
    blocks = [
        _block(i, f"def f_{i}(x):\n    return x * {i} + {i % 7 + 1}\n", f"f_{i} = {i}\n")
        for i in range(0, 6000, 3)
    ]
    plan = plan_reply(ParsedReply(tuple(blocks)), _Files({"m.py": text}), PlanOptions(atomic=False))
    tried = [o for o in plan.outcomes if not o.failure or not o.failure.details.get("not_tried")]
    # each placement takes a line out of the file: the later ones count one line fewer
    budget = plan_module.LOOSE_WORK_LINES
    assert budget // lines + 1 <= len(tried) <= budget // (lines - len(tried)) + 1
    assert all(o.placed and o.match is MatchKind.FUZZY for o in tried)
    assert len(plan.outcomes) > len(tried)


def test_blocks_found_already_applied_count_too() -> None:
    """A block whose old text is gone but whose new text is there (found only after the
    ladder failed) is as costly as a failed one."""
    text = _file(6000) + "done = 1\n"
    blocks = [_block(i, f"class Missing{i}:\n", "done = 1\n") for i in range(700)]
    plan = plan_reply(ParsedReply(tuple(blocks)), _Files({"m.py": text}), PlanOptions(atomic=False))
    tried = [o for o in plan.outcomes if not o.failure or not o.failure.details.get("not_tried")]
    assert all(o.already_applied for o in tried)
    assert len(tried) == plan_module.LOOSE_WORK_LINES // (text.count("\n") + 1) + 1


def test_a_reply_with_a_few_failures_is_tried_in_full() -> None:
    text = _file(6000)
    blocks = [_block(0, "class Missing:\n", "pass\n"), _block(1, "def f_5(x):\n", "def f_5(z):\n")]
    plan = plan_reply(ParsedReply(tuple(blocks)), _Files({"m.py": text}), PlanOptions(atomic=False))
    assert [o.status for o in plan.outcomes] == [Status.FAILED, Status.VALIDATED]
    assert plan.files and "def f_5(z):" in (plan.files[0].new_text or "")


def test_loose_blocks_on_small_files_count_their_own_cost() -> None:
    """Thousands of whole-file blocks for a one-line file, each already applied once the
    first has placed: every block costs a grammar parse of itself whatever its file's size,
    so a megabyte of them took 20 s and more. Each counts `LOOSE_BLOCK_LINES` at least."""
    blocks = [
        EditBlock(Format.WHOLE_FILE, "a.py", (i, i), Action.LAZY, content="a = 2\n", index=i)
        for i in range(3_000)
    ]
    plan = plan_reply(
        ParsedReply(tuple(blocks)), _Files({"a.py": "a = 1\n"}), PlanOptions(atomic=False)
    )
    tried = [o for o in plan.outcomes if not o.failure or not o.failure.details.get("not_tried")]
    assert tried[0].placed and not tried[0].already_applied
    assert all(o.already_applied for o in tried[1:])
    limit = plan_module.LOOSE_WORK_LINES // plan_module.LOOSE_BLOCK_LINES
    assert len(tried) == 1 + limit + 1
    untried = plan.outcomes[len(tried) :]
    assert untried and all(o.failure and o.failure.details["not_tried"] for o in untried)
    assert plan.files and plan.files[0].new_text == "a = 2\n"
