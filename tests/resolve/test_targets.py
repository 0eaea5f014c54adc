"""How TARGET_NODE levels find a node, what the node's boundaries are, and how new code
is re-indented into it."""

from __future__ import annotations

import keyword
import random
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any
from unittest import mock

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lsp_server.model import PlacementError, Target
from lsp_server.resolve import outline, syntax, targets
from lsp_server.resolve.outcome import StructureEdit
from lsp_server.resolve.structure import apply_structure, read_structure
from lsp_server.resolve.syntax import Parsed

from .samples import LANGS, describe, fresh, random_edit, random_levels, source_file


def replace(path: str, text: str, levels: list[str], content: str) -> str:
    return apply_structure(text, path, Target(node=tuple(levels)), content).text


def lines_of(path: str, text: str, levels: list[str]) -> list[list[int]]:
    return [m["lines"] for m in read_structure(text, path, Target(node=tuple(levels)))]


PY = '''import os


class UserAuth:
    """Auth."""

    def __init__(self, user):
        self.user = user

    def validate(self):
        if self.user.is_active:
            return True
        for role in self.user.roles:
            if role.admin:
                return True
        return False


def validate_all(users):
    return [u for u in users]
'''

VALIDATE = [[10, 16]]


@pytest.mark.parametrize(
    "level",
    [
        "validate",
        "def validate",
        "def validate(self):",
        "def validate(self)",
        "function validate",
        "method validate",
        "fn validate",
        "UserAuth.validate",
        "UserAuth::validate",
    ],
)
def test_flexible_names_reach_the_same_python_method(level: str) -> None:
    assert lines_of("a.py", PY, [level]) == VALIDATE


@pytest.mark.parametrize("first", ["UserAuth", "class UserAuth", "class UserAuth:"])
def test_class_level_forms(first: str) -> None:
    assert lines_of("a.py", PY, [first, "validate"]) == VALIDATE


def test_levels_may_be_written_on_one_line_with_separators() -> None:
    assert lines_of("a.py", PY, ["UserAuth > validate"]) == VALIDATE
    assert lines_of("a.py", PY, ["UserAuth / validate"]) == VALIDATE


def test_three_levels_deep_reach_a_nested_if_block() -> None:
    new = replace(
        "a.py",
        PY,
        ["class UserAuth", "def validate", "if role.admin"],
        "if role.admin and role.active:\n    return True\n",
    )
    assert new == PY.replace(
        "            if role.admin:\n                return True\n",
        "            if role.admin and role.active:\n                return True\n",
    )


def test_block_levels_match_the_first_line_after_whitespace_normalisation() -> None:
    assert lines_of("a.py", PY, ["validate", "if   self.user.is_active :"]) == [[11, 12]]
    assert lines_of("a.py", PY, ["validate", "for role in self.user.roles"]) == [[13, 15]]
    # a prefix of the first line is enough when it is unique
    assert lines_of("a.py", PY, ["validate", "for role"]) == [[13, 15]]


RUST = """use std::fmt;

pub struct Point {
    x: i32,
}

impl Point {
    pub fn dist(&self) -> i32 {
        self.x
    }
}

impl fmt::Display for Point {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        Ok(())
    }
}
"""


@pytest.mark.parametrize(
    "levels,lines",
    [
        (["Point.dist"], [[8, 10]]),
        (["Point", "dist"], [[8, 10]]),
        (["fn dist"], [[8, 10]]),
        (["pub fn dist(&self) -> i32"], [[8, 10]]),
        (["impl Display for Point", "fmt"], [[14, 16]]),
        (["impl fmt::Display for Point"], [[13, 17]]),
        (["impl Point"], [[7, 11]]),
        (["Point"], [[3, 5]]),  # a bare type name is the type, not its impls
        (["struct Point"], [[3, 5]]),
    ],
)
def test_rust_names(levels: list[str], lines: list[list[int]]) -> None:
    assert lines_of("p.rs", RUST, levels) == lines


def test_ruby_hash_notation_names_an_instance_method() -> None:
    rb = "class User\n  def greet\n    1\n  end\nend\n"
    assert lines_of("u.rb", rb, ["User#greet"]) == [[2, 4]]


