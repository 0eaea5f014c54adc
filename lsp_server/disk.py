"""The disk primitives the writer and its journal share.

Paths from a reply are checked against the root before anything is written, but a path is
only a promise about the moment it was checked: a folder can be swapped for a symlink a
millisecond later. So nothing here writes through a path. Folders are opened one component
at a time, relative to the folder before, refusing symlinks (`O_NOFOLLOW`); every file is
created, linked, renamed and removed relative to the descriptor of a folder that was opened
that way. A component swapped after the check is never followed: the walk fails, or the
operation happens in the folder that was verified (see SECURITY.md).

Also here: reading one regular file with a bound, the metadata a replacement must keep
(mode, owner, group, extended attributes), names reserved for llm-patch's own files, and
the workspace lock that serialises writers of one root.
"""

from __future__ import annotations

import ctypes
import errno
import fcntl
import hashlib
import os
import signal
import stat
import threading
import time
from collections import OrderedDict
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import NamedTuple

from lsp_server.model import ErrorCode, Failure

# llm-patch's own files in a workspace: temporary new texts and saved old ones sit next to
# the file they belong to (a rename is atomic only within one file system), the journal at
# the root. A reply may not name any of them.
RESERVED_PREFIX = ".llm-patch-"
JOURNAL_NAME = ".llm-patch.journal"
LOCK_NAME = ".llm-patch.lock"  # only where a folder cannot be locked itself (see workspace_lock)
TEMP_SUFFIX = ".new"
BACKUP_SUFFIX = ".old"

LOCK_WAIT_SECONDS = 60.0
_LOCK_POLL_SECONDS = 0.05
_OPEN_FOLDERS = 64  # descriptors kept open; a folder evicted is walked to again when needed

_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_READ_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC


class WriteError(Exception):
    """A write (or a recovery) that could not be done; `failure` names the user's file."""

    def __init__(self, failure: Failure):
        super().__init__(failure.message)
        self.failure = failure


def io_failure(path: str, err: OSError, what: str = "nothing was written") -> WriteError:
    """An OS error as a failure naming the user's `path` — never a temporary file's name."""
    if isinstance(err, PermissionError):
        code = ErrorCode.PERMISSION_DENIED
    else:
        code = ErrorCode.IO_ERROR
    reason = err.strerror or str(err) or type(err).__name__
    return WriteError(Failure(code, f"{path}: {reason}; {what}", {"path": path}))


def is_reserved(name: str) -> bool:
    """True for a file name llm-patch keeps for itself (temporary files, journal, lock)."""
    return name.startswith(RESERVED_PREFIX) or name in (JOURNAL_NAME, LOCK_NAME)


def reserved_name(suffix: str) -> str:
    """A fresh name for a temporary (`.new`) or saved (`.old`) file."""
    return f"{RESERVED_PREFIX}{os.urandom(8).hex()}{suffix}"


def split_rel(rel: str) -> tuple[str, str]:
    """`a/b/c.py` → (`a/b`, `c.py`); the root is the folder `""`."""
    folder, _, name = rel.rpartition("/")
    return folder, name


