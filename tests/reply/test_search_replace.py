"""SEARCH/REPLACE blocks: markers, where the path is, recovery from broken blocks."""

from __future__ import annotations

import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lsp_server.model import Action, ErrorCode, Format, OnExists
from lsp_server.reply import search_replace as sr

F = "`" * 3  # a fence, spelled so this file's own text stays readable


def blocks(text: str):
    return sr.find_blocks(text.split("\n"))


def one(text: str):
    found = blocks(text)
    assert len(found) == 1, found
    return found[0]


BASIC = f"""Here is the fix.

src/a.py
{F}python
<<<<<<< SEARCH
def f():
    return 1
=======
def f():
    return 2
>>>>>>> REPLACE
{F}

Done."""


def test_basic_fenced_block() -> None:
    b = one(BASIC)
    assert b.format == Format.SEARCH_REPLACE
    assert b.path == "src/a.py"
    assert b.action == Action.MODIFY
    assert b.error is None
    assert b.language == "python"
    assert b.reply_lines == (3, 12)  # path line through the closing fence
    assert len(b.hunks) == 1
    assert b.hunks[0].old == "def f():\n    return 1\n"
    assert b.hunks[0].new == "def f():\n    return 2\n"
    assert b.index == 0 and b.content is None


@pytest.mark.parametrize("n", [5, 7, 9])
def test_marker_lengths_5_to_9(n: int) -> None:
    text = f"a.py\n{'<' * n} SEARCH\nx\n{'=' * n}\ny\n{'>' * n} REPLACE\n"
    b = one(text)
    assert (b.path, b.hunks[0].old, b.hunks[0].new) == ("a.py", "x\n", "y\n")


@pytest.mark.parametrize("n", [4, 10])
def test_marker_lengths_outside_5_to_9_are_not_aiders_but_clines(n: int) -> None:
    # aider reads 5-9 characters; Cline reads any run of three or more (issue 15)
    b = one(f"a.py\n{'<' * n} SEARCH\nx\n=======\ny\n>>>>>>> REPLACE\n")
    assert (b.format, b.path, b.hunks[0].old, b.hunks[0].new) == (
        Format.CLINE,
        "a.py",
        "x\n",
        "y\n",
    )


def test_a_4_char_divider_is_content_not_a_divider() -> None:
    b = one("a.py\n<<<<<<< SEARCH\nx\n====\ny\n=======\nz\n>>>>>>> REPLACE")
    assert (b.hunks[0].old, b.hunks[0].new) == ("x\n====\ny\n", "z\n")


def test_indented_markers_with_trailing_whitespace() -> None:
    text = "a.py\n    <<<<<<< SEARCH  \n    x\n\t=======\t\n    y\n  >>>>>>> REPLACE   \n"
    b = one(text)
    # the sections are verbatim: indentation and all
    assert (b.hunks[0].old, b.hunks[0].new) == ("    x\n", "    y\n")


def test_stray_angle_after_search_is_tolerated() -> None:
    b = one("a.py\n<<<<<<< SEARCH>\nx\n=======\ny\n>>>>>>> REPLACE")
    assert b.path == "a.py" and b.hunks[0].old == "x\n"


@pytest.mark.parametrize(
    "info, path",
    [
        ("python src/a.py", "src/a.py"),
        ("src/a.py", "src/a.py"),
        ('python title="src/a.py"', "src/a.py"),
    ],
)
def test_path_in_the_fence_info_string(info: str, path: str) -> None:
    text = f"Change it:\n\n{F}{info}\n<<<<<<< SEARCH\nx\n=======\ny\n>>>>>>> REPLACE\n{F}\n"
    b = one(text)
    assert b.path == path
    assert b.reply_lines == (3, 9)


def test_path_as_the_first_line_inside_the_fence() -> None:
    text = f"Change it:\n{F}python\nsrc/b.py\n<<<<<<< SEARCH\nx\n=======\ny\n>>>>>>> REPLACE\n{F}"
    b = one(text)
    assert b.path == "src/b.py"
    assert b.language == "python"
    assert b.reply_lines == (2, 9)  # the fence opener belongs to the block


def test_path_comment_as_the_first_line_inside_the_fence() -> None:
    text = f"{F}js\n// web/app.js\n<<<<<<< SEARCH\nx\n=======\ny\n>>>>>>> REPLACE\n{F}"
    assert one(text).path == "web/app.js"


@pytest.mark.parametrize(
    "line",
    [
        "src/a.py",
        "src/a.py:",
        "# src/a.py",
        "### `src/a.py`",
        "**src/a.py**",
        "**`src/a.py`**:",
        "`src/a.py`",
        "  src/a.py  ",
        "File: src/a.py",
    ],
)
def test_path_line_decoration_is_stripped(line: str) -> None:
    text = f"{line}\n{F}python\n<<<<<<< SEARCH\nx\n=======\ny\n>>>>>>> REPLACE\n{F}"
    b = one(text)
    assert b.path == "src/a.py"
    assert b.reply_lines[0] == 1


