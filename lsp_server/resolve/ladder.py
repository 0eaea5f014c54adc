"""The matching ladder: where in a file does a block's old text sit?

Rungs run in order, strictest first: exact, whitespace (trailing white space ignored),
indentation (the same lines shifted uniformly), then, for a block with `...` lines,
elision (they stand for skipped code); otherwise runs of white space inside lines read as
one space, typographic punctuation read as ASCII, the same rungs once more without an
empty first or last line the file does not have there, and last fuzzy (similar enough,
and clearly better than any other place; its lines re-paired around a line the reply
skipped, see `alignment`). Each must find exactly one place; a hint (diff line number, V4A
`@@` anchor, search start) may pick one of several equally good places, but nothing ever
takes "the first match", and a looser rung never overrides a stricter one's ambiguity.
Work is done on line *contents* (no endings); the caller keeps each line's own ending, and
`replacement` builds what is written at the match.

Speed: every rung starts from the text's `ContentIndex` (content → line numbers), so
candidates come from lookups on the block's rarest line, not from scanning every window.
"""

from __future__ import annotations

import difflib
import itertools
import operator
from collections.abc import Sequence
from typing import Any

from lsp_server.model import (
    DEFAULT_FUZZY_THRESHOLD,
    MATCH_STRENGTH,
    ErrorCode,
    MatchKind,
    PlacementError,
)
from lsp_server.report import percent
from lsp_server.resolve.alignment import realign
from lsp_server.resolve.content_index import ContentIndex, candidates, candidates_among
from lsp_server.resolve.indent import IndentShift, infer_shift
from lsp_server.resolve.match import NO_HINTS, Hints, Match
from lsp_server.resolve.placeholders import is_placeholder_line as is_elision_line
from lsp_server.resolve.reply_chars import fold

FUZZY_MARGIN = 0.05  # the best window must beat the runner-up by this much
CLOSEST_FLOOR = 0.3  # below this similarity we do not call a region "closest"


def _not_found(message: str, details: dict[str, Any]) -> PlacementError:
    return PlacementError.of(ErrorCode.TEXT_NOT_FOUND, message, **details)


def _too_many(starts: Sequence[int], n: int, how: MatchKind) -> PlacementError:
    """Candidates past the work budget of a per-candidate check: a clear refusal, not a stall."""
    where = ", ".join(str(s + 1) for s in starts[:20])
    return PlacementError.of(
        ErrorCode.TEXT_AMBIGUOUS,
        f"once indentation is ignored the text matches {len(starts):,} places (lines "
        f"{where}{' ...' if len(starts) > 20 else ''}), too many to compare one by one; "
        "add surrounding lines to the anchor so it matches one place only",
        lines=[s + 1 for s in starts],
        match=how.value,
        length=n,
        unchecked=True,
    )


def _pick(starts: list[int], n: int, hints: Hints, total: int, index: ContentIndex) -> list[int]:
    """Narrow equally good candidates with the hints; returns what is left (maybe several)."""
    starts = [s for s in starts if s >= hints.start_at]
    if hints.at_eof:
        last_blank = not index.lines[-1] if index.lines else False
        starts = [s for s in starts if s + n == total or (s + n == total - 1 and last_blank)]
    if len(starts) > 1 and hints.anchors:
        after = _after_anchors(index, hints)
        if after is not None:
            later = [s for s in starts if s >= after]
            if later:
                starts = [later[0]]  # the anchor names the region; nearest after it
    if len(starts) > 1 and hints.line is not None:
        dist = sorted((abs(s - hints.line), s) for s in starts)
        if dist[0][0] < dist[1][0]:
            starts = [dist[0][1]]
    return starts


def _after_anchors(index: ContentIndex, hints: Hints) -> int | None:
    """Line after the last V4A `@@` anchor, each found (stripped) after the previous one."""
    pos = hints.start_at
    table = index.positions("strip")
    for anchor in hints.anchors:
        found = [p for p in table.get(anchor.strip(), []) if p >= pos]
        if not found:
            # models often abbreviate the context: accept a unique line that starts with it
            key = anchor.strip()
            found = [i for i in range(pos, len(index.lines)) if index.stripped[i].startswith(key)]
            if not found:
                return None
        pos = found[0] + 1
    return pos


