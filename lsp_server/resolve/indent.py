"""Indentation: recognise a uniform shift between a block and the file, and re-indent.

Models re-indent what they quote: they drop the outer indent of a method, turn tabs into
four spaces, or write two-space code for a four-space file. When every line of the block
equals the file's lines once indentation is removed *and* the nesting levels agree, the
block is the same code shifted; its replacement is then written in the file's own style
(base indent, unit, tabs or spaces).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from math import gcd

TAB_WIDTH = 4


def indent_of(line: str) -> str:
    return line[: len(line) - len(line.lstrip(" \t"))]


def width(indent: str) -> int:
    col = 0
    for ch in indent:
        col = (col // TAB_WIDTH + 1) * TAB_WIDTH if ch == "\t" else col + 1
    return col


def _unit(widths: Sequence[int]) -> int | None:
    g = 0
    for w in widths:
        g = gcd(g, w)
    return g or None


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
    return " " * (g if g in (2, 3, 4, 8) else 4)


@dataclass(frozen=True)
class IndentShift:
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
    unit: str | None = None,
) -> IndentShift | None:
    """The uniform shift taking `old` onto `window`, or None if nesting levels disagree.

    Lines are compared pairwise; blank lines are ignored. Only indentation is looked at:
    the caller has already checked that the stripped contents agree. `unit`, when given,
    is `detect_unit(file_lines)` computed once by a caller that tries many windows.
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
    if (ou is None) != (fu is None):
        return None
    if ou is not None and fu is not None:
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
            file_unit = unit or detect_unit(file_lines)
    else:
        file_unit = "\t" if "\t" in file_base else unit or detect_unit(file_lines)
    return IndentShift(ob, ou, file_base, file_unit)
