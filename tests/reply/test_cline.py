"""Cline's edit format: `replace_in_file` / `write_to_file` tool XML, and its SEARCH/REPLACE
markers (`------- SEARCH` / `=======` / `+++++++ REPLACE`, any run of three or more, and the
`<<<<<<<` / `>>>>>>>` spellings), in replies with prose and other formats around them."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lsp_server.model import Action, ErrorCode, Format
from lsp_server.reply import parse_reply
from lsp_server.reply.search_replace_calls import blocks_from_body
from tests.reply.agent_workspace import place

APP = """import os


def load(path):
    with open(path) as f:
        return f.read()


def main():
    print(load("a.txt"))
"""

UTIL = """export function add(a: number, b: number): number {
  return a + b;
}

export function sub(a: number, b: number): number {
  return a - b;
}
"""


def test_a_cline_turn_with_thinking_two_files_and_a_new_one():
    reply = """<thinking>
The loader should not fail on a missing file, and `sub` is unused. I'll edit both files and
add a test.
</thinking>

I'll make `load` return an empty string when the file is missing.

<replace_in_file>
<path>src/app.py</path>
<diff>
------- SEARCH
def load(path):
    with open(path) as f:
        return f.read()
=======
def load(path):
    if not os.path.exists(path):
        return ""
    with open(path) as f:
        return f.read()
+++++++ REPLACE

------- SEARCH
    print(load("a.txt"))
=======
    print(load("a.txt") or "(empty)")
+++++++ REPLACE
</diff>
</replace_in_file>

<replace_in_file>
<path>src/util.ts</path>
<diff>
------- SEARCH
export function sub(a: number, b: number): number {
  return a - b;
}
=======
+++++++ REPLACE
</diff>
</replace_in_file>

<write_to_file>
<path>tests/test_app.py</path>
<content>
from src.app import load


def test_missing():
    assert load("nope") == ""
</content>
</write_to_file>

Let me know if you want the tests run.
"""
    placed = place(reply, {"src/app.py": APP, "src/util.ts": UTIL})
    assert placed.plan.ok, placed.codes()
    assert placed.formats() == [Format.CLINE] * 3
    assert placed.files["src/app.py"] == APP.replace(
        "def load(path):\n",
        'def load(path):\n    if not os.path.exists(path):\n        return ""\n',
    ).replace('print(load("a.txt"))', 'print(load("a.txt") or "(empty)")')
    assert placed.files["src/util.ts"] == UTIL.split("\nexport function sub")[0] + "\n"
    assert placed.files["tests/test_app.py"] == (
        'from src.app import load\n\n\ndef test_missing():\n    assert load("nope") == ""\n'
    )
    spans = [o.block.reply_lines for o in placed.outcomes]
    assert spans[0][0] == reply.split("\n").index("<replace_in_file>") + 1


def test_cline_mixed_with_aider_blocks_and_a_unified_diff_in_one_reply():
    reply = """First the loader, Cline-style:

<replace_in_file>
<path>src/app.py</path>
<diff>
------- SEARCH
import os
=======
import os
import sys
+++++++ REPLACE
</diff>
</replace_in_file>

Then the same file, aider-style:

src/app.py
```python
<<<<<<< SEARCH
def main():
=======
def main(argv=sys.argv):
>>>>>>> REPLACE
```

And the TypeScript, as a diff:

```diff
--- a/src/util.ts
+++ b/src/util.ts
@@ -1,3 +1,3 @@
 export function add(a: number, b: number): number {
-  return a + b;
+  return b + a;
 }
```
"""
    placed = place(reply, {"src/app.py": APP, "src/util.ts": UTIL})
    assert placed.plan.ok, placed.codes()
    assert placed.formats() == [Format.CLINE, Format.SEARCH_REPLACE, Format.UNIFIED_DIFF]
    assert placed.files["src/app.py"].startswith("import os\nimport sys\n")
    assert "def main(argv=sys.argv):" in placed.files["src/app.py"]
    assert "return b + a;" in placed.files["src/util.ts"]


def test_bare_cline_markers_in_a_fence_under_a_path():
    reply = """Update the helper:

