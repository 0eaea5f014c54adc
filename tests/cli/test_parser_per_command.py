"""The command line's parser as built for a fast start (issue 26): a run builds only the
subcommand it names, and finds the terminal's width without `shutil`; for any command line
it reads, refuses and shows help exactly as argparse's own would."""

from __future__ import annotations

import argparse
import contextlib
import io

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lsp_server.cli import args
from lsp_server.cli.args import COMMANDS, command_of, parser

WORDS = (
    *COMMANDS,
    "reply.md",
    "-",
    "--root",
    ".",
    "--json",
    "--all",
    "--dry-run",
    "--partial",
    "--strict",
    "--only",
    "1,3",
    "--fuzzy-threshold",
    "0.9",
    "--color",
    "never",
    "--tcp",
    "127.0.0.1:9",
    "--log-level",
    "info",
    "--version",
    "--help",
    "-h",
    "--bogus",
    "frobnicate",
)


def outcome(command: str | None, argv: list[str]) -> tuple[str, object]:
    out, err = io.StringIO(), io.StringIO()
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            return "parsed", vars(parser(command).parse_args(argv))
    except SystemExit as exc:
        return "exit", (exc.code, out.getvalue())


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(WORDS), max_size=6))
def test_the_named_command_alone_parses_as_every_command_does(argv):
    assert outcome(command_of(argv), argv) == outcome(None, argv)


def test_the_command_is_the_first_word():
    assert command_of(["check", "apply"]) == "check"
    assert command_of(["reply.md", "apply"]) is None  # not a command: every one is built
    assert command_of(["--help", "apply"]) is None  # the top level's help lists them all
    assert command_of([]) is None


@pytest.mark.parametrize("columns", ["40", "72", "131", "0", "wide", None])
@pytest.mark.parametrize("command", [None, *COMMANDS])
def test_help_and_usage_are_argparse_own_at_any_width(monkeypatch, command, columns):
    if columns is None:
        monkeypatch.delenv("COLUMNS", raising=False)
    else:
        monkeypatch.setenv("COLUMNS", columns)
    ours = parser(command)
    # the oracle: the same parser laid out by argparse's own formatters (which ask shutil)
    monkeypatch.setattr(args, "_Layout", argparse.HelpFormatter)
    monkeypatch.setattr(args, "_RawLayout", argparse.RawDescriptionHelpFormatter)
    theirs = parser(command)
    pairs = [(ours, theirs)]
    if command is not None:  # and the subcommand's own help and usage
        pairs.append((subcommand(ours, command), subcommand(theirs, command)))
    for mine, stock in pairs:
        assert mine.format_help() == stock.format_help()
        assert mine.format_usage() == stock.format_usage()


def subcommand(p: argparse.ArgumentParser, name: str) -> argparse.ArgumentParser:
    (action,) = [a for a in p._actions if isinstance(a, argparse._SubParsersAction)]
    return action.choices[name]
