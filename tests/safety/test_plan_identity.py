"""One file, however it is named: a symlink and the file it names, a path through a
symlinked folder, another spelling of the name (Unicode normalisation, letter case where the
file system ignores it) are one file to the plan, whose blocks apply in sequence to one
text. A NEW file is never created under a name that only looks different from an existing
one."""

from __future__ import annotations

import json
import os
import unicodedata

import pytest

from lsp_server.model import ErrorCode, FileAction, Status
from lsp_server.plan import plan_reply
from lsp_server.reply import parse_reply
from lsp_server.workspace import DiskWorkspace

from .plan_support import apply_on_disk, put


def sr(path: str, old: str, new: str) -> str:
    return f"{path}\n```\n<<<<<<< SEARCH\n{old}\n=======\n{new}\n>>>>>>> REPLACE\n```\n\n"


def v4a(*lines: str) -> str:
    return "*** Begin Patch\n" + "".join(x + "\n" for x in lines) + "*** End Patch\n"


def test_a_symlink_and_its_file_are_one_text(tmp_path):
    put(tmp_path, {"real.py": "one = 1\ntwo = 2\n"})
    (tmp_path / "alias.py").symlink_to("real.py")
    reply = sr("real.py", "one = 1", "one = 'ONE'") + sr("alias.py", "two = 2", "two = 'TWO'")
    plan = apply_on_disk(reply, tmp_path)
    assert plan.ok, [o.failure for o in plan.outcomes]
    (change,) = plan.files
    assert change.path == "real.py" and change.blocks == (0, 1)
    assert (tmp_path / "real.py").read_text() == "one = 'ONE'\ntwo = 'TWO'\n"
    assert (tmp_path / "alias.py").is_symlink()


def test_the_alias_first_then_the_file(tmp_path):
    put(tmp_path, {"real.py": "one = 1\ntwo = 2\n"})
    (tmp_path / "alias.py").symlink_to("real.py")
    reply = sr("alias.py", "one = 1", "one = 'ONE'") + sr("real.py", "one = 'ONE'", "one = 3")
    plan = apply_on_disk(reply, tmp_path)
    assert plan.ok, [o.failure for o in plan.outcomes]
    assert (tmp_path / "real.py").read_text() == "one = 3\ntwo = 2\n"


def test_a_symlinked_folder_is_the_folder(tmp_path):
    put(tmp_path, {"src/m.py": "one = 1\ntwo = 2\n"})
    (tmp_path / "lib").symlink_to("src", target_is_directory=True)
    reply = sr("src/m.py", "one = 1", "one = 'ONE'") + sr("lib/m.py", "two = 2", "two = 'TWO'")
    plan = apply_on_disk(reply, tmp_path)
    assert plan.ok, [o.failure for o in plan.outcomes]
    (change,) = plan.files
    assert change.path == "src/m.py"
    assert (tmp_path / "src/m.py").read_text() == "one = 'ONE'\ntwo = 'TWO'\n"


def test_a_new_file_through_a_symlinked_folder_is_one_file(tmp_path):
    put(tmp_path, {"src/keep.py": "k\n"})
    (tmp_path / "lib").symlink_to("src", target_is_directory=True)
    reply = v4a("*** Add File: lib/new.py", "+a = 1") + sr("src/new.py", "a = 1", "a = 2")
    plan = apply_on_disk(reply, tmp_path)
    assert plan.ok, [o.failure for o in plan.outcomes]
    (change,) = plan.files
    assert (change.action, change.path) == (FileAction.CREATE, "src/new.py")
    assert (tmp_path / "src/new.py").read_text() == "a = 2\n"


