"""Blank lines as a property (issue 22, item 5; docs/snippets.md, "Blank lines").

A Python file is generated from a model: functions (top level, or methods of a class) whose
bodies hold statements, `if` blocks, and blank lines carrying random white space (none,
some levels of the file's indentation, a few spaces more). An intent inserts new lines
between two statements (sometimes with a blank line of random white space between them)
and rewrites statements. A reply writes the intent in one of the ways models do:

* `cursor`: the function restated whole in a fence naming the file, at column 0 or at the
  file's own depth, in two or four spaces per level;
* `marker`: the file with every other function replaced by `# ... existing code ...`;
* `search-replace`: the changed stretch quoted and replaced, at the file's depth or some
  levels shallower (the indentation rung);
* `diff`: a unified diff of the file.

Every blank line the reply restates carries white space of its own (the file's, none, or
another). The oracle renders the model after the intent (never through the merge code):
a blank line the reply keeps holds the file's bytes; a new one holds the reply's white
space, moved as the reply's code moves (its levels in the file's characters, the spaces
past them kept; empty when the reply wrote it empty or the move leaves it left of column
0). Every block must be placed and give exactly that file.

Applying the same reply again must then change nothing. `BLANK_EXAMPLES=10000` runs it long.
"""

from __future__ import annotations

import difflib
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path

from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from lsp_server.plan import PlanOptions, plan_reply
from lsp_server.reply import parse_reply
from lsp_server.workspace import DiskWorkspace

EXAMPLES = int(os.environ.get("BLANK_EXAMPLES", "200"))
MARKER = "# ... existing code ..."


@dataclass(frozen=True)
class Line:
    """A body line. Code: `level` below the body, `text`. Blank: white space of `level`
    levels from the def's own depth plus `extra` spaces, or none (`level` None); `reply`
    the white space the reply restates it with (levels, extra), None for none."""

    text: str | None  # None: a blank line
    level: int | None = 0
    extra: int = 0
    new: bool = False
    reply: tuple[int, int] | None = None
    old: str | None = None  # a rewritten statement's text in the file


@dataclass(frozen=True)
class Func:
    name: str
    lines: tuple[Line, ...]  # after the intent (new lines marked, rewritten ones carry `old`)
    changed: bool


@dataclass(frozen=True)
class Case:
    unit: str  # the file's level: "    ", "  " or "\t"
    method: bool  # functions are methods of a class
    funcs: tuple[Func, ...]
    style: str
    reply_unit: str  # the reply's level (cursor)
    at_zero: bool  # cursor: the def at column 0
    shift: int  # search-replace: levels shallower than the file


# --- rendering: the file, the expected file and the reply, from the model -----------------


def _ws(levels: int, extra: int, unit: str) -> str:
    return unit * levels + " " * extra if levels >= 0 else ""


def _def_level(c: Case) -> int:
    return 1 if c.method else 0


def _func_lines(c: Case, f: Func, side: str) -> list[str]:
    """`side`: "file" (before the intent), "expected" (after it, in the file)."""
    base = _def_level(c)
    out = [c.unit * base + f"def {f.name}(self, x):" if c.method else f"def {f.name}(x):"]
    for ln in f.lines:
        if side == "file" and ln.new:
            continue
        if ln.text is None:
            if ln.level is None:
                out.append("")
            elif ln.new:
                # the reply's white space, moved as its code is: its levels in the file's
                # characters; none when the reply had none there
                out.append(_new_blank(c, ln))
            else:
                out.append(_ws(base + ln.level, ln.extra, c.unit))
            continue
        text = ln.old if side == "file" and ln.old is not None else ln.text
        out.append(c.unit * (base + 1 + ln.level) + text)
    return out


def _new_blank(c: Case, ln: Line) -> str:
    """A new blank line in the file: what the reply wrote, moved with the reply's code."""
    if ln.level is None or not _reply_blank(c, (ln.level, ln.extra)):
        return ""  # the reply wrote it empty
    if c.style == "cursor" and ln.level == ln.extra == 0:
        # a snippet's lines lose the indentation they share (its def's column): a blank
        # line with no more than that is left with nothing (docs/snippets.md)
        return ""
    return _ws(_def_level(c) + ln.level, ln.extra, c.unit)


def _reply_blank(c: Case, spec: tuple[int, int] | None) -> str:
    """A blank line as the reply writes it: `spec` is (levels from the def, spaces)."""
    if spec is None:
        return ""
    return _ws(_reply_base(c) + spec[0], spec[1], _reply_unit(c))


def _reply_shift(c: Case) -> int:
    """Levels the reply's lines sit shallower than the file's, counted from the def."""
    if c.style == "cursor":
        return _def_level(c) if c.at_zero else 0
    if c.style == "search-replace":
        return c.shift
    return 0