class Folders:
    """Descriptors of folders under `root`, each reached one component at a time.

    `fd("a/b")` opens `a` relative to the root and `b` relative to `a`, both with
    `O_NOFOLLOW | O_DIRECTORY`: a symlink (or a file) where a folder was is an error, never
    followed. Paths given here are real paths (symlinks inside the root already resolved).
    A descriptor returned is good until the next call: the least used ones are closed to
    keep their number bounded, so callers ask again rather than keep one.
    """

    def __init__(self, root: Path):
        self.root = root
        self.root_fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
        self._open: OrderedDict[str, int] = OrderedDict()

    def fd(self, rel: str, create: bool = False) -> int:
        """The folder `rel`; with `create`, missing folders are made (the journal has named
        them beforehand, so that an undo removes them)."""
        if rel == "":
            return self.root_fd
        fd = self._open.get(rel)
        if fd is not None:
            self._open.move_to_end(rel)
            return fd
        parent_rel, name = split_rel(rel)
        parent = self.fd(parent_rel, create)
        try:
            fd = os.open(name, _DIR_FLAGS, dir_fd=parent)
        except FileNotFoundError:
            if not create:
                raise
            os.mkdir(name, 0o777, dir_fd=parent)
            fd = os.open(name, _DIR_FLAGS, dir_fd=parent)
        self._open[rel] = fd
        while len(self._open) > _OPEN_FOLDERS:
            _, old = self._open.popitem(last=False)
            os.close(old)
        return fd

    def forget(self, rel: str) -> None:
        """Drop a folder's descriptor (it was removed, or is about to be)."""
        fd = self._open.pop(rel, None)
        if fd is not None:
            os.close(fd)

    def close(self) -> None:
        for fd in self._open.values():
            os.close(fd)
        self._open.clear()
        os.close(self.root_fd)


def lstat(dir_fd: int, name: str) -> os.stat_result | None:
    """The entry `name` itself (a symlink is not followed), or None when there is none."""
    try:
        return os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
    except FileNotFoundError:
        return None


def read_regular(dir_fd: int, name: str, limit: int) -> tuple[bytes, os.stat_result]:
    """The bytes of the regular file `name` (at most `limit` + 1 of them) and its status.

    Opened without following a symlink and without blocking (a FIFO would otherwise wait
    for a writer forever); anything but a regular file is refused with `NotRegular`.
    """
    fd = open_regular(dir_fd, name)
    try:
        st = os.fstat(fd)
        chunks: list[bytes] = []
        left = limit + 1
        while left > 0:
            chunk = os.read(fd, min(left, 1 << 20))
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
        return b"".join(chunks), st
    finally:
        os.close(fd)


def read_quiet(dir_fd: int, name: str, limit: int) -> tuple[bytes, os.stat_result, bool]:
    """`read_regular`, and whether another descriptor holds the file open for writing
    (`busy`): a writer that opened it before, and may still write, after this read.

    Asked of the kernel with a read lease (Linux): one is granted only while no descriptor
    has the file open for writing, and it is held for the read, so the bytes read are the
    file's for as long as that lasts. Where no lease is granted for another reason (another
    system, a network file system, a file someone else owns, leases turned off) it cannot
    tell, and answers not busy: the bytes read are all there is to go on."""
    fd = open_regular(dir_fd, name)
    leased = busy = False
    try:
        if _LEASES:
            try:
                # a lease broken by an opener is told by a signal (SIGIO, which would end
                # this process): SIGURG instead, which is ignored unless someone handles it
                fcntl.fcntl(fd, fcntl.F_SETSIG, signal.SIGURG)
                fcntl.fcntl(fd, fcntl.F_SETLEASE, fcntl.F_RDLCK)
                leased = True
            except OSError as err:
                busy = err.errno in (errno.EAGAIN, errno.EWOULDBLOCK)
        st = os.fstat(fd)
        chunks: list[bytes] = []
        left = limit + 1
        while left > 0:
            chunk = os.read(fd, min(left, 1 << 20))
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
        return b"".join(chunks), st, busy
    finally:
        if leased:
            try:
                fcntl.fcntl(fd, fcntl.F_SETLEASE, fcntl.F_UNLCK)
            except OSError:
                pass
        os.close(fd)


_LEASES = hasattr(fcntl, "F_SETLEASE") and hasattr(fcntl, "F_SETSIG")  # Linux


