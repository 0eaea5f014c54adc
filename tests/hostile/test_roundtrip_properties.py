"""Round trips: for random files a and b, a reply written from a → b, in any format, turns a
into exactly b, byte for byte; the reply from b → a turns it back; the parser never raises.

Files mix CRLF and LF (one ending per file), tabs, a UTF-8 BOM, a missing final newline,
unicode, blank and whitespace-only lines, and lines that look like diff syntax. Each format
is written the way a careful model would: SEARCH/REPLACE blocks whose anchors are unique
in the text they apply to; a unified diff with exact numbers and `\\ No newline` markers;
a V4A patch whose chunks are unique after the previous one.

What a format cannot say is left out of its examples, by the format's own rules, not by
ours: a reply is "\\n"-only, so a CRLF file must already have a line ending for new lines to
take it; SEARCH/REPLACE and V4A lines always end in "\\n", so they keep the file's final
newline as it is; lines that are another format's markers (`*** Begin Patch`,
`<<<<<<< SEARCH`, Cline's `------- SEARCH`, V4A `*** ` headers, a conflict's `<<<<<<<`)
are kept out of the content: llm-patch never writes one into a file.
"""

from __future__ import annotations

import difflib
import re
import tempfile
from dataclasses import dataclass
from pathlib import Path

from hypothesis import assume, example, given, settings
from hypothesis import strategies as st

from fuzz.targets import REPLIES, check_reply
from lsp_server.lines import content, split_lines
from lsp_server.model import Hunk, PlacementError
from lsp_server.plan import plan_reply
from lsp_server.reply import parse_reply
from lsp_server.resolve.hunks import apply_hunks
from lsp_server.workspace import DiskWorkspace
from lsp_server.writer import write_plan

from .support import plan_text, result_bytes

PATH = "pkg/data_file.txt"
BOM = b"\xef\xbb\xbf"
MANY = settings.default.max_examples * 3  # the cheap properties get more examples

# --- files --------------------------------------------------------------------------------

VOCAB = [
    "def f(x):",
    "    return x",
    "\treturn x",
    "",
    "    ",
    "\t",
    "}",
    "{",
    "x = 1",
    "x = 2",
    "# comment",
    "trailing   ",
    "  indented",
    "ünïcödé ✓ 日本語",
    "😀 emoji",
    "a\tb",
    "...",
    "# ... existing code ...",
    "pass",
    "-- sql comment",
    "++ plus",
    "--- dashes",
    "+++ pluses",
    "@@ not a hunk @@",
    "\\ backslash",
    "- item",
    "+ item",
    " leading space",
    "```",
    "~~~",
    "**bold**",
    "\x0c form feed",
    "vertical\x0btab",
    "line\u2028separator",
    "next\x85line",
    '{"json": [1, 2]}',
    "=======",  # excluded below: a SEARCH/REPLACE divider
]
_MARKERS = [
    re.compile(r"<{4,9} *(SEARCH>?|EDIT)"),
    re.compile(r"={4,9}( *REPLACE)?"),
    re.compile(r">{4,9} *(REPLACE|EDIT +END)"),
    # Cline's spellings, and git's conflict markers: never written into a file (issue 13)
    re.compile(r"(-{3,}|<{3,}) *SEARCH>?"),
    re.compile(r"(\+{3,}|>{3,}) *REPLACE>?"),
    re.compile(r"(<{7}|>{7}|\|{7})([ \t].*)?"),
]


def _usable(line: str) -> bool:
    s = line.strip()
    return not s.startswith("***") and not any(p.fullmatch(s) for p in _MARKERS)


LINE = st.one_of(
    st.sampled_from(VOCAB),
    st.text(
        alphabet=st.characters(exclude_categories=("Cs",), exclude_characters="\r\n\x00"),
        max_size=10,
    ),
).filter(_usable)
LINES = st.lists(LINE, max_size=24)


@dataclass(frozen=True)
class Doc:
    """A file: line contents, one line ending, final newline or not, BOM or not."""

    lines: tuple[str, ...]
    eol: str
    final: bool
    bom: bool

    @property
    def text(self) -> str:
        if not self.lines:
            return ""
        return self.eol.join(self.lines) + (self.eol if self.final else "")

    @property
    def data(self) -> bytes:
        return (BOM if self.bom else b"") + self.text.encode("utf-8")

    @property
    def has_eol(self) -> bool:
        return len(self.lines) > 1 or (len(self.lines) == 1 and self.final)


