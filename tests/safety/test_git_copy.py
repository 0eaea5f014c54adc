"""git's `copy from` / `copy to`: the destination is created with the source's text as it
was before the patch (plus the section's hunks), the source stays as it is.

The oracle is git itself: random patches of copies (pure or with an edit), renames, edits
and deletes over a few files are applied with `git apply` in one folder and with llm-patch
in another. Wherever git accepts the patch, llm-patch writes exactly what git writes or
refuses and writes nothing; a patch that writes each path once and copies only onto new
paths it must place. A second run never changes a byte.
"""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lsp_server.edits import EditCapabilities, build_workspace_edit
from lsp_server.model import Action, ErrorCode, Status, WarningType
from lsp_server.reply import parse_reply
from lsp_server.report import report_json
from tests.safety.plan_support import apply_on_disk, apply_workspace_edit, put, tree, uri_for

GIT = shutil.which("git")
pytestmark = pytest.mark.skipif(GIT is None, reason="git is not installed")

FILES = {
    f"f{i}.py": f"F{i} = 1\nbody_{i}()\nmiddle_{i}()\ntail_{i}()\nend_{i}()\n" for i in range(2)
}
FILES["f2.py"] = "F2 = 1\r\nbody_2()\r\nmiddle_2()\r\ntail_2()\r\nend_2()\r\n"  # CRLF
PATHS = [*FILES, "f3.py", "new/f4.py"]  # the last two do not exist before the patch


def lines_of(src: str) -> list[str]:
    """The file's lines as a diff of it shows them (a CRLF file's keep their CR)."""
    return FILES[src].split("\n")[:-1]


def noted(line: str, note: str) -> str:
    return line[:-1] + note + "\r" if line.endswith("\r") else line + note


def copy(src: str, dst: str, edit: bool) -> str:
    head = f"diff --git a/{src} b/{dst}\n"
    if not edit:
        return head + f"similarity index 100%\ncopy from {src}\ncopy to {dst}\n"
    line = lines_of(src)[3]
    return (
        head + f"similarity index 80%\ncopy from {src}\ncopy to {dst}\n"
        f"--- a/{src}\n+++ b/{dst}\n@@ -4 +4 @@\n-{line}\n+{noted(line, '  # copied')}\n"
    )


def rename(src: str, dst: str, edit: bool) -> str:
    head = f"diff --git a/{src} b/{dst}\n"
    if not edit:
        return head + f"similarity index 100%\nrename from {src}\nrename to {dst}\n"
    line = lines_of(src)[0]
    return (
        head + f"similarity index 80%\nrename from {src}\nrename to {dst}\n"
        f"--- a/{src}\n+++ b/{dst}\n@@ -1 +1 @@\n-{line}\n+{noted(line, '  # moved')}\n"
    )


def modify(src: str) -> str:
    line = lines_of(src)[1]
    return (
        f"diff --git a/{src} b/{src}\n--- a/{src}\n+++ b/{src}\n"
        f"@@ -2 +2 @@\n-{line}\n+{noted(line, '  # changed')}\n"
    )


def create(dst: str) -> str:
    return (
        f"diff --git a/{dst} b/{dst}\nnew file mode 100644\n"
        f"--- /dev/null\n+++ b/{dst}\n@@ -0,0 +1 @@\n+made = 1\n"
    )


def delete(src: str) -> str:
    body = "".join(f"-{line}\n" for line in lines_of(src))
    n = len(lines_of(src))
    return (
        f"diff --git a/{src} b/{src}\ndeleted file mode 100644\n"
        f"--- a/{src}\n+++ /dev/null\n@@ -1,{n} +0,0 @@\n{body}"
    )


