"""A lazy `# ... existing code ...` merge of a 10 MB file: time and peak memory, against the
limits of issue 26 (at most 1 s, at most 5 times the file's size).

    python -m benchmarks.bench_lazy [--rounds N] [--lines N] [--code DIR] [--check]

The case is `bench_large`'s: a Python file of ~420,000 lines (9.6 MB) and a reply that
restates one function with a line added between two `# ... existing code ...` lines.
Three measures, each in a fresh interpreter:

* **merge**: `resolve.merge.lazy.merge(file, snippet)` alone, wall clock; and its peak
  memory (tracemalloc, started once both texts exist): what the merge adds to its inputs.
* **plan**: `parse_reply` + `plan_reply` on the folder, as the CLI plans (reads the file,
  decides the reading, merges, checks the syntax, lays the result over the file); peak
  memory includes the file's text it reads.
* **process**: `llm-patch check` as a process; its peak resident set (its own VmHWM, so
  Linux) above the same command's on a 2,000-line file (the interpreter, the grammars,
  the imports).

Each is divided by the file's size. `--code DIR` measures another checkout of the project
(a `git worktree` of an older commit, for a before/after); `--check` exits 1 when a
measure is over its limit. A check of memory, not a timed test: run it by hand.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from benchmarks.bench_large import ADDED, lazy_case, run_cli
from benchmarks.timing import load_average

LIMIT_S = 1.0
LIMIT_TIMES = 5.0  # peak memory over the file's size

_CHILD = r"""
import gc, json, sys, time, tracemalloc
from pathlib import Path
root, reply, what = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3]
out = {}
if what == "merge":
    from lsp_server.resolve.merge.lazy import merge
    text = (root / "big.py").read_text(encoding="utf-8")
    fenced = reply.read_text(encoding="utf-8").split("```python\n", 1)[1].split("```", 1)[0]
    snippet = fenced.split("\n", 1)[1]  # the path line is the reply's, not the file's
    try:  # the first call's imports and patterns: not timed (the function is not up there)
        merge(text[:20000], snippet, "big.py")
    except Exception:
        pass
    gc.collect()
    t = time.perf_counter()
    merged = merge(text, snippet, "big.py").text
    out["s"] = time.perf_counter() - t
    assert sys.argv[4] in merged
    del merged
    gc.collect()
    tracemalloc.start()
    merge(text, snippet, "big.py")
    out["peak"] = tracemalloc.get_traced_memory()[1]
else:
    from lsp_server.plan import plan_reply
    from lsp_server.reply import parse_reply
    from lsp_server.workspace import DiskWorkspace
    from lsp_server.resolve import cache
    # the first plan's imports (the grammars): not timed
    warm = Path(sys.argv[5])
    plan_reply(parse_reply(warm.read_text(encoding="utf-8")), DiskWorkspace(warm.parent / "root"))
    reply_text = reply.read_text(encoding="utf-8")
    for measure in ("s", "peak"):
        cache.clear_all()
        gc.collect()
        if measure == "peak":
            tracemalloc.start()
        t = time.perf_counter()
        plan = plan_reply(parse_reply(reply_text), DiskWorkspace(root))
        if measure == "s":
            out["s"] = time.perf_counter() - t
        else:
            out["peak"] = tracemalloc.get_traced_memory()[1]
        assert plan.ok and sys.argv[4] in plan.files[0].new_text
        del plan
print(json.dumps(out))
"""


def _env(code: Path) -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(code)}


def _child(code: Path, root: Path, reply: Path, what: str, warm: Path) -> dict[str, float]:
    done = subprocess.run(
        [sys.executable, "-c", _CHILD, str(root), str(reply), what, ADDED.strip(), str(warm)],
        env=_env(code),
        cwd=code,
        capture_output=True,
        text=True,
    )
    if done.returncode:
        raise SystemExit(f"{what} failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout)


def _process(code: Path, root: Path, reply: Path) -> tuple[float, float]:
    """Wall seconds and peak RSS in bytes of `llm-patch check` from `code`."""
    wall, peak, exit_code, out = run_cli(
        ["check", "--root", str(root), str(reply)], env=_env(code), cwd=code
    )
    if exit_code != 0 or ADDED.strip() not in out:
        raise SystemExit(f"llm-patch check did not merge:\n{out[-2000:]}")
    return wall, peak


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--lines", type=int, default=420_000, help="lines of the file")
    ap.add_argument("--code", type=Path, default=Path(__file__).resolve().parent.parent)
    ap.add_argument("--check", action="store_true", help="exit 1 when over a limit")
    args = ap.parse_args(argv)
    code = args.code.resolve()
    print(f"code: {code}; load average before: {load_average()}")
    over = []
    with tempfile.TemporaryDirectory(prefix="llm-patch-lazy-") as tmp:
        big, small = Path(tmp) / "big" / "root", Path(tmp) / "small" / "root"
        big.mkdir(parents=True)
        small.mkdir(parents=True)
        reply, small_reply = lazy_case(big, args.lines), lazy_case(small, 2_000)
        size = (big / "big.py").stat().st_size
        print(f"file: {size / 1e6:.1f} MB, {args.lines:,} lines; {args.rounds} rounds")
        for what in ("merge", "plan"):
            runs = [_child(code, big, reply, what, small_reply) for _ in range(args.rounds)]
            secs = statistics.median(r["s"] for r in runs)
            times = max(r["peak"] for r in runs) / size
            print(
                f"{what}: median {secs:.3f} s (min {min(r['s'] for r in runs):.3f}), "
                f"peak {times:.2f}x the file ({times * size / 1e6:.1f} MB)"
            )
            if secs > LIMIT_S or times > LIMIT_TIMES:
                over.append(what)
        walls, peaks, bases = [], [], []
        for _ in range(args.rounds):
            wall, peak = _process(code, big, reply)
            walls.append(wall)
            peaks.append(peak)
            bases.append(_process(code, small, small_reply)[1])
        above = (max(peaks) - min(bases)) / size
        print(
            f"process: median {statistics.median(walls):.2f} s, peak RSS "
            f"{max(peaks) / 2**20:.0f} MB, {min(bases) / 2**20:.0f} MB on a 2,000-line "
            f"file: {above:.2f}x the file above it"
        )
        if above > LIMIT_TIMES:
            over.append("process memory")
    print(f"load average after: {load_average()}")
    if over:
        print(f"over the limits ({LIMIT_S} s, {LIMIT_TIMES}x the file): {', '.join(over)}")
    return 1 if over and args.check else 0


if __name__ == "__main__":
    raise SystemExit(main())
