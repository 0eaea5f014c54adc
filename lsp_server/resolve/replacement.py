"""The lines a placed block writes: the file's own lines where the block keeps them, its new
lines re-indented to sit where the reply puts them.

Past the exact rung the reply's copy of a line is not the file's line: trailing spaces,
indentation, a slipped context line, typographic quotes. A line equal in the block's old
and new text is one the block keeps, and the file's bytes are written for it; only the
lines the block changes come from the reply. They are re-indented:

* when every quoted line sits at the file's depth plus one same shift (or with a standard
  change of indent unit, see `indent.infer_shift`), each new line moves by that shift;
* otherwise the reply's lines drifted apart, and each new line keeps its depth relative to
  the line above it in the reply, measured from where that line sits in the file.

Indentation is written in the file's own characters: tabs where the file indents with tabs
at that place, spaces elsewhere. A new line whose depth the file cannot give (left of
column 0) is refused rather than flattened.

A fuzzily placed block may skip a file line or carry an empty line the file lacks (see
`alignment`). A skipped line between two kept lines stays where it is; one next to a line
the block changes leaves its order unclear, and the block is refused.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Sequence
from typing import NamedTuple

from rapidfuzz.distance import Indel

from lsp_server.linediff import line_opcodes
from lsp_server.model import ErrorCode, MatchKind, PlacementError
from lsp_server.resolve.blank_pairs import same_lines
from lsp_server.resolve.content_index import ContentIndex
from lsp_server.resolve.indent import TAB_WIDTH, UNIT_SIZES, indent_of, infer_shift, width
from lsp_server.resolve.match import Match
from lsp_server.resolve.placeholders import is_placeholder_line

_KEPT, _SKIPPED, _NEW = 0, 1, 2


def build(index: ContentIndex, match: Match, old: Sequence[str], new: Sequence[str]) -> list[str]:
    """The replacement of file lines [match.start, match.end) (contents, no endings).

    `index` holds the file's line contents (its indent unit is only read when a new line's
    place says too little: most placements never pay for it); `old` and `new` are the
    block's lines."""
    if match.kind is MatchKind.ELISION:
        return _build_elided(index, match, old, new)
    fuzzy = match.kind is MatchKind.FUZZY
    return _build_span(index, match.start, match.file_rows(len(old)), old, new, fuzzy)


class _Depths(NamedTuple):
    """How deep a new line goes: `shift` columns added to the reply's depth; or a change of
    indent unit (`old_base`/`old_unit` in the reply to `file_base`/`file_unit` columns in
    the file); or, with neither, relative to a reference line."""

    shift: int | None = None
    old_base: int = 0
    old_unit: int = 0
    file_base: int = 0
    file_unit: int = 0

    @classmethod
    def of(cls, pairs: list[tuple[str, str]], new: Sequence[str], index: ContentIndex) -> _Depths:
        if not pairs:
            return cls(shift=0)
        deltas = {width(indent_of(f)) - width(indent_of(o)) for o, f in pairs}
        if len(deltas) == 1:
            return cls(shift=deltas.pop())
        old_side, file_side = [o for o, _ in pairs], [f for _, f in pairs]
        found = infer_shift(old_side, file_side, index.lines, index.lazy_unit)
        if found is None or found.old_unit is None:
            return cls()
        # a change of unit only when the new lines are whole levels of the reply's unit
        # too: a quoted line that drifted can make two lines look like another unit
        if any((width(indent_of(x)) - found.old_base) % found.old_unit for x in new if x.strip()):
            return cls()
        file_unit = width(found.file_unit) if found.file_unit != "\t" else TAB_WIDTH
        fb = min(width(indent_of(f)) for _, f in pairs)
        return cls(None, found.old_base, found.old_unit, fb, file_unit)

    @property
    def relative(self) -> bool:
        return self.shift is None and not self.old_unit

    def depth(self, reply: int) -> int:
        if self.shift is not None:
            return reply + self.shift
        levels = (reply - self.old_base) // self.old_unit  # whole levels (see `of`)
        return self.file_base + levels * self.file_unit