@st.composite
def patches(draw) -> tuple[str, bool, bool]:
    """A patch with at least one copy; whether llm-patch must place it where git does:
    every path written once at most (a copy's or rename's destination, an edited file), a
    path an edit, rename or delete reads read once, and every copy onto a new path; and
    whether a second run must find it applied: no path is both written and read by a
    rename or delete (a rename that finds its source again, made by a copy, moves it)."""
    out: list[str] = []
    reads: list[str] = []
    writes: list[str] = []
    removed: list[str] = []  # the sources of renames and deletes
    copies_onto_new = True
    kinds = ["copy", "copy-edit", "rename", "rename-edit", "modify", "delete", "create"]
    n = draw(st.integers(1, 4))
    first_copy = draw(st.integers(0, n - 1))
    for k in range(n):
        src = draw(st.sampled_from(list(FILES)))
        kind = "copy-edit" if k == first_copy and draw(st.booleans()) else None
        kind = kind or ("copy" if k == first_copy else draw(st.sampled_from(kinds)))
        if kind.startswith("copy"):
            dst = draw(st.sampled_from([p for p in PATHS if p != src]))
            out.append(copy(src, dst, kind == "copy-edit"))
            writes.append(dst)
            copies_onto_new = copies_onto_new and dst not in FILES
            continue
        if kind == "create":
            dst = draw(st.sampled_from(PATHS))
            out.append(create(dst))
            writes.append(dst)
            continue
        reads.append(src)
        if kind.startswith("rename") or kind == "delete":
            removed.append(src)
        if kind.startswith("rename"):
            dst = draw(st.sampled_from([p for p in PATHS if p != src]))
            out.append(rename(src, dst, kind == "rename-edit"))
            writes.append(dst)
        elif kind == "delete":
            out.append(delete(src))
        else:
            out.append(modify(src))
            writes.append(src)
    simple = (
        len(set(reads)) == len(reads)
        and len(set(writes)) == len(writes)
        and copies_onto_new
        and not set(writes) & set(reads) - set(FILES)
    )
    rerun = simple and not set(writes) & set(removed)
    return "".join(out), simple, rerun


def git_apply(patch: str, root: Path) -> bool:
    done = subprocess.run(
        [GIT, "apply", "--unsafe-paths", "-"],
        input=patch,
        text=True,
        capture_output=True,
        cwd=root,
    )
    return done.returncode == 0


@settings(max_examples=80, deadline=None)
@given(patches())
def test_a_git_copy_applies_as_git_applies_it(tmp_path_factory, case: tuple[str, bool, bool]):
    patch, simple, rerun = case
    theirs = tmp_path_factory.mktemp("git")
    ours = tmp_path_factory.mktemp("ours")
    put(theirs, FILES)
    put(ours, FILES)
    accepted = git_apply(patch, theirs)
    before = tree(ours)
    plan = apply_on_disk(patch, ours)
    if accepted:
        assert plan.ok or not simple, [o.failure for o in plan.outcomes]
        assert tree(ours) == (tree(theirs) if plan.ok else before)
    if plan.ok:
        # and an editor, applying the server's edit, ends with what the disk holds
        built = build_workspace_edit(plan, EditCapabilities(), uri_for)
        assert not built.unsupported
        by_editor = apply_workspace_edit(dict(FILES), built.edit)
        assert by_editor == {k: v.decode() for k, v in tree(ours).items()}
    elif plan.ok:
        # git refuses it, llm-patch reads it one way: every old text is still somewhere
        # unless a block deletes, edits or moves that file, or a warning says it is replaced
        after = set(tree(ours).values())
        told = {w.path for w in plan.warnings if w.type is WarningType.OVERWRITES_FILE}
        for o in plan.outcomes:
            if o.block.action is not Action.COPY and (
                o.block.action is Action.DELETE or o.block.hunks or o.block.move_to
            ):
                told.add(o.block.path)
        assert all(data in after or p in told for p, data in before.items()), plan
    if accepted and plan.ok and rerun:
        # a second run changes nothing: every section finds its change made
        now = tree(ours)
        again = apply_on_disk(patch, ours)
        assert again.ok and not again.files, [o.failure for o in again.outcomes]
        assert tree(ours) == now


