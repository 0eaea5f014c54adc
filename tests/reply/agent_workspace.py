"""A reply planned end to end against files held in memory: what the agents' format tests
(Cline, Roo Code, OpenHands) check a reply by - the files it leaves, and each block's
outcome."""

from __future__ import annotations

import os
from dataclasses import dataclass

from lsp_server.model import BlockOutcome, ErrorCode, Format, Plan, Snapshot
from lsp_server.plan import PlanOptions, plan_reply
from lsp_server.reply import parse_reply
from lsp_server.workspace import relative_path


class Files:
    """An in-memory SnapshotSource: the plan without a disk."""

    def __init__(self, files: dict[str, str]):
        self.files = files

    def relative(self, path: str) -> str:
        return relative_path(path)

    def snapshot(self, path: str) -> Snapshot:
        rel = relative_path(path)
        return Snapshot(rel, self.files.get(rel))


@dataclass(frozen=True)
class Placed:
    """A planned reply: the plan, and every file's text after it (those it did not touch as
    they were)."""

    plan: Plan
    files: dict[str, str]

    @property
    def outcomes(self) -> tuple[BlockOutcome, ...]:
        return self.plan.outcomes

    def formats(self) -> list[Format]:
        return [o.block.format for o in self.outcomes]

    def codes(self) -> list[ErrorCode | None]:
        return [o.failure.code if o.failure else None for o in self.outcomes]


def place(reply: str, files: dict[str, str], atomic: bool = True) -> Placed:
    """Parse `reply` and plan it against `files` (path -> text)."""
    plan = plan_reply(parse_reply(reply), Files(dict(files)), PlanOptions(atomic=atomic))
    after = dict(files)
    for change in plan.files:
        if change.new_text is None:
            after.pop(change.path, None)
        else:
            after[change.new_path or change.path] = change.new_text
    return Placed(plan, after)


def examples(n: int) -> int:
    """`n` hypothesis examples, or twenty times as many for a long run
    (HYPOTHESIS_PROFILE=long)."""
    return n * 20 if os.environ.get("HYPOTHESIS_PROFILE") == "long" else n
