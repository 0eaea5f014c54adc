"""Lines shaped like edit markers: the classifier, and the property that makes "a block with
markers we cannot read is never written as a file" a tested mechanism rather than a list of
special cases.

The property runs the whole core (parse_reply, then plan_reply with partial application, so
every block that places changes its file) on generated replies: fenced blocks for a small
existing file mixing its own lines, new lines and marker-shaped lines of every family, at
random lengths, spellings, indentations and positions. Its oracle is written here, apart from
the classifier it checks:

* no file gains a line shaped like a SEARCH/REPLACE/EDIT marker, a merge-conflict marker or a
  lone `=======` unless the reply adds exactly that line with a diff's or V4A patch's `+`
  (which says so explicitly);
* no block placed as a whole file or a structural body holds any marker-shaped line, diff
  and V4A lines included (in a SEARCH/REPLACE section those may be a patch file's content);
* every marker-shaped line in a fence with a path lies in some block: the fence was read by
  a known format or refused, never skipped; a refusal that names a line names that text.

`HYPOTHESIS_PROFILE=long` runs it at 12,000 examples (the suite runs 300).
"""

from __future__ import annotations

import os
import re

from hypothesis import HealthCheck, event, example, given, settings
from hypothesis import strategies as st

from lsp_server.model import Format, Snapshot
from lsp_server.plan import PlanOptions, plan_reply
from lsp_server.reply import parse_reply
from lsp_server.reply.common import Fence, fence_open, find_fences, is_fence_close
from lsp_server.reply.marker_lines import (
    SECTION,
    UNMISTAKABLE,
    VERBATIM,
    MarkerKind,
    edit_marker,
    find_marker,
    is_document,
    markers_in,
)
from lsp_server.workspace import relative_path

# --- the classifier ---------------------------------------------------------------------------


def kind(line: str, *, document: bool = False, before: str = "", after: str = "") -> str | None:
    lines = [before, line, after]
    marker = edit_marker(lines, 1, document)
    return str(marker.kind) if marker is not None else None


def test_block_markers_of_any_length_and_spelling():
    for line in (
        "<<<<<<< SEARCH",
        "<<< SEARCH",
        "<<<<<<<<<<< SEARCH",
        "------- SEARCH",
        "+++++++ REPLACE",
        ">>>>>>> REPLACE",
        "<<-- SEARCH",
        "<<<<<<< SEARCH>",
        "  <<<<<<<SEARCH",
        "<<<< EDIT",
        "==== REPLACE",
        ">>>> EDIT END",
        ">>>>>  EDIT   END",
        "<<<<<<< ORIGINAL",
        ">>>>>>> UPDATED",
        "<<<<<<< search",
        "SEARCH >>>>>>",
        "=== REPLACE ===",
    ):
        assert kind(line) == "block", line


def test_ordinary_lines_are_not_markers():
    for line in (
        "x = 1",
        "",
        "---",
        "-------",
        "+++++++",
        "==========",
        "== SEARCH",
        "-- SEARCH",
        "=== Search ===",
        "# SEARCH",
        "SEARCH",
        "search the index <<< now",
        "a <<<<<<< SEARCH",
        "@@ROWCOUNT",
        "--- dashes",
        "*** bold ***",
        "<<EOF",
        ">>> print(1)",
    ):
        assert kind(line) is None, line


def test_other_families():
    assert kind("<<<<<<< HEAD") == kind(">>>>>>> feature/x") == "conflict"
    assert kind("|||||||") == kind("<<<<<<<") == "conflict"
    assert kind("=======") == kind("=====") == kind("  =========") == "divider"
    for line in ("*** Begin Patch", "*** End Patch", "*** Update File: a.py", "*** End of File"):
        assert kind(line) == "patch", line
    for line in ("diff --git a/x b/x", "@@ -1,3 +1,4 @@", "@@ ... @@", "@@", "@@ def f():"):
        assert kind(line) == "diff", line
    assert kind("--- a/x.py") == kind("+++ b/x.py") == "diff"
    # a `--- x` / `+++ y` pair is a diff header; either line alone is a comment or prose
    assert kind("--- old", after="+++ new") == kind("+++ new", before="--- old") == "diff"
    assert kind("--- old") is None and kind("+++ new") is None


def test_a_lone_divider_is_a_heading_underline_in_documents():
    assert kind("=======", document=True) is None
    assert kind("<<<<<<< SEARCH", document=True) == "block"
    assert is_document("README.md", None) and is_document("docs/a.RST", None)
    assert is_document(None, "markdown") and is_document("notes", "text")
    assert not is_document("a.py", "python") and not is_document(None, None)


