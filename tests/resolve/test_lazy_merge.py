"""Lazy whole-file merge: placeholders keep the file's code, and never reach the file."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lsp_server.model import ErrorCode, MatchKind, PlacementError
from lsp_server.resolve.merge.lazy import lazy_merge, merge
from lsp_server.resolve.placeholders import has_placeholder, is_placeholder_line

# --- merges ---------------------------------------------------------------------------------

CALC = """class Calculator {
  constructor() {
    this.result = 0;
  }

  add(number) {
    this.result += number;
    return this;
  }

  reset() {
    this.result = 0;
    return this;
  }
}
"""


def test_new_method_at_the_end_of_a_class() -> None:
    snippet = """class Calculator {
  // ... existing code ...

  exp(a) {
    this.result = Math.pow(this.result, a);
    return this;
  }
}
"""
    out = lazy_merge(CALC, snippet, "calc.js")
    assert out == CALC.replace(
        "    return this;\n  }\n}\n",
        "    return this;\n  }\n\n  exp(a) {\n    this.result = Math.pow(this.result, a);\n"
        "    return this;\n  }\n}\n",
    )
    assert out.count("reset() {") == 1 and "..." not in out


def test_new_method_between_two_placeholders() -> None:
    snippet = """class Calculator {
  constructor() {
    this.result = 0;
  }

  // ... existing code ...

  exp(a) {
    return this;
  }

  // ... existing code ...
}
"""
    out = lazy_merge(CALC, snippet)
    assert out.endswith("    return this;\n  }\n\n  exp(a) {\n    return this;\n  }\n}\n")
    assert "add(number)" in out


def test_head_line_modified_and_tail_replaced() -> None:
    original = (
        "from fastapi import FastAPI\n\napp = FastAPI()\n\n@app.get('/')\ndef root():\n"
        "    return {}\n\n@app.get('/x')\ndef x():\n    return 1\n"
    )
    snippet = (
        "from fastapi import FastAPI, HTTPException\n\n# ... same ...\n\n@app.get('/x')\n"
        "def x():\n    raise HTTPException(404)\n"
    )
    out = lazy_merge(original, snippet, "main.py")
    assert out == original.replace("FastAPI\n\napp", "FastAPI, HTTPException\n\napp").replace(
        "    return 1\n", "    raise HTTPException(404)\n"
    )


def test_python_method_added_to_a_class_before_more_code() -> None:
    original = (
        "class A:\n    def m1(self):\n        return 1\n\n    def m2(self):\n        return 2\n"
        "\n\ndef top():\n    pass\n"
    )
    snippet = (
        "class A:\n    # ... existing code ...\n\n    def m3(self):\n        return 3\n\n"
        "    # ... existing code ...\n\n\ndef top():\n    pass\n"
    )
    assert lazy_merge(original, snippet, "a.py") == (
        "class A:\n    def m1(self):\n        return 1\n\n    def m2(self):\n        return 2\n"
        "\n    def m3(self):\n        return 3\n\n\ndef top():\n    pass\n"
    )


def test_append_top_level_function() -> None:
    original = "import os\n\ndef a():\n    return 1\n"
    out = lazy_merge(original, "# ... existing code ...\n\ndef b():\n    return 2\n", "m.py")
    # `return 2` looks like `return 1`, but its enclosing `def b()` is new: not a match
    assert out == original + "\ndef b():\n    return 2\n"


def test_prepend_an_import() -> None:
    original = "import sys\n\nprint(sys.argv)\n"
    out = lazy_merge(original, "import os\nimport sys\n# ... rest of file unchanged\n")
    assert out == "import os\n" + original


def test_short_line_edited_next_to_placeholder() -> None:
    original = "def f():\n    x = 1\n    y = 2\n    return x + y\n\ndef g():\n    pass\n"
    out = lazy_merge(original, "def f():\n    x = 1\n    y = 3\n    # ... rest unchanged\n")
    assert out == original.replace("y = 2", "y = 3")


def test_new_definition_with_the_name_of_a_kept_one_is_ambiguous() -> None:
    snippet = (
        "class Calculator {\n  // ... existing code ...\n\n"
        "  static add(a, b) {\n    return a + b;\n  }\n}\n"
    )
    with pytest.raises(PlacementError) as err:
        lazy_merge(CALC, snippet)
    assert err.value.failure.code == ErrorCode.TEXT_AMBIGUOUS
    assert err.value.failure.details["name"] == "add"
    assert err.value.failure.details["lines"] == [6]


def test_unanchored_segment_whose_line_repeats_is_ambiguous() -> None:
    snippet = "// ... existing code ...\n    return this;\n// ... existing code ...\n"
    with pytest.raises(PlacementError) as err:
        lazy_merge(CALC, snippet)
    assert err.value.failure.code == ErrorCode.TEXT_AMBIGUOUS
    assert err.value.failure.details["lines"] == [8, 13]


def test_new_code_in_the_middle_of_a_gap_is_ambiguous() -> None:
    original = "function f() {\n  const a = load();\n  const b = parse(a);\n  return b;\n}\n"
    snippet = (
        "function f() {\n  // ... existing code ...\n  const hello = 1;\n"
        "  // ... existing code ...\n  return b;\n}\n"
    )
    with pytest.raises(PlacementError) as err:
        lazy_merge(original, snippet)
    assert err.value.failure.code == ErrorCode.TEXT_AMBIGUOUS


def test_nothing_in_common_is_not_found_with_closest_line() -> None:
    original = "alpha = compute_alpha()\nbeta = compute_beta()\n"
    snippet = "# ...\ngamma = compute_gamma()\n# ...\n"
    with pytest.raises(PlacementError) as err:
        lazy_merge(original, snippet)
    failure = err.value.failure
    assert failure.code == ErrorCode.TEXT_NOT_FOUND
    assert failure.details["closest"]["line"] in (1, 2)


def test_empty_file_with_placeholders_is_not_found() -> None:
    with pytest.raises(PlacementError) as err:
        lazy_merge("", "# ...\nx = 1\n")
    assert err.value.failure.code == ErrorCode.TEXT_NOT_FOUND


def test_only_a_placeholder_keeps_the_file() -> None:
    assert lazy_merge(CALC, "// ... existing code ...\n") == CALC


def test_missing_final_newline_is_kept() -> None:
    original = "def a():\n    return 1\n\ndef b():\n    return 2"
    out = lazy_merge(original, "# ...\n\ndef b():\n    return 3\n")
    assert out == "def a():\n    return 1\n\ndef b():\n    return 3"


# --- placeholder-free snippets ---------------------------------------------------------------


def test_restated_definition_replaces_only_it() -> None:
    original = (
        "class Hello {\n  hello() {\n    return 1;\n  }\n}\n\n"
        "class Goodbye {\n  bye() {\n    return 2;\n  }\n}\n"
    )
    snippet = "class Goodbye {\n  bye() {\n    return 3;\n  }\n}\n"
    result = merge(original, snippet, "a.js")
    assert result.match == MatchKind.ELISION
    assert result.text == original.replace("return 2", "return 3")


def test_restated_method_with_new_doc_comment() -> None:
    snippet = (
        "  /**\n   * Adds.\n   */\n"
        "  add(number) {\n    this.result += number * 2;\n    return this;\n  }\n"
    )
    out = lazy_merge(CALC, snippet)
    assert "  /**\n   * Adds.\n   */\n  add(number) {\n    this.result += number * 2;" in out
    assert out.count("add(number)") == 1 and "reset() {" in out


def test_restated_python_function_with_decorator_replaces_old_decorator() -> None:
    original = "@app.get('/')\ndef root():\n    return 1\n\n\ndef other():\n    pass\n"
    snippet = "@app.get('/', tags=['x'])\ndef root():\n    return 2\n"
    assert lazy_merge(original, snippet) == (
        "@app.get('/', tags=['x'])\ndef root():\n    return 2\n\n\ndef other():\n    pass\n"
    )


def test_restated_header_that_occurs_twice_is_ambiguous() -> None:
    original = "class A {\n  run() {\n    a();\n  }\n}\nclass B {\n  run() {\n    b();\n  }\n}\n"
    with pytest.raises(PlacementError) as err:
        lazy_merge(original, "  run() {\n    c();\n  }\n")
    assert err.value.failure.code == ErrorCode.TEXT_AMBIGUOUS
    assert err.value.failure.details["lines"] == [2, 7]


def test_full_rewrite_is_an_overwrite() -> None:
    original = "import a\n\nx = a.f()\n"
    snippet = "import b\n\ny = b.g()\n"
    result = merge(original, snippet)
    assert result.match == MatchKind.OVERWRITE and result.text == snippet


def test_whole_file_with_several_definitions_is_an_overwrite() -> None:
    original = "class A {\n  a() {}\n}\n\nclass B {\n  b() {}\n}\n"
    snippet = "class A {\n  a() { return 1; }\n}\n\nclass C {\n}\n"
    result = merge(original, snippet)
    assert result.match == MatchKind.OVERWRITE and result.text == snippet


# --- properties -----------------------------------------------------------------------------

_WORDS = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel"]


@st.composite
def lazy_cases(draw: st.DrawFn) -> tuple[str, str, str]:
    """An original of unique lines, a segmentation into kept / changed regions, the snippet
    (a placeholder per kept region; each changed region restated from its first to its last
    line, with lines dropped, replaced or inserted inside) and the expected result."""
    n = draw(st.integers(1, 30))
    original = [f"line_{i} {draw(st.sampled_from(_WORDS))}" for i in range(n)]
    cuts = sorted(draw(st.sets(st.integers(1, n - 1), max_size=6))) if n > 1 else []
    bounds = [0, *cuts, n]
    regions = [(bounds[k], bounds[k + 1]) for k in range(len(bounds) - 1)]
    kept_first = draw(st.booleans())
    placeholder = draw(
        st.sampled_from(["# ... existing code ...", "// ...", "...", "<!-- rest unchanged -->"])
    )
    snippet: list[str] = []
    expected: list[str] = []
    fresh = iter(range(10_000))
    for k, (lo, hi) in enumerate(regions):
        if (k % 2 == 0) == kept_first:
            snippet.append(placeholder)
            expected.extend(original[lo:hi])
            continue
        body = [original[lo]]
        for line in original[lo + 1 : hi - 1]:
            what = draw(st.sampled_from(["keep", "drop", "replace", "insert"]))
            if what in ("keep", "insert"):
                body.append(line)
            if what == "replace":
                body.append(f"new_{next(fresh)} {draw(st.sampled_from(_WORDS))}")
            if what == "insert":
                body.append(f"new_{next(fresh)} inserted line")
        if hi - lo > 1:
            body.append(original[hi - 1])
        snippet.extend(body)
        expected.extend(body)
    return (
        "\n".join(original) + "\n",
        "\n".join(snippet) + "\n",
        "\n".join(expected) + "\n",
    )


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(lazy_cases())
def test_property_snippet_with_placeholders_merges_to_expected(case: tuple[str, str, str]) -> None:
    original, snippet, expected = case
    out = lazy_merge(original, snippet)
    assert out == expected
    assert not any(is_placeholder_line(line) for line in out.split("\n"))


_CODE_LINES = st.sampled_from(
    [
        "",
        "}",
        "  }",
        "{",
        "class A {",
        "  run() {",
        "    return this;",
        "def f():",
        "    return 1",
        "    x = compute(y)",
        "    pass",
        "<div>",
        "</div>",
        "end",
        "import os",
        "# ... existing code ...",
        "// ...",
        "...",
        "  // rest of file unchanged",
    ]
)


@settings(max_examples=400, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_CODE_LINES, max_size=25), st.lists(_CODE_LINES, max_size=25))
def test_property_never_writes_a_placeholder(original: list[str], snippet: list[str]) -> None:
    file_lines = [line for line in original if not is_placeholder_line(line)]
    text = "\n".join(file_lines) + "\n"
    try:
        out = lazy_merge(text, "\n".join(snippet) + "\n")
    except PlacementError as err:
        assert err.failure.code in (ErrorCode.TEXT_AMBIGUOUS, ErrorCode.TEXT_NOT_FOUND)
        return
    if has_placeholder("\n".join(snippet)):
        assert not any(is_placeholder_line(line) for line in out.split("\n"))


@settings(max_examples=200)
@given(st.text(max_size=300), st.text(max_size=300))
def test_property_arbitrary_text_never_crashes(original: str, snippet: str) -> None:
    try:
        out = lazy_merge(original, snippet)
    except PlacementError:
        return
    if has_placeholder(snippet):
        before = sum(is_placeholder_line(line) for line in original.split("\n"))
        assert sum(is_placeholder_line(line) for line in out.split("\n")) <= before


def test_unique_line_inside_new_code_is_not_an_anchor() -> None:
    # `return this;` occurs once in the file (in add) and once in the snippet (in the new
    # exp): unique on both sides, but its enclosing `exp(n) {` is new, so it anchors nothing
    original = (
        "class Calculator {\n  constructor() {\n    this.result = 0;\n  }\n\n"
        "  add(n) {\n    this.result += n;\n    return this;\n  }\n}\n"
    )
    snippet = (
        "class Calculator {\n  // ... existing code ...\n\n  exp(n) {\n"
        "    this.result = Math.pow(this.result, n);\n    return this;\n  }\n}\n"
    )
    assert lazy_merge(original, snippet, "calc.js") == original.replace(
        "    return this;\n  }\n}\n",
        "    return this;\n  }\n\n  exp(n) {\n    this.result = Math.pow(this.result, n);\n"
        "    return this;\n  }\n}\n",
    )


def test_modified_header_above_unique_body_lines() -> None:
    original = "def foo(a):\n    x = compute(a)\n    return x\n\n\ndef bar():\n    pass\n"
    snippet = (
        "# ... existing code ...\ndef foo(a, b):\n    y = prepare(b)\n    x = compute(a)\n"
        "    return x\n# ... existing code ...\n"
    )
    assert lazy_merge(original, snippet) == original.replace(
        "def foo(a):\n", "def foo(a, b):\n    y = prepare(b)\n"
    )


def test_restated_method_given_without_its_class_indentation() -> None:
    original = (
        "class A:\n    def f(self):\n        return 1\n\n    def g(self):\n        return 2\n"
    )
    result = merge(original, "def f(self):\n    return 10\n")
    assert result.match == MatchKind.ELISION
    assert result.text == original.replace("return 1\n", "return 10\n")


STORE = """import os
import sys


