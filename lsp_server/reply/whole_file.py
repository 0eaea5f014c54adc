"""Whole-file blocks: a fenced block introduced by a path.

````
src/a.py
```python
...the file, possibly with `# ... existing code ...` placeholders...
```
````

The path may be on the line before the fence (decorated or not: `**src/a.py**`,
`` `src/a.py`: ``, `### src/a.py`), in the info string (```` ```python src/a.py ````,
```` ```py title="a.py" ````, ```` ```python:src/a.py ````), or on the first line inside
the fence as a comment (`# src/a.py`, `// filepath: src/a.py`, `<!-- a.html -->`); that
comment line is not part of the file.

A fence with no recognisable path is a code sample, not an edit. So are shell sessions
and diffs (other finders read diffs). Paths must look like files (an extension or a
slash), so prose such as "Here is the code:" never names one. The block's action is LAZY:
the plan creates a missing file, and merges into an existing one (`resolve.lazy_merge`),
never writing a placeholder line.
"""

from __future__ import annotations

import re

from lsp_server.model import Action, EditBlock, ErrorCode, Failure, Format
from lsp_server.reply.common import (
    Fence,
    blocks_per_fence,
    clean_path,
    looks_like_file_path,
    normalise_text,
    path_from_info,
    strip_comment_marker,
)

NOT_FILES = frozenset(
    """bash sh console shell shell-session zsh fish ksh csh tcsh powershell pwsh ps1 cmd bat
    batch terminal diff patch udiff""".split()
)
_LABEL = re.compile(r"(?i)^(?:file|filename|filepath|file path|path)\s*:\s*")


def _file_path(text: str) -> str | None:
    """`text` as a file path, after removing decoration and a `File:`-style label."""
    s = clean_path(text)
    s = _LABEL.sub("", s).strip().strip("`").strip()
    if len(s) >= 2 and s[0] == s[-1] and s[0] in "'\"":
        s = s[1:-1]
    return s if looks_like_file_path(s) else None


def _info(info: str) -> tuple[str | None, str | None]:
    """(language, path) from a fence's info string."""
    words = info.split()
    if not words:
        return None, None
    first = words[0]
    if ":" in first and "=" not in first:  # ```python:src/a.py
        lang, _, rest = first.partition(":")
        path = _file_path(rest)
        if path:
            return lang.lower() or None, path
    path = path_from_info(info)
    if path is not None and not looks_like_file_path(path):
        path = None
    language = None if _file_path(first) or "=" in first else first.lower()
    return language, path


def _path_before(lines: list[str], fence: Fence, floor: int) -> tuple[str | None, int]:
    """The path written on the line before the fence (one blank line allowed between)."""
    k = fence.start - 1
    if k > floor and not lines[k].strip():
        k -= 1
    if k <= floor or k < 0:
        return None, fence.start
    line = lines[k]
    if line.lstrip().startswith(("```", "~~~")) or len(line) > 300:
        return None, fence.start
    return _file_path(line), k


def _path_comment(line: str) -> str | None:
    """A first line inside the fence that is only a path behind a comment marker."""
    text, marker = strip_comment_marker(line)
    if marker is None or len(line) > 300:
        return None
    return _file_path(text)


def find_blocks(lines: list[str]) -> list[EditBlock]:
    """Every fenced block in `lines` that a path introduces, as a LAZY whole-file block."""
    return blocks_per_fence(lines, _block)


def _block(lines: list[str], fence: Fence, floor: int) -> EditBlock | None:
    language, info_path = _info(fence.info)
    if language in NOT_FILES:
        return None
    stop = fence.end if fence.end is not None else len(lines)
    body = lines[fence.start + 1 : stop]
    before, before_line = _path_before(lines, fence, floor)
    first_line_path = _path_comment(body[0]) if body else None
    path = before or info_path or first_line_path
    if path is None:
        return None
    if first_line_path is not None and first_line_path == path:
        body = body[1:]
    start = before_line if before is not None else fence.start
    span = (start + 1, (fence.end if fence.end is not None else len(lines) - 1) + 1)
    error = None
    if fence.end is None:
        error = Failure(
            ErrorCode.MALFORMED_BLOCK,
            f"the fenced block for {path} opened at reply line {fence.start + 1} is never "
            "closed; the block is incomplete (was the reply cut off?)",
            {"line": fence.start + 1, "incomplete": True},
        )
    return EditBlock(
        Format.WHOLE_FILE,
        path,
        span,
        action=Action.LAZY,
        content=normalise_text(body),
        language=language,
        error=error,
    )
