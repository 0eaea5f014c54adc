"""JSON tool calls pasted from an agent transcript, fenced (```json) or bare, alone, in an
array or inside the envelopes agents and APIs put around them; this module finds them and
takes the envelopes off, `agent_tools` reads the coding agents' own edit tools.

```json
{"path": "src/a.py", "patches": [{"operation": "replace", "oldText": "a", "newText": "b"}]}
```

Envelopes: `{"name": "patch", "arguments": {...}}` (or `input` / `parameters` / `args` /
`params` / `tool_input`; `arguments` may be the call's JSON as a string, as OpenAI writes
it), and the containers a transcript nests calls in: `tool_calls`, `function`,
`functionCall`, `toolUse`, message `content`, Responses `output`, `choices`, `parts`,
`candidates`. The tool's name is never needed: the arguments say which tool they are for.

What each call becomes:
* patch tool `{"path", "patches": [...]}` - one MODIFY block whose hunks all resolve against
  the original (`simultaneous`); `reindent` sizes given as numbers mean that many spaces;
* text-editor tool `{"command": "str_replace" | "create" | "insert", ...}` - a replace hunk,
  a CREATE that overwrites, or an insert after `insert_line`; `view` / `undo_edit` are
  not edits and are ignored;
* `{"operation": "..._structure", ...}` - a STRUCTURAL block for the structure resolver;
* Claude Code, Gemini CLI, OpenAI apply_patch, Cline and Roo Code calls - see `agent_tools`.

JSON that is none of these is prose, not an edit, and so is a fence that a JSON file's path
introduces (that file's content). A ```json fence that does not parse but plainly meant to
be a call (it shows a key such as `"patches"`, `"old_str"`, `"old_string"` or
`"apply_patch_call"`, or a `"diff"` with a SEARCH marker) is MALFORMED_BLOCK with the
position of the JSON error. Strings may hold raw line breaks (models write multi-line strings
that way, and JSON proper would refuse them) and keep "\\n" line endings ("\\r\\n" in JSON
strings is normalised).
"""

from __future__ import annotations

import json
import re
from typing import Any

from lsp_server.model import (
    Action,
    EditBlock,
    ErrorCode,
    Failure,
    Format,
    Hunk,
    HunkKind,
    Reindent,
    Target,
)
from lsp_server.reply.agent_tools import (
    MalformedCall,
    agent_blocks,
    agent_format,
    is_agent_call,
    path_arg,
    text_arg,
)
from lsp_server.reply.common import (
    Fence,
    find_fences,
    line_starts,
    path_from_info,
    path_from_line,
    split_levels,
)
from lsp_server.reply.editor_commands import editor_block

