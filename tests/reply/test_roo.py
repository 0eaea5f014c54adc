"""Roo Code's edit format: `apply_diff` (one file with `<path>`/`<diff>`, or several in
`<args><file>...`), its `:start_line:` / `:end_line:` / `-------` header, line numbers copied
from its file reader, escaped markers, a stray `<`, and its other edit tools
(`write_to_file` with `<line_count>`, `insert_content`)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from lsp_server.model import ErrorCode, Format, Hunk
from lsp_server.reply import parse_reply
from lsp_server.reply.search_replace import shift_hints
from lsp_server.reply.search_replace_calls import blocks_from_body
from tests.reply.agent_workspace import examples, place

TWICE = """import os

def a():
    x = 0
    return x

def b():
    x = 0
    return x
"""


def apply_diff(path: str, diff: str) -> str:
    return f"<apply_diff>\n<path>{path}</path>\n<diff>\n{diff}</diff>\n</apply_diff>\n"


def sr(search: str, replace: str, header: str = "") -> str:
    return f"<<<<<<< SEARCH\n{header}{search}=======\n{replace}>>>>>>> REPLACE\n"


BODY_A, BODY_B = "    x = 0\n    return x\n", "    x = 1\n    return x\n"


def test_a_roo_turn_with_prose_two_calls_and_other_formats():
    reply = (
        "I'll rename the helper and update its caller.\n\n"
        + apply_diff(
            "src/m.py",
            sr("def a():\n", "def first():\n", ":start_line:3\n-------\n")
            + "\n"
            + sr("def b():\n", "def second():\n", ":start_line:7\n:end_line:7\n-------\n"),
        )
        + "\nThe caller, as a plain SEARCH/REPLACE block:\n\nsrc/main.py\n```python\n"
        "<<<<<<< SEARCH\nfrom m import a\n=======\nfrom m import first\n>>>>>>> REPLACE\n```\n"
        "\nAnd a JSON text-editor call:\n\n```json\n"
        '{"command": "str_replace", "path": "src/main.py", "old_str": "a()", "new_str": "first()"}'
        "\n```\n"
    )
    placed = place(reply, {"src/m.py": TWICE, "src/main.py": "from m import a\n\na()\n"})
    assert placed.plan.ok, placed.codes()
    assert placed.formats() == [Format.ROO, Format.SEARCH_REPLACE, Format.TEXT_EDITOR]
    assert "def first():" in placed.files["src/m.py"]
    assert "def second():" in placed.files["src/m.py"]
    assert placed.files["src/main.py"] == "from m import first\n\nfirst()\n"


# --- line hints ---------------------------------------------------------------------------------


def test_the_start_line_breaks_a_tie_between_two_identical_places():
    for line, changed in ((4, "a"), (8, "b")):
        reply = apply_diff("m.py", sr(BODY_A, BODY_B, f":start_line:{line}\n-------\n"))
        placed = place(reply, {"m.py": TWICE})
        assert placed.plan.ok, placed.codes()
        first, second = placed.files["m.py"].split("def b():")
        assert ("x = 1" in first) is (changed == "a")
        assert ("x = 1" in second) is (changed == "b")


def test_without_a_hint_the_tie_is_refused():
    placed = place(apply_diff("m.py", sr(BODY_A, BODY_B)), {"m.py": TWICE})
    assert placed.codes() == [ErrorCode.TEXT_AMBIGUOUS]
    assert placed.files["m.py"] == TWICE


def test_a_wrong_hint_never_fails_a_unique_match():
    reply = apply_diff("m.py", sr("def b():\n", "def c():\n", ":start_line:400\n-------\n"))
    placed = place(reply, {"m.py": TWICE})
    assert placed.plan.ok and "def c():" in placed.files["m.py"]
    reply = apply_diff("m.py", sr("def b():\n", "def c():\n", ":start_line:1\n:end_line:1\n"))
    assert place(reply, {"m.py": TWICE}).plan.ok


def test_hints_count_in_the_file_before_the_call_as_roo_sorts_them():
    # the first block adds three lines above the second's place; its hint (8) still means
    # the file as read: the second copy, which is at line 11 once the first block is in
    diff = sr("import os\n", "import os\nimport re\nimport sys\nimport json\n", ":start_line:1\n")
    diff += sr(BODY_A, BODY_B, ":start_line:8\n-------\n")
    placed = place(apply_diff("m.py", diff), {"m.py": TWICE})
    assert placed.plan.ok, placed.codes()
    first, second = placed.files["m.py"].split("def b():")
    assert "x = 1" not in first and "x = 1" in second


def test_bare_roo_blocks_in_one_run_share_the_file_they_were_read_from():
    reply = (
        "m.py\n```python\n"
        + sr("import os\n", "import os\nimport re\n", ":start_line:1\n")
        + "```\n\nm.py\n```python\n"
        + sr(BODY_A, BODY_B, ":start_line:8\n-------\n")
        + "```\n"
    )
    placed = place(reply, {"m.py": TWICE})
    assert placed.plan.ok, placed.codes()
    assert placed.formats() == [Format.ROO, Format.ROO]
    assert "x = 1" in placed.files["m.py"].split("def b():")[1]


def test_a_start_line_element_is_a_hint_for_the_first_block():
    reply = (
        "<apply_diff>\n<path>m.py</path>\n<diff>\n"
        + sr(BODY_A, BODY_B)
        + "</diff>\n<start_line>8</start_line>\n</apply_diff>\n"
    )
    placed = place(reply, {"m.py": TWICE})
    assert placed.plan.ok and "x = 1" in placed.files["m.py"].split("def b():")[1]


# --- line numbers copied from the file reader -------------------------------------------------


def test_copied_line_numbers_are_stripped_and_the_first_is_a_hint():
    search = "8 |     x = 0\n9 |     return x\n"
    replace = "8 |     x = 2\n9 |     return x\n"
    placed = place(apply_diff("m.py", sr(search, replace)), {"m.py": TWICE})
    assert placed.plan.ok, placed.codes()
    first, second = placed.files["m.py"].split("def b():")
    assert "x = 2" in second and "x = 2" not in first
    assert "|" not in placed.files["m.py"]


def test_padded_numbers_and_a_blank_line_are_stripped_too():
    search = " 9 |     return x\n10 | \n11 |\n"
    placed = place(apply_diff("m.py", sr(search, "    return x + 1\n")), {"m.py": TWICE + "\n\n"})
    assert placed.plan.ok, placed.codes()
    assert placed.files["m.py"].endswith("    return x + 1\n")


NOTES = "1 | one\n2 | two\nthree\n5 | five\n7 | seven\n"


def test_numbers_are_kept_when_a_line_lacks_one():
    # the file itself holds numbered lines: a SEARCH that is not numbered throughout is the
    # file's own text
    reply = apply_diff("notes.txt", sr("1 | one\n2 | two\nthree\n", "1 | uno\n2 | two\nthree\n"))
    placed = place(reply, {"notes.txt": NOTES})
    assert placed.plan.ok, placed.codes()
    assert placed.files["notes.txt"] == NOTES.replace("1 | one", "1 | uno")


def test_numbers_are_kept_when_they_do_not_count_up_by_one():
    reply = apply_diff("notes.txt", sr("5 | five\n7 | seven\n", "5 | 5\n7 | 7\n"))
    placed = place(reply, {"notes.txt": NOTES})
    assert placed.plan.ok, placed.codes()
    assert placed.files["notes.txt"].endswith("5 | 5\n7 | 7\n")


def test_a_replace_numbered_only_in_part_is_refused():
    reply = apply_diff("m.py", sr("8 |     x = 0\n", "8 |     x = 0\n    y = 1\n"))
    placed = place(reply, {"m.py": TWICE})
    (failure,) = [o.failure for o in placed.outcomes]
    assert failure.code is ErrorCode.MALFORMED_BLOCK
    assert "only some REPLACE lines" in failure.message


LINE = st.text(st.sampled_from("abcxyz ()_=+.,'\"\t"), max_size=12).filter(
    lambda s: not s.lstrip().startswith(("=", "+"))
)


@settings(max_examples=examples(200), deadline=None)
@given(
    old=st.lists(LINE, min_size=1, max_size=8),
    new=st.lists(LINE, max_size=8),
    start=st.integers(1, 100_000),
    pad=st.booleans(),
    drop=st.integers(0, 7),
)
def test_stripping_numbers_gives_the_lines_back_and_only_when_all_count_up(
    old, new, start, pad, drop
):
    def numbered(lines: list[str], first: int) -> list[str]:
        width = len(str(first + len(lines))) if pad else 0
        return [f"{str(first + k).rjust(width)} | {line}" for k, line in enumerate(lines)]

    search, replace = numbered(old, start), numbered(new, start)
    body = sr("".join(x + "\n" for x in search), "".join(x + "\n" for x in replace))
    block = blocks_from_body(body, "f.txt", (1, 1), Format.ROO)
    if not "".join(old).strip():
        assert block.error is not None  # an empty SEARCH: Roo refuses it
        return
    (hunk,) = block.hunks
    assert hunk.old == "".join(x + "\n" for x in old)
    assert hunk.new == "".join(x + "\n" for x in new)
    assert hunk.line_hint == start
    # one line without its number: nothing is stripped
    k = drop % len(old)
    search[k] = old[k]
    body = sr("".join(x + "\n" for x in search), "")
    block = blocks_from_body(body, "f.txt", (1, 1), Format.ROO)
    if block.error is None:
        assert block.hunks[0].old == "".join(x + "\n" for x in search)


# --- Roo's other shapes -----------------------------------------------------------------------


def test_the_multi_file_args_form_with_fences_and_start_lines():
    reply = """Applying both edits in one call:

