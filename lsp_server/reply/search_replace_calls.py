"""SEARCH/REPLACE text inside an agent's tool call: Cline's `replace_in_file` `diff`, Roo
Code's `apply_diff` `diff` / `content` (one or several per file). The blocks are scanned
as `search_replace` scans a reply's, read Cline's way (a run of three or more `-`/`<`, `=`,
`+`/`>`), and become the hunks of one EditBlock for the call's file.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from lsp_server.model import Action, EditBlock, ErrorCode, Failure, Format, Hunk
from lsp_server.reply.common import normalise_newlines, normalise_text
from lsp_server.reply.search_replace import (
    RawBlock,
    cline_syntax,
    empty_search,
    failure,
    line_words,
    marker_failure,
    scan,
    sections,
    shift_hints,
)


class DiffPart(NamedTuple):
    """One SEARCH/REPLACE text of a tool call: `body`, the reply line (1-based) of its first
    line when it is the reply's own text (None for a JSON string), and Roo's `<start_line>`
    for its first block."""

    body: str
    first_line: int | None = None
    start_line: int | None = None


def blocks_from_body(
    body: str,
    path: str,
    reply_lines: tuple[int, int],
    fmt: Format,
    first_line: int | None = None,
    start_line: int | None = None,
) -> EditBlock:
    """The one EditBlock a tool call's SEARCH/REPLACE text makes for the file `path`: Cline's
    `replace_in_file` `diff` (fmt=Format.CLINE) or Roo Code's `apply_diff` `diff` / `content`
    (fmt=Format.ROO). Every block in `body` becomes a hunk, applied in order; text between
    blocks (a fence around them, a stray `<` after `>>>>>>> REPLACE`) is not part of the
    edit. Markers are read Cline's way: a run of three or more `-`/`<`, `=`, `+`/`>`.

    `reply_lines` is the span of the whole call in the reply (1-based, inclusive).
    `first_line` is the reply line (1-based) of `body`'s first line when `body` is the reply's
    own text (XML); leave it None for a JSON string, and failures name lines of the diff.
    `start_line` is Roo's `<start_line>` for the first block without a `:start_line:` header.

    One SEARCH section that is empty replaces the whole file in Cline's format (as Cline does;
    the file is created when missing), and is MALFORMED_BLOCK in Roo's (Roo refuses it). A
    body with no block, or with a broken one, is MALFORMED_BLOCK naming the line. Never raises.
    """
    return blocks_from_parts((DiffPart(body, first_line, start_line),), path, reply_lines, fmt)


def blocks_from_parts(
    parts: Sequence[DiffPart], path: str, reply_lines: tuple[int, int], fmt: Format
) -> EditBlock:
    """`blocks_from_body` for a call holding several SEARCH/REPLACE texts for one file (Roo's
    `<file>` with several `<diff>`s): their blocks are the hunks of one EditBlock, in order,
    and their line hints all count in the file before the call. A diff whose blocks carry
    Roo's `:start_line:` header is read as Roo's (`fmt` becomes Format.ROO), as the same
    block outside a call is."""

    def refuse(error: Failure) -> EditBlock:
        return EditBlock(fmt, path, reply_lines, error=error)

    hunks: list[Hunk] = []
    overwrite: str | None = None
    scanned = []
    for part in parts:
        lines = normalise_newlines(part.body).split("\n")
        raws = [raw._replace(path=path) for raw in scan(lines, cline_syntax())]
        origin = None if part.first_line is None else part.first_line - 1
        scanned.append((raws, origin, part.start_line))
    count = sum(len(raws) for raws, _, _ in scanned)
    if not count:
        return refuse(
            Failure(
                ErrorCode.MALFORMED_BLOCK,
                f"the {fmt} diff for {path} holds no SEARCH/REPLACE block (`<<<<<<< SEARCH` "
                "or `------- SEARCH`, the old lines, `=======`, the new lines, "
                "`>>>>>>> REPLACE` or `+++++++ REPLACE`)",
                {"path": path},
            )
        )
    if fmt is not Format.ROO and any(
        sections(raw).roo for raws, _, _ in scanned for raw in raws if raw.expected is None
    ):
        fmt = Format.ROO  # a diff whose blocks carry Roo's header is Roo's, whoever sent it
    for raws, origin, start_line in scanned:
        for raw in raws:
            if raw.expected is not None:
                return refuse(failure(raw, origin) or empty_search(raw, origin))
            got = sections(raw, fmt is Format.ROO)
            error = marker_failure(raw, got.new, origin)
            if error is None and got.error is not None:
                words, key, number = line_words(raw.marker, origin)
                error = Failure(
                    ErrorCode.MALFORMED_BLOCK,
                    f"block starting at {words}: {got.error}",
                    {key: number},
                )
            if error is not None:
                return refuse(error)
            new = normalise_text(list(got.new))
            if any(line.strip() for line in got.old):
                hint = got.start_line if got.start_line is not None else start_line
                start_line = None  # `<start_line>` is the first block's
                hunks.append(Hunk(normalise_text(list(got.old)), new, line_hint=hint))
            elif fmt is Format.CLINE and count == 1:
                overwrite = new
            else:
                return refuse(_empty_search_in(raw, origin, fmt, count))
    if overwrite is not None:
        return EditBlock(fmt, path, reply_lines, action=Action.OVERWRITE, content=overwrite)
    return EditBlock(fmt, path, reply_lines, hunks=shift_hints(hunks))


def _empty_search_in(raw: RawBlock, origin: int | None, fmt: Format, count: int) -> Failure:
    if fmt is Format.ROO:
        return empty_search(raw, origin)
    words, key, number = line_words(raw.marker, origin)
    return Failure(
        ErrorCode.MALFORMED_BLOCK,
        f"block starting at {words}: the SEARCH section is empty, which replaces the whole "
        f"file, but the diff holds {count} blocks; send the whole file alone, or give each "
        "block the lines it replaces",
        {key: number},
    )
