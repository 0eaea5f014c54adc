"""Unified diffs in replies: headers, paths, hunks read by content, failures, streaming."""

from __future__ import annotations

import difflib
import re

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from lsp_server.model import Action, ErrorCode, Format, Hunk, HunkKind, OnExists
from lsp_server.reply.unified_diff import find_blocks


def parse(text: str):
    return find_blocks(text.split("\n"))


def one(text: str):
    blocks = parse(text)
    assert len(blocks) == 1, blocks
    return blocks[0]


# ---------------------------------------------------------------------------------------
# headers, paths, fences


def test_fenced_git_diff():
    text = (
        "Here is the fix:\n"  # 1
        "\n"  # 2
        "```diff\n"  # 3
        "diff --git a/src/app.py b/src/app.py\n"  # 4
        "index 3b18e51..a9c2f3e 100644\n"  # 5
        "--- a/src/app.py\n"  # 6
        "+++ b/src/app.py\n"  # 7
        "@@ -10,3 +10,3 @@ def main():\n"  # 8
        "     x = 1\n"  # 9
        "-    y = 2\n"  # 10
        "+    y = 3\n"  # 11
        "     return x + y\n"  # 12
        "```\n"  # 13
        "\n"
        "That should do it.\n"
    )
    b = one(text)
    assert b.format is Format.UNIFIED_DIFF
    assert b.path == "src/app.py"
    assert b.action is Action.MODIFY
    assert b.reply_lines == (3, 13)
    assert b.language == "diff"
    assert b.error is None and b.move_to is None
    assert b.hunks == (
        Hunk(
            "    x = 1\n    y = 2\n    return x + y\n",
            "    x = 1\n    y = 3\n    return x + y\n",
            line_hint=10,
        ),
    )


def test_bare_diff_between_prose_covers_only_its_lines():
    text = (
        "Change this:\n"
        "--- a/a.txt\n"  # 2
        "+++ b/a.txt\n"
        "@@ -1,2 +1,2 @@\n"
        " keep\n"
        "-old\n"
        "+new\n"  # 7
        "\n"
        "Then run the tests.\n"
    )
    b = one(text)
    assert b.reply_lines == (2, 7)
    assert b.language is None
    assert b.hunks[0].old == "keep\nold\n"
    assert b.hunks[0].new == "keep\nnew\n"


def test_fence_holding_prose_keeps_its_lines():
    text = "```\nsome notes\n--- a/x\n+++ b/x\n@@\n-a\n+b\n```\n"
    assert one(text).reply_lines == (3, 7)


def test_plain_paths_and_timestamps():
    text = (
        "--- src/a.c\t2024-01-02 10:00:00.000000000 +0100\n"
        "+++ src/a.c\t2024-01-02 11:00:00.000000000 +0100\n"
        "@@ -1 +1 @@\n-x\n+y\n"
    )
    assert one(text).path == "src/a.c"
    text = "--- lib/b.py 2024-01-02 10:00:00\n+++ lib/b.py 2024-01-02 11:00:00\n@@\n-x\n+y\n"
    assert one(text).path == "lib/b.py"
    text = '--- "dir/my file.txt"\n+++ "dir/my file.txt"\n@@\n-x\n+y\n'
    assert one(text).path == "dir/my file.txt"


def test_prefix_stripped_only_when_both_sides_use_it():
    assert one("--- a/x.py\n+++ b/x.py\n@@\n-1\n+2\n").path == "x.py"
    # a real directory named a/ with no b/ on the other side stays
    assert one("--- a/x.py\n+++ a/x.py\n@@\n-1\n+2\n").path == "a/x.py"
    assert one("--- ./x.py\n+++ ./x.py\n@@\n-1\n+2\n").path == "x.py"
    assert one("--- a/./x.py\n+++ b/./x.py\n@@\n-1\n+2\n").path == "x.py"


