"""Structural blocks: a fenced block that names a syntax node (or a data path) to replace.

````
```python
# FILE: src/auth.py
# TARGET_NODE: class UserAuth
# TARGET_NODE: def validate
def validate(self, user):
    ...
```
````

The header lines come first in the fence, behind whatever comment marker the language uses
(`//`, `#`, `--`, `;`, `<!-- -->`, `/* */`) or none. `FILE:` may also stand on the line
before the fence. Target levels may be given as several `TARGET_NODE:` lines, as one line
split by ` / ` or ` > `, or as continuation lines indented under `TARGET_NODE:` behind the
same comment marker (a bare header cannot have continuation lines: they would be
indistinguishable from indented code). `TARGET_PATH: a.b[2].c` names a value in
JSON / YAML / TOML. Everything after the header is the new code.

This module only recognises the block; the structural resolver locates the node.
"""

from __future__ import annotations

import re

from lsp_server.model import Action, EditBlock, ErrorCode, Failure, Format, Target
from lsp_server.reply.common import (
    Fence,
    blocks_per_fence,
    clean_path,
    looks_like_file_path,
    normalise_text,
    split_levels,
    strip_comment_marker,
)
from lsp_server.reply.marker_lines import VERBATIM, find_marker, is_document

_HEADER = re.compile(r"(?i)^(FILE|TARGET[_ -]?NODE|TARGET[_ -]?PATH)\s*:\s*(.*)$")
_MAX_HEADER = 64  # header lines looked at, at most (a guard, never reached in practice)


def _header(line: str) -> tuple[str, str, str | None] | None:
    """(kind, value, comment marker) when `line` is a header line; kind is FILE / NODE / PATH."""
    text, marker = strip_comment_marker(line)  # linear, as is _HEADER: no length guard, so a
    # long header is still a header (it used to fall through to a whole-file block, which
    # wrote the `TARGET_PATH:` line into the file)
    m = _HEADER.match(text)
    if not m:
        return None
    word = m.group(1).upper()
    kind = "FILE" if word == "FILE" else ("NODE" if "NODE" in word else "PATH")
    return kind, m.group(2).strip(), marker


_CLOSERS = {"<!--": "-->", "/*": "*/", "{/*": "*/}", "(*": "*)"}


def _after_marker(line: str, marker: str) -> str | None:
    """The raw text behind `marker` on `line` (its closer removed), left spacing kept."""
    s = line.strip()
    if not s.startswith(marker):
        return None
    rest = s[len(marker) :]
    closer = _CLOSERS.get(marker)
    if closer is not None:
        if not rest.endswith(closer):
            return None
        rest = rest[: -len(closer)].rstrip()
    elif marker[0] in "#;%-/":
        rest = rest.lstrip(marker[0]) if marker != "--" else rest
    return rest


def _pad(text: str) -> int:
    return len(text) - len(text.lstrip())


def _continuation(line: str, marker: str | None, header_pad: int) -> str | None:
    """A further target level: behind the header's own comment marker and indented deeper
    than the header's text (`#   def validate` under `# TARGET_NODE: class UserAuth`)."""
    if marker is None:
        return None
    rest = _after_marker(line, marker)
    if rest is None or not rest.strip() or _pad(rest) <= header_pad:
        return None
    if _HEADER.match(rest.strip()):
        return None
    return rest.strip()


def _file_before(lines: list[str], fence: Fence, floor: int) -> tuple[str | None, int]:
    k = fence.start - 1
    if k <= floor or k < 0:
        return None, fence.start
    head = _header(lines[k])
    if head is not None and head[0] == "FILE":
        return clean_path(head[1]) or None, k
    return None, fence.start


def find_blocks(lines: list[str]) -> list[EditBlock]:
    """Every fenced block whose header names a TARGET_NODE or TARGET_PATH."""
    return blocks_per_fence(lines, _block)


def _block(lines: list[str], fence: Fence, floor: int, index: int) -> EditBlock | None:
    stop = fence.end if fence.end is not None else len(lines)
    body = lines[fence.start + 1 : stop]
    path: str | None = None
    levels: list[str] = []
    data_path: str | None = None
    marker: str | None = None
    header_pad = 0
    last_kind: str | None = None
    k = 0
    while k < len(body) and k < _MAX_HEADER:
        line = body[k]
        if not line.strip() and last_kind is None:
            k += 1
            continue
        head = _header(line)
        if head is not None:
            kind, value, marker = head
            after = _after_marker(line, marker) if marker is not None else None
            header_pad = _pad(after) if after is not None else 0
            if kind == "FILE":
                path = clean_path(value) or None
            elif kind == "NODE":
                levels.extend(split_levels(value))
            else:
                data_path = value or None
            last_kind = kind
            k += 1
            continue
        more = _continuation(line, marker, header_pad) if last_kind == "NODE" else None
        if more is None:
            break
        levels.append(more)
        k += 1
    if not levels and data_path is None:
        return None
    before, before_line = _file_before(lines, fence, floor)
    path = path or before
    start = before_line if before is not None else fence.start
    end = fence.end if fence.end is not None else len(lines) - 1
    first = k
    while first < len(body) and not body[first].strip():
        first += 1
    content_lines = body[first:]
    language = fence.language.lower() if fence.language and "." not in fence.language else None
    body_start = fence.start + 1 + first  # the content's first line, 0-based in `lines`
    marker = find_marker(
        lines, body_start, body_start + len(content_lines), VERBATIM, is_document(path, language)
    )
    error = None
    if fence.end is None:
        error = Failure(
            ErrorCode.MALFORMED_BLOCK,
            f"the structural block opened at reply line {fence.start + 1} is never closed; "
            "the block is incomplete (was the reply cut off?)",
            {"line": fence.start + 1, "incomplete": True},
        )
    elif path is None or not looks_like_file_path(path):
        error = Failure(
            ErrorCode.MALFORMED_BLOCK,
            f"the structural block at reply line {fence.start + 1} has no usable `FILE:` line "
            "(put `FILE: path/to/file` first in the block, before `TARGET_NODE:`)",
            {"line": fence.start + 1},
        )
    elif marker is not None:
        error = marker.failure(marker.index + 1, "the new code of a structural block")
    return EditBlock(
        Format.STRUCTURAL,
        path,
        (start + 1, end + 1),
        action=Action.STRUCTURAL,
        content=normalise_text(content_lines),
        target=Target(node=tuple(levels), data_path=data_path),
        language=language,
        error=error,
        index=index,
    )
