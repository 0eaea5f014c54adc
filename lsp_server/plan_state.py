"""What each path holds while a reply is planned, and the net change of each at the end.

Blocks move text between paths, so a path's text may continue another path's file; a
`PlanState` keeps every path's first and latest text, the names that reach one file, and
checkpoints that undo a refused block. `net_changes` turns first and last into the
`FileChange`s the writer and an editor apply. Pure: snapshots come from a `SnapshotSource`.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

from lsp_server.lines import from_cr, is_cr_only, to_cr
from lsp_server.model import (
    ErrorCode,
    FileAction,
    FileChange,
    PlacementError,
    PlanWarning,
    Snapshot,
)
from lsp_server.workspace import SnapshotSource, refuse_protected


@dataclass
class FileState:
    """What one file path holds while the reply is planned.

    Blocks move text between paths, so a path's text may continue another path's file
    (`origin`); the net change of each path is worked out once every block has run
    (`net_changes`), from what the path held first and what it holds last.
    """

    snap: Snapshot  # what the path held before the reply
    base: str | None  # the snapshot's text in the core's form (CR-only files: see lines.py)
    text: str | None  # what it holds now, in the core's form; None: nothing (now)
    origin: str | None  # the path whose original file this text continues; None: a new file
    cr: bool = False  # the text is a CR-only file's: its "\n" go back to "\r" when written
    blocks: list[int] = field(default_factory=list)
    replaced: bool = False  # an existing file's content was replaced by a move or Add File
    copied: bool = False  # a git copy of `origin`'s file: a new file, never its rename


def opened(key: str, snap: Snapshot) -> FileState:
    raw = snap.text
    cr = raw is not None and is_cr_only(raw)
    base = from_cr(raw) if cr and raw is not None else raw
    return FileState(snap, base, base, key if raw is not None else None, cr)


def written(f: FileState) -> str | None:
    """A path's text as it will be written."""
    return to_cr(f.text) if f.cr and f.text is not None else f.text


class PlanState:
    def __init__(self, source: SnapshotSource, protected: tuple[str, ...] = ()):
        self.source = source
        self.protected = protected
        self.files: dict[str, FileState] = {}
        self.order: list[str] = []
        self.clipboards: dict[str, str] = {}
        self.warnings: list[PlanWarning] = []
        # facts about the disk, kept when a failed block is rolled back: a path as blocks
        # name it → (the file's key, the path root-relative, its snapshot); a file's
        # identity → the key it was first reached by
        self.named: dict[str, tuple[str, str, Snapshot]] = {}
        self.keys: dict[tuple[int, int], str] = {}

    def look(self, path: str) -> tuple[str, str, Snapshot]:
        """(key, root-relative path, snapshot) of a path as a block names it. Paths that
        reach one file (a symlink and the file it names, a symlinked folder, another
        spelling on a case-insensitive disk) share one key, so their blocks apply in
        sequence to one text."""
        found = self.named.get(path)
        if found is None:
            rel_of = getattr(self.source, "relative", None)
            rel = rel_of(path) if rel_of else path
            snap = self.source.snapshot(rel)
            key = snap.path
            if snap.identity is not None:
                key = self.keys.setdefault(snap.identity, key)
            found = self.named[path] = (key, rel, snap)
        return found

    def get(self, path: str) -> tuple[str, FileState]:
        key, _, snap = self.look(path)
        if key not in self.files:
            self.files[key] = opened(key, snap)
            self.order.append(key)
        return key, self.files[key]

    def writable(self, path: str) -> tuple[str, FileState]:
        """`get` for a path a block writes: refused when it is protected."""
        key, rel, _ = self.look(path)
        for name in dict.fromkeys((rel, key)):
            refuse_protected(name, self.protected)
        return self.get(path)

    def refuse_link(self, path: str, what: str) -> None:
        """A symlink's text is the file it names, but deleting or moving the link is not
        deleting or moving that file: rather than guess which is meant, refuse."""
        key, rel, snap = self.look(path)
        if snap.link:
            raise PlacementError.of(
                ErrorCode.IO_ERROR,
                f"{rel} is a symbolic link to {key}; llm-patch edits the file a link names "
                f"but does not {what} links: {what} {key} instead, or the link yourself",
                path=rel,
                link_to=key,
            )

    def refuse_lookalike(self, path: str) -> None:
        """A new file must not share its name with an existing one after Unicode
        normalisation (or case folding, where the disk ignores case)."""
        _, rel, snap = self.look(path)
        other = snap.same_name_as
        if other is not None and other != rel:
            raise PlacementError.of(
                ErrorCode.FILE_EXISTS,
                f"{rel} would be a new file with the same name as the existing {other} "
                "(they differ only in letter case or Unicode normalisation, which some "
                f"file systems ignore); edit {other}, or choose another name",
                path=rel,
                existing=other,
            )

    def checkpoint(self) -> tuple:
        files = {k: dataclasses.replace(f, blocks=list(f.blocks)) for k, f in self.files.items()}
        return files, list(self.order), dict(self.clipboards), len(self.warnings)

    def restore(self, cp: tuple) -> None:
        files, order, clips, n_warnings = cp
        self.files, self.order, self.clipboards = files, order, clips
        del self.warnings[n_warnings:]


