"""SEARCH/REPLACE blocks, the edit format aider made common.

```
src/a.py
```python
<<<<<<< SEARCH
old lines
=======
new lines
>>>>>>> REPLACE
```
```

The scan follows aider's own parser where that parser has proven itself on real replies:
markers of 5-9 characters, tested on the stripped line; the path found by looking at most
three lines up (see `common.path_above`); sections taken verbatim; a second `=======` ends
the REPLACE section like `>>>>>>> REPLACE` does; a block without a path reuses the previous
one's. Where aider gives up on the whole reply at the first broken block, we report that
block as MALFORMED_BLOCK and keep going: a SEARCH marker always starts a new block, so one
missing divider cannot swallow the blocks after it. Nor do we write a new-text section holding
a line shaped like a block, conflict or divider marker (`+++++++ REPLACE`, `<<<<<<< HEAD`):
such a block is MALFORMED_BLOCK naming the line (see `added_marker`).

aider's own earlier spellings are the same format: `<<<<<<< ORIGINAL` / `=======` /
`>>>>>>> UPDATED` (May to August 2023) and `<<<<<<< HEAD` / `=======` / `>>>>>>> updated`
(August to October 2023), the path alone on the line above the start marker, inside the fence
or above it. They are read here as SEARCH/REPLACE blocks of those words (see
`earlier_syntaxes`); a block's three markers are one spelling's, as aider's parsers of each
era required.

Cline and Roo Code write the same blocks with their own spellings (Cline: `------- SEARCH` /
`=======` / `+++++++ REPLACE`, any run of three or more, and `<<<` / `>>>` runs; Roo: a
`:start_line:N` / `-------` header after `<<<<<<< SEARCH`, line numbers copied from its file
reader). Written bare, they are found here too (format `cline` or `roo`); inside the agents'
tool calls, `tool_xml` (XML) and `agent_tools` (JSON) hand the diff text to
`search_replace_calls.blocks_from_body`, which reads every block of it into one EditBlock.

`scan` returns the raw result (texts, line numbers, what went wrong) so tests can render it
in other tools' terms; `find_blocks` turns it into EditBlocks.
"""

from __future__ import annotations

import dataclasses
import functools
import re
from collections.abc import Sequence
from typing import NamedTuple

from lsp_server.model import Action, EditBlock, ErrorCode, Failure, Format, Hunk, OnExists
from lsp_server.patterns import compiled_on_use
from lsp_server.reply.common import (
    MAX_MALFORMED,
    fence_open,
    find_fences,
    is_fence_end,
    normalise_text,
    path_above,
    unread_failure,
)
from lsp_server.reply.marker_lines import SECTION, MarkerLine, edit_marker, is_document

SEARCH, DIVIDER, REPLACE = "<<<<<<< SEARCH", "=======", ">>>>>>> REPLACE"


class Syntax(NamedTuple):
    """The three markers of a block format, tested with fullmatch on the stripped line.

    The patterns use single quantifiers only, so matching is linear. `names` are the
    canonical spellings used in messages; `divider_ends` says a second divider ends the
    new-text section (aider's rule for SEARCH/REPLACE).

    This module's records are NamedTuples, not dataclasses: immutable all the same, and a
    fraction of the cost to define when a process imports the parser to place one block.
    """

    start: re.Pattern[str]
    divider: re.Pattern[str]
    end: re.Pattern[str]
    names: tuple[str, str, str]
    divider_ends: bool = False
    leads: str = "<=>"  # the characters a marker line can start with: a cheap first test

    def kind(self, line: str) -> str | None:
        """The canonical name of the marker `line` is, or None."""
        s = line.strip()
        if not s or s[0] not in self.leads:
            return None
        for pattern, name in zip((self.start, self.divider, self.end), self.names, strict=True):
            if pattern.fullmatch(s):
                return name
        return None