_JSON_FENCES = frozenset(
    {"json", "jsonc", "json5", "jsonl", "ndjson", "tool_call", "tool_use", "function_call", "text"}
)
_HINTS = (
    '"patches"',
    '"old_str"',
    '"new_str"',
    '"file_text"',
    '"operation"',
    '"old_string"',
    '"new_string"',
    '"oldString"',
    '"file_path"',
    '"apply_patch_call"',
)
_OPERATIONS = {
    "replace": HunkKind.REPLACE,
    "append_eof": HunkKind.APPEND_EOF,
    "prepend_bof": HunkKind.PREPEND_BOF,
    "overwrite": HunkKind.OVERWRITE,
}
_EDITOR_COMMANDS = frozenset({"str_replace", "create", "insert", "view", "undo_edit"})
# where an envelope keeps a call's arguments (a JSON string, for OpenAI's `arguments`)
_WRAPPER_ARGS = ("arguments", "input", "parameters", "args", "params", "tool_input")
# where a transcript keeps calls: OpenAI chat `tool_calls` / `function` / `choices` /
# `message`, Responses `output` (and a streamed event's `item` / `response`), Anthropic
# `content` / `tool_use`, Gemini `functionCall` / `parts` / `candidates`, Bedrock
# `toolUse`, the AI SDK's `toolCalls`
_CONTAINERS = (
    "tool_calls",
    "toolCalls",
    "tool_call",
    "function",
    "function_call",
    "functionCall",
    "tool_use",
    "toolUse",
    "content",
    "output",
    "item",
    "response",
    "messages",
    "message",
    "choices",
    "parts",
    "candidates",
)
_MAX_DEPTH = 16
# what chat templates put before a call on its line: Hermes / Qwen `<tool_call>`, Mistral
# `[TOOL_CALLS]`, Llama `<|python_tag|>`
_CALL_TAG = re.compile(
    r"(?:<(?:tool_call|tool_calls|function_call|functioncall|tool_use)>|\[TOOL_CALLS\]"
    r"|<\|python_tag\|>)[ \t]*(?=[{\[])"
)
# A line that may open a bare value: blanks (`str.lstrip`'s: `\s` but the line end), a chat
# template's tag perhaps, then `[`, or `{` and JSON whitespace and a key or `}` (after
# anything else no object starts, so no call does). Searched as `line_starts` does: one
# search finds the few lines worth decoding, where a reply of a million `{` lines would
# otherwise cost a decode attempt each.
_BARE_OPENER = re.compile(r"\n[^\S\n]*(?:" + _CALL_TAG.pattern + r")?(?=\[|\{[ \t\n\r]*+[\"}])")
_DATA_FILES = (".json", ".jsonc", ".json5", ".jsonl", ".ndjson", ".geojson")
_MAX_JSON = 2_000_000


# --- finding JSON in the reply ------------------------------------------------------------


def _decode_all(text: str) -> tuple[list[Any], json.JSONDecodeError | None]:
    """Every JSON value in `text`, one after another (whitespace or commas between)."""
    decoder = json.JSONDecoder(strict=False)
    values: list[Any] = []
    pos, n = 0, len(text)
    while True:
        while pos < n and (text[pos].isspace() or text[pos] == ","):
            pos += 1
        if pos >= n:
            return values, None
        try:
            value, pos = decoder.raw_decode(text, pos)
        except json.JSONDecodeError as err:
            return values, err
        except (RecursionError, ValueError) as err:
            return values, json.JSONDecodeError(str(err) or "invalid JSON", text, pos)
        values.append(value)


def find_blocks(lines: list[str]) -> list[EditBlock]:
    """Every tool call in `lines`: fenced JSON first, then bare JSON outside fences."""
    out: list[EditBlock] = []
    fenced = [False] * len(lines)
    for fence in find_fences(lines):
        stop = fence.end if fence.end is not None else len(lines)
        for k in range(fence.start, min(stop + 1, len(lines))):
            fenced[k] = True
        language = (fence.language or "").lower()
        if language and language not in _JSON_FENCES:
            continue
        body = "\n".join(lines[fence.start + 1 : stop])
        if not body.lstrip().startswith(("{", "[")) or len(body) > _MAX_JSON:
            continue
        span = (fence.start + 1, stop + 1 if fence.end is not None else len(lines))
        values, err = _decode_all(body)
        data_file = _data_file(lines, fence)
        if data_file is not None and not any(
            b.path == data_file for v in values for b in _blocks(v, span)
        ):
            continue  # a JSON file's content, introduced by its path: whole_file reads it
        if err is not None and not values:
            meant = any(h in body for h in _HINTS) or agent_format(body) is not None
            if language.startswith("json") and meant:
                out.append(_json_error(body, err, fence.start + 1, span))
            continue
        blocks = [b for v in values for b in _blocks(v, span)]
        if err is not None and blocks:
            out.append(_json_error(body, err, fence.start + 1, span))
        out.extend(blocks)
    out.extend(_bare(lines, fenced))
    out.sort(key=lambda b: b.reply_lines)
    return out