def missing(path: str, what: str, snap: Snapshot | None = None) -> PlacementError:
    if snap is not None and snap.is_dir:
        return PlacementError.of(
            ErrorCode.FILE_NOT_FOUND,
            f"{path} is a directory, not a file; {what}",
            path=path,
            is_dir=True,
        )
    return PlacementError.of(ErrorCode.FILE_NOT_FOUND, f"{path} does not exist; {what}", path=path)


def net_changes(state: PlanState) -> list[FileChange]:
    """The net change of each path: what it held before the reply → what it holds now.

    Each path appears in one change at most, so the writer and an editor can apply the
    changes in any order. A text that left its own path for one that did not exist, and
    whose path ends empty, is a rename (an editor keeps the document open under its new
    name); anything else is a create, modify or delete of each path: a swap of two files is
    two modifies, a move onto an existing file a modify of it and a delete of the source.
    """
    renamed: dict[str, str] = {}  # source → destination
    for key in state.order:
        f = state.files[key]
        origin = f.origin
        if f.text is None or origin is None or origin == key or f.snap.text is not None:
            continue
        if f.copied:
            continue
        if state.files[origin].text is None and origin not in renamed:
            renamed[origin] = key
    source_of = {dest: src for src, dest in renamed.items()}
    out: list[FileChange] = []
    for key in state.order:
        f = state.files[key]
        blocks = tuple(dict.fromkeys(f.blocks))
        if key in renamed:
            continue  # with its destination
        if key in source_of:
            src = state.files[source_of[key]]
            out.append(
                FileChange(
                    source_of[key],
                    FileAction.RENAME,
                    src.snap.text,
                    written(f),
                    new_path=key,
                    version=src.snap.version,
                    digest=src.snap.digest,
                    bom=src.snap.bom,
                    mode=src.snap.mode,
                    blocks=tuple(dict.fromkeys(src.blocks + list(blocks))),
                )
            )
            continue
        new = written(f)
        if new == f.snap.text:
            continue
        like = state.files[f.origin].snap if f.origin is not None else f.snap
        if new is None:
            action = FileAction.DELETE
        elif f.snap.text is None:
            action = FileAction.CREATE
        else:
            action = FileAction.MODIFY
        out.append(
            FileChange(
                key,
                action,
                f.snap.text,
                new,
                version=f.snap.version,
                digest=f.snap.digest,
                bom=like.bom,
                mode=like.mode,
                blocks=blocks,
                overwrite_dest=f.replaced and action is not FileAction.CREATE,
            )
        )
    return out
