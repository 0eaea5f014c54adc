"""The usual `apply` / `check` command line, read without argparse.

Importing argparse (with `gettext` and `locale`) and building its parser cost about 4 ms of
the 55-60 ms CPU an apply takes. A command line of the usual shape — `apply REPLY` or
`check REPLY` with the options below, each spelled in full (`--root DIR` or `--root=DIR`)
— is read here into the namespace argparse would give. Anything else returns None and
goes to argparse (`cli.args`), which stays the definition of the command line: help, a
usage error, an abbreviated option, `--`, the options whose values need converting or
checking (`--only`, `--fuzzy-threshold`, `--as`, ...), the other subcommands.
tests/cli/test_fast_args.py holds the two to the same namespace for every command line
this module reads, and fails when an option is added to one and not the other.
"""

from __future__ import annotations

from types import SimpleNamespace  # not `typing`: `--help` and the server load none of it

# option -> attribute, for the options that take no value
_FLAGS = {"--json": "json", "--dry-run": "dry_run", "--strict": "strict", "--all": "every"}
# option -> attribute, for the options that take any one word
_VALUES = {"--root": "root", "--file": "file", "--color": "color"}
_CHOICES = {"color": ("auto", "always", "never")}


def _defaults(command: str) -> dict[str, object]:
    """What argparse sets for an option the command line leaves out (`cli.args._placing`)."""
    out: dict[str, object] = {
        "command": command,
        "reply": None,
        "root": None,
        "json": False,
        "color": "auto",
        "fuzzy_threshold": None,
        "protect": [],
        "file": None,
        "read_as": None,
        "rest": None,
        "only": None,
        "strip_prefix": [],
        "strict": False,
        "dry_run": False,
        "every": False,
    }
    if command == "apply":
        out["partial"] = False
    return out


def read(argv: list[str]) -> SimpleNamespace | None:
    """`argv` read as argparse reads it, when it has the usual shape; else None."""
    if not argv or argv[0] not in ("apply", "check"):
        return None
    found = _defaults(argv[0])
    flags = {**_FLAGS, "--partial": "partial"} if argv[0] == "apply" else _FLAGS
    words = iter(argv[1:])
    for word in words:
        if not word.startswith("-") or word == "-":  # `-` is the reply on stdin
            if found["reply"] is not None:
                return None  # a second positional: argparse's error
            found["reply"] = word
        elif word in flags:
            found[flags[word]] = True
        else:
            name, eq, value = word.partition("=")
            if name not in _VALUES:
                return None
            if not eq:
                value = next(words, "-")  # none left: argparse's error
                if value.startswith("-"):  # argparse may read it as an option: let it
                    return None
            key = _VALUES[name]
            if value not in _CHOICES.get(key, (value,)):
                return None
            found[key] = value
    return SimpleNamespace(**found) if found["reply"] is not None else None
