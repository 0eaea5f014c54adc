"""A snippet with no placeholder that restates one definition of the file (a class, or
one method with a new doc comment): that definition is replaced and the rest of the file
kept (see `lazy`, "Snippets without placeholders").
"""

from __future__ import annotations

from lsp_server.model import ErrorCode, PlacementError
from lsp_server.patterns import compiled_on_use
from lsp_server.resolve.indent import swap_prefix
from lsp_server.resolve.line_shape import block_end, definition_name, indent_width, is_blank, lead
from lsp_server.resolve.merge import readings
from lsp_server.resolve.merge.offset_lines import OffsetLines

# A C preprocessor directive.
_preprocessor = compiled_on_use(
    r"#\s*(?:include|define|if|ifdef|ifndef|endif|else|elif|pragma|undef)\b"
)


def is_prefix_line(line: str) -> bool:
    """A comment or decorator line that belongs to the definition below it."""
    s = line.strip()
    if not s:
        return False
    if s.startswith("#") and not s.startswith("#[") and _preprocessor().match(s):
        return False
    return s.startswith(("//", "/*", "*", "#", "--", "<!--", "@", ";"))


def restate_definition(
    o_lines: OffsetLines, s_lines: list[str], path: str, as_part: bool = False
) -> str | None:
    """The file with the one definition the snippet restates replaced, or None when the
    snippet is not such a restatement (the caller then overwrites).

    A restated block that begins at the file's first line, where the file goes on past
    it, could as well be the whole new file (which drops the rest): the two readings give
    different files, so it is refused naming both, unless the user chose the part
    (`as_part`)."""
    nonblank = [i for i, line in enumerate(s_lines) if line.strip()]
    if not nonblank or not o_lines:
        return None
    body = s_lines[nonblank[0] : nonblank[-1] + 1]
    k = 0
    while k < len(body) and (is_prefix_line(body[k]) or is_blank(body[k])):
        k += 1
    if k == len(body):
        return None
    header = body[k]
    end = block_end(body, k)
    if end != len(body) - 1:
        return None
    if end == k and not definition_name(header):
        return None
    key = header.rstrip()
    hits = [i for i, line in enumerate(o_lines) if line.rstrip() == key]
    if not hits:  # the same header at another indentation: the snippet was shifted
        hits = [i for i, line in enumerate(o_lines) if line.strip() == key.strip()]
        if len(hits) == 1:
            body = swap_prefix(body, lead(header), lead(o_lines[hits[0]]))
            if body is None:
                return None
    if not hits:
        return None
    if len(hits) > 1:
        raise PlacementError.of(
            ErrorCode.TEXT_AMBIGUOUS,
            f"the snippet restates `{header.strip()}`, which occurs in the file at lines "
            f"{', '.join(str(h + 1) for h in hits[:20])}; include its enclosing definition or "
            "a `...` placeholder with surrounding lines",
            lines=[h + 1 for h in hits],
            path=path,
        )
    h = hits[0]
    o_end = block_end(o_lines, h)
    starts_file = not as_part and not any(o_lines[i].strip() for i in range(h))
    more = next((i for i in range(o_end + 1, len(o_lines)) if o_lines[i].strip()), None)
    if starts_file and more is not None:
        raise readings.ambiguous(
            f"the block restates `{header.strip()[:60]}`, where {path} begins, and the file "
            f"goes on after it (line {more + 1}: `{o_lines[more].strip()[:60]}`): as the "
            "whole new file it drops the rest, as that part of the file it keeps it",
            [readings.WHOLE, readings.FRAGMENT],
            path=path,
            lines=[h + 1, o_end + 1],
        )
    o_start = h
    if k > 0:  # the snippet brings its own comments / decorators: they replace the file's
        d = indent_width(o_lines[h])
        while o_start > 0 and is_prefix_line(o_lines[o_start - 1]):
            above = o_lines[o_start - 1]
            if indent_width(above) != d and not above.strip().startswith("*"):
                break
            o_start -= 1
    runs = [o_lines.chars(0, o_start)] if o_start > 0 else []
    runs.append("\n".join(body))
    if o_end + 1 < len(o_lines):
        runs.append(o_lines.chars(o_end + 1, len(o_lines)))
    return "\n".join(runs) + ("\n" if o_lines.newline else "")
