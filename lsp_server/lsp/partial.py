"""An edit the editor applied in part: `applied: false` while some files changed.

An editor answers `applied: false, failedChange: N` when it applied the document changes
before the N-th and then failed (its `failureHandling` is `abort`; `transactional` and
`undo` editors keep nothing). The server reads that answer with the client's failure
handling, looks at every file where it can (open documents, the disk) and reports exactly
what landed: never "nothing was applied" while a file holds the edit.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from lsprotocol import types

from lsp_server.edits import BuiltEdit
from lsp_server.linediff import edit_present
from lsp_server.lsp import guards
from lsp_server.lsp.analysis import Analysis
from lsp_server.lsp.session import LlmPatchServer
from lsp_server.model import ErrorCode, Failure, FileAction, FileChange
from lsp_server.report import report_json


def failure_handling(ls: LlmPatchServer) -> str | None:
    """The client's `workspaceEdit.failureHandling` ("abort", "transactional",
    "textOnlyTransactional", "undo"), None when it says nothing."""
    kind = ls.client_capability("workspace.workspace_edit.failure_handling")
    return str(getattr(kind, "value", kind)) if kind is not None else None


def expected_landed(
    strategy: str | None, failed_change: int | None, built: BuiltEdit
) -> tuple[set[str] | None, set[str]]:
    """What an `applied: false` answer says landed, from `failedChange` and the client's
    failure handling: (files whose every operation came before the failed one — None when
    the answer does not say —, files of which only some operations did)."""
    resource = any(not isinstance(op, types.TextDocumentEdit) for op in _operations(built))
    if strategy in ("transactional", "undo") or (
        strategy == "textOnlyTransactional" and not resource
    ):
        return set(), set()  # all or nothing: nothing
    if failed_change is None or not 0 <= failed_change < len(built.operations):
        return None, set()
    before = set(built.operations[:failed_change])
    after = set(built.operations[failed_change:])
    return before - after, before & after


def _operations(built: BuiltEdit) -> list:
    return list(built.edit.document_changes or [])


async def partly_applied(
    ls: LlmPatchServer,
    analysis: Analysis,
    built: BuiltEdit,
    result: types.ApplyWorkspaceEditResult,
    timeout: float,
) -> dict[str, str]:
    """The files an `applied: false` answer still changed: path → "all" (its change
    landed) or "moved" (a move whose rename landed and whose text edit did not). Each
    file is looked at where the server can see it (open documents, the disk); one it
    cannot see (a file the editor edits without opening it for the server) is taken
    from `failedChange`."""
    expected, split = expected_landed(failure_handling(ls), result.failed_change, built)
    uri_for = ls.uri_for(analysis)
    out: dict[str, str] = {}
    for change in built.files:
        wait = expected is not None and change.path in expected
        seen = await _landed(ls, change, uri_for, analysis.root, timeout if wait else 0)
        if change.path in split and change.action is FileAction.RENAME and seen is not False:
            moved = await ls.run_work(_moved, analysis.root, change)
            if moved:
                out[change.path] = "moved"
            continue
        if seen is True or (seen is None and expected is not None and change.path in expected):
            out[change.path] = "all"
    return out


def _moved(root: Path, change: FileChange) -> bool:
    dest = root / (change.new_path or change.path)
    return dest.exists() and not (root / change.path).exists()


async def _landed(
    ls: LlmPatchServer, change: FileChange, uri_for: Callable[[str], str], root: Path, wait: float
) -> bool | None:
    """Is this file's planned change there now? None when the server cannot see it."""
    if change.action is FileAction.MODIFY:
        uri = uri_for(change.path)
        old, new = change.old_text or "", change.new_text or ""

        def synced() -> bool:
            doc = ls.open_document(uri)
            if doc is None:
                return False
            return (
                doc.version != change.version if change.version is not None else doc.source != old
            )

        if wait:  # said to have landed: give the editor's sync the time it takes
            await ls.wait_for_document(uri, synced, wait)
        doc = ls.open_document(uri)
        if doc is None:
            return None
        if change.version is not None and doc.version == change.version:
            return False
        if doc.source == old:
            return False
        return bool(await ls.run_work(edit_present, old, new, doc.source))
    if change.action is FileAction.RENAME:
        if not await ls.run_work(_moved, root, change):
            return False
        doc = ls.open_document(uri_for(change.new_path or change.path))
        if doc is None:
            return None  # moved; its text cannot be seen
        return doc.source == change.new_text or bool(
            await ls.run_work(
                edit_present, change.old_text or "", change.new_text or "", doc.source
            )
        )
    target = root / change.path
    if change.action is FileAction.CREATE:
        return (
            bool(await ls.run_work(target.exists))
            or ls.open_document(uri_for(change.path)) is not None
        )
    return not await ls.run_work(target.exists)  # DELETE


async def report_partial(
    ls: LlmPatchServer,
    analysis: Analysis,
    built: BuiltEdit,
    result: types.ApplyWorkspaceEditResult,
    landed: dict[str, str],
    unsupported: dict[str, Failure],
) -> dict[str, Any]:
    """The editor applied part of the edit and then failed: say exactly what landed."""
    reason = f" ({result.failure_reason})" if result.failure_reason else ""
    at = f" at change {result.failed_change}" if result.failed_change is not None else ""
    failures: dict[str, Failure] = {}
    for change in built.files:
        how = landed.get(change.path)
        if how == "all":
            continue
        if how == "moved":
            why = (
                f"{change.path}: the editor moved it to {change.new_path} but failed{at} "
                f"before editing it{reason}: {change.new_path} holds the old text"
            )
        else:
            why = f"{change.path}: the editor failed{at}{reason}; this file was not changed"
        failures[change.path] = Failure(
            ErrorCode.IO_ERROR, why, {"path": change.path, "partial": True}
        )
    ls.stats.conflicts += 1
    done_files = [c for c in built.files if landed.get(c.path) == "all"]
    unsaved = await ls.run_work(guards.not_saved, analysis.root, done_files)
    done = await ls.run_work(
        report_json,
        analysis.plan,
        applied=True,
        failures={**failures, **unsupported},
        unsaved=unsaved,
    )
    changed = ", ".join(c.path for c in done_files) or "nothing"
    missed = ", ".join(sorted(failures))
    ls.tell(
        types.MessageType.Error,
        f"LLM patch: the editor applied part of the edit and failed{at}{reason}: changed "
        f"{changed}; not applied: {missed}. Undo restores the changed files",
    )
    return done
