"""The line alignment of a lazy snippet around its placeholders: anchors, edges, the
enclosure check, regions, joins and redefinitions (the steps `lazy` describes).

The file is read through `OffsetLines`: the alignment looks closely only at the lines the
snippet restates and their neighbours, and hands the rest back as runs of the file's text.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass

from lsp_server.linediff import all_opcodes, longest_increasing
from lsp_server.model import ErrorCode, PlacementError
from lsp_server.resolve.line_shape import (
    Parents,
    block_end,
    definition_name,
    indent_width,
    is_blank,
    is_closer,
    is_weak,
    similar,
)
from lsp_server.resolve.merge.blank_joins import Piece, assemble
from lsp_server.resolve.merge.offset_lines import OffsetLines, line_chunks


@dataclass
class Segment:
    """A run of snippet lines between placeholders, and the file lines it replaces."""

    start: int  # snippet line indexes [start, end), no placeholder inside
    end: int
    before: bool  # a placeholder precedes it
    after: bool  # a placeholder follows it
    anchors: list[tuple[int, int]]
    b: int = 0  # original region [b, e) it replaces
    e: int = 0
    placed: bool = False


_MAX_ROUNDS = 8  # anchor-validation rounds; each drops at least one anchor


class Merger:
    """A snippet with placeholders aligned to the file's lines (steps 1-6 of `lazy`)."""

    def __init__(
        self, o_lines: OffsetLines, s_lines: list[str], placeholder: list[bool], path: str
    ) -> None:
        self.o = o_lines
        self.s = s_lines
        self.ph = placeholder
        self.path = path
        self.s_key = [line.rstrip() for line in s_lines]
        # only the lines the alignment pairs ever ask for their parent: never the whole file
        self.o_parent = Parents(o_lines)
        self.s_parent = Parents(s_lines, placeholder)
        self.pair_s: dict[int, int] = {}
        self.pair_o: dict[int, int] = {}
        self.segments = self._segments()

    # -- structure of the snippet --------------------------------------------------------

    def _segments(self) -> list[Segment]:
        out: list[Segment] = []
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
                out.append(Segment(i, j, seen_placeholder, j < n, []))
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
        s_count: dict[str, int] = {}
        for seg in self.segments:
            for i in range(seg.start, seg.end):
                key = self.s_key[i]
                if key.strip():
                    s_count[key] = s_count.get(key, 0) + 1
        # the file's lines are counted only where the snippet has them: every question
        # below is about a snippet line
        o_count: dict[str, int] = {}
        o_where: dict[str, int] = {}
        base = 0
        for chunk in line_chunks(self.o.text):
            for k in [k for k, key in enumerate(map(str.rstrip, chunk)) if key in s_count]:
                key = chunk[k].rstrip()
                o_count[key] = o_count.get(key, 0) + 1
                o_where[key] = base + k
            base += len(chunk)
        candidates: list[tuple[int, int, Segment]] = []
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
        o_keys = [line.rstrip() for line in self.o[o_lo:o_hi]]
        for tag, i1, i2, j1, j2 in all_opcodes(self.s_key[s_lo:s_hi], o_keys):
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

    def _grow(self, seg: Segment, s0: int, o0: int, step: int, o_stop: int) -> None:
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
            o_key = self.o[o].rstrip()
            while s_in(t):
                if self.s_key[t] == o_key and t not in self.pair_s:
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

    def _closed_blocks(self, seg: Segment, o_stop: int) -> int:
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
            end_s = block_end(self.s, h)
            if end_s <= h or end_s >= seg.end or not is_closer(self.s[end_s]):
                continue
            if indent_width(self.s[end_s]) != indent_width(self.s[h]):
                continue
            end_o = block_end(self.o, o)
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

    def _ends_block(self, first: int, gap_code: list[int], nxt: Segment | None) -> bool:
        """New code (first line `first`) may go at the end of a gap when the gap is the tail
        of the block enclosing it: every gap line is inside that block (indented deeper than
        its paired header) and the next segment leaves it (`}` of a class, or a dedent)."""
        header = self.s_parent[first]
        if header is None or nxt is None or not self._inside(header, gap_code):
            return False
        depth = indent_width(self.o[self.pair_s[header]])
        return indent_width(self.s[self._first_code(nxt)]) <= depth

    def _refuse_repeated(self, seg: Segment) -> None:
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

    def _first_code(self, seg: Segment) -> int:
        return next(i for i in range(seg.start, seg.end) if not is_blank(self.s[i]))

    def _not_found(self, seg: Segment) -> PlacementError:
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
            for o in self._mentioning(names, lo, hi):
                line = self.o[o]
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

    def _mentioning(self, names: set[str], lo: int, hi: int) -> list[int]:
        """The file lines in [lo, hi) that hold one of `names`, in order: found by searching
        the text, not by reading every line (a kept region may be the whole file)."""
        text, start = self.o.text, self.o.start
        begin = start(lo)
        end = start(hi) - 1 if hi > lo else begin  # (a negative end counts from the end)
        found: set[int] = set()
        for name in names:
            at = text.find(name, begin, end)
            while at >= 0:
                line = self.o.line_at(at)
                found.add(line)
                at = text.find(name, start(line + 1), end)
        return sorted(found)

    # -- steps 4 and 5: assemble ------------------------------------------------------------

    def run(self) -> list[str]:
        """The merged text as runs of lines, each run its lines joined by "\\n"."""
        if not self.segments:
            return [self.o.chars(0, len(self.o))] if len(self.o) else []
        if not self.o.text or self.o.text.isspace():  # every line blank
            raise PlacementError.of(
                ErrorCode.TEXT_NOT_FOUND,
                "the file is empty, so the snippet's placeholders stand for nothing; send the "
                "whole file without `...` lines",
                path=self.path,
            )
        self._anchor()
        self._place()
        pieces: list[Piece] = []
        kept: list[tuple[int, int]] = []
        cursor = 0
        for seg in self.segments:
            if seg.before or seg.b > cursor:
                lo, hi = cursor, max(cursor, seg.b)
                pieces.append(Piece("K", self.o, lo, hi))
                kept.append((lo, hi))
            code = [i for i in range(seg.start, seg.end) if not is_blank(self.s[i])]
            pieces.append(
                Piece(
                    "C",
                    self.s,
                    seg.start,
                    seg.end,
                    head_restated=code[0] in self.pair_s,
                    tail_restated=code[-1] in self.pair_s,
                )
            )
            cursor = max(cursor, seg.e)
        if self.segments[-1].after or cursor < len(self.o):
            pieces.append(Piece("K", self.o, cursor, len(self.o)))
            kept.append((cursor, len(self.o)))
        self._check_redefinitions(kept)
        return assemble(pieces)


def _longest_increasing(
    candidates: list[tuple[int, int, Segment]],
) -> list[tuple[int, int, Segment]]:
    """The longest chain of candidates increasing in both snippet and file order."""
    return [candidates[k] for k in longest_increasing([o for _, o, _seg in candidates])]
