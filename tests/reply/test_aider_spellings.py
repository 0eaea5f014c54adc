"""aider's earlier spellings of the SEARCH/REPLACE block (issue 22): `<<<<<<< ORIGINAL` /
`=======` / `>>>>>>> UPDATED` (aider, May to August 2023) and `<<<<<<< HEAD` / `=======` /
`>>>>>>> updated` (August to October 2023). They are the same format as today's: a block in
either reads as the same block in `<<<<<<< SEARCH` / `>>>>>>> REPLACE` would (the oracle of
the property below), and a block whose markers mix two spellings is refused, as every aider
parser refused it."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lsp_server.model import Action, ErrorCode, Format, OnExists
from lsp_server.reply import parse_reply
from lsp_server.reply import search_replace as sr
from tests.reply.agent_workspace import examples, place

F = "`" * 3

SPELLINGS = {
    "search": ("<<<<<<< SEARCH", ">>>>>>> REPLACE"),
    "original": ("<<<<<<< ORIGINAL", ">>>>>>> UPDATED"),
    "head": ("<<<<<<< HEAD", ">>>>>>> updated"),
}


def block(spelling: str, old: str, new: str, path: str = "a.py", head: str = "inside") -> str:
    start, end = SPELLINGS[spelling]
    body = f"{start}\n{old}=======\n{new}{end}\n"
    if head == "inside":  # aider's prompt of 2023: the path as the fence's first line
        return f"{F}python\n{path}\n{body}{F}\n"
    return f"{path}\n{F}python\n{body}{F}\n"


def one(reply: str):
    blocks = parse_reply(reply).blocks
    assert len(blocks) == 1, blocks
    return blocks[0]


@pytest.mark.parametrize("spelling", ["original", "head"])
@pytest.mark.parametrize("head", ["inside", "above"])
def test_a_block_in_an_earlier_spelling_is_a_search_replace_block(spelling, head):
    reply = "Here is the change:\n\n" + block(spelling, "x = 1\n", "x = 2\n", head=head)
    b = one(reply + "\nDone.\n")
    assert b.format is Format.SEARCH_REPLACE and b.error is None
    assert b.path == "a.py" and b.language == "python"
    assert b.action is Action.MODIFY
    assert [(h.old, h.new) for h in b.hunks] == [("x = 1\n", "x = 2\n")]
    assert b.reply_lines == (3, 10)  # the path line (or the fence) through the closing fence


def test_an_empty_original_creates_the_file_or_appends_to_it_as_aider_did():
    b = one(block("original", "", "def f():\n    return 1\n", path="new.py"))
    assert b.action is Action.CREATE and b.on_exists is OnExists.APPEND
    assert b.content == "def f():\n    return 1\n"
    created = place(block("original", "", "x = 1\n", path="new.py"), {})
    assert created.files == {"new.py": "x = 1\n"} and created.plan.ok
    appended = place(block("head", "", "y = 2\n", path="a.py"), {"a.py": "x = 1\n"})
    assert appended.files == {"a.py": "x = 1\ny = 2\n"} and appended.plan.ok


def test_a_block_without_a_path_takes_the_previous_blocks():
    reply = block("original", "x = 1\n", "x = 2\n", path="src/m.py")
    reply += f"{F}python\n<<<<<<< ORIGINAL\ny = 1\n=======\ny = 2\n>>>>>>> UPDATED\n{F}\n"
    blocks = parse_reply(reply).blocks
    assert [(b.path, b.error) for b in blocks] == [("src/m.py", None), ("src/m.py", None)]


def test_aiders_source_fence_holds_an_original_block():
    reply = "<source>markdown\ndocs/faq.md\n<<<<<<< ORIGINAL\n# FAQ\n=======\n# Questions\n"
    b = one(reply + ">>>>>>> UPDATED\n</source>\n")
    assert (b.path, b.error, b.hunks[0].old, b.hunks[0].new) == (
        "docs/faq.md",
        None,
        "# FAQ\n",
        "# Questions\n",
    )


@pytest.mark.parametrize("n", [5, 9])
def test_original_markers_are_read_at_the_lengths_search_markers_are(n):
    reply = f"a.py\n{'<' * n} ORIGINAL\nx\n{'=' * n}\ny\n{'>' * n} UPDATED\n"
    assert one(reply).hunks[0].new == "y\n"


@pytest.mark.parametrize(
    "start, end",
    [
        ("<<<<<<< ORIGINAL", ">>>>>>> REPLACE"),
        ("<<<<<<< ORIGINAL", ">>>>>>> updated"),
        ("<<<<<<< HEAD", ">>>>>>> REPLACE"),
        ("<<<<<<< HEAD", ">>>>>>> UPDATED"),
    ],
)
def test_a_block_whose_markers_mix_two_spellings_is_refused_naming_the_line(start, end):
    reply = f"{F}python\na.py\n{start}\nx = 1\n=======\nx = 2\n{end}\n{F}\n"
    blocks = parse_reply(reply).blocks
    assert blocks and all(b.error is not None for b in blocks), blocks
    if start.endswith("ORIGINAL"):
        (b,) = blocks
        assert b.error.code is ErrorCode.MALFORMED_BLOCK
        assert b.error.details == {"expected": ">>>>>>> UPDATED", "line": 7, "found": end}
    else:
        # `<<<<<<< HEAD` that does not open a whole block of aider's is a conflict marker:
        # the stray-marker check refuses the fence, as it did before the spelling was read
        assert all(b.error.code is ErrorCode.MALFORMED_BLOCK for b in blocks)
        assert not any(b.hunks for b in blocks)


def test_a_second_divider_does_not_end_an_original_block():
    # aider's first parser wanted `>>>>>>> UPDATED` after the new text, nothing else
    reply = "a.py\n<<<<<<< ORIGINAL\nx = 1\n=======\nx = 2\n=======\ny\n>>>>>>> UPDATED\n"
    b = one(reply)
    assert b.error is not None and b.error.code is ErrorCode.MALFORMED_BLOCK
    assert b.error.details["expected"] == ">>>>>>> UPDATED"


def test_an_original_block_cut_off_says_so_in_its_own_words():
    b = one(f"{F}python\na.py\n<<<<<<< ORIGINAL\nx = 1\n=======\nx = 2\n")
    assert b.error.details == {"expected": ">>>>>>> UPDATED", "incomplete": True}


def test_a_merge_conflict_is_not_read_as_aiders_head_block():
    conflict = "<<<<<<< HEAD\nx = 1\n=======\nx = 2\n>>>>>>> feature/login\n"
    # in prose: not an edit, as before
    assert parse_reply("The merge left this:\n\n" + conflict + "\nHow do I fix it?\n").failure
    # in a fence under a path: never written, refused naming the marker, as before
    blocks = parse_reply(f"a.py\n{F}python\n{conflict}{F}\n").blocks
    assert blocks and all(b.error is not None and not b.hunks for b in blocks)
    # only aider's exact end marker makes a HEAD block
    assert not sr.find_blocks(conflict.replace("feature/login", "Updated").split("\n"))


@pytest.mark.parametrize("spelling", ["original", "head"])
def test_a_block_in_a_fence_under_a_list_item_is_read_at_the_margin(spelling):
    start, end = SPELLINGS[spelling]
    body = f"```python\na.py\n{start}\n    x = 1\n=======\n    x = 2\n{end}\n```\n"
    reply = "1. Change it:\n" + "".join("   " + line + "\n" for line in body.splitlines())
    b = one(reply)
    assert (b.error, b.hunks[0].old, b.hunks[0].new) == (None, "    x = 1\n", "    x = 2\n")


# --- the oracle: a block in an earlier spelling is the block in today's --------------------

_LINES = st.sampled_from(
    ["x = 1", "    return x", "", "def f():", "# ORIGINAL", "HEAD", "updated", "=== x ==="]
)
_TEXTS = st.lists(_LINES, max_size=4).map(lambda ls: "".join(x + "\n" for x in ls))


@settings(max_examples=examples(200), deadline=None)
@given(
    spelling=st.sampled_from(["original", "head"]),
    old=_TEXTS,
    new=_TEXTS,
    path=st.sampled_from(["a.py", "src/pkg/m.ts", "README.md"]),
    head=st.sampled_from(["inside", "above"]),
    prose=st.sampled_from(["", "Here is the change:\n\n"]),
    indent=st.sampled_from(["", "   "]),
)
def test_an_earlier_spelling_reads_as_the_same_block_in_todays(
    spelling, old, new, path, head, prose, indent
):
    def reply(spelling: str) -> str:
        text = block(spelling, old, new, path, head)
        if indent:  # the block under a list item, every line indented
            text = "1. Apply:\n" + "".join(indent + x + "\n" for x in text.splitlines())
        return prose + text

    assert parse_reply(reply(spelling)) == parse_reply(reply("search"))
