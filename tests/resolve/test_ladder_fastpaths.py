"""The ladder's fast paths give the answers of the straightforward algorithm.

Speed work must never change a placement. Each fast path is checked against a reference
written here the slow, obvious way, on random inputs built from a small alphabet of lines
(so duplicates, blank lines, indentation and trailing blanks are everywhere):

* candidates per normalisation (exact / trailing whitespace / indentation): joined-text
  search on a fresh index, the line table, and the index a FileText hands out;
* fuzzy window scoring (memoised per line pair) and the window set it scores;
* `locate()` end to end, against a reference ladder (exact → rstrip → indent → fuzzy, the
  fuzzy region re-paired around skipped lines, then runs of spaces and empty edge lines);
* the text preparation in file_text.py (contents, dominant line ending, splices) and the
  per-text cache (a cached text places exactly like a fresh one).

Plus a smoke run of `python -m benchmarks.run --quick`.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from unittest.mock import patch

from hypothesis import example, given, settings
from hypothesis import strategies as st
from rapidfuzz import fuzz

from lsp_server.lines import content, contents_of, dominant_eol, eol_of, split_lines
from lsp_server.model import Hunk, HunkKind, MatchKind, PlacementError
from lsp_server.resolve import (
    alignment,
    cache,
    content_index,
    file_text,
    hunks,
    indent,
    ladder,
    replacement,
)
from lsp_server.resolve.content_index import ContentIndex, candidates
from lsp_server.resolve.indent import infer_shift
from lsp_server.resolve.ladder import locate

ROOT = Path(__file__).resolve().parents[2]

LINES = [
    "", " ", "a", "a ", " a", "  a", "\ta", "b", "b\t", "  b", "}", "  }", "    }", "x = 1",
    "    x = 1", "x = 1  ", "return x", "    return x", "if x:", "    if x:", "ab\rc",
]
lines_st = st.lists(st.sampled_from(LINES), min_size=0, max_size=40)
NORMS = {"exact": lambda s: s, "rstrip": str.rstrip, "strip": str.strip}


def ref_candidates(lines: list[str], old: list[str], how: str) -> list[int]:
    norm = NORMS[how]
    n = len(old)
    return [
        s
        for s in range(len(lines) - n + 1)
        if all(norm(lines[s + j]) == norm(old[j]) for j in range(n))
    ]


@st.composite
def file_and_block(draw):
    lines = draw(lines_st)
    if lines and draw(st.booleans()):
        i = draw(st.integers(0, len(lines) - 1))
        j = draw(st.integers(i + 1, min(len(lines), i + 6)))
        old = lines[i:j]
        if draw(st.booleans()):  # re-indent / add trailing blanks to some lines
            old = [draw(st.sampled_from(["", " ", "\t"])) + x for x in old]
    else:
        old = draw(st.lists(st.sampled_from(LINES), min_size=1, max_size=5))
    return lines, old


@settings(max_examples=400, deadline=None)
@given(file_and_block(), st.sampled_from(["exact", "rstrip", "strip"]))
def test_candidates_search_table_and_filetext_index_agree(data, how):
    lines, old = data
    expected = ref_candidates(lines, old, how)
    fresh = ContentIndex(lines)
    assert candidates(fresh, old, how) == expected  # first lookups scan the text
    for _ in range(content_index.SEARCHES + 1):  # then the line table takes over
        assert candidates(fresh, old, how) == expected
    assert fresh.has_table(how)
    text = "".join(x + "\n" for x in lines)
    ft_index = file_text.index_for(text, contents_of(text))  # joined text = the file
    assert candidates(ft_index, old, how) == expected


@settings(max_examples=200, deadline=None)
@given(lines_st, st.lists(st.sampled_from(LINES), min_size=1, max_size=4))
def test_search_never_disagrees_with_table(lines, old):
    index = ContentIndex(lines)
    for how in NORMS:
        keys = [NORMS[how](x) for x in old]
        found = content_index.search_candidates(index, keys, how)
        assert found is None or found == ref_candidates(lines, old, how)
        if how != "exact":  # the whitespace rungs' scan of the raw text, for the first lookups
            raw = content_index.raw_candidates(index, keys, how)
            assert raw is None or raw == ref_candidates(lines, old, how)


def test_search_gives_up_on_too_many_hits_and_table_answers():
    lines = ["a"] * (content_index.SEARCH_HITS + 10)
    index = ContentIndex(lines)
    assert content_index.search_candidates(index, ["a"], "exact") is None
    assert candidates(ContentIndex(lines), ["a", "a"], "exact") == list(range(len(lines) - 1))


def test_lines_holding_newlines_fall_back_to_the_table():
    lines = ["a\nb", "a", "b"]
    assert candidates(ContentIndex(lines), ["a", "b"], "exact") == [1]
    assert candidates(ContentIndex(lines), ["a\nb"], "exact") == [0]


def ref_similarity(old: list[str], window: list[str]) -> float:
    total = 0.0
    for x, y in zip(old, window, strict=True):
        xs, ys = x.strip(), y.strip()
        total += 1.0 if xs == ys else fuzz.ratio(xs, ys) / 100.0
    return total / len(old)


@settings(max_examples=300, deadline=None)
@given(file_and_block())
def test_fuzzy_scores_and_best_window_match_direct_scoring(data):
    lines, old = data
    n = len(old)
    if len(lines) < n:
        return
    index = ContentIndex(lines)
    starts = set(range(len(lines) - n + 1))
    fast = ladder.score_windows(index, old, starts)
    slow = sorted(((ref_similarity(old, lines[s : s + n]), s) for s in starts),
                  key=lambda t: (-t[0], t[1]))
    assert fast == slow  # same floats, same order: the best window is the same one


@settings(max_examples=300, deadline=None)
@given(file_and_block())
def test_window_set_is_every_window_sharing_an_informative_line(data):
    lines, old = data
    n = len(old)
    keys = [x.strip() for x in old]
    expected = {
        s
        for s in range(len(lines) - n + 1)
        if any(len(keys[j]) > 2 and lines[s + j].strip() == keys[j] for j in range(n))
    }
    if not expected:
        return  # the fallback (closest lines by rapidfuzz) is not a fast path
    assert ladder.window_starts(ContentIndex(lines), old) == expected


def few_rewritten(old: list[str], window: list[str]) -> bool:
    """At most a quarter of the lines may be less than 90% alike (the ladder's rule)."""
    rewritten = sum(
        1 for x, y in zip(old, window, strict=False)
        if x.strip() != y.strip() and fuzz.ratio(x.strip(), y.strip()) < 90
    )
    return rewritten <= len(old) // 4


def ref_strict(lines: list[str], old: list[str]) -> tuple | None:
    """The rungs that read every line as equal: (start, kind), an ambiguity, or None."""
    n = len(old)
    for how, kind in (("exact", MatchKind.EXACT), ("rstrip", MatchKind.WHITESPACE)):
        found = ref_candidates(lines, old, how)
        if len(found) == 1:
            return found[0], kind
        if found:
            return "TEXT_AMBIGUOUS", kind
    shifted = [
        s for s in ref_candidates(lines, old, "strip")
        if infer_shift(old, lines[s : s + n], lines) is not None
    ]
    if len(shifted) == 1:
        return shifted[0], MatchKind.INDENT
    if shifted:
        return "TEXT_AMBIGUOUS", MatchKind.INDENT
    # runs of white space read as one (the alphabet has no typographic punctuation, so
    # folding it finds nothing more)
    collapsed = [
        s for s in range(len(lines) - n + 1)
        if all(" ".join(lines[s + j].split()) == " ".join(old[j].split()) for j in range(n))
        and infer_shift(old, lines[s : s + n], lines) is not None
    ]
    if len(collapsed) == 1:
        return collapsed[0], MatchKind.WHITESPACE
    if collapsed:
        return "TEXT_AMBIGUOUS", MatchKind.WHITESPACE
    return None


def ref_fuzzy(lines: list[str], old: list[str], threshold: float) -> tuple:
    n = len(old)
    keys = [x.strip() for x in old]
    windows = [
        s for s in range(len(lines) - n + 1)
        if any(len(keys[j]) > 2 and lines[s + j].strip() == keys[j] for j in range(n))
    ]
    scored = sorted(((ref_similarity(old, lines[s : s + n]), s) for s in windows),
                    key=lambda t: (-t[0], t[1]))
    good = [(sc, s) for sc, s in scored if sc >= threshold and few_rewritten(old, lines[s:])]
    if not good:
        return "TEXT_NOT_FOUND", None
    best_score, best = good[0]
    rivals = [(sc, s) for sc, s in good[1:] if abs(s - best) >= max(1, n // 2)]
    if rivals and best_score - rivals[0][0] < ladder.FUZZY_MARGIN:
        # a tie is broken only by a window at least twice as close where the two differ
        tied = [best] + [s for sc, s in rivals if best_score - sc < ladder.FUZZY_MARGIN]
        left = _undominated_reference(tied, old, [x.strip() for x in lines])
        if len(left) != 1:
            return "TEXT_AMBIGUOUS", MatchKind.FUZZY
        best = left[0]
        best_score = next(sc for sc, s in good if s == best)
    realigned = ref_realign(lines, old, best)
    return (best if realigned is None else realigned), MatchKind.FUZZY, best_score, best


def ref_ladder(lines: list[str], old: list[str], threshold: float) -> tuple:
    """The ladder without indexes, hints or elision: (start, kind) or the error code.
    A fuzzy start the engine may re-pair is a set of the starts it may give."""
    found = ref_strict(lines, old)
    if found is not None:
        return found
    body = [j for j, x in enumerate(old) if x.strip()]
    trim = bool(body) and (body[0] > 0 or body[-1] < len(old) - 1)
    if trim:
        inner = ref_strict(lines, old[body[0] : body[-1] + 1])
        if inner is not None:
            return edged(lines, inner, body[0])
    found = ref_fuzzy(lines, old, threshold)
    if found[0] == "TEXT_NOT_FOUND" and trim:
        inner = ref_fuzzy(lines, old[body[0] : body[-1] + 1], threshold)
        if inner[0] != "TEXT_NOT_FOUND":
            return edged(lines, inner[:2], body[0])
    if trim and len(found) == 4:
        # the block's lines without the empty edge ones, elsewhere and as alike: ambiguous
        inner = ref_fuzzy(lines, old[body[0] : body[-1] + 1], threshold)
        if len(inner) == 4 and inner[2] > found[2] - ladder.FUZZY_MARGIN:
            if isinstance(found[0], frozenset) or isinstance(inner[0], frozenset):
                return "EITHER", found[:2]  # re-paired: the region's edges move a little
            if not found[0] <= inner[0] < found[0] + len(old):
                return "TEXT_AMBIGUOUS", MatchKind.FUZZY
    return found[:2]


def edged(lines: list[str], inner: tuple, lead: int) -> tuple:
    """An inner match of a block without its empty edge lines: it starts earlier by as many
    of the left-out empty lines as the file has just above it."""
    start, kind = inner
    if isinstance(start, str):
        return inner
    if kind is MatchKind.EXACT:
        kind = MatchKind.WHITESPACE

    def up(s: int) -> int:
        k = 0
        while k < lead and s - k > 0 and not lines[s - k - 1].strip():
            k += 1
        return s - k

    if isinstance(start, frozenset):
        return frozenset(up(s) for s in start), kind
    return up(start), kind


def ref_realign(lines: list[str], old: list[str], start: int) -> frozenset | None:
    """Where a fuzzy placement's region starts when pairing the lines around skipped file
    lines (or empty old lines the file lacks) costs less than the window's own pairing:
    every pairing within the band tried, by recursion. None: the window's pairing stands.
    The set holds the first paired line of every cheapest pairing."""
    n, total = len(old), len(lines)
    if n < 2:
        return None
    band = min(alignment.MAX_BAND, max(1, n // 4))
    keys = [x.strip() for x in old]

    def cost(i: int, f: int) -> float:
        a, b = keys[i], lines[f].strip()
        if a == b:
            return 0.0
        if not a or not b:
            return 1.0
        return 1.0 - fuzz.ratio(a, b) / 100.0

    positional = sum(cost(i, start + i) for i in range(n))
    if positional <= alignment.GAP:
        return None  # every other pairing skips a line, at that cost at least

    def inside(i: int, f: int) -> bool:
        return -band <= f - (start + i) <= band and 0 <= f <= total

    def best(i: int, f: int, first: int | None) -> list[tuple[float, int | None]]:
        if i == n:
            return [(0.0, first)]
        out = []
        if f < total and inside(i + 1, f + 1):  # pair old[i] with file line f
            paired = f if first is None else first
            out += [(c + cost(i, f), at) for c, at in best(i + 1, f + 1, paired)]
        if not keys[i] and inside(i + 1, f):  # an empty old line the file lacks
            out += [(c + alignment.GAP, at) for c, at in best(i + 1, f, first)]
        if i > 0 and inside(i, f + 1):  # a file line the block skips
            out += [(c + alignment.GAP, at) for c, at in best(i, f + 1, first)]
        return out

    options = [
        o for f in range(start - band, start + band + 1) if inside(0, f) for o in best(0, f, None)
    ]
    low = min(c for c, _ in options)
    if low >= positional - 1e-9:
        return None
    return frozenset(first for c, first in options if c <= low + 1e-9 and first is not None)


@settings(max_examples=400, deadline=None)
@given(file_and_block(), st.sampled_from([0.5, 0.8]))
# two windows equally alike, one far closer where they differ ('a' for a blank line, not
# for `x = 1`): the ladder's dominance rule picks it, and the reference now applies it too
@example((["x = 1", "", "", "x = 1", "", "", ""], ["x = 1", "", "", "a"]), 0.5)
def test_locate_matches_the_reference_ladder(data, threshold):
    lines, old = data
    keys = [x.strip() for x in old]
    has_window = any(
        len(keys[j]) > 2 and lines[s + j].strip() == keys[j]
        for s in range(len(lines) - len(old) + 1)
        for j in range(len(old))
    )
    expected = ref_ladder(lines, old, threshold)
    if not has_window and ref_strict(lines, old) is None:
        return  # decided by the closest-line fallback, not compared here
    try:
        m = locate(lines, old, fuzzy_threshold=threshold)
        got = (m.start, m.kind)
    except PlacementError as err:
        got = (str(err.failure.code), MatchKind(err.failure.details["match"])
               if "match" in err.failure.details else None)
    if expected[0] == "EITHER":  # a re-paired region next to another reading of it
        start, kind = expected[1]
        starts = start if isinstance(start, frozenset) else {start}
        assert got == ("TEXT_AMBIGUOUS", MatchKind.FUZZY) or (got[0] in starts and got[1] == kind)
    elif isinstance(expected[0], frozenset):  # a realigned fuzzy placement
        assert got[0] in expected[0] and got[1] == expected[1]
    else:
        assert got == expected


texts_st = st.lists(st.sampled_from(["a", "b ", "", "\r", "x\ty", "\f"]), max_size=12).flatmap(
    lambda parts: st.lists(st.sampled_from(["\n", "\r\n", ""]), min_size=len(parts),
                           max_size=len(parts)).map(
        lambda ends: "".join(p + e for p, e in zip(parts, ends, strict=True))
    )
)


@settings(max_examples=400, deadline=None)
@given(texts_st)
def test_text_preparation_matches_line_by_line_definitions(text):
    lines = split_lines(text)
    assert contents_of(text) == [content(x) for x in lines]
    assert eol_of(text) == dominant_eol(lines)
    ft = file_text.FileText.of(text)
    assert ft.lines == lines and ft.text() == text


@settings(max_examples=150, deadline=None)
@given(texts_st, st.data())
def test_splices_keep_contents_in_step_with_lines(text, data):
    ft = file_text.FileText.of(text)
    for _ in range(3):
        n = len(ft.lines)
        start = data.draw(st.integers(0, n))
        end = data.draw(st.integers(start, n))
        new = data.draw(st.lists(st.sampled_from(["q\n", "r\r\n", "  s\n"]), max_size=3))
        ft.splice(start, end, new)
        assert ft.contents == [content(x) for x in ft.lines]
        assert ft.index.lines == ft.contents


def _placed(text: str, hunk: Hunk):
    """What placing one hunk gives: the new text and placements, or the refusal's code."""
    try:
        r = hunks.apply_hunks(text, [hunk])
        return r.text, r.placements
    except PlacementError as err:
        return str(err.failure.code)


@settings(max_examples=200, deadline=None)
@given(file_and_block(), st.sampled_from(["\n", "\r\n"]))
def test_cached_text_places_exactly_like_a_fresh_one(data, eol):
    lines, old = data
    text = "".join(x + eol for x in lines)
    hunk = Hunk("".join(x + "\n" for x in old), "NEW\n")

    cache.clear_all()
    fresh = _placed(text, hunk)
    assert _placed(text, hunk) == fresh  # the text (and its result) now come from the cache
    for _ in range(content_index.SEARCHES + 1):
        assert _placed(text, hunk) == fresh  # ... and once the index has built its tables
    cache.clear_all()


@settings(max_examples=400, deadline=None)
@given(
    data=file_and_block(),
    new_lines=st.lists(st.sampled_from(["", "x", "  y", "a"]), max_size=4),
    final_nl=st.booleans(),
    old_nl=st.booleans(),
    new_nl=st.booleans(),
)
def test_single_exact_text_path_equals_the_line_path(data, new_lines, final_nl, old_nl, new_nl):
    lines, old = data
    text = "".join(x + "\n" for x in lines)
    if text and not final_nl:
        text = text[:-1]
    hunk = Hunk("\n".join(old) + ("\n" if old_nl else ""),
                "\n".join(new_lines) + ("\n" if new_nl and new_lines else ""))

    def outcome():
        cache.clear_all()
        try:
            r = hunks.apply_hunks(text, [hunk])
            return r.text, r.placements, r.match, r.score, r.already_applied
        except PlacementError as err:
            return str(err.failure.code), err.failure.details.get("hunk")

    fast = outcome()
    with patch.object(hunks, "apply_single_exact", lambda *_: None):
        assert outcome() == fast


def test_kept_unterminated_last_line_gets_an_ending_when_lines_follow_it():
    # the line path used to glue the kept "a" to the blank line added after it
    hunk = Hunk("a", "a\n\n")
    with patch.object(hunks, "apply_single_exact", lambda *_: None):
        assert hunks.apply_hunks("x\na", [hunk]).text == "x\na\n\n"
    assert hunks.apply_hunks("x\na", [hunk]).text == "x\na\n\n"


def test_cache_is_bounded_and_keeps_recent_texts():
    c = cache.TextCache(max_entries=3, max_chars=10)
    for t in ("aa", "bb", "cc", "dd"):
        c.put(t, t.upper())
    assert len(c) == 3 and c.get("aa") is None and c.get("dd") == "DD"
    c.put("x" * 9, "X")  # over the character budget: the oldest entries go
    assert c.get("x" * 9) == "X" and c.get("bb") is None
    c.put("y" * 11, "Y")  # bigger than the whole budget: not kept at all
    assert c.get("y" * 11) is None


def test_benchmark_quick_run_writes_valid_json(tmp_path):
    out = tmp_path / "quick.json"
    done = subprocess.run(
        [sys.executable, "-m", "benchmarks.run", "--quick", "--out", str(out)],
        cwd=ROOT, capture_output=True, text=True, timeout=120,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    results = json.loads(out.read_text())
    assert results["meta"]["quick"] is True
    assert {r["rung"] for r in results["ladder"]} >= {"exact", "fuzzy1", "ambiguous"}
    assert all(r["warm"]["median_ms"] > 0 and r["cold"]["n"] >= 1 for r in results["ladder"])
    for r in results["ladder"]:  # exact, whitespace, indent and refusals are always right
        if r["rung"] in ("exact", "whitespace", "indent", "elision", "ambiguous", "not_found"):
            assert r["correct"], r
    assert all(p["correct"] for p in results["plan"])
    assert isinstance(results["targets"], list)


@settings(max_examples=300, deadline=None)
@given(lines_st, st.lists(st.sampled_from(LINES), min_size=1, max_size=6))
def test_lookups_without_the_line_table_agree_with_it(lines, old):
    """The fuzzy rung's first lookups (Counter + list scans) give what the table gives."""
    cold, indexed = ContentIndex(lines), ContentIndex(lines)
    table = indexed.positions("strip")
    for key in {x.strip() for x in old + lines}:
        expected = table.get(key, [])
        assert list(cold.lines_equal_to("strip", key)) == expected
        assert cold.count_equal_to("strip", key) == len(expected)
    assert not cold.has_table("strip")  # answered without building the table
    assert cold.distinct("strip") == indexed.distinct("strip") == list(dict.fromkeys(table))
    fetched = ContentIndex(lines)  # several keys found in one pass, then asked one by one
    keys = sorted({x.strip() for x in old + lines})
    fetched.prefetch("strip", keys[::2])
    for key in keys:
        assert list(fetched.lines_equal_to("strip", key)) == table.get(key, [])
    assert not fetched.has_table("strip")
    if len(lines) >= len(old):
        assert ladder.window_starts(ContentIndex(lines), old) == ladder.window_starts(indexed, old)


# lines much alike (more than 8 different ones score over 50 against each other), repeated
NEAR = [f"{'    ' * (i % 3)}total_{i % 4} = compute(x{i % 5}, {i})" for i in range(16)] + ["}", ""]
NEAR_OLD = [f"total_{i} = compute(y{i}, {i * 3})" for i in range(6)] + ["tot = comp()", "zzz"]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(NEAR), min_size=1, max_size=60),
       st.lists(st.sampled_from(NEAR_OLD), min_size=1, max_size=4))
def test_windows_near_the_closest_texts_when_no_line_is_shared(lines, old):
    """No line of the block is in the file: the windows proposed are those around every
    line whose text is one of the 8 closest different texts (by `fuzz.ratio`, at least 50)
    to the block's longest line; repeated lines count once among the 8."""
    keys = [x.strip() for x in old]
    if len(lines) < len(old) or any(
        len(k) > 2 and k in {x.strip() for x in lines} for k in keys
    ):
        return
    longest = max(range(len(old)), key=lambda j: len(keys[j]))
    distinct = list(dict.fromkeys(x.strip() for x in lines))
    scored = sorted(
        ((fuzz.ratio(keys[longest], t), i) for i, t in enumerate(distinct)),
        key=lambda t: (-t[0], t[1]),
    )
    closest = {distinct[i] for sc, i in scored[:8] if sc >= 50} if keys[longest] else set()
    expected = {
        p - longest
        for p, x in enumerate(lines)
        if x.strip() in closest and 0 <= p - longest <= len(lines) - len(old)
    }
    assert ladder.window_starts(ContentIndex(lines), old) == expected


def _undominated_reference(starts, old, stripped):
    """Every pair compared, as the rule reads."""
    from rapidfuzz.distance import Levenshtein

    keys = [x.strip() for x in old]

    def beats(a, b):
        differ = [j for j in range(len(keys)) if stripped[a + j] != stripped[b + j]]
        if not differ:
            return False
        da = sum(Levenshtein.distance(keys[j], stripped[a + j]) for j in differ)
        db = sum(Levenshtein.distance(keys[j], stripped[b + j]) for j in differ)
        return db > 0 and 2 * da <= db

    return [b for b in starts if not any(beats(a, b) for a in starts if a != b)]


NAMES = ["total", "totl", "count", "cnt", "x", "xs", "value", "valu"]


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.lists(st.sampled_from(NAMES), min_size=3, max_size=3), min_size=1, max_size=25),
    st.lists(st.sampled_from(NAMES), min_size=3, max_size=3),
)
def test_look_alike_pruning_keeps_exactly_the_undominated_windows(windows, block):
    """Look-alike functions differing in a name or two: the near-linear pruning keeps the
    same windows as comparing every pair."""
    stripped = []
    starts = []
    for words in windows:
        starts.append(len(stripped))
        stripped += [f"def f_{words[0]}():", f"return {words[1]} + {words[2]}", "}"]
    old = [f"def f_{block[0]}():", f"    return {block[1]} + {block[2]}", "}"]
    assert ladder.undominated(starts, old, stripped) == _undominated_reference(
        starts, old, stripped
    )


# --------------------------------------------------------------------------- implied lines

_SPLICE_LINES = ["q\n", "  s\n", "\n", "a\rb\n", "r\r\n", "t", "u\r"]


def _built(ft: file_text.FileText) -> file_text.FileText:
    """The same file text with its line list built (the path every text took before)."""
    twin = file_text.FileText(list(ft.lines), ft.eol, None, list(ft.contents))
    assert twin.holds_lines
    return twin


@settings(max_examples=400, deadline=None)
@given(texts_st.filter(lambda t: "\r" not in t), st.data())
def test_lines_implied_by_contents_splice_like_a_line_list(text, data):
    """A "\\n"-only text keeps no line list until something needs one: splices, slices,
    the last line and the joined text must be what a built line list gives, whether the
    new lines keep that possible (plain "\\n" endings) or not ("\\r\\n", an unterminated
    line that does not end the file)."""
    ft = file_text.FileText.of(text)
    assert not ft.holds_lines
    twin = _built(file_text.FileText.of(text))
    for _ in range(4):
        n = ft.size
        assert n == twin.size == len(twin.lines)
        start = data.draw(st.integers(0, n))
        end = data.draw(st.integers(start, n))
        new = data.draw(st.lists(st.sampled_from(_SPLICE_LINES), max_size=3))
        ft.splice(start, end, new)
        twin.splice(start, end, new)
        assert ft.text() == twin.text()
        assert ft.contents == twin.contents
        a = data.draw(st.integers(0, ft.size))
        b = data.draw(st.integers(a, ft.size))
        assert ft.line_slice(a, b) == twin.lines[a:b]
        if ft.size:
            assert ft.last_line() == twin.lines[-1]
    assert ft.lines == twin.lines


_KINDS = [HunkKind.REPLACE] * 4 + [
    HunkKind.APPEND_EOF, HunkKind.PREPEND_BOF, HunkKind.OVERWRITE, HunkKind.INSERT_AT_LINE,
]


@settings(max_examples=400, deadline=None)
@given(file_and_block(), st.data())
def test_placing_hunks_without_a_line_list_gives_what_a_line_list_gives(data, draw):
    """`apply_hunks` on a "\\n"-only text against the same with every line list built up
    front, for replacements (every rung), positional hunks and several hunks in a row, with
    and without a final newline; the text-level exact path is off, so the line path runs."""
    lines, old = data
    text = "".join(x + "\n" for x in lines)
    if text and draw.draw(st.booleans()):
        text = text[:-1]
    blocks = []
    for _ in range(draw.draw(st.integers(1, 3))):
        kind = draw.draw(st.sampled_from(_KINDS))
        new = draw.draw(st.sampled_from(["", "NEW\n", "x\ny", "  a\n\n"]))
        hint = draw.draw(st.integers(0, len(lines))) if kind is HunkKind.INSERT_AT_LINE else None
        anchor = "".join(x + "\n" for x in old) if kind is HunkKind.REPLACE else ""
        if anchor and draw.draw(st.booleans()):
            anchor = anchor[:-1]
        blocks.append(Hunk(anchor, new, kind=kind, line_hint=hint))
    ordered = draw.draw(st.booleans())

    def outcome():
        cache.clear_all()
        try:
            r = hunks.apply_hunks(text, blocks, ordered=ordered)
            return r.text, r.placements, r.match, r.already_applied
        except PlacementError as err:
            return str(err.failure.code), err.failure.details.get("hunk")

    with patch.object(hunks, "apply_single_exact", lambda *_: None):
        implied = outcome()
        real_of = file_text.FileText.of.__func__
        built_of = classmethod(lambda c, t: _built(real_of(c, t)))
        with patch.object(file_text.FileText, "of", built_of):
            assert outcome() == implied


_WORDS = ["pass", "q", "", "  x", "a"]


@st.composite
def _file_and_hunk(draw, lines=None):
    if lines is None:
        lines = draw(st.lists(st.sampled_from(_WORDS), min_size=1, max_size=5))
        eol = draw(st.sampled_from(["\n", "\r\n"]))
        text = eol.join(lines) + (eol if draw(st.booleans()) else "")
    else:
        text = None
    i = draw(st.integers(0, len(lines) - 1))
    old = lines[i : draw(st.integers(i + 1, min(len(lines), i + 3)))]
    if draw(st.booleans()):
        old = ["  " + x if x.strip() else x for x in old]
    new = draw(st.lists(st.sampled_from(_WORDS), max_size=3))
    return text, Hunk("".join(x + "\n" for x in old), "".join(x + "\n" for x in new))


@settings(max_examples=500, deadline=None)
@given(_file_and_hunk(), st.data())
def test_a_result_kept_for_the_next_block_places_it_like_a_fresh_read(first, data):
    """The text a block produced is kept (lines, index) for the file's next block. That
    next block must land exactly where it lands on the same text read afresh, also after
    a block whose new text ends in a blank line went to the end of a file without a final
    newline (a line with nothing in it, which a fresh read does not see)."""
    text, h1 = first
    cache.clear_all()
    done = _placed(text, h1)
    if isinstance(done, str):
        return
    after = done[0]
    lines = after.replace("\r\n", "\n").split("\n")
    _, h2 = data.draw(_file_and_hunk(lines))
    kept = _placed(after, h2)
    cache.clear_all()
    assert kept == _placed(after, h2)


# --------------------------------------------------------------------------- indent unit


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(LINES + ["      a", "        b", "\t\tc", "   c"]), max_size=30))
def test_every_detected_unit_is_one_of_the_listed_sizes(lines):
    """`UNIT_SIZES` lists every width `detect_unit` can answer with: a caller that gets the
    same answer for each of them may skip detecting it."""
    unit = indent.detect_unit(lines)
    assert (indent.TAB_WIDTH if unit == "\t" else len(unit)) in indent.UNIT_SIZES