src/util.ts
```ts
------- SEARCH
  return a + b;
=======
  return a + b + 0;
+++++++ REPLACE
```

and:

src/util.ts
```ts
------- SEARCH
  return a - b;
=======
  return a - b - 0;
+++++++ REPLACE
```
"""
    placed = place(reply, {"src/util.ts": UTIL})
    assert placed.plan.ok, placed.codes()
    assert placed.formats() == [Format.CLINE, Format.CLINE]
    assert "a + b + 0" in placed.files["src/util.ts"]
    assert "a - b - 0" in placed.files["src/util.ts"]


@pytest.mark.parametrize(
    ("start", "divider", "end"),
    [
        ("------- SEARCH", "=======", "+++++++ REPLACE"),
        ("--- SEARCH", "===", "+++ REPLACE"),
        ("------------ SEARCH", "==========", "++++++++++++ REPLACE"),
        ("<<<<<<< SEARCH", "=======", ">>>>>>> REPLACE"),
        ("<<< SEARCH", "===", ">>> REPLACE"),
        ("<<<<<<< SEARCH", "=======", "+++++++ REPLACE"),
        ("------- SEARCH", "=======", ">>>>>>> REPLACE"),
        ("------- SEARCH>", "=======", "+++++++ REPLACE"),
    ],
)
def test_every_marker_spelling_cline_reads(start, divider, end):
    reply = (
        f"<replace_in_file>\n<path>src/util.ts</path>\n<diff>\n{start}\n  return a + b;\n"
        f"{divider}\n  return a + b + 1;\n{end}\n</diff>\n</replace_in_file>\n"
    )
    placed = place(reply, {"src/util.ts": UTIL})
    assert placed.plan.ok, placed.codes()
    assert "return a + b + 1;" in placed.files["src/util.ts"]


def test_an_empty_search_replaces_the_whole_file_or_creates_it():
    reply = (
        "<replace_in_file>\n<path>{p}</path>\n<diff>\n------- SEARCH\n=======\n"
        "print('new')\n+++++++ REPLACE\n</diff>\n</replace_in_file>\n"
    )
    placed = place(reply.format(p="src/app.py"), {"src/app.py": APP})
    assert placed.plan.ok and placed.files["src/app.py"] == "print('new')\n"
    (block,) = parse_reply(reply.format(p="src/app.py")).blocks
    assert block.action is Action.OVERWRITE
    placed = place(reply.format(p="src/new.py"), {})
    assert placed.plan.ok and placed.files["src/new.py"] == "print('new')\n"


def test_an_empty_search_among_other_blocks_is_malformed():
    reply = (
        "<replace_in_file>\n<path>src/app.py</path>\n<diff>\n------- SEARCH\nimport os\n"
        "=======\nimport re\n+++++++ REPLACE\n------- SEARCH\n=======\nx = 1\n"
        "+++++++ REPLACE\n</diff>\n</replace_in_file>\n"
    )
    placed = place(reply, {"src/app.py": APP})
    (code,) = placed.codes()
    assert code is ErrorCode.MALFORMED_BLOCK
    assert "reply line 9" in placed.outcomes[0].failure.message
    assert placed.files["src/app.py"] == APP


def test_write_to_file_overwrites_and_unwraps_a_fence_around_the_whole_content():
    reply = (
        "Here is the new file:\n\n<write_to_file>\n<path>src/util.ts</path>\n<content>\n"
        "```typescript\nexport const one = 1;\n```\n</content>\n</write_to_file>\n"
    )
    placed = place(reply, {"src/util.ts": UTIL})
    assert placed.plan.ok
    assert placed.files["src/util.ts"] == "export const one = 1;\n"


def test_write_to_file_keeps_a_markdown_file_whose_fences_are_its_own():
    readme = "```sh\nmake\n```\n\nThen:\n\n```sh\nmake test\n```"
    reply = f"<write_to_file>\n<path>README.md</path>\n<content>\n{readme}\n</content>\n"
    reply += "</write_to_file>\n"
    placed = place(reply, {})
    assert placed.plan.ok and placed.files["README.md"] == readme + "\n"


def test_calls_indented_in_a_list_and_inside_an_xml_fence():
    reply = """1. Fix the import:

   <replace_in_file>
   <path>src/app.py</path>
   <diff>
   ------- SEARCH
   import os
   =======
   import os.path
   +++++++ REPLACE
   </diff>
   </replace_in_file>

