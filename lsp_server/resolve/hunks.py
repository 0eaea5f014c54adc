"""Apply a block's hunks to one file's text, keeping every byte it was not asked to change.

The text keeps its own line endings: lines are split on "\\n" only (a form feed or a lone
"\\r" inside a line stays part of it), lines the hunk leaves alone keep their ending, new
lines get the file's dominant ending, and a missing final newline stays missing.
"""

from __future__ import annotations

import bisect
import dataclasses
import itertools
from collections.abc import Sequence
from typing import TYPE_CHECKING, NamedTuple

from lsp_server.linediff import equal_pairs
from lsp_server.lines import (
    content,
    ending,
    eol_of,
    text_lines,
)
from lsp_server.model import (
    DEFAULT_FUZZY_THRESHOLD,
    MATCH_STRENGTH,
    ErrorCode,
    Hunk,
    HunkKind,
    MatchKind,
    Placement,
    PlacementError,
    Reindent,
)
from lsp_server.resolve import applied
from lsp_server.resolve.content_index import candidates, candidates_among
from lsp_server.resolve.file_text import FileText, remember
from lsp_server.resolve.indent import infer_shift, swap_prefix
from lsp_server.resolve.match import NO_HINTS, Hints, Match
from lsp_server.resolve.reply_chars import plain_text

if TYPE_CHECKING:
    from lsp_server.resolve.counted import Counted


class HunksResult(NamedTuple):
    text: str
    placements: tuple[Placement, ...]
    match: MatchKind
    score: float
    already_applied: bool


def _reindent(text: str, rule: Reindent) -> str:
    """Patch-tool `reindent`: `rule.strip` taken off the front of every non-blank line of
    the new text, then `rule.add` put there; REINDENT_PRECONDITION when a line lacks it."""
    lines = text_lines(text)
    out = swap_prefix(lines, rule.strip, rule.add)
    if out is None:
        i, line = next(
            (i, x) for i, x in enumerate(lines) if x.strip() and not x.startswith(rule.strip)
        )
        raise PlacementError.of(
            ErrorCode.REINDENT_PRECONDITION,
            f"reindent.strip {rule.strip!r} is not a prefix of line {i + 1} of the new "
            f"text: {line!r}",
            line=i + 1,
            strip=rule.strip,
        )
    return "".join(x + "\n" for x in out) if text.endswith("\n") else "\n".join(out)


def _new_text(hunk: Hunk, clipboards: dict[str, str]) -> str:
    new = hunk.new
    if hunk.from_clipboard is not None:
        if hunk.from_clipboard not in clipboards:
            raise PlacementError.of(
                ErrorCode.CLIPBOARD_MISSING,
                f"clipboard {hunk.from_clipboard!r} is empty: no earlier patch stored it with "
                f"toClipboard (stored: {sorted(clipboards) or 'none'})",
                clipboard=hunk.from_clipboard,
            )
        new = clipboards[hunk.from_clipboard]
    if hunk.reindent is not None:
        new = _reindent(new, hunk.reindent)
    return new


def _region(
    ft: FileText, start: int, end: int, new_lines: list[str], final_newline: bool | None
) -> list[str]:
    """Replacement lines with endings: unchanged lines keep theirs, new ones get the file's."""
    old = ft.line_slice(start, end)
    out = [line + ft.eol for line in new_lines]
    if old and new_lines:
        old_c = ft.contents[start:end]
        head = 0
        limit = min(len(old_c), len(new_lines))
        while head < limit and old_c[head] == new_lines[head]:
            out[head] = old[head]
            head += 1
        tail = 0
        while tail < limit - head and old_c[-1 - tail] == new_lines[-1 - tail]:
            out[len(out) - 1 - tail] = old[len(old) - 1 - tail]
            tail += 1
        mid_old = old_c[head : len(old_c) - tail]
        mid_new = new_lines[head : len(new_lines) - tail]
        # lines in common are what keeps an ending; with none (a line edited in place, as
        # a counted replacement does at every place) there is nothing to pair
        # (the project's one line differ: bounded, where difflib's matcher is cubic on a
        # rewrite whose only common lines are blank)
        if mid_old and mid_new and not set(mid_old).isdisjoint(mid_new):
            for i, j in equal_pairs(mid_old, mid_new):  # a kept line keeps its own ending
                out[head + j] = old[head + i]
    if old and new_lines and not ending(old[-1]):
        # the file's unterminated last line, kept but no longer last, needs an ending
        out[:-1] = [x if ending(x) else x + ft.eol for x in out[:-1]]
    at_eof = end == ft.size
    if out and at_eof:
        if old:
            last_has_newline = bool(ending(old[-1]))
        else:
            last_has_newline = bool(ft.size and ending(ft.last_line()))
        if final_newline is not None:
            last_has_newline = final_newline
        elif not ft.size:
            last_has_newline = True
        out[-1] = content(out[-1]) + (ft.eol if last_has_newline else "")
    return out


