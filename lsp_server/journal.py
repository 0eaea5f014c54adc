"""The intent journal: what an apply is about to do, so an interrupted one can be finished.

Before its first temporary file, an apply writes `.llm-patch.journal` at the workspace root
naming every file it will touch, the temporary file that will hold each new text, the
saved name each old file will get, and the folders it will create. The journal moves
through three states, each written atomically and fsynced:

* `prepare` — temporary files are being written; no file of the user's has changed yet;
* `commit` — every new text is on disk (with its inode number): old files are being saved
  under their `.old` names and the new ones renamed in;
* `committed` — every rename is done and durable: what is left is removing saved files.

A run that dies anywhere leaves the journal behind. The next apply (or `llm-patch recover`)
reads it under the workspace lock: before `committed` it puts every saved file back and
removes every new one, so the tree is all old; at `committed` it only removes the leftovers,
so the tree is all new. Which step each file had reached is read from the disk itself (is
the saved name there? is the name the new file's inode?), so recovery needs no record per
rename and can itself be interrupted and run again.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import NamedTuple

from lsp_server.disk import (
    BACKUP_SUFFIX,
    JOURNAL_NAME,
    RESERVED_PREFIX,
    TEMP_SUFFIX,
    Folders,
    WriteError,
    fsync_folder,
    io_failure,
    lstat,
    read_regular,
    reserved_name,
    workspace_lock,
)
from lsp_server.model import ErrorCode, Failure

PREPARE = "prepare"
COMMIT = "commit"
COMMITTED = "committed"
_STATES = (PREPARE, COMMIT, COMMITTED)
_VERSION = 1
_MAX_JOURNAL_BYTES = 64 * 1024 * 1024
_OWN_NAME = re.compile(r"\.llm-patch-[0-9a-f]{16}\.(new|old)\Z")
_SAVING = ".journal"  # the suffix of a journal being written (renamed over the journal)
_SAVING_NAME = re.compile(r"\.llm-patch-[0-9a-f]{16}\.journal\Z")
# temporary files of versions before the journal (tempfile.mkstemp names), swept by `recover`
_LEGACY_TEMP = re.compile(r"\.llm-patch-[a-z0-9_]{8}\Z")


# The journal's records are NamedTuples rather than dataclasses: every apply defines them
# as it starts, and a NamedTuple costs a quarter as much to define (benchmarks/README.md,
# "What an apply waits for").
class Entry(NamedTuple):
    """One file name the apply changes, in the real folder (symlinks resolved) that holds it."""

    folder: str  # root-relative, "" for the root
    name: str
    path: str  # the path as the plan names it, for messages
    temp: str | None = None  # the new text's temporary name (None: the name is removed)
    backup: str | None = None  # the old file's saved name (None: the name did not exist)
    temp_ino: int | None = None  # the new text's inode, known from `commit` on


class Journal(NamedTuple):
    state: str
    entries: tuple[Entry, ...]
    dirs: tuple[str, ...]  # folders the apply creates, outermost first
    pid: int  # the process that wrote it


class Recovery(NamedTuple):
    """What a recovery did: `rolled back`, `completed`, or `nothing` to do."""

    outcome: str
    paths: tuple[str, ...] = ()  # the files the interrupted apply touched
    removed: int = 0  # temporary and saved files removed


def save(folders: Folders, journal: Journal) -> None:
    """Write the journal atomically and durably (a new file renamed over the old one)."""
    data = json.dumps(
        {
            "version": _VERSION,
            "state": journal.state,
            "pid": journal.pid,
            "dirs": list(journal.dirs),
            "entries": [e._asdict() for e in journal.entries],
        }
    ).encode()
    root = folders.root_fd
    tmp = reserved_name(_SAVING)
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600, dir_fd=root)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, JOURNAL_NAME, src_dir_fd=root, dst_dir_fd=root)
    except OSError:
        _unlink_quietly(root, tmp)
        raise
    fsync_folder(root)


def discard(folders: Folders) -> None:
    """The journal's work is done: remove it."""
    try:
        os.unlink(JOURNAL_NAME, dir_fd=folders.root_fd)
    except FileNotFoundError:
        return
    fsync_folder(folders.root_fd)


