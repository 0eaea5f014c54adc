"""The shape of a line of code, as the lazy merge reads it: blank, how deep, a closer, a
definition, and which line encloses it.

Nothing here parses a language: indentation and a few patterns common to most languages
are enough to tell `return this;` inside a new method from the one inside an old method.
"""

from __future__ import annotations

import difflib
from array import array
from collections.abc import Sequence

from lsp_server.patterns import compiled_on_use
from lsp_server.resolve.indent import width

_CLOSERS = ("}", ")", "]", "</", "/>")
_CLOSER_WORDS = frozenset({"end", "end;", "end)", "fi", "done", "esac", ">", "endif", "wend"})
_STRONG_MIN = 6  # fewer word characters than this: too common to anchor on (`}`, `pass`)
_SIMILAR = 0.75


# The patterns are compiled on first use, like every pattern of the resolver: most runs
# never read a line's shape.


_alnum = compiled_on_use(r"[A-Za-z0-9_]")


def is_blank(line: str) -> bool:
    """Nothing but whitespace: never an anchor, never anyone's enclosing line."""
    return not line.strip()


def lead(line: str) -> str:
    """The whitespace a line starts with (any white space, not only spaces and tabs)."""
    return line[: len(line) - len(line.lstrip())]


def indent_width(line: str) -> int:
    """The columns of a line's leading whitespace, measured by `indent.width` (a tab moves
    to the next tab stop)."""
    return width(lead(line))


def is_closer(line: str) -> bool:
    """`}`, `)`, `</div>`, `end`, `fi`...: the line closes a block some line above opened."""
    return _closes(line.strip())


def _closes(s: str) -> bool:
    """`is_closer` of a stripped line."""
    return s.startswith(_CLOSERS) or s in _CLOSER_WORDS or s.split(" ", 1)[0] in _CLOSER_WORDS


def is_weak(line: str) -> bool:
    """Too common to anchor on: a closer, or fewer word characters than `_STRONG_MIN`."""
    return is_closer(line) or len(_alnum().findall(line)) < _STRONG_MIN


def similar(a: str, b: str) -> bool:
    """`a` reads as an edited `b`: same indentation, and the same definition name (for a
    definition), or mostly the same text (short lines also need the same leading word:
    `y = 3` / `y = 2`)."""
    if indent_width(a) != indent_width(b) or is_closer(a) or is_closer(b):
        return False
    name, other = definition_name(a), definition_name(b)
    if name is not None or other is not None:  # definitions match by name only
        return name == other
    ratio = difflib.SequenceMatcher(None, a.strip(), b.strip(), autojunk=False).ratio()
    if ratio < _SIMILAR:
        return False
    if is_weak(a) or is_weak(b):
        leading = _leading_word()
        return leading.match(a).group(1) == leading.match(b).group(1)  # type: ignore[union-attr]
    return True


_leading_word = compiled_on_use(r"\s*([^\s(=:]*)")


def parents(lines: Sequence[str], skip: Sequence[bool] | None = None) -> list[int | None]:
    """For each line, its enclosing line: the nearest line above with less indentation, or
    for a closer the nearest line above with at most its indentation (its opener).
    Blank lines (and `skip`ped ones) have none and are never anyone's parent."""
    out: list[int | None] = [None] * len(lines)
    stack: list[tuple[int, int]] = []  # (indent, index), strictly increasing indents
    for i, line in enumerate(lines):
        body = line.lstrip()
        if not body or (skip is not None and skip[i]):
            continue
        d = width(line[: len(line) - len(body)])
        while stack and stack[-1][0] > d:
            stack.pop()
        closer = _closes(body.rstrip())
        if closer:
            out[i] = stack[-1][1] if stack else None
        if stack and stack[-1][0] == d:
            stack.pop()
        if not closer:
            out[i] = stack[-1][1] if stack else None
        stack.append((d, i))
    return out


_UNKNOWN, _NONE, _BLANK = -2, -1, -3  # `Parents`' marks: not worked out yet, no parent, blank


