"""SYNTAX_BROKEN: does an edit add syntax errors? Answered in proportion to the edit.

The plain answer parses the whole file before and after the edit and compares tree-sitter's
error counts (`syntax.syntax_errors`); on a big file that is most of a plan's time, for an
edit of a few lines. `new_errors` first tries to prove the answer from the changed regions
alone (`regional_clean`), and parses whole files only when that proof does not hold:

1. The changed lines of the old and new texts (`_changes`) are widened to *windows* of whole
   top-level lines (`_window`): each begins and ends on a line at column 0 that reads as a
   new top-level statement, with one such statement of margin on each side, so a decorator
   or an `else:` just outside the edit is inside the window.
2. A window must start where the file is at top level: outside every string, comment and
   bracket. That is read from the text before it (`lexis.Lexis.neutral`), with one regular
   expression per language that removes strings and comments, then brackets matched in
   pairs; anything it cannot read for sure (a quote left open, a JavaScript `/` that may
   start a regular expression, a template with nested code) is a doubt. The line starts
   so proven are kept per text (`lexis.TopLevel`): the next plan against the same text
   reads only from the nearest one below its edit, not from the top.
3. The old and new windows are parsed alone (the new one re-parsed from the old one's
   tree: they differ only where the edit is). When both parse without an error, and each
   changed region starts and ends between two top-level nodes of both parses, the text
   around the windows is the same and parses the same, so the whole files have the same
   errors: the edit broke nothing.

Everything else (an error in either window, a window that does not split where it should,
a language without a lexical model here) is a doubt, and a doubt costs the whole-file
parse, never a wrong answer: the regional check can only say "no new errors". A broken
edit is always confirmed by the whole-file parse, which also gives the error lines the
warning shows. In the server, whose open documents may have cached trees, the whole-file
path re-parses incrementally from them and is used directly (see `new_errors`).
"""

from __future__ import annotations

import itertools
import json
from typing import Any, NamedTuple

from lsp_server.linediff import common_prefix, common_suffix, local_opcodes
from lsp_server.model import PlacementError
from lsp_server.resolve import syntax
from lsp_server.resolve.cache import TextCache
from lsp_server.resolve.lexis import Lexis, lexis_for, top_level

# A changed span longer than this many characters is split into the lines that really
# differ, so that blocks spread over a file give one small window each.
_SPLIT_CHARS = 4096
# More changed regions than this and the whole-file parse is as cheap.
_MAX_REGIONS = 64
# `_start_before` looks for candidate lines in this many characters first, then twice as
# many, and so on: the statement before an edit is usually a few lines up.
_BACK = 512


def new_errors(old: str, new: str, key: str, language: str) -> list[dict[str, Any]] | None:
    """The new text's syntax errors when it has more than the old text, else None.

    The same verdict as parsing both whole texts and comparing their error counts; that
    is what is done when a tree of this file is cached (the server's open documents: an
    incremental re-parse), or when the regional proof (`regional_clean`) does not hold.
    Raises PlacementError when the grammar cannot be loaded.
    """
    if syntax.cached(language, key) is None and _cleared(old, new, language):
        return None
    after = syntax.syntax_errors(new, key, language)
    if not after:
        return None
    before = syntax.syntax_errors(old, key + "\x00old", language, base=key)
    return after if len(after) > len(before) else None


# Edits the regional check cleared, by new text: (language, old text). The server plans
# one reply again and again (live diagnostics, code actions, the apply command), and
# asking again costs a hash and a compare of the texts, not a scan and parses.
_CLEARED: TextCache[tuple[str, str]] = TextCache(max_entries=32)


def _cleared(old: str, new: str, language: str) -> bool:
    """`regional_clean`, remembered for the texts it cleared."""
    if _CLEARED.get(new) == (language, old):
        return True
    if not regional_clean(old, new, language):
        return False
    _CLEARED.put(new, (language, old))
    return True


