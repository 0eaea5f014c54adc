"""Recognising chat-window code snippets: fenced definitions without markers or a path."""

from __future__ import annotations

import pytest

from lsp_server.model import Action, ErrorCode, Format
from lsp_server.reply import parse_reply
from lsp_server.reply.snippets import guess_language, opens_definition


def blocks(text: str):
    return parse_reply(text).blocks


def test_a_definition_after_prose_is_a_snippet_with_the_prose_path():
    reply = (
        "Here's the updated `compute` function in `src/app.py` that validates its inputs:\n\n"
        "```python\ndef compute(x):\n    return x * 2\n```\n\nThat should do it.\n"
    )
    (b,) = blocks(reply)
    assert (b.format, b.action, b.path) == (Format.SNIPPET, Action.SNIPPET, None)
    assert b.candidates == ("src/app.py",)
    assert b.language == "python"
    assert b.content == "def compute(x):\n    return x * 2\n"
    assert b.reply_lines == (3, 6)


def test_bare_file_names_in_prose_count_and_the_closest_comes_first():
    reply = (
        "I looked at utils.py first.\n\nThen open the modified `hello.py` file and replace "
        "greet with this version (see https://example.com/docs.html):\n"
        "```python\ndef greet(name):\n    return name\n```\n"
    )
    (b,) = blocks(reply)
    assert b.candidates == ("hello.py", "utils.py")


def test_only_the_two_paragraphs_before_the_fence_are_read():
    reply = (
        "Edit far.py.\n\nFirst paragraph.\n\nSecond paragraph, see near.py:\n\n"
        "```python\ndef f():\n    pass\n```\n"
    )
    (b,) = blocks(reply)
    assert b.candidates == ("near.py",)


def test_prose_above_the_previous_fence_belongs_to_that_block():
    reply = (
        "In `a.py`:\n```python\ndef f():\n    pass\n```\n"
        "And this:\n```python\ndef g():\n    pass\n```\n"
    )
    first, second = blocks(reply)
    assert first.candidates == ("a.py",)
    assert second.candidates == ()


@pytest.mark.parametrize(
    "header",
    [
        "# src/app.py",
        "// src/util.ts",
        "// File: src/util.ts",
        "<!-- a.html -->",
        "-- a.sql",
        "/* a.c */",
    ],
)
def test_a_block_naming_its_path_in_a_first_line_comment_is_a_whole_file_block(header):
    reply = f"Update it:\n```\n{header}\nfunction f() {{}}\n```\n"
    (b,) = blocks(reply)
    assert b.format is Format.WHOLE_FILE and b.action is Action.LAZY
    assert header.strip("#/-*<!> ").removeprefix("File: ") == b.path
    assert header not in (b.content or "")


def test_a_path_line_before_the_fence_makes_a_whole_file_block():
    (b,) = blocks("src/app.py\n```python\ndef f():\n    pass\n```\n")
    assert b.format is Format.WHOLE_FILE and b.path == "src/app.py"


@pytest.mark.parametrize(
    "body",
    [
        "result = compute(3)\nprint(result)\n",  # usage, not a definition
        "npm install left-pad\n",
        "useEffect(() => {\n  load();\n}, []);\n",
        "app.run(debug=True)\n",
    ],
)
def test_code_without_a_definition_is_a_sample_not_an_edit(body):
    assert parse_reply(f"Try:\n```\n{body}```\n").failure.code is ErrorCode.NO_EDIT_BLOCKS


@pytest.mark.parametrize("tag", ["bash", "sh", "console", "diff", "text", "json", "output"])
def test_shell_sessions_diffs_and_data_are_not_snippets(tag):
    reply = f"Run:\n```{tag}\nfunction f() {{ echo hi; }}\n```\n"
    assert not [b for b in blocks(reply) if b.format is Format.SNIPPET]


