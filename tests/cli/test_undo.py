"""`llm-patch undo` (issue 25): the last apply in this root, put back as one write, refused
for any file changed since (by content, named)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lsp_server.cli import run
from tests.cli.support import git_repo, llm_patch, put, sr

REPLY = (
    sr("src/a.py", "def f():\n    return 1\n", "def f():\n    return 2\n")
    + "\n*** Begin Patch\n*** Add File: src/new.py\n+y = 1\n*** Delete File: src/b.py\n"
    "*** Update File: src/c.py\n*** Move to: src/d.py\n@@\n-c = 1\n+c = 2\n*** End Patch\n"
)
FILES = {
    "src/a.py": "def f():\n    return 1\n",
    "src/b.py": "\ufeffx = 1\r\n",  # a BOM and CRLF endings come back byte for byte
    "src/c.py": "c = 1\n",
}


def tree(root: Path) -> dict[str, bytes]:
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and ".git" not in p.relative_to(root).parts
    }


def test_undo_puts_back_every_file_the_last_apply_changed(tmp_path):
    root = put(git_repo(tmp_path / "repo"), FILES)
    before = tree(root)
    applied = llm_patch("apply", "-", cwd=root / "src", stdin=REPLY)
    assert applied.returncode == 0, applied.stdout + applied.stderr
    assert applied.stdout.rstrip().endswith("(`llm-patch undo` puts them back)")
    assert tree(root) != before
    r = llm_patch("undo", cwd=root / "src")
    assert r.returncode == 0, r.stdout + r.stderr
    assert tree(root) == before
    lines = r.stdout.splitlines()
    assert lines[0] == f"root: {root} (the git repository's top)"  # first, as for an apply
    assert lines[-1].startswith("✓ put back 4 files: ")  # last: what was done
    again = llm_patch("undo", cwd=root)
    assert again.returncode == 1
    assert "no apply to undo in this root" in again.stderr
    assert tree(root) == before


def test_undo_refuses_when_a_file_changed_since_and_names_it(tmp_path):
    root = put(git_repo(tmp_path / "repo"), FILES)
    assert llm_patch("apply", "-", cwd=root, stdin=REPLY).returncode == 0
    (root / "src/a.py").write_text("def f():\n    return 3\n")  # the user's own edit
    (root / "src/b.py").write_text("back\n")  # a deleted file made again
    after = tree(root)
    r = llm_patch("undo", cwd=root)
    assert r.returncode == 1
    assert "refused: changed since the last apply" in r.stderr
    assert "src/a.py (edited)" in r.stderr and "src/b.py (deleted by the apply" in r.stderr
    assert "nothing was written" in r.stderr
    assert tree(root) == after  # not even the unchanged files
    report = json.loads(llm_patch("undo", "--json", cwd=root).stdout)
    assert report["ok"] is False and len(report["changed"]) == 2


def test_undo_dry_run_shows_the_diff_and_writes_nothing(tmp_path):
    root = put(git_repo(tmp_path / "repo"), FILES)
    assert llm_patch("apply", "-", cwd=root, stdin=REPLY).returncode == 0
    after = tree(root)
    r = llm_patch("undo", "--dry-run", cwd=root)
    assert r.returncode == 0
    assert "-    return 2\n+    return 1" in r.stdout and "would put back 4 files" in r.stdout
    assert r.stdout.rstrip().endswith("; nothing written (dry run)")
    assert tree(root) == after
    assert llm_patch("undo", cwd=root).returncode == 0  # the record is still there


def test_the_record_stays_out_of_the_users_files(tmp_path):
    """In a git repository it is kept in .git/llm-patch/; elsewhere in the state folder."""
    root = put(git_repo(tmp_path / "repo"), FILES)
    assert llm_patch("apply", "-", cwd=root, stdin=REPLY).returncode == 0
    assert list((root / ".git" / "llm-patch").glob("last-apply-*.record"))
    plain = put(tmp_path / "plain", FILES)
    state = tmp_path / "state"
    env = {"LLM_PATCH_STATE": str(state)}
    assert llm_patch("apply", "-", cwd=plain, stdin=REPLY, env=env).returncode == 0
    assert sorted(tree(plain)) == ["src/a.py", "src/d.py", "src/new.py"]
    assert list((state / "undo").glob("last-apply-*.record"))
    assert llm_patch("undo", cwd=plain, env=env).returncode == 0
    assert tree(plain) == {k: v.encode() for k, v in FILES.items()}


def test_a_failed_apply_keeps_the_previous_record(tmp_path):
    root = put(git_repo(tmp_path / "repo"), {"a.py": "a = 1\n"})
    assert llm_patch("apply", "-", cwd=root, stdin=sr("a.py", "a = 1\n", "a = 2\n")).returncode == 0
    assert llm_patch("apply", "-", cwd=root, stdin=sr("a.py", "nope\n", "x\n")).returncode == 1
    assert llm_patch("undo", cwd=root).returncode == 0
    assert (root / "a.py").read_text() == "a = 1\n"


texts = st.text(alphabet="ab \n\t\u00e9", max_size=30)


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    files=st.dictionaries(st.sampled_from(["a.txt", "b.txt", "sub/c.txt"]), texts, min_size=1),
    news=st.lists(texts, min_size=3, max_size=3),
)
def test_apply_then_undo_gives_back_the_same_bytes(tmp_path_factory, files, news):
    """Whatever whole-file replies do to a tree (create, overwrite), undo restores it."""
    root = tmp_path_factory.mktemp("t")
    (root / ".git").mkdir()
    put(root, files)
    before = tree(root)
    reply = "".join(
        f"<write_to_file>\n<path>{name}</path>\n<content>\n{new}\n</content>\n</write_to_file>\n"
        for name, new in zip(["a.txt", "b.txt", "sub/c.txt"], news, strict=True)
    )
    (root / ".git" / "reply.md").write_text(reply)
    code = run(["apply", str(root / ".git" / "reply.md"), "--root", str(root), "--json"])
    if code != 0 or tree(root) == before:
        return  # nothing written: nothing to undo
    assert run(["undo", "--root", str(root), "--json"]) == 0
    assert tree(root) == before
    assert os.listdir(root / ".git" / "llm-patch") == []


@pytest.mark.parametrize("path", ["../outside.txt", "/etc/passwd", ".git/config"])
def test_a_record_naming_a_path_outside_the_root_is_refused(tmp_path, path):
    root = put(git_repo(tmp_path / "repo"), {"a.py": "a = 1\n"})
    assert llm_patch("apply", "-", cwd=root, stdin=sr("a.py", "a = 1\n", "a = 2\n")).returncode == 0
    (record,) = (root / ".git" / "llm-patch").glob("last-apply-*.record")
    line, rest = record.read_bytes().split(b"\n", 1)
    head = json.loads(line)
    head["changes"][0]["path"] = path
    record.write_bytes(json.dumps(head).encode() + b"\n" + rest)
    r = llm_patch("undo", cwd=root)
    assert r.returncode == 1
    assert "the undo record is damaged" in r.stderr
    assert (root / "a.py").read_text() == "a = 2\n"


@pytest.mark.parametrize("damage", [b"", b"not json\n", b'{"version": 1}\n', b"\xff\xfe"])
def test_a_damaged_record_is_said_and_nothing_is_written(tmp_path, damage):
    root = put(git_repo(tmp_path / "repo"), {"a.py": "a = 1\n"})
    assert llm_patch("apply", "-", cwd=root, stdin=sr("a.py", "a = 1\n", "a = 2\n")).returncode == 0
    (record,) = (root / ".git" / "llm-patch").glob("last-apply-*.record")
    record.write_bytes(damage)
    r = llm_patch("undo", cwd=root)
    assert r.returncode == 1
    assert "is not a record this version can read" in r.stderr
    assert "Traceback" not in r.stderr
    assert (root / "a.py").read_text() == "a = 2\n"


def test_a_cut_record_is_refused(tmp_path):
    root = put(git_repo(tmp_path / "repo"), {"a.py": "a = 1\n" * 50})
    reply = sr("a.py", "a = 1\n" * 50, "b = 2\n")
    assert llm_patch("apply", "-", cwd=root, stdin=reply).returncode == 0
    (record,) = (root / ".git" / "llm-patch").glob("last-apply-*.record")
    record.write_bytes(record.read_bytes()[:-7])
    assert llm_patch("undo", cwd=root).returncode == 1
    assert (root / "a.py").read_text() == "b = 2\n"


def test_undo_without_the_root_the_apply_had_names_it(tmp_path):
    root = put(git_repo(tmp_path / "repo"), {"pkg/a.py": "a = 1\n"})
    reply = sr("a.py", "a = 1\n", "a = 2\n")
    applied = llm_patch("apply", "-", "--root", ".", cwd=root / "pkg", stdin=reply)
    assert applied.stdout.rstrip().endswith("(`llm-patch undo --root .` puts it back)")
    r = llm_patch("undo", cwd=root / "pkg")  # the root is now the repository's top
    assert r.returncode == 1
    assert f"run `llm-patch undo --root {root / 'pkg'}`" in r.stderr
    assert llm_patch("undo", "--root", ".", cwd=root / "pkg").returncode == 0
    assert (root / "pkg/a.py").read_text() == "a = 1\n"