def _unclear(line: int) -> PlacementError:
    return PlacementError.of(
        ErrorCode.TEXT_NOT_FOUND,
        f"the block skips file line {line + 1} next to a line it changes, so where the "
        "change goes is unclear; quote the lines around the change as the file has them",
        line=line + 1,
    )


def _refuse_unshown(
    rows: Sequence[int | None], old: Sequence[str], new: Sequence[str], lines: Sequence[str]
) -> None:
    """A fuzzily placed block changes or drops a file line only where the reply shows it:
    the block's copy of the line is that line (at least half alike, as `_partners` pairs a
    rewrite with its line), or the line lies between two lines of the block that are the
    file's (the stretch they anchor is replaced by what the reply puts there). A copy at
    the block's edge that is another line altogether (an `import glob` the model imagined
    after the lines it quoted, a quote that starts in another part of the file) anchors
    nothing: the file's real line would go though the reply never shows it. Refused,
    naming both."""
    alike = [
        f is not None and _resembles(old[i].strip(), lines[f].strip()) for i, f in enumerate(rows)
    ]
    kept = {i for i, _ in _kept_pairs(rows, old, new)}
    for i, f in enumerate(rows):
        if f is None or i in kept or alike[i] or not lines[f].strip():
            continue
        if any(alike[:i]) and any(alike[i + 1 :]):
            continue  # between two lines the file has: replaced as the reply says
        quoted, there = old[i].strip(), lines[f].strip()
        raise PlacementError.of(
            ErrorCode.TEXT_NOT_FOUND,
            f"line {i + 1} of the block's old text ({quoted!r}) is not in the file: where the "
            f"block matched, file line {f + 1} ({there!r}) stands in its place, and the block "
            "would change it without showing it; quote the lines as the file has them",
            line=f + 1,
        )


def _resembles(quoted: str, there: str) -> bool:
    """Is the block's (stripped) copy `quoted` the file's line `there`: equal, or at least
    half alike (two empty lines are alike; an empty copy of a line with text is not)."""
    if quoted == there:
        return True
    return bool(quoted and there) and Indel.normalized_similarity(quoted, there) >= 0.5


def _kept_pairs(
    rows: Sequence[int | None], old: Sequence[str], new: Sequence[str]
) -> list[tuple[int, int]]:
    """(old line, new line) pairs the block keeps, in order: the lines equal in its old and
    new text, by a line diff. Where the diff pairs an old line that stands for no file
    line (an empty line the file lacks) while an equal old line the file has is left
    unpaired and could take its place without moving past a line the new text still has,
    that one is kept instead: where the block repeats an empty line, the one the file has
    is the one it keeps."""
    # the one line differ (bounded: difflib's is cubic here), blank lines by their neighbours
    pairs = same_lines(old, new)
    if all(r is not None for r in rows):
        return pairs
    paired = {i for i, _ in pairs}
    for n, (p, j) in enumerate(pairs):
        if rows[p] is not None:
            continue
        lo = pairs[n - 1][0] if n else -1
        hi = pairs[n + 1][0] if n + 1 < len(pairs) else len(old)
        free = [
            i
            for i in range(lo + 1, hi)
            if i not in paired
            and rows[i] is not None
            and old[i] == old[p]
            and not _crosses(old, new, p, i, j)
        ]
        if free:
            i = min(free, key=lambda i: abs(i - p))
            pairs[n] = (i, j)
            paired.discard(p)
            paired.add(i)
    return pairs


def _crosses(old: Sequence[str], new: Sequence[str], p: int, i: int, j: int) -> bool:
    """Whether pairing new line j with old line i instead of p puts an old line between
    them on the other side of j from its own new copy (the same line re-indented, say)."""
    a, b = sorted((p, i))
    between = {old[k].strip() for k in range(a + 1, b) if old[k].strip()}
    if not between:
        return False
    side = new[j + 1 :] if p < i else new[:j]
    return any(line.strip() in between for line in side)


