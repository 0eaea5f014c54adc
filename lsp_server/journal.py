"""The intent journal: what an apply is about to do, so an interrupted one can be finished.

Before its first temporary file, an apply writes `.llm-patch.journal` at the workspace root
naming every file it will touch, the temporary file that will hold each new text, the
saved name each old file will get, the folders it will create — and the size and SHA-256
of every new text and every saved old text. The journal moves through three states, each
written atomically and fsynced:

* `prepare` — temporary files are being written; no file of the user's has changed yet;
* `commit` — every new text is on disk: old files are being saved under their `.old`
  names and the new ones renamed in;
* `committed` — every rename is done and durable: what is left is removing saved files.

A run that dies anywhere leaves the journal behind. The next apply (or `llm-patch recover`)
reads it under the workspace lock: before `committed` it puts every saved file back and
removes every new one, so the tree is all old; at `committed` it only removes the leftovers,
so the tree is all new. Which step each file had reached is read from the disk itself.

Recovery acts only on proof. A file is removed, or a saved file put back over it, only when
its bytes are exactly a text the journal names (the new text it wrote, or the old text it
saved); anything else — a file edited in place after the crash, a hand-written file that
happens to reuse a freed inode number — is left as it is and named in the report, with
where its old text is. Inode numbers prove nothing here. And a journal is obeyed only when
it can only be this user's own: a regular file they own that nobody else may write, naming
only paths inside the root and outside version-control folders (see `load`).
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import re
import stat
from pathlib import Path
from typing import NamedTuple

from lsp_server.disk import (
    BACKUP_SUFFIX,
    JOURNAL_NAME,
    LOCK_NAME,
    TEMP_SUFFIX,
    Folders,
    NotRegular,
    WriteError,
    fsync_folder,
    io_failure,
    lstat,
    place,
    read_regular,
    remove_proven,
    reserved_name,
    workspace_lock,
)
from lsp_server.model import ErrorCode, Failure
from lsp_server.workspace import protected_reason

PREPARE = "prepare"
COMMIT = "commit"
COMMITTED = "committed"
_STATES = (PREPARE, COMMIT, COMMITTED)
_VERSION = 2
# ~300 bytes an entry: a journal of 30,000 files; more is not one llm-patch wrote
_MAX_JOURNAL_BYTES = 16 * 1024 * 1024
_MAX_NAME = 4096
_OWN_NAME = re.compile(r"\.llm-patch-[0-9a-f]{16}\.(new|old)\Z")
_READ_LIMIT = 16 * 1024 * 1024  # a file no larger is read to compare it (see `identify`)
_HASH = re.compile(r"[0-9a-f]{64}\Z")
_SAVING = ".journal"  # the suffix of a journal being written (renamed over the journal)
_SAVING_NAME = re.compile(r"\.llm-patch-[0-9a-f]{16}\.journal\Z")
# temporary files of versions before the journal (tempfile.mkstemp names), swept by `recover`
_LEGACY_TEMP = re.compile(r"\.llm-patch-[a-z0-9_]{8}\Z")
# what a journal may never name: version control's own folders (and a worktree's `.git`
# file), compared as a case-insensitive file system would
_VCS = frozenset({".git", ".hg", ".svn"})


# The journal's records are NamedTuples rather than dataclasses: every apply defines them
# as it starts, and a NamedTuple costs a quarter as much to define (benchmarks/README.md,
# "What an apply waits for").
class Text(NamedTuple):
    """A text the journal vouches for: its size and SHA-256 (hex). `link`: a symlink's
    target rather than a file's bytes."""

    size: int
    sha256: str
    link: bool = False


class Entry(NamedTuple):
    """One file name the apply changes, in the real folder (symlinks resolved) that holds it."""

    folder: str  # root-relative, "" for the root
    name: str
    path: str  # the path as the plan names it, for messages
    temp: str | None = None  # the new text's temporary name (None: the name is removed)
    backup: str | None = None  # the old file's saved name (None: the name did not exist)
    new: Text | None = None  # what the temporary file holds
    old: Text | None = None  # what the saved file holds


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
    kept: tuple[str, ...] = ()  # files left as they were, each with why and where its text is