class Parents:
    """`parents(lines, skip)[i]`, worked out only for the lines asked about (and the lines
    between them and their parents).

    A merge asks about the few lines it pairs; a file may have half a million. `parents`'
    stack reads as: a line's parent is the nearest line above it, blank and skipped lines
    aside, with less indentation (at most as much, for a closer). So the walk up from a
    line stops at the first line that qualifies, and may jump from a line that does not
    to that line's own parent when it is known: every line in between is indented at least
    as deep as that line (deeper, for a closer), so none qualifies either. The lines the
    walk visited then get their parents from the same stack run over them alone (a jumped
    stretch never holds the parent of a visited line, by the same argument), so every
    line is walked at most once however the questions come.
    """

    __slots__ = ("_known", "_lines", "_skip")

    def __init__(self, lines: Sequence[str], skip: Sequence[bool] | None = None) -> None:
        self._lines = lines
        self._skip = skip
        self._known = array("i", [_UNKNOWN]) * len(lines)

    def _shape(self, i: int) -> tuple[int, bool] | None:
        """Line `i`'s indentation and whether it is a closer; None for a line `parents`
        passes over (blank or skipped)."""
        line = self._lines[i]
        body = line.lstrip()
        if not body or (self._skip is not None and self._skip[i]):
            return None
        return width(line[: len(line) - len(body)]), _closes(body.rstrip())

    def __getitem__(self, i: int) -> int | None:
        if i < 0:
            i += len(self._lines)
        known = self._known
        if known[i] == _UNKNOWN:
            self._work_out(i)
        return known[i] if known[i] >= 0 else None

    def _work_out(self, i: int) -> None:
        known = self._known
        shape = self._shape(i)
        if shape is None:
            known[i] = _BLANK
            return
        d, closer = shape
        if d == 0 and not closer:  # nothing is indented less than nothing
            known[i] = _NONE
            return
        # the lines visited on the way up, nearest first: index, indentation, closer
        seen, depths, closers = array("i", [i]), array("i", [d]), bytearray([closer])
        found = _NONE
        j = i - 1
        while j >= 0:
            if known[j] == _BLANK:
                j -= 1
                continue
            above = self._shape(j)
            if above is None:
                known[j] = _BLANK
                j -= 1
                continue
            if above[0] < d or (closer and above[0] == d):
                found = j
                break
            seen.append(j)
            depths.append(above[0])
            closers.append(above[1])
            if known[j] >= 0:
                j = known[j]
            elif known[j] == _NONE:
                break
            else:
                j -= 1
        # `parents`' stack over the found line and the visited ones, top down
        stack: list[tuple[int, int]] = []
        if found != _NONE:
            shape = self._shape(found)
            assert shape is not None
            stack.append((shape[0], found))
        for k in range(len(seen) - 1, -1, -1):
            at, depth, is_closer = seen[k], depths[k], closers[k]
            while stack and stack[-1][0] > depth:
                stack.pop()
            if is_closer and known[at] == _UNKNOWN:
                known[at] = stack[-1][1] if stack else _NONE
            if stack and stack[-1][0] == depth:
                stack.pop()
            if not is_closer and known[at] == _UNKNOWN:
                known[at] = stack[-1][1] if stack else _NONE
            stack.append((depth, at))


def block_end(lines: Sequence[str], header: int) -> int:
    """The last line of the block `lines[header]` opens: everything indented deeper, plus a
    closer at the header's indentation (continuing past `} else {` / `):`)."""
    d = indent_width(lines[header])
    last = header
    j = header + 1
    while j < len(lines):
        line = lines[j]
        if is_blank(line):
            j += 1
            continue
        di = indent_width(line)
        if di > d:
            last = j
            j += 1
            continue
        if di == d and is_closer(line):
            last = j
            if line.rstrip().endswith(("{", ":", "(", "[")):
                j += 1
                continue
        break
    return last


_CONTROL = frozenset(
    """if for while switch catch return else elif with match loop do try new await yield
    print super this self function typeof sizeof foreach unless until case when assert
    throw raise except finally using lock fixed checked func fun fn def""".split()
)


_def_keyword = compiled_on_use(
    r"\s*(?:[\w$]+\s+)*?(?:class|struct|interface|enum|trait|def|fn|fun|func|function|"
    r"module|namespace|impl|object|record|protocol)\s+(?:\([^)]*\)\s*)?([A-Za-z_$][\w$]*)"
)


# `name(params) {` / `name(params):` - a method; parameters never hold string literals, which
# keeps calls such as `it("works", () => {` out.
_def_call = compiled_on_use(
    r"\s*(?:(?:export|default|public|private|protected|internal|static|async|override|"
    r"final|abstract|virtual|get|set|pub(?:\([^)]*\))?|[\w$<>\[\]]+)\s+)*"
    r"([A-Za-z_$][\w$]*)\s*\([^;\"'`]*\)\s*(?:->\s*[^{:;]+|:\s*[\w$<>\[\]|. ]+)?\s*"
    r"(?:\{|:|=>\s*\{)\s*$"
)


def definition_name(line: str) -> str | None:
    """The name a line defines (`class Foo {`, `def foo(x):`, `  add(a, b) {`), else None."""
    if len(line) > 300:  # the patterns are quadratic in the worst case; headers are short
        return None
    m = _def_keyword().match(line)
    if m and m.group(1) not in _CONTROL:
        return m.group(1)
    m = _def_call().match(line)
    if m and m.group(1) not in _CONTROL:
        return m.group(1)
    return None