def ambiguous_error(starts: list[int], n: int, how: MatchKind) -> PlacementError:
    where = ", ".join(str(s + 1) for s in starts[:20])
    more = f" and {len(starts) - 20} more" if len(starts) > 20 else ""
    return PlacementError.of(
        ErrorCode.TEXT_AMBIGUOUS,
        f"the text matches {len(starts)} places ({how.value} match) at lines {where}{more}; "
        "add surrounding lines to the anchor so it matches one place only",
        lines=[s + 1 for s in starts],
        match=how.value,
        length=n,
    )


def locate(
    lines: Sequence[str],
    old: Sequence[str],
    hints: Hints = NO_HINTS,
    *,
    fuzzy_threshold: float = DEFAULT_FUZZY_THRESHOLD,
    exact_only: bool = False,
    index: ContentIndex | None = None,
) -> Match:
    """Find the one place where `old` sits in `lines`, climbing the ladder rung by rung.

    Raises PlacementError(TEXT_AMBIGUOUS) as soon as a rung finds several places the hints
    cannot separate — a looser rung must never override a stricter one's ambiguity — and
    TEXT_NOT_FOUND (with the closest region) when no rung finds anything.
    """
    index = index or ContentIndex(lines)
    n = len(old)
    if n == 0:
        raise ValueError("locate() needs at least one line; insertions are placed by the caller")
    if exact_only:
        starts = _pick(candidates(index, old, "exact"), n, hints, len(lines), index)
        if len(starts) == 1:
            return Match(starts[0], starts[0] + n, MatchKind.EXACT)
        if starts:
            raise ambiguous_error(starts, n, MatchKind.EXACT)
        raise _closest_failure(index, old, hints, "the anchor must match exactly")
    found = _locate_equal(index, old, hints)
    if found is not None:
        return found
    if any(is_elision_line(line) for line in old):
        return _locate_elided(index, old, hints, fuzzy_threshold)
    found = _locate_folded(index, old, hints)
    if found is not None:
        return found

    # an empty first or last line the file does not have at that place: the text without
    # it, on the strict rungs before the fuzzy rung may take a look-alike place for it
    lead = next((i for i, line in enumerate(old) if line.strip()), n)
    trail = next((i for i, line in enumerate(reversed(old)) if line.strip()), n)
    trim = bool(lead or trail) and lead < n
    if trim:
        body = old[lead : n - trail]
        inner_hints = Hints(
            None if hints.line is None else hints.line + lead,
            hints.anchors,
            hints.at_eof,
            hints.start_at,
        )
        found = _locate_strict(index, body, inner_hints)
        if found is not None:
            return _with_edges(index, found, lead, trail, len(body))
    try:
        whole = _locate_fuzzy(index, old, hints, fuzzy_threshold)
    except PlacementError as err:
        if not trim or err.failure.code is not ErrorCode.TEXT_NOT_FOUND:
            raise
        try:
            found = _locate_fuzzy(index, body, inner_hints, fuzzy_threshold)
        except PlacementError as inner:
            if inner.failure.code is ErrorCode.TEXT_NOT_FOUND:
                raise err from None  # the closest region of the block as the reply wrote it
            raise
        return _with_edges(index, found, lead, trail, len(body))
    if trim:
        # the empty edge line may be one the file lacks: the block's other lines elsewhere,
        # as alike as the whole block here, are another reading of it
        try:
            other = _locate_fuzzy(index, body, inner_hints, fuzzy_threshold)
        except PlacementError:
            other = None
        if (
            other is not None
            and not whole.start <= other.start < whole.end
            and other.score > whole.score - FUZZY_MARGIN
        ):
            err = ambiguous_error(sorted([whole.start, other.start]), n, MatchKind.FUZZY)
            err.failure.details["scores"] = [whole.score, other.score]
            raise err
    return whole