def test_formats_named_for_messages():
    def fmt(line: str) -> Format:
        marker = edit_marker([line], 0)
        assert marker is not None
        return marker.format

    assert fmt("------- SEARCH") is Format.SEARCH_REPLACE
    assert fmt("==== REPLACE") is fmt("<<<< EDIT") is Format.EDIT
    assert fmt("@@ -1 +1 @@") is fmt("--- a/x") is Format.UNIFIED_DIFF
    assert fmt("@@ def f():") is fmt("*** Update File: x") is Format.APPLY_PATCH


def test_kind_sets_and_find_marker():
    assert VERBATIM == frozenset(MarkerKind)
    assert MarkerKind.DIFF not in SECTION and MarkerKind.PATCH not in SECTION
    assert UNMISTAKABLE == {MarkerKind.BLOCK, MarkerKind.PATCH}
    lines = ["x", "<<<<<<< HEAD", "y", "<<-- SEARCH"]
    first = find_marker(lines, 0, len(lines))
    assert first is not None and (first.index, first.kind) == (1, MarkerKind.CONFLICT)
    block = find_marker(lines, 0, len(lines), UNMISTAKABLE)
    assert block is not None and (block.index, block.text) == (3, "<<-- SEARCH")
    assert find_marker(lines, 0, 3, UNMISTAKABLE) is None


def test_a_long_line_is_classified_in_linear_time():
    assert kind("<" * 200_000 + " SEARCHX") is None
    assert kind("<" * 200_000 + " SEARCH") == "block"
    assert kind("=" * 200_000) is None


# --- one search over the joined lines finds what a loop over the lines finds -----------------

PIECES = st.sampled_from(
    ["```", "````", "~~~", "```python a.py", "  ```", "\u00a0```", "\x0c~~~", "`` `", "x"]
    + ["<<<<<<< SEARCH", "\t=======", "SEARCH >>>>>>>", "search >>>>", "@@", "diff --git a b"]
    + ["  ------- SEARCH", "\u2028>>>>>>> REPLACE", "", " ", "a\nb", "*** End Patch"]
)


def fences_one_by_one(lines: list[str]) -> list[Fence]:
    out: list[Fence] = []
    i = 0
    while i < len(lines):
        m = fence_open(lines[i])
        if not m:
            i += 1
            continue
        j = i + 1
        while j < len(lines) and not is_fence_close(lines[j], m.group("fence")):
            j += 1
        end = j if j < len(lines) else None
        out.append(Fence(i, end, m.group("fence"), m.group("info").strip()))
        i = j + 1
    return out


@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(PIECES, st.text(max_size=6)), max_size=30), st.data())
def test_searching_the_joined_lines_equals_a_loop_over_them(lines, data):
    assert find_fences(lines) == fences_one_by_one(lines)
    start = data.draw(st.integers(0, len(lines)))
    stop = data.draw(st.integers(start, len(lines)))
    found = [m.index for m in markers_in(lines, start, stop)]
    assert found == [k for k in range(start, stop) if edit_marker(lines, k) is not None]


# --- the first-character tests before each marker pattern ---------------------------------------


@settings(max_examples=500, deadline=None)
@given(
    st.one_of(PIECES, st.text(alphabet="<>=+-|*@ dSEARCHsearch:", max_size=12)),
    st.data(),
)
def test_a_marker_pattern_only_matches_lines_its_first_character_test_lets_through(line, data):
    """`edit_marker` runs each pattern only on lines starting with a character that pattern
    can start with (most lines of code start with none, so no pattern is compiled or run for
    them): the test must never turn away a line the pattern matches."""
    from lsp_server.reply import marker_lines

    line = data.draw(st.one_of(st.just(line), MARKERS, BLOCK_MARKERS, OTHER_MARKERS))
    s = line.strip()
    if not s:
        return
    guarded = (
        (marker_lines._block_marker(), marker_lines._BLOCK_STARTS),
        (marker_lines._conflict_marker(), marker_lines._CONFLICT_STARTS),
        (marker_lines._divider_marker(), "="),
        (marker_lines._hunk_header(), "@"),
    )
    for pattern, starts in guarded:
        if pattern.fullmatch(s):
            assert s[0] in starts, (pattern.pattern, s)
    if marker_lines._patch_header().match(s):
        assert s[0] == "*"
    for starts in (marker_lines._BLOCK_STARTS, marker_lines._CONFLICT_STARTS, "=", "@", "*"):
        assert set(starts) <= marker_lines._MARKER_STARTS


# --- the property -----------------------------------------------------------------------------

