"""The mechanism behind "a placed block is a right block" (issue 13), as a property.

Generated files, a block cut from each with a true edit, and the reply's copy perturbed the
ways replies are (indentation drift uniform and not, tabs for spaces, trailing blanks, runs
of spaces, Unicode spaces, zero-width characters, CRLF files, one slipped line, an extra or
a missing blank line, typographic punctuation). For every block the engine places, the
oracle in `fuzz/placement.py` checks with its own computation that the kept lines are the
file's bytes, the added lines sit at the reply's relative depth in the file's indentation
characters, and nothing outside the region changed. The long run is
`python -m fuzz.fuzz_placement --examples 10000`.
"""

from __future__ import annotations

from hypothesis import HealthCheck, example, given, settings

from fuzz.placement import Case, cases, check_case

# Found by the long run: a quoted line whose first tab became three spaces made two lines
# look like an eight-column unit against the file's four; the new lines, at four-column
# steps, show it is no change of unit.
DRIFT_LOOKS_LIKE_A_UNIT = Case(
    text="\n" * 13 + "\t\ttotal = compute(total, 0)\n\t\t\ttotal = helper(total, 0)  \nend()",
    eol="\n",
    style="\t",
    old=["", "   \ttotal = compute(total, 0)", "\t\t\ttotal = helper(total, 0)  "],
    old_rows=[12, 13, 14],
    new=[
        "\t\tadded_0(0)",
        "",
        "\t\ttotal = compute(total, 0)",
        "\t\t\ttotal = helper(total, 0)  ",
    ],
    new_from=[None, 0, 1, 2],
    applied=["jitter"],
)


# Found by the long run: a tab, then Unicode spaces read as spaces, kept as "alignment"
# after the tab although they were a whole level deep.
SPACES_AFTER_A_TAB = Case(
    text="\n" * 7 + "\t\ttotal = compute(total, 0)\n" + "\n" * 4 + "end()",
    eol="\n",
    style="\t",
    old=["\t\xa0\xa0\xa0\xa0total = compute(total, 0)"],
    old_rows=[7],
    new=["\t" + "\xa0" * 8 + "added_0(0)", "\t" + "\xa0" * 8 + "total = compute(total, 0)"],
    new_from=[None, 0],
    applied=["jitter", "unicode", "drift"],
)


# Found by the long run: an empty line the file lacks before the quote and one the file
# has after it; the block keeps one, and it must be the file's.
TWO_EMPTY_LINES = Case(
    text="total = compute(total, 0)\ntotal = helper(total, 0)\n\n\nend()",
    eol="\n",
    style="    ",
    old=["", " total = helper(total, 0)", ""],
    old_rows=[None, 1, 2],
    new=[" added_0(0)", ""],
    new_from=[None, 2],
    applied=["drift", "extra_blank"],
)


# Found by the long run: the same, with the empty line the file lacks first in both the
# SEARCH and the REPLACE and a slipped line after it.
EMPTY_LINE_FIRST = Case(
    text="total = compute(total, 0)\ntotal = helper(total, 0)\n\nend()",
    eol="\n",
    style="    ",
    old=["", "total = compute(total, 3)", "total = helper(total, 0)", ""],
    old_rows=[None, 0, 1, 2],
    new=["", "total = compute(total, 0)", "added_0(0)", ""],
    new_from=[0, 1, None, 3],
    applied=["slip", "extra_blank"],
)


# Found by the long run: an exact quote whose new line is indented with spaces, then a tab,
# in a file indented with spaces only.
A_TAB_AFTER_SPACES = Case(
    text="    total = compute(total, 0)\n\n\nend()",
    eol="\n",
    style="    ",
    old=["    total = compute(total, 0)"],
    old_rows=[0],
    new=["    added_0(0)", "    added_1(0)", "    \tadded_2(0)", "    total = compute(total, 0)"],
    new_from=[None, None, None, 0],
    applied=["dedent", "tabs", "drift"],
)


# Found by the suite: a quote that only matched once its zero-width space was read as
# nothing is no exact quote, and its new lines take the file's indentation characters.
ZERO_WIDTH_THEN_A_TAB = Case(
    text="    total = compute(total, 0)\n\n\n\n\nend()",
    eol="\n",
    style="    ",
    old=["", "e\u200bnd()"],
    old_rows=[4, 5],
    new=["added_0(0)", "\tadded_1(0)", "", "e\u200bnd()"],
    new_from=[None, None, 0, 1],
    applied=["zero_width", "tabs"],
)


# Found by the long run: the same, where keeping the file's empty line instead would move
# it past a line the new text keeps (re-indented).
EMPTY_LINE_STAYS_PUT = Case(
    text=(
        "total = compute(total, 0)\ntotal = compute(total, 0)\n\ntotal = helper(total, 0)\n"
        "\nend()"
    ),
    eol="\n",
    style="    ",
    old=["", " total = compute(total, 0)", "", "total = helper(total, 0)"],
    old_rows=[None, 1, 2, 3],
    new=["", "total = compute(total, 0)", "total = helper(total, 0)"],
    new_from=[0, 1, 3],
    applied=["extra_blank", "jitter"],
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=cases())
@example(case=DRIFT_LOOKS_LIKE_A_UNIT)
@example(case=SPACES_AFTER_A_TAB)
@example(case=TWO_EMPTY_LINES)
@example(case=EMPTY_LINE_FIRST)
@example(case=A_TAB_AFTER_SPACES)
@example(case=ZERO_WIDTH_THEN_A_TAB)
@example(case=EMPTY_LINE_STAYS_PUT)
def test_every_placed_block_keeps_the_files_lines_and_the_replies_depths(case: Case):
    check_case(case)