# The rungs past the indentation rung that still read every line as equal: runs of white
# space inside a line read as one space (`whitespace`), then typographic quotes, dashes and
# ellipses read as ASCII (`fuzzy`). Both before the fuzzy rung, which would otherwise take
# a look-alike line for the one that reads the same once folded.
_LATE_RUNGS = (("collapse", MatchKind.WHITESPACE), ("fold", MatchKind.FUZZY))


def _locate_strict(index: ContentIndex, old: Sequence[str], hints: Hints) -> Match | None:
    """Every rung that reads each line as equal (see `_locate_equal`, `_locate_folded`)."""
    return _locate_equal(index, old, hints) or _locate_folded(index, old, hints)


def _locate_equal(index: ContentIndex, old: Sequence[str], hints: Hints) -> Match | None:
    """Exact, trailing white space, indentation: the first to find one place places the
    block; several places the hints cannot separate are TEXT_AMBIGUOUS; None when none of
    them finds anything."""
    lines = index.lines
    n, total = len(old), len(lines)
    starts = _pick(candidates(index, old, "exact"), n, hints, total, index)
    if len(starts) == 1:
        return Match(starts[0], starts[0] + n, MatchKind.EXACT)
    if len(starts) > 1:
        raise ambiguous_error(starts, n, MatchKind.EXACT)
    # the trailing white space rung's places are among the indentation rung's: the text is
    # searched once, for the looser (a block on its way to the indentation rung, or to the
    # fuzzy one, searched it twice)
    loose = candidates(index, old, "strip")
    starts = _pick(candidates_among(index, old, "rstrip", loose), n, hints, total, index)
    if len(starts) == 1:
        return Match(starts[0], starts[0] + n, MatchKind.WHITESPACE)
    if len(starts) > 1:
        raise ambiguous_error(starts, n, MatchKind.WHITESPACE)

    starts = []
    shifts: dict[int, IndentShift] = {}
    stripped = _pick(loose, n, hints, total, index)
    if len(stripped) > 1 and len(stripped) * n > _SHIFT_CELLS:
        raise _too_many(stripped, n, MatchKind.INDENT)
    for s in stripped:
        shift = infer_shift(old, lines[s : s + n], lines, index.lazy_unit)
        if shift is not None:
            starts.append(s)
            shifts[s] = shift
    if len(starts) == 1:
        return Match(starts[0], starts[0] + n, MatchKind.INDENT, shift=shifts[starts[0]])
    if len(starts) > 1:
        raise ambiguous_error(starts, n, MatchKind.INDENT)
    return None


def _locate_folded(index: ContentIndex, old: Sequence[str], hints: Hints) -> Match | None:
    """Runs of white space read as one space, then typographic punctuation read as ASCII,
    each with the file's nesting; as `_locate_equal` otherwise."""
    lines = index.lines
    n, total = len(old), len(lines)
    for how, kind in _LATE_RUNGS:
        starts = _pick(candidates(index, old, how), n, hints, total, index)
        if len(starts) * n > _SHIFT_CELLS:
            raise _too_many(starts, n, kind)
        # as on the indentation rung, the lines must nest as the file's do
        starts = [s for s in starts if infer_shift(old, lines[s : s + n], lines, index.lazy_unit)]
        if len(starts) > 1:
            raise ambiguous_error(starts, n, kind)
        if starts:
            s = starts[0]
            score = 1.0
            if kind is MatchKind.FUZZY:
                score = round(score_windows(index, old, {s})[0][0], 4)
            return Match(s, s + n, kind, score)
    return None


