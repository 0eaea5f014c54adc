"""Recovery and rollback act only on proof (issue 23, items 1-6 and 11).

Before, recovery decided "this file is ours" by inode number alone, and obeyed whatever
journal it found: a journal planted by another user deleted root's files, an edit saved in
place after an apply renamed a file in was thrown away by the rollback or by the next
recovery, a hand-written file that reused a freed inode was deleted, a damaged journal was
a traceback from every command, and a file system that makes inode numbers up failed every
apply and wedged the workspace. Each test here is one of those, reproduced with the
in-process crash hook (`writer_support.die_at`) or, for items 2 and 3, by two processes.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lsp_server import cli, writer
from lsp_server.disk import JOURNAL_NAME, Folders, WriteError
from lsp_server.journal import load, recover, signature
from lsp_server.model import ErrorCode
from lsp_server.writer import write_plan

from .writer_support import (
    count_steps,
    crash_where,
    die_at,
    make_project,
    plan_for,
    search_replace,
    tree,
)

ROOT = os.geteuid() == 0
CLI = [sys.executable, "-m", "lsp_server.cli"]
TWO = search_replace("a.py", "a = 1\n", "a = 2\n") + search_replace("b.py", "b = 1\n", "b = 2\n")


def two_files(root: Path) -> None:
    root.mkdir(exist_ok=True)
    (root / "a.py").write_text("a = 1\n")
    (root / "b.py").write_text("b = 1\n")


def a_new_b_old(root: Path) -> bool:
    return (root / "a.py").read_text() == "a = 2\n" and (root / "b.py").read_text() == "b = 1\n"


def own_files(root: Path) -> list[str]:
    return sorted(n for n in tree(root) if ".llm-patch" in n)


# --- 1. a planted journal -----------------------------------------------------------------------


def _victims(root: Path) -> None:
    (root / "config").mkdir(parents=True)
    (root / "config" / "app.conf").write_text("secret = 1\n")
    (root / ".git" / "refs" / "tags").mkdir(parents=True)
    (root / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    (root / ".git" / "config").write_text("[core]\n")


def _planted(root: Path, version: int = 1) -> dict:
    """The journal of the report: state `commit`, the victims' inode numbers as the
    "temporary" inodes of files the apply "created" (the old format), or their hashes (the
    new one, which an attacker who can read the files can compute)."""
    import hashlib

    entries = []
    for rel in ("config/app.conf", ".git/HEAD", ".git/config"):
        folder, _, name = rel.rpartition("/")
        data = (root / rel).read_bytes()
        entry = {"folder": folder, "name": name, "path": rel, "backup": None}
        entry["temp"] = ".llm-patch-0123456789abcdef.new"
        if version == 1:
            entry["temp_ino"] = (root / rel).stat().st_ino
        else:
            entry["new"] = [len(data), hashlib.sha256(data).hexdigest(), False]
            entry["old"] = None
        entries.append(entry)
    return {
        "version": version,
        "state": "commit",
        "pid": 1,
        "dirs": [".git/refs/tags"],
        "entries": entries,
    }


@pytest.mark.skipif(not ROOT, reason="planting as another user needs root")
@pytest.mark.parametrize("version", [1, 2])
def test_a_journal_another_user_wrote_is_refused_not_obeyed(tmp_path: Path, version, capsys):
    root = tmp_path / "shared"
    _victims(root)
    (root / JOURNAL_NAME).write_text(json.dumps(_planted(root, version)))
    os.chown(root / JOURNAL_NAME, 1000, 1000)  # uid 1000 can write the root, not the files
    before = tree(root)
    reply = tmp_path / "reply.md"
    reply.write_text("*** Begin Patch\n*** Add File: x.py\n+x = 1\n*** End Patch\n")
    assert cli.run(["apply", str(reply), "--root", str(root)]) == 1
    err = capsys.readouterr().err
    assert "refusing the journal" in err and "belongs to user 1000" in err, err
    assert "rolled back" not in err
    assert cli.run(["recover", "--root", str(root)]) == 1
    assert tree(root) == before  # nothing deleted, nothing applied, the journal left for a look


@pytest.mark.parametrize(
    "plant",
    ["group-writable", "symlink", "hard-link", "names .git", "names ../", "names .GIT"],
)
def test_a_journal_not_certainly_this_users_is_refused(tmp_path: Path, plant):
    root = tmp_path / "root"
    _victims(root)
    body = _planted(root, 2)
    if plant == "names .git":
        body["entries"] = body["entries"][1:]
    elif plant == "names ../":
        body["entries"][0]["folder"] = "../root/config"
    elif plant == "names .GIT":
        body["entries"][0]["folder"] = ".GIT"
    else:
        body["entries"] = body["entries"][:1]
    text = json.dumps(body)
    journal = root / JOURNAL_NAME
    if plant == "symlink":
        (tmp_path / "elsewhere.json").write_text(text)
        journal.symlink_to(tmp_path / "elsewhere.json")
    else:
        journal.write_text(text)
        os.chmod(journal, 0o664 if plant == "group-writable" else 0o600)
    if plant == "hard-link":
        os.link(journal, tmp_path / "another-name")
    before = tree(root)
    with pytest.raises(WriteError) as err:
        recover(root)
    assert "refusing the journal" in err.value.failure.message
    assert tree(root) == before


@pytest.mark.parametrize("folder", [".git\u200d/hooks", "GIT~1/hooks", ".git./hooks"])
def test_a_signed_journal_naming_another_spelling_of_git_is_refused(tmp_path: Path, folder):
    """Defence in depth: even a journal with this user's signature (which only an apply
    writes, and the plan never writes there) is refused when it names a folder a disk may
    resolve to `.git` (HFS+ ignorable code points, an NTFS short name, a trailing dot)."""
    root = tmp_path / "root"
    hook = root / folder / "pre-commit"
    hook.parent.mkdir(parents=True)
    hook.write_text("#!/bin/sh\n")
    import hashlib

    data = hook.read_bytes()
    fields = {
        "version": 2,
        "state": "commit",
        "pid": 1,
        "dirs": [],
        "entries": [
            {
                "folder": folder,
                "name": "pre-commit",
                "path": f"{folder}/pre-commit",
                "temp": ".llm-patch-0123456789abcdef.new",
                "backup": None,
                "new": [len(data), hashlib.sha256(data).hexdigest(), False],
                "old": None,
            }
        ],
    }
    (root / JOURNAL_NAME).write_text(json.dumps({**fields, "mac": signature(fields)}))
    os.chmod(root / JOURNAL_NAME, 0o600)
    before = tree(root)
    with pytest.raises(WriteError) as err:
        recover(root)
    assert "refusing the journal" in err.value.failure.message
    assert tree(root) == before


@pytest.mark.parametrize("version", [1, 2])
def test_a_journal_shipped_in_a_repository_is_refused(tmp_path: Path, version):
    """Checked out, it is the user's own file (mode 0644), and its hashes are exact — the
    shipper knows what the files hold. It lacks the signature of the user's key."""
    root = tmp_path / "root"
    _victims(root)
    body = _planted(root, version)
    body["entries"] = body["entries"][:1]
    body["dirs"] = ["config"]
    (root / JOURNAL_NAME).write_text(json.dumps(body))
    os.chmod(root / JOURNAL_NAME, 0o644)
    before = tree(root)
    with pytest.raises(WriteError) as err:
        recover(root)
    assert "refusing the journal" in err.value.failure.message
    assert tree(root) == before


