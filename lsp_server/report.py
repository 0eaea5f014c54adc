"""Plan → the JSON report (DESIGN §5) and its human-readable rendering.

One shape serves the CLI's `--json`, every LSP command result and the editor shims, so
a script, a person and a model all read the same facts.
"""

from __future__ import annotations

from typing import Any

from lsp_server.linediff import split_lsp_lines, unified_diff
from lsp_server.model import FileAction, FileChange, Plan, Status


def file_diff(change: FileChange) -> str:
    """A unified diff of one file change, with git-style a/ b/ names and /dev/null."""
    old_name = "/dev/null" if change.action is FileAction.CREATE else f"a/{change.path}"
    new_path = change.new_path or change.path
    new_name = "/dev/null" if change.action is FileAction.DELETE else f"b/{new_path}"
    old = split_lsp_lines(change.old_text or "")
    new = split_lsp_lines(change.new_text or "")
    lines = []
    for line in unified_diff(old, new, old_name, new_name):
        if not line.endswith("\n"):
            line += "\n\\ No newline at end of file\n"
        lines.append(line.replace("\r\n", "\n") if line.endswith("\r\n") else line)
    text = "".join(lines)
    if change.action is FileAction.RENAME and not text:
        text = f"rename {change.path} => {new_path}\n"
    return text


def report_json(plan: Plan, *, applied: bool) -> dict[str, Any]:
    """The report; `applied` says the files were written / the edit was accepted."""
    blocks = []
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
        if o.block.move_to:
            entry["move_to"] = o.block.move_to
        if o.already_applied:
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
    return out


_GREEN, _RED, _CYAN, _BOLD, _RESET = "\033[32m", "\033[31m", "\033[36m", "\033[1m", "\033[0m"


def render_human(report: dict[str, Any], *, color: bool) -> str:
    """A summary line per block, warnings, then the coloured unified diff."""

    def c(code: str, text: str) -> str:
        return f"{code}{text}{_RESET}" if color else text

    out: list[str] = []
    if "error" in report:
        err = report["error"]
        out.append(c(_RED, f"✗ {err['code']}: {err['message']}"))
    for b in report["blocks"]:
        lo, hi = b["reply_lines"]
        where = f"{b['path'] or '?'}"
        if "error" in b:
            out.append(
                c(
                    _RED,
                    f"✗ block {b['index']} {where} [{b['format']}, reply lines {lo}-{hi}] "
                    f"{b['error']['code']}",
                )
            )
            out.extend("    " + line for line in b["error"]["message"].splitlines())
            continue
        how = b["match"] or ""
        if b.get("already_applied"):
            how += ", already applied"
        if b.get("score") is not None:
            how += f" {b['score']:.0%}"
        mark = "✓" if b["status"] in ("applied", "validated") else "·"
        out.append(
            c(
                _GREEN if mark == "✓" else _CYAN,
                f"{mark} block {b['index']} {where} ({how}) {b['status']}",
            )
        )
    for w in report["warnings"]:
        out.append(c(_CYAN, f"! {w['type']}: {w['message']}"))
    for f in report["files"]:
        for line in f["diff"].splitlines():
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
    n_ok = sum(1 for b in report["blocks"] if "error" not in b)
    n = len(report["blocks"])
    files = len(report["files"])
    out.append(c(_BOLD, f"{n_ok} of {n} blocks placed, {files} file(s) changed"))
    return "\n".join(out) + "\n"