def _with_edges(index: ContentIndex, inner: Match, lead: int, trail: int, n: int) -> Match:
    """A match of a block's lines without its `lead` first and `trail` last empty lines,
    as a match of the whole block. The empty lines left out stand for the file's own empty
    lines next to the match, as far as it has them (a block deleting two empty lines where
    the file has one deletes that one); the others stand for nothing."""
    lines = index.lines
    start, end = inner.start, inner.end
    head = 0
    while head < lead and start > 0 and not lines[start - 1].strip():
        head, start = head + 1, start - 1
    tail = 0
    while tail < trail and end < len(lines) and not lines[end].strip():
        tail, end = tail + 1, end + 1
    rows = (
        (None,) * (lead - head)
        + tuple(range(start, inner.start))
        + inner.file_rows(n)
        + tuple(range(inner.end, end))
        + (None,) * (trail - tail)
    )
    kind = inner.kind
    if MATCH_STRENGTH[kind] < MATCH_STRENGTH[MatchKind.WHITESPACE]:
        kind = MatchKind.WHITESPACE  # an empty line the file lacks is not an exact quote
    return Match(start, end, kind, inner.score, inner.shift, rows=rows)


def _split_elided(old: Sequence[str]) -> list[list[str]]:
    pieces: list[list[str]] = [[]]
    for line in old:
        if is_elision_line(line):
            pieces.append([])
        else:
            pieces[-1].append(line)
    return pieces


def _locate_elided(
    index: ContentIndex, old: Sequence[str], hints: Hints, threshold: float
) -> Match:
    """`...` lines split the anchor: first piece unique, later pieces nearest after it."""
    pieces = _split_elided(old)
    if any(not p or not any(line.strip() for line in p) for p in pieces):
        # a leading/trailing `...` carries no position: the pieces around it must
        pieces = [p for p in pieces if any(line.strip() for line in p)]
        if not pieces:
            raise PlacementError.of(ErrorCode.MALFORMED_BLOCK, "the anchor has only `...` lines")
    first = locate(index.lines, pieces[0], hints, fuzzy_threshold=threshold, index=index)
    spans = [(first.start, first.end)]
    worst = first
    for piece in pieces[1:]:
        after = Hints(start_at=spans[-1][1])
        total = len(index.lines)
        starts = _pick(candidates(index, piece, "rstrip"), len(piece), after, total, index)
        if not starts:
            loose = _pick(candidates(index, piece, "strip"), len(piece), after, total, index)
            if len(loose) * len(piece) > _SHIFT_CELLS:
                raise _too_many(loose, len(piece), MatchKind.ELISION)
            shifted = (
                s
                for s in loose
                if infer_shift(piece, index.lines[s : s + len(piece)], index.lines, index.lazy_unit)
                is not None
            )
            starts = list(itertools.islice(shifted, 1))  # the nearest one is used
        if not starts:
            raise _closest_failure(
                index,
                piece,
                after,
                "a piece of the anchor after `...` was not found after the one before it",
            )
        s = starts[0]
        spans.append((s, s + len(piece)))
    elided = tuple((spans[i][1], spans[i + 1][0]) for i in range(len(spans) - 1))
    placed = [first.file_rows(len(pieces[0]))] + [tuple(range(a, b)) for a, b in spans[1:]]
    return Match(
        first.start,
        spans[-1][1],
        MatchKind.ELISION,
        min(worst.score, 1.0),
        worst.shift,
        elided,
        _elided_rows(old, placed),
    )


def _elided_rows(
    old: Sequence[str], placed: list[tuple[int | None, ...]]
) -> tuple[int | None, ...]:
    """`Match.rows` of an elided anchor: each piece's lines where they were found; the
    `...` lines, and pieces of only empty lines (which place nothing), stand for no line."""
    rows: list[int | None] = []
    found = iter(placed)
    raw = _split_elided(old)
    for k, piece in enumerate(raw):
        if any(line.strip() for line in piece):
            rows.extend(next(found))
        else:
            rows.extend([None] * len(piece))
        if k < len(raw) - 1:
            rows.append(None)
    return tuple(rows)


