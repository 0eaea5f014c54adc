"""Codex apply_patch (V4A) patches in replies: operations, chunks, anchors, wrappers, errors."""

from __future__ import annotations

import difflib

from hypothesis import assume, given, settings
from hypothesis import strategies as st

from lsp_server.model import Action, ErrorCode, Format, Hunk, HunkKind, OnExists
from lsp_server.reply.apply_patch import find_blocks


def parse(text: str):
    return find_blocks(text.split("\n"))


def one(text: str):
    blocks = parse(text)
    assert len(blocks) == 1, blocks
    return blocks[0]


def patch(*body: str) -> str:
    return "\n".join(["*** Begin Patch", *body, "*** End Patch"]) + "\n"


# ---------------------------------------------------------------------------------------
# operations


def test_add_update_delete_and_spans():
    text = (
        "I will make three changes.\n"  # 1
        "*** Begin Patch\n"  # 2
        "*** Add File: docs/new.md\n"  # 3
        "+# Title\n"
        "+\n"
        "+body\n"  # 6
        "\n"
        "*** Delete File: old.txt\n"  # 8
        "*** Update File: src/app.py\n"  # 9
        "@@ def main():\n"
        "     x = 1\n"
        "-    y = 2\n"
        "+    y = 3\n"  # 13
        "*** End Patch\n"  # 14
        "Done.\n"
    )
    add, delete, update = parse(text)
    assert all(b.format is Format.APPLY_PATCH for b in (add, delete, update))
    assert (add.path, add.action, add.on_exists) == (
        "docs/new.md",
        Action.CREATE,
        OnExists.OVERWRITE,
    )
    assert add.content == "# Title\n\nbody\n"
    assert add.reply_lines == (2, 6)
    assert (delete.path, delete.action, delete.reply_lines) == ("old.txt", Action.DELETE, (8, 8))
    assert (update.path, update.action, update.reply_lines) == (
        "src/app.py",
        Action.MODIFY,
        (9, 14),
    )
    assert update.hunks == (
        Hunk("    x = 1\n    y = 2\n", "    x = 1\n    y = 3\n", anchors=("def main():",)),
    )
    assert all(b.error is None for b in (add, delete, update))


def test_move_to():
    b = one(patch("*** Update File: a/b.py", "*** Move to: c/d.py", "@@", "-x", "+y"))
    assert (b.path, b.move_to, b.action) == ("a/b.py", "c/d.py", Action.MODIFY)
    assert b.hunks == (Hunk("x\n", "y\n"),)


def test_move_to_without_chunks_is_malformed():
    b = one(patch("*** Update File: a.py", "*** Move to: b.py"))
    assert b.error.code is ErrorCode.MALFORMED_BLOCK


def test_move_to_after_add_file_is_malformed():
    add, bad = parse(patch("*** Add File: n.txt", "+x", "*** Move to: m.txt"))
    assert add.error is None and add.content == "x\n"
    assert bad.error.code is ErrorCode.MALFORMED_BLOCK and "Move to" in bad.error.message


def test_empty_add_file_creates_an_empty_file():
    b = one(patch("*** Add File: empty.txt"))
    assert (b.action, b.content) == (Action.CREATE, "")


def test_add_file_blank_line_between_plus_lines():
    b = one(patch("*** Add File: n.py", "+a", "", "+b", ""))
    assert b.content == "a\n\nb\n"


def test_add_file_line_without_plus_is_malformed_and_others_still_parse():
    text = patch(
        "*** Add File: n.py",  # 2
        "+a",
        "b forgot its plus",  # 4
        "+c",
        "*** Update File: m.py",  # 6
        "@@",
        "-x",
        "+y",
    )
    bad, good = parse(text)
    assert bad.path == "n.py" and bad.error.code is ErrorCode.MALFORMED_BLOCK
    assert "line 4" in bad.error.message and "'+'" in bad.error.message
    assert bad.reply_lines == (1, 5)
    assert good.error is None and good.hunks == (Hunk("x\n", "y\n"),)
    assert good.reply_lines == (6, 10)


def test_delete_file_with_spelled_out_lines():
    b = one(patch("*** Delete File: gone.py", "-a", "-b"))
    assert (b.action, b.error) == (Action.DELETE, None)


