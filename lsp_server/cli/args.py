"""The command line's arguments: one parser for every subcommand, built here once."""

from __future__ import annotations

import argparse
from collections.abc import Iterator


def _host_port(value: str) -> tuple[str, int]:
    host, sep, port = value.rpartition(":")
    if not sep or not port.isdigit():
        raise argparse.ArgumentTypeError(f"wants HOST:PORT, got {value!r}")
    return host or "127.0.0.1", int(port)


def parser() -> argparse.ArgumentParser:
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