def test_a_journal_signed_with_another_key_is_refused(tmp_path: Path, monkeypatch):
    root = tmp_path / "root"
    two_files(root)
    plan, ws = plan_for(root, TWO)
    crash_where(
        root,
        lambda: two_files(root),
        lambda: write_plan(plan, ws),
        monkeypatch,
        lambda: a_new_b_old(root),
    )
    monkeypatch.setenv("LLM_PATCH_STATE", str(tmp_path / "another-machine"))
    before = tree(root)
    with pytest.raises(WriteError) as err:
        recover(root)
    assert "signature" in err.value.failure.message
    assert tree(root) == before
    monkeypatch.undo()
    assert recover(root).outcome == "rolled back"


# --- 2. a rollback and an edit made in place meanwhile ---------------------------------------


def test_a_rollback_keeps_an_edit_made_in_place_to_a_file_already_renamed_in(
    tmp_path: Path, monkeypatch
):
    root = tmp_path / "root"
    two_files(root)
    plan, ws = plan_for(root, TWO)
    fired = []

    def editor_saves_in_place(n: int) -> None:
        if not fired and a_new_b_old(root):
            fired.append(n)
            with open(root / "a.py", "a") as fh:  # an editor that saves in place, `>>`
                fh.write("# mine\n")
            with open(root / "b.py", "a") as fh:  # and b.py: its check then fails
                fh.write("# also mine\n")

    count_steps(monkeypatch, editor_saves_in_place)
    with pytest.raises(WriteError) as err:
        write_plan(plan, ws)
    monkeypatch.undo()
    assert fired
    assert err.value.failure.code is ErrorCode.STALE_VERSION
    assert (root / "a.py").read_text() == "a = 2\n# mine\n"  # the edit is kept
    assert (root / "b.py").read_text() == "b = 1\n# also mine\n"
    message = err.value.failure.message
    assert "nothing was written" not in message
    assert "a.py changed after the apply began; kept; its old text is at" in message
    saved = err.value.failure.details["kept"][0].rpartition(" ")[2]
    assert (root / saved).read_text() == "a = 1\n"  # named, and there
    assert not (root / JOURNAL_NAME).exists()