class Store:
    def load(self):
        return self.items

    def save(self):
        with open(self.path, "w") as f:
            f.write(" ".join(self.items))


def main():
    Store().save()
"""


def test_head_starting_at_a_restated_class_keeps_the_imports_above() -> None:
    snippet = (
        "class Store:\n    # ... existing code ...\n"
        "    def save(self):\n        with open(self.path, 'x') as f:\n"
        "            f.write(' '.join(self.items))\n\n\n# ... existing code ...\n"
    )
    out = lazy_merge(STORE, snippet, "store.py")
    assert out.startswith("import os\nimport sys\n\n\nclass Store:\n")
    assert "open(self.path, 'x')" in out and 'open(self.path, "w")' not in out
    assert out.endswith("def main():\n    Store().save()\n")


def test_tail_ending_on_a_restated_line_keeps_what_follows() -> None:
    snippet = (
        "# ... existing code ...\n    def save(self):\n"
        "        with open(self.path, 'x') as f:\n            f.write(' '.join(self.items))\n"
    )
    out = lazy_merge(STORE, snippet, "store.py")
    assert out == STORE.replace('open(self.path, "w")', "open(self.path, 'x')").replace(
        'f.write(" ".join(self.items))', "f.write(' '.join(self.items))"
    )


def test_head_line_in_place_of_the_files_first_line_replaces_it() -> None:
    # the snippet starts at the top of the file (no placeholder before it), so the line it
    # shows where `import os` stands is read as that line, edited
    snippet = "import json\nimport sys\n# ... rest of file unchanged\n"
    assert lazy_merge(STORE, snippet) == STORE.replace("import os\n", "import json\n")
