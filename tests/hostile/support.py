"""Helpers for the hostile-input suite: bounded runs, an in-memory workspace, tree snapshots,
and reply writers for each format (so a property can say "this reply, in any format")."""

from __future__ import annotations

import json
import os
import threading
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import pytest

from fuzz.targets import MemoryWorkspace  # shared with the fuzz targets
from lsp_server.model import Plan
from lsp_server.plan import PlanOptions, plan_reply
from lsp_server.reply import parse_reply
from lsp_server.workspace import DiskWorkspace
from lsp_server.writer import write_plan

REPO = Path(__file__).resolve().parents[2]

T = TypeVar("T")


def bounded(seconds: float, fn: Callable[[], T], what: str, memory_mb: float | None = None) -> T:
    """Run `fn` and fail the test (not hang it) if it takes longer than `seconds`.

    The bounds are generous on purpose: they catch quadratic blow-ups (minutes), not a slow
    CI machine. With `memory_mb`, the peak of Python allocations during the call is bounded
    too (tracemalloc: it sees what the code allocates, not the interpreter's own size).
    """
    box: dict[str, Any] = {}

    def run() -> None:
        try:
            box["value"] = fn()
        except BaseException as err:  # re-raised in the test's thread
            box["error"] = err

    if memory_mb is not None:
        tracemalloc.start()
    worker = threading.Thread(target=run, daemon=True, name=f"bounded: {what}")
    worker.start()
    worker.join(seconds)
    peak = 0
    if memory_mb is not None:
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    if worker.is_alive():
        pytest.fail(f"{what}: still running after {seconds:.0f}s (unbounded time?)")
    if "error" in box:
        raise box["error"]
    if memory_mb is not None and peak > memory_mb * 1024 * 1024:
        pytest.fail(f"{what}: peak allocation {peak / 2**20:.0f} MB > {memory_mb:.0f} MB")
    return box["value"]


def plan_text(reply: str, files: dict[str, bytes], **options: Any) -> Plan:
    return plan_reply(parse_reply(reply), MemoryWorkspace(files), PlanOptions(**options))


def result_bytes(plan: Plan, files: dict[str, bytes]) -> dict[str, bytes]:
    """The files after `plan`, encoded as the writer would (BOM kept)."""
    out = dict(files)
    for change in plan.files:
        if change.new_text is None:
            out.pop(change.path, None)
        else:
            data = (b"\xef\xbb\xbf" if change.bom else b"") + change.new_text.encode("utf-8")
            out[change.new_path or change.path] = data
        if change.new_path and change.new_path != change.path:
            out.pop(change.path, None)
    return out


def apply_on_disk(reply: str, root: Path, **options: Any) -> Plan:
    """parse → plan → write, as `llm-patch apply` does (the write only when the plan is ok)."""
    ws = DiskWorkspace(root)
    plan = plan_reply(parse_reply(reply), ws, PlanOptions(**options))
    if plan.ok and plan.files:
        write_plan(plan, ws)
    return plan


def tree(top: Path) -> dict[str, Any]:
    """Everything under `top`: file bytes, folders, symlink targets, and modes."""
    out: dict[str, Any] = {}
    if not top.exists():
        return out
    for dirpath, dirnames, filenames in os.walk(top, followlinks=False):
        for name in sorted(dirnames + filenames):
            p = Path(dirpath) / name
            rel = p.relative_to(top).as_posix()
            st = p.lstat()
            if p.is_symlink():
                out[rel] = ("link", os.readlink(p))
            elif p.is_dir():
                out[rel] = ("dir", st.st_mode)
            else:
                out[rel] = ("file", p.read_bytes(), st.st_mode)
    return out


# --- replies in each format -----------------------------------------------------------------


def _lines(text: str) -> list[str]:
    """Lines split at "\n" only (str.splitlines also splits at \x0b, \x1c, U+2028 ...)."""
    return text[:-1].split("\n") if text.endswith("\n") else text.split("\n") if text else []


def search_replace(path: str, old: str, new: str) -> str:
    """One SEARCH/REPLACE block; `old`/`new` are "\\n"-terminated line texts."""
    return f"{path}\n```\n<<<<<<< SEARCH\n{old}=======\n{new}>>>>>>> REPLACE\n```\n"


def unified_diff(path: str, old: str, new: str, old_start: int = 1) -> str:
    """One hunk replacing `old` by `new` (both "\\n"-terminated) at line `old_start`."""
    a, b = _lines(old), _lines(new)
    body = "".join(f"-{x}\n" for x in a) + "".join(f"+{x}\n" for x in b)
    header = f"@@ -{old_start},{len(a)} +{old_start},{len(b)} @@\n"
    return f"```diff\n--- a/{path}\n+++ b/{path}\n{header}{body}```\n"


def v4a(path: str, old: str, new: str) -> str:
    a, b = _lines(old), _lines(new)
    body = "".join(f"-{x}\n" for x in a) + "".join(f"+{x}\n" for x in b)
    return f"*** Begin Patch\n*** Update File: {path}\n@@\n{body}*** End Patch\n"


def v4a_move(path: str, dest: str) -> str:
    return f"*** Begin Patch\n*** Update File: {path}\n*** Move to: {dest}\n*** End Patch\n"


def v4a_add(path: str, content: str) -> str:
    body = "".join(f"+{x}\n" for x in _lines(content))
    return f"*** Begin Patch\n*** Add File: {path}\n{body}*** End Patch\n"


def v4a_delete(path: str) -> str:
    return f"*** Begin Patch\n*** Delete File: {path}\n*** End Patch\n"


def patch_tool(path: str, old: str, new: str) -> str:
    call = {"path": path, "patches": [{"operation": "replace", "oldText": old, "newText": new}]}
    return "```json\n" + json.dumps(call) + "\n```\n"


def editor_create(path: str, content: str) -> str:
    call = {"command": "create", "path": path, "file_text": content}
    return "```json\n" + json.dumps(call) + "\n```\n"


def whole_file(path: str, content: str) -> str:
    return f"{path}\n```\n{content}```\n"
