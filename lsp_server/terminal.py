"""The report as a person reads it in a terminal: a line per block, why each failure failed
and what to do, the warnings, the diff, and a last line that says what was written.

Blocks are numbered from 1 here, as a person counts them and as `--only` takes them; the
JSON keeps `index` from 0, and so do the messages it carries (`block 0 (reply lines …)`),
which this rendering renumbers. The closest match of a block that was not found is shown
as a diff from what the file has (`-`) to what the block expected (`+`), with both sides
named and the file's line numbers, as `git diff` would show the edit that makes the file
read as the reply thought it did.

A long report is summarised rather than printed whole (a reply of 12,000 blocks that all
miss would print megabytes nobody reads): beyond `LIST_ALL` blocks, the first `SHOWN`
failures are printed in full and the first `SHOWN` other blocks in a line each, then every
block is counted, by reason and file, with the numbers of the first few of each group, and
a line says how many were not listed and how to see them (`--all`, or `--json`, which
always holds every block). Warnings are summarised the same way. The diff of what is (or
would be) written is always printed whole: it is the change itself.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

from lsp_server.report import match_words, plural

_GREEN, _RED, _YELLOW, _CYAN = "\033[32m", "\033[31m", "\033[33m", "\033[36m"
_BOLD, _DIM, _RESET = "\033[1m", "\033[2m", "\033[0m"

# warnings that say "look at the result" (yellow) rather than "for your information"
_INFO_WARNINGS = frozenset({"CODE_SAMPLE", "HUNK_SKIPPED"})

# what a block applied before finds, said per kind where "the file has it" is not it
_ALREADY = {"delete": "the file is already gone", "rename": "the file is already moved"}

_BLOCK_NUMBER = re.compile(r"\bblock (\d+)\b")

LIST_ALL = 30  # a report of up to this many blocks (or warnings) lists every one
SHOWN = 10  # beyond, this many failures in full, and this many other blocks, are listed
GROUPS = 10  # groups of the summary's table listed by name; the rest are counted together
EXAMPLES = 5  # block numbers named per group


class Context(NamedTuple):
    """What the command knows beyond the report: where it ran, whether it wrote."""

    root: str | None = None  # the root, described (`/src/app (the git repository's top)`)
    dry: bool = False  # a check or a dry run: nothing is written whatever the outcome
    only: tuple[int, ...] = ()  # `--only`, numbered from 1
    total: int | None = None  # blocks in the reply, when `--only` chose some
    undo: str | None = None  # the command that takes this apply back, once it wrote
    every: bool = False  # `--all`: list every block and warning, however many


def number(index: int) -> int:
    """A block's number as a person reads it: the JSON's `index` + 1."""
    return index + 1


def renumber(text: str) -> str:
    """The core's words count blocks from 0 (`block 0 (reply lines 1-9)`); a person reads
    `block 1`."""
    return _BLOCK_NUMBER.sub(lambda m: f"block {number(int(m.group(1)))}", text)


def render_human(report: Mapping[str, Any], *, color: bool, context: Context | None = None) -> str:
    """A line per block, the failures' reasons, the warnings, the coloured diff, and the
    outcome: what was written, and how to write the rest."""

    def c(code: str, text: str) -> str:
        return f"{code}{text}{_RESET}" if color else text

    context = context or Context()
    out: list[str] = []
    if context.root:
        out.append(c(_DIM, f"root: {context.root}"))
    if context.only and context.total is not None:
        chosen = ", ".join(str(n) for n in context.only)
        out.append(c(_DIM, f"only blocks {chosen} of the reply's {context.total}"))
    err = report.get("error")
    if err and not report["blocks"]:
        out.append(c(_RED, f"✗ {err['code']}: {renumber(err['message'])}"))
    # an error beside placed blocks is the write's, after planning: nothing was written
    held = bool(err) and not context.dry
    blocks = report["blocks"]
    listed = blocks if context.every or len(blocks) <= LIST_ALL else _first_of_each(blocks)
    for b in listed:
        out.extend(_block_lines(b, c, held))
    if len(listed) < len(blocks):
        out.extend(_block_summary(blocks, len(listed), c))
    warnings = report["warnings"]
    many = not context.every and len(warnings) > LIST_ALL
    for w in warnings[:SHOWN] if many else warnings:
        tone = _CYAN if w["type"] in _INFO_WARNINGS else _YELLOW
        out.append(c(tone, f"! {w['type']}: {renumber(w['message'])}"))
        if w.get("hint"):
            out.append(f"    ({w['hint']})")
    if many:
        out.extend(_warning_summary(warnings[SHOWN:], c))
    for f in report["files"]:
        out.extend(_diff_lines(f["diff"], c))
    if err and report["blocks"]:  # a failure after planning: the write was rolled back
        out.append(c(_RED, f"✗ {err['code']}: {renumber(err['message'])}"))
    out.append(_outcome(report, context, c))
    return "\n".join(out) + "\n"


def _block_lines(b: Mapping[str, Any], c, held: bool = False) -> list[str]:
    n = number(b["index"])
    lo, hi = b["reply_lines"]
    where = b.get("path") or "(no file named)"
    if "error" in b:
        error = b["error"]
        lines = [c(_RED, f"✗ block {n} {where} (reply lines {lo}-{hi}): {error['code']}")]
        lines += ["    " + line for line in _reason(b)]
        if b.get("hint"):
            lines.append(c(_YELLOW, f"    hint: {b['hint']}"))
        closest = (error.get("details") or {}).get("closest")
        if closest and (error.get("details") or {}).get("expected") is not None:
            lines += ["    " + line for line in _closest_diff(b, closest, c)]
        if b.get("retry_threshold") is not None:
            lines.append(
                c(
                    _YELLOW,
                    f"    to take that region anyway: --fuzzy-threshold {b['retry_threshold']} "
                    "places it there (tried on its own); check the result",
                )
            )
        if b.get("why_not_fuzzy"):
            lines.append(c(_YELLOW, f"    why not placed: {b['why_not_fuzzy']}"))
        return lines
    if b.get("already_applied"):
        has = _ALREADY.get(b.get("match") or "", "the file has it")
        return [c(_GREEN, f"✓ block {n} {where}: already applied ({has}; nothing to write)")]
    how = match_words(b)
    if b["status"] == "skipped" and not b.get("match"):  # a code sample set aside
        return [c(_CYAN, f"· block {n} (reply lines {lo}-{hi}) ({how}) skipped")]
    if b["status"] == "skipped":
        return [c(_CYAN, f"· block {n} {where} ({how}) placed, not written: another block failed")]
    if held and b["status"] == "validated":
        return [c(_CYAN, f"· block {n} {where} ({how}) placed, not written: the write failed")]
    return [c(_GREEN, f"✓ block {n} {where} ({how}) {b['status']}")]


def _first_of_each(blocks: Sequence[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """The blocks a long report lists: the first `SHOWN` failures and the first `SHOWN`
    others, in the reply's order."""
    failed = [i for i, b in enumerate(blocks) if "error" in b]
    # the first failure of each reason and file first, so each kind is seen once in full
    firsts = list({_failure_key(blocks[i]): i for i in reversed(failed)}.values())[::-1]
    chosen = firsts[:SHOWN]
    picked = set(chosen)
    chosen += [i for i in failed if i not in picked][: SHOWN - len(chosen)]
    others = [i for i, b in enumerate(blocks) if "error" not in b][:SHOWN]
    return [blocks[i] for i in sorted(chosen + others)]