def test_plain_diff_with_different_names_patches_the_new_one():
    b = one("--- conf.ini.orig\n+++ conf.ini\n@@ -1 +1 @@\n-a=1\n+a=2\n")
    assert b.path == "conf.ini" and b.move_to is None


def test_prefixed_diff_with_different_names_is_a_rename():
    b = one("--- a/old.py\n+++ b/new.py\n@@ -1 +1 @@\n-a\n+b\n")
    assert (b.path, b.move_to) == ("old.py", "new.py")
    assert b.hunks == (Hunk("a\n", "b\n", line_hint=1),)


def test_create_from_dev_null():
    b = one("```diff\n--- /dev/null\n+++ b/pkg/new.py\n@@ -0,0 +1,2 @@\n+def f():\n+    pass\n```")
    assert b.action is Action.CREATE
    assert b.path == "pkg/new.py"
    assert b.content == "def f():\n    pass\n"
    assert b.on_exists is OnExists.ERROR
    assert b.hunks == ()


def test_create_without_numbers_and_without_final_newline():
    b = one("--- /dev/null\n+++ b/n.txt\n@@ ... @@\n+one\n+two\n\\ No newline at end of file\n")
    assert b.action is Action.CREATE
    assert b.content == "one\ntwo"


def test_git_new_empty_file_and_deleted_empty_file():
    blocks = parse(
        "diff --git a/empty.txt b/empty.txt\n"
        "new file mode 100644\n"
        "index 0000000..e69de29\n"
        "diff --git a/gone.txt b/gone.txt\n"
        "deleted file mode 100644\n"
        "index e69de29..0000000\n"
        "Done.\n"
    )
    assert [(b.path, b.action, b.content) for b in blocks] == [
        ("empty.txt", Action.CREATE, ""),
        ("gone.txt", Action.DELETE, None),
    ]
    assert [b.reply_lines for b in blocks] == [(1, 3), (4, 6)]


def test_delete_to_dev_null():
    b = one(
        "diff --git a/old.txt b/old.txt\ndeleted file mode 100644\nindex 1..0\n"
        "--- a/old.txt\n+++ /dev/null\n@@ -1,2 +0,0 @@\n-a\n-b\n"
    )
    assert (b.path, b.action, b.hunks, b.error) == ("old.txt", Action.DELETE, (), None)


def test_pure_git_rename():
    b = one(
        "diff --git a/src/old name.py b/src/new name.py\n"
        "similarity index 100%\n"
        "rename from src/old name.py\n"
        "rename to src/new name.py\n"
    )
    assert (b.path, b.move_to, b.action, b.hunks) == (
        "src/old name.py",
        "src/new name.py",
        Action.MODIFY,
        (),
    )


def test_git_rename_with_changes():
    b = one(
        "diff --git a/a.py b/b.py\nsimilarity index 90%\nrename from a.py\nrename to b.py\n"
        "index 1..2 100644\n--- a/a.py\n+++ b/b.py\n@@ -3,1 +3,1 @@\n-x\n+y\n"
    )
    assert (b.path, b.move_to) == ("a.py", "b.py")
    assert b.hunks == (Hunk("x\n", "y\n", line_hint=3),)


def test_mode_change_only_is_not_a_block():
    assert parse("diff --git a/run.sh b/run.sh\nold mode 100644\nnew mode 100755\nok\n") == []


def test_binary_and_copy_are_malformed():
    b = one(
        "diff --git a/img.png b/img.png\nindex 1..2 100644\n"
        "Binary files a/img.png and b/img.png differ\nok"
    )
    assert b.error.code is ErrorCode.MALFORMED_BLOCK and "binary" in b.error.message
    b = one("diff --git a/a b/c\ncopy from a\ncopy to c\n--- a/a\n+++ b/c\n@@\n-x\n+y\n")
    assert (b.error, b.action, b.path, b.move_to) == (None, Action.COPY, "a", "c")
    b = one("diff --git a/a b/c\ncopy from a\n--- a/a\n+++ b/c\n@@\n-x\n+y\n")
    assert b.error.code is ErrorCode.MALFORMED_BLOCK and "copy" in b.error.message