def test_go_methods_are_reached_through_their_receiver_type() -> None:
    go = "package p\n\ntype Point struct{}\n\nfunc (p *Point) Dist() int {\n\treturn 0\n}\n"
    for levels in (["Point", "Dist"], ["Point.Dist"], ["func (p *Point) Dist"], ["Dist"]):
        assert lines_of("p.go", go, levels) == [[5, 7]], levels


def test_javascript_callbacks_match_by_the_line_they_start_on() -> None:
    js = (
        "function load(items) {\n"
        "  items.forEach((item) => {\n"
        "    console.log(item);\n"
        "  });\n"
        "  return items;\n"
        "}\n"
    )
    expected = js.replace("console.log", "console.info")
    new = replace(
        "a.js",
        js,
        ["load", "items.forEach((item) => {"],
        "items.forEach((item) => {\n  console.info(item);\n});\n",
    )
    assert new == expected
    new = replace("a.js", js, ["load", "(item) =>"], "(item) => {\n  console.info(item);\n}\n")
    assert new == expected


def test_structures_inside_a_block_level() -> None:
    py = (
        "from typing import TYPE_CHECKING\n\n"
        "if TYPE_CHECKING:\n"
        "    def helper():\n"
        "        return 1\n"
        "else:\n"
        "    def helper():\n"
        "        return 2\n"
    )
    assert lines_of("a.py", py, ["if TYPE_CHECKING", "helper"]) == [[4, 5]]
    assert lines_of("a.py", py, ["if TYPE_CHECKING", "else", "helper"]) == [[7, 8]]


def test_object_literal_is_a_block() -> None:
    js = "module.exports = {\n  a: 1,\n  b: 2,\n};\n"
    new = replace("c.js", js, ["module.exports = {"], "module.exports = {\n  a: 1,\n};\n")
    assert new == "module.exports = {\n  a: 1,\n};\n"


def test_a_block_header_with_operators_is_one_level() -> None:
    py = "def f(x):\n    if x > 0:\n        return 1\n    return 0\n"
    new = replace("a.py", py, ["f", "if x > 0"], "if x > 0:\n    return 2\n")
    assert new == py.replace("return 1", "return 2")


def test_a_const_is_replaced_with_its_declaration_keyword() -> None:
    js = "export const config = {\n  a: 1,\n};\n"
    new = replace("c.js", js, ["config"], "const config = {\n  a: 2,\n};\n")
    assert new == "export const config = {\n  a: 2,\n};\n"


MD = """# Guide

## Install

- first item with a rather long text that goes past fifty characters easily
- second item

```python
print("hi")
```

```
plain first line
```

> Quoted line one
> quoted line two

### Details

More.

## Usage

Use it.
"""


@pytest.mark.parametrize(
    "levels,lines",
    [
        (["Install"], [[3, 21]]),  # a section runs to the next heading of its level or higher
        (["## Install"], [[3, 21]]),
        (["Guide", "Install", "Details"], [[19, 21]]),
        (["Details"], [[19, 21]]),
        (["- second item"], [[6, 6]]),
        (["first item with a rather long text that goes past fifty characters"], [[5, 5]]),
        (["python"], [[8, 10]]),
        (["```python"], [[8, 10]]),
        (["plain first line"], [[12, 14]]),
        (["> Quoted line one"], [[16, 17]]),
    ],
)
def test_markdown_targets(levels: list[str], lines: list[list[int]]) -> None:
    assert lines_of("g.md", MD, levels) == lines


def test_markdown_section_replacement_keeps_the_next_heading() -> None:
    new = replace("g.md", MD, ["Details"], "### Details\n\nLess.\n")
    assert new == MD.replace("### Details\n\nMore.\n", "### Details\n\nLess.\n")


# ----------------------------------------------------------------------------- boundaries


def test_python_decorators_and_comment_above_belong_to_the_function() -> None:
    text = "x = 1\n\n# Doc line.\n@cache\n@other(1)\ndef f():\n    return 1\n"
    assert lines_of("a.py", text, ["f"]) == [[3, 7]]


