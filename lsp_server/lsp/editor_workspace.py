"""The editor's session as a plan sees it: the workspace folders, the open documents, the
root a reply is planned against, and what the plan read from disk.

Three rules live here.

* **A frozen view.** Documents change on the event loop with every keystroke; a plan runs in
  a worker. `EditorView` is the copy taken on the loop (cheap: references to the texts), and
  everything that touches the disk (resolving symlinks to match documents to the root,
  reading files) happens in the worker.
* **No workspace, no disk.** A server started without a workspace folder (no `rootUri`, no
  folders) never falls back to its working directory: it is in *single-file mode*, where a
  reply may edit only documents the editor has open. Any other path is refused with
  `OUTSIDE_WORKSPACE`, saying why. Relative paths are read from the reply document's folder
  (or, for a reply that is not a file, from the file system's root, so only absolute paths
  can name an open document).
* **A plan remembers what it read.** For every file read from disk (not open in the
  editor) the plan keeps its `stat` fingerprint and a hash of its bytes. A plan made for a
  code action and reused by the apply that follows, or one about to be sent, is checked
  against the disk again (`changed_on_disk`): a file that changed meanwhile means planning
  again, or refusing with `STALE_VERSION`, never sending edits computed on old text.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass
from pathlib import Path

from pygls.uris import to_fs_path, uri_scheme

from lsp_server.model import ErrorCode, PlacementError, Snapshot
from lsp_server.workspace import DiskWorkspace

# (size, mtime_ns, inode, device) of a file; None when nothing is there.
Fingerprint = tuple[int, int, int, int] | None
# The fingerprint of a path `stat` cannot look at (permission denied, a name too long): the
# plan could not read it either, so it stays "unchanged" while it stays unreadable.
UNREADABLE: Fingerprint = (-1, -1, -1, -1)


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


@dataclass(frozen=True)
class OpenDocument:
    """A document open in the editor, as it was when the view was taken."""

    uri: str
    text: str
    version: int


@dataclass(frozen=True)
class EditorView:
    """What the editor has told the server, frozen on the event loop for a worker to use."""

    folders: tuple[str, ...]  # the workspace folders' paths, in the client's order
    documents: tuple[OpenDocument, ...]  # open `file:` documents

    def key(self) -> tuple:
        """What a plan made from this view depends on (texts by their versions)."""
        return (self.folders, tuple((d.uri, d.version) for d in self.documents))


@dataclass(frozen=True)
class PlanRoot:
    """The folder a reply's paths are read from, and whether that is a workspace."""

    path: Path
    single_file: bool  # no workspace folder: only open documents may be edited


def plan_root(view: EditorView, reply_uri: str | None) -> PlanRoot:
    """The workspace folder a reply belongs to (the one holding it, else the first), or
    single-file mode when there is none."""
    folders = [Path(f) for f in view.folders]
    doc_path = to_fs_path(reply_uri) if reply_uri and uri_scheme(reply_uri) == "file" else None
    if folders:
        if doc_path:
            real = Path(os.path.realpath(doc_path))
            for folder in sorted(folders, key=lambda p: len(str(p)), reverse=True):
                real_folder = Path(os.path.realpath(folder))
                if real_folder == real or real_folder in real.parents:
                    return PlanRoot(folder, single_file=False)
        return PlanRoot(folders[0], single_file=False)
    if doc_path:
        return PlanRoot(Path(doc_path).parent, single_file=True)
    return PlanRoot(Path(os.path.abspath(os.sep)), single_file=True)


def target_path(root: PlanRoot, uri: str) -> str:
    """The workspace-relative path of the caller's `target` (the file a block that names no
    path applies to), or OUTSIDE_WORKSPACE: it must be a `file:` URI under the plan's root,
    since a block may only write there (runs in a worker: it resolves symlinks)."""
    path = to_fs_path(uri) if uri_scheme(uri) == "file" else None
    if not path:
        raise PlacementError.of(
            ErrorCode.OUTSIDE_WORKSPACE,
            f"the target {uri} is not a file on disk: name a file of the workspace "
            f"({root.path}) for the blocks that give no path",
            path=uri,
        )
    try:
        rel = Path(os.path.realpath(path)).relative_to(os.path.realpath(root.path))
    except ValueError:
        raise PlacementError.of(
            ErrorCode.OUTSIDE_WORKSPACE,
            f"the target {path} is outside the workspace ({root.path}): a block may only "
            "edit files under it",
            path=path,
        ) from None
    if not rel.parts:
        raise PlacementError.of(
            ErrorCode.OUTSIDE_WORKSPACE,
            f"the target {path} is the workspace folder itself, not a file in it",
            path=path,
        )
    return rel.as_posix()


def dirty_paths(root: Path, uris: tuple[str, ...]) -> frozenset[str]:
    """The client's `dirty` documents as paths under the root (resolved like the open
    documents); documents outside the root cannot be edited anyway (runs in a worker)."""
    real_root = Path(os.path.realpath(root))
    out: set[str] = set()
    for uri in uris:
        path = to_fs_path(uri) if uri_scheme(uri) == "file" else None
        if not path:
            continue
        try:
            out.add(Path(os.path.realpath(path)).relative_to(real_root).as_posix())
        except ValueError:
            continue
    return frozenset(out)


