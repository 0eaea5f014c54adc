"""A snippet's statement that the file has only a line alike to is refused, never kept as
the file has it: `module.exports = { add, sub, mul }` against the file's `{ add, sub }`
was left unchanged (an edit of itself keeps the file's bytes), so a whole file pasted
under its path lost that change, and a snippet of it was reported already applied."""

from __future__ import annotations

import json

import pytest

from lsp_server.model import ErrorCode, PlacementError
from lsp_server.resolve.merge import place
from lsp_server.resolve.merge.readings import Choice
from tests.cli.support import llm_patch, put

UTIL = """function add(a, b) {
  return a + b;
}

function sub(a, b) {
  return a - b;
}

module.exports = { add, sub };
"""
MUL = "function mul(a, b) {\n  return a * b;\n}\n"
EXPORTS = "module.exports = { add, sub, mul };\n"
WHOLE = UTIL.replace("module.exports = { add, sub };\n", MUL + "\n" + EXPORTS)


@pytest.mark.parametrize(
    "content",
    [
        MUL + "\n" + EXPORTS,  # a snippet: a new function and the line that exports it
        "function sub(a, b) {\n  return a - b;\n}\n\n" + EXPORTS,  # unchanged + changed
    ],
)
def test_a_statement_only_alike_is_refused_naming_it(content):
    with pytest.raises(PlacementError) as caught:
        place.place(UTIL, "util.js", content, "javascript")
    failure = caught.value.failure
    assert failure.code is ErrorCode.TEXT_NOT_FOUND
    assert "`module.exports = { add, sub, mul };`" in failure.message
    assert "(`module.exports = { add, sub };`)" in failure.message


def test_a_whole_file_beginning_with_a_definition_is_offered_as_the_whole_file():
    # the file's first line is a definition, so the block begins like the file and like a
    # part of it: as a part, its `module.exports` line is refused; as the whole file it is
    # a reading of its own, offered (a code action in the editors, `--as whole` here)
    with pytest.raises(PlacementError) as caught:
        place.place(UTIL, "util.js", WHOLE, "javascript")
    failure = caught.value.failure
    assert failure.code is ErrorCode.TEXT_AMBIGUOUS
    assert "`module.exports = { add, sub, mul };`" in failure.message
    offered = [r["choice"] for r in failure.details["readings"]]
    assert {"as": "whole"} in offered


@pytest.mark.parametrize(
    "file_line", ["module.exports = { add, sub };", "module.exports  =  { add, sub };"]
)
def test_a_statement_the_file_has_stays_as_the_file_has_it(file_line):
    text = UTIL.replace("module.exports = { add, sub };", file_line)
    merged = place.place(text, "util.js", MUL + "\nmodule.exports = { add, sub };\n", "javascript")
    assert file_line in merged.text and "function mul" in merged.text


def test_the_whole_file_reading_writes_it_as_the_reply_has_it():
    merged = place.place(UTIL, "util.js", WHOLE, "javascript", Choice(as_="whole"))
    assert merged.text == WHOLE


def test_a_whole_file_pasted_under_its_path_is_not_written_without_its_change(tmp_path):
    put(tmp_path, {"util.js": UTIL})
    reply = f"util.js\n```javascript\n{WHOLE}```\n"
    r = llm_patch("apply", "-", "--json", cwd=tmp_path, stdin=reply)
    assert r.returncode == 1, r.stdout
    error = json.loads(r.stdout)["blocks"][0]["error"]
    assert "--as whole" in error["message"]
    assert (tmp_path / "util.js").read_text() == UTIL
    r = llm_patch("apply", "-", "--as", "whole", cwd=tmp_path, stdin=reply)
    assert r.returncode == 0, r.stdout
    assert (tmp_path / "util.js").read_text() == WHOLE