def test_a_snippet_beside_a_search_replace_block_is_its_own_block():
    reply = (
        "a.py\n```python\n<<<<<<< SEARCH\nx = 1\n=======\nx = 2\n>>>>>>> REPLACE\n```\n\n"
        "And in `b.py`:\n```python\nclass B:\n    def f(self):\n        pass\n```\n"
    )
    first, second = blocks(reply)
    assert first.format is Format.SEARCH_REPLACE
    assert second.format is Format.SNIPPET and second.candidates == ("b.py",)


def test_a_marker_line_in_a_snippet_is_malformed_never_written():
    reply = "```python\ndef f():\n    pass\n=======\ndef f():\n    return 1\n```\n"
    (b,) = blocks(reply)
    assert b.error is not None and b.error.code is ErrorCode.MALFORMED_BLOCK


def test_an_unclosed_fence_is_not_a_snippet():
    assert parse_reply("```python\ndef f():\n    pass\n").failure is not None


@pytest.mark.parametrize(
    "line",
    [
        "def compute(x):",
        "async def fetch(url: str) -> bytes:",
        "class Shape(Base):",
        "export default function App() {",
        "export const Button = ({ label }: Props) => {",
        "const load = async (id) => {",
        "func (p *Point) Dist() float64 {",
        "func main() {",
        "pub fn describe(&self) -> String {",
        "impl Display for Shape {",
        "public static int add(int a, int b) {",
        "public String describe()",
        "describe(): string {",
        "private async Task<int> LoadAsync(CancellationToken token)",
        "def describe",
        "int main(void) {",
        "type Point struct {",
        "interface Props {",
        "fun greet(name: String): String {",
    ],
)
def test_lines_that_open_a_definition(line):
    assert opens_definition(line)


@pytest.mark.parametrize(
    "line",
    [
        "result = compute(3)",
        "print(compute(3))",
        "if (x > 0) {",
        "} else if (y) {",
        "main()",
        "app.get('/', (req, res) => {",
        'describe("shape", () => {',
        "return foo(bar);",
        "foo(bar);",
        "# def commented_out():",
        "for (int i = 0; i < n; i++) {",
        "x.method(arg) {",
    ],
)
def test_lines_that_do_not(line):
    assert not opens_definition(line)


@pytest.mark.parametrize(
    ("body", "language"),
    [
        ("def f(x):\n    return x\n", "python"),
        ("func main() {\n}\n", "go"),
        ("pub fn f() {}\n", "rust"),
        ("def f\n  1\nend\n", "ruby"),
        ("public class A {\n    public int X { get; set; }\n}\n", "csharp"),
        ("public class A {\n    void f() {}\n}\n", "java"),
        ("interface P { a: string }\n", "typescript"),
        ("function f() {\n}\n", "javascript"),
        ("x = 1\n", None),
    ],
)
def test_untagged_fences_get_a_language_from_their_keywords(body, language):
    assert guess_language(body.split("\n")) == language


def test_an_untagged_fence_is_a_snippet_with_a_guessed_language():
    (b,) = blocks("Replace it in main.go:\n```\nfunc main() {\n\tprintln(1)\n}\n```\n")
    assert b.format is Format.SNIPPET and b.language == "go" and b.candidates == ("main.go",)


@pytest.mark.parametrize(
    ("header", "path"),
    [("# app.py (updated)", "app.py"), ("// In src/util.ts:", "src/util.ts")],
)
def test_a_first_line_comment_mentioning_a_file_heads_the_snippet(header, path):
    (b,) = blocks(f"Sure!\n\n```\n{header}\nfunction f() {{\n}}\n```\n")
    assert b.format is Format.SNIPPET and b.candidates == (path,)
    assert b.content == "function f() {\n}\n"


@pytest.mark.parametrize(
    "prose",
    [
        "In **src/app.py**, replace it:",
        "Edit _src/app.py_ as follows.",
        "Update the file src/app.py:",
        "1. Open `src/app.py` and change `compute`:",
    ],
)
def test_decorated_and_listed_prose_paths(prose):
    (b,) = blocks(f"{prose}\n\n```python\ndef compute(x):\n    return x\n```\n")
    assert b.candidates[0] == "src/app.py"