def _data_file(lines: list[str], fence: Fence) -> str | None:
    """The JSON file a fence is introduced as (its path alone on the line before, or in the
    info string), else None. Such a fence is that file's new content, even when its objects
    look like calls (`[{"path": "a.txt", "content": "..."}]` in a fixture), unless a call in
    it edits that very file."""
    path = path_from_info(fence.info)
    k = fence.start - 1
    if k >= 0 and not lines[k].strip():
        k -= 1
    if path is None and k >= 0 and len(lines[k]) <= 300:
        path = path_from_line(lines[k])
    return path if path is not None and path.lower().endswith(_DATA_FILES) else None


def _bare(lines: list[str], fenced: list[bool]) -> list[EditBlock]:
    """Calls written outside any fence: a line starting with `{` or `[` that begins a JSON
    value (which may run over several lines), or with the tag an open model's chat template
    puts before one (`<tool_call>{...}`, `[TOOL_CALLS] [...]`, `<|python_tag|>`)."""
    out: list[EditBlock] = []
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line) + 1)
    text = "\n".join(lines)
    decoder = json.JSONDecoder(strict=False)
    budget = 10 * len(text) + 100_000  # characters scanned by failed attempts, in all
    k = 0  # the first line not yet read as part of a value
    # only the lines that may open a value are visited: one search, not a loop over lines
    for c in line_starts(_BARE_OPENER, lines):
        if budget <= 0:
            break
        if c < k or fenced[c]:
            continue
        stripped = lines[c].lstrip()
        tag = _CALL_TAG.match(stripped)
        if tag is not None:
            stripped = stripped[tag.end() :]
        pos = starts[c] + len(lines[c]) - len(stripped)
        try:
            value, end = _decode_at(decoder, text, pos)
        except json.JSONDecodeError as err:
            budget -= max(err.pos, 1)
            continue
        except (RecursionError, ValueError):
            budget -= 10_000
            continue
        last = max(c, _line_of(starts, end - 1))
        if any(fenced[c : last + 1]):
            continue
        out.extend(_blocks(value, (c + 1, last + 1)))
        k = last + 1
    return out


def _decode_at(decoder: json.JSONDecoder, text: str, pos: int) -> tuple[Any, int]:
    """raw_decode at `pos` on a window of the text that grows only while the value might
    run past it: a failed attempt costs what it read, not the length of the reply.
    Errors carry positions relative to `pos`."""
    size = 4096
    while True:
        window = text[pos : pos + size]
        try:
            value, end = decoder.raw_decode(window)
        except json.JSONDecodeError as err:
            cut = pos + size < len(text)
            if cut and (err.pos >= len(window) - 8 or err.msg.startswith("Unterminated")):
                size *= 4
                continue
            raise
        return value, pos + end


def _line_of(starts: list[int], offset: int) -> int:
    lo, hi = 0, len(starts) - 1
    while lo < hi:  # the last line whose start is <= offset
        mid = (lo + hi + 1) // 2
        if starts[mid] <= offset:
            lo = mid
        else:
            hi = mid - 1
    return lo


def _json_error(
    body: str, err: json.JSONDecodeError, first_line: int, span: tuple[int, int]
) -> EditBlock:
    fmt = agent_format(body)
    if fmt is None:
        fmt = Format.PATCH_TOOL
        if '"old_str"' in body or '"file_text"' in body or '"new_str"' in body:
            fmt = Format.TEXT_EDITOR
        elif '"operation"' in body and '"patches"' not in body:
            fmt = Format.STRUCTURE_OP
    m = re.search(r'"(?:path|file_path|filePath|file)"\s*:\s*"([^"\\\n]{1,500})"', body)
    line = first_line + err.lineno
    details: dict[str, Any] = {"line": line, "column": err.colno, "error": err.msg}
    message = f"the JSON tool call does not parse: {err.msg} at reply line {line}, column "
    message += str(err.colno)
    if err.pos >= len(body.rstrip()) or err.msg.startswith("Unterminated"):
        details["incomplete"] = True
        message += " (the JSON ends early: was the reply cut off?)"
    return EditBlock(
        fmt,
        m.group(1) if m else None,
        span,
        error=Failure(ErrorCode.MALFORMED_BLOCK, message, details),
    )


