"""Documents the client does not share: edits planned on the disk while the editor may hold
other text.

An editor sends the server `didOpen` for the documents it starts the server for. One set up
for replies only (Kate's usual configuration: Markdown) never shares the source files a
reply edits, so the server plans them from disk — and cannot see what the editor's buffer
holds. Whether it holds unsaved text in a document it never shared is not knowable; that
it does not share a document is, once the server has edited one: an editor loads the file
it edits into a buffer, and one that shares its documents sends `didOpen` for it.

* **After an apply**, each file it edited that the client has still not opened for the
  server (after a moment's wait) is one the client does not share: the report says so
  (warning `NOT_SHARED`, naming the files and the cure), and the first time in a session
  it is also shown as a message.
* **The next apply to such a file** is refused unless the file on disk holds the text the
  server sent (the user saved it): otherwise the buffer holds text the server cannot see,
  and an edit planned from disk would land on the wrong lines.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any
from urllib.parse import unquote

from lsprotocol import types

from lsp_server.lsp.session import LlmPatchServer
from lsp_server.model import FileAction, FileChange, PlacementError, WarningType
from lsp_server.workspace import DiskWorkspace

CURE = (
    "configure the editor to start llm-patch for every file type it edits (see "
    "editors/README.md), or save files before applying a patch to them"
)


def opened(ls: LlmPatchServer, uri: str) -> None:
    """A `didOpen`: the document is shared from now on."""
    ls.unshared_edits.pop(unquote(uri), None)


async def not_shared_after(
    ls: LlmPatchServer,
    uri_for: Callable[[str], str],
    landed: Iterable[FileChange],
    timeout: float,
) -> list[str]:
    """The files an apply edited that the client has not opened for the server within
    `timeout` seconds; each is remembered with the text sent (see `held_elsewhere`)."""
    waiting: list[tuple[str, str, str]] = []
    for change in landed:
        if change.action is FileAction.DELETE or change.new_text is None:
            continue
        path = change.new_path or change.path
        uri = uri_for(path)
        if ls.open_document(uri) is None:
            waiting.append((path, uri, change.new_text))

    async def shared(uri: str) -> bool:
        return await ls.wait_for_document(uri, lambda: ls.open_document(uri) is not None, timeout)

    seen = await asyncio.gather(*(shared(uri) for _, uri, _ in waiting))
    out = []
    for (path, uri, text), ok in zip(waiting, seen, strict=True):
        if not ok:
            ls.unshared_edits[unquote(uri)] = text
            out.append(path)
    return out


def warn_not_shared(ls: LlmPatchServer, report: dict[str, Any], paths: list[str]) -> bool:
    """Add the `NOT_SHARED` warning to a report naming the files the client did not share
    after the server edited them; True if it did (the caller renders the report again)."""
    if not paths:
        return False
    names = ", ".join(paths)
    one = len(paths) == 1
    message = (
        f"the editor did not share {names} with llm-patch after editing "
        f"{'it' if one else 'them'}: changes made there and not saved cannot be seen, and "
        f"a patch planned from the disk would misplace them (the next patch to "
        f"{'it' if one else 'them'} waits until {'it is' if one else 'they are'} saved); "
        f"{CURE}"
    )
    report["warnings"].append(
        {"type": str(WarningType.NOT_SHARED), "message": message, "paths": paths}
    )
    if not ls.told_not_shared:
        ls.told_not_shared = True
        ls.tell(types.MessageType.Warning, f"LLM patch: {message}")
    return True


def held_elsewhere(
    ls: LlmPatchServer, uri_for: Callable[[str], str], files: Iterable[FileChange]
) -> list[tuple[str, str]]:
    """The files an edit changes that an earlier apply edited in the editor and the client
    has not shared since: (path, the text sent then). Taken on the event loop."""
    out = []
    for change in files:
        uri = uri_for(change.path)
        text = ls.unshared_edits.get(unquote(uri))
        if text is not None and ls.open_document(uri) is None:
            out.append((change.path, text))
    return out


def unsaved(root: Path, held: list[tuple[str, str]]) -> list[str]:
    """Those whose file on disk does not hold the text sent: the editor's buffer holds it,
    unsaved, where the server cannot see it (runs in a worker: it reads them)."""
    disk = DiskWorkspace(root)
    out = []
    for path, text in held:
        try:
            saved = disk.snapshot(path).text
        except PlacementError:
            saved = None
        if saved != text:
            out.append(path)
    return out


def unsaved_message(paths: list[str]) -> str:
    names = ", ".join(paths)
    return (
        f"llm-patch edited {names} in the editor, which has not shared "
        f"{'that document' if len(paths) == 1 else 'those documents'} with it since, and the "
        "file on disk does not hold that edit: the editor's buffer holds text llm-patch "
        f"cannot see. Save {names}, then run the patch again ({CURE})"
    )
