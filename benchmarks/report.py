"""Results JSON → targets verdicts, README tables, and run-to-run comparisons."""

from __future__ import annotations

from pathlib import Path
from typing import Any

BEGIN, END = "<!-- results:begin -->", "<!-- results:end -->"
SIZES = (1_000, 10_000, 100_000)


def _size(lines: int) -> int:
    return min(SIZES, key=lambda s: abs(lines - s))


def _rows(results: dict[str, Any], rung: str, size: int) -> list[dict[str, Any]]:
    return [
        r for r in results.get("ladder", []) if r["rung"] == rung and _size(r["lines"]) == size
    ]


def _worst(rows: list[dict[str, Any]], mode: str) -> float | None:
    values = [r[mode]["median_ms"] for r in rows]
    return max(values) if values else None


def targets(results: dict[str, Any]) -> list[dict[str, Any]]:
    """The issue's targets, each with what was measured (worst language, medians)."""
    out: list[dict[str, Any]] = []

    def add(name: str, limit: float, unit: str, value: float | None, how: str) -> None:
        out.append(
            {
                "target": name,
                "limit": limit,
                "unit": unit,
                "measured": None if value is None else round(value, 3),
                "met": None if value is None else value <= limit,
                "how": how,
            }
        )

    names = {"exact": "exact", "indent": "indentation", "fuzzy1": "fuzzy, 1 of 10 lines differs"}
    for rung, size, limit in (("exact", 10_000, 1.0), ("indent", 10_000, 2.0),
                              ("fuzzy1", 10_000, 10.0), ("fuzzy1", 100_000, 100.0)):
        rows = _rows(results, rung, size)
        label = f"{names[rung]}, {size:,} lines"
        add(f"{label} (warm)", limit, "ms", _worst(rows, "warm"),
            "locate() on the document's index, worst language")
        add(f"{label} (cold)", limit, "ms", _worst(rows, "cold"),
            "apply_hunks() on a never-seen text, worst language")
    ratios = results.get("scaling", [])
    for mode in ("warm", "cold"):
        values = [r[f"{mode}_ratio"] for r in ratios if r[f"{mode}_ratio"] is not None]
        add(f"100k / 10k cost ratio ({mode})", 12.0, "×", max(values) if values else None,
            "worst rung and language")
        overall = (results.get("scaling_overall") or {}).get(f"{mode}_ratio")
        if overall is not None:
            ref = results.get("scaling_reference") or {}
            add(f"100k / 10k cost ratio ({mode}, all rungs together)", 12.0, "×", overall,
                "summed medians; for scale, `str.splitlines` alone: "
                f"{ref.get('ratio', '?')} × on this machine")
    for size, limit in ((10_000, 2.0), (100_000, 15.0)):
        rows = [r for r in results.get("plan_sizes", []) if r["lines"] == size]
        add(f"plan as shipped, one exact block, {size:,} lines (cold)", limit, "ms",
            max((r["plan_cold"]["median_ms"] for r in rows), default=None),
            "plan_reply with its SYNTAX_BROKEN check, every cache emptied, worst language")
    plans = {p["blocks"]: p for p in results.get("plan", [])}
    if 50 in plans:
        add("50-block reply, 10 files × 5k lines (check from disk)", 100.0, "ms",
            plans[50]["check_disk"]["median_ms"], "parse + read + plan, caches empty")
        add("50-block reply, 10 files × 5k lines (plan only, cold)", 60.0, "ms",
            plans[50]["plan_cold"]["median_ms"],
            "plan_reply on snapshots in memory, every cache (parsed trees too) emptied first")
        if "place_cold" in plans[50]:
            add("50-block reply, 10 files × 5k lines (placement alone, cold)", 100.0, "ms",
                plans[50]["place_cold"]["median_ms"],
                "the same without the SYNTAX_BROKEN check (a tree-sitter parse of each "
                "changed file on first sight)")
    lsp = results.get("lsp") or {}
    trip = lsp.get("round_trip")
    if trip and trip.get("blocks") == 50:
        add("LSP round trip, 50-block reply", 150.0, "ms", trip["round_trip"]["median_ms"],
            "code action request → workspace/applyEdit received")
    if "start" in lsp:
        first = lsp.get("first_start_ms")
        add("server start to initialize response", 500.0, "ms", lsp["start"]["median_ms"],
            "new process, wall clock" + (
                f"; the first start after an install (empty code cache) took {first:.0f} ms"
                if first is not None else ""))
    typing = lsp.get("typing")
    if typing:
        add(f"keystroke in a {typing['document_mb']} MB open document", 10.0, "ms",
            typing["keystroke"]["median_ms"],
            "didChange → the event loop is free again; CPU "
            f"{typing['cpu_per_keystroke_ms']:.2f} ms per keystroke")
    mem = lsp.get("memory")
    if mem and mem.get("documents") == 50:
        add("peak RSS, 50 open 10k-line documents", 150.0, "MB", mem["peak_rss_mb"],
            "VmHWM after opening them and checking a 50-block reply")
    return out