2. Then the helper:

```xml
<replace_in_file>
<path>src/util.ts</path>
<diff>
------- SEARCH
  return a - b;
=======
  return b - a;
+++++++ REPLACE
</diff>
</replace_in_file>
```
"""
    placed = place(reply, {"src/app.py": APP, "src/util.ts": UTIL})
    assert placed.plan.ok, placed.codes()
    assert placed.files["src/app.py"].startswith("import os.path\n")
    assert "return b - a;" in placed.files["src/util.ts"]


# --- XML entities ------------------------------------------------------------------------------


def test_an_entity_escaped_call_is_decoded():
    reply = (
        "<replace_in_file>\n<path>src/util.ts</path>\n<diff>\n------- SEARCH\n"
        "export function add(a: number, b: number): number {\n  return a + b;\n=======\n"
        "export function add(a: number, b: number): number {\n"
        "  return a &gt; 0 &amp;&amp; b &lt; 0 ? a : a + b;\n+++++++ REPLACE\n</diff>\n"
        "</replace_in_file>\n"
    )
    placed = place(reply, {"src/util.ts": UTIL})
    assert placed.plan.ok, placed.codes()
    assert "return a > 0 && b < 0 ? a : a + b;" in placed.files["src/util.ts"]


def test_raw_text_keeps_its_entities():
    page = '<p>Tom &amp; Jerry</p>\n<p title="a">x</p>\n'
    reply = (
        "<replace_in_file>\n<path>index.html</path>\n<diff>\n------- SEARCH\n"
        "<p>Tom &amp; Jerry</p>\n=======\n<p>Tom &amp; Jerry &lt;3</p>\n+++++++ REPLACE\n"
        "</diff>\n</replace_in_file>\n"
    )
    placed = place(reply, {"index.html": page})
    assert placed.plan.ok, placed.codes()
    assert placed.files["index.html"].startswith("<p>Tom &amp; Jerry &lt;3</p>\n")


def test_an_amp_entity_alone_does_not_prove_escaping():
    source = 'const AMP = "&amp;";\n'
    reply = (
        "<replace_in_file>\n<path>esc.js</path>\n<diff>\n------- SEARCH\n"
        'const AMP = "&amp;";\n=======\nconst AMP = "&amp;"; // entity\n+++++++ REPLACE\n'
        "</diff>\n</replace_in_file>\n"
    )
    placed = place(reply, {"esc.js": source})
    assert placed.plan.ok and placed.files["esc.js"] == 'const AMP = "&amp;"; // entity\n'


def test_a_half_escaped_call_is_left_as_it_is():
    # a raw `&&` beside `&lt;`: not a consistently escaped call, so `&lt;` is the file's text
    source = "if (a && b) { s = '&lt;'; }\n"
    reply = (
        "<replace_in_file>\n<path>x.js</path>\n<diff>\n------- SEARCH\n"
        "if (a && b) { s = '&lt;'; }\n=======\nif (a && b) { s = '&gt;'; }\n+++++++ REPLACE\n"
        "</diff>\n</replace_in_file>\n"
    )
    placed = place(reply, {"x.js": source})
    assert placed.plan.ok and placed.files["x.js"] == "if (a && b) { s = '&gt;'; }\n"


# --- failures -----------------------------------------------------------------------------------


def test_search_text_not_found_and_ambiguous():
    not_found = (
        "<replace_in_file>\n<path>src/app.py</path>\n<diff>\n------- SEARCH\n"
        "def save(path):\n=======\ndef save(path, data):\n+++++++ REPLACE\n</diff>\n"
        "</replace_in_file>\n"
    )
    placed = place(not_found, {"src/app.py": APP})
    assert placed.codes() == [ErrorCode.TEXT_NOT_FOUND]
    assert placed.files["src/app.py"] == APP
    twice = "x = 1\ny = 2\nx = 1\n"
    ambiguous = (
        "<replace_in_file>\n<path>t.py</path>\n<diff>\n------- SEARCH\nx = 1\n=======\n"
        "x = 5\n+++++++ REPLACE\n</diff>\n</replace_in_file>\n"
    )
    placed = place(ambiguous, {"t.py": twice})
    assert placed.codes() == [ErrorCode.TEXT_AMBIGUOUS]
    assert placed.files["t.py"] == twice


@pytest.mark.parametrize(
    ("reply", "reason"),
    [
        (
            "<replace_in_file>\n<path>src/app.py</path>\n<diff>\n------- SEARCH\nimport os\n",
            "no `</replace_in_file>`",
        ),
        (
            "<replace_in_file>\n<diff>\n------- SEARCH\nimport os\n=======\nimport re\n"
            "+++++++ REPLACE\n</diff>\n</replace_in_file>\n",
            "no `<path>`",
        ),
        (
            "<replace_in_file>\n<path>src/app.py</path>\n</replace_in_file>\n",
            "no `<diff>`",
        ),
        (
            "<replace_in_file>\n<path>src/app.py</path>\n<diff>\nimport os\n</diff>\n"
            "</replace_in_file>\n",
            "holds no SEARCH/REPLACE block",
        ),
        (
            "<replace_in_file>\n<path>src/app.py</path>\n<diff>\n------- SEARCH\nimport os\n"
            "+++++++ REPLACE\n</diff>\n</replace_in_file>\n",
            "expected `=======`",
        ),
        (
            "<replace_in_file>\n<path>src/app.py</path>\n<diff>\n------- SEARCH\nimport os\n"
            "=======\nimport re\n=======\nimport sys\n+++++++ REPLACE\n</diff>\n"
            "</replace_in_file>\n",
            "expected `>>>>>>> REPLACE`",
        ),
    ],
)
def test_malformed_calls_name_the_call_and_the_reason(reply, reason):
    placed = place("Here goes:\n\n" + reply, {"src/app.py": APP})
    (outcome,) = placed.outcomes
    assert outcome.failure.code is ErrorCode.MALFORMED_BLOCK
    assert reason in outcome.failure.message
    assert outcome.block.format is Format.CLINE
    assert outcome.block.reply_lines[0] == 3
    assert placed.files["src/app.py"] == APP


def test_a_whole_file_holding_a_diff_by_mistake_is_refused_naming_the_line():
    reply = (
        "<write_to_file>\n<path>src/app.py</path>\n<content>\n------- SEARCH\nimport os\n"
        "=======\nimport re\n+++++++ REPLACE\n</content>\n</write_to_file>\n"
    )
    placed = place(reply, {"src/app.py": APP})
    (failure,) = [o.failure for o in placed.outcomes]
    assert failure.code is ErrorCode.MALFORMED_BLOCK
    assert failure.details["line"] == 4 and failure.details["text"] == "------- SEARCH"
    assert placed.files["src/app.py"] == APP


def test_a_new_text_with_a_marker_line_is_refused():
    reply = (
        "<replace_in_file>\n<path>src/app.py</path>\n<diff>\n------- SEARCH\nimport os\n"
        "=======\nimport re\n<<<<<<< HEAD\n+++++++ REPLACE\n</diff>\n</replace_in_file>\n"
    )
    placed = place(reply, {"src/app.py": APP})
    (failure,) = [o.failure for o in placed.outcomes]
    assert failure.code is ErrorCode.MALFORMED_BLOCK
    assert failure.details["line"] == 8 and failure.details["text"] == "<<<<<<< HEAD"


def test_a_tag_named_in_prose_is_not_a_call():
    reply = (
        "Cline would use the <replace_in_file> tool here, or `<write_to_file>` for a new file.\n"
        "<write_to_file> is only for whole files.\n"
    )
    assert parse_reply(reply).failure.code is ErrorCode.NO_EDIT_BLOCKS


# --- the same calls with JSON arguments: {"path", "diff"} -------------------------------------


def call(path: str, diff: str, **extra: object) -> dict:
    return {"path": path, "diff": diff, **extra}


def cline_diff(*pairs: tuple[str, str], legacy: bool = False) -> str:
    start, end = (
        ("<<<<<<< SEARCH", ">>>>>>> REPLACE") if legacy else ("------- SEARCH", "+++++++ REPLACE")
    )
    return "\n".join(f"{start}\n{old}=======\n{new}{end}\n" for old, new in pairs)


def test_json_calls_in_a_transcript_with_prose_and_other_formats():
    first = call(
        "src/app.py",
        cline_diff(
            (
                "def load(path):\n",
                'def load(path):\n    if not os.path.exists(path):\n        return ""\n',
            ),
            ('    print(load("a.txt"))\n', '    print(load("a.txt") or "(empty)")\n'),
        ),
        task_progress="- [x] loader\n- [ ] util",
    )
    second = call(
        "src/util.ts", cline_diff(("  return a - b;\n", "  return b - a;\n"), legacy=True)
    )
    transcript = {
        "role": "assistant",
        "tool_calls": [
            {
                "type": "function",
                "function": {"name": "replace_in_file", "arguments": json.dumps(first)},
            },
            {
                "type": "function",
                "function": {"name": "replace_in_file", "arguments": json.dumps(second)},
            },
        ],
    }
    reply = (
        "I'll guard the loader and flip the subtraction.\n\n```json\n"
        + json.dumps(transcript, indent=2)
        + "\n```\n\nThen the import, as a plain SEARCH/REPLACE block:\n\nsrc/app.py\n```python\n"
        "<<<<<<< SEARCH\nimport os\n=======\nimport os\nimport sys\n>>>>>>> REPLACE\n```\n\n"
        "And one more call, bare in the text:\n\n"
        + json.dumps(
            {
                "tool": "replace_in_file",
                "parameters": call(
                    "src/util.ts", cline_diff(("  return a + b;\n", "  return b + a;\n"))
                ),
            }
        )
        + "\n\nDone.\n"
    )
    placed = place(reply, {"src/app.py": APP, "src/util.ts": UTIL})
    assert placed.plan.ok, placed.codes()
    assert placed.formats() == [Format.CLINE, Format.CLINE, Format.SEARCH_REPLACE, Format.CLINE]
    assert placed.files["src/app.py"] == APP.replace(
        "import os\n", "import os\nimport sys\n"
    ).replace(
        "def load(path):\n",
        'def load(path):\n    if not os.path.exists(path):\n        return ""\n',
    ).replace('print(load("a.txt"))', 'print(load("a.txt") or "(empty)")')
    assert placed.files["src/util.ts"] == UTIL.replace("a - b", "b - a").replace("a + b", "b + a")


def test_a_json_diff_reads_like_the_same_diff_in_xml():
    diff = cline_diff(("import os\n", "import re\n"), ("def main():\n", "def main(argv):\n"))
    xml = f"<replace_in_file>\n<path>src/app.py</path>\n<diff>\n{diff}</diff>\n</replace_in_file>\n"
    (from_xml,) = parse_reply(xml).blocks
    (from_json,) = parse_reply(json.dumps(call("src/app.py", diff))).blocks
    assert from_json.format is from_xml.format is Format.CLINE
    assert from_json.hunks == from_xml.hunks and len(from_json.hunks) == 2
    assert from_json.action is from_xml.action


def test_a_json_diff_with_one_empty_search_replaces_the_whole_file():
    placed = place(
        json.dumps(call("src/app.py", cline_diff(("", "print('hi')\n")))), {"src/app.py": APP}
    )
    assert placed.plan.ok, placed.codes()
    assert placed.files["src/app.py"] == "print('hi')\n"


def test_roo_apply_diff_with_json_arguments_reads_its_header_hints_and_numbers():
    twice = "def a():\n    x = 0\n    return x\n\ndef b():\n    x = 0\n    return x\n"
    body = "    x = 0\n    return x\n"
    for line, changed in ((2, "a"), (6, "b")):
        diff = (
            f"<<<<<<< SEARCH\n:start_line:{line}\n-------\n{body}=======\n"
            "    x = 1\n    return x\n>>>>>>> REPLACE\n"
        )
        reply = "Using apply_diff:\n\n" + json.dumps(
            {"name": "apply_diff", "input": call("m.py", diff)}
        )
        placed = place(reply, {"m.py": twice})
        assert placed.plan.ok, placed.codes()
        assert placed.formats() == [Format.ROO]
        first, second = placed.files["m.py"].split("def b():")
        assert ("x = 1" in first) is (changed == "a") and ("x = 1" in second) is (changed == "b")
    # line numbers copied from Roo's reader are stripped; a later block's bare `-------` ends
    # an empty header, as in Roo's own parser
    numbered = (
        "<<<<<<< SEARCH\n:start_line:5\n-------\n5 | def b():\n6 |     x = 0\n=======\n"
        "def b():\n    x = 2\n>>>>>>> REPLACE\n\n<<<<<<< SEARCH\n-------\ndef a():\n=======\n"
        "def first():\n>>>>>>> REPLACE\n"
    )
    placed = place(json.dumps(call("m.py", numbered)), {"m.py": twice})
    assert placed.plan.ok, placed.codes()
    assert placed.files["m.py"] == twice.replace("def a():", "def first():").replace(
        "def b():\n    x = 0", "def b():\n    x = 2"
    )
    # Roo refuses an empty SEARCH; so does its JSON call
    empty = "<<<<<<< SEARCH\n:start_line:1\n-------\n=======\nx = 1\n>>>>>>> REPLACE\n"
    (outcome,) = place(json.dumps(call("m.py", empty)), {"m.py": twice}).outcomes
    assert outcome.block.format is Format.ROO
    assert outcome.failure.code is ErrorCode.MALFORMED_BLOCK


def test_a_json_diff_that_is_not_search_replace_is_not_this_call():
    unified = "--- a/src/app.py\n+++ b/src/app.py\n@@ -1 +1 @@\n-import os\n+import re\n"
    for args in (
        call("src/app.py", unified),
        call("src/app.py", "SEARCH for the loader and REPLACE it"),
        {"path": "src/app.py", "diff": ["------- SEARCH"]},
    ):
        assert not [b for b in parse_reply(json.dumps(args)).blocks if b.format is Format.CLINE]


def test_json_diff_not_found_and_ambiguous_leave_the_file():
    missing = call("src/app.py", cline_diff(("def save(path):\n", "def save(path, data):\n")))
    placed = place(json.dumps(missing), {"src/app.py": APP})
    assert placed.codes() == [ErrorCode.TEXT_NOT_FOUND]
    assert placed.files["src/app.py"] == APP
    twice = "x = 1\ny = 2\nx = 1\n"
    placed = place(json.dumps(call("t.py", cline_diff(("x = 1\n", "x = 5\n")))), {"t.py": twice})
    assert placed.codes() == [ErrorCode.TEXT_AMBIGUOUS]
    assert placed.files["t.py"] == twice
    # one block of two not found: the call changes nothing (its hunks are one edit)
    half = call("src/app.py", cline_diff(("import os\n", "import re\n"), ("nope\n", "yes\n")))
    placed = place(json.dumps(half), {"src/app.py": APP})
    assert placed.codes() == [ErrorCode.TEXT_NOT_FOUND]
    assert placed.files["src/app.py"] == APP


@pytest.mark.parametrize(
    ("args", "words", "details"),
    [
        (
            call("src/app.py", "------- SEARCH\nimport os\n+++++++ REPLACE\n"),
            "expected `=======` before line 3 of the diff",
            {"diff_line": 3},
        ),
        (
            call("src/app.py", "------- SEARCH\nimport os\n"),
            "the diff ends before `=======`",
            {"incomplete": True},
        ),
        (
            call("src/app.py", cline_diff(("import os\n", "import re\n<<<<<<< HEAD\n"))),
            "line 5 of the diff",
            {"diff_line": 5, "text": "<<<<<<< HEAD"},
        ),
        (
            call(" ", cline_diff(("import os\n", "import re\n"))),
            "has no `file_path`",
            {"missing": "file_path"},
        ),
    ],
)
def test_malformed_json_diffs_are_refused_naming_the_line(args, words, details):
    placed = place("The edit:\n\n```json\n" + json.dumps(args) + "\n```\n", {"src/app.py": APP})
    (outcome,) = placed.outcomes
    assert outcome.failure.code is ErrorCode.MALFORMED_BLOCK
    assert outcome.block.format is Format.CLINE
    assert words in outcome.failure.message
    assert details.items() <= outcome.failure.details.items()
    assert placed.files["src/app.py"] == APP


def test_broken_json_holding_a_cline_diff_is_malformed_with_its_position():
    reply = (
        'Here:\n\n```json\n{"path": "src/app.py", "diff": "------- SEARCH\\nimport os\\n'
        '=======\\nimport re\\n+++++++ REPLACE\\n",}\n```\n'
    )
    (outcome,) = place(reply, {"src/app.py": APP}).outcomes
    assert outcome.failure.code is ErrorCode.MALFORMED_BLOCK
    assert outcome.block.format is Format.CLINE and outcome.block.path == "src/app.py"
    assert outcome.failure.details["line"] == 4


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.text("abc =()+-:", max_size=10), min_size=1, max_size=12, unique=True),
    st.data(),
)
def test_a_json_diff_splices_the_file(body, data):
    """Oracle: the file's lines with the chosen range swapped for the new lines (which hold
    no marker characters: a new line shaped like a marker is refused, tested above)."""
    lines = [f"L{k}: {text}".rstrip() for k, text in enumerate(body)]
    start = data.draw(st.integers(0, len(lines) - 1))
    stop = data.draw(st.integers(start + 1, len(lines)))
    new = data.draw(st.lists(st.text("xyz ().:", max_size=8).map(str.rstrip), max_size=4))
    legacy = data.draw(st.booleans())
    joined = lambda xs: "".join(x + "\n" for x in xs)  # noqa: E731
    diff = cline_diff((joined(lines[start:stop]), joined(new)), legacy=legacy)
    placed = place(
        json.dumps({"name": "replace_in_file", "arguments": call("f.txt", diff)}),
        {"f.txt": joined(lines)},
    )
    assert placed.plan.ok, placed.codes()
    assert placed.files["f.txt"] == joined(lines[:start] + new + lines[stop:])


# --- the public reader, for the JSON arguments ------------------------------------------------


def test_blocks_from_body_reads_a_json_diff_and_names_lines_of_the_diff():
    body = "------- SEARCH\nimport os\n=======\nimport re\n+++++++ REPLACE\n"
    block = blocks_from_body(body, "src/app.py", (4, 9), Format.CLINE)
    assert block.error is None and block.reply_lines == (4, 9)
    assert [(h.old, h.new) for h in block.hunks] == [("import os\n", "import re\n")]
    broken = blocks_from_body("------- SEARCH\nimport os\n", "a.py", (4, 9), Format.CLINE)
    assert broken.error.code is ErrorCode.MALFORMED_BLOCK
    assert "line 1 of the diff" in broken.error.message
    assert broken.error.details["incomplete"] is True
    conflict = body.replace("import re", "<<<<<<< HEAD")
    marker = blocks_from_body(conflict, "a.py", (1, 1), Format.CLINE)
    assert marker.error is not None and marker.error.details["diff_line"] == 4
    assert marker.error.details["text"] == "<<<<<<< HEAD"
    second = blocks_from_body(body.replace("import re", "======="), "a.py", (1, 1), Format.CLINE)
    assert second.error is not None and second.error.details["diff_line"] == 4


def test_a_diff_left_open_ends_at_the_calls_closing_tag():
    reply = (
        "<replace_in_file>\n<path>src/app.py</path>\n<diff>\n------- SEARCH\nimport os\n"
        "=======\nimport re\n+++++++ REPLACE\n</replace_in_file>\n"
    )
    placed = place(reply, {"src/app.py": APP})
    assert placed.plan.ok and placed.files["src/app.py"].startswith("import re\n")


def test_a_call_indented_under_a_list_item_is_read_at_the_margin():
    reply = (
        "1. Create the module:\n\n   <write_to_file>\n   <path>src/m.py</path>\n   <content>\n"
        "   def f():\n       return 1\n   </content>\n   </write_to_file>\n\n"
        "2. Fix the import:\n\n   <replace_in_file>\n   <path>src/app.py</path>\n   <diff>\n"
        "   ------- SEARCH\n   import os\n   =======\n   import os\n   import m\n"
        "   +++++++ REPLACE\n   </diff>\n   </replace_in_file>\n"
    )
    placed = place(reply, {"src/app.py": APP})
    assert placed.plan.ok, placed.codes()
    assert placed.files["src/m.py"] == "def f():\n    return 1\n"
    assert placed.files["src/app.py"].startswith("import os\nimport m\n\n")
    (first, second) = parse_reply(reply).blocks
    assert first.content == "def f():\n    return 1\n"
    assert second.hunks[0].old == "import os\n"


def test_a_call_whose_lines_are_not_all_indented_keeps_its_text():
    # the content's lines start at the margin: the opener's indentation is not the call's
    reply = (
        "   <write_to_file>\n<path>src/m.py</path>\n<content>\n  x = 1\n</content>\n"
        "</write_to_file>\n"
    )
    (block,) = parse_reply(reply).blocks
    assert block.content == "  x = 1\n"


def test_a_cdata_section_is_unwrapped_and_its_text_kept_raw():
    reply = (
        "<write_to_file>\n<path>a.html</path>\n<content><![CDATA[\n<p>&lt;raw&gt;</p>\n]]>"
        "</content>\n</write_to_file>\n"
        "<replace_in_file>\n<path>src/app.py</path>\n<diff><![CDATA[\n------- SEARCH\n"
        "import os\n=======\nimport os  # &lt;\n+++++++ REPLACE\n]]></diff>\n</replace_in_file>\n"
    )
    placed = place(reply, {"src/app.py": APP})
    assert placed.plan.ok, placed.codes()
    assert placed.files["a.html"] == "<p>&lt;raw&gt;</p>\n"
    assert placed.files["src/app.py"].startswith("import os  # &lt;\n")


def test_a_call_glued_to_the_prose_before_it_is_read():
    reply = (
        "Let me fix the import:<replace_in_file>\n<path>src/app.py</path>\n<diff>\n"
        "------- SEARCH\nimport os\n=======\nimport re\n+++++++ REPLACE\n</diff>\n"
        "</replace_in_file>\nDone. (Cline calls `<replace_in_file><path>` for this.)\n"
    )
    placed = place(reply, {"src/app.py": APP})
    assert placed.plan.ok, placed.codes()
    assert placed.formats() == [Format.CLINE]
    assert placed.files["src/app.py"].startswith("import re\n")


def test_a_whole_file_leaving_code_out_is_merged_around_its_placeholder_not_written():
    reply = (
        "<write_to_file>\n<path>src/app.py</path>\n<content>\nimport os\nimport sys\n\n"
        "# ... rest of the file unchanged ...\n</content>\n</write_to_file>\n"
    )
    placed = place(reply, {"src/app.py": APP})
    assert placed.plan.ok, placed.codes()
    assert placed.files["src/app.py"] == APP.replace("import os\n", "import os\nimport sys\n")
    assert "rest of the file" not in placed.files["src/app.py"]
    placed = place(reply.replace("src/app.py", "src/new.py"), {})
    assert placed.codes() == [ErrorCode.FILE_NOT_FOUND]


def test_a_python_stub_body_is_code_not_a_placeholder():
    stub = "class P(Protocol):\n    def f(self) -> int:\n        ...\n"
    reply = f"<write_to_file>\n<path>p.py</path>\n<content>\n{stub}</content>\n</write_to_file>\n"
    placed = place(reply, {})
    assert placed.plan.ok and placed.files["p.py"] == stub
