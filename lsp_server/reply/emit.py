"""A block written back as reply syntax: what the editor puts in the reply to repair it.

The only writer today is `corrected_block`, used by the quick fix "rewrite block N to anchor
on the closest match": a failed block becomes a well-formed SEARCH/REPLACE block whose
SEARCH section is the text the file really holds.
"""

from __future__ import annotations

from lsp_server.model import Action, EditBlock, Failure, HunkKind

# A failure quotes at most this many lines of the closest region (see the resolver's
# `closest` detail): a longer region cannot be written back whole.
CLOSEST_TEXT_LINES = 40


def corrected_block(block: EditBlock, failure: Failure) -> str | None:
    """The failed block rewritten as a SEARCH/REPLACE block anchored on the closest region
    of its file, or None when that cannot be done faithfully (no closest text, several
    hunks, not a plain replacement, or a region longer than the failure quotes)."""
    closest = failure.details.get("closest")
    if not isinstance(closest, dict) or not isinstance(closest.get("text"), str):
        return None
    if not block.path or len(block.hunks) != 1 or block.action is not Action.MODIFY:
        return None
    hunk = block.hunks[0]
    if hunk.kind is not HunkKind.REPLACE:
        return None
    first, last = closest.get("line"), closest.get("end_line")
    if isinstance(first, int) and isinstance(last, int) and last - first + 1 > CLOSEST_TEXT_LINES:
        return None
    search = closest["text"]
    replace = hunk.new[:-1] if hunk.new.endswith("\n") else hunk.new
    fence = "````" if "```" in search + replace else "```"
    return (
        f"{block.path}\n{fence}\n<<<<<<< SEARCH\n{search}\n=======\n{replace}\n"
        f">>>>>>> REPLACE\n{fence}\n"
    )
