"""What a reply of many blocks keeps alive per block (issue 26: the 1 MB path + fence row).

Every object the collector tracks is walked again by each full collection, and a reply of
55,556 blocks for one file triggers several while it is parsed and planned: so the parse
keeps one tracked object per block (the block itself), and the plan adds one per block (its
outcome) and one more per refused block (its failure; the failure's details hold only
numbers, strings and tuples of them, which the collector stops tracking). Counted after a
collection, so only what is kept counts, not what was made and freed."""

from __future__ import annotations

import gc

from lsp_server.model import PlanWarning
from lsp_server.plan import plan_reply
from lsp_server.reply import parse_reply
from lsp_server.workspace import DiskWorkspace

BLOCKS = 3_000


def _tracked() -> int:
    gc.collect()
    return len(gc.get_objects())


def test_blocks_and_their_outcomes_keep_few_tracked_objects(tmp_path):
    (tmp_path / "a.py").write_text("x = 1\n")
    reply = "a.py\n```\n" * (2 * BLOCKS)
    # a small reply of the same shape first: the modules and caches the plan loads on first
    # use are not the blocks' to count
    plan_reply(parse_reply(reply[:40]), DiskWorkspace(tmp_path))
    enabled = gc.isenabled()
    gc.disable()
    try:
        before = _tracked()
        parsed = parse_reply(reply)
        after_parse = _tracked()
        plan = plan_reply(parsed, DiskWorkspace(tmp_path))
        after_plan = _tracked()
    finally:
        if enabled:
            gc.enable()
    n = len(parsed.blocks)
    assert n >= BLOCKS - 1
    assert not plan.ok and len(plan.outcomes) == n
    assert all(isinstance(w, PlanWarning) for w in plan.warnings)
    refused = sum(o.failure is not None for o in plan.outcomes)
    assert refused > n // 4  # past the plan's budget the rest are refused untried
    assert after_parse - before <= n + 100  # the blocks, nothing else per block
    # an outcome per block and a failure per refused one, nothing else: the failure's
    # details hold numbers, strings and the block's own pair, so the collector drops them
    assert after_plan - after_parse <= n + refused + 100


def test_blocks_read_one_per_fence_carry_their_number_and_are_not_copied(monkeypatch):
    """`blocks_per_fence` numbers the blocks it makes in reply order, so a reply of one such
    format is numbered without a copy of each block (two blocks made for one, 55,556 times
    in the 1 MB row)."""
    import lsp_server.reply as package
    from lsp_server.reply import snippets, structural, whole_file
    from lsp_server.reply.common import ReplyLines, numbered

    copies = []

    def spy(block, index):
        out = numbered(block, index)
        copies.extend([out] if out is not block else [])
        return out

    monkeypatch.setattr(package, "numbered", spy)

    replies = {
        whole_file: "a.py\n```\nx = 1\n```\n" * 3,
        structural: "```python\n# FILE: a.py\n# TARGET_NODE: f\ndef f():\n    pass\n```\n" * 3,
        snippets: "In a.py:\n```python\ndef f():\n    return 1\n```\n" * 3,
    }
    for module, reply in replies.items():
        found = module.find_blocks(ReplyLines(reply))
        assert [b.index for b in found] == [0, 1, 2], module.__name__
        assert parse_reply(reply).blocks == tuple(found) and not copies, module.__name__