def test_unknown_header_is_malformed_and_others_still_parse():
    text = patch("*** Frobnicate File: foo", "+junk", "*** Add File: ok.txt", "+fine")
    bad, good = parse(text)
    assert bad.error.code is ErrorCode.MALFORMED_BLOCK
    assert "Frobnicate" in bad.error.message and "line 2" in bad.error.message
    assert bad.path is None
    assert good.content == "fine\n" and good.error is None


def test_stray_line_inside_an_update_is_malformed():
    bad, good = parse(
        patch(
            "*** Update File: a.py",
            "@@",
            " ctx",
            "code without a prefix",  # 5
            "+x",
            "*** Delete File: b.py",
        )
    )
    assert bad.error.code is ErrorCode.MALFORMED_BLOCK and "line 5" in bad.error.message
    assert good.action is Action.DELETE and good.error is None


def test_line_before_the_first_operation_is_malformed():
    bad, good = parse(patch("hello", "*** Delete File: x"))
    assert bad.error.code is ErrorCode.MALFORMED_BLOCK and "line 2" in bad.error.message
    assert good.path == "x"


def test_empty_patch():
    b = one("*** Begin Patch\n*** End Patch")
    assert b.error.code is ErrorCode.MALFORMED_BLOCK
    assert "no file operations" in b.error.message
    assert b.reply_lines == (1, 2)


def test_header_without_a_path():
    b = one(patch("*** Delete File:   "))
    assert b.error.code is ErrorCode.MALFORMED_BLOCK and "names no file" in b.error.message


# ---------------------------------------------------------------------------------------
# chunks


def test_stacked_anchors_outermost_first():
    b = one(
        patch(
            "*** Update File: m.py",
            "@@ class A:",
            "@@     def run(self):",
            "         a = 1",
            "-        return a",
            "+        return a + 1",
        )
    )
    (h,) = b.hunks
    assert h.anchors == ("class A:", "    def run(self):")
    assert h.old == "        a = 1\n        return a\n"
    assert h.new == "        a = 1\n        return a + 1\n"


def test_unified_diff_numbers_in_an_at_header_are_dropped():
    b = one(patch("*** Update File: m.py", "@@ -3,2 +3,2 @@ def f():", "-a", "+b"))
    assert b.hunks == (Hunk("a\n", "b\n", anchors=("def f():",)),)
    b = one(patch("*** Update File: m.py", "@@ -3,2 +3,2 @@", "-a", "+b"))
    assert b.hunks == (Hunk("a\n", "b\n"),)


def test_several_chunks_in_order():
    b = one(
        patch(
            "*** Update File: f",
            "@@",
            " a",
            "-b",
            "+B",
            "@@ def g():",
            "-c",
            "+C",
            "@@",
            " x",
            "+y",
        )
    )
    assert [(h.old, h.new, h.anchors) for h in b.hunks] == [
        ("a\nb\n", "a\nB\n", ()),
        ("c\n", "C\n", ("def g():",)),
        ("x\n", "x\ny\n", ()),
    ]


def test_first_chunk_without_header():
    b = one(patch("*** Update File: f", " a", "-b", "+c"))
    assert b.hunks == (Hunk("a\nb\n", "a\nc\n"),)


def test_end_of_file_marker():
    b = one(patch("*** Update File: f", "@@", " last", "+appended", "*** End of File"))
    assert b.hunks == (Hunk("last\n", "last\nappended\n", at_eof=True),)


def test_pure_addition_appends_at_end_of_file():
    b = one(patch("*** Update File: f", "@@", "+one", "+two"))
    assert b.hunks == (Hunk("", "one\ntwo\n", kind=HunkKind.APPEND_EOF),)
    b = one(patch("*** Update File: f", "@@ anything", "+one", "*** End of File"))
    assert b.hunks[0].kind is HunkKind.APPEND_EOF and b.hunks[0].at_eof


def test_pure_addition_under_an_anchor_goes_after_the_anchor_line():
    b = one(patch("*** Update File: f.py", "@@ class A:", "@@     def f(self):", "+        pass"))
    assert b.hunks == (
        Hunk(
            "    def f(self):\n",
            "    def f(self):\n        pass\n",
            anchors=("class A:",),
        ),
    )


def test_blank_line_inside_a_chunk_is_blank_context():
    b = one(patch("*** Update File: f", "@@", " a", "", "-b", "+c", "", ""))
    assert b.hunks == (Hunk("a\n\nb\n", "a\n\nc\n"),)


