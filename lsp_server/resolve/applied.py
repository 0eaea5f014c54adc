"""Is a block's change already in the file? The evidence a second run of a reply needs.

A block whose new text restates its old text — an insertion: SEARCH is an anchor, REPLACE
is the anchor plus new lines (or new lines plus the anchor), or a tool call's old_string
extended in place — still finds its anchor after it was applied. Placing it again would
insert the new lines a second time. It is already applied when the file holds the new
text *at the spot its anchor determines*: the anchor's lines are the new text's own lines
there. That is checked, never assumed:

* `inserted_already`: every place the old lines occur lies inside the one place the new
  lines occur, at the offsets the old lines have in the new ones (an anchor found once, or
  an anchor the insertion repeated, as `}` after `}`). Another place holding the old lines
  outside it is a place the block could still apply to: no evidence, no verdict.
* `held_around`: the anchor found (by any rung) at one place, and the file's lines around
  it are the replacement the rung built for that place.
* `substring_already`: the same rule for tool calls whose old text may be part of a line.
* `refuse_lookalike`: a loose match for a block whose new text already stands in the file
  (several times: once is already applied) is two readings, and refused.
* `refuse_lost_deletion`: a loose match for a block that only deletes (its new text is
  blank) is two readings, and refused, unless the hunk's own line number names the match:
  a deletion leaves no trace, so a second run finds only look-alikes of what it deleted.
* `hinted_elsewhere`: a hunk whose line number names a line holding its new text
  (`placed_at`) while its old text stands elsewhere: applied, or meant for there —
  refused unless the new text is there once.

A hunk placed by position alone (a zero-context diff's insertion, an append) has nothing
but its line number to go by: a first run that inserts a copy of the lines already at
that number reads exactly as a second run, so it is placed as written, each time.

One reading no file can settle: lines inserted next to a copy of themselves (`x` added
after `x`). A first run then reads exactly as a second run of an insertion, and the
second is what a file holding the block's new text at its anchor is taken for: applying a
reply twice must be harmless, and duplicating a line next to its twin by quoting one
copy is the rarer wish (quote more context to ask for it).

Blank lines (and, inside a line, spaces) are never evidence: a block that only adds blank
lines next to its anchor adds them each time it runs (`adds_text`).

All are pure functions of the file's text; they run only for blocks whose new text
contains their old one (or, for substrings, whose old text is not found), or whose match
was not an exact quote, so a plain replacement costs nothing more.
"""

from __future__ import annotations

from collections.abc import Sequence

from lsp_server.model import ErrorCode, PlacementError
from lsp_server.resolve.content_index import ContentIndex, candidates
from lsp_server.resolve.match import Match


def runs_of(needle: Sequence[str], hay: Sequence[str]) -> list[int]:
    """Offsets where `needle` occurs as a contiguous run of `hay` (overlaps included)."""
    n = len(needle)
    if not n or n > len(hay):
        return []
    first = needle[0]
    return [
        i
        for i in range(len(hay) - n + 1)
        if hay[i] == first and list(hay[i : i + n]) == list(needle)
    ]


def adds_text(old: Sequence[str], new: Sequence[str], offsets: Sequence[int]) -> bool:
    """Whether the lines `new` adds around a run of `old` hold any text. Blank lines prove
    nothing: an anchor followed by a blank line is most anchors, so a block that only adds
    blank lines next to its anchor ("a blank line before `main`") adds them each time."""
    m = len(old)
    return any(any(x.strip() for x in (*new[:k], *new[k + m :])) for k in offsets)


def inserted_already(index: ContentIndex, old: Sequence[str], new: Sequence[str]) -> bool:
    """The new lines occur exactly once, exactly, and every exact occurrence of the old
    lines is one of the old lines' runs inside them."""
    if not old or len(new) <= len(old):
        return False
    offsets = runs_of(old, new)
    if not offsets or not adds_text(old, new, offsets):
        return False
    at = candidates(index, list(new), "exact")
    if len(at) != 1:
        return False
    return candidates(index, list(old), "exact") == [at[0] + k for k in offsets]


def held_around(contents: Sequence[str], start: int, end: int, region: Sequence[str]) -> bool:
    """The anchor matched the file's lines [start, end); `region` (contents, no endings) is
    what would replace them. True when those lines are a run of `region` and the file
    around them already reads as `region`: the block was applied at this spot."""
    matched = list(contents[start:end])
    if not matched or len(region) <= len(matched):
        return False
    width = len(region)
    runs = runs_of(matched, region)
    if len(runs) != 1:
        return False  # the region repeats the anchor: its copy and the file's read alike
    for k in runs:
        if not adds_text(matched, region, [k]):
            continue
        at = start - k
        if (
            at >= 0
            and at + width <= len(contents)
            and list(contents[at : at + width]) == list(region)
        ):
            return True
    return False