def test_backslash_escapes_are_kept_as_written() -> None:
    b = one(f"src\\my\\_init.py\n{F}\n<<<<<<< SEARCH\nx\n=======\ny\n>>>>>>> REPLACE\n{F}")
    assert b.path == "src\\my\\_init.py"


def test_path_is_looked_for_at_most_three_lines_up_over_fence_lines() -> None:
    # path, two fence lines, marker: the path is three lines up and found
    text = f"a.py\n{F}\n{F}python\n<<<<<<< SEARCH\nx\n=======\ny\n>>>>>>> REPLACE"
    assert one(text).path == "a.py"
    # one more fence line puts it out of reach
    text = f"a.py\n{F}\n{F}\n{F}python\n<<<<<<< SEARCH\nx\n=======\ny\n>>>>>>> REPLACE"
    b = one(text)
    assert b.path is None and b.error is None  # the plan chooses its file, or refuses


def test_an_indented_fence_is_walked_over() -> None:
    text = f"1. Edit a.py\n\n   lib/a.py\n   {F}python\n   <<<<<<< SEARCH\n   x\n   =======\n"
    text += f"   y\n   >>>>>>> REPLACE\n   {F}"
    assert one(text).path == "lib/a.py"


def test_a_candidate_with_a_dot_is_preferred() -> None:
    text = f"src/a.py\n{F}bin/tool\n<<<<<<< SEARCH\nx\n=======\ny\n>>>>>>> REPLACE\n{F}"
    assert one(text).path == "src/a.py"
    text = f"Makefile\n{F}\n<<<<<<< SEARCH\nx\n=======\ny\n>>>>>>> REPLACE\n{F}"
    assert one(text).path == "Makefile"


def test_prose_and_ellipsis_are_not_paths() -> None:
    for above in ("Then change the function like this:", "...", "", "Changes:"):
        text = f"{above}\n<<<<<<< SEARCH\nx\n=======\ny\n>>>>>>> REPLACE"
        b = one(text)
        assert b.path is None and b.error is None, above
        assert b.candidates == (), above  # no prose path to choose from


def test_a_block_without_a_path_reuses_the_previous_path() -> None:
    text = f"""a.py
{F}python
<<<<<<< SEARCH
one
=======
uno
>>>>>>> REPLACE
{F}

And then this:

{F}python
<<<<<<< SEARCH
two
=======
dos
>>>>>>> REPLACE
{F}

b.py
{F}python
<<<<<<< SEARCH
three
=======
tres
>>>>>>> REPLACE
{F}

<<<<<<< SEARCH
four
=======
cuatro
>>>>>>> REPLACE
"""
    found = blocks(text)
    assert [b.path for b in found] == ["a.py", "a.py", "b.py", "b.py"]
    assert [b.hunks[0].old for b in found] == ["one\n", "two\n", "three\n", "four\n"]
    assert all(b.error is None for b in found)


def test_several_blocks_in_one_fence() -> None:
    text = f"""src/a.py
{F}python
<<<<<<< SEARCH
a
=======
A
>>>>>>> REPLACE
<<<<<<< SEARCH
b
=======
B
>>>>>>> REPLACE

src/c.py
<<<<<<< SEARCH
c
=======
C
>>>>>>> REPLACE
{F}"""
    found = blocks(text)
    assert [(b.path, b.hunks[0].old, b.hunks[0].new) for b in found] == [
        ("src/a.py", "a\n", "A\n"),
        ("src/a.py", "b\n", "B\n"),  # the REPLACE line above is never taken for a path
        ("src/c.py", "c\n", "C\n"),
    ]
    assert [b.reply_lines for b in found] == [(1, 7), (8, 12), (14, 20)]


def test_bare_blocks_mixed_with_prose_and_other_code() -> None:
    text = f"""I looked at the code.

{F}python
print("not an edit")
{F}

a.py
<<<<<<< SEARCH
x = 1
=======
x = 2
>>>>>>> REPLACE

That is all; `=======` in prose is fine.
======="""
    b = one(text)
    assert (b.path, b.reply_lines) == ("a.py", (7, 12))
    assert b.language is None


def test_empty_search_creates_a_file() -> None:
    b = one(f"new/mod.py\n{F}python\n<<<<<<< SEARCH\n=======\nx = 1\n>>>>>>> REPLACE\n{F}")
    assert b.action == Action.CREATE
    assert b.content == "x = 1\n"
    assert b.on_exists == OnExists.APPEND  # a new file; appended to one that exists, as aider does
    assert b.hunks == ()
    assert b.error is None


