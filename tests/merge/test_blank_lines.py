"""Blank lines are written as the evidence says (issue 22, item 5; docs/snippets.md,
"Blank lines"): a blank line kept from the file keeps the file's bytes; a new blank line is
written as the reply wrote it — empty stays empty, spaces or tabs are indentation with no
text and move with the code when the reply's code is re-indented to fit the file."""

from __future__ import annotations

from tests.merge.support import plan, written

FILE = (
    "class A:\n"
    "    def f(self):\n"
    "        x = 1\n"
    "        \n"  # a kept blank line with the method's indentation
    "        return x\n"
    "\n"
    "    def g(self):\n"
    "        pass\n"
)


def test_cursor_snippet_moves_its_blank_lines_with_the_code(tmp_path):
    # Cursor's chat writes a method at column 0, blank lines at its code's depth
    reply = (
        "```python:a.py\n"
        "def f(self):\n"
        "    x = 1\n"
        "    \n"
        "    y = 2\n"
        "    \n"
        "    return x\n"
        "```\n"
    )
    out = written(plan(tmp_path, {"a.py": FILE}, reply), "a.py")
    body = out.split("\n")[2:7]
    assert body == ["        x = 1", "        ", "        y = 2", "        ", "        return x"]


def test_a_snippet_restating_a_blank_line_keeps_the_files_bytes(tmp_path):
    # the reply's copy of the kept blank line is empty; the new one is deeper than the code
    text = FILE.replace("        \n", "      \n")
    reply = (
        "```python:a.py\n"
        "def f(self):\n"
        "    x = 1\n"
        "\n"
        "    return x\n"
        "\n"
        "def h(self):\n"
        "    a = 1\n"
        "      \n"
        "    return a\n"
        "```\n"
    )
    out = written(plan(tmp_path, {"a.py": text}, reply), "a.py")
    assert "        x = 1\n      \n        return x\n" in out
    assert "        a = 1\n          \n        return a\n" in out


def test_an_empty_blank_line_of_new_code_stays_empty(tmp_path):
    # no white space is invented: the rule is "as the reply wrote it", not "at the code"
    text = FILE.replace("        \n", "")
    reply = "```python:a.py\ndef f(self):\n    x = 1\n    y = 2\n\n    z = 3\n    return x\n```\n"
    out = written(plan(tmp_path, {"a.py": text}, reply), "a.py")
    assert "        x = 1\n        y = 2\n\n        z = 3\n        return x\n" in out


def test_a_reindented_replace_moves_its_blank_lines(tmp_path):
    # SEARCH/REPLACE quoted four columns shallower than the file: the indent rung
    reply = (
        "a.py\n```python\n<<<<<<< SEARCH\n"
        "    x = 1\n"
        "    \n"
        "    return x\n"
        "=======\n"
        "    x = 1\n"
        "    \n"
        "    y = 2\n"
        "    \n"
        "    return x\n"
        ">>>>>>> REPLACE\n```\n"
    )
    out = written(plan(tmp_path, {"a.py": FILE}, reply), "a.py")
    assert "        x = 1\n        \n        y = 2\n        \n        return x\n" in out


def test_a_replace_keeps_the_files_blank_line_it_quotes_without_spaces(tmp_path):
    reply = (
        "a.py\n```python\n<<<<<<< SEARCH\n"
        "        x = 1\n"
        "\n"
        "        return x\n"
        "=======\n"
        "        x = 2\n"
        "\n"
        "        return x\n"
        ">>>>>>> REPLACE\n```\n"
    )
    out = written(plan(tmp_path, {"a.py": FILE}, reply), "a.py")
    assert "        x = 2\n        \n        return x\n" in out


def test_a_replace_whose_blank_line_is_the_change_writes_it(tmp_path):
    # SEARCH quotes the file's blank line with its spaces, REPLACE empties it: shown
    reply = (
        "a.py\n```python\n<<<<<<< SEARCH\n"
        "        x = 1\n"
        "        \n"
        "        return x\n"
        "=======\n"
        "        x = 1\n"
        "\n"
        "        return x\n"
        ">>>>>>> REPLACE\n```\n"
    )
    out = written(plan(tmp_path, {"a.py": FILE}, reply), "a.py")
    assert "        x = 1\n\n        return x\n" in out


# Found by the property (test_blank_property.py): a diff of the lines pairs any blank line
# with any other, so a new blank line took the file's bytes of a kept one further down.
TWO_BLANKS = (
    "def f0(x):\n"
    "    f0_0 = x + 0\n"
    "    if x > 1:\n"
    "        f0_1 = x + 1\n"
    "    f0_2 = x + 2\n"
    "\n"
    "    f0_3 = x + 3\n"
    "    return f0_0\n"
)
TWO_BLANKS_NEW = (
    "def f0(x):\n"
    "    f0_0 = 100 + x + 0\n"
    "    if x > 1:\n"
    "        f0_1 = 100 + x + 1\n"
    "        f0_n = 1\n"
    "    \n"
    "        f0_nb = 2\n"
    "    f0_2 = 100 + x + 2\n"
    "    \n"
    "    f0_3 = 100 + x + 3\n"
    "    return f0_0\n"
)
TWO_BLANKS_EXPECTED = TWO_BLANKS_NEW.replace("    \n    f0_3", "\n    f0_3")