SEARCH_REPLACE = Syntax(
    re.compile(r"<{5,9} *SEARCH>?"),
    re.compile(r"={5,9}"),
    # a stray `<` after the marker (a model's typo in real replies) changes no reading
    re.compile(r">{5,9} *REPLACE *<?"),
    (SEARCH, DIVIDER, REPLACE),
    divider_ends=True,
)


# Cline's markers: a run of three or more `-` / `=` / `+` (Cline's own parser reads any such
# run), and the `<<<<<<<` / `>>>>>>>` spellings it also accepts, any length from three. Inside
# an agent's tool call (see `tool_xml`) every block is read this way; outside one, only a
# block that opens with a `-` run, or an aider-shaped block that only reads whole this way.
# (The look-behinds only matter to a search: a run is tried from its start alone, so a long
# run that fails at its end costs its length once, not its length squared.) Built on first
# use, like the patterns of `patterns.compiled_on_use`: a reply in aider's spelling never
# needs it.
@functools.cache
def cline_syntax() -> Syntax:
    return Syntax(
        re.compile(r"(?<![-<])(?:-{3,}|<{3,}) *SEARCH>?"),
        re.compile(r"={3,}"),
        re.compile(r"(?<![+>])(?:\+{3,}|>{3,}) *REPLACE>?"),
        (SEARCH, DIVIDER, REPLACE),
        leads="-<=+>",
    )


# aider's earlier spellings of the same block. Its first parser (May to August 2023) split the
# reply on `<<<<<<< ORIGINAL`, `=======` and `>>>>>>> UPDATED`; its second (August to October
# 2023) on `<<<<<<< HEAD`, `=======` and `>>>>>>> updated`. Neither let a second divider end
# the new text, nor read a block whose markers were of two spellings. ORIGINAL and UPDATED
# are words no other text puts after a run of `<` or `>`, so they are read as loosely as
# SEARCH and REPLACE (5 to 9 characters). `<<<<<<< HEAD` is also how git opens a merge
# conflict: only aider's exact spelling is read, and only a block that reads whole, ending
# `>>>>>>> updated` (a conflict ends with its branch's name), is a block (see `scan_replies`).
ORIGINAL, UPDATED = "<<<<<<< ORIGINAL", ">>>>>>> UPDATED"
HEAD, UPDATED_LOWER = "<<<<<<< HEAD", ">>>>>>> updated"


@functools.cache
def earlier_syntaxes() -> tuple[Syntax, Syntax]:
    """aider's ORIGINAL/UPDATED and HEAD/updated spellings, built on first use (a reply in
    today's spelling never needs them)."""
    return (
        Syntax(
            re.compile(r"<{5,9} *ORIGINAL"),
            re.compile(r"={5,9}"),
            re.compile(r">{5,9} *UPDATED"),
            (ORIGINAL, DIVIDER, UPDATED),
            leads="<=>",
        ),
        Syntax(
            re.compile(r"<{7} HEAD"),
            re.compile(r"={7}"),
            re.compile(r">{7} updated"),
            (HEAD, DIVIDER, UPDATED_LOWER),
            leads="<=>",
        ),
    )


def earlier_spelling(line: str) -> Syntax | None:
    """The earlier aider spelling whose start marker `line` is, or None. A run of `<` is
    looked for first: most lines hold none, and run no pattern."""
    if "<<<<<" not in line or ("ORIGINAL" not in line and "HEAD" not in line):
        return None
    for syntax in earlier_syntaxes():
        if syntax.kind(line) == syntax.names[0]:
            return syntax
    return None


def marker_kind(line: str) -> str | None:
    """SEARCH / DIVIDER / REPLACE when `line` is that SEARCH/REPLACE marker, else None."""
    return SEARCH_REPLACE.kind(line)


