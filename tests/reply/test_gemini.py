"""Gemini CLI's edit tools as JSON (`replace` with `expected_replacements`, `write_file`)."""

from __future__ import annotations

import json

from lsp_server.model import ErrorCode, Format
from lsp_server.reply import parse_reply
from tests.reply.agent_replies import fenced, place

CONFIG = """DEBUG = False
TIMEOUT = 30
RETRIES = 3

def connect(host):
    return open_socket(host, TIMEOUT)

def retry(host):
    for _ in range(RETRIES):
        connect(host)
"""


def replace(path: str, old: str, new: str, **extra: object) -> dict:
    return {"file_path": path, "old_string": old, "new_string": new, **extra}


def function_call(name: str, args: dict) -> dict:
    """A call as Gemini's API writes it: a part of a candidate's content."""
    return {"functionCall": {"name": name, "args": args}}


def test_expected_replacements_replaces_that_many(tmp_path):
    reply = (
        "Rename the constant; it appears three times.\n\n"
        + fenced(
            function_call(
                "replace", replace("config.py", "TIMEOUT", "TIMEOUT_S", expected_replacements=2)
            )
        )
        + "\n"
    )
    placed = place(tmp_path, {"config.py": CONFIG}, reply)
    assert placed.formats == [Format.GEMINI]
    assert placed.plan.ok
    assert placed.texts["config.py"] == CONFIG.replace("TIMEOUT", "TIMEOUT_S")
    assert len(placed.plan.outcomes[0].placements) == 2


def test_a_different_count_is_count_mismatch_naming_the_count_found(tmp_path):
    reply = fenced(replace("config.py", "host", "address", expected_replacements=3))
    failure = place(tmp_path, {"config.py": CONFIG}, reply).failure()
    assert failure.code is ErrorCode.COUNT_MISMATCH
    assert failure.details["expected_count"] == 3
    assert failure.details["found"] == CONFIG.count("host") == 4
    assert failure.details["lines"] == [5, 6, 8, 10]
    assert "found 4" in failure.message


def test_expected_one_with_two_occurrences_is_count_mismatch(tmp_path):
    reply = fenced(replace("config.py", "connect", "dial", expected_replacements=1))
    failure = place(tmp_path, {"config.py": CONFIG}, reply).failure()
    assert failure.code is ErrorCode.COUNT_MISMATCH and failure.details["found"] == 2


def test_without_a_count_two_occurrences_are_ambiguous(tmp_path):
    failure = place(
        tmp_path, {"config.py": CONFIG}, fenced(replace("config.py", "connect", "dial"))
    ).failure()
    assert failure.code is ErrorCode.TEXT_AMBIGUOUS


def test_several_expected_but_none_there_is_not_found_with_the_closest(tmp_path):
    reply = fenced(replace("config.py", "def conect(host):", "x", expected_replacements=2))
    failure = place(tmp_path, {"config.py": CONFIG}, reply).failure()
    assert failure.code is ErrorCode.TEXT_NOT_FOUND
    assert failure.details["expected_count"] == 2
    assert failure.details["closest"]["line"] == 5


def test_expected_one_places_a_loose_match_like_any_block(tmp_path):
    # the one place asked for, indented differently in the reply: the ladder finds it
    reply = fenced(
        replace(
            "config.py",
            "def retry(host):\n  for _ in range(RETRIES):\n    connect(host)",
            "def retry(host):\n  for _ in range(RETRIES + 1):\n    connect(host)",
            expected_replacements=1,
        )
    )
    placed = place(tmp_path, {"config.py": CONFIG}, reply)
    assert placed.plan.ok
    assert "    for _ in range(RETRIES + 1):\n        connect(host)\n" in placed.texts["config.py"]


def test_already_applied_is_reported_as_such(tmp_path):
    done = CONFIG.replace("RETRIES", "ATTEMPTS")
    reply = fenced(replace("config.py", "RETRIES", "ATTEMPTS", expected_replacements=2))
    placed = place(tmp_path, {"config.py": done}, reply)
    assert placed.plan.ok and placed.plan.outcomes[0].already_applied
    assert placed.plan.files == ()


def test_write_file_in_a_model_response_with_a_unified_diff(tmp_path):
    response = {
        "candidates": [
            {
                "content": {
                    "role": "model",
                    "parts": [
                        {"text": "Creating the settings and fixing the retry loop."},
                        function_call(
                            "write_file",
                            {"file_path": "settings.toml", "content": "[net]\ntimeout = 30\n"},
                        ),
                        function_call(
                            "replace",
                            replace(
                                "config.py",
                                "DEBUG = False",
                                "DEBUG = True",
                                expected_replacements=1,
                            ),
                        ),
                    ],
                }
            }
        ]
    }
    diff = (
        "```diff\n--- a/config.py\n+++ b/config.py\n@@ -2,2 +2,2 @@\n TIMEOUT = 30\n"
        "-RETRIES = 3\n+RETRIES = 5\n```\n"
    )
    reply = "Response:\n\n" + fenced(response) + "\n\nand by hand:\n\n" + diff
    placed = place(tmp_path, {"config.py": CONFIG}, reply)
    assert placed.formats == [Format.CLAUDE_CODE, Format.GEMINI, Format.UNIFIED_DIFF]
    assert placed.plan.ok, [o.failure for o in placed.plan.outcomes]
    assert placed.texts["settings.toml"] == "[net]\ntimeout = 30\n"
    assert placed.texts["config.py"] == CONFIG.replace("DEBUG = False", "DEBUG = True").replace(
        "RETRIES = 3", "RETRIES = 5"
    )


def test_unusable_counts_are_malformed():
    for count in (0, -1, "two", True, 1.5):
        (block,) = parse_reply(
            fenced(replace("config.py", "DEBUG", "X", expected_replacements=count))
        ).blocks
        assert block.format is Format.GEMINI
        assert block.error is not None and block.error.code is ErrorCode.MALFORMED_BLOCK, count
        assert block.error.details["field"] == "expected_replacements"
    (block,) = parse_reply(
        fenced(replace("config.py", "DEBUG", "X", expected_replacements=2.0))
    ).blocks
    assert block.error is None and block.hunks[0].expected == 2
    (block,) = parse_reply(
        fenced(replace("config.py", "DEBUG", "X", expected_replacements="3"))
    ).blocks
    assert block.error is None and block.hunks[0].expected == 3


def test_broken_json_is_malformed_under_gemini(tmp_path):
    call = json.dumps(replace("config.py", "DEBUG", "X", expected_replacements=2))
    reply = "```json\n" + call[:-3] + "\n```\n"
    (block,) = parse_reply(reply).blocks
    assert block.format is Format.GEMINI and block.error.code is ErrorCode.MALFORMED_BLOCK
    assert block.error.details["incomplete"] is True