def test_quoted_git_header_paths():
    b = one('diff --git "a/sp ace.txt" "b/sp ace.txt"\nnew file mode 100644\nindex 0..1\n')
    assert (b.path, b.action) == ("sp ace.txt", Action.CREATE)
    b = one('diff --git "a/caf\\303\\251.txt" "b/caf\\303\\251.txt"\nnew file mode 100644\n\nx')
    assert b.path == "café.txt"


def test_several_files_and_hunks_one_block_per_file():
    text = (
        "```diff\n"  # 1
        "--- a/one.py\n"  # 2
        "+++ b/one.py\n"
        "@@ -1,3 +1,3 @@\n"
        " a\n-b\n+B\n c\n"
        "@@ -20,2 +20,3 @@\n"  # 9
        " x\n+y\n z\n"
        "--- a/two.py\n"  # 13
        "+++ b/two.py\n"
        "@@ -5 +5 @@\n"
        "-q\n+Q\n"  # 17
        "```\n"  # 18
    )
    a, b = parse(text)
    assert (a.path, b.path) == ("one.py", "two.py")
    assert a.reply_lines == (1, 12) and b.reply_lines == (13, 18)
    assert a.hunks == (
        Hunk("a\nb\nc\n", "a\nB\nc\n", line_hint=1),
        Hunk("x\nz\n", "x\ny\nz\n", line_hint=20),
    )
    assert b.hunks == (Hunk("q\n", "Q\n", line_hint=5),)


def test_svn_style_index_lines_are_prose():
    text = (
        "Index: f.txt\n"
        + "=" * 20
        + "\n--- f.txt\t(revision 12)\n+++ f.txt\t(working copy)\n@@ -1 +1 @@\n-a\n+b\n"
    )
    b = one(text)
    assert b.path == "f.txt" and b.reply_lines == (3, 7)


def test_dashes_without_plus_line_are_prose():
    assert parse("--- \nSome heading\n---\n+++ not after dashes\n@@\n-a\n+b\n") == []


# ---------------------------------------------------------------------------------------
# hunks


def test_wrong_counts_content_wins():
    b = one("--- a/f\n+++ b/f\n@@ -1,1 +1,1 @@\n a\n-b\n+c\n d\n e\n")
    assert b.hunks == (Hunk("a\nb\nd\ne\n", "a\nc\nd\ne\n", line_hint=1),)
    b = one("--- a/f\n+++ b/f\n@@ -7,9 +7,12 @@\n a\n-b\n+c\n\nThat's all.\n")
    assert b.hunks == (Hunk("a\nb\n", "a\nc\n", line_hint=7),)
    assert b.reply_lines == (1, 6)


def test_hunks_without_numbers():
    for header in ("@@ ... @@", "@@", "@@ def main(): @@", "@@@"):
        b = one(f"--- a/f\n+++ b/f\n{header}\n a\n-b\n+c\n")
        assert b.hunks == (Hunk("a\nb\n", "a\nc\n"),), header
        assert b.hunks[0].line_hint is None


def test_single_number_ranges():
    b = one("--- a/f\n+++ b/f\n@@ -4 +4,2 @@\n-x\n+y\n+z\n")
    assert b.hunks == (Hunk("x\n", "y\nz\n", line_hint=4),)


def test_empty_line_inside_hunk_is_blank_context():
    b = one("--- a/f\n+++ b/f\n@@ -1,5 +1,5 @@\n a\n\n-b\n+c\n\n d\n")
    assert b.hunks == (Hunk("a\n\nb\n\nd\n", "a\n\nc\n\nd\n", line_hint=1),)
    # several blank lines in a row, no numbers
    b = one("--- a/f\n+++ b/f\n@@\n a\n\n\n-b\n+c\n")
    assert b.hunks[0].old == "a\n\n\nb\n"


