"""Where a new definition goes, by the neighbours a snippet shows it between.

A definition the file lacks goes next to its nearest neighbour in the snippet that the file
has (`snippet`). Shown between two the file has, it goes between them only when the file
has them side by side: when other definitions lie between them in the file, after the one
and before the other are different files. A placeholder on one side says the file's own
definitions stay there, and the new one goes by the other; with none, or one on each side,
the snippet is refused (TARGET_AMBIGUOUS) naming both neighbours. Pure.
"""

from __future__ import annotations

from collections.abc import Collection

from lsp_server.model import ErrorCode, PlacementError
from lsp_server.resolve import outline
from lsp_server.resolve.outcome import refused
from lsp_server.resolve.outline import Item
from lsp_server.resolve.syntax import Parsed


def adjacent(p: Parsed, a: Item, b: Item) -> bool:
    """Is `b` the file's next definition after `a`, in the same scope?"""
    pa, pb = a.parent, b.parent
    if (pa is None) != (pb is None) or (pa and pb and pa.node.start_byte != pb.node.start_byte):
        return False
    pool = (
        outline.kids(p, pa) if pa is not None else [i for i in outline.index(p) if i.parent is None]
    )
    starts = [i.node.start_byte for i in pool]
    if a.node.start_byte not in starts or b.node.start_byte not in starts:
        return False
    return starts.index(b.node.start_byte) == starts.index(a.node.start_byte) + 1


def elided_between(placeholders: Collection[int], a: Item, b: Item) -> bool:
    """Does a placeholder row of the snippet stand between its definitions `a` and `b`
    (after `a` ends, before `b`'s own first line)?"""
    end, start = a.node.end_point.row, b.node.start_point.row
    return any(end < r < start for r in placeholders)


def apart(path: str, item: Item, before: Item, after: Item) -> PlacementError:
    """The refusal of a new definition shown between two the file keeps apart."""
    return refused(
        ErrorCode.TARGET_AMBIGUOUS,
        f"the snippet's {item.kind} `{item.name}` is new to {path}, and the snippet shows it "
        f"between `{before.name}` (line {before.node.start_point.row + 1}) and `{after.name}` "
        f"(line {after.node.start_point.row + 1}), which the file keeps apart: after the one "
        "or before the other give different files. Show it with one of them only, or mark "
        "the file's definitions between them with a `... existing code ...` line",
        name=item.name,
        candidates=[before.name, after.name],
    )