def rebuild(old: str, new_lf: str) -> str:
    """A whole new "\\n" text laid over an old one: unchanged lines keep their own endings."""
    if "\r" not in old and "\r" not in new_lf:
        # every ending is "\n" on both sides, which is what the lines below would say: no
        # need to split a whole file (a lazy merge's result may be 10 MB) to learn it
        return new_lf
    ft = FileText.of(old)
    final_newline = new_lf.endswith("\n") if new_lf else None
    region = _region(ft, 0, ft.size, text_lines(new_lf), final_newline)
    return "".join(region)


class _Inline(NamedTuple):
    """A tool call's old text found once: the covering lines, the text kept before and
    after it on those lines, and where it stands in the file's text."""

    match: Match
    before: str
    after: str
    joined: str  # the file's lines, each with "\n"
    first: int  # the old text's offset in `joined`


def _inline_match(ft: FileText, old: str) -> _Inline | None:
    """Tool-call semantics: `old` may be part of a line. A unique exact substring match gives
    the covering lines plus the text kept before and after it on those lines."""
    joined = "".join(c + "\n" for c in ft.contents)
    first = joined.find(old)
    if first < 0:
        return None
    second = joined.find(old, first + 1)
    starts = list(itertools.accumulate((len(c) + 1 for c in ft.contents), initial=0))
    if second >= 0:
        from lsp_server.resolve.ladder import ambiguous_error  # see `_place_one`

        where, at = [], first
        while at >= 0 and len(where) < 50:
            where.append(bisect.bisect_right(starts, at) - 1)
            at = joined.find(old, at + 1)
        raise ambiguous_error(sorted(set(where)), len(text_lines(old)), MatchKind.EXACT)
    end = first + len(old)
    start_line = bisect.bisect_right(starts, first) - 1
    end_line = bisect.bisect_right(starts, end - 1)
    before = joined[starts[start_line] : first]
    after = joined[end : starts[end_line]]
    return _Inline(Match(start_line, end_line, MatchKind.EXACT), before, after, joined, first)


def _refuse_repeating(found: _Inline, old: str, new: str) -> None:
    """A tool call whose result holds its old text again, where a second run would find
    it and change the file again (`\n    y` replaced by `    y` after a line that ends
    there: the lines join): the file cannot tell a first run from a second, so neither is
    guessed."""
    joined, first = found.joined, found.first
    result = joined[:first] + new + joined[first + len(old) :]
    at = result.find(old)
    if at < 0 or applied.substring_already(result, old, new):
        return
    raise PlacementError.of(
        ErrorCode.TEXT_AMBIGUOUS,
        f"the old text is found once, but the file it leaves holds it again (line "
        f"{result.count(chr(10), 0, at) + 1}): a second run would change it again, so "
        "whether this one was applied already cannot be told; quote whole lines of the file",
        readings=[],
    )


def _captured(ft: FileText, match: Match, hunk: Hunk, inline: bool) -> str:
    """What `toClipboard` stores: the file's own text at the match (not the model's guess)."""
    if inline and match.kind is MatchKind.EXACT and _inline_match(ft, hunk.old) is not None:
        return hunk.old
    return "".join(c + "\n" for c in ft.contents[match.start : match.end])


