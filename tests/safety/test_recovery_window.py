"""Recovery and rollback never lose a save made while they work (issue 23, item 3's window).

Recovery judged a file by its SHA-256 and then renamed the saved old file over it: an
editor that saved in place between the two lost its save, and a writer that had the file
open before wrote into a file that was then gone. Now the file is first renamed aside, its
bytes are judged there (while nobody holds it open for writing, where the kernel can tell:
a read lease), and the old file goes back only where nothing is; anything written meanwhile
is put back under its name, or kept and named. The same code undoes a live apply (the
rollback in `writer.py`), so the window is tested there too.

Each window is made deterministic by running the write at exactly that point (a hook on the
judging or on the rename); a property test writes into a random name before a random one of
the recovery's own disk-changing calls, and checks no byte written is lost.
"""

from __future__ import annotations

import fcntl
import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lsp_server import journal
from lsp_server.disk import JOURNAL_NAME, WriteError
from lsp_server.journal import NEW, recover
from lsp_server.model import ErrorCode
from lsp_server.writer import write_plan

from .writer_support import count_steps, crash_where, plan_for, search_replace

TWO = search_replace("a.py", "a = 1\n", "a = 2\n") + search_replace("b.py", "b = 1\n", "b = 2\n")


def two_files(root: Path) -> None:
    root.mkdir(exist_ok=True)
    (root / "a.py").write_text("a = 1\n")
    (root / "b.py").write_text("b = 1\n")


def a_new_b_old(root: Path) -> bool:
    return (root / "a.py").read_text() == "a = 2\n" and (root / "b.py").read_text() == "b = 1\n"


def crashed(tmp_path: Path, monkeypatch) -> Path:
    """A tree an apply of TWO died in after renaming a.py in (b.py not yet)."""
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
    assert (root / JOURNAL_NAME).exists()
    return root


def save_in_place_when_judged(monkeypatch, root: Path, text: str) -> list[str]:
    """An editor's save into a.py right after recovery judged it to hold the new text: the
    check-then-rename window."""
    real = journal.identify
    fired: list[str] = []

    def identify(fd, name, e):
        found = real(fd, name, e)
        if name == "a.py" and found.kind == NEW and not fired:
            fired.append(name)
            with open(root / "a.py", "a") as fh:
                fh.write(text)
        return found

    monkeypatch.setattr(journal, "identify", identify)
    return fired


def test_a_save_in_place_between_the_check_and_the_rename_survives_recovery(
    tmp_path: Path, monkeypatch
):
    root = crashed(tmp_path, monkeypatch)
    fired = save_in_place_when_judged(monkeypatch, root, "# saved meanwhile\n")
    done = recover(root)
    monkeypatch.undo()
    assert fired
    assert (root / "a.py").read_text() == "a = 2\n# saved meanwhile\n"  # the save is there
    assert (root / "b.py").read_text() == "b = 1\n"
    assert done.outcome == "rolled back"
    [note] = [k for k in done.kept if k.startswith("a.py")]
    assert "a.py changed after the interrupted apply; kept; its old text is at" in note
    saved = note.rpartition(" ")[2]
    assert (root / saved).read_text() == "a = 1\n"
    assert not (root / JOURNAL_NAME).exists()
    assert recover(root).outcome == "nothing"


def test_a_write_through_a_descriptor_opened_before_survives_recovery(tmp_path: Path, monkeypatch):
    """An editor opened a.py before recovery moved it, and writes once the move is done: the
    write lands in the file moved aside, which is judged after, and put back."""
    root = crashed(tmp_path, monkeypatch)
    editor = open(root / "a.py", "a")  # noqa: SIM115 - held open across the recovery
    real = os.replace
    fired: list[str] = []

    def replace(src, dst, *args, **kwargs):
        done = real(src, dst, *args, **kwargs)
        if "a.py" in (src, dst) and not fired:
            fired.append(f"{src} -> {dst}")
            editor.write("# written through the open file\n")
            editor.flush()
        return done

    try:
        monkeypatch.setattr(os, "replace", replace)
        done = recover(root)
        monkeypatch.undo()
    finally:
        editor.close()
    assert fired
    assert (root / "a.py").read_text() == "a = 2\n# written through the open file\n"
    assert any(k.startswith("a.py changed after the interrupted apply; kept") for k in done.kept)


def leases_work(folder: Path) -> bool:
    probe = folder / "lease-probe"
    probe.write_text("x")
    fd = os.open(probe, os.O_RDONLY)
    try:
        fcntl.fcntl(fd, fcntl.F_SETLEASE, fcntl.F_RDLCK)
        fcntl.fcntl(fd, fcntl.F_SETLEASE, fcntl.F_UNLCK)
        return True
    except (OSError, AttributeError):
        return False
    finally:
        os.close(fd)
        probe.unlink()