_PAUSING_APPLY = """
import os, sys, time
from pathlib import Path
from lsp_server import cli, writer
root = Path(sys.argv[1])
real = writer.rename2
def pause_after_a(*args):
    done = real(*args)
    if (root / "a.py").read_text() == "a = 2\\n" and not (root.parent / "ready").exists():
        (root.parent / "ready").write_text("")
        {after}
    return done
writer.rename2 = pause_after_a
sys.exit(cli.run(["apply", sys.argv[2], "--root", str(root)]))
"""


def _run_pausing(tmp_path: Path, after: str) -> tuple[subprocess.Popen, Path]:
    root = tmp_path / "root"
    two_files(root)
    reply = tmp_path / "reply.md"
    reply.write_text(TWO)
    code = _PAUSING_APPLY.format(after=textwrap.indent(after, " " * 8).strip())
    proc = subprocess.Popen(
        [sys.executable, "-c", code, str(root), str(reply)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    for _ in range(6000):
        if (tmp_path / "ready").exists() or proc.poll() is not None:
            break
        time.sleep(0.01)
    assert (tmp_path / "ready").exists(), proc.communicate()
    return proc, root


def test_two_processes_an_edit_in_place_during_an_apply_is_kept(tmp_path: Path):
    """The apply in one process, paused right after it renamed a.py in; the "editor" in
    this one appends to a.py and to b.py in place; the apply goes on, finds b.py changed,
    rolls back — and a.py keeps the edit."""
    go = tmp_path / "go"
    proc, root = _run_pausing(
        tmp_path, f"while not os.path.exists({str(go)!r}):\n    time.sleep(0.01)"
    )
    with open(root / "a.py", "a") as fh:
        fh.write("# mine\n")
    with open(root / "b.py", "a") as fh:
        fh.write("# also mine\n")
    go.write_text("")
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 1, (out, err)
    assert (root / "a.py").read_text() == "a = 2\n# mine\n"
    assert (root / "b.py").read_text() == "b = 1\n# also mine\n"
    assert "a.py changed after the apply began; kept" in out + err, (out, err)


# --- 3. recovery and work done after the crash --------------------------------------------------


def test_recovery_keeps_a_file_edited_after_the_crash(tmp_path: Path, monkeypatch, capsys):
    root = tmp_path / "root"
    plan, ws = plan_for(_made(root, two_files), TWO)
    crash_where(
        root,
        lambda: two_files(root),
        lambda: write_plan(plan, ws),
        monkeypatch,
        lambda: a_new_b_old(root),
    )
    with open(root / "a.py", "a") as fh:  # hours of work, saved in place
        fh.write("def more():\n    return 1\n")
    assert cli.run(["recover", "--root", str(root)]) == 0
    out = capsys.readouterr().out
    assert (root / "a.py").read_text() == "a = 2\ndef more():\n    return 1\n"
    assert (root / "b.py").read_text() == "b = 1\n"  # untouched by the user: all old
    assert "a.py changed after the interrupted apply; kept; its old text is at" in out, out
    assert "every file is as it was" not in out
    saved = out.split("its old text is at ")[1].split()[0]
    assert (root / saved).read_text() == "a = 1\n"
    assert not (root / JOURNAL_NAME).exists()
    assert recover(root).outcome == "nothing"


def _made(root: Path, make) -> Path:
    make(root)
    return root


def test_two_processes_a_killed_apply_then_an_edit_then_recover(tmp_path: Path):
    """`llm-patch apply` really killed (SIGKILL) right after it renamed a.py in; the user
    edits a.py in place; `llm-patch recover` in a third process keeps the edit."""
    proc, root = _run_pausing(tmp_path, "os.kill(os.getpid(), 9)")
    proc.communicate(timeout=120)
    assert proc.returncode == -signal.SIGKILL
    assert (root / JOURNAL_NAME).exists()
    with open(root / "a.py", "a") as fh:
        fh.write("# mine\n")
    done = subprocess.run(
        [*CLI, "recover", "--root", str(root), "--json"], capture_output=True, text=True
    )
    assert done.returncode == 0, done
    report = json.loads(done.stdout)
    assert report["outcome"] == "rolled back"
    assert [k.split(";")[0] for k in report["kept"]] == ["a.py changed after the interrupted apply"]
    assert (root / "a.py").read_text() == "a = 2\n# mine\n"
    assert (root / "b.py").read_text() == "b = 1\n"


# --- 4. a file that reused a freed inode -----------------------------------------------------


def test_recovery_keeps_a_hand_written_file_that_reused_the_temporary_files_inode(
    tmp_path: Path, monkeypatch
):
    """Killed before `new/deeper/c.py` was renamed in; the user removes the `.new` litter and
    writes c.py by hand — on the inode the litter had (as ext4 hands a freed inode out)."""
    root = tmp_path / "root"
    make_project(root)
    plan, ws = plan_for(root)
    folder = root / "new" / "deeper"

    def temp_written_not_renamed() -> bool:
        temps = list(folder.glob(".llm-patch-*.new")) if folder.is_dir() else []
        done = [p for p in temps if p.read_bytes() == b"c = 1\n"]
        if not (root / JOURNAL_NAME).exists():
            return False
        state = json.loads((root / JOURNAL_NAME).read_text())["state"]
        return bool(done) and state == "commit" and not (folder / "c.py").exists()

    def reset() -> None:
        import shutil

        shutil.rmtree(root)
        make_project(root)

    crash_where(root, reset, lambda: write_plan(plan, ws), monkeypatch, temp_written_not_renamed)
    (temp,) = folder.glob(".llm-patch-*.new")
    ino = temp.stat().st_ino
    os.rename(temp, folder / "c.py")  # the same inode under the user's name...
    (folder / "c.py").write_text("c = 'typed by hand'\n")  # ...with the user's bytes
    assert (folder / "c.py").stat().st_ino == ino
    recover(root)
    assert (folder / "c.py").read_text() == "c = 'typed by hand'\n"


# --- 5. a damaged journal --------------------------------------------------------------------

DAMAGED = {
    "nested 200,000 deep": b"[" * 200_000 + b"]" * 200_000,
    "pid 1e999": b'{"version": 1, "state": "prepare", "pid": 1e999, "dirs": [], "entries": []}',
    "pid NaN": b'{"version": 2, "state": "prepare", "pid": NaN, "dirs": [], "entries": []}',
    "pid as a string": b'{"version": 2, "state": "prepare", "pid": "1", "dirs": [], "entries": []}',
    "entries an object": b'{"version": 2, "state": "commit", "pid": 1, "dirs": [], "entries": {}}',
    "entry a list": b'{"version": 2, "state": "commit", "pid": 1, "dirs": [], "entries": [[]]}',
    "dirs of numbers": b'{"version": 2, "state": "commit", "pid": 1, "dirs": [1], "entries": []}',
    "bad UTF-8": b'{"version": 2, "state": "\xff\xfe", "pid": 1, "dirs": [], "entries": []}',
    "a list": b"[1, 2, 3]",
    "empty": b"",
    "huge": b'{"pad": "' + b"x" * (17 * 1024 * 1024) + b'"}',
}


@pytest.mark.parametrize("name", list(DAMAGED))
def test_a_damaged_journal_is_a_clean_refusal_from_every_command(tmp_path: Path, name, capsys):
    root = tmp_path / "root"
    two_files(root)
    (root / JOURNAL_NAME).write_bytes(DAMAGED[name])
    reply = tmp_path / "reply.md"
    reply.write_text(TWO)
    before = tree(root)
    assert cli.run(["recover", "--root", str(root)]) == 1
    assert cli.run(["apply", str(reply), "--root", str(root)]) == 1
    err = capsys.readouterr().err
    assert err.count(f"llm-patch: {JOURNAL_NAME}: ") == 2, err  # a message, from each
    assert "Traceback" not in err
    assert tree(root) == before


# --- 6. a file system that makes inode numbers up --------------------------------------------


def made_up_inodes(monkeypatch) -> None:
    """As a FUSE file system that numbers inodes itself: a regular file's inode number is
    new at every look (and a second name of a file has another)."""
    real_stat, real_fstat = os.stat, os.fstat
    counter = [10**9]

    def scramble(st: os.stat_result) -> os.stat_result:
        import stat as s

        if not s.S_ISREG(st.st_mode):
            return st
        counter[0] += 1
        fields = list(st[:10])
        fields[1] = counter[0]
        extra = {
            k: getattr(st, k)
            for k in (
                "st_atime",
                "st_mtime",
                "st_ctime",
                "st_atime_ns",
                "st_mtime_ns",
                "st_ctime_ns",
                "st_blksize",
                "st_blocks",
                "st_rdev",
            )
        }
        return os.stat_result(fields, extra)

    monkeypatch.setattr(os, "stat", lambda *a, **k: scramble(real_stat(*a, **k)))
    monkeypatch.setattr(os, "fstat", lambda *a, **k: scramble(real_fstat(*a, **k)))


@pytest.fixture
def site(tmp_path: Path):
    done = tmp_path / "done"
    make_project(done)
    write_plan(*plan_for(done))
    root = tmp_path / "root"
    make_project(root)
    return root, tree(root), tree(done)


def test_made_up_inode_numbers_do_not_wedge_the_workspace(site, monkeypatch):
    root, _before, after = site
    plan, ws = plan_for(root)
    made_up_inodes(monkeypatch)
    write_plan(plan, ws)
    monkeypatch.undo()
    assert tree(root) == after  # applied, nothing left behind


def test_made_up_inode_numbers_crash_and_recover_at_every_step(site, monkeypatch):
    import shutil

    root, before, after = site
    plan, ws = plan_for(root)
    made_up_inodes(monkeypatch)
    for step in range(1, 200):
        shutil.rmtree(root)
        make_project(root)
        if die_at(step, monkeypatch, lambda: write_plan(plan, ws)) != 137:
            break
        recovery = recover(root)
        assert recovery.kept == (), (step, recovery)
        assert tree(root) in (before, after), f"killed before step {step}"
    assert step > 20


# --- 11. root and a read-only file --------------------------------------------------------------


@pytest.mark.skipif(not ROOT, reason="root's view of a read-only file")
@pytest.mark.parametrize("reply", ["modify", "delete"])
def test_root_does_not_replace_a_read_only_file(tmp_path: Path, reply):
    two_files(tmp_path)
    os.chmod(tmp_path / "a.py", 0o444)
    text = (
        search_replace("a.py", "a = 1\n", "a = 2\n")
        if reply == "modify"
        else "*** Begin Patch\n*** Delete File: a.py\n*** End Patch\n"
    )
    plan, ws = plan_for(tmp_path, text)
    with pytest.raises(WriteError) as err:
        write_plan(plan, ws)
    assert err.value.failure.code is ErrorCode.PERMISSION_DENIED
    assert "not writable" in err.value.failure.message
    assert (tmp_path / "a.py").read_text() == "a = 1\n"


def test_the_journal_loads_back_what_it_saved(tmp_path: Path, monkeypatch):
    """Every state a real apply saves reads back (the strict reader refuses nothing of ours)."""
    make_project(tmp_path)
    plan, ws = plan_for(tmp_path)
    seen = []
    real = writer.journal.save

    def spy(folders, record):
        real(folders, record)
        f = Folders(tmp_path)
        try:
            seen.append(load(f) == record)
        finally:
            f.close()

    monkeypatch.setattr(writer.journal, "save", spy)
    write_plan(plan, ws)
    assert seen == [True, True, True]


@pytest.mark.skipif(not ROOT, reason="a file of another user needs root")
def test_a_file_another_user_put_under_a_saved_name_is_not_put_back(tmp_path: Path, monkeypatch):
    """uid 1000 can write the root: after a crash it sees the saved `.old` name in the
    listing and puts its own text there. Recovery does not move that text over a.py."""
    root = tmp_path / "root"
    plan, ws = plan_for(_made(root, two_files), TWO)
    crash_where(
        root,
        lambda: two_files(root),
        lambda: write_plan(plan, ws),
        monkeypatch,
        lambda: a_new_b_old(root),
    )
    (saved,) = [p for p in root.glob(".llm-patch-*.old") if p.read_text() == "a = 1\n"]
    saved.unlink()
    saved.write_text("import evil\n")
    os.chown(saved, 1000, 1000)
    recovery = recover(root)
    assert (root / "a.py").read_text() == "a = 2\n"
    assert saved.read_text() == "import evil\n"
    assert any("a.py" in k for k in recovery.kept), recovery


_JSONISH = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=5)
    ),
    max_leaves=20,
)


