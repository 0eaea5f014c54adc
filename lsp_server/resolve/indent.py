"""Indentation, the one model every placement uses: width, style, re-indenting.

Models re-indent what they quote: they drop the outer indent of a method, turn tabs into
four spaces, or write two-space code for a four-space file. When every line of the block
equals the file's lines once indentation is removed *and* the nesting levels agree, the
block is the same code shifted; its replacement is then written in the file's own style
(base indent, unit, tabs or spaces).

Widths count columns with tab stops (a tab moves to the next multiple of the tab size), the
way an editor shows them; the text ladder, the lazy merge and the structural resolver all
measure with `width`. Two readings of a file's style exist because two questions are asked:
`detect_unit` always answers (the unit a text ladder rung writes new levels in), while
`style_of` says "unclear" rather than guess (the structural resolver then keeps the new
code's own relative indentation).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Collection, Sequence
from math import gcd
from typing import NamedTuple

TAB_WIDTH = 4

# A text's indentation style: ("\t", 1) for tabs, (" ", n) for n spaces per level.
Style = tuple[str, int]


def indent_of(line: str) -> str:
    """The spaces and tabs a line starts with."""
    return line[: len(line) - len(line.lstrip(" \t"))]


def width(indent: str, tab: int = TAB_WIDTH) -> int:
    """Columns `indent` spans, a tab moving to the next multiple of `tab`."""
    if "\t" not in indent:  # the common case, and a whole file's lines pass through here
        return len(indent)
    col = 0
    for ch in indent:
        col = (col // tab + 1) * tab if ch == "\t" else col + 1
    return col


def _unit(widths: Sequence[int]) -> int | None:
    g = 0
    for w in widths:
        g = gcd(g, w)
    return g or None


_STANDARD_UNITS = (2, 4, 8)


def _standard_change(a: int, b: int) -> bool:
    """Whether indent units `a` and `b` (columns) are two standard units, one a multiple
    of the other: 2 for 4 and back, 4 for 8 ..."""
    return a in _STANDARD_UNITS and b in _STANDARD_UNITS and max(a, b) % min(a, b) == 0


# The unit sizes `detect_unit` answers with, besides a tab (`TAB_WIDTH` columns).
_DETECTED = (2, 3, 4, 8)
# Every indent level's width in columns `detect_unit` can give: a caller whose answer is
# the same for each of them need not walk the file to detect it.
UNIT_SIZES = frozenset({TAB_WIDTH, *_DETECTED})


def detect_unit(lines: Sequence[str]) -> str:
    """The file's one-level indent string: a tab, or the gcd of its space indents (2/4/8)."""
    tabs = spaces = 0
    g = 0
    for line in lines[:5000]:
        ind = indent_of(line)
        if not ind or not line.strip():
            continue
        if ind.startswith("\t"):
            tabs += 1
        else:
            spaces += 1
            g = gcd(g, len(ind))
    if tabs > spaces:
        return "\t"
    return " " * (g if g in _DETECTED else 4)


class IndentShift(NamedTuple):
    """Maps the block's indentation onto the file's.

    `old_base` is the block's smallest indent width, `old_unit` its width per nesting level
    (None when every line sits at one level); `file_base` and `file_unit` are the strings the
    file uses at the matched place.
    """

    old_base: int
    old_unit: int | None
    file_base: str
    file_unit: str

    def apply(self, line: str, fallback_unit: int | None = None) -> str:
        if not line.strip():
            return line.strip(" \t")
        body = line.lstrip(" \t")
        rel = width(indent_of(line)) - self.old_base
        if rel <= 0:
            if rel == 0:
                return self.file_base + body
            # dedented past the block's base: remove that many columns from the file base
            keep = max(0, width(self.file_base) + rel)
            return _shrink(self.file_base, keep) + body
        unit = self.old_unit or fallback_unit or TAB_WIDTH
        level, rem = divmod(rel, unit)
        return self.file_base + self.file_unit * level + " " * rem + body

    def apply_all(self, lines: Sequence[str]) -> list[str]:
        fallback = None
        if self.old_unit is None:
            rels = [width(indent_of(x)) - self.old_base for x in lines if x.strip()]
            fallback = _unit([r for r in rels if r > 0])
        return [self.apply(line, fallback) for line in lines]


def _shrink(indent: str, columns: int) -> str:
    out = ""
    for ch in indent:
        if width(out + ch) > columns:
            break
        out += ch
    return out


