"""An "already applied" verdict holds in what is written.

A block is found already applied on the evidence that its new text stands in the file
(`resolve/applied.py`). A later block of the same reply may rewrite those very lines — a
reply restating an insertion an earlier turn made, then moving it into a `try:` — and the
file written would no longer hold what the verdict rested on. That is two readings with
different files: applied before, the later block then changing it; or to be applied again,
the later block changing one of the two copies (what applying the blocks one by one as
plain text does). The block is refused naming both, and the later blocks that rewrote its
text: `--only` with those applies the first reading.
"""

from __future__ import annotations

from typing import NamedTuple

from lsp_server.lines import to_lf
from lsp_server.model import EditBlock, ErrorCode, Failure
from lsp_server.plan_state import PlanState


class Verdict(NamedTuple):
    """What an already-applied block's verdict rested on: the texts that stood in its file."""

    at: int  # the block's outcome, by position
    block: int  # the block's index
    key: str  # its file
    texts: tuple[str, ...]  # its new texts, as they stood in the file then


def evidence(state: PlanState, block: EditBlock, at: int) -> Verdict | None:
    """The new texts of a block just found already applied that stand in its file as
    written (blank ones prove nothing); None when there are none, or no file holds it."""
    for key, f in state.files.items():
        if block.index in f.blocks and f.text is not None:
            now = to_lf(f.text)
            texts = tuple(h.new for h in block.hunks if h.new.strip() and h.new in now)
            return Verdict(at, block.index, key, texts) if texts else None
    return None


def contradicted(
    state: PlanState, blocks: dict[int, EditBlock], verdicts: list[Verdict]
) -> dict[int, Failure]:
    """The refusal (TEXT_AMBIGUOUS, naming the readings and the later blocks) of each
    already-applied block whose evidence a later block of the reply rewrote, by outcome
    position. `blocks`: the reply's blocks by index."""
    out: dict[int, Failure] = {}
    for v in verdicts:
        f = state.files.get(v.key)
        final = to_lf(f.text) if f is not None and f.text is not None else ""
        if all(t in final for t in v.texts):
            continue
        later = [blocks[i] for i in (f.blocks if f is not None else []) if i > v.block]
        where = ", ".join(f"reply lines {b.reply_lines[0]}-{b.reply_lines[1]}" for b in later)
        out[v.at] = Failure(
            ErrorCode.TEXT_AMBIGUOUS,
            f"its new text stands in {v.key} already, but a later block of the reply "
            f"({where or 'a later block'}) rewrites those lines: it was applied before and "
            "the later block changes it, or it is to be applied again and the later block "
            "changes one of the two copies, and the files differ — apply the later block "
            "alone (`--only`) for the first reading",
            {
                "readings": ["already applied", "apply again"],
                "rewritten_by": [b.index for b in later],
            },
        )
    return out
