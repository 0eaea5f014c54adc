"""What the user waits for, side by side with the tools people use for the same edit.

    python -m benchmarks.compare_peers [--rounds N] [--sizes 1000,10000,100000] [--quick]
        [--roo-code DIR] [--baseline DIR]

One exact edit (the first 10 lines of a function deep in a generated Python file, one line
changed: the `exact` case of `workloads.make_cases`) at 1,000, 10,000 and 100,000 lines,
given to each tool in its own format and timed round by round on the same files, the tools
and sizes interleaved (the order turns every round, so a busy moment of the shared machine
does not fall on one tool only):

* **llm-patch plan, in process**: `parse_reply` + `plan_reply` of the SEARCH/REPLACE reply
  as shipped (the `SYNTAX_BROKEN` check on), every cache emptied first;
* **llm-patch apply, a process**: `llm-patch apply reply.md` (the installed script, else
  `python -m lsp_server.cli`), writing the file;
* **Codex apply_patch, a process**: the native binary of the npm package `@openai/codex`
  run as Codex runs it (`codex --codex-run-as-apply-patch PATCH`, the hidden argument its
  agent uses to call its own patcher; a link named `apply_patch` to the binary does the
  same), with the same edit as a V4A patch holding the block's lines;
* **GNU patch** (`patch -p1`) and **git apply**, processes, with the same edit as a unified
  diff (the block's lines removed and added, three lines of context);
* **aider, in process**: `find_original_update_blocks` + `do_replace` from
  `aider.coders.editblock_coder` on the same SEARCH/REPLACE reply, in aider's virtual
  environment (`benchmarks/.aider-venv`, see compare_aider.py), a child process that times
  its own calls only;
* **python -c pass**, the interpreter's own start, for scale;
* **Roo Code, in process**: its `apply_diff` strategy with each block's correct
  `:start_line:`, run by Node from a checkout of its repository (`--roo-code DIR`, see
  compare_peers_roo.py);
* **another tree of llm-patch** (`--baseline DIR`, see compare_peers_baseline.py), as
  shipped, for before and after in one run.

In process, every kind of block the targets name is timed too (`KINDS`: exact, trailing
whitespace, indented, fuzzy, and a reply of 50 blocks), llm-patch also without the syntax
check and with the file seen before; those tools report the CPU time of their call beside
the wall clock, and the table by kind of block is in CPU time (on a shared machine, the
wall clock carries other processes' work).

Every tool's result is checked every round: the file afterwards (for the in-process ones,
the text returned) must equal the expected text. Peers live outside the project: Codex is
installed on first use into `benchmarks/.peers` (git-ignored, `npm install @openai/codex`),
aider as compare_aider.py does it; a peer that cannot be installed or found is reported as
skipped, with the reason. The tables (medians, llm-patch's median over each tool's, against
llm-patch of the same kind, and the exponent b of t ∝ N^b fitted over the sizes; by kind
of block; before and after) go to `benchmarks/results/peers.json` and the README's "Side
by side with other tools" section.
"""

from __future__ import annotations

import argparse
import dataclasses
import hashlib
import json
import math
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

from benchmarks import compare_peers_baseline, compare_peers_roo
from benchmarks.compare_peers_baseline import BaselineChild
from benchmarks.compare_peers_roo import RooChild, roo_diff
from benchmarks.compare_peers_tables import (
    AIDER,
    BARE,
    BASELINE,
    KINDS,
    ROO,
    SEEN,
    SHIPPED,
    before_after_markdown,
    kinds_markdown,
)
from benchmarks.report import fill_section, num
from benchmarks.timing import load_average, summary
from benchmarks.workloads import Workload, generate, make_cases

HERE = Path(__file__).resolve().parent
PEERS = HERE / ".peers"
CODEX_PACKAGE = "@openai/codex"
BEGIN, END = "<!-- peers:begin -->", "<!-- peers:end -->"
KINDS_BEGIN, KINDS_END = "<!-- peers-kinds:begin -->", "<!-- peers-kinds:end -->"
AFTER_BEGIN, AFTER_END = "<!-- peers-before-after:begin -->", "<!-- peers-before-after:end -->"
SIZES = (1_000, 10_000, 100_000)