def _place_one(
    ft: FileText,
    hunk: Hunk,
    new: str,
    hints: Hints,
    threshold: float,
    inline: bool = False,
    loosened: bool = False,
) -> tuple[Match, list[str]]:
    """Locate `hunk.old` and build the replacement lines (contents, no endings): past the
    exact rung, or when the old text only matched once read as plain characters
    (`loosened`), `replacement.build` (the file's kept lines, new lines re-indented); for
    an exact quote, the new text as written (a diff that re-indents a line on purpose is
    honoured)."""
    if inline:
        found = _inline_match(ft, hunk.old)
        if found is not None:
            _refuse_repeating(found, hunk.old, new)
            return found.match, text_lines(found.before + new + found.after)
    # the ladder is loaded by the first block that needs it: a block the single-exact path
    # places (most of them) never does
    from lsp_server.resolve import replacement
    from lsp_server.resolve.ladder import locate

    old_lines = text_lines(hunk.old)
    new_lines = text_lines(new)
    match = locate(
        ft.contents,
        old_lines,
        hints,
        fuzzy_threshold=threshold,
        exact_only=hunk.exact_only,
        index=ft.index,
    )
    if match.kind is not MatchKind.EXACT or loosened:
        new_lines = replacement.build(ft.index, match, old_lines, new_lines)
    return match, new_lines


def _plain(hunks: Sequence[Hunk], text: str) -> tuple[list[Hunk], list[bool]]:
    """The hunks with Unicode spaces and zero-width characters read as what they stand
    for (`reply_chars.plain_text`), and for each whether that changed it (its match is
    then no exact quote, whatever rung places it).

    Only a hunk whose old text shows such characters where the file has none was copied
    through a page that put them there; its new text went the same way. A hunk whose old
    text quotes the file faithfully keeps its new text as written: a new line may hold a
    no-break space on purpose."""
    out, loosened = [], []
    for hunk in hunks:
        old = plain_text(hunk.old, text)
        loosened.append(old != hunk.old)
        if loosened[-1]:
            hunk = dataclasses.replace(hunk, old=old, new=plain_text(hunk.new, text))
        out.append(hunk)
    return out, loosened


def _already_there(ft: FileText, new: str, old: str) -> bool:
    """Is the new text in the file, exactly once, as written or re-indented as a whole (what
    an earlier apply of the same block left)? Only the exact, whitespace and indent rungs'
    candidate searches run: no closest-region scoring, since nothing is reported from it."""
    new_lines = text_lines(new)
    if not new_lines or new == old or not any(x.strip() for x in new_lines):
        return False
    index, n = ft.index, len(new_lines)
    # searched once, under the loosest reading: its places hold the stricter ones' (NESTED)
    loose = candidates(index, new_lines, "strip")
    if not loose:
        return False
    for how in ("exact", "rstrip"):
        found = candidates_among(index, new_lines, how, loose)
        if found:
            return len(found) == 1
    contents = ft.contents
    shifted = [
        s
        for s in loose
        if infer_shift(new_lines, contents[s : s + n], contents, index.lazy_unit) is not None
    ]
    return len(shifted) == 1


def _already_inserted(ft: FileText, hunk: Hunk, new: str, inline: bool) -> bool:
    """Before the ladder runs: is the block's new text already where its old text (an
    anchor the new text restates, or for tool calls a string it extends or replaced)
    puts it? (`applied`.) Only blocks whose new text holds their old text, or tool calls,
    pay for the look."""
    old = hunk.old
    if inline:
        return applied.substring_already("".join(c + "\n" for c in ft.contents), old, new)
    if old not in new:
        return False
    return applied.inserted_already(ft.index, text_lines(old), text_lines(new))


def _net(hunk: Hunk, new: str) -> int:
    """Lines a hunk adds (or removes): what a hunk found already applied shifts the line
    numbers of the diff's later hunks by, as a placed one does."""
    return len(text_lines(new)) - len(text_lines(hunk.old))


def is_counted(hunk: Hunk) -> bool:
    """Whether the hunk asks for a count of places other than "exactly one" (placed by
    `counted`, which is imported only for such a hunk)."""
    return hunk.every or hunk.expected is not None


def _final_newline(hunk: Hunk, new: str) -> bool | None:
    """A diff's `\\ No newline at end of file` shows as old/new texts that differ in it."""
    if hunk.old and new and hunk.old.endswith("\n") != new.endswith("\n"):
        return new.endswith("\n")
    return None