def _ms(summary: dict[str, Any] | None) -> str:
    if not summary:
        return "–"
    return f"{num(summary['median_ms'])} ({num(summary['p95_ms'])})"


def num(x: float) -> str:
    if x >= 100:
        return f"{x:.0f}"
    if x >= 10:
        return f"{x:.1f}"
    if x >= 1:
        return f"{x:.2f}"
    return f"{x:.3f}"


def _table(header: list[str], rows: list[list[str]]) -> list[str]:
    out = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    out += ["| " + " | ".join(r) + " |" for r in rows]
    return out


def markdown(results: dict[str, Any]) -> str:
    """The README's numbers section, entirely from one results file."""
    meta = results["meta"]
    lines = [
        f"Run of {meta['date']} on {meta['machine']} (Python {meta['python']}); "
        f"load average {meta.get('load_before')} before, {meta.get('load_after')} after. "
        "Times are wall-clock medians with p95 in brackets, in ms; the machine was shared, "
        "so p95 carries other processes' work.",
        "",
        "### Targets",
        "",
    ]
    rows = []
    for t in results.get("targets", []):
        verdict = {True: "met", False: "**missed**", None: "not measured"}[t["met"]]
        measured = "–" if t["measured"] is None else f"{num(t['measured'])} {t['unit']}"
        rows.append([t["target"], f"≤ {num(t['limit'])} {t['unit']}", measured, verdict,
                     t["how"]])
    lines += _table(["target", "limit", "measured", "verdict", "how"], rows)

    ladder = results.get("ladder", [])
    if ladder:
        sizes = sorted({_size(r["lines"]) for r in ladder})
        for mode, title in (("warm", "warm: `locate()` on the document's index"),
                            ("cold", "cold: `apply_hunks()` on a never-seen text")):
            lines += ["", f"### Ladder, {title}", ""]
            header = ["rung", "language"] + [f"{s:,} lines" for s in sizes] + ["outcome"]
            body = []
            by = {(r["rung"], r["language"], _size(r["lines"])): r for r in ladder}
            for rung in dict.fromkeys(r["rung"] for r in ladder):
                for lang in dict.fromkeys(r["language"] for r in ladder):
                    cells = [_ms(by[(rung, lang, s)][mode]) if (rung, lang, s) in by else "–"
                             for s in sizes]
                    outcomes = {by[(rung, lang, s)]["outcome"] + ("" if by[(rung, lang, s)]
                                ["correct"] else " ✗") for s in sizes if (rung, lang, s) in by}
                    body.append([rung, lang, *cells, "; ".join(sorted(outcomes))])
            lines += _table(header, body)
        scaling = results.get("scaling", [])
        if scaling:
            lines += ["", "### Scaling: cost at 100k lines ÷ cost at 10k lines (10 = linear)", ""]
            body = [[r["rung"], r["language"], str(r["warm_ratio"]), str(r["cold_ratio"])]
                    for r in scaling]
            lines += _table(["rung", "language", "warm", "cold"], body)
            ref = results.get("scaling_reference")
            if ref:
                lines += ["", f"For scale: `{ref['operation']}` on the Go workloads took "
                          f"{ref['ms_10k']} ms at 10k lines and {ref['ms_100k']} ms at 100k, "
                          f"a ratio of {ref['ratio']}: linear work in C, slowed by a tenfold "
                          "input falling out of the CPU caches."]

    plans = results.get("plan", [])
    if plans:
        lines += ["", "### Whole replies (10 files × 5,000 lines)", ""]
        body = [
            [str(p["blocks"]), _ms(p["parse"]), _ms(p["plan_cold"]),
             _ms(p["place_cold"]) if "place_cold" in p else "–", _ms(p["plan_warm"]),
             _ms(p["check_disk"]), _ms(p.get("cli_process")), "yes" if p["correct"] else "**no**"]
            for p in plans
        ]
        lines += _table(["blocks", "parse", "plan cold", "placement alone, cold", "plan warm",
                         "check from disk", "`llm-patch check` process",
                         "all placed as expected"], body)

    sized = results.get("plan_sizes", [])
    if sized:
        lines += ["", "### One exact block, plan as shipped, by file size (cold)", ""]
        body = [
            [r["language"], f"{r['lines']:,}", _ms(r["plan_cold"]), _ms(r["place_cold"]),
             "yes" if r["correct"] else "**no**"]
            for r in sized
        ]
        lines += _table(["language", "lines", "plan (with the SYNTAX_BROKEN check)",
                         "placement alone", "correct"], body)

    structural = results.get("structural")
    if isinstance(structural, list) and structural:
        lines += ["", "### Structural targets (`TARGET_NODE`, tree-sitter)", ""]
        body = [
            [r["language"], f"{r['lines']:,}", _ms(r["cold"]), _ms(r["warm"]),
             _ms(r["after_edit"]), "yes" if r["correct"] else "**no**"]
            for r in structural
        ]
        lines += _table(["language", "lines", "cold (new process, excl. start-up)", "warm",
                         "after a small edit", "correct"], body)
    elif isinstance(structural, dict) and "skipped" in structural:
        lines += ["", f"Structural targets: skipped ({structural['skipped']})."]

    lsp = results.get("lsp")
    if isinstance(lsp, dict) and "start" in lsp:
        trip, mem = lsp["round_trip"], lsp["memory"]
        lines += ["", "### Language server (stdio, real process)", ""]
        body = [
            ["start → initialize response", _ms(lsp["start"]),
             f"server CPU {num(lsp['start_cpu']['median_ms'])} ms"
             + (f"; first start (empty code cache) {num(lsp['first_start_ms'])} ms"
                if "first_start_ms" in lsp else "")],
            [f"code action → workspace/applyEdit ({trip['blocks']} blocks, {trip['files']} open "
             "files)", _ms(trip["round_trip"]),
             f"first (cold) {num(trip['first_round_trip_ms'])} ms; "
             f"correct: {'yes' if trip['correct'] else 'no'}"],
            ["of which the code action request", _ms(trip["code_action"]), ""],
            ["`llmPatch.apply {text}` → workspace/applyEdit", _ms(trip["command"]), ""],
            [f"RSS, {mem['documents']} open {mem['lines_each']:,}-line documents",
             f"{mem['open_rss_mb']} MB", f"peak {mem['peak_rss_mb']} MB after a 50-block check; "
             f"idle {mem['idle_rss_mb']} MB"],
        ]
        typing = lsp.get("typing")
        if typing:
            body.append(
                [f"keystroke (`didChange`) in a {typing['document_mb']} MB open document",
                 _ms(typing["keystroke"]),
                 f"server CPU {num(typing['cpu_per_keystroke_ms'])} ms per keystroke; the "
                 f"first (counts the lines once) {num(typing['first_keystroke_ms'])} ms"
                 + (f"; measured apart, {typing['run']['date']} on {typing['run']['commit']}"
                    if typing.get("run") else "")])
        lines += _table(["what", "median (p95)", "notes"], body)
    elif isinstance(lsp, dict) and "skipped" in lsp:
        lines += ["", f"Language server: skipped ({lsp['skipped']})."]
    return "\n".join(lines) + "\n"


