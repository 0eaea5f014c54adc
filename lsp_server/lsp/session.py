"""One editor session: its state, and the services every feature uses.

The features (diagnostics, code actions, hover, lenses, commands...) are functions in
modules of their own that take this server as their first argument; `server.create_server`
registers them. What they share lives here: the settings, the open documents seen as the
workspace the core plans against, the client's capabilities, the analyses kept for reply
documents, the caches, and the statistics.

Everything slow or blocking (placing blocks, reading files, diffing, tree-sitter) runs in
the session's own worker threads (`run_work`) on a frozen copy of the open documents, so
typing never waits for it. Those workers are not pygls's thread pool: pygls reads the
client's messages from stdin in a thread of that pool, and work that blocks (a file that
never finishes reading) must never leave the server unable to read its next message.
"""

from __future__ import annotations

import asyncio
import fnmatch
import functools
import hashlib
import logging
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import unquote

from lsprotocol import types
from pygls.capabilities import get_capability
from pygls.exceptions import (
    JsonRpcContentModified,
    JsonRpcException,
    JsonRpcInvalidParams,
    JsonRpcMethodNotFound,
    JsonRpcRequestCancelled,
)
from pygls.lsp.server import LanguageServer
from pygls.protocol import default_converter
from pygls.uris import from_fs_path, to_fs_path, uri_scheme
from pygls.workspace import TextDocument

from lsp_server import __version__
from lsp_server.edits import UTF16, EditCapabilities, PositionIndex
from lsp_server.lsp.analysis import LRU, Analysis, ReplySource, parse, place
from lsp_server.lsp.editor_workspace import EditorView, OpenDocument
from lsp_server.lsp.progress import NoProgress, Progress
from lsp_server.lsp.pygls_compat import Protocol
from lsp_server.lsp.settings import Settings
from lsp_server.model import ErrorCode, ParsedReply, PlacementError
from lsp_server.workspace import MAX_FILE_BYTES, read_regular

logger = logging.getLogger("lsp_server")

# Set by a command whose caller shows the report itself (the `quiet` option): the outcome
# is logged but not also sent as `window/showMessage`, so the user reads it once. A context
# variable, so it holds for the request's task only.
QUIET: ContextVar[bool] = ContextVar("llm_patch_quiet", default=False)

# Worker threads for plans, reads and diffs. Plans hold the GIL most of the time, so more
# threads than this would only queue; a few keep one slow plan from delaying the others.
WORKERS = 4

# Errors that are the protocol's own answer to a request, not a fault of the server: pygls
# reports them as server errors, which would show the user an "internal error".
PROTOCOL_ANSWERS = (JsonRpcMethodNotFound, JsonRpcRequestCancelled, JsonRpcContentModified)


class RequestFailed(JsonRpcException):
    """The LSP's RequestFailed: the request was valid, the work could not be done."""

    CODE = types.LSPErrorCodes.RequestFailed.value
    MESSAGE = "Request failed"


@dataclass
class Stats:
    """What `llmPatch.stats` reports about this session."""

    started: float = field(default_factory=time.monotonic)
    patches: int = 0
    applied: int = 0
    blocks: int = 0
    conflicts: int = 0
    cancelled: int = 0
    latency_total: float = 0.0

    def to_json(self) -> dict[str, Any]:
        return {
            "patches": self.patches,
            "applied": self.applied,
            "blocks": self.blocks,
            "conflicts": self.conflicts,
            "cancelled": self.cancelled,
            "averageLatencyMs": round(1000 * self.latency_total / self.patches, 1)
            if self.patches
            else 0.0,
            "uptimeSeconds": round(time.monotonic() - self.started, 1),
        }