def _block_summary(blocks: Sequence[Mapping[str, Any]], listed: int, c) -> list[str]:
    """Every block of a long report counted by what happened to it and its file, the
    failures first, and what was left out said in so many words."""
    failed = [b for b in blocks if "error" in b]
    others = [b for b in blocks if "error" not in b]
    hidden_failed = len(failed) - min(len(failed), SHOWN)
    hidden_other = len(others) - min(len(others), SHOWN)
    left_out = " and ".join(
        f"{n:,} of the {total:,} {what}"
        for n, total, what in (
            (hidden_failed, len(failed), "failed blocks"),
            (hidden_other, len(others), "other blocks"),
        )
        if n
    )
    out = [
        c(
            _BOLD,
            f"… {left_out} not listed above ({listed:,} of {len(blocks):,} blocks listed): "
            "`--all` lists every block, `--json` prints the whole report",
        )
    ]
    if failed:
        out.append(f"  failed, by reason and file (all {len(failed):,}):")
        out += _groups(failed, _failure_key, c, _RED)
    if others:
        out.append(f"  not failed, by outcome and file (all {len(others):,}):")
        out += _groups(others, lambda b: (_outcome_words(b), _where(b)), c, _GREEN)
    return out


def _groups(blocks: Sequence[Mapping[str, Any]], key, c, tone: str) -> list[str]:
    """One line per group (largest first, at most `GROUPS`): its count, its name and the
    numbers of its first blocks; the groups beyond are counted on one line."""
    groups: dict[tuple[str, str], list[int]] = {}
    for b in blocks:
        groups.setdefault(key(b), []).append(number(b["index"]))
    ranked = sorted(groups.items(), key=lambda kv: -len(kv[1]))  # stable: first seen first
    width = max(len(what) for (what, _), _ in ranked[:GROUPS])
    out = []
    for (what, where), numbers in ranked[:GROUPS]:
        named = ", ".join(str(n) for n in numbers[:EXAMPLES])
        more = ", …" if len(numbers) > EXAMPLES else ""
        which = f"block{'' if len(numbers) == 1 else 's'} {named}{more}"
        out.append(c(tone, f"    {len(numbers):>7,}  {what:<{width}}  {where}  ({which})"))
    rest = ranked[GROUPS:]
    if rest:
        count = sum(len(numbers) for _, numbers in rest)
        out.append(f"    {count:>7,}  in {len(rest):,} more groups")
    return out


