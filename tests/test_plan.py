"""Plan: reply order, atomicity, file actions, byte preservation, warnings."""

from __future__ import annotations

from pathlib import Path

import pytest

from lsp_server.model import (
    Action,
    EditBlock,
    ErrorCode,
    FileAction,
    Format,
    Hunk,
    MatchKind,
    OnExists,
    ParsedReply,
    Status,
    WarningType,
)
from lsp_server.plan import PlanOptions, plan_reply
from lsp_server.workspace import DiskWorkspace


def sr(path: str, old: str, new: str, i: int = 0, **kw) -> EditBlock:
    return EditBlock(
        Format.SEARCH_REPLACE,
        path,
        (i * 10 + 1, i * 10 + 5),
        hunks=(Hunk(old, new),),
        index=i,
        **kw,
    )


def reply(*blocks: EditBlock) -> ParsedReply:
    return ParsedReply(tuple(blocks))


@pytest.fixture
def ws(tmp_path: Path) -> DiskWorkspace:
    (tmp_path / "a.py").write_text("x = 1\ny = 2\n")
    (tmp_path / "crlf.txt").write_bytes(b"one\r\ntwo\r\nthree")
    (tmp_path / "bom.py").write_bytes(b"\xef\xbb\xbfa = 1\n")
    return DiskWorkspace(tmp_path)


def test_blocks_apply_in_reply_order(ws):
    plan = plan_reply(
        reply(sr("a.py", "x = 1\n", "x = 10\n", 0), sr("a.py", "x = 10\n", "x = 11\n", 1)), ws
    )
    assert plan.ok
    (change,) = plan.files
    assert change.new_text == "x = 11\ny = 2\n"
    assert change.blocks == (0, 1)


def test_atomic_refusal_changes_nothing_and_skips_placed(ws):
    plan = plan_reply(
        reply(sr("a.py", "x = 1\n", "x = 2\n", 0), sr("a.py", "nope\n", "z\n", 1)), ws
    )
    assert not plan.ok and plan.files == ()
    assert [o.status for o in plan.outcomes] == [Status.SKIPPED, Status.FAILED]
    err = plan.outcomes[1].failure
    assert err.code is ErrorCode.TEXT_NOT_FOUND
    assert err.message.startswith("block 1 (reply lines 11-15), a.py:")


def test_partial_keeps_placed_blocks(ws):
    plan = plan_reply(
        reply(sr("a.py", "x = 1\n", "x = 2\n", 0), sr("a.py", "nope\n", "z\n", 1)),
        ws,
        PlanOptions(atomic=False),
    )
    assert [o.status for o in plan.outcomes] == [Status.VALIDATED, Status.FAILED]
    assert plan.files[0].new_text == "x = 2\ny = 2\n"


def test_crlf_and_missing_final_newline_preserved(ws):
    plan = plan_reply(reply(sr("crlf.txt", "two\nthree", "2\n3")), ws)
    assert plan.files[0].new_text == "one\r\n2\r\n3"


def test_bom_kept(ws):
    plan = plan_reply(reply(sr("bom.py", "a = 1\n", "a = 2\n")), ws)
    assert plan.files[0].bom and plan.files[0].new_text == "a = 2\n"


def test_create_then_edit_and_file_exists(ws):
    create = EditBlock(
        Format.SEARCH_REPLACE, "new/b.py", (1, 3), Action.CREATE, content="b = 1\n", index=0
    )
    plan = plan_reply(reply(create, sr("new/b.py", "b = 1\n", "b = 2\n", 1)), ws)
    assert plan.ok and plan.files[0].action is FileAction.CREATE
    assert plan.files[0].new_text == "b = 2\n"
    exists = EditBlock(Format.SEARCH_REPLACE, "a.py", (1, 3), Action.CREATE, content="zzz\n")
    plan = plan_reply(reply(exists), ws)
    assert plan.outcomes[0].failure.code is ErrorCode.FILE_EXISTS
    overwrite = EditBlock(
        Format.APPLY_PATCH,
        "a.py",
        (1, 3),
        Action.CREATE,
        content="zzz\n",
        on_exists=OnExists.OVERWRITE,
    )
    assert plan_reply(reply(overwrite), ws).files[0].new_text == "zzz\n"


