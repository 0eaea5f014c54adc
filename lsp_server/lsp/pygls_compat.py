"""Where pygls itself is adjusted: each change, the reason for it, and nothing else.

The server uses pygls (2.1) through its public API everywhere else. What is here changes
how pygls reads messages and keeps documents, for faults found by the tests in
tests/lsp/test_pygls_compat.py (one test per change):

1. Lines end where the LSP says ("\\n", "\\r\\n", "\\r"). pygls splits a document with
   `str.splitlines`, which also breaks at form feeds, U+2028 and friends; an incremental
   change after such a character landed on the wrong line. Changes are applied here
   (`document_lines.DocumentLines`, which splits the LSP's way) and handed to pygls as the
   whole new text.
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
   a command running as pygls's sub-task cannot see. A new request forgets a cancel
   remembered for its id (that cancel was for an earlier request with the same id).
7. A keystroke costs the lines it touches, not the document. pygls splits the whole text
   into lines for every incremental change (and writes it back line by line); each open
   document's line lengths are kept here between changes instead (`DocumentLines`).
8. Before `initialize`, a request is answered with ServerNotInitialized (-32002) and a
   notification other than `exit` is dropped, as the protocol requires. pygls handled them
   as usual: a command was answered, and a `didOpen` failed with "the workspace is not
   available", shown to the user.
9. What the server reads is bounded. pygls reads a message body with one `read(n)` of the
   length its header declares, so `Content-Length: 1000000000000` died with MemoryError
   before a byte arrived, and a header line without an end grew without limit. Input is
   read through `BoundedInput`: a header line is cut at `MAX_HEADER_LINE` bytes, and a
   body over `MAX_MESSAGE_BYTES` is skipped in small chunks (the stream stays framed) and
   answered with an InvalidRequest error whose id is null (the id is in the body never
   read). The same holds over TCP (`start_tcp`: pygls's own waited for all of a declared
   trillion bytes, buffering what came, and a header line over asyncio's limit ended the
   connection): each connection is read through `BoundedStreamInput`. (The server offers
   no websocket transport.)
10. A cancel for a request that was answered already is not a fault: a client cancels what
   it no longer needs (Kate cancels its last outline request on every keystroke), and the
   answer may have crossed the cancel on the way. pygls logged each as a warning (on
   stderr, which editors show among errors); it is remembered (6) and logged at debug.
"""

from __future__ import annotations

import asyncio
import json
import logging
import threading
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any
from urllib.parse import unquote

import attrs
from lsprotocol import types
from pygls.exceptions import (
    JsonRpcException,
    JsonRpcInvalidParams,
    JsonRpcInvalidRequest,
    JsonRpcServerNotInitialized,
)
from pygls.io_ import run_async
from pygls.protocol import LanguageServerProtocol
from pygls.protocol.language_server import lsp_method

from lsp_server.lsp.document_lines import DocumentLines

logger = logging.getLogger("lsp_server")

# How many cancelled request ids are remembered; a cancel is read within moments of arriving.
REMEMBERED_CANCELS = 256

# The largest message body read (9): a file over the engine's 10 MiB limit is refused
# anyway, and a 10 MiB document escaped as JSON stays well under this.
MAX_MESSAGE_BYTES = 128 * 1024 * 1024
MAX_HEADER_LINE = 8192  # bytes of one header line (9); real headers are a few dozen
SKIP_CHUNK = 1024 * 1024  # an oversized body is read and dropped this much at a time
# The method of the stand-in message `BoundedInput` hands pygls for a body it skipped (9).
OVERSIZED = "$/llmPatch/oversizedMessage"


def _stand_in(length: int) -> bytes:
    """The message read in place of a body of `length` bytes that is skipped (9)."""
    stand_in = {"jsonrpc": "2.0", "method": OVERSIZED, "params": {"length": length}}
    return json.dumps(stand_in).encode()


class BoundedInput:
    """A binary input stream whose reads are bounded (9): pygls's stdio reader calls
    `readline()` for headers and `read(n)` for a body of `n` declared bytes.

    A body over the limit is not read: a stand-in message is returned at once (so the
    client is answered before any of it arrives), and the body is skipped before the next
    header is read, a chunk at a time."""

    def __init__(self, stream: Any, limit: int | None = None):
        self.stream = stream
        self.limit = MAX_MESSAGE_BYTES if limit is None else limit
        self.skip = 0  # bytes of an oversized body still to drop

    def readline(self) -> bytes:
        while self.skip:
            chunk = self.stream.read(min(SKIP_CHUNK, self.skip))
            if not chunk:
                self.skip = 0
                return b""  # the client closed the stream
            self.skip -= len(chunk)
        return self.stream.readline(MAX_HEADER_LINE)

    def read(self, n: int) -> bytes:
        if n <= self.limit:
            return self.stream.read(n)
        self.skip = n
        return _stand_in(n)


class BoundedStreamInput:
    """`BoundedInput` for an asyncio stream (a TCP connection, 9): pygls's reader awaits
    `readline()` for headers and `readexactly(n)` for a body. The stream is made with
    `MAX_HEADER_LINE` as its limit, so a longer header line comes in pieces of that size."""

    def __init__(self, stream: asyncio.StreamReader, limit: int | None = None):
        self.stream = stream
        self.limit = MAX_MESSAGE_BYTES if limit is None else limit
        self.skip = 0

    async def readline(self) -> bytes:
        while self.skip:
            chunk = await self.stream.read(min(SKIP_CHUNK, self.skip))
            if not chunk:
                self.skip = 0
                return b""
            self.skip -= len(chunk)
        try:
            return await self.stream.readuntil(b"\n")
        except asyncio.IncompleteReadError as err:
            return err.partial  # the client closed the connection; b"" ends the loop
        except asyncio.LimitOverrunError as err:
            return await self.stream.read(max(1, min(err.consumed, MAX_HEADER_LINE)))

    async def readexactly(self, n: int) -> bytes:
        if n > self.limit:
            self.skip = n
            return _stand_in(n)
        try:
            return await self.stream.readexactly(n)
        except asyncio.IncompleteReadError:
            return b""  # closed in the middle of a body: pygls ends the loop


