"""Structural blocks: `FILE:` + `TARGET_NODE:` / `TARGET_PATH:` headers, recognised only."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lsp_server.model import Action, ErrorCode, Format
from lsp_server.reply.structural import find_blocks


def blocks(text: str):
    return find_blocks(text.split("\n"))


def test_python_block_with_two_target_lines() -> None:
    text = (
        "Replace the method:\n"
        "```python\n"
        "# FILE: src/auth.py\n"
        "# TARGET_NODE: class UserAuth\n"
        "# TARGET_NODE: def validate\n"
        "def validate(self, user):\n"
        "    return user.active\n"
        "```\n"
    )
    (b,) = blocks(text)
    assert b.format == Format.STRUCTURAL and b.action == Action.STRUCTURAL
    assert b.path == "src/auth.py"
    assert b.target is not None
    assert b.target.node == ("class UserAuth", "def validate")
    assert b.target.data_path is None
    assert b.target.operation == "replace_structure"
    assert b.content == "def validate(self, user):\n    return user.active\n"
    assert b.language == "python"
    assert b.reply_lines == (2, 8)
    assert b.error is None


@pytest.mark.parametrize(
    ("file_line", "target_line"),
    [
        ("// FILE: src/a.ts", "// TARGET_NODE: class A / method run"),
        ("-- FILE: src/a.ts", "-- TARGET_NODE: class A > method run"),
        ("; FILE: src/a.ts", "; TARGET_NODE: class A / method run"),
        ("<!-- FILE: src/a.ts -->", "<!-- TARGET_NODE: class A / method run -->"),
        ("/* FILE: src/a.ts */", "/* TARGET_NODE: class A > method run */"),
        ("{/* FILE: src/a.ts */}", "{/* TARGET_NODE: class A / method run */}"),
        ("FILE: src/a.ts", "TARGET_NODE: class A / method run"),
        ("# File: src/a.ts", "# target_node: class A / method run"),
    ],
)
def test_comment_markers_and_level_separators(file_line: str, target_line: str) -> None:
    (b,) = blocks(f"```\n{file_line}\n{target_line}\nrun() {{}}\n```\n")
    assert b.path == "src/a.ts"
    assert b.target is not None and b.target.node == ("class A", "method run")
    assert b.content == "run() {}\n"


def test_continuation_lines_indented_under_the_target() -> None:
    text = (
        "```python\n"
        "# FILE: src/auth.py\n"
        "# TARGET_NODE: UserAuth\n"
        "#   validate\n"
        "#     if user.is_active\n"
        "    if user.is_active:\n"
        "        return True\n"
        "```"
    )
    (b,) = blocks(text)
    assert b.target is not None
    assert b.target.node == ("UserAuth", "validate", "if user.is_active")
    assert b.content == "    if user.is_active:\n        return True\n"


def test_a_plain_comment_after_the_header_is_content() -> None:
    text = "```python\n# FILE: a.py\n# TARGET_NODE: def f\n# the new body\ndef f():\n    pass\n```"
    (b,) = blocks(text)
    assert b.target is not None and b.target.node == ("def f",)
    assert b.content == "# the new body\ndef f():\n    pass\n"


def test_target_path_for_data_files() -> None:
    (b,) = blocks("```json\n// FILE: config/app.json\n// TARGET_PATH: servers[0].port\n8080\n```")
    assert b.target is not None
    assert b.target.data_path == "servers[0].port" and b.target.node == ()
    assert b.content == "8080\n"
    assert b.language == "json"


def test_file_line_before_the_fence() -> None:
    text = "FILE: src/main.go\n```go\n// TARGET_NODE: func main\nfunc main() {}\n```\n"
    (b,) = blocks(text)
    assert b.path == "src/main.go" and b.reply_lines == (1, 5)
    assert b.content == "func main() {}\n"


def test_blank_line_between_header_and_code_is_dropped() -> None:
    (b,) = blocks("```\nFILE: a.py\nTARGET_NODE: def f\n\ndef f(): pass\n```")
    assert b.content == "def f(): pass\n"


def test_missing_file_is_malformed() -> None:
    (b,) = blocks("```python\n# TARGET_NODE: def f\ndef f(): pass\n```")
    assert b.path is None
    assert b.error is not None and b.error.code == ErrorCode.MALFORMED_BLOCK


def test_unclosed_block_is_incomplete() -> None:
    (b,) = blocks("```python\n# FILE: a.py\n# TARGET_NODE: def f\ndef f(): pass\n")
    assert b.error is not None and b.error.details["incomplete"] is True


def test_fence_without_target_is_not_structural() -> None:
    assert blocks("```python\n# FILE: a.py\nx = 1\n```") == []
    assert blocks("```python\nx = 1\n# TARGET_NODE: def f\n```") == []


def test_two_blocks() -> None:
    text = (
        "```\nFILE: a.py\nTARGET_NODE: def f\ndef f(): pass\n```\n"
        "text\n"
        "```\nFILE: b.py\nTARGET_NODE: class B\nclass B: pass\n```\n"
    )
    out = blocks(text)
    assert [b.path for b in out] == ["a.py", "b.py"]
    assert out[1].reply_lines == (7, 11)


@settings(max_examples=300)
@given(
    st.lists(
        st.sampled_from(
            ["```", "```py", "# FILE: a.py", "FILE:", "// TARGET_NODE: x / y", "#   z", "", "x"]
        )
        | st.text(max_size=40),
        max_size=30,
    )
)
def test_never_raises(lines: list[str]) -> None:
    for b in find_blocks(lines):
        lo, hi = b.reply_lines
        assert 1 <= lo <= hi <= max(len(lines), 1)
        assert b.target is not None and (b.target.node or b.target.data_path)
