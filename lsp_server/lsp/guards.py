"""What must hold in the editor right before an edit is sent, and the refusals when it does not.

A plan is made in a worker on a frozen copy of the open documents; the editor keeps
changing them meanwhile. Three rules keep an edit from landing on text the plan never saw:

* **Pinned versions are the latest.** An edit pins each open document to the version the
  plan read. The server has every change of a synced document by construction, so that
  version is one it can vouch for only while no later change has arrived: when one has (or
  a file read from disk was opened meanwhile, with text the plan never saw), the plan is
  made again. A client may skip its own check (Neovim does for version 0), so the server
  never relies on it.
* **Unsynced buffers are stale.** A client names, in `dirty`, the documents it has with
  unsaved changes that it did not send the server (buffers it does not attach). The plan
  reads those from disk, which is not what the buffer holds: a block on one is refused
  (`STALE_VERSION`), telling the user to save it or let the editor sync it. That one is
  enforced while planning, where the file is read (`editor_workspace.SessionWorkspace`).
* **Unsaved work is not deleted or moved away.** Deleting or renaming a document open with
  unsaved changes goes straight to the disk in some editors (Neovim), bypassing the buffer
  and its undo; it is refused, naming the file, unless the caller says `confirmUnsaved`.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from lsp_server.lsp.analysis import Analysis
from lsp_server.lsp.session import LlmPatchServer
from lsp_server.model import FileAction, FileChange, PlacementError
from lsp_server.workspace import DiskWorkspace


def moved_documents(
    ls: LlmPatchServer, analysis: Analysis, files: Iterable[FileChange]
) -> list[str]:
    """The files an edit touches whose text in the editor is no longer what the plan read:
    a pinned document with a later version (or closed since), or a file read from disk that
    is open now (its buffer, which the edit would land on, may hold other text)."""
    uri_for = ls.uri_for(analysis)
    moved: list[str] = []
    for change in files:
        doc = ls.open_document(uri_for(change.path))
        if change.version is not None:
            if doc is None or doc.version != change.version:
                moved.append(change.path)
        elif doc is not None:
            moved.append(change.path)
    return moved


@dataclass(frozen=True)
class AtRisk:
    """An open document a resource operation would act on, as the editor holds it now."""

    path: str  # workspace-relative
    what: str  # "delete" or "move": what the edit does to the file on disk
    text: str  # the document's text in the editor


def at_risk(ls: LlmPatchServer, analysis: Analysis, files: Iterable[FileChange]) -> list[AtRisk]:
    """The open documents the edit deletes or moves away (taken on the event loop; `unsaved`
    compares them with the disk in a worker). A file a move replaces is not among them: the
    plan makes that an edit of its text, which goes through the buffer and its undo, and
    asks for confirmation."""
    uri_for = ls.uri_for(analysis)
    out: list[AtRisk] = []

    def add(path: str, what: str) -> None:
        doc = ls.open_document(uri_for(path))
        if doc is not None:
            out.append(AtRisk(path, what, doc.source))

    for change in files:
        if change.action is FileAction.DELETE:
            add(change.path, "delete")
        elif change.action is FileAction.RENAME:
            add(change.path, "move")
    return out


def unsaved(root: Path, documents: Iterable[AtRisk]) -> list[AtRisk]:
    """Those of `documents` whose text in the editor is not what the disk holds: unsaved
    work (runs in a worker: it reads the files)."""
    disk = DiskWorkspace(root)
    out: list[AtRisk] = []
    for doc in documents:
        try:
            saved = disk.snapshot(doc.path).text
        except PlacementError:
            saved = None
        if saved != doc.text:
            out.append(doc)
    return out


def unsaved_message(documents: list[AtRisk]) -> str:
    """Why the edit is refused, naming each file and what would happen to it."""
    verbs = {"delete": "deleting", "move": "moving"}
    parts = [f"{verbs[d.what]} {d.path}" for d in documents]
    names = ", ".join(dict.fromkeys(d.path for d in documents))
    return (
        f"{names} {'has' if len(documents) == 1 else 'have'} unsaved changes in the editor, and "
        f"{', '.join(parts)} acts on the file on disk, past the buffer and its undo: the "
        "unsaved work would be lost. Save or revert the buffer, then run the patch again "
        '(or apply with the option "confirmUnsaved": true to go ahead)'
    )


def not_saved(root: Path, files: Iterable[FileChange]) -> list[str]:
    """The files an applied edit changed whose new text is not on disk yet: the editor holds
    them modified, unsaved (runs in a worker: it reads them). A move is named by where the
    file went; a deleted file has nothing to save."""
    disk = DiskWorkspace(root)
    out: list[str] = []
    for change in files:
        if change.action is FileAction.DELETE:
            continue
        path = change.new_path or change.path
        try:
            saved = disk.snapshot(path).text
        except PlacementError:
            saved = None
        if saved != change.new_text:
            out.append(path)
    return out