class Undone(NamedTuple):
    """What undoing (or finishing) a journal did."""

    kept: tuple[str, ...]  # sentences: a file left as it is, and where its old text is
    failed: tuple[str, ...]  # paths an OS error stopped (the journal must stay)
    removed: int


def text_of(data: bytes, link: bool = False) -> Text:
    return Text(len(data), hashlib.sha256(data).hexdigest(), link)


def save(folders: Folders, journal: Journal) -> None:
    """Write the journal atomically and durably (a new file renamed over the old one)."""
    fields = {
        "version": _VERSION,
        "state": journal.state,
        "pid": journal.pid,
        "dirs": list(journal.dirs),
        "entries": [_entry_json(e) for e in journal.entries],
    }
    data = json.dumps({**fields, "mac": signature(fields)}).encode()
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


def _entry_json(e: Entry) -> dict:
    out = e._asdict()
    out["new"] = None if e.new is None else list(e.new)
    out["old"] = None if e.old is None else list(e.old)
    return out


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


# --- reading a journal: refuse anything that is not certainly ours ---------------------------


def load(folders: Folders) -> Journal | None:
    """The journal at the root, or None. A journal that is not certainly this user's own,
    or does not read as one, is refused (`WriteError`), never obeyed: it must be a regular
    file (not a symlink, one link) owned by the user running this, writable by nobody else,
    at most 16 MiB of JSON of exactly the expected shape, naming only folders under the root
    and outside version-control folders. Every malformed journal is such a refusal."""
    try:
        data, st = read_regular(folders.root_fd, JOURNAL_NAME, _MAX_JOURNAL_BYTES)
    except FileNotFoundError:
        return None
    except OSError as err:  # a symlink (ELOOP), unreadable
        raise _refused(f"it cannot be read ({err.strerror or err})") from None
    except Exception:  # a FIFO, a folder, a device: not a journal
        raise _refused("it is not a regular file") from None
    _trusted(st)
    if len(data) > _MAX_JOURNAL_BYTES:
        raise _refused("it is larger than any journal llm-patch writes")
    try:
        raw = json.loads(data, parse_constant=_no_constant, parse_float=_no_float)
        if not isinstance(raw, dict):
            raise _Bad("it is not a JSON object")
        if raw.get("version") == 1:
            raise _Bad(
                "it was written by an earlier llm-patch, which recorded no content hashes, so "
                "nothing proves which files it wrote; the .llm-patch-*.old files it names hold "
                "the old texts"
            )
        if raw.get("version") != _VERSION:
            raise _Bad("it is from another version of llm-patch")
        _signed(raw)
        state, pid, dirs, entries = raw["state"], raw["pid"], raw["dirs"], raw["entries"]
        if state not in _STATES or type(pid) is not int:
            raise _Bad("bad state or pid")
        if not isinstance(dirs, list) or not isinstance(entries, list):
            raise _Bad("bad dirs or entries")
        journal = Journal(
            state=state,
            pid=pid,
            dirs=tuple(_rel(d) for d in dirs),
            entries=tuple(_entry(e) for e in entries),
        )
    except _Bad as err:
        raise _refused(str(err)) from None
    except (ValueError, KeyError, TypeError, RecursionError, OverflowError, MemoryError) as err:
        # ValueError covers bad UTF-8 and bad JSON; RecursionError a deeply nested one
        raise _refused(f"it does not read as a journal ({type(err).__name__})") from None
    return journal


class _Bad(ValueError):
    pass


# --- the user's key: a journal committed to a repository or shipped in a tarball is the
# user's own file once checked out, so owner and mode cannot tell it from one llm-patch
# wrote. Every journal carries an HMAC made with a key only this user can read (kept
# outside the workspace); one without a valid HMAC is refused.

