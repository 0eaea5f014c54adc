"""Plan → the JSON report, with its rendering in words.

One shape serves the CLI's `--json`, every LSP command result and the editor plugins, so a
script, a person and a model all read the same facts. The words a person reads about those
facts — the one-sentence summary, the status-bar label, the list of problems, the Markdown
report — are written here and travel inside the report, so the VS Code extension and the
Neovim plugin show the server's text instead of each writing their own.

The rendering depends on the report alone, never on which command asked for it: a block
that was written says "applied", one that was only placed says "validated", and the
wording follows from that (a check reads "can be placed", an apply reads "applied").
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from typing import Any

from lsp_server.linediff import unified_text_diff
from lsp_server.model import Action, Failure, FileAction, FileChange, MatchKind, Plan, Status


def file_diff(change: FileChange) -> str:
    """A unified diff of one file change, with git-style a/ b/ names and /dev/null."""
    old_name = "/dev/null" if change.action is FileAction.CREATE else f"a/{change.path}"
    new_path = change.new_path or change.path
    new_name = "/dev/null" if change.action is FileAction.DELETE else f"b/{new_path}"
    lines = []
    for line in unified_text_diff(change.old_text or "", change.new_text or "", old_name, new_name):
        # a diff's lines end in "\n" whatever the file's endings ("\r\n", or "\r" alone)
        if line.endswith("\r\n"):
            line = line[:-2] + "\n"
        elif line.endswith("\r"):
            line = line[:-1] + "\n"
        elif not line.endswith("\n"):
            line += "\n\\ No newline at end of file\n"
        lines.append(line)
    text = "".join(lines)
    if change.action is FileAction.RENAME and not text:
        text = f"rename {change.path} => {new_path}\n"
    return text


def report_json(
    plan: Plan,
    *,
    applied: bool,
    failures: Mapping[str, Failure] | None = None,
    error: Failure | None = None,
    unsaved: Sequence[str] | None = None,
) -> dict[str, Any]:
    """The report of a plan, rendered.

    `applied` says the files were written / the edit was accepted. What can still go wrong
    after planning is passed in, so the words are written about the final facts:
    `failures` maps a file path to why that file did not change (the editor refused the
    edit, the document did not change, the client cannot create files) and turns the
    blocks that made that file into failures; `error` is why the whole run failed after
    planning (a write that was rolled back); `unsaved` the changed files an editor holds
    modified but not yet saved (an editor applies edits to its buffers)."""
    blocks = []
    unchanged = _unchanged_writes(plan)
    for o in plan.outcomes:
        status = o.status
        if status is Status.VALIDATED and applied:
            status = Status.APPLIED
        entry: dict[str, Any] = {
            "index": o.block.index,
            "format": str(o.block.format),
            "path": o.block.path,
            "status": str(status),
            "match": str(o.match) if o.match else None,
            "reply_lines": list(o.block.reply_lines),
        }
        if o.block.move_to:  # a git copy leaves its source: not a move
            copy = o.block.action is Action.COPY
            entry["copy_to" if copy else "move_to"] = o.block.move_to
        if o.already_applied or o.block.index in unchanged:
            entry["already_applied"] = True
        if o.score is not None:
            entry["score"] = o.score
        if o.placements:
            entry["lines"] = [[p.start_line + 1, p.end_line] for p in o.placements]
        if o.result:
            entry["result"] = o.result
        if o.failure is not None:
            entry["error"] = o.failure.to_json()
        blocks.append(entry)
    out: dict[str, Any] = {
        "ok": plan.ok,
        "blocks": blocks,
        "files": [
            {
                "path": c.path,
                "action": str(c.action),
                **({"new_path": c.new_path} if c.new_path else {}),
                "diff": file_diff(c),
            }
            for c in plan.files
        ],
        "warnings": [w.to_json() for w in plan.warnings],
    }
    if plan.failure is not None:
        out["error"] = plan.failure.to_json()
    if failures:
        _fail_files(out, plan, failures)
    if error is not None:
        out["ok"] = False
        out["error"] = error.to_json()
    if unsaved is not None:
        out["unsaved"] = list(unsaved)
    out.update(render(out))
    return out


# the matches that give a file the block's own text, whatever it held: when such a block
# placed and its file is not among the changes, the file already held that text
_WHOLE_TEXT = frozenset({MatchKind.CREATE, MatchKind.OVERWRITE, MatchKind.STRUCTURAL})


def _unchanged_writes(plan: Plan) -> frozenset[int]:
    """The placed blocks that write a whole text (`Add File`, `write_to_file`, a whole file,
    a `TARGET_NODE` body) into a file the plan leaves as it is: a reply applied again. They
    are reported `already_applied` like a SEARCH/REPLACE whose new text is already there,
    instead of "overwrite" or "validated", which read as if something was written."""
    written = {i for c in plan.files for i in c.blocks}
    return frozenset(
        o.block.index
        for o in plan.outcomes
        # a held-back block (SKIPPED: another failed, nothing is written) proves nothing
        if o.status is Status.VALIDATED and o.match in _WHOLE_TEXT and o.block.index not in written
    )


def _fail_files(report: dict[str, Any], plan: Plan, failures: Mapping[str, Failure]) -> None:
    """The placed blocks behind each failed file become failures; the report is not ok."""
    owners: dict[int, Failure] = {}
    for change in plan.files:
        failure = failures.get(change.path)
        if failure is not None:
            for index in change.blocks:
                owners[index] = failure
    for entry in report["blocks"]:
        failure = owners.get(entry["index"])
        if failure is not None and entry["status"] in (Status.APPLIED, Status.VALIDATED):
            entry["status"] = str(Status.FAILED)
            entry["error"] = failure.to_json()
    report["ok"] = False


# ---- the words ------------------------------------------------------------------------------


def render(report: Mapping[str, Any]) -> dict[str, Any]:
    """The rendering fields of a report's facts (`ok`, `blocks`, `files`, `warnings`,
    `error`): `summary` one sentence, `label` a few characters for a status bar, `level`
    info | warning | error, `problems` one line per failed block and per warning, and
    `text` the whole report as Markdown (without a title: the editor adds its own, with the
    command it ran and when)."""
    summary, label, level = _summarize(report)
    problems = [describe_failure(b) for b in report["blocks"] if b["status"] == Status.FAILED]
    problems += [_describe_warning(w) for w in report["warnings"]]
    return {
        "summary": summary,
        "label": label,
        "level": level,
        "problems": problems,
        "text": _markdown(report, summary),
    }


def plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def percent(share: float) -> str:
    """A similarity as a whole percentage, rounded down: "100%" only for an exact match
    (0.996 rounded to nearest would read 100% for text that differs)."""
    return f"{min(100, int(share * 100 + 1e-9))}%"


def edits_in_files(edits: int, files: int) -> str:
    """ "3 edits in 2 files": edits are the reply's blocks, files the paths they change (a
    move counts once). Every title, label and summary counts the same things."""
    return f"{plural(edits, 'edit')} in {plural(files, 'file')}"


def _placed(block: Mapping[str, Any]) -> bool:
    return block["status"] in (Status.APPLIED, Status.VALIDATED)


def describe_failure(block: Mapping[str, Any]) -> str:
    """`#2 src/a.py (reply lines 12-20): TEXT_NOT_FOUND — message`"""
    where = f" {block['path']}" if block.get("path") else ""
    lo, hi = block["reply_lines"]
    error = block.get("error") or {}
    code = error.get("code") or str(block["status"]).upper()
    message = f" — {error['message']}" if error.get("message") else ""
    return f"#{block['index']}{where} (reply lines {lo}-{hi}): {code}{message}"


def _describe_warning(warning: Mapping[str, Any]) -> str:
    where = f" {warning['path']}" if warning.get("path") else ""
    return f"{warning['type']}{where}: {warning['message']}"


def _summarize(report: Mapping[str, Any]) -> tuple[str, str, str]:
    """(summary, label, level). A block written says "applied"; one only placed (a check,
    or an apply the editor has not accepted yet) says "validated"."""
    blocks, warnings, files = report["blocks"], report["warnings"], report["files"]
    placed = sum(1 for b in blocks if _placed(b))
    # a block already applied changed nothing: it is counted apart, never as "applied"
    applied = sum(
        1 for b in blocks if b["status"] == Status.APPLIED and not b.get("already_applied")
    )
    fresh = sum(1 for b in blocks if _placed(b) and not b.get("already_applied"))
    already = placed - fresh
    failed = [b for b in blocks if b["status"] == Status.FAILED]
    warning_note = f" ({plural(len(warnings), 'warning')})" if warnings else ""
    error = report.get("error")

    if not blocks:
        why = error["message"] if error else "no edit blocks found in the reply"
        return why, "✗ no edits", "warning"

    if failed:
        first = describe_failure(failed[0])
        more = f" (and {len(failed) - 1} more)" if len(failed) > 1 else ""
        if applied:
            head = f"applied {plural(applied, 'edit')}, {len(failed)} failed."
        else:
            head = f"{len(failed)} of {plural(len(blocks), 'block')} failed; nothing was applied."
        return f"{head} {first}{more}{warning_note}", f"✗ {len(failed)} failed", "error"

    if not report["ok"]:
        # no block failed, yet the run did: the write failed, or a warning carries the reason
        why = error["message"] if error else ""
        why = why or next((w["message"] for w in warnings if w["message"]), "")
        return why or "the edit was not applied", "✗ not applied", "error"

    level = "warning" if warnings else "info"
    if not files:
        why = (
            f"{plural(placed, 'edit')} already applied"
            if already == placed
            else f"{plural(placed, 'edit')} placed, and no file differs"
        )
        return f"nothing to change: {why}{warning_note}.", "✓ nothing to change", level
    already_note = f" ({already} already applied)" if already else ""
    where = edits_in_files(fresh, len(files))
    if applied:
        return (
            f"applied {where}{already_note}{warning_note}.",
            f"✓ {plural(fresh, 'edit')}",
            level,
        )
    return (
        f"all {plural(fresh, 'edit')} can be placed in {plural(len(files), 'file')}"
        f"{already_note}{warning_note}.",
        f"✓ {plural(fresh, 'edit')} ready",
        level,
    )


def _file_name(file: Mapping[str, Any]) -> str:
    """A changed file as a person names it: a move is one file, `old → new`."""
    if file.get("new_path"):
        return f"{file['path']} → {file['new_path']}"
    return str(file["path"])


def applied_message(report: Mapping[str, Any]) -> str:
    """What an editor shows after an apply it did not ask to report on (a code action's
    command, whose result editors ignore): the summary, then which files changed and which
    the editor holds unsaved — what the plugins' own commands show beside the summary.
    `applied 2 edits in 2 files: a.py, b.py; not saved yet: a.py.`"""
    names = ", ".join(_file_name(f) for f in report["files"])
    unsaved = report.get("unsaved") or []
    unsaved_note = f"; not saved yet: {', '.join(unsaved)}" if unsaved else ""
    return f"{report['summary'].removesuffix('.')}: {names}{unsaved_note}."


def _cell(text: str) -> str:
    """Markdown table cells must not contain raw pipes or line breaks."""
    return text.replace("|", "\\|").replace("\r\n", " ").replace("\n", " ")


def fence_for(text: str) -> str:
    """A fence longer than any backtick run inside `text`, so a diff with ``` stays fenced."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    return "`" * max(3, longest + 1)