# --- unwrapping calls ---------------------------------------------------------------------


def _is_call(value: dict[str, Any]) -> bool:
    """Arguments of a tool this module or `agent_tools` reads (by their keys alone)."""
    return "patches" in value or "command" in value or "operation" in value or is_agent_call(value)


def _calls(value: Any, depth: int = 0) -> list[dict[str, Any]]:
    """The argument objects inside `value`, through the wrappers agents use (the tool's
    name is not needed: the arguments say which tool they are for). Every wrapper key of an
    object is looked into, so a message holding several calls gives all of them."""
    if depth > _MAX_DEPTH:
        return []
    if isinstance(value, list):
        return [c for item in value for c in _calls(item, depth + 1)]
    if not isinstance(value, dict):
        return []
    if _is_call(value):
        return [value]
    out: list[dict[str, Any]] = []
    for key in _WRAPPER_ARGS:
        inner = value.get(key)
        if isinstance(inner, str) and inner.lstrip().startswith(("{", "[")):
            try:  # OpenAI's `arguments`: the call's JSON as a string
                inner = json.loads(inner, strict=False)
            except (ValueError, RecursionError):
                continue
        if isinstance(inner, dict | list):
            out.extend(_calls(inner, depth + 1))
    for key in _CONTAINERS:
        inner = value.get(key)
        if isinstance(inner, dict | list):
            out.extend(_calls(inner, depth + 1))
    return out


def _blocks(value: Any, span: tuple[int, int]) -> list[EditBlock]:
    out: list[EditBlock] = []
    try:
        calls = _calls(value)
    except RecursionError:
        return out
    for call in calls:
        try:
            out.extend(_block(call, span))
        except MalformedCall as bad:
            failure = Failure(ErrorCode.MALFORMED_BLOCK, str(bad), bad.details)
            out.append(EditBlock(bad.fmt, bad.path, span, error=failure))
    return out


def _block(args: dict[str, Any], span: tuple[int, int]) -> list[EditBlock]:
    if "patches" in args:
        return [_patch_tool(args, span)]
    command = args.get("command")
    if isinstance(command, str) and command in _EDITOR_COMMANDS:
        edit = _text_editor(command, args, span)
        return [edit] if edit is not None else []
    operation = args.get("operation")
    if isinstance(operation, str) and "structure" in operation:
        return [_structure_op(operation, args, span)]
    return agent_blocks(args, span)


# --- the patch tool -----------------------------------------------------------------------


def _first(patch: dict[str, Any], *keys: str) -> Any:
    for key in keys:
        if key in patch:
            return patch[key]
    return None


def _reindent(value: Any, path: str, k: int) -> Reindent | None:
    if value is None:
        return None
    fmt = Format.PATCH_TOOL
    if not isinstance(value, dict):
        raise MalformedCall(fmt, path, f"patch {k}: `reindent` must be an object", {"patch": k})
    parts: list[str] = []
    for key in ("strip", "add"):
        v = value.get(key, "")
        if isinstance(v, bool) or not isinstance(v, int | str) or (isinstance(v, int) and v < 0):
            raise MalformedCall(
                fmt,
                path,
                f"patch {k}: `reindent.{key}` must be a string or a number of spaces",
                {"patch": k, "field": f"reindent.{key}"},
            )
        parts.append(" " * v if isinstance(v, int) else v)
    return Reindent(parts[0], parts[1])