def regional_clean(old: str, new: str, language: str) -> bool:
    """True when the edit from `old` to `new` provably adds no syntax error, looking only
    at the changed regions; False when that cannot be shown (see the module docstring).

    JSON has no top-level statements to split at; a new text that Python's own strict
    JSON reader accepts has no errors for tree-sitter's JSON grammar either.
    """
    if old == new:
        return True
    if language == "json":
        return _strict_json(new)
    lexis = lexis_for(language)
    if lexis is None:
        return False
    normalized = None
    if "\r" in old or "\r" in new:
        normalized = old, new = old.replace("\r\n", "\n"), new.replace("\r\n", "\n")
    changes = _changes(old, new)
    if changes is None:
        return False
    try:
        grammar = syntax.grammar(language)
    except PlacementError:
        return False
    # A window starts at top level when the old text up to it reads so from its start
    # (`index`: read once per text, see lexis.py), or from the end of the window before
    # it, which parsed alone without an error and so ended at top level.
    index = top_level(old, lexis, language)
    windows = _windows(old, new, changes, lexis)
    checked = 0  # the old text is known to be at top level here
    for w in windows:
        if w is None:
            return False
        if index is None or not index.proves(old, w.start):
            if not checked:
                return False  # the chain would read the same text again
            index = None  # the chain alone from here: no text is read twice
            if not lexis.neutral(old, checked, w.start):
                return False
        if not _window_clean(grammar, old, new, w):
            return False
        checked = w.end
    if normalized is None and windows:  # the texts the caller holds: the next plan's
        first, last = windows[0], windows[-1]
        assert first is not None and last is not None
        top_level(old, lexis, language).carry(
            old, new, first.start, last.end, last.end + last.new_shift
        )
    return True


def _strict_json(text: str) -> bool:
    def refuse(name: str) -> None:
        raise ValueError(name)  # NaN and Infinity are not JSON

    try:
        json.loads(text, parse_constant=refuse)
    except (ValueError, RecursionError):
        return False
    return True


class _Window(NamedTuple):
    """Old text `start:end` (new text `start + shift : end + new_shift`), holding the
    changed regions between old `first` and `last` (new `first + shift` and
    `last + new_shift`), which must be splits between top-level nodes."""

    start: int
    end: int
    first: int
    last: int
    shift: int
    new_shift: int


def _changes(old: str, new: str) -> list[tuple[int, int, int, int]] | None:
    """The changed spans, in order, as (old start, old end, new start, new end) character
    offsets at line starts; None when there are too many to be worth it."""
    start = _same_for(old, 0, len(old), new, 0, len(new))
    start = old.rfind("\n", 0, start) + 1  # back to the start of its line
    tail = _same_back(old, new, min(len(old), len(new)) - start)
    old_end, new_end = len(old) - tail, len(new) - tail
    # forward to the end of the line the last change is on
    old_end = _line_end(old, old_end)
    new_end = new_end + (old_end - (len(old) - tail))
    if old_end - start <= _SPLIT_CHARS and new_end - start <= _SPLIT_CHARS:
        return [(start, old_end, start, new_end)]
    return _walk(old, new, start, old_end, new_end)


def _walk(
    old: str, new: str, a: int, a_end: int, b_end: int
) -> list[tuple[int, int, int, int]] | None:
    """`_changes` between line start `a` of both texts and `a_end` / `b_end`, after which
    they are the same, found a few differences at a time: the equal text up to the next
    one is compared in C (`_same_for`), and a line diff of the lines just past it
    (`local_opcodes`) says where the texts are back in step. A reply's blocks change a few
    lines each; splitting the whole region into lines for one diff cost more than the rest
    of the check (22 of the 53 ms it took for 50 blocks spread over 100,000 lines).

    Every stretch between two diffs is compared equal character by character here, and a
    diff's own equal lines are compared by `local_opcodes`, as they were in one diff of
    the whole region: the changes cover every difference. The last `_WALK_CHARS` of a
    region, or a difference not back in step within `_REACH` characters, are diffed in
    one piece to the region's end."""
    b = a
    out: list[tuple[int, int, int, int]] = []
    while True:
        run = _same_for(old, a, a_end, new, b, b_end)
        if a + run == a_end and b + run == b_end:
            return out
        if len(out) >= _MAX_REGIONS:
            return None
        # back to the start of the line it is on: the same offset past `a` and `b`
        line = old.rfind("\n", a, a + run) + 1 or a
        a, b = line, b + (line - a)
        reach = _STEP
        while True:
            a_to = min(a_end, _line_end(old, min(a_end, a + reach)))
            b_to = min(b_end, _line_end(new, min(b_end, b + reach)))
            rest = (a_to == a_end and b_to == b_end) or reach > _REACH or a_end - a <= _WALK_CHARS
            if rest:
                a_to, b_to = a_end, b_end
            pa, pa_at = _pieces(old[a:a_to], a)
            pb, pb_at = _pieces(new[b:b_to], b)
            ops = local_opcodes(pa, pb, _MAX_REGIONS - len(out))
            if ops is None and rest:
                return None
            # the changes that end before the stretch diffed does (its last piece may be
            # part of a line, and a change that reaches it may go on past it)
            done = ops or []
            if not rest:
                k = 0
                while k < len(done) and done[k][2] < len(pa) - 1 and done[k][4] < len(pb) - 1:
                    k += 1
                done = done[:k]
            out += [(pa_at[i1], pa_at[i2], pb_at[j1], pb_at[j2]) for _, i1, i2, j1, j2 in done]
            if len(out) > _MAX_REGIONS:
                return None
            if rest:
                return out
            if done:
                a, b = out[-1][1], out[-1][3]
                break
            reach *= 2