class LlmPatchServer(LanguageServer):
    """State of one editor session: settings, reply documents, analyses, caches, statistics."""

    protocol: Protocol

    def __init__(self) -> None:
        self.converter = default_converter()  # LSP values ↔ JSON, shared with pygls
        super().__init__(
            "llm-patch",
            __version__,
            text_document_sync_kind=types.TextDocumentSyncKind.Incremental,
            protocol_cls=Protocol,
            converter_factory=lambda: self.converter,
        )
        self.settings = Settings()
        self.client_name: str | None = None  # the client's `clientInfo.name`
        self.client_program: str | None = None  # its name, else its process's (`sharing`)
        # what the client does not share (see `sharing`): the files an apply edited in the
        # editor that it has not opened for the server since, with the text sent
        self.told_not_shared = False
        self.told_partial_sharing = False  # the start-up message, once per server process
        self.unshared_edits: dict[str, str] = {}
        self.reply_uris: set[str] = set()  # documents used as replies, whatever their name
        self.analyses: dict[str, Analysis] = {}  # the current analysis of each reply document
        self.pending: dict[str, asyncio.Task] = {}  # debounced analyses, by document
        self.generation: dict[str, int] = {}  # bumped by each change: older analyses are stale
        self.stats = Stats()
        self.apply_lock = asyncio.Lock()  # applies run one after another
        self.parses: LRU[str, ParsedReply] = LRU(32)
        self.plans: LRU[tuple, Analysis] = LRU(16)  # selections planned for code actions
        self.stopping = False
        self.log_handler: logging.Handler | None = None
        self._doc_events: dict[str, asyncio.Event] = {}
        self.workers = ThreadPoolExecutor(WORKERS, thread_name_prefix="llm-patch-work")

    async def run_work(self, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        """`fn(*args, **kwargs)` in a worker thread: anything that reads the disk, diffs or
        plans, so the event loop (and the messages it answers) never waits on it."""
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self.workers, functools.partial(fn, *args, **kwargs))

    def shutdown(self) -> None:
        # the client is gone: queued work is dropped, work already running finishes alone
        self.workers.shutdown(wait=False, cancel_futures=True)
        super().shutdown()

    # -- the client

    @property
    def encoding(self) -> str:
        """The position encoding negotiated with the client."""
        try:
            enc = self.workspace.position_encoding
        except RuntimeError:
            return UTF16
        return str(getattr(enc, "value", enc) or UTF16)

    def client_capability(self, field_path: str) -> Any:
        """A client capability by dotted path ("window.work_done_progress"), None if absent."""
        try:
            caps = self.client_capabilities
        except AttributeError:  # not initialised yet
            return None
        return get_capability(caps, field_path)

    def edit_capabilities(self) -> EditCapabilities:
        try:
            caps = self.client_capabilities
        except AttributeError:
            caps = None
        return EditCapabilities.from_client(caps, self.encoding, self.client_program)

    def tell(self, kind: types.MessageType, message: str) -> None:
        """Show the user a message (and log it); only log it for a `quiet` command."""
        log = {types.MessageType.Error: logging.ERROR, types.MessageType.Warning: logging.WARNING}
        logger.log(log.get(kind, logging.INFO), "%s", message)
        if not QUIET.get():
            self.window_show_message(types.ShowMessageParams(type=kind, message=message))

    def report_server_error(self, error: Exception, source: Any) -> None:
        if isinstance(error, PROTOCOL_ANSWERS):
            # the client got the protocol's answer (a method this server does not have, a
            # request it cancelled, one overtaken by an edit): nothing went wrong here
            logger.info("answered with %s: %s", type(error).__name__, error)
            return
        logger.error("internal error (%s): %s", getattr(source, "__name__", source), error)
        super().report_server_error(error, source)

    # -- documents

    def open_document(self, uri: str) -> TextDocument | None:
        try:
            return self.workspace.text_documents.get(unquote(uri))
        except RuntimeError:
            return None

    def is_reply_document(self, uri: str) -> bool:
        """Untitled buffers, documents used as replies, and names matching `replyFiles`."""
        key = unquote(uri)
        if key in self.reply_uris:
            return True
        if uri_scheme(uri) == "untitled":
            return True
        name = key.rstrip("/").rsplit("/", 1)[-1].lower()
        return any(fnmatch.fnmatchcase(name, pat.lower()) for pat in self.settings.reply_files)

    def document_changed(self, uri: str) -> None:
        event = self._doc_events.pop(unquote(uri), None)
        if event is not None:
            event.set()

    async def wait_for_document(self, uri: str, done: Callable[[], bool], timeout: float) -> bool:
        """Wait until `done()` holds, re-checking whenever `uri` is opened or changed."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while not done():
            remaining = deadline - loop.time()
            if remaining <= 0:
                return False
            event = self._doc_events.setdefault(unquote(uri), asyncio.Event())
            try:
                await asyncio.wait_for(event.wait(), remaining)
            except TimeoutError:
                return done()
        return True

    # -- the workspace the core plans against

    def view(self) -> EditorView:
        """A frozen copy of the workspace folders and open `file:` documents (taken on the
        event loop, used in a worker: see `editor_workspace`)."""
        folders: list[str] = []
        documents: list[OpenDocument] = []
        try:
            ws = self.workspace
        except RuntimeError:  # not initialised yet
            return EditorView((), ())
        for folder in ws.folders.values():
            path = to_fs_path(folder.uri)
            if path:
                folders.append(path)
        if not folders and ws.root_path:
            folders.append(ws.root_path)
        for doc in list(ws.text_documents.values()):
            if uri_scheme(doc.uri) == "file" and doc.version is not None:
                documents.append(OpenDocument(doc.uri, doc.source, doc.version))
        return EditorView(tuple(folders), tuple(documents))

    def uri_for(self, analysis: Analysis) -> Callable[[str], str]:
        """Workspace path → the URI the editor knows the file by."""

        def convert(path: str) -> str:
            return analysis.uris.get(path) or from_fs_path(str(analysis.root / path)) or path

        return convert

    # -- replies and their analyses

    async def parse_cached(self, text: str) -> ParsedReply:
        """The reply's blocks, parsed in a worker (a reply can be a megabyte), kept by text."""
        key = hashlib.sha1(text.encode("utf-8", "surrogatepass")).hexdigest()
        parsed = self.parses.get(key)
        if parsed is None:
            parsed = await self.run_work(parse, text)
            self.parses.put(key, parsed)
        return parsed

    async def analyse(
        self,
        source: ReplySource,
        *,
        parsed: ParsedReply | None = None,
        atomic: bool = False,
        fuzzy_threshold: float | None = None,
        cancelled: Callable[[], bool] | None = None,
        progress: Progress | NoProgress | None = None,
        related: bool = True,
        retries: bool = False,
        target: str | None = None,
        dirty: tuple[str, ...] = (),
        reading: tuple[str | None, str | None] = (None, None),
    ) -> Analysis:
        """Parse (unless given) and place a reply in a worker thread, on frozen document copies;
        `target` is the URI blocks without a path apply to, `dirty` the documents the client
        has unsaved changes in that it did not send (see `guards`)."""
        if parsed is None:
            parsed = await self.run_work(parse, source.text)
        view = self.view()
        if fuzzy_threshold is None:
            fuzzy_threshold = self.settings.fuzzy_threshold
        given = cancelled or (lambda: False)

        def check() -> bool:
            return self.stopping or given()

        if isinstance(progress, Progress):
            check = progress.wrap(check, len(parsed.blocks))
        work = functools.partial(
            place,
            source,
            parsed,
            view,
            atomic=atomic,
            fuzzy_threshold=fuzzy_threshold,
            protected=self.settings.protected_paths,
            encoding=self.encoding,
            cancelled=check,
            related=related,
            retries=retries,
            target=target,
            dirty=dirty,
            reading=reading,
        )
        return await self.run_work(work)

    def plan_key(
        self, source: ReplySource, target: str | None = None, dirty: tuple[str, ...] = ()
    ) -> tuple:
        """What a plan depends on in the editor: the reply, the caller's target and dirty
        documents, the workspace folders, the open documents' versions, the threshold. (What
        it read from disk is checked apart, by `editor_workspace.changed_on_disk`, before
        the plan is used.)"""
        return (
            target,
            dirty,
            hashlib.sha1(source.text.encode("utf-8", "surrogatepass")).hexdigest(),
            source.uri,
            self.view().key(),
            self.settings.fuzzy_threshold,
            self.settings.protected_paths,
        )

    def current_analysis(self, uri: str) -> Analysis | None:
        """The kept analysis of a reply document, if it is of the document's current text."""
        analysis = self.analyses.get(unquote(uri))
        doc = self.open_document(uri)
        if analysis is None or doc is None or analysis.source.version != doc.version:
            return None
        return analysis

    async def reply_source(self, target: Any) -> ReplySource:
        """The reply a command argument names: {"text"} or {"uri", "version"?, "range"?}."""
        if not isinstance(target, dict):
            raise JsonRpcInvalidParams(
                'the first argument must be {"text": ...} or {"uri": ..., "range"?: ...}'
            )
        if isinstance(target.get("text"), str):
            return ReplySource(target["text"])
        uri = target.get("uri")
        if not isinstance(uri, str) or not uri:
            raise JsonRpcInvalidParams(
                'the first argument needs "text" (a string) or "uri" (a document URI)'
            )
        doc = self.open_document(uri)
        if doc is not None:
            text, version = doc.source, doc.version
        else:
            text, version = await self.run_work(read_reply_file, uri), None
        expected = target.get("version")
        if isinstance(expected, int) and version is not None and expected != version:
            # ranges and block numbers were computed on the older text
            raise RequestFailed(
                f"the reply document changed since the action was offered "
                f"(version {expected} → {version}); run it again",
                data={"code": str(ErrorCode.STALE_VERSION)},
            )
        rng = target.get("range")
        if rng is None:
            return ReplySource(text, uri, version)
        selection = self.structure_range(rng)
        index = PositionIndex(text, self.encoding)
        start, end = index.offset(selection.start), index.offset(selection.end)
        if end <= start:
            return ReplySource(text, uri, version)
        # The lines before the selection stay as empty lines: the blocks' reply lines (in the
        # report, its messages and the quick fixes) then count from the document's first
        # line, where the user sees them, not from the selection's.
        before = "\n" * text.count("\n", 0, start)
        return ReplySource(before + text[start:end], uri, version, whole_document=False)

    def structure_range(self, raw: Any) -> types.Range:
        """A command argument's JSON range as an LSP Range, or InvalidParams."""
        try:
            return self.converter.structure(raw, types.Range)
        except Exception as err:  # noqa: BLE001 - cattrs raises several kinds
            raise JsonRpcInvalidParams(f"range is not an LSP Range: {err}") from None


