"""Shapes of real replies that were refused and have one reading: each now places, and
the look-alikes with another possible reading are still refused."""

from __future__ import annotations

from pathlib import Path

import pytest

from lsp_server.model import ErrorCode, Status, WarningType
from lsp_server.plan import PlanOptions, plan_reply
from lsp_server.reply import parse_reply
from lsp_server.reply.common import looks_like_file_path
from lsp_server.workspace import DiskWorkspace

HELLO = "def f():\n    return 1\n\n\ndef g():\n    return 2\n"
F = "```"


def plan(tmp_path: Path, reply: str, files: dict[str, str] | None = None, **options):
    for rel, text in (files if files is not None else {"hello.py": HELLO}).items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    return plan_reply(parse_reply(reply), DiskWorkspace(tmp_path), PlanOptions(**options))


def new_text(result, path: str = "hello.py") -> str | None:
    return next(c.new_text for c in result.files if c.path == path)


def sr(path: str, old: str, new: str, fence: str = F) -> str:
    return f"{path}\n{fence}python\n<<<<<<< SEARCH\n{old}=======\n{new}>>>>>>> REPLACE\n{fence}\n"


# --- paths of web frameworks' route files ----------------------------------------------------


@pytest.mark.parametrize(
    "path",
    [
        "src/pages/blog/[...slug].astro",
        "app/(auth)/login/page.tsx",
        "routes/$postId.tsx",
        "src/routes/[[lang]]/+page.svelte",
        "pages/[id].tsx",
    ],
)
def test_route_paths_with_brackets_are_paths(tmp_path: Path, path: str):
    assert looks_like_file_path(path)
    result = plan(tmp_path, sr(path, "<h1>Hi</h1>\n", "<h1>Hello</h1>\n"), {path: "<h1>Hi</h1>\n"})
    assert result.ok, [o.failure for o in result.outcomes]
    assert new_text(result, path) == "<h1>Hello</h1>\n"


@pytest.mark.parametrize("prose", ["[link](x.md)", "[1]", "(optional)", "src/[id.ts", "a)b.py"])
def test_brackets_that_do_not_close_in_a_segment_are_not_paths(prose: str):
    assert not looks_like_file_path(prose)


# --- SEARCH/REPLACE slips ---------------------------------------------------------------------


def test_a_stray_lt_after_the_replace_marker(tmp_path: Path):
    reply = sr("hello.py", "    return 1\n", "    return 10\n").replace(
        ">>>>>>> REPLACE\n", ">>>>>>> REPLACE<\n"
    )
    result = plan(tmp_path, reply)
    assert result.ok, [o.failure for o in result.outcomes]
    assert "return 10" in new_text(result)


def test_a_block_missing_its_search_line_in_a_fence(tmp_path: Path):
    reply = f"hello.py\n{F}python\n    return 1\n=======\n    return 10\n>>>>>>> REPLACE\n{F}\n"
    result = plan(tmp_path, reply)
    assert result.ok, [o.failure for o in result.outcomes]
    assert new_text(result) == HELLO.replace("return 1\n", "return 10\n")


@pytest.mark.parametrize(
    "body",
    [
        # two dividers: where does the old text end?
        "    return 1\n=======\n    return 10\n=======\n    return 11\n>>>>>>> REPLACE\n",
        # text after the end marker
        "    return 1\n=======\n    return 10\n>>>>>>> REPLACE\nmore\n",
        # a botched start marker: a block gone wrong, not one without its start
        "<<-- SEARCH\n    return 1\n=======\n    return 10\n>>>>>>> REPLACE\n",
    ],
    ids=["two-dividers", "text-after", "botched-start"],
)
def test_a_missing_search_line_with_another_reading_is_refused(tmp_path: Path, body: str):
    result = plan(tmp_path, f"hello.py\n{F}python\n{body}{F}\n")
    assert not result.ok and not result.files


def test_roo_line_numbers_copied_into_a_plain_block(tmp_path: Path):
    reply = sr("hello.py", "5 | def g():\n6 |     return 2\n", "def g():\n    return 20\n")
    result = plan(tmp_path, reply)
    assert result.ok, [o.failure for o in result.outcomes]
    assert new_text(result) == HELLO.replace("return 2\n", "return 20\n")