def test_comment_separated_by_a_blank_line_does_not_belong() -> None:
    text = "# Section header.\n\ndef f():\n    return 1\n"
    assert lines_of("a.py", text, ["f"]) == [[3, 4]]


def test_trailing_comment_of_previous_code_does_not_belong() -> None:
    text = "x = 1  # about x\ndef f():\n    return 1\n"
    assert lines_of("a.py", text, ["f"]) == [[2, 3]]


def test_java_annotations_and_javadoc_belong_to_the_method() -> None:
    java = (
        "class A {\n"
        "    /** Saves. */\n"
        "    @Override\n"
        "    @Deprecated\n"
        "    public void save() {}\n"
        "}\n"
    )
    assert lines_of("A.java", java, ["A", "save"]) == [[2, 5]]


def test_rust_attributes_and_doc_comments_belong_to_the_item() -> None:
    rs = "/// A point.\n#[derive(Debug)]\n#[repr(C)]\npub struct P {\n    x: i32,\n}\n"
    assert lines_of("p.rs", rs, ["P"]) == [[1, 6]]


def test_typescript_decorators_and_export_wrappers_belong() -> None:
    ts = (
        "/** The app. */\nexport class App {\n  @Input()\n  name = 1;\n\n"
        "  @HostListener('click')\n  onClick() {}\n}\n"
    )
    assert lines_of("a.ts", ts, ["App"]) == [[1, 8]]
    assert lines_of("a.ts", ts, ["App", "onClick"]) == [[6, 7]]


def test_export_wrapper_is_kept_when_the_new_code_omits_it() -> None:
    tsx = "export default function App() {\n  return <div />;\n}\n"
    new = replace("a.tsx", tsx, ["App"], "function App() {\n  return <main />;\n}\n")
    assert new == "export default function App() {\n  return <main />;\n}\n"


def test_export_wrapper_is_not_doubled_when_the_new_code_repeats_it() -> None:
    tsx = "import x from 'y';\n\nexport function App() {\n  return <div />;\n}\n"
    new = replace("a.tsx", tsx, ["App"], "export function App() {\n  return <main />;\n}\n")
    assert new == "import x from 'y';\n\nexport function App() {\n  return <main />;\n}\n"
    assert "export export" not in new


def test_export_const_arrow_component() -> None:
    tsx = "export const Card = ({ title }) => {\n  return <h1>{title}</h1>;\n};\n"
    new = replace(
        "c.tsx",
        tsx,
        ["component Card"],
        "const Card = ({ title }) => {\n  return <h2>{title}</h2>;\n};\n",
    )
    assert new == "export const Card = ({ title }) => {\n  return <h2>{title}</h2>;\n};\n"


def test_decorators_are_kept_unless_the_new_code_brings_its_own() -> None:
    py = "class A:\n    @property\n    def f(self):\n        return 1\n"
    kept = replace("a.py", py, ["A", "f"], "def f(self):\n    return 2\n")
    assert kept == "class A:\n    @property\n    def f(self):\n        return 2\n"
    swapped = replace("a.py", py, ["A", "f"], "@cached_property\ndef f(self):\n    return 2\n")
    assert swapped == "class A:\n    @cached_property\n    def f(self):\n        return 2\n"


def test_doc_comment_is_replaced_only_when_the_new_code_has_one() -> None:
    go = "package p\n\n// Old doc.\nfunc F() {}\n"
    assert (
        replace("f.go", go, ["F"], "func F() { g() }\n")
        == "package p\n\n// Old doc.\nfunc F() { g() }\n"
    )
    assert (
        replace("f.go", go, ["F"], "// New doc.\nfunc F() { g() }\n")
        == "package p\n\n// New doc.\nfunc F() { g() }\n"
    )


def test_c_struct_semicolon_is_kept() -> None:
    c = "struct P { int x; };\nint y;\n"
    assert (
        replace("p.c", c, ["struct P"], "struct P { long x; }\n")
        == "struct P { long x; };\nint y;\n"
    )
    assert (
        replace("p.c", c, ["struct P"], "struct P { long x; };\n")
        == "struct P { long x; };\nint y;\n"
    )


