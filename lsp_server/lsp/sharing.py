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
* **At start-up** (`initialized`), before any of that can be known: one log line saying how
  documents the editor does not share are read, and, for a client whose usual set-up shares
  only some documents (`PARTIAL_SHARERS`), one message saying how to make it share them all
  (`llmPatch.startupMessage: false` turns it off).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any
from urllib.parse import unquote

from lsprotocol import types

from lsp_server.lsp.session import LlmPatchServer
from lsp_server.model import FileAction, FileChange, PlacementError, WarningType
from lsp_server.workspace import DiskWorkspace

logger = logging.getLogger("lsp_server")

CURE = (
    "configure the editor to start llm-patch for every file type it edits (see "
    "editors/README.md), or save files before applying a patch to them"
)


READ_FROM_DISK = (
    "documents the editor does not share with llm-patch (no didOpen) are read from disk: an "
    "unsaved change in one is not seen, and an edit to one is reported as NOT_SHARED"
)

# Clients whose configuration decides which documents they share, so that a set-up made for
# replies shares no source file, and what to do about it; by name (lowercased, starts with).
# Kate gives each document to one server only, the first whose `highlightingModeRegex`
# matches its highlighting mode: a server set up for Markdown never sees the Python file a
# reply edits. Clients that share every document they show (VS Code, Neovim, eglot, Helix,
# Sublime, Zed as editors/README.md sets them up) are not listed.
PARTIAL_SHARERS: tuple[tuple[str, str], ...] = (
    (
        "kate",
        "Kate shares a document with llm-patch only when its highlighting mode matches the "
        'server\'s "highlightingModeRegex"; the others are read from disk and their unsaved '
        'changes are not seen. To share every document, name the server "_llm-patch" with '
        '"highlightingModeRegex": ".*" (editors/README.md, Kate), or save before applying',
    ),
)


def client_program(name: str | None, pid: int | None) -> str | None:
    """Who the client is: its `clientInfo.name`, else the name of the process it says it
    is (`processId`) where the system shows it (/proc): Kate sends no `clientInfo`."""
    if name:
        return name
    if not isinstance(pid, int) or pid <= 0:
        return None
    try:
        comm = Path(f"/proc/{pid}/comm").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    return comm.strip() or None


def partial_sharer(program: str | None) -> str | None:
    """What to tell a client known to share only some documents, or None."""
    low = (program or "").strip().lower()
    return next((advice for prefix, advice in PARTIAL_SHARERS if low.startswith(prefix)), None)


def startup_notice(ls: LlmPatchServer) -> None:
    """At `initialized`, once the settings are in: the log line for every client, and the
    message for a client that shares only some documents, once per server process (a server
    serving sessions one after another over TCP tells the user once)."""
    logger.info("%s", READ_FROM_DISK)
    advice = partial_sharer(ls.client_program)
    if advice is None or not ls.settings.startup_message or ls.told_partial_sharing:
        return
    ls.told_partial_sharing = True
    text = f'LLM patch: {advice}. ("llmPatch.startupMessage": false hides this message.)'
    ls.window_show_message(types.ShowMessageParams(type=types.MessageType.Info, message=text))


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
