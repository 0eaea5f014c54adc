"""Several blocks over the same paths: the plan gives each path its NET change.

A reply may move a file and move it back, swap two files through a third name, move a file
and then delete it, or chain moves; each block applies to what the blocks before it left.
Whatever the sequence, the writer (on disk) and the WorkspaceEdit (in an editor) must end
with exactly what applying the blocks one by one gives: no rename whose destination is
another change's source, nothing written and then removed.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st
from lsprotocol import types

from lsp_server.edits import EditCapabilities, build_workspace_edit
from lsp_server.model import FileAction, Plan, WarningType
from lsp_server.plan import plan_reply
from lsp_server.reply import parse_reply
from lsp_server.workspace import DiskWorkspace
from lsp_server.writer import write_plan

from .plan_support import apply_on_disk, apply_workspace_edit, put, tree, uri_for

FULL = EditCapabilities()


def v4a(*lines: str) -> str:
    return "*** Begin Patch\n" + "".join(x + "\n" for x in lines) + "*** End Patch\n"


def through_editor(plan: Plan, files: dict[str, str]) -> dict[str, str]:
    built = build_workspace_edit(plan, FULL, uri_for)
    assert not built.unsupported
    return apply_workspace_edit(files, built.edit)


def _texts(root: Path) -> dict[str, str]:
    return {k: v.decode() for k, v in tree(root).items()}


def _check_both(tmp_path: Path, files: dict[str, str], reply: str, expected: dict[str, str]):
    put(tmp_path, files)
    ws = DiskWorkspace(tmp_path)
    plan = plan_reply(parse_reply(reply), ws)
    assert plan.ok, [o.failure for o in plan.outcomes]
    assert through_editor(plan, files) == expected
    write_plan(plan, ws)
    assert _texts(tmp_path) == expected
    return plan


# --- the examples ---------------------------------------------------------------------


def test_rename_there_and_back_in_a_diff_keeps_the_file(tmp_path):
    """a→b over an existing b, then (a second diff) b→a: a holds its text again and b (whose
    content the first rename replaced) is gone — not `a` deleted and `b` emptied. (In one
    git patch the two renames are a swap: tests/hostile/test_git_patch_at_once.py.)"""
    reply = (
        "diff --git a/a.py b/b.py\nrename from a.py\nrename to b.py\n\nThen:\n\n"
        "diff --git a/b.py b/a.py\nrename from b.py\nrename to a.py\n"
    )
    plan = _check_both(tmp_path, {"a.py": "A = 1\n", "b.py": "B = 1\n"}, reply, {"a.py": "A = 1\n"})
    (change,) = plan.files
    assert change.action is FileAction.DELETE and change.path == "b.py"
    assert change.overwrite_dest  # b's content went through an overwrite: confirm it
    assert [w.type for w in plan.warnings] == [WarningType.OVERWRITES_FILE]


def test_v4a_move_away_and_back_with_edits_is_one_modify(tmp_path):
    reply = v4a(
        "*** Update File: a.py",
        "*** Move to: d/x.py",
        "@@",
        "-A = 1",
        "+A = 2",
        "*** Update File: d/x.py",
        "*** Move to: a.py",
        "@@",
        "-A = 2",
        "+A = 3",
    )
    plan = _check_both(tmp_path, {"a.py": "A = 1\n"}, reply, {"a.py": "A = 3\n"})
    (change,) = plan.files
    assert (change.action, change.path, change.new_text) == (FileAction.MODIFY, "a.py", "A = 3\n")
    assert not (tmp_path / "d").exists()


def rename(src: str, dest: str) -> str:
    return f"diff --git a/{src} b/{dest}\nrename from {src}\nrename to {dest}\n"


def test_move_then_delete_the_destination(tmp_path):
    reply = v4a(
        "*** Update File: a.py", "*** Move to: b.py", "@@", "-A = 1", "+A = 2"
    ) + v4a("*** Delete File: b.py")
    plan = _check_both(tmp_path, {"a.py": "A = 1\n", "k.py": "k\n"}, reply, {"k.py": "k\n"})
    assert [(c.action, c.path) for c in plan.files] == [(FileAction.DELETE, "a.py")]


def test_a_chain_of_moves_is_one_rename(tmp_path):
    reply = v4a(
        "*** Update File: a.py",
        "*** Move to: b.py",
        "@@",
        "-A = 1",
        "+A = 2",
        "*** Update File: b.py",
        "*** Move to: c.py",
        "@@",
        "-A = 2",
        "+A = 3",
    )
    plan = _check_both(tmp_path, {"a.py": "A = 1\n"}, reply, {"c.py": "A = 3\n"})
    (change,) = plan.files
    assert (change.action, change.path, change.new_path) == (FileAction.RENAME, "a.py", "c.py")


def test_a_swap_through_a_third_name_is_two_modifies(tmp_path):
    reply = rename("a.py", "t.py") + rename("b.py", "a.py") + rename("t.py", "b.py")
    plan = _check_both(
        tmp_path, {"a.py": "A\n", "b.py": "B\n"}, reply, {"a.py": "B\n", "b.py": "A\n"}
    )
    assert sorted((c.action, c.path) for c in plan.files) == [
        (FileAction.MODIFY, "a.py"),
        (FileAction.MODIFY, "b.py"),
    ]


# --- moving onto an existing file ----------------------------------------------------------


def test_a_move_onto_an_existing_file_shows_what_it_replaces(tmp_path):
    """Not `rename a.py => important.py`: a modify of important.py whose diff shows its old
    content, a delete of a.py, a warning, and confirmation asked in editors."""
    put(tmp_path, {"a.py": "A = 1\n", "important.py": "KEEP = 1\n"})
    plan = apply_on_disk(rename("a.py", "important.py"), tmp_path)
    assert plan.ok
    assert _texts(tmp_path) == {"important.py": "A = 1\n"}
    by_path = {c.path: c for c in plan.files}
    assert by_path["important.py"].action is FileAction.MODIFY
    assert by_path["important.py"].old_text == "KEEP = 1\n"
    assert by_path["important.py"].overwrite_dest
    assert by_path["a.py"].action is FileAction.DELETE
    (warning,) = plan.warnings
    assert warning.type is WarningType.OVERWRITES_FILE and warning.path == "important.py"
    assert "important.py" in warning.message and "a.py" in warning.message

    built = build_workspace_edit(plan, FULL, uri_for)
    assert built.needs_confirmation
    (doc,) = [c for c in built.edit.document_changes if isinstance(c, types.TextDocumentEdit)]
    assert doc.text_document.uri == uri_for("important.py")
    for e in doc.edits:
        assert built.edit.change_annotations[e.annotation_id].needs_confirmation


def test_add_file_over_an_existing_file_warns_and_asks(tmp_path):
    put(tmp_path, {"a.py": "OLD = 1\n"})
    plan = apply_on_disk(v4a("*** Add File: a.py", "+NEW = 1"), tmp_path)
    assert plan.ok and _texts(tmp_path) == {"a.py": "NEW = 1\n"}
    (change,) = plan.files
    assert change.action is FileAction.MODIFY and change.old_text == "OLD = 1\n"
    assert change.overwrite_dest
    assert [w.type for w in plan.warnings] == [WarningType.OVERWRITES_FILE]
    assert build_workspace_edit(plan, FULL, uri_for).needs_confirmation


def test_a_move_to_a_new_name_is_still_a_rename_without_confirmation(tmp_path):
    put(tmp_path, {"a.py": "A = 1\n"})
    plan = apply_on_disk(rename("a.py", "b.py"), tmp_path)
    (change,) = plan.files
    assert change.action is FileAction.RENAME and not change.overwrite_dest
    assert not plan.warnings
    built = build_workspace_edit(plan, FULL, uri_for)
    assert not built.needs_confirmation


# --- the property: any sequence, both sinks, one plain model -------------------------------

PATHS = ["a.py", "b.py", "c.py", "d/x.py"]


class _Ops:
    """Writes each operation as a reply block (in one of the formats that can say it) and
    applies it to a plain dict, the sequential model."""

    def __init__(self, files: dict[str, str]):
        self.model = dict(files)
        self.blocks: list[str] = []
        self.counter = 0

    def fresh(self) -> str:
        self.counter += 1
        return f"v{self.counter} = {self.counter}\n"

    def create(self, path: str, how: int) -> None:
        text = self.fresh()
        if how == 0:
            self.blocks.append(v4a(f"*** Add File: {path}", "+" + text[:-1]))
        else:
            call = {"command": "create", "path": path, "file_text": text}
            self.blocks.append("```json\n" + json.dumps(call) + "\n```\n")
        self.model[path] = text

    def modify(self, path: str, how: int) -> None:
        old, new = self.model[path], self.fresh()
        if how == 0:
            self.blocks.append(
                f"{path}\n```\n<<<<<<< SEARCH\n{old}=======\n{new}>>>>>>> REPLACE\n```\n"
            )
        elif how == 1:
            chunk = ("@@", "-" + old[:-1], "+" + new[:-1])
            self.blocks.append(v4a(f"*** Update File: {path}", *chunk))
        else:
            self.blocks.append(f"--- a/{path}\n+++ b/{path}\n@@ -1 +1 @@\n-{old}+{new}")
        self.model[path] = new

    def move(self, path: str, dest: str, how: int) -> None:
        text = self.model.pop(path)
        if how == 1:
            new = self.fresh()
            self.blocks.append(
                v4a(
                    f"*** Update File: {path}",
                    f"*** Move to: {dest}",
                    "@@",
                    "-" + text[:-1],
                    "+" + new[:-1],
                )
            )
            text = new
        else:
            self.blocks.append(rename(path, dest))
        self.model[dest] = text

    def delete(self, path: str, how: int) -> None:
        old = self.model.pop(path)
        if how == 0:
            self.blocks.append(v4a(f"*** Delete File: {path}"))
        else:
            self.blocks.append(
                f"diff --git a/{path} b/{path}\ndeleted file mode 100644\n"
                f"--- a/{path}\n+++ /dev/null\n@@ -1 +0,0 @@\n-{old}"
            )

    @property
    def reply(self) -> str:
        return "".join(f"Step {i}:\n\n{b}\n" for i, b in enumerate(self.blocks))


@st.composite
def sequences(draw) -> tuple[dict[str, str], _Ops]:
    initial = {p: f"{p[0]}0 = 0\n" for p in PATHS if draw(st.booleans())}
    ops = _Ops(initial)
    ops.counter = 100
    for _ in range(draw(st.integers(1, 7))):
        present = sorted(ops.model)
        kinds = ["create"] + (["modify", "move", "delete"] if present else [])
        kind = draw(st.sampled_from(kinds))
        how = draw(st.integers(0, 2))
        if kind == "create":
            ops.create(draw(st.sampled_from(PATHS)), how % 2)
        elif kind == "modify":
            ops.modify(draw(st.sampled_from(present)), how)
        elif kind == "move":
            src = draw(st.sampled_from(present))
            ops.move(src, draw(st.sampled_from([p for p in PATHS if p != src])), how)
        else:
            ops.delete(draw(st.sampled_from(present)), how % 2)
    return initial, ops


@settings(max_examples=200, deadline=None)
@given(case=sequences())
def test_any_sequence_of_file_operations_has_its_net_effect_on_disk_and_in_an_editor(case):
    initial, ops = case
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        put(root, initial)
        ws = DiskWorkspace(root)
        plan = plan_reply(parse_reply(ops.reply), ws)
        assert plan.ok, [o.failure for o in plan.outcomes if o.failure]
        assert len(plan.outcomes) == len(ops.blocks)
        touched = [p for c in plan.files for p in (c.path, c.new_path) if p is not None]
        assert len(touched) == len(set(touched)), "a path in two changes"
        assert through_editor(plan, initial) == ops.model, ops.reply
        write_plan(plan, ws)
        assert _texts(root) == ops.model, ops.reply
