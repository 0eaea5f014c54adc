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
the plan creates a missing file, and merges into an existing one (`resolve.merge`),
never writing a placeholder line.

A fence holding a line shaped like an edit marker (`------- SEARCH`, `<<<<<<<<<<< SEARCH`, a
lone `=======`, `--- a/x`, `*** Update File:`, ... see `marker_lines.edit_marker`) is never a whole
file: the model meant an edit, and if no known format read it, it is MALFORMED_BLOCK naming
that line. `stray_markers` applies the same rule to the fences the finders read only in part.
"""

from __future__ import annotations

import bisect
import functools
import itertools
import re
from collections.abc import Sequence
from typing import NamedTuple

from lsp_server.model import Action, EditBlock, ErrorCode, Failure, Format
from lsp_server.reply.common import (
    Fence,
    blocks_per_fence,
    clean_path,
    dedent_indented_fences,
    find_fences,
    looks_like_file_path,
    normalise_text,
    path_from_info,
    strip_comment_marker,
)
from lsp_server.reply.marker_lines import (
    UNMISTAKABLE,
    VERBATIM,
    MarkerLine,
    edit_marker,
    find_marker,
    is_document,
    markers_in,
)

NOT_FILES = frozenset(
    """bash sh console shell shell-session zsh fish ksh csh tcsh powershell pwsh ps1 cmd bat
    batch terminal diff patch udiff""".split()
)
_LABEL = re.compile(r"(?i)^(?:file|filename|filepath|file path|path)\s*:\s*")


# The path reads below are pure functions of one line, asked again for every block of a
# reply that names the same file (a megabyte of blocks for one path asks 55,000 times):
# cached per distinct line, lines no longer than this only (a path line is short; a long
# line kept as a cache key would hold its memory).
_CACHED_LINE = 300


def _file_path(text: str) -> str | None:
    """`text` as a file path, after removing decoration and a `File:`-style label."""
    return _cached_file_path(text) if len(text) <= _CACHED_LINE else _read_file_path(text)


def _read_file_path(text: str) -> str | None:
    s = clean_path(text)
    s = _LABEL.sub("", s).strip().strip("`").strip()
    if len(s) >= 2 and s[0] == s[-1] and s[0] in "'\"":
        s = s[1:-1]
    return s if looks_like_file_path(s) else None


_cached_file_path = functools.lru_cache(maxsize=1024)(_read_file_path)


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
    return None if len(line) > _CACHED_LINE else _cached_path_comment(line)


@functools.lru_cache(maxsize=1024)  # asked of every fence's first line: see `_CACHED_LINE`
def _cached_path_comment(line: str) -> str | None:
    text, marker = strip_comment_marker(line)
    return None if marker is None else _file_path(text)


def find_blocks(lines: list[str]) -> list[EditBlock]:
    """Every fenced block in `lines` that a path introduces, as a LAZY whole-file block; a
    fence holding a line shaped like an edit marker is a MALFORMED_BLOCK instead."""
    return blocks_per_fence(lines, _block)


class FenceHead(NamedTuple):
    """What a fence says about itself: its language, its path and the reply line (0-based)
    the block starts on, and how many body lines the header takes (a path comment)."""

    language: str | None
    path: str | None
    start: int
    skip: int


def fence_head(lines: list[str], fence: Fence, floor: int) -> FenceHead:
    language, info_path = _info(fence.info)
    stop = fence.end if fence.end is not None else len(lines)
    first = lines[fence.start + 1] if fence.start + 1 < stop else None
    before, before_line = _path_before(lines, fence, floor)
    # `--- a/x.py` reads as a path behind a `--` comment; a marker-shaped line is no header
    header = first is not None and edit_marker(lines, fence.start + 1) is None
    first_line_path = _path_comment(first) if header and first is not None else None
    path = before or info_path or first_line_path
    skip = 1 if first_line_path is not None and first_line_path == path else 0
    return FenceHead(language, path, before_line if before is not None else fence.start, skip)


def _block(lines: list[str], fence: Fence, floor: int, index: int) -> EditBlock | None:
    head = fence_head(lines, fence, floor)
    path, language = head.path, head.language
    if path is None or language in NOT_FILES:
        return None  # a code sample, not an edit (`stray_markers` reads its marker lines)
    stop = fence.end if fence.end is not None else len(lines)
    span = (head.start + 1, (fence.end if fence.end is not None else len(lines) - 1) + 1)
    marker = find_marker(
        lines, fence.start + 1 + head.skip, stop, VERBATIM, is_document(path, language)
    )
    if marker is not None:
        # never a whole file: a broken edit, or one a known format did not read
        return EditBlock(
            marker.format,
            path,
            span,
            language=language,
            error=marker.failure(marker.index + 1, "a fenced block"),
            index=index,
        )
    body = lines[fence.start + 1 + head.skip : stop]
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
        index=index,
    )


def stray_markers(lines: list[str], blocks: Sequence[EditBlock]) -> list[EditBlock]:
    """Marker-shaped lines inside fences that none of `blocks` (everything the finders kept)
    holds, as MALFORMED_BLOCK blocks, so that no botched edit goes silently unread:

    * in a fence the blocks hold in part (a well-formed block, then a botched one), every
      marker-shaped line the blocks leave;
    * in a fence no block holds (it has no path, or is a shell or diff sample), only the
      unmistakable ones, SEARCH/REPLACE/EDIT-style markers and V4A headers: a merge conflict
      or a diff shown as an example is not an edit.

    Marker lines with no held line between them form one block, named for the first of them
    and for the path of the block before them (else the fence's own)."""
    ordered = sorted(blocks, key=lambda b: b.reply_lines)
    starts = [b.reply_lines[0] for b in ordered]
    reach = list(itertools.accumulate((b.reply_lines[1] for b in ordered), max))
    lines = dedent_indented_fences(lines)
    out: list[EditBlock] = []
    floor = -1
    for fence in find_fences(lines):
        stop = fence.end if fence.end is not None else len(lines)
        first, last = fence.start + 1, (fence.end if fence.end is not None else len(lines) - 1) + 1
        # the blocks touching the fence (1-based lines first..last), in order
        lo = bisect.bisect_left(reach, first)
        hi = bisect.bisect_right(starts, last)
        touching = [b for b in ordered[lo:hi] if b.reply_lines[1] >= first]
        free = _free_runs(fence.start + 2, stop, touching)  # body lines no block holds
        if free:
            head = fence_head(lines, fence, floor)
            kinds = VERBATIM if touching else UNMISTAKABLE
            document = is_document(head.path, head.language)
            for run_lo, run_hi in free:
                before = [b.path for b in touching if b.reply_lines[1] < run_lo and b.path]
                path = before[-1] if before else head.path
                group = [
                    m for m in markers_in(lines, run_lo - 1, run_hi, document) if m.kind in kinds
                ]
                out.extend(_stray(group, path, head.language))
        floor = fence.end if fence.end is not None else len(lines)
    return out


def _free_runs(lo: int, hi: int, blocks: list[EditBlock]) -> list[tuple[int, int]]:
    """The runs of 1-based lines in [lo, hi] that none of `blocks` (sorted) holds."""
    runs: list[tuple[int, int]] = []
    at = lo
    for b in blocks:
        start, end = b.reply_lines
        if start > at:
            runs.append((at, min(start - 1, hi)))
        at = max(at, end + 1)
        if at > hi:
            break
    if at <= hi:
        runs.append((at, hi))
    return [(a, z) for a, z in runs if a <= z]


def _stray(group: list[MarkerLine], path: str | None, language: str | None) -> list[EditBlock]:
    if not group:
        return []
    first = group[0]
    return [
        EditBlock(
            first.format,
            path,
            (first.index + 1, group[-1].index + 1),
            language=language,
            error=first.failure(first.index + 1, "a fenced block no edit format completes"),
        )
    ]