def _canon(lines: list[str], eol: str, final: bool, bom: bool) -> Doc:
    """One spelling per text: a last empty line without a newline is the previous line's."""
    lines = list(lines)
    while lines and not final and lines[-1] == "":
        lines.pop()
        final = True
    return Doc(tuple(lines), eol, final if lines else True, bom)


@st.composite
def edited(draw, a: list[str]) -> list[str]:
    """b as a model edits a: a few ranges replaced, removed or inserted; or all new."""
    if not a or draw(st.integers(0, 9)) == 0:
        return draw(LINES)
    b = list(a)
    for _ in range(draw(st.integers(1, 3))):
        i = draw(st.integers(0, len(b)))
        j = draw(st.integers(i, min(len(b), i + 4)))
        b[i:j] = draw(st.lists(LINE, max_size=4))
    return b


@st.composite
def doc_pairs(draw, keep_final: bool = False):
    """(a, b) sharing line ending and BOM. `keep_final`: b keeps a's final newline (the
    formats that cannot change it); a CRLF file always has a line ending to copy."""
    a_lines = draw(LINES)
    b_lines = draw(edited(a_lines))
    bom = draw(st.booleans())
    final_a = draw(st.booleans())
    final_b = final_a if keep_final else draw(st.booleans())
    eol = draw(st.sampled_from(["\n", "\r\n"]))
    a = _canon(a_lines, eol, final_a, bom)
    b = _canon(b_lines, eol, final_b, bom)
    if eol == "\r\n" and not (a.has_eol and (b.has_eol or not b.lines)):
        a, b = (_canon(a_lines, "\n", final_a, bom), _canon(b_lines, "\n", final_b, bom))
    return a, b


# --- writing replies ------------------------------------------------------------------------


def _occurrences(cur: list[str], old: list[str], start: int = 0) -> list[int]:
    n = len(old)
    return [p for p in range(start, len(cur) - n + 1) if cur[p : p + n] == old]


def _widen(cur: list[str], s: int, e: int, floor: int, ok) -> tuple[int, int] | None:
    """Grow [s, e) a line at a time (up, then down, alternately; never above `floor`) until
    `ok(s, e)`; None when even the whole text from `floor` is not enough."""
    up = True
    while not ok(s, e):
        if s <= floor and e >= len(cur):
            return None
        if (up and s > floor) or e >= len(cur):
            s -= 1
        else:
            e += 1
        up = not up
    return s, e


def _groups(a: list[str], b: list[str], ctx: int):
    sm = difflib.SequenceMatcher(None, a, b, autojunk=False)
    for group in sm.get_grouped_opcodes(ctx):
        yield group[0][1], group[-1][2], group[0][3], group[-1][4]


def search_replace_reply(a: Doc, b: Doc, ctx: int) -> str | None:
    """SEARCH/REPLACE blocks a → b, applied in order, each anchor unique in the text it
    applies to (so each must match exactly one place). None when the format cannot say it."""
    if a.final != b.final and a.lines and b.lines:
        return None
    cur = list(a.lines)
    if not cur:  # an empty SEARCH creates (or fills an empty) file; the text ends in "\n"
        if b.lines and not b.final:
            return None
        return _sr_block([], list(b.lines))
    out = []
    off = 0
    for i1, i2, j1, j2 in _groups(list(a.lines), list(b.lines), ctx):
        s, e = i1 + off, i2 + off

        def ok(lo: int, hi: int) -> bool:
            old = cur[lo:hi]
            return any(x.strip() for x in old) and len(_occurrences(cur, old)) == 1

        span = _widen(cur, s, e, 0, ok)
        if span is None:
            return None  # only blank lines to anchor on: an empty SEARCH means "create"
        lo, hi = span
        new = cur[lo:s] + list(b.lines[j1:j2]) + cur[e:hi]
        out.append(_sr_block(cur[lo:hi], new))
        cur[lo:hi] = new
        off += (j2 - j1) - (i2 - i1)
    return "Here are the changes.\n\n" + "\n".join(out)


