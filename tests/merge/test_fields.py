"""One-line class fields shown as a chat snippet (`#count = 10;`, `private step = 2;`): a
block of members of one of the file's classes, placed on the field of that name, or
refused when the name is in two classes or in none."""

from __future__ import annotations

import string

from hypothesis import given, settings
from hypothesis import strategies as st

from lsp_server.model import ErrorCode, Format
from lsp_server.reply import parse_reply
from lsp_server.reply.snippets import opens_field
from tests.merge.support import plan, refused, written

COUNTER = """export class Counter {
  #count = 0;
  private step = 1;
  static readonly label: string = "n";

  increment(): number {
    this.#count += this.step;
    return this.#count;
  }
}
"""
TWO = """export class A {
  private step = 1;
  run(): void {}
}

export class B {
  private step = 1;
  go(): void {}
}
"""


def _reply(path: str, body: str, language: str = "ts") -> str:
    return f"In `{path}`:\n\n```{language}\n{body}```\n"


def test_a_private_field_on_one_line_is_placed(tmp_path):
    out = written(
        plan(tmp_path, {"counter.ts": COUNTER}, _reply("counter.ts", "#count = 10;\n")),
        "counter.ts",
    )
    assert out == COUNTER.replace("#count = 0;", "#count = 10;")


def test_a_field_with_a_modifier_is_placed_indented_or_not(tmp_path):
    for body in ("private step = 2;\n", "  private step = 2;\n"):
        p = plan(tmp_path, {"counter.ts": COUNTER}, _reply("counter.ts", body))
        assert written(p, "counter.ts") == COUNTER.replace("step = 1;", "step = 2;")


def test_several_fields_each_on_its_own(tmp_path):
    body = '  #count = 10;\n  private step = 2;\n  static readonly label: string = "m";\n'
    out = written(plan(tmp_path, {"counter.ts": COUNTER}, _reply("counter.ts", body)), "counter.ts")
    assert out == COUNTER.replace("#count = 0;", "#count = 10;").replace(
        "step = 1;", "step = 2;"
    ).replace('"n"', '"m"')


def test_a_field_two_classes_have_is_refused(tmp_path):
    p = plan(tmp_path, {"two.ts": TWO}, _reply("two.ts", "private step = 2;\n"))
    refused(p, ErrorCode.TARGET_AMBIGUOUS)


def test_a_new_field_without_its_class_is_refused(tmp_path):
    p = plan(tmp_path, {"counter.ts": COUNTER}, _reply("counter.ts", "private extra = 2;\n"))
    refused(p, ErrorCode.TARGET_NOT_FOUND)


def test_what_is_not_a_field():
    assert not opens_field("this.count = 10;", "ts")
    assert not opens_field("count = 10;", "ts")
    assert not opens_field("#count = 10", "python")  # a comment there
    assert not opens_field("#!/usr/bin/env node", "js")
    assert not opens_field("static int calls = 0;", "c")  # a C function's local
    assert not opens_field("private void run();", "java")
    assert not opens_field("private x == 1;", "ts")
    for body in ("#count = 10\n", "x = 1;\n", "this.x = 2;\n"):
        parsed = parse_reply(_reply("a.py", body, "python"))
        assert not [b for b in parsed.blocks if b.format is Format.SNIPPET], body


_NAME = st.text(string.ascii_lowercase, min_size=1, max_size=8).map(lambda s: "f" + s)


@settings(max_examples=40, deadline=None)
@given(
    names=st.lists(_NAME, min_size=2, max_size=6, unique=True),
    pick=st.integers(min_value=0),
    private=st.booleans(),
    value=st.integers(min_value=0, max_value=10**6),
)
def test_a_restated_field_changes_that_field_only(tmp_path_factory, names, pick, private, value):
    """Oracle: the file with the one field's line replaced by the reply's (indented as the
    file's). Fields of a class with one method; the reply restates one field."""
    mods = ["#" if private and k % 2 else "private " for k in range(len(names))]
    decl = [m + n for m, n in zip(mods, names, strict=True)]
    lines = [f"  {d} = {k};" for k, d in enumerate(decl)]
    text = (
        "export class Box {\n"
        + "\n".join(lines)
        + "\n\n  size(): number {\n    return 1;\n  }\n}\n"
    )
    k = pick % len(names)
    new = f"{decl[k]} = {value + 100};"
    expected = text.replace(lines[k] + "\n", f"  {new}\n")
    root = tmp_path_factory.mktemp("box")
    out = written(plan(root, {"box.ts": text}, _reply("box.ts", new + "\n")), "box.ts")
    assert out == expected