def apply_hunks(
    text: str,
    hunks: Sequence[Hunk],
    *,
    ordered: bool = False,
    simultaneous: bool = False,
    fuzzy_threshold: float = DEFAULT_FUZZY_THRESHOLD,
    clipboards: dict[str, str] | None = None,
    inline: bool = False,
    eol_from: str | None = None,
) -> HunksResult:
    """Place every hunk; raise PlacementError (details name the hunk) if any cannot be placed.

    ordered: hunks come from one diff / V4A patch: each is searched after the previous and
    its line number is shifted by what earlier hunks added or removed.
    simultaneous: patch-tool semantics: all hunks locate against the original, must not
    overlap, and apply together.
    inline: tool-call semantics: `old` may be part of a line; a unique substring wins first.
    eol_from: the file as it was read. When earlier blocks left `text` without any line
    ending (one line, or none), new lines take that file's ending, not "\n".
    """
    clipboards = clipboards if clipboards is not None else {}
    hunks, loosened = _plain(hunks, text)
    eol = eol_of(eol_from) if eol_from and "\n" not in text else None
    if (
        len(hunks) == 1
        and not simultaneous
        and not inline
        and eol in (None, "\n")
        and not loosened[0]
    ):
        done = apply_single_exact(text, hunks[0], clipboards)
        if done is not None:
            return done
    ft = FileText.of(text)
    if eol is not None:
        ft.eol = eol
    if simultaneous:
        return _apply_simultaneous(ft, hunks, fuzzy_threshold, clipboards, inline)
    placements: list[Placement] = []
    weakest, score, noops = MatchKind.EXACT, 1.0, 0
    delta = 0
    cursor = 0
    for h_i, hunk in enumerate(hunks):
        try:
            new = _new_text(hunk, clipboards)
            if ordered and hunk.line_hint is not None and not hunk.old:
                hunk = dataclasses.replace(hunk, line_hint=max(0, hunk.line_hint + delta))
            placed = _apply_positional(ft, hunk, new, keep_unterminated=ordered)
            if placed is not None:
                placements.append(placed)
                delta += (placed.new_end_line or placed.end_line) - placed.end_line
                cursor = placed.new_end_line or placed.end_line
                continue
            if is_counted(hunk):
                from lsp_server.resolve.counted import place_counted  # only counted hunks

                counted = place_counted(ft.contents, ft.terminated(), ft.index, hunk, new, inline)
                if counted is not None:
                    if counted.already_applied:
                        noops += 1
                    else:
                        done, added = _splice_counted(ft, counted)
                        placements.extend(done)
                        delta += added
                    continue
            hint_line = None
            if hunk.line_hint is not None:
                hint_line = max(0, hunk.line_hint - 1 + (delta if ordered else 0))
            if _already_inserted(ft, hunk, new, inline):
                noops += 1  # the new text stands where its anchor puts it: see applied
                delta += _net(hunk, new)
                continue
            hints = Hints(
                line=hint_line,
                anchors=hunk.anchors,
                at_eof=hunk.at_eof,
                start_at=cursor if ordered else 0,
            )
            try:
                match, new_lines = _place_one(
                    ft, hunk, new, hints, fuzzy_threshold, inline, loosened[h_i]
                )
            except PlacementError as err:
                # the old text is not there, or only loosely (a fuzzy rung's tie): when the
                # new text is there exactly, the reply was applied before
                # (an ambiguity among looser readings of the old text — other rungs, its
                # blank edge lines set aside — when the text as written is not there)
                # (and a loose match whose lines the block cannot be written into: the
                # file reads as the block's result there, and its quote no longer fits)
                code = err.failure.code
                missing = code is ErrorCode.TEXT_NOT_FOUND or (
                    code in (ErrorCode.TEXT_AMBIGUOUS, ErrorCode.MALFORMED_BLOCK)
                    and (
                        err.failure.details.get("match") not in (None, MatchKind.EXACT)
                        or not candidates(ft.index, text_lines(hunk.old), "exact")
                    )
                )
                if missing and _already_there(ft, new, hunk.old):
                    noops += 1
                    delta += _net(hunk, new)
                    continue
                raise
            # found by a looser reading than the old text as written (a rung past the exact
            # one, or its blank edge lines set aside), while the new text stands in the file:
            # a second run, whose old text is gone, finding a look-alike
            loose = match.kind is MatchKind.FUZZY or (
                not inline and ft.contents[match.start : match.end] != text_lines(hunk.old)
            )
            if (
                hint_line is not None
                and match.start != hint_line
                and applied.placed_at(ft.contents, hint_line, new_lines)
            ):
                # the old text stands elsewhere, and the line the hunk names holds its new
                # text: applied already (the new text is there once), or meant for there
                if not _already_there(ft, new, hunk.old):
                    raise applied.hinted_elsewhere(hint_line, match)
                noops += 1
                delta += _net(hunk, new)
                continue
            if loose and _already_there(ft, new, hunk.old):
                noops += 1  # the new text is there once: that is the block, applied
                delta += _net(hunk, new)
                continue
            if loose:
                applied.refuse_lookalike(ft.index, match, text_lines(hunk.old), text_lines(new))
                applied.refuse_lost_deletion(match, text_lines(new), hint_line)
        except PlacementError as err:
            err.failure.details.setdefault("hunk", h_i)
            raise
        if hunk.to_clipboard is not None:
            clipboards[hunk.to_clipboard] = _captured(ft, match, hunk, inline)
        if not inline and applied.held_around(ft.contents, match.start, match.end, new_lines):
            noops += 1  # an insertion found by its anchor, standing there already
            delta += _net(hunk, new)
            continue
        region = _region(ft, match.start, match.end, new_lines, _final_newline(hunk, new))
        if (
            match.kind is not MatchKind.EXACT
            and new != hunk.old
            and region == ft.line_slice(match.start, match.end)
        ):
            # the change is there already: placed loosely, the block changes nothing, since
            # the lines it keeps are the file's and the lines it changes read as it wants
            # them (a second run of a block first applied by a fuzzy or indent rung)
            noops += 1
            delta += _net(hunk, new)
            continue
        if (
            not region
            and not inline
            and 0 < match.start
            and match.end == ft.size
            and not ending(ft.last_line())
            and hunk.old.endswith("\n")
        ):
            # the last lines of a file without a final newline go: the line that is last
            # now keeps the file that way (a diff says so itself, with `\ No newline`)
            ft.lines[match.start - 1] = content(ft.lines[match.start - 1])
        ft.splice(match.start, match.end, region)
        kind = match.kind
        if loosened[h_i] and kind is MatchKind.EXACT:
            kind = MatchKind.WHITESPACE  # it matched once Unicode spaces were read as spaces
        placements.append(
            Placement(match.start, match.end, kind, match.score, match.start + len(region))
        )
        delta += len(region) - (match.end - match.start)
        cursor = match.start + len(region)
        if MATCH_STRENGTH[kind] > MATCH_STRENGTH[weakest]:
            weakest = kind
        score = min(score, match.score)
    text_out = ft.text()
    remember(text_out, ft)
    return HunksResult(
        text_out, tuple(placements), weakest, score, bool(hunks) and noops == len(hunks)
    )


