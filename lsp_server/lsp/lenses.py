"""Code lenses on a reply document: above each block, where it lands (or why it cannot).

Clicking a placed block's lens applies that block alone (`llmPatch.applyBlock`).
"""

from __future__ import annotations

from lsprotocol import types

from lsp_server.edits import PositionIndex
from lsp_server.lsp import commands
from lsp_server.lsp.diagnostics import ensure_analysis
from lsp_server.lsp.session import LlmPatchServer
from lsp_server.model import BlockOutcome, MatchKind
from lsp_server.report import percent

OPTIONS = types.CodeLensOptions(resolve_provider=False)


async def code_lens(
    ls: LlmPatchServer, params: types.CodeLensParams
) -> list[types.CodeLens] | None:
    uri = params.text_document.uri
    if not ls.settings.code_lens or not ls.is_reply_document(uri):
        return None
    analysis = await ensure_analysis(ls, uri)
    if analysis is None:
        return None
    index = PositionIndex(analysis.source.text, ls.encoding)
    lenses = []
    for outcome in analysis.plan.outcomes:
        line = analysis.source.line_offset + outcome.block.reply_lines[0] - 1
        pos = types.Position(line=max(0, min(line, index.line_count - 1)), character=0)
        target = {"uri": uri, "version": analysis.source.version, "block": outcome.block.index}
        lenses.append(
            types.CodeLens(
                range=types.Range(start=pos, end=pos),
                command=types.Command(
                    title=lens_title(outcome), command=commands.APPLY_BLOCK, arguments=[target]
                ),
            )
        )
    return lenses


def lens_title(outcome: BlockOutcome) -> str:
    """ "✓ path:line (how it matched)" for a placed block, "✗ CODE" for a failed one."""
    block = outcome.block
    if outcome.failure is not None:
        return f"✗ {outcome.failure.code}"
    where = block.path or "?"
    if block.move_to:
        where = f"{where} → {block.move_to}"
    elif outcome.placements and outcome.match not in (MatchKind.CREATE, MatchKind.DELETE):
        where = f"{where}:{outcome.placements[0].start_line + 1}"
    how = outcome.match.value if outcome.match else "placed"
    if outcome.match is MatchKind.FUZZY and outcome.score is not None:
        how = f"fuzzy {percent(outcome.score)}"
    if outcome.already_applied:
        how = "already applied"
    return f"✓ {where} ({how})"
