"""The edit tools of coding agents, called with JSON arguments: what each call becomes.

`tool_calls` finds the JSON in a reply and takes off the envelopes around a call; this
module reads the arguments. A call is recognised by the shape of its arguments, never by
the tool's name (agents rename their tools, and envelopes often drop the name):

* `{"file_path", "old_string", "new_string", "replace_all"?}` - Claude Code's `Edit`: a
  replace hunk whose old text may be part of a line; with `replace_all` every occurrence is
  replaced (`Hunk.every`), without it a second occurrence is TEXT_AMBIGUOUS. With
  `"expected_replacements": n` it is Gemini CLI's `replace`: exactly n occurrences, all
  replaced (`Hunk.expected`), another count is COUNT_MISMATCH. The two share their keys;
  a call with neither count key is reported as Claude Code's (the placement is the same).
  An empty `old_string` creates the file, as both tools do. The same keys in camelCase
  (`filePath`, `oldString`, `newString`, `replaceAll`) are the same call.
* `{"file_path", "edits": [{"old_string", "new_string", "replace_all"?}, ...]}` - Claude
  Code's `MultiEdit`: the edits in order, each applied to what the previous left.
* `{"file_path", "content"}` - Claude Code's `Write` and Gemini CLI's `write_file`: the whole
  file, created or overwritten (merged around a placeholder line that leaves code out, see
  `write_action`). `{"path", "content"}` is Cline's `write_to_file`.
* `{"path", "diff"}` whose `diff` holds a SEARCH marker line - Cline's `replace_in_file`
  (markers `------- SEARCH` / `=======` / `+++++++ REPLACE`, or aider's spelling) and Roo
  Code's `apply_diff` (the same call; a block opening with Roo's `:start_line:` header
  makes it Roo's): every block of the diff is a hunk of one block for the file, read by
  `search_replace_calls.blocks_from_body` exactly as the same diff in the agents' XML is.
* `{"type": "apply_patch_call", "operation": {"type": "create_file" | "update_file" |
  "delete_file", "path", "diff"}}` (or the operation alone) - OpenAI's apply_patch tool:
  `diff` is a V4A body read by `apply_patch.operation_block`.
* a whole `*** Begin Patch` patch as a string argument (`input`, `patch`, or an element of
  `command`) - Codex's apply_patch tool and its shell call: read by `apply_patch`.

A call that has the shape but cannot be used (a count that is not a positive number, an
edit without its old text) raises MalformedCall and is reported as MALFORMED_BLOCK.
"""

from __future__ import annotations

import dataclasses
import json
import re
from typing import Any

from lsp_server.model import Action, EditBlock, Format, Hunk
from lsp_server.reply import apply_patch
from lsp_server.reply.common import normalise_newlines
from lsp_server.reply.search_replace import SEARCH, cline_syntax, scan, sections
from lsp_server.reply.search_replace_calls import blocks_from_body
from lsp_server.resolve.placeholders import is_placeholder_line

# the keys agents name a file by, in the order they are tried
FILE_KEYS = ("file_path", "path", "filePath", "absolute_path", "file")
_OPERATIONS = {
    "create_file": Action.CREATE,
    "update_file": Action.MODIFY,
    "delete_file": Action.DELETE,
}
# what a whole-file write's arguments hold (Cline adds its progress notes)
_WRITE_KEYS = frozenset({*FILE_KEYS, "content", "task_progress", "requires_approval"})
_EDIT_KEYS = frozenset({"old_string", "new_string", "oldString", "newString"})
_ALIASES = {
    "oldString": "old_string",
    "newString": "new_string",
    "replaceAll": "replace_all",
    "expectedReplacements": "expected_replacements",
}
_PATCH_KEYS = ("input", "patch", "command", "cmd", "arguments")
_BEGIN_LINE = re.compile(r"^[ \t]*\*\*\* Begin Patch[ \t]*$", re.MULTILINE)
_OPERATION_TYPE = re.compile(r'"type"\s*:\s*"(?:create|update|delete)_file"')


