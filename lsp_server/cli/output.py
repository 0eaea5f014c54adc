"""A report on the terminal or as JSON, and the exit code it means."""

from __future__ import annotations

import json
import sys

from lsp_server.model import ErrorCode, Failure, Plan
from lsp_server.report import render_human


def exit_code(plan: Plan, write_failure: Failure | None) -> int:
    if plan.failure is not None and plan.failure.code is ErrorCode.NO_EDIT_BLOCKS:
        return 1
    return 0 if plan.ok and write_failure is None else 1


def _print(report: dict, as_json: bool) -> None:
    if as_json:
        sys.stdout.write(json.dumps(report, indent=2, ensure_ascii=False) + "\n")
        return
    color = sys.stdout.isatty()
    sys.stdout.write(render_human(report, color=color))


def print_json(report: dict) -> None:
    sys.stdout.write(json.dumps(report, indent=2, ensure_ascii=False) + "\n")


def print_report(report: dict, as_json: bool) -> None:
    if as_json:
        print_json(report)
        return
    color = sys.stdout.isatty()
    sys.stdout.write(render_human(report, color=color))