def test_empty_lines_before_prose_end_the_hunk():
    b = one("--- a/f\n+++ b/f\n@@\n a\n-b\n+c\n\n\nNow restart.\n- a list item\n")
    assert b.hunks == (Hunk("a\nb\n", "a\nc\n"),)
    assert b.reply_lines == (1, 6)


def test_blank_line_where_counts_run_out_ends_the_hunk():
    # the counts are right (1 old, 1 new): the "- item" after the blank line is prose
    text = "--- a/f\n+++ b/f\n@@ -3,1 +3,1 @@\n-b\n+c\n\n- item one\n- item two\n"
    b = one(text)
    assert b.hunks == (Hunk("b\n", "c\n", line_hint=3),)
    assert b.reply_lines == (1, 5)


def test_trailing_blank_context_that_lost_its_space():
    # counts promise one more line on each side: the stripped blank line at the end
    b = one("--- a/f\n+++ b/f\n@@ -1,3 +1,3 @@\n a\n-b\n+c\n\n")
    assert b.error is None
    assert b.hunks == (Hunk("a\nb\n", "a\nc\n", line_hint=1),)


def test_blank_lines_between_hunks():
    b = one("--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\n+b\n\n@@ -9 +9 @@\n-y\n+z\n")
    assert [h.line_hint for h in b.hunks] == [1, 9]


def test_no_newline_markers():
    b = one(
        "--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+c\n"
        "\\ No newline at end of file\n"
    )
    assert b.hunks == (Hunk("a\nb", "a\nc", line_hint=1),)
    # only the new side loses its final newline
    b = one("--- a/f\n+++ b/f\n@@ -1 +1 @@\n-b\n+c\n\\ No newline at end of file\n")
    assert b.hunks == (Hunk("b\n", "c", line_hint=1),)
    # a marker after a context line applies to both sides; any wording is accepted
    b = one("--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n-a\n+A\n z\n\\ Kein Zeilenumbruch am Dateiende.\n")
    assert b.hunks == (Hunk("a\nz", "A\nz", line_hint=1),)
    # the old side gains a final newline
    b = one("--- a/f\n+++ b/f\n@@ -1 +1 @@\n-b\n\\ No newline at end of file\n+b\n")
    assert b.hunks == (Hunk("b", "b\n", line_hint=1),)


def test_pure_additions_insert_after_a_line():
    b = one("--- a/f\n+++ b/f\n@@ -0,0 +1,2 @@\n+top\n+more\n")
    assert b.hunks == (Hunk("", "top\nmore\n", kind=HunkKind.INSERT_AT_LINE, line_hint=0),)
    b = one("--- a/f\n+++ b/f\n@@ -5,0 +6 @@\n+after five\n")
    assert b.hunks == (Hunk("", "after five\n", kind=HunkKind.INSERT_AT_LINE, line_hint=5),)
    # a header that claims old lines the body lacks: insert where they would start
    b = one("--- a/f\n+++ b/f\n@@ -5 +5,2 @@\n+before five\n")
    assert b.hunks == (Hunk("", "before five\n", kind=HunkKind.INSERT_AT_LINE, line_hint=4),)


def test_pure_addition_without_position_is_malformed():
    b = one("--- a/f\n+++ b/f\n@@ ... @@\n+floating\n")
    assert b.error.code is ErrorCode.MALFORMED_BLOCK
    assert "line 3" in b.error.message and "where" in b.error.message


def test_hunk_with_context_only_is_malformed():
    b = one("--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n a\n b\n")
    assert b.error.code is ErrorCode.MALFORMED_BLOCK
    assert "changes nothing" in b.error.message and "line 3" in b.error.message


def test_prose_instead_of_a_hunk_body_is_malformed_and_others_still_parse():
    text = (
        "--- a/f\n+++ b/f\n@@ -1,3 +1,3 @@\nI renamed the variable here.\n\n"  # 1-4
        "--- a/g\n+++ b/g\n@@ -1 +1 @@\n-x\n+y\n"  # 6-10
    )
    bad, good = parse(text)
    assert bad.path == "f" and bad.error.code is ErrorCode.MALFORMED_BLOCK
    assert "line 3" in bad.error.message
    assert bad.error.details.get("incomplete") is None
    assert good.error is None and good.hunks == (Hunk("x\n", "y\n", line_hint=1),)
    assert good.reply_lines == (6, 10)