@pytest.mark.parametrize(
    "block",
    [
        v4a("*** Delete File: alias.py"),
        v4a("*** Update File: alias.py", "*** Move to: other.py", "@@", "-one = 1", "+one = 2"),
        "diff --git a/alias.py b/other.py\nrename from alias.py\nrename to other.py\n",
    ],
    ids=["delete", "v4a-move", "git-rename"],
)
def test_deleting_or_moving_a_symlink_is_refused_not_guessed(tmp_path, block):
    """Deleting the link or the file it names, moving the link or the text: the reply cannot
    tell which it means, so nothing is done and the message says what to do instead."""
    put(tmp_path, {"real.py": "one = 1\n"})
    (tmp_path / "alias.py").symlink_to("real.py")
    plan = apply_on_disk(block, tmp_path)
    (outcome,) = plan.outcomes
    assert outcome.status is Status.FAILED
    assert outcome.failure.code is ErrorCode.IO_ERROR
    assert "symbolic link" in outcome.failure.message and "real.py" in outcome.failure.message
    assert (tmp_path / "real.py").read_text() == "one = 1\n"
    assert (tmp_path / "alias.py").is_symlink()
    assert not (tmp_path / "other.py").exists()


# --- look-alike names -------------------------------------------------------------------------

NFC = unicodedata.normalize("NFC", "café.py")
NFD = unicodedata.normalize("NFD", "café.py")


@pytest.mark.parametrize(
    "make",
    [
        lambda name: v4a(f"*** Add File: {name}", "+x = 1"),
        lambda name: json.dumps({"command": "create", "path": name, "file_text": "x = 1\n"}),
        lambda name: f"--- /dev/null\n+++ b/{name}\n@@ -0,0 +1 @@\n+x = 1\n",
        lambda name: v4a("*** Update File: k.py", f"*** Move to: {name}", "@@", "-k", "+k2"),
    ],
    ids=["v4a-add", "text-editor-create", "diff-new-file", "move-to"],
)
def test_a_new_name_that_only_differs_in_normalisation_is_refused(tmp_path, make):
    assert NFC != NFD
    put(tmp_path, {NFC: "ORIGINAL = 1\n", "k.py": "k\n"})
    plan = apply_on_disk(make(NFD), tmp_path)
    (outcome,) = plan.outcomes
    assert outcome.status is Status.FAILED
    assert outcome.failure.code is ErrorCode.FILE_EXISTS
    assert NFC in outcome.failure.message
    assert outcome.failure.details["existing"] == NFC
    assert sorted(os.listdir(tmp_path)) == sorted([NFC, "k.py"])


def test_the_same_spelling_is_still_an_ordinary_create_or_edit(tmp_path):
    put(tmp_path, {NFC: "x = 1\n"})
    plan = apply_on_disk(
        sr(NFC, "x = 1", "x = 2") + v4a(f"*** Add File: {NFD}x.py", "+y"), tmp_path
    )
    assert plan.ok, [o.failure for o in plan.outcomes]
    assert (tmp_path / NFC).read_text() == "x = 2\n"


def test_a_case_insensitive_disk_another_spelling_is_the_existing_file(tmp_path, monkeypatch):
    """Where the disk ignores case (macOS, Windows), `Foo.py` opens `foo.py`: it is that file
    for an edit, and a refusal for a new file. Simulated here: the folder lists the file as
    `foo.py` (a hard link to it) while `Foo.py` opens it too."""
    put(tmp_path, {"Foo.py": "x = 1\n"})
    os.link(tmp_path / "Foo.py", tmp_path / "foo.py")
    real_listdir = os.listdir

    def listdir(path="."):
        return [n for n in real_listdir(path) if n != "Foo.py"]

    monkeypatch.setattr(os, "listdir", listdir)
    ws = DiskWorkspace(tmp_path)
    created = plan_reply(parse_reply(v4a("*** Add File: Foo.py", "+y = 1")), ws)
    (outcome,) = created.outcomes
    assert outcome.failure is not None and outcome.failure.code is ErrorCode.FILE_EXISTS
    assert "foo.py" in outcome.failure.message

    edited = plan_reply(
        parse_reply(sr("Foo.py", "x = 1", "x = 2") + sr("foo.py", "x = 2", "x = 3")),
        DiskWorkspace(tmp_path),
    )
    assert edited.ok, [o.failure for o in edited.outcomes]
    (change,) = edited.files
    assert change.path == "foo.py" and change.new_text == "x = 3\n"