def _reply_base(c: Case) -> int:
    return _def_level(c) - _reply_shift(c)


def _file(c: Case, side: str) -> str:
    lines = ["import os", "", ""]
    if c.method:
        lines += ["class Box:", ""]
    for k, f in enumerate(c.funcs):
        if k:
            lines.append("")
        lines += _func_lines(c, f, side)
    return "\n".join(lines) + "\n"


def _reply_unit(c: Case) -> str:
    if c.style == "cursor" or c.style == "search-replace" and c.unit != "\t":
        return c.reply_unit
    return c.unit


def _reply_func(c: Case, f: Func, side: str) -> list[str]:
    """The function as the reply writes it: `side` "old" (its quote of the file) or "new";
    restated blank lines with the reply's own white space."""
    u = _reply_unit(c)
    base = _reply_base(c)
    head = f"def {f.name}(self, x):" if c.method else f"def {f.name}(x):"
    out = [u * base + head]
    for ln in f.lines:
        if side == "old" and ln.new:
            continue
        if ln.text is None:
            if ln.new:
                out.append(_reply_blank(c, None if ln.level is None else (ln.level, ln.extra)))
            else:
                out.append(_reply_blank(c, ln.reply))
            continue
        text = ln.old if side == "old" and ln.old is not None else ln.text
        out.append(u * (base + 1 + ln.level) + text)
    return out


def reply_for(c: Case) -> str:
    f = next(f for f in c.funcs if f.changed)
    if c.style == "cursor":
        return "```python:a.py\n" + "\n".join(_reply_func(c, f, "new")) + "\n```\n"
    if c.style == "marker":
        lines = [MARKER, ""]
        if c.method:
            lines += ["class Box:", ""]
        for g in c.funcs:
            if g is f:
                lines += _reply_func(c, g, "new")
            else:
                lines.append(c.unit * _def_level(c) + MARKER)
        return "```python:a.py\n" + "\n".join(lines) + "\n```\n"
    old, new = _reply_func(c, f, "old"), _reply_func(c, f, "new")
    if c.style == "search-replace":
        # the stretch from the first to the last line that differ, widened to code lines
        sm = difflib.SequenceMatcher(a=old, b=new, autojunk=False)
        ops = [op for op in sm.get_opcodes() if op[0] != "equal"]
        i1, j1 = ops[0][1], ops[0][3]
        i2, j2 = ops[-1][2], ops[-1][4]
        while i1 > 1 and not old[i1 - 1].strip():
            i1, j1 = i1 - 1, j1 - 1
        i1, j1 = i1 - 1, j1 - 1  # one code line above
        if _reply_unit(c) != c.unit:
            # the quote shows the unit only when it spans two levels: from the def on
            i1, j1 = 0, 0
        while i2 < len(old) and not old[i2].strip():
            i2, j2 = i2 + 1, j2 + 1
        if i2 < len(old):
            i2, j2 = i2 + 1, j2 + 1
        search, replace = old[i1:i2], new[j1:j2]
        return (
            "a.py\n```python\n<<<<<<< SEARCH\n"
            + "".join(x + "\n" for x in search)
            + "=======\n"
            + "".join(x + "\n" for x in replace)
            + ">>>>>>> REPLACE\n```\n"
        )
    # diff: the file as the reply quotes it (its own blank lines) against the new text
    before = _file_quoted(c, f, old)
    after = _file_quoted(c, f, new)
    body = difflib.unified_diff(before, after, "a/a.py", "b/a.py", n=2, lineterm="")
    return "```diff\n" + "\n".join(body) + "\n```\n"


def _file_quoted(c: Case, f: Func, mine: list[str]) -> list[str]:
    lines = ["import os", "", ""]
    if c.method:
        lines += ["class Box:", ""]
    for k, g in enumerate(c.funcs):
        if k:
            lines.append("")
        lines += mine if g is f else _func_lines(c, g, "file")
    return lines


# --- generation -----------------------------------------------------------------------------


@st.composite
def _blank(draw: st.DrawFn, unit: str, new: bool = False, at: int = 0) -> Line:
    """A blank line; a new one (`new`) at the depth of its code (`at` levels from the
    def) or one deeper, as Cursor writes them: one shallower than every line of a
    re-indented block has no one place (see docs/snippets.md)."""
    empty = draw(st.integers(0, 3)) == 0 if new else draw(st.booleans())
    level = None if empty else draw(st.integers(at, at + 1) if new else st.integers(0, 3))
    extra = 0 if empty or unit == "\t" and draw(st.booleans()) else draw(st.integers(0, 1))
    if level is not None and level == 0 and extra == 0:
        level = None  # white space of nothing is an empty line
    reply = None
    if not new:
        reply = draw(
            st.one_of(
                st.none(),
                st.tuples(st.integers(0, 3), st.integers(0, 1)),
                st.just((level, extra) if level is not None else (1, 0)),
            )
        )
    return Line(None, level, extra, new=new, reply=reply)


