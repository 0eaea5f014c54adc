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
"""

from __future__ import annotations

import difflib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import NamedTuple

from lsp_server.linediff import longest_increasing
from lsp_server.model import ErrorCode, MatchKind, PlacementError
from lsp_server.patterns import compiled_on_use
from lsp_server.resolve.indent import swap_prefix
from lsp_server.resolve.line_shape import (
    definition_name,
    indent_width,
    is_blank,
    is_closer,
    is_weak,
    lead,
    parents,
    similar,
)
from lsp_server.resolve.merge.elision import file_comments
from lsp_server.resolve.placeholders import count_placeholder_lines, is_placeholder_line

# --- result --------------------------------------------------------------------------------


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


def merge(original: str, snippet: str, path: str = "") -> LazyMerge:
    """Like `lazy_merge`, also saying whether the result is a merge or an overwrite."""
    o_lines, o_newline = _split(original)
    s_lines, _ = _split(snippet)
    placeholder = [is_placeholder_line(line, path) for line in s_lines]
    # the file's own `# ... see below ...` shown where the file has it is that comment
    placeholder = file_comments(s_lines, placeholder, o_lines)
    if not any(placeholder):
        restated = _restate_definition(o_lines, s_lines, path)
        if restated is None:
            return LazyMerge(snippet, MatchKind.OVERWRITE)
        return LazyMerge(_join(restated, o_newline), MatchKind.ELISION)
    merged = _Merger(o_lines, s_lines, placeholder, path).run()
    before = count_placeholder_lines(o_lines, path)
    after = count_placeholder_lines(merged, path)
    if after > before:  # by construction impossible; refuse rather than write one
        raise PlacementError.of(
            ErrorCode.TEXT_NOT_FOUND,
            "internal check failed: the merge would write a placeholder line",
            path=path,
        )
    return LazyMerge(_join(merged, o_newline or not o_lines), MatchKind.ELISION)


def _split(text: str) -> tuple[list[str], bool]:
    if not text:
        return [], False
    lines = text.split("\n")
    if lines[-1] == "":
        return lines[:-1], True
    return lines, False


def _join(lines: list[str], newline: bool) -> str:
    if not lines:
        return ""
    return "\n".join(lines) + ("\n" if newline else "")


# --- the merge -----------------------------------------------------------------------------


@dataclass
class _Segment:
    start: int  # snippet line indexes [start, end), no placeholder inside
    end: int
    before: bool  # a placeholder precedes it
    after: bool  # a placeholder follows it
    anchors: list[tuple[int, int]]
    b: int = 0  # original region [b, e) it replaces
    e: int = 0
    placed: bool = False


_MAX_ROUNDS = 8  # anchor-validation rounds; each drops at least one anchor


class _Merger:
    def __init__(self, o_lines: list[str], s_lines: list[str], placeholder: list[bool], path: str):
        self.o = o_lines
        self.s = s_lines
        self.ph = placeholder
        self.path = path
        self.o_key = [line.rstrip() for line in o_lines]
        self.s_key = [line.rstrip() for line in s_lines]
        self.o_parent = parents(o_lines)
        self.s_parent = parents(s_lines, placeholder)
        self.pair_s: dict[int, int] = {}
        self.pair_o: dict[int, int] = {}
        self.segments = self._segments()

    # -- structure of the snippet --------------------------------------------------------

    def _segments(self) -> list[_Segment]:
        out: list[_Segment] = []
        i, n = 0, len(self.s)
        seen_placeholder = False
        while i < n:
            if self.ph[i]:
                seen_placeholder = True
                i += 1
                continue
            j = i
            while j < n and not self.ph[j]:
                j += 1
            if any(not is_blank(line) for line in self.s[i:j]):
                out.append(_Segment(i, j, seen_placeholder, j < n, []))
            i = j
        return out

    def _pair(self, s: int, o: int) -> None:
        self.pair_s[s] = o
        self.pair_o[o] = s

    def _unpair(self, s: int) -> None:
        o = self.pair_s.pop(s)
        del self.pair_o[o]

    # -- step 1: anchors -------------------------------------------------------------------

    def _anchor(self) -> None:
        o_count: dict[str, int] = {}
        o_where: dict[str, int] = {}
        for i, key in enumerate(self.o_key):
            if key.strip():
                o_count[key] = o_count.get(key, 0) + 1
                o_where[key] = i
        s_count: dict[str, int] = {}
        for seg in self.segments:
            for i in range(seg.start, seg.end):
                key = self.s_key[i]
                if key.strip():
                    s_count[key] = s_count.get(key, 0) + 1
        candidates: list[tuple[int, int, _Segment]] = []
        for seg in self.segments:
            for i in range(seg.start, seg.end):
                key = self.s_key[i]
                if (
                    key.strip()
                    and s_count.get(key) == 1
                    and o_count.get(key) == 1
                    and not is_weak(key)
                ):
                    candidates.append((i, o_where[key], seg))
        # A unique line is only an anchor inside a matching enclosure: `return this;` of a
        # new `exp()` is not the one `add()` has, however unique. Drop the anchors whose
        # enclosing lines disagree and align again, until none does.
        rejected: set[int] = set()
        for _ in range(_MAX_ROUNDS):
            self._reset()
            chain = _longest_increasing([c for c in candidates if c[0] not in rejected])
            for s, o, seg in chain:
                seg.anchors.append((s, o))
                self._pair(s, o)
            self._pair_all_between()
            bad = {s for s, o, _ in chain if not self._enclosed(s, o)}
            if not bad:
                break
            rejected |= bad
        # Short lines (`}`, `</StepsDiv>`, `loop {`) that occur once on each side anchor too,
        # but only with evidence: their enclosing lines are already paired with each other,
        # and they fall between their neighbours' partners.
        added = False
        for seg in self.segments:
            for i in range(seg.start, seg.end):
                key = self.s_key[i]
                if i in self.pair_s or not key.strip() or not is_weak(key):
                    continue
                if s_count.get(key) != 1 or o_count.get(key) != 1:
                    continue
                o = o_where[key]
                ps = self.s_parent[i]
                if o in self.pair_o or ps is None or self.pair_s.get(ps) != self.o_parent[o]:
                    continue
                if not self._in_order(i, o):
                    continue
                self._pair(i, o)
                seg.anchors.append((i, o))
                added = True
        # A segment nothing anchored may still begin with a line that occurs once in the
        # file and once in the reply (`build: {` of an object shown between two
        # `// ...existing code...` lines): that line is where it is.
        for seg in self.segments:
            if seg.anchors:
                continue
            i = self._first_code(seg)
            key = self.s_key[i]
            if s_count.get(key) != 1 or o_count.get(key) != 1:
                continue
            o = o_where[key]
            if o in self.pair_o or not self._in_order(i, o):
                continue
            self._pair(i, o)
            seg.anchors.append((i, o))
            added = True
        if added:
            for seg in self.segments:
                seg.anchors.sort()
            self._pair_all_between()

    def _reset(self) -> None:
        self.pair_s.clear()
        self.pair_o.clear()
        for seg in self.segments:
            seg.anchors = []

    def _enclosed(self, s: int, o: int) -> bool:
        """The enclosing lines of `s` and `o` are paired with each other (or the snippet
        shows none). Enclosing lines that are not paired yet but read as one edited into
        the other (`def f(a, b):` / `def f(a):`) are paired here."""
        ps, po = self.s_parent[s], self.o_parent[o]
        if ps is None:
            return True
        if ps in self.pair_s:
            return self.pair_s[ps] == po
        if po is not None and po not in self.pair_o and similar(self.s[ps], self.o[po]):
            self._pair(ps, po)
            return True
        return False

    def _in_order(self, s: int, o: int) -> bool:
        """Pairing snippet line `s` with file line `o` keeps every pair in the same order."""
        before = [self.pair_s[k] for k in self.pair_s if k < s]
        after = [self.pair_s[k] for k in self.pair_s if k > s]
        return (not before or max(before) < o) and (not after or min(after) > o)

    def _pair_all_between(self) -> None:
        """Pair the lines between consecutive anchors of each segment; a head (tail) segment
        also lines up with the top (bottom) of the file before (after) its anchors."""
        for seg in self.segments:
            if not seg.anchors:
                continue
            for (s1, o1), (s2, o2) in zip(seg.anchors, seg.anchors[1:], strict=False):
                self._pair_between(s1 + 1, s2, o1 + 1, o2)
            if not seg.before:
                self._pair_between(seg.start, seg.anchors[0][0], 0, seg.anchors[0][1])
            if not seg.after:
                self._pair_between(
                    seg.anchors[-1][0] + 1, seg.end, seg.anchors[-1][1] + 1, len(self.o)
                )

    def _pair_between(self, s_lo: int, s_hi: int, o_lo: int, o_hi: int) -> None:
        """Pair the lines between two anchors: equal lines, and one-for-one replacements."""
        if s_lo >= s_hi or o_lo >= o_hi:
            return
        matcher = difflib.SequenceMatcher(
            None, self.s_key[s_lo:s_hi], self.o_key[o_lo:o_hi], autojunk=False
        )
        for tag, i1, i2, j1, j2 in matcher.get_opcodes():
            if tag == "equal" or (tag == "replace" and i2 - i1 == j2 - j1):
                for k in range(i2 - i1):
                    s, o = s_lo + i1 + k, o_lo + j1 + k
                    if is_blank(self.s[s]) or is_blank(self.o[o]):
                        continue
                    if s not in self.pair_s and o not in self.pair_o:
                        self._pair(s, o)

    # -- steps 2 and 3: edges and the enclosure check --------------------------------------

    def _valid(self, s: int, o: int) -> bool:
        ps = self.s_parent[s]
        if ps is None:
            return True
        return self.pair_s.get(ps, -1) == self.o_parent[o] and self.o_parent[o] is not None

    def _grow(self, seg: _Segment, s0: int, o0: int, step: int, o_stop: int) -> None:
        """Pair original lines outward from (s0, o0) while the snippet restates them;
        `o_stop` is the first original index that may not be taken."""
        added: list[tuple[int, int]] = []
        s, o = s0 + step, o0 + step

        def s_in(k: int) -> bool:
            return seg.start <= k < seg.end

        def o_in(k: int) -> bool:
            return (o_stop < k < len(self.o)) if step < 0 else (0 <= k < o_stop)

        while True:
            while o_in(o) and (is_blank(self.o[o]) or o in self.pair_o):
                o += step
            while s_in(s) and is_blank(self.s[s]):
                s += step
            if not o_in(o) or not s_in(s):
                break
            found = None
            t = s
            while s_in(t):
                if self.s_key[t] == self.o_key[o] and t not in self.pair_s:
                    found = t
                    break
                t += step
            if found is None and s not in self.pair_s and similar(self.s[s], self.o[o]):
                found = s
            if found is None:
                break
            self._pair(found, o)
            added.append((found, o))
            s, o = found + step, o + step
        # the enclosure check, to a fixpoint: dropping one pair may orphan another
        changed = True
        while changed and added:
            changed = False
            for k, (s, o) in enumerate(added):
                if not self._valid(s, o):
                    for s_drop, _ in added[k:]:
                        self._unpair(s_drop)
                    del added[k:]
                    changed = True
                    break

    def _place(self) -> None:
        n = len(self.o)
        prev_end = -1  # last original index taken by an earlier segment
        for idx, seg in enumerate(self.segments):
            later = [x for x in self.segments[idx + 1 :] if x.anchors]
            next_first = later[0].anchors[0][1] if later else n
            if seg.anchors:
                if seg.before:
                    self._grow(seg, *seg.anchors[0], -1, prev_end)
                if seg.after:
                    self._grow(seg, *seg.anchors[-1], +1, next_first)
            elif not seg.before:  # head segment with nothing to anchor on: grow from the top
                self._grow(seg, seg.start - 1, -1, +1, next_first)
            elif not seg.after:  # tail segment likewise, from the bottom
                self._grow(seg, seg.end, n, -1, prev_end)
            paired = [self.pair_s[i] for i in range(seg.start, seg.end) if i in self.pair_s]
            if not seg.before:  # the head: from the top of the file, see _reach
                seg.b, seg.e = (self._reach(paired, -1), max(paired) + 1) if paired else (0, 0)
            elif not seg.after and paired:  # the tail: to the end of the file, likewise
                seg.b, seg.e = min(paired), self._reach(paired, +1)
            elif paired:
                seg.b, seg.e = min(paired), max(paired) + 1
            else:
                continue  # new code between two placeholders: placed below
            seg.e = max(seg.e, self._closed_blocks(seg, next_first))
            seg.placed = True
            prev_end = max(prev_end, seg.e - 1)
        if not self.pair_s and (
            len(self.segments) > 1 or any(seg.before and seg.after for seg in self.segments)
        ):
            for seg in self.segments:
                self._refuse_repeated(seg)
            raise self._not_found(self.segments[0])
        gap_lo = 0
        for idx, seg in enumerate(self.segments):
            if seg.placed:
                gap_lo = max(gap_lo, seg.e)
                continue
            self._refuse_repeated(seg)
            first = self._first_code(seg)
            nxt = next((x for x in self.segments[idx + 1 :] if x.placed), None)
            gap_hi = nxt.b if nxt is not None else n
            code = [k for k in range(gap_lo, gap_hi) if not is_blank(self.o[k])]
            if not seg.after:  # a tail of new code: appended, if the file ends its block
                header = self.s_parent[first]
                fits = header is None or self._inside(header, code)
                at = n
            else:
                fits = not code or self._ends_block(first, code, nxt)
                at = code[-1] + 1 if code else gap_lo  # the gap's trailing blanks stay below
            if not fits:
                raise PlacementError.of(
                    ErrorCode.TEXT_AMBIGUOUS,
                    f"snippet lines {first + 1}-{seg.end} are new code after a placeholder, "
                    f"and nothing says where among file lines {gap_lo + 1}-{gap_hi} they go: "
                    "restate the line they follow",
                    lines=[gap_lo + 1, gap_hi],
                    snippet_line=first + 1,
                    path=self.path,
                )
            seg.b = seg.e = gap_lo = at
            seg.placed = True

    def _closed_blocks(self, seg: _Segment, o_stop: int) -> int:
        """Where the file's blocks end that the segment shows whole: a header it restates
        (paired with a file line) and the closer that ends it at the header's indentation
        (`const f = () => {` ... `};`). The file's block of that header is the segment's to
        replace down to its own closer, even where the reply's last lines are new: the
        file's old tail is not kept beside them. Never past `o_stop`."""
        reach = seg.e
        for h in range(seg.start, seg.end):
            o = self.pair_s.get(h)
            if o is None or is_blank(self.s[h]):
                continue
            end_s = _block_end(self.s, h)
            if end_s <= h or end_s >= seg.end or not is_closer(self.s[end_s]):
                continue
            if indent_width(self.s[end_s]) != indent_width(self.s[h]):
                continue
            end_o = _block_end(self.o, o)
            if end_o > o and is_closer(self.o[end_o]) and end_o < o_stop:
                reach = max(reach, end_o + 1)
        return reach

    def _reach(self, paired: list[int], step: int) -> int:
        """Where a head (step -1) or tail (step +1) segment's region starts or ends: it
        covers the blocks the segment restates, growing from its first (last) restated
        line over the lines indented deeper than its restated lines (the old body of a
        method whose last line the snippet changed). The rest of the file, which the
        snippet never mentions (imports above a class, `main()` after it), is kept."""
        depth = min(indent_width(self.o[o]) for o in paired)
        reach = min(paired) if step < 0 else max(paired) + 1
        j = reach - 1 if step < 0 else reach
        while 0 <= j < len(self.o):
            line = self.o[j]
            if not is_blank(line):
                if indent_width(line) <= depth:
                    break
                reach = j if step < 0 else j + 1
            j += step
        return reach

    def _inside(self, header: int, gap_code: list[int]) -> bool:
        """Every line of the gap is inside the block the snippet line `header` opens."""
        if header not in self.pair_s:
            return False
        depth = indent_width(self.o[self.pair_s[header]])
        return all(indent_width(self.o[k]) > depth for k in gap_code)

    def _ends_block(self, first: int, gap_code: list[int], nxt: _Segment | None) -> bool:
        """New code (first line `first`) may go at the end of a gap when the gap is the tail
        of the block enclosing it: every gap line is inside that block (indented deeper than
        its paired header) and the next segment leaves it (`}` of a class, or a dedent)."""
        header = self.s_parent[first]
        if header is None or nxt is None or not self._inside(header, gap_code):
            return False
        depth = indent_width(self.o[self.pair_s[header]])
        return indent_width(self.s[self._first_code(nxt)]) <= depth

    def _refuse_repeated(self, seg: _Segment) -> None:
        """A segment nothing anchored whose first line is in the file: which occurrence?"""
        first = self._first_code(seg)
        text = self.s[first].strip()
        hits = [i for i, line in enumerate(self.o) if line.strip() == text]
        if hits:
            raise PlacementError.of(
                ErrorCode.TEXT_AMBIGUOUS,
                f"snippet line {first + 1} ({text!r}) has no line that occurs once in the "
                f"file to anchor on, and occurs at line(s) "
                f"{', '.join(str(h + 1) for h in hits[:20])}: restate a line that occurs "
                "once, such as the enclosing definition's header",
                lines=[h + 1 for h in hits],
                snippet_line=first + 1,
                path=self.path,
            )

    def _first_code(self, seg: _Segment) -> int:
        return next(i for i in range(seg.start, seg.end) if not is_blank(self.s[i]))

    def _not_found(self, seg: _Segment) -> PlacementError:
        first = next(i for i in range(seg.start, seg.end) if not is_blank(self.s[i]))
        text = self.s[first].strip()
        best, best_line = 0.0, None
        for i, line in enumerate(self.o):
            if line.strip():
                r = difflib.SequenceMatcher(None, text, line.strip(), autojunk=False).ratio()
                if r > best:
                    best, best_line = r, i
        details: dict[str, object] = {"snippet_line": first + 1, "path": self.path}
        where = ""
        if best_line is not None:
            details["closest"] = {
                "line": best_line + 1,
                "similarity": round(best, 2),
                "text": self.o[best_line],
            }
            where = f"; the closest line is {best_line + 1} ({best:.0%} similar)"
        return PlacementError.of(
            ErrorCode.TEXT_NOT_FOUND,
            f"no line of the snippet matches the file{where}: the snippet's "
            "placeholders cannot be placed; restate a few unchanged lines around each change",
            **details,
        )

    # -- step 6: redefinitions ----------------------------------------------------------------

    def _check_redefinitions(self, kept: list[tuple[int, int]]) -> None:
        # the snippet's new definitions first: there are few, and only lines that mention
        # one of their names can redefine it (a kept region may be the whole file)
        added: dict[tuple[str, int], int] = {}
        for seg in self.segments:
            for i in range(seg.start, seg.end):
                if i in self.pair_s or is_blank(self.s[i]):
                    continue
                name = definition_name(self.s[i])
                if name:
                    added.setdefault((name, indent_width(self.s[i])), i)
        if not added:
            return
        names = {name for name, _ in added}
        hits: dict[int, list[int]] = {}  # snippet line -> the kept lines it redefines
        for lo, hi in kept:
            for o in range(lo, hi):
                line = self.o[o]
                if not any(name in line for name in names):
                    continue
                name = definition_name(line)
                i = added.get((name, indent_width(line))) if name else None
                if i is not None:
                    hits.setdefault(i, []).append(o)
        if hits:
            i = min(hits)
            name = definition_name(self.s[i])
            raise PlacementError.of(
                ErrorCode.TEXT_AMBIGUOUS,
                f"snippet line {i + 1} defines `{name}`, which the file already defines "
                f"at line {hits[i][0] + 1} in a part the snippet keeps; restate the old "
                "definition's first line so it is replaced, or say where the new one goes",
                name=name,
                snippet_line=i + 1,
                lines=[o + 1 for o in hits[i]],
                path=self.path,
            )

    # -- steps 4 and 5: assemble ------------------------------------------------------------

    def run(self) -> list[str]:
        if not self.segments:
            return list(self.o)
        if not any(line.strip() for line in self.o):
            raise PlacementError.of(
                ErrorCode.TEXT_NOT_FOUND,
                "the file is empty, so the snippet's placeholders stand for nothing; send the "
                "whole file without `...` lines",
                path=self.path,
            )
        self._anchor()
        self._place()
        pieces: list[_Piece] = []
        kept: list[tuple[int, int]] = []
        cursor = 0
        for seg in self.segments:
            if seg.before or seg.b > cursor:
                lo, hi = cursor, max(cursor, seg.b)
                pieces.append(_Piece("K", self.o[lo:hi]))
                kept.append((lo, hi))
            code = [i for i in range(seg.start, seg.end) if not is_blank(self.s[i])]
            pieces.append(
                _Piece(
                    "C",
                    self.s[seg.start : seg.end],
                    head_restated=code[0] in self.pair_s,
                    tail_restated=code[-1] in self.pair_s,
                )
            )
            cursor = max(cursor, seg.e)
        if self.segments[-1].after or cursor < len(self.o):
            pieces.append(_Piece("K", self.o[cursor:]))
            kept.append((cursor, len(self.o)))
        self._check_redefinitions(kept)
        return _assemble(pieces)