def test_context_line_without_its_space_is_malformed_not_dropped():
    # stopping at "d" would silently drop "-e/+f"
    b = one("--- a/f\n+++ b/f\n@@ -1,6 +1,6 @@\n a\n-b\n+c\nd\n-e\n+f\n")
    assert b.error.code is ErrorCode.MALFORMED_BLOCK
    assert "line 7" in b.error.message and "leading space" in b.error.message
    b = one("--- a/f\n+++ b/f\n@@\n a\n-b\n+c\nd\n e\n")  # no counts: context after it
    assert b.error is None and b.hunks == (Hunk("a\nb\n", "a\nc\n"),)
    b = one("--- a/f\n+++ b/f\n@@ -1,5 +1,5 @@\n a\n-b\n+c\nd\n e\n")  # counts: it belongs
    assert b.error.code is ErrorCode.MALFORMED_BLOCK and "line 7" in b.error.message
    # prose right after a hunk whose counts are met, then a list: fine
    b = one("--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n a\n-b\n+c\nNotes:\n- one\n---\n")
    assert b.error is None
    # prose then a markdown rule, no counts: fine
    assert one("--- a/f\n+++ b/f\n@@\n-b\n+c\nThat is all.\n---\n").error is None


def test_header_without_hunk_is_malformed():
    bad, good = parse("--- a/f\n+++ b/f\nSee above.\n--- a/g\n+++ b/g\n@@\n-x\n+y\n")
    assert bad.error.code is ErrorCode.MALFORMED_BLOCK and "line 3" in bad.error.message
    assert good.path == "g" and good.error is None


def test_create_with_context_lines_is_malformed():
    b = one("--- /dev/null\n+++ b/new\n@@ -0,0 +1,2 @@\n x\n+y\n")
    assert b.error.code is ErrorCode.MALFORMED_BLOCK and "/dev/null" in b.error.message


def test_delete_with_added_lines_is_malformed():
    b = one("--- a/old\n+++ /dev/null\n@@ -1 +1 @@\n-x\n+y\n")
    assert b.error.code is ErrorCode.MALFORMED_BLOCK


def test_header_without_a_name_is_malformed():
    b = one("--- \n+++ b/x\n@@\n-a\n+b\n")
    assert b.error.code is ErrorCode.MALFORMED_BLOCK and "name the file" in b.error.message


def test_git_header_without_minus_plus_lines():
    b = one("diff --git a/x.py b/x.py\n@@ -2 +2 @@\n-a\n+b\n")
    assert (b.path, b.hunks) == ("x.py", (Hunk("a\n", "b\n", line_hint=2),))


def test_dev_null_on_both_sides_is_malformed():
    b = one("--- /dev/null\n+++ /dev/null\n@@\n+x\n")
    assert b.error.code is ErrorCode.MALFORMED_BLOCK


def test_removed_and_added_lines_that_look_like_headers():
    # "-- x" removed and "++ y" added render as "--- x" / "+++ y"; the counts say so
    b = one("--- a/f\n+++ b/f\n@@ -1,3 +1,3 @@\n a\n--- x\n+++ y\n b\n")
    assert b.hunks == (Hunk("a\n-- x\nb\n", "a\n++ y\nb\n", line_hint=1),)
    # but a real next-file header after a hunk with too-large counts is a header
    a, b = parse("--- a/f\n+++ b/f\n@@ -1,9 +1,9 @@\n-a\n+b\n--- a/g\n+++ b/g\n@@\n-c\n+d\n")
    assert (a.path, b.path) == ("f", "g")
    assert a.hunks == (Hunk("a\n", "b\n", line_hint=1),)