def _refuses_off_grid_as_before(unit: str, shift: int, depth: int, reply: int) -> bool:
    """The rule as written before it could skip the file's unit: the unit first."""
    size = indent.TAB_WIDTH if unit == "\t" else len(unit)
    return not (size < 2 or not shift % size or not depth % size or reply % size)


@settings(max_examples=600, deadline=None)
@given(
    st.lists(st.sampled_from(LINES + ["      a", "        b", "\t\tc", "   c"]), max_size=30),
    st.integers(-17, 17),
    st.integers(0, 33),
    st.integers(0, 33),
)
def test_an_off_grid_quote_is_refused_whether_or_not_the_unit_is_detected(
    lines, shift, depth, reply
):
    """`replacement._refuse_off_grid` asks for the file's indent unit only when the sizes
    a unit can have disagree; it refuses exactly when the rule computed from the unit does,
    and never detects the unit when every size lets the line through."""
    index = ContentIndex(lines)
    expected = _refuses_off_grid_as_before(indent.detect_unit(lines), shift, depth, reply)
    with patch.object(content_index, "detect_unit", wraps=indent.detect_unit) as detect:
        try:
            replacement._refuse_off_grid(index, shift, depth, reply, 0)
            refused = False
        except PlacementError as err:
            assert err.failure.details["columns"] == [reply, depth]
            refused = True
    assert refused == expected
    if not any(
        _refuses_off_grid_as_before(" " * s, shift, depth, reply) for s in indent.UNIT_SIZES
    ):
        assert detect.call_count == 0