class _Piece(NamedTuple):
    """A run of output lines: kept from the file (K) or a snippet segment (C); for a segment,
    whether its first / last code line restates a file line (rather than being new)."""

    kind: str
    lines: list[str]
    head_restated: bool = False
    tail_restated: bool = False


def _longest_increasing(
    candidates: list[tuple[int, int, _Segment]],
) -> list[tuple[int, int, _Segment]]:
    """The longest chain of candidates increasing in both snippet and file order."""
    return [candidates[k] for k in longest_increasing([o for _, o, _seg in candidates])]


def _assemble(pieces: list[_Piece]) -> list[str]:
    """Concatenate kept (K) and snippet (C) pieces, settling blank-line runs at each join."""
    out: list[str] = []
    prev: _Piece | None = None
    prev_trail: list[str] = []
    soft: list[list[str]] = []  # kept regions since the last piece with code: blank only
    for piece in pieces:
        lines = piece.lines
        code = [i for i, line in enumerate(lines) if line.strip()]
        if not code:
            if piece.kind == "K":
                soft.append(lines)
            continue
        out.extend(_join_blanks(prev, prev_trail, soft, piece, lines[: code[0]]))
        out.extend(lines[code[0] : code[-1] + 1])
        prev, prev_trail, soft = piece, lines[code[-1] + 1 :], []
    out.extend(_join_blanks(prev, prev_trail, soft, None, []))
    return out