def test_modify_missing_file_and_delete_dir(ws, tmp_path):
    (tmp_path / "d").mkdir()
    plan = plan_reply(reply(sr("missing.py", "a\n", "b\n")), ws)
    assert plan.outcomes[0].failure.code is ErrorCode.FILE_NOT_FOUND
    delete = EditBlock(Format.APPLY_PATCH, "d", (1, 1), Action.DELETE)
    assert plan_reply(reply(delete), ws).outcomes[0].failure.code is ErrorCode.FILE_NOT_FOUND


def test_move_with_edit(ws):
    block = EditBlock(
        Format.APPLY_PATCH,
        "a.py",
        (1, 5),
        Action.MODIFY,
        hunks=(Hunk("y = 2\n", "y = 3\n"),),
        move_to="pkg/a2.py",
    )
    plan = plan_reply(reply(block), ws)
    (change,) = plan.files
    assert change.action is FileAction.RENAME and change.new_path == "pkg/a2.py"
    assert change.new_text == "x = 1\ny = 3\n"


def test_outside_workspace_refused(ws):
    for path in ("../evil.py", "/etc/passwd", "~/x", "C:\\x", "a\x00b"):
        plan = plan_reply(reply(sr(path, "a\n", "b\n")), ws)
        assert plan.outcomes[0].failure.code is ErrorCode.OUTSIDE_WORKSPACE, path


def test_symlink_out_refused(ws, tmp_path):
    outside = tmp_path.parent / (tmp_path.name + "-outside")
    outside.mkdir()
    (outside / "t.py").write_text("a\n")
    (tmp_path / "link").symlink_to(outside)
    plan = plan_reply(reply(sr("link/t.py", "a\n", "b\n")), ws)
    assert plan.outcomes[0].failure.code is ErrorCode.OUTSIDE_WORKSPACE


def test_binary_refused(ws, tmp_path):
    (tmp_path / "bin.dat").write_bytes(b"ab\x00cd")
    plan = plan_reply(reply(sr("bin.dat", "ab\n", "x\n")), ws)
    assert plan.outcomes[0].failure.code is ErrorCode.BINARY_FILE


def test_too_large_block(ws):
    plan = plan_reply(reply(sr("a.py", "x = 1\n", "y" * 1_000_001)), ws)
    assert plan.outcomes[0].failure.code is ErrorCode.CONTENT_TOO_LARGE


def test_autogenerated_and_fuzzy_warnings(ws, tmp_path):
    (tmp_path / "gen.py").write_text("# Code generated by protoc. DO NOT EDIT.\nv = 1\n")
    plan = plan_reply(reply(sr("gen.py", "v = 1\n", "v = 2\n")), ws)
    assert [w.type for w in plan.warnings] == [WarningType.AUTOGENERATED]
    body = "".join(f"value_{i} = compute({i}, 'abc')\n" for i in range(12))
    (tmp_path / "f.py").write_text(body)
    old = body.replace("compute(5, 'abc')", "compute(5, 'abd')")
    plan = plan_reply(reply(sr("f.py", old, "done = True\n")), ws)
    assert plan.ok and plan.outcomes[0].match is MatchKind.FUZZY
    assert any(w.type is WarningType.FUZZY_MATCH for w in plan.warnings)


def test_open_document_overlay_wins(tmp_path):
    (tmp_path / "a.py").write_text("disk\n")
    ws = DiskWorkspace(tmp_path, overlay=lambda rel: ("buffer\n", 7) if rel == "a.py" else None)
    plan = plan_reply(reply(sr("a.py", "buffer\n", "edited\n")), ws)
    assert plan.files[0].version == 7 and plan.files[0].new_text == "edited\n"


def test_syntax_broken_warning_only_when_errors_are_new(ws):
    plan = plan_reply(reply(sr("a.py", "y = 2\n", "y = (2\n")), ws)
    assert plan.ok and [w.type for w in plan.warnings] == [WarningType.SYNTAX_BROKEN]
    plan = plan_reply(reply(sr("a.py", "y = 2\n", "y = 3\n")), ws)
    assert plan.warnings == ()


