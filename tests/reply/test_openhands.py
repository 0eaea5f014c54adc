"""OpenHands' and SWE-agent's XML function calls: `<function=str_replace_editor>` with
`<parameter=...>` values (and the `<invoke name=...>` / `<parameter name=...>` spelling),
read as the same edits as the JSON text-editor tool."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lsp_server.model import Action, ErrorCode, Format, HunkKind
from lsp_server.plan import plan_reply
from lsp_server.reply import parse_reply, tool_xml
from lsp_server.workspace import DiskWorkspace
from tests.reply.agent_workspace import examples, place

MODEL = """class Model:
    def __init__(self, name):
        self.name = name

    def save(self):
        return db.write(self.name)
"""


def call(command: str, path: str = "src/model.py", **params: str) -> str:
    body = "".join(f"<parameter={k}>{v}</parameter>\n" for k, v in params.items())
    return (
        f"<function=str_replace_editor>\n<parameter=command>{command}</parameter>\n"
        f"<parameter=path>{path}</parameter>\n{body}</function>\n"
    )


def test_an_openhands_turn_with_thoughts_edits_and_other_tools():
    reply = """I need to look at the model first.

<function=str_replace_editor>
<parameter=command>view</parameter>
<parameter=path>src/model.py</parameter>
</function>

The save method should validate the name. Let me fix it:

<function=str_replace_editor>
<parameter=command>str_replace</parameter>
<parameter=path>src/model.py</parameter>
<parameter=old_str>
    def save(self):
        return db.write(self.name)
</parameter>
<parameter=new_str>
    def save(self):
        if not self.name:
            raise ValueError("name is empty")
        return db.write(self.name)
</parameter>
</function>

Now a test file:

<function=str_replace_editor>
<parameter=command>create</parameter>
<parameter=path>tests/test_model.py</parameter>
<parameter=file_text>
from src.model import Model


def test_empty():
    assert Model("").name == ""
</parameter>
</function>

And run it:

