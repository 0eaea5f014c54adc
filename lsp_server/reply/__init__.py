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

from lsp_server.model import EditBlock, ErrorCode, Failure, ParsedReply, PlacementError
from lsp_server.reply import (
    apply_patch,
    edit_protocol,
    search_replace,
    snippets,
    structural,
    tool_calls,
    unified_diff,
    whole_file,
)

# A reply over this is refused as a whole (CONTENT_TOO_LARGE) before any parsing. A long model
# reply (~60k tokens) is about 240 KB, so the limit leaves room for prose and pasted output
# while bounding what one parse may cost.
MAX_REPLY_BYTES = 1_000_000

Finder = Callable[[list[str]], list[EditBlock]]

FINDERS: tuple[Finder, ...] = (
    apply_patch.find_blocks,
    search_replace.find_blocks,
    edit_protocol.find_blocks,
    tool_calls.find_blocks,
    structural.find_blocks,
    unified_diff.find_blocks,
    whole_file.find_blocks,
    snippets.find_blocks,
)


# longest first: a UTF-32-LE mark begins with the UTF-16-LE one
_WIDE_BOMS = (
    (b"\xff\xfe\x00\x00", "UTF-32-LE"),
    (b"\x00\x00\xfe\xff", "UTF-32-BE"),
    (b"\xff\xfe", "UTF-16-LE"),
    (b"\xfe\xff", "UTF-16-BE"),
)


def decode_reply(data: bytes, name: str) -> str:
    """A reply's bytes as text: UTF-8, strictly. Anything else raises PlacementError
    (BINARY_FILE) rather than being read with replacement characters, which would place and
    write U+FFFD where the reply had other bytes. `name` is the file (or "stdin") to name."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as err:
        details: dict[str, object] = {"path": name, "offset": err.start}
        why = f"invalid byte at offset {err.start}"
        for bom, encoding in _WIDE_BOMS:
            if data.startswith(bom):
                why = f"it starts with a {encoding} byte-order mark"
                details["encoding"] = encoding.lower()
                break
        raise PlacementError.of(
            ErrorCode.BINARY_FILE,
            f"{name} is not UTF-8 text ({why}); llm-patch reads replies as UTF-8: "
            "convert it to UTF-8 first",
            **details,
        ) from None


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
    found.extend(whole_file.stray_markers(lines, found))
    found.sort(key=lambda b: b.reply_lines)
    blocks = tuple(dataclasses.replace(b, index=i) for i, b in enumerate(found))
    if not blocks:
        return ParsedReply(
            (),
            Failure(
                ErrorCode.NO_EDIT_BLOCKS,
                "no edit blocks found in the reply (looked for SEARCH/REPLACE, EDIT, unified "
                "diff, *** Begin Patch, TARGET_NODE, fenced whole-file and JSON tool-call blocks, "
                "and fenced code snippets of whole definitions)",
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