def _layout(
    start: int, rows: Sequence[int | None], old: Sequence[str], new: Sequence[str]
) -> list[tuple[int, int, int]]:
    """What the replacement is made of, in order: (_KEPT, file line, new line),
    (_SKIPPED, file line, -1) for a file line the block does not show, (_NEW, -1, new line).
    Old lines the block drops or changes take their file lines with them."""
    items: list[tuple[int, int, int]] = []
    nxt = start  # the first file line of the region not yet written or dropped
    kept_run = False  # the last old line met was kept, and nothing was added since

    def reach(f: int, keeping: bool) -> None:
        nonlocal nxt
        if f > nxt:
            if not (keeping and kept_run):
                raise _unclear(nxt)
            items.extend((_SKIPPED, g, -1) for g in range(nxt, f))
        nxt = f + 1

    i = j = 0
    for pi, pj in [*_kept_pairs(rows, old, new), (len(old), len(new))]:
        if i < pi or j < pj:
            for k in range(i, pi):
                f = rows[k]
                if f is not None:
                    reach(f, False)  # the block changes this line: the file's goes
            kept_run = False
            items.extend((_NEW, -1, n) for n in range(j, pj))
        if pi < len(old):
            f = rows[pi]
            if f is not None:  # else the file has no such line here: nothing to keep
                reach(f, True)
                items.append((_KEPT, f, pj))
                kept_run = True
        i, j = pi + 1, pj + 1
    return items


def _build_span(
    index: ContentIndex,
    start: int,
    rows: Sequence[int | None],
    old: Sequence[str],
    new: Sequence[str],
    fuzzy: bool = False,
) -> list[str]:
    """`fuzzy`: the block's quote of the file may differ from it in more than spacing; a
    line it rewrites keeps the file's characters it did not quote (see `transfer`)."""
    lines = index.lines
    items = _layout(start, rows, old, new)
    if fuzzy:
        _refuse_unshown(rows, old, new, lines)
    pairs = [
        (old[i], lines[f])
        for i, f in enumerate(rows)
        if f is not None and old[i].strip() and lines[f].strip()
    ]
    depths = _Depths.of(pairs, new, index)
    # the lines the block rewrites, each with the one it stands for: needed where the file's
    # lines differ from the block's quote of them, or sit at different shifts
    differs = any(f is not None and lines[f].strip() != old[i].strip() for i, f in enumerate(rows))
    partner = _partners(rows, old, new) if differs or depths.relative else {}
    # the first reference, for new lines before any kept line: the next kept line below,
    # else the first line the block quotes
    below: tuple[int, str] | None = None
    for kind, f, j in items:
        if kind == _KEPT and new[j].strip():
            below = (width(indent_of(new[j])), indent_of(lines[f]))
            break
    if below is None and pairs:
        below = (width(indent_of(pairs[0][0])), indent_of(pairs[0][1]))
    above: tuple[int, str] | None = None  # (reply depth, file indentation) of the last line
    out: list[str] = []
    for kind, f, j in items:
        if kind == _SKIPPED:
            out.append(lines[f])
            continue
        if kind == _KEPT:
            out.append(lines[f])
            if new[j].strip():
                above = (width(indent_of(new[j])), indent_of(lines[f]))
            continue
        line = new[j]
        if not line.strip():
            out.append(_blank(line, depths, above or below, [f for _, f in pairs], index))
            continue
        ref = above or below
        ind = indent_of(line)
        reply = width(ind)
        body = line[len(ind) :]
        i = partner.get(j)
        if i is not None:
            # a line the block rewrites, standing for file line `f`: the file's own
            # characters the block did not quote stay (see `transfer`)
            f = rows[i]
            if fuzzy:
                body = transfer(old[i], lines[f], line, f)
            if depths.relative and ref is not None:
                # its own line's shift must agree with the shift it is measured by
                own = width(indent_of(lines[f])) - width(indent_of(old[i]))
                if own != width(ref[1]) - ref[0]:
                    raise _no_depth(j, width(ref[1]) - ref[0], own)
        elif depths.relative:
            _one_depth(items, j, above, new, old, rows, lines, partner)
        if depths.relative and ref is not None:
            depth = width(ref[1]) + reply - ref[0]
        else:
            depth = depths.depth(reply)
        if depths.shift and not depths.relative:
            _refuse_off_grid(index, depths.shift, depth, reply, j)
        if depth < 0:
            raise PlacementError.of(
                ErrorCode.MALFORMED_BLOCK,
                f"line {j + 1} of the new text sits {-depth} column(s) left of where the "
                "file can put it: the block's indentation does not fit the place it "
                "matched; quote the lines with the file's indentation",
                line=j + 1,
            )
        written = _indentation(depth, ref[1] if ref else "", [f for _, f in pairs], index)
        out.append(written + body)
        above = (reply, written)
    return out


