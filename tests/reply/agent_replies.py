"""A reply placed end to end (parse, plan against files on disk) for the agent-format tests."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from lsp_server.model import Failure, Format, Plan
from lsp_server.plan import plan_reply
from lsp_server.reply import parse_reply
from lsp_server.workspace import DiskWorkspace


@dataclass(frozen=True)
class Placed:
    plan: Plan
    formats: list[Format]

    @property
    def texts(self) -> dict[str, str | None]:
        """Each changed file's text after the reply ("\\n" endings as written)."""
        out: dict[str, str | None] = {}
        for change in self.plan.files:
            out[change.new_path or change.path] = change.new_text
        return out

    def failure(self, block: int = 0) -> Failure:
        failure = self.plan.outcomes[block].failure
        assert failure is not None, self.plan.outcomes[block]
        return failure


def place(root: Path, files: dict[str, str], reply: str) -> Placed:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    parsed = parse_reply(reply)
    plan = plan_reply(parsed, DiskWorkspace(root))
    return Placed(plan, [b.format for b in parsed.blocks])


def fenced(value: object, language: str = "json") -> str:
    return f"```{language}\n{json.dumps(value, indent=2)}\n```"
