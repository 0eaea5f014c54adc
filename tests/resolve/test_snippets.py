"""Snippet placement (resolve.snippets): definitions placed by kind, name and scope, in
eight languages; the whole-file-or-snippet rule; refusals; a property test."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lsp_server.model import ErrorCode, MatchKind, PlacementError
from lsp_server.resolve.merge.shape import is_fragment
from lsp_server.resolve.merge.snippet import MAX_DEFINITIONS, place_snippet
from tests.resolve.snippet_samples import SAMPLES

LANGS = sorted(SAMPLES)


def _between(text: str, start: str, stop: str | None) -> str:
    """The text from the first `start` to the next `stop` (or the end)."""
    at = text.index(start)
    end = text.index(stop, at + len(start)) if stop else len(text)
    return text[at:end]


@pytest.mark.parametrize("lang", LANGS)
def test_method_inside_an_elided_class_replaces_only_that_method(lang):
    s = SAMPLES[lang]
    edit = place_snippet(s.file, s.path, s.elided_class)
    out = edit.text
    assert "NEW" in out and out.count("NEW") == 1
    assert s.new_doc in out and s.old_doc not in out  # the doc comment went with it
    assert "... existing code ..." not in out and "// ...\n" not in out
    # the rest of the file is byte for byte what it was
    before, after = s.file.split(s.old_doc, 1)
    assert out.startswith(before)
    tail = after[after.index("rea") :]  # from `area` / `Area` on, nothing changed
    assert out.endswith(tail)
    assert all(p.match is MatchKind.SNIPPET for p in edit.placements)


@pytest.mark.parametrize("lang", [lang for lang in LANGS if lang != "go"])
def test_bare_method_matching_two_classes_is_ambiguous_and_names_both(lang):
    s = SAMPLES[lang]
    with pytest.raises(PlacementError) as err:
        place_snippet(s.file, s.path, s.bare_describe)
    failure = err.value.failure
    assert failure.code is ErrorCode.TARGET_AMBIGUOUS
    assert len(failure.details["matches"]) == 2
    message = failure.message
    assert "Shape" in message and "Circle" in message


@pytest.mark.parametrize("lang", LANGS)
def test_new_method_lands_next_to_its_snippet_neighbour(lang):
    s = SAMPLES[lang]
    out = place_snippet(s.file, s.path, s.area_and_new).text
    area = out.index("NEW")
    perimeter = out.lower().index("perimeter")
    circle = out.index("Circle")
    # after the changed `area`, inside Shape (before Circle's definition)
    assert area < perimeter < circle
    assert out.count("erimeter") == 1
    lines = out.split("\n")
    area_line = next(x for x in lines if "rea(" in x or x.strip() == "def area")
    perimeter_line = next(x for x in lines if "erimeter" in x)
    # re-indented like its neighbour
    assert len(area_line) - len(area_line.lstrip()) == len(perimeter_line) - len(
        perimeter_line.lstrip()
    )


@pytest.mark.parametrize("lang", LANGS)
def test_imports_the_file_lacks_are_added_once_and_others_left(lang):
    s = SAMPLES[lang]
    out = place_snippet(s.file, s.path, s.imports).text
    assert out.count(s.new_import.strip()) == 1
    first_import = s.file.split("\n")[0] if lang != "go" else '\t"fmt"'
    if lang in ("java", "go"):
        first_import = {"java": "import java.util.List;", "go": '\t"fmt"'}[lang]
    assert out.count(first_import) == 1
    # the new import joins the import block, before the code
    assert out.index(s.new_import) < out.index("Shape")
    assert s.new_doc in out and s.old_doc not in out


@pytest.mark.parametrize("lang", LANGS)
def test_placing_a_snippet_twice_changes_nothing_the_second_time(lang):
    s = SAMPLES[lang]
    once = place_snippet(s.file, s.path, s.elided_class).text
    assert place_snippet(once, s.path, s.elided_class).text == once


def test_a_go_function_without_a_receiver_is_not_taken_for_a_method():
    s = SAMPLES["go"]
    out = place_snippet(s.file, s.path, s.bare_describe).text
    assert out == s.file + "\n" + s.bare_describe  # new, at the end: the methods stay


def test_a_go_method_matches_its_receivers_only():
    s = SAMPLES["go"]
    snippet = 'func (c *Circle) Describe() string {\n\treturn "NEW"\n}\n'
    out = place_snippet(s.file, s.path, snippet).text
    assert out == s.file.replace('fmt.Sprint("circle")', '"NEW"')


def test_decorators_go_with_the_definition_they_belong_to():
    file = (
        "import functools\n\n\n@functools.cache\ndef compute(x):\n    return x\n\n\n"
        "def other():\n    return 1\n"
    )
    snippet = "@functools.lru_cache(maxsize=8)\ndef compute(x):\n    return x * 2\n"
    out = place_snippet(file, "a.py", snippet).text
    assert "@functools.cache" not in out
    assert "@functools.lru_cache(maxsize=8)\ndef compute(x):\n    return x * 2\n" in out
    assert out.endswith("def other():\n    return 1\n")


def test_a_decorator_the_snippet_does_not_restate_is_kept():
    file = "class A:\n    @property\n    def name(self):\n        return 1\n"
    out = place_snippet(file, "a.py", "    def name(self):\n        return 2\n").text
    assert out == "class A:\n    @property\n    def name(self):\n        return 2\n"


def test_new_function_with_no_neighbour_goes_before_the_main_guard():
    file = 'def main():\n    pass\n\n\nif __name__ == "__main__":\n    main()\n'
    out = place_snippet(file, "a.py", "def helper():\n    return 1\n").text
    assert out == (
        "def main():\n    pass\n\n\ndef helper():\n    return 1\n\n\n"
        'if __name__ == "__main__":\n    main()\n'
    )


def test_new_function_with_no_neighbour_goes_to_the_end_of_the_file():
    file = "package main\n\nfunc main() {\n\tprintln()\n}\n"
    out = place_snippet(file, "main.go", "func helper() int {\n    return 1\n}\n").text
    assert out == file + "\nfunc helper() int {\n\treturn 1\n}\n"


def test_new_helper_before_the_function_it_precedes_in_the_snippet():
    file = "def a():\n    return 0\n\n\ndef compute():\n    return 1\n"
    snippet = "def helper():\n    return 2\n\n\ndef compute():\n    return helper()\n"
    out = place_snippet(file, "m.py", snippet).text
    assert out == (
        "def a():\n    return 0\n\n\ndef helper():\n    return 2\n\n\n"
        "def compute():\n    return helper()\n"
    )


def test_a_statement_that_cannot_be_placed_refuses_the_snippet():
    file = "def compute():\n    return 1\n"
    snippet = "def compute():\n    return 2\n\nprint(compute())\n"
    with pytest.raises(PlacementError) as err:
        place_snippet(file, "m.py", snippet)
    assert err.value.failure.code is ErrorCode.TEXT_NOT_FOUND
    assert "print(compute())" in err.value.failure.message


def test_a_statement_already_in_the_file_is_accepted():
    file = "import os\n\nDEBUG = os.environ.get('D')\n\n\ndef compute():\n    return 1\n"
    snippet = "def compute():\n    return 2\n\n\nprint('x') if False else None\n"
    with pytest.raises(PlacementError):
        place_snippet(file, "m.py", snippet)
    snippet = "DEBUG = os.environ.get('D')\n\n\ndef compute():\n    return 2\n"
    out = place_snippet(file, "m.py", snippet).text
    assert out.endswith("def compute():\n    return 2\n") and out.count("DEBUG") == 1


def test_a_class_line_the_file_lacks_refuses_the_merge():
    file = (
        "class A:\n    x = 1\n\n    def f(self):\n        return 1\n\n"
        "    def g(self):\n        pass\n"
    )
    snippet = "class A:\n    print('side effect')\n\n    def f(self):\n        return 2\n"
    with pytest.raises(PlacementError) as err:
        place_snippet(file, "a.py", snippet)
    assert err.value.failure.code is ErrorCode.TEXT_NOT_FOUND
    assert "print('side effect')" in err.value.failure.message


def test_a_changed_class_line_replaces_the_files():
    file = "class A:\n    def f(self):\n        return 1\n\n    def g(self):\n        pass\n"
    snippet = "class A(Base):\n    def f(self):\n        return 2\n"
    out = place_snippet(file, "a.py", snippet).text
    assert (
        out
        == "class A(Base):\n    def f(self):\n        return 2\n\n    def g(self):\n        pass\n"
    )


def test_a_function_body_with_a_placeholder_is_merged_around_it():
    file = "def f(x):\n    a = 1\n    b = 2\n    return a + b\n"
    snippet = "def f(x):\n    a = 1\n    # ... existing code ...\n    return a + b + x\n"
    out = place_snippet(file, "a.py", snippet).text
    assert out == "def f(x):\n    a = 1\n    b = 2\n    return a + b + x\n"


def test_re_indented_to_the_files_style():
    file = "class A:\n\tdef f(self):\n\t\treturn 1\n"
    out = place_snippet(file, "a.py", "def f(self):\n    if True:\n        return 2\n").text
    assert out == "class A:\n\tdef f(self):\n\t\tif True:\n\t\t\treturn 2\n"


def test_whole_class_restated_replaces_it():
    file = "class A:\n    def f(self):\n        return 1\n\n\ndef g():\n    pass\n"
    snippet = "class A:\n    def f(self):\n        return 2\n\n    def h(self):\n        pass\n"
    out = place_snippet(file, "a.py", snippet).text
    assert out == (
        "class A:\n    def f(self):\n        return 2\n\n    def h(self):\n        pass\n\n\n"
        "def g():\n    pass\n"
    )


def test_a_snippet_without_definitions_is_refused():
    with pytest.raises(PlacementError) as err:
        place_snippet("x = 1\n", "a.py", "print(1)\n")
    assert err.value.failure.code is ErrorCode.TARGET_NOT_FOUND


# --------------------------------------------------------------------------- whole file or snippet


def test_a_whole_file_rewrite_is_not_a_fragment():
    file = "import os\n\n\ndef f():\n    return 1\n\n\nif __name__ == '__main__':\n    f()\n"
    rewrite = file.replace("return 1", "return 2")
    assert not is_fragment(file, "a.py", rewrite)


def test_one_definition_of_a_larger_file_is_a_fragment():
    file = "def f():\n    return 1\n\n\ndef g():\n    return 2\n\n\ndef h():\n    return 3\n"
    assert is_fragment(file, "a.py", "def g():\n    return 20\n")
    assert is_fragment(file, "a.py", "    def g(self):\n        return 20\n")  # indented


def test_definitions_without_the_main_guard_are_a_fragment():
    file = "def f():\n    return 1\n\n\nif __name__ == '__main__':\n    f()\n"
    assert is_fragment(file, "a.py", "def f():\n    return 2\n")


def test_placeholders_between_definitions_are_the_lazy_merges():
    file = "def f():\n    return 1\n\n\ndef g():\n    return 2\n"
    assert not is_fragment(file, "a.py", "# ... existing code ...\n\ndef g():\n    return 3\n")


def test_prose_documents_and_data_are_never_fragments():
    assert not is_fragment("# A\n\ntext\n\n# B\n\nmore\n", "README.md", "# B\n\nnew\n")
    assert not is_fragment('{"a": 1, "b": 2}\n', "x.json", '{"a": 3}\n')
    assert not is_fragment("a\nb\n", "notes.txt", "a\n")


# --------------------------------------------------------------------------- property


_NAMES = st.lists(st.from_regex(r"[a-z]{3,8}", fullmatch=True), min_size=2, max_size=6, unique=True)
_BODY = st.lists(
    st.sampled_from(["x = 1", "y = x + 2", "if x:\n    return x", "return None", "pass"]),
    min_size=1,
    max_size=4,
)


@st.composite
def _module(draw):
    names = draw(_NAMES)
    functions = []
    for name in names:
        body = draw(_BODY)
        lines = [f"def {name}(x):"]
        for stmt in body:
            lines += ["    " + s for s in stmt.split("\n")]
        functions.append("\n".join(lines) + "\n")
    pick = draw(st.integers(0, len(names) - 1))
    new_body = draw(_BODY)
    lines = [f"def {names[pick]}(x, y=0):"]
    for stmt in new_body:
        lines += ["    " + s for s in stmt.split("\n")]
    lines.append("    return y  # changed")
    return functions, pick, "\n".join(lines) + "\n"


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_module(), st.booleans())
def test_replacing_one_function_changes_only_its_lines(generated, main_guard):
    functions, pick, snippet = generated
    head = "import os\n\n\n"
    tail = '\n\nif __name__ == "__main__":\n    pass\n' if main_guard else ""
    file = head + "\n\n".join(functions) + tail
    # the reading "replace it as written": a restatement that stops before the file's
    # definition does is otherwise refused, offering this reading and keep-the-rest
    out = place_snippet(file, "m.py", snippet, rest="drop").text
    # the oracle: the text before and after the chosen function, cut by string position
    start = file.index(functions[pick])
    end = start + len(functions[pick])
    assert out.startswith(file[:start])
    assert out.endswith(file[end:])
    assert out[start : len(out) - (len(file) - end)] == snippet


def test_a_snippet_that_does_not_parse_is_refused():
    file = "def f():\n    return 1\n"
    with pytest.raises(PlacementError) as err:
        place_snippet(file, "a.py", "def f(:\n    return 2\n")
    assert err.value.failure.code is ErrorCode.PARSER_FAILED
    assert err.value.failure.details["lines"] == [1]


@pytest.mark.parametrize("lang", [lang for lang in LANGS if lang != "go"])
def test_a_new_member_shown_without_its_class_or_a_neighbour_is_refused(lang):
    s = SAMPLES[lang]
    lone = s.area_and_new[s.area_and_new.lower().index("\n\n") + 2 :]  # `perimeter` alone
    with pytest.raises(PlacementError) as err:
        place_snippet(s.file, s.path, lone)
    assert err.value.failure.code is ErrorCode.TARGET_NOT_FOUND
    assert "class" in err.value.failure.message


def test_a_rewrite_that_renames_a_function_is_the_whole_file():
    file = "import os\n\n\ndef old_name():\n    return 1\n\n\ndef other():\n    return 2\n"
    rewrite = file.replace("old_name", "new_name")
    assert not is_fragment(file, "a.py", rewrite)


def test_new_definitions_without_the_files_imports_are_a_fragment():
    file = "import os\n\n\ndef f():\n    return os.sep\n\n\ndef g():\n    return 2\n"
    assert is_fragment(file, "a.py", "def f():\n    return 1\n\n\ndef h():\n    return 3\n")


def test_a_merged_class_takes_the_decorator_the_snippet_restates():
    file = (
        "from dataclasses import dataclass\n\n\n@dataclass\nclass P:\n    x: int\n    y: int\n\n"
        "    def norm(self):\n        return self.x\n"
    )
    snippet = "@dataclass(frozen=True)\nclass P:\n    x: int\n    y: int\n    z: int = 0\n"
    out = place_snippet(file, "a.py", snippet).text
    assert out == file.replace("@dataclass\n", "@dataclass(frozen=True)\n").replace(
        "    y: int\n", "    y: int\n    z: int = 0\n"
    )


@pytest.mark.parametrize(
    ("path", "file", "snippet", "expected"),
    [
        (
            "a.cpp",
            "class Shape {\npublic:\n    int area() const {\n        return 0;\n    }\n};\n",
            "int area() const {\n    return 1;\n}\n",
            "class Shape {\npublic:\n    int area() const {\n        return 1;\n    }\n};\n",
        ),
        (
            "a.rb",
            "class Shape\n  def area\n    0\n  end\nend\n",
            "def area\n  1\nend\n",
            "class Shape\n  def area\n    1\n  end\nend\n",
        ),
    ],
)
def test_an_unindented_method_matches_its_one_namesake_in_a_class(path, file, snippet, expected):
    assert place_snippet(file, path, snippet).text == expected


def test_a_python_function_without_self_is_not_taken_for_a_method():
    file = "class Repo:\n    def save(self, data):\n        return 1\n"
    out = place_snippet(file, "a.py", "def save(data):\n    return 2\n").text
    assert out == file + "\n\ndef save(data):\n    return 2\n"


def test_a_trait_impl_is_not_merged_into_the_inherent_impl():
    file = "pub struct S;\n\nimpl S {\n    pub fn new() -> Self {\n        S\n    }\n}\n"
    snippet = (
        "impl std::fmt::Display for S {\n    fn fmt(&self, f: &mut std::fmt::Formatter) "
        '-> std::fmt::Result {\n        write!(f, "S")\n    }\n}\n'
    )
    out = place_snippet(file, "lib.rs", snippet).text
    assert out == file + "\n" + snippet


def test_an_overloaded_function_is_replaced_at_its_definition_not_its_signatures():
    file = (
        "export function f(a: string): string;\nexport function f(a: number): number;\n"
        "export function f(a: any): any {\n  return a;\n}\n"
    )
    out = place_snippet(file, "a.ts", "export function f(a: any): any {\n  return a ?? 0;\n}\n")
    assert out.text == file.replace("return a;", "return a ?? 0;")


def test_a_class_shown_without_its_members_never_empties_the_files():
    file = "class A:\n    def f(self):\n        return 1\n"
    out = place_snippet(file, "a.py", "class A(Base):\n    ...\n").text
    assert out == "class A(Base):\n    def f(self):\n        return 1\n"
    with pytest.raises(PlacementError) as err:
        place_snippet(file, "a.py", "class A(Base):\n    pass\n")
    assert err.value.failure.code is ErrorCode.TEXT_NOT_FOUND


def test_a_snippet_of_very_many_definitions_is_refused_and_is_no_fragment():
    many = "".join(f"def f{k}():\n    return {k}\n\n\n" for k in range(MAX_DEFINITIONS + 1))
    with pytest.raises(PlacementError) as err:
        place_snippet("def g():\n    pass\n", "a.py", many)
    assert err.value.failure.code is ErrorCode.CONTENT_TOO_LARGE
    assert not is_fragment("def g():\n    pass\n", "a.py", many)


STRAY = {
    "python": 'print("stray")',
    "javascript": 'console.log("stray");',
    "typescript": 'console.log("stray");',
    "tsx": 'console.log("stray");',
    "go": 'fmt.Println("stray")',
    "rust": 'println!("stray");',
    "java": 'System.out.println("stray");',
    "csharp": 'Console.WriteLine("stray");',
    "ruby": 'puts "stray"',
}


@pytest.mark.parametrize("lang", LANGS)
def test_a_statement_the_file_lacks_refuses_the_snippet_in_every_language(lang):
    s = SAMPLES[lang]
    with pytest.raises(PlacementError) as err:
        place_snippet(s.file, s.path, s.elided_class + "\n" + STRAY[lang] + "\n")
    failure = err.value.failure
    # a statement where the language allows one is looked for by the text ladder; where it
    # does not (Go, Rust, Java), the snippet does not parse: refused either way, never dropped
    assert failure.code in (ErrorCode.TEXT_NOT_FOUND, ErrorCode.PARSER_FAILED)
    if failure.code is ErrorCode.TEXT_NOT_FOUND:
        assert "stray" in failure.message


@st.composite
def _class_module(draw):
    names = draw(_NAMES)
    methods = []
    for name in names:
        lines = [f"    def {name}(self, x):"]
        for stmt in draw(_BODY):
            lines += ["        " + s for s in stmt.split("\n")]
        methods.append("\n".join(lines) + "\n")
    pick = draw(st.integers(0, len(names) - 1))
    body = ["    def " + names[pick] + "(self, x, y=0):", "        return y  # changed"]
    marker = draw(st.sampled_from(["    # ... existing code ...", "    ...", None]))
    snippet = "class Box:\n" + (marker + "\n" if marker else "") + "\n".join(body) + "\n"
    return methods, pick, snippet


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_class_module())
def test_a_class_snippet_eliding_the_rest_changes_only_its_one_method(generated):
    methods, pick, snippet = generated
    file = "import os\n\n\nclass Box:\n" + "\n".join(methods) + "\n\ndef after():\n    pass\n"
    out = place_snippet(file, "m.py", snippet).text
    start = file.index(methods[pick])
    end = start + len(methods[pick])
    assert out.startswith(file[:start]) and out.endswith(file[end:])
    new = snippet.split("\n", 1)[1].split("\n")
    new_method = "\n".join(ln for ln in new if "def " in ln or "changed" in ln) + "\n"
    assert out[start : len(out) - (len(file) - end)] == new_method


def test_a_function_local_to_a_component_is_matched_when_the_file_has_no_other():
    file = (
        'import { useState } from "react";\n\nexport default function Form() {\n'
        '  const [v, setV] = useState("");\n\n  const handleSubmit = (e) => {\n'
        "    e.preventDefault();\n  };\n\n  return <form onSubmit={handleSubmit} />;\n}\n"
    )
    snippet = "const handleSubmit = async (e) => {\n  e.preventDefault();\n  await save(v);\n};\n"
    out = place_snippet(file, "src/Form.jsx", snippet).text
    assert out == file.replace(
        "  const handleSubmit = (e) => {\n    e.preventDefault();\n  };\n",
        "  const handleSubmit = async (e) => {\n    e.preventDefault();\n"
        "    await save(v);\n  };\n",
    )