def test_whitespace_only_line_is_a_context_line():
    b = one(patch("*** Update File: f", " ", "-b", "+c"))
    assert b.hunks == (Hunk("\nb\n", "\nc\n"),)


def test_at_header_without_lines_is_malformed():
    b, d = parse(patch("*** Update File: f", "@@", "-a", "+b", "@@ def g():", "*** Delete File: g"))
    assert b.error.code is ErrorCode.MALFORMED_BLOCK and "line 6" in b.error.message
    assert b.error.details.get("incomplete") is None
    assert d.error is None


def test_context_only_chunk_is_accepted():
    # Codex accepts a chunk that changes nothing; the resolver reports it as a no-op
    b = one(patch("*** Update File: f", "@@", " a", " b"))
    assert b.error is None and b.hunks == (Hunk("a\nb\n", "a\nb\n"),)


def test_padded_markers_and_headers():
    text = " *** Begin Patch \n  *** Update File: f.txt  \n@@\n-a\n+b\n *** End Patch \n"
    b = one(text)
    assert (b.path, b.hunks, b.reply_lines) == ("f.txt", (Hunk("a\n", "b\n"),), (1, 6))


# ---------------------------------------------------------------------------------------
# wrappers and ends


def test_fenced_patch_covers_the_fence():
    text = "Here:\n```diff\n" + patch("*** Delete File: a", "*** Delete File: b") + "```\nok"
    a, b = parse(text)
    assert a.reply_lines == (2, 4) and b.reply_lines == (5, 7)


def test_heredoc_wrappers():
    for opener in (
        "apply_patch <<'EOF'",
        'apply_patch <<"EOF"',
        "apply_patch << EOF",
        "cat <<EOF | apply_patch",
        "$ apply_patch <<'PATCH'",
    ):
        delim = "PATCH" if "PATCH" in opener else "EOF"
        text = "```bash\n" + opener + "\n" + patch("*** Add File: x.txt", "+hi") + delim + "\n```\n"
        b = one(text)
        assert b.content == "hi\n", opener
        assert b.reply_lines == (1, 8), opener


def test_heredoc_without_end_patch_ends_at_the_delimiter():
    text = "apply_patch <<'EOF'\n*** Begin Patch\n*** Add File: x\n+a\nEOF\nThen run it.\n"
    b = one(text)
    assert (b.content, b.reply_lines, b.error) == ("a\n", (1, 5), None)


def test_heredoc_delimiter_only_ends_the_patch_unindented():
    text = "apply_patch <<EOF\n*** Begin Patch\n*** Update File: f\n@@\n EOF\n-a\n+b\nEOF\n"
    b = one(text)
    assert b.hunks == (Hunk("EOF\na\n", "EOF\nb\n"),)
    assert b.reply_lines == (1, 8)


def test_missing_end_patch_at_end_of_text_is_tolerated():
    b = one("*** Begin Patch\n*** Update File: f\n@@\n-a\n+b\n")
    assert b.error is None and b.hunks == (Hunk("a\n", "b\n"),)
    assert b.reply_lines == (1, 5)


def test_missing_end_patch_before_trailing_prose():
    b = one("*** Begin Patch\n*** Update File: f\n@@\n-a\n+b\n\nThis swaps a for b.\n")
    assert b.error is None and b.reply_lines == (1, 5)


def test_missing_end_patch_with_a_line_that_lost_its_prefix():
    b = one("*** Begin Patch\n*** Update File: f\n@@\n a\n-b\n+c\nd\n-e\n+f\n")
    assert b.error.code is ErrorCode.MALFORMED_BLOCK and "line 7" in b.error.message


def test_missing_end_patch_before_a_markdown_rule():
    b = one("*** Begin Patch\n*** Delete File: f\n***\nNext topic.\n")
    assert (b.error, b.reply_lines) == (None, (1, 2))


def test_missing_end_patch_inside_a_fence():
    a, b = parse(
        "```\n*** Begin Patch\n*** Add File: x\n+1\n```\n"
        "```\n*** Begin Patch\n*** Add File: y\n+2\n*** End Patch\n```"
    )
    assert (a.path, a.content, a.reply_lines) == ("x", "1\n", (1, 5))
    assert (b.path, b.content, b.reply_lines) == ("y", "2\n", (6, 11))


def test_missing_end_patch_then_another_patch():
    a, b = parse(
        "*** Begin Patch\n*** Add File: x\n+1\n*** Begin Patch\n*** Add File: y\n+2\n*** End Patch"
    )
    assert (a.path, b.path) == ("x", "y")
    assert a.reply_lines == (1, 3) and b.reply_lines == (4, 7)


