"""The text-editor tool's commands, whatever carries them: what `str_replace`, `create` and
`insert` ask of a file.

Anthropic's text-editor tool, OpenHands' and SWE-agent's `str_replace_editor` share one set
of commands and arguments; agents send them as JSON (`tool_calls`) or as XML function calls
(`tool_xml`). Both read the arguments here, so one call means one edit either way:

* `str_replace` `{path, old_str, new_str}` - a replace hunk; `old_str` may be part of a line;
* `create` `{path, file_text}` - the whole file, created or overwritten;
* `insert` `{path, insert_line, new_str}` - `new_str` after line `insert_line` (0: the top);
* `view` and `undo_edit` are not edits: no block.

Values come as JSON gives them or as XML text: `insert_line` may be a number or its digits.
A call with the command but not what it needs raises `MalformedCall`, reported as
MALFORMED_BLOCK under the carrier's format.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from lsp_server.model import Action, EditBlock, Format, Hunk, HunkKind, OnExists
from lsp_server.reply.agent_tools import MalformedCall, path_arg, text_arg

EDIT_COMMANDS = frozenset({"str_replace", "create", "insert"})
NOT_EDITS = frozenset({"view", "undo_edit"})
COMMANDS = EDIT_COMMANDS | NOT_EDITS

_LINE = re.compile(r"\d{1,9}", re.ASCII)


def _line_number(value: Any) -> int | None:
    """`insert_line` as a number of lines, or None when it is not one."""
    if isinstance(value, str) and _LINE.fullmatch(value.strip()):
        return int(value.strip())
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        return None
    return value


def editor_block(
    command: str, args: Mapping[str, Any], span: tuple[int, int], fmt: Format
) -> EditBlock | None:
    """The block one text-editor command asks for (None for `view` / `undo_edit`), reported
    as `fmt`. Raises MalformedCall when the command lacks what it needs."""
    if command in NOT_EDITS:
        return None
    args = dict(args)
    path = path_arg(args, fmt, "path", "file_path")
    if command == "create":
        text = text_arg(args.get("file_text"), fmt, path, "file_text")
        if text is None:
            raise MalformedCall(fmt, path, "`create` needs `file_text`", {"missing": "file_text"})
        return EditBlock(
            fmt, path, span, action=Action.CREATE, content=text, on_exists=OnExists.OVERWRITE
        )
    new = text_arg(args.get("new_str", args.get("insert_text")), fmt, path, "new_str")
    if command == "str_replace":
        old = text_arg(args.get("old_str"), fmt, path, "old_str")
        if not old:
            raise MalformedCall(
                fmt, path, "`str_replace` needs a non-empty `old_str`", {"missing": "old_str"}
            )
        return EditBlock(fmt, path, span, hunks=(Hunk(old, new or ""),))
    if command != "insert":
        raise MalformedCall(
            fmt,
            path,
            f"unknown command {command!r} (expected one of {', '.join(sorted(COMMANDS))})",
            {"command": command},
        )
    line = _line_number(args.get("insert_line"))
    if line is None:
        raise MalformedCall(
            fmt,
            path,
            "`insert` needs `insert_line`, a line number (0 inserts at the top)",
            {"missing": "insert_line"},
        )
    if new is None:
        raise MalformedCall(fmt, path, "`insert` needs `new_str`", {"missing": "new_str"})
    hunk = Hunk("", new, kind=HunkKind.INSERT_AT_LINE, line_hint=line)
    return EditBlock(fmt, path, span, hunks=(hunk,))