def pending(root: Path) -> bool:
    """True when an interrupted apply left its journal in `root`."""
    return os.path.lexists(root / JOURNAL_NAME)


def load(folders: Folders) -> Journal | None:
    """The journal at the root, or None. A journal that does not read as one is refused."""
    try:
        data, _ = read_regular(folders.root_fd, JOURNAL_NAME, _MAX_JOURNAL_BYTES)
    except FileNotFoundError:
        return None
    except Exception as err:  # a symlink, a FIFO, unreadable: not ours
        raise _damaged(f"it cannot be read ({err})") from None
    try:
        raw = json.loads(data)
        journal = Journal(
            state=raw["state"],
            pid=int(raw["pid"]),
            dirs=tuple(_rel(d) for d in raw["dirs"]),
            entries=tuple(_entry(e) for e in raw["entries"]),
        )
        ok = raw["version"] == _VERSION and journal.state in _STATES
    except (ValueError, KeyError, TypeError, AttributeError) as err:
        raise _damaged(f"it does not read as a journal ({err})") from None
    if not ok:
        raise _damaged("it is from another version of llm-patch")
    return journal


def _entry(raw: dict) -> Entry:
    temp, backup, ino = raw["temp"], raw["backup"], raw["temp_ino"]
    for own in (temp, backup):
        if own is not None and not _OWN_NAME.match(own):
            raise ValueError(f"{own!r} is not a name llm-patch uses")
    name = raw["name"]
    if not isinstance(name, str) or name in ("", ".", "..") or "/" in name or "\0" in name:
        raise ValueError(f"bad file name {name!r}")
    if ino is not None and not isinstance(ino, int):
        raise ValueError(f"bad inode {ino!r}")
    return Entry(_rel(raw["folder"]), name, str(raw["path"]), temp, backup, ino)


def _rel(folder: object) -> str:
    if not isinstance(folder, str):
        raise ValueError(f"bad folder {folder!r}")
    if folder == "":
        return folder
    parts = folder.split("/")
    if folder.startswith("/") or "\0" in folder or any(p in ("", ".", "..") for p in parts):
        raise ValueError(f"bad folder {folder!r}")
    return folder


def _damaged(why: str) -> WriteError:
    return WriteError(
        Failure(
            ErrorCode.IO_ERROR,
            f"{JOURNAL_NAME}: the journal of an interrupted apply is damaged: {why}; it was "
            "left in place and nothing was changed — look at it, then delete it",
            {"path": JOURNAL_NAME},
        )
    )


def with_inodes(journal: Journal, inodes: dict[int, int]) -> Journal:
    """The journal in state `commit`, each new text's inode recorded (by entry position)."""
    entries = tuple(
        e._replace(temp_ino=inodes.get(i, e.temp_ino)) for i, e in enumerate(journal.entries)
    )
    return journal._replace(state=COMMIT, entries=entries)


def undo(journal: Journal, folders: Folders) -> tuple[list[str], int]:
    """Put every entry back as it was; returns (paths that could not be, files removed).

    Each entry's progress is read from the disk. A saved `.old` file goes back to its name
    unless that name holds something that is neither the old file nor our new one (someone
    changed it since): that entry is left for a person to sort out and reported.
    """
    conflicts: list[str] = []
    removed = 0
    for e in reversed(journal.entries):
        try:
            fd = folders.fd(e.folder)
        except OSError:  # the folder is gone (or is no longer a folder): nothing of ours left
            continue
        try:
            removed += _undo_entry(e, fd, journal.state != PREPARE, conflicts)
        except OSError:
            conflicts.append(e.path)
    for rel in reversed(journal.dirs):
        _rmdir_quietly(folders, rel)
    return conflicts, removed


def _undo_entry(e: Entry, fd: int, started: bool, conflicts: list[str]) -> int:
    removed = 0
    current = lstat(fd, e.name)
    saved = lstat(fd, e.backup) if e.backup else None
    ours = current is not None and e.temp_ino is not None and current.st_ino == e.temp_ino
    if e.backup and saved is not None:
        if current is None or ours:
            os.replace(e.backup, e.name, src_dir_fd=fd, dst_dir_fd=fd)
        elif current.st_ino == saved.st_ino:
            os.unlink(e.backup, dir_fd=fd)  # a second link to the untouched original
            removed += 1
        else:
            conflicts.append(e.path)
    elif started and e.backup is None and ours:
        os.unlink(e.name, dir_fd=fd)  # a file this apply created
    if e.temp and lstat(fd, e.temp) is not None:
        os.unlink(e.temp, dir_fd=fd)
        removed += 1
    return removed


