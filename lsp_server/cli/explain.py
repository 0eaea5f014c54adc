"""What the command line adds to a plan's report: where a missing file might be, why a
close match was not taken, which files `--strict` refuses, and agents' path prefixes.

Each reads the plan or the disk and says so; none changes what is placed (a prefix is
removed only when the user asks with `--strip-prefix`).
"""

from __future__ import annotations

import dataclasses
from typing import Any

from lsp_server.cli import roots
from lsp_server.model import ErrorCode, Failure, ParsedReply, Plan, WarningType
from lsp_server.report import percent

# a fuzzy window may rewrite at most this share of its lines (resolve/ladder.py's rule,
# restated in words: a line under 90% alike is rewritten)
_REWRITTEN_BELOW = 0.9


def strip_prefixes(parsed: ParsedReply, prefixes: tuple[str, ...]) -> ParsedReply:
    """Each block's path (and move destination) with `--strip-prefix` applied. What is left
    goes through the workspace's guard like any path the reply names."""
    blocks = tuple(
        dataclasses.replace(
            b,
            path=roots.strip_prefix(b.path, prefixes),
            move_to=roots.strip_prefix(b.move_to, prefixes),
        )
        for b in parsed.blocks
    )
    return ParsedReply(blocks, parsed.failure)


def strict_refusals(plan: Plan) -> dict[str, Failure]:
    """`--strict`: every changed file whose edit adds syntax errors (a SYNTAX_BROKEN
    warning), and why it is refused."""
    changed = {c.path for c in plan.files} | {c.new_path for c in plan.files if c.new_path}
    out: dict[str, Failure] = {}
    for w in plan.warnings:
        if w.type is WarningType.SYNTAX_BROKEN and w.path in changed:
            out[w.path] = Failure(
                ErrorCode.SYNTAX_BROKEN,
                f"{w.message.removesuffix('; check the result')}: refused (--strict; "
                "without it the file is written, with a SYNTAX_BROKEN warning)",
                {"path": w.path},
            )
    return out


def annotate(blocks: list[dict[str, Any]], root: roots.Root, threshold: float) -> None:
    """Add `hint` (where a missing file is) and `why_not_fuzzy` (why a close match above
    the threshold was refused) to the report's failed blocks."""
    for b in blocks:
        error = b.get("error")
        if not error:
            continue
        code, details = error.get("code"), error.get("details") or {}
        path = details.get("path") or b.get("path")
        if code in (ErrorCode.FILE_NOT_FOUND, ErrorCode.OUTSIDE_WORKSPACE) and path:
            hint = roots.hint(str(path), root)
            if hint:
                b["hint"] = hint
        closest = details.get("closest")
        if code == ErrorCode.TEXT_NOT_FOUND and closest and "expected" in details:
            why = why_not_fuzzy(details["expected"], closest, threshold, error["message"])
            if why:
                b["why_not_fuzzy"] = why


def add_retries(blocks: list[dict[str, Any]], retries: dict[int, float]) -> None:
    """`retry_threshold`: the `--fuzzy-threshold` at which a failed block, planned again on
    its own, placed at its closest region (`plan.fuzzy_retries`, as the editors' "apply at
    the closest match" is proven)."""
    for b in blocks:
        threshold = retries.get(b["index"])
        if threshold is not None and b.get("error"):
            b["retry_threshold"] = round(threshold, 3)


def why_not_fuzzy(
    expected: str, closest: dict[str, Any], threshold: float, message: str
) -> str | None:
    """Why a region at least `threshold` alike was not taken as a fuzzy match; None when
    it is under the threshold (the similarity itself says why)."""
    from lsp_server.resolve.ladder import line_ratio  # loaded already by the plan

    share = float(closest.get("similarity", 0.0))
    if share < threshold:
        return None
    # the threshold as the user gave it (0.805 is 80.5%, not a floored 80%)
    alike = f"it is {percent(share)} alike, above the {threshold * 100:.4g}% threshold"
    if "must match exactly" in message:
        return f"{alike}, but {message.split(';')[0].split(': ', 1)[-1]}"
    old = expected.split("\n")
    there = str(closest.get("text", "")).split("\n")
    if len(old) == len(there):
        rewritten = sum(
            1
            for a, b in zip(old, there, strict=True)
            if line_ratio(a.strip(), b.strip()) < _REWRITTEN_BELOW
        )
        allowed = len(old) // 4
        if rewritten > allowed:
            limit = (
                f"at most {allowed} (a quarter of them)"
                if allowed
                else f"none of them in a block of {len(old)} lines (a quarter, rounded down)"
            )
            return (
                f"{alike}, but {rewritten} of its {len(old)} lines "
                f"{'is' if rewritten == 1 else 'are'} rewritten (under 90% alike), and a fuzzy "
                f"match may rewrite {limit}: that many changed lines is more likely another "
                "place, or code that changed since the model saw it. Copy the file's current "
                "lines into the block (or ask the model to), then apply again."
            )
    reason = message.split("\n", 1)[0].split(": ", 1)[-1]
    return (
        f"{alike}, but it was not taken as a fuzzy match ({reason}). Quote more of the "
        "file's current lines in the block."
    )