def remove_proven(dir_fd: int, name: str, sha256: str, size: int) -> bool:
    """Remove `name` only if it still holds exactly these bytes (a symlink: this target)
    and, where the system can tell (`read_quiet`), no one holds it open for writing: a
    write made since the bytes were judged — in place, or through a descriptor opened
    before — keeps the file. True when removed."""
    st = lstat(dir_fd, name)
    if st is None:
        return False
    try:
        if stat.S_ISLNK(st.st_mode):  # a symlink is never written in place
            data, busy = os.fsencode(os.readlink(name, dir_fd=dir_fd)), False
        else:
            data, _, busy = read_quiet(dir_fd, name, max(size, 0))
    except (OSError, NotRegular):
        return False
    if busy or len(data) != size or hashlib.sha256(data).hexdigest() != sha256:
        return False
    os.unlink(name, dir_fd=dir_fd)
    return True


def place(dir_fd: int, src: str, dst: str) -> bool:
    """Rename `src` to `dst` in one folder only where `dst` is nothing: False (and nothing
    done) when a file took that name meanwhile — never replaced. A hard link then the
    removal of `src` (a crash between leaves two names of one file, both whole); else
    renameat2's no-replace; else, where neither exists, a rename right after a look."""
    try:
        os.link(src, dst, src_dir_fd=dir_fd, dst_dir_fd=dir_fd, follow_symlinks=False)
    except FileExistsError:
        return False
    except OSError:
        try:
            if rename2(dir_fd, src, dst, RENAME_NOREPLACE):
                return True
        except FileExistsError:
            return False
        if lstat(dir_fd, dst) is not None:
            return False
        os.replace(src, dst, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
        return True
    os.unlink(src, dir_fd=dir_fd)
    return True


def open_regular(dir_fd: int, name: str) -> int:
    """A read-only descriptor of the regular file `name` (see `read_regular`)."""
    fd = os.open(name, _READ_FLAGS, dir_fd=dir_fd)
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise NotRegular(name)
    return fd


class NotRegular(Exception):
    """A name that should be a regular file is a FIFO, a device, a socket or a folder."""


# renameat2(2) flags (Linux 3.15+): swap two names atomically; rename only onto nothing
RENAME_EXCHANGE = 2
RENAME_NOREPLACE = 1
_renameat2: list = []  # [the libc function or None], looked up on first use


def rename2(dir_fd: int, src: str, dst: str, flags: int) -> bool:
    """`renameat2` within one folder; False when the system or file system lacks it (the
    caller then does without), True when done. Other failures raise OSError as usual."""
    if not _renameat2:
        _renameat2.append(_find_renameat2())
    func = _renameat2[0]
    if func is None:
        return False
    if func(dir_fd, os.fsencode(src), dir_fd, os.fsencode(dst), flags) == 0:
        return True
    err = ctypes.get_errno()
    if err in (errno.EINVAL, errno.ENOSYS, errno.ENOTSUP, errno.EOPNOTSUPP):
        return False
    raise OSError(err, os.strerror(err), dst)


def _find_renameat2():
    try:
        return getattr(ctypes.CDLL(None, use_errno=True), "renameat2", None)
    except OSError:
        return None


def fsync_folder(fd: int) -> None:
    """Make the renames in a folder durable (some file systems refuse: nothing to do then)."""
    try:
        os.fsync(fd)
    except OSError as err:
        if err.errno not in (errno.EINVAL, errno.ENOTSUP, errno.EBADF):
            raise


class Metadata(NamedTuple):  # not a dataclass: see journal.Entry
    """What a replacement must keep of the file it replaces, besides the name."""

    mode: int
    uid: int
    gid: int
    xattrs: tuple[tuple[str, bytes], ...] = ()

    @classmethod
    def of(cls, fd: int) -> Metadata:
        st = os.fstat(fd)
        return cls(stat.S_IMODE(st.st_mode), st.st_uid, st.st_gid, _xattrs(fd))

    def apply(self, fd: int) -> None:
        """Give the open file `fd` this metadata.

        Extended attributes are best effort: a file system without them, or a namespace the
        user may not write (`trusted.*`, a security label), is skipped. The owner and group
        must be kept when running as root — root can give a file to anyone, so failing to
        is an error, not a file quietly turned into root's. Anyone else cannot give a file
        away: a file owned by someone else becomes theirs, as when git rewrites it, with
        its group kept when they belong to it. The mode comes last, because changing the
        owner clears the set-user-ID and set-group-ID bits.
        """
        for name, value in self.xattrs:
            try:
                os.setxattr(fd, name, value)
            except OSError:
                pass
        st = os.fstat(fd)
        if (st.st_uid, st.st_gid) != (self.uid, self.gid):
            try:
                os.fchown(fd, self.uid, self.gid)
            except OSError:
                if os.geteuid() == 0:
                    raise
                try:
                    os.fchown(fd, -1, self.gid)
                except OSError:
                    pass
        os.chmod(fd, self.mode)


def _xattrs(fd: int) -> tuple[tuple[str, bytes], ...]:
    if not hasattr(os, "listxattr"):  # Linux only; elsewhere a replacement has none
        return ()
    try:
        names = os.listxattr(fd)
    except OSError:
        return ()
    out: list[tuple[str, bytes]] = []
    for name in names:
        try:
            out.append((name, os.getxattr(fd, name)))
        except OSError:
            continue
    return tuple(out)


# --- the workspace lock ------------------------------------------------------------------------

_held: dict[tuple[int, int], tuple[int, int, int]] = {}  # root id -> (fd, depth, thread)
_held_guard = threading.Lock()


@contextmanager
def workspace_lock(root: Path, wait: float = LOCK_WAIT_SECONDS) -> Iterator[None]:
    """Hold the advisory lock of the workspace `root` (re-entrant within one thread).

    The lock is `flock` on the root folder itself: no file is created, every process that
    writes this root (any user) takes the same lock, and the kernel drops it when a holder
    dies, so a killed apply never leaves the workspace locked. Where a folder cannot be
    locked (some network file systems) a `.llm-patch.lock` file at the root is locked
    instead. A second writer waits up to `wait` seconds, then gives up with `IO_ERROR`.
    """
    try:
        st = os.stat(root)
    except OSError as err:
        raise io_failure(str(root), err, "cannot lock the workspace; nothing was written") from None
    key = (st.st_dev, st.st_ino)
    me = threading.get_ident()
    with _held_guard:
        held = _held.get(key)
        if held is not None and held[2] == me:
            _held[key] = (held[0], held[1] + 1, me)
            reentered = True
        else:
            reentered = False
    if reentered:
        try:
            yield
        finally:
            with _held_guard:
                fd, depth, _ = _held[key]
                _held[key] = (fd, depth - 1, me)
        return
    fd = _acquire(root, wait)
    with _held_guard:
        _held[key] = (fd, 1, me)
    try:
        yield
    finally:
        with _held_guard:
            del _held[key]
        os.close(fd)  # closing the descriptor releases the lock


def _acquire(root: Path, wait: float) -> int:
    try:
        fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return fd
        except BlockingIOError:
            pass
        except OSError:  # this file system cannot lock a folder: lock a file in it instead
            try:
                lock_fd = os.open(
                    LOCK_NAME,
                    os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC,
                    0o666,
                    dir_fd=fd,
                )
            finally:
                os.close(fd)
            fd = lock_fd
        deadline = time.monotonic() + wait
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                return fd
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    os.close(fd)
                    raise WriteError(
                        Failure(
                            ErrorCode.IO_ERROR,
                            f"another llm-patch has been writing in {root} for over "
                            f"{wait:.0f} s (it holds the workspace lock); nothing was written "
                            "— try again when it is done",
                            {"path": str(root)},
                        )
                    ) from None
                time.sleep(_LOCK_POLL_SECONDS)
    except WriteError:
        raise
    except OSError as err:
        raise io_failure(str(root), err, "cannot lock the workspace; nothing was written") from None