KEY_ENV = "LLM_PATCH_STATE"  # the folder of the key (tests, or a home that is read-only)
_KEY_BYTES = 32
_keys: dict[str, bytes] = {}


def key_path() -> Path:
    setting = os.environ.get(KEY_ENV)
    if setting:
        return Path(setting) / "journal.key"
    base = os.environ.get("XDG_STATE_HOME") or os.path.join(
        os.path.expanduser("~"), ".local", "state"
    )
    return Path(base) / "llm-patch" / "journal.key"


def user_key(create: bool = False) -> bytes | None:
    """This user's key, made on first use (`create`); None where none can be kept (a home
    that cannot be written): journals are then written unsigned, and only an unsigned
    journal is obeyed on that machine — the proof by bytes still applies."""
    path = key_path()
    cached = _keys.get(str(path))
    if cached is not None:
        return cached
    key = _read_key(path)
    if key is None and create:
        try:
            path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
            tmp = path.with_name(reserved_name(".key"))
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
            try:
                os.write(fd, os.urandom(_KEY_BYTES))
                os.fsync(fd)
            finally:
                os.close(fd)
            try:
                os.link(tmp, path)  # never over a key another process made meanwhile
            except FileExistsError:
                pass
            finally:
                os.unlink(tmp)
        except OSError:
            return None
        key = _read_key(path)
    if key is not None:
        _keys[str(path)] = key
    return key


def _read_key(path: Path) -> bytes | None:
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK)
    except OSError:
        return None
    try:
        st = os.fstat(fd)
        if (
            not stat.S_ISREG(st.st_mode)
            or st.st_uid != os.geteuid()
            or st.st_mode & 0o077
            or st.st_size != _KEY_BYTES
        ):
            return None  # not a key only this user can read
        data = os.read(fd, _KEY_BYTES + 1)
        return data if len(data) == _KEY_BYTES else None
    finally:
        os.close(fd)


def signature(fields: dict) -> str | None:
    """The HMAC a journal with these fields carries (None where no key can be kept)."""
    key = user_key(create=True)
    return None if key is None else _mac(key, fields)


def _mac(key: bytes, fields: dict) -> str:
    return hmac.new(key, json.dumps(fields).encode(), hashlib.sha256).hexdigest()


def _signed(raw: dict) -> None:
    """The journal's HMAC is this user's (see above); removes it from `raw`."""
    mac = raw.pop("mac", None)
    key = user_key(create=True)  # a user with no key yet gets one: nothing unsigned passes
    if mac is None and key is None:
        return  # written where no key could be kept, read where none can be: bytes decide
    if not isinstance(mac, str) or key is None or not hmac.compare_digest(mac, _mac(key, raw)):
        raise _Bad(
            "it does not carry your llm-patch key's signature (a journal committed to a "
            "repository, shipped in a tarball or written by someone else is never obeyed)"
        )


def _no_constant(name: str) -> object:
    raise _Bad(f"{name} is not a value a journal holds")


def _no_float(text: str) -> object:
    raise _Bad("a journal holds no fractional numbers")


def _trusted(st: os.stat_result) -> None:
    """Only this user's own journal is obeyed: one another user could write is a set of
    instructions from them (they could name any file this user may remove)."""
    if not stat.S_ISREG(st.st_mode) or st.st_nlink != 1:
        raise _refused("it is not a plain file (a hard link to it exists elsewhere)")
    if st.st_uid != os.geteuid():
        raise _refused(
            f"it belongs to user {st.st_uid}, not to you (user {os.geteuid()}): another user "
            "could have written it"
        )
    if st.st_mode & 0o022:
        raise _refused(
            f"other users may write it (mode {stat.S_IMODE(st.st_mode):04o}): they could "
            "have written it"
        )