def _blank(
    line: str,
    depths: _Depths,
    ref: tuple[int, str] | None,
    region: Sequence[str],
    index: ContentIndex,
) -> str:
    """A new blank line as the reply writes it: empty stays empty; spaces and tabs are
    indentation with no text, moved as the block's lines are moved and written in the
    file's characters as they are (docs/snippets.md, "Blank lines"). Other white space (a
    page's no-break spaces) stays where nothing moves, and is not the file's where
    something does."""
    ws = indent_of(line)
    if not ws or line[len(ws) :]:
        return line if depths.shift == 0 else ""
    reply = width(ws)
    if depths.relative and ref is not None:
        depth = width(ref[1]) + reply - ref[0]
    elif depths.shift is None:
        # a change of unit: whole levels become the file's, the columns past them stay
        rest = (reply - depths.old_base) % depths.old_unit
        depth = depths.depth(reply - rest) + rest
    else:
        depth = depths.depth(reply)
    return _indentation(depth, ref[1] if ref else "", region, index) if depth > 0 else ""


def _refuse_off_grid(index: ContentIndex, shift: int, depth: int, reply: int, j: int) -> None:
    """A quote a few columns off the file's lines (not whole indent levels) may be a slip
    of the quote, the new lines meant at their own depth; or the reply moves them by those
    columns. When only the second reading puts a new line off the file's indentation
    grid, the two give different files: refused, not guessed."""
    # The file's unit costs a walk over its first lines (`detect_unit`); it is one of a
    # few sizes, and when every one of them lets the line through, so does the file's.
    if not any(_off_grid(size, shift, depth, reply) for size in UNIT_SIZES):
        return
    unit = index.unit
    if not _off_grid(TAB_WIDTH if unit == "\t" else len(unit), shift, depth, reply):
        return
    raise PlacementError.of(
        ErrorCode.TEXT_AMBIGUOUS,
        f"the block quotes the file's lines {abs(shift)} column(s) "
        f"{'deeper' if shift < 0 else 'shallower'} than they are, which is no whole indent "
        f"level: line {j + 1} of the new text goes either at column {reply}, as written, or "
        f"at column {depth}, moved as the quote is; quote the lines with the file's "
        "indentation",
        line=j + 1,
        columns=[reply, depth],
    )


def _off_grid(size: int, shift: int, depth: int, reply: int) -> bool:
    """Whether, with indent levels of `size` columns, the quote is moved by no whole level
    (`shift`) while the line lands on the grid moved (`depth`) and off it as written."""
    return size >= 2 and bool(shift % size) and bool(depth % size) and not reply % size


# The most line pairs one changed stretch may compare to pair its rewritten lines with the
# lines they stand for (`_aligned` compares every old line with every new one). A block
# that rewrites more in one stretch, while its quote differs from the file, is refused:
# the pairing is what keeps the file's characters the quote left out, and a rewrite that
# large (a whole file, its lines written anew) would take minutes to pair.
MAX_PAIRINGS = 40_000


