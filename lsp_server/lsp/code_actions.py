"""Code actions: apply (or check) the reply under the selection; quick fixes for failed blocks.

On a selection in any document, or anywhere in a reply document: *Apply LLM patch (N edits
in M files)*, *Preview*, *Apply k of n edits* (when some fail) and *Check*. On a failed
block's diagnostic: open the closest match, apply the block there (confirming first), or
rewrite the block so it anchors on what the file really says (resolved lazily when the
client supports it) — only where that text is evidently the one it meant
(`evident_target`), and saying which lines it will replace. At a cursor, the block under
it: *Apply LLM patch block N*.

Asking for actions must stay cheap, since editors ask on every cursor move: a selection is
only parsed, and only planned when the user explicitly asked (see `known_plan`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from lsprotocol import types
from pygls.workspace import TextDocument

from lsp_server.edits import PositionIndex
from lsp_server.lsp import commands
from lsp_server.lsp.analysis import ReplySource
from lsp_server.lsp.diagnostics import SOURCE, ensure_analysis
from lsp_server.lsp.session import LlmPatchServer
from lsp_server.model import BlockOutcome, Cancelled, EditBlock, ParsedReply, Plan
from lsp_server.report import edits_in_files, percent, plural

KIND_APPLY = "refactor.rewrite.llmPatch"
KIND_CHECK = "refactor.llmPatch.check"
# An explicitly requested code-action list plans a selection up to this size.
PLAN_ON_REQUEST_BYTES = 256_000

OPTIONS = types.CodeActionOptions(
    code_action_kinds=[
        types.CodeActionKind.QuickFix,
        types.CodeActionKind.Refactor,
        types.CodeActionKind.RefactorRewrite,
    ],
    resolve_provider=True,
)


# --- handlers -------------------------------------------------------------------------------


async def code_action(
    ls: LlmPatchServer, params: types.CodeActionParams
) -> list[types.CodeAction] | None:
    uri = params.text_document.uri
    doc = ls.open_document(uri)
    if doc is None:
        return None
    actions = quick_fixes(ls, uri, doc, params.context.diagnostics)
    rng = params.range
    reply_document = ls.is_reply_document(uri)
    if rng.start != rng.end:
        target: dict[str, Any] = {"uri": uri, "version": doc.version}
        target["range"] = ls.converter.unstructure(rng)
        source = await ls.reply_source(target)
        parsed = await ls.parse_cached(source.text)
        if parsed.failure is None and parsed.blocks:
            return actions + await _reply_actions(ls, target, source, parsed, params.context)
        # a range that holds no whole block (the cursor's word or line, as some editors
        # send it): the block it sits in
    elif reply_document:
        target = {"uri": uri, "version": doc.version}
        source = ReplySource(doc.source, uri, doc.version)
        parsed = await ls.parse_cached(source.text)
        if parsed.failure is not None or not parsed.blocks:
            return actions or None
        actions += _block_actions(ls, uri, doc, parsed, rng)
        return actions + await _reply_actions(ls, target, source, parsed, params.context)
    automatic = params.context.trigger_kind == types.CodeActionTriggerKind.Automatic
    if not reply_document and (automatic or len(doc.source) > PLAN_ON_REQUEST_BYTES):
        return actions or None  # cheap on every cursor move: parse only when asked
    parsed = await ls.parse_cached(doc.source)
    if parsed.failure is None:
        actions += _block_actions(ls, uri, doc, parsed, rng)
    return actions or None


async def _reply_actions(
    ls: LlmPatchServer,
    target: dict[str, Any],
    source: ReplySource,
    parsed: ParsedReply,
    context: types.CodeActionContext,
) -> list[types.CodeAction]:
    """Apply / preview / apply the blocks that place / check: the reply in `target`."""
    plan = await known_plan(ls, source, parsed, context)
    out = [] if ls.settings.restricted else _apply_actions(ls, target, parsed, plan)
    check = "Check LLM patch (show failures, apply nothing)"
    out.append(
        types.CodeAction(
            title=check,
            kind=KIND_CHECK,
            command=types.Command(title=check, command=commands.CHECK, arguments=[target]),
        )
    )
    return out


def _block_actions(
    ls: LlmPatchServer, uri: str, doc: TextDocument, parsed: ParsedReply, rng: types.Range
) -> list[types.CodeAction]:
    """*Apply block N* for each block of the document the range touches (a cursor: the
    block it is in), whatever the document: editors that ask at the cursor with no
    selection (eglot, Kate) get the block under it."""
    if ls.settings.restricted:
        return []
    first, last = rng.start.line + 1, max(rng.start.line, rng.end.line) + 1  # 1-based
    out = []
    for block in parsed.blocks:
        lo, hi = block.reply_lines
        if hi < first or lo > last:
            continue
        where = block.path or "the file it names"
        if block.move_to:
            where = f"{where} → {block.move_to}"
        title = f"Apply LLM patch block {block.index} ({where}, reply lines {lo}-{hi})"
        target = {"uri": uri, "version": doc.version, "block": block.index}
        out.append(
            types.CodeAction(
                title=title,
                kind=KIND_APPLY,
                command=types.Command(
                    title=title, command=commands.APPLY_BLOCK, arguments=[target]
                ),
            )
        )
    return out


async def code_action_resolve(ls: LlmPatchServer, action: types.CodeAction) -> types.CodeAction:
    data = action.data if isinstance(action.data, dict) else None
    if data is None or data.get("fix") != "correct" or action.edit is not None:
        return action
    uri = data.get("uri")
    if isinstance(uri, str) and ls.current_analysis(uri) is None:
        await ensure_analysis(ls, uri)
    action.edit = correction_edit(ls, data)
    return action


# --- applying the selection -----------------------------------------------------------------


def _apply_actions(
    ls: LlmPatchServer, target: dict[str, Any], parsed: ParsedReply, plan: Plan | None
) -> list[types.CodeAction]:
    n = len(parsed.blocks)
    # a move is one file (its path), as in the label of the edit the apply sends
    files = len({b.path for b in parsed.blocks if b.path}) or 1
    title = f"Apply LLM patch ({edits_in_files(n, files)})"
    out = [
        types.CodeAction(
            title=title,
            kind=KIND_APPLY,
            is_preferred=True,
            command=types.Command(title=title, command=commands.APPLY, arguments=[target]),
        )
    ]
    if ls.edit_capabilities().change_annotations:
        out.append(
            types.CodeAction(
                title=f"Preview LLM patch ({plural(n, 'edit')})",
                kind=KIND_APPLY,
                command=types.Command(
                    title="Preview LLM patch",
                    command=commands.APPLY,
                    arguments=[target, {"preview": True}],
                ),
            )
        )
    if plan is not None:
        placed = sum(1 for o in plan.outcomes if o.placed)
        if 0 < placed < len(plan.outcomes):
            partial = f"Apply {placed} of {len(plan.outcomes)} edits (skip the failing ones)"
            out.append(
                types.CodeAction(
                    title=partial,
                    kind=KIND_APPLY,
                    command=types.Command(
                        title=partial,
                        command=commands.APPLY,
                        arguments=[target, {"partial": True}],
                    ),
                )
            )
    return out


async def known_plan(
    ls: LlmPatchServer, source: ReplySource, parsed: ParsedReply, context: types.CodeActionContext
) -> Plan | None:
    """The plan for a code-action request, without planning on every cursor move.

    A whole reply document has one from its (debounced) diagnostics. A selection is only
    planned when the user explicitly asked for actions (trigger kind Invoked, which Neovim
    always sends) and it is not huge; automatic requests (VS Code's light bulb) reuse a
    cached plan or go without the partial action. A plan made here is kept for the apply
    that usually follows (see `apply.reusable_analysis`).
    """
    if source.whole_document and source.uri is not None:
        known = ls.current_analysis(source.uri)
        if known is not None:
            return known.plan
    key = ls.plan_key(source)
    hit = ls.plans.get(key)
    if hit is not None:
        return hit.plan
    automatic = context.trigger_kind == types.CodeActionTriggerKind.Automatic
    if automatic or len(source.text) > PLAN_ON_REQUEST_BYTES:
        return None
    try:
        analysis = await ls.analyse(source, parsed=parsed)
    except Cancelled:
        return None
    ls.plans.put(key, analysis)
    return analysis.plan


# --- quick fixes ----------------------------------------------------------------------------


def quick_fixes(
    ls: LlmPatchServer, uri: str, doc: TextDocument, diagnostics: Iterable[types.Diagnostic]
) -> list[types.CodeAction]:
    """Fixes for our failure diagnostics: open the closest match, apply it (confirming),
    or rewrite the block so it anchors on what the file really says."""
    out: list[types.CodeAction] = []
    analysis = ls.current_analysis(uri)
    for diag in diagnostics:
        if diag.source != SOURCE or not isinstance(diag.data, dict):
            continue
        index = diag.data.get("block")
        closest = diag.data.get("closest")
        if not isinstance(index, int):
            continue
        if not ls.settings.restricted:
            out.extend(_reading_actions(uri, doc, diag))
        if diag.related_information:
            out.append(_open_closest(ls, diag))
        retarget = _retarget(uri, doc, diag)
        if retarget is not None:
            out.append(retarget)
        if not isinstance(closest, dict):
            continue
        threshold = diag.data.get("fuzzyThreshold")
        if not ls.settings.restricted and isinstance(threshold, int | float):
            title = (
                f"Apply block {index} at line {closest.get('line')} "
                f"({percent(closest.get('similarity'))} similar, confirm first)"
            )
            out.append(
                types.CodeAction(
                    title=title,
                    kind=types.CodeActionKind.QuickFix,
                    diagnostics=[diag],
                    command=types.Command(
                        title=title,
                        command=commands.APPLY_BLOCK,
                        arguments=[
                            {"uri": uri, "version": doc.version, "block": index},
                            {"fuzzyThreshold": threshold, "preview": True},
                        ],
                    ),
                )
            )
        outcome = None
        if analysis is not None:
            outcome = next((o for o in analysis.plan.outcomes if o.block.index == index), None)
        if outcome is None or outcome.failure is None:
            continue
        if _corrected(outcome) is None:
            continue
        why = evident_target(outcome.block, outcome.failure.details)
        if why is None:
            continue  # the closest text may be another place altogether: not offered
        lines = _closest_lines(outcome.failure.details)
        data = {"fix": "correct", "uri": uri, "version": doc.version, "block": index}
        action = types.CodeAction(
            title=f"Rewrite block {index} to replace {outcome.block.path} {lines} ({why})",
            kind=types.CodeActionKind.QuickFix,
            diagnostics=[diag],
            data=data,
        )
        resolvable = ls.client_capability("text_document.code_action.resolve_support")
        if resolvable is None or "edit" not in (resolvable.properties or []):
            action.edit = correction_edit(ls, data)
            if action.edit is None:
                continue
        out.append(action)
    return out


def _reading_actions(uri: str, doc: TextDocument, diag: types.Diagnostic) -> list[types.CodeAction]:
    """One action per reading a block the evidence left open allows, each applying the
    block read that way, with its preview (resolve.merge.readings)."""
    from lsp_server.resolve.merge.readings import reading_commands

    return [
        types.CodeAction(
            title=title,
            kind=types.CodeActionKind.QuickFix,
            diagnostics=[diag],
            command=types.Command(title=title, command=commands.APPLY_BLOCK, arguments=args),
        )
        for title, args in reading_commands(diag.data, uri, doc.version)
    ]


def _retarget(uri: str, doc: TextDocument, diag: types.Diagnostic) -> types.CodeAction | None:
    """For a whole-file block that named a path where the workspace has the file it meant
    (`didYouMean`): the edit of the reply that names that file instead, on the block's
    lines and the line above them (where a path usually stands)."""
    data = diag.data
    wrong, right = data.get("path"), data.get("didYouMean")
    if not isinstance(wrong, str) or not isinstance(right, str) or not wrong:
        return None
    lines = doc.lines
    edits: list[types.TextEdit] = []
    for row in range(max(0, diag.range.start.line - 1), min(diag.range.end.line + 1, len(lines))):
        line = lines[row]
        col = line.find(wrong)
        while col >= 0:
            start = doc.position_codec.client_num_units(line[:col])
            end = doc.position_codec.client_num_units(line[: col + len(wrong)])
            rng = types.Range(types.Position(row, start), types.Position(row, end))
            edits.append(types.TextEdit(range=rng, new_text=right))
            col = line.find(wrong, col + len(wrong))
    if not edits:
        return None
    document = types.OptionalVersionedTextDocumentIdentifier(uri=uri, version=doc.version)
    title = f"Retarget block {data.get('block')} to {right}"
    return types.CodeAction(
        title=title,
        kind=types.CodeActionKind.QuickFix,
        diagnostics=[diag],
        edit=types.WorkspaceEdit(
            document_changes=[types.TextDocumentEdit(text_document=document, edits=edits)]
        ),
    )


def _open_closest(ls: LlmPatchServer, diag: types.Diagnostic) -> types.CodeAction:
    related = diag.related_information[0]
    where = {"uri": related.location.uri, "range": ls.converter.unstructure(related.location.range)}
    return types.CodeAction(
        title=f"Open the closest match ({related.message})",
        kind=types.CodeActionKind.QuickFix,
        diagnostics=[diag],
        command=types.Command(
            title="Open the closest match", command=commands.SHOW_LOCATION, arguments=[where]
        ),
    )


def correction_edit(ls: LlmPatchServer, data: dict[str, Any]) -> types.WorkspaceEdit | None:
    """The edit that replaces a failed block in its reply document with `corrected_block`,
    if the document is still the text the diagnostic was made on."""
    uri = data.get("uri")
    if not isinstance(uri, str):
        return None
    analysis = ls.current_analysis(uri)
    doc = ls.open_document(uri)
    if analysis is None or doc is None or doc.version != data.get("version"):
        return None
    outcome = next((o for o in analysis.plan.outcomes if o.block.index == data.get("block")), None)
    if outcome is None or outcome.failure is None:
        return None
    text = _corrected(outcome)
    if text is None:
        return None
    index = PositionIndex(doc.source, ls.encoding)
    lo, hi = outcome.block.reply_lines
    off = analysis.source.line_offset
    start = types.Position(line=off + lo - 1, character=0)
    end_line = off + hi
    if end_line < index.line_count:
        end = types.Position(line=end_line, character=0)
    else:
        end = index.position(len(doc.source))
        text = text.rstrip("\n")
    edit = types.TextEdit(range=types.Range(start=start, end=end), new_text=text)
    if ls.edit_capabilities().document_changes:
        return types.WorkspaceEdit(
            document_changes=[
                types.TextDocumentEdit(
                    text_document=types.OptionalVersionedTextDocumentIdentifier(
                        uri=uri, version=doc.version
                    ),
                    edits=[edit],
                )
            ]
        )
    return types.WorkspaceEdit(changes={uri: [edit]})


# The closest text is a failed block's evident target, worth rewriting the block onto, when
# it is at least this alike (below it, nearby code that merely looks similar, e.g. another
# function's body, comes up too), and always when both define the same name.
EVIDENT_SIMILARITY = 0.75
_DEFINITION = re.compile(
    r"^[ \t]*(?:export[ \t]+|pub(?:\([^)]*\))?[ \t]+|async[ \t]+|static[ \t]+)*"
    r"(def|class|function|fn|func|interface|struct|enum|trait|impl|module|type)[ \t]+"
    r"([A-Za-z_$][\w$]*)",
    re.MULTILINE,
)


def _definitions(text: str) -> list[str]:
    return [f"{kind} {name}" for kind, name in _DEFINITION.findall(text)]


def evident_target(block: EditBlock, details: dict[str, Any]) -> str | None:
    """Why a failed block's closest text is evidently the text it meant (said in the quick
    fix's title), or None when it may be another place: a block that defines `checkout`
    must never be re-anchored on `add` because their bodies look alike.

    Both quote a definition: the same first name, whatever the similarity (and never
    another name). Otherwise: only whitespace differs, or they are EVIDENT_SIMILARITY alike."""
    closest = details.get("closest")
    if not isinstance(closest, dict) or len(block.hunks) != 1:
        return None
    text = closest.get("text")
    similarity = closest.get("similarity")
    if not isinstance(text, str) or not isinstance(similarity, int | float):
        return None
    if closest.get("whitespace_only"):
        return "differs only in whitespace"
    mine, theirs = _definitions(block.hunks[0].old), _definitions(text)
    if mine and theirs:
        if mine[0] != theirs[0]:
            return None
        return f"the same {mine[0]}, {percent(similarity)} similar"
    if mine or theirs or similarity < EVIDENT_SIMILARITY:
        return None  # one defines a name the other does not quote
    return f"{percent(similarity)} similar"


def _closest_lines(details: dict[str, Any]) -> str:
    closest = details.get("closest") or {}
    first, last = closest.get("line"), closest.get("end_line") or closest.get("line")
    return f"line {first}" if first == last else f"lines {first}-{last}"


def _corrected(outcome: BlockOutcome) -> str | None:
    # the reply package (all its parsers) loads with the engine, after the `initialize`
    # answer, not with the server: see analysis.place
    from lsp_server.reply.emit import corrected_block

    return corrected_block(outcome.block, outcome.failure)
