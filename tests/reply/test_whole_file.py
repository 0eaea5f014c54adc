"""Whole-file blocks: fences introduced by a path; code samples and shell blocks are not."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lsp_server.model import Action, ErrorCode, Format
from lsp_server.reply.whole_file import find_blocks


def blocks(text: str):
    return find_blocks(text.split("\n"))


def test_path_on_the_line_before_the_fence() -> None:
    (b,) = blocks("Intro.\n\nsrc/app.py\n```python\nimport os\nprint(os.sep)\n```\nDone.\n")
    assert b.format == Format.WHOLE_FILE and b.action == Action.LAZY
    assert b.path == "src/app.py"
    assert b.content == "import os\nprint(os.sep)\n"
    assert b.language == "python"
    assert b.reply_lines == (3, 7)
    assert b.error is None


@pytest.mark.parametrize(
    "line",
    [
        "**src/app.py**",
        "`src/app.py`",
        "`src/app.py`:",
        "### src/app.py",
        "src/app.py:",
        "File: src/app.py",
        "Filename: `src/app.py`",
    ],
)
def test_decorated_path_line(line: str) -> None:
    (b,) = blocks(f"{line}\n```python\nx = 1\n```\n")
    assert b.path == "src/app.py" and b.content == "x = 1\n"


def test_one_blank_line_between_path_and_fence() -> None:
    (b,) = blocks("src/app.py\n\n```python\nx = 1\n```")
    assert b.path == "src/app.py" and b.reply_lines == (1, 5)


@pytest.mark.parametrize(
    ("info", "language"),
    [
        ("python src/app.py", "python"),
        ('py title="src/app.py"', "py"),
        ("python:src/app.py", "python"),
        ("src/app.py", None),
        ("js filename=src/app.py", "js"),
    ],
)
def test_path_in_the_info_string(info: str, language: str | None) -> None:
    (b,) = blocks(f"Here you go:\n```{info}\nx = 1\n```\n")
    assert b.path == "src/app.py"
    assert b.language == language
    assert b.reply_lines == (2, 4)


@pytest.mark.parametrize(
    ("first", "path"),
    [
        ("# src/app.py", "src/app.py"),
        ("// src/app.ts", "src/app.ts"),
        ("// filepath: src/app.ts", "src/app.ts"),
        ("<!-- public/index.html -->", "public/index.html"),
        ("-- scripts/init.lua", "scripts/init.lua"),
        ("/* styles/site.css */", "styles/site.css"),
        ("# File: config/settings.toml", "config/settings.toml"),
    ],
)
def test_path_comment_on_the_first_line_is_removed(first: str, path: str) -> None:
    (b,) = blocks(f"Update:\n```\n{first}\nbody line\n```\n")
    assert b.path == path
    assert b.content == "body line\n"


def test_first_line_comment_naming_the_same_path_as_the_line_before() -> None:
    (b,) = blocks("src/app.py\n```python\n# src/app.py\nx = 1\n```\n")
    assert b.path == "src/app.py" and b.content == "x = 1\n"


def test_first_line_comment_naming_another_file_is_content() -> None:
    (b,) = blocks("src/app.py\n```python\n# helpers.py\nx = 1\n```\n")
    assert b.path == "src/app.py" and b.content == "# helpers.py\nx = 1\n"


@pytest.mark.parametrize(
    "before",
    [
        "Here is the code:",
        "Done.",
        "For example:",
        "Run this to check it works",
        "e.g.",
        "",
    ],
)
def test_prose_before_a_fence_is_not_a_path(before: str) -> None:
    assert blocks(f"{before}\n```python\nprint('hi')\n```\n") == []


def test_shebang_is_not_a_path_comment() -> None:
    assert blocks("```python\n#!/usr/bin/env python\nprint(1)\n```\n") == []


@pytest.mark.parametrize(
    "language", ["bash", "sh", "console", "shell", "zsh", "powershell", "diff", "patch"]
)
def test_shell_and_diff_fences_are_never_whole_files(language: str) -> None:
    assert blocks(f"run.sh\n```{language}\n# run.sh\nls -la\n```\n") == []


def test_placeholders_are_kept_for_the_merge() -> None:
    (b,) = blocks("src/a.js\n```js\n// ... existing code ...\nfoo();\n```\n")
    assert b.content == "// ... existing code ...\nfoo();\n"


def test_several_blocks_and_a_path_never_crosses_a_fence() -> None:
    text = (
        "a.py\n```python\nA = 1\n```\n"
        "```python\nprint('sample')\n```\n"  # the line before is the previous fence's end
        "b.py\n```python\nB = 2\n```\n"
    )
    out = blocks(text)
    assert [(b.path, b.content) for b in out] == [("a.py", "A = 1\n"), ("b.py", "B = 2\n")]
    assert out[0].reply_lines == (1, 4) and out[1].reply_lines == (8, 11)


def test_unclosed_fence_is_incomplete() -> None:
    (b,) = blocks("src/a.py\n```python\nx = 1\n")
    assert b.error is not None and b.error.code == ErrorCode.MALFORMED_BLOCK
    assert b.error.details["incomplete"] is True
    assert b.reply_lines == (1, 4)


def test_longer_fence_holds_inner_fences() -> None:
    (b,) = blocks("README.md\n````markdown\n# Title\n```sh\nmake\n```\n````\n")
    assert b.path == "README.md"
    assert b.content == "# Title\n```sh\nmake\n```\n"


def test_fence_indented_under_a_list_item_is_dedented() -> None:
    (b,) = blocks("1. Edit:\n   src/a.py\n   ```python\n   def f():\n       pass\n   ```\n")
    assert b.path == "src/a.py" and b.content == "def f():\n    pass\n"


def test_empty_file_block() -> None:
    (b,) = blocks("pkg/__init__.py\n```python\n```\n")
    assert b.path == "pkg/__init__.py" and b.content == ""


@settings(max_examples=300)
@given(
    st.lists(
        st.sampled_from(["```", "```python", "a.py", "# b.py", "x", "", "```sh"])
        | st.text(max_size=40),
        max_size=30,
    )
)
def test_never_raises(lines: list[str]) -> None:
    for b in find_blocks(lines):
        lo, hi = b.reply_lines
        assert 1 <= lo <= hi <= max(len(lines), 1)
        assert b.path
