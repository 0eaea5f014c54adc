"""Claude Code's edit tools as JSON (`Edit`, `MultiEdit`, `Write`), placed end to end."""

from __future__ import annotations

import json

from lsp_server.model import Action, ErrorCode, Format, MatchKind, Status
from lsp_server.reply import parse_reply
from tests.reply.agent_replies import fenced, place

APP = """import os


def load(path):
    data = open(path).read()
    return data


def save(path, data):
    open(path, "w").write(data)
    return len(data)
"""


def edit(path: str, old: str, new: str, **extra: object) -> dict:
    return {"file_path": path, "old_string": old, "new_string": new, **extra}


def tool_use(name: str, args: dict, n: int = 1) -> dict:
    return {"type": "tool_use", "id": f"toolu_0{n}", "name": name, "input": args}


def test_edit_in_prose_replaces_part_of_a_line(tmp_path):
    reply = (
        "The file handle is never closed. I'll use a context manager:\n\n"
        + fenced(
            edit(
                "app.py",
                "data = open(path).read()",
                "with open(path) as f:\n        data = f.read()",
            )
        )
        + "\n\nThat closes it even when read() raises.\n"
    )
    placed = place(tmp_path, {"app.py": APP}, reply)
    assert placed.formats == [Format.CLAUDE_CODE]
    assert placed.plan.ok
    assert placed.texts["app.py"] == APP.replace(
        "data = open(path).read()", "with open(path) as f:\n        data = f.read()"
    )


def test_a_transcript_message_with_several_calls_and_a_search_replace_block(tmp_path):
    message = {
        "role": "assistant",
        "content": [
            {"type": "text", "text": "Reading and writing, then a test."},
            tool_use("Read", {"file_path": "app.py"}, 1),
            tool_use("Edit", edit("app.py", "    return len(data)\n", "    return None\n"), 2),
            tool_use(
                "Write", {"file_path": "tests/test_app.py", "content": "def test():\n    pass\n"}, 3
            ),
            tool_use(
                "MultiEdit",
                {
                    "file_path": "app.py",
                    "edits": [
                        {"old_string": "import os", "new_string": "import os\nimport sys"},
                        {"old_string": "def load(path):", "new_string": "def load(path: str):"},
                    ],
                },
                4,
            ),
        ],
    }
    reply = (
        "Here is what I ran:\n\n"
        + fenced(message)
        + "\n\nAnd the notes file:\n\nnotes.txt\n```\n"
        + "<<<<<<< SEARCH\nold\n=======\nnew\n>>>>>>> REPLACE\n```\n"
    )
    placed = place(tmp_path, {"app.py": APP, "notes.txt": "old\n"}, reply)
    assert placed.formats == [Format.CLAUDE_CODE] * 3 + [Format.SEARCH_REPLACE]
    assert placed.plan.ok, [o.failure for o in placed.plan.outcomes]
    texts = placed.texts
    assert texts["app.py"] == (
        APP.replace("    return len(data)\n", "    return None\n")
        .replace("import os", "import os\nimport sys")
        .replace("def load(path):", "def load(path: str):")
    )
    assert texts["tests/test_app.py"] == "def test():\n    pass\n"
    assert texts["notes.txt"] == "new\n"


def test_two_occurrences_without_replace_all_are_ambiguous(tmp_path):
    placed = place(tmp_path, {"app.py": APP}, fenced(edit("app.py", "open(path", "io.open(path")))
    failure = placed.failure()
    assert failure.code is ErrorCode.TEXT_AMBIGUOUS
    assert failure.details["lines"] == [5, 10]
    assert placed.plan.files == ()


def test_replace_all_replaces_every_occurrence_and_reports_each(tmp_path):
    reply = "Rename the variable everywhere:\n" + fenced(
        edit("app.py", "data", "payload", replace_all=True)
    )
    placed = place(tmp_path, {"app.py": APP}, reply)
    assert placed.plan.ok
    assert placed.texts["app.py"] == APP.replace("data", "payload")
    outcome = placed.plan.outcomes[0]
    assert outcome.match is MatchKind.EXACT
    assert len(outcome.placements) == APP.count("data")
    assert sorted({p.start_line + 1 for p in outcome.placements}) == [5, 6, 9, 10, 11]


