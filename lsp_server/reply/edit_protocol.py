"""The EDIT protocol, llm-patch's own seed format.

```
src/a.py
<<<< EDIT
anchor / old lines
==== REPLACE
new lines
>>>> EDIT END
```

It reads like SEARCH/REPLACE with different markers (4 characters; 4-9 and indentation are
tolerated), so it is scanned by the same code with its own `Syntax`: same path rules, same
MALFORMED_BLOCK reports, same recovery at the next block. Two things differ. A second divider
inside the new text is an error, not an end. And when the EDIT section is a prefix of the
REPLACE section the block only inserts after its anchor; such a hunk must match exactly,
since a loose match would put new code after the wrong lines without anything to show it.
"""

from __future__ import annotations

import re

from lsp_server.model import Action, EditBlock, Format, Hunk, OnExists
from lsp_server.reply.common import normalise_text
from lsp_server.reply.search_replace import RawBlock, Syntax, failure, scan

EDIT, DIVIDER, END = "<<<< EDIT", "==== REPLACE", ">>>> EDIT END"

EDIT_SYNTAX = Syntax(
    re.compile(r"<{4,9} *EDIT"),
    re.compile(r"={4,9} *REPLACE"),
    re.compile(r">{4,9} *EDIT +END"),
    (EDIT, DIVIDER, END),
)


def to_edit_block(raw: RawBlock) -> EditBlock:
    """The EditBlock for a scanned EDIT block: an empty EDIT section creates the file."""
    error = failure(raw)
    span = (raw.start + 1, raw.end + 1)
    if raw.expected is not None:
        return EditBlock(Format.EDIT, raw.path, span, language=raw.language, error=error)
    new = normalise_text(list(raw.updated))
    if not any(line.strip() for line in raw.original):
        return EditBlock(
            Format.EDIT,
            raw.path,
            span,
            action=Action.CREATE,
            content=new,
            on_exists=OnExists.ERROR,
            language=raw.language,
            error=error,
        )
    insertion = raw.updated[: len(raw.original)] == raw.original
    hunk = Hunk(normalise_text(list(raw.original)), new, exact_only=insertion)
    return EditBlock(Format.EDIT, raw.path, span, hunks=(hunk,), language=raw.language, error=error)


def find_blocks(lines: list[str]) -> list[EditBlock]:
    """All EDIT-protocol blocks in the reply `lines`, broken ones carrying MALFORMED_BLOCK."""
    return [to_edit_block(raw) for raw in scan(lines, EDIT_SYNTAX)]