def _join_blanks(
    prev: _Piece | None, a: list[str], soft: list[list[str]], nxt: _Piece | None, b: list[str]
) -> list[str]:
    """The blank lines between two pieces with code (None: the start or end of the file).

    A kept region next to a segment: where the segment's edge line restates a file line,
    the file's own blank run stands; where it is new code, the longer run wins (the file
    and the snippet both put a blank line between two methods: keep one, not two). Two
    segments whose placeholder kept only blank lines: the shorter side wins, but never
    fewer blank lines than the file had there; at the start or end of the file such a
    placeholder keeps only what the file had.
    """
    kept = max(soft, key=len, default=[])
    if prev is None or nxt is None:
        if soft:
            return kept
        return b if prev is None else a
    if prev.kind == "C" and nxt.kind == "C":
        short = a if len(a) <= len(b) else b
        return kept if len(kept) >= len(short) else short
    if prev.kind == "K" and nxt.head_restated:
        return a
    if nxt.kind == "K" and prev.tail_restated:
        return b
    return a if len(a) >= len(b) else b


# --- placeholder-free snippets: one restated definition --------------------------------------


# A C preprocessor directive.
_preprocessor = compiled_on_use(
    r"#\s*(?:include|define|if|ifdef|ifndef|endif|else|elif|pragma|undef)\b"
)