def _failure_key(b: Mapping[str, Any]) -> tuple[str, str]:
    return str(b["error"]["code"]), _where(b)


def _where(b: Mapping[str, Any]) -> str:
    return b.get("path") or "(no file named)"


def _outcome_words(b: Mapping[str, Any]) -> str:
    """How a block that did not fail ended, without its score (so alike blocks group)."""
    if b.get("already_applied"):
        return "already applied"
    if b["status"] == "skipped" and not b.get("match"):
        return "code sample, skipped"
    return f"{b.get('match') or 'placed'}, {b['status']}"


def _warning_summary(rest: Sequence[Mapping[str, Any]], c) -> list[str]:
    """The warnings of a long report beyond the first `SHOWN`, counted by type."""
    counts: dict[str, int] = {}
    for w in rest:
        counts[w["type"]] = counts.get(w["type"], 0) + 1
    by_type = ", ".join(
        f"{kind} {n:,}" for kind, n in sorted(counts.items(), key=lambda kv: -kv[1])
    )
    return [
        c(
            _BOLD,
            f"! … {len(rest):,} more warnings not listed ({by_type}): "
            "`--all` lists every warning, `--json` prints the whole report",
        )
    ]


def _reason(b: Mapping[str, Any]) -> list[str]:
    """The failure's message without the header the block's own line already gives (block,
    reply lines, path), and without the closest-match diff, which is drawn apart."""
    error = b["error"]
    lo, hi = b["reply_lines"]
    head = f"block {b['index']} (reply lines {lo}-{hi})" + (
        f", {b['path']}" if b.get("path") else ""
    )
    message = str(error.get("message") or "").removeprefix(head + ": ")
    lines = message.splitlines() or [""]
    if (error.get("details") or {}).get("closest"):
        lines = lines[:1]  # the rest is the diff, drawn with its labels below
    return [renumber(line) for line in lines]


def _closest_diff(b: Mapping[str, Any], closest: Mapping[str, Any], c) -> list[str]:
    """What the file has at the closest place (`-`) against what the block expected (`+`),
    the `-` side numbered as the file's lines."""
    import difflib  # only for a failure: the command starts faster without it

    expected = str(b["error"]["details"]["expected"]).split("\n")
    region = str(closest.get("text", "")).split("\n")
    first = int(closest.get("line", 1))
    last = int(closest.get("end_line", first + len(region) - 1))
    path = b.get("path") or "the file"
    lo, hi = b["reply_lines"]
    theirs = f"{path} lines {first}-{last} (what the file has)"
    ours = f"block {number(b['index'])}, reply lines {lo}-{hi} (what the block expected)"
    out: list[str] = []
    for line in difflib.unified_diff(region, expected, theirs, ours, n=1, lineterm=""):
        if line.startswith("@@"):
            line = re.sub(
                r"^@@ -(\d+)", lambda m: f"@@ -{int(m.group(1)) + first - 1}", line, count=1
            )
        out.append(line)
    return list(_diff_lines("\n".join(out[:60]), c))