class RawBlock(NamedTuple):
    """One block as scanned. Indexes are 0-based into the scanned lines.

    `stop` is the line the scan stood on when the block ended: its terminator, the marker
    that broke it, or len(lines) when the text ran out. `expected` names the missing marker
    of a broken block (None when well-formed), `found` the marker met instead (None when the
    text ran out: the block is incomplete, as when a reply is still streaming).
    """

    start: int
    marker: int
    end: int
    stop: int
    path: str | None
    original: tuple[str, ...]
    updated: tuple[str, ...]
    language: str | None = None
    divider: int | None = None
    expected: str | None = None
    found: str | None = None
    next_block: bool = False  # broken by the next block's start marker, where scanning resumes
    # not a block: the rest of the lines, left unread after this many malformed blocks
    unread: int = 0

    @property
    def incomplete(self) -> bool:
        return self.expected is not None and self.found is None

    @property
    def resume(self) -> int:
        """Where scanning continues: after the terminator, or at the marker that broke us."""
        return self.stop if self.next_block else self.stop + 1


def scan_block(
    lines: list[str],
    marker: int,
    floor: int = -1,
    prev_path: str | None = None,
    syntax: Syntax = SEARCH_REPLACE,
    others: tuple[Syntax, ...] = (),
) -> RawBlock:
    """Scan the block whose start marker is `lines[marker]`; `floor` is the last line of the
    previous block (the path is never looked for at or above it). A start or end marker of
    one of `others` (spellings the block's own must not mix with) ends the scan like one of
    `syntax`'s, and breaks the block."""
    n = len(lines)
    head = path_above(lines, marker, floor, _patterns(syntax))
    path = head.path or prev_path
    start_name, divider_name, end_name = syntax.names
    starts = {start_name, *(o.names[0] for o in others)}
    # (today's spelling has no others: its lines are classified as they always were)
    kind = functools.partial(_kind_among, syntax, others) if others else syntax.kind

    def broken(j: int, expected: str, divider: int | None) -> RawBlock:
        found = kind(lines[j]) if j < n else None
        if found in starts:
            # the next block's header (path line, fence) is the next block's, not ours; in
            # what may be our own content only a name with a "." or "/" counts as a path
            last = divider if divider is not None else marker
            end = path_above(lines, j, last, _patterns(syntax), bare_names=False).start - 1
        elif found is not None:
            end = j
        else:
            end = n - 1
            while end > marker and not lines[end].strip():
                end -= 1
        original = tuple(lines[marker + 1 : divider if divider is not None else j])
        updated = tuple(lines[divider + 1 : j]) if divider is not None else ()
        return RawBlock(
            head.start,
            marker,
            max(end, marker),
            j,
            path,
            original,
            updated,
            head.language,
            divider,
            expected,
            found,
            next_block=found in starts,
        )

    j = marker + 1
    while j < n and kind(lines[j]) is None:
        j += 1
    if j >= n or kind(lines[j]) != divider_name:
        return broken(j, divider_name, None)
    divider = j
    j += 1
    while j < n and kind(lines[j]) is None:
        j += 1
    last = kind(lines[j]) if j < n else None
    if not (last == end_name or (last == divider_name and syntax.divider_ends)):
        return broken(j, end_name, divider)
    end = j + 1 if j + 1 < n and is_fence_end(lines[j + 1]) else j
    return RawBlock(
        head.start,
        marker,
        end,
        j,
        path,
        tuple(lines[marker + 1 : divider]),
        tuple(lines[divider + 1 : j]),
        head.language,
        divider,
    )


def _kind_among(syntax: Syntax, others: tuple[Syntax, ...], line: str) -> str | None:
    """The marker `line` is in `syntax`, or else the start or end marker it is in one of
    `others` (their dividers are `syntax`'s business), or None."""
    found = syntax.kind(line)
    if found is None:
        for other in others:
            found = other.kind(line)
            if found is not None and found != other.names[1]:
                return found
        return None
    return found


def _patterns(syntax: Syntax) -> tuple[re.Pattern[str], ...]:
    return (syntax.start, syntax.divider, syntax.end)


def unread_rest(lines: list[str], at: int, syntax: Syntax, malformed: int) -> RawBlock:
    """The block that stands for `lines[at:]` once `malformed` blocks were malformed."""
    end = max(at, len(lines) - 1)
    return RawBlock(
        at, at, end, len(lines), None, (), (), expected=syntax.names[0], found="", unread=malformed
    )