<function=execute_bash>
<parameter=command>python -m pytest tests/test_model.py</parameter>
</function>
"""
    placed = place(reply, {"src/model.py": MODEL})
    assert placed.plan.ok, placed.codes()
    assert placed.formats() == [Format.OPENHANDS, Format.OPENHANDS]
    assert '            raise ValueError("name is empty")\n' in placed.files["src/model.py"]
    assert placed.files["tests/test_model.py"] == (
        'from src.model import Model\n\n\ndef test_empty():\n    assert Model("").name == ""\n'
    )


def test_openhands_mixed_with_json_calls_and_aider_blocks():
    json_call = {"command": "str_replace", "path": "b.py", "old_str": "b = 1", "new_str": "b = 2"}
    reply = (
        call("str_replace", "a.py", old_str="a = 1", new_str="a = 2")
        + "\nthen\n\n```json\n"
        + json.dumps(json_call)
        + "\n```\n\nc.py\n```python\n<<<<<<< SEARCH\nc = 1\n=======\nc = 2\n>>>>>>> REPLACE\n```\n"
    )
    placed = place(reply, {"a.py": "a = 1\n", "b.py": "b = 1\n", "c.py": "c = 1\n"})
    assert placed.plan.ok, placed.codes()
    assert placed.formats() == [Format.OPENHANDS, Format.TEXT_EDITOR, Format.SEARCH_REPLACE]
    assert [placed.files[p] for p in ("a.py", "b.py", "c.py")] == ["a = 2\n", "b = 2\n", "c = 2\n"]


@pytest.mark.parametrize(
    "args",
    [
        {"command": "str_replace", "path": "a.py", "old_str": "x = 1\ny", "new_str": "x = 2\ny"},
        {"command": "str_replace", "path": "a.py", "old_str": "= 1", "new_str": "= 3"},
        {"command": "create", "path": "n.py", "file_text": "print(1)\n"},
        {"command": "create", "path": "a.py", "file_text": "print(1)"},
        {"command": "insert", "path": "a.py", "insert_line": 1, "new_str": "z = 0\n"},
        {"command": "insert", "path": "a.py", "insert_line": 0, "new_str": "z = 0"},
    ],
)
def test_the_same_call_as_xml_and_as_json_is_the_same_edit(args):
    xml = "<function=str_replace_editor>\n" + "".join(
        f"<parameter={k}>{v}</parameter>\n" for k, v in args.items()
    )
    xml += "</function>\n"
    files = {"a.py": "x = 1\ny = 2\n"}
    from_xml, from_json = (
        place(xml, files),
        place("```json\n" + json.dumps(args) + "\n```\n", files),
    )
    assert (from_xml.formats(), from_json.formats()) == ([Format.OPENHANDS], [Format.TEXT_EDITOR])
    assert from_xml.plan.ok and from_json.plan.ok
    assert from_xml.files == from_json.files
    assert [b.action for b in parse_reply(xml).blocks] == [
        b.action for b in parse_reply("```json\n" + json.dumps(args) + "\n```\n").blocks
    ]


def test_a_created_file_between_tags_on_their_own_lines_is_whole_lines():
    (block,) = parse_reply(call("create", "n.py", file_text="\nprint(1)\n")).blocks
    assert block.content == "print(1)\n"
    (block,) = parse_reply(call("create", "n.py", file_text="print(1)")).blocks
    assert block.content == "print(1)"


def test_old_str_may_be_part_of_a_line():
    reply = call("str_replace", old_str="db.write(self.name)", new_str="db.write(self.name, True)")
    placed = place(reply, {"src/model.py": MODEL})
    assert placed.plan.ok, placed.codes()
    assert "return db.write(self.name, True)\n" in placed.files["src/model.py"]


def test_insert_after_a_line_and_at_the_top():
    placed = place(
        call("insert", insert_line="3", new_str="\n    x = 1\n"), {"src/model.py": MODEL}
    )
    assert placed.plan.ok, placed.codes()
    assert placed.files["src/model.py"].split("\n")[3] == "    x = 1"
    placed = place(
        call("insert", insert_line="0", new_str="\nimport db\n"), {"src/model.py": MODEL}
    )
    assert placed.plan.ok and placed.files["src/model.py"] == "import db\n" + MODEL


def test_a_call_cut_at_the_stop_word_still_reads():
    # OpenHands stops the model at `</function`: the closing tag is often missing
    reply = (
        "Fixing the name:\n\n<function=str_replace_editor>\n<parameter=command>str_replace"
        "</parameter>\n<parameter=path>src/model.py</parameter>\n<parameter=old_str>"
        "self.name = name</parameter>\n<parameter=new_str>self.name = name.strip()</parameter>\n"
    )
    placed = place(reply, {"src/model.py": MODEL})
    assert placed.plan.ok, placed.codes()
    assert "self.name = name.strip()" in placed.files["src/model.py"]
    assert placed.outcomes[0].block.reply_lines == (3, 7)


def test_an_unclosed_parameter_is_incomplete_not_a_deletion():
    reply = (
        "<function=str_replace_editor>\n<parameter=command>str_replace</parameter>\n"
        "<parameter=path>src/model.py</parameter>\n<parameter=old_str>self.name = name"
        "</parameter>\n<parameter=new_str>self.name = "
    )
    placed = place(reply, {"src/model.py": MODEL})
    (failure,) = [o.failure for o in placed.outcomes]
    assert failure.code is ErrorCode.MALFORMED_BLOCK and failure.details["incomplete"]
    assert "`<parameter=new_str>` is not closed" in failure.message
    assert placed.files["src/model.py"] == MODEL


def test_the_invoke_spelling_and_a_qwen_tool_call_wrapper():
    invoke = (
        '<invoke name="str_replace_editor">\n<parameter name="command">str_replace</parameter>\n'
        '<parameter name="path">a.py</parameter>\n<parameter name="old_str">a = 1</parameter>\n'
        '<parameter name="new_str">a = 2</parameter>\n</invoke>\n'
    )
    qwen = "<tool_call>\n" + call("str_replace", "b.py", old_str="b = 1", new_str="b = 2")
    qwen += "</tool_call>\n"
    placed = place(invoke + "\n" + qwen, {"a.py": "a = 1\n", "b.py": "b = 1\n"})
    assert placed.plan.ok, placed.codes()
    assert (placed.files["a.py"], placed.files["b.py"]) == ("a = 2\n", "b = 2\n")


def test_view_undo_and_other_functions_are_not_edits():
    reply = (
        call("view")
        + call("undo_edit")
        + "<function=execute_bash>\n<parameter=command>ls</parameter>\n</function>\n"
        + "<function=finish>\n</function>\n"
    )
    assert parse_reply(reply).failure.code is ErrorCode.NO_EDIT_BLOCKS


def test_an_absolute_path_inside_the_root_is_the_workspace_file(tmp_path: Path):
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "model.py").write_text(MODEL)
    reply = call("str_replace", str(tmp_path / "src" / "model.py"), old_str="name", new_str="n")
    plan = plan_reply(
        parse_reply(reply.replace("name</", "self.name = name</")), DiskWorkspace(tmp_path)
    )
    assert plan.ok, plan.outcomes
    assert plan.files[0].path == "src/model.py"
    outside = call("str_replace", "/workspace/other/model.py", old_str="a", new_str="b")
    plan = plan_reply(parse_reply(outside), DiskWorkspace(tmp_path))
    assert plan.outcomes[0].failure.code is ErrorCode.OUTSIDE_WORKSPACE


def test_escaped_values_are_decoded():
    reply = call("str_replace", "t.ts", old_str="a &lt; b", new_str="a &lt;= b &amp;&amp; ok")
    placed = place(reply, {"t.ts": "if (a < b) {}\n"})
    assert placed.plan.ok and placed.files["t.ts"] == "if (a <= b && ok) {}\n"


# --- failures ----------------------------------------------------------------------------------


def test_old_str_not_found_and_ambiguous():
    placed = place(
        call("str_replace", old_str="def load(", new_str="def read("), {"src/model.py": MODEL}
    )
    assert placed.codes() == [ErrorCode.TEXT_NOT_FOUND]
    placed = place(
        call("str_replace", old_str="self.name", new_str="self.n"), {"src/model.py": MODEL}
    )
    assert placed.codes() == [ErrorCode.TEXT_AMBIGUOUS]
    assert placed.files["src/model.py"] == MODEL


@pytest.mark.parametrize(
    ("reply", "reason"),
    [
        (call("str_replace", new_str="x"), "needs a non-empty `old_str`"),
        (call("create"), "`create` needs `file_text`"),
        (call("insert", new_str="x\n"), "`insert` needs `insert_line`"),
        (call("insert", insert_line="two", new_str="x\n"), "`insert` needs `insert_line`"),
        (call("insert", insert_line="2"), "`insert` needs `new_str`"),
        (
            "<function=str_replace_editor>\n<parameter=command>create</parameter>\n"
            "<parameter=file_text>x</parameter>\n</function>\n",
            "has no `path`",
        ),
    ],
)
def test_malformed_calls_name_the_call_and_the_reason(reply, reason):
    (block,) = parse_reply(reply).blocks
    assert block.format is Format.OPENHANDS
    assert block.error.code is ErrorCode.MALFORMED_BLOCK
    assert reason in block.error.message
    assert block.error.message.startswith("the `str_replace_editor` call at reply line 1")


def test_a_created_file_holding_markers_is_refused_naming_the_line():
    reply = call("create", "n.py", file_text="\nx = 1\n<<<<<<< SEARCH\ny = 2\n")
    (block,) = parse_reply(reply).blocks
    assert block.error.code is ErrorCode.MALFORMED_BLOCK
    assert block.error.details["line"] == 6 and block.error.details["text"] == "<<<<<<< SEARCH"


def test_a_function_named_in_prose_is_not_a_call():
    reply = "OpenHands calls <function=str_replace_editor> with a command parameter.\n"
    assert parse_reply(reply).failure.code is ErrorCode.NO_EDIT_BLOCKS


def test_mapping_matches_the_commands():
    (block,) = parse_reply(call("insert", insert_line="4", new_str="\nq = 1\n")).blocks
    assert block.action is Action.MODIFY
    assert (block.hunks[0].kind, block.hunks[0].line_hint) == (HunkKind.INSERT_AT_LINE, 4)


XMLISH = st.lists(
    st.sampled_from(
        list("<>/=\n ax&;")
        + ["<function=f>", "</function>", "<parameter=command>", "</parameter>", "str_replace"]
        + ["<parameter=path>", "<replace_in_file>", "</replace_in_file>", "<path>", "</path>"]
        + ["<diff>", "</diff>", "<apply_diff>", "<args>", "<file>", "<content>", "&lt;"]
        + ["------- SEARCH", "=======", "+++++++ REPLACE", "<<<<<<< SEARCH", ":start_line:"]
        + ["<write_to_file>", "</write_to_file>", "</apply_diff>", "</file>", "</content>"]
        + ["<parameter=insert_line>", "insert", "create", "<parameter=new_str>", "1", "&#0;"]
        + ["<insert_content>", "</insert_content>", "<line>", "</line>", "<start_line>"]
        + ["<path>a</path>", "<path>x</path>", "x = 1", "<![CDATA[", "]]>", "\\=======", "7 | "]
    ),
    max_size=60,
).map("".join)


@settings(max_examples=examples(300), deadline=None)
@given(XMLISH)
def test_the_xml_reader_never_raises_and_spans_stay_in_the_reply(text):
    lines = text.split("\n")
    for block in tool_xml.find_blocks(lines):
        lo, hi = block.reply_lines
        assert 1 <= lo <= hi <= len(lines)
    # and the whole reply, planned: refusals or edits, never an exception
    place(text, {"a": "a\n", "x": "x = 1\n"}, atomic=False)


def test_a_call_indented_under_a_list_item_is_read_at_the_margin():
    reply = (
        "1. Create it:\n\n    <function=str_replace_editor>\n    <parameter=command>create"
        "</parameter>\n    <parameter=path>n.py</parameter>\n    <parameter=file_text>\n"
        "    def f():\n        return 1\n    </parameter>\n    </function>\n"
    )
    (block,) = parse_reply(reply).blocks
    assert block.format is Format.OPENHANDS and block.content == "def f():\n    return 1\n"