def infer_shift(
    old: Sequence[str],
    window: Sequence[str],
    file_lines: Sequence[str],
    unit: str | Callable[[], str] | None = None,
) -> IndentShift | None:
    """The uniform shift taking `old` onto `window`, or None if there is none.

    Uniform: every line moves by the same number of columns (tabs expanded to their tab
    stops), or the indent unit changes between two standard units with the nesting kept
    (two-space code for a four-space file). Lines are compared pairwise; blank lines are
    ignored. Only indentation is looked at:
    the caller has already checked that the stripped contents agree. `unit`, when given,
    is `detect_unit(file_lines)` computed once by a caller that tries many windows, or a
    function answering it: it is needed only for a window whose lines all sit at one
    level, and detecting it walks thousands of lines, so callers hand over a function
    (`ContentIndex.lazy_unit`) rather than pay for it on every match.
    """
    pairs = [(o, w) for o, w in zip(old, window, strict=False) if o.strip() and w.strip()]
    if not pairs:
        return None
    ow = [width(indent_of(o)) for o, _ in pairs]
    fw = [width(indent_of(w)) for _, w in pairs]
    ob, fb = min(ow), min(fw)
    orel = [w - ob for w in ow]
    frel = [w - fb for w in fw]
    ou, fu = _unit(orel), _unit(frel)
    if orel != frel:
        # Not one shift for every line: only a change of indent unit between two standard
        # units (two, four or eight columns; a tab counts four) with the same nesting is
        # still the same code. Anything else (8 and 12 columns for the file's 9 and 12)
        # is a reply whose lines drifted apart, and its added lines have no one depth.
        if ou is None or fu is None or not _standard_change(ou, fu):
            return None
        if any(a * fu != b * ou for a, b in zip(orel, frel, strict=True)):
            return None
    base_line = next(w for (_, w), x in zip(pairs, fw, strict=True) if x == fb)
    file_base = indent_of(base_line)
    if fu is not None:
        # the unit as the file writes it here: a tab if this region is tab-indented
        deeper = next(indent_of(w) for (_, w), x in zip(pairs, fw, strict=True) if x > fb)
        extra = deeper[len(file_base) :] if deeper.startswith(file_base) else deeper
        levels = (width(deeper) - fb) // fu
        file_unit = "\t" if "\t" in extra else " " * fu
        if levels < 1:
            file_unit = _file_unit(unit, file_lines)
    else:
        file_unit = "\t" if "\t" in file_base else _file_unit(unit, file_lines)
    return IndentShift(ob, ou, file_base, file_unit)


def _file_unit(unit: str | Callable[[], str] | None, file_lines: Sequence[str]) -> str:
    """The file's indent unit from `infer_shift`'s `unit` argument, detected if absent."""
    if callable(unit):
        return unit()
    return unit or detect_unit(file_lines)


def style_of(lines: Sequence[str], skip: Collection[int] = ()) -> Style | None:
    """The indentation style of some lines: ("\\t", 1) or (" ", unit); None if unclear.

    The unit is the most common step from one line to a deeper next one, when that step
    is 2, 3, 4 or 8 spaces. Rows in `skip` (inside multi-line strings: `literals`) are
    text, not code, and say nothing about the style.
    """
    tabs = spaces = 0
    steps: Counter[int] = Counter()
    prev = 0
    for k, line in enumerate(lines):
        if not line.strip() or k in skip:
            continue
        ws = indent_of(line)
        if ws.startswith("\t"):
            tabs += 1
        elif ws:
            spaces += 1
            w = len(ws)
            if w > prev:
                steps[w - prev] += 1
        prev = len(ws) if not ws.startswith("\t") else prev
    if tabs == 0 and spaces == 0:
        return None
    if tabs > spaces:
        return ("\t", 1)
    for step, _count in steps.most_common():
        if step in (2, 3, 4, 8):
            return (" ", step)
    return None


