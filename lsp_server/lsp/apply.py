"""Applying a reply: plan it, send the editor one `workspace/applyEdit`, check it landed.

The editor applies the edit with its own undo and preview. Uncertain matches (and every
block, with `preview`) ask the user to confirm first. Open documents are pinned to the
version the plan read, and a plan is made again when any of them changed while it was made
(`guards`: a client may not check the version itself); files that are not open have no
version, so right before sending, every file the plan read from disk is checked again
(`stat`, then a hash of its bytes): one that changed means the edit would land on text the
plan never saw, and nothing is sent (`STALE_VERSION`). A client may answer `applied: true`
and still skip a document whose version moved on (Neovim does, silently), so each file is
looked at again afterwards; what did not land is reported as failed, never as applied.

Diffing (the edit, the report) and every look at the disk run in the session's workers.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import unquote

from lsprotocol import types
from pygls.exceptions import JsonRpcException, JsonRpcRequestCancelled

from lsp_server.edits import BuiltEdit, build_workspace_edit
from lsp_server.linediff import edit_present
from lsp_server.lsp import confirm, diagnostics, guards, partial, sharing
from lsp_server.lsp.analysis import Analysis, ReplySource
from lsp_server.lsp.editor_workspace import changed_on_disk
from lsp_server.lsp.progress import Progress
from lsp_server.lsp.session import QUIET, LlmPatchServer, RequestFailed
from lsp_server.model import (
    BlockOutcome,
    Cancelled,
    ErrorCode,
    Failure,
    FileAction,
    FileChange,
    ParsedReply,
    Plan,
    Status,
)
from lsp_server.report import applied_message, edits_in_files, plural, render, report_json

logger = logging.getLogger("lsp_server")

RESTRICTED_MESSAGE = (
    "Patch tool is disabled in Restricted mode. Use request_mode_upgrade to request write access."
)
STALE_MESSAGE = "the document changed since the patch was planned; run it again"
DISK_STALE_MESSAGE = (
    "changed on disk since the patch was planned; nothing was applied: run it again"
)
MOVED_MESSAGE = (
    "changed in the editor while the patch was planned; nothing was applied: run it again"
)
# A plan is made again this many times when a document it read changes in the editor
# before the edit is sent; then the apply is refused.
REPLANS = 2
# How long to wait (seconds) for the editor to sync an edited document before judging it.
VERIFY_TIMEOUT = 2.0
POLL_INTERVAL = 0.05  # seconds between looks at the disk while verifying
# How long an edited file not open for the server may take to be opened (`didOpen`) before
# the client is taken not to share it (see `sharing`).
SHARE_WAIT = 1.0


@dataclass(frozen=True)
class ApplyOptions:
    """A command's options: `partial` and `preview` override the settings for one apply;
    `target` (a URI, from the first argument) is the file blocks without a path apply to."""

    partial: bool | None = None
    preview: bool = False
    fuzzy_threshold: float | None = None
    target: str | None = None
    # documents the client has unsaved changes in that it did not send (see `guards`)
    dirty: tuple[str, ...] = ()
    # delete / move documents open with unsaved changes anyway (see `guards`)
    confirm_unsaved: bool = False
    # the caller shows the report itself: no `window/showMessage` about the outcome
    quiet: bool = False
    # the reading of a block the evidence leaves open (resolve.merge.readings): (as, rest)
    reading: tuple[str | None, str | None] = (None, None)


def require_write(ls: LlmPatchServer) -> None:
    """Refuse a writing command in Restricted mode, with the report shape as the error data."""
    if ls.settings.restricted:
        raise RequestFailed(
            RESTRICTED_MESSAGE,
            data={
                "ok": False,
                "blocks": [],
                "files": [],
                "warnings": [],
                "error": {
                    "code": str(ErrorCode.MODE_RESTRICTED),
                    "message": RESTRICTED_MESSAGE,
                    "details": {},
                },
            },
        )


async def apply(
    ls: LlmPatchServer,
    source: ReplySource,
    options: ApplyOptions,
    *,
    parsed: ParsedReply | None = None,
    cancelled: Callable[[], bool] | None = None,
) -> dict[str, Any]:
    """Plan a reply (or the chosen blocks in `parsed`), send one `workspace/applyEdit`, check
    the editor really applied it; the report says what happened to every block."""
    started = time.monotonic()
    ls.stats.patches += 1
    QUIET.set(options.quiet)  # this request's task only
    try:
        # one apply at a time: each is planned against the text the one before left, so
        # concurrent applies never race to the same document version
        async with ls.apply_lock:
            return await _apply(ls, source, options, parsed, cancelled or (lambda: False))
    except Cancelled:
        ls.stats.cancelled += 1
        logger.info("apply cancelled")
        raise JsonRpcRequestCancelled("the patch was cancelled; nothing was applied") from None
    finally:
        ls.stats.latency_total += time.monotonic() - started


async def _apply(
    ls: LlmPatchServer,
    source: ReplySource,
    options: ApplyOptions,
    parsed: ParsedReply | None,
    cancelled: Callable[[], bool],
) -> dict[str, Any]:
    whole_reply = parsed is None  # a chosen block's plan says nothing about the others
    if parsed is None:
        parsed = await ls.parse_cached(source.text)
    partial = options.partial if options.partial is not None else not ls.settings.atomic
    reused = await reusable_analysis(ls, source, options, partial) if whole_reply else None
    agreed: set[tuple[str, str]] = set()  # what the user said yes to: (path, text or links)
    for attempt in range(REPLANS + 1):
        ready = await _plan_and_build(
            ls, source, options, parsed, cancelled, whole_reply, reused if not attempt else None
        )
        if isinstance(ready, dict):
            return ready
        analysis, built, unsupported = ready
        refused = await _ask_first(ls, analysis, built, options, agreed)
        if refused is not None:
            return refused
        # the last look at the disk before sending: a file that is not open has no version
        # to pin, so the editor cannot check it
        stale = await ls.run_work(changed_on_disk, analysis.root, analysis.reads, content=True)
        if stale:
            return await _refuse_changed(ls, analysis, stale, DISK_STALE_MESSAGE)
        # nothing awaits between this look and the send: no change can slip in between
        moved = guards.moved_documents(ls, analysis, built.files)
        if not moved:
            return await _send(ls, analysis, built, unsupported)
        logger.info("%s changed in the editor while the patch was planned", ", ".join(moved))
    return await _refuse_changed(ls, analysis, moved, MOVED_MESSAGE)


async def _plan_and_build(
    ls: LlmPatchServer,
    source: ReplySource,
    options: ApplyOptions,
    parsed: ParsedReply,
    cancelled: Callable[[], bool],
    whole_reply: bool,
    reused: Analysis | None,
) -> dict[str, Any] | tuple[Analysis, BuiltEdit, dict[str, Failure]]:
    """The plan and the edit to send, or the report that says why nothing is sent."""
    partial = options.partial if options.partial is not None else not ls.settings.atomic
    preview = options.preview or ls.settings.always_preview
    if reused is not None:
        analysis = reused
    else:
        async with Progress.maybe(ls, "Applying LLM patch", parsed, source.text) as progress:
            analysis = await ls.analyse(
                source,
                parsed=parsed,
                atomic=not partial,
                fuzzy_threshold=options.fuzzy_threshold,
                cancelled=cancelled,
                progress=progress,
                target=options.target,
                dirty=options.dirty,
                reading=options.reading,
            )
    plan = analysis.plan
    logger.debug(
        "planned %d block(s): %d placed, %d file(s) change",
        len(plan.outcomes),
        sum(1 for o in plan.outcomes if o.placed),
        len(plan.files),
    )
    ls.stats.blocks += len(plan.outcomes)
    ls.stats.conflicts += sum(1 for o in plan.outcomes if not o.placed)
    if source.uri is not None:
        ls.reply_uris.add(unquote(source.uri))
        if whole_reply:
            diagnostics.publish(ls, analysis)

    if plan.failure is not None:
        ls.tell(types.MessageType.Warning, f"LLM patch: {plan.failure.message}")
        return await report(ls, plan, applied=False)
    if not plan.ok and not partial:
        failed = [o for o in plan.outcomes if not o.placed]
        ls.tell(types.MessageType.Warning, _refusal_message(failed, len(plan.outcomes)))
        return await report(ls, plan, applied=False)
    if not plan.files:
        done = await report(ls, plan, applied=False)
        if plan.outcomes and all(o.already_applied or not o.placed for o in plan.outcomes):
            ls.tell(types.MessageType.Info, "LLM patch: nothing to change — already applied")
        return done

    built = await ls.run_work(
        build_workspace_edit,
        plan,
        ls.edit_capabilities(),
        ls.uri_for(analysis),
        confirm_fuzzy=ls.settings.confirm_fuzzy,
        preview=preview,
    )
    unsupported = _unsupported_failures(built)
    if unsupported and not partial:
        first = next(iter(unsupported.values()))
        ls.tell(types.MessageType.Error, f"LLM patch: {first.message}")
        return await report(ls, plan, applied=False, failures=unsupported)
    if cancelled():
        raise Cancelled()
    if built.empty:
        return await report(ls, plan, applied=False, failures=unsupported)
    return analysis, built, unsupported


async def report(ls: LlmPatchServer, plan: Plan, **kwargs: Any) -> dict[str, Any]:
    """`report_json` in a worker: it diffs every changed file."""
    return await ls.run_work(report_json, plan, **kwargs)


async def _refuse_changed(
    ls: LlmPatchServer, analysis: Analysis, paths: list[str], why: str
) -> dict[str, Any]:
    """Files the plan read changed before the edit was sent (on disk: DISK_STALE_MESSAGE;
    in the editor, again and again while planning: MOVED_MESSAGE): send nothing."""
    message = f"{', '.join(paths)} {why}"
    ls.tell(types.MessageType.Error, f"LLM patch not applied: {message}")
    ls.stats.conflicts += 1
    failures = {
        path: Failure(ErrorCode.STALE_VERSION, f"{path} {why}", {"path": path}) for path in paths
    }
    error = Failure(ErrorCode.STALE_VERSION, message, {"paths": paths})
    return await report(ls, analysis.plan, applied=False, failures=failures, error=error)


async def _ask_first(
    ls: LlmPatchServer,
    analysis: Analysis,
    built: BuiltEdit,
    options: ApplyOptions,
    agreed: set[tuple[str, str]],
) -> dict[str, Any] | None:
    """Ask the user about what only they can allow (unsaved work deleted or moved away, a
    file with other hard links edited); the refusal's report when they do not say yes.
    A yes holds for the same text (and the same links) when the plan is made again."""
    # the editor asks as it applies the edit (said for this run, or once for the session):
    # asking here too would ask the user twice
    editor_asks = options.confirm_unsaved or confirm.client_confirms_unsaved(ls)
    risky = [] if editor_asks else guards.at_risk(ls, analysis, built.files)
    lost = await ls.run_work(guards.unsaved, analysis.root, risky) if risky else []
    lost = [d for d in lost if (d.path, d.text) not in agreed]
    if lost:
        if not await confirm.ask(ls, guards.unsaved_question(lost), "Go ahead"):
            return await _refuse_unsaved(ls, analysis, lost, asked=confirm.can_ask(ls))
        agreed.update((d.path, d.text) for d in lost)
    held = sharing.held_elsewhere(ls, ls.uri_for(analysis), built.files)
    hidden = await ls.run_work(sharing.unsaved, analysis.root, held) if held else []
    if hidden:
        return await _refuse_hidden(ls, analysis, hidden)
    linked = await ls.run_work(guards.hard_linked, analysis.root, built.files)
    linked = [f for f in linked if (f.path, f"links {f.links}") not in agreed]
    if linked:
        if not await confirm.ask(ls, guards.linked_question(linked), "Edit anyway"):
            return await _refuse_linked(ls, analysis, linked)
        agreed.update((f.path, f"links {f.links}") for f in linked)
    return None


async def _refuse_hidden(ls: LlmPatchServer, analysis: Analysis, paths: list[str]):
    """Files an earlier apply edited in the editor, unsaved and never shared: send nothing."""
    message = sharing.unsaved_message(paths)
    ls.tell(types.MessageType.Error, f"LLM patch not applied: {message}")
    details = {"unsaved": True, "not_shared": True}
    failures = {
        p: Failure(ErrorCode.STALE_VERSION, sharing.unsaved_message([p]), {"path": p, **details})
        for p in paths
    }
    error = Failure(ErrorCode.STALE_VERSION, message, {"paths": paths, **details})
    return await report(ls, analysis.plan, applied=False, failures=failures, error=error)


async def _refuse_linked(
    ls: LlmPatchServer, analysis: Analysis, linked: list[guards.Linked]
) -> dict[str, Any]:
    """A file with other hard links, and no yes from the user: send nothing."""
    message = guards.linked_refusal(linked)
    ls.tell(types.MessageType.Error, f"LLM patch not applied: {message}")
    failures = {
        f.path: Failure(
            ErrorCode.PERMISSION_DENIED,
            guards.linked_refusal([f]),
            {"path": f.path, "hard_links": f.links},
        )
        for f in linked
    }
    paths = [f.path for f in linked]
    error = Failure(ErrorCode.PERMISSION_DENIED, message, {"paths": paths, "hard_links": True})
    return await report(ls, analysis.plan, applied=False, failures=failures, error=error)


async def _refuse_unsaved(
    ls: LlmPatchServer, analysis: Analysis, lost: list[guards.AtRisk], asked: bool
) -> dict[str, Any]:
    """The edit would delete or move away a document's unsaved work: send nothing. `asked`:
    the user was asked and did not say yes (a client's own follow-up question, such as
    "save first?", is then not asked: the user has answered once)."""
    message = guards.unsaved_refusal(lost)
    ls.tell(types.MessageType.Error, f"LLM patch not applied: {message}")
    failures: dict[str, Failure] = {}
    for doc in lost:
        failures[doc.path] = Failure(
            ErrorCode.STALE_VERSION,
            guards.unsaved_refusal([doc]),
            {"path": doc.path, "unsaved": True, "operation": doc.what, "asked": asked},
        )
    paths = list(dict.fromkeys(d.path for d in lost))
    details = {"paths": paths, "unsaved": True, "asked": asked}
    error = Failure(ErrorCode.STALE_VERSION, message, details)
    return await report(ls, analysis.plan, applied=False, failures=failures, error=error)


async def _send(
    ls: LlmPatchServer, analysis: Analysis, built: BuiltEdit, unsupported: dict[str, Failure]
) -> dict[str, Any]:
    """Send the edit, then report what the editor really did with it."""
    plan = analysis.plan
    # the same count as the code action's title: blocks (edits) and files (a move is one)
    changing = {i for change in built.files for i in change.blocks}
    label = f"LLM patch: {edits_in_files(len(changing), len(built.files))}"
    before = {c.path: c.version for c in built.files}
    logger.debug("sending workspace/applyEdit: %s", label)
    try:
        result = await ls.workspace_apply_edit_async(
            types.ApplyWorkspaceEditParams(edit=built.edit, label=label)
        )
    except JsonRpcException as err:
        result = types.ApplyWorkspaceEditResult(applied=False, failure_reason=err.message)

    if not result.applied:
        partly = await partial.partly_applied(ls, analysis, built, result, VERIFY_TIMEOUT)
        if partly:
            return await partial.report_partial(ls, analysis, built, result, partly, unsupported)
        asked = built.needs_confirmation and not _changed_since(ls, analysis, before)
        if asked and "left out" in (result.failure_reason or ""):
            # the project's VS Code extension says so when every edit was unticked
            code = ErrorCode.LEFT_OUT
            why = f"left out: {result.failure_reason}; nothing was applied"
        elif result.failure_reason:
            code = ErrorCode.IO_ERROR
            why = f"the editor refused the edit: {result.failure_reason}"
        elif asked:
            # nothing it pinned moved: the user declined the edit where it asked
            code = ErrorCode.LEFT_OUT
            why = "left out: declined in the editor's preview; nothing was applied"
        else:
            code = ErrorCode.STALE_VERSION
            why = STALE_MESSAGE
        ls.tell(types.MessageType.Error, f"LLM patch not applied: {why}")
        ls.stats.conflicts += 1
        failures = {c.path: Failure(code, why, {"path": c.path}) for c in built.files}
        done = await report(ls, plan, applied=False, failures={**failures, **unsupported})
        return mark_left_out(done)

    stale = await _verify(ls, analysis, built)
    left_out: dict[str, Failure] = {}
    if built.needs_confirmation:
        # an editor that asks lets the user untick edits: a file untouched was left out
        for path, failure in list(stale.items()):
            if failure.details.get("untouched"):
                del stale[path]
                left_out[path] = Failure(
                    ErrorCode.LEFT_OUT,
                    f"{path}: left out in the editor's preview; not applied",
                    {"path": path, "left_out": True},
                )
    ls.stats.conflicts += len(stale)
    if not stale:
        ls.stats.applied += 1
    landed = [c for c in built.files if c.path not in stale and c.path not in left_out]
    unsaved = await ls.run_work(guards.not_saved, analysis.root, landed)
    failures = {**stale, **left_out, **unsupported}
    done = mark_left_out(await report(ls, plan, applied=True, failures=failures, unsaved=unsaved))
    hidden = await sharing.not_shared_after(ls, ls.uri_for(analysis), landed, SHARE_WAIT)
    if sharing.warn_not_shared(ls, done, hidden):
        done.update(render(done))
    if left_out and not stale:
        _tell_left_out(ls, done, landed, partial=not ls.settings.atomic)
    elif stale:
        paths = ", ".join(sorted(stale))
        ls.tell(
            types.MessageType.Error,
            f"LLM patch: the editor reported success, but the planned change is not in "
            f"{paths}: the document changed before the edit reached it, which skipped it or "
            "put it elsewhere. Check the document (undo restores it) and run it again",
        )
    elif not plan.ok:
        placed = sum(1 for o in plan.outcomes if o.placed)
        ls.tell(
            types.MessageType.Warning,
            f"LLM patch: applied {placed} of {plural(len(plan.outcomes), 'edit')}; "
            "the others failed (see the diagnostics on the reply)",
        )
    else:
        # what the commands' callers show from the report, for a code action's caller
        # too (editors ignore a command's result): which files changed, which are unsaved
        ls.tell(types.MessageType.Info, f"LLM patch: {applied_message(done)}")
    if analysis.source.uri is not None and analysis.source.whole_document:
        diagnostics.schedule(ls, analysis.source.uri, delay=0.05)
    return done


def mark_left_out(done: dict[str, Any]) -> dict[str, Any]:
    """A block the user left out in the preview is `skipped`, with `left_out`, never a
    failure of the editor (STALE_VERSION): the report's words are made again."""
    marked = False
    for entry in done["blocks"]:
        if (entry.get("error") or {}).get("code") == ErrorCode.LEFT_OUT:
            entry["status"] = str(Status.SKIPPED)
            entry["left_out"] = True
            marked = True
    if not marked:
        return done
    left = [b for b in done["blocks"] if b.get("left_out")]
    names = ", ".join(f"#{b['index']} {b.get('path') or '?'}" for b in left)
    done["ok"] = False
    landed = any(b["status"] == Status.APPLIED for b in done["blocks"])
    tail = "the rest was applied" if landed else "nothing was applied"
    done["error"] = {
        "code": str(ErrorCode.LEFT_OUT),
        "message": f"left out in the editor's preview: {names}; {tail}",
        "details": {"blocks": [b["index"] for b in left]},
    }
    done.update(render(done))
    return done