PATH = "app.cfg"
FILE = "line1\nline2\nline3\n"

# The oracle's own notion of a marker line (deliberately not the classifier's code).
_WORDS = r"(?:SEARCH|REPLACE|ORIGINAL|UPDATED|EDIT(?:\s+END)?)"
_WORD_MARKER = re.compile(rf"[<>=+\-|]{{3,}}\s*{_WORDS}.*|{_WORDS}\s*[<>=+\-|]{{3,}}", re.I)
_CONFLICT = re.compile(r"(?:<{7}|>{7}|\|{7})(?:\s.*)?")
_DIVIDER = re.compile(r"={5,9}")
_PATCHISH = re.compile(r"\*\*\* (?:Begin|End|Add|Update|Delete|Move)\b.*")
_DIFFISH = re.compile(r"(?:--- |\+\+\+ |@@|diff --git ).*|@@")


def written_marker(line: str) -> bool:
    """A line no edit may bring into a file unless a diff's `+` spells it out."""
    s = line.strip()
    return bool(_WORD_MARKER.fullmatch(s) or _CONFLICT.fullmatch(s) or _DIVIDER.fullmatch(s))


def marker_like(line: str) -> bool:
    """Any line a whole-file or structural body must not hold."""
    s = line.strip()
    return written_marker(line) or bool(_PATCHISH.fullmatch(s) or _DIFFISH.fullmatch(s))


RUNS = st.one_of(
    st.builds(lambda c, n: c * n, st.sampled_from("<>=+-"), st.integers(3, 12)),
    st.lists(st.sampled_from("<>=+-"), min_size=3, max_size=9).map("".join),
)
WORDS = st.sampled_from(["SEARCH", "REPLACE", "EDIT", "EDIT END", "UPDATED", "ORIGINAL"])
BLOCK_MARKERS = st.one_of(
    st.sampled_from(
        ["<<<<<<< SEARCH", "=======", ">>>>>>> REPLACE", "<<<< EDIT", "==== REPLACE"]
        + [">>>> EDIT END", "------- SEARCH", "+++++++ REPLACE", "<<<<<<<<<<< SEARCH"]
    ),
    st.builds(
        lambda run, sep, word, tail: f"{run}{sep}{word}{tail}",
        RUNS,
        st.sampled_from(["", " ", "  "]),
        WORDS,
        st.sampled_from(["", ">", " >>>>>>>", ":"]),
    ),
)
OTHER_MARKERS = st.one_of(
    st.builds(lambda n: "=" * n, st.integers(5, 9)),
    st.sampled_from(["<<<<<<< HEAD", ">>>>>>> main", "|||||||", "<<<<<<<"]),
    st.sampled_from(
        [f"--- a/{PATH}", f"+++ b/{PATH}", "@@ -1,3 +1,3 @@", "@@ ... @@", "@@", "@@ line1"]
        + [f"diff --git a/{PATH} b/{PATH}", "*** Begin Patch", "*** End Patch"]
        + [f"*** Update File: {PATH}", "*** Add File: new.cfg", "*** End of File"]
    ),
)
MARKERS = st.builds(
    lambda indent, text: indent + text,
    st.sampled_from(["", "", "", "  ", "\t"]),
    st.one_of(BLOCK_MARKERS, OTHER_MARKERS),
)
CODE = st.sampled_from(
    ["line1", "line2", "line3", "replaced", "value = 2", "", " line1", "-line2", "+added"]
)
HEADS = st.sampled_from(
    [f"{PATH}\n```", f"`{PATH}`:\n```ini", f"**{PATH}**\n\n~~~", f"```ini {PATH}", "```"]
)


# Well-formed blocks of every format for FILE, to be spoiled: most generated blocks are one of
# these with markers respelled or marker lines added, so that many still place.
SKELETONS = [
    ["<<<<<<< SEARCH", "line2", "=======", "replaced", ">>>>>>> REPLACE"],
    ["<<<< EDIT", "line2", "==== REPLACE", "replaced", ">>>> EDIT END"],
    [f"--- a/{PATH}", f"+++ b/{PATH}", "@@ -1,3 +1,3 @@", " line1", "-line2", "+replaced"],
    ["*** Begin Patch", f"*** Update File: {PATH}", "@@", " line1", "-line2", "+replaced"]
    + ["*** End Patch"],
    ["line1", "replaced", "line3"],
]


@st.composite
def spoiled(draw) -> list[str]:
    """A skeleton with some lines respelled as other markers and marker lines added."""
    body = list(draw(st.sampled_from(SKELETONS)))
    for k in range(len(body)):
        if draw(st.integers(0, 4)) == 0:
            body[k] = draw(MARKERS)
    for _ in range(draw(st.integers(0, 2))):
        body.insert(draw(st.integers(0, len(body))), draw(st.one_of(MARKERS, CODE)))
    return body


