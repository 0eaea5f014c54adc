"""`llm-patch apply | check | recover | serve`: the terminal and script face of the same core.

Every subcommand's arguments are parsed here, once; `serve` hands them to the language
server (`lsp_server.lsp.server.serve`).

Exit codes: 0 every block placed (and written unless a dry run), 1 at least one block
failed (nothing written unless --partial; a reply over the limit is such a failure, read no
further than the limit), 2 usage error or unreadable reply (missing, not a regular file, or
not UTF-8 text: refused rather than read with replacement characters). `recover` exits 0
when the workspace is consistent afterwards (whether or not there was anything to do), 1
when it could not be made so.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from lsp_server.model import ErrorCode, Failure, ParsedReply, PlacementError, Plan
from lsp_server.report import render_human, report_json
from lsp_server.workspace import DiskWorkspace, read_regular

if TYPE_CHECKING:
    from lsp_server.journal import Recovery


def _host_port(value: str) -> tuple[str, int]:
    host, sep, port = value.rpartition(":")
    if not sep or not port.isdigit():
        raise argparse.ArgumentTypeError(f"wants HOST:PORT, got {value!r}")
    return host or "127.0.0.1", int(port)


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="llm-patch",
        description="Place the edits in an LLM reply into your files (or serve LSP).",
    )
    sub = p.add_subparsers(dest="command", required=True)
    for name, help_ in (
        ("apply", "apply a reply's edits"),
        ("check", "place a reply's edits without writing"),
    ):
        sp = sub.add_parser(name, help=help_)
        sp.add_argument("reply", help="file with the model's reply, or - for stdin")
        sp.add_argument("--root", default=".", help="workspace root (default: current folder)")
        sp.add_argument("--json", action="store_true", help="print the JSON report")
        sp.add_argument(
            "--fuzzy-threshold",
            type=float,
            default=None,
            help="similarity (0-1) a fuzzy match needs (default 0.8)",
        )
        sp.add_argument(
            "--protect",
            action="append",
            default=[],
            metavar="GLOB",
            help="refuse to write paths matching GLOB (repeatable; .git/, .hg/ and .svn/ "
            "always are)",
        )
        sp.add_argument(
            "--file",
            metavar="PATH",
            help="the file (relative to --root) a code snippet that names none applies to",
        )
        # the readings of a block the evidence leaves open (docs/snippets.md)
        sp.add_argument(
            "--as",
            dest="read_as",
            choices=("whole", "fragment"),
            help="read a fenced block that may be the whole file or a part of it as this",
        )
        rest = sp.add_mutually_exclusive_group()
        rest.add_argument(
            "--keep-rest",
            dest="rest",
            action="store_const",
            const="keep",
            help="a definition the reply shows cut short keeps the rest of the file's",
        )
        rest.add_argument(
            "--drop-rest",
            dest="rest",
            action="store_const",
            const="drop",
            help="a definition the reply shows cut short replaces the file's as written",
        )
        if name == "apply":
            sp.add_argument("--dry-run", action="store_true", help="show the diff, write nothing")
            sp.add_argument(
                "--partial",
                action="store_true",
                help="write the blocks that placed even if others failed",
            )
    rc = sub.add_parser(
        "recover", help="finish or roll back an apply that was interrupted (killed, crashed)"
    )
    rc.add_argument("--root", default=".", help="workspace root (default: current folder)")
    rc.add_argument("--json", action="store_true", help="print the result as JSON")
    sv = sub.add_parser("serve", help="run the language server")
    g = sv.add_mutually_exclusive_group()
    g.add_argument("--stdio", action="store_true", help="speak LSP on stdin/stdout (default)")
    g.add_argument("--tcp", metavar="HOST:PORT", type=_host_port, help="listen on a TCP port")
    sv.add_argument("--log-file", help="also write the server log to this file")
    sv.add_argument(
        "--log-level",
        default="warning",
        choices=_LogLevels(),
        metavar="LEVEL",  # argparse would list the choices, and so load them, when building
        help="level for --log-file: %(choices)s",
    )
    return p


class _LogLevels:
    """`serve --log-level`'s choices, the server's own (`llmPatch.logLevel`), read only when
    argparse checks or shows the option: their module loads `logging`, and `apply` and
    `check` start faster without it."""

    def __contains__(self, value: object) -> bool:
        return value in _log_levels()

    def __iter__(self) -> Iterator[str]:
        return iter(_log_levels())


def _log_levels() -> dict[str, int]:
    from lsp_server.lsp.settings import LOG_LEVELS  # logging: see _LogLevels

    return LOG_LEVELS


def run(argv: list[str]) -> int:
    try:
        args = _parser().parse_args(argv)
    except SystemExit as exc:
        return 0 if exc.code == 0 else 2
    if args.command == "serve":
        from lsp_server import boot  # the server's start-up corner (hashlib, the code cache)

        boot.begin()  # before pygls imports lsprotocol: see lsp_server.boot
        from lsp_server.lsp.server import serve  # pygls: only now, after boot.begin

        return serve(args.tcp, args.log_file, args.log_level)
    if args.command == "recover":
        return _recover(args)
    return _place(args)


def _place(args: argparse.Namespace) -> int:
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
            _print(report_json(Plan((), (), failure=err.failure), applied=False), True)
        return 2
    dry = args.command == "check" or args.dry_run
    partial = getattr(args, "partial", False)
    options = PlanOptions(
        atomic=not partial,
        protected=tuple(args.protect),
        target=args.file,
        read_as=args.read_as,
        rest=args.rest,
    )
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
        _print(report_json(plan, applied=False), args.json)
        return _exit_code(plan, None)
    applied = False
    write_failure: Failure | None = None
    try:
        # one apply at a time per workspace, from reading the files to the last rename, so
        # two applies started together both land instead of one undoing the other
        with workspace_lock(ws.root):
            _say_recovered(journal.recover(ws.root))
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
            _print(report_json(Plan((), (), failure=err.failure), applied=False), True)
        return 1
    report = report_json(plan, applied=applied, error=write_failure)
    _print(report, args.json)
    return _exit_code(plan, write_failure)


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


def _say_recovered(recovery: Recovery) -> None:
    if recovery.outcome == "nothing":
        return
    print(f"llm-patch: {_recovery_words(recovery)}", file=sys.stderr)


def _recovery_words(recovery: Recovery) -> str:
    if recovery.outcome == "nothing":
        return "no interrupted apply to recover" + (
            f"; {recovery.removed} leftover temporary files removed" if recovery.removed else ""
        )
    files = ", ".join(recovery.paths[:10]) + (" ..." if len(recovery.paths) > 10 else "")
    how = (
        "rolled back: every file is as it was before it"
        if recovery.outcome == "rolled back"
        else "completed: it had committed, every file holds its new text"
    )
    return f"an interrupted apply ({len(recovery.paths)} files: {files}) was {how}"


def _recover(args: argparse.Namespace) -> int:
    """`recover`: what an apply killed half-way left behind, finished or undone."""
    from lsp_server import boot, journal  # with the writer: see _place
    from lsp_server.disk import WriteError

    boot.finish()

    root = Path(args.root)
    if not root.is_dir():
        print(f"llm-patch: --root {args.root} is not a folder", file=sys.stderr)
        return 2
    try:
        recovery = journal.recover(root, sweep=True)
    except WriteError as err:
        if args.json:
            _print({"ok": False, "error": err.failure.to_json()}, True)
        else:
            print(f"llm-patch: {err.failure.message}", file=sys.stderr)
        return 1
    if args.json:
        result = {
            "ok": True,
            "outcome": recovery.outcome,
            "paths": list(recovery.paths),
            "removed": recovery.removed,
        }
        _print(result, True)
    else:
        print(f"llm-patch: {_recovery_words(recovery)}")
    return 0


def _exit_code(plan: Plan, write_failure: Failure | None) -> int:
    if plan.failure is not None and plan.failure.code is ErrorCode.NO_EDIT_BLOCKS:
        return 1
    return 0 if plan.ok and write_failure is None else 1


def _print(report: dict, as_json: bool) -> None:
    if as_json:
        sys.stdout.write(json.dumps(report, indent=2, ensure_ascii=False) + "\n")
        return
    color = sys.stdout.isatty()
    sys.stdout.write(render_human(report, color=color))


def main() -> None:
    sys.exit(run(sys.argv[1:]))


if __name__ == "__main__":
    main()