def _sr_block(old: list[str], new: list[str]) -> str:
    body = "".join(x + "\n" for x in old) + "=======\n" + "".join(x + "\n" for x in new)
    return f"{PATH}\n```\n<<<<<<< SEARCH\n{body}>>>>>>> REPLACE\n```\n"


def unified_diff_reply(a: Doc, b: Doc, ctx: int, fenced: bool) -> str:
    """A unified diff a → b as `diff -u` writes it, `\\ No newline at end of file` included."""

    def tokens(d: Doc) -> list[tuple[str, bool]]:
        return [(x, k < len(d.lines) - 1 or d.final) for k, x in enumerate(d.lines)]

    ta, tb = tokens(a), tokens(b)
    out = [f"--- a/{PATH}", f"+++ b/{PATH}"]

    def emit(prefix: str, tok: tuple[str, bool]) -> None:
        out.append(prefix + tok[0])
        if not tok[1]:
            out.append("\\ No newline at end of file")

    sm = difflib.SequenceMatcher(None, ta, tb, autojunk=False)
    for group in sm.get_grouped_opcodes(ctx):
        i1, i2, j1, j2 = group[0][1], group[-1][2], group[0][3], group[-1][4]
        old_start = i1 + 1 if i2 > i1 else i1
        new_start = j1 + 1 if j2 > j1 else j1
        out.append(f"@@ -{old_start},{i2 - i1} +{new_start},{j2 - j1} @@")
        for tag, p1, p2, q1, q2 in group:
            if tag == "equal":
                for tok in ta[p1:p2]:
                    emit(" ", tok)
                continue
            for tok in ta[p1:p2]:
                emit("-", tok)
            for tok in tb[q1:q2]:
                emit("+", tok)
    text = "\n".join(out) + "\n"
    return f"Patch:\n\n```diff\n{text}```\n" if fenced else text


def v4a_reply(a: Doc, b: Doc, ctx: int) -> str | None:
    """A V4A patch a → b: chunks in order, each unique at or after where the last one ended
    (a change with no room left after the previous chunk joins that chunk)."""
    if a.final != b.final and a.lines and b.lines:
        return None
    if not a.lines:
        if b.lines and not b.final:
            return None
        body = "@@\n" + "".join(f"+{x}\n" for x in b.lines)
        return f"*** Begin Patch\n*** Update File: {PATH}\n{body}*** End Patch\n"
    groups = list(_groups(list(a.lines), list(b.lines), ctx))
    cur = list(a.lines)
    chunks: list[str] = []
    saved: list[tuple[list[str], int, int]] = []
    cursor, off, k = 0, 0, 0
    while k < len(groups):
        i1, i2, j1, j2 = groups[k]
        s, e = i1 + off, i2 + off

        def ok(lo: int, hi: int, floor: int = cursor, text: list[str] = cur) -> bool:
            old = text[lo:hi]
            return bool(old) and _occurrences(text, old, floor) == [lo]

        span = _widen(cur, s, e, cursor, ok)
        if span is None:  # k > 0: from the start, the whole text is unique
            cur, cursor, off = saved.pop()
            chunks.pop()
            groups[k - 1 : k + 1] = [(groups[k - 1][0], i2, groups[k - 1][2], j2)]
            k -= 1
            continue
        saved.append((list(cur), cursor, off))
        lo, hi = span
        new = list(b.lines[j1:j2])
        lines = [f" {x}" for x in cur[lo:s]]
        lines += [f"-{x}" for x in cur[s:e]] + [f"+{x}" for x in new]
        lines += [f" {x}" for x in cur[e:hi]]
        chunks.append("@@\n" + "".join(x + "\n" for x in lines))
        full = cur[lo:s] + new + cur[e:hi]
        cur[lo:hi] = full
        cursor = lo + len(full)
        off += (j2 - j1) - (i2 - i1)
        k += 1
    return f"*** Begin Patch\n*** Update File: {PATH}\n{''.join(chunks)}*** End Patch\n"


def replies(a: Doc, b: Doc, ctx: int, fenced: bool) -> dict[str, str]:
    out = {"unified-diff": unified_diff_reply(a, b, ctx, fenced)}
    sr = search_replace_reply(a, b, ctx)
    if sr is not None:
        out["search-replace"] = sr
    v = v4a_reply(a, b, ctx)
    if v is not None:
        out["v4a"] = v
    return out