# ----------------------------------------------------------------------------- indentation


def test_code_sent_at_column_zero_is_indented_to_the_node() -> None:
    py = "class A:\n    def f(self):\n        return 1\n"
    new = replace(
        "a.py", py, ["A", "f"], "def f(self):\n    if x:\n        return 2\n    return 1\n"
    )
    assert (
        new == "class A:\n    def f(self):\n        if x:\n            return 2\n        return 1\n"
    )


def test_code_sent_at_a_wrong_indent_is_shifted() -> None:
    py = "class A:\n    def f(self):\n        return 1\n"
    new = replace("a.py", py, ["A", "f"], "            def f(self):\n                return 2\n")
    assert new == "class A:\n    def f(self):\n        return 2\n"


def test_first_line_stripped_but_body_at_file_indentation() -> None:
    py = "class A:\n    def f(self):\n        return 1\n"
    new = replace("a.py", py, ["A", "f"], "def f(self):\n        return 2\n")
    assert new == "class A:\n    def f(self):\n        return 2\n"


def test_spaces_become_tabs_in_a_tab_indented_file() -> None:
    go = "package p\n\nfunc F() {\n\tif x {\n\t\treturn\n\t}\n}\n"
    new = replace(
        "f.go",
        go,
        ["F"],
        "func F() {\n    for {\n        if y {\n            break\n        }\n    }\n}\n",
    )
    assert new == "package p\n\nfunc F() {\n\tfor {\n\t\tif y {\n\t\t\tbreak\n\t\t}\n\t}\n}\n"


def test_two_space_code_becomes_four_space_in_a_four_space_file() -> None:
    java = "class A {\n    void f() {\n        g();\n    }\n}\n"
    new = replace("A.java", java, ["A", "f"], "void f() {\n  if (x) {\n    g();\n  }\n}\n")
    assert (
        new
        == "class A {\n    void f() {\n        if (x) {\n            g();\n        }\n    }\n}\n"
    )


def test_tabs_become_spaces_in_a_space_indented_file() -> None:
    py = "class A:\n    def f(self):\n        return 1\n"
    new = replace("a.py", py, ["A", "f"], "def f(self):\n\tif x:\n\t\treturn 2\n")
    assert new == "class A:\n    def f(self):\n        if x:\n            return 2\n"


def test_blank_lines_inside_new_code_carry_no_whitespace() -> None:
    py = "class A:\n    def f(self):\n        return 1\n"
    new = replace("a.py", py, ["A", "f"], "def f(self):\n    a = 1\n\n    return a\n")
    assert new == "class A:\n    def f(self):\n        a = 1\n\n        return a\n"


def test_crlf_files_stay_crlf() -> None:
    py = (
        "class A:\r\n    def f(self):\r\n        return 1\r\n\r\n"
        "    def g(self):\r\n        pass\r\n"
    )
    new = replace("a.py", py, ["A", "f"], "def f(self):\n    return 2\n")
    assert new == py.replace("return 1", "return 2")


def test_non_ascii_names_and_text() -> None:
    py = (
        "class Größe:\n    def grüße(self):\n        return 'héllo'  # ünïcode\n\n"
        "    def x(self):\n        pass\n"
    )
    new = replace("a.py", py, ["Größe", "grüße"], "def grüße(self):\n    return '世界'\n")
    assert new == py.replace("return 'héllo'  # ünïcode", "return '世界'")


# ----------------------------------------------------------------------------- choosing


def test_direct_child_wins_over_a_deeper_namesake() -> None:
    py = (
        "class A:\n"
        "    class Inner:\n"
        "        def validate(self):\n"
        "            return 1\n"
        "\n"
        "    def validate(self):\n"
        "        return 2\n"
    )
    assert lines_of("a.py", py, ["A", "validate"]) == [[6, 7]]
    assert lines_of("a.py", py, ["A", "Inner", "validate"]) == [[3, 4]]


