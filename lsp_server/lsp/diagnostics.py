"""Reply documents get live diagnostics: an error on each block that will not land.

A reply document (`*.llm.md`, `*.patch`, `*.diff`, an untitled buffer, or any document a
command was run on) is analysed a moment after it stops changing (`diagnosticsDelay`), and
again when a file it edits changes. The analysis is kept, so lenses, hover and code
actions on the same text do not place the reply again.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import Any
from urllib.parse import unquote

from lsprotocol import types
from pygls.exceptions import JsonRpcContentModified

from lsp_server.edits import PositionIndex
from lsp_server.lsp import sharing
from lsp_server.lsp.analysis import Analysis, ReplySource, block_paths
from lsp_server.lsp.session import LlmPatchServer
from lsp_server.model import Cancelled, EditBlock, ErrorCode

logger = logging.getLogger("lsp_server")

SOURCE = "llm-patch"  # the `source` of every diagnostic this server publishes
WARNING = types.DiagnosticSeverity.Warning
# How often a request follows a reply that keeps changing under it before giving up.
FOLLOW_CHANGES = 3


# --- handlers -------------------------------------------------------------------------------


def did_open(ls: LlmPatchServer, params: types.DidOpenTextDocumentParams) -> None:
    sharing.opened(ls, params.text_document.uri)
    ls.document_changed(params.text_document.uri)
    schedule(ls, params.text_document.uri, delay=0)


def did_change(ls: LlmPatchServer, params: types.DidChangeTextDocumentParams) -> None:
    uri = params.text_document.uri
    ls.document_changed(uri)
    if ls.is_reply_document(uri):
        schedule(ls, uri)
        return
    # a target file changed: the replies that edit it may place differently now
    doc = ls.open_document(uri)
    path = doc.path if doc is not None else None
    for key, analysis in list(ls.analyses.items()):
        if mentions(analysis, path):
            schedule(ls, analysis.source.uri or key)


def did_close(ls: LlmPatchServer, params: types.DidCloseTextDocumentParams) -> None:
    uri = params.text_document.uri
    key = unquote(uri)
    task = ls.pending.pop(key, None)
    if task is not None:
        task.cancel()
    if ls.analyses.pop(key, None) is not None or ls.is_reply_document(uri):
        ls.text_document_publish_diagnostics(
            types.PublishDiagnosticsParams(uri=uri, diagnostics=[])
        )


# --- keeping analyses current ---------------------------------------------------------------


def schedule(ls: LlmPatchServer, uri: str, delay: float | None = None) -> None:
    """Analyse a reply document after `delay` seconds (the setting's by default), replacing
    an analysis already waiting for it."""
    if not ls.settings.diagnostics or not ls.is_reply_document(uri):
        return
    key = unquote(uri)
    ls.generation[key] = ls.generation.get(key, 0) + 1
    old = ls.pending.pop(key, None)
    if old is not None:
        old.cancel()
    wait = ls.settings.diagnostics_delay / 1000 if delay is None else delay
    ls.pending[key] = asyncio.ensure_future(_diagnose_later(ls, uri, wait))


async def _diagnose_later(ls: LlmPatchServer, uri: str, delay: float) -> None:
    key = unquote(uri)
    generation = ls.generation.get(key, 0)
    try:
        await asyncio.sleep(delay)
        await refresh(ls, uri, superseded=lambda: ls.generation.get(key) != generation)
    except asyncio.CancelledError:
        pass
    except Cancelled:
        pass
    except Exception:  # noqa: BLE001 - a failed analysis must not kill later ones
        logger.exception("analysing %s failed", uri)
    finally:
        if ls.pending.get(key) is asyncio.current_task():
            del ls.pending[key]


async def refresh(
    ls: LlmPatchServer, uri: str, superseded: Callable[[], bool] | None = None
) -> Analysis | None:
    """Analyse an open reply document now; keep and publish the result unless the text
    changed meanwhile."""
    doc = ls.open_document(uri)
    if doc is None:
        return None
    source = ReplySource(doc.source, uri, doc.version)
    analysis = await ls.analyse(source, cancelled=superseded, retries=True)
    if (superseded is not None and superseded()) or doc.version != source.version:
        return None
    remember(ls, analysis)
    return analysis


async def ensure_analysis(ls: LlmPatchServer, uri: str) -> Analysis | None:
    """The analysis of a reply document's current text, made now if there is none."""
    found = ls.current_analysis(uri)
    if found is not None:
        return found
    key = unquote(uri)
    pending = ls.pending.pop(key, None)
    if pending is not None:
        pending.cancel()
    # a newer didChange cancels this analysis: follow the newest text a few times, then
    # tell the client its request is stale (ContentModified), never an internal error
    for _ in range(FOLLOW_CHANGES):
        ls.generation[key] = ls.generation.get(key, 0) + 1
        generation = ls.generation[key]
        try:
            return await refresh(ls, uri, lambda g=generation: ls.generation.get(key) != g)
        except Cancelled:
            found = ls.current_analysis(uri)
            if found is not None:
                return found
    raise JsonRpcContentModified("the reply changed while it was being analysed")


def remember(ls: LlmPatchServer, analysis: Analysis) -> None:
    """Keep a whole-document analysis, publish its diagnostics, refresh lenses."""
    uri = analysis.source.uri
    if uri is None:
        return
    if analysis.source.whole_document:
        ls.analyses[unquote(uri)] = analysis
    publish(ls, analysis)
    if ls.settings.code_lens and ls.client_capability("workspace.code_lens.refresh_support"):
        ls.workspace_code_lens_refresh(None)


def publish(ls: LlmPatchServer, analysis: Analysis) -> None:
    uri = analysis.source.uri
    if uri is None:
        return
    doc = ls.open_document(uri)
    text = doc.source if doc is not None else analysis.source.text
    diagnostics = build_diagnostics(analysis, PositionIndex(text, ls.encoding))
    ls.text_document_publish_diagnostics(
        types.PublishDiagnosticsParams(
            uri=uri, diagnostics=diagnostics, version=analysis.source.version
        )
    )


def mentions(analysis: Analysis, path: str | None) -> bool:
    """Does the reply name this file (as a target) at all?"""
    if not path:
        return False
    for outcome in analysis.plan.outcomes:
        for p in block_paths(outcome.block):
            if str(analysis.root / p) == path or path.endswith("/" + p.lstrip("./")):
                return True
    return False


# --- what is published ----------------------------------------------------------------------


def block_range(analysis: Analysis, block: EditBlock, index: PositionIndex) -> types.Range:
    """The lines of the reply document a block came from."""
    lo, hi = block.reply_lines
    off = analysis.source.line_offset
    return index.line_range(off + lo - 1, off + hi - 1)


def build_diagnostics(analysis: Analysis, index: PositionIndex) -> list[types.Diagnostic]:
    """One Error per failed block (on its lines), Warnings for plan warnings."""
    plan = analysis.plan
    out: list[types.Diagnostic] = []
    if plan.failure is not None:
        if plan.failure.code is not ErrorCode.NO_EDIT_BLOCKS:
            line = analysis.source.line_offset
            rng = index.line_range(line, line)
            out.append(_diagnostic(rng, WARNING, plan.failure.code, plan.failure.message))
        return out
    blocks = {o.block.index: o.block for o in plan.outcomes}
    for outcome in plan.outcomes:
        failure = outcome.failure
        if failure is None:
            continue
        block = outcome.block
        out.append(
            _diagnostic(
                block_range(analysis, block, index),
                types.DiagnosticSeverity.Error,
                failure.code,
                failure.message,
                data=_failure_data(analysis, block, failure.code, failure.details),
                related=analysis.related.get(block.index) or None,
            )
        )
    for warning in plan.warnings:
        if warning.block in blocks:
            targets = [blocks[warning.block]]
        else:  # a file's warning sits on the first block that edits the file
            targets = [b for b in blocks.values() if warning.path in block_paths(b)][:1]
        for block in targets:
            rng = block_range(analysis, block, index)
            data = {"block": block.index, "code": str(warning.type)}
            out.append(_diagnostic(rng, WARNING, warning.type, warning.message, data=data))
    return out


def _diagnostic(
    rng: types.Range,
    severity: types.DiagnosticSeverity,
    code: str,
    message: str,
    data: dict[str, Any] | None = None,
    related: list[types.DiagnosticRelatedInformation] | None = None,
) -> types.Diagnostic:
    return types.Diagnostic(
        range=rng,
        message=message,
        severity=severity,
        code=str(code),
        source=SOURCE,
        related_information=related,
        data=data,
    )


def _failure_data(
    analysis: Analysis, block: EditBlock, code: ErrorCode, details: dict[str, Any]
) -> dict[str, Any]:
    """What the quick fixes need from a failure diagnostic (code_actions reads it back)."""
    data: dict[str, Any] = {"block": block.index, "code": str(code)}
    if details.get("readings"):  # the readings a code action each applies (resolve.merge)
        data["readings"] = details["readings"]
    closest = details.get("closest")
    if isinstance(closest, dict):
        data["closest"] = {
            k: closest.get(k) for k in ("line", "end_line", "similarity", "whitespace_only")
        }
    if block.path:
        data["path"] = block.path
    if isinstance(details.get("did_you_mean"), str):
        data["didYouMean"] = details["did_you_mean"]
    if block.index in analysis.retry_thresholds:
        data["fuzzyThreshold"] = analysis.retry_thresholds[block.index]
    return data
