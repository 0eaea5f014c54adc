"""Which lines of a block stand for code it leaves out.

A line elides code only when it says so: a placeholder line (`resolve.placeholders`:
`// ... existing code ...`, `# rest of file unchanged`), or, in a snippet, a comment that
starts or ends with an ellipsis AND whose words speak of code left out (`// ... save()
unchanged ...`, `# ... other methods ...`). A comment that merely trails off
(`# Issue while reading the netrc file, ignore...`) is a comment.

And a reply comment that is a comment the file holds at that place — the same text, with
the same line before or after it — is that comment, whatever it says: the file's own
`# ... see below ...` is code to keep as it is, not a hole to fill.

Pure: lines in, flags out.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from lsp_server.resolve.merge.offset_lines import OffsetLines
from lsp_server.resolve.placeholders import is_placeholder_line

_ELLIPSES = ("...", "\u2026")
_NOT_PROSE = frozenset(";{}=")
_WORD = re.compile(r"[a-z']+")
# Words by which a trailing-off comment says code was left out (one of them is enough).
_OMISSION = frozenset(
    """existing unchanged rest same other others remaining remainder omitted omit previous
    previously skipped skip snip snipped etc more unmodified untouched elided elide
    abbreviated truncated shortened before above below original""".split()
)


def says_elided(line: str, markers: Sequence[str], path: str = "") -> bool:
    """`line` stands for code the block leaves out (see the module docstring)."""
    if is_placeholder_line(line, path):
        return True
    s = line.strip()
    marker = next((m for m in markers if s.startswith(m)), None)
    if marker is None:
        return False
    text = s[len(marker) :].removesuffix("*/").strip()
    if len(text) > 80 or any(c in _NOT_PROSE for c in text):
        return False
    if not (text.startswith(_ELLIPSES) or text.endswith(_ELLIPSES)):
        return False
    words = _WORD.findall(text.lower())
    return not words or any(w in _OMISSION for w in words)


def _neighbour(lines: Sequence[str], k: int, step: int) -> str | None:
    j = k + step
    while 0 <= j < len(lines):
        if lines[j].strip():
            return lines[j].strip()
        j += step
    return None


def file_comments(
    reply: Sequence[str], holes: Sequence[bool], file_lines: Sequence[str]
) -> list[bool]:
    """`holes` with the reply lines that are a comment the file holds at that place turned
    off: the same stripped text, and the same non-blank line before or after it on both
    sides (or the file's start / end)."""
    if not any(holes) or not file_lines:
        return list(holes)
    where: dict[str, list[int]] = {}
    wanted = {reply[k].strip() for k, h in enumerate(holes) if h}
    for o, line in enumerate(file_lines):
        key = line.strip()
        if key in wanted:
            where.setdefault(key, []).append(o)
    out = list(holes)
    for k, hole in enumerate(holes):
        if not hole:
            continue
        for o in where.get(reply[k].strip(), ()):
            if _neighbour(reply, k, -1) == _neighbour(file_lines, o, -1) or _neighbour(
                reply, k, 1
            ) == _neighbour(file_lines, o, 1):
                out[k] = False
                break
    return out


def file_comments_in(reply: Sequence[str], holes: Sequence[bool], text: str) -> list[bool]:
    """`file_comments` against a file's text, read line by line only when the text holds
    one of the hole lines' texts at all (most files hold none: a search in C settles it,
    where a 10 MB file has half a million lines to strip)."""
    if not any(hole and reply[k].strip() in text for k, hole in enumerate(holes)):
        return list(holes)
    return file_comments(reply, holes, OffsetLines(text))