def test_a_file_held_open_for_writing_is_never_removed(tmp_path: Path, monkeypatch):
    """An editor holds a.py open for writing through the whole recovery and writes after it:
    its bytes are still the new text when judged, but a writer holds it open (the kernel's
    read lease is refused), so it is not proven — it stays under its name, and the write
    that comes later lands in a file that is there."""
    if not leases_work(tmp_path):
        pytest.skip("no file leases on this system: the open writer cannot be seen")
    root = crashed(tmp_path, monkeypatch)
    editor = open(root / "a.py", "r+")  # noqa: SIM115 - held open across the recovery
    try:
        done = recover(root)
        editor.seek(0, os.SEEK_END)
        editor.write("# written later\n")
    finally:
        editor.close()
    assert (root / "a.py").read_text() == "a = 2\n# written later\n"
    assert (root / "b.py").read_text() == "b = 1\n"
    assert any(k.startswith("a.py changed after the interrupted apply; kept") for k in done.kept)


def test_a_save_in_place_in_the_window_survives_a_rollback(tmp_path: Path, monkeypatch):
    """The same window in an apply undoing itself (b.py changed under it, so it rolls
    back): a save into a.py right after the rollback judged it is kept, and named."""
    root = tmp_path / "root"
    two_files(root)
    plan, ws = plan_for(root, TWO)
    stale: list[int] = []

    def b_changes(n: int) -> None:
        if not stale and a_new_b_old(root):
            stale.append(n)
            with open(root / "b.py", "a") as fh:  # b.py's check then fails: a rollback
                fh.write("# b, meanwhile\n")

    count_steps(monkeypatch, b_changes)
    fired = save_in_place_when_judged(monkeypatch, root, "# a, in the window\n")
    with pytest.raises(WriteError) as err:
        write_plan(plan, ws)
    monkeypatch.undo()
    assert stale and fired
    assert err.value.failure.code is ErrorCode.STALE_VERSION
    assert (root / "a.py").read_text() == "a = 2\n# a, in the window\n"
    assert (root / "b.py").read_text() == "b = 1\n# b, meanwhile\n"
    message = err.value.failure.message
    assert "nothing was written" not in message
    assert "a.py changed after the apply began; kept; its old text is at" in message
    assert not (root / JOURNAL_NAME).exists()


# --- the property: recovery never touches a byte it cannot prove it wrote --------------------

OLD = {"f0.py": b"f0 = 'old'\n", "f1.py": b"f1 = 'old'\n", "d.py": b"d = 'old'\n"}
REPLY = (
    search_replace("f0.py", "f0 = 'old'\n", "f0 = 'new'\n")
    + search_replace("f1.py", "f1 = 'old'\n", "f1 = 'new'\n")
    + "*** Begin Patch\n*** Add File: pkg/n.py\n+n = 'new'\n*** Delete File: d.py\n*** End Patch\n"
)
NAMES = ["f0.py", "f1.py", "d.py", "pkg/n.py"]


def make(root: Path) -> None:
    import shutil

    if root.exists():
        shutil.rmtree(root)
    root.mkdir()
    for name, data in OLD.items():
        (root / name).write_bytes(data)


def files(root: Path) -> dict[str, bytes]:
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in root.rglob("*")
        if p.is_file() and not p.is_symlink()
    }


@pytest.fixture(scope="module")
def crash_site(tmp_path_factory):
    """The tree an apply of REPLY died in at each of its steps, kept once per step."""
    from .writer_support import die_at

    base = tmp_path_factory.mktemp("window")
    root = base / "root"
    make(root)
    plan, ws = plan_for(root, REPLY)
    with pytest.MonkeyPatch.context() as mp:
        counter = count_steps(mp)
        write_plan(plan, ws)
    total = counter[0]
    sites = []
    for step in range(1, total + 1):
        make(root)
        plan, ws = plan_for(root, REPLY)
        with pytest.MonkeyPatch.context() as mp:
            assert die_at(step, mp, lambda plan=plan, ws=ws: write_plan(plan, ws)) == 137
        keep = base / f"step{step}"
        os.rename(root, keep)
        sites.append(keep)
    return base, sites


def copy_tree(src: Path, dst: Path) -> None:
    import shutil

    if dst.exists():
        shutil.rmtree(dst)
    shutil.copytree(src, dst, symlinks=True)
    if (dst / JOURNAL_NAME).exists():
        os.chmod(dst / JOURNAL_NAME, 0o600)


@settings(
    max_examples=200,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    site=st.integers(0, 10_000),
    at=st.integers(1, 12),
    how=st.lists(st.sampled_from(["append", "rewrite", None]), min_size=4, max_size=4),
)
def test_recovery_never_loses_a_write_made_while_it_works(crash_site, site, at, how):
    """A user writes into names (in place: `>>`, or truncating and rewriting) just before a
    random one of the recovery's disk-changing calls. After the recovery, the bytes each
    name held right after that write are a whole file of the tree — at its name, or kept
    under a name the recovery reports."""
    base, sites = crash_site
    root = base / "run"
    copy_tree(sites[site % len(sites)], root)
    wrote: dict[str, bytes] = {}

    def user_writes(n: int) -> None:
        if n != at:
            return
        for name, kind in zip(NAMES, how, strict=True):
            path = root / name
            if kind is None or not path.parent.is_dir():
                continue
            with open(path, "ab" if kind == "append" else "wb") as fh:
                fh.write(f"# the user's {kind} of {name}\n".encode())
            wrote[name] = path.read_bytes()

    with pytest.MonkeyPatch.context() as mp:
        count_steps(mp, user_writes)
        done = recover(root)
    now = files(root)
    for name, data in wrote.items():
        assert data in now.values(), (name, data, now)
        where = [p for p, d in now.items() if d == data]
        if name not in where:  # not at its name: kept elsewhere, and the report says where
            assert any(w in " ".join(done.kept) for w in where), (where, done.kept)
    assert not (root / JOURNAL_NAME).exists()
    assert not [n for n in now if ".llm-patch" in n and n.endswith(".new")], now