def window_starts(index: ContentIndex, old: Sequence[str]) -> set[int]:
    """Windows worth scoring: those where at least one non-trivial old line appears verbatim
    (stripped), or, failing that, where the closest line to the old's longest line sits."""
    if not index.search_first("strip"):
        index.positions("strip")  # a text looked up this often is worth indexing once
    n, total = len(old), len(index.lines)
    keys = [line.strip() for line in old]
    out: set[int] = set()
    # rarest informative lines first; cap the work for blocks made of common lines
    informative = sorted(
        ((index.count_equal_to("strip", k), j, k) for j, k in enumerate(keys) if len(k) > 2),
        key=lambda t: (t[0], -len(t[2])),
    )
    budget, visit = 4000, []
    for count, j, key in informative:
        if count:
            visit.append((j, key))
            budget -= count
            if budget <= 0:
                break
    index.prefetch("strip", [key for _, key in visit])  # their lines, found in one pass
    for j, key in visit:
        for p in index.lines_equal_to("strip", key):
            s = p - j
            if 0 <= s <= total - n:
                out.add(s)
        if len(out) > 2000:
            break
    if not out:
        longest = max(range(n), key=lambda j: len(keys[j]))
        if keys[longest]:
            query = keys[longest][:_MAX_QUERY_CHARS]  # only proposes windows; scored in full
            _rapidfuzz()
            for text, _, _ in process.extract(
                query, index.distinct("strip"), scorer=fuzz.ratio, limit=8, score_cutoff=50
            ):
                # the 8 closest different texts, and every line with each: look-alike
                # windows cut off by the limit would let one of many equal places pass for
                # unique
                for p in index.lines_equal_to("strip", text):
                    s = p - longest
                    if 0 <= s <= total - n:
                        out.add(s)
    return out


# Work budgets (candidates x block lines) past which a rung refuses rather than stalls.
_SHIFT_CELLS = 2_000_000  # indentation inferred per candidate
_FUZZY_CELLS = 10_000_000  # fuzzy windows scored line by line

# `fuzz.ratio` costs about len(a) * len(b) / 64 word operations. Past this product two lines
# only count as equal or different: scoring a 1 MB line against itself would not finish in
# any reasonable time.
_MAX_RATIO_WORK = 1 << 26  # e.g. two lines of 8,000 characters
_MAX_QUERY_CHARS = 2000


# rapidfuzz's modules, bound on first use: importing them is slow (benchmarks/README.md),
# and the server's start and every exact placement would otherwise pay for a rung they may
# never reach.
fuzz: Any = None
process: Any = None
Levenshtein: Any = None


def _rapidfuzz() -> None:
    global fuzz, process, Levenshtein
    if Levenshtein is None:
        from rapidfuzz import fuzz as _fuzz
        from rapidfuzz import process as _process
        from rapidfuzz.distance import Levenshtein as _levenshtein

        fuzz, process, Levenshtein = _fuzz, _process, _levenshtein


def line_ratio(a: str, b: str) -> float:
    """`fuzz.ratio(a, b) / 100`, or 0.0 for a pair too long to compare in bounded time.
    Typographic quotes, dashes and ellipses count as their ASCII spelling (the punctuation
    rung reads them so): otherwise a line the quote only re-punctuated scores below a
    different line, and the block goes to the wrong place."""
    if len(a) * len(b) > _MAX_RATIO_WORK:
        return 1.0 if a == b else 0.0
    if fuzz is None:
        _rapidfuzz()
    if not (a.isascii() and b.isascii()):
        a, b = fold(a), fold(b)
    return fuzz.ratio(a, b) / 100.0


