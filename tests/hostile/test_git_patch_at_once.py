"""A git patch's renames, deletes and edits are read at once, as `git apply` reads them.

The oracle is git itself: random patches of renames (pure or with an edit), deletes and
edits over a few files are applied with `git apply` in one folder and with llm-patch in
another; wherever git accepts the patch, both trees are equal. A swap of two files swaps;
nothing is lost with exit 0.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lsp_server.model import Action, ErrorCode, Status, WarningType
from tests.safety.plan_support import apply_on_disk, put, tree

GIT = shutil.which("git")
pytestmark = pytest.mark.skipif(GIT is None, reason="git is not installed")

FILES = {f"f{i}.py": f"F{i} = 1\nbody_{i}()\nend_{i}()\n" for i in range(4)}
PATHS = [*FILES, "f4.py", "f5.py"]  # the last two do not exist before the patch


def rename(src: str, dst: str, edit: bool) -> str:
    head = f"diff --git a/{src} b/{dst}\n"
    if not edit:
        return head + f"similarity index 100%\nrename from {src}\nrename to {dst}\n"
    first = FILES[src].splitlines()[0]
    return (
        head + f"similarity index 80%\nrename from {src}\nrename to {dst}\n"
        f"--- a/{src}\n+++ b/{dst}\n@@ -1 +1 @@\n-{first}\n+{first}  # moved\n"
    )


def delete(src: str) -> str:
    body = "".join(f"-{line}\n" for line in FILES[src].splitlines())
    n = len(FILES[src].splitlines())
    return (
        f"diff --git a/{src} b/{src}\ndeleted file mode 100644\n"
        f"--- a/{src}\n+++ /dev/null\n@@ -1,{n} +0,0 @@\n{body}"
    )


def modify(src: str) -> str:
    second = FILES[src].splitlines()[1]
    return (
        f"diff --git a/{src} b/{src}\n--- a/{src}\n+++ b/{src}\n"
        f"@@ -2 +2 @@\n-{second}\n+{second}  # changed\n"
    )


@st.composite
def sections(draw) -> str:
    out = []
    for _ in range(draw(st.integers(1, 4))):
        src = draw(st.sampled_from(list(FILES)))
        kind = draw(st.sampled_from(["rename", "rename-edit", "delete", "modify"]))
        if kind.startswith("rename"):
            dst = draw(st.sampled_from([p for p in PATHS if p != src]))
            out.append(rename(src, dst, kind == "rename-edit"))
        elif kind == "delete":
            out.append(delete(src))
        else:
            out.append(modify(src))
    return "".join(out)


def git_apply(patch: str, root: Path) -> bool:
    done = subprocess.run(
        [GIT, "apply", "--unsafe-paths", "-"],
        input=patch,
        text=True,
        capture_output=True,
        cwd=root,
    )
    return done.returncode == 0


@settings(max_examples=60)
@given(sections())
def test_a_git_patch_applies_as_git_applies_it(tmp_path_factory, patch: str):
    theirs = tmp_path_factory.mktemp("git")
    ours = tmp_path_factory.mktemp("ours")
    put(theirs, FILES)
    put(ours, FILES)
    accepted = git_apply(patch, theirs)
    before = tree(ours)
    plan = apply_on_disk(patch, ours)
    if accepted:
        assert plan.ok, [o.failure for o in plan.outcomes]
        assert tree(ours) == tree(theirs)
    elif plan.ok:
        # git refuses it and llm-patch reads it one way: no old text is gone unless a block
        # deletes or edits that file, or a warning says its content was replaced
        after = set(tree(ours).values())
        told = {w.path for w in plan.warnings if w.type is WarningType.OVERWRITES_FILE}
        for o in plan.outcomes:
            if o.block.action is Action.DELETE or o.block.hunks:
                told.add(o.block.path)
        assert all(data in after or p in told for p, data in before.items()), plan


def test_a_swap_of_two_files_swaps(tmp_path: Path):
    """The issue's case: `rename a.py → b.py` and `rename b.py → a.py` in one `git diff`."""
    put(tmp_path, {"a.py": "A = 1\n", "b.py": "B = 1\n"})
    patch = rename_plain("a.py", "b.py") + rename_plain("b.py", "a.py")
    plan = apply_on_disk(patch, tmp_path)
    assert plan.ok and not plan.warnings, (plan.outcomes, plan.warnings)
    assert tree(tmp_path) == {"a.py": b"B = 1\n", "b.py": b"A = 1\n"}


def test_a_rotation_with_edits(tmp_path: Path):
    put(tmp_path, {"a.py": "A = 1\n", "b.py": "B = 1\n", "c.py": "C = 1\n"})
    patch = (
        rename_plain("a.py", "b.py")
        + rename_plain("b.py", "c.py")
        + "diff --git a/c.py b/a.py\nsimilarity index 50%\nrename from c.py\nrename to a.py\n"
        "--- a/c.py\n+++ b/a.py\n@@ -1 +1 @@\n-C = 1\n+C = 2\n"
    )
    plan = apply_on_disk(patch, tmp_path)
    assert plan.ok, [o.failure for o in plan.outcomes]
    assert tree(tmp_path) == {"a.py": b"C = 2\n", "b.py": b"A = 1\n", "c.py": b"B = 1\n"}


def test_separate_diffs_still_apply_one_after_another(tmp_path: Path):
    """Two patches (prose between them) are two steps, in reply order: the second rename
    moves the first one's result back."""
    put(tmp_path, {"a.py": "A = 1\n"})
    reply = rename_plain("a.py", "b.py") + "\nThen:\n\n" + rename_plain("b.py", "a.py")
    plan = apply_on_disk(reply, tmp_path)
    assert plan.ok, [o.failure for o in plan.outcomes]
    assert tree(tmp_path) == {"a.py": b"A = 1\n"}


def test_a_path_renamed_onto_and_patched_in_place_is_refused(tmp_path: Path):
    """Git refuses it too: `b.py` would be both `a.py`'s text and `b.py` patched."""
    put(tmp_path, {"a.py": "A = 1\n", "b.py": "B = 1\n"})
    patch = rename_plain("a.py", "b.py") + (
        "diff --git a/b.py b/b.py\n--- a/b.py\n+++ b/b.py\n@@ -1 +1 @@\n-B = 1\n+B = 2\n"
    )
    before = tree(tmp_path)
    plan = apply_on_disk(patch, tmp_path)
    assert not plan.ok
    failed = [o for o in plan.outcomes if o.status is Status.FAILED]
    assert failed[0].failure.code is ErrorCode.MALFORMED_BLOCK
    assert "git patch" in failed[0].failure.message
    assert tree(tmp_path) == before


def rename_plain(src: str, dst: str) -> str:
    return (
        f"diff --git a/{src} b/{dst}\nsimilarity index 100%\nrename from {src}\nrename to {dst}\n"
    )
