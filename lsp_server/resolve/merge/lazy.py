"""Lazy whole-file merge: put a model's abbreviated rewrite of a file into the real file.

Models often answer "here is the new file" with a snippet that skips what did not change:
`// ... existing code ...`, `# rest of file unchanged`, `{/* ... */}`. Writing that snippet
over the file would replace real code with a comment, so this module reads it the way a
person does and never writes a placeholder line into the result.

Model of a snippet
------------------
The snippet is a sequence of *concrete segments* separated by *placeholders*. Each
placeholder stands for a *kept* region of the original; each segment replaces the region
of the original it restates. Where the snippet does not start (end) with a placeholder,
its first (last) segment is the file's head (tail): it replaces the file's lines from its
first (last) restated line over every line indented deeper than its restated lines -
that is how a changed last line of a method is read - and keeps what it never mentions:
a snippet that starts at `class Store:` does not delete the imports above it, one that
ends inside a method does not delete `main()` below it. A head (tail) that restates
nothing is new code at the top (bottom) of the file.

Alignment, in steps that each need evidence, never a guess
----------------------------------------------------------
1. **Anchors** - lines (trailing whitespace ignored) that occur exactly once in the file
   and once in the snippet, and carry enough text to mean something (not `}`, `end`,
   `pass`), are paired, keeping the longest chain that is in the same order in both
   (patience alignment). Between two anchors of one segment a line diff pairs the rest,
   including modified lines (a one-for-one replacement). An anchor whose enclosing line
   (see 3) is not paired with the file line's enclosing line is dropped and the
   alignment redone: `return this;` inside a new `exp()` is not the one inside `add()`,
   however unique. Short lines that occur once on each side (`}`, `</StepsDiv>`) anchor
   only when their enclosing lines are already paired with each other.
2. **Edges** - from a segment's outermost anchor (or from the top/bottom of the file for
   a head/tail segment) the segment is grown outward one original line at a time: the
   line must appear next in the snippet (the snippet may insert lines before it), or be
   a close variant of the next snippet line (same indentation, similarity >= 0.75).
   Blank lines are skipped on both sides; blank-line runs are settled at the joins.
3. **Enclosure check** - a paired line is only believed when its enclosing line (the
   nearest line above with less indentation; for a closer such as `}` or `</div>`, the
   line that opened it) is paired with the original line's enclosing line. This is what
   keeps `return this;` / `}` of a *new* method from being taken for the end of an old
   one. Edge pairs that fail it are dropped, and so is everything further out.
4. **Regions** - a segment replaces the original lines from its first to its last paired
   line. A segment with nothing paired between two placeholders is new code when its
   first line does not occur in the file (if it does, we cannot tell which occurrence is
   meant: TEXT_AMBIGUOUS). New code goes where the gap leaves no choice: an empty gap, or
   the end of the gap when the next segment starts with a closer less indented than the
   new code (a method added at the end of a class: `// ...` / new method / `// ...` /
   `}`). Anywhere else nothing says where in the gap it belongs: TEXT_AMBIGUOUS.
5. **Joins** - where a kept region meets a segment whose edge line restates a file line,
   the file's blank-line run stands; where the edge is new code, the longer run wins (no
   doubled blank lines). A placeholder that stands for nothing takes its surrounding
   blank lines with it, down to the shorter of the two sides.
6. **Redefinition check** - a definition the snippet adds (`static add(a, b) {`) whose name
   is also defined at the same indentation in a kept region (`add(number) {`) means the
   snippet meant to replace something it did not restate: TEXT_AMBIGUOUS, naming both.

Failures raise PlacementError: TEXT_NOT_FOUND (with the closest line) when nothing in a
snippet with placeholders can be placed, TEXT_AMBIGUOUS (with every candidate line) when
the snippet does not say which of several places it means.

Snippets without placeholders
-----------------------------
Continue's corpus shows models restating a single definition and nothing else (a class,
or one method with a new doc comment). A placeholder-free snippet is read as such a
*restatement* when all of this holds: after its leading comment / decorator lines it is a
single block (a header line and everything indented under it, up to the closer at the
header's indentation), that block spans several lines or its header names a definition,
and the header line occurs in the file exactly once (when it occurs once only at another
indentation, a uniformly indented snippet is shifted to the file's). The original block
(from the header to its end by the same rule, plus the comment/decorator lines directly
above it when the snippet brings its own) is replaced and the rest of the file kept. A
header that occurs several times is TEXT_AMBIGUOUS. Anything else is a whole-file
rewrite: the result is the snippet itself (reported as `overwrite`).

Texts use "\\n" line endings; the caller maps to and from the file's own.

Rooms: this module (the entry, and the check that no placeholder is written),
`lazy_alignment` (steps 1-6), `blank_joins` (the output and its blank-line runs),
`restatement` (snippets without placeholders), `offset_lines` (the file's lines without a
string per line: a 10 MB file is read closely only where the snippet restates it).
"""