def test_cut_off_after_update_header_is_incomplete():
    b = one("*** Begin Patch\n*** Update File: f\n")
    assert b.error.code is ErrorCode.MALFORMED_BLOCK and b.error.details["incomplete"] is True
    b = one("*** Begin Patch\n*** Update File: f\n@@ def g():")
    assert b.error.details["incomplete"] is True


def test_indented_fence_under_a_list_item():
    text = (
        "1. Patch:\n   ```\n   *** Begin Patch\n   *** Update File: f\n   @@\n"
        "    a\n   -b\n   +c\n   *** End Patch\n   ```\n"
    )
    b = one(text)
    assert b.hunks == (Hunk("a\nb\n", "a\nc\n"),)
    assert b.reply_lines == (2, 10)


def test_two_patches_in_one_reply():
    text = patch("*** Delete File: a") + "and then\n" + patch("*** Delete File: b")
    a, b = parse(text)
    assert (a.path, a.reply_lines, b.path, b.reply_lines) == ("a", (1, 3), "b", (5, 7))


# ---------------------------------------------------------------------------------------
# properties


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=400))
def test_never_raises_on_arbitrary_text(text):
    n = len(text.split("\n"))
    for block in find_blocks(text.split("\n")):
        lo, hi = block.reply_lines
        assert 1 <= lo <= hi <= n


_PIECES = st.sampled_from(
    [
        "*** Begin Patch",
        "*** End Patch",
        "*** Add File: a",
        "*** Update File: b",
        "*** Move to: c",
        "*** Delete File: d",
        "*** End of File",
        "@@",
        "@@ ctx",
        " x",
        "-y",
        "+z",
        "",
        "  ",
        "apply_patch <<'EOF'",
        "EOF",
        "```",
        "*** Frob",
        "prose",
    ]
)


@settings(max_examples=200, deadline=None)
@given(st.lists(_PIECES, max_size=30))
def test_never_raises_on_patch_like_noise(pieces):
    for block in find_blocks(list(pieces)):
        lo, hi = block.reply_lines
        assert 1 <= lo <= hi <= len(pieces)
        if block.error is None and block.action is Action.MODIFY:
            assert block.hunks


def v4a(a: list[str], b: list[str], n: int) -> tuple[str, list[tuple[int, list[str], list[str]]]]:
    """A V4A update a → b, and each chunk's (position in a, old lines, new lines)."""
    out = ["*** Begin Patch", "*** Update File: f.txt"]
    chunks = []
    for group in difflib.SequenceMatcher(None, a, b, autojunk=False).get_grouped_opcodes(n):
        out.append("@@")
        old: list[str] = []
        new: list[str] = []
        for tag, i1, i2, j1, j2 in group:
            if tag == "equal":
                out.extend(" " + line for line in a[i1:i2])
                old.extend(a[i1:i2])
                new.extend(a[i1:i2])
                continue
            out.extend("-" + line for line in a[i1:i2])
            out.extend("+" + line for line in b[j1:j2])
            old.extend(a[i1:i2])
            new.extend(b[j1:j2])
        chunks.append((group[0][1], old, new))
    out.append("*** End Patch")
    return "\n".join(out), chunks


_LINE = st.text(alphabet="ab -+@ \t", max_size=4)


@settings(max_examples=200, deadline=None)
@given(st.lists(_LINE, max_size=12), st.lists(_LINE, max_size=12), st.integers(1, 3))
def test_generated_patches_parse_to_their_chunks_and_reproduce_b(a, b, n):
    assume(a != b)
    text, chunks = v4a(a, b, n)
    block = one(text)
    assert block.error is None and block.path == "f.txt"
    assert len(block.hunks) == len(chunks)
    out = list(a)
    delta = 0
    for hunk, (pos, old, new) in zip(block.hunks, chunks, strict=True):
        assert hunk.new == "".join(line + "\n" for line in new)
        if hunk.kind is HunkKind.APPEND_EOF:
            assert not old and not a  # only a chunk into an empty file has no context
            out.extend(new)
            continue
        assert hunk.old == "".join(line + "\n" for line in old)
        start = pos + delta
        assert out[start : start + len(old)] == old
        out[start : start + len(old)] = new
        delta += len(new) - len(old)
    assert out == b
