"""What each import an `llm-patch apply` needs costs the process, one layer at a time.

`python -m benchmarks.bench_imports [--rounds N] [--trees A,B]`

Each stage is a new `python -c` process that imports one more layer than the stage before
it, with collection paused as `lsp_server.boot` pauses it for the command, timed until it
exits (CPU time of the child, user + system); the stages take turns and the order flips
every round. A stage's cost is its median less the median of the stage before: what that
layer adds to a process that already has the layers above it. The layers are those an
apply of one block on a Python file loads (see `bench_startup --cli`'s probe), grouped by
what needs them, the ones the command needs whatever its own code looks like first: so
the table reads as the floor under the command and what is built on it.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys

from benchmarks.timing import load_average

# The Python grammar loaded as `resolve.syntax.load_language` loads it: the binary alone,
# without importing the language pack (which loads three other grammars and `pathlib`).
_GRAMMAR = (
    "import tree_sitter, importlib.util, importlib.machinery, os; "
    "d = os.path.join(importlib.util.find_spec('tree_sitter_language_pack')"
    ".submodule_search_locations[0], 'bindings'); "
    "p = next(os.path.join(d, 'python' + x) for x in importlib.machinery.EXTENSION_SUFFIXES "
    "if os.path.isfile(os.path.join(d, 'python' + x))); "
    "spec = importlib.util.spec_from_file_location("
    "'tree_sitter_language_pack.bindings.python', p); "
    "m = importlib.util.module_from_spec(spec); spec.loader.exec_module(m); "
    "tree_sitter.Language(m.language())"
)

# (what the layer is for, its code): each stage runs its own and every layer's before it.
# The first six are what the command needs whatever its code looks like (the syntax check
# is on, the write protocol unchanged); the rest are how llm-patch is written.
LAYERS: list[tuple[str, str]] = [
    ("the interpreter alone (`python -c pass`)", ""),
    ("`re`, `enum`, `functools`, `collections`: the patterns, the error codes",
     "import re, enum, functools, collections"),
    ("tree-sitter (it imports `typing`) and the Python grammar: the syntax check", _GRAMMAR),
    ("`hashlib`, `hmac`: the SHA-256 that pins each file's bytes, the journal's HMAC",
     "import hashlib, hmac"),
    ("`json`: the intent journal, the undo record", "import json"),
    ("`ctypes`, `threading`, `signal`, `fcntl`: `renameat2`, the workspace lock",
     "import ctypes, threading, signal, fcntl"),
    ("`dataclasses` (with `inspect`, `ast`, `dis`, `tokenize`, `copy`): the vocabulary's "
     "frozen dataclasses", "import dataclasses"),
    ("`pathlib` (with `urllib.parse`, `ipaddress`, `fnmatch`): paths in the workspace, "
     "journal, writer", "import pathlib"),
    ("`lsp_server.model`: the vocabulary (12 frozen dataclasses, 9 enums)",
     "import lsp_server.model"),
    ("every other module an apply loads (command line, parser, plan, journal, writer)",
     "import lsp_server.cli.place, lsp_server.cli.undo_record, lsp_server.plan, "
     "lsp_server.journal, lsp_server.writer, lsp_server.reply.search_replace, "
     "lsp_server.resolve.syntax_check"),
]  # fmt: skip


def _code(upto: int) -> str:
    return "; ".join(["import gc; gc.disable()", *(c for _, c in LAYERS[1 : upto + 1])])


def _cpu_ms(code: str, tree: str) -> float:
    env = dict(os.environ, PYTHONPATH=tree)
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # bytecode as an installed package has it
    child = subprocess.Popen([sys.executable, "-c", code], env=env)
    _, status, usage = os.wait4(child.pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        raise RuntimeError(f"failed: {code}")
    return (usage.ru_utime + usage.ru_stime) * 1000.0


def run(rounds: int, trees: list[str]) -> dict[str, list[list[float]]]:
    samples = {t: [[] for _ in LAYERS] for t in trees}
    for r in range(rounds):
        order = [(t, k) for t in trees for k in range(len(LAYERS))]
        for t, k in order if r % 2 == 0 else order[::-1]:
            samples[t][k].append(_cpu_ms(_code(k), t))
    return samples


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.bench_imports", description=__doc__)
    parser.add_argument("--rounds", type=int, default=21, help="processes per stage")
    parser.add_argument("--trees", default=".", help="comma-separated checkouts to compare")
    args = parser.parse_args(argv)
    trees = [os.path.abspath(t) for t in args.trees.split(",")]
    load = load_average()
    samples = run(args.rounds, trees)
    print(f"{args.rounds} rounds, load average {load} before and {load_average()} after")
    print("| layer | " + " | ".join(f"CPU ms, +added ({t})" for t in trees) + " |")
    print("|---|" + "---|" * len(trees))
    base = {t: statistics.median(samples[t][0]) for t in trees}
    for k, (what, _) in enumerate(LAYERS):
        cells = []
        for t in trees:
            here = statistics.median(samples[t][k])
            added = here - statistics.median(samples[t][k - 1]) if k else here
            cells.append(f"{here:.1f} (+{added:.1f}, {here / base[t]:.1f}×)")
        print(f"| {what} | " + " | ".join(cells) + " |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