def test_signature_picks_one_overload() -> None:
    java = "class A {\n  void save(int x) {}\n  void save(String s) {}\n}\n"
    new = replace("A.java", java, ["A", "void save(String s)"], "void save(String s) { log(s); }\n")
    assert new == "class A {\n  void save(int x) {}\n  void save(String s) { log(s); }\n}\n"


def test_a_definition_wins_over_declarations_of_the_same_name() -> None:
    ts = (
        "function f(a: string): void;\nfunction f(a: number): void;\n"
        "function f(a: any) {\n  return a;\n}\n"
    )
    assert lines_of("a.ts", ts, ["f"]) == [[3, 5]]
    c = "int add(int a, int b);\n\nint add(int a, int b) {\n    return a + b;\n}\n"
    assert lines_of("a.c", c, ["add"]) == [[3, 5]]


def test_kind_word_disambiguates() -> None:
    rs = "struct Point {}\n\nimpl Point {\n    fn new() -> Self { Point {} }\n}\n"
    assert lines_of("p.rs", rs, ["impl Point"]) == [[3, 5]]
    assert lines_of("p.rs", rs, ["struct Point"]) == [[1, 1]]


def test_names_in_comments_and_strings_never_match() -> None:
    from lsp_server.model import PlacementError

    py = "# validate lives elsewhere\nMSG = 'def validate(self):'\n"
    with pytest.raises(PlacementError) as err:
        replace("a.py", py, ["validate"], "def validate(self):\n    pass\n")
    assert err.value.failure.code == "TARGET_NOT_FOUND"


# ----------------------------------------------------------------------------- properties

NAMES = st.from_regex(r"[a-z][a-z0-9_]{0,8}", fullmatch=True).filter(
    lambda n: not keyword.iskeyword(n)
)


@settings(max_examples=40, deadline=None)
@given(
    names=st.lists(NAMES, min_size=1, max_size=6, unique=True),
    bodies=st.lists(st.integers(0, 999), min_size=6, max_size=6),
    pick=st.integers(0, 5),
    nested=st.booleans(),
    new_value=st.integers(1000, 2000),
)
def test_replacing_one_function_leaves_every_other_byte_alone(
    names: list[str], bodies: list[int], pick: int, nested: bool, new_value: int
) -> None:
    pick %= len(names)
    indent = "    " if nested else ""
    sep = "\n" if nested else "\n\n"
    funcs = [
        f"{indent}def {n}(x):\n{indent}    return x + {bodies[i]}\n" for i, n in enumerate(names)
    ]
    head = "class Box:\n" if nested else ""
    text = head + sep.join(funcs)
    levels = (["Box"] if nested else []) + [names[pick]]
    new = replace("m.py", text, levels, f"def {names[pick]}(x):\n    return x - {new_value}\n")
    funcs[pick] = f"{indent}def {names[pick]}(x):\n{indent}    return x - {new_value}\n"
    assert new == head + sep.join(funcs)


@settings(max_examples=40, deadline=None)
@given(
    shape=st.lists(st.integers(0, 3), min_size=1, max_size=8),
    base=st.integers(0, 3),
)
def test_relative_indentation_of_new_code_is_preserved(shape: list[int], base: int) -> None:
    # a block whose lines go up by one level at a time, sent at an arbitrary base indent
    depth = [0]
    for step in shape:
        depth.append(min(depth[-1] + 1, step))
    body = "".join(f"{'    ' * (base + d + 1)}x{i} = {d}\n" for i, d in enumerate(depth))
    content = f"{'    ' * base}def f(self):\n" + body
    py = "class A:\n    def f(self):\n        pass\n"
    new = replace("a.py", py, ["A", "f"], content)
    got = new.split("\n")[2:-1]
    expected = [f"{'    ' * (d + 2)}x{i} = {d}" for i, d in enumerate(depth)]
    assert got == expected


