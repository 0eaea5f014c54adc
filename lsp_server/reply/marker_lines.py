"""Lines shaped like edit markers, and which kinds matter where.

A reply line such as `------- SEARCH`, `<<<<<<<<<<< SEARCH` or `*** Update File: a.py` says
the model meant an edit, whether or not its format is one we read. Text we write verbatim
(a whole-file body, a structural body, the lines a REPLACE section adds) must never carry
such a line into a file: a block holding one is either a well-formed block of a known
format, parsed as that, or refused as MALFORMED_BLOCK naming the line. One classifier
decides what is marker-shaped; each caller chooses which kinds matter where it writes.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from enum import StrEnum
from typing import NamedTuple

from lsp_server.model import ErrorCode, Failure, Format
from lsp_server.patterns import compiled_on_use
from lsp_server.reply.common import line_starts


class MarkerKind(StrEnum):
    BLOCK = "block"  # SEARCH/REPLACE/EDIT markers: any run of < = > + - and the word
    PATCH = "patch"  # V4A `*** Begin Patch`, `*** Update File:`, ...
    CONFLICT = "conflict"  # merge-conflict markers `<<<<<<< HEAD`, `>>>>>>> main`
    DIVIDER = "divider"  # a lone `=======`, the SEARCH/REPLACE divider
    DIFF = "diff"  # unified-diff headers: `diff --git`, `--- a/x` / `+++ b/x`, `@@ ... @@`


# Which kinds matter where. Everything, for a fenced body written as it stands. In the new
# text of a SEARCH/REPLACE or EDIT section, diff and V4A lines are ordinary content (a patch
# file or a Markdown example is edited that way; only lines starting with `<`, `=` or `>` are
# those formats' own business). A fence with no path is never written, so only the
# unmistakable kinds make it a broken edit rather than a code sample.
VERBATIM = frozenset(MarkerKind)
SECTION = frozenset({MarkerKind.BLOCK, MarkerKind.CONFLICT, MarkerKind.DIVIDER})
UNMISTAKABLE = frozenset({MarkerKind.BLOCK, MarkerKind.PATCH})

_MARK_CHARS = r"[<>=+\-|]"
_MARK_WORDS = r"(?:SEARCH|REPLACE|ORIGINAL|UPDATED|EDIT(?:[ \t]+END)?)"
# single quantifiers around a literal word, matched from the line's start: linear
_block_marker = compiled_on_use(
    rf"(?i:{_MARK_CHARS}{{3,}}[ \t]*(?P<w1>{_MARK_WORDS})[ \t]*{_MARK_CHARS}*:?)"
    rf"|(?P<w2>{_MARK_WORDS})[ \t]*{_MARK_CHARS}{{3,}}"
)
_conflict_marker = compiled_on_use(r"(?:<{7}|>{7}|\|{7})(?:[ \t].*)?")
_divider_marker = compiled_on_use(r"={5,9}")
_hunk_header = compiled_on_use(r"@@(?:[ \t].*)?")
_patch_header = compiled_on_use(
    r"\*\*\* (?:Begin Patch|End Patch|End of File|Move to:|(?:Add|Update|Delete) File:)"
)
# Cheap first tests, on the line's first character: what each pattern above can start with
# (the mark characters, or an upper-case marker word, for `_block_marker`). Most lines of
# code start with none of them, so most lines compile and run no pattern at all.
_MARKER_STARTS = frozenset("<>=+-|*@dSROUE")
_BLOCK_STARTS = frozenset("<>=+-|SROUE")
_CONFLICT_STARTS = frozenset("<>|")
# The lines `edit_marker` may accept, found in a whole body at once (see `line_starts`): a
# run, `*** `, `@@`, `diff --git` or a marker word first (upper case only, as `_block_marker`
# has it there).
_candidate = compiled_on_use(
    r"\n[^\S\n]*(?:[<>=+\-|*@]|diff --git |SEARCH|REPLACE|ORIGINAL|UPDATED|EDIT)"
)
# Formats whose headings are underlined with `=`: there a lone `=======` is a heading.
_DOCUMENT_SUFFIXES = (".md", ".markdown", ".mdx", ".rst", ".rest", ".txt", ".adoc", ".org")
_DOCUMENT_LANGUAGES = frozenset(
    {"markdown", "md", "mdx", "rst", "restructuredtext", "text", "txt", "plaintext", "adoc"}
)


class MarkerLine(NamedTuple):
    """A line shaped like an edit marker: its kind, the format it belongs to, its index in the
    lines it was found in, and its text (stripped)."""

    kind: MarkerKind
    format: Format
    index: int
    text: str

    def failure(self, reply_line: int, what: str) -> Failure:
        """MALFORMED_BLOCK naming this line; `what` says which text it was found in."""
        shown = self.text if len(self.text) <= 80 else self.text[:77] + "..."
        return Failure(
            ErrorCode.MALFORMED_BLOCK,
            f"reply line {reply_line}: `{shown}` in {what} is shaped like an edit marker, "
            f"so the block is not written as it stands; {_MARKER_HINTS[self.format]}",
            {"line": reply_line, "text": self.text, "marker": str(self.kind)},
        )


_MARKER_HINTS = {
    Format.SEARCH_REPLACE: "a SEARCH/REPLACE block is `<<<<<<< SEARCH`, the old lines, "
    "`=======`, the new lines, `>>>>>>> REPLACE` (5 to 9 of `<`, `=`, `>`), each marker alone "
    "on its line",
    Format.EDIT: "an EDIT block is `<<<< EDIT`, the old lines, `==== REPLACE`, the new lines, "
    "`>>>> EDIT END`, each marker alone on its line",
    Format.UNIFIED_DIFF: "a unified diff is `--- a/path`, `+++ b/path`, then `@@` hunks whose "
    "lines start with ' ', '-' or '+'",
    Format.APPLY_PATCH: "a V4A patch is `*** Begin Patch`, `*** Update File: path` (or Add / "
    "Delete), `@@` chunks, `*** End Patch`",
}


def is_document(path: str | None, language: str | None) -> bool:
    """Is the text a document format (Markdown, reStructuredText, plain text, ...) where a
    line of `=` underlines a heading rather than dividing a SEARCH/REPLACE block?"""
    if language and language.lower() in _DOCUMENT_LANGUAGES:
        return True
    return bool(path) and path.lower().endswith(_DOCUMENT_SUFFIXES)


def edit_marker(lines: Sequence[str], k: int, document: bool = False) -> MarkerLine | None:
    """What edit marker `lines[k]` is shaped like, or None. `document`: a lone `=======` is a
    heading underline there (see `is_document`), not a divider."""
    s = lines[k].strip()
    if len(s) < 2 or s[0] not in _MARKER_STARTS:
        return None
    first = s[0]
    m = _block_marker().fullmatch(s) if first in _BLOCK_STARTS else None
    if m:
        word = m.group("w1") or m.group("w2")
        # `=== Search ===` may be a heading in prose; with `<` or `>` any case is a marker
        if word.isupper() or "<" in s or ">" in s:
            word = word.upper()
            edit = word.startswith("EDIT") or (s.startswith("====") and s[4] != "=")
            fmt = Format.EDIT if edit else Format.SEARCH_REPLACE
            return MarkerLine(MarkerKind.BLOCK, fmt, k, s)
    if first in _CONFLICT_STARTS and _conflict_marker().fullmatch(s):
        return MarkerLine(MarkerKind.CONFLICT, Format.SEARCH_REPLACE, k, s)
    if first == "=" and _divider_marker().fullmatch(s):
        return None if document else MarkerLine(MarkerKind.DIVIDER, Format.SEARCH_REPLACE, k, s)
    if first == "*" and _patch_header().match(s):
        return MarkerLine(MarkerKind.PATCH, Format.APPLY_PATCH, k, s)
    if _is_diff_line(lines, k, s):
        # `@@ def f():` is a V4A chunk header; `@@ -1 +1 @@` and `@@ ... @@` a diff's
        v4a = s.startswith("@@") and not (s.startswith("@@ -") or s.endswith("@@"))
        return MarkerLine(MarkerKind.DIFF, Format.APPLY_PATCH if v4a else Format.UNIFIED_DIFF, k, s)
    return None


def _is_diff_line(lines: Sequence[str], k: int, s: str) -> bool:
    """A unified-diff header line: `diff --git`, a hunk header, `--- a/x` / `+++ b/x`, or a
    `--- x` / `+++ y` pair (the pair is how a diff is told from a `---` rule or comment)."""
    if s.startswith("diff --git ") or (s.startswith("@@") and _hunk_header().fullmatch(s)):
        return True
    if s.startswith(("--- a/", "+++ b/")) and len(s) > 6 and not s[6].isspace():
        return True
    if s.startswith("--- "):
        return k + 1 < len(lines) and lines[k + 1].strip().startswith("+++ ")
    if s.startswith("+++ "):
        return k > 0 and lines[k - 1].strip().startswith("--- ")
    return False


def markers_in(
    lines: Sequence[str], start: int, stop: int, document: bool = False
) -> Iterator[MarkerLine]:
    """Every line in `lines[start:stop]` shaped like an edit marker, in order. One regex over
    the joined lines picks the few candidates (a fenced body can be most of a 1 MB reply)."""
    for k in line_starts(_candidate(), lines, start, stop):
        marker = edit_marker(lines, k, document)
        if marker is not None:
            yield marker


def find_marker(
    lines: Sequence[str],
    start: int,
    stop: int,
    kinds: frozenset[MarkerKind] = VERBATIM,
    document: bool = False,
) -> MarkerLine | None:
    """The first line in `lines[start:stop]` shaped like an edit marker of one of `kinds`."""
    return next((m for m in markers_in(lines, start, stop, document) if m.kind in kinds), None)
