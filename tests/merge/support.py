"""Planning one reply against a few files, for the merge room's tests."""

from __future__ import annotations

from pathlib import Path

from lsp_server.model import ErrorCode, Status
from lsp_server.plan import PlanOptions, plan_reply
from lsp_server.reply import parse_reply
from lsp_server.workspace import DiskWorkspace


def plan(root: Path, files: dict[str, str], reply: str, **options):
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return plan_reply(parse_reply(reply), DiskWorkspace(root), PlanOptions(**options))


def written(p, path: str) -> str:
    """The new text of `path`; the plan must be ok."""
    assert p.ok, [o.failure for o in p.outcomes]
    (change,) = [c for c in p.files if c.path == path]
    return change.new_text


def refused_with(p, *names: str):
    """The one outcome is refused, nothing is written, and it names `names` readings."""
    (outcome,) = p.outcomes
    assert outcome.status is Status.FAILED and not p.files, outcome
    offered = [r["name"] for r in outcome.failure.details.get("readings", [])]
    assert offered == list(names), outcome.failure
    for r in outcome.failure.details["readings"]:
        assert r["flag"] in outcome.failure.message
    return outcome.failure


def refused(p, code: ErrorCode):
    (outcome,) = p.outcomes
    assert outcome.status is Status.FAILED and not p.files, outcome
    assert outcome.failure.code is code, outcome.failure
    return outcome.failure