def test_replace_all_of_text_that_is_not_there_names_the_closest(tmp_path):
    reply = fenced(
        edit("app.py", "def load(path):\n    data = open(path).reed()", "x", replace_all=True)
    )
    failure = place(tmp_path, {"app.py": APP}, reply).failure()
    assert failure.code is ErrorCode.TEXT_NOT_FOUND
    assert failure.details["closest"]["line"] == 4


def test_edit_not_found(tmp_path):
    failure = place(
        tmp_path, {"app.py": APP}, fenced(edit("app.py", "def remove(path):", "def rm(path):"))
    ).failure()
    assert failure.code is ErrorCode.TEXT_NOT_FOUND


def test_multi_edit_applies_each_edit_to_what_the_previous_left(tmp_path):
    reply = fenced(
        tool_use(
            "MultiEdit",
            {
                "file_path": "app.py",
                "edits": [
                    {"old_string": "def save(", "new_string": "def store("},
                    # only there once the first edit is made
                    {
                        "old_string": "def store(path, data):",
                        "new_string": "def store(path, data, mode):",
                    },
                    {"old_string": '"w"', "new_string": "mode"},
                ],
            },
        )
    )
    placed = place(tmp_path, {"app.py": APP}, reply)
    assert placed.plan.ok
    assert placed.texts["app.py"] == APP.replace(
        'def save(path, data):\n    open(path, "w")',
        "def store(path, data, mode):\n    open(path, mode)",
    )


def test_multi_edit_with_a_failing_edit_changes_nothing_and_names_it(tmp_path):
    reply = fenced(
        {
            "file_path": "app.py",
            "edits": [
                {"old_string": "import os", "new_string": "import sys"},
                {"old_string": "return data", "new_string": "return data", "replace_all": True},
                {"old_string": "no such line", "new_string": "x"},
            ],
        }
    )
    placed = place(tmp_path, {"app.py": APP}, reply)
    failure = placed.failure()
    assert failure.code is ErrorCode.TEXT_NOT_FOUND
    assert failure.details["hunk"] == 2
    assert placed.plan.files == ()


def test_write_creates_and_overwrites(tmp_path):
    reply = (
        fenced(tool_use("Write", {"file_path": "app.py", "content": "print('hi')\n"}))
        + "\n\n"
        + fenced(tool_use("Write", {"file_path": "pkg/new.py", "content": "X = 1"}, 2))
    )
    placed = place(tmp_path, {"app.py": APP}, reply)
    assert placed.plan.ok
    assert placed.texts == {"app.py": "print('hi')\n", "pkg/new.py": "X = 1"}
    (b0, b1) = parse_reply(reply).blocks
    assert b0.action is Action.OVERWRITE and b1.action is Action.OVERWRITE


def test_empty_old_string_creates_a_file_and_refuses_an_existing_one(tmp_path):
    create = fenced(edit("new.py", "", "X = 1\n"))
    placed = place(tmp_path, {"app.py": APP}, create)
    assert placed.plan.ok and placed.texts == {"new.py": "X = 1\n"}
    failure = place(tmp_path, {}, fenced(edit("app.py", "", "X = 1\n"))).failure()
    assert failure.code is ErrorCode.FILE_EXISTS


def test_strings_with_raw_line_breaks_are_read(tmp_path):
    # models often write the JSON of a multi-line string with its line breaks as they are
    reply = (
        "```json\n"
        '{"file_path": "app.py",\n'
        ' "old_string": "def save(path, data):\n    open(path, \\"w\\").write(data)",\n'
        ' "new_string": "def save(path, data):\n'
        '    with open(path, \\"w\\") as f:\n        f.write(data)"}\n'
        "```\n"
    )
    placed = place(tmp_path, {"app.py": APP}, reply)
    assert placed.plan.ok
    assert (
        '    with open(path, "w") as f:\n        f.write(data)\n    return len'
        in placed.texts["app.py"]
    )


def test_bare_call_in_prose(tmp_path):
    call = json.dumps(edit("app.py", "import os", "import os.path"))
    reply = f"Calling the tool:\n{call}\nDone.\n"
    placed = place(tmp_path, {"app.py": APP}, reply)
    assert placed.plan.ok and placed.texts["app.py"].startswith("import os.path\n")