def diff_lines(diff: str, color: bool) -> list[str]:
    """A unified diff's lines, coloured as `git diff` colours them when `color`."""
    return _diff_lines(diff, lambda code, text: f"{code}{text}{_RESET}" if color else text)


def _diff_lines(diff: str, c) -> list[str]:
    out = []
    for line in diff.splitlines():
        if line.startswith(("+++", "---")):
            out.append(c(_BOLD, line))
        elif line.startswith("+"):
            out.append(c(_GREEN, line))
        elif line.startswith("-"):
            out.append(c(_RED, line))
        elif line.startswith("@@"):
            out.append(c(_CYAN, line))
        else:
            out.append(line)
    return out


def _outcome(report: Mapping[str, Any], context: Context, c) -> str:
    """The last line: how many blocks placed, what was written, and what to do next."""
    blocks = report["blocks"]
    samples = sum(1 for b in blocks if b["status"] == "skipped" and not b.get("match"))
    counted = [b for b in blocks if not (b["status"] == "skipped" and not b.get("match"))]
    failed = [b for b in counted if b["status"] == "failed"]
    placed = len(counted) - len(failed)
    already = sum(1 for b in counted if b.get("already_applied") and b["status"] != "failed")
    files = len(report["files"])
    written = any(b["status"] == "applied" for b in blocks)
    aside = f"; {plural(samples, 'code sample')} set aside" if samples else ""
    err = report.get("error")
    if not blocks:
        if err and (err.get("details") or {}).get("empty"):
            return c(_RED, "✗ the reply is empty: nothing was written")
        return c(_RED, "✗ no edit blocks in the reply: nothing was written")
    if not counted:
        return c(_BOLD, f"nothing to place{aside}")
    if failed:
        head = f"✗ {len(failed)} of {plural(len(counted), 'block')} failed"
        if written:
            undo = f"; `{context.undo}` {_puts_back(files)}" if context.undo else ""
            were = "was" if placed == 1 else "were"
            return c(
                _RED,
                f"{head}; the {placed} that placed {were} written "
                f"({plural(files, 'file')} changed){aside}{undo}",
            )
        hints = [b["hint"] for b in failed if b.get("hint")]
        if hints:
            # the reply's paths point elsewhere: writing the rest here would be the mistake
            more = (
                "; the hints above say which --root or --strip-prefix reaches the files"
                if all("rerun with" in h for h in hints)
                else "; the hints above say where the files are"
            )
        elif context.dry:
            more = f"; `apply --partial` would write the {placed} that placed" if placed else ""
        else:
            more = f"; to write the {placed} that placed, rerun with --partial" if placed else ""
        done = "nothing written (dry run)" if context.dry else "nothing was written"
        return c(_RED, f"{head}: {done}{more}{aside}")
    if not report.get("ok", True):  # every block placed, yet the write failed
        return c(_RED, f"✗ {plural(placed, 'block')} placed, but nothing was written{aside}")
    already_note = f" ({already} already applied)" if already and already < placed else ""
    if files == 0:
        why = "already applied" if already == placed else "placed, and no file differs"
        return c(_GREEN, f"✓ nothing to change: {plural(placed, 'block')} {why}{aside}")
    if written:
        undo = f" (`{context.undo}` {_puts_back(files)})" if context.undo else ""
        return c(
            _GREEN,
            f"✓ {placed} of {plural(len(counted), 'block')} applied{already_note}, "
            f"{plural(files, 'file')} changed{aside}{undo}",
        )
    return c(
        _GREEN,
        f"✓ {placed} of {plural(len(counted), 'block')} can be placed{already_note}, "
        f"{plural(files, 'file')} would change; nothing written{aside}",
    )


def _puts_back(files: int) -> str:
    return "puts it back" if files == 1 else "puts them back"