def _tell_left_out(
    ls: LlmPatchServer, done: dict[str, Any], landed: list[FileChange], partial: bool
) -> None:
    names = ", ".join(c.path for c in landed) or "nothing"
    atomic = "" if partial else " The reply was to be applied whole: undo restores the rest."
    ls.tell(
        types.MessageType.Warning,
        f"LLM patch: {done['error']['message']} (changed: {names}).{atomic}",
    )


async def reusable_analysis(
    ls: LlmPatchServer, source: ReplySource, options: ApplyOptions, partial: bool
) -> Analysis | None:
    """The analysis a code action just made for this reply, if applying can use it.

    The usual flow asks for code actions and then runs the chosen one's command on the
    same text and document versions: planning again would double the wait. It is reused
    only when nothing it depends on changed — in the editor (`plan_key`), and on disk:
    every file it read is the same size, age, inode and content as then — and its outcome
    is the one this apply would get: the cached plan is not all-or-nothing, which only
    matters when a block failed.
    """
    if options.fuzzy_threshold not in (None, ls.settings.fuzzy_threshold):
        return None
    hit = ls.plans.get(ls.plan_key(source, options.target, options.dirty))
    if hit is None or not (partial or hit.plan.ok):
        return None
    if await ls.run_work(changed_on_disk, hit.root, hit.reads, content=True):
        logger.info("a file changed on disk since the code action was planned: planning again")
        return None
    return hit


