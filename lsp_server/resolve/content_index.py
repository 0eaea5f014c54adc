"""The content index: one text's lines, normalised and looked up by content.

Every rung of the matching ladder starts here: where could a block's lines start, once
each line is normalised (`exact`, `rstrip`: trailing white space ignored, `strip`: all
leading and trailing white space ignored, and for the last rungs `collapse` and `fold`)?
Answers come from the text itself, not from comparing every window: a few C-level scans of
the joined text for a text seen once, a table from line content to line numbers for a text
asked about often.
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Sequence

from lsp_server.patterns import compiled_on_use
from lsp_server.resolve.indent import detect_unit
from lsp_server.resolve.reply_chars import collapse, fold


class ContentIndex:
    """One text's lines, normalised and indexed lazily (content → line numbers).

    Meant to be built once per text version and shared (see `resolve.cache`): every rung
    starts from it. Nothing is computed until a rung asks. The first few lookups under a
    normalisation search the joined text (one C-level scan each) instead of indexing every
    line, so a text matched a few times — a file a reply edits once — never pays for a
    table; later lookups (and the fuzzy rung, which needs line counts) build the table.
    """

    def __init__(self, lines: Sequence[str], joined: str | None = None):
        """`joined`, when the caller has it for free, is `"\\n".join(lines)`, optionally
        followed by one "\\n": a file's own text, when no line ends in "\\r\\n"."""
        self.lines = lines
        self._maps: dict[str, dict[str, list[int]]] = {}
        self._norm: dict[str, Sequence[str]] = {}
        self._joined: dict[str, str | None] = {} if joined is None else {"exact": joined}
        self._searches: dict[str, int] = {}
        self._counts: dict[str, Counter[str]] = {}
        self._found: dict[str, dict[str, list[int]]] = {}
        self._unit: str | None = None

    def has_table(self, how: str) -> bool:
        """Whether the table from content to line numbers under `how` has been built."""
        return how in self._maps

    @property
    def stripped(self) -> list[str]:
        return self.normalised("strip")

    @property
    def unit(self) -> str:
        """The text's indent unit (`detect_unit`), once per text: the indent rung asks for
        it once per candidate window."""
        if self._unit is None:
            self._unit = detect_unit(self.lines)
        return self._unit

    def lazy_unit(self) -> str:
        """`unit` as a function, for `infer_shift`: it asks only for the few windows whose
        lines all sit at one level, so most matches never walk the file to detect it."""
        return self.unit

    def normalised(self, how: str) -> Sequence[str]:
        """Every line under normalisation `how` (the same objects where unchanged)."""
        out = self._norm.get(how)
        if out is None:
            out = self.lines if how == "exact" else list(map(NORMALISERS[how], self.lines))
            self._norm[how] = out
        return out

    def positions(self, how: str) -> dict[str, list[int]]:
        table = self._maps.get(how)
        if table is None:
            table = {}
            get = table.get
            for i, key in enumerate(self.normalised(how)):
                bucket = get(key)
                if bucket is None:
                    table[key] = [i]
                else:
                    bucket.append(i)
            self._maps[how] = table
        return table

    def count_equal_to(self, how: str, key: str) -> int:
        """How many lines are `key` under `how`: from the table when there is one, else
        from a `Counter` of the lines (built in C, ~4x cheaper than the table)."""
        table = self._maps.get(how)
        if table is not None:
            return len(table.get(key, ()))
        return self._counter(how).get(key, 0)

    def _counter(self, how: str) -> Counter[str]:
        counts = self._counts.get(how)
        if counts is None:
            counts = self._counts[how] = Counter(self.normalised(how))
        return counts

    def distinct(self, how: str) -> list[str]:
        """Each different line under `how` once, in order of first appearance (the keys of
        the table or of the `Counter`: both are built in that order). Code repeats itself,
        a tenth to a half of a file's lines are different, and scoring every line
        against a query scores each repeated one again."""
        table = self._maps.get(how)
        return list(table if table is not None else self._counter(how))

    def lines_equal_to(self, how: str, key: str) -> Sequence[int]:
        """Line numbers whose text under `how` is `key`, ascending: `positions(how)[key]`
        without the table when there is none yet. Each key costs one C-level pass over the
        lines (`list.index` from hit to hit), so a text asked about a block's ten-odd lines
        does not pay for indexing all of them."""
        table = self._maps.get(how)
        if table is not None:
            return table.get(key, ())
        found = self._found.setdefault(how, {})
        hit = found.get(key)
        if hit is None:
            hit = []
            count = self._counter(how)[key]
            if count:
                lines = self.normalised(how)
                at = -1
                for _ in range(count):
                    at = lines.index(key, at + 1)
                    hit.append(at)
            found[key] = hit
        return hit

    def prefetch(self, how: str, keys: Sequence[str]) -> None:
        """Find the lines of several keys in one pass over the lines, for `lines_equal_to`
        to answer from: one pass per key (`list.index` from hit to hit) costs about twice
        as much for two keys, and a block has ten."""
        if how in self._maps:
            return
        found = self._found.setdefault(how, {})
        wanted = {k for k in keys if k not in found and self.count_equal_to(how, k)}
        if len(wanted) < 2:
            return
        lines = self.normalised(how)
        hits: dict[str, list[int]] = {k: [] for k in wanted}
        for i in itertools.compress(range(len(lines)), map(wanted.__contains__, lines)):
            hits[lines[i]].append(i)
        found.update(hits)

    def search_first(self, how: str) -> bool:
        """True while a lookup under `how` should scan the joined text rather than build the
        table: no table yet, and fewer than `SEARCHES` scans so far (a scan costs about a
        tenth of building the table)."""
        if how in self._maps:
            return False
        done = self._searches.get(how, 0)
        self._searches[how] = done + 1
        return done < SEARCHES

    def joined(self, how: str) -> str | None:
        """The normalised lines joined by "\\n" (the exact one may end in one more "\\n", see
        `__init__`), or None when a line itself holds a "\\n": then the joined text would
        not map back to lines."""
        if how not in self._joined:
            lines = self.normalised(how)
            text = "\n".join(lines)
            ok = text.count("\n") == max(0, len(lines) - 1)
            self._joined[how] = text if ok else None
        return self._joined[how]