@st.composite
def fenced(draw) -> tuple[str, list[tuple[int, str]]]:
    """One fenced block: its text, and the 0-based (offset, line) of each marker line."""
    head = draw(HEADS)
    if draw(st.booleans()):
        body = draw(spoiled())
    else:
        body = draw(st.lists(st.one_of(CODE, MARKERS), min_size=1, max_size=10))
        body.insert(draw(st.integers(0, len(body))), draw(MARKERS))
    head_lines = head.split("\n")
    close = "~~~" if head_lines[-1] == "~~~" else "```"
    text = "\n".join([*head_lines, *body, close])
    markers = [(len(head_lines) + k, line) for k, line in enumerate(body) if marker_like(line)]
    return text, markers


@st.composite
def replies(draw) -> tuple[str, list[tuple[int, str, bool]]]:
    """A reply of one to three fenced blocks (prose between), and its marker lines as
    (0-based reply line, text, does the fence name a path)."""
    parts: list[str] = []
    markers: list[tuple[int, str, bool]] = []
    line = 0
    for _ in range(draw(st.integers(1, 3))):
        if parts:
            parts.append("Then:")
            line += 1
        text, found = draw(fenced())
        has_path = not text.startswith("```\n")
        markers += [(line + k, m, has_path) for k, m in found]
        parts.append(text)
        line += text.count("\n") + 1
    return "\n".join(parts) + "\n", markers


class Files:
    """An in-memory SnapshotSource: the plan without a disk."""

    def __init__(self, files: dict[str, str]):
        self.files = files

    def relative(self, path: str) -> str:
        return relative_path(path)

    def snapshot(self, path: str) -> Snapshot:
        rel = relative_path(path)
        return Snapshot(rel, self.files.get(rel))


EXAMPLES = 12_000 if os.environ.get("HYPOTHESIS_PROFILE") == "long" else 300
VERBATIM_FORMATS = (Format.WHOLE_FILE, Format.STRUCTURAL)


@settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(replies())
@example(
    (
        f"{PATH}\n```\n------- SEARCH\nline2\n=======\nreplaced\n+++++++ REPLACE\n```\n",
        [(2, "------- SEARCH", True), (4, "=======", True), (6, "+++++++ REPLACE", True)],
    )
)
@example(
    (
        f"{PATH}\n```\n<<<<<<<<<<< SEARCH\nline2\n=======\nreplaced\n>>>>>>> REPLACE\n```\n",
        [(2, "<<<<<<<<<<< SEARCH", True), (4, "=======", True), (6, ">>>>>>> REPLACE", True)],
    )
)
@example(
    (
        f"{PATH}\n```\n<<-- SEARCH\nline2\n=======\nreplaced\n>>>>>>> REPLACE\n```\n",
        [(2, "<<-- SEARCH", True), (4, "=======", True), (6, ">>>>>>> REPLACE", True)],
    )
)
def test_no_marker_line_is_ever_written_and_none_is_skipped(case):
    reply, markers = case
    reply_lines = reply.split("\n")
    parsed = parse_reply(reply)
    plan = plan_reply(parsed, Files({PATH: FILE}), PlanOptions(atomic=False))

    spelled_out = {line[1:] for line in reply_lines if line.startswith("+")}
    for change in plan.files:
        old = set((change.old_text or "").split("\n"))
        for line in (change.new_text or "").split("\n"):
            if line not in old and written_marker(line):
                assert line in spelled_out, (change.path, line, change.new_text)

    for outcome in plan.outcomes:
        block = outcome.block
        lo, hi = block.reply_lines
        event(f"{block.format}: {outcome.failure.code if outcome.failure else 'placed'}")
        if outcome.placed and block.format in VERBATIM_FORMATS:
            held = [x for x in reply_lines[lo - 1 : hi] if marker_like(x)]
            assert not held, (block.format, held)
        failure = outcome.failure
        if failure is not None and "text" in failure.details and "line" in failure.details:
            named = reply_lines[failure.details["line"] - 1].strip()
            assert named == failure.details["text"], failure.message

    spans = [b.reply_lines for b in parsed.blocks]
    for k, text, has_path in markers:
        unmistakable = _WORD_MARKER.fullmatch(text.strip()) or _PATCHISH.fullmatch(text.strip())
        if has_path or unmistakable:
            assert any(lo <= k + 1 <= hi for lo, hi in spans), (k + 1, text, spans)
