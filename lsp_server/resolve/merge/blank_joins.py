"""The lazy merge's output: kept runs of the file and the snippet's segments, put end to
end, with the blank-line runs at each join settled (step 5 of `lazy`).

A kept run is handed over as a range of the file's lines and leaves as one slice of its
text: the lines the merge never looked at are never made into strings one by one.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from lsp_server.resolve.merge.offset_lines import OffsetLines


class Piece(NamedTuple):
    """Lines `lo` to `hi - 1` of `lines`, a run of output: kept from the file (kind K) or a
    snippet segment (C); for a segment, whether its first / last code line restates a file
    line (rather than being new)."""

    kind: str
    lines: Sequence[str]
    lo: int
    hi: int
    head_restated: bool = False
    tail_restated: bool = False

    def code(self) -> tuple[int, int] | None:
        """The first and last line that is not blank, or None when every line is."""
        lines = self.lines
        first = next((i for i in range(self.lo, self.hi) if lines[i].strip()), None)
        if first is None:
            return None
        last = next(i for i in range(self.hi - 1, first - 1, -1) if lines[i].strip())
        return first, last

    def text(self, lo: int, hi: int) -> str:
        """Lines `lo` to `hi - 1` joined by "\\n"."""
        if isinstance(self.lines, OffsetLines):
            return self.lines.chars(lo, hi)
        return "\n".join(self.lines[lo:hi])


def assemble(pieces: list[Piece]) -> list[str]:
    """Concatenate kept (K) and snippet (C) pieces, settling blank-line runs at each join.
    The result is runs of lines, each run its lines joined by "\\n"."""
    out: list[str] = []
    prev: Piece | None = None
    prev_trail: list[str] = []
    soft: list[list[str]] = []  # kept regions since the last piece with code: blank only
    for piece in pieces:
        code = piece.code()
        if code is None:
            if piece.kind == "K":
                soft.append(list(piece.lines[piece.lo : piece.hi]))
            continue
        first, last = code
        out.extend(_join_blanks(prev, prev_trail, soft, piece, list(piece.lines[piece.lo : first])))
        out.append(piece.text(first, last + 1))
        prev, prev_trail, soft = piece, list(piece.lines[last + 1 : piece.hi]), []
    out.extend(_join_blanks(prev, prev_trail, soft, None, []))
    return out


def _join_blanks(
    prev: Piece | None, a: list[str], soft: list[list[str]], nxt: Piece | None, b: list[str]
) -> list[str]:
    """The blank lines between two pieces with code (None: the start or end of the file).

    A kept region next to a segment: where the segment's edge line restates a file line,
    the file's own blank run stands; where it is new code, the longer run wins (the file
    and the snippet both put a blank line between two methods: keep one, not two). Two
    segments whose placeholder kept only blank lines: the shorter side wins, but never
    fewer blank lines than the file had there; at the start or end of the file such a
    placeholder keeps only what the file had.
    """
    kept = max(soft, key=len, default=[])
    if prev is None or nxt is None:
        if soft:
            return kept
        return b if prev is None else a
    if prev.kind == "C" and nxt.kind == "C":
        short = a if len(a) <= len(b) else b
        return kept if len(kept) >= len(short) else short
    if prev.kind == "K" and nxt.head_restated:
        return a
    if nxt.kind == "K" and prev.tail_restated:
        return b
    return a if len(a) >= len(b) else b