def test_a_copy_leaves_its_source_and_keeps_its_bytes(tmp_path: Path):
    """CRLF endings, a byte order mark and the executable bit come with the text."""
    put(tmp_path, {"run.sh": b"\xef\xbb\xbfecho a\r\necho b\r\n"})
    os.chmod(tmp_path / "run.sh", 0o755)
    theirs = tmp_path / "theirs"
    put(theirs, {"run.sh": b"\xef\xbb\xbfecho a\r\necho b\r\n"})
    os.chmod(theirs / "run.sh", 0o755)
    patch = copy_plain("run.sh", "bin/go.sh")
    assert git_apply(patch, theirs)
    plan = apply_on_disk(patch, tmp_path)
    assert plan.ok, [o.failure for o in plan.outcomes]
    assert (tmp_path / "bin/go.sh").read_bytes() == (theirs / "bin/go.sh").read_bytes()
    assert (tmp_path / "run.sh").read_bytes() == b"\xef\xbb\xbfecho a\r\necho b\r\n"
    assert stat.S_IMODE((tmp_path / "bin/go.sh").stat().st_mode) & 0o111


def test_git_diff_c_output_applies_and_again_is_already_applied(tmp_path: Path):
    """What `git diff -C` prints for a file copied and changed while its source changed too:
    the copy reads the source as it was before the patch. A second run finds the copy made
    (the source's own change is taken out to see it) and writes nothing."""
    put(tmp_path, {"a.py": "A = 1\nx()\ny()\n"})
    patch = (
        "diff --git a/a.py b/a.py\n--- a/a.py\n+++ b/a.py\n@@ -1,3 +1,3 @@\n-A = 1\n+A = 2\n"
        " x()\n y()\n"
        "diff --git a/a.py b/b.py\nsimilarity index 71%\ncopy from a.py\ncopy to b.py\n"
        "--- a/a.py\n+++ b/b.py\n@@ -1,3 +1,3 @@\n A = 1\n x()\n-y()\n+z()\n"
    )
    theirs = tmp_path / "theirs"
    put(theirs, {"a.py": "A = 1\nx()\ny()\n"})
    assert git_apply(patch, theirs)
    plan = apply_on_disk(patch, tmp_path)
    assert plan.ok, [o.failure for o in plan.outcomes]
    entry = report_json(plan, applied=True)["blocks"][1]
    assert (entry["path"], entry["copy_to"], "move_to" in entry) == ("a.py", "b.py", False)
    want = {"a.py": b"A = 2\nx()\ny()\n", "b.py": b"A = 1\nx()\nz()\n"}
    assert {k: v for k, v in tree(tmp_path).items() if "/" not in k} == want
    assert {k: v for k, v in tree(theirs).items()} == want
    again = apply_on_disk(patch, tmp_path)
    assert again.ok and not again.files
    assert all(o.already_applied for o in again.outcomes)


def test_a_copy_onto_an_existing_file_is_refused_with_the_rest(tmp_path: Path):
    """Same rule as a create: a destination holding another text is refused, and so is the
    whole patch (the source's own edit too)."""
    put(tmp_path, {"a.py": "A = 1\n", "b.py": "B = 1\n"})
    patch = (
        "diff --git a/a.py b/a.py\n--- a/a.py\n+++ b/a.py\n@@ -1 +1 @@\n-A = 1\n+A = 2\n"
        "diff --git a/a.py b/b.py\nsimilarity index 100%\ncopy from a.py\ncopy to b.py\n"
    )
    before = tree(tmp_path)
    plan = apply_on_disk(patch, tmp_path)
    assert not plan.ok
    failed = [o for o in plan.outcomes if o.status is Status.FAILED]
    assert [o.failure.code for o in failed] == [ErrorCode.FILE_EXISTS]
    assert "b.py" in failed[0].failure.message
    assert tree(tmp_path) == before


