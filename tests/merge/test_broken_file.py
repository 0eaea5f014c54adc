"""A file that does not parse has no outline to trust: where one of its definitions ends
is the parser's guess. A snippet that replaces a definition whose end the file's syntax
error blurs is refused, and a block that begins like the file is offered as the whole
file — never merged so that the definition's tail stays behind, twice.

Found by the idempotence property (a whole file for a Python file whose function is
followed by an orphaned indented line): the old code wrote the orphan line twice."""

from __future__ import annotations

import ast

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lsp_server.model import ErrorCode, PlacementError
from lsp_server.resolve.merge.place import place
from tests.merge.support import plan, refused, refused_with, written

BROKEN = (
    "import os\n\ndef f0(path):\n    x = load(path)\n\n"
    "def f1(path):\n        return y\n    x = load(path)\n\n"
)
# f1 as its writer reads it: its body runs to the orphaned `    x = load(path)`
F1 = "def f1(path):\n    x = load(path)\n        return y\n    x = load(path)\n"


def test_a_snippet_next_to_the_files_syntax_error_is_refused_naming_the_line(tmp_path):
    reply = "m.py\n```python\n" + F1 + "```\n"
    failure = refused(plan(tmp_path, {"m.py": BROKEN}, reply), ErrorCode.PARSER_FAILED)
    assert "syntax error at line 8" in failure.message
    assert failure.details["lines"] == [6, 7]


def test_a_whole_file_for_a_broken_file_is_offered_as_the_whole_file(tmp_path):
    whole = BROKEN.replace("def f1(path):\n", "def f1(path):\n    x = load(path)\n")
    reply = "m.py\n```\n" + whole + "```\n"
    refused_with(plan(tmp_path, {"m.py": BROKEN}, reply), "whole")
    chosen = plan(tmp_path, {"m.py": BROKEN}, reply, read_as="whole")
    assert written(chosen, "m.py") == whole


def test_a_snippet_far_from_the_error_is_still_placed(tmp_path):
    snippet = "def f0(path):\n    x = load(path) + 1\n"
    reply = "m.py\n```python\n" + snippet + "```\n"
    out = written(plan(tmp_path, {"m.py": BROKEN}, reply), "m.py")
    assert out == BROKEN.replace("    x = load(path)\n\ndef f1", "    x = load(path) + 1\n\ndef f1")


names = st.sampled_from(["a", "b", "c", "load", "run"])


@settings(max_examples=200, deadline=None, suppress_health_check=list(HealthCheck))
@given(
    before=st.lists(names, max_size=3, unique=True),
    after=st.lists(names, max_size=3, unique=True),
    deep=st.integers(6, 12),
    orphans=st.integers(1, 3),
    blank=st.booleans(),
    change=st.booleans(),
)
def test_a_definition_whose_end_the_parser_cannot_see_is_replaced_whole_or_refused(
    before, after, deep, orphans, blank, change
):
    """Oracle: the function as its writer reads it runs from its `def` to its last
    orphaned line; the result either replaces exactly those lines with the snippet, or
    the snippet is refused. (No other result keeps every line outside it byte-identical.)"""
    head = "".join(f"def g_{n}():\n    return 1\n\n" for n in before)
    tail = "".join(f"\ndef h_{n}():\n    return 2\n" for n in after)
    body = " " * deep + "return y\n" + ("\n" if blank else "")
    orphan_lines = "".join(f"    v{k} = {k}\n" for k in range(orphans))
    text = "import os\n\n" + head + "def target(p):\n" + body + orphan_lines + tail
    try:
        ast.parse(text)
        return  # the generator made a file Python accepts: outside the property
    except SyntaxError:
        pass
    new_body = "    w = 0\n" if change else ""
    snippet = "def target(p):\n" + new_body + body + orphan_lines
    try:
        merged = place(text, "m.py", snippet, "python")
    except PlacementError as err:
        assert err.failure.code in (ErrorCode.PARSER_FAILED, ErrorCode.TEXT_AMBIGUOUS)
        return
    start = text.index("def target(p):\n")
    end = start + len("def target(p):\n" + body + orphan_lines)
    assert merged.text == text[:start] + snippet + text[end:]