def test_a_snippets_new_blank_line_is_not_taken_for_the_files_blank_line(tmp_path):
    reply = "```python:a.py\n" + TWO_BLANKS_NEW + "```\n"
    out = written(plan(tmp_path, {"a.py": TWO_BLANKS}, reply), "a.py")
    assert out == TWO_BLANKS_EXPECTED


def test_a_replaces_new_blank_line_is_not_taken_for_the_kept_one(tmp_path):
    # the SEARCH quotes the file's empty blank line with spaces, the REPLACE keeps it so
    search = TWO_BLANKS.replace("\n\n    f0_3", "\n    \n    f0_3")
    blocks = f"<<<<<<< SEARCH\n{search}=======\n{TWO_BLANKS_NEW}>>>>>>> REPLACE\n"
    reply = f"a.py\n```python\n{blocks}```\n"
    out = written(plan(tmp_path, {"a.py": TWO_BLANKS}, reply), "a.py")
    assert out == TWO_BLANKS_EXPECTED


def test_a_blank_line_moves_with_the_code_when_the_indentation_is_read_either_way(tmp_path):
    # a method at its class's depth, four-space code for a two-space file: read relative
    # (a unit change) or as copied at the file's columns, the code lands in one place; the
    # blank line then moves as the code does (one column past the def: three columns)
    text = "class Box:\n\n  def f(self, x):\n    if x > 2:\n      a = x\n    return a\n"
    reply = (
        "```python:a.py\n    def f(self, x):\n        if x > 2:\n            a = x\n"
        "     \n            b = 2\n        return a\n```\n"
    )
    out = written(plan(tmp_path, {"a.py": text}, reply), "a.py")
    assert out == text.replace("      a = x\n", "      a = x\n   \n      b = 2\n")


def test_a_new_line_sharing_only_punctuation_is_no_rewrite_of_a_file_line(tmp_path):
    # `f_n = 1` is not `f_1b = 1` rewritten: the blank line under it is new, and the
    # file's blank line (one space) stays under `f_1b`
    text = (
        "def f(x):\n    if x > 1:\n        f_1 = x + 1\n        f_1b = 1\n \n"
        "    if x > 2:\n        f_2 = 2\n    return f_1\n"
    )
    reply = (
        "```python:a.py\ndef f(x):\n    if x > 1:\n        f_1 = 100 + x + 1\n        f_n = 1\n"
        "\n        f_nb = 2\n        f_1b = 100 + 1\n\n    if x > 2:\n        f_2 = 2\n"
        "    return f_1\n```\n"
    )
    out = written(plan(tmp_path, {"a.py": text}, reply), "a.py")
    assert "        f_n = 1\n\n        f_nb = 2\n        f_1b = 100 + 1\n \n    if x > 2:" in out


def test_a_moved_definition_keeps_its_blank_lines_moved_with_it():
    # TARGET_NODE move: nothing in the reply asks for the method's blank lines to change
    from lsp_server.model import Target
    from lsp_server.resolve.structure import apply_structure

    text = FILE.split("\n\n")[0] + "\n\n\nclass B:\n    pass\n"
    move = "move_structure_to_after"
    target = Target(node=("A", "f"), operation=move, options={"destination": ["B"]})
    out = apply_structure(text, "m.py", target, None).text
    assert out.endswith("def f(self):\n    x = 1\n    \n    return x\n")


def test_a_replace_in_another_indent_unit_keeps_a_blank_lines_columns_past_the_levels(tmp_path):
    # four-space quote of a two-space file: whole levels become the file's, the one space
    # past them stays (found by the property in explore mode)
    text = "def f(x):\n  a = x\n  return a\n"
    reply = (
        "a.py\n```python\n<<<<<<< SEARCH\ndef f(x):\n    a = x\n    return a\n=======\n"
        "def f(x):\n    a = x\n    b = 1\n     \n    c = 2\n    return a\n>>>>>>> REPLACE\n```\n"
    )
    out = written(plan(tmp_path, {"a.py": text}, reply), "a.py")
    assert out == "def f(x):\n  a = x\n  b = 1\n   \n  c = 2\n  return a\n"


def test_a_replaces_blank_line_is_written_in_the_files_characters_as_its_code_is(tmp_path):
    # a tab-indented Go file, a REPLACE written with spaces: its code gets tabs, and so
    # does the indentation of its new blank line
    text = "package main\n\nfunc f(x int) int {\n\ta := x\n\n\treturn a\n}\n"
    reply = (
        "a.go\n```go\n<<<<<<< SEARCH\n    a := x\n\n    return a\n=======\n"
        "    a := x\n    \n    b := 2\n    _ = b\n\n    return a\n>>>>>>> REPLACE\n```\n"
    )
    out = written(plan(tmp_path, {"a.go": text}, reply), "a.go")
    assert out == text.replace("\ta := x\n", "\ta := x\n\t\n\tb := 2\n\t_ = b\n")