def overlay(view: EditorView, root: Path) -> tuple[dict[str, tuple[str, int]], dict[str, str]]:
    """The open documents under `root`: path → (text, version), and path → URI."""
    real_root = Path(os.path.realpath(root))
    texts: dict[str, tuple[str, int]] = {}
    uris: dict[str, str] = {}
    for doc in view.documents:
        path = to_fs_path(doc.uri)
        if not path:
            continue
        try:
            rel = Path(os.path.realpath(path)).relative_to(real_root).as_posix()
        except ValueError:
            continue
        texts[rel] = (doc.text, doc.version)
        uris[rel] = doc.uri
    return texts, uris


@dataclass(frozen=True)
class DiskRead:
    """What a plan saw of a file it read from disk."""

    path: str  # workspace-relative
    fingerprint: Fingerprint  # taken before reading: a change during the read shows too
    content: str  # sha256 of the bytes, or "absent", "folder", "refused CODE"


def content_mark(snap: Snapshot) -> str:
    """A snapshot's content in one comparable word: its hash, or what stood there instead."""
    if snap.is_dir:
        return "folder"
    if snap.text is None:
        return "absent"
    return snap.digest or hashlib.sha256(snap.text.encode("utf-8", "surrogatepass")).hexdigest()


class SessionWorkspace(DiskWorkspace):
    """Snapshots for a server plan: the open documents first, then the disk, each disk read
    recorded; in single-file mode, open documents only."""

    def __init__(
        self,
        root: PlanRoot,
        open_texts: dict[str, tuple[str, int]],
        dirty: frozenset[str] = frozenset(),
    ):
        super().__init__(root.path, open_texts.get)
        self.single_file = root.single_file
        self.reads: dict[str, DiskRead] = {}
        self.dirty = dirty  # files the client has unsaved changes in that it did not send

    def snapshot(self, path: str) -> Snapshot:
        rel = self.relative(path)
        if self.dirty and not self._is_open(rel) and self._key(rel) in self.dirty:
            raise PlacementError.of(
                ErrorCode.STALE_VERSION,
                f"{rel} has unsaved changes in the editor that were not sent to llm-patch, "
                "so the patch cannot see them: save the file, or let the editor sync the "
                "buffer with the server (attach it), then run the patch again",
                path=rel,
                unsaved=True,
            )
        if self.single_file:
            if not self._is_open(rel):  # refused before anything is read from disk
                raise PlacementError.of(
                    ErrorCode.OUTSIDE_WORKSPACE,
                    f"refusing path {path!r}: the editor has no workspace folder open, so "
                    f"only documents open in the editor can be edited, and {rel} is not "
                    "open; open its folder as the workspace (or open the file) to edit it",
                    path=path,
                    single_file=True,
                )
            return super().snapshot(rel)
        before = fingerprint(str(self.root / rel))
        try:
            snap = super().snapshot(rel)
        except PlacementError as err:
            self._record(DiskRead(rel, before, f"refused {err.failure.code}"))
            raise
        if snap.version is None:  # read from disk, not an open document
            self._record(DiskRead(rel, before, content_mark(snap)))
        elif not os.path.lexists(self.root / snap.path):
            raise _not_that_file(rel)
        return snap

    def _is_open(self, rel: str) -> bool:
        """Is the file open in the editor, by this name or by the file it resolves to (the
        open documents are keyed by their real path under the root)?"""
        if self.overlay is None:
            return False
        return self.overlay(rel) is not None or self.overlay(self._key(rel)) is not None

    def _key(self, rel: str) -> str:
        """The path the file `rel` resolves to under the root (open and dirty documents
        are keyed by it), or `rel` when it resolves outside."""
        real = os.path.realpath(self.root / rel)
        try:
            return Path(real).relative_to(self.root).as_posix()
        except ValueError:
            return rel

    def _record(self, read: DiskRead) -> None:
        # the first read is what the plan was built on; later ones (related information,
        # fuzzy retries) must not hide a change made in between
        self.reads.setdefault(read.path, read)


def _not_that_file(rel: str) -> PlacementError:
    """A document the editor holds for a path with no file is not that file: a buffer left
    open after its file was moved or deleted (an undo that renamed it back), or a new buffer
    never saved. Planning on its text would take it for the file (a move onto it collapsed
    to a bare delete when the texts matched), and treating the path as free would let the
    edit replace the buffer's text: two readings, so the block is refused, saying why."""
    return PlacementError.of(
        ErrorCode.STALE_VERSION,
        f"the editor holds a document for {rel}, but no such file is on disk (it was moved "
        "or deleted, or the buffer was never saved): save it or close it, then run the "
        "patch again",
        path=rel,
        not_on_disk=True,
    )


def changed_on_disk(root: Path, reads: dict[str, DiskRead], *, content: bool) -> list[str]:
    """The files a plan read from disk that are no longer what it saw: by their `stat`
    fingerprint, and with `content` also by their bytes (read again). Runs in a worker."""
    changed: list[str] = []
    fresh = DiskWorkspace(root) if content else None
    for rel, read in reads.items():
        if fingerprint(str(Path(os.path.realpath(root)) / rel)) != read.fingerprint:
            changed.append(rel)
            continue
        if fresh is None:
            continue
        try:
            now = content_mark(fresh.snapshot(rel))
        except PlacementError as err:
            now = f"refused {err.failure.code}"
        if now != read.content:
            changed.append(rel)
    return changed