def test_an_apply_names_the_old_file_a_program_holds_open_for_writing(tmp_path: Path):
    """A program opened a.py for writing before the apply and writes after it: its write
    goes to the old file, which the apply no longer removes (the kernel says a writer holds
    it) — kept beside the tree, and `write_plan` names where, as `llm-patch apply` says."""
    if not leases_work(tmp_path):
        pytest.skip("no file leases on this system: the open writer cannot be seen")
    root = tmp_path / "root"
    two_files(root)
    plan, ws = plan_for(root, TWO)
    editor = open(root / "a.py", "r+")  # noqa: SIM115 - held open across the apply
    try:
        notes = write_plan(plan, ws)
        editor.seek(0, os.SEEK_END)
        editor.write("# written after the apply\n")
    finally:
        editor.close()
    assert (root / "a.py").read_text() == "a = 2\n"
    assert (root / "b.py").read_text() == "b = 2\n"
    [note] = notes
    kept = note.split(",")[0]
    assert note.endswith(
        "the old file of a.py, changed after the apply (or a program still holds it open "
        "for writing); kept"
    )
    assert (root / kept).read_text() == "a = 1\n# written after the apply\n"
    assert not (root / JOURNAL_NAME).exists()


def test_an_old_file_held_open_is_kept_when_an_atomic_save_stops_the_apply(
    tmp_path: Path, monkeypatch
):
    """An editor saves a.py atomically (a new file renamed over it) right before the apply's
    exchange, while another program holds the old a.py open for writing: the apply gives
    the name back to the save and rolls back; the old file, still open for writing, is not
    removed — what that program writes into it afterwards is kept, and named."""
    if not leases_work(tmp_path):
        pytest.skip("no file leases on this system: the open writer cannot be seen")
    from lsp_server import writer

    root = tmp_path / "root"
    two_files(root)
    plan, ws = plan_for(root, TWO)
    holder = open(root / "a.py", "r+")  # noqa: SIM115 - the old file, held open
    real = writer.rename2
    saved: list[int] = []

    def rename2(folder, src, dst, flags):
        if dst == "a.py" and flags == writer.RENAME_EXCHANGE and not saved:
            saved.append(1)
            (root / "a.swp").write_text("a = 'saved by the editor'\n")
            os.replace(root / "a.swp", root / "a.py")
        return real(folder, src, dst, flags)

    monkeypatch.setattr(writer, "rename2", rename2)
    try:
        with pytest.raises(WriteError) as err:
            write_plan(plan, ws)
        holder.seek(0, os.SEEK_END)
        holder.write("# the other program\n")
    finally:
        holder.close()
    monkeypatch.undo()
    assert saved and err.value.failure.code is ErrorCode.STALE_VERSION
    assert (root / "a.py").read_text() == "a = 'saved by the editor'\n"
    assert (root / "b.py").read_text() == "b = 1\n"
    kept = [k for k in err.value.failure.details.get("kept", []) if k.startswith("a.py")]
    assert kept, err.value.failure.message
    old_at = kept[0].rpartition(" ")[2]
    assert (root / old_at).read_text() == "a = 1\n# the other program\n"


def test_two_processes_a_file_an_editor_holds_open_survives_recover(tmp_path: Path, monkeypatch):
    """The editor (this process) holds a.py open for writing while `llm-patch recover` runs
    in another process, and writes once it is done: the write lands in a.py."""
    import subprocess
    import sys

    if not leases_work(tmp_path):
        pytest.skip("no file leases on this system: the open writer cannot be seen")
    root = crashed(tmp_path, monkeypatch)
    monkeypatch.undo()
    editor = open(root / "a.py", "r+")  # noqa: SIM115 - held open across the recovery
    try:
        done = subprocess.run(
            [sys.executable, "-m", "lsp_server.cli", "recover", "--root", str(root)],
            capture_output=True,
            text=True,
            timeout=120,
        )
        editor.seek(0, os.SEEK_END)
        editor.write("# written after recover\n")
    finally:
        editor.close()
    assert done.returncode == 0, done.stderr
    assert (root / "a.py").read_text() == "a = 2\n# written after recover\n"
    assert (root / "b.py").read_text() == "b = 1\n"
    assert "a.py changed after the interrupted apply; kept" in done.stdout, done.stdout
