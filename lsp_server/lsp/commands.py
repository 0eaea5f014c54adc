"""The `llmPatch.*` commands (`workspace/executeCommand`): what editors and tools call.

Each command takes a target, and optionally options; every command that plans returns the
report the CLI prints with `--json`. See docs/server.md for the arguments of each.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
from collections.abc import Callable
from typing import Any
from urllib.parse import unquote

from lsprotocol import types
from pygls.exceptions import JsonRpcInvalidParams, JsonRpcRequestCancelled

from lsp_server.lsp import apply, diagnostics
from lsp_server.lsp.analysis import ReplySource
from lsp_server.lsp.session import LlmPatchServer
from lsp_server.lsp.settings import fuzzy_threshold
from lsp_server.model import Cancelled, FileAction, FileChange, ParsedReply
from lsp_server.report import file_diff

APPLY = "llmPatch.apply"
CHECK = "llmPatch.check"
APPLY_BLOCK = "llmPatch.applyBlock"
BUILD_DIFF = "llmPatch.buildDiff"
STATS = "llmPatch.stats"
PATCH = "llmPatch.patch"
STRUCTURE = "llmPatch.structure"
SHOW_LOCATION = "llmPatch.showLocation"
# The commands whose first argument names a reply ({"text" | "uri", ...}): they take the
# caller's `target` and `dirty` beside it. (A tool call's own keys are its arguments.)
REPLY_COMMANDS = (APPLY, CHECK, APPLY_BLOCK)


# --- handlers -------------------------------------------------------------------------------


async def apply_reply(ls: LlmPatchServer, *args: Any) -> dict[str, Any]:
    """`llmPatch.apply(target, options?)`: apply every block of a reply."""
    target, options = _split_args(args, APPLY)
    apply.require_write(ls)
    source = await ls.reply_source(target)
    return await apply.apply(ls, source, options, cancelled=request_cancelled(ls))


async def check_reply(ls: LlmPatchServer, *args: Any) -> dict[str, Any]:
    """`llmPatch.check(target, options?)`: place every block, apply nothing; a reply document
    gets the diagnostics."""
    target, options = _split_args(args, CHECK)
    source = await ls.reply_source(target)
    partial = options.partial if options.partial is not None else not ls.settings.atomic
    try:
        analysis = await ls.analyse(
            source,
            parsed=await ls.parse_cached(source.text),
            atomic=not partial,
            fuzzy_threshold=options.fuzzy_threshold,
            cancelled=request_cancelled(ls),
            retries=source.uri is not None,
            target=options.target,
            dirty=options.dirty,
        )
    except Cancelled:  # the client cancelled the request: say so, never an internal error
        raise JsonRpcRequestCancelled("the check was cancelled") from None
    if source.uri is not None:
        ls.reply_uris.add(unquote(source.uri))
        diagnostics.remember(ls, analysis)
    return await apply.report(ls, analysis.plan, applied=False)


async def apply_block(ls: LlmPatchServer, *args: Any) -> dict[str, Any]:
    """`llmPatch.applyBlock({uri | text, block}, options?)`: apply one block of a reply."""
    target, options = _split_args(args, APPLY_BLOCK)
    apply.require_write(ls)
    if not isinstance(target, dict) or not isinstance(target.get("block"), int):
        raise JsonRpcInvalidParams(f'{APPLY_BLOCK} needs {{"uri" | "text", "block": <index>}}')
    source = await ls.reply_source(target)
    parsed = await ls.parse_cached(source.text)
    chosen = [b for b in parsed.blocks if b.index == target["block"]]
    if not chosen:
        raise JsonRpcInvalidParams(
            f"the reply has no block {target['block']} ({len(parsed.blocks)} blocks)"
        )
    one = ParsedReply(tuple(chosen))
    return await apply.apply(ls, source, options, parsed=one, cancelled=request_cancelled(ls))


async def patch_tool(ls: LlmPatchServer, *args: Any) -> dict[str, Any]:
    """`llmPatch.patch(call, options?)`: a patch tool call ({"path", "patches"} or a string)."""
    payload, options = _split_args(args, PATCH)
    apply.require_write(ls)
    source = ReplySource(_tool_call_text(payload, PATCH))
    return await apply.apply(ls, source, options, cancelled=request_cancelled(ls))


async def structure_tool(ls: LlmPatchServer, *args: Any) -> dict[str, Any]:
    """`llmPatch.structure(call, options?)`: a structure operation; replace by default."""
    payload, options = _split_args(args, STRUCTURE)
    apply.require_write(ls)
    if isinstance(payload, dict):
        payload = {"operation": "replace_structure", **payload}
    source = ReplySource(_tool_call_text(payload, STRUCTURE))
    return await apply.apply(ls, source, options, cancelled=request_cancelled(ls))


async def build_diff(ls: LlmPatchServer, *args: Any) -> dict[str, Any]:
    """`llmPatch.buildDiff({original, updated, path?})`: the unified diff between two texts
    (diffed in a worker: two big texts can take a while)."""
    if len(args) != 1 or not isinstance(args[0], dict):
        raise JsonRpcInvalidParams(
            f'{BUILD_DIFF} takes one object: {{"original", "updated", "path"?}}'
        )
    arg = args[0]
    original, updated = arg.get("original"), arg.get("updated")
    if not isinstance(original, str) or not isinstance(updated, str):
        raise JsonRpcInvalidParams('"original" and "updated" must be strings')
    path = arg.get("path") if isinstance(arg.get("path"), str) and arg.get("path") else "file"
    change = FileChange(path, FileAction.MODIFY, original, updated)
    return {"path": path, "diff": await ls.run_work(file_diff, change)}


def stats(ls: LlmPatchServer, *args: Any) -> dict[str, Any]:
    """`llmPatch.stats()`: what this session has done."""
    return ls.stats.to_json()


async def show_location(ls: LlmPatchServer, *args: Any) -> bool:
    """`llmPatch.showLocation({uri, range})`: open a document at a range (a quick fix's
    "open the closest match"); false when the client cannot show documents."""
    if len(args) != 1 or not isinstance(args[0], dict):
        raise JsonRpcInvalidParams(f'{SHOW_LOCATION} takes one object: {{"uri", "range"}}')
    rng = ls.structure_range(args[0].get("range"))
    uri = args[0].get("uri")
    if not isinstance(uri, str):
        raise JsonRpcInvalidParams('"uri" must be a string')
    if not ls.client_capability("window.show_document.support"):
        return False
    result = await ls.window_show_document_async(
        types.ShowDocumentParams(uri=uri, take_focus=True, selection=rng)
    )
    return bool(result and result.success)


# Command name → handler, in the order `executeCommandProvider` lists them.
COMMANDS: dict[str, Callable[..., Any]] = {
    APPLY: apply_reply,
    CHECK: check_reply,
    APPLY_BLOCK: apply_block,
    PATCH: patch_tool,
    STRUCTURE: structure_tool,
    BUILD_DIFF: build_diff,
    STATS: stats,
    SHOW_LOCATION: show_location,
}


# --- arguments ------------------------------------------------------------------------------


def request_cancelled(ls: LlmPatchServer) -> Callable[[], bool]:
    """A check for the client cancelling the request being handled (`$/cancelRequest`), or
    this task being cancelled."""
    protocol = ls.protocol
    msg_id = protocol.msg_id
    task = asyncio.current_task()

    def cancelled() -> bool:
        if msg_id is not None and protocol.was_cancelled(msg_id):
            return True
        return task is not None and task.cancelling() > 0

    return cancelled


def _parse_options(raw: Any) -> apply.ApplyOptions:
    if raw is None:
        return apply.ApplyOptions()
    if not isinstance(raw, dict):
        raise JsonRpcInvalidParams("the second argument (options) must be an object")
    partial = raw.get("partial")
    if partial is not None and not isinstance(partial, bool):
        raise JsonRpcInvalidParams("options.partial must be true or false")
    preview = raw.get("preview", False)
    if not isinstance(preview, bool):
        raise JsonRpcInvalidParams("options.preview must be true or false")
    threshold = raw.get("fuzzyThreshold")
    if threshold is not None:
        try:
            threshold = fuzzy_threshold(threshold)
        except (TypeError, ValueError) as err:
            raise JsonRpcInvalidParams(f"options.fuzzyThreshold: {err}") from None
    confirm_unsaved = raw.get("confirmUnsaved", False)
    if not isinstance(confirm_unsaved, bool):
        raise JsonRpcInvalidParams("options.confirmUnsaved must be true or false")
    quiet = raw.get("quiet", False)
    if not isinstance(quiet, bool):
        raise JsonRpcInvalidParams("options.quiet must be true or false")
    reading = raw.get("reading", {})
    if not isinstance(reading, dict) or not all((k, v) in _READINGS for k, v in reading.items()):
        raise JsonRpcInvalidParams(
            'options.reading must be an object: {"as": "whole" | "fragment", '
            '"rest": "keep" | "drop"}'
        )
    return apply.ApplyOptions(
        partial=partial,
        preview=preview,
        fuzzy_threshold=threshold,
        confirm_unsaved=confirm_unsaved,
        quiet=quiet,
        reading=(reading.get("as"), reading.get("rest")),
    )


# the readings a block left open may be applied with (docs/snippets.md)
_READINGS = {("as", "whole"), ("as", "fragment"), ("rest", "keep"), ("rest", "drop")}


def _split_args(args: tuple[Any, ...], name: str) -> tuple[Any, apply.ApplyOptions]:
    if not args:
        raise JsonRpcInvalidParams(f'{name} needs an argument: {{"text": ...}} or {{"uri": ...}}')
    if len(args) > 2:
        raise JsonRpcInvalidParams(f"{name} takes at most two arguments (target, options)")
    options = _parse_options(args[1] if len(args) > 1 else None)
    first = args[0]
    if name in REPLY_COMMANDS and isinstance(first, dict):
        options = dataclasses.replace(options, target=_target(first), dirty=_dirty(first))
    return first, options


def _dirty(first: dict[str, Any]) -> tuple[str, ...]:
    """The first argument's `dirty`: URIs of documents the client has unsaved changes in
    that it did not send the server (a block on one is refused as stale)."""
    dirty = first.get("dirty")
    if dirty is None:
        return ()
    if not isinstance(dirty, list) or not all(isinstance(u, str) and u for u in dirty):
        raise JsonRpcInvalidParams('"dirty" must be a list of document URIs')
    return tuple(sorted(set(dirty)))


def _target(first: dict[str, Any]) -> str | None:
    """The first argument's `target`: the URI of the file blocks without a path apply to."""
    target = first.get("target")
    if target is not None and (not isinstance(target, str) or not target):
        raise JsonRpcInvalidParams('"target" must be a document URI (a non-empty string)')
    return target


def _tool_call_text(payload: Any, name: str) -> str:
    """A tool call's JSON as a reply the parser reads (a fenced JSON block)."""
    if isinstance(payload, str):
        return payload
    if not isinstance(payload, dict):
        raise JsonRpcInvalidParams(
            f"{name} needs the tool call's JSON object as its first argument"
        )
    return "```json\n" + json.dumps(payload, ensure_ascii=False, indent=2) + "\n```\n"