def test_broken_json_meant_as_an_edit_is_malformed_with_its_position(tmp_path):
    call = '{"file_path": "app.py", "old_string": "import os", "new_string": "x",,}'
    reply = f"Edit:\n```json\n{call}\n```\n"
    parsed = parse_reply(reply)
    (block,) = parsed.blocks
    assert block.format is Format.CLAUDE_CODE and block.path == "app.py"
    assert block.error.code is ErrorCode.MALFORMED_BLOCK
    assert block.error.details["line"] == 3 and block.error.details["column"] > 60
    placed = place(tmp_path, {"app.py": APP}, reply)
    assert placed.plan.outcomes[0].status is Status.FAILED


def test_unusable_arguments_are_malformed(tmp_path):
    cases = [
        edit("app.py", "import os", "x", replace_all="yes"),
        {"file_path": "app.py", "old_string": "import os"},
        {"file_path": "app.py", "edits": [{"old_string": "", "new_string": "x"}]},
        {"file_path": "app.py", "edits": [{"old_string": "import os", "new_string": "x"}, "y"]},
    ]
    for args in cases:
        (block,) = parse_reply(fenced(args)).blocks
        assert block.format is Format.CLAUDE_CODE, args
        assert block.error is not None and block.error.code is ErrorCode.MALFORMED_BLOCK, args
        assert block.path == "app.py"
    # `edits` of another tool's kind (ranges, line numbers) is not a MultiEdit
    for edits in ([], [{"range": [1, 2], "text": "x"}], ["import os"]):
        assert parse_reply(fenced({"file_path": "app.py", "edits": edits})).blocks == ()


def test_a_json_file_introduced_by_its_path_is_that_file_not_calls(tmp_path):
    fixture = [{"file_path": "a.txt", "content": "hello"}]
    reply = "fixtures/files.json\n" + fenced(fixture) + "\n"
    placed = place(tmp_path, {"fixtures/files.json": "[]\n"}, reply)
    assert placed.formats == [Format.WHOLE_FILE]
    assert json.loads(placed.texts["fixtures/files.json"]) == fixture
    # a call that edits that very file is still a call
    call = edit("fixtures/files.json", "[]", '["x"]')
    assert [b.format for b in parse_reply("fixtures/files.json\n" + fenced(call)).blocks] == [
        Format.CLAUDE_CODE
    ]


def test_the_same_shape_in_camel_case(tmp_path):
    reply = fenced(
        [
            {"filePath": "app.py", "oldString": "data", "newString": "body", "replaceAll": True},
            {"filePath": "app.py", "edits": [{"oldString": "import os", "newString": "import io"}]},
        ]
    )
    placed = place(tmp_path, {"app.py": APP}, reply)
    assert placed.plan.ok
    assert placed.texts["app.py"] == APP.replace("data", "body").replace("import os", "import io")


def test_values_written_as_strings():
    edits = json.dumps(
        [{"old_string": "import os", "new_string": "import io", "replace_all": "true"}]
    )
    blocks = parse_reply(
        fenced(
            [{"file_path": "app.py", "edits": edits}, edit("app.py", "a", "b", replace_all="False")]
        )
    ).blocks
    assert [b.error for b in blocks] == [None, None]
    assert [(h.old, h.every) for b in blocks for h in b.hunks] == [
        ("import os", True),
        ("a", False),
    ]


def test_a_write_that_leaves_code_out_is_merged_around_its_placeholder(tmp_path):
    content = (
        "import os\nimport sys\n\n\n# ... existing code ...\n\n\n"
        'def save(path, data):\n    open(path, "w").write(data)\n    return len(data) + 1\n'
    )
    placed = place(tmp_path, {"app.py": APP}, fenced({"file_path": "app.py", "content": content}))
    assert placed.plan.ok
    text = placed.texts["app.py"]
    assert "existing code" not in text
    assert text == APP.replace("import os\n", "import os\nimport sys\n").replace(
        "return len(data)", "return len(data) + 1"
    )
    # a stub's `...` body is code: written as it stands
    (block,) = parse_reply(fenced({"file_path": "s.py", "content": "def f():\n    ...\n"})).blocks
    assert block.action is Action.OVERWRITE
