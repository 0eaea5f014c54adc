"""Side by side with aider's SEARCH/REPLACE matcher, on the same workloads as our ladder.

    python -m benchmarks.compare_aider [--quick] [--sizes 1000,10000,100000]

aider is installed into its own virtual environment, `benchmarks/.aider-venv` (created on
first use with `pip install aider-chat`; never a dependency of this project), and its
matcher runs there in a child process: `aider.coders.editblock_coder.do_replace`, the
function aider's `EditBlockCoder.apply_edits` calls for each block and file (it strips
fence wrapping, then calls `replace_most_similar_chunk`: exact, then leading-whitespace
tolerant, then `...` elision; aider's fuzzy fallback sits after a `return` in that function
and never runs). Only the call is timed, not aider's imports.

Both engines get the same file text and the same SEARCH / REPLACE texts and must return the
expected file (or refuse, for the ambiguous and not-found cases). Ours is timed cold, like
aider: `apply_hunks(text, [hunk])` on a text it has never seen, caches emptied.

Results go to `benchmarks/results/aider.json` and the README's side-by-side section.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

from benchmarks.bench_ladder import outcome_of
from benchmarks.report import fill_section, num
from benchmarks.timing import sample, summary
from benchmarks.workloads import LANGUAGES, generate, make_cases, occurrences
from lsp_server.lines import text_lines
from lsp_server.model import Hunk, PlacementError
from lsp_server.resolve import cache
from lsp_server.resolve.hunks import apply_hunks

HERE = Path(__file__).resolve().parent
VENV = HERE / ".aider-venv"
BEGIN, END = "<!-- aider:begin -->", "<!-- aider:end -->"

# Runs inside aider's venv: cases on stdin, results on stdout (one JSON document each way).
_CHILD = textwrap.dedent(
    """
    import json, sys, time
    from importlib.metadata import version
    from aider.coders.editblock_coder import do_replace

    jobs = json.load(sys.stdin)
    fence = ("```", "```")
    out = {"version": version("aider-chat"), "results": []}
    for job in jobs["cases"]:
        whole = jobs["files"][job["file"]]
        times, result = [], None
        for _ in range(job["repeat"]):
            t0 = time.perf_counter()
            try:
                result = do_replace("bench_target.txt", whole, job["old"], job["new"], fence)
            except ValueError:
                result = None
            times.append((time.perf_counter() - t0) * 1000.0)
        out["results"].append({"id": job["id"], "times": times, "text": result})
    json.dump(out, sys.stdout)
    """
)


def venv_python() -> Path:
    return VENV / ("Scripts/python.exe" if os.name == "nt" else "bin/python")


def ensure_aider(install: bool) -> Path:
    """The venv's interpreter, with aider-chat installed (installing it if allowed)."""
    py = venv_python()
    probe = [str(py), "-c", "import aider.coders.editblock_coder"]
    if py.exists() and subprocess.run(probe, capture_output=True).returncode == 0:
        return py
    if not install:
        raise SystemExit(f"aider is not installed in {VENV}; run without --no-install")
    print(f"installing aider-chat into {VENV} (once; it is not a project dependency)")
    subprocess.run([sys.executable, "-m", "venv", str(VENV)], check=True)
    subprocess.run(
        [str(py), "-m", "pip", "install", "--quiet", "--disable-pip-version-check", "aider-chat"],
        check=True,
    )
    return py


def _ours(text: str, old: str, new: str) -> str | PlacementError:
    try:
        return apply_hunks(text, [Hunk(old, new)]).text
    except PlacementError as err:
        return err


