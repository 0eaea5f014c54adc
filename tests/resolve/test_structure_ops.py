"""Structure operations: insert, delete, move (within and across files), text replacement
inside a structure, read; checks after an edit."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lsp_server.model import MatchKind, Placement, Target, WarningType
from lsp_server.resolve import structure
from lsp_server.resolve.structure import (
    apply_structure,
    insert_code,
    remove_structure,
    structural_warnings,
)
from lsp_server.resolve.syntax import syntax_errors

from .samples import PY


def op(
    text: str,
    levels: list[str],
    operation: str,
    content: str | None = None,
    path: str = "m.py",
    **options,
):
    return apply_structure(
        text, path, Target(node=tuple(levels), operation=operation, options=options), content
    )


# ----------------------------------------------------------------------------- insert


def test_insert_after_top_level_python_function_uses_two_blank_lines() -> None:
    edit = op(PY, ["a"], "insert_after_structure", "def a2():\n    return 12\n")
    assert edit.text == PY.replace(
        "def a():\n    return 1\n", "def a():\n    return 1\n\n\ndef a2():\n    return 12\n"
    )
    assert edit.result["inserted_at_line"] == 8
    assert edit.result["target_now_at_line"] == 4
    assert edit.placement == Placement(3, 5, MatchKind.STRUCTURAL, new_end_line=9)


def test_insert_before_a_method_uses_one_blank_line_and_method_indent() -> None:
    edit = op(PY, ["C", "m2"], "insert_before_structure", "def m15(self):\n    return 15\n")
    assert edit.text == PY.replace(
        "    def m2(self):", "    def m15(self):\n        return 15\n\n    def m2(self):"
    )
    assert edit.result["inserted_at_line"] == 16
    assert edit.result["target_now_at_line"] == 19


def test_insert_before_goes_above_decorators_and_doc_comments() -> None:
    ts = "class A {\n  x = 1;\n\n  /** Doc. */\n  @Get()\n  f() {}\n}\n"
    edit = op(ts, ["A", "f"], "insert_before_structure", "g() {}\n", path="a.ts")
    assert edit.text == "class A {\n  x = 1;\n\n  g() {}\n\n  /** Doc. */\n  @Get()\n  f() {}\n}\n"


def test_insert_after_a_statement_block_has_no_blank_line() -> None:
    py = "def f(x):\n    if x:\n        a()\n    return x\n"
    edit = op(py, ["f", "if x"], "insert_after_structure", "b()\n", path="a.py")
    assert edit.text == "def f(x):\n    if x:\n        a()\n    b()\n    return x\n"


def test_insert_follows_the_file_own_spacing_between_siblings() -> None:
    js = "function a() {}\n\n\n\nfunction b() {}\n"
    edit = op(js, ["b"], "insert_after_structure", "function c() {}\n", path="a.js")
    assert edit.text == "function a() {}\n\n\n\nfunction b() {}\n\n\n\nfunction c() {}\n"


def test_insert_with_empty_code_is_refused() -> None:
    from lsp_server.model import PlacementError

    with pytest.raises(PlacementError) as err:
        op(PY, ["a"], "insert_after_structure", "\n\n")
    assert err.value.failure.code == "MALFORMED_BLOCK"


# ----------------------------------------------------------------------------- delete


def test_delete_middle_function_keeps_one_gap() -> None:
    edit = op(PY, ["b"], "delete_structure")
    assert edit.text == PY.replace("def b():\n    return 2\n\n\n", "")
    assert edit.result["deleted_line_range_inclusive"] == [8, 9]


def test_delete_last_method_leaves_no_trailing_blank_line() -> None:
    edit = op(PY, ["C", "m2"], "delete_structure")
    assert edit.text == PY.replace(
        "        pass\n\n    def m2(self):\n        pass\n", "        pass\n"
    )


def test_delete_first_method() -> None:
    edit = op(PY, ["C", "m1"], "delete_structure")
    assert edit.text == PY.replace("    def m1(self):\n        pass\n\n", "")


def test_delete_removes_doc_comment_and_decorators_too() -> None:
    py = "x = 1\n\n\n# About f.\n@cache\ndef f():\n    return 1\n\n\ndef g():\n    pass\n"
    edit = op(py, ["f"], "delete_structure", path="a.py")
    assert edit.text == "x = 1\n\n\ndef g():\n    pass\n"


def test_replace_with_empty_code_deletes() -> None:
    assert op(PY, ["b"], "replace_structure", "").text == op(PY, ["b"], "delete_structure").text


def test_delete_a_node_sharing_its_line_cuts_only_its_bytes() -> None:
    js = "const a = 1; function f() { return 2; }\nf();\n"
    edit = op(js, ["f"], "delete_structure", path="a.js")
    assert edit.text == "const a = 1; \nf();\n"


# ----------------------------------------------------------------------------- text inside


def test_replace_text_in_structure_only_touches_that_structure() -> None:
    edit = op(PY, ["C", "m2"], "replace_text_in_structure", old_text="pass", new_text="return 2")
    assert edit.text == PY[: PY.rindex("pass")] + "return 2\n"
    assert edit.result["total_replacements"] == 1
    assert edit.result["affected_lines"] == [17]
    assert edit.result["structure_lines"] == [16, 17]


def test_replace_all_text_in_structure_with_expected_count() -> None:
    edit = op(
        PY, ["C"], "replace_all_text_in_structure", old_text="self", new_text="me", expected_count=2
    )
    assert edit.text == PY.replace("(self)", "(me)")
    assert edit.result["total_replacements"] == 2
    assert edit.result["affected_lines"] == [13, 16]


def test_option_aliases_for_old_and_new_text() -> None:
    edit = op(PY, ["a"], "replace_text_in_structure", oldText="1", newText="11")
    assert "return 11" in edit.text


# ----------------------------------------------------------------------------- moves


def test_move_after_another_structure() -> None:
    edit = op(PY, ["a"], "move_structure_to_after", destination="b")
    assert edit.text == PY.replace(
        "def a():\n    return 1\n\n\ndef b():\n    return 2\n",
        "def b():\n    return 2\n\n\ndef a():\n    return 1\n",
    )
    assert edit.result["source_original_line_range"] == [4, 5]
    assert edit.result["destination_final_line_range"] == [8, 9]


def test_move_method_before_its_sibling() -> None:
    edit = op(PY, ["C", "m2"], "move_structure_to_before", destination=["C", "m1"])
    assert edit.text.endswith(
        "class C:\n    def m2(self):\n        pass\n\n    def m1(self):\n        pass\n"
    )


def test_move_to_file_start_goes_after_imports() -> None:
    edit = op(PY, ["C"], "move_structure_to_file_start")
    assert edit.text.startswith("import os\n\n\nclass C:\n    def m1(self):\n")
    assert edit.text.endswith("def b():\n    return 2\n")
    assert edit.result["destination_final_line_range"] == [4, 9]


def test_move_to_file_start_keeps_docstring_and_imports_first() -> None:
    py = '"""Module doc."""\n\nfrom x import y\n\n\ndef a():\n    pass\n\n\ndef b():\n    pass\n'
    edit = op(py, ["b"], "move_structure_to_file_start")
    assert edit.text == (
        '"""Module doc."""\n\nfrom x import y\n\n\ndef b():\n    pass\n\n\ndef a():\n    pass\n'
    )


def test_move_to_file_end() -> None:
    edit = op(PY, ["a"], "move_structure_to_file_end")
    assert edit.text.endswith("        pass\n\n\ndef a():\n    return 1\n")
    assert edit.text.count("def a()") == 1


def test_move_nested_method_to_top_level_is_dedented() -> None:
    edit = op(PY, ["C", "m1"], "move_structure_to_file_end")
    assert edit.text.endswith("\n\n\ndef m1(self):\n    pass\n")


def test_move_without_destination_is_refused() -> None:
    from lsp_server.model import PlacementError

    with pytest.raises(PlacementError):
        op(PY, ["a"], "move_structure_to_after")


def test_move_destination_reads_the_option_shapes() -> None:
    from lsp_server.resolve.structure import move_destination

    def dest(**options):
        return move_destination(
            Target(node=("a",), operation="move_structure_to_after", options=options)
        )

    assert dest(destination="C > m1") == (None, ["C", "m1"])
    assert dest(destination="C\nm1") == (None, ["C", "m1"])
    assert dest(destination=["C", "m1"], destination_path="b.py") == ("b.py", ["C", "m1"])
    assert dest(destination={"path": "b.py", "node": "z"}) == ("b.py", ["z"])


def test_move_into_another_file_is_left_to_the_plan() -> None:
    from lsp_server.model import PlacementError

    with pytest.raises(PlacementError) as err:
        op(PY, ["a"], "move_structure_to_after", destination={"path": "other.py", "node": "z"})
    assert err.value.failure.details["destination_path"] == "other.py"
    # naming the same file is an ordinary move
    edit = op(PY, ["a"], "move_structure_to_after", destination={"path": "m.py", "node": "b"})
    assert edit.result["destination_final_line_range"] == [8, 9]


def test_cross_file_move_with_remove_and_insert() -> None:
    src = PY
    dest = "package_doc = 1\n\n\ndef z():\n    return 0\n"
    new_src, code, lines = remove_structure(src, "m.py", Target(node=("C", "m1")))
    assert lines == [13, 14]
    assert code == "def m1(self):\n    pass\n"
    new_dest, inserted = insert_code(dest, "n.py", code, "after", ["z"])
    assert new_dest == "package_doc = 1\n\n\ndef z():\n    return 0\n\n\ndef m1(self):\n    pass\n"
    assert inserted == [8, 9]
    assert "m1" not in new_src
    # into a file of another language's indentation style: tabs
    go_dest = "package p\n\nfunc A() {\n\treturn\n}\n"
    go_code = "func B() {\n    if x {\n        return\n    }\n}\n"
    new_go, rng = insert_code(go_dest, "p.go", go_code, "end")
    assert new_go == go_dest + "\nfunc B() {\n\tif x {\n\t\treturn\n\t}\n}\n"
    assert rng == [7, 11]


# ----------------------------------------------------------------------------- read


def test_read_structure_operation_leaves_text_alone() -> None:
    edit = op(PY, ["C"], "read_structure")
    assert edit.text == PY
    assert edit.result["lines"] == [12, 17]


# ----------------------------------------------------------------------------- checks


def test_syntax_broken_warning_names_error_positions() -> None:
    old = "def f():\n    return 1\n"
    new = "def f(:\n    return 1\n"
    warnings = structural_warnings(old, new, "a.py")
    assert [w.type for w in warnings] == [WarningType.SYNTAX_BROKEN]
    assert "1:" in warnings[0].message
    assert syntax_errors(new, "a.py")[0]["line"] == 1


def test_pre_existing_errors_are_reported_as_such() -> None:
    old = "def f(:\n    return 1\n\n\ndef g():\n    pass\n"
    new = "def f(:\n    return 1\n\n\ndef g():\n    return 2\n"
    warnings = structural_warnings(old, new, "a.py")
    assert [w.type for w in warnings] == [WarningType.SYNTAX_BROKEN]
    assert "already had syntax errors" in warnings[0].message


def test_structure_empty_warning() -> None:
    old = "function f() {\n  return 1;\n}\n"
    edit = op(
        old, ["f"], "replace_text_in_structure", path="a.js", old_text="  return 1;\n", new_text=""
    )
    warnings = structural_warnings(old, edit.text, "a.js", edit.placement)
    assert WarningType.STRUCTURE_EMPTY in [w.type for w in warnings]


def test_indentation_inconsistent_warning() -> None:
    old = "def f():\n    return 1\n\n\ndef g():\n    return 2\n"
    new = "def f():\n\treturn 1\n\n\ndef g():\n    return 2\n"
    placement = Placement(0, 2, MatchKind.STRUCTURAL, new_end_line=2)
    warnings = structural_warnings(old, new, "a.py", placement)
    assert [w.type for w in warnings] == [WarningType.INDENTATION_INCONSISTENT]


def test_clean_edit_has_no_warnings() -> None:
    edit = op(PY, ["a"], "replace_structure", "def a():\n    return 11\n")
    assert structural_warnings(PY, edit.text, "m.py", edit.placement) == []


def test_files_without_a_grammar_have_no_checks() -> None:
    assert structural_warnings("x", "y", "notes.xyz") == []
    assert syntax_errors("x", "notes.xyz") == []


# ----------------------------------------------------------------------------- robustness

SOURCES = {
    "a.py": PY,
    "a.ts": "export class A {\n  @d() f(x: number) { if (x) { return 1; } }\n}\n",
    "a.go": "package p\n\ntype T struct{}\n\nfunc (t T) M() {\n\tfor {\n\t}\n}\n",
    "a.md": "# T\n\n- item\n\n## S\n\n```py\nx\n```\n",
    "a.json": '{"a": {"b": [1, 2]}, "c": "é"}\n',
    "a.yaml": "a:\n  b:\n    - 1\n",
}


@settings(max_examples=150, deadline=None)
@given(
    path=st.sampled_from(sorted(SOURCES)),
    cut=st.integers(0, 200),
    junk=st.sampled_from(["", "{", "}", "(", "\n", "é", "\t", "\r\n", ":", '"']),
    levels=st.lists(
        st.one_of(
            st.sampled_from(["A", "f", "M", "T", "C", "m1", "a", "b", "if x", "item", "S", "> x"]),
            st.text(max_size=12),
        ),
        max_size=3,
    ),
    operation=st.sampled_from(structure.OPERATIONS),
    content=st.one_of(st.none(), st.text(max_size=30)),
    data=st.booleans(),
)
def test_any_input_either_places_or_fails_with_a_code(
    path: str, cut: int, junk: str, levels: list[str], operation: str, content, data: bool
) -> None:
    from lsp_server.model import ErrorCode, PlacementError

    text = SOURCES[path]
    cut %= len(text)
    text = text[:cut] + junk + text[cut:]
    target = (
        Target(data_path=".".join(levels), operation=operation)
        if data
        else Target(node=tuple(levels), operation=operation, options={"destination": "b"})
    )
    try:
        edit = apply_structure(text, path, target, content)
    except PlacementError as err:
        assert err.failure.code in ErrorCode
        assert err.failure.details.get("state") == "FILE_UNCHANGED"
        return
    assert isinstance(edit.text, str)
    assert edit.placement.match is MatchKind.STRUCTURAL
