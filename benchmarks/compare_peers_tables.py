"""The in-process tables of `compare_peers`: every kind of block beside aider and Roo
Code, and the baseline tree against this one (kept apart: compare_peers runs the tools)."""

from __future__ import annotations

from typing import Any

from benchmarks.report import num

# The blocks planned in process (compare_peers.make_kind_edit).
KINDS = ("exact", "trailing whitespace", "indented", "fuzzy", "50 blocks")

SHIPPED = "llm-patch plan (in process, as shipped)"
SEEN = "llm-patch plan (in process, as shipped, file seen before)"
BARE = "llm-patch plan (in process, without the syntax check)"
AIDER = "aider parse + do_replace (in process)"
ROO = "Roo Code apply_diff with :start_line: (in process)"
BASELINE = "llm-patch plan, baseline tree (in process, as shipped)"


def kinds_markdown(results: dict[str, Any]) -> str:
    """The in-process table: each kind of block at each size, llm-patch beside aider and
    Roo Code, and the ratios the targets are stated in (peer ÷ llm-patch: above 1,
    llm-patch is the faster)."""
    cells = {(r["tool"], r["block"], r["size"]): r for r in results.get("by_kind", [])}
    if not cells:
        return ""

    def ms(tool: str, block: str, size: int) -> str:
        row = cells.get((tool, block, size))
        if row is None:
            return "—"
        return num(row["cpu_median_ms"]) + ("" if row["right"] else " (refused or wrong)")

    def ratio(top: str, bottom: str, block: str, size: int) -> str:
        a, b = cells.get((top, block, size)), cells.get((bottom, block, size))
        if a is None or b is None:
            return "—"
        cpu = a["cpu_median_ms"] / b["cpu_median_ms"]
        return f"{cpu:.2f}× ({a['median_ms'] / b['median_ms']:.2f}×)"

    base = any(tool == BASELINE for tool, _, _ in cells)
    load = results["load_average"]
    lines = [
        f"{results['rounds']} rounds, interleaved, Python {results['python']}, load average "
        f"{load['before']} before and {load['after']} after. Each cell: the median CPU time "
        "of the call in ms (the thread's in Python, Node's for Roo Code), which the other "
        "work of the shared machine inflates much less than the wall clock. *First sight*: "
        "every cache emptied before each plan; *seen before*: another reply was planned "
        "against the same file first (an edit at its end), as the server's open documents "
        "are. Ratios are peer ÷ llm-patch as shipped at first sight (above 1: llm-patch is "
        "faster) and as shipped ÷ without the syntax check, of those CPU medians and, in "
        "brackets, of the wall-clock medians (in the JSON beside the CPU times).",
        "",
        "| block | lines | llm-patch, first sight | seen before | without syntax check "
        "| aider | Roo, `:start_line:` | aider ÷ llm-patch | Roo ÷ llm-patch "
        "| shipped ÷ no check |" + (" baseline | baseline ÷ now |" if base else ""),
        "|---|---|---|---|---|---|---|---|---|---|" + ("---|---|" if base else ""),
    ]
    for block in KINDS:
        for size in results["sizes"]:
            lines.append(
                f"| {block} | {size:,} | {ms(SHIPPED, block, size)} | {ms(SEEN, block, size)}"
                f" | {ms(BARE, block, size)} | {ms(AIDER, block, size)}"
                f" | {ms(ROO, block, size)} | {ratio(AIDER, SHIPPED, block, size)}"
                f" | {ratio(ROO, SHIPPED, block, size)}"
                f" | {ratio(SHIPPED, BARE, block, size)} |"
                + (
                    f" {ms(BASELINE, block, size)} | {ratio(BASELINE, SHIPPED, block, size)} |"
                    if base
                    else ""
                )
            )
    if base:
        version = next(r["version"] for r in results["rows"] if r["tool"] == BASELINE)
        lines += ["", f"Baseline: the tree at `{version}`, in the same run (`--baseline DIR`)."]
    return "\n".join(lines) + "\n"


def before_after_markdown(results: dict[str, Any]) -> str:
    """The baseline tree against this one, both as shipped, in the same run: the plan's
    time before and after, their ratio, and this tree's time over its plan without the
    syntax check (the check's share), at first sight and with the file seen before."""
    by_kind = results["by_kind"]
    cells = {(r["tool"], r["block"], r["size"]): r["cpu_median_ms"] for r in by_kind}
    if not any(tool == BASELINE for tool, _, _ in cells):
        return ""
    lines = [
        "| block | lines | before | after, first sight | before ÷ after | after, seen before "
        "| after ÷ no check, first sight | seen before |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for block in KINDS:
        for size in results["sizes"]:
            before, now, seen, bare = (
                cells[(tool, block, size)] for tool in (BASELINE, SHIPPED, SEEN, BARE)
            )
            lines.append(
                f"| {block} | {size:,} | {num(before)} | {num(now)} | {before / now:.2f}× "
                f"| {num(seen)} | {now / bare:.1f}× | {seen / bare:.1f}× |"
            )
    return "\n".join(lines) + "\n"
