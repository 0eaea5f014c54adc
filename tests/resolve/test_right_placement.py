"""A placed block is a right block (issue 13, the placing side).

Each test is one way a reply used to be placed with a wrong result, or refused although its
meaning was clear: re-indenting by a wrong amount, a shift that is not the same for every
line, Unicode spaces copied from a web page, a slipped context line overwriting the file's,
runs of spaces, typographic punctuation and a stray empty line at the edge of a SEARCH.
"""

from __future__ import annotations

import pytest

from fuzz.targets import MemoryWorkspace
from lsp_server.model import ErrorCode, Hunk, MatchKind, PlacementError
from lsp_server.plan import PlanOptions, plan_reply
from lsp_server.reply import parse_reply
from lsp_server.resolve.hunks import apply_hunks


def _place(text: str, old: str, new: str, **kw) -> tuple[str, MatchKind]:
    result = apply_hunks(text, [Hunk(old, new)], **kw)
    return result.text, result.match


def _plan(reply: str, files: dict[str, str]):
    plan = plan_reply(
        parse_reply(reply),
        MemoryWorkspace({k: v.encode() for k, v in files.items()}),
        PlanOptions(),
    )
    return plan, {c.path: c.new_text for c in plan.files}


# --- the fuzzy rung re-indents by the block's own relative indentation ----------------------

CLASS_A = "class A:\n    def f(self):\n        if x:\n            y()\n        return 1\n"


def test_fuzzy_placement_adds_a_line_at_the_depth_the_reply_gives_it():
    """The SEARCH's first line has 3 spaces where the file has 4: `z()` goes under `y()` at
    12 spaces, and the lines the block keeps stay as the file has them."""
    old = "   def f(self):\n        if x:\n            y()\n"
    new = "   def f(self):\n        if x:\n            y()\n            z()\n"
    text, kind = _place(CLASS_A, old, new)
    assert text == (
        "class A:\n    def f(self):\n        if x:\n            y()\n            z()\n"
        "        return 1\n"
    )
    assert kind is MatchKind.FUZZY


def test_fuzzy_placement_through_a_search_replace_reply():
    reply = (
        "a.py\n```python\n<<<<<<< SEARCH\n   def f(self):\n        if x:\n            y()\n"
        "=======\n   def f(self):\n        if x:\n            y()\n            z()\n"
        ">>>>>>> REPLACE\n```\n"
    )
    plan, out = _plan(reply, {"a.py": CLASS_A})
    assert plan.ok
    assert out["a.py"].splitlines()[4] == "            z()"
    assert "                        if x:" not in out["a.py"]


# --- the indentation rung only takes a shift that is the same for every line ----------------

E_TXT = "a:\n         checking status:\n            perform operation X\nEnd.\n"


def test_indentation_rung_refuses_a_shift_that_differs_between_lines():
    """9 and 12 spaces in the file, 8 and 12 in the SEARCH: not one shift. The block still
    places (every line is the file's once indentation is ignored), and the new line lands 4
    deeper than the line above it, as in the reply."""
    old = "        checking status:\n            perform operation X\n"
    new = old + "                new operation\n"
    text, kind = _place(E_TXT, old, new)
    assert text == (
        "a:\n         checking status:\n            perform operation X\n"
        "                new operation\nEnd.\n"
    )
    assert kind is not MatchKind.INDENT


def test_indentation_rung_still_takes_a_uniform_shift_and_a_unit_change():
    text = "class K:\n    def f(self):\n        if a:\n            b()\n"
    placed, kind = _place(text, "def f(self):\n    if a:\n        b()\n", (
        "def f(self):\n    if a:\n        b()\n        c()\n"
    ))
    assert kind is MatchKind.INDENT
    assert placed.endswith("            b()\n            c()\n")
    placed, kind = _place(text, "def f(self):\n  if a:\n    b()\n", (
        "def f(self):\n  if a:\n    b()\n  d()\n"
    ))
    assert kind is MatchKind.INDENT
    assert placed.endswith("            b()\n        d()\n")


def test_unit_change_between_non_standard_units_is_not_a_shift():
    from lsp_server.resolve.indent import infer_shift

    window = ["         checking status:", "            perform operation X"]
    old = ["        checking status:", "            perform operation X"]
    assert infer_shift(old, window, window) is None
    assert infer_shift(["a", "  b"], ["    a", "        b"], []) is not None  # 2 -> 4
    assert infer_shift(["\ta", "\t\tb"], ["    a", "        b"], []) is not None  # tabs


# --- Unicode spaces in a reply's indentation --------------------------------------------------

PY = "def f(x):\n    if x:\n        return 1\n    return 2\n"
NBSP = "\u00a0"


