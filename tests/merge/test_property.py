"""The merge room's rule as a property (issue 22, "The rule, and how it is proven").

A file is generated from a model — imports and definitions in Python, TypeScript, TSX, Go,
Rust, C, C++ or Markdown, in the file's own indentation (spaces or tabs), some definitions
holding a multi-line string, some a comment of the file's own that ends in `...`, blank
lines with or without indentation. An intent changes the model (rewrite a definition's
body, add a definition, add a name to an import). A reply is written from the intent in
one of the habits models have:

* `whole`: a path line, then the whole new file in a fence (aider's whole format);
* `fragment`: "In `path`:" and the changed definition alone;
* `marker`: the file's path in the fence, `... existing code ...` (in the language's
  comment style) around the changed definition;
* `no-doc`: the changed definition restated without its docstring;
* `cut`: the changed definition cut short after its first body statement, no marker.

The oracle is the model itself: the expected file is the model after the intent, rendered
by the same templates that rendered the file (never by the merge code). The check: a block
the rule places must give exactly that file; a block the rule leaves open (`no-doc`, `cut`)
must be refused, naming its readings — and never write.

`MERGE_EXAMPLES=10000 .venv/bin/pytest tests/merge/test_property.py` is the long run.
"""

from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass, replace
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lsp_server.model import Status
from lsp_server.plan import PlanOptions, plan_reply
from lsp_server.reply import parse_reply
from lsp_server.workspace import DiskWorkspace

EXAMPLES = int(os.environ.get("MERGE_EXAMPLES", "300"))


@dataclass(frozen=True)
class Lang:
    name: str
    ext: str
    fence: str
    comment: str  # a line comment opener
    closer: str  # a comment closer ("" for line comments)


LANGS = {
    "python": Lang("python", "py", "python", "#", ""),
    "typescript": Lang("typescript", "ts", "ts", "//", ""),
    "tsx": Lang("tsx", "tsx", "tsx", "//", ""),
    "go": Lang("go", "go", "go", "//", ""),
    "rust": Lang("rust", "rs", "rust", "//", ""),
    "c": Lang("c", "c", "c", "/*", " */"),
    "cpp": Lang("cpp", "cpp", "cpp", "//", ""),
    "markdown": Lang("markdown", "md", "markdown", "<!--", " -->"),
}


@dataclass(frozen=True)
class Definition:
    name: str
    step: int  # the number its body adds: what a body rewrite changes
    string: bool  # holds a multi-line string literal
    note: bool  # holds a comment of the file's own that ends in `...`
    doc: bool  # (Python) opens with a docstring
    blank: str | None = None  # its own blank-line habit (a new one is the reply's)


@dataclass(frozen=True)
class Model:
    lang: str
    indent: str  # one level: "    ", "  " or "\t"
    blank: str  # what a blank line inside a definition holds: "" or the body's indent
    names: tuple[str, ...]  # the imported names
    defs: tuple[Definition, ...]


# --- rendering: the one way a model becomes a file (the file, and the oracle) -----------------


def _imports(m: Model) -> list[str]:
    names = ", ".join(m.names)
    return {
        "python": [f"from helpers import {names}"],
        "typescript": [f'import {{ {names} }} from "./helpers";'],
        "tsx": [f'import {{ {names} }} from "./helpers";'],
        "go": ["import (", *(f'\t"{n}"' for n in m.names), ")"],
        "rust": [f"use helpers::{{{names}}};"],
        "c": [f"#include <{n}.h>" for n in m.names],
        "cpp": [f"#include <{n}>" for n in m.names],
        "markdown": [],
    }[m.lang]


