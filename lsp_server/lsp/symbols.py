"""The outline of a reply document (`textDocument/documentSymbol`): one entry per block.

Editors ask for a document's symbols for their outline panes, and some ask whatever the
server advertises: Kate's symbol view requests them for every document its server has, and
took "method not found" for a failure it retried four times on each change. A reply's
outline lists its blocks in reply order — where each lands or why it cannot, the same words
as the block's code lens — so a long reply can be walked block by block, also in editors
without code lenses (Kate). Any other document has no symbols here: an empty list.
"""

from __future__ import annotations

from lsprotocol import types

from lsp_server.edits import PositionIndex
from lsp_server.lsp.diagnostics import block_range, ensure_analysis
from lsp_server.lsp.lenses import lens_title
from lsp_server.lsp.session import LlmPatchServer
from lsp_server.model import BlockOutcome

OPTIONS = types.DocumentSymbolOptions(label="LLM patch blocks")

Symbols = list[types.DocumentSymbol] | list[types.SymbolInformation]


async def document_symbol(ls: LlmPatchServer, params: types.DocumentSymbolParams) -> Symbols:
    uri = params.text_document.uri
    if not ls.is_reply_document(uri):
        return []
    analysis = await ensure_analysis(ls, uri)
    if analysis is None:
        return []
    index = PositionIndex(analysis.source.text, ls.encoding)
    nested = ls.client_capability(
        "text_document.document_symbol.hierarchical_document_symbol_support"
    )
    out: list = []
    for outcome in analysis.plan.outcomes:
        rng = block_range(analysis, outcome.block, index)
        name = symbol_name(outcome)
        detail = f"block {outcome.block.index + 1}, {outcome.block.format.value}"
        if nested:
            first = index.line_range(rng.start.line, rng.start.line)
            out.append(
                types.DocumentSymbol(
                    name=name,
                    detail=detail,
                    kind=types.SymbolKind.File,
                    range=rng,
                    selection_range=first,
                )
            )
        else:  # a client that reads only the flat form (SymbolInformation)
            out.append(
                types.SymbolInformation(
                    name=name,
                    kind=types.SymbolKind.File,
                    location=types.Location(uri=uri, range=rng),
                    container_name=detail,
                )
            )
    return out


def symbol_name(outcome: BlockOutcome) -> str:
    """The block's lens title, with the file named for a failed block too:
    "✓ app.py:5 (exact)", "✗ app.py: TEXT_NOT_FOUND"."""
    title = lens_title(outcome)
    if outcome.failure is None:
        return title
    block = outcome.block
    where = block.path or "(no path)"
    if block.move_to:
        where = f"{where} → {block.move_to}"
    return f"✗ {where}: {outcome.failure.code}"
