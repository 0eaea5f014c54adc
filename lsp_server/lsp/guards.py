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
  (`STALE_VERSION`), telling the user to save it or let the editor sync it.
* **Unsaved work is not deleted or moved away.** Deleting, renaming or replacing (a move
  onto it) a document open with unsaved changes goes straight to the disk in most editors,
  bypassing the buffer and its undo; it is refused, naming the file, unless the caller says
  `confirmUnsaved`.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from lsp_server.model import FileChange

if TYPE_CHECKING:  # the session imports the engine's types; this module is imported by it
    from lsp_server.lsp.analysis import Analysis
    from lsp_server.lsp.session import LlmPatchServer


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
