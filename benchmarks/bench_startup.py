"""Start-up with the boot corner's code cache on and off, side by side.

`python -m benchmarks.bench_startup [--rounds N] [--out FILE]`

Each round starts, once with the code cache warm (a folder of this run, filled by starts
that are not counted) and once with `LLM_PATCH_CODE_CACHE=off`:

* the language server, as `python -m lsp_server` and as the installed `llm-patch serve`,
  until its answer to `initialize` (wall clock, and the server's CPU time at that moment);
* `llm-patch check` of a one-block reply against a one-line file, until it exits.

The settings take turns and the order flips every round, so a busy moment of the shared
machine does not fall on one of them only. Collection is paused during the imports either
way (`lsp_server.boot.begin`); only the cache differs. Bytecode is written and read as an
installed package does (`PYTHONDONTWRITEBYTECODE` is unset for the children).

`--cli` measures instead where a command-line run's time goes, stage by stage, each a new
process timed until it exits (wall clock, and its CPU time), interleaved round by round:
the interpreter alone (`python -c pass`), the standard library modules an apply of the
10,000-line edit loads, imported alone (what the command costs before its own code),
`llm-patch --help` (the command line's own
imports), `llm-patch check` of one block on a one-line text file (the engine, no grammar),
the same on a Python file (tree-sitter and the grammar for the syntax check), and
`llm-patch apply` of it (the workspace lock, the intent journal, the writes and their
fsyncs), and `apply` of one exact block (`compare_peers`'s edit: ten lines of a function
deep in a generated Python file) at 1,000, 10,000 and 100,000 lines, each started the way
the installed `llm-patch` script starts it (the entry point in that checkout's
pyproject.toml). Each stage's median is also given as a multiple of `python -c pass`'s
(issue 26's target: at most 3x at 1k-10k lines, 4x at 100k). `--trees A,B` runs each
stage for each of the given checkouts (each first on PYTHONPATH), interleaved, to compare
two versions of the code on the same machine at the same time.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
import tomllib
from pathlib import Path
from typing import Any

from benchmarks.bench_lsp import SERVER, Client
from benchmarks.compare_peers import Edit, make_edit
from benchmarks.timing import load_average, summary

ROOT = Path(__file__).resolve().parents[1]
REPLY = "a.py\n```python\n<<<<<<< SEARCH\nx = 1\n=======\nx = 2\n>>>>>>> REPLACE\n```\n"


def _env(cache: str) -> dict[str, str]:
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["LLM_PATCH_CODE_CACHE"] = cache
    return env


def _commands() -> dict[str, list[str]]:
    out = {"python -m lsp_server": SERVER}
    script = shutil.which("llm-patch", path=str(Path(sys.executable).parent))
    if script is not None:
        out["llm-patch serve"] = [script, "serve"]
    return out


async def _server_start(root: Path, command: list[str], env: dict[str, str]) -> tuple[float, float]:
    client = Client()
    await client.start(root, command, env)
    try:
        await client.initialize(root)
        return (time.perf_counter() - client.spawned_at) * 1000.0, client.cpu_ms()
    finally:
        await client.stop()


def _check(root: Path, env: dict[str, str]) -> float:
    cmd = [sys.executable, "-m", "lsp_server.cli", "check", "reply.md", "--root", "."]
    t0 = time.perf_counter()
    done = subprocess.run(cmd, cwd=root, env=env, capture_output=True, check=False)
    ms = (time.perf_counter() - t0) * 1000.0
    if done.returncode != 0:
        raise RuntimeError(f"llm-patch check failed: {done.stderr.decode()[-2000:]}")
    return ms


def run(rounds: int, log=print) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="llm-patch-startup-") as tmp:
        root = Path(tmp) / "root"
        root.mkdir()
        (root / "a.py").write_text("x = 1\n")
        (root / "reply.md").write_text(REPLY)
        settings = {"on": _env(str(Path(tmp) / "cache")), "off": _env("off")}
        commands = _commands()
        samples: dict[str, list[float]] = {}
        for command in commands.values():  # warm-up, not counted: bytecode, the cache
            for env in settings.values():
                for _ in range(2):
                    asyncio.run(_server_start(root, command, env))
        for r in range(rounds):
            order = list(settings) if r % 2 == 0 else list(settings)[::-1]
            for setting in order:
                env = settings[setting]
                for name, command in commands.items():
                    wall, cpu = asyncio.run(_server_start(root, command, env))
                    samples.setdefault(f"{name}|{setting}|wall", []).append(wall)
                    samples.setdefault(f"{name}|{setting}|cpu", []).append(cpu)
                samples.setdefault(f"llm-patch check|{setting}|wall", []).append(_check(root, env))
    out: dict[str, Any] = {"rounds": rounds, "load_average": load_average(), "rows": []}
    for what in [*commands, "llm-patch check"]:
        row: dict[str, Any] = {"what": what}
        for setting in settings:
            row[setting] = summary(samples[f"{what}|{setting}|wall"])
            if f"{what}|{setting}|cpu" in samples:
                row[f"{setting}_cpu"] = summary(samples[f"{what}|{setting}|cpu"])
        out["rows"].append(row)
        on, off = row["on"]["median_ms"], row["off"]["median_ms"]
        cpu = ""
        if "on_cpu" in row:
            cpu = f"  (CPU {row['on_cpu']['median_ms']:.0f} / {row['off_cpu']['median_ms']:.0f})"
        log(f"{what:22s} cache on {on:6.0f} ms   off {off:6.0f} ms   saves {off - on:5.0f} ms{cpu}")
    return out


CLI_STAGES = (
    ("python -c pass", "pass"),
    ("the standard library an apply loads, alone", "stdlib"),
    ("llm-patch --help", "help"),
    ("llm-patch check, .txt", "check-txt"),
    ("llm-patch check, .py", "check-py"),
    ("llm-patch apply, .py", "apply-py"),
    ("llm-patch apply, 1,000 lines", "apply-1000"),
    ("llm-patch apply, 10,000 lines", "apply-10000"),
    ("llm-patch apply, 100,000 lines", "apply-100000"),
)
SIZES = (1_000, 10_000, 100_000)


def _entry(tree: str) -> str:
    """Python that calls the `llm-patch` script's entry point as `tree` (a checkout; "" for
    this one) declares it in its pyproject.toml, so each version starts as installed."""
    project = tomllib.loads((Path(tree or ROOT) / "pyproject.toml").read_text(encoding="utf-8"))
    module, _, function = project["project"]["scripts"]["llm-patch"].partition(":")
    return f"import sys; sys.argv[0] = 'llm-patch'; from {module} import {function}; {function}()"


# an apply in a child, then the standard library modules it loaded (stderr's last line)
_STDLIB_PROBE = """
import sys
before = set(sys.modules)
from lsp_server.cli import run
run(sys.argv[1:])
new = set(sys.modules) - before
import sysconfig
lib = sysconfig.get_paths()["stdlib"]
names = [
    m for m in new
    if not any(part.startswith("_") for part in m.split("."))
    and (getattr(sys.modules[m], "__file__", None) or lib).startswith(lib)
    and ("." not in m or getattr(sys.modules[m], "__file__", None))  # not typing.io
]
sys.stderr.write("\\n" + " ".join(sorted(names)))
"""


def _stdlib_of_apply(root: Path, env: dict[str, str], edit: Edit) -> str:
    """`import ...` of the standard library modules (public names) an apply of `edit`
    loads: what the command's start costs before any of its own code runs."""
    folder = root / f"lines-{edit.size}"
    (folder / edit.path).write_text(edit.before, encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-c", _STDLIB_PROBE, "apply", "reply.md", "--root", "."],
        cwd=folder,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    # collection paused while they load, as `lsp_server.boot` pauses it for the command
    return "import gc; gc.disable(); import " + ", ".join(
        done.stderr.rstrip().splitlines()[-1].split()
    )


def _cli_command(stage: str, tree: str = "", stdlib: str = "") -> list[str]:
    if stage == "pass":
        return [sys.executable, "-c", "pass"]
    if stage == "stdlib":
        return [sys.executable, "-c", stdlib]
    cli = [sys.executable, "-c", _entry(tree)]
    if stage == "help":
        return [*cli, "--help"]
    command = "apply" if stage.startswith("apply") else "check"
    reply = "reply-txt.md" if stage == "check-txt" else "reply.md"
    return [*cli, command, reply, "--root", "."]


def _sized(root: Path) -> dict[str, Edit]:
    """A folder per size under `root` with the reply of `compare_peers`'s exact edit."""
    out = {}
    for size in SIZES:
        edit = make_edit(size)
        folder = root / f"lines-{size}"
        (folder / edit.path).parent.mkdir(parents=True)
        (folder / "reply.md").write_text(edit.reply, encoding="utf-8")
        out[f"apply-{size}"] = edit
    return out


def cli_stages(
    rounds: int, trees: list[str] | None = None, log=print, only: list[str] | None = None
) -> dict[str, Any]:
    """Where a command-line run's time goes: see the module docstring (`--cli`). `trees`:
    source folders (checkouts) to compare, each child run with it first on PYTHONPATH,
    interleaved with the others stage by stage; None for the code this runs from. `only`:
    the stages to run (with `pass` always, the yardstick)."""
    versions = trees or [""]
    chosen = [(n, s) for n, s in CLI_STAGES if only is None or s in only or s == "pass"]
    samples: dict[tuple[str, str], list[tuple[float, float]]] = {
        (tree, stage): [] for tree in versions for _, stage in chosen
    }
    load_before = load_average()
    with tempfile.TemporaryDirectory(prefix="llm-patch-cli-") as tmp:
        root = Path(tmp)
        (root / "reply.md").write_text(REPLY)
        (root / "reply-txt.md").write_text(REPLY.replace("a.py", "a.txt").replace("python", ""))
        (root / "a.txt").write_text("x = 1\n")
        edits = _sized(root)
        stdlib = {}
        for tree in versions:
            env = _env("off")
            if tree:
                env["PYTHONPATH"] = str(Path(tree).resolve())
            stdlib[tree] = _stdlib_of_apply(root, env, edits["apply-10000"])
        for r in range(-2, rounds):  # two rounds of warm-up: bytecode, page cache
            stages = [stage for _, stage in chosen]
            for stage in stages if r % 2 == 0 else stages[::-1]:
                for tree in versions if r % 2 == 0 else versions[::-1]:
                    env = _env("off")
                    if tree:
                        env["PYTHONPATH"] = str(Path(tree).resolve())
                    wall, cpu = _cli_run(root, stage, env, tree, edits.get(stage), stdlib[tree])
                    if r >= 0:
                        samples[(tree, stage)].append((wall, cpu))
    out: dict[str, Any] = {
        "rounds": rounds,
        "load_average_before": load_before,
        "load_average": load_average(),
        "rows": [],
    }
    for name, stage in chosen:
        for tree in versions:
            wall = summary([w for w, _ in samples[(tree, stage)]])
            cpu = summary([c for _, c in samples[(tree, stage)]])
            row = {"what": name, "tree": tree, "wall": wall, "cpu": cpu}
            # the multiple of the interpreter's start, of the same checkout's run
            bare = samples[(tree, "pass")]
            row["times_python"] = {
                "wall": round(wall["median_ms"] / summary([w for w, _ in bare])["median_ms"], 2),
                "cpu": round(
                    cpu["median_ms"] / max(summary([c for _, c in bare])["median_ms"], 1e-9), 2
                ),
            }
            out["rows"].append(row)
            label = f"{name} [{tree}]" if tree else name
            times = row["times_python"]
            log(
                f"{label:44s} wall {wall['median_ms']:6.1f} ms ({times['wall']:4.1f}x)   "
                f"CPU {cpu['median_ms']:6.1f} ms ({times['cpu']:4.1f}x)"
            )
    return out


def _cli_run(
    root: Path,
    stage: str,
    env: dict[str, str],
    tree: str,
    edit: Edit | None = None,
    stdlib: str = "",
) -> tuple[float, float]:
    """One stage as a new process: its wall clock and CPU time in ms. `edit`: a sized
    stage's edit, whose file is put back before the run and checked after it."""
    (root / "a.py").write_text("x = 1\n")
    folder = root
    if edit is not None:
        folder = root / f"lines-{edit.size}"
        (folder / edit.path).write_text(edit.before, encoding="utf-8")
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    command = _cli_command(stage, tree, stdlib)
    done = subprocess.run(command, cwd=folder, env=env, capture_output=True)
    wall = (time.perf_counter() - t0) * 1000.0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise RuntimeError(f"{stage} failed: {done.stderr.decode()[-2000:]}")
    if stage == "apply-py" and (root / "a.py").read_text() != "x = 2\n":
        raise RuntimeError("llm-patch apply did not write the expected file")
    if edit is not None and (folder / edit.path).read_text(encoding="utf-8") != edit.after:
        raise RuntimeError(f"{stage}: llm-patch apply did not write the expected file")
    return wall, (after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime) * 1e3


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.bench_startup", description=__doc__)
    parser.add_argument("--rounds", type=int, default=10, help="starts per setting (default 10)")
    parser.add_argument("--out", help="also write the results as JSON to this file")
    parser.add_argument(
        "--cli", action="store_true", help="the command line's stages instead (see above)"
    )
    parser.add_argument(
        "--only",
        help="with --cli: comma-separated stages to run (pass, stdlib, help, check-txt, "
        "check-py, apply-py, apply-1000, apply-10000, apply-100000); `pass` always runs",
    )
    parser.add_argument(
        "--trees",
        help="with --cli: comma-separated source folders (checkouts) to compare, interleaved",
    )
    args = parser.parse_args(argv)
    trees = args.trees.split(",") if args.trees else None
    only = args.only.split(",") if args.only else None
    result = cli_stages(args.rounds, trees, only=only) if args.cli else run(args.rounds)
    if "load_average_before" in result:
        print(f"load average before: {result['load_average_before']}")
    print(f"load average after: {result['load_average']}")
    if args.out:
        Path(args.out).write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
