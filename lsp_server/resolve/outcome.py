"""What a structural operation hands back: a `StructureEdit`, or a refusal.

Both the structure operations (TARGET_NODE) and the data-path operations (TARGET_PATH)
return a `StructureEdit`; both refuse through `refused`, so every refusal of the structural
resolver says the same thing about the file: it was not touched.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from lsp_server.model import ErrorCode, Placement, PlacementError


class StructureEdit(NamedTuple):
    """The outcome of one structure operation on one file.

    `text` is the whole new text; `placement` the span it touched (0-based, end exclusive,
    in the original text; `new_end_line` in the new one); `result` the seed's report
    fields, 1-based inclusive: `lines`, `deleted_line_range_inclusive`, `affected_lines`,
    `total_replacements`, `inserted_at_line`, `target_now_at_line`,
    `source_original_line_range`, `destination_final_line_range`.
    """

    text: str
    placement: Placement
    result: dict[str, Any]
    moved: str | None = None  # the code a move took out (for cross-file moves)


def refused(code: ErrorCode, message: str, **details: Any) -> PlacementError:
    """A refusal of the structural resolver. Its operations are pure (text in, text out),
    so whatever failed, the file is as it was: the details say `state: FILE_UNCHANGED`
    unless the caller says otherwise."""
    details.setdefault("state", "FILE_UNCHANGED")
    return PlacementError.of(code, message, **details)