<apply_diff>
<args>
<file>
  <path>src/m.py</path>
  <diff>
    <content>
```
<<<<<<< SEARCH
    x = 0
    return x
=======
    x = 7
    return x
>>>>>>> REPLACE
```
    </content>
    <start_line>8</start_line>
  </diff>
  <diff>
    <content>
<<<<<<< SEARCH
import os
=======
import os
import sys
>>>>>>> REPLACE
    </content>
    <start_line>1</start_line>
  </diff>
</file>
<file>
  <path>src/n.py</path>
  <diff>
    <content>
<<<<<<< SEARCH
n = 1
=======
n = 2
>>>>>>> REPLACE
    </content>
  </diff>
</file>
</args>
</apply_diff>
"""
    placed = place(reply, {"src/m.py": TWICE, "src/n.py": "n = 1\n"})
    assert placed.plan.ok, placed.codes()
    assert placed.formats() == [Format.ROO, Format.ROO]
    m = placed.files["src/m.py"]
    assert m.startswith("import os\nimport sys\n")
    assert "x = 7" in m.split("def b():")[1] and "x = 7" not in m.split("def b():")[0]
    assert placed.files["src/n.py"] == "n = 2\n"
    first, second = (o.block.reply_lines for o in placed.outcomes)
    assert first[0] == 3 and second[1] == reply.count("\n") and first[1] < second[0]


def test_a_file_in_args_that_cannot_be_used_is_refused_alone():
    reply = (
        "<apply_diff>\n<args>\n<file>\n<path>a.py</path>\n<diff>\n<content>\n"
        + sr("a = 1\n", "a = 2\n")
        + "</content>\n</diff>\n</file>\n<file>\n<path>b.py</path>\n</file>\n</args>\n"
        "</apply_diff>\n"
    )
    placed = place(reply, {"a.py": "a = 1\n", "b.py": "b = 1\n"}, atomic=False)
    assert placed.codes() == [None, ErrorCode.MALFORMED_BLOCK]
    assert "holds no `<diff>`" in placed.outcomes[1].failure.message
    assert placed.files["a.py"] == "a = 2\n"


def test_a_stray_angle_after_replace_and_escaped_markers():
    conflicted = "a = 1\n<<<<<<< HEAD\nb = 1\n=======\nb = 2\n>>>>>>> feature\nc = 1\n"
    search = "\\<<<<<<< HEAD\nb = 1\n\\=======\nb = 2\n\\>>>>>>> feature\n"
    reply = apply_diff("c.py", sr(search, "b = 2\n") + "<\n")
    placed = place(reply, {"c.py": conflicted})
    assert placed.plan.ok, placed.codes()
    assert placed.files["c.py"] == "a = 1\nb = 2\nc = 1\n"


def test_an_escaped_marker_in_the_new_text_is_still_never_written():
    reply = apply_diff("c.py", sr("a = 1\n", "a = 1\n\\=======\n"))
    placed = place(reply, {"c.py": "a = 1\n"})
    (failure,) = [o.failure for o in placed.outcomes]
    assert failure.code is ErrorCode.MALFORMED_BLOCK and failure.details["text"] == "======="


def test_an_empty_search_is_refused_as_roo_does():
    placed = place(apply_diff("m.py", sr("", "x = 1\n")), {"m.py": TWICE})
    (failure,) = [o.failure for o in placed.outcomes]
    assert (
        failure.code is ErrorCode.MALFORMED_BLOCK and "SEARCH section is empty" in failure.message
    )


def test_search_text_not_found():
    placed = place(apply_diff("m.py", sr("def z():\n", "def y():\n")), {"m.py": TWICE})
    assert placed.codes() == [ErrorCode.TEXT_NOT_FOUND]


def test_write_to_file_with_a_line_count_is_roos():
    reply = (
        "<write_to_file>\n<path>src/new.py</path>\n<content>\nprint(1)\nprint(2)\n</content>\n"
        "<line_count>2</line_count>\n</write_to_file>\n"
    )
    placed = place(reply, {})
    assert placed.plan.ok and placed.formats() == [Format.ROO]
    assert placed.files["src/new.py"] == "print(1)\nprint(2)\n"


def test_insert_content_before_a_line_or_at_the_end():
    def insert(line: int) -> str:
        return (
            f"<insert_content>\n<path>m.py</path>\n<line>{line}</line>\n<content>\n"
            "# inserted\n</content>\n</insert_content>\n"
        )

    placed = place(insert(3), {"m.py": TWICE})
    assert placed.plan.ok and placed.files["m.py"].split("\n")[2] == "# inserted"
    placed = place(insert(0), {"m.py": TWICE})
    assert placed.plan.ok and placed.files["m.py"] == TWICE + "# inserted\n"
    bad = insert(3).replace("<line>3</line>", "<line>three</line>")
    assert place(bad, {"m.py": TWICE}).codes() == [ErrorCode.MALFORMED_BLOCK]


def test_an_unclosed_call_is_incomplete():
    reply = "Working on it.\n\n<apply_diff>\n<path>m.py</path>\n<diff>\n<<<<<<< SEARCH\nx"
    (block,) = parse_reply(reply).blocks
    assert block.format is Format.ROO and block.path == "m.py"
    assert block.error.code is ErrorCode.MALFORMED_BLOCK and block.error.details["incomplete"]
    assert block.reply_lines == (3, 7)


def test_a_header_without_its_number_is_still_the_header():
    reply = apply_diff("m.py", sr("def b():\n", "def c():\n", ":start_line:\n-------\n"))
    placed = place(reply, {"m.py": TWICE})
    assert placed.plan.ok and "def c():" in placed.files["m.py"]


@st.composite
def separate_edits(draw):
    """A file of distinct lines and edits of separate line ranges, in a random order: each
    (start line 1-based, old line count, new line count)."""
    size = draw(st.integers(1, 60))
    cuts = sorted(draw(st.sets(st.integers(0, size), min_size=2, max_size=12)))
    ranges = [(a, b) for a, b in zip(cuts[::2], cuts[1::2], strict=False) if b > a]
    edits = [(a + 1, b - a, draw(st.integers(0, 4))) for a, b in ranges]
    return size, draw(st.permutations(edits))


@settings(max_examples=examples(300), deadline=None)
@given(separate_edits())
def test_shifted_hints_are_where_each_text_is_when_its_turn_comes(case):
    size, edits = case
    lines = [f"line {k}" for k in range(1, size + 1)]
    hunks = [
        Hunk(
            "".join(x + "\n" for x in lines[start - 1 : start - 1 + old]),
            "".join(f"new {start}.{k}\n" for k in range(new)),
            line_hint=start,
        )
        for start, old, new in edits
    ]
    shifted = shift_hints(hunks)
    text = list(lines)  # the oracle: apply each edit and look where the next one's text is
    for hunk, moved in zip(hunks, shifted, strict=True):
        old = hunk.old.splitlines()
        at = next(k for k in range(len(text)) if text[k : k + len(old)] == old)
        assert moved.line_hint == at + 1
        text[at : at + len(old)] = hunk.new.splitlines()


def test_a_hint_header_in_the_replace_section_is_refused_unless_escaped():
    bad = apply_diff("m.py", sr("def b():\n", ":start_line:7\ndef c():\n", ":start_line:7\n"))
    (failure,) = [o.failure for o in place(bad, {"m.py": TWICE}).outcomes]
    assert failure.code is ErrorCode.MALFORMED_BLOCK and "REPLACE section" in failure.message
    good = apply_diff("notes.txt", sr("a\n", "\\:start_line:7\n", ":start_line:1\n"))
    placed = place(good, {"notes.txt": "a\n"})
    assert placed.plan.ok and placed.files["notes.txt"] == ":start_line:7\n"


def test_a_diff_with_roos_header_given_as_clines_is_read_as_roos():
    body = sr("8 |     x = 0\n9 |     return x\n", BODY_B, ":start_line:8\n-------\n")
    block = blocks_from_body(body, "m.py", (1, 1), Format.CLINE)
    assert block.format is Format.ROO and block.error is None
    assert (block.hunks[0].old, block.hunks[0].line_hint) == (BODY_A, 8)


def test_a_numberless_hint_with_no_separator_in_a_plain_block_is_the_files_text() -> None:
    # found by the round-trip property: a file line `:end_line:` is text to search for, not
    # Roo's header, when nothing else says Roo (no number, no `-------`, no apply_diff)
    files = {"notes.txt": ":end_line:\nkeep\n"}
    reply = "notes.txt\n<<<<<<< SEARCH\n:end_line:\n=======\n:start:\n>>>>>>> REPLACE\n"
    placed = place(reply, files)
    assert placed.plan.ok, [o.failure for o in placed.plan.outcomes]
    assert placed.files["notes.txt"] == ":start:\nkeep\n"
    (block,) = parse_reply(reply).blocks
    assert block.format is Format.SEARCH_REPLACE and block.hunks[0].line_hint is None
