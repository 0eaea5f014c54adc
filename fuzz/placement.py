"""The placement target: a block taken from a file, written wrong the ways replies are, and
an oracle for every block the engine reports as placed.

A case is a generated file (four-space, two-space or tab indentation; LF or CRLF; some
trailing blanks and blank lines), a region of it, a true edit of that region (lines added,
one replaced or one deleted; new lines in the file's style), and the reply's copy of the
edit's old and new text, perturbed the way models and web pages perturb it: indentation
drifted uniformly (deeper, or the outer indent dropped) or on one line, tabs for spaces,
trailing blanks, runs of spaces, Unicode spaces, zero-width characters, one slipped line,
typographic punctuation, an extra or a missing blank line.

`check_case` applies the block and, when the engine places it, checks what "placed right"
means, with its own simple computation (nothing from the engine's helpers):

* nothing outside the reported region changed;
* the lines the block keeps (equal in its old and new text) are the file's lines, byte for
  byte, in the file's order, and they are the lines the reply's quote was taken from;
* file lines the reply does not show stay as they were;
* the lines it adds carry the block's text, the file's indentation characters (past the
  exact rung: an exact quote's new lines are written as given, so that a diff which
  re-indents a line on purpose is honoured), and the same indentation relative to the line
  above them as in the reply (scaled only when the quoted lines show the reply writes a
  standard unit the file writes at twice or half the width);
* line endings are the file's, and no Unicode space or zero-width character gets written.

A refusal is always allowed. Shared by `fuzz/fuzz_placement.py` (long runs) and
`tests/resolve/test_placement_property.py` (a few hundred examples in the suite).
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field

from hypothesis import assume
from hypothesis import strategies as st

from lsp_server.model import Hunk, MatchKind, PlacementError
from lsp_server.resolve.hunks import apply_hunks

TAB = 4
ODD_SPACES = ["\u00a0", "\u2002", "\u2003", "\u2009", "\u202f", "\u3000"]
ZERO_WIDTH = ["\u200b", "\ufeff"]
PERTURBATIONS = [
    "drift",
    "dedent",
    "jitter",
    "tabs",
    "trailing",
    "inner",
    "unicode",
    "zero_width",
    "slip",
    "extra_blank",
    "missing_blank",
    "punctuation",
]
_TYPO = {"'": "\u2019", '"': "\u201c", " - ": " \u2014 ", "...": "\u2026"}


@dataclass
class Case:
    """A file, the reply's block, and where each of the block's lines came from."""

    text: str
    eol: str
    style: str  # "    ", "  " or "\t"
    old: list[str]  # the reply's SEARCH lines
    old_rows: list[int | None]  # the file line each stands for (None: the reply added it)
    new: list[str]  # the reply's REPLACE lines
    new_from: list[int | None]  # for a line copied from the SEARCH: its index there
    applied: list[str] = field(default_factory=list)  # the perturbations, for the report
    # the REPLACE lines before the perturbations: the file's spelling with the reply's
    # change; what a fuzzy placement writes for a line it rewrites (item 7, issue 22)
    intended: list[str] = field(default_factory=list)

    def hunk(self) -> Hunk:
        return Hunk("".join(x + "\n" for x in self.old), "".join(x + "\n" for x in self.new))


# --- generating ------------------------------------------------------------------------------

_NAMES = ["total", "value", "count", "item", "result", "x", "y"]
_CALLS = ["compute", "helper", "log", "update", "check"]


@st.composite
def _statement(draw) -> str:
    kind = draw(st.integers(0, 9))
    name = draw(st.sampled_from(_NAMES))
    num = draw(st.integers(0, 12))
    call = draw(st.sampled_from(_CALLS))
    if kind <= 4:
        return f"{name} = {call}({name}, {num})"
    if kind == 5:
        return f"if {name} > {num}:"
    if kind == 6:
        return draw(st.sampled_from(["return x", "}", "pass", "else:"]))
    if kind == 7:
        return f'say("it\'s {name} - {num}...")'
    if kind == 8:
        return f"say(\u201cit\u2019s {name} \u2014 {num}\u2026\u201d)"
    return f"def {call}_{num}({name}):"


@st.composite
def cases(draw) -> Case:
    style = draw(st.sampled_from(["    ", "  ", "\t"]))
    eol = draw(st.sampled_from(["\n", "\r\n"]))
    size = draw(st.integers(4, 24))
    depths: list[int] = []
    lines: list[str] = []
    depth = 0
    for _ in range(size):
        depth = max(0, min(4, depth + draw(st.sampled_from([-1, 0, 0, 1]))))
        roll = draw(st.integers(0, 19))
        if roll == 0:
            lines.append("")
        elif roll == 1:
            lines.append(style * depth)  # a blank line holding indentation
        else:
            body = draw(_statement())
            tail = draw(st.sampled_from(["  ", "\t"])) if roll == 2 else ""
            lines.append(style * depth + body + tail)
        depths.append(depth)
    final = draw(st.booleans())
    if not lines[-1]:
        lines[-1] = "end()"  # an empty last line without an ending is no line at all
    text = eol.join(lines) + (eol if final else "")

    start = draw(st.integers(0, size - 1))
    end = draw(st.integers(start + 1, min(size, start + 8)))
    rows = list(range(start, end))
    if not any(lines[r].strip() for r in rows):
        lines_ok = [r for r in range(size) if lines[r].strip()]
        if not lines_ok:
            lines[0] = "x = 0"
            text = eol.join(lines) + (eol if final else "")
            lines_ok = [0]
        start = end = lines_ok[0]
        end += 1
        rows = [start]

    # A block whose own lines repeat (two equal lines, two empty lines in a row) can be
    # read more than one way: which copy the reply keeps, where its extra empty line goes.
    # Each reading is a right placement, but the oracle below checks against the one the
    # block was made from, so such blocks are not generated (files still repeat lines
    # elsewhere, which is what tests the engine's ambiguity refusals).
    quoted = [lines[r].strip() for r in rows]
    filled = [q for q in quoted if q]
    assume(len(set(filled)) == len(filled))
    assume(all(a or b for a, b in zip(quoted, quoted[1:], strict=False)))

    # the true edit, as (text, SEARCH index or None)
    new: list[tuple[str, int | None]] = [(lines[r], k) for k, r in enumerate(rows)]
    serial = iter(range(1000))

    def fresh(depth: int) -> str:
        return style * max(0, depth) + f"added_{next(serial)}({draw(st.integers(0, 9))})"

    op = draw(st.sampled_from(["insert", "insert", "replace", "delete"]))
    body = [k for k, r in enumerate(rows) if lines[r].strip()]
    if op == "replace":
        k = draw(st.sampled_from(body))
        new[k] = (fresh(depths[rows[k]]), None)
    elif op == "delete" and len(rows) > 1:
        k = draw(st.integers(0, len(rows) - 1))
        if sum(1 for r in rows if lines[r].strip() == lines[rows[k]].strip()) == 1:
            del new[k]
    else:
        at = draw(st.integers(0, len(rows)))
        above = [rows[k] for k in body if k < at]
        ref = depths[above[-1]] if above else depths[rows[body[0]]]
        depth = ref + draw(st.sampled_from([0, 1] + ([-1] if ref else [])))
        added = []
        for _ in range(draw(st.integers(1, 3))):
            added.append((fresh(depth), None))
            depth = max(0, depth + draw(st.sampled_from([0, 0, 1, -1])))
        new[at:at] = added

    case = Case(
        text,
        eol,
        style,
        [lines[r] for r in rows],
        list(rows),
        [t for t, _ in new],
        [k for _, k in new],
    )
    case.intended = list(case.new)
    for name in draw(st.lists(st.sampled_from(PERTURBATIONS), max_size=3, unique=True)):
        _perturb(draw, case, name, lines)
    if not any(x.strip() for x in case.old):
        case.old[0] = "x"  # keep a block that quotes something (it will not place)
    return case


def _lead(line: str) -> str:
    return line[: len(line) - len(line.lstrip(" \t" + "".join(ODD_SPACES)))]


def _both(case: Case, k: int, fn) -> None:
    """Apply `fn` to SEARCH line k and to its copy in the REPLACE (when it has one)."""
    case.old[k] = fn(case.old[k])
    for j, src in enumerate(case.new_from):
        if src == k:
            case.new[j] = fn(case.new[j])


def _alone(case: Case, k: int, fn) -> None:
    """Apply `fn` to SEARCH line k only (the REPLACE's copy stays as the file has it),
    unless the changed line would equal another line of the block: the block would then
    read another way (see `cases`)."""
    line = fn(case.old[k])
    if line not in case.new and line not in case.old:
        case.old[k] = line


def _all(case: Case, fn) -> None:
    case.old = [fn(x) for x in case.old]
    case.new = [fn(x) for x in case.new]


def _perturb(draw, case: Case, name: str, file_lines: list[str]) -> None:
    case.applied.append(name)
    body = [k for k, x in enumerate(case.old) if x.strip()]
    if name == "drift":
        if case.style == "\t":
            pad = "\t" * draw(st.integers(1, 2))
        else:
            pad = " " * draw(st.integers(1, 8))
        _all(case, lambda x: pad + x if x.strip() else x)
    elif name == "dedent":
        leads = [_lead(x) for x in case.old + case.new if x.strip()]
        common = leads[0] if leads else ""
        for lead in leads:
            while not lead.startswith(common):
                common = common[:-1]
        if common:
            _all(case, lambda x: x[len(common) :] if x.strip() else x)
    elif name == "jitter" and body:
        k = draw(st.sampled_from(body))

        def jitter(x: str) -> str:
            if x.startswith("\t"):
                return draw(st.sampled_from(["   ", "     "])) + x[1:]
            if x.startswith(" ") and draw(st.booleans()):
                return x[1:]
            return " " + x

        if draw(st.booleans()):
            _both(case, k, jitter)
        else:
            _alone(case, k, jitter)
    elif name == "tabs" and case.style != "  ":
        if case.style == "\t":
            _all(case, lambda x: _lead(x).replace("\t", "    ") + x[len(_lead(x)) :])
        else:
            _all(case, lambda x: _lead(x).replace("    ", "\t") + x[len(_lead(x)) :])
    elif name == "trailing":
        for k in range(len(case.old)):
            if draw(st.booleans()):
                pad = draw(st.sampled_from(["  ", "\t", " "]))
                _both(case, k, lambda x, pad=pad: x.rstrip() if x != x.rstrip() else x + pad)
    elif name == "inner":
        for k in body:
            inner = case.old[k].strip()
            if " " in inner and draw(st.booleans()):
                wide = draw(st.sampled_from(["  ", "   "]))
                _both(case, k, lambda x, w=wide: _lead(x) + x.lstrip().replace(" ", w, 1))
    elif name == "unicode":
        space = draw(st.sampled_from(ODD_SPACES))

        def odd(x: str) -> str:
            lead = _lead(x)
            cols = 0
            for ch in lead:
                cols = (cols // TAB + 1) * TAB if ch == "\t" else cols + 1
            return space * cols + x[len(lead) :]

        _all(case, odd)
    elif name == "zero_width" and body:
        mark = draw(st.sampled_from(ZERO_WIDTH))
        k = draw(st.sampled_from(body))
        cut = draw(st.integers(1, max(1, len(case.old[k].strip()))))
        _both(case, k, lambda x: _lead(x) + x.lstrip()[:cut] + mark + x.lstrip()[cut:])
    elif name == "slip" and body:
        k = draw(st.sampled_from(body))

        def slip(x: str) -> str:
            for i in range(len(x) - 1, -1, -1):
                if x[i].isdigit():
                    return x[:i] + str((int(x[i]) + 3) % 10) + x[i + 1 :]
            return x + "s" if x.rstrip() == x else x

        if draw(st.booleans()):
            _both(case, k, slip)
        else:
            _alone(case, k, slip)
    elif name == "extra_blank":
        at = draw(st.integers(0, len(case.old)))
        if any(0 <= k < len(case.old) and not case.old[k].strip() for k in (at - 1, at)):
            return  # next to an empty line: two in a row (see `cases`)
        rows = [r for r in case.old_rows if r is not None]
        # at an edge only where the file's neighbouring line is not blank itself: a blank
        # there would make the extra line a true quote of the file
        if at == 0 and rows and rows[0] > 0 and not file_lines[rows[0] - 1].strip():
            return
        if at == len(case.old) and rows and rows[-1] + 1 < len(file_lines):
            if not file_lines[rows[-1] + 1].strip():
                return
        if 0 < at < len(case.old):
            r1, r2 = case.old_rows[at - 1], case.old_rows[at]
            if r1 is not None and r2 is not None and r2 - r1 > 1:
                return  # the quote skips file lines here, an empty one perhaps: no extra
        where = _new_position(case, at)
        case.old.insert(at, "")
        case.old_rows.insert(at, None)
        case.new_from = [k + 1 if k is not None and k >= at else k for k in case.new_from]
        if where is not None:
            case.new.insert(where, "")
            case.new_from.insert(where, at)
            if len(case.intended) + 1 == len(case.new):
                case.intended.insert(where, "")
    elif name == "missing_blank":
        blanks = [k for k, x in enumerate(case.old) if not x.strip() and len(case.old) > 1]
        if blanks:
            k = draw(st.sampled_from(blanks))
            for j in [j for j, src in enumerate(case.new_from) if src == k][::-1]:
                del case.new[j]
                del case.new_from[j]
                if len(case.intended) == len(case.new) + 1:
                    del case.intended[j]
            del case.old[k]
            del case.old_rows[k]
            case.new_from = [s - 1 if s is not None and s > k else s for s in case.new_from]
    elif name == "punctuation":
        for k in body:
            x = case.old[k]
            if any(a in x for a in _TYPO) or any(b in x for b in _TYPO.values()):

                def swap(x: str) -> str:
                    for a, b in _TYPO.items():
                        x = x.replace(b, "\0").replace(a, b).replace("\0", a)
                    return x.replace("\u201d", '"')

                _both(case, k, swap)


def _new_position(case: Case, at: int) -> int | None:
    """Where a line put before SEARCH line `at` goes in the REPLACE: before the copy of
    line `at`, else after the copy of line `at - 1`; None when neither has a copy."""
    for j, src in enumerate(case.new_from):
        if src == at:
            return j
    for j, src in enumerate(case.new_from):
        if src == at - 1:
            return j + 1
    return None


# --- checking --------------------------------------------------------------------------------


def _split(text: str) -> list[str]:
    out, at = [], 0
    while at < len(text):
        nl = text.find("\n", at)
        if nl < 0:
            out.append(text[at:])
            break
        out.append(text[at : nl + 1])
        at = nl + 1
    return out


def _content(line: str) -> str:
    return line[:-2] if line.endswith("\r\n") else line[:-1] if line.endswith("\n") else line


def _width(line: str) -> int:
    cols = 0
    for ch in line:
        if ch == "\t":
            cols = (cols // TAB + 1) * TAB
        elif ch == " " or ch in ODD_SPACES:
            cols += 1
        else:
            break
    return cols


def _body(line: str) -> str:
    return line.lstrip(" \t" + "".join(ODD_SPACES))


def _plain(line: str) -> str:
    """A line without any white space or zero-width character, punctuation in ASCII."""
    for a, b in _TYPO.items():
        line = line.replace(b, a)
    line = line.replace("\u201d", '"')
    return "".join(ch for ch in line if not ch.isspace() and ch not in ZERO_WIDTH)


def _likeness(old: list[str], rows: list[int | None], before: list[str]) -> float:
    """How well the quote reads as the file lines `rows`: the mean over its lines of 1 for
    two empty lines, 0 for an empty line against a filled one, else difflib's ratio of the
    two lines without white space or typographic punctuation."""
    total = 0.0
    for o, r in zip(old, rows, strict=True):
        there = before[r] if r is not None else ""
        if not o.strip() or not there.strip():
            total += 1.0 if not o.strip() and not there.strip() else 0.0
        else:
            total += difflib.SequenceMatcher(None, _plain(o), _plain(there)).ratio()
    return total / len(old)


def _check_loose(case: Case, region: list[str], file_region: list[str]) -> None:
    """The region holds the block's new lines in order (their text, whatever their
    indentation) and otherwise file lines of the region, byte for byte, in order."""
    def text(line: str) -> str:
        return "".join(ch for ch in _body(line) if ch not in ZERO_WIDTH)

    copies = {j for j, k in enumerate(case.new_from) if k is not None}
    added = [
        text(x)
        for j, x in enumerate(case.new)
        if x.strip() and (j not in copies or case.new[j] != case.old[case.new_from[j]])
    ]
    at = 0
    for line in region:
        if added and text(line) == added[0]:
            added.pop(0)
            continue
        while at < len(file_region) and file_region[at] != line:
            at += 1
        assert at < len(file_region) or not line.strip(), f"{line!r} is neither new nor the file's"
        at += 1
    assert not added, f"new lines missing: {added}"


def _elsewhere(
    old: list[str], rows: list[int | None], before: list[str], a: int, b: int
) -> list[int | None]:
    """The quote's lines as the lines [a, b) it was placed on (all of them, or all but some
    of its empty first and last lines), when that reads at least as well as where it came
    from."""
    body = [k for k, o in enumerate(old) if o.strip()] or [0]
    lead, trail = body[0], len(old) - 1 - body[-1]
    readings: list[list[int | None]] = [
        [None] * k + list(range(a, b)) + [None] * m
        for k in range(lead + 1)
        for m in range(trail + 1)
        if len(old) - k - m == b - a
    ]
    want = _likeness(old, rows, before)
    for reading in readings:
        if _likeness(old, reading, before) >= want - 1e-9:
            return reading
    raise AssertionError(f"placed at lines {a}-{b}, where the quote reads worse than at {rows}")


def _scale(old: list[str], rows: list[int | None], before: list[str]) -> set[float]:
    """The factors by which the reply's relative indentation may turn into the file's: 1,
    or a standard unit change (2 or 1/2) that every quoted line agrees with."""
    pairs = [
        (_width(o), _width(before[r]))
        for o, r in zip(old, rows, strict=True)
        if r is not None and o.strip() and before[r].strip()
    ]
    if len({f - o for o, f in pairs}) <= 1:
        return {1.0}
    ob, fb = min(o for o, _ in pairs), min(f for _, f in pairs)
    ratios = {(f - fb) / (o - ob) for o, f in pairs if o != ob}
    if len(ratios) == 1 and ratios & {2.0, 0.5} and all((o == ob) == (f == fb) for o, f in pairs):
        return {1.0, ratios.pop()}
    return {1.0}


def check_case(case: Case) -> str:
    """Apply the case's block; "refused", "placed" or "already"; AssertionError when a
    placement breaks a rule (see the module's docstring)."""
    try:
        result = apply_hunks(case.text, [case.hunk()])
    except PlacementError:
        return "refused"
    if not result.placements:
        assert result.text == case.text, "an already-applied block changed the file"
        return "already"
    (p,) = result.placements
    before, after = _split(case.text), _split(result.text)
    bc, ac = [_content(x) for x in before], [_content(x) for x in after]
    a, b, c = p.start_line, p.end_line, p.new_end_line
    assert c is not None
    # an empty line left last in a file without a final newline is no line at all
    vanished = b == len(bc) and not case.text.endswith(case.eol) and a and not bc[a - 1].strip()
    assert ac[:a] == bc[:a] or (vanished and ac == bc[: a - 1]), "a line before the region changed"
    assert ac[c:] == bc[b:], "a line after the region changed"
    for line in after[:-1]:
        assert line.endswith(case.eol) and not line.endswith("\r" + case.eol), "line ending"
    # an empty last line keeps its ending, or it would be no line at all
    blank_end = (
        vanished
        or (ac and not ac[-1].strip())
        or (b == len(before) and case.new and not case.new[-1].strip())
    )
    if not blank_end:
        assert result.text.endswith(case.eol) == case.text.endswith(case.eol), "final newline"

    old_rows: list[int | None] = list(case.old_rows)
    there = [r for r in old_rows if r is not None]
    if there and (there[0] < a or there[-1] >= b):
        # placed elsewhere: right only where the quote reads as those lines at least as
        # well as the lines it came from (a file repeats lines, and a slip or an extra empty
        # line can make another copy the closer one)
        _elsewhere(case.old, old_rows, bc, a, b)
        # which of the quote's repeated lines the block keeps is then the engine's reading,
        # not the one it was made from: only the file's lines and the new lines are checked
        _check_loose(case, ac[a:c], bc[a:b])
        return "placed"
    kept: dict[int, int] = {}  # REPLACE line -> the file line it keeps
    dropped: set[int] = set()  # file lines the block changes or deletes
    for k, r in enumerate(old_rows):
        if r is None:
            continue
        copies = [j for j, src in enumerate(case.new_from) if src == k]
        same = [j for j in copies if case.new[j] == case.old[k]]
        if same:
            kept[same[0]] = r
        else:
            dropped.add(r)
    for r in dropped:
        assert a <= r < b, f"file line {r} the block changes is outside the region {a}-{b}"
    # a kept line may lie outside the region (an empty line the block quotes where the
    # region begins): it is then unchanged, and the walk below starts there
    lo = min([a, *kept.values()])
    hi = max([b, *(r + 1 for r in kept.values())])
    unshown = sorted(set(range(lo, hi)) - set(kept.values()) - dropped)

    tabbed = any(x.startswith("\t") and x.strip() for x in bc)
    spaced = any(x.startswith(" ") and x.strip() for x in bc)
    style = None if tabbed == spaced else "\t" if tabbed else " "
    evidence = any(ch in _lead(o) for o in case.old for ch in ODD_SPACES) or any(
        ch in o for o in case.old for ch in ZERO_WIDTH
    )

    region = ac[lo : c + hi - b]
    if (
        b == len(before)
        and not case.text.endswith(case.eol)
        and result.text.endswith(case.eol)
        and case.new
        and not case.new[-1].strip()
    ):
        # the file had no final newline and the block ends it on an empty line: kept
        # without an ending, that line is no line at all
        region.append("")
    at = 0
    written: dict[int, str] = {}  # REPLACE line -> what was written for it
    pending = list(unshown)
    for j, line in enumerate(case.new):
        if j in kept:
            r = kept[j]
            while pending and pending[0] < r:
                assert region[at] == bc[pending.pop(0)], "a line the reply skips changed"
                at += 1
            assert region[at] == bc[r], f"kept line {j} is not the file's line {r}"
            written[j] = region[at]
            at += 1
        elif case.new_from[j] is not None and (
            old_rows[case.new_from[j]] is None and case.new[j] == case.old[case.new_from[j]]
        ):
            continue  # a kept line the file does not have: nothing to keep
        else:
            assert at < len(region), f"new line {j} is missing"
            got = region[at]
            want = line
            if evidence:  # the quote shows the reply went through a page: read as meant
                want = "".join(ch for ch in line if ch not in ZERO_WIDTH)
                for ch in ODD_SPACES + ZERO_WIDTH:
                    assert ch not in _lead(got), f"new line {j}: {ch!r} in its indentation"
            if not want.strip():
                assert not got.strip(), f"new line {j} should be blank"
            else:
                # a fuzzy placement keeps the file's characters the reply did not change
                # (a quote that left out or misspelled them): the line as intended
                wanted = {_body(want)}
                if result.match is MatchKind.FUZZY and len(case.intended) == len(case.new):
                    wanted.add(_body(case.intended[j]))
                assert _body(got) in wanted, f"new line {j}: {got!r} for {line!r}"
                lead = got[: len(got) - len(_body(got))]
                if style is None or result.match is MatchKind.EXACT:
                    # the file shows no indentation, or both kinds; or the quote is exact,
                    # and the new lines are written as given (a diff that re-indents a
                    # line on purpose is honoured byte for byte)
                    pass
                elif not evidence and any(ch in lead for ch in ODD_SPACES):
                    pass  # nothing in the quote says the page put them there
                elif style == "\t":
                    assert lead == "\t" * (len(lead) - len(lead.lstrip("\t"))) + " " * (
                        len(lead.lstrip("\t"))
                    ) and len(lead.lstrip("\t")) < TAB, f"new line {j}: not tab-indented"
                else:
                    assert set(lead) <= {" "}, f"new line {j}: not space-indented"
            written[j] = got
            at += 1
    while pending:
        assert region[at] == bc[pending.pop(0)], "a line the reply skips changed"
        at += 1
    assert at == len(region), "the region holds lines the block does not account for"

    scales = _scale(case.old, old_rows, bc)
    seen = [j for j in range(len(case.new)) if j in written and case.new[j].strip()]
    for j in seen:
        if j in kept:
            continue
        above = [i for i in seen if i < j]
        if above:
            ref = above[-1]
            rel_reply = _width(case.new[j]) - _width(case.new[ref])
            rel_out = _width(written[j]) - _width(written[ref])
        else:
            below = [i for i in seen if i > j and i in kept]
            if below:
                ref = below[0]
                rel_reply = _width(case.new[j]) - _width(case.new[ref])
                rel_out = _width(written[j]) - _width(written[ref])
            else:
                quoted = [
                    k
                    for k, r in enumerate(old_rows)
                    if r is not None and case.old[k].strip() and bc[r].strip()
                ]
                if not quoted:
                    continue
                k = quoted[0]
                rel_reply = _width(case.new[j]) - _width(case.old[k])
                rel_out = _width(written[j]) - _width(bc[old_rows[k]])
        assert any(rel_out == s * rel_reply for s in scales), (
            f"new line {j} sits {rel_out} columns from its reference line; the reply has "
            f"{rel_reply} (allowed factors {sorted(scales)})"
        )
    return "placed"