NORMALISERS = {
    "exact": lambda s: s,
    "rstrip": str.rstrip,
    "strip": str.strip,
    # the ladder's last rungs (see reply_chars): runs of spaces, typographic punctuation
    "collapse": collapse,
    "fold": fold,
}
# Normalisations under which a normalised line is a substring of the line itself.
_TRIMS = ("rstrip", "strip")


# A run of word characters (compiled on first use: only the folded rungs read words).
_word = compiled_on_use(r"\w+")


# Lookups per normalisation that scan the joined text before the line table is built.
SEARCHES = 4
# A scan gives up (and the line table is built instead) past this many hits.
SEARCH_HITS = 4096
# Candidates x block lines past which checking candidates one by one gives way to one
# Knuth-Morris-Pratt pass over the lines.
VERIFY_CELLS = 1_000_000


def candidates(index: ContentIndex, old: Sequence[str], how: str) -> list[int]:
    """Start lines where every old line equals the file line under normalisation `how`,
    ascending."""
    norm = NORMALISERS[how]
    keys = [norm(line) for line in old]
    if index.search_first(how):
        found = raw_candidates(index, keys, how) if how != "exact" else None
        if found is None:
            found = search_candidates(index, keys, how)
        if found is not None:
            return found
    table = index.positions(how)
    # anchor on the rarest non-blank line of the block
    best_k, best_pos = None, None
    for k, key in enumerate(keys):
        if how != "exact" and key == "":
            continue
        pos = table.get(key)
        if pos is None:
            return []
        if best_pos is None or len(pos) < len(best_pos):
            best_k, best_pos = k, pos
    if best_pos is None:  # block of blank lines only
        best_k, best_pos = 0, table.get(keys[0], [])
    lines = index.normalised(how)
    n, total = len(old), len(lines)
    if len(best_pos) * n > VERIFY_CELLS:
        # lines that repeat all over (a block of 100,000 identical lines): checking every
        # candidate is quadratic, one pass of KMP over the lines is linear
        return _kmp(lines, keys)
    out = []
    for p in best_pos:
        s = p - best_k
        if s < 0 or s + n > total:
            continue
        if all(lines[s + j] == keys[j] for j in range(n)):
            out.append(s)
    return out


# Normalisations from the strictest to the loosest, each keeping whatever the one before
# it keeps: lines equal as written are equal without their trailing white space, and lines
# equal so are equal without any (`str.strip` is `str.lstrip` of `str.rstrip`). The places
# a block has under one are among its places under any looser one.
NESTED = ("exact", "rstrip", "strip")
# Candidates x block lines up to which `candidates_among` filters a looser rung's places
# rather than the text being searched again.
AMONG_CELLS = 200_000