def run(sizes: list[int], repeats: dict[int, int], py: Path, log=print) -> dict[str, Any]:
    files: dict[str, str] = {}
    jobs: list[dict[str, Any]] = []
    cases: dict[str, tuple[Any, Any]] = {}
    for size in sizes:
        for lang in LANGUAGES:
            w = generate(lang, size)
            key = f"{lang}-{size}"
            files[key] = w.text
            for rung, case in make_cases(w).items():
                cid = f"{key}-{rung}"
                cases[cid] = (w, case)
                jobs.append({"id": cid, "file": key, "old": case.old, "new": case.new,
                             "repeat": repeats[size]})
    log(f"running aider's matcher on {len(jobs)} cases in {py.parent.parent.name} …")
    done = subprocess.run(
        [str(py), "-c", _CHILD],
        input=json.dumps({"files": files, "cases": jobs}).encode(),
        capture_output=True,
        check=False,
    )
    if done.returncode != 0:
        raise SystemExit(f"aider's matcher failed:\n{done.stderr.decode()[-3000:]}")
    aider = json.loads(done.stdout)
    rows = []
    for res in aider["results"]:
        w, case = cases[res["id"]]
        text = w.text
        cache.clear_all()
        ours_result = _ours(text, case.old, case.new)
        ours_times = sample(lambda: _ours(text, case.old, case.new),  # noqa: B023
                            repeats[_size(len(w.lines))], setup=cache.clear_all)
        ours_outcome, ours_ok = outcome_of(w, case, ours_result)
        a_text = res["text"]
        if a_text is None:
            a_outcome, a_ok = "refused", case.refusal is not None
        elif case.refusal is not None:
            a_outcome, a_ok = "edited" + _where(w, case, a_text), False
        else:
            a_ok = a_text == case.expected(w)
            a_outcome = "placed" if a_ok else "misplaced" + _where(w, case, a_text)
        ours_ms = summary(ours_times)["median_ms"]
        aider_ms = summary(res["times"])["median_ms"]
        row = {
            "language": w.language,
            "lines": len(w.lines),
            "rung": case.rung,
            "note": case.note,
            "ours": {"outcome": ours_outcome, "correct": ours_ok, **summary(ours_times)},
            "aider": {"outcome": a_outcome, "correct": a_ok, **summary(res["times"])},
            "aider_over_ours": round(aider_ms / ours_ms, 2) if ours_ms else None,
        }
        rows.append(row)
        log(
            f"{w.language:10} {len(w.lines):>6} {case.rung:10}"
            f" ours {ours_ms:9.3f} ms {'✓' if ours_ok else '✗'} {ours_outcome:24}"
            f" aider {aider_ms:9.3f} ms {'✓' if a_ok else '✗'} {a_outcome:28}"
            f" aider/ours {row['aider_over_ours']}"
        )
    cache.clear_all()
    return {"aider_version": aider["version"], "rows": rows}


def _where(w: Any, case: Any, text: str) -> str:
    """Where aider's edit landed, when it was not the intended place."""
    first = next(
        (i for i, (a, b) in enumerate(zip(w.lines, text.split("\n"), strict=False)) if a != b),
        None,
    )
    if first is None:
        return ""
    copies = occurrences(w.lines, text_lines(case.old))
    if case.start is not None and len(copies) > 1:
        return f" (1st of {len(copies)} copies, line {copies[0] + 1}; meant {case.start + 1})"
    return f" (line {first + 1})"


def _size(lines: int) -> int:
    return min((1_000, 10_000, 100_000), key=lambda s: abs(lines - s))


def markdown(results: dict[str, Any]) -> str:
    rows = results["rows"]
    ours_ok = sum(r["ours"]["correct"] for r in rows)
    aider_ok = sum(r["aider"]["correct"] for r in rows)
    lines = [
        f"aider-chat {results['aider_version']}, `do_replace` (exact → leading whitespace → `...`)."
        f" Right answers: ours {ours_ok}/{len(rows)}, aider {aider_ok}/{len(rows)}."
        " Times are medians in ms, both cold (text never seen before).",
        "",
        "| language | lines | case | ours | ours ms | aider | aider ms | aider ÷ ours |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        o, a = r["ours"], r["aider"]
        lines.append(
            f"| {r['language']} | {r['lines']:,} | {r['rung']} "
            f"| {'✓' if o['correct'] else '✗'} {o['outcome']} | {num(o['median_ms'])} "
            f"| {'✓' if a['correct'] else '✗'} {a['outcome']} | {num(a['median_ms'])} "
            f"| {r['aider_over_ours']} |"
        )
    return "\n".join(lines) + "\n"


def update_readme(results: dict[str, Any]) -> None:
    fill_section(HERE / "README.md", BEGIN, END, markdown(results))


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.compare_aider", description=__doc__)
    p.add_argument("--quick", action="store_true", help="1,000-line files, 3 repeats")
    p.add_argument("--sizes", help="comma-separated file sizes (default 1000,10000,100000)")
    p.add_argument("--no-install", action="store_true", help="fail instead of installing aider")
    p.add_argument("--out", type=Path, help="JSON output (default results/aider.json)")
    p.add_argument("--readme", action=argparse.BooleanOptionalAction, default=None,
                   help="rewrite the README's side-by-side table (default: on unless --quick)")
    args = p.parse_args(argv)
    sizes = [1_000] if args.quick else [1_000, 10_000, 100_000]
    if args.sizes:
        sizes = [int(x) for x in args.sizes.split(",")]
    repeats = {1_000: 3, 10_000: 3, 100_000: 3} if args.quick else {
        1_000: 20, 10_000: 10, 100_000: 3}
    py = ensure_aider(not args.no_install)
    results = run(sizes, {s: repeats.get(s, 3) for s in sizes}, py)
    out = args.out or HERE / "results" / ("aider-quick.json" if args.quick else "aider.json")
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(results, indent=1) + "\n", encoding="utf-8")
    print(f"results written to {out}")
    if args.readme if args.readme is not None else not args.quick:
        update_readme(results)
        print("side-by-side table in benchmarks/README.md regenerated")
    return 0


if __name__ == "__main__":
    sys.exit(main())