def read_reply_file(uri: str) -> str:
    """A reply document the editor has not opened, read from disk (runs in a worker): a
    regular file only, read up to the limit; a pipe or a device is refused, never waited on."""
    if uri_scheme(uri) != "file":
        raise JsonRpcInvalidParams(f"unknown document {uri}: it is not open and not a file")
    path = to_fs_path(uri)
    if not path:
        raise JsonRpcInvalidParams(f"unknown document {uri}")
    try:
        data = read_regular(path, uri, MAX_FILE_BYTES, follow=True)
    except PlacementError as err:
        if "kind" in err.failure.details:  # a pipe, a device, a socket: never read
            raise RequestFailed(
                f"cannot read the reply: {err.failure.message}",
                data={"code": str(ErrorCode.IO_ERROR)},
            ) from None
        raise JsonRpcInvalidParams(f"unknown document {err.failure.message}") from None
    if len(data) > MAX_FILE_BYTES:
        raise RequestFailed(
            f"{uri} is over {MAX_FILE_BYTES:,} bytes; too large to be a reply",
            data={"code": str(ErrorCode.CONTENT_TOO_LARGE)},
        )
    from lsp_server.reply import decode_reply  # the CLI's rule (UTF-8 or refused); the engine

    try:
        text = decode_reply(data, uri)  # first, so a UTF-16 reply is named as such
    except PlacementError as err:
        raise RequestFailed(err.failure.message, data=err.failure.to_json()) from None
    if b"\x00" in data[:8192]:
        raise RequestFailed(f"{uri} looks binary", data={"code": str(ErrorCode.BINARY_FILE)})
    return text