def finish(journal: Journal, folders: Folders) -> int:
    """A committed apply's leftovers: saved old files, temporary names, emptied folders."""
    removed = 0
    emptied: set[str] = set()
    for e in journal.entries:
        try:
            fd = folders.fd(e.folder)
        except OSError:
            continue
        for own in (e.backup, e.temp):
            if own and lstat(fd, own) is not None:
                os.unlink(own, dir_fd=fd)
                removed += 1
        if e.temp is None:
            emptied.add(e.folder)
    for rel in sorted(emptied, key=lambda r: -r.count("/")):
        while rel:
            if not _rmdir_quietly(folders, rel):
                break
            rel = rel.rpartition("/")[0]
    return removed


def _rmdir_quietly(folders: Folders, rel: str) -> bool:
    """Remove the folder `rel` if it is empty; True when it is gone."""
    parent, _, name = rel.rpartition("/")
    folders.forget(rel)
    try:
        os.rmdir(name, dir_fd=folders.fd(parent))
    except OSError:
        return False
    return True


def _unlink_quietly(fd: int, name: str) -> None:
    try:
        os.unlink(name, dir_fd=fd)
    except OSError:
        pass


def recover(root: Path, sweep: bool = False) -> Recovery:
    """Finish or undo an interrupted apply in `root`, under the workspace lock.

    With `sweep`, temporary files that no journal names (left by versions of llm-patch
    before the journal) are removed from the whole tree too.
    """
    root = Path(os.path.realpath(root))
    with workspace_lock(root):
        folders = Folders(root)
        try:
            return _recover(folders, sweep)
        finally:
            folders.close()


def recover_open(folders: Folders) -> Recovery:
    """`recover` for a caller that already holds the lock and the root's folders."""
    return _recover(folders, sweep=False)


def _recover(folders: Folders, sweep: bool) -> Recovery:
    _drop_unsaved(folders)
    journal = load(folders)
    if journal is None:
        return Recovery("nothing", removed=_sweep(folders.root) if sweep else 0)
    removed = 0
    paths = tuple(dict.fromkeys(e.path for e in journal.entries))
    if journal.state == COMMITTED:
        try:
            removed += finish(journal, folders)
        except OSError as err:
            raise io_failure(
                JOURNAL_NAME, err, "the interrupted apply could not be finished"
            ) from None
        discard(folders)
        return Recovery("completed", paths, removed + (_sweep(folders.root) if sweep else 0))
    conflicts, undone = undo(journal, folders)
    if conflicts:
        raise WriteError(
            Failure(
                ErrorCode.STALE_VERSION,
                f"{', '.join(conflicts)}: changed after an apply was interrupted, so the "
                f"interrupted apply was not rolled back there; the old text is in the "
                f"{RESERVED_PREFIX}*{BACKUP_SUFFIX} file beside it and {JOURNAL_NAME} says "
                "which — keep the version you want, then delete the journal",
                {"path": conflicts[0], "paths": conflicts},
            )
        )
    discard(folders)
    removed += undone + (_sweep(folders.root) if sweep else 0)
    return Recovery("rolled back", paths, removed)


def _drop_unsaved(folders: Folders) -> None:
    """A journal that was being written when its apply died never took effect: remove it.
    (Under the workspace lock no other apply is writing one.)"""
    for name in os.listdir(folders.root_fd):
        if _SAVING_NAME.match(name):
            _unlink_quietly(folders.root_fd, name)


def _sweep(root: Path) -> int:
    """Remove temporary files no journal names: `.llm-patch-*.new` and the older names."""
    removed = 0
    for folder, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if d not in (".git", ".hg", ".svn")]
        for name in files:
            if not (name.endswith(TEMP_SUFFIX) and _OWN_NAME.match(name)) and not (
                _LEGACY_TEMP.match(name)
            ):
                continue
            path = Path(folder) / name
            if path.is_symlink() or not path.is_file():
                continue
            try:
                path.unlink()
                removed += 1
            except OSError:
                pass
    return removed