def fill_section(readme: Path, begin: str, end: str, body: str) -> None:
    """Put `body` between the `begin` and `end` markers of `readme` (each benchmark command
    owns one such section, so its run rewrites only its own numbers)."""
    text = readme.read_text(encoding="utf-8")
    start, stop = text.find(begin), text.find(end)
    if start < 0 or stop < start:
        raise SystemExit(f"{readme} has no {begin} … {end} section to fill")
    readme.write_text(text[: start + len(begin)] + "\n" + body + text[stop:], encoding="utf-8")


def update_readme(readme: Path, results: dict[str, Any]) -> None:
    fill_section(readme, BEGIN, END, markdown(results))


def compare(old: dict[str, Any], new: dict[str, Any]) -> str:
    """Median changes between two runs, for every measurement both have."""
    out = [f"{'measurement':60} {'old':>10} {'new':>10} {'new/old':>8}"]

    def line(name: str, a: float, b: float) -> None:
        ratio = f"{b / a:8.2f}" if a else "       –"
        out.append(f"{name:60} {a:10.3f} {b:10.3f} {ratio}")

    def key(r: dict[str, Any]) -> tuple:
        return (r["rung"], r["language"], _size(r["lines"]))

    olds = {key(r): r for r in old.get("ladder", [])}
    for r in new.get("ladder", []):
        o = olds.get(key(r))
        if o is None:
            continue
        for mode in ("warm", "cold"):
            name = f"ladder {r['rung']} {r['language']} {_size(r['lines'])} {mode}"
            line(name, o[mode]["median_ms"], r[mode]["median_ms"])
    oplans = {p["blocks"]: p for p in old.get("plan", [])}
    for p in new.get("plan", []):
        o = oplans.get(p["blocks"])
        if o is None:
            continue
        for k in ("parse", "plan_cold", "plan_warm", "check_disk"):
            if k in o and k in p:
                line(f"plan {p['blocks']} blocks {k}", o[k]["median_ms"], p[k]["median_ms"])
    return "\n".join(out)
