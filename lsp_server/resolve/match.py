"""What the matching ladder is told (`Hints`) and what it finds (`Match`).

The records live apart from the ladder so that the code handling a block (`hunks`) can
name them without loading the ladder: a block whose old text sits in the file once,
exactly, is placed by `hunks.apply_single_exact` alone, and most runs never climb a rung.
"""

from __future__ import annotations

from typing import NamedTuple

from lsp_server.model import MatchKind
from lsp_server.resolve.indent import IndentShift


class Match(NamedTuple):
    """A located span [start, end) of file lines and how to shape the replacement."""

    start: int
    end: int
    kind: MatchKind
    score: float = 1.0
    shift: IndentShift | None = None  # the indent rung's shift (uniform, see indent.py)
    # for elision: file line spans standing in for each `...` of the old text, in order
    elided: tuple[tuple[int, int], ...] = ()
    # the file line each old line stands for (None: the file has no such line there; an
    # elision line stands for a span of `elided`); empty when old line i is line start + i
    rows: tuple[int | None, ...] = ()

    def file_rows(self, n: int) -> tuple[int | None, ...]:
        """`rows` for a block of `n` old lines, spelled out when the match is positional."""
        return self.rows or tuple(range(self.start, self.start + n))


class Hints(NamedTuple):
    """What may break a tie between equally good places (never decides alone)."""

    line: int | None = None  # 0-based line where the old text is expected
    anchors: tuple[str, ...] = ()
    at_eof: bool = False
    start_at: int = 0  # ordered hunks: never match before this line


NO_HINTS = Hints()
