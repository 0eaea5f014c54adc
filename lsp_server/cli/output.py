"""A report on the terminal or as JSON, the colours it gets, and the exit code it means."""

from __future__ import annotations

import json
import os
import sys
from typing import Any

from lsp_server.model import ErrorCode, Failure, Plan
from lsp_server.terminal import Context, render_human


def exit_code(plan: Plan, write_failure: Failure | None) -> int:
    if plan.failure is not None and plan.failure.code is ErrorCode.NO_EDIT_BLOCKS:
        return 1
    return 0 if plan.ok and write_failure is None else 1


def use_color(choice: str, stream: Any = None) -> bool:
    """`--color auto` colours a terminal unless NO_COLOR is set (to anything but the empty
    string, https://no-color.org); `always` and `never` are what they say."""
    if choice == "always":
        return True
    if choice == "never":
        return False
    if os.environ.get("NO_COLOR", ""):
        return False
    stream = stream or sys.stdout
    return bool(getattr(stream, "isatty", lambda: False)())


def print_json(report: dict) -> None:
    sys.stdout.write(json.dumps(report, indent=2, ensure_ascii=False) + "\n")


def print_report(
    report: dict, as_json: bool, *, color: str = "auto", context: Context | None = None
) -> None:
    if as_json:
        print_json(report)
        return
    sys.stdout.write(render_human(report, color=use_color(color), context=context))