def _entry(raw: object) -> Entry:
    if not isinstance(raw, dict):
        raise _Bad("an entry is not an object")
    temp, backup = raw["temp"], raw["backup"]
    for own in (temp, backup):
        if own is not None and not (isinstance(own, str) and _OWN_NAME.match(own)):
            raise _Bad(f"{own!r} is not a name llm-patch uses")
    folder = _rel(raw["folder"])
    name = raw["name"]
    if not _plain_name(name) or name.startswith(".llm-patch") or name == LOCK_NAME:
        raise _Bad(f"bad file name {name!r}")
    path = raw["path"]
    if not isinstance(path, str) or len(path) > _MAX_NAME:
        raise _Bad("bad path")
    new, old = _text(raw["new"]), _text(raw["old"])
    if (temp is None) != (new is None) or (backup is None) != (old is None):
        raise _Bad(f"{name!r}: a temporary or saved name without its text, or the reverse")
    if new is not None and new.link:
        raise _Bad("a new text is never a symlink")
    return Entry(folder, name, path, temp, backup, new, old)


def _text(raw: object) -> Text | None:
    if raw is None:
        return None
    if not isinstance(raw, list) or len(raw) != 3:
        raise _Bad("a text is not [size, sha256, link]")
    size, sha, link = raw
    if type(size) is not int or size < 0 or not isinstance(sha, str) or not _HASH.match(sha):
        raise _Bad("bad size or hash")
    if type(link) is not bool:
        raise _Bad("bad link flag")
    return Text(size, sha, link)


def _plain_name(name: object) -> bool:
    return (
        isinstance(name, str)
        and 0 < len(name) <= 255
        and name not in (".", "..")
        and "/" not in name
        and "\0" not in name
        and name.casefold().rstrip(". ") not in _VCS
        # every other spelling a disk may resolve to a version-control folder (`.git\u200d`
        # on HFS+, `GIT~1` on NTFS): the plan never writes there, so no journal names one
        and protected_reason(name) is None
    )


def _rel(folder: object) -> str:
    if not isinstance(folder, str) or len(folder) > _MAX_NAME:
        raise _Bad("bad folder")
    if folder == "":
        return folder
    if not all(_plain_name(p) for p in folder.split("/")):
        raise _Bad(f"bad folder {folder!r} (outside the root, or version control's own)")
    return folder


def _refused(why: str) -> WriteError:
    return WriteError(
        Failure(
            ErrorCode.IO_ERROR,
            f"{JOURNAL_NAME}: refusing the journal of an interrupted apply: {why}. It was "
            "not obeyed, it was left in place, and nothing was changed — look at it, then "
            "delete it",
            {"path": JOURNAL_NAME},
        )
    )


# --- what a name holds, judged by its bytes ---------------------------------------------------

ABSENT, NEW, OLD, OTHER = "absent", "new", "old", "other"


class Found(NamedTuple):
    kind: str  # ABSENT, NEW, OLD or OTHER
    sha256: str | None = None  # of what is there (None when it was not read)
    size: int = -1
    regular: bool = False
    links: int = 0
    uid: int = -1


def identify(fd: int, name: str, e: Entry) -> Found:
    """What `name` in the folder `fd` holds: the entry's new text, its old text, something
    else, or nothing. Only bytes decide; a file larger than both texts and 16 MiB is
    not read (it is neither, and a huge planted file costs one stat)."""
    st = lstat(fd, name)
    if st is None:
        return Found(ABSENT)
    try:
        if stat.S_ISLNK(st.st_mode):
            got = text_of(os.fsencode(os.readlink(name, dir_fd=fd)), link=True)
            return Found(OLD if got == e.old else OTHER, got.sha256, got.size, uid=st.st_uid)
        if not stat.S_ISREG(st.st_mode):
            return Found(OTHER, uid=st.st_uid)
        sizes = [t.size for t in (e.new, e.old) if t is not None and not t.link]
        if st.st_size > max([*sizes, _READ_LIMIT]):
            return Found(OTHER, None, st.st_size, True, st.st_nlink, st.st_uid)
        data, st = read_regular(fd, name, st.st_size)
    except (OSError, NotRegular):  # changed under us (or unreadable): nothing proven
        return Found(OTHER, uid=st.st_uid)
    got = text_of(data)
    kind = NEW if got == e.new else OLD if got == e.old else OTHER
    return Found(kind, got.sha256, got.size, True, st.st_nlink, st.st_uid)