def test_non_breaking_space_indentation_is_written_as_the_files_spaces():
    old = f"{NBSP * 4}if x:\n{NBSP * 8}return 1\n"
    new = f"{NBSP * 4}if x:\n{NBSP * 8}log(x)\n{NBSP * 8}return 1\n"
    text, kind = _place(PY, old, new)
    assert text == "def f(x):\n    if x:\n        log(x)\n        return 1\n    return 2\n"
    assert kind is not MatchKind.EXACT


@pytest.mark.parametrize(
    "space", ["\u00a0", "\u2002", "\u2003", "\u2007", "\u2009", "\u200a", "\u202f", "\u3000"]
)
def test_every_unicode_space_reads_as_a_space(space):
    old = f"{space * 4}if x:\n"
    new = f"{space * 4}if x:  # checked\n{space * 8}pass\n"
    text, _ = _place(PY, old, new)
    assert "    if x:  # checked\n        pass\n" in text
    assert space not in text


def test_unicode_space_indentation_into_a_tab_file_becomes_tabs():
    tabbed = "func f() {\n\tif x {\n\t\treturn 1\n\t}\n}\n"
    old = f"{NBSP * 4}if x {{\n{NBSP * 8}return 1\n"
    new = f"{NBSP * 4}if x {{\n{NBSP * 8}log()\n{NBSP * 8}return 1\n"
    text, _ = _place(tabbed, old, new)
    assert text == "func f() {\n\tif x {\n\t\tlog()\n\t\treturn 1\n\t}\n}\n"


def test_zero_width_characters_inside_lines_read_as_nothing():
    old = "    if\u200b x:\n        return\ufeff 1\n"
    new = "    if\u200b x:\n        return\ufeff 3\n"
    text, _ = _place(PY, old, new)
    assert text == "def f(x):\n    if x:\n        return 3\n    return 2\n"


def test_a_file_that_uses_the_character_itself_still_matches_exactly():
    text = f"a = '{NBSP}'\nb = 2\n"
    placed, kind = _place(text, f"a = '{NBSP}'\n", f"a = '{NBSP}{NBSP}'\n")
    assert placed == f"a = '{NBSP}{NBSP}'\nb = 2\n"
    assert kind is MatchKind.EXACT


# --- context lines are the file's --------------------------------------------------------------

CALC = (
    "def run(var):\n"
    "    value = helper(var, scale=7)\n"
    "    total = value * 2\n"
    "    print(total)\n"
    "    return total\n"
    "\n"
    "def other():\n"
    "    return 0\n"
)


def test_a_slipped_context_line_in_a_unified_diff_keeps_the_files_line():
    reply = (
        "```diff\n--- a/calc.py\n+++ b/calc.py\n@@ -1,5 +1,5 @@\n"
        " def run(var):\n"
        "     value = helper(var, scale=17)\n"
        "     total = value * 2\n"
        "-    print(total)\n"
        "+    log(total)\n"
        "     return total\n"
        "```\n"
    )
    plan, out = _plan(reply, {"calc.py": CALC})
    assert plan.ok
    assert out["calc.py"] == CALC.replace("print(total)", "log(total)")


def test_a_slipped_context_line_in_a_v4a_patch_keeps_the_files_line():
    reply = (
        "*** Begin Patch\n*** Update File: calc.py\n@@\n"
        " def run(var):\n"
        "     value = helper(var, scale=17)\n"
        "     total = value * 2\n"
        "-    print(total)\n"
        "+    log(total)\n"
        "     return total\n"
        "*** End Patch\n"
    )
    plan, out = _plan(reply, {"calc.py": CALC})
    assert plan.ok
    assert out["calc.py"] == CALC.replace("print(total)", "log(total)")


def test_a_kept_line_of_a_fuzzy_search_replace_keeps_the_files_bytes():
    old = (
        "def run(var):\n    value = helper(var, scale=17)\n    total = value * 2\n"
        "    print(total)\n"
    )
    new = (
        "def run(var):\n    value = helper(var, scale=17)\n    total = value * 2\n"
        "    log(total)\n"
    )
    text, kind = _place(CALC, old, new)
    assert kind is MatchKind.FUZZY
    assert text == CALC.replace("print(total)", "log(total)")


def test_a_line_the_block_changes_is_still_the_replies():
    """`scale=17` differs between SEARCH and REPLACE: the block changes that line on
    purpose, so the REPLACE's version is written."""
    old = "def run(var):\n    value = helper(var, scale=17)\n    total = value * 2\n"
    new = "def run(var):\n    value = helper(var, scale=9)\n    total = value * 2\n"
    text, _ = _place(CALC, old, new)
    assert "    value = helper(var, scale=9)\n" in text


def test_kept_lines_keep_the_files_trailing_white_space():
    text = "a = 1   \nb = 2\t\nc = 3\n"
    placed, kind = _place(text, "a = 1\nb = 2\n", "a = 1\nb = 2\nbb = 22\n")
    assert kind is MatchKind.WHITESPACE
    assert placed == "a = 1   \nb = 2\t\nbb = 22\nc = 3\n"