def _is_prefix_line(line: str) -> bool:
    """A comment or decorator line that belongs to the definition below it."""
    s = line.strip()
    if not s:
        return False
    if s.startswith("#") and not s.startswith("#[") and _preprocessor().match(s):
        return False
    return s.startswith(("//", "/*", "*", "#", "--", "<!--", "@", ";"))


def _block_end(lines: Sequence[str], header: int) -> int:
    """The last line of the block `lines[header]` opens: everything indented deeper, plus a
    closer at the header's indentation (continuing past `} else {` / `):`)."""
    d = indent_width(lines[header])
    last = header
    j = header + 1
    while j < len(lines):
        line = lines[j]
        if is_blank(line):
            j += 1
            continue
        di = indent_width(line)
        if di > d:
            last = j
            j += 1
            continue
        if di == d and is_closer(line):
            last = j
            if line.rstrip().endswith(("{", ":", "(", "[")):
                j += 1
                continue
        break
    return last


def _restate_definition(o_lines: list[str], s_lines: list[str], path: str) -> list[str] | None:
    """The file with the one definition the snippet restates replaced, or None when the
    snippet is not such a restatement (the caller then overwrites)."""
    nonblank = [i for i, line in enumerate(s_lines) if line.strip()]
    if not nonblank or not o_lines:
        return None
    body = s_lines[nonblank[0] : nonblank[-1] + 1]
    k = 0
    while k < len(body) and (_is_prefix_line(body[k]) or is_blank(body[k])):
        k += 1
    if k == len(body):
        return None
    header = body[k]
    end = _block_end(body, k)
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
    o_end = _block_end(o_lines, h)
    o_start = h
    if k > 0:  # the snippet brings its own comments / decorators: they replace the file's
        d = indent_width(o_lines[h])
        while o_start > 0 and _is_prefix_line(o_lines[o_start - 1]):
            above = o_lines[o_start - 1]
            if indent_width(above) != d and not above.strip().startswith("*"):
                break
            o_start -= 1
    return o_lines[:o_start] + body + o_lines[o_end + 1 :]
