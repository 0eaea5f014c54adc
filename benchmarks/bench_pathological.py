"""Pathological inputs: the shapes that once took seconds to minutes, each at two sizes with
its growth exponent, side by side with the peers that accept the same edit.

    python -m benchmarks.bench_pathological [--rounds N] [--quick] [--no-install]

Each case is an edit given to each tool in its own format, on the same files:

* **rewrite as Add File**: `*** Add File:` onto an existing file whose new text shares only
  blank lines with the old (a diff of that rewrite for patch and git apply);
* **whole-file SEARCH, one misquoted line**: the same rewrite as one SEARCH/REPLACE block
  whose SEARCH is the whole old file with one line misquoted (peers get the rewrite as a
  V4A update and a diff with the same misquoted `-` line);
* **one diff hunk, one misquoted line**: that edit as one unified diff hunk;
* **near-miss blocks**: `bench_plan`'s 1 MB reply of one-line blocks, each a line of the
  file with one character changed (some place approximately, most do not: the reply is
  refused, which is right);
* **exact blocks**: one-line blocks that each match one place;
* **lazy merge**: `bench_lazy`'s 10 MB case, a whole-file block of one restated function
  between `# ... existing code ...` lines (the peers get the added line as a hunk);
* **reply shapes at 1 MB** (llm-patch only: no peer reads them): a megabyte of block-marker
  lines, of diff headers, of V4A headers and sections, of JSON openers and unclosed tool
  calls, of path + fence lines (55,556 whole-file blocks for one file), one prose line of
  backticked names before a snippet. Parsed and planned.

llm-patch is timed in process (`parse_reply` + `plan_reply`, as shipped, caches emptied)
and as a process (`llm-patch apply`); the peers as processes, found or installed as
`compare_peers` finds them (Codex's native `apply_patch`, GNU patch, git apply). Every
result is checked: *right* (the expected files), *refused* (nonzero exit, files untouched)
or *wrong*. b is the exponent of t ∝ N^b over the two sizes: 1 is linear, 10× the input →
10× the time. Results go to `benchmarks/results/pathological.json` and the README's
"Pathological inputs" section.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from benchmarks.bench_large import ADDED, lazy_case
from benchmarks.compare_peers import codex_binary, exponent
from benchmarks.report import fill_section, num
from benchmarks.timing import load_average, summary
from benchmarks.workloads import near_miss_reply

HERE = Path(__file__).resolve().parent
BEGIN, END = "<!-- pathological:begin -->", "<!-- pathological:end -->"
LIMIT_MS = 1_000.0  # every case, at its size, within a second (in process)


@dataclass
class Inputs:
    """One case at one size: the files, the edit in each format (None: that format cannot
    say it), and the files expected after (None: refusing is the right answer)."""

    files: dict[str, str]
    reply: str
    v4a: str | None = None
    diff: str | None = None
    expected: dict[str, str] | None = None


@dataclass
class Case:
    name: str
    unit: str  # what the size counts
    sizes: tuple[int, int]
    make: Callable[[int], Inputs]
    peers: bool = True


# --- the inputs ---------------------------------------------------------------------------------


def _rewrite(n: int, name: str) -> list[str]:
    """`n` lines; two such texts share only their blank lines (the cubic shape for difflib)."""
    return [x for i in range(n // 2) for x in (f"{name}_{i} = {i}", "")]


def _v4a_update(path: str, old: list[str], new: list[str]) -> str:
    body = "".join(f"-{x}\n" for x in old) + "".join(f"+{x}\n" for x in new)
    return f"*** Begin Patch\n*** Update File: {path}\n@@\n{body}*** End Patch\n"


def _diff(path: str, old: list[str], new: list[str]) -> str:
    head = f"--- a/{path}\n+++ b/{path}\n@@ -1,{len(old)} +1,{len(new)} @@\n"
    return head + "".join(f"-{x}\n" for x in old) + "".join(f"+{x}\n" for x in new)


def _text(lines: list[str]) -> str:
    return "".join(x + "\n" for x in lines)


def add_file_rewrite(n: int) -> Inputs:
    old, new = _rewrite(n, "old"), _rewrite(n, "new")
    add = "*** Begin Patch\n*** Add File: a.py\n" + "".join(f"+{x}\n" for x in new)
    add += "*** End Patch\n"
    return Inputs({"a.py": _text(old)}, add, add, _diff("a.py", old, new), {"a.py": _text(new)})


def _misquoted(old: list[str]) -> list[str]:
    quoted = list(old)
    k = len(quoted) // 2
    quoted[k] = quoted[k].replace(" = ", " == ")  # one line as the model misremembered it
    return quoted


def search_misquoted(n: int) -> Inputs:
    old, new = _rewrite(n, "old"), _rewrite(n, "new")
    quoted = _misquoted(old)
    reply = f"a.py\n```python\n<<<<<<< SEARCH\n{_text(quoted)}=======\n{_text(new)}"
    reply += ">>>>>>> REPLACE\n```\n"
    return Inputs(
        {"a.py": _text(old)},
        reply,
        _v4a_update("a.py", quoted, new),
        _diff("a.py", quoted, new),
        {"a.py": _text(new)},
    )


def hunk_misquoted(n: int) -> Inputs:
    got = search_misquoted(n)
    assert got.diff is not None
    return Inputs(got.files, got.diff, got.v4a, got.diff, got.expected)


def near_miss_blocks(n: int) -> Inputs:
    """`bench_plan`'s reply (workloads.near_miss_reply: one-line blocks, each a line of a
    5,000-line file with one character changed; 12,000 of them are about 1 MB), and the same
    hunks for the peers."""
    reply = near_miss_reply(n)
    lines = reply.text.split("\n")
    nears = [lines[k + 2] for k in range(0, len(lines) - 5, 6)]
    v4a = "*** Begin Patch\n*** Update File: m.py\n"
    v4a += "".join(f"@@\n-{x}\n+x = 1\n" for x in nears) + "*** End Patch\n"
    diff = "--- a/m.py\n+++ b/m.py\n" + "".join(f"@@ -1,1 +1,1 @@\n-{x}\n+x = 1\n" for x in nears)
    return Inputs(dict(reply.files), reply.text, v4a, diff, None)


def exact_blocks(n: int) -> Inputs:
    lines = [f"value_{i} = {i}" for i in range(n)]
    new = [f"value_{i} = -{i}" for i in range(n)]
    reply = "a.py\n```python\n" + "".join(
        f"<<<<<<< SEARCH\n{a}\n=======\n{b}\n>>>>>>> REPLACE\n"
        for a, b in zip(lines, new, strict=True)
    )
    reply += "```\n"
    v4a = "*** Begin Patch\n*** Update File: a.py\n"
    v4a += "".join(f"@@\n-{a}\n+{b}\n" for a, b in zip(lines, new, strict=True))
    v4a += "*** End Patch\n"
    diff = "--- a/a.py\n+++ b/a.py\n" + "".join(
        f"@@ -{i + 1},1 +{i + 1},1 @@\n-{a}\n+{b}\n"
        for i, (a, b) in enumerate(zip(lines, new, strict=True))
    )
    return Inputs({"a.py": _text(lines)}, reply, v4a, diff, {"a.py": _text(new)})


def lazy_merge(n: int) -> Inputs:
    """`bench_lazy`'s case (`bench_large.lazy_case`): a Python file of `n` lines and a
    whole-file block that restates one function with a line added between two
    `# ... existing code ...` lines (420,000 lines are 9.6 MB); the peers get the added line
    with three lines of context."""
    with tempfile.TemporaryDirectory(prefix="llm-patch-lazy-") as tmp:
        root = Path(tmp) / "root"
        root.mkdir()
        reply = lazy_case(root, n).read_text(encoding="utf-8")
        text = (root / "big.py").read_text(encoding="utf-8")
    lines = text.split("\n")
    # where lazy_case adds its line: after the first `def` from the middle on
    k = next(i for i in range(len(lines) // 2, len(lines)) if lines[i].startswith("def "))
    context = lines[k + 1 : k + 4]
    diff = f"--- a/big.py\n+++ b/big.py\n@@ -{k + 1},4 +{k + 1},5 @@\n {lines[k]}\n+{ADDED}\n"
    diff += "".join(f" {x}\n" for x in context)
    v4a = f"*** Begin Patch\n*** Update File: big.py\n@@\n {lines[k]}\n+{ADDED}\n"
    v4a += "".join(f" {x}\n" for x in context) + "*** End Patch\n"
    expected = "\n".join([*lines[: k + 1], ADDED, *lines[k + 1 :]])
    return Inputs({"big.py": text}, reply, v4a, diff, {"big.py": expected})


def _filled(unit: str, size: int) -> str:
    return unit * (size // len(unit))


REPLY_SHAPES: dict[str, Callable[[int], str]] = {
    "`<<<< EDIT` lines": lambda s: _filled("a.py\n<<<< EDIT\n", s),
    "`<<<<<<< SEARCH` lines": lambda s: _filled("a.py\n<<<<<<< SEARCH\n", s),
    "diff headers": lambda s: _filled("--- a/x\n+++ b/x\n@@\n-a\n", s),
    "V4A `*** Begin Patch` lines": lambda s: _filled("*** Begin Patch\n", s),
    "V4A `*** Update File:` sections": lambda s: (
        "*** Begin Patch\n" + _filled("*** Update File: a.py\n@@\n-x\n+y\n", s - 16)
    ),
    "JSON openers": lambda s: _filled("{\n", s),
    "JSON tool-call openers, unclosed": lambda s: _filled(
        '{"name": "edit_file", "arguments": {"path": "a.py",\n', s
    ),
    "path + fence lines": lambda s: _filled("a.py\n```\n", s),
    "backticked names, one line": lambda s: (
        "See "
        + _filled("`name` and x.py ", s - 60)
        + "\n\n```python\ndef f():\n    return 1\n```\n"
    ),
}


def reply_shape(name: str) -> Callable[[int], Inputs]:
    def make(size: int) -> Inputs:
        return Inputs({"a.py": "x = 1\n"}, REPLY_SHAPES[name](size))

    return make


CASES = [
    Case("rewrite as Add File onto an existing file", "lines", (2_000, 4_000), add_file_rewrite),
    Case("whole-file SEARCH, one misquoted line", "lines", (2_000, 4_000), search_misquoted),
    Case("one diff hunk, one misquoted line", "lines", (2_000, 4_000), hunk_misquoted),
    Case("near-miss blocks (5,000-line file)", "blocks", (1_200, 12_000), near_miss_blocks),
    Case("exact one-line blocks", "blocks", (200, 2_000), exact_blocks),
    Case("lazy merge, `# ... existing code ...`", "lines", (210_000, 420_000), lazy_merge),
    *(
        Case(f"reply of {name}", "bytes", (100_000, 1_000_000), reply_shape(name), peers=False)
        for name in REPLY_SHAPES
    ),
]


# --- the tools ----------------------------------------------------------------------------------


@dataclass
class Result:
    ms: float
    verdict: str  # right / refused / wrong
    cpu_ms: float | None = None  # the process's CPU time, in process only (see CPU below)


# The in-process cell is also given as CPU time (`time.process_time`): on a machine shared
# with other work the wall clock counts the time other processes had the cores, the CPU time
# (nearly) only what the plan itself did.
CPU = "llm-patch plan (CPU time)"


def _verdict(ok_exit: bool, folder: Path, inputs: Inputs) -> str:
    now = {p: (folder / p).read_text(encoding="utf-8") for p in inputs.files}
    if inputs.expected is not None and now == inputs.expected:
        return "right"
    if now == inputs.files:
        # an exit 0 that changed nothing is right only where nothing was to change
        return "refused" if not ok_exit else "right" if inputs.expected is None else "wrong"
    return "wrong"  # changed, but not as expected (a partial apply, a wrong place)


def _prepare(folder: Path, inputs: Inputs) -> None:
    for leftover in folder.iterdir():
        if leftover.is_file():
            leftover.unlink()
    for path, text in inputs.files.items():
        (folder / path).write_text(text, encoding="utf-8")
    (folder / "reply.md").write_text(inputs.reply, encoding="utf-8")
    if inputs.diff is not None:
        (folder / "change.diff").write_text(inputs.diff, encoding="utf-8")


def in_process(folder: Path, inputs: Inputs) -> Result:
    from lsp_server.plan import plan_reply
    from lsp_server.reply import parse_reply
    from lsp_server.resolve import cache
    from lsp_server.workspace import DiskWorkspace

    cache.clear_all()
    ws = DiskWorkspace(folder)
    c0, t0 = time.process_time(), time.perf_counter()
    plan = plan_reply(parse_reply(inputs.reply), ws)
    ms = (time.perf_counter() - t0) * 1000.0
    cpu_ms = (time.process_time() - c0) * 1000.0
    got = {c.path: c.new_text for c in plan.files}
    if inputs.expected is None:
        verdict = "refused" if not plan.ok else "wrong"
    elif plan.ok and all(got.get(p, inputs.files[p]) == t for p, t in inputs.expected.items()):
        verdict = "right"
    else:
        verdict = "refused" if not plan.ok else "wrong"
    return Result(ms, verdict, cpu_ms)


def _process(cmd: Callable[[Inputs], list[str] | None]) -> Callable[[Path, Inputs], Result | None]:
    def run(folder: Path, inputs: Inputs) -> Result | None:
        argv = cmd(inputs)
        if argv is None:
            return None
        t0 = time.perf_counter()
        try:
            done = subprocess.run(argv, cwd=folder, capture_output=True, timeout=600)
        except OSError:  # E2BIG: a patch passed as an argument (Codex) has a size limit
            return None
        ms = (time.perf_counter() - t0) * 1000.0
        return Result(ms, _verdict(done.returncode == 0, folder, inputs))

    return run


def tools(install: bool) -> tuple[dict[str, Callable[[Path, Inputs], Result | None]], list[str]]:
    script = shutil.which("llm-patch", path=str(Path(sys.executable).parent))
    ours = [script] if script else [sys.executable, "-m", "lsp_server.cli"]
    out: dict[str, Callable[[Path, Inputs], Result | None]] = {
        "llm-patch plan (in process)": in_process,
        "llm-patch apply (process)": _process(
            lambda i: [*ours, "apply", "reply.md", "--root", "."]
        ),
    }
    skipped: list[str] = []
    codex = codex_binary(install)
    if isinstance(codex, str):
        skipped.append(codex)
    else:
        out["Codex apply_patch"] = _process(
            lambda i: [str(codex), "--codex-run-as-apply-patch", i.v4a] if i.v4a else None
        )
    patch, git = shutil.which("patch"), shutil.which("git")
    if patch:
        out["GNU patch"] = _process(
            lambda i: [patch, "-p1", "--batch", "--force", "-i", "change.diff"] if i.diff else None
        )
    else:
        skipped.append("GNU patch: not on PATH")
    if git:
        out["git apply"] = _process(lambda i: [git, "apply", "change.diff"] if i.diff else None)
    else:
        skipped.append("git apply: not on PATH")
    return out, skipped


# --- the run ------------------------------------------------------------------------------------


@dataclass
class Row:
    case: str
    unit: str
    sizes: tuple[int, int]
    cells: dict[str, dict[str, Any]] = field(default_factory=dict)  # tool → size → summary


def run(rounds: int, install: bool, cases: list[Case], log=print) -> dict[str, Any]:
    runners, skipped = tools(install)
    load_before = load_average()
    rows = []
    with tempfile.TemporaryDirectory(prefix="llm-patch-pathological-") as tmp:
        folder = Path(tmp)
        for case in cases:
            row = Row(case.name, case.unit, case.sizes)
            for size in case.sizes:
                inputs = case.make(size)
                for name, runner in runners.items():
                    if not case.peers and not name.startswith("llm-patch"):
                        continue
                    results: list[Result] = []
                    for _ in range(rounds):
                        _prepare(folder, inputs)
                        got = runner(folder, inputs)
                        if got is None:
                            break
                        results.append(got)
                    if not results:
                        continue
                    verdicts = sorted({r.verdict for r in results})
                    row.cells.setdefault(name, {})[str(size)] = {
                        **summary([r.ms for r in results]),
                        "verdict": "/".join(verdicts),
                    }
                    cpu = [r.cpu_ms for r in results if r.cpu_ms is not None]
                    if cpu:
                        row.cells.setdefault(CPU, {})[str(size)] = {
                            **summary(cpu),
                            "verdict": "/".join(verdicts),
                        }
            for by_size in row.cells.values():
                if len(by_size) == 2:
                    medians = [by_size[str(s)]["median_ms"] for s in case.sizes]
                    by_size["exponent"] = exponent(list(case.sizes), medians)
            log(f"{case.name}: done")
            rows.append(row.__dict__)
    return {
        "rounds": rounds,
        "python": sys.version.split()[0],
        "load_average": {"before": load_before, "after": load_average()},
        "limit_ms": LIMIT_MS,
        "rows": rows,
        "skipped": skipped,
    }


def markdown(results: dict[str, Any]) -> str:
    load = results["load_average"]
    names: list[str] = []
    for row in results["rows"]:
        names += [n for n in row["cells"] if n not in names]
    lines = [
        f"{results['rounds']} rounds, Python {results['python']}, load average "
        f"{load['before']} before and {load['after']} after. Each cell: median ms at the "
        "smaller / larger size, then b (t ∝ N^b; 1 = linear, 10× input → 10× time) and the "
        "verdict (right, refused, wrong). The in-process plan is also given in CPU time, "
        "which the other work on the machine inflates far less than the wall clock. "
        "— : the tool cannot take the input (Codex takes its patch as one argument, which "
        "the system caps; no peer reads the reply shapes)."
        + (
            f" Rerun since (load average {results['rerun_load']['before']} at the last): "
            + ", ".join(results["rerun"])
            + "."
            if results.get("rerun")
            else ""
        ),
        "",
        "| case | sizes | " + " | ".join(names) + " |",
        "|---|---|" + "---|" * len(names),
    ]
    for row in results["rows"]:
        small, large = (str(s) for s in row["sizes"])
        cells = []
        for name in names:
            c = row["cells"].get(name)
            if not c or small not in c or large not in c:
                cells.append("—")
                continue
            b = c.get("exponent")
            verdict = c[large]["verdict"]
            cells.append(
                f"{num(c[small]['median_ms'])} / {num(c[large]['median_ms'])}"
                f" (b {b if b is not None else '?'}, {verdict})"
            )
        sizes = f"{int(small):,} / {int(large):,} {row['unit']}"
        lines.append(f"| {row['case']} | {sizes} | " + " | ".join(cells) + " |")
    for reason in results["skipped"]:
        lines += ["", f"Skipped: {reason}."]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        prog="python -m benchmarks.bench_pathological",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--rounds", type=int, default=5, help="timed rounds per cell (default 5)")
    p.add_argument("--quick", action="store_true", help="1 round, README untouched")
    p.add_argument("--no-install", action="store_true", help="skip peers not yet installed")
    p.add_argument("--case", action="append", help="only cases whose name contains this")
    args = p.parse_args(argv)
    cases = [c for c in CASES if not args.case or any(k in c.name for k in args.case)]
    results = run(1 if args.quick else args.rounds, not args.no_install, cases)
    out = HERE / "results" / ("pathological-quick.json" if args.quick else "pathological.json")
    out.parent.mkdir(parents=True, exist_ok=True)
    if args.case and not args.quick and out.exists():
        # some cases rerun: their rows replace the last full run's, the rest stay
        old = json.loads(out.read_text(encoding="utf-8"))
        fresh = {row["case"]: row for row in results["rows"]}
        order = [row["case"] for row in old["rows"]]
        rows = [fresh.get(row["case"], row) for row in old["rows"]]
        rows += [row for name, row in fresh.items() if name not in order]
        place = {c.name: k for k, c in enumerate(CASES)}  # a new case takes its place
        rows.sort(key=lambda row: place.get(row["case"], len(place)))
        results = {
            **old,
            "rows": rows,
            "rerun": sorted(set(old.get("rerun", [])) | set(fresh)),
            "rerun_load": results["load_average"],
        }
    out.write_text(json.dumps(results, indent=1) + "\n", encoding="utf-8")
    print(markdown(results))
    print(f"results written to {out}")
    if not args.quick:
        fill_section(HERE / "README.md", BEGIN, END, markdown(results))
        print("pathological-input table in benchmarks/README.md regenerated")
    return 0


if __name__ == "__main__":
    sys.exit(main())