@st.composite
def _func(draw: st.DrawFn, name: str, unit: str, change: bool) -> Func:
    lines: list[Line] = []
    n = draw(st.integers(2, 5))
    for k in range(n):
        stmt = f"{name}_{k} = x + {k}"
        if draw(st.integers(0, 3)) == 0:
            lines.append(Line(f"if x > {k}:"))
            lines.append(Line(stmt, 1))
            if draw(st.booleans()):
                lines.append(draw(_blank(unit)))
            lines.append(Line(f"{name}_{k}b = {k}", 1))
        else:
            lines.append(Line(stmt))
        if k < n - 1 and draw(st.booleans()):
            lines.append(draw(_blank(unit)))
    lines.append(Line(f"return {name}_0"))
    if not change:
        return Func(name, tuple(lines), False)
    # the intent: new lines between two adjacent statements of one level, rewrites
    out: list[Line] = []
    inserted = rewritten = 0
    for k, ln in enumerate(lines):
        if ln.text is not None and ln.text.startswith(f"{name}_") and draw(st.integers(0, 2)) == 0:
            ln = Line(ln.text.replace(" = ", " = 100 + ", 1), ln.level, old=ln.text)
            rewritten += 1
        out.append(ln)
        nxt = lines[k + 1] if k + 1 < len(lines) else None
        adjacent = (
            nxt is not None
            and ln.text is not None
            and nxt.text is not None
            and not ln.text.endswith(":")
            and ln.level == nxt.level
        )
        if adjacent and (draw(st.booleans()) or (not inserted and not rewritten)):
            tag = f"{name}_n{k}"
            out.append(Line(f"{tag} = 1", ln.level, new=True))
            if draw(st.integers(0, 3)):
                out.append(draw(_blank(unit, new=True, at=ln.level + 1)))
            out.append(Line(f"{tag}b = 2", ln.level, new=True))
            inserted += 1
    if not inserted and not rewritten:
        first = next(k for k, ln in enumerate(out) if ln.text and ln.text.startswith(f"{name}_"))
        ln = out[first]
        out[first] = Line(ln.text.replace(" = ", " = 100 + ", 1), ln.level, old=ln.text)
    return Func(name, tuple(out), True)


@st.composite
def cases(draw: st.DrawFn) -> Case:
    unit = draw(st.sampled_from(["    ", "  ", "\t"]))
    method = draw(st.booleans())
    count = draw(st.integers(1, 3))
    which = draw(st.integers(0, count - 1))
    funcs = tuple(draw(_func(f"f{k}", unit, k == which)) for k in range(count))
    style = draw(st.sampled_from(["cursor", "marker", "search-replace", "diff"]))
    reply_unit = draw(st.sampled_from(["    ", "  "])) if unit != "\t" else "    "
    at_zero = draw(st.booleans())
    shift = draw(st.integers(0, int(method))) if style == "search-replace" else 0
    return Case(unit, method, funcs, style, reply_unit, at_zero, shift)


# --- the check -------------------------------------------------------------------------------


def check(c: Case) -> None:
    before, expected = _file(c, "file"), _file(c, "expected")
    reply = reply_for(c)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        (root / "a.py").write_text(before)
        p = plan_reply(parse_reply(reply), DiskWorkspace(root), PlanOptions())
        shown = f"file:\n{before!r}\nreply:\n{reply}"
        assert p.ok, f"{[o.failure for o in p.outcomes]}\n{shown}"
        (change,) = p.files
        got = change.new_text
        assert got == expected, f"{shown}\n" + "\n".join(
            difflib.unified_diff(expected.split("\n"), got.split("\n"), "expected", "written", n=1)
        ).replace(" \n", "·\n")
        # and the same reply again changes nothing: its blank lines are there as it put them
        (root / "a.py").write_text(got)
        again = plan_reply(parse_reply(reply), DiskWorkspace(root), PlanOptions())
        assert again.ok and not again.files, (again.outcomes, shown)


@settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    database=None,
)
@given(cases())
def test_kept_blank_lines_keep_the_files_bytes_and_new_ones_are_the_replys(c: Case) -> None:
    event(f"style: {c.style}")
    lines = [ln for f in c.funcs for ln in f.lines if ln.text is None]
    event(f"a new blank line with white space: {any(ln.new and ln.level for ln in lines)}")
    other = any(ln.reply != (ln.level, ln.extra) for ln in lines if not ln.new)
    event(f"a kept blank line restated otherwise: {other}")
    check(c)