def test_context_line_holding_a_fence_inside_a_fenced_diff():
    text = (
        "```diff\n--- a/README.md\n+++ b/README.md\n@@ -1,4 +1,4 @@\n"
        " ```\n-pip install foo\n+pip install bar\n ```\n```\nok\n"
    )
    b = one(text)
    assert b.hunks == (
        Hunk("```\npip install foo\n```\n", "```\npip install bar\n```\n", line_hint=1),
    )
    assert b.reply_lines == (1, 9)
    # the same without numbers: the line after each ` ``` ` decides
    b = one(text.replace("@@ -1,4 +1,4 @@", "@@"))
    assert b.hunks[0].old == "```\npip install foo\n```\n"


def test_indented_closing_fence_ends_the_diff():
    # a fence indented under a list item: its body is read without that indent
    text = (
        "1. Apply:\n   ```diff\n   --- a/f\n   +++ b/f\n   @@\n"
        "    a\n   -b\n   +c\n\n    d\n   ```\n"
    )
    b = one(text)
    assert b.hunks == (Hunk("a\nb\n\nd\n", "a\nc\n\nd\n"),)
    assert b.reply_lines == (2, 11)
    # an indented `--- a/f` outside any fence is not a diff
    assert parse("   --- a/f\n   +++ b/f\n   @@\n   -a\n   +b\n") == []
    b = one("```diff\n--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\n+b\n  ```\nafter\n")
    assert b.reply_lines == (1, 7)


# ---------------------------------------------------------------------------------------
# streaming


def test_reply_cut_inside_a_hunk_is_incomplete():
    b = one("Here:\n--- a/f\n+++ b/f\n@@ -1,4 +1,4 @@\n a\n-b\n")
    assert b.error.code is ErrorCode.MALFORMED_BLOCK
    assert b.error.details == {"incomplete": True}
    b = one("```diff\n--- a/f\n+++ b/f\n@@ -1,4 +1,4 @@\n a\n-b")
    assert b.error.details == {"incomplete": True}


def test_reply_cut_after_a_header_is_incomplete():
    for text in (
        "--- a/f\n+++ b/f\n",
        "--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n",
        "--- a/f\n+++ b/f\n@@ ... @@",
        "diff --git a/f b/f\nindex 1..2 100644\n",
    ):
        b = one(text)
        assert b.error is not None and b.error.details.get("incomplete") is True, text


def test_reply_cut_in_an_earlier_file_is_not_incomplete():
    a, b = parse(
        "--- a/f\n+++ b/f\n@@ -1,4 +1,4 @@\n-a\n+b\n--- a/g\n+++ b/g\n@@ -1 +1 @@\n-c\n+d\n"
    )
    assert a.error is None and b.error is None


def test_complete_hunk_at_the_end_is_complete():
    assert one("--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n a\n-b\n+c").error is None


# ---------------------------------------------------------------------------------------
# properties


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=400))
def test_never_raises_on_arbitrary_text(text):
    for block in find_blocks(text.split("\n")):
        assert block.format is Format.UNIFIED_DIFF
        lo, hi = block.reply_lines
        assert 1 <= lo <= hi <= len(text.split("\n"))


_PIECES = st.sampled_from(
    [
        "--- a/x",
        "+++ b/x",
        "@@ -1,2 +1,2 @@",
        "@@",
        " a",
        "-b",
        "+c",
        "",
        "\\ No newline at end of file",
        "```diff",
        "```",
        "diff --git a/x b/x",
        "new file mode 100644",
        "rename from q",
        "rename to r",
        "--- /dev/null",
        "+++ /dev/null",
        "text",
        " ```",
    ]
)


@settings(max_examples=200, deadline=None)
@given(st.lists(_PIECES, max_size=30))
def test_never_raises_on_diff_like_noise(pieces):
    lines = list(pieces)
    for block in find_blocks(lines):
        lo, hi = block.reply_lines
        assert 1 <= lo <= hi <= len(lines)
        if block.error is None and block.action is Action.MODIFY:
            assert block.hunks or block.move_to