def _patch_tool(args: dict[str, Any], span: tuple[int, int]) -> EditBlock:
    fmt = Format.PATCH_TOOL
    path = path_arg(args, fmt, "path", "file_path", "file")
    patches = args.get("patches")
    if not isinstance(patches, list) or not patches:
        raise MalformedCall(fmt, path, "`patches` must be a non-empty list", {"field": "patches"})
    hunks: list[Hunk] = []
    for k, patch in enumerate(patches):
        if not isinstance(patch, dict):
            raise MalformedCall(fmt, path, f"patch {k} is not an object", {"patch": k})
        operation = patch.get("operation", "replace")
        kind = _OPERATIONS.get(operation) if isinstance(operation, str) else None
        if kind is None:
            raise MalformedCall(
                fmt,
                path,
                f"patch {k}: unknown operation {operation!r} (expected one of "
                f"{', '.join(_OPERATIONS)})",
                {"patch": k, "operation": str(operation)},
            )
        old = text_arg(_first(patch, "oldText", "old_text"), fmt, path, "oldText")
        new = text_arg(_first(patch, "newText", "new_text"), fmt, path, "newText")
        to_clip = text_arg(patch.get("toClipboard"), fmt, path, "toClipboard")
        from_clip = text_arg(patch.get("fromClipboard"), fmt, path, "fromClipboard")
        if kind == HunkKind.REPLACE and not old:
            raise MalformedCall(
                fmt,
                path,
                f"patch {k}: a replace needs a non-empty `oldText` (the text to find)",
                {"patch": k, "missing": "oldText"},
            )
        if new is None and from_clip is None and not (kind == HunkKind.REPLACE and to_clip):
            raise MalformedCall(
                fmt,
                path,
                f"patch {k}: `newText` (or `fromClipboard`) is missing",
                {"patch": k, "missing": "newText"},
            )
        hunks.append(
            Hunk(
                old=old or "",
                new=new or "",
                kind=kind,
                to_clipboard=to_clip,
                from_clipboard=from_clip,
                reindent=_reindent(patch.get("reindent"), path, k),
            )
        )
    return EditBlock(fmt, path, span, action=Action.MODIFY, hunks=tuple(hunks), simultaneous=True)


# --- the text-editor tool -----------------------------------------------------------------


def _text_editor(command: str, args: dict[str, Any], span: tuple[int, int]) -> EditBlock | None:
    # the commands mean the same as XML function calls (OpenHands): one mapping for both
    return editor_block(command, args, span, Format.TEXT_EDITOR)


# --- structure operations -----------------------------------------------------------------

_TARGET_KEYS = ("target", "target_node", "node", "structure")
_DATA_PATH_KEYS = ("target_path", "data_path")
_CONTENT_KEYS = ("content", "code", "new_code", "text")
_PATH_KEYS = ("path", "file", "file_path")


def _levels(value: Any, path: str) -> tuple[str, ...]:
    if isinstance(value, str):
        return split_levels(value)
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return tuple(v.strip() for v in value if v.strip())
    raise MalformedCall(
        Format.STRUCTURE_OP,
        path,
        "`target` must be a string (levels on separate lines or split by ` / `) or a list",
        {"field": "target"},
    )


def _structure_op(operation: str, args: dict[str, Any], span: tuple[int, int]) -> EditBlock:
    fmt = Format.STRUCTURE_OP
    path = path_arg(args, fmt, *_PATH_KEYS)
    node: tuple[str, ...] = ()
    data_path: str | None = None
    used = {"operation", *_PATH_KEYS}
    for key in _TARGET_KEYS:
        if key in args:
            node = _levels(args[key], path)
            used.add(key)
            break
    for key in _DATA_PATH_KEYS:
        if isinstance(args.get(key), str) and args[key].strip():
            data_path = args[key].strip()
            used.add(key)
            break
    if not node and data_path is None:
        raise MalformedCall(
            fmt,
            path,
            f'`{operation}` needs a `target` (e.g. "class UserAuth / validate") or a '
            '`target_path` (e.g. "a.b[2].c")',
            {"missing": "target"},
        )
    content: str | None = None
    for key in _CONTENT_KEYS:
        if key in args:
            content = text_arg(args[key], fmt, path, key)
            used.add(key)
            break
    options = {k: v for k, v in args.items() if k not in used}
    target = Target(node=node, data_path=data_path, operation=operation, options=options)
    return EditBlock(fmt, path, span, action=Action.STRUCTURAL, content=content, target=target)