def _partners(rows: Sequence[int | None], old: Sequence[str], new: Sequence[str]) -> dict[int, int]:
    """new line → the old line it rewrites, for the lines a block changes (outside the
    lines it keeps): within each changed stretch, the pairing in order that is most alike
    in all (each pair at least half alike), old lines standing for file lines only."""
    out: dict[int, int] = {}
    i = j = 0
    for pi, pj in [*_kept_pairs(rows, old, new), (len(old), len(new))]:
        olds = [k for k in range(i, pi) if rows[k] is not None]
        news = list(range(j, pj))
        if len(olds) * len(news) > MAX_PAIRINGS:
            raise PlacementError.of(
                ErrorCode.TEXT_NOT_FOUND,
                f"the block's old text differs from the file where it matched, and the block "
                f"rewrites {len(olds)} of those lines into {len(news)} new ones in one stretch: "
                "too many to pair each new line with the one it stands for; quote the lines "
                "as the file has them",
                stretch=[len(olds), len(news)],
            )
        if olds and news:
            out.update(_aligned(olds, news, old, new))
        i, j = pi + 1, pj + 1
    return out


def _aligned(
    olds: list[int], news: list[int], old: Sequence[str], new: Sequence[str]
) -> dict[int, int]:
    """An order-keeping pairing of `olds` with `news` maximising the summed likeness."""
    a, b = len(olds), len(news)
    sim = [
        [
            difflib.SequenceMatcher(None, old[x].strip(), new[y].strip(), autojunk=False).ratio()
            for y in news
        ]
        for x in olds
    ]
    best = [[0.0] * (b + 1) for _ in range(a + 1)]
    for p in range(a - 1, -1, -1):
        for q in range(b - 1, -1, -1):
            take = sim[p][q] + best[p + 1][q + 1] if sim[p][q] >= 0.5 else -1.0
            best[p][q] = max(take, best[p + 1][q], best[p][q + 1])
    out: dict[int, int] = {}
    p = q = 0
    while p < a and q < b:
        if sim[p][q] >= 0.5 and best[p][q] == sim[p][q] + best[p + 1][q + 1]:
            out[news[q]] = olds[p]
            p, q = p + 1, q + 1
        elif best[p][q] == best[p + 1][q]:
            p += 1
        else:
            q += 1
    return out


def transfer(quoted: str, file_line: str, rewritten: str, f: int) -> str:
    """The rewritten line's text (no indentation) with the file's own characters kept:
    where the file's line differs from the block's quote of it (`- [ ] x` quoted as
    `[ ] x`, a typo, spacing), the block did not see those characters, so it did not ask
    to change them. Both differences are laid on the quote, word by word (`merge3`);
    where the file's difference reaches beyond what the block rewrites, which characters
    to keep is unclear, and the block is refused."""
    # trailing white space is the rewritten line's, as the reply writes it
    tail = rewritten[len(rewritten.rstrip()) :]
    base, mine, theirs = quoted.strip(), file_line.strip(), rewritten.strip()
    if mine == base:
        return theirs + tail
    merged = merge3(base, mine, theirs)
    if merged is None:
        raise PlacementError.of(
            ErrorCode.TEXT_NOT_FOUND,
            f"file line {f + 1} differs from the block's copy of it where the block changes "
            f"it (the file has {mine!r}, the block quotes {base!r}): which characters to "
            "keep is unclear; quote the line as the file has it",
            line=f + 1,
        )
    return merged + tail


_TOKEN = re.compile(r"\w+|\s+|[^\w\s]")