def scan(lines: list[str], syntax: Syntax = SEARCH_REPLACE) -> list[RawBlock]:
    """Every block of `syntax` in `lines`, well-formed or not, in order. Linear time: each
    line is classified at most twice and the path walk looks at most three lines up; past
    `MAX_MALFORMED` malformed blocks the rest is one block, `unread`."""
    out: list[RawBlock] = []
    i, floor, prev, malformed = 0, -1, None, 0
    n = len(lines)
    start_name = syntax.names[0]
    while i < n:
        if syntax.kind(lines[i]) != start_name:
            i += 1
            continue
        if malformed >= MAX_MALFORMED:
            out.append(unread_rest(lines, i, syntax, malformed))
            break
        block = scan_block(lines, i, floor, prev, syntax)
        out.append(block)
        malformed += block.expected is not None
        prev, floor, i = block.path or prev, block.end, block.resume
    return out


def line_words(k: int, origin: int | None) -> tuple[str, str, int]:
    """How to name line `k` (0-based) of the scanned lines: as a reply line when the lines are
    the reply's from `origin` on, else as a line of the diff text (a JSON string argument has
    no reply lines). Returns (words, the details key, the number)."""
    if origin is None:
        return f"line {k + 1} of the diff", "diff_line", k + 1
    return f"reply line {origin + k + 1}", "line", origin + k + 1


def failure(raw: RawBlock, origin: int | None = 0, need_path: bool = True) -> Failure | None:
    """Why a scanned block cannot be used, naming its lines; None when it can. `origin`: the
    reply line before the scanned lines' first (0 for a whole reply; None when the lines are
    not the reply's, as in a JSON string). `need_path`: a block naming no file is one
    (False where the plan can choose its file among the ones the prose names)."""
    where = f"block starting at {line_words(raw.marker, origin)[0]}"
    if raw.unread:
        return unread_failure(line_words(raw.marker, origin)[0], raw.unread)
    if raw.expected is not None:
        details: dict[str, object] = {"expected": raw.expected}
        if raw.incomplete:
            details["incomplete"] = True
            return Failure(
                ErrorCode.MALFORMED_BLOCK,
                f"{where}: the {'reply' if origin is not None else 'diff'} ends before "
                f"`{raw.expected}`; the block is incomplete "
                "(was the reply cut off?)",
                details,
            )
        words, key, number = line_words(raw.stop, origin)
        details[key] = number
        details["found"] = raw.found
        words = words.removeprefix("reply ")  # "block starting at reply line 2: ... line 4"
        return Failure(
            ErrorCode.MALFORMED_BLOCK,
            f"{where}: expected `{raw.expected}` before {words} (found `{raw.found}`)",
            details,
        )
    if raw.path is None and need_path:
        return Failure(
            ErrorCode.MALFORMED_BLOCK,
            f"{where}: no file path; put the path alone on the line before the opening fence",
        )
    return marker_failure(raw, raw.updated, origin)


def marker_failure(raw: RawBlock, updated: Sequence[str], origin: int | None) -> Failure | None:
    """MALFORMED_BLOCK naming the first line of the new text `updated` (the block's REPLACE
    section as it will be written) shaped like an edit marker; None when there is none."""
    marker = added_marker(raw, updated)
    if marker is None:
        return None
    divider = raw.divider if raw.divider is not None else raw.marker
    k = divider + 1 + marker.index
    if origin is not None:
        return marker.failure(origin + k + 1, "the new text")
    words, key, number = line_words(k, origin)
    return Failure(
        ErrorCode.MALFORMED_BLOCK,
        f"{words}: `{marker.text}` in the new text is shaped like an edit marker, so the "
        "block is not written as it stands",
        {key: number, "text": marker.text, "marker": str(marker.kind)},
    )


