"""What a user waits for on a very large file: `llm-patch check` as a process, wall clock and
peak memory, for replies that make the whole file the unit of work.

`python -m benchmarks.bench_large [--rounds N] [--lines N] [--blocks N]`

* **lazy merge**: a fenced whole-file block for a Python file of ~420,000 lines (9.6 MB)
  that restates one function with a line added and stands `# ... existing code ...` for
  everything else. The merge has to read every line of the file to keep it.
* **near misses**: a ~1 MB reply of 12,000 SEARCH/REPLACE blocks against a 5,000-line
  file, each SEARCH a file line with a one-character slip, so no block places and every
  block asks for the closest match.

Each case is checked, not only timed: the lazy merge must place (exit 0, the added line in
the diff), the near misses must be answered block by block (exit 0 or 1: a slip small enough is a
fuzzy match, and the point is how long the answer takes). Peak memory is the child's
maximum resident set (its own VmHWM, so Linux).
"""

from __future__ import annotations

import argparse
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.workloads import generate

ADDED = "    # llm-patch: added by the benchmark"


def lazy_case(root: Path, n_lines: int) -> Path:
    lines = list(generate("python", n_lines).lines)
    (root / "big.py").write_text("\n".join(lines) + "\n", encoding="utf-8")
    mid = len(lines) // 2
    k = next(i for i in range(mid, len(lines)) if lines[i].startswith("def "))
    end = next(i for i in range(k + 1, len(lines)) if lines[i].startswith(("def ", "class ")))
    body = [lines[k], ADDED, *lines[k + 1 : end]]
    reply = root.parent / "lazy.md"
    reply.write_text(
        "Here is the file with the change:\n\n```python\n# big.py\n# ... existing code ...\n\n"
        + "\n".join(body)
        + "\n# ... existing code ...\n```\n",
        encoding="utf-8",
    )
    return reply


def _near_miss_case(root: Path, n_blocks: int) -> Path:
    lines = list(generate("python", 5_000).lines)
    (root / "mid.py").write_text("\n".join(lines) + "\n", encoding="utf-8")
    rng = random.Random(7)
    out = []
    for _ in range(n_blocks):
        line = ""
        while len(line.strip()) < 12:
            line = lines[rng.randrange(len(lines))]
        slip = rng.randrange(len(line) - 4, len(line))
        search = line[:slip] + "~" + line[slip + 1 :]
        out.append(f"mid.py\n<<<<<<< SEARCH\n{search}\n=======\nx\n>>>>>>> REPLACE\n")
    reply = root.parent / "near.md"
    reply.write_text("\n".join(out), encoding="utf-8")
    return reply


# The child reports its own high-water mark (VmHWM, Linux): `os.wait4`'s ru_maxrss would
# count the parent's resident set at the fork (Linux carries it across exec), and this parent
# holds the generated cases (tens of MB: it was most of what this benchmark reported).
_CLI = """
import atexit, sys
def _hwm():
    with open("/proc/self/status") as f:
        sys.stderr.write([x for x in f if x.startswith("VmHWM")][0])
atexit.register(_hwm)
from lsp_server.boot import main
main()
"""


def run_cli(
    args: list[str], env: dict[str, str] | None = None, cwd: Path | None = None
) -> tuple[float, float, int, str]:
    """`llm-patch ARGS` as a new process: wall seconds, its peak RSS in bytes, exit code,
    stdout."""
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c", _CLI, *args], env=env, cwd=cwd, capture_output=True, text=True
    )
    wall = time.perf_counter() - start
    hwm = done.stderr.strip().splitlines()[-1].split()  # "VmHWM: 12345 kB"
    return wall, float(hwm[1]) * 1024.0, done.returncode, done.stdout


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--lines", type=int, default=420_000, help="lines of the lazy-merge file")
    ap.add_argument("--blocks", type=int, default=12_000, help="near-miss blocks")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="llm-patch-large-") as tmp:
        root = Path(tmp) / "root"
        root.mkdir()
        cases = {
            "lazy merge": (lazy_case(root, args.lines), 0),
            "near misses": (_near_miss_case(root, args.blocks), None),
        }
        print(f"file: {(root / 'big.py').stat().st_size / 1e6:.1f} MB")
        for name, (reply, expected) in cases.items():
            walls, peaks = [], []
            for _ in range(args.rounds):
                wall, peak, code, out = run_cli(["check", "--root", str(root), str(reply)])
                if code not in ((0, 1) if expected is None else (expected,)) or (
                    expected == 0 and ADDED.strip() not in out
                ):
                    raise SystemExit(f"{name}: exit {code}, expected {expected}\n{out[-2000:]}")
                walls.append(wall)
                peaks.append(peak)
            print(
                f"{name}: median {statistics.median(walls):.2f} s, "
                f"min {min(walls):.2f} s, peak RSS {max(peaks) / 2**20:.0f} MB "
                f"({args.rounds} rounds, {reply.stat().st_size:,} bytes of reply)"
            )


if __name__ == "__main__":
    main()