def match_words(block: Mapping[str, Any]) -> str:
    if block.get("already_applied"):
        return "already applied"  # nothing was matched or changed: no rung to name
    if not block.get("match") and block.get("status") == "skipped":
        return "code sample, not applied"  # set aside (CODE_SAMPLE): nothing was placed
    how = block.get("match") or ""
    if block.get("score") is not None:
        how += f" {percent(block['score'])}"
    return how


def _markdown(report: Mapping[str, Any], summary: str) -> str:
    out: list[str] = [summary, ""]
    blocks = report["blocks"]
    if blocks:
        out += ["## Blocks", ""]
        out.append("| # | status | file | format | match | reply lines |")
        out.append("|---|---|---|---|---|---|")
        for b in blocks:
            mark = "✓" if _placed(b) else "✗" if b["status"] == Status.FAILED else "–"
            lo, hi = b["reply_lines"]
            out.append(
                f"| {b['index']} | {mark} {_cell(b['status'])} | {_cell(b.get('path') or '')} "
                f"| {_cell(b['format'])} | {_cell(match_words(b))} | {lo}-{hi} |"
            )
        out.append("")

    failures = [b for b in blocks if b.get("error")]
    if failures:
        out += ["## Failures", ""]
        for b in failures:
            out.append(f"- **{describe_failure(b)}**")
            details = b["error"].get("details")
            if details:
                text = json.dumps(details, indent=2, ensure_ascii=False, default=str)
                fence = fence_for(text)
                out += ["", f"  {fence}json", *(f"  {line}" for line in text.split("\n"))]
                out.append(f"  {fence}")
        out.append("")

    if report["warnings"]:
        out += ["## Warnings", ""]
        for w in report["warnings"]:
            where = f" {w['path']}" if w.get("path") else ""
            out.append(f"- `{w['type']}`{where}: {w['message']}")
        out.append("")

    if report["files"]:
        written = any(b["status"] == Status.APPLIED for b in blocks)
        out += ["## Changes" if written else "## Changes it would make", ""]
        for f in report["files"]:
            out += [f"### {f['path']} ({f['action']})", ""]
            if f["diff"]:
                fence = fence_for(f["diff"])
                out += [f"{fence}diff", f["diff"].removesuffix("\n"), fence, ""]
    return "\n".join(out).rstrip("\n") + "\n"