def _twin_insertion(a: Doc, b: Doc) -> bool:
    """b adds lines next to a copy of themselves in a (`x` after `x`): a reply doing that
    reads as one already applied (see lsp_server/resolve/applied.py), by design."""
    ops = difflib.SequenceMatcher(None, a.lines, b.lines, autojunk=False).get_opcodes()
    for tag, i1, i2, j1, j2 in ops:
        if tag in ("insert", "replace"):
            grown = list(b.lines[j1:j2])
            for k in range(len(grown)):
                piece = grown[k:]
                if a.lines[i2 : i2 + len(piece)] == tuple(piece) or (
                    a.lines[max(0, i1 - len(grown[: k + 1])) : i1] == tuple(grown[: k + 1])
                ):
                    return True
    return False


def _apply(reply: str, data: bytes) -> bytes:
    plan = plan_text(reply, {PATH: data})
    assert plan.ok, [(o.block.format, o.failure) for o in plan.outcomes if o.failure]
    return result_bytes(plan, {PATH: data})[PATH]


# --- properties -----------------------------------------------------------------------------


@settings(max_examples=MANY)
@given(pair=doc_pairs(), ctx=st.integers(0, 3), fenced=st.booleans())
@example(  # a CRLF file without a final newline, its last line changed
    pair=(Doc(("a", "b"), "\r\n", False, False), Doc(("a", "c"), "\r\n", False, False)),
    ctx=1,
    fenced=False,
)
@example(  # a BOM, tabs, unicode; the final newline added by the diff
    pair=(Doc(("\tx", "ü"), "\n", False, True), Doc(("\tx", "ü", "z"), "\n", True, True)),
    ctx=3,
    fenced=True,
)
@example(  # a removed "-- x" next to an added "++ y": `--- x` / `+++ y` inside a hunk
    pair=(Doc(("k", "-- x", "k2"), "\n", True, False), Doc(("k", "++ y", "k2"), "\n", True, False)),
    ctx=1,
    fenced=False,
)
@example(  # CRLF: an earlier block leaves one unterminated line; new lines stay CRLF
    pair=(
        Doc(("def f(x):",) * 4 + ("    return x",), "\r\n", False, False),
        Doc(("    return x", "    return x"), "\r\n", False, False),
    ),
    ctx=0,
    fenced=False,
)
@example(  # lines added at the end with `\ No newline at end of file`, to an empty file
    pair=(Doc((), "\n", True, False), Doc(("def f(x):",), "\n", False, False)),
    ctx=0,
    fenced=False,
)
@example(  # the last lines removed from a file without a final newline
    pair=(Doc(("x", "y"), "\n", False, False), Doc(("x",), "\n", False, False)),
    ctx=0,
    fenced=False,
)
@example(  # a Markdown fence as a context line, then a `--- ` line: not an indented diff
    pair=(
        Doc(("```", "--- dashes"), "\n", True, False),
        Doc(("```", "--- dashes", "--- dashes"), "\n", False, False),
    ),
    ctx=3,
    fenced=False,
)
def test_every_format_turns_a_into_b_byte_for_byte(pair, ctx, fenced):
    a, b = pair
    if a.data == b.data or _twin_insertion(a, b):
        return  # nothing to say: every format needs a change (a twin reads as applied)
    for fmt, reply in replies(a, b, ctx, fenced).items():
        got = _apply(reply, a.data)
        assert got == b.data, (fmt, reply)


@given(pair=doc_pairs(), ctx=st.integers(0, 3))
def test_a_reply_then_its_inverse_gives_back_a(pair, ctx):
    a, b = pair
    assume(a.data != b.data)
    assume(b.eol == "\n" or b.has_eol)
    assume(not _twin_insertion(a, b) and not _twin_insertion(b, a))
    forward, back = replies(a, b, ctx, False), replies(b, a, ctx, False)
    for fmt in forward.keys() & back.keys():
        mid = _apply(forward[fmt], a.data)
        assert _apply(back[fmt], mid) == a.data, fmt