def substring_already(text: str, old: str, new: str) -> bool:
    """Tool-call semantics (`old` may be part of a line): `new` occurs exactly once, and
    every occurrence of `old` is one of its occurrences inside that `new` — none at all
    when `new` does not contain it (a replacement whose old text is gone)."""
    if not new.strip() or new == old or (old in new and not new.replace(old, "", 1).strip()):
        return False
    at = text.find(new)
    if at < 0 or text.find(new, at + 1) >= 0:
        return False
    if not old:
        return False
    inside = []
    k = new.find(old)
    while k >= 0:
        inside.append(at + k)
        k = new.find(old, k + 1)
    # the old text read with the line break before (after) the new text's lines is those
    # lines, not another place: `\n    y` found where the new text begins a line with `    y`
    edges = set()
    # (a replacement has no such lines: an old text found at all is a place to apply it)
    if inside and old.startswith("\n") and at and text[at - 1] == "\n" and new.startswith(old[1:]):
        edges.add(at - 1)
    end = at + len(new)
    if inside and old.endswith("\n") and text.startswith("\n", end) and new.endswith(old[:-1]):
        edges.add(end - len(old) + 1)
    found = []
    k = text.find(old)
    while k >= 0 and len(found) <= len(inside) + len(edges):
        if k not in edges:
            found.append(k)
        k = text.find(old, k + 1)
    return found == inside


def inserted_at(text: str, first: int, old: Sequence[str], new: Sequence[str]) -> bool:
    """`inserted_already` for the single-exact path, on the text itself: the old lines
    occur once, as whole lines, at character `first`; is that occurrence one of the old
    lines' runs inside the new lines, with the new lines there as whole lines? (The new
    lines cannot occur elsewhere: they hold the old ones, which occur only here.)"""
    if len(new) <= len(old):
        return False
    whole = "\n".join(new)
    for k in runs_of(old, new):
        if not adds_text(old, new, [k]):
            continue
        at = first - sum(len(x) + 1 for x in new[:k])
        end = at + len(whole)
        if (
            at >= 0
            and text.startswith(whole, at)
            and (at == 0 or text[at - 1] == "\n")
            and (end == len(text) or text[end] == "\n")
        ):
            return True
    return False


def placed_at(contents: Sequence[str], line: int, new: Sequence[str]) -> bool:
    """The new lines (some text among them) are the file's lines from `line` on."""
    n = len(new)
    return bool(n) and any(x.strip() for x in new) and list(contents[line : line + n]) == list(new)


def refuse_lost_deletion(match: Match, new: Sequence[str], hint_line: int | None) -> None:
    """A loose match for a block whose new text is blank (it deletes its old lines, a blank
    line at most standing in their place): once applied, nothing in the file says so, and a
    second run's loose match is a look-alike of the deleted lines (`def f1` for `def f0`).
    Two readings with different results, refused naming both — unless the hunk's line
    number names the line the match starts at, which a look-alike elsewhere does not."""
    if any(x.strip() for x in new) or hint_line == match.start:
        return
    raise PlacementError.of(
        ErrorCode.TEXT_AMBIGUOUS,
        f"the lines to delete are not in the file as written; the closest lines (line "
        f"{match.start + 1}, a {match.kind.value} match) differ from them, and a deletion "
        "leaves no trace: it may have been applied already, or be meant for the look-alike "
        "— quote the lines to delete exactly",
        match=match.kind.value,
        lines=[match.start + 1],
        readings=["already applied", f"delete the look-alike at line {match.start + 1}"],
    )


def hinted_elsewhere(line: int, match: Match) -> PlacementError:
    """The refusal for a hunk whose line number names a line that holds its new text while
    its old text stands at another place (and the new text is not unique): applied already,
    or meant for that other place."""
    return PlacementError.of(
        ErrorCode.TEXT_AMBIGUOUS,
        f"the hunk names line {line + 1}, which holds its new text already, and its old text "
        f"stands at line {match.start + 1}: it may have been applied already, or be meant "
        f"for line {match.start + 1} — give more context lines",
        match=match.kind.value,
        lines=[match.start + 1],
        readings=["already applied", f"apply at line {match.start + 1}"],
    )


def refuse_lookalike(
    index: ContentIndex, match: Match, old: Sequence[str], new: Sequence[str]
) -> None:
    """A loose match (the old text is not in the file as written: a rung past the exact
    one found a look-alike) for a block whose new text already stands in the file, as
    whole lines, in several places: the block may have been applied already (to one of
    them), or be meant for the look-alike. Two readings with different results: refused,
    naming both. (With one place, the caller reports the block already applied.)"""
    if not new or list(new) == list(old) or not any(x.strip() for x in new):
        return
    if candidates(index, list(old), "exact"):
        return
    held = candidates(index, list(new), "exact")
    if not held:
        return
    where = ", ".join(str(s + 1) for s in held[:10])
    raise PlacementError.of(
        ErrorCode.TEXT_AMBIGUOUS,
        f"the text is not in the file as written; the closest lines (line {match.start + 1}, "
        f"a {match.kind.value} match) differ from it, and the block's new text already "
        f"stands at line(s) {where}: it may have been applied already, or be meant for the "
        "look-alike — quote the lines to change exactly",
        match=match.kind.value,
        lines=[match.start + 1],
        readings=["already applied", f"replace the look-alike at line {match.start + 1}"],
        new_text_at=[s + 1 for s in held],
    )
