"""`llm-patch apply` and `check`: read the reply, plan it against the files, report, write."""

from __future__ import annotations

import dataclasses
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from lsp_server.cli import explain, roots
from lsp_server.cli.output import exit_code, print_report
from lsp_server.cli.recover import say_recovered
from lsp_server.model import ErrorCode, Failure, ParsedReply, PlacementError, Plan
from lsp_server.report import render, report_json
from lsp_server.terminal import Context
from lsp_server.workspace import DiskWorkspace, read_regular

if TYPE_CHECKING:
    import argparse
    from types import SimpleNamespace

    from lsp_server.plan import PlanOptions

    # the command line as read: by argparse, or by `cli.fast_args` for the usual line
    Args = argparse.Namespace | SimpleNamespace

STRICT_HINT = "--strict refuses an edit that breaks its file's syntax"


def find_root(args: Args) -> roots.Root | None:
    """The command's root (`--root`, else the enclosing repository's top), or None after
    saying why there is none."""
    if args.root is not None and not Path(args.root).is_dir():
        print(f"llm-patch: --root {args.root} is not a folder", file=sys.stderr)
        return None
    return roots.find_root(args.root)


def place(args: Args) -> int:
    """`apply` and `check`."""
    # the engine loads here rather than with this module: `serve` parses its arguments
    # here too, and answers the editor's `initialize` before it needs the engine
    from lsp_server import boot, journal
    from lsp_server.disk import WriteError, workspace_lock
    from lsp_server.plan import PlanOptions, fuzzy_retries, plan_reply
    from lsp_server.reply import MAX_REPLY_BYTES, decode_reply, parse_reply

    boot.finish()  # the engine is loaded: collection back on (see lsp_server.boot)

    root = find_root(args)
    if root is None:
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
    target = roots.typed_path(args.file, root) if args.file else None
    if args.file and target is None:
        print(f"llm-patch: --file {args.file} is outside the root {root.path}", file=sys.stderr)
        return 2
    dry = args.command == "check" or args.dry_run
    partial = getattr(args, "partial", False)
    options = PlanOptions(
        atomic=not partial,
        protected=tuple(args.protect),
        target=target,
        read_as=args.read_as,
        rest=args.rest,
    )
    if args.fuzzy_threshold is not None:
        options = options._replace(fuzzy_threshold=args.fuzzy_threshold)
    ws = DiskWorkspace(root.path)
    if len(data) > MAX_REPLY_BYTES:
        parsed = ParsedReply((), _too_large(name, MAX_REPLY_BYTES))
    elif not text.strip():
        parsed = ParsedReply((), _empty(name))
    else:
        parsed = parse_reply(text)
    total = len(parsed.blocks)
    if args.only:
        missing = [n for n in args.only if n > total]
        if missing:
            print(
                f"llm-patch: --only {','.join(map(str, missing))}: the reply has "
                f"{total} block{'' if total == 1 else 's'} (numbered from 1)",
                file=sys.stderr,
            )
            return 2
        chosen = {n - 1 for n in args.only}
        parsed = ParsedReply(tuple(b for b in parsed.blocks if b.index in chosen), parsed.failure)
    if args.strip_prefix:
        parsed = explain.strip_prefixes(parsed, tuple(args.strip_prefix))
    context = Context(roots.describe(root), dry, tuple(args.only or ()), total, every=args.every)
    if dry:
        if journal.pending(ws.root):
            print(
                "llm-patch: an apply in this workspace was interrupted; this check reads the "
                "files as it left them — `llm-patch recover` (or the next apply) sets them "
                "right first",
                file=sys.stderr,
            )
        plan = plan_reply(parsed, ws, options)
        refused = explain.strict_refusals(plan) if args.strict else {}
        report = _report(plan, False, None, refused, root, options, args)
        explain.add_retries(report["blocks"], fuzzy_retries(plan, ws, options))
        print_report(report, args.json, color=args.color, context=context)
        return 1 if refused else exit_code(plan, None)
    applied = False
    write_failure: Failure | None = None
    refused: dict[str, Failure] = {}
    try:
        # one apply at a time per workspace, from reading the files to the last rename, so
        # two applies started together both land instead of one undoing the other
        with workspace_lock(ws.root):
            say_recovered(journal.recover(ws.root))
            plan = plan_reply(parsed, ws, options)
            refused = explain.strict_refusals(plan) if args.strict else {}
            writing = plan
            if refused:
                kept = () if not partial else [f for f in plan.files if f.path not in refused]
                writing = dataclasses.replace(plan, files=tuple(kept))
            if writing.files:
                # only when something is written: a check, or an apply that writes
                # nothing, never needs them
                from lsp_server.cli import undo_record
                from lsp_server.writer import write_plan

                record = undo_record.prepare(writing, ws)
                try:
                    for note in write_plan(writing, ws):  # kept beside the tree: say where
                        print(f"llm-patch: written; {note}", file=sys.stderr)
                    applied = True
                except WriteError as err:
                    write_failure = err.failure
                if applied and undo_record.keep(root, record):
                    again = "" if root.how != "given" else f" --root {args.root}"
                    context = context._replace(undo=f"llm-patch undo{again}")
    except WriteError as err:  # the lock, or an interrupted apply that could not be undone
        print(f"llm-patch: {err.failure.message}", file=sys.stderr)
        if args.json:
            print_report(report_json(Plan((), (), failure=err.failure), applied=False), True)
        return 1
    report = _report(plan, applied, write_failure, refused, root, options, args)
    if not plan.ok:  # the blocks a looser threshold would place, each planned to prove it
        explain.add_retries(report["blocks"], fuzzy_retries(plan, ws, options))
    print_report(report, args.json, color=args.color, context=context)
    return 1 if refused else exit_code(plan, write_failure)


def _report(
    plan: Plan,
    applied: bool,
    write_failure: Failure | None,
    refused: dict[str, Failure],
    root: roots.Root,
    options: PlanOptions,
    args: Args,
) -> dict:
    """The JSON report, with what the command line knows beside the plan: the root, where
    a missing file might be, why a close match was not taken, which blocks `--only` chose;
    a file `--strict` refused is not among the changes."""
    report = report_json(plan, applied=applied, error=write_failure, failures=refused or None)
    report["root"] = str(root.path)
    if args.only:
        report["only"] = [n - 1 for n in args.only]  # as the JSON counts: `index`
    explain.annotate(report["blocks"], root, options.fuzzy_threshold)
    if not args.strict:
        for w in report["warnings"]:
            if w["type"] == "SYNTAX_BROKEN":
                w["hint"] = STRICT_HINT
    if refused:
        report["files"] = [f for f in report["files"] if f["path"] not in refused]
        # the refusal says it at the block; a warning to "check the result" of a file
        # nothing was written to would say it twice, and wrongly
        report["warnings"] = [
            w
            for w in report["warnings"]
            if not (w["type"] == "SYNTAX_BROKEN" and w.get("path") in refused)
        ]
        if options.atomic:  # held back, as when any other block fails: nothing to show
            report["files"] = []
            for entry in report["blocks"]:
                if entry["status"] == "validated":
                    entry["status"] = "skipped"
        report.update(render(report))
    return report


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


def _empty(name: str) -> Failure:
    return Failure(
        ErrorCode.NO_EDIT_BLOCKS,
        f"the reply ({name}) is empty: there is nothing to apply (did the copy, the file "
        "or the pipe deliver it?)",
        {"empty": True},
    )
