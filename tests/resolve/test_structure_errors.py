"""Every way a structural target fails, and the details each failure carries."""

from __future__ import annotations

import pytest

from lsp_server.model import ErrorCode, PlacementError, Target
from lsp_server.resolve import syntax
from lsp_server.resolve.structure import apply_structure, read_structure

PY = """class UserAuth:
    def validate(self):
        return True

    def validate_user(self, user):
        return user


class Admin:
    def validate(self):
        return False
"""


def fail(path: str, text: str, target: Target, content: str | None = "x = 1\n") -> PlacementError:
    with pytest.raises(PlacementError) as err:
        apply_structure(text, path, target, content)
    assert err.value.failure.details.get("state") == "FILE_UNCHANGED"
    return err.value


def test_not_found_at_top_level_suggests_close_names() -> None:
    err = fail("a.py", PY, Target(node=("UserAuht",)))
    f = err.failure
    assert f.code is ErrorCode.TARGET_NOT_FOUND
    assert f.details["parent_found"] is None
    assert f.details["searched"] == "UserAuht"
    assert f.details["suggestions"][0] == "UserAuth"
    assert "UserAuth" in f.message


def test_not_found_inside_a_parent_says_how_far_it_got() -> None:
    err = fail("a.py", PY, Target(node=("class UserAuth", "validate_usr")))
    f = err.failure
    assert f.code is ErrorCode.TARGET_NOT_FOUND
    assert f.details["target"] == ["class UserAuth", "validate_usr"]
    assert f.details["parent_found"] == {
        "levels": ["class UserAuth"],
        "kind": "class",
        "name": "UserAuth",
        "lines": [1, 6],
    }
    assert f.details["failed_level"] == "validate_usr"
    assert f.details["suggestions"] == ["validate_user", "validate"]
    assert "class UserAuth (lines 1-6)" in f.message


def test_not_found_three_levels_deep_reports_the_second_level() -> None:
    err = fail("a.py", PY, Target(node=("UserAuth", "validate", "if nothing")))
    parent = err.failure.details["parent_found"]
    assert parent["levels"] == ["UserAuth", "validate"]
    assert parent["lines"] == [2, 3]


def test_ambiguous_lists_every_match_with_lines() -> None:
    err = fail("a.py", PY, Target(node=("validate",)))
    f = err.failure
    assert f.code is ErrorCode.TARGET_AMBIGUOUS
    assert f.details["matches"] == [
        {"kind": "method", "name": "validate", "path": "UserAuth > validate", "lines": [2, 3]},
        {"kind": "method", "name": "validate", "path": "Admin > validate", "lines": [10, 11]},
    ]
    assert "lines 2-3" in f.message and "lines 10-11" in f.message


def test_ambiguous_blocks() -> None:
    py = "def f(x):\n    if x:\n        a()\n    if x:\n        b()\n"
    err = fail("a.py", py, Target(node=("f", "if x")))
    assert err.failure.code is ErrorCode.TARGET_AMBIGUOUS
    assert [m["lines"] for m in err.failure.details["matches"]] == [[2, 3], [4, 5]]


def test_read_structure_returns_every_match_instead_of_failing() -> None:
    found = read_structure(PY, "a.py", Target(node=("validate",)))
    assert [m["path"] for m in found] == ["UserAuth > validate", "Admin > validate"]
    assert found[0]["text"] == "    def validate(self):\n        return True\n"


def test_unknown_language_lists_what_is_supported() -> None:
    err = fail("notes.xyz", "anything\n", Target(node=("f",)))
    f = err.failure
    assert f.code is ErrorCode.LANGUAGE_UNSUPPORTED
    assert "python" in f.details["supported"]
    assert "python" in f.details["tabled"]
    assert len(f.details["supported"]) > 150


def test_target_path_in_a_code_file_is_unsupported() -> None:
    err = fail("a.py", PY, Target(data_path="a.b"))
    assert err.failure.code is ErrorCode.LANGUAGE_UNSUPPORTED
    assert err.failure.details["supported"] == ["json", "yaml", "toml"]


def test_target_inside_a_syntax_error_is_parser_failed() -> None:
    py = "def ok():\n    return 1\n\n\ndef broken(:\n    return 2\n"
    err = fail("a.py", py, Target(node=("broken",)))
    assert err.failure.code is ErrorCode.PARSER_FAILED
    assert err.failure.details["syntax_errors"]
    # the rest of the file still works
    new = apply_structure(py, "a.py", Target(node=("ok",)), "def ok():\n    return 3\n").text
    assert new == py.replace("return 1", "return 3")