class MalformedCall(Exception):
    """A call that is recognisably meant as an edit but cannot be used."""

    def __init__(self, fmt: Format, path: str | None, message: str, details: dict[str, Any]):
        super().__init__(message)
        self.fmt = fmt
        self.path = path
        self.details = details


def _encodable(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def path_arg(args: dict[str, Any], fmt: Format, *keys: str) -> str:
    """The file a call names: the first of `keys` holding a non-blank string."""
    for key in keys:
        value = args.get(key)
        if isinstance(value, str) and value.strip():
            if not value.isascii() and not _encodable(value):
                # a `"\ud800"` escape: no file has that name, and the report could not print it
                raise MalformedCall(
                    fmt, None, f"`{key}` is not valid Unicode (a lone surrogate)", {"field": key}
                )
            return value.strip()
    raise MalformedCall(fmt, None, f"the {fmt} call has no `{keys[0]}`", {"missing": keys[0]})


def text_arg(value: Any, fmt: Format, path: str, what: str) -> str | None:
    """A string argument with "\\n" line endings; None when absent."""
    if value is None:
        return None
    if not isinstance(value, str):
        raise MalformedCall(fmt, path, f"`{what}` must be a string", {"field": what})
    return normalise_newlines(value)


def _has_file(args: dict[str, Any]) -> bool:
    return any(isinstance(args.get(key), str) for key in FILE_KEYS)


def _canonical(args: dict[str, Any]) -> dict[str, Any]:
    """The arguments with camelCase keys (`oldString`, `replaceAll`: the same Edit shape
    as other agents write it) under their snake_case names."""
    if not any(key in args for key in _ALIASES):
        return args
    return {_ALIASES.get(key, key): value for key, value in args.items()}


def is_agent_call(args: dict[str, Any]) -> bool:
    """Whether `args` has the shape of one of the agents' edit calls (see the module)."""
    if _operation(args) is not None or patch_text(args) is not None:
        return True
    args = _canonical(args)
    if not _has_file(args):
        return False
    if "old_string" in args or "new_string" in args:
        return True
    if _is_multi_edit(args) or _search_replace_diff(args) is not None:
        return True
    # a path and a content alone: the weakest shape, so nothing else may be beside them
    # (`{"path": "/users", "content": "...", "method": "GET"}` is data, not a write)
    return isinstance(args.get("content"), str) and set(args) <= _WRITE_KEYS


def agent_format(text: str) -> Format | None:
    """Which agent's call a JSON text that does not parse was meant as, from the keys it
    shows (only to report it under that format); None when it shows none of theirs."""
    if '"apply_patch_call"' in text or _OPERATION_TYPE.search(text):
        return Format.OPENAI_PATCH
    if '"expected_replacements"' in text:
        return Format.GEMINI
    if any(f'"{key}"' in text for key in ("old_string", "new_string", "oldString", "newString")):
        return Format.CLAUDE_CODE
    if '"file_path"' in text and '"content"' in text:
        return Format.CLAUDE_CODE
    # Cline's start marker anywhere: in JSON text the diff's lines are not lines yet
    if '"diff"' in text and cline_syntax().start.search(text):
        return Format.CLINE
    return None


def agent_blocks(args: dict[str, Any], span: tuple[int, int]) -> list[EditBlock]:
    """The blocks an agent's edit call asks for (none when `args` is not one)."""
    operation = _operation(args)
    if operation is not None:
        return [_openai_patch(operation, span)]
    patch = patch_text(args)
    if patch is not None:
        lines = normalise_newlines(patch).split("\n")
        return [dataclasses.replace(b, reply_lines=span) for b in apply_patch.find_blocks(lines)]
    if not is_agent_call(args):
        return []
    args = _canonical(args)
    diff = _search_replace_diff(args)
    if diff is not None:
        return [_replace_in_file(args, diff, span)]
    if _is_multi_edit(args):
        return [_multi_edit(args, span)]
    if "old_string" in args or "new_string" in args:
        return [_edit(args, span)]
    return [_write(args, span)]


def patch_text(args: dict[str, Any]) -> str | None:
    """A whole `*** Begin Patch` patch passed as a string argument: Codex's apply_patch
    tool (`{"input": patch}`) or its shell call (`{"command": ["apply_patch", patch]}`, or
    a heredoc in `["bash", "-lc", "apply_patch <<'EOF' ..."]`)."""
    for key in _PATCH_KEYS:
        value = args.get(key)
        for item in value if isinstance(value, list) else [value]:
            if isinstance(item, str) and _BEGIN_LINE.search(item):
                return item
    return None


# --- Claude Code and Gemini CLI -----------------------------------------------------------


def _count(args: dict[str, Any], fmt: Format, path: str, where: str) -> tuple[bool, int | None]:
    """`replace_all` (a boolean) and `expected_replacements` (a positive whole number)."""
    every = args.get("replace_all", False)
    if isinstance(every, str) and every.strip().lower() in ("true", "false"):
        every = every.strip().lower() == "true"  # a boolean some models write as a string
    if not isinstance(every, bool):
        raise MalformedCall(
            fmt, path, f"{where}`replace_all` must be true or false", {"field": "replace_all"}
        )
    expected = args.get("expected_replacements")
    if isinstance(expected, float) and expected.is_integer():
        expected = int(expected)
    if isinstance(expected, str) and expected.strip().isdigit():
        expected = int(expected)
    if expected is not None and (
        isinstance(expected, bool) or not isinstance(expected, int) or expected < 1
    ):
        raise MalformedCall(
            fmt,
            path,
            f"{where}`expected_replacements` must be a whole number of at least 1",
            {"field": "expected_replacements"},
        )
    return every, expected


def _hunk(args: dict[str, Any], fmt: Format, path: str, where: str = "") -> Hunk:
    args = _canonical(args)
    old = text_arg(args.get("old_string"), fmt, path, "old_string")
    new = text_arg(args.get("new_string"), fmt, path, "new_string")
    if new is None:
        raise MalformedCall(fmt, path, f"{where}`new_string` is missing", {"missing": "new_string"})
    if not old:
        raise MalformedCall(
            fmt,
            path,
            f"{where}`old_string` is empty: say which text to replace",
            {"missing": "old_string"},
        )
    every, expected = _count(args, fmt, path, where)
    return Hunk(old, new, every=every, expected=expected)


def _edit(args: dict[str, Any], span: tuple[int, int]) -> EditBlock:
    fmt = Format.GEMINI if "expected_replacements" in args else Format.CLAUDE_CODE
    path = path_arg(args, fmt, *FILE_KEYS)
    if args.get("old_string") == "":
        # both tools create the file when there is no text to find
        content = text_arg(args.get("new_string"), fmt, path, "new_string") or ""
        return EditBlock(fmt, path, span, action=Action.CREATE, content=content)
    return EditBlock(fmt, path, span, hunks=(_hunk(args, fmt, path),))


def _edits(args: dict[str, Any]) -> Any:
    """`edits`, also when it was written as a JSON string (as some transcripts store it)."""
    edits = args.get("edits")
    if isinstance(edits, str) and edits.lstrip().startswith("["):
        try:
            return json.loads(edits, strict=False)
        except (ValueError, RecursionError):
            return edits
    return edits


def _is_multi_edit(args: dict[str, Any]) -> bool:
    """`edits` holding at least one replacement of the Edit shape (other tools name lists
    of other things `edits`: ranges, line numbers)."""
    edits = _edits(args)
    return isinstance(edits, list) and any(
        isinstance(e, dict) and not _EDIT_KEYS.isdisjoint(e) for e in edits
    )


def _multi_edit(args: dict[str, Any], span: tuple[int, int]) -> EditBlock:
    fmt = Format.CLAUDE_CODE
    path = path_arg(args, fmt, *FILE_KEYS)
    edits = _edits(args)
    hunks = []
    for k, edit in enumerate(edits):
        if not isinstance(edit, dict):
            raise MalformedCall(fmt, path, f"edit {k} is not an object", {"edit": k})
        try:
            hunks.append(_hunk(edit, fmt, path, f"edit {k}: "))
        except MalformedCall as bad:
            bad.details["edit"] = k
            raise
    return EditBlock(fmt, path, span, hunks=tuple(hunks))


def _write(args: dict[str, Any], span: tuple[int, int]) -> EditBlock:
    # `path` without `file_path` is Cline's write_to_file; Claude Code and Gemini CLI both
    # say `file_path` (reported as Claude Code's: the write is the same)
    fmt = Format.CLAUDE_CODE if isinstance(args.get("file_path"), str) else Format.CLINE
    path = path_arg(args, fmt, *FILE_KEYS)
    content = text_arg(args["content"], fmt, path, "content") or ""
    return EditBlock(fmt, path, span, action=write_action(content, path), content=content)


def write_action(content: str, path: str) -> Action:
    """A whole file is written as it stands (OVERWRITE), unless it leaves code out with a
    placeholder line (`// ... existing code ...`, `# rest unchanged`): the tool would write
    the placeholder and lose the code it stands for; here the file is merged around it
    (LAZY, which never writes a placeholder and refuses a file that is not there). A bare
    `...` line is code in Python (a stub's body), so it alone does not count."""
    for line in content.split("\n"):
        if is_placeholder_line(line, path) and line.strip().strip(".…"):
            return Action.LAZY
    return Action.OVERWRITE


# --- Cline and Roo Code -------------------------------------------------------------------


def _search_replace_diff(args: dict[str, Any]) -> list[str] | None:
    """The lines of a `diff` argument holding a SEARCH marker line (`------- SEARCH`,
    `<<<<<<< SEARCH`), else None: a `diff` of another kind (a unified diff, a V4A body) is
    not this call."""
    diff = args.get("diff")
    if not isinstance(diff, str) or "SEARCH" not in diff:
        return None
    lines = normalise_newlines(diff).split("\n")
    return lines if any(cline_syntax().kind(line) == SEARCH for line in lines) else None


def _replace_in_file(args: dict[str, Any], lines: list[str], span: tuple[int, int]) -> EditBlock:
    """Cline's `replace_in_file` or Roo Code's `apply_diff` with JSON arguments. The two
    are one shape; a well-formed block opening with Roo's header (`:start_line:`) says the
    diff is Roo's, which also reads a bare `-------` after `<<<<<<< SEARCH` as the header's
    end and refuses an empty SEARCH (as Roo does), where Cline's replaces the whole file."""
    roo = any(raw.expected is None and sections(raw).roo for raw in scan(lines, cline_syntax()))
    fmt = Format.ROO if roo else Format.CLINE
    path = path_arg(args, fmt, *FILE_KEYS)
    return blocks_from_body("\n".join(lines), path, span, fmt)


# --- OpenAI apply_patch -------------------------------------------------------------------


def _operation(args: dict[str, Any]) -> dict[str, Any] | None:
    """The operation of an `apply_patch_call` item, or an operation given alone."""
    kind = args.get("type")
    if kind == "apply_patch_call" and isinstance(args.get("operation"), dict):
        return args["operation"]
    if isinstance(kind, str) and kind in _OPERATIONS and _has_file(args):
        return args
    return None


def _openai_patch(operation: dict[str, Any], span: tuple[int, int]) -> EditBlock:
    fmt = Format.OPENAI_PATCH
    kind = operation.get("type")
    action = _OPERATIONS.get(kind) if isinstance(kind, str) else None
    path = path_arg(operation, fmt, *FILE_KEYS)
    if action is None:
        raise MalformedCall(
            fmt,
            path,
            f"unknown apply_patch operation {kind!r} (expected one of {', '.join(_OPERATIONS)})",
            {"operation": str(kind)},
        )
    diff = text_arg(operation.get("diff"), fmt, path, "diff")
    if diff is None and action is not Action.DELETE:
        raise MalformedCall(fmt, path, f"`{kind}` needs a `diff`", {"missing": "diff"})
    return apply_patch.operation_block(fmt, action, path, diff or "", span)
