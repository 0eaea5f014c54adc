"""The command line's arguments: one parser for every subcommand, built here once.

Each subcommand's options are added by a function of their own (`_placing` for what `apply`
and `check` share), so a new flag lands beside its kind. A run builds only the subcommand
it names (`parser(command)`): argparse checks every option as it is added, and the
options of all five took about as long as the rest of the parsing.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Iterator

from lsp_server import __version__

DOCS = "https://github.com/llm-patch/llm-patch#readme"

_EPILOG = f"""\
formats (mixed with prose and with each other, in one reply):
  SEARCH/REPLACE blocks, <<<< EDIT blocks, unified diffs (git diff, diff -u),
  *** Begin Patch patches, TARGET_NODE blocks (a function by name), whole files
  under their path, JSON/XML tool calls (str_replace_editor, apply_patch,
  Edit/MultiEdit/Write, write_to_file, replace_in_file, apply_diff...), chat
  code snippets. Details: docs/formats.md in the repository

exit codes:
  0  every block placed (and written, unless a dry run); undo/recover: done
  1  a block failed, or the reply has no edit blocks: nothing written
     (apply --partial writes the blocks that placed); undo: nothing to
     undo, or a file changed since (named): nothing written
  2  usage error, or a reply that cannot be read (missing, not UTF-8)

example:
  llm-patch check reply.md                 # the diff it would write
  llm-patch apply reply.md                 # write every block, or none
  pbpaste | llm-patch apply -              # the reply from stdin
  llm-patch apply reply.md --only 1,3      # only blocks 1 and 3
  llm-patch undo                           # put back what the last apply changed