# `_walk` diffs the lines in this many characters past a difference, doubling up to
# `_REACH`, to find where the texts are back in step. The last `_WALK_CHARS` of a region
# are diffed at once: one diff of that many costs what a few steps of the walk cost.
_STEP = 1024
_REACH = 1 << 20
_WALK_CHARS = 1 << 16


def _same_for(old: str, a: int, a_end: int, new: str, b: int, b_end: int) -> int:
    """How many characters `old[a:a_end]` and `new[b:b_end]` have in common from their
    starts. Chunks of doubling size, then halves of the first unequal one, are compared
    in C; `str.startswith` at an offset compares a chunk of `old` with `new` in place,
    so only `old`'s chunks are copied: about twice the common part, where slicing both
    texts (`linediff.common_prefix`) copies about four times it."""
    n = min(a_end - a, b_end - b)
    i, k = 0, 256
    while i < n:
        j = min(n, i + k)
        if not new.startswith(old[a + i : a + j], b + i):
            break
        i, k = j, 2 * k
    else:
        return n
    lo, hi = i, min(n, i + k)  # equal up to `lo`, not up to `hi`
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if new.startswith(old[a + lo : a + mid], b + lo):
            lo = mid
        else:
            hi = mid
    return lo


def _same_back(old: str, new: str, limit: int) -> int:
    """How many characters `old` and `new` have in common at their ends, at most `limit`:
    `_same_for` from the end (`str.endswith` up to an offset)."""
    la, lb = len(old), len(new)
    n = min(limit, la, lb)
    i, k = 0, 256
    while i < n:
        j = min(n, i + k)
        if not new.endswith(old[la - j : la - i], 0, lb - i):
            break
        i, k = j, 2 * k
    else:
        return n
    lo, hi = i, min(n, i + k)  # the last `lo` are equal, the last `hi` are not
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if new.endswith(old[la - mid : la - lo], 0, lb - lo):
            lo = mid
        else:
            hi = mid
    return lo


def _pieces(text: str, start: int) -> tuple[list[str], list[int]]:
    """`text` split at "\n" only (`splitlines` also splits at form feeds and other
    separators, which are not line starts here), and where each piece starts, offset by
    `start` (and, last, where the text ends): running sums in C, no per-line work.

    The last piece has no "\n" after it while every other one has: it is marked with a
    "\n" of its own, which no other piece can hold, so that it never passes for an equal
    line of the other text (`"x"` at the end of one text and `"x\n"` in the other)."""
    pieces = text.split("\n")
    at = list(itertools.accumulate(map((1).__add__, map(len, pieces)), initial=start))
    at[-1] = start + len(text)
    pieces[-1] += "\n"
    return pieces, at


def _line_end(text: str, at: int) -> int:
    """The offset just past the newline ending the line that holds `text[at - 1]` (`at`
    itself when it is a line start)."""
    if at <= 0 or text[at - 1] == "\n":
        return max(at, 0)
    nl = text.find("\n", at)
    return len(text) if nl < 0 else nl + 1