def candidates_among(
    index: ContentIndex, old: Sequence[str], how: str, looser: list[int]
) -> list[int]:
    """`candidates(index, old, how)`, given `looser`: every place of `old` under a
    normalisation after `how` in `NESTED` (so every place under `how` too). Those of them
    where each line also reads as `how` reads it: no pass over the text, which a block
    asked about under three normalisations would otherwise make three times."""
    if len(looser) * len(old) > AMONG_CELLS:
        return candidates(index, old, how)
    norm = NORMALISERS[how]
    keys = [norm(line) for line in old]
    lines = index.lines
    return [s for s in looser if all(norm(lines[s + j]) == k for j, k in enumerate(keys))]


def raw_candidates(index: ContentIndex, keys: list[str], how: str) -> list[int] | None:
    """`candidates` for a whitespace rung without normalising the file: None when it
    cannot tell (no raw text, a blank block, or too many places to look at).

    A line that equals a key once trailing (or all) white space is removed contains that
    key, so the block's longest key is looked for in the raw text (C-level finds) and only
    the lines it is found in, and their neighbours, are normalised and compared. Under
    `collapse` and `fold` the line holds the key's words instead: its longest word is
    looked for. Normalising
    and joining every line instead is costly on a large file, and a block on its way to the
    fuzzy rung passes through two such rungs.
    """
    raw = index.joined("exact")
    if raw is None or not any(keys):
        return None
    norm = NORMALISERS[how]
    if how in _TRIMS:
        anchor = max(range(len(keys)), key=lambda j: len(keys[j]))
        key = keys[anchor]
    else:
        # collapsing white space and folding punctuation leave words alone: a line that
        # reads as the key holds the key's longest word
        find = _word().findall
        words = [(len(w), j, w) for j, k in enumerate(keys) for w in find(k)]
        if not words:
            return None
        _, anchor, key = max(words)
    lines, n, total = index.lines, len(keys), len(index.lines)
    out: list[int] = []
    hits = 0
    line, counted = 0, 0  # `line` is the number of "\n" in raw[:counted]
    at = raw.find(key)
    while at >= 0:
        hits += 1
        if hits > SEARCH_HITS or hits * n > VERIFY_CELLS:
            return None  # the table (or KMP, for a block of common lines) does this better
        line += raw.count("\n", counted, at)
        counted = at
        s = line - anchor
        if 0 <= s and s + n <= total and all(norm(lines[s + j]) == keys[j] for j in range(n)):
            out.append(s)
        nl = raw.find("\n", at)  # go on from the next line: each line is looked at once
        at = raw.find(key, nl + 1) if nl >= 0 else -1
    return out


def _kmp(lines: Sequence[str], keys: list[str]) -> list[int]:
    """Every start where `keys` occurs in `lines`, ascending (Knuth-Morris-Pratt)."""
    n = len(keys)
    fail = [0] * n
    k = 0
    for i in range(1, n):
        while k and keys[i] != keys[k]:
            k = fail[k - 1]
        if keys[i] == keys[k]:
            k += 1
        fail[i] = k
    out = []
    k = 0
    for i, line in enumerate(lines):
        while k and line != keys[k]:
            k = fail[k - 1]
        if line == keys[k]:
            k += 1
            if k == n:
                out.append(i - n + 1)
                k = fail[k - 1]
    return out


def search_candidates(index: ContentIndex, keys: list[str], how: str) -> list[int] | None:
    """`candidates` by scanning the joined text for the joined block: no per-line work, so a
    text seen once needs no table. None when it cannot tell (a "\\n" inside a line, or so
    many partial hits that the table is the better tool)."""
    if any("\n" in key for key in keys):
        return None
    hay = index.joined(how)
    if hay is None:
        return None
    needle = "\n".join(keys)
    n, total, size, width = len(keys), len(index.lines), len(hay), len(needle)
    out: list[int] = []
    line, counted = 0, 0  # `line` is the number of "\\n" in hay[:counted]
    at = hay.find(needle)
    hits = 0
    while at >= 0:
        hits += 1
        if hits > SEARCH_HITS:
            return None
        if (at == 0 or hay[at - 1] == "\n") and (at + width == size or hay[at + width] == "\n"):
            line += hay.count("\n", counted, at)
            counted = at
            if line + n <= total:
                out.append(line)
        # a match starts a line: resume at the next line start, not the next character (a
        # long needle that overlaps itself would otherwise be searched for again and again)
        nl = hay.find("\n", at)
        at = hay.find(needle, nl + 1) if nl >= 0 else -1
    return out
