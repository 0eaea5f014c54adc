"""Asking the user before an edit that the evidence alone does not allow.

Some edits are safe only with the user's word: deleting or moving away a document with
unsaved work (the editor acts on the file on disk, past the buffer and its undo), editing a
file that has other hard links (an editor saving in place changes every name). The server
asks with `window/showMessageRequest`, a question with buttons every editor shows; an
editor that cannot ask, or a question dismissed, is a no: the edit is refused, saying why.

A client that asks the user itself, as it applies the edit, says so once, in its
capabilities (`experimental.llmPatch.confirmUnsaved: true`; VS Code's extension does): the
server then sends an edit that deletes or moves a document with unsaved work without asking,
so the user is asked once, by the editor. (A command's `confirmUnsaved` option says the same
for one run.) Other questions (hard links) are still asked here: no client asks them.
"""

from __future__ import annotations

import logging

from lsprotocol import types

from lsp_server.lsp.session import LlmPatchServer

logger = logging.getLogger("lsp_server")

CANCEL = "Cancel"


# Clients that answer `window/showMessageRequest` without saying so in their capabilities
# (eglot handles it, and advertises no `window.showMessage`), by `clientInfo.name`.
ASK_WITHOUT_CAPABILITY = ("emacs", "eglot")


def client_confirms_unsaved(ls: LlmPatchServer) -> bool:
    """Has the client declared that it asks the user before applying an edit that deletes or
    moves a document with unsaved changes (`experimental.llmPatch.confirmUnsaved`)?"""
    experimental = ls.client_capability("experimental")
    own = experimental.get("llmPatch") if isinstance(experimental, dict) else None
    return isinstance(own, dict) and own.get("confirmUnsaved") is True


def can_ask(ls: LlmPatchServer) -> bool:
    """Does the client take `window/showMessageRequest`? A client that does not is never
    asked: a request it leaves unanswered would hold the apply forever."""
    if ls.client_capability("window.show_message") is not None:
        return True
    name = (ls.client_name or "").strip().lower()
    return name.startswith(ASK_WITHOUT_CAPABILITY)


async def ask(ls: LlmPatchServer, question: str, go_ahead: str) -> bool:
    """Show `question` with the buttons `go_ahead` and Cancel; True only for `go_ahead`."""
    if not can_ask(ls):
        return False
    params = types.ShowMessageRequestParams(
        type=types.MessageType.Warning,
        message=question,
        actions=[types.MessageActionItem(title=go_ahead), types.MessageActionItem(title=CANCEL)],
    )
    try:
        answer = await ls.window_show_message_request_async(params)
    except Exception as err:  # noqa: BLE001 - an editor that fails to ask has not said yes
        logger.info("window/showMessageRequest failed: %s", err)
        return False
    return answer is not None and answer.title == go_ahead