def _changes(a: list[str], b: list[str]) -> list[tuple[int, int, str]]:
    """`a` → `b` as token changes, each deletion and insertion slid as far left as the
    tokens around it allow: in a run of equal tokens (`==` to `=`) which one went is
    arbitrary, and the file's and the reply's removal of the same token must be seen as
    one change, not two (or both sides' `=` would go)."""
    out: list[tuple[int, int, str]] = []
    floor = 0  # never slid into the change before
    for tag, i1, i2, j1, j2 in line_opcodes(a, b):
        if tag == "delete":
            while i1 > floor and a[i1 - 1] == a[i2 - 1]:
                i1, i2 = i1 - 1, i2 - 1
            out.append((i1, i2, ""))
        elif tag == "insert":
            put = list(b[j1:j2])
            while i1 > floor and a[i1 - 1] == put[-1]:
                put = [a[i1 - 1], *put[:-1]]
                i1 -= 1
                i2 = i1
            out.append((i1, i1, "".join(put)))
        else:
            out.append((i1, i2, "".join(b[j1:j2])))
        floor = i2
    return out


def merge3(base_text: str, mine: str, theirs: str) -> str | None:
    """Both sides' changes to `base_text` applied, by tokens (words, runs of spaces, single
    marks), or None where they cannot both hold. A change of the file's (`mine`) that lies
    within a stretch the reply rewrites gives way: the reply changes those characters on
    purpose (`scale=17` quoted, `scale=9` written, the file's `scale=7`: 9 it is). One that
    reaches beyond it is a conflict: part of it the reply rewrites, part it never saw."""
    base = _TOKEN.findall(base_text)
    ours = _changes(base, _TOKEN.findall(mine))
    reply = _changes(base, _TOKEN.findall(theirs))
    kept: list[tuple[int, int, str]] = []
    for m in ours:
        if m in reply:
            continue  # the same change on both sides
        hit = [t for t in reply if _touch(m, t)]
        if not hit:
            if _leans_toward(base, m, theirs):
                return None  # the reply may have made it already, elsewhere: two readings
            kept.append(m)
        elif not any(t[0] <= m[0] and m[1] <= t[1] and t[0] < t[1] for t in hit):
            return None
    edits = sorted([*kept, *reply], key=lambda c: (c[0], c[1] != c[0], c[1]))
    out, at = [], 0
    for n, (i1, i2, text) in enumerate(edits):
        if n and i1 < edits[n - 1][1]:
            return None
        out.extend(base[at:i1])
        out.append(text)
        at = i2
    out.extend(base[at:])
    return "".join(out)


def _leans_toward(base: list[str], m: tuple[int, int, str], theirs: str) -> bool:
    """Is the reply's line as near the quote with the file's change `m` made as without
    it, or nearer? Then the reply may have made that change itself, placed where the
    token diff does not line it up with the file's (`(` added before or after another
    `(`; `= ` added before `= ` where the reply's own space follows), and keeping it as
    well could make it twice."""
    i1, i2, put = m
    with_m = [*base[:i1], *_TOKEN.findall(put), *base[i2:]]
    toks = _TOKEN.findall(theirs)
    return Indel.distance(with_m, toks) <= Indel.distance(base, toks)


def _touch(a: tuple[int, int, str], b: tuple[int, int, str]) -> bool:
    """Whether two changes meet: overlapping stretches, an insertion strictly inside the
    other's stretch, or two insertions at one place."""
    (a1, a2, _), (b1, b2, _) = a, b
    if a1 == a2 and b1 == b2:
        return a1 == b1
    if a1 == a2:
        return b1 < a1 < b2
    if b1 == b2:
        return a1 < b1 < a2
    return a1 < b2 and b1 < a2


def _no_depth(j: int, one: int, other: int) -> PlacementError:
    return PlacementError.of(
        ErrorCode.MALFORMED_BLOCK,
        f"line {j + 1} of the new text has no one depth: the block's lines around it sit "
        f"{one} and {other} column(s) off the file's (no one shift: what the indentation "
        "rung refuses); quote the lines with the file's indentation",
        line=j + 1,
    )


