"""A restated definition that stops short of the file's, with no marker: cut short, or
shortened on purpose? The reply does not say, so it is one of the readings.

A snippet definition replaces the file's in full. That is the reply's change only where
the reply shows it: a file line is matched to a reply line, or lies between two reply
lines that anchor it. Two stretches of a definition have no anchor on one side:

* its **tail**: the snippet's last line is a line of the file's definition, as it stands
  or a close variant of it (the line it rewrites, similarity >= 0.75), and the file's
  definition goes on past it, with lines the snippet never shows. A snippet that ends on
  code of its own (a new last line) has ended its definition there;
  A closer at the definition's own indentation (`}`, `end`) ends a definition for the
  grammar, and so anchors its end: only a definition whose end is its indentation
  (Python, and the like) or whose last shown line is inside it can be cut short;
* its **docstring**: the file's Python definition opens with a docstring the snippet's
  does not have (and the snippet's first statement is not a string).

`cut` finds them; `keep_rest` writes the snippet's definition with the file's missing
stretches put back (the *keep the rest* reading). Pure: dedented lines in, lines out.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Sequence
from typing import NamedTuple

from lsp_server.linediff import all_opcodes

_CLOSER = re.compile(r"^[\s})\];,]*(?:end|fi|done|esac)?[\s})\];,]*$")
_DOCSTRING = re.compile(r"^[rRbBuU]{0,2}(\"\"\"|'''|\"|')")


class Cut(NamedTuple):
    """What the snippet's definition leaves out: the file's rows (of its dedented lines)
    after the last shown line, and the file's docstring rows; empty: nothing."""

    tail: tuple[int, int] | None  # [start, end) in the file's definition lines
    after: int  # the snippet row the tail follows
    docstring: tuple[int, int] | None  # [start, end) in the file's definition lines
    at: int  # the snippet row the docstring goes before


def _keys(lines: Sequence[str]) -> list[str]:
    return [ln.strip() for ln in lines]


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def _docstring_rows(lines: Sequence[str], python: bool) -> tuple[int, int] | None:
    """The rows of a Python definition's docstring: the first statement of its body."""
    if not python:
        return None
    k = 0
    while k < len(lines) and not lines[k].rstrip().endswith(":"):
        k += 1  # the header may span lines
    k += 1
    while k < len(lines) and not lines[k].strip():
        k += 1
    if k >= len(lines):
        return None
    m = _DOCSTRING.match(lines[k].strip())
    if m is None:
        return None
    quote = m.group(1)
    rest = lines[k].strip()[m.end() :]
    if quote in rest:
        return k, k + 1
    for j in range(k + 1, len(lines)):
        if quote in lines[j]:
            return k, j + 1
    return None


# How alike a line and its rewrite must be for the rewrite to stand for that line.
_VARIANT = 0.75


def _variant(mine: str, theirs: str) -> bool:
    return mine == theirs or (
        difflib.SequenceMatcher(None, mine, theirs, autojunk=False).ratio() >= _VARIANT
    )


def cut(file_def: Sequence[str], snippet_def: Sequence[str], python: bool) -> Cut | None:
    """The stretches of the file's definition `file_def` that `snippet_def` leaves out
    without a marker (both dedented to the definition's own indentation), or None."""
    fk, sk = _keys(file_def), _keys(snippet_def)
    s_rows = [j for j, k in enumerate(sk) if k]
    f_rows = [i for i, k in enumerate(fk) if k]
    if len(s_rows) < 2 or len(f_rows) < 2:
        return None
    tail: tuple[int, int] | None = None
    after = s_rows[-1]
    ends_itself = _indent(snippet_def[after]) == 0 and _CLOSER.match(snippet_def[after]) is not None
    if not ends_itself:
        # the file line the snippet's last line stands for: the same line, or the one it
        # rewrites (lines of a rewritten stretch pair up in order; blank lines aside)
        fc, sc = [fk[i] for i in f_rows], [sk[j] for j in s_rows]
        partner = None
        last = len(sc) - 1
        for tag, i1, i2, j1, j2 in all_opcodes(fc, sc):
            if j1 <= last < j2 and tag in ("equal", "replace"):
                partner = f_rows[min(i1 + (last - j1), i2 - 1)]
        if partner is not None and not _variant(sk[after], fk[partner]):
            partner = None  # the reply ends on code of its own: its definition ends there
        if partner is not None:
            rest = [i for i in f_rows if i > partner]
            shown = set(sk)
            if rest and not any(fk[i] in shown for i in rest):
                if not all(_CLOSER.match(file_def[i]) for i in rest):
                    tail = (partner + 1, rest[-1] + 1)
    docstring = None
    at = 0
    theirs = _docstring_rows(file_def, python)
    if theirs is not None and _docstring_rows(snippet_def, python) is None:
        # the snippet's body starts where the file's docstring stood
        k = 0
        while k < len(snippet_def) and not snippet_def[k].rstrip().endswith(":"):
            k += 1
        if k < len(snippet_def) - 1:
            docstring, at = theirs, k + 1
    if tail is None and docstring is None:
        return None
    return Cut(tail, after, docstring, at)


def keep_rest(file_def: Sequence[str], snippet_def: Sequence[str], c: Cut) -> list[str]:
    """The snippet's definition with the file's stretches it left out put back."""
    out = list(snippet_def)
    if c.tail is not None:
        a, b = c.tail
        out[c.after + 1 : c.after + 1] = file_def[a:b]
    if c.docstring is not None:
        a, b = c.docstring
        out[c.at : c.at] = _shifted(file_def[a:b], file_def, snippet_def, c.at)
    return out


def _shifted(
    rows: Sequence[str], file_def: Sequence[str], snippet_def: Sequence[str], at: int
) -> list[str]:
    """The docstring rows at the snippet body's indentation."""
    body = next((ln for ln in snippet_def[at:] if ln.strip()), None)
    first = next((ln for ln in rows if ln.strip()), None)
    if body is None or first is None:
        return list(rows)
    have, want = _indent(first), _indent(body)
    if have == want:
        return list(rows)
    out = []
    for ln in rows:
        if not ln.strip():
            out.append(ln)
        elif want > have:
            out.append(" " * (want - have) + ln)
        else:
            out.append(ln[min(have - want, _indent(ln)) :])
    return out