# --------------------------------------------------------------------------- nested rungs


@settings(max_examples=500, deadline=None)
@given(file_and_block(), st.sampled_from(content_index.NESTED), st.data())
def test_a_looser_rungs_places_filtered_are_the_stricter_rungs_places(data, how, draw):
    """`candidates_among` answers `candidates` from the places of any looser normalisation
    in `NESTED`, below its work limit and past it (where it searches the text itself)."""
    lines, old = data
    looser = draw.draw(st.sampled_from(content_index.NESTED[content_index.NESTED.index(how) :]))
    among = ref_candidates(lines, old, looser)
    with patch.object(content_index, "AMONG_CELLS", draw.draw(st.sampled_from([0, 200_000]))):
        got = content_index.candidates_among(ContentIndex(lines), old, how, among)
    assert got == ref_candidates(lines, old, how)


def _already_there_as_before(lines: list[str], new: str, old: str) -> bool:
    """`hunks._already_there` as written before it searched the text once: each rung's
    search in turn, the file's indent unit handed over as detected."""
    new_lines = hunks.text_lines(new)
    if not new_lines or new == old or not any(x.strip() for x in new_lines):
        return False
    n = len(new_lines)
    for how in ("exact", "rstrip"):
        found = ref_candidates(lines, new_lines, how)
        if found:
            return len(found) == 1
    unit = indent.detect_unit(lines)
    shifted = [
        s
        for s in ref_candidates(lines, new_lines, "strip")
        if infer_shift(new_lines, lines[s : s + n], lines, unit) is not None
    ]
    return len(shifted) == 1


@settings(max_examples=500, deadline=None)
@given(file_and_block(), st.data())
def test_the_new_text_is_found_standing_as_the_rung_by_rung_search_finds_it(data, draw):
    lines, old = data
    if draw.draw(st.booleans()) and lines:  # the block's new text is some lines of the file
        i = draw.draw(st.integers(0, len(lines) - 1))
        new_lines = lines[i : i + draw.draw(st.integers(1, 4))]
        new_lines = [draw.draw(st.sampled_from(["", " ", "  "])) + x for x in new_lines]
    else:
        new_lines = draw.draw(st.lists(st.sampled_from(LINES), min_size=1, max_size=4))
    new = "".join(x + "\n" for x in new_lines)
    old_text = "".join(x + "\n" for x in old)
    text = "".join(x + "\n" for x in lines)
    if "\r" in text or "\r" in new:
        return  # lines holding a CR are other lines to a FileText
    cache.clear_all()
    ft = file_text.FileText.of(text)
    assert hunks._already_there(ft, new, old_text) == _already_there_as_before(
        lines, new, old_text
    )