def _same_bytes(fd: int, name: str, other: Found) -> bool:
    """`name` holds exactly the bytes of `other` (a file that stays): a duplicate."""
    if other.kind == ABSENT or other.sha256 is None:
        return False
    st = lstat(fd, name)
    if st is None or not stat.S_ISREG(st.st_mode) or st.st_size != other.size:
        return False
    try:
        data, _ = read_regular(fd, name, st.st_size)
    except (OSError, NotRegular):
        return False
    return text_of(data).sha256 == other.sha256


# --- undoing and finishing ---------------------------------------------------------------------


_CRASHED = "the interrupted apply"
LIVE = "the apply began"  # `undo`'s `when` for an apply undoing itself


def undo(journal: Journal, folders: Folders, when: str = _CRASHED) -> Undone:
    """Put every entry back as it was, where the disk proves that is safe.

    Each entry's progress is read from the disk. A saved file goes back to its name only
    when that name holds nothing or exactly the new text this apply wrote; a new file is
    removed only when it holds exactly that text. A name holding anything else was changed
    by someone after the apply: it is kept, and the saved old text stays where it is, named
    in `kept`.
    """
    kept: list[str] = []
    failed: list[str] = []
    removed = 0
    for e in reversed(journal.entries):
        try:
            fd = folders.fd(e.folder)
        except OSError:  # the folder is gone (or is no longer a folder): nothing of ours left
            continue
        try:
            removed += _undo_entry(e, fd, journal.state, kept, when)
        except OSError:
            failed.append(e.path)
    for rel in reversed(journal.dirs):
        _rmdir_quietly(folders, rel)  # only an empty folder goes: no byte is in it
    return Undone(tuple(kept), tuple(failed), removed)


def _undo_entry(e: Entry, fd: int, state: str, kept: list[str], when: str) -> int:
    removed = 0
    started = state != PREPARE  # in `prepare` no name of the user's has been touched
    current = identify(fd, e.name, e) if started else Found(OTHER)
    if e.backup is not None and started:
        saved = identify(fd, e.backup, e)
        if saved.kind == ABSENT:
            if current.kind == NEW:
                kept.append(
                    f"{e.path} holds the new text of {when} and its old text is gone "
                    "(its saved copy was removed); kept"
                )
        elif current.kind in (ABSENT, NEW) and (
            saved.kind == OLD or saved.uid in (current.uid, os.geteuid())
        ):
            # the name holds nothing or exactly our text: the saved file goes back — the old
            # text, or the old file with a write its owner made through another of its
            # names (a file someone else put under the saved name stays where it is)
            current = _put_back(fd, e, current, saved, kept, when)
        elif (
            current.sha256 is not None
            and saved.sha256 == current.sha256
            and _remove_proven(fd, e.backup, saved)
        ):
            # the same bytes are at its name already (the old text, or a second name of a
            # file written since): removing this name loses nothing
            removed += 1
        else:
            kept.append(_kept_message(e, current, _where(e, e.backup), when))
    elif e.backup is None and started and current.kind == NEW:
        # the file this apply created, exactly as it wrote it
        aside = _clear(fd, e, current)
        current = Found(ABSENT) if aside is None else Found(OTHER)
        if aside is not None and place(fd, aside, e.name):
            kept.append(f"{e.path} changed after {when}; kept (it did not exist before)")
        elif aside is not None:
            kept.append(_both_kept(e, aside, when, None))
    elif e.backup is None and started and current.kind == OTHER:
        kept.append(f"{e.path} was written after {when}; kept (it did not exist before)")
    if e.temp is not None:
        removed += _drop_temp(e, fd, state, current, kept, when)
    return removed