def test_numbers_that_do_not_count_up_are_text(tmp_path: Path):
    """`1 | a` / `3 | b`: not a reader's numbering; the file's own lines look like that."""
    table = "1 | a\n3 | b\n"
    result = plan(tmp_path, sr("t.txt", table, "1 | x\n3 | b\n"), {"t.txt": table})
    assert result.ok and new_text(result, "t.txt") == "1 | x\n3 | b\n"


# --- aider's empty SEARCH on a file that exists -----------------------------------------------


def test_an_empty_search_on_an_existing_file_appends_and_says_so(tmp_path: Path):
    reply = sr("hello.py", "", "\n\ndef h():\n    return 3\n")
    result = plan(tmp_path, reply)
    assert result.ok, [o.failure for o in result.outcomes]
    assert new_text(result) == HELLO + "\n\ndef h():\n    return 3\n"
    (warning,) = [w for w in result.warnings if w.type is WarningType.APPENDED]
    assert "end of the file" in warning.message and warning.path == "hello.py"


def test_appending_twice_is_already_applied(tmp_path: Path):
    reply = sr("hello.py", "", "\n\ndef h():\n    return 3\n")
    (tmp_path / "hello.py").write_text(HELLO + "\n\ndef h():\n    return 3\n")
    result = plan(tmp_path, reply, {})
    assert result.ok and not result.files
    assert result.outcomes[0].already_applied


def test_an_empty_edit_section_on_an_existing_file_is_still_refused(tmp_path: Path):
    """llm-patch's own EDIT format keeps its rule: an empty EDIT section creates a file."""
    reply = f"hello.py\n{F}\n<<<< EDIT\n==== REPLACE\nx = 1\n>>>> EDIT END\n{F}\n"
    result = plan(tmp_path, reply)
    assert result.outcomes[0].failure.code is ErrorCode.FILE_EXISTS


# --- diffs as chat windows write them ---------------------------------------------------------


def test_a_diff_ending_in_an_empty_hunk_header(tmp_path: Path):
    reply = (
        f"{F}diff\n--- a/hello.py\n+++ b/hello.py\n@@ -1,2 +1,2 @@\n def f():\n"
        f"-    return 1\n+    return 10\n@@ ... @@\n{F}\n"
    )
    result = plan(tmp_path, reply)
    assert result.ok, [o.failure for o in result.outcomes]
    assert "return 10" in new_text(result)
    assert any(w.type is WarningType.HUNK_SKIPPED for w in result.warnings)


def test_an_empty_hunk_header_before_unprefixed_lines_is_still_refused(tmp_path: Path):
    """Lines after the header without prefixes may be a hunk that lost them: not skipped."""
    reply = (
        f"{F}diff\n--- a/hello.py\n+++ b/hello.py\n@@ -1,2 +1,2 @@\n def f():\n"
        f"-    return 1\n+    return 10\n@@ -5,2 +5,2 @@\ndef g():\n    return 20\n{F}\n"
    )
    result = plan(tmp_path, reply)
    assert not result.ok and not result.files


@pytest.mark.parametrize(
    "above",
    [
        "In `hello.py`, change the return:",
        "**File:** `hello.py`",
        "File: hello.py",
        "In hello.py:",
        "Here's the modified `hello.py`:",
    ],
)
def test_a_headerless_diff_takes_its_file_from_the_prose(tmp_path: Path, above: str):
    reply = f"{above}\n\n{F}diff\n def g():\n-    return 2\n+    return 20\n{F}\n"
    result = plan(tmp_path, reply)
    assert result.ok, [o.failure for o in result.outcomes]
    assert new_text(result) == HELLO.replace("return 2\n", "return 20\n")


def test_a_headerless_diff_with_two_hunks(tmp_path: Path):
    reply = (
        f"Update `hello.py`:\n{F}diff\n def f():\n-    return 1\n+    return 10\n@@\n"
        f" def g():\n-    return 2\n+    return 20\n{F}\n"
    )
    result = plan(tmp_path, reply)
    assert result.ok, [o.failure for o in result.outcomes]
    assert new_text(result) == "def f():\n    return 10\n\n\ndef g():\n    return 20\n"