def _body(m: Model, d: Definition) -> list[str]:
    """The definition's body lines at one level of indentation."""
    i = m.indent
    lang = LANGS[m.lang]
    lines: list[str] = []
    if d.doc and m.lang == "python":
        lines.append(f'{i}"""Compute {d.name}."""')
    if d.note:
        lines.append(f"{i}{lang.comment} retry later, maybe...{lang.closer}")
    stmt = {
        "python": f"{i}value = x + {d.step}",
        "typescript": f"{i}const value = x + {d.step};",
        "tsx": f"{i}const value = x + {d.step};",
        "go": f"{i}value := x + {d.step}",
        "rust": f"{i}let value = x + {d.step};",
        "c": f"{i}int value = x + {d.step};",
        "cpp": f"{i}int value = x + {d.step};",
    }[m.lang]
    lines.append(stmt)
    if d.string:
        text = ["SELECT id", "    FROM t", "  WHERE x > 1"]
        lines += {
            "python": [f'{i}query = """', *text, '"""'],
            "typescript": [f"{i}const query = `", *text, "`;"],
            "tsx": [f"{i}const query = `", *text, "`;"],
            "go": [f"{i}query := `", *text, "`", f"{i}_ = query"],
            "rust": [f'{i}let _query = r"', *text, '";'],
            "c": [f'{i}const char *query = "SELECT id"', f'{i}    " FROM t";'],
            "cpp": [f'{i}const char *query = R"(', *text, ')";'],
        }[m.lang]
    lines.append(m.blank if d.blank is None else d.blank)
    lines.append(
        {
            "python": f"{i}return value",
            "typescript": f"{i}return value;",
            "tsx": f"{i}return value;",
            "go": f"{i}return value",
            "rust": f"{i}value",
            "c": f"{i}return value;",
            "cpp": f"{i}return value;",
        }[m.lang]
    )
    return lines


def _definition(m: Model, d: Definition) -> list[str]:
    if m.lang == "markdown":
        return [f"## {d.name}", "", f"The {d.name} section, step {d.step}."]
    head = {
        "python": [f"def {d.name}(x):"],
        "typescript": [f"export function {d.name}(x: number): number {{"],
        "tsx": [f"export function {d.name}(x: number): number {{"],
        "go": [f"func {d.name}(x int) int {{"],
        "rust": [f"pub fn {d.name}(x: i32) -> i32 {{"],
        "c": [f"int {d.name}(int x) {{"],
        "cpp": [f"int {d.name}(int x) {{"],
    }[m.lang]
    tail = [] if m.lang == "python" else ["}"]
    return head + _body(m, d) + tail


def render(m: Model) -> str:
    out: list[str] = []
    if m.lang == "go":
        out += ["package main", ""]
    if m.lang == "markdown":
        out += ["# Notes", ""]
    imports = _imports(m)
    if imports:
        out += imports + [""]
    gap = ["", ""] if m.lang == "python" else [""]
    for k, d in enumerate(m.defs):
        if k:
            out += gap
        elif imports and m.lang == "python":
            out += [""]
        out += _definition(m, d)
    return "\n".join(out) + "\n"


# --- models, intents, habits -------------------------------------------------------------------

NAMES = ["alpha", "beta", "gamma", "delta", "omega"]


@st.composite
def models(draw: st.DrawFn) -> Model:
    lang = draw(st.sampled_from(sorted(LANGS)))
    indent = {"go": "\t"}.get(lang) or draw(st.sampled_from(["    ", "  ", "\t"]))
    if lang in ("rust", "c", "cpp", "markdown"):
        indent = "    "
    n = draw(st.integers(1, 4))
    names = draw(st.permutations(NAMES))[:n]
    defs = tuple(
        Definition(
            name,
            draw(st.integers(1, 9)),
            draw(st.booleans()),
            draw(st.booleans()),
            lang == "python" and draw(st.booleans()),
        )
        for name in names
    )
    blank = draw(st.sampled_from(["", indent]))
    imported = {"go": ("fmt", "os"), "c": ("stdio",), "cpp": ("vector",)}.get(lang, ("load",))
    return Model(lang, indent, blank, imported, defs)


@dataclass(frozen=True)
class Case:
    before: Model
    after: Model
    changed: int | None  # the definition rewritten, if any
    habit: str
    reply_blank: str  # how the reply writes a blank line inside a definition


def _intent(draw: st.DrawFn, m: Model) -> tuple[Model, int | None, str]:
    intents = ["body", "add"] + (["import"] if m.lang in ("python", "typescript", "tsx") else [])
    if m.lang == "markdown":
        intents = ["body", "add"]
    intent = draw(st.sampled_from(intents))
    if intent == "body":
        k = draw(st.integers(0, len(m.defs) - 1))
        d = m.defs[k]
        new = replace(d, step=d.step + 10)
        return replace(m, defs=m.defs[:k] + (new,) + m.defs[k + 1 :]), k, intent
    if intent == "add":
        name = next(n for n in ["extra", "more", "spare"] if n not in {d.name for d in m.defs})
        d = Definition(name, 7, False, False, False)
        return replace(m, defs=(*m.defs, d)), len(m.defs), intent
    return replace(m, names=(*m.names, "extra_name")), None, intent