def _put_back(fd: int, e: Entry, current: Found, saved: Found, kept: list[str], when: str) -> Found:
    """The saved old file back under its name, which held nothing or exactly the new text
    when looked at. Never over anything written since: the new text is first moved aside and
    proven (see `_clear`), and the saved file then goes where nothing is (`disk.place`).
    What the name holds after."""
    assert e.backup is not None
    if current.kind == NEW:
        aside = _clear(fd, e, current)
        if aside is not None:
            # written meanwhile: theirs goes back to its name, the old text stays saved
            if place(fd, aside, e.name):
                kept.append(_kept_message(e, Found(OTHER), _where(e, e.backup), when))
            else:
                kept.append(_both_kept(e, aside, when, e.backup))
            return Found(OTHER)
    if place(fd, e.backup, e.name):
        return saved
    kept.append(
        f"{e.path} was written again after {when}; kept; its old text is at {_where(e, e.backup)}"
    )
    return Found(OTHER)


def _clear(fd: int, e: Entry, current: Found) -> str | None:
    """Take the new text this apply wrote away from its name, where the bytes prove it is
    still that text; else the name it was moved aside to (its bytes are someone's now).

    Judging the bytes at the name and then renaming over it would lose an editor's save in
    place between the two. So the file is first renamed aside (to the apply's temporary
    name, which the journal knows, when free): an editor that opens the name from then on
    finds nothing there, and one that opened it before writes into the aside file — whose
    bytes are judged after, and while no one holds it open for writing where the system can
    tell (`disk.read_quiet`). Only then is it removed."""
    free = e.temp is not None and lstat(fd, e.temp) is None
    aside = e.temp if free and e.temp is not None else reserved_name(BACKUP_SUFFIX)
    try:
        os.replace(e.name, aside, src_dir_fd=fd, dst_dir_fd=fd)
    except FileNotFoundError:
        return None  # gone meanwhile: nothing is there to keep
    if _remove_proven(fd, aside, current):
        return None
    if aside == e.temp:
        # out of reach of the temporary names' clean-up (and of `recover`'s sweep)
        keep = reserved_name(BACKUP_SUFFIX)
        os.replace(aside, keep, src_dir_fd=fd, dst_dir_fd=fd)
        aside = keep
    return aside


def _both_kept(e: Entry, aside: str, when: str, backup: str | None) -> str:
    old = f", its old text at {_where(e, backup)}" if backup is not None else ""
    return (
        f"{e.path} changed after {when}, and a new file took its name meanwhile; both "
        f"kept: the changed one is at {_where(e, aside)}{old}"
    )


def _remove_proven(fd: int, name: str, held: Found) -> bool:
    """`disk.remove_proven` of the bytes judged: a write made since keeps the file."""
    return held.sha256 is not None and remove_proven(fd, name, held.sha256, held.size)


def _kept_message(e: Entry, current: Found, old_at: str, when: str) -> str:
    what = "is gone" if current.kind == ABSENT else "changed"
    return f"{e.path} {what} after {when}; kept; its old text is at {old_at}"


def _drop_temp(
    e: Entry, fd: int, state: str, stays: Found, kept: list[str], when: str = _CRASHED
) -> int:
    """Remove the entry's temporary name when it provably holds nothing of anyone else's:
    the new or old text, a text cut short while `prepare` wrote it, or a second copy of
    what stays at the file's name."""
    assert e.temp is not None and e.new is not None
    temp = identify(fd, e.temp, e)
    if temp.kind == ABSENT:
        return 0
    cut_short = state == PREPARE and temp.regular and temp.links == 1 and temp.size < e.new.size
    if temp.kind in (NEW, OLD) or cut_short or _same_bytes(fd, e.temp, stays):
        if _remove_proven(fd, e.temp, temp):
            return 1
    keep = reserved_name(BACKUP_SUFFIX)  # out of reach of `recover`'s sweep of `.new` names
    os.rename(e.temp, keep, src_dir_fd=fd, dst_dir_fd=fd)
    kept.append(f"{_where(e, keep)} holds a text of {e.path} that changed after {when}; kept")
    return 0


