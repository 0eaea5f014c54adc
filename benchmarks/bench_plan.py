"""Whole replies: parse, then plan against 10 files of 5,000 lines.

* **parse** — `parse_reply(text)`: every format's scanner over the reply.
* **plan, cold** — `plan_reply` on texts never seen (every cache emptied first), snapshots
  from memory: the resolve work alone.
* **plan, warm** — the same plan again (an editor re-checking a reply against unchanged
  documents: the server's case).
* **check from disk** — parse + plan with `DiskWorkspace` reading the files (what
  `llm-patch check` does after start-up), caches emptied first.
* **CLI process** — `llm-patch check REPLY --root DIR` as a new process: interpreter start,
  imports, reading, parsing, planning, printing.
* **one block by file size** (`run_sizes`) — the plan as shipped (with its SYNTAX_BROKEN
  check) of a one-block reply, the exact case of the ladder's workloads, against one file
  of 1,000 / 10,000 / 100,000 lines, cold, beside the same plan without the check.
* **near misses** (`python -m benchmarks.bench_plan`) — a 1 MB reply of 12,000 one-line
  blocks that each miss a 5,000-line file by one character: parse and plan, once.

Each plan is checked: every block placed and every file exactly as expected.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from benchmarks.timing import sample, summary
from benchmarks.workloads import (
    LANGUAGES,
    Reply,
    generate,
    make_cases,
    make_reply,
    near_miss_reply,
)
from lsp_server.model import Plan, Snapshot, WarningType
from lsp_server.plan import PlanOptions, plan_reply
from lsp_server.reply import parse_reply
from lsp_server.resolve import cache
from lsp_server.workspace import DiskWorkspace

Log = Callable[[str], None]


class MemorySource:
    """Snapshots straight from a dict (no disk): isolates the resolve work."""

    def __init__(self, files: dict[str, str]):
        self.files = files

    def snapshot(self, path: str) -> Snapshot:
        return Snapshot(path, self.files.get(path))


_NO_SYNTAX = PlanOptions(check_syntax=False)


def plan_correct(plan: Plan, reply: Reply) -> bool:
    if not plan.ok:
        return False
    got = {f.path: f.new_text for f in plan.files}
    return got == reply.expected


def write_files(root: Path, reply: Reply) -> Path:
    for path, text in reply.files.items():
        target = root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8", newline="")
    reply_path = root / "reply.llm.md"
    reply_path.write_text(reply.text, encoding="utf-8")
    return reply_path


def bench_reply(n_blocks: int, repeat: int, cli_repeat: int, log: Log) -> dict[str, Any]:
    reply = make_reply(n_blocks)
    parsed = parse_reply(reply.text)
    source = MemorySource(reply.files)
    cache.clear_all()
    plan = plan_reply(parsed, source)
    correct = plan_correct(plan, reply) and len(parsed.blocks) == n_blocks
    row: dict[str, Any] = {
        "blocks": n_blocks,
        "files": len({p for p, _ in reply.blocks}),
        "file_lines": 5000,
        "correct": correct,
        "matches": sorted({str(o.match) for o in plan.outcomes if o.match is not None}),
        "parse": summary(sample(lambda: parse_reply(reply.text), repeat)),
        "plan_cold": summary(
            sample(lambda: plan_reply(parsed, source), repeat, setup=cache.clear_all)
        ),
        # the same without the SYNTAX_BROKEN check, which parses every changed file with
        # tree-sitter on first sight (~25 ms per 5,000-line file here): placement alone
        "place_cold": summary(
            sample(lambda: plan_reply(parsed, source, _NO_SYNTAX), repeat, setup=cache.clear_all)
        ),
    }
    plan_reply(parsed, source)
    row["plan_warm"] = summary(sample(lambda: plan_reply(parsed, source), repeat))
    with tempfile.TemporaryDirectory(prefix="llm-patch-bench-") as tmp:
        root = Path(tmp)
        reply_path = write_files(root, reply)
        disk = DiskWorkspace(root)

        def check() -> Plan:
            return plan_reply(parse_reply(reply_path.read_text(encoding="utf-8")), disk)

        cache.clear_all()
        row["correct"] = row["correct"] and plan_correct(check(), reply)
        row["check_disk"] = summary(sample(check, repeat, setup=cache.clear_all))
        row["cli_process"] = summary(_cli(reply_path, root, cli_repeat)) if cli_repeat else None
    cli = f"  cli {row['cli_process']['median_ms']:7.1f} ms" if cli_repeat else ""
    log(
        f"plan {n_blocks:>3} blocks  parse {row['parse']['median_ms']:7.2f} ms"
        f"  cold {row['plan_cold']['median_ms']:7.2f} ms"
        f" (placement alone {row['place_cold']['median_ms']:7.2f} ms)"
        f"  warm {row['plan_warm']['median_ms']:7.2f} ms"
        f"  disk {row['check_disk']['median_ms']:7.2f} ms{cli}  correct={row['correct']}"
    )
    cache.clear_all()
    return row


def _cli(reply_path: Path, root: Path, repeat: int) -> list[float]:
    cmd = [sys.executable, "-m", "lsp_server.cli", "check", str(reply_path), "--root", str(root)]
    out = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        done = subprocess.run(cmd, capture_output=True, check=False)
        out.append((time.perf_counter() - t0) * 1000.0)
        if done.returncode != 0:
            raise RuntimeError(f"llm-patch check failed: {done.stderr.decode()[-2000:]}")
    return out


def run(blocks: list[int], repeat: int, cli_repeat: int, log: Log) -> list[dict[str, Any]]:
    return [bench_reply(n, repeat, cli_repeat, log) for n in blocks]


def bench_one_block(language: str, size: int, repeat: int, log: Log) -> dict[str, Any]:
    """One exact SEARCH/REPLACE block against one file of `size` lines, cold: the plan as
    shipped, its SYNTAX_BROKEN check included, and without that check."""
    w = generate(language, size)
    case = make_cases(w)["exact"]
    reply = "\n".join(
        [w.path, "```", "<<<<<<< SEARCH", case.old.rstrip("\n"), "=======",
         case.new.rstrip("\n"), ">>>>>>> REPLACE", "```", ""]
    )
    parsed = parse_reply(reply)
    source = MemorySource({w.path: w.text})
    cache.clear_all()
    plan = plan_reply(parsed, source)
    correct = (
        plan.ok
        and [f.new_text for f in plan.files] == [case.expected(w)]
        and not any(x.type is WarningType.SYNTAX_BROKEN for x in plan.warnings)
    )
    row: dict[str, Any] = {
        "language": language,
        "lines": size,
        "correct": correct,
        "plan_cold": summary(
            sample(lambda: plan_reply(parsed, source), repeat, setup=cache.clear_all)
        ),
        "place_cold": summary(
            sample(lambda: plan_reply(parsed, source, _NO_SYNTAX), repeat, setup=cache.clear_all)
        ),
    }
    log(
        f"plan 1 block  {language:<10} {size:>7,} lines  cold {row['plan_cold']['median_ms']:8.2f}"
        f" ms (placement alone {row['place_cold']['median_ms']:7.2f} ms)  correct={correct}"
    )
    cache.clear_all()
    return row


def run_sizes(sizes: list[int], repeat: int, log: Log) -> list[dict[str, Any]]:
    """`bench_one_block` for every language and size, sizes interleaved per language."""
    return [bench_one_block(lang, n, repeat, log) for n in sizes for lang in LANGUAGES]


def bench_near_misses(log: Log, n_blocks: int = 12_000) -> dict[str, Any]:
    """Parse and plan a reply of `n_blocks` near-miss blocks once (cold): how long a user
    waits before hearing that the reply does not fit the file."""
    reply = near_miss_reply(n_blocks)
    cache.clear_all()
    t0 = time.perf_counter()
    parsed = parse_reply(reply.text)
    t1 = time.perf_counter()
    plan = plan_reply(parsed, MemorySource(reply.files))
    t2 = time.perf_counter()
    untried = sum(1 for o in plan.outcomes if o.failure and o.failure.details.get("not_tried"))
    row = {
        "blocks": len(parsed.blocks),
        "reply_bytes": len(reply.text.encode()),
        "parse_ms": round((t1 - t0) * 1000, 1),
        "plan_ms": round((t2 - t1) * 1000, 1),
        "placed": sum(o.placed for o in plan.outcomes),
        "not_tried": untried,
    }
    log(
        f"near misses: {row['blocks']:,} blocks, {row['reply_bytes']:,} bytes  parse "
        f"{row['parse_ms']:.0f} ms  plan {row['plan_ms']:.0f} ms  placed {row['placed']}"
        f"  refused untried {untried:,}"
    )
    return row


if __name__ == "__main__":
    bench_near_misses(print)