def test_syntax_errors_already_there_are_not_blamed_on_the_edit(tmp_path):
    """The pre-edit text is parsed too: a file that was already broken, edited elsewhere,
    gets no SYNTAX_BROKEN; one more error on top of those does."""
    (tmp_path / "b.py").write_text("def f(:\n    pass\n\nx = 1\n")
    ws = DiskWorkspace(tmp_path)
    plan = plan_reply(reply(sr("b.py", "x = 1\n", "x = 2\n")), ws)
    assert plan.ok and plan.warnings == ()
    plan = plan_reply(reply(sr("b.py", "x = 1\n", "x = (2\n")), ws)
    assert [w.type for w in plan.warnings] == [WarningType.SYNTAX_BROKEN]


def test_structural_block_reports_result_and_read_structure(ws, tmp_path):
    from lsp_server.model import Target

    (tmp_path / "m.py").write_text("class A:\n    def f(self):\n        return 1\n")
    block = EditBlock(
        Format.STRUCTURAL,
        "m.py",
        (1, 5),
        Action.STRUCTURAL,
        target=Target(node=("class A", "f")),
        content="def f(self):\n    return 2\n",
    )
    plan = plan_reply(reply(block), ws)
    assert plan.ok and plan.outcomes[0].match is MatchKind.STRUCTURAL
    assert plan.files[0].new_text == "class A:\n    def f(self):\n        return 2\n"
    read = EditBlock(
        Format.STRUCTURE_OP,
        "m.py",
        (1, 1),
        Action.STRUCTURAL,
        target=Target(node=("f",), operation="read_structure"),
    )
    plan = plan_reply(reply(read), ws)
    assert plan.files == () and plan.outcomes[0].result["matches"]


def test_lazy_whole_file_rules(ws, tmp_path):
    def lazy(path, text):
        return EditBlock(Format.WHOLE_FILE, path, (1, 9), Action.LAZY, content=text)

    plan = plan_reply(reply(lazy("new.py", "a = 1\n# ... existing code ...\n")), ws)
    assert plan.outcomes[0].failure.code is ErrorCode.FILE_NOT_FOUND
    (tmp_path / "u.py").write_text(
        "import os\n\n\ndef one():\n    return 1\n\n\ndef two():\n    return 2\n"
    )
    # a block that is only part of the file is a snippet: nothing else of the file goes
    plan = plan_reply(reply(lazy("u.py", "def helper():\n    return 42\n")), ws)
    assert plan.ok and plan.outcomes[0].match is MatchKind.SNIPPET
    assert plan.files[0].new_text.endswith("return 2\n\n\ndef helper():\n    return 42\n")
    plan = plan_reply(reply(lazy("u.py", "def two():\n    return 3\n")), ws)
    assert plan.ok and plan.outcomes[0].match is MatchKind.SNIPPET
    assert plan.files[0].new_text.endswith("def two():\n    return 3\n")
    assert plan.files[0].new_text.startswith("import os\n")


def test_structure_moves_across_files_in_one_plan(ws, tmp_path):
    from lsp_server.model import Target

    (tmp_path / "src.py").write_text("def keep():\n    return 1\n\n\ndef mover():\n    return 2\n")
    (tmp_path / "dst.py").write_text("def first():\n    return 0\n")
    block = EditBlock(
        Format.STRUCTURE_OP,
        "src.py",
        (1, 1),
        Action.STRUCTURAL,
        target=Target(
            node=("mover",),
            operation="move_structure_to_file_end",
            options={"destination_path": "dst.py"},
        ),
    )
    plan = plan_reply(reply(block), ws)
    assert plan.ok, plan.outcomes[0].failure
    files = {c.path: c.new_text for c in plan.files}
    assert "mover" not in files["src.py"] and "def keep" in files["src.py"]
    assert files["dst.py"].startswith("def first():\n    return 0\n")
    assert files["dst.py"].rstrip().endswith("def mover():\n    return 2")
    assert plan.outcomes[0].result["source_original_line_range"] == [5, 6]