# --- refusals that are placements ---------------------------------------------------------------


def test_runs_of_spaces_inside_lines_place_as_whitespace():
    text = "x = 0\na = 1\nb = 2\nc = 3\n"
    placed, kind = _place(text, "a  =  1\nb  =  2\n", "a  =  1\nb  =  5\n")
    assert kind is MatchKind.WHITESPACE
    assert placed == "x = 0\na = 1\nb  =  5\nc = 3\n"


def test_runs_of_spaces_matching_two_places_stay_ambiguous():
    text = "a = 1\nz\na = 1\n"
    with pytest.raises(PlacementError) as e:
        _place(text, "a  =  1\n", "a = 2\n")
    assert e.value.failure.code is ErrorCode.TEXT_AMBIGUOUS


@pytest.mark.parametrize(
    ("file_line", "reply_line"),
    [
        ('x = "it’s — fine"', 'x = "it\'s - fine"'),
        ('x = "it\'s - fine"', 'x = "it’s — fine"'),
        ("say(“hello” … ‘bye’)", "say(\"hello\" ... 'bye')"),
        ("range 1–9", "range 1-9"),
    ],
)
def test_typographic_punctuation_folds_either_way(file_line, reply_line):
    text = f"start()\n{file_line}\nend()\n"
    placed, kind = _place(text, f"{reply_line}\nend()\n", f"{reply_line}\nend(1)\n")
    assert placed == f"start()\n{file_line}\nend(1)\n"  # the kept line is the file's
    assert kind is not MatchKind.EXACT


def test_a_leading_empty_line_the_file_does_not_have():
    text = "def a():\n    return 1\ndef b():\n    return 2\n"
    placed, _ = _place(text, "\ndef b():\n    return 2\n", "\ndef b():\n    return 3\n")
    assert placed == "def a():\n    return 1\ndef b():\n    return 3\n"


def test_a_trailing_empty_line_the_file_does_not_have():
    text = "def a():\n    return 1\ndef b():\n    return 2\n"
    placed, _ = _place(text, "def a():\n    return 1\n\n", "def a():\n    return 5\n\n")
    assert placed == "def a():\n    return 5\ndef b():\n    return 2\n"


def test_a_search_of_only_empty_lines_is_not_trimmed_to_nothing():
    with pytest.raises(PlacementError):
        _place("a\nb\n", "\n\n", "c\n")


# --- a hunk that skips a file line ----------------------------------------------------------

CALCULATOR = (
    "import math\n\n\nclass Calculator:\n    def __init__(self):\n        self.value = 0\n\n"
    "    def add(self, x):\n        self.value += x\n        return self\n"
)


def test_a_diff_that_skips_a_file_line_is_placed_around_it():
    """The hunk shows one empty line where the file has two: compared line by line, every
    context line after it pairs with its neighbour, and `import math` used to be written
    over the second empty line. Re-paired around the skipped line, nothing is duplicated."""
    reply = (
        "```diff\n--- a/calc.py\n+++ b/calc.py\n@@ -1,6 +1,7 @@\n"
        " import math\n \n class Calculator:\n     def __init__(self):\n"
        "         self.value = 0\n+        self.history = []\n \n     def add(self, x):\n```\n"
    )
    plan, out = _plan(reply, {"calc.py": CALCULATOR})
    assert plan.ok
    assert out["calc.py"] == CALCULATOR.replace(
        "self.value = 0\n", "self.value = 0\n        self.history = []\n"
    )


def test_a_change_next_to_a_skipped_file_line_is_refused():
    """Where the block adds a line between two lines the file has a third line between,
    the added line could go on either side of it: refused, not guessed."""
    text = "alpha = 1\nbeta = 2\ngamma = 3\ndelta = 4\nepsilon = 5\nzeta = 6\n"
    old = "alpha = 1\nbeta = 2\ndelta = 4\nepsilon = 5\nzeta = 6\n"
    new = "alpha = 1\nbeta = 2\nnew = 0\ndelta = 4\nepsilon = 5\nzeta = 6\n"
    with pytest.raises(PlacementError) as e:
        _place(text, old, new)
    assert e.value.failure.code is ErrorCode.TEXT_NOT_FOUND


def test_an_empty_line_the_file_lacks_inside_the_search():
    """Compared line by line, the lines after the extra empty line pair with their
    neighbours (and `value_12` used to be written over the file's `return`); re-paired,
    the change lands on its own line."""
    body = [f"    value_{i} = compute({i})" for i in range(13)]
    text = "def f():\n" + "".join(x + "\n" for x in body) + "    return value_0\n"
    old = "def f():\n" + "".join(x + "\n" for x in body[:12]) + "\n" + body[12] + "\n"
    new = old.replace("compute(12)", "compute(99)")
    placed, kind = _place(text, old, new)
    assert kind is MatchKind.FUZZY
    assert placed == text.replace("compute(12)", "compute(99)")