# aider, in its venv: jobs on stdin (one JSON line each), one JSON line back per job
_AIDER_CHILD = textwrap.dedent(
    """
    import hashlib, json, sys, time
    from importlib.metadata import version
    from aider.coders.editblock_coder import do_replace, find_original_update_blocks

    print(json.dumps({"version": version("aider-chat")}), flush=True)
    texts = {}
    for line in sys.stdin:
        job = json.loads(line)
        if job["key"] not in texts:  # read once per size, untimed, as the file it edits
            texts[job["key"]] = open(job["file"], encoding="utf-8").read()
        whole = texts[job["key"]]
        t0, c0 = time.perf_counter(), time.thread_time()
        result = whole
        try:
            for _path, old, new in find_original_update_blocks(job["reply"], ("```", "```")):
                result = do_replace("bench.py", result, old, new, ("```", "```"))
        except ValueError:
            result = None
        ms = (time.perf_counter() - t0) * 1000.0
        cpu = (time.thread_time() - c0) * 1000.0
        digest = None if result is None else hashlib.sha256(result.encode()).hexdigest()
        print(json.dumps({"ms": ms, "cpu": cpu, "sha": digest}), flush=True)
    """
)


@dataclass(frozen=True)
class Edit:
    """One size's files: the text before, the text expected after, and the edit written in
    each tool's format."""

    size: int
    path: str  # relative to the folder the tools run in
    before: str
    after: str
    reply: str  # SEARCH/REPLACE, in a fence under its path
    diff: str  # unified diff, a/ b/ prefixes ("" but for the exact block)
    v4a: str  # *** Begin Patch ... *** End Patch ("" but for the exact block)
    kind: str = "exact"  # one of KINDS
    roo: str = ""  # Roo Code's apply_diff, each block with its `:start_line:`
    primer: str = ""  # another reply on the same file (see `llm_patch_plan(seen=True)`)


# The blocks planned in process (`make_kind_edit`): a case of `workloads.make_cases` each,
# the fuzzy one with one line of ten slightly wrong, and a reply of 50 exact blocks spread
# over the file. The processes get the exact block only: their cost is their start.
_RUNGS = {"exact": "exact", "trailing whitespace": "whitespace", "indented": "indent",
          "fuzzy": "fuzzy1"}  # fmt: skip
PATH = "src/bench.py"


def _fenced(blocks: list[tuple[str, str]]) -> str:
    body = "".join(f"<<<<<<< SEARCH\n{old}=======\n{new}>>>>>>> REPLACE\n" for old, new in blocks)
    return f"{PATH}\n```python\n{body}```\n"


def _join(lines: list[str] | tuple[str, ...]) -> str:
    return "".join(x + "\n" for x in lines)