def test_jsx_elements_are_reached_by_their_opening_tag() -> None:
    tsx = (
        "export default function App() {\n"
        "  return (\n"
        '    <div className="app">\n'
        '      <Header title="x" />\n'
        "      <ul>\n"
        "        <li>One</li>\n"
        "      </ul>\n"
        "    </div>\n"
        "  );\n"
        "}\n"
    )
    new = replace("App.tsx", tsx, ["App", "<ul>"], "<ul>\n  <li>Two</li>\n</ul>\n")
    assert new == tsx.replace("<li>One</li>", "<li>Two</li>")
    new = replace(
        "App.tsx", tsx, ["App", '<div className="app">', "<Header"], '<Header title="y" />\n'
    )
    assert new == tsx.replace('title="x"', 'title="y"')


def test_html_elements_by_tag_id_class_or_opening_tag() -> None:
    html = (
        '<body>\n  <div id="main" class="card">\n    <p>Hi</p>\n  </div>\n  <p>Out</p>\n</body>\n'
    )
    for level in ("div#main", "#main", ".card", "div.card", '<div id="main" class="card">'):
        assert lines_of("a.html", html, [level]) == [[2, 4]], level
    assert lines_of("a.html", html, ["div", "p"]) == [[3, 3]]


# ----------------------------------------------------------------------------- fast paths


@contextmanager
def _whole_index_only() -> Iterator[None]:
    """Resolution as it was before the fast paths: every lookup walks the whole index."""
    # without a name search, the first level is looked for depth by depth from the
    # top-level structures, and owned structures come from the whole index
    with mock.patch.object(outline, "named", lambda *a, **k: None):
        yield


def _outcome(fn: Callable[[], Any]) -> Any:
    try:
        return ("ok", fn())
    except PlacementError as err:
        return ("error", err.failure.code, err.failure.message, err.failure.details)


def _resolved(p: Parsed, levels: list[str]) -> Any:
    found, matched = targets.resolve_path(p, levels)
    return [describe(i) for i in found], matched


@settings(max_examples=120, deadline=None)
@given(
    lang=st.sampled_from(sorted(LANGS)),
    seed=st.integers(0, 10**9),
    units=st.integers(1, 14),
    edits=st.integers(0, 2),
)
def test_resolving_by_name_agrees_with_resolving_on_the_whole_index(
    lang: str, seed: int, units: int, edits: int
) -> None:
    r = random.Random(seed)
    text = source_file(lang, r, units)
    for _ in range(edits):
        text = random_edit(text, r)
    for _ in range(4):
        levels = random_levels(lang, r)
        fast = _outcome(lambda: _resolved(fresh(lang, text), levels))  # noqa: B023
        with _whole_index_only():
            slow = _outcome(lambda: _resolved(fresh(lang, text), levels))  # noqa: B023
        assert fast == slow, levels


@settings(max_examples=40, deadline=None)
@given(lang=st.sampled_from(sorted(LANGS)), seed=st.integers(0, 10**9))
def test_a_document_being_edited_gets_the_edits_a_fresh_parse_gets(lang: str, seed: int) -> None:
    """The cached, incrementally re-parsed, lazily indexed document against a fresh,
    fully indexed parse of each version, for every operation that edits in place."""
    r = random.Random(seed)
    ext = LANGS[lang][0]
    doc, ref = f"doc_{seed}.{ext}", f"ref_{seed}.{ext}"
    text = source_file(lang, r, r.randint(2, 10))
    ops = ["replace_structure", "insert_after_structure", "delete_structure", "read_structure"]
    try:
        for _ in range(5):
            text = random_edit(text, r) if r.random() < 0.7 else text
            target = Target(node=tuple(random_levels(lang, r)), operation=r.choice(ops))
            code = LANGS[lang][1](r)
            fast = _outcome(
                lambda: _edit_values(apply_structure(text, doc, target, code))  # noqa: B023
            )
            with _whole_index_only():
                syntax.forget(ref)
                slow = _outcome(
                    lambda: _edit_values(apply_structure(text, ref, target, code))  # noqa: B023
                )
            assert fast == slow, target
    finally:
        syntax.forget(doc)
        syntax.forget(ref)


def _edit_values(edit: StructureEdit) -> Any:
    return edit.text, edit.placement, edit.result
