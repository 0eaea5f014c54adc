"""`python -m benchmarks.run [--quick]`: run the benchmarks, save JSON, refresh the README.

A full run takes a few minutes and rewrites `benchmarks/results/latest.json` and the numbers
section of `benchmarks/README.md`. `--quick` is a smoke run (small files, few repeats,
seconds) that writes `benchmarks/results/quick.json` and leaves the README alone.
`--compare OLD.json NEW.json` prints how medians moved between two runs.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import platform
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from benchmarks import report
from benchmarks.timing import load_average

HERE = Path(__file__).resolve().parent
SECTIONS = ("ladder", "plan", "structural", "lsp")

FULL: dict[str, Any] = {
    "sizes": [1_000, 10_000, 100_000],
    "repeats": {1_000: 50, 10_000: 30, 100_000: 9},
    "plan_blocks": [1, 10, 50],
    "plan_repeat": 15,
    "cli_repeat": 3,
    "struct_sizes": [10_000, 100_000],
    "struct_repeat": 10,
    "struct_cold": 3,
    "lsp_starts": 9,
    "lsp_rounds": 8,
    "lsp_blocks": 50,
    "lsp_docs": 50,
    "settle": 1.0,
    "lsp_reuse": False,
    "budget_ms": 150.0,
}
QUICK: dict[str, Any] = {
    "sizes": [1_000],
    "repeats": {1_000: 3},
    "plan_blocks": [1, 10],
    "plan_repeat": 1,
    "cli_repeat": 0,
    "struct_sizes": [1_000],
    "struct_repeat": 2,
    "struct_cold": 0,
    "lsp_starts": 1,
    "lsp_rounds": 2,
    "lsp_blocks": 10,
    "lsp_docs": 3,
    "settle": 0.2,
    "lsp_reuse": True,
    "budget_ms": 0.0,
}


def _machine() -> str:
    model = ""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return f"{os.cpu_count()} × {model or platform.processor() or platform.machine()}"


def _commit() -> str | None:
    try:
        out = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], cwd=HERE, capture_output=True, text=True
        )
    except OSError:
        return None
    return out.stdout.strip() or None


def run(quick: bool, sections: list[str], log=print) -> dict[str, Any]:
    cfg = QUICK if quick else FULL
    started = time.perf_counter()
    results: dict[str, Any] = {
        "meta": {
            "date": dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC"),
            "python": platform.python_version(),
            "machine": _machine(),
            "commit": _commit(),
            "quick": quick,
            "config": {k: v for k, v in cfg.items() if k != "repeats"}
            | {"repeats": {str(k): v for k, v in cfg["repeats"].items()}},
            "load_before": load_average(),
        }
    }
    if "ladder" in sections:
        from benchmarks import bench_ladder

        results["ladder"] = bench_ladder.run(cfg["sizes"], cfg["repeats"], log, cfg["budget_ms"])
        results["scaling"] = bench_ladder.scaling(results["ladder"])
        results["scaling_overall"] = bench_ladder.overall_scaling(results["ladder"])
        results["scaling_reference"] = bench_ladder.reference_scaling()
    if "plan" in sections:
        from benchmarks import bench_plan

        results["plan"] = bench_plan.run(
            cfg["plan_blocks"], cfg["plan_repeat"], cfg["cli_repeat"], log
        )
        results["plan_sizes"] = bench_plan.run_sizes(cfg["sizes"], cfg["plan_repeat"], log)
    if "structural" in sections:
        from benchmarks import bench_structure

        why = bench_structure.available()
        results["structural"] = (
            {"skipped": why}
            if why
            else bench_structure.run(
                cfg["struct_sizes"], cfg["struct_repeat"], cfg["struct_cold"], log
            )
        )
    if "lsp" in sections:
        results["lsp"] = _lsp(cfg, log)
    results["targets"] = report.targets(results)
    results["meta"]["load_after"] = load_average()
    results["meta"]["duration_s"] = round(time.perf_counter() - started, 1)
    return results


def _lsp(cfg: dict[str, Any], log) -> dict[str, Any]:
    try:
        import lsp_server.lsp.server  # noqa: F401
    except ImportError as err:
        return {"skipped": f"lsp_server.lsp.server is not importable: {err}"}
    from benchmarks import bench_lsp

    return bench_lsp.run(
        cfg["lsp_starts"], cfg["lsp_rounds"], cfg["lsp_blocks"], cfg["lsp_docs"], cfg["settle"],
        log, cfg["lsp_reuse"],
    )


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.run", description=__doc__.split("\n")[0])
    p.add_argument("--quick", action="store_true", help="smoke run: small files, few repeats")
    p.add_argument("--only", help=f"comma-separated sections to run ({', '.join(SECTIONS)})")
    p.add_argument("--skip", help="comma-separated sections to leave out")
    p.add_argument("--out", type=Path, help="where to write the JSON (default: results/)")
    p.add_argument("--readme", action=argparse.BooleanOptionalAction, default=None,
                   help="rewrite README.md's numbers (default: on for full runs of everything)")
    p.add_argument("--compare", nargs=2, type=Path, metavar=("OLD", "NEW"),
                   help="print how medians moved between two results files, run nothing")
    args = p.parse_args(argv)
    if args.compare:
        old, new = (json.loads(x.read_text(encoding="utf-8")) for x in args.compare)
        print(report.compare(old, new))
        return 0
    sections = list(SECTIONS)
    if args.only:
        sections = [s for s in args.only.split(",") if s]
    if args.skip:
        sections = [s for s in sections if s not in args.skip.split(",")]
    unknown = set(sections) - set(SECTIONS)
    if unknown:
        p.error(f"unknown section(s): {', '.join(sorted(unknown))}")
    results = run(args.quick, sections)
    out = args.out or HERE / "results" / ("quick.json" if args.quick else "latest.json")
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_suffix(out.suffix + ".tmp")
    tmp.write_text(json.dumps(results, indent=1) + "\n", encoding="utf-8")
    tmp.replace(out)
    print(f"results written to {out}")
    readme = args.readme if args.readme is not None else (
        not args.quick and sections == list(SECTIONS) and args.out is None
    )
    if readme:
        report.update_readme(HERE / "README.md", results)
        print(f"numbers section of {HERE / 'README.md'} regenerated")
    for t in results["targets"]:
        verdict = {True: "met", False: "MISSED", None: "n/a"}[t["met"]]
        print(f"  {verdict:6} {t['target']}: {t['measured']} {t['unit']} (limit {t['limit']})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