def _splice_counted(ft: FileText, counted: Counted) -> tuple[list[Placement], int]:
    """Replace a counted hunk's regions; a placement per occurrence (its lines in the text
    before, `new_end_line` where its region ends in the result), and the lines added. The
    new lines are gathered in one pass and spliced once: a rename replaced at every one of
    many thousand places must not copy the file once per place."""
    placements: list[Placement] = []
    rows: list[str] = []
    at = 0
    for region in counted.regions:
        rows.extend(ft.line_slice(at, region.start))
        rows.extend(
            _region(ft, region.start, region.end, list(region.new_lines), region.final_newline)
        )
        for start, end in region.spans:
            placements.append(Placement(start, end, MatchKind.EXACT, 1.0, len(rows)))
        at = region.end
    size = ft.size
    rows.extend(ft.line_slice(at, size))
    ft.splice(0, size, rows)
    return placements, len(rows) - size


# `apply_single_exact` gives up (the line-based path decides) past this many partial hits.
_TEXT_HITS = 4096


def apply_single_exact(text: str, hunk: Hunk, clipboards: dict[str, str]) -> HunksResult | None:
    """The common case without splitting the file into lines: one hunk whose old text sits
    in a LF-only file exactly once, as whole lines. Found with `str.find`, spliced as text.

    Gives exactly what the line-based path gives (the exact rung's unique match; no line
    has another ending to keep); returns None whenever that path could decide otherwise
    (no match, several, positional hunks, anchors, clipboards, CR anywhere in the file).
    """
    if (
        hunk.kind is not HunkKind.REPLACE
        or is_counted(hunk)
        or not hunk.old.strip("\n")
        or hunk.anchors
        or hunk.at_eof
        or hunk.to_clipboard is not None
        or "\r" in text
    ):
        return None
    try:
        new = _new_text(hunk, clipboards)
    except PlacementError:
        return None  # the line-based path raises it, with the hunk's index
    old_lines = text_lines(hunk.old)
    needle = "\n".join(old_lines)
    size, width = len(text), len(needle)
    found: list[int] = []
    hits = 0
    at = text.find(needle)
    while at >= 0:
        hits += 1
        if hits > _TEXT_HITS:
            return None
        if (at == 0 or text[at - 1] == "\n") and (at + width == size or text[at + width] == "\n"):
            found.append(at)
            if len(found) > 1:
                return None
        # a match starts a line: resume at the next line start, not the next character (a
        # long needle that overlaps itself would otherwise be searched for again and again)
        nl = text.find("\n", at)
        at = text.find(needle, nl + 1) if nl >= 0 else -1
    if not found:
        return None
    first, n = found[0], len(old_lines)
    start = text.count("\n", 0, first)
    if hunk.line_hint is not None and start != hunk.line_hint - 1:
        return None  # the line the hunk names may hold its new text: see apply_hunks
    # what follows the match decides whether it reaches the end of the file, without
    # counting the lines of the whole file: nothing (its unterminated last line), or only
    # the last line's "\n". An empty last old line with nothing after would be a line the
    # file does not have (its text ends with "\n").
    rest = size - (first + width)
    if rest == 0 and not old_lines[-1]:
        return None
    to_eof = rest <= 1
    end = first + width + (1 if rest else 0)  # with the last line's newline
    new_lines = text_lines(new)
    if applied.inserted_at(text, first, old_lines, new_lines):
        return HunksResult(text, (), MatchKind.EXACT, 1.0, True)  # a second run: see applied
    region = [line + "\n" for line in new_lines]
    if region and to_eof:  # the hunk reaches the end of the file
        final = _final_newline(hunk, new)
        keep = text.endswith("\n") if final is None else final
        region[-1] = new_lines[-1] + ("\n" if keep else "")
    head = first
    if not region and to_eof and first and not text.endswith("\n"):
        if hunk.old.endswith("\n"):  # as in apply_hunks: the file keeps no final newline
            head -= 1
    # one join: `a + b + c` would copy the head of a large file twice
    out = "".join([text[:head], *region, text[end:]])
    placement = Placement(start, start + n, MatchKind.EXACT, 1.0, start + len(region))
    return HunksResult(out, (placement,), MatchKind.EXACT, 1.0, False)