def _changed_since(ls: LlmPatchServer, analysis: Analysis, versions: dict[str, int | None]) -> bool:
    for path, version in versions.items():
        uri = analysis.uris.get(path)
        doc = ls.open_document(uri) if uri else None
        if doc is not None and version is not None and doc.version != version:
            return True
    return False


def _left_out_unopened(change: FileChange) -> Failure:
    return Failure(
        ErrorCode.STALE_VERSION,
        f"{change.path}: the editor reported the edit applied, but opened no document for "
        f"it and the file is as planned on; {STALE_MESSAGE}",
        {"path": change.path, "untouched": True},
    )


async def _verify(ls: LlmPatchServer, analysis: Analysis, built: BuiltEdit) -> dict[str, Failure]:
    """After `applied: true`, look again: a client may skip a stale document silently."""
    uri_for = ls.uri_for(analysis)
    asked = built.needs_confirmation
    checks = [_verify_one(ls, change, uri_for, analysis.root, asked) for change in built.files]
    results = await asyncio.gather(*checks)
    return {path: failure for path, failure in results if failure is not None}


async def _verify_one(
    ls: LlmPatchServer,
    change: FileChange,
    uri_for: Callable[[str], str],
    root: Path,
    asked: bool,
) -> tuple[str, Failure | None]:
    uri = uri_for(change.path)
    if change.action is FileAction.MODIFY:
        if change.version is None and not asked:
            return change.path, None  # not open: the editor edits it unsaved; cannot see it

        def synced() -> bool:
            doc = ls.open_document(uri)
            if change.version is None:  # an editor opens a document to edit it, and shares it
                return doc is not None
            return doc is None or doc.version != change.version

        await ls.wait_for_document(uri, synced, VERIFY_TIMEOUT)
        doc_now = ls.open_document(uri)
        if doc_now is None and change.version is None:
            # asked in a preview (only editors that share every document ask): no document
            # was opened for it, and the disk holds what was planned on: it was left out
            untouched = await ls.run_work(_disk_as_planned, root, change)
            return change.path, _left_out_unopened(change) if untouched else None
        if doc_now is None:
            return change.path, None
        old, new = change.old_text or "", change.new_text or ""
        if await ls.run_work(edit_present, old, new, doc_now.source):
            return change.path, None
        return change.path, Failure(
            ErrorCode.STALE_VERSION,
            f"{change.path}: the editor reported the edit applied, but the change is not "
            f"in the document; {STALE_MESSAGE}",
            # the document as planned on: nothing reached it (left out in a preview?)
            {"path": change.path, "version": change.version, "untouched": doc_now.source == old},
        )
    target = root / change.path
    if change.action is FileAction.CREATE:
        ok = target.exists  # or open in the editor, unsaved: `_poll` looks at that too
        what = "was not created"
    elif change.action is FileAction.DELETE:
        ok = lambda: not target.exists()  # noqa: E731
        what = "still exists"
    else:
        dest = root / (change.new_path or change.path)
        ok = lambda: dest.exists() and not target.exists()  # noqa: E731
        what = f"was not moved to {change.new_path}"
    opened = uri if change.action is FileAction.CREATE else None
    if not await _poll(ls, ok, VERIFY_TIMEOUT, opened):
        return change.path, Failure(
            ErrorCode.STALE_VERSION,
            f"{change.path}: the editor reported the edit applied, but the file {what}",
            {"path": change.path, "untouched": await ls.run_work(_untouched, root, change)},
        )
    return change.path, None


