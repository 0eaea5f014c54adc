"""Where pygls itself is adjusted: each change, the reason for it, and nothing else.

The server uses pygls (2.1) through its public API everywhere else. What is here changes
how pygls reads messages and keeps documents, for faults found by the tests in
tests/lsp/test_pygls_compat.py (one test per change):

1. Lines end where the LSP says ("\\n", "\\r\\n", "\\r"). pygls splits a document with
   `str.splitlines`, which also breaks at form feeds, U+2028 and friends; an incremental
   change after such a character landed on the wrong line. Changes are applied here on a
   document that splits the LSP's way, and handed to pygls as the whole new text.
2. A change to a document that is not open is logged and ignored (pygls raised KeyError).
3. Only a message's top-level object is structured. pygls hands `structure_message` to
   `json.loads` as its `object_hook`, which runs on nested objects too: an object with a
   "jsonrpc" key inside a command's arguments was taken for a message, the request around
   it failed to structure and was dropped unanswered.
4. A request that cannot be structured is answered with InvalidParams (pygls logged it and
   left the client waiting).
5. `shutdown` cancels the other pending requests without tripping over itself: pygls walks
   its table of pending requests while cancelling them, and a cancelled request's callback
   removes it from that table ("dictionary changed size during iteration").
6. Cancelled request ids are remembered, so a command that runs long can see that the
   client gave up on it (`was_cancelled`); pygls only cancels the request's future, which
   a command running as pygls's sub-task cannot see.
"""

from __future__ import annotations

import logging
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any
from urllib.parse import unquote

import attrs
from lsprotocol import types
from pygls.exceptions import JsonRpcException, JsonRpcInvalidParams
from pygls.protocol import LanguageServerProtocol
from pygls.protocol.language_server import lsp_method
from pygls.workspace import TextDocument

from lsp_server.linediff import split_lsp_lines

logger = logging.getLogger("lsp_server")

# How many cancelled request ids are remembered; a cancel is read within moments of arriving.
REMEMBERED_CANCELS = 256


class LspLinesDocument(TextDocument):
    """A pygls document whose lines end only where the LSP says (1)."""

    @property
    def lines(self) -> tuple[str, ...]:
        return tuple(split_lsp_lines(self.source))


def apply_changes(
    text: str,
    changes: list[types.TextDocumentContentChangeEvent],
    position_codec: Any,
) -> str:
    """The text after a `didChange`'s changes, each applied to what the one before left,
    with pygls's own incremental algorithm on LSP lines (1)."""
    for change in changes:
        if isinstance(change, types.TextDocumentContentChangePartial):
            scratch = LspLinesDocument("", source=text, position_codec=position_codec)
            scratch.apply_change(change)
            text = scratch.source
        else:
            text = change.text
    return text


@dataclass
class _Answered:
    """Stands in for a message already answered with an error (4); pygls ignores a message
    whose `jsonrpc` is not "2.0"."""

    jsonrpc: str = "answered"


class Protocol(LanguageServerProtocol):
    """pygls's protocol with the changes listed in this module's docstring."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._cancelled: OrderedDict[Any, None] = OrderedDict()

    def was_cancelled(self, msg_id: Any) -> bool:
        """Has the client sent `$/cancelRequest` for this request (6)?"""
        return msg_id in self._cancelled

    @lsp_method(types.TEXT_DOCUMENT_DID_CHANGE)
    def lsp_text_document__did_change(self, params: types.DidChangeTextDocumentParams):
        doc = self.workspace.text_documents.get(unquote(params.text_document.uri))
        if doc is None:  # (2)
            logger.warning(
                "didChange for a document that is not open: %s", params.text_document.uri
            )
            return None
        text = apply_changes(
            doc.source, list(params.content_changes), self.workspace.position_codec
        )
        whole = attrs.evolve(
            params, content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)]
        )
        return (yield from super().lsp_text_document__did_change(whole))

    @lsp_method(types.SHUTDOWN)
    def lsp_shutdown(self, *args: Any):
        """Cancel the other pending requests from a copy of pygls's table (5); pygls's own
        shutdown then finds nothing left to cancel."""
        current = self.msg_id
        for msg_id, future in list(self._request_futures.items()):
            if msg_id != current and not future.done():
                future.cancel()
        return (yield from super().lsp_shutdown(*args))

    def structure_message(self, data: dict[str, Any]):
        """Leave every decoded object plain (3); `handle_message` structures the message."""
        return data

    def handle_message(self, message: Any):
        if isinstance(message, dict):
            message = self._structure_top_level(message)
        if getattr(message, "method", None) == types.CANCEL_REQUEST:
            self._cancelled[message.params.id] = None  # (6)
            while len(self._cancelled) > REMEMBERED_CANCELS:
                self._cancelled.popitem(last=False)
        return super().handle_message(message)

    def _structure_top_level(self, data: dict[str, Any]):
        """pygls's structuring of one decoded message, its top-level object only (3); a
        malformed request is answered here (4)."""
        try:
            return super().structure_message(data)
        except JsonRpcException as exc:
            method = data.get("method")
            cause = exc.__cause__ or exc
            logger.warning("malformed %s message: %s", method or "?", cause)
            if "id" in data and method:
                error = JsonRpcInvalidParams(f"invalid parameters for {method}: {cause}")
                # pygls has no public way to answer a request it could not read
                self._send_response(data["id"], error=error.to_response_error())
                return _Answered()
            if method:  # a malformed notification: nothing to answer
                return _Answered()
            raise