def added_marker(raw: RawBlock, updated: Sequence[str] | None = None) -> MarkerLine | None:
    """The first line of the new-text section (`updated`, by default the block's own) shaped
    like an edit marker: `+++++++ REPLACE` or `<<<< EDIT` there is a botched block, and
    writing it would be a wrong write reported as a success. Not even a line the old text has
    too: when the block is placed loosely the file need not have it, so the new text would
    bring it in."""
    lines = raw.updated if updated is None else updated
    document = is_document(raw.path, raw.language)
    for k in range(len(lines)):
        marker = edit_marker(lines, k, document)
        if marker is not None and marker.kind in SECTION:
            return marker
    return None


# --- Roo Code's additions -------------------------------------------------------------------
#
# Roo Code writes `<<<<<<< SEARCH`, then optionally `:start_line:N` and `:end_line:N`, then a
# `-------` line, then the old text. The numbers say where the old text starts in the file as
# the model read it: a hint that breaks a tie between equally good places, never a reason to
# fail. Roo's file reader numbers lines (`12 | code`), and models copy the numbers into the
# SEARCH text; they are stripped only when every line has one and they count up by one, so a
# file whose lines really look like that is left alone. A line that should start with a marker
# is written with a backslash before it (`\=======`), and loses it here.

# the number may be missing (a model that writes the header without one): still a header
_hint_line = compiled_on_use(r":(start|end)_line:[ \t]*(\d{1,9})?")
_separator = compiled_on_use(r"-{3,}")
_numbered = compiled_on_use(r"(?<![ \t\d])[ \t]*(\d{1,9})[ \t]*\|(?!\|) ?")
_ESCAPED = ("<<<<<<<", "=======", ">>>>>>>", "-------", ":start_line:", ":end_line:")


class Sections(NamedTuple):
    """A scanned block's old and new lines as they are meant, and what the block said about
    itself: the line its old text starts on (a hint) and whether it is Roo Code's."""

    old: tuple[str, ...]
    new: tuple[str, ...]
    start_line: int | None = None
    roo: bool = False
    error: str | None = None  # why the sections cannot be used as they stand


def _hint(line: str) -> re.Match[str] | None:
    """`line` read as Roo's `:start_line:N` / `:end_line:N` header, or None. The first line of
    every block's SEARCH text is tested: a line not starting with ":" needs no pattern."""
    s = line.strip()
    return _hint_line().fullmatch(s) if s.startswith(":") else None


def _numbers(lines: Sequence[str]) -> list[int | None]:
    """The line number prefixing each line (`12 | code`), or None for a line without one."""
    out: list[int | None] = []
    for line in lines:
        m = _numbered().match(line)
        out.append(int(m.group(1)) if m else None)
    return out


def _unnumbered(lines: Sequence[str]) -> list[str]:
    return [line[m.end() :] if (m := _numbered().match(line)) else line for line in lines]


def _unescaped(lines: Sequence[str]) -> list[str]:
    return [
        line[1:] if line.startswith("\\") and line[1:].startswith(_ESCAPED) else line
        for line in lines
    ]


