"""`llm-patch apply` and `check`: read the reply, plan it against the files, report, write."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from lsp_server.cli.output import exit_code, print_report
from lsp_server.cli.recover import say_recovered
from lsp_server.model import ErrorCode, Failure, ParsedReply, PlacementError, Plan
from lsp_server.report import report_json
from lsp_server.workspace import DiskWorkspace, read_regular


def place(args: argparse.Namespace) -> int:
    """`apply` and `check`."""
    # the engine loads here rather than with this module: `serve` parses its arguments
    # here too, and answers the editor's `initialize` before it needs the engine
    from lsp_server import boot, journal
    from lsp_server.disk import WriteError, workspace_lock
    from lsp_server.plan import PlanOptions, plan_reply
    from lsp_server.reply import MAX_REPLY_BYTES, decode_reply, parse_reply
    from lsp_server.writer import write_plan

    boot.finish()  # the engine is loaded: collection back on (see lsp_server.boot)

    root = Path(args.root)
    if not root.is_dir():
        print(f"llm-patch: --root {args.root} is not a folder", file=sys.stderr)
        return 2
    name = "stdin" if args.reply == "-" else args.reply
    try:
        data = _read_reply(args.reply, MAX_REPLY_BYTES)
        # over the limit is the plan's refusal (a report, exit 1), as for any large reply;
        # the bytes read stop one past the limit, so they are not decoded
        text = "" if len(data) > MAX_REPLY_BYTES else decode_reply(data, name)
    except OSError as err:
        print(f"llm-patch: cannot read {args.reply}: {err.strerror or err}", file=sys.stderr)
        return 2
    except PlacementError as err:  # not a regular file, not UTF-8 text
        print(f"llm-patch: {err.failure.message}", file=sys.stderr)
        if args.json:  # the report shape, with the reason as its error; nothing was read
            print_report(report_json(Plan((), (), failure=err.failure), applied=False), True)
        return 2
    dry = args.command == "check" or args.dry_run
    partial = getattr(args, "partial", False)
    options = PlanOptions(atomic=not partial, protected=tuple(args.protect), target=args.file)
    if args.fuzzy_threshold is not None:
        options = options._replace(fuzzy_threshold=args.fuzzy_threshold)
    ws = DiskWorkspace(root)
    if len(data) > MAX_REPLY_BYTES:
        parsed = ParsedReply((), _too_large(name, MAX_REPLY_BYTES))
    else:
        parsed = parse_reply(text)
    if dry:
        if journal.pending(ws.root):
            print(
                "llm-patch: an apply in this workspace was interrupted; this check reads the "
                "files as it left them — `llm-patch recover` (or the next apply) sets them "
                "right first",
                file=sys.stderr,
            )
        plan = plan_reply(parsed, ws, options)
        print_report(report_json(plan, applied=False), args.json)
        return exit_code(plan, None)
    applied = False
    write_failure: Failure | None = None
    try:
        # one apply at a time per workspace, from reading the files to the last rename, so
        # two applies started together both land instead of one undoing the other
        with workspace_lock(ws.root):
            say_recovered(journal.recover(ws.root))
            plan = plan_reply(parsed, ws, options)
            if plan.files:
                try:
                    write_plan(plan, ws)
                    applied = True
                except WriteError as err:
                    write_failure = err.failure
    except WriteError as err:  # the lock, or an interrupted apply that could not be undone
        print(f"llm-patch: {err.failure.message}", file=sys.stderr)
        if args.json:
            print_report(report_json(Plan((), (), failure=err.failure), applied=False), True)
        return 1
    report = report_json(plan, applied=applied, error=write_failure)
    print_report(report, args.json)
    return exit_code(plan, write_failure)


def _read_reply(name: str, limit: int) -> bytes:
    """The reply's bytes, at most `limit + 1` of them (one more than the limit says it is
    too large): stdin (often a pipe) is read that far; a named reply must be a regular
    file, since a FIFO may never deliver and a device such as /dev/zero never ends."""
    if name == "-":
        data = sys.stdin.buffer.read(limit + 1)
    else:
        try:
            data = read_regular(name, name, limit, follow=True)
        except PlacementError as err:
            if err.failure.details.get("kind") == "fifo":  # say how to read it anyway
                raise PlacementError.of(
                    err.failure.code,
                    f"{err.failure.message}; to read a reply from a pipe, give `-` and "
                    f"redirect it: `- < {name}`",
                    **err.failure.details,
                ) from None
            raise
    return data


def _too_large(name: str, limit: int) -> Failure:
    return Failure(
        ErrorCode.CONTENT_TOO_LARGE,
        f"the reply ({name}) is over {limit:,} bytes, the limit; it was not read further. "
        "Ask the model for smaller patches, one file at a time.",
        {"limit": limit},
    )