def _where(e: Entry, name: str) -> str:
    return f"{e.folder}/{name}" if e.folder else name


def finish(journal: Journal, folders: Folders) -> Undone:
    """A committed apply's leftovers: saved old files, temporary names, emptied folders —
    each removed only when it holds exactly a text the journal names."""
    kept: list[str] = []
    removed = 0
    emptied: set[str] = set()
    for e in journal.entries:
        try:
            fd = folders.fd(e.folder)
        except OSError:
            continue
        current = identify(fd, e.name, e)
        if e.backup is not None:
            saved = identify(fd, e.backup, e)
            proven = saved.kind == OLD or (
                saved.kind != ABSENT and _same_bytes(fd, e.backup, current)
            )
            if proven and _remove_proven(fd, e.backup, saved):
                removed += 1
            elif saved.kind != ABSENT:
                # a program that opened the old file before the apply writes there, not
                # into the new one: what it wrote (or writes) is kept, and named
                kept.append(
                    f"{_where(e, e.backup)}, the old file of {e.path}, changed after the apply "
                    "(or a program still holds it open for writing); kept"
                )
        if e.temp is not None:
            removed += _drop_temp(e, fd, COMMITTED, current, kept)
        if e.temp is None:
            emptied.add(e.folder)
    for rel in sorted(emptied, key=lambda r: -r.count("/")):
        while rel:
            if not _rmdir_quietly(folders, rel):
                break
            rel = rel.rpartition("/")[0]
    return Undone(tuple(kept), (), removed)


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


# --- recovery ----------------------------------------------------------------------------------


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
    paths = tuple(dict.fromkeys(e.path for e in journal.entries))
    if journal.state == COMMITTED:
        outcome = "completed"
        try:
            done = finish(journal, folders)
        except OSError as err:
            raise io_failure(
                JOURNAL_NAME, err, "the interrupted apply could not be finished"
            ) from None
    else:
        outcome = "rolled back"
        done = undo(journal, folders)
        if done.failed:
            raise WriteError(
                Failure(
                    ErrorCode.IO_ERROR,
                    f"{', '.join(done.failed)}: the interrupted apply could not be rolled back "
                    f"there (an error from the system); {JOURNAL_NAME} was kept — run "
                    "`llm-patch recover` again once the cause is fixed",
                    {"path": done.failed[0], "paths": list(done.failed)},
                )
            )
    discard(folders)
    removed = done.removed + (_sweep(folders.root) if sweep else 0)
    return Recovery(outcome, paths, removed, done.kept)


def _drop_unsaved(folders: Folders) -> None:
    """A journal that was being written when its apply died never took effect: remove it.
    (Under the workspace lock no other apply is writing one.) Only this user's own: another
    user's file of that name is no litter of ours."""
    for name in os.listdir(folders.root_fd):
        if _SAVING_NAME.match(name):
            st = lstat(folders.root_fd, name)
            if st is not None and stat.S_ISREG(st.st_mode) and st.st_uid == os.geteuid():
                _unlink_quietly(folders.root_fd, name)


def _sweep(root: Path) -> int:
    """Remove temporary files no journal names: `.llm-patch-*.new` and the older names.
    Saved `.old` files are never swept: one left behind holds a text someone may want."""
    removed = 0
    for folder, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if d.casefold() not in _VCS]
        for name in files:
            if not (name.endswith(TEMP_SUFFIX) and _OWN_NAME.match(name)) and not (
                _LEGACY_TEMP.match(name)
            ):
                continue
            path = Path(folder) / name
            try:
                st = path.lstat()
                if not stat.S_ISREG(st.st_mode) or st.st_uid != os.geteuid():
                    continue  # another user's file of that name is no litter of ours
                path.unlink()
                removed += 1
            except OSError:
                pass
    return removed