def sections(raw: RawBlock, roo: bool = False) -> Sections:
    """The old and new lines of a well-formed `raw` block. Roo Code's header (`:start_line:`,
    `:end_line:`, `-------`) is read wherever it opens the SEARCH text, and makes the block
    Roo's; with `roo` (the block came in Roo's `apply_diff`) a lone `-------` opening the
    SEARCH text is the separator even without line numbers. In a Roo block, escaped marker
    lines are unescaped and copied line numbers stripped (see above)."""
    old, k, start, numbered = list(raw.original), 0, None, True
    while k < len(old) and (m := _hint(old[k])):
        if m.group(1) == "start" and m.group(2):
            start = int(m.group(2))
        numbered = numbered and m.group(2) is not None
        k += 1
    if k and not (roo or numbered or (k < len(old) and _separator().fullmatch(old[k].strip()))):
        # a numberless `:end_line:` with no `-------` after it, outside Roo's own call, says
        # nothing a file line could not say: it is the SEARCH text's first line
        k, start = 0, None
    roo = roo or k > 0
    if roo and k < len(old) and _separator().fullmatch(old[k].strip()):
        k += 1
    if not roo:
        return _copied_numbers(old, list(raw.updated)) or Sections(tuple(old), raw.updated)
    if any(_hint(line) for line in raw.updated):
        # Roo refuses it too: a hint header in the new text is a header misplaced, not text
        return Sections(
            tuple(old[k:]),
            raw.updated,
            error="a `:start_line:` / `:end_line:` line in the REPLACE section; line hints go "
            "right after `<<<<<<< SEARCH` (escape the line as `\\:start_line:` if it is text)",
        )
    old, new = _unescaped(old[k:]), _unescaped(raw.updated)
    numbers = _numbers(old)
    first = numbers[0] if numbers else None
    consecutive = first is not None and numbers == list(range(first, first + len(numbers)))
    if not consecutive:
        return Sections(tuple(old), tuple(new), start, roo=True)
    replace = [n for n, line in zip(_numbers(new), new, strict=True) if line.strip()]
    error = None
    if None not in replace:
        new = _unnumbered(new)
    elif any(n is not None for n in replace):
        error = (
            "the SEARCH lines carry line numbers (`12 | code`) but only some REPLACE lines do; "
            "copy the new lines all with their numbers or all without"
        )
    return Sections(
        tuple(_unnumbered(old)), tuple(new), start if start is not None else first, True, error
    )


def _copied_numbers(old: list[str], new: list[str]) -> Sections | None:
    """A plain block whose SEARCH lines all carry Roo's reader numbers (`12 | code`), two or
    more counting up by one: the numbers were copied from the reader, not from the file
    (read as in a Roo block; the first number becomes the line hint). None otherwise."""
    numbers = _numbers(old)
    first = numbers[0] if len(numbers) >= 2 else None
    if first is None or numbers != list(range(first, first + len(numbers))):
        return None
    replace = [n for n, line in zip(_numbers(new), new, strict=True) if line.strip()]
    error = None
    if replace and None not in replace:
        new = _unnumbered(new)
    elif any(n is not None for n in replace):
        error = (
            "the SEARCH lines carry line numbers (`12 | code`) but only some REPLACE lines do; "
            "copy the new lines all with their numbers or all without"
        )
    return Sections(tuple(_unnumbered(old)), tuple(new), first, False, error)


def shift_hints(hunks: Sequence[Hunk]) -> tuple[Hunk, ...]:
    """Hunks of one block whose line hints all count in the file as it was before the block,
    with each hint moved to where its text will be once the hunks before it are applied: by
    the lines each earlier hunk whose hint lies above it adds or removes. When an earlier
    hunk has no hint, or its old text reaches the line, where the text will be is not known,
    and the hint is dropped (a tie then stays a tie, and is refused, rather than being broken
    by a wrong number)."""
    out: list[Hunk] = []
    for k, hunk in enumerate(hunks):
        hint = hunk.line_hint
        if hint is not None and k:
            shift = 0
            for before in hunks[:k]:
                start = before.line_hint
                size = before.old.count("\n")
                if start is None or start + size > hint and start < hint + 1:
                    hint = None
                    break
                if start < hint:
                    shift += before.new.count("\n") - size
            if hint is not None:
                hint = max(1, hint + shift)
        out.append(dataclasses.replace(hunk, line_hint=hint) if hint != hunk.line_hint else hunk)
    return tuple(out)


# --- Blocks -----------------------------------------------------------------------------------


