"""Where one `llm-patch apply` process spends its time, phase by phase.

`python -m benchmarks.bench_apply_phases [--rounds N] [--sizes 1000,10000,100000] [--out FILE]`

Each round runs, for each size, `python -c pass` and one `apply` of `compare_peers`'s exact
edit (ten lines of a function deep in a generated Python file) in a new process that
times its own phases (CPU time, `time.process_time`, and wall clock): importing the command
line, reading the arguments (as `cli.run` does), importing the modules
`apply` loads with `lsp_server.cli.place` and those of the engine, then — inside
`place()` — finding the root and reading and parsing the reply, the workspace lock and the
check for an interrupted apply, the plan (with the tree-sitter grammar the syntax check
loads), the undo record, `write_plan` (the intent journal, the writes, their hashes and
fsyncs), keeping the undo record, and the report. The phases are found by wrapping the
functions `place()` calls (`parse_reply`, `plan_reply`, `undo_record.prepare` / `keep`,
`write_plan`, `print_report`) in the child; nothing else is changed.

The sizes and the two processes take turns and the order flips every round. `--trees A,B`
runs the same for each checkout (first on PYTHONPATH), interleaved.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from benchmarks.compare_peers import Edit, make_edit
from benchmarks.timing import load_average, summary

# the child: times its phases, prints them as JSON on stderr's last line
_CHILD = r"""
import json, sys, time
marks = [("start", time.perf_counter(), time.process_time())]
def mark(name):
    marks.append((name, time.perf_counter(), time.process_time()))
from lsp_server import boot
boot.pause()
import lsp_server.cli as cli
mark("import the command line")
argv = sys.argv[1:]
fast = getattr(cli, "fast_args", None)  # as `cli.run` reads the line (argparse if need be)
ns = fast.read(argv) if fast else None
if ns is None:
    from lsp_server.cli import args as cli_args
    build = getattr(cli_args, "command_of", None)
    parser = cli_args.parser(build(argv)) if build else cli_args.parser()
    ns = parser.parse_args(argv)
mark("read the arguments")
from lsp_server.cli import place as P
mark("import what apply loads first (model, report, workspace, ...)")
from lsp_server import disk, journal, plan, reply, writer
from lsp_server.cli import undo_record
mark("import the engine (plan, reply parsers, journal, writer)")
def wrap(module, name, label, before=None):
    inner = getattr(module, name)
    def timed(*a, **k):
        if before:
            mark(before)
        out = inner(*a, **k)
        mark(label)
        return out
    setattr(module, name, timed)
wrap(reply, "parse_reply", "root found, reply read and parsed")
wrap(plan, "plan_reply", "plan (with the grammar the syntax check loads)",
     before="workspace lock, interrupted-apply check")
wrap(undo_record, "prepare", "undo record prepared")
wrap(writer, "write_plan", "write_plan: intent journal, writes, hashes, fsyncs")
wrap(undo_record, "keep", "undo record kept")
wrap(P, "print_report", "report built and printed")
code = P.place(ns)
mark("exit")
phases = [(n, (w - pw) * 1e3, (c - pc) * 1e3)
          for (_, pw, pc), (n, w, c) in zip(marks, marks[1:])]
sys.stderr.write("\n" + json.dumps({"code": code, "phases": phases}))
"""

SIZES = (1_000, 10_000, 100_000)


def _env(tree: str) -> dict[str, str]:
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # bytecode read and written as installed
    if tree:
        env["PYTHONPATH"] = str(Path(tree).resolve())
    return env


def _run(folder: Path, edit: Edit, env: dict[str, str]) -> tuple[list, float]:
    """One apply in a child: its phases, and `python -c pass`'s CPU ms just before."""
    (folder / edit.path).write_text(edit.before, encoding="utf-8")
    bare = _cpu([sys.executable, "-c", "pass"], folder, env)
    done = subprocess.run(
        [sys.executable, "-c", _CHILD, "apply", "reply.md", "--root", ".", "--color", "never"],
        cwd=folder,
        env=env,
        capture_output=True,
        text=True,
    )
    out = json.loads(done.stderr.rstrip().splitlines()[-1])
    if out["code"] != 0 or (folder / edit.path).read_text(encoding="utf-8") != edit.after:
        raise RuntimeError(f"apply failed: {done.stderr[-2000:]}")
    return out["phases"], bare


