"""Each rung of the matching ladder, per language and file size, warm and cold.

* **warm** — `locate()` against a `ContentIndex` already used for this text, past its first
  few lookups (which scan the text; later ones build and use the line table): the cost of
  placing one more block in a document the server has seen (open documents are indexed
  once per version and the index is reused).
* **cold** — `apply_hunks(text, [hunk])` on a text never seen before (every cache emptied
  first): splitting the file, indexing what the rungs ask for, placing, splicing, joining.
  This is what the CLI pays for the first block on each file.

Every case is also checked: a block that must place has to produce exactly the expected
file; a block that must be refused has to fail with the expected error code.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from benchmarks.timing import sample, summary
from benchmarks.workloads import LANGUAGES, Case, Workload, generate, make_cases
from lsp_server.lines import text_lines
from lsp_server.model import Hunk, PlacementError
from lsp_server.resolve import cache, content_index
from lsp_server.resolve.content_index import ContentIndex
from lsp_server.resolve.hunks import apply_hunks
from lsp_server.resolve.ladder import locate

Log = Callable[[str], None]


def outcome_of(w: Workload, case: Case, result: str | PlacementError) -> tuple[str, bool]:
    """How the engine answered ("placed", "misplaced", "refused CODE") and whether that was
    the right answer for the case."""
    if isinstance(result, PlacementError):
        code = str(result.failure.code)
        return f"refused {code}", case.refusal == code
    if case.refusal is not None:
        return "placed (should refuse)", False
    ok = result == case.expected(w)
    return ("placed" if ok else "misplaced"), ok


def _cold(text: str, hunk: Hunk) -> str | PlacementError:
    try:
        return apply_hunks(text, [hunk]).text
    except PlacementError as err:
        return err


def _warm(lines: list[str], old: list[str], index: ContentIndex) -> Any:
    try:
        return locate(lines, old, index=index)
    except PlacementError as err:
        return err


def bench_case(w: Workload, case: Case, repeat: int, budget_ms: float = 0.0) -> dict[str, Any]:
    """`budget_ms`: fast cases are sampled until their calls add up to this (at most ten
    times `repeat`), so a sub-millisecond median rests on dozens of calls, not nine."""
    text, lines = w.text, list(w.lines)
    hunk = Hunk(case.old, case.new)
    old = text_lines(case.old)
    index = ContentIndex(lines)
    # steady state: the first lookups under a normalisation scan the text, later ones build
    # and use the line table (see ContentIndex); prime past that so every sample is alike
    for _ in range(content_index.SEARCHES + 2):
        first = _warm(lines, old, index)
    warm = sample(lambda: _warm(lines, old, index), repeat, budget_ms=budget_ms)
    cache.clear_all()
    result = _cold(text, hunk)
    cold = sample(lambda: _cold(text, hunk), repeat, setup=cache.clear_all, budget_ms=budget_ms)
    outcome, correct = outcome_of(w, case, result)
    kind = None if isinstance(first, PlacementError) else str(first.kind)
    return {
        "language": w.language,
        "lines": len(w.lines),
        "rung": case.rung,
        "note": case.note,
        "outcome": outcome,
        "match": kind,
        "correct": correct,
        "warm": summary(warm),
        "cold": summary(cold),
    }


def run(
    sizes: list[int], repeats: dict[int, int], log: Log, budget_ms: float = 0.0
) -> list[dict[str, Any]]:
    """Every rung at every size. A rung's sizes are measured back to back, so the scaling
    ratio compares two medians taken seconds apart: on a shared machine the load can
    change by half between the start and the end of a run, and measuring all of one size
    before the next let that drift into the ratios."""
    rows = []
    for lang in LANGUAGES:
        workloads = {size: generate(lang, size) for size in sizes}
        cases = {size: make_cases(w) for size, w in workloads.items()}
        for rung in cases[sizes[0]]:
            for size in sizes:
                case = cases[size][rung]
                row = bench_case(workloads[size], case, repeats[size], budget_ms)
                rows.append(row)
                warm, cold = row["warm"]["median_ms"], row["cold"]["median_ms"]
                log(
                    f"ladder {lang:10} {size:>6} {case.rung:10} warm {warm:8.3f} ms"
                    f"  cold {cold:8.3f} ms  {row['outcome']}"
                )
        cache.clear_all()
    return rows


def scaling(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Cost at 100k lines over cost at 10k lines, per rung and language (10 means linear)."""
    by = {(r["language"], r["rung"], _size_class(r["lines"])): r for r in rows}
    out = []
    for (lang, rung, size), big in by.items():
        if size != 100_000:
            continue
        small = by.get((lang, rung, 10_000))
        if small is None:
            continue
        out.append(
            {
                "language": lang,
                "rung": rung,
                "warm_ratio": _ratio(big["warm"]["median_ms"], small["warm"]["median_ms"]),
                "cold_ratio": _ratio(big["cold"]["median_ms"], small["cold"]["median_ms"]),
            }
        )
    return out


def overall_scaling(rows: list[dict[str, Any]]) -> dict[str, float | None]:
    """All rungs and languages together: summed medians at 100k over those at 10k. Unlike
    the worst single ratio, this is not decided by the noisiest of two dozen pairs."""
    out: dict[str, float | None] = {}
    for mode in ("warm", "cold"):
        small = sum(r[mode]["median_ms"] for r in rows if _size_class(r["lines"]) == 10_000)
        big = sum(r[mode]["median_ms"] for r in rows if _size_class(r["lines"]) == 100_000)
        out[f"{mode}_ratio"] = _ratio(big, small)
    return out


def reference_scaling(repeat: int = 15) -> dict[str, Any]:
    """The same ratio for `str.splitlines` on the Go workloads: linear work done in C, so it
    shows what this machine's caches and allocator alone do to a tenfold bigger input."""
    times = {}
    for size in (10_000, 100_000):
        text = generate("go", size).text
        times[size] = summary(
            sample(lambda text=text: text.splitlines(True), repeat, budget_ms=150.0)
        )
    return {
        "operation": "str.splitlines(keepends=True)",
        "ms_10k": times[10_000]["median_ms"],
        "ms_100k": times[100_000]["median_ms"],
        "ratio": _ratio(times[100_000]["median_ms"], times[10_000]["median_ms"]),
    }


def _ratio(a: float, b: float) -> float | None:
    return round(a / b, 2) if b > 0 else None


def _size_class(lines: int) -> int:
    """Generated files end on a whole function, so 10,000 is 10,00x: round to the size asked."""
    for size in (1_000, 5_000, 10_000, 100_000):
        if abs(lines - size) <= size * 0.05:
            return size
    return lines
