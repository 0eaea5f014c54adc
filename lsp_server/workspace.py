"""Snapshots: the text each block resolves against, and the guards on the paths a reply names.

The server overlays open documents (their unsaved text and version); everything else is
read from disk with its content hash, so the writer can refuse a file that changed between
plan and write. Reply paths are untrusted: anything that would leave the root — `..`,
absolute paths elsewhere, `~`, drive letters, NUL bytes, symlinks pointing out — is refused.

A snapshot names the file by its own path (symlinked folders resolved, a symlink by the
file it names, the spelling the folder lists) and carries its identity, so the plan treats
every path to one file as that one file. Only regular files are read, and never more than
the size limit: a FIFO, a device or a socket is refused by name (`read_regular`). Version-
control folders and the user's protected globs are never written (`refuse_protected`).
"""

from __future__ import annotations

import fnmatch
import functools
import hashlib
import os
import re
import stat
import unicodedata
from collections.abc import Callable, Sequence
from pathlib import Path, PurePosixPath
from typing import Protocol

from lsp_server.model import ErrorCode, Failure, PlacementError, Snapshot

MAX_FILE_BYTES = 10 * 1024 * 1024
BINARY_SNIFF = 8192
UTF8_BOM = b"\xef\xbb\xbf"
# longest first: a UTF-32-LE mark begins with the UTF-16-LE one
_WIDE_BOMS = (
    (b"\xff\xfe\x00\x00", "UTF-32-LE"),
    (b"\x00\x00\xfe\xff", "UTF-32-BE"),
    (b"\xff\xfe", "UTF-16-LE"),
    (b"\xfe\xff", "UTF-16-BE"),
)

Overlay = Callable[[str], "tuple[str, int] | None"]


class SnapshotSource(Protocol):
    def snapshot(self, path: str) -> Snapshot: ...


def _outside(path: str, why: str) -> PlacementError:
    return PlacementError.of(
        ErrorCode.OUTSIDE_WORKSPACE,
        f"refusing path {path!r}: {why}; paths must stay inside the workspace root",
        path=path,
    )


def relative_path(path: str, root: Path | None = None) -> str:
    """Normalise a reply path to a root-relative POSIX path, refusing anything that leaves.

    Pure: no file system access. Symlinks are checked separately by `DiskWorkspace`.
    """
    if "\x00" in path:
        raise _outside(path, "it contains a NUL byte")
    if not path.isascii() and _has_surrogate(path):
        # JSON escapes (`"\ud800"`) can carry them; no file name encodes one faithfully
        raise _outside(path, "it is not valid Unicode (a lone surrogate)")
    raw = path.strip()
    if not raw:
        raise PlacementError.of(ErrorCode.MALFORMED_BLOCK, "the block names no file")
    if raw.startswith("~"):
        raise _outside(path, "home-directory paths (~) are not expanded")
    p = raw.replace("\\", "/")
    if len(p) >= 2 and p[1] == ":" and p[0].isalpha():
        raise _outside(path, "it names a drive")
    if p.startswith("//"):
        raise _outside(path, "it names a network share")
    if p.startswith("/"):
        if root is None:
            raise _outside(path, "it is absolute")
        root_s = root.as_posix().rstrip("/") + "/"
        if not p.startswith(root_s):
            raise _outside(path, "it is an absolute path outside the root")
        p = p[len(root_s) :]
    parts: list[str] = []
    for part in PurePosixPath(p).parts:
        if part in ("", "."):
            continue
        if part == "..":
            raise _outside(path, "it contains `..`")
        if len(part.encode("utf-8", "surrogatepass")) > 255:
            raise _outside(path, "a path segment is longer than 255 bytes")
        parts.append(part)
    if not parts:
        raise _outside(path, "it names the root itself")
    return "/".join(parts)