def score_windows(
    index: ContentIndex,
    old: Sequence[str],
    starts: set[int] | None = None,
    memos: list[dict[str, float]] | None = None,
) -> list[tuple[float, int]]:
    """(similarity, start) for candidate windows, best first.

    A window's similarity is the mean over its lines of 1.0 where the old line and the file
    line are equal once indentation is stripped, else their `fuzz.ratio` / 100. Repetitive
    files pair the same old line with the same file line in many windows, so each distinct
    pair is scored once.
    """
    n = len(old)
    if starts is None:
        starts = window_starts(index, old)
    if len(starts) * n > _FUZZY_CELLS:
        # a long block over a repetitive file: too many look-alike windows to score in
        # bounded time, so the block only matches exactly
        raise _not_found(
            f"the text was not found exactly, and {len(starts):,} look-alike places of {n:,} "
            "lines are too many to compare; quote the text exactly, or fewer lines",
            {"expected": "\n".join(old[:40]), "windows": len(starts)},
        )
    if not starts:
        return []
    keys = [line.strip() for line in old]
    stripped = index.stripped
    order = sorted(starts)
    # Column by column: the file lines at offset j of every window are fetched, scored and
    # added in C (itemgetter, map); Python only scores each distinct (old line, file line)
    # pair once. Sums run in the same order (j = 0, 1, ...) as a window-by-window loop.
    totals = [0.0] * len(order)
    for j, key in enumerate(keys):
        column = (
            operator.itemgetter(*[s + j for s in order])(stripped)
            if len(order) > 1
            else (stripped[order[0] + j],)
        )
        memo = {line: 1.0 if line == key else line_ratio(key, line) for line in set(column)}
        if memos is not None:
            memos[j].update(memo)  # the rewrite check asks for the same pairs again
        totals = list(map(operator.add, totals, map(memo.__getitem__, column)))
    # best first, then by line: sorting (-score, start) pairs compares in C, a key function
    # would be called once per window
    ranked = sorted(zip([-(total / n) for total in totals], order, strict=True))
    return [(-negated, s) for negated, s in ranked]


def _few_changed(
    old: Sequence[str],
    stripped: Sequence[str],
    start: int,
    memos: list[dict[str, float]] | None = None,
) -> bool:
    """A fuzzy window may differ substantially (< 90% alike) in at most a quarter of its
    lines: a short anchor with one rewritten line is a different place, not a typo.
    `memos[j]` caches `line_ratio(old[j].strip(), line)` by line (look-alike windows in
    repetitive code share most of their lines)."""
    allowed = len(old) // 4
    changed = 0
    for j, line in enumerate(old):
        key, there = line.strip(), stripped[start + j]
        if key == there:
            continue
        if memos is None:
            ratio = line_ratio(key, there)
        else:
            ratio = memos[j].get(there)
            if ratio is None:
                ratio = memos[j][there] = line_ratio(key, there)
        if ratio < 0.9:
            changed += 1
            if changed > allowed:
                return False
    return True


def _contenders(
    scored: list[tuple[float, int]],
    old: Sequence[str],
    stripped: Sequence[str],
    threshold: float,
    memos: list[dict[str, float]] | None = None,
) -> list[tuple[float, int]]:
    """The windows that pass (threshold, few lines rewritten), best first, cut after the
    best one's FUZZY_MARGIN: nothing further down can tie with it, so the (costly) rewrite
    check is not run on the long tail of a repetitive file."""
    out: list[tuple[float, int]] = []
    if memos is None:
        memos = [{} for _ in old]
    for sc, s in scored:
        if sc < threshold or (out and out[0][0] - sc >= FUZZY_MARGIN):
            break
        if _few_changed(old, stripped, s, memos):
            out.append((sc, s))
    return out


def undominated(starts: list[int], old: Sequence[str], stripped: Sequence[str]) -> list[int]:
    """Drop windows another window beats where the two actually differ.

    In repetitive code (many functions built from one pattern) whole-window scores of the
    right place and its look-alikes sit within the margin, because most lines are shared.
    Comparing two windows only on the lines where *they* differ (the name, a constant), by
    edit distance, shows which one the block describes; if neither is at least twice as
    close there, both stay and the block is ambiguous.
    """
    keys = [line.strip() for line in old]
    n = len(keys)
    _rapidfuzz()
    memos: list[dict[str, int]] = [{} for _ in keys]

    def lev(j: int, line: str) -> int:
        d = memos[j].get(line)
        if d is None:
            key, there = keys[j], line
            if not (key.isascii() and there.isascii()):
                key, there = fold(key), fold(there)  # as `line_ratio` reads them
            d = memos[j][line] = Levenshtein.distance(key, there)
        return d

    def distance(a: int, lines: list[int]) -> int:
        return sum(lev(j, stripped[a + j]) for j in lines)

    def beats(a: int, b: int) -> bool:
        differ = [j for j in range(n) if stripped[a + j] != stripped[b + j]]
        if not differ:
            return False
        da, db = distance(a, differ), distance(b, differ)
        return db > 0 and 2 * da <= db  # at least twice as close where they differ

    # Only a window closer to the block over all its lines can beat another: on the lines
    # two windows share both distances are equal, so 2·da ≤ db with db > 0 forces the
    # whole-window total of `a` below that of `b`. Trying the closest windows first, and
    # never the farther ones, keeps this near-linear in the number of look-alikes (a
    # repetitive 100,000-line file has hundreds) instead of all pairs.
    total = {w: distance(w, list(range(n))) for w in starts}
    closest_first = sorted(starts, key=lambda w: (total[w], w))
    out = []
    for b in starts:
        for a in closest_first:
            if total[a] >= total[b]:
                out.append(b)
                break
            if beats(a, b):
                break
        else:
            out.append(b)
    return out