def test_name_swallowed_by_an_error_region_is_parser_failed_not_not_found() -> None:
    ts = "class A {\n  method() {\n    let x = ;\n  }\n  other( {\n  }\n}\n"
    err = fail("a.ts", ts, Target(node=("other",)))
    assert err.failure.code is ErrorCode.PARSER_FAILED


def test_grammar_that_cannot_load_is_parser_failed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(syntax, "language_for", lambda path, hint=None: "no_such_grammar")
    err = fail("a.weird", "x\n", Target(node=("f",)))
    assert err.failure.code is ErrorCode.PARSER_FAILED
    assert err.failure.details["language"] == "no_such_grammar"


def test_unknown_operation_is_refused() -> None:
    err = fail("a.py", PY, Target(node=("UserAuth",), operation="explode_structure"))
    assert err.failure.code is ErrorCode.MALFORMED_BLOCK
    assert "replace_structure" in err.failure.details["operations"]


def test_empty_target_is_not_found_with_top_level_suggestions() -> None:
    err = fail("a.py", PY, Target(node=()))
    assert err.failure.code is ErrorCode.TARGET_NOT_FOUND
    assert err.failure.details["suggestions"] == ["UserAuth", "Admin"]


def test_replace_text_not_found_and_ambiguous_carry_structure_lines() -> None:
    target = Target(
        node=("UserAuth",),
        operation="replace_text_in_structure",
        options={"old_text": "return False", "new_text": "return None"},
    )
    err = fail("a.py", PY, target, None)
    assert err.failure.code is ErrorCode.TEXT_NOT_FOUND
    assert err.failure.details["structure_lines"] == [1, 6]
    target = Target(
        node=("UserAuth",),
        operation="replace_text_in_structure",
        options={"old_text": "self", "new_text": "me"},
    )
    err = fail("a.py", PY, target, None)
    assert err.failure.code is ErrorCode.TEXT_AMBIGUOUS
    assert err.failure.details["matches"] == [2, 5]
    assert err.failure.details["structure_lines"] == [1, 6]


def test_replace_all_count_mismatch() -> None:
    target = Target(
        node=("UserAuth",),
        operation="replace_all_text_in_structure",
        options={"old_text": "self", "new_text": "me", "expected_count": 3},
    )
    err = fail("a.py", PY, target, None)
    assert err.failure.code is ErrorCode.COUNT_MISMATCH
    assert err.failure.details["found"] == 2
    assert err.failure.details["expected_count"] == 3


def test_data_path_not_found_and_parse_errors() -> None:
    js = '{\n  "scripts": {\n    "build": "tsc"\n  }\n}\n'
    err = fail("p.json", js, Target(data_path="scrpts.build"), '"x"')
    assert err.failure.code is ErrorCode.TARGET_NOT_FOUND
    assert err.failure.details["suggestions"] == ["scripts"]
    assert err.failure.details["parent_found"] is None
    err = fail("p.json", js, Target(data_path="scripts.build.deeper"), '"x"')
    assert err.failure.details["parent_found"]["path"] == "scripts.build"
    broken = '{\n  "scripts": {\n    "build": tsc\n  }\n}\n'
    err = fail("p.json", broken, Target(data_path="scripts.build"), '"x"')
    assert err.failure.code is ErrorCode.PARSER_FAILED
    assert err.failure.details["syntax_errors"][0] == [3, 3]
    # an error elsewhere does not block a value the parser read cleanly
    elsewhere = '{\n  "a": 1,\n  "scripts": {\n    "build": "tsc",,\n  }\n}\n'
    new = apply_structure(elsewhere, "p.json", Target(data_path="a"), "2").text
    assert new == elsewhere.replace('"a": 1', '"a": 2')


def test_malformed_data_path() -> None:
    err = fail("p.json", "{}\n", Target(data_path='a."unterminated'), '"x"')
    assert err.failure.code is ErrorCode.MALFORMED_BLOCK


def test_failures_never_fall_back_to_text() -> None:
    """A target absent from the tree fails even when its text is in the file."""
    text = "# def helper(): is gone\nHELP = 'def helper():'\n"
    err = fail("a.py", text, Target(node=("def helper():",)), "def helper():\n    pass\n")
    assert err.failure.code is ErrorCode.TARGET_NOT_FOUND