@settings(max_examples=max(20, settings.default.max_examples // 3))
@given(
    pair=doc_pairs(keep_final=True),
    ctx=st.integers(0, 3),
    fmt=st.sampled_from(["unified-diff", "search-replace", "v4a"]),
)
def test_through_the_writer_the_disk_holds_exactly_b(pair, ctx, fmt):
    a, b = pair
    assume(a.data != b.data)
    reply = replies(a, b, ctx, True).get(fmt)
    assume(reply is not None)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        target = root / PATH
        target.parent.mkdir()
        target.write_bytes(a.data)
        ws = DiskWorkspace(root)
        plan = plan_reply(parse_reply(reply), ws)
        assert plan.ok
        write_plan(plan, ws)
        assert target.read_bytes() == b.data
        assert sorted(p.name for p in target.parent.iterdir()) == [target.name]  # no temp left


def test_the_round_trip_covers_what_it_claims():
    """The generators are not vacuous: each format writes the tricky cases it can say."""
    a = Doc(("x", "  y", "\tz"), "\r\n", False, True)
    b = Doc(("x", "  y2", "\tz", "ü"), "\r\n", False, True)
    out = replies(a, b, 1, False)
    assert set(out) == {"unified-diff", "search-replace", "v4a"}
    for reply in out.values():
        assert _apply(reply, a.data) == b.data
    assert "\\ No newline at end of file" in out["unified-diff"]
    changed_final = Doc(b.lines, b.eol, True, b.bom)
    assert set(replies(a, changed_final, 1, False)) == {"unified-diff"}


# --- the parser and the planner never raise ------------------------------------------------


@settings(max_examples=MANY * 3)
@given(text=REPLIES)
def test_any_reply_gets_a_plan_never_an_exception(text):
    """The reply fuzz target (fuzz/fuzz_reply.py) for a CI-sized run: parse, plan atomic and
    partial, print the report, and turn every change into LSP edits that reproduce it."""
    check_reply(text)


# --- placement stays inside the span it reports ---------------------------------------------


@st.composite
def hunk_cases(draw):
    """A text, and a hunk whose anchor is taken from it, maybe loosened (indent, trailing
    spaces, a typo) so that every rung of the ladder gets exercised."""
    eol = draw(st.sampled_from(["\n", "\r\n"]))
    lines = draw(st.lists(LINE, min_size=1, max_size=30))
    text = eol.join(lines) + (eol if draw(st.booleans()) else "")
    i = draw(st.integers(0, len(lines) - 1))
    j = draw(st.integers(i + 1, min(len(lines), i + 6)))
    old = lines[i:j]
    how = draw(st.sampled_from(["exact", "indent", "trailing", "typo", "elide"]))
    if how == "indent":
        old = ["  " + x if x.strip() else x for x in old]
    elif how == "trailing":
        old = [x + "  " for x in old]
    elif how == "typo" and old[0]:
        old = [old[0][:-1] + "#"] + old[1:]
    elif how == "elide" and len(old) > 2:
        old = [old[0], "...", old[-1]]
    new = draw(st.lists(LINE, max_size=5))
    hunk = Hunk("".join(x + "\n" for x in old), "".join(x + "\n" for x in new))
    return text, hunk


@settings(max_examples=MANY)
@given(case=hunk_cases())
def test_placement_never_edits_outside_the_span_it_reports(case):
    text, hunk = case
    try:
        result = apply_hunks(text, [hunk])
    except PlacementError:
        return  # refusing is always allowed
    if not result.placements:  # the new text is there already: nothing may change
        assert result.already_applied and result.text == text
        return
    (p,) = result.placements
    before = split_lines(text)
    k = p.start_line
    if p.end_line == len(before) and k > 0:
        # at the end of the file the line before the span may change its ending (so that the
        # file keeps, or keeps lacking, its final newline), never its text
        k -= 1
        head = "".join(before[:k]) + content(before[k])
    else:
        head = "".join(before[:k])
    tail = "".join(before[p.end_line :])
    assert result.text.startswith(head)
    assert result.text.endswith(tail)
    assert len(result.text) >= len(head) + len(tail)


def test_patches_of_a_markdown_file_with_code_fences():
    """Context lines ` ```sh` look like an indented fence; dedenting the lines after them
    used to break V4A patches and bare diffs of Markdown files."""
    a = Doc(("Intro", "```sh", "make", "make test", "```", "tail"), "\n", True, False)
    b = Doc(("Intro", "```sh", "make", "make check", "```", "end"), "\n", True, False)
    for ctx in (1, 3):
        for fmt, reply in replies(a, b, ctx, fenced=False).items():
            assert _apply(reply, a.data) == b.data, (fmt, ctx)