def _locate_fuzzy(index: ContentIndex, old: Sequence[str], hints: Hints, threshold: float) -> Match:
    n = len(old)
    memos: list[dict[str, float]] = [{} for _ in old]
    scored = [(sc, s) for sc, s in score_windows(index, old, None, memos) if s >= hints.start_at]
    good = _contenders(scored, old, index.stripped, threshold, memos)
    if good:
        best_score, best = good[0]
        # the runner-up is the best window that is a different place (not overlapping)
        rivals = [(sc, s) for sc, s in good[1:] if abs(s - best) >= max(1, n // 2)]
        if rivals and best_score - rivals[0][0] < FUZZY_MARGIN:
            tied = [best] + [s for sc, s in rivals if best_score - sc < FUZZY_MARGIN]
            tied = undominated(tied, old, index.stripped)
            picked = (
                tied if len(tied) == 1 else _pick(sorted(tied), n, hints, len(index.lines), index)
            )
            if len(picked) != 1:
                err = ambiguous_error(sorted(tied), n, MatchKind.FUZZY)
                err.failure.details["scores"] = [round(best_score, 3)]
                raise err
            best = picked[0]
            best_score = next(sc for sc, s in good if s == best)
        score = round(best_score, 4)
        rows = realign(index.stripped, old, best, line_ratio)
        if rows is None:
            return Match(best, best + n, MatchKind.FUZZY, score)
        there = [r for r in rows if r is not None]
        return Match(there[0], there[-1] + 1, MatchKind.FUZZY, score, rows=rows)
    raise _closest_failure(index, old, hints, "the text was not found", scored=scored)


def _closest_failure(
    index: ContentIndex,
    old: Sequence[str],
    hints: Hints,
    reason: str,
    scored: list[tuple[float, int]] | None = None,
) -> PlacementError:
    """TEXT_NOT_FOUND with the closest region: its line, similarity and a short diff."""
    n = len(old)
    if scored is None:
        scored = score_windows(index, old)
    details: dict = {"expected": "\n".join(old[:40])}
    message = reason
    if scored and scored[0][0] >= CLOSEST_FLOOR:
        sc, s = scored[0]
        region = list(index.lines[s : s + n])
        diff = list(
            difflib.unified_diff(
                list(old),
                region,
                "expected (from the reply)",
                f"file lines {s + 1}-{s + n}",
                n=1,
                lineterm="",
            )
        )
        whitespace_only = [o.split() for o in old] == [r.split() for r in region]
        details.update(
            {
                "closest": {
                    "line": s + 1,
                    "end_line": s + n,
                    "similarity": round(sc, 3),
                    "whitespace_only": whitespace_only,
                    "text": "\n".join(region[:40]),
                    "diff": "\n".join(diff[:60]),
                }
            }
        )
        what = "differs only in whitespace" if whitespace_only else f"similarity {percent(sc)}"
        message = f"{reason}; closest match at line {s + 1} ({what}):\n" + "\n".join(diff[2:30])
    else:
        message = f"{reason}; nothing in the file resembles it"
    return _not_found(message, details)
