"""Source texts for the structural resolver's tests: a small Python module, and generated
files for the property tests.

Generated files are made of small units per language whose names are words of one another
and recur at several depths, so a name search meets decoys, ambiguity and shadowing;
`random_edit` breaks them in small ways (syntax errors included).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from lsp_server.resolve import syntax
from lsp_server.resolve.outline import Item
from lsp_server.resolve.syntax import Parsed

PY = """import os


def a():
    return 1


def b():
    return 2


class C:
    def m1(self):
        pass

    def m2(self):
        pass
"""


# Names that are words of one another (`run` in `rerun`, `run_all`) and recur at several
# depths, so candidate search meets decoys, ambiguity and shadowing.
NAMES = ["run", "rerun", "run_all", "get", "value", "Point", "Gamma", "dist", "alpha"]
TYPES = ["Point", "Gamma", "Shape", "RunBox"]


def _py_unit(r: random.Random) -> str:
    n, m, v = r.choice(NAMES), r.choice(NAMES), r.choice(NAMES)
    c = r.choice(TYPES)
    return r.choice(
        [
            f"def {n}(x):\n    {v} = 1\n    return {m}(x)\n",
            f"def {n}(x):\n    def {m}():\n        return x\n    return {m}()\n",
            f"class {c}:\n    {v} = 1\n\n    def {m}(self):\n        return {n}\n\n"
            f"    def {n}(self):\n        pass\n",
            f"@decorate\ndef {n}():\n    # calls {m}\n    return '{m}'\n",
            f"if TYPE_CHECKING:\n    def {n}():\n        pass\n",
            f"{v} = {n}\n",
            f"class {c}({r.choice(TYPES)}):\n    class {r.choice(TYPES)}:\n"
            f"        def {m}(self):\n            pass\n",
        ]
    )


def _ts_unit(r: random.Random) -> str:
    n, m, v = r.choice(NAMES), r.choice(NAMES), r.choice(NAMES)
    c = r.choice(TYPES)
    return r.choice(
        [
            f"function {n}(a: number) {{\n  const {v} = 1;\n  return {m}(a);\n}}\n",
            f"export class {c} {{\n  {v} = 2;\n"
            f"  {m}(x: number) {{\n    return this.{n};\n  }}\n}}\n",
            f"const {n} = (x: number) => x + 1;\n",
            f"interface {c} {{\n  {m}(): void;\n}}\n",
            f"export function {n}<T>(x: T): T {{\n  // {m}\n  return x;\n}}\n",
            f"if (ready) {{\n  function {n}() {{}}\n}}\n",
        ]
    )


def _go_unit(r: random.Random) -> str:
    n, m, f = r.choice(NAMES), r.choice(NAMES), r.choice(NAMES)
    c = r.choice(TYPES)
    return r.choice(
        [
            f"func {n}(x int) int {{\n\treturn {m}(x)\n}}\n",
            f"type {c} struct {{\n\t{f} int\n}}\n",
            f"func (p *{c}) {m}() int {{\n\treturn p.{f}\n}}\n",
            f"func ({c}) {n}() {{}}\n",
            f"var {f} = {n}\n",
        ]
    )


def _rs_unit(r: random.Random) -> str:
    n, m, f = r.choice(NAMES), r.choice(NAMES), r.choice(NAMES)
    c = r.choice(TYPES)
    return r.choice(
        [
            f"fn {n}() -> i32 {{\n    {m}()\n}}\n",
            f"struct {c} {{\n    {f}: i32,\n}}\n",
            f"impl {c} {{\n    fn {m}(&self) -> i32 {{\n        self.{f}\n    }}\n}}\n",
            f"impl Display for {c} {{\n    fn fmt(&self) {{}}\n}}\n",
            f"mod {n} {{\n    fn {m}() {{}}\n}}\n",
            f"#[test]\nfn {n}() {{}}\n",
        ]
    )


def _cpp_unit(r: random.Random) -> str:
    n, m, f = r.choice(NAMES), r.choice(NAMES), r.choice(NAMES)
    c = r.choice(TYPES)
    return r.choice(
        [
            f"int {n}(int x) {{ return x; }}\n",
            f"class {c} {{\npublic:\n  void {m}();\n  int {f};\n}};\n",
            f"void {c}::{m}() {{ {n}(1); }}\n",
            f"namespace {n} {{\nint {m}() {{ return 0; }}\n}}\n",
            f"struct {c} {{ int {f}; }};\n",
        ]
    )


LANGS: dict[str, tuple[str, Callable[[random.Random], str]]] = {
    "python": ("py", _py_unit),
    "typescript": ("ts", _ts_unit),
    "go": ("go", _go_unit),
    "rust": ("rs", _rs_unit),
    "cpp": ("cpp", _cpp_unit),
}
JUNK = [" ", "\n", "x", "(", "}", "{", "def ", "# ", "//", '"', ":", "    "]


def source_file(lang: str, r: random.Random, units: int) -> str:
    head = "package main\n\n" if lang == "go" else ""
    return head + "\n".join(LANGS[lang][1](r) for _ in range(units))


def random_edit(text: str, r: random.Random) -> str:
    pos = r.randrange(len(text) + 1)
    cut = r.choice([0, 0, 1, 3])
    return text[:pos] + r.choice(JUNK + [""]) + text[pos + cut :]


def random_levels(lang: str, r: random.Random) -> list[str]:
    n, m, c = r.choice(NAMES), r.choice(NAMES), r.choice(TYPES)
    word = {"python": "def", "typescript": "function", "go": "func", "rust": "fn"}.get(lang, "")
    return r.choice(
        [
            [n],
            [f"{word} {n}".strip()],
            [c],
            [f"class {c}"],
            [c, m],
            [f"{c}.{m}"],
            [f"{c}::{m}"],
            [f"func (p *{c}) {m}"],
            [f"impl Display for {c}", "fmt"],
            [f"impl {c}", m],
            [n, m],
            ["if TYPE_CHECKING", n],
            ["zzz_missing"],
            [f"{n}(x)"],
            [f"{n}(x int) int"],
            ["*"],
        ]
    )


def fresh(lang: str, text: str) -> Parsed:
    """A parse of `text` that no cache entry shares."""
    g = syntax.grammar(lang)
    src = syntax.encode(text)
    return Parsed(g, "", text, src, g.parser.parse(src))


def describe(item: Item | None) -> Any:
    """An item as plain values (its node's span and type, what the outline says of it)."""
    if item is None:
        return None
    parent = item.parent
    return (
        item.node.start_byte,
        item.node.end_byte,
        item.node.type,
        item.kind,
        item.name,
        item.owner,
        item.aliases,
        item.weak,
        None if parent is None else (parent.node.start_byte, parent.node.end_byte),
    )