The root is the enclosing repository's top (git, hg, svn), else the current
folder. Documentation: {DOCS}
"""


class _Layout(argparse.HelpFormatter):
    """argparse's help layout, as wide as the terminal.

    argparse makes a formatter for each option it adds (to check the option's metavar), and
    one left to find the width itself imports `shutil` (which imports `bz2` and `lzma`) for
    `shutil.get_terminal_size`: about 1.5 ms of every start, for a width that only `--help`
    and a usage error print with. `_columns` finds the same width with `os` alone."""

    def __init__(self, prog: str) -> None:
        super().__init__(prog, width=_columns() - 2)  # the margin argparse leaves itself


class _RawLayout(_Layout, argparse.RawDescriptionHelpFormatter):
    """`_Layout`, with the description and epilog kept as written (the exit-code table)."""


def _columns() -> int:
    """The terminal's width as `shutil.get_terminal_size` finds it: `$COLUMNS` when it is a
    positive number, else the width of the terminal on stdout, else 80."""
    try:
        columns = int(os.environ["COLUMNS"])
    except (KeyError, ValueError):
        columns = 0
    if columns > 0:
        return columns
    try:
        return os.get_terminal_size(sys.__stdout__.fileno()).columns or 80
    except (AttributeError, ValueError, OSError):
        return 80


def _host_port(value: str) -> tuple[str, int]:
    host, sep, port = value.rpartition(":")
    if not sep or not port.isdigit():
        raise argparse.ArgumentTypeError(f"wants HOST:PORT, got {value!r}")
    return host or "127.0.0.1", int(port)


def _threshold(value: str) -> float:
    """A similarity in (0, 1], as the editors' `llmPatch.fuzzyThreshold` takes it."""
    try:
        share = float(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"wants a number in (0, 1], got {value!r}") from None
    if not 0.0 < share <= 1.0:  # also refuses nan
        raise argparse.ArgumentTypeError(f"wants a number in (0, 1], got {value!r}")
    return share


def _numbers(value: str) -> tuple[int, ...]:
    """`--only 1,3` / `--only 2-4,7`: block numbers as the report prints them (from 1)."""
    out: list[int] = []
    for part in value.split(","):
        lo, dash, hi = part.strip().partition("-")
        try:
            first, last = int(lo), int(hi) if dash else int(lo)
        except ValueError:
            raise argparse.ArgumentTypeError(
                f"wants block numbers such as 1,3 or 2-4, got {value!r}"
            ) from None
        if first < 1:
            raise argparse.ArgumentTypeError(f"block numbers count from 1, got {value!r}")
        if last < first:
            raise argparse.ArgumentTypeError(
                f"a range goes from the lower number to the higher ({last}-{first}), got {value!r}"
            )
        out.extend(range(first, last + 1))
    return tuple(dict.fromkeys(out))


def _common(sp: argparse.ArgumentParser, *, json_help: str) -> None:
    sp.add_argument(
        "--root",
        default=None,
        help="workspace root (default: the enclosing git/hg/svn repository's top, "
        "else the current folder)",
    )
    sp.add_argument("--json", action="store_true", help=json_help)
    sp.add_argument(
        "--color",
        choices=("auto", "always", "never"),
        default="auto",
        help="colour the output: auto (a terminal, unless NO_COLOR is set), always, never",
    )


def _placing(sp: argparse.ArgumentParser, command: str) -> None:
    """What `apply` and `check` share: which blocks, how they are matched, what is refused."""
    sp.add_argument("reply", help="file with the model's reply, or - for stdin")
    _common(sp, json_help="print the JSON report")
    sp.add_argument(
        "--fuzzy-threshold",
        type=_threshold,
        default=None,
        metavar="X",
        help="similarity in (0, 1] a fuzzy match needs (default 0.8)",
    )
    sp.add_argument(
        "--protect",
        action="append",
        default=[],
        metavar="GLOB",
        help="refuse to write paths matching GLOB (repeatable; .git/, .hg/ and .svn/ always are)",
    )
    sp.add_argument(
        "--file",
        metavar="PATH",
        help="the file a code snippet that names none applies to (relative to the current "
        "folder; to --root when given)",
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
    sp.add_argument(
        "--only",
        type=_numbers,
        metavar="N[,N...]",
        help="place only these blocks, numbered as the report counts them (from 1): 1,3 or 2-4",
    )
    sp.add_argument(
        "--strip-prefix",
        action="append",
        default=[],
        metavar="DIR",
        help="read a path under DIR as relative to the root (an agent's /workspace or "
        "/testbed; repeatable)",
    )
    sp.add_argument(
        "--strict",
        action="store_true",
        help="refuse a block whose edit breaks its file's syntax (SYNTAX_BROKEN)",
    )
    sp.add_argument(
        "--dry-run",
        action="store_true",
        help="show the diff, write nothing"
        + (" (what check always does)" if command == "check" else ""),
    )
    sp.add_argument(
        "--all",
        dest="every",
        action="store_true",
        help="list every block and warning (a report of over 30 blocks lists the first "
        "failures in full and counts the rest; --json always holds every block)",
    )
    if command == "apply":
        sp.add_argument(
            "--partial",
            action="store_true",
            help="write the blocks that placed even if others failed",
        )


COMMANDS = ("apply", "check", "undo", "recover", "serve")


def command_of(argv: list[str]) -> str | None:
    """The subcommand `argv` starts with, when it is one of `COMMANDS`; None for anything
    else (`--help` before it lists every subcommand, so each is built)."""
    return argv[0] if argv and argv[0] in COMMANDS else None


def parser(command: str | None = None) -> argparse.ArgumentParser:
    """The parser of every subcommand, or (`command`) of that one only: what a run that
    names it needs, since argparse reads `argv` from its first word on."""
    p = argparse.ArgumentParser(
        prog="llm-patch",
        description="Place the edits in an LLM reply into your files (or serve LSP).",
        epilog=_EPILOG,
        formatter_class=_RawLayout,
    )
    p.add_argument("--version", action="version", version=f"llm-patch {__version__}")
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name, help_ in (
        ("apply", "apply a reply's edits: every block, or none"),
        ("check", "place a reply's edits and show the diff, writing nothing (= apply --dry-run)"),
    ):
        if command in (None, name):
            sp = sub.add_parser(
                name,
                help=help_,
                description=help_,
                epilog=_EPILOG,
                formatter_class=_RawLayout,
            )
            _placing(sp, name)
    if command in (None, "undo"):
        _undo(sub)
    if command in (None, "recover"):
        _recover(sub)
    if command in (None, "serve"):
        _serve(sub)
    return p


def _undo(sub: argparse._SubParsersAction) -> None:
    ud = sub.add_parser(
        "undo",
        formatter_class=_Layout,
        help="put back the files the last apply in this root changed",
        description="Put back the files the last apply in this root changed, all or none; "
        "refused when one of them changed since (named).",
    )
    _common(ud, json_help="print the JSON report")
    ud.add_argument("--dry-run", action="store_true", help="show the diff, write nothing")


def _recover(sub: argparse._SubParsersAction) -> None:
    rc = sub.add_parser(
        "recover",
        help="finish or roll back an apply that was interrupted (killed, crashed)",
        formatter_class=_Layout,
    )
    _common(rc, json_help="print the result as JSON")


def _serve(sub: argparse._SubParsersAction) -> None:
    sv = sub.add_parser("serve", help="run the language server", formatter_class=_Layout)
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
