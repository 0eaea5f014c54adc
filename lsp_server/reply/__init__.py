"""Reply → blocks: find every edit block in free-form text, whatever its format.

Each format lives in its own module with a `find_blocks(lines) -> list[EditBlock]`
function. They all run over the same reply; where two claim overlapping lines the one
earlier in `FINDERS` wins (explicit markers beat a bare fenced block, which is only a
whole-file edit when nothing more specific claims it).
"""

from __future__ import annotations

import bisect
import dataclasses
from collections.abc import Callable, Iterable

from lsp_server.model import EditBlock, ErrorCode, Failure, ParsedReply
from lsp_server.reply import (
    apply_patch,
    edit_protocol,
    search_replace,
    structural,
    tool_calls,
    unified_diff,
    whole_file,
)

MAX_REPLY_BYTES = 1_000_000  # DESIGN §9 asks ~240 KB of tokens; the hard refusal is 1 MB

Finder = Callable[[list[str]], list[EditBlock]]

FINDERS: tuple[Finder, ...] = (
    apply_patch.find_blocks,
    search_replace.find_blocks,
    edit_protocol.find_blocks,
    tool_calls.find_blocks,
    structural.find_blocks,
    unified_diff.find_blocks,
    whole_file.find_blocks,
)


def parse_reply(text: str) -> ParsedReply:
    """Parse a whole reply. Never raises on any input text."""
    size = len(text.encode("utf-8", "surrogatepass"))
    if size > MAX_REPLY_BYTES:
        return ParsedReply(
            (),
            Failure(
                ErrorCode.CONTENT_TOO_LARGE,
                f"the reply is {size:,} bytes; the limit is {MAX_REPLY_BYTES:,}. "
                "Ask the model for smaller patches, one file at a time.",
                {"bytes": size, "limit": MAX_REPLY_BYTES},
            ),
        )
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    claimed: list[tuple[int, int]] = []  # disjoint spans, sorted
    starts: list[int] = []
    found: list[EditBlock] = []
    for finder in FINDERS:
        for block in finder(lines):
            lo, hi = block.reply_lines
            # the claimed span starting last at or before `hi` is the only one that can reach
            # `lo` (they are disjoint): a lookup, not a scan, so 10,000 blocks stay linear
            k = bisect.bisect_right(starts, hi)
            if k and claimed[k - 1][1] >= lo:
                continue
            found.append(block)
        # claim after each finder so one format's own blocks never shadow each other
        claimed = _union(b.reply_lines for b in found)
        starts = [lo for lo, _ in claimed]
    found.sort(key=lambda b: b.reply_lines)
    blocks = tuple(dataclasses.replace(b, index=i) for i, b in enumerate(found))
    if not blocks:
        return ParsedReply(
            (),
            Failure(
                ErrorCode.NO_EDIT_BLOCKS,
                "no edit blocks found in the reply (looked for SEARCH/REPLACE, EDIT, unified "
                "diff, *** Begin Patch, TARGET_NODE, fenced whole-file and JSON tool-call blocks)",
            ),
        )
    return ParsedReply(blocks)


def _union(spans: Iterable[tuple[int, int]]) -> list[tuple[int, int]]:
    """Inclusive line spans merged into disjoint ones, sorted by start."""
    out: list[tuple[int, int]] = []
    for lo, hi in sorted(spans):
        if out and lo <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], hi))
        else:
            out.append((lo, hi))
    return out