def reindent(
    content: str,
    indent: str,
    file_style: Style | None,
    convert: bool,
    literal: Collection[int] = (),
) -> list[str]:
    """Content lines re-indented so its first line sits at `indent`, relative shape kept.

    New code arrives at column 0 as often as not, or at the indentation it had somewhere
    else. Each line keeps its depth relative to the block's shallowest line; with `convert`
    (and a known `file_style`) the relative depth is rewritten in the file's unit, so
    two-space code lands four-space in a four-space file and spaces become tabs in a tab
    file. Leading and trailing blank lines are dropped. A blank line inside keeps what the
    reply wrote: an empty one stays empty, one of spaces or tabs is indentation with no
    text and moves with the code (a chat window's blank line at its code's depth lands at
    the code's new depth; docs/snippets.md, "Blank lines").
    Rows of `content` in `literal` (inside a multi-line string: `literals`) are the
    string's text: written as they are, and not measured.
    """
    lines = content.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    keep = [k in literal for k in range(len(lines))]
    while lines and not lines[0].strip():
        lines.pop(0)
        keep.pop(0)
    while lines and not lines[-1].strip():
        lines.pop()
        keep.pop()
    if not lines:
        return []
    body = [ln for ln, kept in zip(lines, keep, strict=True) if ln.strip() and not kept]
    if not body:
        return lines
    content_tabs = sum(1 for ln in body if indent_of(ln).startswith("\t"))
    tab = file_style[1] if file_style and file_style[0] == " " else TAB_WIDTH
    widths = [width(indent_of(ln), tab) for ln in body]
    base = widths[0]
    if min(widths) < base:
        base = min(widths)
    absolute = False
    indent_w = width(indent, tab)
    if (
        widths[0] == 0
        and indent_w > 0
        and len(body) > 1
        and all(
            indent_of(ln).startswith(indent) and len(indent_of(ln)) > len(indent) for ln in body[1:]
        )
        and file_style is not None
        and min(widths[1:]) - indent_w == (file_style[1] if file_style[0] == " " else tab)
    ):
        absolute = True  # first line stripped, the rest copied at the file's own indentation
    rels = [w - base for w in widths]
    positive = [r for r in rels if r > 0]
    unit_c = min(positive) if positive else 0
    content_is_tabs = content_tabs > len(body) // 2

    def lay(absolute: bool) -> list[str]:
        out: list[str] = []
        for line, kept in zip(lines, keep, strict=True):
            if kept:
                out.append(line)
                continue
            ws = indent_of(line)
            text = line[len(ws) :]
            if not line.strip() and (not ws or text):  # empty, or not indentation
                out.append("")
                continue
            rel_w = width(ws, tab) - (indent_w if absolute and out else base)
            if rel_w < 0 and not text:
                # a blank line shallower than the code's base: as far left of `indent`
                out.append(_shrink(indent, max(0, indent_w + rel_w)))
                continue
            rel_w = max(rel_w, 0)
            out.append(
                indent + _relative(rel_w, unit_c, content_is_tabs, tab, file_style, convert) + text
            )
        return out

    relative = lay(False)
    if not absolute:
        return relative
    # both readings put every line of code in one place: the blank lines' white space is
    # then read as the code's own, relative (the first line was not stripped after all)
    copied = lay(True)
    same = all(a == b for a, b in zip(copied, relative, strict=True) if a.strip() or b.strip())
    return relative if same else copied


def _relative(
    rel_w: int,
    unit_c: int,
    content_is_tabs: bool,
    tab: int,
    file_style: Style | None,
    convert: bool,
) -> str:
    """The indentation `rel_w` columns deep, in the file's style when converting."""
    if rel_w == 0:
        return ""
    if file_style is None or not convert:
        return (" " * rel_w) if not content_is_tabs else "\t" * (rel_w // tab) + " " * (rel_w % tab)
    char, unit_f = file_style
    if content_is_tabs:
        levels, rest = divmod(rel_w, tab)
    elif unit_c in (2, 3, 4, 8):
        levels, rest = divmod(rel_w, unit_c)
    else:
        levels, rest = (0, rel_w) if char == " " else divmod(rel_w, tab)
    if char == "\t":
        return "\t" * levels + " " * rest
    return " " * (levels * unit_f + rest)


def dedent(lines: Sequence[str], skip: Collection[int] = ()) -> list[str]:
    """The lines with the indentation their non-blank lines share removed (counted in
    characters: a block indented with tabs loses tabs). Unchanged when all are blank.
    Rows in `skip` (a multi-line string's text) are neither measured nor cut."""
    body = [ln for k, ln in enumerate(lines) if ln.strip() and k not in skip]
    if not body:
        return list(lines)
    cut = min(len(indent_of(ln)) for ln in body)
    return [ln if k in skip else ln[cut:] for k, ln in enumerate(lines)]


def swap_prefix(lines: Sequence[str], old: str, new: str) -> list[str] | None:
    """Each non-blank line with its leading `old` replaced by `new` (blank lines are kept
    as they are); None when a non-blank line does not start with `old`."""
    out: list[str] = []
    for line in lines:
        if not line.strip():
            out.append(line)
        elif line.startswith(old):
            out.append(new + line[len(old) :])
        else:
            return None
    return out
