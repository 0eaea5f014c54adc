"""Protected paths in every spelling a disk may resolve to the protected name.

macOS and Windows disks ignore letter case; HFS+ also leaves some invisible code points out
of names (`.git\\u200d` opens `.git`); NTFS drops trailing dots and spaces, reads `name:x` as
a stream of `name` and answers to 8.3 short names (`GIT~1`). Each of those spellings of a
version-control folder, of a `--protect` glob's names and of llm-patch's own file names is
refused before anything is written.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from lsp_server.model import ErrorCode, PlacementError, Status
from lsp_server.plan import plan_reply
from lsp_server.reply import parse_reply
from lsp_server.workspace import DiskWorkspace, refuse_protected
from tests.safety.plan_support import apply_on_disk, put, tree

# invisible code points HFS+ skips when it compares names (an independent list: Apple's
# TN1150 "ignorable Unicode characters")
HFS_IGNORABLE = [
    "\u200c",
    "\u200d",
    "\u200e",
    "\u200f",
    "\u202a",
    "\u202b",
    "\u202c",
    "\u202d",
    "\u202e",
    "\u206a",
    "\u206b",
    "\u206c",
    "\u206d",
    "\u206e",
    "\u206f",
    "\ufeff",
]


def v4a(*lines: str) -> str:
    return "*** Begin Patch\n" + "".join(x + "\n" for x in lines) + "*** End Patch\n"


def refused(rel: str, globs: tuple[str, ...] = ()) -> bool:
    try:
        refuse_protected(rel, globs)
    except PlacementError as err:
        assert err.failure.code is ErrorCode.PROTECTED_PATH
        return True
    return False


@st.composite
def disguised(draw, name: str) -> str:
    """`name` as a case-insensitive HFS+/NTFS disk still resolves it: letters in any case,
    ignorable code points anywhere, then trailing dots and spaces or a stream suffix."""
    out = []
    for ch in name:
        out.append(ch.upper() if draw(st.booleans()) else ch)
        if draw(st.integers(0, 4)) == 0:
            out.append(draw(st.sampled_from(HFS_IGNORABLE)))
    tail = draw(st.sampled_from(["", ".", " ", ". .", "::$INDEX_ALLOCATION", ":stream"]))
    return "".join(out) + tail


@given(st.sampled_from([".git", ".hg", ".svn"]).flatmap(disguised), st.booleans())
def test_every_spelling_of_a_vcs_folder_is_refused(part: str, nested: bool):
    rel = f"sub/{part}/hooks/pre-commit" if nested else f"{part}/config"
    assert refused(rel)


@given(st.just("secrets").flatmap(disguised))
def test_every_spelling_of_a_protected_folder_is_refused(part: str):
    assert refused(f"{part}/key.pem", ("secrets/*",))
    assert refused(f"{part}/deep/new.pem", ("secrets/*",))


@pytest.mark.parametrize(
    "rel",
    ["GIT~1/hooks/pre-commit", "git~2/config", "sub/GIT~1/HEAD", "HG~1/hgrc", "SVN~1/entries"],
)
def test_ntfs_short_names_of_vcs_folders_are_refused(rel: str):
    assert refused(rel)


def test_short_names_of_protected_glob_names_are_refused():
    assert refused("SECRET~1/key.pem", ("secrets/*",))
    assert refused("deploy/CONFIG~1.YAM", ("deploy/config.yaml",))
    # a short name that abbreviates nothing protected is an ordinary name
    assert not refused("notes~1.txt", ("secrets/*",))
    assert not refused("SRC~1/a.py", ("secrets/*",))


@pytest.mark.parametrize(
    "name",
    [
        ".LLM-PATCH-0011223344556677.OLD",
        ".llm-patch-0011223344556677.new",
        ".Llm-Patch.Journal",
        ".llm-patch.lock.",
        ".llm\u200d-patch-x",
        "LLM-PA~1.OLD",
    ],
)
def test_llm_patch_own_names_are_refused_in_any_spelling(name: str):
    assert refused(f"src/{name}")


@pytest.mark.parametrize(
    "rel", ["src/gitx/a.py", "git/a.py", "src/.github/workflows/ci.yml", "a.git.py", "docs/llm.md"]
)
def test_ordinary_names_are_not_refused(rel: str):
    assert not refused(rel, ("secrets/*", "*.lock"))


def test_an_hfs_ignorable_hook_is_not_created(tmp_path: Path):
    """The issue's attack: `*** Add File: .git\\u200d/hooks/pre-commit`."""
    put(tmp_path, {".git/HEAD": "ref: refs/heads/main\n", "a.py": "x = 1\n"})
    before = tree(tmp_path)
    plan = apply_on_disk(v4a("*** Add File: .git\u200d/hooks/pre-commit", "+touch pwned"), tmp_path)
    (outcome,) = plan.outcomes
    assert outcome.failure is not None and outcome.failure.code is ErrorCode.PROTECTED_PATH
    assert tree(tmp_path) == before


def test_protect_glob_holds_in_another_letter_case(tmp_path: Path):
    """`--protect 'secrets/*'`: `Secrets/key.pem` edited and `SECRETS/new.pem` added are both
    refused (on a case-insensitive disk both are in `secrets/`)."""
    put(tmp_path, {"secrets/key.pem": "KEY\n"})
    reply = v4a(
        "*** Update File: Secrets/key.pem",
        "@@",
        "-KEY",
        "+STOLEN",
        "*** Add File: SECRETS/new.pem",
        "+planted",
    )
    before = tree(tmp_path)
    plan = apply_on_disk(reply, tmp_path, atomic=False, protected=("secrets/*",))
    assert all(o.status is Status.FAILED for o in plan.outcomes), plan.outcomes
    assert {o.failure.code for o in plan.outcomes} == {ErrorCode.PROTECTED_PATH}
    assert tree(tmp_path) == before


def test_a_folder_in_another_case_is_one_folder(tmp_path: Path, monkeypatch):
    """On a case-insensitive disk `Secrets/` opens `secrets/`: the plan names the folder as the
    disk lists it, so two spellings of one new file are one file, not two creates. Simulated:
    the folder lists `secrets` only, while `Secrets` can be opened too."""
    put(tmp_path, {"Secrets/old.txt": "x\n"})
    os.rename(tmp_path / "Secrets", tmp_path / "secrets")
    (tmp_path / "Secrets").mkdir()  # what `Secrets` opens on this simulated disk
    real_listdir = os.listdir

    def listdir(path="."):
        return [n for n in real_listdir(path) if n != "Secrets"]

    monkeypatch.setattr(os, "listdir", listdir)
    ws = DiskWorkspace(tmp_path)
    assert ws.snapshot("Secrets/new.txt").path == "secrets/new.txt"
    plan = plan_reply(
        parse_reply(
            v4a("*** Add File: Secrets/new.txt", "+a", "*** Add File: secrets/new.txt", "+b")
        ),
        ws,
    )
    assert [c.path for c in plan.files] == ["secrets/new.txt"]  # one file, not two creates