def test_a_copy_of_a_missing_file_is_refused(tmp_path: Path):
    put(tmp_path, {"a.py": "A = 1\n"})
    patch = "diff --git a/gone.py b/b.py\nsimilarity index 100%\ncopy from gone.py\ncopy to b.py\n"
    plan = apply_on_disk(patch, tmp_path)
    assert not plan.ok
    assert plan.outcomes[0].failure.code is ErrorCode.FILE_NOT_FOUND
    assert tree(tmp_path) == {"a.py": b"A = 1\n"}


def test_a_copy_and_a_rename_of_one_source(tmp_path: Path):
    """`git diff -C` for a file renamed and copied: both read the source before the patch."""
    put(tmp_path, {"a.py": "A = 1\nx()\n"})
    theirs = tmp_path / "theirs"
    put(theirs, {"a.py": "A = 1\nx()\n"})
    for patch in (
        copy_plain("a.py", "b.py") + rename_plain("a.py", "c.py"),
        rename_plain("a.py", "c.py") + copy_plain("a.py", "b.py"),
    ):
        for root in (tmp_path, theirs):
            for p in ("b.py", "c.py"):
                (root / p).unlink(missing_ok=True)
            put(root, {"a.py": "A = 1\nx()\n"})
        assert git_apply(patch, theirs)
        plan = apply_on_disk(patch, tmp_path)
        assert plan.ok, [o.failure for o in plan.outcomes]
        ours = {k: v for k, v in tree(tmp_path).items() if "/" not in k}
        assert ours == tree(theirs) == {"b.py": b"A = 1\nx()\n", "c.py": b"A = 1\nx()\n"}


@pytest.mark.parametrize(
    "header",
    [
        "copy from a.py\n",  # no destination
        "copy to b.py\n",  # no source
        "copy from a.py\ncopy to a.py\n",  # onto itself
        "copy from a.py\ncopy to b.py\nrename from a.py\nrename to c.py\n",
    ],
)
def test_a_copy_header_that_does_not_name_two_files_is_malformed(tmp_path: Path, header: str):
    put(tmp_path, {"a.py": "A = 1\n"})
    patch = f"diff --git a/a.py b/b.py\n{header}"
    blocks = parse_reply(patch).blocks
    assert blocks and all(b.error is not None for b in blocks)
    plan = apply_on_disk(patch, tmp_path)
    assert not plan.ok
    assert tree(tmp_path) == {"a.py": b"A = 1\n"}


def copy_plain(src: str, dst: str) -> str:
    return f"diff --git a/{src} b/{dst}\nsimilarity index 100%\ncopy from {src}\ncopy to {dst}\n"


def rename_plain(src: str, dst: str) -> str:
    return (
        f"diff --git a/{src} b/{dst}\nsimilarity index 100%\nrename from {src}\nrename to {dst}\n"
    )


@pytest.mark.parametrize(
    ("src", "dst", "protect"),
    [
        (".git/config", "leak.txt", ()),  # a token in a remote's URL, carried out
        (".GIT\u200c/config", "leak.txt", ()),  # a spelling a macOS disk reads as .git
        ("Secrets/key.pem", "leak.txt", ("secrets/*",)),  # another case of a protected glob
        ("a.py", ".git/hooks/pre-commit", ()),  # a hook that runs on the next commit
        ("a.py", "SECRETS/new.pem", ("secrets/*",)),
    ],
)
def test_a_copy_neither_reads_nor_writes_a_protected_path(tmp_path: Path, src, dst, protect):
    put(tmp_path, {"a.py": "A = 1\n", ".git/config": "[remote]\n", "secrets/key.pem": "k\n"})
    before = tree(tmp_path)
    plan = apply_on_disk(copy_plain(src, dst), tmp_path, protected=protect)
    assert not plan.ok
    assert plan.outcomes[0].failure.code is ErrorCode.PROTECTED_PATH
    assert tree(tmp_path) == before