def _journalish():
    entry = st.fixed_dictionaries(
        {
            k: _JSONISH
            | st.sampled_from(["", "a", ".git", "../x", ".llm-patch-0123456789abcdef.new"])
            for k in ("folder", "name", "path", "temp", "backup", "new", "old")
        }
    )
    return st.fixed_dictionaries(
        {
            "version": st.sampled_from([1, 2, 2.0, "2", True]),
            "state": st.sampled_from(["prepare", "commit", "committed", "x", 1]),
            "pid": _JSONISH,
            "dirs": _JSONISH,
            "entries": st.lists(entry, max_size=3) | _JSONISH,
        }
    )


@settings(
    max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(body=_journalish() | _JSONISH, mangle=st.binary(max_size=8))
def test_any_journal_is_obeyed_or_refused_never_a_crash(tmp_path_factory, body, mangle):
    root = tmp_path_factory.mktemp("j")
    if isinstance(body, dict):  # signed, so that every check after the signature is reached
        body = {**body, "mac": signature(body)}
    data = json.dumps(body).encode() + mangle
    (root / JOURNAL_NAME).write_bytes(data)
    os.chmod(root / JOURNAL_NAME, 0o600)
    folders = Folders(root)
    try:
        load(folders)
    except WriteError as err:
        assert "refusing the journal" in err.failure.message
    finally:
        folders.close()