def to_edit_block(
    raw: RawBlock, fmt: Format = Format.SEARCH_REPLACE, candidates: tuple[str, ...] | None = None
) -> EditBlock:
    """The EditBlock for a scanned SEARCH/REPLACE block. A SEARCH section that is empty (or
    only blank lines, which can never anchor anything) creates the file (in Cline's format it
    replaces the whole file, as Cline does). A block that opens with Roo Code's header is Roo's.
    `candidates`: for a block naming no file, the paths its prose names; the plan picks its
    file among them, as for a headerless diff (`--file` or the editor's target, else the one
    named file holding its SEARCH text). Without them such a block is malformed."""
    span = (raw.start + 1, raw.end + 1)
    if raw.expected is not None:
        return EditBlock(fmt, raw.path, span, language=raw.language, error=failure(raw))
    got = sections(raw, fmt is Format.ROO)
    fmt = Format.ROO if got.roo else fmt
    pathless = candidates is not None and any(line.strip() for line in got.old)
    error = failure(raw._replace(updated=got.new), need_path=not pathless)
    if error is None and got.error is not None:
        error = Failure(
            ErrorCode.MALFORMED_BLOCK,
            f"block starting at reply line {raw.marker + 1}: {got.error}",
            {"line": raw.marker + 1},
        )
    new = normalise_text(list(got.new))
    if not any(line.strip() for line in got.old):
        if fmt is Format.ROO and error is None:
            error = empty_search(raw, 0)
        action = Action.OVERWRITE if fmt is Format.CLINE else Action.CREATE
        # aider appends an empty SEARCH's text to a file that exists; its format, its reading
        on_exists = OnExists.APPEND if fmt is Format.SEARCH_REPLACE else OnExists.ERROR
        return EditBlock(
            fmt,
            raw.path,
            span,
            action=action,
            content=new,
            on_exists=on_exists,
            language=raw.language,
            error=error,
        )
    hunk = Hunk(normalise_text(list(got.old)), new, line_hint=got.start_line)
    return EditBlock(
        fmt,
        raw.path,
        span,
        hunks=(hunk,),
        language=raw.language,
        error=error,
        candidates=candidates if pathless and candidates else (),
    )


def empty_search(raw: RawBlock, origin: int | None) -> Failure:
    words, key, number = line_words(raw.marker, origin)
    return Failure(
        ErrorCode.MALFORMED_BLOCK,
        f"block starting at {words}: the SEARCH section is empty; Roo Code's apply_diff needs "
        "the lines to replace (use write_to_file for a new file)",
        {key: number},
    )


def scan_replies(lines: list[str]) -> list[tuple[RawBlock, Format]]:
    """Every SEARCH/REPLACE block written outside a tool call, in order, and its format:
    aider's markers (5-9 characters) first; a block opening with Cline's `-------` run, or
    with a spelling aider does not read, or one that is broken by aider's rules but whole by
    Cline's (`<<<<<<< SEARCH` ... `+++++++ REPLACE`), is Cline's. aider's earlier spellings
    (`<<<<<<< ORIGINAL`, `<<<<<<< HEAD`) are aider's format too; a `<<<<<<< HEAD` that does
    not open a whole block is not one (a merge conflict's, left to the stray-marker check).
    Linear, like `scan`."""
    out: list[tuple[RawBlock, Format]] = []
    i, floor, prev, malformed = 0, -1, None, 0
    n = len(lines)
    while i < n:
        line = lines[i]
        if malformed >= MAX_MALFORMED and (
            SEARCH_REPLACE.kind(line) == SEARCH
            or ("SEARCH" in line and cline_syntax().kind(line) == SEARCH)
            or earlier_spelling(line) is not None
        ):
            out.append((unread_rest(lines, i, SEARCH_REPLACE, malformed), Format.SEARCH_REPLACE))
            break
        if SEARCH_REPLACE.kind(line) == SEARCH:
            block, fmt = scan_block(lines, i, floor, prev), Format.SEARCH_REPLACE
            if block.expected is not None:
                other = scan_block(lines, i, floor, prev, cline_syntax())
                if other.expected is None:
                    block, fmt = other, Format.CLINE
        elif "SEARCH" in line and cline_syntax().kind(line) == SEARCH:
            # (a start marker holds the word: a line without it needs no look at Cline's)
            block, fmt = scan_block(lines, i, floor, prev, cline_syntax()), Format.CLINE
        elif (earlier := earlier_spelling(line)) is not None:
            others = (SEARCH_REPLACE, *(o for o in earlier_syntaxes() if o is not earlier))
            block, fmt = scan_block(lines, i, floor, prev, earlier, others), Format.SEARCH_REPLACE
            if block.expected is not None and earlier.names[0] == HEAD:
                i += 1
                continue
        else:
            i += 1
            continue
        out.append((block, fmt))
        malformed += block.expected is not None
        prev, floor, i = block.path or prev, block.end, block.resume
    return out