def start_tcp(server: Any, host: str, port: int) -> None:
    """pygls's `start_tcp` with each connection read through `BoundedStreamInput` (9).

    pygls offers no way to wrap the stream its TCP server reads, so its few lines are
    repeated here around its public `run_async` loop; `shutdown` (the connection ended)
    reads the stop event and the listening server from where pygls keeps them."""
    server._stop_event = stop_event = threading.Event()

    async def connection(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        server.protocol.set_writer(writer)
        await run_async(
            stop_event=stop_event,
            reader=BoundedStreamInput(reader),
            protocol=server.protocol,
            logger=logger,
            error_handler=server.report_server_error,
        )
        server.shutdown()

    async def listen() -> None:
        server._server = await asyncio.start_server(connection, host, port, limit=MAX_HEADER_LINE)
        async with server._server:
            await server._server.serve_forever()

    try:
        asyncio.run(listen())
    except asyncio.CancelledError:
        logger.debug("the TCP server was cancelled")


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
        self._lines: dict[str, DocumentLines] = {}  # by unquoted URI, while the text is theirs (7)
        self._initialize_seen = False  # (8)

    def was_cancelled(self, msg_id: Any) -> bool:
        """Has the client sent `$/cancelRequest` for this request (6)?"""
        return msg_id in self._cancelled

    @lsp_method(types.TEXT_DOCUMENT_DID_CHANGE)
    def lsp_text_document__did_change(self, params: types.DidChangeTextDocumentParams):
        key = unquote(params.text_document.uri)
        doc = self.workspace.text_documents.get(key)
        if doc is None:  # (2)
            logger.warning(
                "didChange for a document that is not open: %s", params.text_document.uri
            )
            return None
        text = self._apply_changes(key, doc.source, list(params.content_changes))
        whole = attrs.evolve(
            params, content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)]
        )
        return (yield from super().lsp_text_document__did_change(whole))

    def _apply_changes(
        self, key: str, text: str, changes: list[types.TextDocumentContentChangeEvent]
    ) -> str:
        """The text after a `didChange`'s changes, each applied to what the one before
        left (1), on the document's kept lines (7)."""
        lines = self._lines.get(key)
        if lines is not None and lines.text is not text:
            lines = None  # the text came from elsewhere (a reopen): count again
        enc = self.workspace.position_encoding
        encoding = str(getattr(enc, "value", enc) or "utf-16")
        for change in changes:
            if isinstance(change, types.TextDocumentContentChangePartial):
                if lines is None:
                    lines = DocumentLines(text)
                text = lines.apply(change.range, change.text, encoding)
            else:
                text, lines = change.text, None  # counted when the next partial change comes
        if lines is None:
            self._lines.pop(key, None)
        else:
            self._lines[key] = lines
        return text

    @lsp_method(types.TEXT_DOCUMENT_DID_CLOSE)
    def lsp_text_document__did_close(self, params: types.DidCloseTextDocumentParams):
        self._lines.pop(unquote(params.text_document.uri), None)
        return (yield from super().lsp_text_document__did_close(params))

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
        if isinstance(message, dict) and message.get("method") == OVERSIZED:
            self._refuse_oversized(message.get("params") or {})
            return None
        if isinstance(message, dict):
            message = self._structure_top_level(message)
        method = getattr(message, "method", None)
        if not self._initialize_seen and method is not None and self._before_initialize(message):
            return None
        if method == types.CANCEL_REQUEST:
            self._cancelled[message.params.id] = None  # (6)
            while len(self._cancelled) > REMEMBERED_CANCELS:
                self._cancelled.popitem(last=False)
            if message.params.id not in self._request_futures:  # answered already (10)
                logger.debug("cancel for request %r, answered already", message.params.id)
                return None
        elif method is not None and getattr(message, "id", None) is not None:
            # a new request: a cancel remembered for its id was for an earlier one (6)
            self._cancelled.pop(message.id, None)
        return super().handle_message(message)

    def _refuse_oversized(self, params: dict[str, Any]) -> None:
        """Answer a message too large to read (9): its id was never read, so it is null, as
        JSON-RPC says for a request whose id cannot be known."""
        length = params.get("length")
        logger.error("skipped a message of %s bytes (the limit is %d)", length, MAX_MESSAGE_BYTES)
        error = JsonRpcInvalidRequest(
            f"a message of {length} bytes is over the server's limit of "
            f"{MAX_MESSAGE_BYTES:,} bytes; it was skipped unread"
        )
        answer = {
            "jsonrpc": "2.0",
            "id": None,
            "error": {"code": error.code, "message": error.message},
        }
        # pygls leaves out an id that is None, and JSON-RPC wants it there, as null
        self._send_data(answer)

    def _before_initialize(self, message: Any) -> bool:
        """Answer or drop a message that came before `initialize` (8); False lets it through."""
        method = message.method
        if method == types.INITIALIZE:
            self._initialize_seen = True
            return False
        if method == types.EXIT:
            return False
        msg_id = getattr(message, "id", None)
        if msg_id is None:
            logger.warning("dropped %s: the client has not sent initialize", method)
            return True
        error = JsonRpcServerNotInitialized(f"{method}: the client has not sent initialize")
        # pygls has no public way to answer a request without handling it (as in (4))
        self._send_response(msg_id, error=error.to_response_error())
        return True

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