def _has_surrogate(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def sniff_binary(data: bytes) -> bool:
    return b"\x00" in data[:BINARY_SNIFF]


def decode(data: bytes, path: str) -> tuple[str, bool]:
    """Bytes → (text without BOM, had BOM). Refuses binary and non-UTF-8 content.

    UTF-16/32 files (told by their BOM) are refused by name rather than edited: the
    writer, the diff and the editor edits all speak UTF-8, and a refusal that says
    "convert it" is better than a round trip that could change bytes.
    """
    for bom_bytes, name in _WIDE_BOMS:
        if data.startswith(bom_bytes):
            raise PlacementError.of(
                ErrorCode.BINARY_FILE,
                f"{path} is {name} text (it starts with a {name} byte-order mark); "
                "llm-patch edits UTF-8 text only: convert the file to UTF-8 first",
                path=path,
                encoding=name.lower(),
            )
    if sniff_binary(data):
        raise PlacementError.of(
            ErrorCode.BINARY_FILE,
            f"{path} looks binary (a NUL byte in its first {BINARY_SNIFF} bytes); "
            "llm-patch only edits text files",
            path=path,
        )
    bom = data.startswith(UTF8_BOM)
    try:
        text = data[len(UTF8_BOM) :].decode("utf-8") if bom else data.decode("utf-8")
    except UnicodeDecodeError as err:
        raise PlacementError.of(
            ErrorCode.BINARY_FILE,
            f"{path} is not valid UTF-8 (byte {err.start}); llm-patch edits UTF-8 text only",
            path=path,
            offset=err.start,
        ) from None
    return text, bom


def encode(text: str, bom: bool) -> bytes:
    return (UTF8_BOM if bom else b"") + text.encode("utf-8")


def digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


# How many entries a search of the workspace by file name looks at, at most, and the
# folders it never enters.
FIND_LIMIT = 50_000
SKIPPED_DIRS = frozenset({"node_modules", "venv", "__pycache__", "target", "dist", "build"})


class DiskWorkspace:
    """Snapshots from disk under `root`, overlaid by open documents when an overlay is given."""

    def __init__(self, root: Path, overlay: Overlay | None = None):
        self.root = Path(os.path.realpath(root))
        self.overlay = overlay
        self._listings: dict[Path, frozenset[str] | None] = {}  # folder → its entries

    def relative(self, path: str) -> str:
        rel = relative_path(path, self.root)
        self.absolute(rel)  # symlink check
        return rel

    def absolute(self, rel: str) -> Path:
        """The on-disk location of `rel`, refusing symlinks (file or folder) that leave the root."""
        target = self.root / rel
        try:
            real = Path(os.path.realpath(target))
        except OSError as err:  # a name the OS cannot take (too long): say so, do not crash
            raise _io_failure(rel, err) from None
        if real != self.root and self.root not in real.parents:
            raise _outside(rel, "it resolves through a symlink to a place outside the root")
        # a path through an existing file (a/b where a is a file) cannot be created
        probe = self.root
        for part in PurePosixPath(rel).parts[:-1]:
            probe = probe / part
            try:
                through_file = probe.exists() and not probe.is_dir()
            except OSError as err:
                raise _io_failure(rel, err) from None
            if through_file:
                raise PlacementError.of(
                    ErrorCode.IO_ERROR,
                    f"{rel}: {probe.relative_to(self.root).as_posix()} is a file, not a folder",
                    path=rel,
                )
        return target

    def files_named(self, name: str) -> list[str]:
        """Root-relative paths of the regular files called `name`, in a bounded walk that
        skips hidden folders and dependency trees (`node_modules`, virtual environments)."""
        return self._find(lambda names: [name] if name in names else [])

    def files_ending(self, suffixes: tuple[str, ...]) -> list[str]:
        """Root-relative paths of the regular files whose names end in one of `suffixes`
        (`.py`), sorted, by the same bounded walk: the files a code snippet that names
        none may belong to."""
        wanted = tuple(suffixes)
        return self._find(lambda names: sorted(n for n in names if n.endswith(wanted)))

    def _find(self, pick: Callable[[list[str]], list[str]]) -> list[str]:
        found: list[str] = []
        seen = 0
        for folder, dirs, files in os.walk(self.root):
            seen += len(dirs) + len(files)
            if seen > FIND_LIMIT:
                break
            dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d not in SKIPPED_DIRS)
            for name in pick(files):
                path = Path(folder) / name
                if path.is_file() and not path.is_symlink():
                    found.append(path.relative_to(self.root).as_posix())
        return found

    def snapshot(self, path: str) -> Snapshot:
        """What `path` holds now, under the file's own path: symlinked folders resolved, a
        symlink to a file named by the file, and, where the file system ignores case or
        Unicode normalisation, the name spelled as the folder lists it."""
        rel = self.relative(path)
        target = self.absolute(rel)
        key, same_name = self._canonical(rel, target)
        link = target.is_symlink()
        if self.overlay is not None:
            for name in dict.fromkeys((rel, key)):
                opened = self.overlay(name)
                if opened is not None:
                    text, version = opened
                    identity = _identity(target)
                    return Snapshot(name, text, version=version, identity=identity, link=link)
        try:
            st = target.stat()
        except FileNotFoundError:
            return Snapshot(key, None, same_name_as=same_name)
        except OSError as err:
            raise _io_failure(rel, err) from None
        if stat.S_ISDIR(st.st_mode):
            return Snapshot(key, None, is_dir=True)
        if not stat.S_ISREG(st.st_mode):
            raise not_regular(rel, st.st_mode)
        if st.st_size > MAX_FILE_BYTES:
            raise _too_large(rel, st.st_size)
        data = read_regular(self.root / key, rel, MAX_FILE_BYTES)
        if len(data) > MAX_FILE_BYTES:  # it grew after the stat
            raise _too_large(rel, len(data))
        text, bom = decode(data, rel)
        return Snapshot(
            key,
            text,
            digest=digest(data),
            bom=bom,
            mode=stat.S_IMODE(st.st_mode),
            identity=_identity_of(st),
            link=link,
            same_name_as=same_name,
        )

    def _canonical(self, rel: str, target: Path) -> tuple[str, str | None]:
        """The file's own root-relative path, and the existing look-alike it is (or would
        be) when its name matches a folder entry only after case folding or Unicode
        normalisation."""
        real = Path(os.path.realpath(target))
        if real == self.root or self.root not in real.parents:
            return rel, None  # `absolute` refused what leaves; the root itself is no file
        real = self._respelled(real)
        key = real.relative_to(self.root).as_posix()
        names = self._listing(real.parent)
        if names is None or real.name in names:
            return key, None
        if os.path.lexists(real):
            # found by a name the folder does not list: a case-insensitive (or normalising)
            # file system matched it to an entry spelled otherwise
            spelled = [n for n in names if _fold(n) == _fold(real.name)]
        else:
            spelled = [n for n in names if _nfc(n) == _nfc(real.name)]
        if not spelled:
            return key, None
        other = (real.parent / spelled[0]).relative_to(self.root).as_posix()
        return (other if os.path.lexists(real) else key), other

    def _respelled(self, real: Path) -> Path:
        """`real` with each folder above it spelled as its parent lists it. A case-insensitive
        disk opens `Secrets/` as `secrets/` and `realpath` keeps the spelling it was given:
        without this, two spellings of one folder would be two places to the plan."""
        rel = real.relative_to(self.root).parts
        here = self.root
        for part in rel[:-1]:
            names = self._listing(here)
            if names is not None and part not in names and os.path.lexists(here / part):
                spelled = sorted(n for n in names if _fold(n) == _fold(part))
                if spelled:
                    part = spelled[0]
            here = here / part
        return here / rel[-1]

    def _listing(self, folder: Path) -> frozenset[str] | None:
        if folder not in self._listings:
            try:
                self._listings[folder] = frozenset(os.listdir(folder))
            except OSError:
                self._listings[folder] = None
        return self._listings[folder]


