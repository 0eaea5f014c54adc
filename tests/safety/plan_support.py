"""Helpers for the plan's safety tests: files on disk, a plain reading of the disk back, and
an independent `WorkspaceEdit` applier (what an editor does with the server's edit).

The applier is written from the LSP specification, not from `lsp_server.edits`, so a
mistake shared by the builder and its reader cannot hide itself: text edits of one document
all refer to the text before them, positions count UTF-16 code units on lines ended by
"\\r\\n", "\\n" or "\\r", and resource operations run in order with their options.
"""

from __future__ import annotations

import re
from pathlib import Path

from lsprotocol import types

from lsp_server.model import Plan
from lsp_server.plan import PlanOptions, plan_reply
from lsp_server.reply import parse_reply
from lsp_server.workspace import DiskWorkspace
from lsp_server.writer import write_plan

URI_ROOT = "file:///ws/"


def uri_for(path: str) -> str:
    return URI_ROOT + path


def put(root: Path, files: dict[str, bytes | str]) -> None:
    for rel, data in files.items():
        target = root / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data.encode() if isinstance(data, str) else data)


def tree(root: Path) -> dict[str, bytes]:
    """Every regular file under `root` (links followed are not listed twice: only files)."""
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and not p.is_symlink()
    }


def apply_on_disk(reply: str, root: Path, **options) -> Plan:
    """parse → plan → write, as `llm-patch apply` does (with `atomic=False`, as `--partial`
    does: what placed is written even when other blocks failed)."""
    ws = DiskWorkspace(root)
    plan = plan_reply(parse_reply(reply), ws, PlanOptions(**options))
    if plan.files and (plan.ok or not options.get("atomic", True)):
        write_plan(plan, ws)
    return plan


class EditRefused(Exception):
    """The edit cannot be applied as the specification says (an editor would refuse it)."""


def _starts(text: str) -> list[int]:
    return [0] + [m.end() for m in re.finditer(r"\r\n|\r|\n", text)]


def _offset(text: str, pos: types.Position) -> int:
    starts = _starts(text)
    if pos.line >= len(starts):
        return len(text)
    start = starts[pos.line]
    end = starts[pos.line + 1] if pos.line + 1 < len(starts) else len(text)
    line = re.sub(r"(\r\n|\r|\n)\Z", "", text[start:end])
    used = 0
    for i, ch in enumerate(line):
        if used >= pos.character:
            return start + i
        used += 2 if ord(ch) > 0xFFFF else 1
    return start + len(line)


def _apply_text_edits(text: str, edits: list) -> str:
    spans = sorted(
        ((_offset(text, e.range.start), _offset(text, e.range.end), e.new_text) for e in edits),
        reverse=True,
    )
    for start, end, new in spans:
        text = text[:start] + new + text[end:]
    return text


def apply_workspace_edit(files: dict[str, str], edit: types.WorkspaceEdit) -> dict[str, str]:
    """`files` (path → text) after `edit`, as an editor applies it: in order, all or nothing."""
    out = dict(files)

    def path(uri: str) -> str:
        assert uri.startswith(URI_ROOT), uri
        return uri[len(URI_ROOT) :]

    for change in edit.document_changes or ():
        if isinstance(change, types.TextDocumentEdit):
            p = path(change.text_document.uri)
            if p not in out:
                raise EditRefused(f"text edit on {p}, which does not exist")
            out[p] = _apply_text_edits(out[p], list(change.edits))
        elif isinstance(change, types.CreateFile):
            p = path(change.uri)
            opts = change.options or types.CreateFileOptions()
            if p in out and not opts.overwrite:
                if opts.ignore_if_exists:
                    continue
                raise EditRefused(f"create {p}, which exists")
            out[p] = ""
        elif isinstance(change, types.RenameFile):
            src, dest = path(change.old_uri), path(change.new_uri)
            opts = change.options or types.RenameFileOptions()
            if src not in out:
                raise EditRefused(f"rename {src}, which does not exist")
            if dest in out and not opts.overwrite:
                if opts.ignore_if_exists:
                    continue
                raise EditRefused(f"rename onto {dest}, which exists")
            out[dest] = out.pop(src)
        elif isinstance(change, types.DeleteFile):
            p = path(change.uri)
            opts = change.options or types.DeleteFileOptions()
            if p not in out:
                if opts.ignore_if_not_exists:
                    continue
                raise EditRefused(f"delete {p}, which does not exist")
            del out[p]
        else:
            raise AssertionError(f"unknown document change {change!r}")
    for uri, edits in (edit.changes or {}).items():
        p = path(uri)
        if p not in out:
            raise EditRefused(f"text edit on {p}, which does not exist")
        out[p] = _apply_text_edits(out[p], list(edits))
    return out