def _one_depth(
    items: Sequence[tuple[int, int, int]],
    j: int,
    above: tuple[int, str] | None,
    new: Sequence[str],
    old: Sequence[str],
    rows: Sequence[int | None],
    lines: Sequence[str],
    partner: dict[int, int],
) -> None:
    """A line the block adds, where its quoted lines sit at different shifts from the
    file's (no one shift, no change of unit: what the indentation rung refuses): it takes
    the shift of the lines around it, and when the line above and the line below moved by
    different amounts, no depth for it was written by anyone — refused, not guessed."""
    if above is None:
        return
    shift_above = width(above[1]) - above[0]
    at = next(n for n, (kind, _, jj) in enumerate(items) if kind == _NEW and jj == j)
    for kind, f, jj in items[at + 1 :]:
        if kind == _KEPT and new[jj].strip():
            shift_below = width(indent_of(lines[f])) - width(indent_of(new[jj]))
        elif kind == _NEW and jj in partner and new[jj].strip():
            i = partner[jj]
            f = rows[i]
            shift_below = width(indent_of(lines[f])) - width(indent_of(old[i]))
        else:
            continue
        if shift_below != shift_above:
            raise _no_depth(j, shift_above, shift_below)
        return


def _indentation(depth: int, ref: str, region: Sequence[str], index: ContentIndex) -> str:
    """`depth` columns of indentation in the file's characters at this place: tabs (then
    fewer spaces than a tab stop) when the reference line indents with tabs; spaces when
    it indents with spaces as deep as a tab goes. A shallower reference says nothing:
    then the lines the block matched decide, and failing them the file's indent unit."""
    if depth < TAB_WIDTH:
        return " " * depth  # as tabs, too: no tab fits
    if "\t" in ref:
        tabs = True
    elif width(ref) >= TAB_WIDTH:
        tabs = False
    else:
        kinds = {indent_of(x)[:1] for x in region} - {""}
        tabs = "\t" in kinds if len(kinds) == 1 else index.unit == "\t"
    if tabs:
        return "\t" * (depth // TAB_WIDTH) + " " * (depth % TAB_WIDTH)
    return " " * depth


def _build_elided(
    index: ContentIndex, match: Match, old: Sequence[str], new: Sequence[str]
) -> list[str]:
    lines = index.lines
    """Each piece of an anchor split by `...` lines is built on its own; the file's lines
    the `...` stood for are put back where the new text repeats the `...`."""
    pieces: list[tuple[list[str], list[int | None]]] = [([], [])]
    for line, row in zip(old, match.file_rows(len(old)), strict=True):
        if is_placeholder_line(line):
            pieces.append(([], []))
        else:
            pieces[-1][0].append(line)
            pieces[-1][1].append(row)
    pieces = [p for p in pieces if any(x.strip() for x in p[0])]
    segments: list[list[str]] = [[]]
    for line in new:
        if is_placeholder_line(line):
            segments.append([])
        else:
            segments[-1].append(line)
    while len(segments) > 1 and not any(x.strip() for x in segments[0]):
        segments.pop(0)
    while len(segments) > 1 and not any(x.strip() for x in segments[-1]):
        segments.pop()
    if len(segments) != len(match.elided) + 1:
        raise PlacementError.of(
            ErrorCode.MALFORMED_BLOCK,
            f"the anchor skips {len(match.elided)} region(s) with `...`, but the replacement "
            f"has {len(segments) - 1}; repeat each `...` line in the replacement where the "
            "skipped code stays",
            expected=len(match.elided),
            found=len(segments) - 1,
        )
    out: list[str] = []
    for i, (seg, (piece, rows)) in enumerate(zip(segments, pieces, strict=True)):
        there = [r for r in rows if r is not None]
        out.extend(_build_span(index, there[0], rows, piece, seg))
        if i < len(match.elided):
            a, b = match.elided[i]
            out.extend(lines[a:b])
    return out