def _lines(h_text: str) -> list[str]:
    return h_text.split("\n")[:-1] if h_text else []


def apply_by_numbers(a: list[str], hunks: tuple[Hunk, ...]) -> list[str]:
    """Test-only applier: each hunk goes where its line number says, shifted by the lines
    the earlier hunks added or removed; the old text must be there."""
    out = list(a)
    delta = 0
    for h in hunks:
        old, new = _lines(h.old), _lines(h.new)
        if h.kind is HunkKind.INSERT_AT_LINE:
            assert not old
            pos = h.line_hint + delta
        else:
            assert h.kind is HunkKind.REPLACE
            pos = h.line_hint - 1 + delta
        assert out[pos : pos + len(old)] == old
        out[pos : pos + len(old)] = new
        delta += len(new) - len(old)
    return out


_LINE = st.text(alphabet="ab -+\\@#\t", max_size=4)
_FILE = st.lists(_LINE, max_size=14)


def _udiff(a: list[str], b: list[str], n: int) -> list[str]:
    return list(difflib.unified_diff(a, b, "a/f.txt", "b/f.txt", n=n, lineterm=""))


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_FILE, _FILE, st.sampled_from([3, 1, 0]), st.booleans())
def test_difflib_diffs_reproduce_b(a, b, n, fenced):
    assume(a != b)
    diff = _udiff(a, b, n)
    text = "\n".join(["Patch:", "```diff", *diff, "```", "done"] if fenced else diff)
    blocks = parse(text)
    assert len(blocks) == 1
    block = blocks[0]
    assert block.error is None and block.path == "f.txt"
    assert apply_by_numbers(a, block.hunks) == b


@settings(max_examples=200, deadline=None)
@given(_FILE, _FILE, st.sampled_from([3, 0]))
def test_difflib_diffs_with_stripped_blank_context_reproduce_b(a, b, n):
    """Models drop the space of a blank context line; the empty line still means it."""
    assume(a != b)
    diff = ["" if line == " " else line for line in _udiff(a, b, n)]
    block = one("\n".join(diff))
    assert block.error is None
    assert apply_by_numbers(a, block.hunks) == b


@settings(max_examples=200, deadline=None)
@given(_FILE, _FILE, st.sampled_from([3, 0]))
def test_difflib_diffs_without_numbers_keep_their_texts(a, b, n):
    assume(a != b)
    numbered = _udiff(a, b, n)
    bare = [re.sub(r"^@@ .* @@$", "@@ ... @@", line) for line in numbered]
    # without counts, a removed "-- x" next to an added "++ y" reads as a file header
    assume(
        not any(
            x.startswith("--- ") and y.startswith("+++ ")
            for x, y in zip(bare[2:], bare[3:], strict=False)
        )
    )
    with_numbers = one("\n".join(numbered))
    without = one("\n".join(bare))
    if any(h.kind is HunkKind.INSERT_AT_LINE for h in with_numbers.hunks):
        # an addition with neither context nor numbers has no place: refused, not guessed
        assert without.error is not None and without.error.code is ErrorCode.MALFORMED_BLOCK
        return
    assert without.error is None
    assert [(h.old, h.new) for h in without.hunks] == [(h.old, h.new) for h in with_numbers.hunks]
    assert all(h.line_hint is None for h in without.hunks)
    assert apply_by_numbers(a, with_numbers.hunks) == b


def test_a_context_line_shaped_like_an_indented_fence_is_not_a_list_fence():
    # ` ```` is the context line "```"; the lines after it are not all indented, so they
    # are the hunk's own lines, not the body of a fence indented under a list item
    b = one(
        "--- a/f.txt\n+++ b/f.txt\n@@ -3,2 +3,3 @@\n ```\n --- dashes\n+++ plus\n"
        "\\ No newline at end of file\n"
    )
    assert b.hunks[0].old == "```\n--- dashes\n"
    assert b.hunks[0].new == "```\n--- dashes\n++ plus"
