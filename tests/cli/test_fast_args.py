"""The usual `apply` / `check` line is read without argparse (issue 26, start-up), into the
namespace argparse gives: for any command line `fast_args` reads, argparse reads the same;
what it does not read goes to argparse."""

from __future__ import annotations

import contextlib
import io

from hypothesis import given, settings
from hypothesis import strategies as st

from lsp_server.cli import fast_args
from lsp_server.cli.args import command_of, parser

WORDS = (
    "apply",
    "check",
    "undo",
    "reply.md",
    "a=b.md",
    "-",
    "",
    "--",
    "-h",
    "--help",
    "--root",
    "--root=src",
    "--root=",
    ".",
    "src",
    "--json",
    "--json=1",
    "--jso",
    "--all",
    "--dry-run",
    "--partial",
    "--strict",
    "--color",
    "--color=never",
    "--color=pink",
    "always",
    "never",
    "auto",
    "--file",
    "--file=x.py",
    "x.py",
    "--only",
    "1,3",
    "--fuzzy-threshold",
    "0.9",
    "--protect",
    "*.lock",
    "--strip-prefix",
    "/workspace",
    "--as",
    "whole",
    "--keep-rest",
    "--drop-rest",
    "-1",
)


def argparse_reads(argv: list[str]) -> dict | None:
    try:
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            return vars(parser(command_of(argv)).parse_args(argv))
    except SystemExit:
        return None


@settings(max_examples=1500, deadline=None)
@given(
    st.sampled_from(["apply", "check", "undo", "--root", "reply.md"]),
    st.lists(st.sampled_from(WORDS), max_size=7),
)
def test_what_fast_args_reads_argparse_reads_the_same(first, rest):
    argv = [first, *rest]
    fast = fast_args.read(argv)
    if fast is not None:
        assert vars(fast) == argparse_reads(argv)


@given(
    st.sampled_from(["apply", "check"]),
    st.text(st.characters(blacklist_characters="-\x00"), min_size=1, max_size=12),
    st.lists(
        st.sampled_from(
            [
                ["--json"],
                ["--dry-run"],
                ["--strict"],
                ["--all"],
                ["--root", "."],
                ["--root=sub dir"],
                ["--color", "never"],
                ["--file", "a.py"],
            ]
        ),
        max_size=4,
    ),
)
def test_the_usual_lines_are_read_without_argparse(command, reply, options):
    argv = [command, reply, *(word for option in options for word in option)]
    fast = fast_args.read(argv)
    assert fast is not None
    assert vars(fast) == argparse_reads(argv)


def test_each_option_of_apply_and_check_is_known_to_fast_args():
    """An option added to argparse's `apply` or `check` and not here shows up as an
    attribute the fast namespace lacks (the property test above fails with it too)."""
    for command in ("apply", "check"):
        argv = [command, "reply.md"]
        assert set(vars(fast_args.read(argv))) == set(argparse_reads(argv))