def _disk_as_planned(root: Path, change: FileChange) -> bool:
    """Does the file on disk still hold the text the plan read (a modify nobody applied)?"""
    try:
        with open(root / change.path, encoding="utf-8", errors="surrogateescape", newline="") as f:
            return f.read() == (change.old_text or "")
    except OSError:
        return False


def _untouched(root: Path, change: FileChange) -> bool:
    """Is the disk as the plan found it for this file operation (nothing happened)?"""
    here = (root / change.path).exists()
    if change.action is FileAction.CREATE:
        return not here
    if change.action is FileAction.DELETE:
        return here
    return here and not (root / (change.new_path or change.path)).exists()


async def _poll(
    ls: LlmPatchServer, check: Callable[[], bool], timeout: float, uri: str | None = None
) -> bool:
    """Wait until `check()` (which looks at the disk, so it runs in a worker) holds, or the
    document `uri` is open in the editor."""
    deadline = time.monotonic() + timeout
    while True:
        if (uri is not None and ls.open_document(uri) is not None) or await ls.run_work(check):
            return True
        if time.monotonic() >= deadline:
            return False
        await asyncio.sleep(POLL_INTERVAL)


def _refusal_message(failed: list[BlockOutcome], total: int) -> str:
    first = failed[0]
    code = first.failure.code if first.failure else "?"
    why = first.failure.message.split("\n", 1)[0] if first.failure else ""
    advice = (
        "Nothing was changed."
        if code is ErrorCode.STALE_VERSION  # the reply is fine: the editor's state is not
        else "Nothing was changed; fix the reply, or apply only the edits that place."
    )
    return (
        f"LLM patch not applied: {len(failed)} of {plural(total, 'edit')} failed "
        f"(block {first.block.index}, {first.block.path or '?'}: {code}: {why}). {advice}"
    )


def _unsupported_failures(built: BuiltEdit) -> dict[str, Failure]:
    out: dict[str, Failure] = {}
    for change in built.unsupported:
        out[change.path] = Failure(
            ErrorCode.IO_ERROR,
            f"{change.path}: this editor cannot {change.action.value} files through LSP "
            "(it does not support resource operations)",
            {"path": change.path, "action": change.action.value},
        )
    return out
