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
maximum resident set (`os.wait4`).
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.workloads import generate

_ADDED = "    # llm-patch: added by the benchmark"


def _cli() -> list[str]:
    script = shutil.which("llm-patch", path=str(Path(sys.executable).parent))
    return [script] if script else [sys.executable, "-m", "lsp_server"]


def _lazy_case(root: Path, n_lines: int) -> Path:
    lines = list(generate("python", n_lines).lines)
    (root / "big.py").write_text("\n".join(lines) + "\n", encoding="utf-8")
    mid = len(lines) // 2
    k = next(i for i in range(mid, len(lines)) if lines[i].startswith("def "))
    end = next(
        i for i in range(k + 1, len(lines)) if lines[i].startswith(("def ", "class "))
    )
    body = [lines[k], _ADDED, *lines[k + 1 : end]]
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


def _run(cmd: list[str]) -> tuple[float, float, int, str]:
    """Wall seconds, peak RSS in MB, exit code, stdout."""
    start = time.perf_counter()
    with subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL) as proc:
        out = proc.stdout.read().decode("utf-8", "replace") if proc.stdout else ""
        _, status, usage = os.wait4(proc.pid, 0)
        proc.returncode = os.waitstatus_to_exitcode(status)
    return time.perf_counter() - start, usage.ru_maxrss / 1024, proc.returncode, out


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
            "lazy merge": (_lazy_case(root, args.lines), 0),
            "near misses": (_near_miss_case(root, args.blocks), None),
        }
        print(f"file: {(root / 'big.py').stat().st_size / 1e6:.1f} MB")
        for name, (reply, expected) in cases.items():
            walls, peaks = [], []
            for _ in range(args.rounds):
                wall, peak, code, out = _run([*_cli(), "check", "--root", str(root), str(reply)])
                if code not in ((0, 1) if expected is None else (expected,)) or (
                    expected == 0 and _ADDED.strip() not in out
                ):
                    raise SystemExit(f"{name}: exit {code}, expected {expected}\n{out[-2000:]}")
                walls.append(wall)
                peaks.append(peak)
            print(
                f"{name}: median {statistics.median(walls):.2f} s, "
                f"min {min(walls):.2f} s, peak RSS {max(peaks):.0f} MB "
                f"({args.rounds} rounds, {reply.stat().st_size:,} bytes of reply)"
            )


if __name__ == "__main__":
    main()