def test_blank_only_search_creates_a_file() -> None:
    b = one("new.txt\n<<<<<<< SEARCH\n\n  \n=======\nhello\n\n>>>>>>> REPLACE")
    assert b.action == Action.CREATE
    assert b.content == "hello\n\n"


def test_empty_replace_deletes_the_text() -> None:
    b = one("a.py\n<<<<<<< SEARCH\nx\n=======\n>>>>>>> REPLACE")
    assert b.action == Action.MODIFY
    assert (b.hunks[0].old, b.hunks[0].new) == ("x\n", "")


def test_sections_are_taken_verbatim() -> None:
    text = (
        "README.md\n<<<<<<< SEARCH\n"
        f"{F}sh\n  indented  \n<<<<<<<\n\tTab\n{F}\n"
        "=======\n"
        f"{F}\n# SEARCH\n{F}\n"
        ">>>>>>> REPLACE"
    )
    b = one(text)
    assert b.hunks[0].old == f"{F}sh\n  indented  \n<<<<<<<\n\tTab\n{F}\n"
    assert b.hunks[0].new == f"{F}\n# SEARCH\n{F}\n"


def test_a_second_divider_ends_the_replace_section_like_aider() -> None:
    text = "a.py\n<<<<<<< SEARCH\nx\n=======\ny\n=======\nz\n>>>>>>> REPLACE\n"
    b = one(text)
    assert (b.hunks[0].old, b.hunks[0].new) == ("x\n", "y\n")
    assert b.reply_lines == (1, 6)


def test_missing_divider_in_the_middle_later_blocks_still_parse() -> None:
    text = f"""a.py
{F}python
<<<<<<< SEARCH
broken
>>>>>>> REPLACE
{F}

b.py
{F}python
<<<<<<< SEARCH
ok
=======
OK
>>>>>>> REPLACE
{F}"""
    bad, good = blocks(text)
    assert bad.path == "a.py"
    assert bad.error is not None and bad.error.code == ErrorCode.MALFORMED_BLOCK
    assert bad.error.message.startswith("block starting at reply line 3: expected `=======`")
    assert "before line 5" in bad.error.message
    assert bad.error.details == {"expected": "=======", "line": 5, "found": ">>>>>>> REPLACE"}
    assert bad.hunks == ()
    assert bad.reply_lines == (1, 5)
    assert (good.path, good.hunks[0].old, good.error) == ("b.py", "ok\n", None)
    assert good.reply_lines == (8, 15)


def test_missing_divider_before_the_next_search_marker() -> None:
    text = f"""a.py
<<<<<<< SEARCH
never finished

b.py
{F}
<<<<<<< SEARCH
ok
=======
OK
>>>>>>> REPLACE
{F}"""
    bad, good = blocks(text)
    assert bad.error is not None
    assert "expected `=======` before line 7" in bad.error.message
    assert not bad.error.details.get("incomplete")
    # the broken block stops short of the next block's path line and fence
    assert bad.reply_lines == (1, 4)
    assert (good.path, good.reply_lines, good.error) == ("b.py", (5, 12), None)


def test_missing_replace_before_the_next_search_marker() -> None:
    text = """a.py
<<<<<<< SEARCH
x
=======
y
<<<<<<< SEARCH
p
=======
q
>>>>>>> REPLACE"""
    bad, good = blocks(text)
    assert bad.error is not None
    assert bad.error.message == (
        "block starting at reply line 2: expected `>>>>>>> REPLACE` before line 6 "
        "(found `<<<<<<< SEARCH`)"
    )
    assert (good.path, good.hunks[0].old, good.hunks[0].new) == ("a.py", "p\n", "q\n")
    assert bad.reply_lines == (1, 5) and good.reply_lines == (6, 10)


@pytest.mark.parametrize(
    "tail, expected",
    [
        ("<<<<<<< SEARCH\nx\n", "======="),
        ("<<<<<<< SEARCH\nx\n=======\ny", ">>>>>>> REPLACE"),
        ("<<<<<<< SEARCH", "======="),
    ],
)
def test_an_unterminated_final_block_is_incomplete(tail: str, expected: str) -> None:
    text = f"a.py\n<<<<<<< SEARCH\na\n=======\nb\n>>>>>>> REPLACE\n\nb.py\n{tail}"
    good, cut = blocks(text)
    assert good.error is None
    assert cut.path == "b.py"
    assert cut.error is not None and cut.error.code == ErrorCode.MALFORMED_BLOCK
    assert cut.error.details == {"expected": expected, "incomplete": True}
    assert "incomplete" in cut.error.message and "reply line 9" in cut.error.message
    assert cut.hunks == () and cut.content is None
    last = len(text.rstrip("\n").split("\n"))
    assert cut.reply_lines == (8, last)