def make_kind_edit(size: int, kind: str) -> Edit:
    """The edit of `kind` (one of KINDS) on the generated Python file of `size` lines."""
    w: Workload = generate("python", size)
    lines = list(w.lines)
    if kind == "50 blocks":
        units = [u for u in w.units if u.end - u.start >= 4]
        picked = [units[(i * len(units)) // 50] for i in range(50)]
        blocks, roo, after = [], [], list(lines)
        for u in reversed(picked):  # from the end: earlier line numbers stay right
            old = lines[u.start : u.start + 3]  # the `def` / `class` line names it
            new = [old[0], old[1] + "  # patched", old[2]]
            after[u.start : u.start + 3] = new
            blocks.append((_join(old), _join(new)))
            roo.append((u.start + 1, _join(old), _join(new)))
        blocks.reverse()
        roo.reverse()
        text_after = _join(after)
        reply = _fenced(blocks)
    else:
        case = make_cases(w)[_RUNGS[kind]]
        assert case.start is not None
        expected = case.expected(w)
        assert expected is not None
        text_after = expected
        reply = _fenced([(case.old, case.new)])
        roo = [(case.start + 1, case.old, case.new)]
    last = w.units[-1]
    head = lines[last.start : last.start + 3]
    primer = _fenced([(_join(head), _join([head[0], head[1] + "  # seen", head[2]]))])
    return Edit(size, PATH, w.text, text_after, reply, "", "", kind, roo_diff(roo), primer)


def make_edit(size: int) -> Edit:
    """The exact block, with the same edit as a unified diff and a V4A patch."""
    w: Workload = generate("python", size)
    case = make_cases(w)["exact"]
    assert case.start is not None and case.end is not None and case.region is not None
    after = case.expected(w)
    assert after is not None
    path = PATH
    lines = list(w.lines)
    s, e = case.start, case.end
    old, new = lines[s:e], list(case.region)
    lo, hi = max(0, s - 3), min(len(lines), e + 3)
    before_ctx, after_ctx = lines[lo:s], lines[e:hi]
    body = (
        [" " + x for x in before_ctx]
        + ["-" + x for x in old]
        + ["+" + x for x in new]
        + [" " + x for x in after_ctx]
    )
    n_old = len(before_ctx) + len(old) + len(after_ctx)
    n_new = len(before_ctx) + len(new) + len(after_ctx)
    diff = f"--- a/{path}\n+++ b/{path}\n@@ -{lo + 1},{n_old} +{lo + 1},{n_new} @@\n" + "".join(
        x + "\n" for x in body
    )
    v4a = (
        f"*** Begin Patch\n*** Update File: {path}\n@@\n"
        + "".join(x + "\n" for x in body)
        + "*** End Patch\n"
    )
    kinded = make_kind_edit(size, "exact")
    assert kinded.after == after
    return dataclasses.replace(kinded, diff=diff, v4a=v4a)


# --- the tools ---------------------------------------------------------------------------------


class Timed(NamedTuple):
    """One run of a tool: wall clock, whether its result was right, and, for the tools
    run in process, the CPU time of the call alone (the thread's, or Node's), which the
    other work of a shared machine inflates much less than the wall clock."""

    ms: float
    ok: bool
    cpu_ms: float | None = None


@dataclass
class Tool:
    """How to run one tool once on a prepared folder: `run(folder, edit)` returns the time
    in ms and whether the result was right. `kind` is "process" or "in process"."""

    name: str
    kind: str
    run: Callable[[Path, Edit], tuple[float, bool] | Timed]
    version: str = ""
    close: Callable[[], None] | None = None


def _child_env() -> dict[str, str]:
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # an installed package has its bytecode
    return env


def _timed_process(cmd: list[str], cwd: Path, stdin: bytes | None = None) -> tuple[float, int]:
    t0 = time.perf_counter()
    done = subprocess.run(cmd, cwd=cwd, input=stdin, capture_output=True, env=_child_env())
    return (time.perf_counter() - t0) * 1000.0, done.returncode


def _file_is(folder: Path, edit: Edit) -> bool:
    return (folder / edit.path).read_text(encoding="utf-8") == edit.after


def _process_tool(
    name: str, command: Callable[[Path, Edit], list[str]], stdin=None, version: str = ""
) -> Tool:
    def run(folder: Path, edit: Edit) -> tuple[float, bool]:
        ms, code = _timed_process(command(folder, edit), folder, stdin(edit) if stdin else None)
        return ms, code == 0 and _file_is(folder, edit)

    return Tool(name, "process", run, version)


def llm_patch_plan(check_syntax: bool = True, seen: bool = False) -> Tool:
    """`parse_reply` + `plan_reply` in process, every cache emptied first. `seen`: the
    file had another reply planned against it before (untimed; `Edit.primer`, an edit at
    its end), as the server's open documents have: what is kept per text is kept."""
    from lsp_server import __version__
    from lsp_server.model import Snapshot
    from lsp_server.plan import PlanOptions, plan_reply
    from lsp_server.reply import parse_reply
    from lsp_server.resolve import cache

    options = PlanOptions(check_syntax=check_syntax)

    class Source:
        def __init__(self, path: str, text: str):
            self.path, self.text = path, text

        def snapshot(self, path: str) -> Snapshot:
            return Snapshot(path, self.text if path == self.path else None)

    def run(folder: Path, edit: Edit) -> tuple[float, bool]:
        # a new string each time, as a file just read is: no hash of it is cached yet
        source = Source(edit.path, edit.before[:1] + edit.before[1:])
        cache.clear_all()
        if seen:
            primed = plan_reply(parse_reply(edit.primer), source, options)
            assert primed.ok, "the primer must place"
        t0, c0 = time.perf_counter(), time.thread_time()
        plan = plan_reply(parse_reply(edit.reply), source, options)
        cpu = (time.thread_time() - c0) * 1000.0
        ms = (time.perf_counter() - t0) * 1000.0
        return Timed(ms, plan.ok and [f.new_text for f in plan.files] == [edit.after], cpu)

    name = SHIPPED
    if not check_syntax:
        name = BARE
    elif seen:
        name = SEEN
    return Tool(name, "in process", run, __version__)


def llm_patch_baseline(tree: Path) -> Tool | str:
    """Another tree of llm-patch, planned as shipped in a child (compare_peers_baseline)."""
    try:
        child = BaselineChild(tree)
    except (OSError, RuntimeError) as err:
        return f"baseline: {err}"

    def run(folder: Path, edit: Edit) -> Timed:
        key = str(edit.size)
        return Timed(*child.run(key, folder / edit.path, edit.path, edit.reply, edit.after))

    return Tool(BASELINE, "in process", run, compare_peers_baseline.version(tree), child.close)


def roo_code(install: bool, source: Path | None) -> Tool | str:
    if source is None:
        return (
            "Roo Code: no checkout given (`--roo-code DIR` or ROO_CODE_SRC; "
            "`git clone https://github.com/RooCodeInc/Roo-Code`)"
        )
    bundled = compare_peers_roo.bundle(source, PEERS, install)
    if isinstance(bundled, str):
        return bundled
    child = RooChild(bundled, PEERS)

    def run(folder: Path, edit: Edit) -> tuple[float, bool]:
        return Timed(*child.run(str(edit.size), folder / edit.path, edit.roo, edit.after))

    return Tool(
        ROO,
        "in process",
        run,
        compare_peers_roo.version(source),
        child.close,
    )


def llm_patch_apply() -> Tool:
    from lsp_server import __version__

    script = shutil.which("llm-patch", path=str(Path(sys.executable).parent))
    cmd = [script] if script else [sys.executable, "-m", "lsp_server.cli"]
    return _process_tool(
        "llm-patch apply (process)",
        lambda folder, edit: [*cmd, "apply", "reply.md", "--root", "."],
        version=__version__,
    )


def python_start() -> Tool:
    def run(folder: Path, edit: Edit) -> tuple[float, bool]:
        ms, code = _timed_process([sys.executable, "-c", "pass"], folder)
        return ms, code == 0

    return Tool("python -c pass (interpreter start)", "process", run, sys.version.split()[0])


def gnu_patch() -> Tool | str:
    exe = shutil.which("patch")
    if exe is None:
        return "GNU patch: `patch` is not on PATH"
    version = _first_line([exe, "--version"])
    return _process_tool(
        "GNU patch (process)",
        lambda folder, edit: [exe, "-p1", "--quiet", "--batch", "-i", "change.diff"],
        version=version,
    )


def git_apply() -> Tool | str:
    exe = shutil.which("git")
    if exe is None:
        return "git apply: `git` is not on PATH"
    version = _first_line([exe, "--version"])
    return _process_tool(
        "git apply (process)", lambda folder, edit: [exe, "apply", "change.diff"], version=version
    )


def codex_binary(install: bool) -> Path | str:
    """The native `codex` binary of the npm package, installed into benchmarks/.peers on
    first use; a string saying why not when it cannot be had."""
    found = sorted((PEERS / "node_modules" / "@openai").glob("codex*/vendor/*/bin/codex"))
    if found:
        return found[0]
    if not install:
        return f"Codex: not installed in {PEERS} (run without --no-install)"
    npm = shutil.which("npm")
    if npm is None:
        return "Codex: `npm` is not on PATH, so `@openai/codex` cannot be installed"
    print(f"installing {CODEX_PACKAGE} into {PEERS} (once; it is not a project dependency)")
    PEERS.mkdir(parents=True, exist_ok=True)
    done = subprocess.run(
        [npm, "install", "--no-audit", "--no-fund", "--prefix", str(PEERS), CODEX_PACKAGE],
        capture_output=True,
        text=True,
    )
    if done.returncode != 0:
        return f"Codex: `npm install {CODEX_PACKAGE}` failed: {done.stderr.strip()[-300:]}"
    found = sorted((PEERS / "node_modules" / "@openai").glob("codex*/vendor/*/bin/codex"))
    if not found:
        return f"Codex: {CODEX_PACKAGE} installed no native binary for this platform"
    return found[0]


def codex_apply_patch(install: bool) -> Tool | str:
    exe = codex_binary(install)
    if isinstance(exe, str):
        return exe
    version = _first_line([str(exe), "--version"])
    return _process_tool(
        "Codex apply_patch (process)",
        lambda folder, edit: [str(exe), "--codex-run-as-apply-patch", edit.v4a],
        version=version,
    )


def aider(install: bool) -> Tool | str:
    from benchmarks import compare_aider

    try:
        py = compare_aider.ensure_aider(install)
    except (SystemExit, subprocess.CalledProcessError) as err:
        return f"aider: not available ({err})"
    child = subprocess.Popen(
        [str(py), "-c", _AIDER_CHILD],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert child.stdin is not None and child.stdout is not None
    hello = json.loads(child.stdout.readline())
    expected_sha: dict[tuple[int, str], str] = {}

    def run(folder: Path, edit: Edit) -> tuple[float, bool]:
        assert child.stdin is not None and child.stdout is not None
        sha = expected_sha.setdefault(
            (edit.size, edit.kind), hashlib.sha256(edit.after.encode()).hexdigest()
        )
        job = {"key": edit.size, "file": str(folder / edit.path), "reply": edit.reply}
        child.stdin.write(json.dumps(job) + "\n")
        child.stdin.flush()
        got = json.loads(child.stdout.readline())
        return Timed(got["ms"], got["sha"] == sha, got["cpu"])

    def close() -> None:
        assert child.stdin is not None
        child.stdin.close()
        child.wait(timeout=30)

    return Tool(AIDER, "in process", run, hello["version"], close)


def _first_line(cmd: list[str]) -> str:
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=30).stdout
    except OSError:
        return ""
    return out.strip().splitlines()[0] if out.strip() else ""


# --- the run -----------------------------------------------------------------------------------


def _prepare(folder: Path, edit: Edit) -> None:
    target = folder / edit.path
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(edit.before, encoding="utf-8")
    (folder / "reply.md").write_text(edit.reply, encoding="utf-8")
    (folder / "change.diff").write_text(edit.diff, encoding="utf-8")
    for leftover in target.parent.glob("*.orig"):
        leftover.unlink()
    for leftover in target.parent.glob("*.rej"):
        leftover.unlink()


def exponent(sizes: list[int], medians: list[float]) -> float | None:
    """b of t ∝ N^b, least squares on log-log (None for fewer than two sizes)."""
    if len(sizes) < 2 or any(m <= 0 for m in medians):
        return None
    xs = [math.log(s) for s in sizes]
    ys = [math.log(m) for m in medians]
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    den = sum((x - mx) ** 2 for x in xs)
    return round(sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / den, 2)


def run(
    sizes: list[int],
    rounds: int,
    install: bool,
    roo_source: Path | None = None,
    baseline: Path | None = None,
    log=print,
) -> dict[str, Any]:
    edits = []
    for size in sizes:
        edits += [make_edit(size)] + [make_kind_edit(size, k) for k in KINDS if k != "exact"]
    tools: list[Tool] = [
        llm_patch_plan(),
        llm_patch_plan(seen=True),
        llm_patch_plan(check_syntax=False),
        llm_patch_apply(),
        python_start(),
    ]
    skipped: list[str] = []
    makers: list[Callable[[], Tool | str]] = [
        lambda: codex_apply_patch(install),
        gnu_patch,
        git_apply,
        lambda: aider(install),
        lambda: roo_code(install, roo_source),
    ]
    if baseline is not None:
        makers.append(lambda: llm_patch_baseline(baseline))
    for make in makers:
        got = make()
        if isinstance(got, str):
            skipped.append(got)
            log(f"skipped: {got}")
        else:
            tools.append(got)
    Key = tuple[str, int, str]  # tool, size, kind
    times: dict[Key, list[float]] = {}
    cpu: dict[Key, list[float]] = {}
    wrong: dict[Key, int] = {}
    load_before = load_average()
    try:
        with tempfile.TemporaryDirectory(prefix="llm-patch-peers-") as tmp:
            folder = Path(tmp)
            for r in range(-1, rounds):  # round -1 warms up (bytecode, page cache): not counted
                order = tools[r % len(tools) :] + tools[: r % len(tools)] if r >= 0 else tools
                for edit in edits:
                    for tool in order:
                        if tool.kind == "process" and edit.kind != "exact":
                            continue
                        _prepare(folder, edit)
                        c0 = resource.getrusage(resource.RUSAGE_CHILDREN)
                        got = Timed(*tool.run(folder, edit))
                        c1 = resource.getrusage(resource.RUSAGE_CHILDREN)
                        if r < 0:
                            continue
                        key = (tool.name, edit.size, edit.kind)
                        times.setdefault(key, []).append(got.ms)
                        children = (c1.ru_utime + c1.ru_stime - c0.ru_utime - c0.ru_stime) * 1e3
                        cpu.setdefault(key, []).append(
                            children if got.cpu_ms is None else got.cpu_ms
                        )
                        wrong[key] = wrong.get(key, 0) + (not got.ok)
                if r >= 0:
                    log(f"round {r + 1}/{rounds} done")
    finally:
        for tool in tools:
            if tool.close is not None:
                tool.close()
    rows = []
    for tool in tools:
        exact = [(tool.name, size, "exact") for size in sizes]
        medians = [summary(times[k])["median_ms"] for k in exact]
        rows.append(
            {
                "tool": tool.name,
                "kind": tool.kind,
                "version": tool.version,
                "correct": sum(wrong[k] for k in exact) == 0,
                "wrong_results": sum(wrong[k] for k in exact),
                "sizes": {
                    str(k[1]): {
                        **summary(times[k]),
                        "child_cpu_median_ms": round(sorted(cpu[k])[len(cpu[k]) // 2], 1),
                    }
                    for k in exact
                },
                "exponent": exponent(sizes, medians),
            }
        )
    _ratios(rows, [str(size) for size in sizes])
    by_kind = [
        {
            "tool": tool.name,
            "block": kind,
            "size": size,
            **summary(times[(tool.name, size, kind)]),
            "cpu_median_ms": round(statistics.median(cpu[(tool.name, size, kind)]), 4),
            "cpu_min_ms": round(min(cpu[(tool.name, size, kind)]), 4),
            "right": wrong[(tool.name, size, kind)] == 0,
        }
        for tool in tools
        if tool.kind == "in process"
        for kind in KINDS
        for size in sizes
    ]
    return {
        "rounds": rounds,
        "sizes": sizes,
        "load_average": {"before": load_before, "after": load_average()},
        "python": sys.version.split()[0],
        "rows": rows,
        "by_kind": by_kind,
        "skipped": skipped,
    }


def _ratios(rows: list[dict[str, Any]], sizes: list[str]) -> None:
    """llm-patch's median over each row's, llm-patch of the same kind (in process: the plan;
    a process: `llm-patch apply`): how many times longer llm-patch takes than this tool."""
    ours = {
        "in process": next(r for r in rows if r["tool"] == SHIPPED),
        "process": next(r for r in rows if r["tool"].startswith("llm-patch apply")),
    }
    for row in rows:
        base = ours[row["kind"]]
        row["llm_patch_over_this"] = {
            s: float(f"{base['sizes'][s]['median_ms'] / row['sizes'][s]['median_ms']:.3g}")
            for s in sizes
        }


def markdown(results: dict[str, Any]) -> str:
    sizes = [str(s) for s in results["sizes"]]
    load = results["load_average"]
    head = " | ".join(f"{int(s):,} lines" for s in sizes)
    at = " / ".join(f"{int(s) // 1000}k" for s in sizes)
    lines = [
        f"{results['rounds']} rounds, Python {results['python']}, load average "
        f"{load['before']} before and {load['after']} after. Medians in ms, wall clock (a "
        "process: started and waited for). *llm-patch ÷ this*: llm-patch's median over the "
        "tool's, against llm-patch of the same kind (in process: the plan; a process: "
        "`llm-patch apply`), so 10 means llm-patch took ten times as long. b: the exponent "
        "of t ∝ N^b over the sizes. CPU (median): a process's user + system time, or, in "
        "process, the call's own CPU time; a busy disk or machine inflates it less than the "
        "wall clock.",
        "",
        f"| tool | kind | right | {head} | b | llm-patch ÷ this ({at}) | CPU ({at}) |",
        "|---|---|---|" + "---|" * (len(sizes) + 3),
    ]
    for row in results["rows"]:
        name = row["tool"] + (f" ({row['version']})" if row["version"] else "")
        cells = " | ".join(num(row["sizes"][s]["median_ms"]) for s in sizes)
        ratios = " / ".join(f"{row['llm_patch_over_this'][s]:g}" for s in sizes)
        right = "yes" if row["correct"] else f"**no** ({row['wrong_results']} wrong)"
        cpu = " / ".join(num(row["sizes"][s]["child_cpu_median_ms"]) for s in sizes)
        lines.append(
            f"| {name} | {row['kind']} | {right} | {cells} | {row['exponent']} | {ratios} | {cpu} |"
        )
    for reason in results["skipped"]:
        lines.append("")
        lines.append(f"Skipped: {reason}.")
    return "\n".join(lines) + "\n"


def update_readme(results: dict[str, Any]) -> None:
    fill_section(HERE / "README.md", BEGIN, END, markdown(results))
    fill_section(HERE / "README.md", KINDS_BEGIN, KINDS_END, kinds_markdown(results))
    if before_after_markdown(results):
        fill_section(HERE / "README.md", AFTER_BEGIN, AFTER_END, before_after_markdown(results))


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        prog="python -m benchmarks.compare_peers",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--rounds", type=int, default=15, help="timed rounds (default 15)")
    p.add_argument("--sizes", help="comma-separated file sizes (default 1000,10000,100000)")
    p.add_argument("--quick", action="store_true", help="1,000 and 10,000 lines, 3 rounds")
    p.add_argument("--no-install", action="store_true", help="skip peers not yet installed")
    p.add_argument(
        "--roo-code",
        help="a checkout of github.com/RooCodeInc/Roo-Code (default: $ROO_CODE_SRC); "
        "without one, Roo Code is skipped",
    )
    p.add_argument(
        "--baseline",
        type=Path,
        help="another tree of this project, planned in the same run (before and after)",
    )
    p.add_argument("--out", type=Path, help="JSON output (default results/peers.json)")
    p.add_argument(
        "--readme",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="rewrite the README's side-by-side table (default: on unless --quick)",
    )
    args = p.parse_args(argv)
    sizes = [1_000, 10_000] if args.quick else list(SIZES)
    if args.sizes:
        sizes = [int(x) for x in args.sizes.split(",")]
    rounds = 3 if args.quick else args.rounds
    roo = compare_peers_roo.source_dir(args.roo_code)
    results = run(sizes, rounds, not args.no_install, roo, args.baseline)
    out = args.out or HERE / "results" / ("peers-quick.json" if args.quick else "peers.json")
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(results, indent=1) + "\n", encoding="utf-8")
    print(markdown(results))
    print(kinds_markdown(results))
    print(f"results written to {out}")
    if args.readme if args.readme is not None else not args.quick:
        update_readme(results)
        print("side-by-side table in benchmarks/README.md regenerated")
    return 0


if __name__ == "__main__":
    sys.exit(main())
