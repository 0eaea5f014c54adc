"""EDIT protocol blocks: markers, anchors, creation, and recovery from broken blocks."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lsp_server.model import Action, ErrorCode, Format, OnExists
from lsp_server.reply import edit_protocol as ep
from lsp_server.reply import search_replace as sr

F = "`" * 3


def blocks(text: str):
    return ep.find_blocks(text.split("\n"))


def one(text: str):
    found = blocks(text)
    assert len(found) == 1, found
    return found[0]


def test_basic_block() -> None:
    text = """Rename the constant.

src/config.py
<<<< EDIT
LIMIT = 10
==== REPLACE
MAX_ITEMS = 10
>>>> EDIT END

That is the whole change."""
    b = one(text)
    assert b.format == Format.EDIT
    assert (b.path, b.action, b.error) == ("src/config.py", Action.MODIFY, None)
    assert b.reply_lines == (3, 8)
    (hunk,) = b.hunks
    assert (hunk.old, hunk.new, hunk.exact_only) == ("LIMIT = 10\n", "MAX_ITEMS = 10\n", False)


def test_insertion_after_the_anchor_is_exact_only() -> None:
    text = "a.py\n<<<< EDIT\nimport os\n\n==== REPLACE\nimport os\n\nimport sys\n>>>> EDIT END"
    (hunk,) = one(text).hunks
    assert hunk.old == "import os\n\n"
    assert hunk.new == "import os\n\nimport sys\n"
    assert hunk.exact_only is True


def test_a_changed_anchor_is_an_ordinary_replacement() -> None:
    # a common first line, but the EDIT section is not a prefix of the REPLACE section
    text = "a.py\n<<<< EDIT\ndef f():\n    return 1\n==== REPLACE\ndef f():\n    return 2\n"
    text += ">>>> EDIT END"
    (hunk,) = one(text).hunks
    assert hunk.exact_only is False


@pytest.mark.parametrize("n", [4, 6, 9])
def test_marker_lengths_4_to_9(n: int) -> None:
    text = f"a.py\n{'<' * n} EDIT\nx\n{'=' * n} REPLACE\ny\n{'>' * n} EDIT END\n"
    b = one(text)
    assert (b.path, b.hunks[0].old, b.hunks[0].new) == ("a.py", "x\n", "y\n")


@pytest.mark.parametrize("n", [3, 10])
def test_marker_lengths_outside_4_to_9_are_not_markers(n: int) -> None:
    assert blocks(f"a.py\n{'<' * n} EDIT\nx\n==== REPLACE\ny\n>>>> EDIT END") == []


def test_indented_markers_and_verbatim_sections() -> None:
    text = "a.py\n  <<<< EDIT \n    x  \n\t==== REPLACE\n    y\n  >>>> EDIT END\t\n"
    b = one(text)
    assert (b.hunks[0].old, b.hunks[0].new) == ("    x  \n", "    y\n")


def test_path_positions_and_decoration() -> None:
    body = "<<<< EDIT\nx\n==== REPLACE\ny\n>>>> EDIT END"
    assert one(f"**`src/a.py`**:\n{F}\n{body}\n{F}").path == "src/a.py"
    assert one(f"{F}python src/a.py\n{body}\n{F}").path == "src/a.py"
    inside = one(f"Change:\n{F}python\n# src/a.py\n{body}\n{F}")
    assert (inside.path, inside.language, inside.reply_lines) == ("src/a.py", "python", (2, 9))


def test_a_block_without_a_path_reuses_the_previous_one() -> None:
    body = "<<<< EDIT\nx\n==== REPLACE\ny\n>>>> EDIT END"
    found = blocks(f"a.py\n{body}\n\nand also\n\n{body}\n\nb.py\n{body}")
    assert [b.path for b in found] == ["a.py", "a.py", "b.py"]


def test_no_path_at_all_is_malformed() -> None:
    b = one("Here:\n\n<<<< EDIT\nx\n==== REPLACE\ny\n>>>> EDIT END")
    assert b.path is None
    assert b.error is not None and b.error.code == ErrorCode.MALFORMED_BLOCK
    assert "no file path" in b.error.message


def test_empty_edit_section_creates_a_file() -> None:
    b = one("new/file.txt\n<<<< EDIT\n==== REPLACE\nhello\n>>>> EDIT END")
    assert b.action == Action.CREATE
    assert (b.content, b.on_exists, b.hunks) == ("hello\n", OnExists.ERROR, ())


def test_missing_divider_in_the_middle_later_blocks_still_parse() -> None:
    text = """a.py
<<<< EDIT
x
>>>> EDIT END

