"""The server's own reads of the disk: regular files only, bounded, never blocking.

A reply document the editor has not opened is read from disk, and a plan remembers what
it saw of every file it read there (`fingerprint`), so a plan kept for later can tell
whether those files changed. A path may name anything: a named pipe whose `open` would
wait for a writer forever, `/dev/zero` that never ends. So a file is opened without
blocking (`O_NONBLOCK`), looked at through its descriptor (`fstat`), refused unless it is
a regular file, and read up to its limit plus one byte. These functions block the calling
thread on disk I/O, so the server calls them from its workers, never on the event loop.
"""

from __future__ import annotations

import os
import stat

# Read this much at a time: a file that grows while it is read is still cut at the limit.
READ_CHUNK = 1 << 20

_KINDS = (
    (stat.S_ISDIR, "a folder"),
    (stat.S_ISFIFO, "a named pipe (FIFO)"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)

# (size, mtime_ns, inode, device) of a file; None when nothing is there.
Fingerprint = tuple[int, int, int, int] | None
# The fingerprint of a path `stat` cannot look at (permission denied, a name too long): the
# plan could not read it either, so it stays "unchanged" while it stays unreadable.
UNREADABLE: Fingerprint = (-1, -1, -1, -1)


class NotRegularFile(OSError):
    """The path names something other than a regular file (a pipe, a device, a folder)."""


class FileTooLarge(OSError):
    """The file holds more bytes than the caller's limit."""

    def __init__(self, path: str, size: int, limit: int):
        super().__init__(f"{path} is over {limit:,} bytes ({size:,} or more)")
        self.size = size
        self.limit = limit


def kind_of(mode: int) -> str:
    """What a file's mode says it is, in words ("a named pipe (FIFO)", "a regular file")."""
    for test, name in _KINDS:
        if test(mode):
            return name
    return "a regular file" if stat.S_ISREG(mode) else "not a regular file"


def read_regular(path: str, limit: int) -> bytes:
    """The bytes of a regular file of at most `limit` bytes.

    Raises `NotRegularFile` (naming what it is instead), `FileTooLarge`, or the `OSError`
    of opening or reading it.
    """
    flags = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_CLOEXEC", 0)
    fd = os.open(path, flags)
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise NotRegularFile(f"{path} is {kind_of(st.st_mode)}, not a regular file")
        if st.st_size > limit:
            raise FileTooLarge(path, st.st_size, limit)
        chunks: list[bytes] = []
        total = 0
        while True:
            chunk = os.read(fd, min(READ_CHUNK, limit + 1 - total))
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
            if total > limit:  # it grew while being read
                raise FileTooLarge(path, total, limit)
        return b"".join(chunks)
    finally:
        os.close(fd)


def fingerprint(path: str) -> Fingerprint:
    """What `stat` says of a path now (following symlinks): enough to notice most changes
    without reading the file (a change within one mtime tick that keeps the size needs the
    content's hash)."""
    try:
        st = os.stat(path)
    except (FileNotFoundError, NotADirectoryError):
        return None
    except OSError:
        return UNREADABLE
    return (st.st_size, st.st_mtime_ns, st.st_ino, st.st_dev)