def test_a_headerless_diff_naming_no_file_is_refused_or_takes_the_target(tmp_path: Path):
    reply = f"Change it:\n{F}diff\n def f():\n-    return 1\n+    return 10\n{F}\n"
    refused = plan(tmp_path, reply)
    assert refused.outcomes[0].failure.code is ErrorCode.TARGET_NOT_FOUND
    assert "--file" in refused.outcomes[0].failure.message
    targeted = plan(tmp_path, reply, {}, target="hello.py")
    assert targeted.ok and "return 10" in new_text(targeted)


def test_a_headerless_diff_two_named_files_hold_is_refused(tmp_path: Path):
    files = {"a.py": HELLO, "b.py": HELLO}
    reply = f"In `a.py` and `b.py`:\n{F}diff\n def f():\n-    return 1\n+    return 10\n{F}\n"
    result = plan(tmp_path, reply, files)
    failure = result.outcomes[0].failure
    assert failure.code is ErrorCode.TARGET_NOT_FOUND and "a.py" in failure.message
    assert not result.files


def test_an_unreadable_diff_fence_is_named_in_the_refusal():
    reply = f"In `hello.py`:\n{F}diff\ndef f():\n-    return 1\n+    return 10\n{F}\n"
    parsed = parse_reply(reply)
    assert parsed.failure is not None and parsed.failure.code is ErrorCode.NO_EDIT_BLOCKS
    assert "```diff fence at reply line 2" in parsed.failure.message
    assert "SEARCH/REPLACE" not in parsed.failure.message  # not the list of every format


# --- an example beside the edits --------------------------------------------------------------


def test_a_usage_example_beside_edits_that_places_nowhere_is_set_aside(tmp_path: Path):
    reply = sr("hello.py", "    return 1\n", "    return 10\n") + (
        f"\nFor example:\n\n{F}python\ndef f():\n    return 10\n\nprint(f())\n{F}\n"
    )
    result = plan(tmp_path, reply)
    assert result.ok, [o.failure for o in result.outcomes]
    edit, sample = result.outcomes
    assert sample.status is Status.SKIPPED and sample.failure is None
    (warning,) = [w for w in result.warnings if w.type is WarningType.CODE_SAMPLE]
    assert "places nowhere" in warning.message
    assert new_text(result) == HELLO.replace("return 1\n", "return 10\n")


def test_an_example_whose_prose_names_a_file_is_still_refused(tmp_path: Path):
    reply = sr("hello.py", "    return 1\n", "    return 10\n") + (
        f"\nThen add this to `hello.py`:\n\n{F}python\ndef f():\n    return 10\n\nprint(f())\n{F}\n"
    )
    result = plan(tmp_path, reply)
    assert not result.ok and not result.files


# --- aider's `<source>` fence -------------------------------------------------------------------

README = "# T\n\n```sh\nmake\n```\n"


def test_aiders_source_fence_around_a_whole_file(tmp_path: Path):
    """aider fences a file that holds ``` fences with `<source>` … `</source>`."""
    reply = "README.md\n<source>\n# T\n\n```sh\nmake all\n```\n</source>\n"
    result = plan(tmp_path, reply, {"README.md": README})
    assert result.ok, [o.failure for o in result.outcomes]
    assert new_text(result, "README.md") == "# T\n\n```sh\nmake all\n```\n"


def test_aiders_source_fence_around_search_replace(tmp_path: Path):
    reply = (
        "README.md\n<source markdown>\n<<<<<<< SEARCH\n```sh\nmake\n```\n=======\n"
        "```sh\nmake all\n```\n>>>>>>> REPLACE\n</source>\n"
    )
    result = plan(tmp_path, reply, {"README.md": README})
    assert result.ok, [o.failure for o in result.outcomes]
    assert new_text(result, "README.md") == "# T\n\n```sh\nmake all\n```\n"


def test_an_html_source_element_is_not_a_fence():
    from lsp_server.reply.common import find_fences

    lines = ["<video>", '<source src="a.mp4">', "</video>", "<source>", "x", "</source>"]
    fences = find_fences(lines)
    assert [(f.start, f.end) for f in fences] == [(3, 5)]