def _apply_positional(
    ft: FileText, hunk: Hunk, new: str, keep_unterminated: bool = False
) -> Placement | None:
    """Hunks placed by position, not by anchor text (append, prepend, insert, overwrite).

    keep_unterminated: a diff's `\\ No newline at end of file` on lines it adds at the end
    of the file leaves their last line without an ending (tool calls, whose strings seldom
    end in a newline, still get one)."""
    kind = hunk.kind
    if kind is HunkKind.REPLACE and hunk.old:
        return None
    new_lines = text_lines(new)
    n = len(ft.lines)
    if kind is HunkKind.OVERWRITE:
        at, end = 0, n
    elif kind is HunkKind.PREPEND_BOF:
        at, end = 0, 0
    elif kind in (HunkKind.APPEND_EOF,):
        at, end = n, n
    else:  # INSERT_AT_LINE, or REPLACE with an empty anchor: insert after line `line_hint`
        if hunk.line_hint is None:
            if n == 0:
                at, end = 0, 0
            else:
                raise PlacementError.of(
                    ErrorCode.MALFORMED_BLOCK,
                    "the block has an empty anchor and no line number: nothing says where the "
                    "new text goes",
                )
        else:
            if not 0 <= hunk.line_hint <= n:
                raise PlacementError.of(
                    ErrorCode.TEXT_NOT_FOUND,
                    f"insert line {hunk.line_hint} is outside the file (it has {n} lines)",
                    line=hunk.line_hint,
                    lines=n,
                )
            at = end = hunk.line_hint
    if at == n and n and not ending(ft.lines[-1]):
        ft.lines[-1] = ft.lines[-1] + ft.eol  # appending after an unterminated last line
    region = [line + ft.eol for line in new_lines]
    if keep_unterminated and region and at == n and not new.endswith("\n"):
        region[-1] = new_lines[-1]
    if kind is HunkKind.OVERWRITE:
        region = _region(ft, 0, n, new_lines, new.endswith("\n") if new else None)
    ft.splice(at, end, region)
    match = MatchKind.OVERWRITE if kind is HunkKind.OVERWRITE else MatchKind.EXACT
    return Placement(at, end, match, 1.0, at + len(region))


