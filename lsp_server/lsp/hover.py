"""Hover on a block of a reply document: where it lands, and the change it alone makes.

The diff shown is the block's own: its file after the blocks before it, against the same
file after this block as well. It comes from the reply's analysis where that already holds
it (a file's last block: the analysis's final text; a file's first block: the file as
read), and from planning the earlier blocks again otherwise.
"""

from __future__ import annotations

import dataclasses
from urllib.parse import unquote

from lsprotocol import types

from lsp_server.edits import PositionIndex
from lsp_server.lsp.analysis import LRU, Analysis, block_paths
from lsp_server.lsp.diagnostics import block_range, ensure_analysis
from lsp_server.lsp.lenses import lens_title
from lsp_server.lsp.session import LlmPatchServer
from lsp_server.model import Action, BlockOutcome, ParsedReply
from lsp_server.report import file_diff

# Hover texts by (reply URI, its version, block, markdown?). One server runs per process,
# so the cache is the process's.
_texts: LRU[tuple, str] = LRU(64)


async def hover(ls: LlmPatchServer, params: types.HoverParams) -> types.Hover | None:
    uri = params.text_document.uri
    if not ls.is_reply_document(uri) and unquote(uri) not in ls.analyses:
        return None
    analysis = await ensure_analysis(ls, uri)
    if analysis is None:
        return None
    line = params.position.line - analysis.source.line_offset + 1
    outcome = next(
        (
            o
            for o in analysis.plan.outcomes
            if o.block.reply_lines[0] <= line <= o.block.reply_lines[1]
        ),
        None,
    )
    if outcome is None:
        return None
    formats = ls.client_capability("text_document.hover.content_format") or ["markdown"]
    markdown = "markdown" in [str(getattr(f, "value", f)) for f in formats]
    text = await hover_text(ls, analysis, outcome, markdown)
    doc = ls.open_document(uri)
    index = PositionIndex(doc.source if doc is not None else "", ls.encoding)
    return types.Hover(
        contents=types.MarkupContent(
            kind=types.MarkupKind.Markdown if markdown else types.MarkupKind.PlainText,
            value=text,
        ),
        range=block_range(analysis, outcome.block, index),
    )


async def hover_text(
    ls: LlmPatchServer, analysis: Analysis, outcome: BlockOutcome, markdown: bool
) -> str:
    """The block's heading, and its own diff (or why it failed, with the closest match)."""
    block = outcome.block
    key = (analysis.source.uri, analysis.source.version, block.index, markdown)
    cached = _texts.get(key)
    if cached is not None:
        return cached
    head = f"Block {block.index} · {block.format.value} · {block.path or '?'}"
    if block.move_to:
        head += f" → {block.move_to}"
    if outcome.failure is not None:
        body = f"{outcome.failure.code}: {outcome.failure.message}"
        closest = outcome.failure.details.get("closest")
        diff = closest.get("diff") if isinstance(closest, dict) else None
        text = (
            f"**{head}** — ✗\n\n{body}" + (f"\n\n```diff\n{diff}\n```" if diff else "")
            if markdown
            else f"{head} — ✗\n\n{body}"
        )
    else:
        how = lens_title(outcome)
        diff = await _own_diff(ls, analysis, outcome) or "(no change: already applied)"
        text = (
            f"**{head}** — {how}\n\n```diff\n{diff}```" if markdown else f"{head} — {how}\n\n{diff}"
        )
    _texts.put(key, text)
    return text


async def _own_diff(ls: LlmPatchServer, analysis: Analysis, outcome: BlockOutcome) -> str:
    """The diff of the files a placed block names, from before it to after it."""
    block = outcome.block
    paths = block_paths(block)
    blocks = analysis.parsed.blocks
    earlier = tuple(b for b in blocks if b.index < block.index and block_paths(b) & paths)
    # A block changes the files it names, and a structure move also its destination. With
    # no later block naming these files and no move elsewhere that could reach them, the
    # analysis's final text of them is the text right after this block.
    later = any(b.index > block.index and block_paths(b) & paths for b in blocks)
    structural_elsewhere = any(
        b.action is Action.STRUCTURAL and not block_paths(b) & paths
        for b in blocks
        if b.index != block.index
    )
    after = analysis.plan
    if later or structural_elsewhere:
        again = ParsedReply((*earlier, block))
        after = (await ls.analyse(analysis.source, parsed=again, related=False)).plan
    before = None
    if earlier:
        prior = ParsedReply(earlier)
        before = (await ls.analyse(analysis.source, parsed=prior, related=False)).plan
    diffs = []
    for change in after.files:
        if not ({change.path, change.new_path} & paths):
            continue
        if before is not None:
            prior_change = next((c for c in before.files if c.path == change.path), None)
            if prior_change is not None:
                change = dataclasses.replace(change, old_text=prior_change.new_text)
        diffs.append(await ls.run_work(file_diff, change))
    return "".join(diffs)
