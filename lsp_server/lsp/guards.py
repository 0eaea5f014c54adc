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
  and its undo; the user is asked first (`confirm`), and without a yes (or the caller's
  `confirmUnsaved`) it is refused, naming the file.
* **A file with other hard links is not edited unasked.** An editor saves in place, which
  changes the file under every name it has, outside the workspace too: the user is asked
  first, and without a yes it is refused.
"""

from __future__ import annotations

import os
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
        "unsaved work would be lost"
    )


def unsaved_question(documents: list[AtRisk]) -> str:
    """The question asked before going ahead anyway."""
    return f"LLM patch: {unsaved_message(documents)}. Go ahead and lose it?"


def unsaved_refusal(documents: list[AtRisk]) -> str:
    """Why nothing was sent, once the user did not go ahead (or could not be asked)."""
    return f"{unsaved_message(documents)}. Save or revert the buffer, then run the patch again"


@dataclass(frozen=True)
class Linked:
    """A file the edit changes that has other names (hard links)."""

    path: str  # workspace-relative
    links: int  # st_nlink


def hard_linked(root: Path, files: Iterable[FileChange]) -> list[Linked]:
    """The files an edit modifies or moves that have more than one hard link: the editor
    edits the buffer, and an editor that saves in place (most do) then rewrites the one file
    every name shares, outside the workspace too (runs in a worker: it looks at the disk).
    A delete removes one name only, and a new file has none yet."""
    out: list[Linked] = []
    for change in files:
        if change.action not in (FileAction.MODIFY, FileAction.RENAME):
            continue
        try:
            links = os.lstat(root / change.path).st_nlink
        except OSError:
            continue
        if links > 1:
            out.append(Linked(change.path, links))
    return out


def linked_message(files: list[Linked]) -> str:
    names = ", ".join(f"{f.path} ({f.links} names)" for f in files)
    return (
        f"{names} {'is a file' if len(files) == 1 else 'are files'} with other hard links: "
        "when the editor saves the change in place, the file is changed under every name, "
        "inside the workspace or outside it"
    )


def linked_question(files: list[Linked]) -> str:
    return f"LLM patch: {linked_message(files)}. Edit it anyway?"


def linked_refusal(files: list[Linked]) -> str:
    return (
        f"{linked_message(files)}. Nothing was applied: break the link (copy the file over "
        "itself) or apply it from the command line, which writes a new file for the name"
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