def find_blocks(lines: list[str]) -> list[EditBlock]:
    """All SEARCH/REPLACE blocks in the reply `lines` (aider's, Cline's and Roo Code's markers
    written outside a tool call), broken ones carrying MALFORMED_BLOCK. The line hints of a
    run of Roo blocks for one file count in the file before the run (they were one diff)."""
    scanned = scan_replies(lines)
    scanned += [(raw, Format.SEARCH_REPLACE) for raw in _headless(lines, scanned)]
    scanned.sort(key=lambda found: found[0].start)
    blocks = []
    floor = -1  # prose above the previous block is not this block's
    for raw, fmt in scanned:
        named = None
        if raw.path is None:
            from lsp_server.reply.snippets import prose_paths  # only for a block naming none

            top = raw.start - 1 if raw.start and fence_open(lines[raw.start - 1]) else raw.start
            named = prose_paths(lines, top, floor)
        blocks.append(to_edit_block(raw, fmt, named))
        floor = raw.end
    return _shift_runs(blocks)


def _headless(lines: list[str], found: list[tuple[RawBlock, Format]]) -> list[RawBlock]:
    """Blocks whose `<<<<<<< SEARCH` line was left out, where one reading exists: a fence
    holding no start marker, old lines, one `=======`, new lines and `>>>>>>> REPLACE` as
    its last line. The fence opens the SEARCH text, as the marker would have; anything else
    (a second divider, text after the end marker, no fence) stays a stray marker."""
    if not any(SEARCH_REPLACE.kind(line) == REPLACE for line in lines):
        return []
    held = [(raw.start, raw.end) for raw, _ in found]
    out: list[RawBlock] = []
    floor = -1
    for fence in find_fences(lines):
        body_end = fence.end if fence.end is not None else len(lines)
        if fence.end is None or any(lo <= fence.end and hi >= fence.start for lo, hi in held):
            floor = body_end
            continue
        kinds = [(k, SEARCH_REPLACE.kind(lines[k])) for k in range(fence.start + 1, fence.end)]
        marks = [(k, kind) for k, kind in kinds if kind is not None]
        last = max((k for k in range(fence.start + 1, fence.end) if lines[k].strip()), default=-1)
        if (
            [kind for _, kind in marks] == [DIVIDER, REPLACE]
            and marks[1][0] == last
            and any(lines[k].strip() for k in range(fence.start + 1, marks[0][0]))
            # a line shaped like another marker (`<<-- SEARCH`) is a botched block: refused
            and not any(edit_marker(lines, k) for k in range(fence.start + 1, marks[0][0]))
        ):
            divider, end = marks[0][0], marks[1][0]
            head = path_above(lines, fence.start + 1, floor, _patterns(SEARCH_REPLACE))
            out.append(
                RawBlock(
                    head.start,
                    fence.start,
                    fence.end,
                    end,
                    head.path,
                    tuple(lines[fence.start + 1 : divider]),
                    tuple(lines[divider + 1 : end]),
                    head.language,
                    divider,
                )
            )
        floor = body_end
    return out


def _shift_runs(blocks: list[EditBlock]) -> list[EditBlock]:
    out: list[EditBlock] = []
    run: list[EditBlock] = []

    def flush() -> None:
        hunks = shift_hints([b.hunks[0] for b in run])
        out.extend(dataclasses.replace(b, hunks=(h,)) for b, h in zip(run, hunks, strict=True))
        run.clear()

    for block in blocks:
        roo = block.format is Format.ROO and len(block.hunks) == 1 and block.error is None
        if run and not (roo and block.path == run[0].path):
            flush()
        if roo:
            run.append(block)
        else:
            out.append(block)
    if run:
        flush()
    return out
