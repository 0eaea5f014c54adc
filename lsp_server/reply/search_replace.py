"""SEARCH/REPLACE blocks, the edit format aider made common.

```
src/a.py
```python
<<<<<<< SEARCH
old lines
=======
new lines
>>>>>>> REPLACE
```
```

The scan follows aider's own parser where that parser has proven itself on real replies:
markers of 5-9 characters, tested on the stripped line; the path found by looking at most
three lines up (see `common.path_above`); sections taken verbatim; a second `=======` ends
the REPLACE section like `>>>>>>> REPLACE` does; a block without a path reuses the previous
one's. Where aider gives up on the whole reply at the first broken block, we report that
block as MALFORMED_BLOCK and keep going: a SEARCH marker always starts a new block, so one
missing divider cannot swallow the blocks after it. Nor do we write a new-text section holding
a line shaped like a block, conflict or divider marker (`+++++++ REPLACE`, `<<<<<<< HEAD`):
such a block is MALFORMED_BLOCK naming the line (see `added_marker`).

`scan` returns the raw result (texts, line numbers, what went wrong) so tests can render it
in other tools' terms; `find_blocks` turns it into EditBlocks.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from lsp_server.model import Action, EditBlock, ErrorCode, Failure, Format, Hunk, OnExists
from lsp_server.reply.common import (
    SECTION,
    MarkerLine,
    edit_marker,
    is_document,
    is_fence_end,
    normalise_text,
    path_above,
)

SEARCH, DIVIDER, REPLACE = "<<<<<<< SEARCH", "=======", ">>>>>>> REPLACE"


@dataclass(frozen=True)
class Syntax:
    """The three markers of a block format, tested with fullmatch on the stripped line.

    The patterns use single quantifiers only, so matching is linear. `names` are the
    canonical spellings used in messages; `divider_ends` says a second divider ends the
    new-text section (aider's rule for SEARCH/REPLACE).
    """

    start: re.Pattern[str]
    divider: re.Pattern[str]
    end: re.Pattern[str]
    names: tuple[str, str, str]
    divider_ends: bool = False

    def kind(self, line: str) -> str | None:
        """The canonical name of the marker `line` is, or None."""
        s = line.strip()
        if not s or s[0] not in "<=>":
            return None
        pattern = (self.start, self.divider, self.end)["<=>".index(s[0])]
        return self.names["<=>".index(s[0])] if pattern.fullmatch(s) else None


SEARCH_REPLACE = Syntax(
    re.compile(r"<{5,9} *SEARCH>?"),
    re.compile(r"={5,9}"),
    re.compile(r">{5,9} *REPLACE"),
    (SEARCH, DIVIDER, REPLACE),
    divider_ends=True,
)


def marker_kind(line: str) -> str | None:
    """SEARCH / DIVIDER / REPLACE when `line` is that SEARCH/REPLACE marker, else None."""
    return SEARCH_REPLACE.kind(line)


@dataclass(frozen=True)
class RawBlock:
    """One block as scanned. Indexes are 0-based into the scanned lines.

    `stop` is the line the scan stood on when the block ended: its terminator, the marker
    that broke it, or len(lines) when the text ran out. `expected` names the missing marker
    of a broken block (None when well-formed), `found` the marker met instead (None when the
    text ran out: the block is incomplete, as when a reply is still streaming).
    """

    start: int
    marker: int
    end: int
    stop: int
    path: str | None
    original: tuple[str, ...]
    updated: tuple[str, ...]
    language: str | None = None
    divider: int | None = None
    expected: str | None = None
    found: str | None = None
    next_block: bool = False  # broken by the next block's start marker, where scanning resumes

    @property
    def incomplete(self) -> bool:
        return self.expected is not None and self.found is None

    @property
    def resume(self) -> int:
        """Where scanning continues: after the terminator, or at the marker that broke us."""
        return self.stop if self.next_block else self.stop + 1


def scan_block(
    lines: list[str],
    marker: int,
    floor: int = -1,
    prev_path: str | None = None,
    syntax: Syntax = SEARCH_REPLACE,
) -> RawBlock:
    """Scan the block whose start marker is `lines[marker]`; `floor` is the last line of the
    previous block (the path is never looked for at or above it)."""
    n = len(lines)
    head = path_above(lines, marker, floor, _patterns(syntax))
    path = head.path or prev_path
    start_name, divider_name, end_name = syntax.names

    def broken(j: int, expected: str, divider: int | None) -> RawBlock:
        found = syntax.kind(lines[j]) if j < n else None
        if found == start_name:
            # the next block's header (path line, fence) is the next block's, not ours; in
            # what may be our own content only a name with a "." or "/" counts as a path
            last = divider if divider is not None else marker
            end = path_above(lines, j, last, _patterns(syntax), bare_names=False).start - 1
        elif found is not None:
            end = j
        else:
            end = n - 1
            while end > marker and not lines[end].strip():
                end -= 1
        original = tuple(lines[marker + 1 : divider if divider is not None else j])
        updated = tuple(lines[divider + 1 : j]) if divider is not None else ()
        return RawBlock(
            head.start,
            marker,
            max(end, marker),
            j,
            path,
            original,
            updated,
            head.language,
            divider,
            expected,
            found,
            next_block=found == start_name,
        )

    j = marker + 1
    while j < n and syntax.kind(lines[j]) is None:
        j += 1
    if j >= n or syntax.kind(lines[j]) != divider_name:
        return broken(j, divider_name, None)
    divider = j
    j += 1
    while j < n and syntax.kind(lines[j]) is None:
        j += 1
    kind = syntax.kind(lines[j]) if j < n else None
    if not (kind == end_name or (kind == divider_name and syntax.divider_ends)):
        return broken(j, end_name, divider)
    end = j + 1 if j + 1 < n and is_fence_end(lines[j + 1]) else j
    return RawBlock(
        head.start,
        marker,
        end,
        j,
        path,
        tuple(lines[marker + 1 : divider]),
        tuple(lines[divider + 1 : j]),
        head.language,
        divider,
    )


def _patterns(syntax: Syntax) -> tuple[re.Pattern[str], ...]:
    return (syntax.start, syntax.divider, syntax.end)


def scan(lines: list[str], syntax: Syntax = SEARCH_REPLACE) -> list[RawBlock]:
    """Every block of `syntax` in `lines`, well-formed or not, in order. Linear time: each
    line is classified at most twice and the path walk looks at most three lines up."""
    out: list[RawBlock] = []
    i, floor, prev = 0, -1, None
    n = len(lines)
    start_name = syntax.names[0]
    while i < n:
        if syntax.kind(lines[i]) != start_name:
            i += 1
            continue
        block = scan_block(lines, i, floor, prev, syntax)
        out.append(block)
        prev, floor, i = block.path or prev, block.end, block.resume
    return out


def failure(raw: RawBlock) -> Failure | None:
    """Why a scanned block cannot be used, naming the reply lines; None when it can."""
    where = f"block starting at reply line {raw.marker + 1}"
    if raw.expected is not None:
        details: dict[str, object] = {"expected": raw.expected}
        if raw.incomplete:
            details["incomplete"] = True
            return Failure(
                ErrorCode.MALFORMED_BLOCK,
                f"{where}: the reply ends before `{raw.expected}`; the block is incomplete "
                "(was the reply cut off?)",
                details,
            )
        details["line"] = raw.stop + 1
        details["found"] = raw.found
        return Failure(
            ErrorCode.MALFORMED_BLOCK,
            f"{where}: expected `{raw.expected}` before line {raw.stop + 1} (found `{raw.found}`)",
            details,
        )
    if raw.path is None:
        return Failure(
            ErrorCode.MALFORMED_BLOCK,
            f"{where}: no file path; put the path alone on the line before the opening fence",
        )
    marker = added_marker(raw)
    if marker is not None:
        divider = raw.divider if raw.divider is not None else raw.marker
        return marker.failure(divider + 2 + marker.index, "the new text")
    return None


def added_marker(raw: RawBlock) -> MarkerLine | None:
    """The first line of the new-text section shaped like an edit marker: `+++++++ REPLACE`
    or `<<<< EDIT` there is a botched block, and writing it would be a wrong write reported
    as a success. Not even a line the old text has too: when the block is placed loosely the
    file need not have it, so the new text would bring it in."""
    document = is_document(raw.path, raw.language)
    for k in range(len(raw.updated)):
        marker = edit_marker(raw.updated, k, document)
        if marker is not None and marker.kind in SECTION:
            return marker
    return None


def to_edit_block(raw: RawBlock, fmt: Format = Format.SEARCH_REPLACE) -> EditBlock:
    """The EditBlock for a scanned SEARCH/REPLACE block. A SEARCH section that is empty (or
    only blank lines, which can never anchor anything) creates the file."""
    error = failure(raw)
    span = (raw.start + 1, raw.end + 1)
    if raw.expected is not None:
        return EditBlock(fmt, raw.path, span, language=raw.language, error=error)
    new = normalise_text(list(raw.updated))
    if not any(line.strip() for line in raw.original):
        return EditBlock(
            fmt,
            raw.path,
            span,
            action=Action.CREATE,
            content=new,
            on_exists=OnExists.ERROR,
            language=raw.language,
            error=error,
        )
    hunk = Hunk(normalise_text(list(raw.original)), new)
    return EditBlock(fmt, raw.path, span, hunks=(hunk,), language=raw.language, error=error)


def find_blocks(lines: list[str]) -> list[EditBlock]:
    """All SEARCH/REPLACE blocks in the reply `lines`, broken ones carrying MALFORMED_BLOCK."""
    return [to_edit_block(raw) for raw in scan(lines)]