def _nfc(name: str) -> str:
    return unicodedata.normalize("NFC", name)


def _fold(name: str) -> str:
    return _nfc(_nfc(name).casefold())


def _identity(target: Path) -> tuple[int, int] | None:
    try:
        return _identity_of(target.stat())
    except OSError:
        return None


def _identity_of(st: os.stat_result) -> tuple[int, int] | None:
    """(device, inode) of a file with one name. A hard-linked file has none: the writer
    replaces the name it writes (the other names keep the old text), so each name stays
    a file of its own rather than collecting edits another name would not show."""
    if stat.S_ISDIR(st.st_mode) or st.st_nlink != 1:
        return None
    return (st.st_dev, st.st_ino)


def _too_large(rel: str, size: int) -> PlacementError:
    return PlacementError.of(
        ErrorCode.FILE_TOO_LARGE,
        f"{rel} is {size:,} bytes; llm-patch edits files up to {MAX_FILE_BYTES:,} bytes",
        path=rel,
        bytes=size,
        limit=MAX_FILE_BYTES,
    )


# What a path that is not a regular file is, in a refusal's words.
_SPECIAL_KINDS = (
    (stat.S_ISFIFO, "fifo", "a FIFO (named pipe)"),
    (stat.S_ISCHR, "character-device", "a character device"),
    (stat.S_ISBLK, "block-device", "a block device"),
    (stat.S_ISSOCK, "socket", "a socket"),
    (stat.S_ISLNK, "symlink", "a symbolic link"),
    (stat.S_ISDIR, "directory", "a folder"),
)


