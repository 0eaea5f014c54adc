"""A block the reply shows whole ends up as the reply shows it.

A merge around placeholders keeps the file's lines wherever the reply marks code as left
out, and only there. A block the reply restates from its header to its end — the header
is in the reply, no placeholder lies inside the block, and a line of the reply at the
header's indentation or less closes it — says what the whole block holds: a file line
left in that block beside the reply's lines was kept on no evidence. That happens when the
alignment cannot pair a changed line (`if not column_data.isna().all():` rewritten as
`if has_values:` above the same `columns_to_keep.append(i)`) and the kept region after the
block's last paired line takes the file's old statements along: the old check and the new
one both end up in the loop, exit 0.

`check` compares, for every such block whose header occurs once in the reply and is a line
of the file, the block's lines in the result (the one block there with that header whose
first line is the reply's block's first line) with the reply's (stripped of indentation,
blank lines aside). A difference is refused: the reply may mean the file's
remaining lines go, or that they stay, and it does not say which. Pure; texts use "\\n".
"""

from __future__ import annotations

from collections import Counter

from lsp_server.model import ErrorCode
from lsp_server.resolve.indent import indent_of
from lsp_server.resolve.outcome import refused
from lsp_server.resolve.placeholders import is_placeholder_line


def _body(lines: list[str], header: int) -> tuple[list[str], int] | None:
    """The stripped, non-blank lines of the block `lines[header]` opens, and the row that
    closes it; None when nothing is indented under it or nothing closes it."""
    depth = len(indent_of(lines[header]))
    body: list[str] = []
    for row in range(header + 1, len(lines)):
        line = lines[row]
        if not line.strip():
            continue
        if len(indent_of(line)) <= depth:
            return (body, row) if body else None
        body.append(line.strip())
    return None


def check(old: str, reply: str, result: str, path: str = "") -> None:
    """Refuse (TEXT_AMBIGUOUS) a merge `result` of the block `reply` into `old` that keeps
    a file line inside a block the reply shows whole."""
    mine = reply.split("\n")
    theirs = result.split("\n")
    once_mine = Counter(ln.strip() for ln in mine if ln.strip())
    in_old = {ln.strip() for ln in old.split("\n") if ln.strip()}
    rows: dict[str, list[int]] = {}
    for k, ln in enumerate(theirs):
        rows.setdefault(ln.strip(), []).append(k)
    for row, line in enumerate(mine):
        head = line.strip()
        if not head or is_placeholder_line(line, path) or once_mine[head] != 1:
            continue
        if head not in in_old:
            continue  # a new block: nothing of the file's can be kept in it
        shown = _body(mine, row)
        if shown is None:
            continue
        body, closer = shown
        if any(is_placeholder_line(ln, path) for ln in mine[row + 1 : closer]):
            continue  # the block leaves code out itself: the merge keeps it
        # the result's block with this header that begins as the reply's does (a header
        # such as `for x in xs:` may open several blocks of the file)
        merged = [
            b
            for k in rows.get(head, ())
            if (b := _body(theirs, k)) is not None and b[0][0] == body[0]
        ]
        if len(merged) != 1 or merged[0][0] == body:
            continue
        extra = next((ln for ln in merged[0][0] if ln not in body), merged[0][0][0])
        raise refused(
            ErrorCode.TEXT_AMBIGUOUS,
            f"the reply shows the block of `{head[:60]}` whole (the line after it, "
            f"`{mine[closer].strip()[:60]}`, closes it), but merged around its markers the "
            f"file's `{extra[:60]}` would stay in that block beside the reply's lines; the "
            "reply may mean the file's other lines there go, or stay. Quote the lines to "
            "change (SEARCH/REPLACE), or show the block with a `... existing code ...` line "
            "where the file's lines stay",
            path=path,
            block=head,
            kept=extra,
        )