def _apply_simultaneous(
    ft: FileText,
    hunks: Sequence[Hunk],
    threshold: float,
    clipboards: dict[str, str],
    inline: bool,
) -> HunksResult:
    located: list[tuple[int, int, list[str], Hunk, Match | None, int]] = []
    weakest, score = MatchKind.EXACT, 1.0
    n = len(ft.lines)
    for h_i, hunk in enumerate(hunks):
        try:
            new = _new_text(hunk, clipboards) if hunk.to_clipboard is None else None
            if hunk.kind is not HunkKind.REPLACE:
                lines = text_lines(new if new is not None else _new_text(hunk, clipboards))
                span = {
                    HunkKind.OVERWRITE: (0, n),
                    HunkKind.PREPEND_BOF: (0, 0),
                    HunkKind.APPEND_EOF: (n, n),
                }.get(hunk.kind)
                if span is None:
                    span = (hunk.line_hint or 0, hunk.line_hint or 0)
                located.append((span[0], span[1], lines, hunk, None, h_i))
                continue
            if not hunk.old:
                raise PlacementError.of(
                    ErrorCode.MALFORMED_BLOCK, "a replace patch needs a non-empty oldText"
                )
            if hunk.to_clipboard is not None:
                match, _ = _place_one(ft, hunk, "", NO_HINTS, threshold, inline)
                clipboards[hunk.to_clipboard] = _captured(ft, match, hunk, inline)
                new = _new_text(hunk, clipboards)
            match, new_lines = _place_one(ft, hunk, new or "", NO_HINTS, threshold, inline)
            located.append((match.start, match.end, new_lines, hunk, match, h_i))
            if MATCH_STRENGTH[match.kind] > MATCH_STRENGTH[weakest]:
                weakest = match.kind
            score = min(score, match.score)
        except PlacementError as err:
            err.failure.details.setdefault("hunk", h_i)
            raise
    spans = sorted(located, key=lambda t: (t[0], t[1]))
    for a, b in zip(spans, spans[1:], strict=False):
        if b[0] < a[1] or (a[0] == a[1] == b[0] == b[1] and a[0] not in (0, n)):
            raise PlacementError.of(
                ErrorCode.MALFORMED_BLOCK,
                f"patches {a[5]} and {b[5]} touch overlapping lines ({a[0] + 1}-{a[1]} and "
                f"{b[0] + 1}-{b[1]}); patches in one call apply to the original together",
                patches=[a[5], b[5]],
            )
    placements = []
    for start, end, new_lines, _hunk, _, _ in sorted(located, key=lambda t: (-t[0], -t[1])):
        if start == n and n and not ending(ft.lines[-1]):
            ft.lines[-1] += ft.eol
        region = (
            _region(ft, start, end, new_lines, None)
            if end > start
            else [x + ft.eol for x in new_lines]
        )
        ft.splice(start, end, region)
        placements.append(Placement(start, end, MatchKind.EXACT, 1.0, start + len(region)))
    return HunksResult(ft.text(), tuple(reversed(placements)), weakest, score, False)