def not_regular(name: str, mode: int) -> PlacementError:
    """The refusal for a path that is not a regular file (IO_ERROR, naming what it is)."""
    kind, words = "special", "a special file"
    for test, k, w in _SPECIAL_KINDS:
        if test(mode):
            kind, words = k, w
            break
    return PlacementError.of(
        ErrorCode.IO_ERROR,
        f"{name} is {words}, not a regular file; llm-patch reads and writes regular files only",
        path=name,
        kind=kind,
    )


_READ_FLAGS = (
    os.O_RDONLY
    | getattr(os, "O_NONBLOCK", 0)  # a FIFO swapped in after the stat: open returns at once
    | getattr(os, "O_CLOEXEC", 0)
    | getattr(os, "O_BINARY", 0)
)


def read_regular(path: str | Path, name: str, limit: int, *, follow: bool = False) -> bytes:
    """The bytes of the regular file at `path`, at most `limit + 1` of them: more than
    `limit` tells the caller the file is too large without reading all of it.

    Anything else is refused (`not_regular`, naming it as `name`) before it is opened and
    again after, from the open file, in case it was swapped in between: opening a FIFO waits
    for a writer that may never come, a device such as /dev/zero never ends, and opening
    some devices does something. Without `follow`, a symlink in the last place is refused
    too (O_NOFOLLOW): the caller resolved and checked the path already.
    """
    flags = _READ_FLAGS | (0 if follow else getattr(os, "O_NOFOLLOW", 0))
    try:
        st = os.stat(path, follow_symlinks=follow)
        if not stat.S_ISREG(st.st_mode):
            raise not_regular(name, st.st_mode)
        fd = os.open(path, flags)
    except OSError as err:
        raise _io_failure(name, err) from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise not_regular(name, st.st_mode)
        chunks: list[bytes] = []
        left = limit + 1
        step = min(left, st.st_size + 1 if st.st_size else 1 << 16)
        while left > 0:
            chunk = os.read(fd, min(left, step))
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
            step = 1 << 16
        return b"".join(chunks)
    except OSError as err:
        raise _io_failure(name, err) from None
    finally:
        os.close(fd)


# Folders a version-control tool reads as its own: a hook in `.git/hooks`, a `core.fsmonitor`
# command in `.git/config`, an `[hooks]` entry in `.hg/hgrc` all run a command on the next
# commit or status. A `.git` *file* (a worktree's or a submodule's) points at such a folder.
VCS_FOLDERS = (".git", ".hg", ".svn")

# Names llm-patch keeps for its own files beside the user's (temporary new texts, saved old
# ones, the journal, the lock): the writer refuses them as spelled; refused here in every
# spelling a disk may take for them.
_RESERVED_PREFIX = ".llm-patch-"
_RESERVED_NAMES = (".llm-patch.journal", ".llm-patch.lock")

# Code points HFS+ leaves out when it compares names (zero-width joiners, direction marks,
# the byte-order mark): `.git\u200d` opens `.git` on a Mac. Folded with a few more invisible
# ones no file name needs (zero-width space, word joiner, soft hyphen): refusing a name with
# one of them costs nothing, missing one would write a hook.
_IGNORABLE = dict.fromkeys(
    [
        0x00AD,
        *range(0x200B, 0x2010),
        *range(0x202A, 0x202F),
        *range(0x2060, 0x2065),
        *range(0x206A, 0x2070),
        0xFEFF,
    ]
)
# An NTFS 8.3 short name: up to six characters, `~`, a number, an extension of up to three
# (`GIT~1` opens `.git`, `SECRET~1` opens `secrets`, where short names are on).
_SHORT_NAME = re.compile(r"(?P<base>[^.~/]{1,6})~[1-9][0-9]{0,5}(?:\.(?P<ext>[^.]{1,3}))?")


def fold_name(name: str) -> str:
    """One path component as a case-insensitive, normalising disk compares it: Unicode
    NFC, case folded, HFS+'s ignorable code points left out, and, as NTFS does, an
    alternate stream (`.git::$INDEX_ALLOCATION`) and trailing dots and spaces dropped.
    Two names with one fold can be one file somewhere; the protected-path checks compare
    folds, so no spelling of a protected name is written."""
    folded = _nfc(_nfc(name).casefold()).translate(_IGNORABLE)
    return folded.split(":", 1)[0].rstrip(". ")


def _short_form(long: str) -> tuple[str, str]:
    """What an NTFS short name keeps of a folded long name: the first six characters of its
    stem and the first three of its extension, leading dots, dots and spaces dropped
    (`.git` → `git`, ``; `config.yaml` → `config`, `yam`)."""
    stem, dot, ext = long.lstrip(".").rpartition(".")
    if not dot:
        stem, ext = ext, ""
    return stem.replace(".", "").replace(" ", "")[:6], ext[:3]