b.py
<<<< EDIT
p
==== REPLACE
q
>>>> EDIT END"""
    bad, good = blocks(text)
    assert bad.error is not None and bad.error.code == ErrorCode.MALFORMED_BLOCK
    assert bad.error.message == (
        "block starting at reply line 2: expected `==== REPLACE` before line 4 "
        "(found `>>>> EDIT END`)"
    )
    assert (good.path, good.hunks[0].old, good.error) == ("b.py", "p\n", None)
    assert bad.reply_lines == (1, 4) and good.reply_lines == (6, 11)


def test_missing_end_before_the_next_block() -> None:
    text = (
        "a.py\n<<<< EDIT\nx\n==== REPLACE\ny\n\nb.py\n<<<< EDIT\np\n==== REPLACE\nq\n>>>> EDIT END"
    )
    bad, good = blocks(text)
    assert bad.error is not None
    assert "expected `>>>> EDIT END` before line 8" in bad.error.message
    assert bad.reply_lines == (1, 6)
    assert (good.path, good.reply_lines) == ("b.py", (7, 12))


def test_a_second_divider_is_an_error_not_an_end() -> None:
    text = "a.py\n<<<< EDIT\nx\n==== REPLACE\ny\n==== REPLACE\nz\n>>>> EDIT END"
    b = blocks(text)[0]
    assert b.error is not None
    assert b.error.details == {"expected": ">>>> EDIT END", "line": 6, "found": "==== REPLACE"}


@pytest.mark.parametrize(
    "tail, expected",
    [("<<<< EDIT\nx", "==== REPLACE"), ("<<<< EDIT\nx\n==== REPLACE\ny\n", ">>>> EDIT END")],
)
def test_an_unterminated_final_block_is_incomplete(tail: str, expected: str) -> None:
    cut = one(f"a.py\n{tail}")
    assert cut.error is not None and cut.error.code == ErrorCode.MALFORMED_BLOCK
    assert cut.error.details == {"expected": expected, "incomplete": True}
    assert cut.hunks == ()


def test_formats_do_not_grab_each_other() -> None:
    text = """a.py
<<<< EDIT
x
==== REPLACE
y
>>>> EDIT END

b.py
<<<<<<< SEARCH
p
=======
q
>>>>>>> REPLACE

c.py
<<<<< EDIT
=======
>>>>> EDIT END
"""
    edits = ep.find_blocks(text.split("\n"))
    searches = sr.find_blocks(text.split("\n"))
    assert [(b.path, b.reply_lines) for b in edits] == [("a.py", (1, 6)), ("c.py", (15, 18))]
    assert edits[1].error is not None  # `=======` is not an EDIT divider
    assert [(b.path, b.reply_lines) for b in searches] == [("b.py", (8, 13))]


SOUP = st.sampled_from(
    ["<<<< EDIT", "  <<<<<< EDIT", "==== REPLACE", ">>>> EDIT END", "a.py", "```", "", "x"]
    + ["<<<<<<< SEARCH", "=======", ">>>>>>> REPLACE"]
)


@settings(max_examples=300, deadline=None)
@given(st.text() | st.lists(SOUP | st.text(max_size=5), max_size=40).map("\n".join))
def test_never_raises_on_arbitrary_text(text: str) -> None:
    found = blocks(text)
    for b in found:
        assert b.error is None or b.error.code == ErrorCode.MALFORMED_BLOCK
        assert b.path is not None or b.error is not None
    spans = [b.reply_lines for b in found]
    assert all(a[1] < b[0] for a, b in zip(spans, spans[1:], strict=False))


line = st.text(
    st.characters(blacklist_characters="\n\r", blacklist_categories=("Cs",)), max_size=20
).filter(lambda s: not s.strip() or s.strip()[0] not in "<=>")


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.lists(line, max_size=5), st.lists(line, max_size=5)), min_size=1))
def test_well_formed_blocks_round_trip(specs) -> None:
    out: list[str] = []
    for k, (old, new) in enumerate(specs):
        out += ["", f"pkg/m{k}.py", "<<<< EDIT", *old, "==== REPLACE", *new, ">>>> EDIT END"]
    found = ep.find_blocks(out)
    assert len(found) == len(specs)
    for k, (b, (old, new)) in enumerate(zip(found, specs, strict=True)):
        assert (b.path, b.error) == (f"pkg/m{k}.py", None)
        text_new = "".join(x + "\n" for x in new)
        if any(x.strip() for x in old):
            assert b.hunks[0].old == "".join(x + "\n" for x in old)
            assert b.hunks[0].new == text_new
            assert b.hunks[0].exact_only == (new[: len(old)] == old)
        else:
            assert (b.action, b.content) == (Action.CREATE, text_new)