@st.composite
def cases(draw: st.DrawFn) -> Case:
    before = draw(models())
    after, changed, intent = _intent(draw, before)
    reply_blank = draw(st.sampled_from(["", "same"]))
    if intent == "add":
        # a new definition is the reply's own text, re-indented: its blank lines are empty
        new = replace(after.defs[-1], blank="")
        after = replace(after, defs=(*after.defs[:-1], new))
    habits = ["whole"]
    if before.lang != "markdown":
        habits += ["fragment", "marker"] if intent != "import" else []
        if intent == "body" and before.lang == "python":
            d = after.defs[changed]  # type: ignore[index]
            habits += ["cut"] + (["no-doc"] if d.doc else [])
    habit = draw(st.sampled_from(habits))
    return Case(before, after, changed, habit, reply_blank)


def _path(m: Model) -> str:
    return f"src/mod.{LANGS[m.lang].ext}"


def _shown(c: Case, lines: list[str]) -> list[str]:
    """Lines as the reply shows them: its own habit for blank lines."""
    if c.reply_blank == "same":
        return lines
    return ["" if not ln.strip() else ln for ln in lines]


def reply_for(c: Case) -> str:
    lang = LANGS[c.after.lang]
    path = _path(c.after)
    if c.habit == "whole":
        return f"{path}\n```{lang.fence}\n{render(c.after)}```\n"
    assert c.changed is not None
    d = c.after.defs[c.changed]
    lines = _shown(c, _definition(c.after, d))
    if c.habit == "fragment":
        return f"In `{path}`:\n\n```{lang.fence}\n" + "\n".join(lines) + "\n```\n"
    if c.habit == "marker":
        marker = f"{lang.comment} ... existing code ...{lang.closer}"
        gap = ["", ""] if c.after.lang == "python" else [""]  # the file's own separation
        body = [marker, *gap, *lines, *gap, marker]
        if c.changed == len(c.before.defs):  # a new last definition: nothing after it
            body = body[: -1 - len(gap)]
        return (
            f"```{lang.fence}\n{lang.comment} {path}{lang.closer}\n" + "\n".join(body) + "\n```\n"
        )
    if c.habit == "no-doc":
        lines = [ln for ln in lines if '"""Compute' not in ln]
    if c.habit == "cut":
        first = next(k for k, ln in enumerate(lines) if "value = x" in ln)
        lines = lines[: first + 1]
    return f"In `{path}`:\n\n```{lang.fence}\n" + "\n".join(lines) + "\n```\n"


# --- the property ------------------------------------------------------------------------------

AMBIGUOUS = {"no-doc": ["keep-rest", "drop-rest"], "cut": ["keep-rest", "drop-rest"]}


def check(c: Case) -> None:
    before, expected = render(c.before), render(c.after)
    path = _path(c.before)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        (root / "src").mkdir()
        (root / path).write_text(before)
        plan = plan_reply(parse_reply(reply_for(c)), DiskWorkspace(root), PlanOptions())
    (outcome,) = plan.outcomes
    if c.habit in AMBIGUOUS:
        if c.habit == "cut" and c.after.defs[c.changed].string is False and not _tail(c):
            return  # nothing follows the cut: the definition is whole
        assert outcome.status is Status.FAILED and not plan.files, (outcome, plan.files)
        named = [r["name"] for r in outcome.failure.details.get("readings", [])]
        assert named == AMBIGUOUS[c.habit], outcome.failure
        return
    assert outcome.status is Status.VALIDATED, outcome.failure
    new = plan.files[0].new_text if plan.files else before
    assert new == expected
    # and applying the same reply again changes nothing
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        (root / "src").mkdir()
        (root / path).write_text(new)
        again = plan_reply(parse_reply(reply_for(c)), DiskWorkspace(root), PlanOptions())
    assert again.ok and not again.files, again.outcomes
    assert all(o.already_applied for o in again.outcomes), again.outcomes


def _tail(c: Case) -> bool:
    return True  # every generated body goes on past its first statement (`return value`)


@settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    database=None,
)
@given(cases())
def test_every_placed_block_is_the_intent_and_every_open_one_is_refused(c: Case) -> None:
    check(c)