def test_stray_markers_without_search_are_ignored() -> None:
    assert blocks("=======\n>>>>>>> REPLACE\n=======\n") == []


def test_edit_protocol_blocks_are_not_search_replace() -> None:
    text = "a.py\n<<<< EDIT\nx\n==== REPLACE\ny\n>>>> EDIT END\n"
    assert blocks(text) == []
    assert blocks(text.replace("<<<< EDIT", "<<<<<<< EDIT")) == []


def test_crlf_free_input_keeps_carriage_returns_out_of_paths() -> None:
    # parse_reply normalises line endings first; what we get is already "\n"-split
    b = one("a.py\n<<<<<<< SEARCH\nx\n=======\ny\n>>>>>>> REPLACE")
    assert "\r" not in (b.path or "")


def test_raw_scan_exposes_texts_and_lines() -> None:
    lines = BASIC.split("\n")
    (raw,) = sr.scan(lines)
    assert (raw.start, raw.marker, raw.divider, raw.stop, raw.end) == (2, 4, 7, 10, 11)
    assert raw.original == ("def f():", "    return 1")
    assert raw.updated == ("def f():", "    return 2")
    assert raw.expected is None and not raw.incomplete


@pytest.mark.parametrize(
    "lines",
    [
        ["<<<<<<< SEARCH"] * 20_000,
        ["<<<<<<< SEARCH", "======="] * 20_000,
        ["a.py", "```", "<<<<<<< SEARCH", "x", "=======", "y", ">>>>>>> REPLACE", "```"] * 8_000,
        ["<<<<<<< SEARCH"] + ["x" * 50] * 60_000,
    ],
)
def test_linear_time_on_pathological_input(lines: list[str]) -> None:
    """Every line may start a block; a quadratic scan would take minutes here. CPU time of
    this process, not the wall clock: a busy machine must not fail a linear scan."""
    started = time.process_time()
    sr.find_blocks(lines)
    assert time.process_time() - started < 3


SOUP = st.sampled_from(
    ["<<<<<<< SEARCH", "<<<<<<< SEARCH>", "=======", ">>>>>>> REPLACE", "  =====  ", "a.py"]
    + ["# b/c.py:", "```python", "```", "x", "", "...", "<<<< EDIT", "==== REPLACE"]
)


@settings(max_examples=300, deadline=None)
@given(st.text() | st.lists(SOUP | st.text(max_size=5), max_size=40).map("\n".join))
def test_never_raises_on_arbitrary_text(text: str) -> None:
    found = blocks(text)
    n = len(text.split("\n"))
    for b in found:
        assert 1 <= b.reply_lines[0] <= b.reply_lines[1] <= n
        assert b.error is None or b.error.code == ErrorCode.MALFORMED_BLOCK
        # a block naming no file is one the plan places by `--file`, or refuses
        assert b.path is not None or b.error is not None or b.hunks
        assert (b.action == Action.MODIFY) == bool(b.hunks) or b.error is not None
    spans = [b.reply_lines for b in found]
    assert all(a[1] < b[0] for a, b in zip(spans, spans[1:], strict=False))


MARKERISH = st.characters(blacklist_characters="\n\r", blacklist_categories=("Cs",))
content_line = st.text(MARKERISH, max_size=20).filter(
    lambda s: not s.strip() or s.strip()[0] not in "<=>"
)
path = st.from_regex(r"[a-z]{1,8}(/[a-z]{1,8}){0,2}\.[a-z]{1,3}", fullmatch=True)


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.tuples(
            path,
            st.lists(content_line, max_size=6),
            st.lists(content_line, max_size=6),
            st.booleans(),
        ),
        min_size=1,
        max_size=4,
    )
)
def test_well_formed_blocks_round_trip(specs) -> None:
    out = ["Some prose first."]
    for p, old, new, fenced in specs:
        out += ["", p]
        if fenced:
            out.append(F + "python")
        out += ["<<<<<<< SEARCH", *old, "=======", *new, ">>>>>>> REPLACE"]
        if fenced:
            out.append(F)
    found = sr.find_blocks(out)
    assert len(found) == len(specs)
    for b, (p, old, new, _) in zip(found, specs, strict=True):
        assert b.error is None and b.path == p
        if any(line.strip() for line in old):
            assert b.action == Action.MODIFY
            assert b.hunks[0].old == "".join(line + "\n" for line in old)
            assert b.hunks[0].new == "".join(line + "\n" for line in new)
        else:
            assert b.action == Action.CREATE
            assert b.content == "".join(line + "\n" for line in new)
    spans = [b.reply_lines for b in found]
    assert all(a[1] < b[0] for a, b in zip(spans, spans[1:], strict=False))