def _spellings(part: str, longs: Sequence[str]) -> list[str]:
    """A path component's fold, and, when it has the form of an NTFS short name, each
    protected long name (folded) it may stand for."""
    folded = fold_name(part)
    m = _SHORT_NAME.fullmatch(folded)
    if m is None:
        return [folded]
    short = (m.group("base"), m.group("ext") or "")
    out = [folded]
    for long in longs:
        if long == _RESERVED_PREFIX:  # a prefix: any extension
            if m.group("base") == _short_form(long)[0]:
                out.append(long)
        elif _short_form(long) == short:
            out.append(long)
    return out


def _literal_parts(globs: Sequence[str]) -> list[str]:
    """The folded glob components without wildcards: the names a short name may stand for."""
    return [
        fold_name(part)
        for glob in globs
        for part in glob.split("/")
        if part and not any(c in part for c in "*?[")
    ]


def refuse_protected(rel: str, globs: Sequence[str] = ()) -> None:
    """`protected_reason`, raised when there is one."""
    reason = protected_reason(rel, tuple(globs))
    if reason is not None:
        raise PlacementError(reason)


@functools.lru_cache(maxsize=4096)  # a reply of many blocks names a few paths many times
def protected_reason(rel: str, globs: tuple[str, ...] = ()) -> Failure | None:
    """Why `rel` may not be written (`PROTECTED_PATH`), or None: it is or lies inside a
    version-control folder, it names one of llm-patch's own files, or it or a folder above
    it matches one of `globs`.

    Every comparison is made on folded names (`fold_name`), the way a case-insensitive or
    normalising disk (macOS, Windows) resolves them: `.GIT`, `.git.`, `.git\\u200d`, `GIT~1`
    all reach `.git` on one, `Secrets/` reaches `secrets/`. A glob is matched with `fnmatch`
    against the root-relative path and each folder above it, `*` crossing "/", and a leading
    `**/` also matching at the root; both sides folded alike.
    """
    parts = rel.split("/")
    vcs_longs = list(VCS_FOLDERS) + [_RESERVED_PREFIX]
    for part in parts:
        for spelled in _spellings(part, vcs_longs):
            if spelled in VCS_FOLDERS:
                return PlacementError.of(
                    ErrorCode.PROTECTED_PATH,
                    f"refusing to write {rel}: {part} belongs to version control, whose "
                    "hooks and configuration run commands; llm-patch never writes there",
                    path=rel,
                    pattern=part,
                ).failure
    for spelled in _spellings(parts[-1], vcs_longs + list(_RESERVED_NAMES)):
        if spelled.startswith(_RESERVED_PREFIX) or spelled in _RESERVED_NAMES:
            return PlacementError.of(
                ErrorCode.PROTECTED_PATH,
                f"refusing to write {rel}: names starting with {_RESERVED_PREFIX} and "
                f"{', '.join(_RESERVED_NAMES)}, in any spelling, are llm-patch's own files "
                "(temporary files, the journal, the lock)",
                path=rel,
                pattern=parts[-1],
            ).failure
    if not globs:
        return None
    longs = _literal_parts(globs)
    readings = [[]] if parts else []
    for part in parts:
        options = _spellings(part, longs)
        # a short name may stand for several protected names: try each (bounded: a path
        # has few components, a glob list few literal names)
        readings = [r + [o] for r in readings for o in options][:256]
    for glob in globs:
        folded_glob = "/".join(fold_name(p) if p else p for p in glob.split("/"))
        tails = (folded_glob, folded_glob[3:]) if folded_glob.startswith("**/") else (folded_glob,)
        for reading in readings:
            prefixes = ["/".join(reading[:n]) for n in range(len(reading), 0, -1)]
            if any(fnmatch.fnmatchcase(p, g) for p in prefixes for g in tails):
                return PlacementError.of(
                    ErrorCode.PROTECTED_PATH,
                    f"refusing to write {rel}: it matches the protected pattern {glob!r} "
                    "(--protect, llmPatch.protectedPaths; letter case and other spellings "
                    "a disk may treat as one name are matched too)",
                    path=rel,
                    pattern=glob,
                ).failure
    return None


def _io_failure(rel: str, err: OSError) -> PlacementError:
    code = ErrorCode.PERMISSION_DENIED if isinstance(err, PermissionError) else ErrorCode.IO_ERROR
    return PlacementError.of(code, f"{rel}: {err.strerror or err}", path=rel)