def _cpu(command: list[str], folder: Path, env: dict[str, str]) -> float:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(command, cwd=folder, env=env, check=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime) * 1e3


def run(rounds: int, sizes: tuple[int, ...], trees: list[str], log=print) -> dict[str, Any]:
    load_before = load_average()
    samples: dict[tuple[str, int], list[list]] = {(t, s): [] for t in trees for s in sizes}
    bare: dict[str, list[float]] = {t: [] for t in trees}
    with tempfile.TemporaryDirectory(prefix="llm-patch-phases-") as tmp:
        edits = {}
        for size in sizes:
            edit = make_edit(size)
            folder = Path(tmp) / f"lines-{size}"
            (folder / edit.path).parent.mkdir(parents=True)
            (folder / "reply.md").write_text(edit.reply, encoding="utf-8")
            edits[size] = (folder, edit)
        for r in range(-1, rounds):  # a round of warm-up: bytecode, page cache
            order = [(t, s) for s in sizes for t in trees]
            for tree, size in order if r % 2 == 0 else order[::-1]:
                folder, edit = edits[size]
                phases, cpu = _run(folder, edit, _env(tree))
                if r >= 0:
                    samples[(tree, size)].append(phases)
                    bare[tree].append(cpu)
    out: dict[str, Any] = {
        "rounds": rounds,
        "load_average_before": load_before,
        "load_average": load_average(),
        "python_pass_cpu": {t: summary(v) for t, v in bare.items()},
        "rows": [],
    }
    for tree in trees:
        bare_ms = out["python_pass_cpu"][tree]["median_ms"]
        log(f"[{tree or 'this checkout'}] python -c pass: CPU {bare_ms:.1f} ms")
        for size in sizes:
            runs = samples[(tree, size)]
            names = [name for name, _, _ in runs[0]]
            row = {"tree": tree, "size": size, "phases": []}
            for i, name in enumerate(names):
                wall = summary([p[i][1] for p in runs])
                cpu = summary([p[i][2] for p in runs])
                row["phases"].append({"phase": name, "wall": wall, "cpu": cpu})
            total_cpu = summary([sum(p[i][2] for i in range(len(names))) for p in runs])
            row["total_cpu"] = total_cpu
            out["rows"].append(row)
            log(f"  {size:,} lines (CPU in the process, after the interpreter's start):")
            for phase in row["phases"]:
                cpu_ms, wall_ms = phase["cpu"]["median_ms"], phase["wall"]["median_ms"]
                log(f"    {cpu_ms:6.1f} ms CPU {wall_ms:7.1f} ms wall  {phase['phase']}")
            log(f"    {total_cpu['median_ms']:6.1f} ms CPU in all")
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.bench_apply_phases", description=__doc__
    )
    parser.add_argument("--rounds", type=int, default=10, help="applies per size (default 10)")
    parser.add_argument("--sizes", default="1000,10000,100000", help="file sizes in lines")
    parser.add_argument("--trees", help="comma-separated checkouts to compare, interleaved")
    parser.add_argument("--out", help="also write the results as JSON to this file")
    args = parser.parse_args(argv)
    sizes = tuple(int(s) for s in args.sizes.split(","))
    trees = args.trees.split(",") if args.trees else [""]
    result = run(args.rounds, sizes, trees)
    print(f"load average before: {result['load_average_before']}, after: {result['load_average']}")
    if args.out:
        Path(args.out).write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