def _windows(
    old: str, new: str, changes: list[tuple[int, int, int, int]], lexis: Lexis
) -> list[_Window | None]:
    """One window per group of nearby changes, in order (None: no window can be found)."""
    out: list[_Window | None] = []
    shift = 0  # new offset - old offset before the current change
    for a_start, a_end, b_start, b_end in changes:
        first = _start_before(old, a_start, lexis)
        last = _start_after(old, a_end, lexis)
        # one more top-level statement on each side: what attaches to the first or last
        # one (a decorator, an `else:`) is then in the window
        start = _start_before(old, _line_start(old, first - 1), lexis) if first > 0 else 0
        end = _start_after(old, _next_line(old, last), lexis) if last < len(old) else len(old)
        new_shift = shift + (b_end - b_start) - (a_end - a_start)
        prev = out[-1] if out else None
        if prev is not None and start < prev.end:
            out[-1] = _Window(prev.start, end, prev.first, last, prev.shift, new_shift)
        else:
            out.append(_Window(start, end, first, last, shift, new_shift))
        shift = new_shift
    return out


def _line_start(text: str, at: int) -> int:
    """The start of the line holding offset `at`."""
    return text.rfind("\n", 0, at) + 1 if at > 0 else 0


def _next_line(text: str, at: int) -> int:
    """The start of the line after the one holding offset `at` (or the text's length)."""
    nl = text.find("\n", at)
    return len(text) if nl < 0 else nl + 1


def _start_before(text: str, at: int, lexis: Lexis) -> int:
    """The start of the last top-level-looking line at or before offset `at` (a line
    start), or 0. The candidates (`Lexis.heads`) are found in stretches that double."""
    assert lexis.heads is not None
    hi, back = at + 1, _BACK  # line starts in [lo, hi) are asked, the last first
    while hi > 1:
        lo = max(0, hi - back)
        heads = [m.start() for m in lexis.heads.finditer(text, lo, hi)]
        for head in reversed(heads):
            if head > 0 and lexis.starts_at(text, head):
                return head
        hi, back = lo, 2 * back
    return 0


def _start_after(text: str, at: int, lexis: Lexis) -> int:
    """The start of the first top-level-looking line at or after offset `at` (a line
    start), or the text's length."""
    assert lexis.heads is not None
    while at < len(text):
        head = lexis.heads.search(text, at)
        if head is None:
            break
        if lexis.starts_at(text, head.start()):
            return head.start()
        at = _next_line(text, head.start())
    return len(text)


def _window_clean(grammar: syntax.Grammar, old: str, new: str, w: _Window) -> bool:
    """Whether both texts of window `w` parse without an error, and split between
    top-level nodes where the changes begin and end."""
    old_src = syntax.encode(old[w.start : w.end])
    new_src = syntax.encode(new[w.start + w.shift : w.end + w.new_shift])
    old_cuts = (w.first - w.start, w.last - w.start)
    new_cuts = (w.first - w.start, w.last + w.new_shift - w.start - w.shift)
    tree = grammar.parser.parse(old_src)
    if not _splits_clean(tree.root_node, old[w.start : w.end], old_cuts):
        return False
    # The new window is the old one with the edit made: tree-sitter re-parses only what
    # the edit touched, and gives the tree a fresh parse would.
    _edit(tree, old_src, new_src)
    tree = grammar.parser.parse(new_src, tree)
    return _splits_clean(tree.root_node, new[w.start + w.shift : w.end + w.new_shift], new_cuts)


def _edit(tree: Any, a: bytes, b: bytes) -> None:
    """Tell `tree`, parsed from `a`, that its text is now `b` (one changed span)."""
    start = common_prefix(a, b)
    tail = common_suffix(a, b, min(len(a), len(b)) - start)
    tree.edit(
        start_byte=start,
        old_end_byte=len(a) - tail,
        new_end_byte=len(b) - tail,
        start_point=_point(a, start),
        old_end_point=_point(a, len(a) - tail),
        new_end_point=_point(b, len(b) - tail),
    )


def _point(src: bytes, at: int) -> tuple[int, int]:
    """Row and byte column of byte offset `at`, as tree-sitter counts them."""
    return src.count(b"\n", 0, at), at - (src.rfind(b"\n", 0, at) + 1)


def _splits_clean(root: Any, text: str, cuts: tuple[int, int]) -> bool:
    if root.has_error:
        return False
    at = [len(syntax.encode(text[:c])) for c in cuts]
    return not any(c.start_byte < x < c.end_byte for c in root.children for x in at)
