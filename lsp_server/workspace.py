"""Snapshots: the text each block resolves against, and the guard that keeps paths inside the root.

The server overlays open documents (their unsaved text and version); everything else is
read from disk with its content hash, so the writer can refuse a file that changed between
plan and write. Reply paths are untrusted: anything that would leave the root — `..`,
absolute paths elsewhere, `~`, drive letters, NUL bytes, symlinks pointing out — is refused.
"""

from __future__ import annotations

import hashlib
import os
import stat
from collections.abc import Callable
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
    return PlacementError(
        Failure(
            ErrorCode.OUTSIDE_WORKSPACE,
            f"refusing path {path!r}: {why}; paths must stay inside the workspace root",
            {"path": path},
        )
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
        raise PlacementError(Failure(ErrorCode.MALFORMED_BLOCK, "the block names no file", {}))
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
            raise PlacementError(
                Failure(
                    ErrorCode.BINARY_FILE,
                    f"{path} is {name} text (it starts with a {name} byte-order mark); "
                    "llm-patch edits UTF-8 text only: convert the file to UTF-8 first",
                    {"path": path, "encoding": name.lower()},
                )
            )
    if sniff_binary(data):
        raise PlacementError(
            Failure(
                ErrorCode.BINARY_FILE,
                f"{path} looks binary (a NUL byte in its first {BINARY_SNIFF} bytes); "
                "llm-patch only edits text files",
                {"path": path},
            )
        )
    bom = data.startswith(UTF8_BOM)
    try:
        text = data[len(UTF8_BOM) :].decode("utf-8") if bom else data.decode("utf-8")
    except UnicodeDecodeError as err:
        raise PlacementError(
            Failure(
                ErrorCode.BINARY_FILE,
                f"{path} is not valid UTF-8 (byte {err.start}); llm-patch edits UTF-8 text only",
                {"path": path, "offset": err.start},
            )
        ) from None
    return text, bom


def encode(text: str, bom: bool) -> bytes:
    return (UTF8_BOM if bom else b"") + text.encode("utf-8")


def digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


class DiskWorkspace:
    """Snapshots from disk under `root`, overlaid by open documents when an overlay is given."""

    def __init__(self, root: Path, overlay: Overlay | None = None):
        self.root = Path(os.path.realpath(root))
        self.overlay = overlay

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
                raise PlacementError(
                    Failure(
                        ErrorCode.IO_ERROR,
                        f"{rel}: {probe.relative_to(self.root).as_posix()} is a file, not a folder",
                        {"path": rel},
                    )
                )
        return target

    def snapshot(self, path: str) -> Snapshot:
        rel = self.relative(path)
        if self.overlay is not None:
            opened = self.overlay(rel)
            if opened is not None:
                text, version = opened
                return Snapshot(rel, text, version=version)
        target = self.absolute(rel)
        try:
            st = target.stat()
        except FileNotFoundError:
            return Snapshot(rel, None)
        except OSError as err:
            raise _io_failure(rel, err) from None
        if stat.S_ISDIR(st.st_mode):
            return Snapshot(rel, None, is_dir=True)
        if st.st_size > MAX_FILE_BYTES:
            raise PlacementError(
                Failure(
                    ErrorCode.FILE_TOO_LARGE,
                    f"{rel} is {st.st_size:,} bytes; llm-patch edits files up to "
                    f"{MAX_FILE_BYTES:,} bytes",
                    {"path": rel, "bytes": st.st_size, "limit": MAX_FILE_BYTES},
                )
            )
        try:
            data = target.read_bytes()
        except OSError as err:
            raise _io_failure(rel, err) from None
        text, bom = decode(data, rel)
        return Snapshot(rel, text, digest=digest(data), bom=bom, mode=stat.S_IMODE(st.st_mode))


def _io_failure(rel: str, err: OSError) -> PlacementError:
    code = ErrorCode.PERMISSION_DENIED if isinstance(err, PermissionError) else ErrorCode.IO_ERROR
    return PlacementError(Failure(code, f"{rel}: {err.strerror or err}", {"path": rel}))