from __future__ import annotations

from typing import NamedTuple

from lsp_server.linediff import common_prefix, common_suffix
from lsp_server.model import ErrorCode, MatchKind, PlacementError
from lsp_server.resolve.merge.elision import file_comments_in
from lsp_server.resolve.merge.lazy_alignment import Merger
from lsp_server.resolve.merge.offset_lines import OffsetLines
from lsp_server.resolve.merge.restatement import restate_definition
from lsp_server.resolve.placeholders import count_placeholder_lines, is_placeholder_line


class LazyMerge(NamedTuple):
    """The merged text and how it was obtained: ELISION for a merge around placeholders or a
    restated definition, OVERWRITE when the snippet replaces the whole file."""

    text: str
    match: MatchKind


def lazy_merge(original: str, snippet: str, path: str = "") -> str:
    """The file after applying the lazy `snippet` to `original` (see the module docstring).

    Raises PlacementError(TEXT_AMBIGUOUS / TEXT_NOT_FOUND) when the snippet cannot be placed
    without guessing.
    """
    return merge(original, snippet, path).text


def merge(original: str, snippet: str, path: str = "", as_part: bool = False) -> LazyMerge:
    """Like `lazy_merge`, also saying whether the result is a merge or an overwrite.
    `as_part`: the user chose to read a block without placeholders as a part of the file
    (see `restate_definition`)."""
    o_lines = OffsetLines(original)
    s_lines = _split(snippet)
    placeholder = [is_placeholder_line(line, path) for line in s_lines]
    # the file's own `# ... see below ...` shown where the file has it is that comment
    placeholder = file_comments_in(s_lines, placeholder, original)
    if not any(placeholder):
        restated = restate_definition(o_lines, s_lines, path, as_part)
        if restated is None:
            return LazyMerge(snippet, MatchKind.OVERWRITE)
        return LazyMerge(restated, MatchKind.ELISION)
    runs = Merger(o_lines, s_lines, placeholder, path).run()
    if runs and (o_lines.newline or not original):
        runs.append("")  # the final "\\n", joined in (a `+` would copy the whole text again)
    merged = "\n".join(runs)
    del runs  # the kept runs are slices of the file: not held while the check reads both
    if adds_placeholder(original, merged, path):  # by construction impossible; refuse
        raise PlacementError.of(
            ErrorCode.TEXT_NOT_FOUND,
            "internal check failed: the merge would write a placeholder line",
            path=path,
        )
    return LazyMerge(merged, MatchKind.ELISION)


def _split(text: str) -> list[str]:
    """The lines of `text`, less the empty piece after a final "\\n"."""
    if not text:
        return []
    lines = text.split("\n")
    return lines[:-1] if lines[-1] == "" else lines


def adds_placeholder(original: str, merged: str, path: str) -> bool:
    """`merged` has more placeholder lines than `original`. The lines both texts begin and
    end with (found by comparing their characters) count the same on both sides, so only
    the lines between are read: a 10 MB merge changes a few."""
    head = original.rfind("\n", 0, common_prefix(original, merged)) + 1  # at a line start
    same_end = common_suffix(original, merged, min(len(original), len(merged)) - head)
    newline = original.find("\n", len(original) - same_end)  # the common end's whole lines
    tail = len(original) - newline - 1 if newline >= 0 else 0
    before = original[head : len(original) - tail].split("\n")
    after = merged[head : len(merged) - tail].split("\n")
    return count_placeholder_lines(after, path) > count_placeholder_lines(before, path)
