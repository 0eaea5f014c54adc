"""The language server: an editor's way into the core.

A person selects (or pastes into a reply document) what a model wrote; a code action or a
command parses it, places every block against the open documents (falling back to disk),
and sends the editor one `WorkspaceEdit` through `workspace/applyEdit`. The editor applies
it with its own undo and preview. Blocks that cannot be placed become diagnostics on the
reply, never guesses in a file.

Everything slow (placing blocks, reading files, tree-sitter) runs in a worker thread on a
frozen copy of the open documents, so typing never waits for it; code actions only parse
the selection (cheap) unless the user explicitly asked for actions, and reply documents
are analysed after a debounce. The core is pure; this module only moves text in and out.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import fnmatch
import hashlib
import importlib
import json
import logging
import os
import sys
import threading
import time
import uuid
from collections import OrderedDict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote

from lsprotocol import types
from pygls.exceptions import (
    JsonRpcContentModified,
    JsonRpcException,
    JsonRpcInvalidParams,
    JsonRpcRequestCancelled,
)
from pygls.lsp.server import LanguageServer
from pygls.protocol import LanguageServerProtocol
from pygls.protocol.language_server import lsp_method
from pygls.uris import from_fs_path, to_fs_path, uri_scheme
from pygls.workspace import TextDocument, Workspace

from lsp_server import boot
from lsp_server.edits import (
    UTF16,
    BuiltEdit,
    EditCapabilities,
    LineIndex,
    build_workspace_edit,
    diff_offsets,
    split_lsp_lines,
)
from lsp_server.model import (
    DEFAULT_FUZZY_THRESHOLD,
    Action,
    BlockOutcome,
    Cancelled,
    EditBlock,
    ErrorCode,
    Failure,
    FileAction,
    FileChange,
    HunkKind,
    MatchKind,
    ParsedReply,
    PlacementError,
    Plan,
    Status,
)
from lsp_server.report import file_diff, report_json
from lsp_server.workspace import MAX_FILE_BYTES, DiskWorkspace

if TYPE_CHECKING:
    from lsp_server.plan import PlanOptions

# The engine (`lsp_server.plan`, `lsp_server.reply` and the resolver under them) is imported
# on first use, or by `_warm_engine` once the client is initialised: the `initialize`
# answer, which the editor waits on, should not wait for modules it does not need.
ENGINE_MODULES = ("lsp_server.plan", "lsp_server.reply")

logger = logging.getLogger("lsp_server")

SOURCE = "llm-patch"
RESTRICTED_MESSAGE = (
    "Patch tool is disabled in Restricted mode. Use request_mode_upgrade to request write access."
)
STALE_MESSAGE = "the document changed since the patch was planned; run it again"

CMD_APPLY = "llmPatch.apply"
CMD_CHECK = "llmPatch.check"
CMD_APPLY_BLOCK = "llmPatch.applyBlock"
CMD_BUILD_DIFF = "llmPatch.buildDiff"
CMD_STATS = "llmPatch.stats"
CMD_PATCH = "llmPatch.patch"
CMD_STRUCTURE = "llmPatch.structure"
CMD_SHOW = "llmPatch.showLocation"
WRITING_COMMANDS = frozenset({CMD_APPLY, CMD_APPLY_BLOCK, CMD_PATCH, CMD_STRUCTURE})

KIND_APPLY = "refactor.rewrite.llmPatch"
KIND_CHECK = "refactor.llmPatch.check"

# Work above these sizes reports progress (window/workDoneProgress).
PROGRESS_BLOCKS = 8
PROGRESS_BYTES = 200_000
# An explicitly requested code-action list plans a selection up to this size.
PLAN_ON_REQUEST_BYTES = 256_000
# How long to wait for the editor to sync an edited document before judging it.
VERIFY_TIMEOUT = 2.0
# Lowest similarity the "apply the closest match" quick fix offers.
QUICKFIX_FLOOR = 0.5

_LOG_LEVELS = {
    "off": logging.CRITICAL + 10,
    "error": logging.ERROR,
    "warning": logging.WARNING,
    "info": logging.INFO,
    "debug": logging.DEBUG,
}


def _version() -> str:
    from lsp_server import __version__

    return __version__


# --- settings ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Settings:
    """`llmPatch.*` settings, from `initializationOptions` and `workspace/configuration`."""

    atomic: bool = True
    confirm_fuzzy: bool = True
    always_preview: bool = False
    fuzzy_threshold: float = DEFAULT_FUZZY_THRESHOLD
    mode: str = "unrestricted"
    log_level: str = "info"
    diagnostics: bool = True
    diagnostics_delay: int = 300  # ms
    code_lens: bool = True
    reply_files: tuple[str, ...] = ("*.llm.md", "*.patch", "*.diff")

    @property
    def restricted(self) -> bool:
        return self.mode == "restricted"

    def merged(self, raw: Any) -> tuple[Settings, list[str]]:
        """These settings updated from a client's object; bad values are named, not applied."""
        values = _flatten_settings(raw)
        problems: list[str] = []
        updates: dict[str, Any] = {}
        for key, value in values.items():
            spec = _SETTING_KEYS.get(key)
            if spec is None:
                continue
            name, check = spec
            try:
                updates[name] = check(value)
            except (TypeError, ValueError) as err:
                problems.append(f"llmPatch.{key}: {err}")
        return dataclasses.replace(self, **updates), problems


def _flatten_settings(raw: Any) -> dict[str, Any]:
    """Accept {"llmPatch": {...}}, {"llmPatch.x": v} or the section's own object."""
    if not isinstance(raw, dict):
        return {}
    out: dict[str, Any] = {}
    nested = raw.get("llmPatch")
    if isinstance(nested, dict):
        out.update(nested)
    for key, value in raw.items():
        if key.startswith("llmPatch."):
            out[key[len("llmPatch.") :]] = value
        elif key != "llmPatch":
            out.setdefault(key, value)
    return out


def _bool(value: Any) -> bool:
    if isinstance(value, bool):
        return value
    raise TypeError(f"expected true or false, got {value!r}")


def _threshold(value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise TypeError(f"expected a number between 0 and 1, got {value!r}")
    if not 0.0 < float(value) <= 1.0:
        raise ValueError(f"expected a number between 0 and 1, got {value!r}")
    return float(value)


def _mode(value: Any) -> str:
    if value not in ("unrestricted", "restricted"):
        raise ValueError(f'expected "unrestricted" or "restricted", got {value!r}')
    return value


def _level(value: Any) -> str:
    if not isinstance(value, str) or value.lower() not in _LOG_LEVELS:
        raise ValueError(f"expected one of {', '.join(_LOG_LEVELS)}, got {value!r}")
    return value.lower()


def _delay(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
        raise ValueError(f"expected milliseconds (a number ≥ 0), got {value!r}")
    return int(value)


def _globs(value: Any) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise TypeError(f"expected a list of glob patterns, got {value!r}")
    return tuple(value)


_SETTING_KEYS: dict[str, tuple[str, Callable[[Any], Any]]] = {
    "atomic": ("atomic", _bool),
    "confirmFuzzy": ("confirm_fuzzy", _bool),
    "alwaysPreview": ("always_preview", _bool),
    "fuzzyThreshold": ("fuzzy_threshold", _threshold),
    "mode": ("mode", _mode),
    "logLevel": ("log_level", _level),
    "diagnostics": ("diagnostics", _bool),
    "diagnosticsDelay": ("diagnostics_delay", _delay),
    "codeLens": ("code_lens", _bool),
    "replyFiles": ("reply_files", _globs),
}


# --- documents: lines end where the LSP says they end ------------------------------------------


class _Document(TextDocument):
    """pygls' document with LSP line breaks only ("\\n", "\\r\\n", "\\r").

    `str.splitlines` also breaks at form feeds, U+2028 and friends; a client does not, so
    incremental changes after such a character would land on the wrong line.
    """

    @property
    def lines(self) -> tuple[str, ...]:
        return tuple(split_lsp_lines(self.source))


class _Workspace(Workspace):
    def _create_text_document(self, doc_uri, source=None, version=None, language_id=None):
        return _Document(
            doc_uri,
            source=source,
            version=version,
            language_id=language_id,
            sync_kind=self._sync_kind,
            position_codec=self._position_codec,
        )


@dataclass
class _Answered:
    """Stands in for a message that was already answered with an error (see _Protocol)."""

    jsonrpc: str = "answered"


class _Protocol(LanguageServerProtocol):
    """pygls' protocol with four repairs: LSP line breaks, malformed requests get an error
    response (pygls would drop them and leave the client waiting), only a message's top-level
    object is structured (pygls would also take nested objects with a "jsonrpc" key for
    messages), and changes to unknown documents are ignored instead of raising."""

    @lsp_method(types.INITIALIZE)
    def lsp_initialize(self, params: types.InitializeParams):
        result = yield from super().lsp_initialize(params)
        old = self._workspace
        if old is not None:
            self._workspace = _Workspace(
                old.root_uri,
                self._server._text_document_sync_kind,
                list(old.folders.values()),
                old.position_encoding,
            )
        return result

    @lsp_method(types.TEXT_DOCUMENT_DID_CHANGE)
    def lsp_text_document__did_change(self, params: types.DidChangeTextDocumentParams):
        if unquote(params.text_document.uri) not in self.workspace.text_documents:
            logger.warning(
                "didChange for a document that is not open: %s", params.text_document.uri
            )
            return None
        return (yield from super().lsp_text_document__did_change(params))

    @lsp_method(types.SHUTDOWN)
    def lsp_shutdown(self, *args: Any):
        """pygls' shutdown, iterating over a copy: cancelling a request's future runs a
        callback that removes it from the very dict being walked."""
        if (user_handler := self.fm.features.get(types.SHUTDOWN)) is not None:
            yield user_handler, args, None
        current = self.msg_id
        for msg_id, future in list(self._request_futures.items()):
            if msg_id != current and not future.done():
                future.cancel()
        self._shutdown = True
        return None

    def structure_message(self, data: dict[str, Any]):
        """Leave every decoded object plain: pygls hands this method to `json.loads` as its
        `object_hook`, which runs on every object in a message, nested ones included, so a
        nested object with a "jsonrpc" key (in `initializationOptions`, a command argument,
        `llmPatch.patch`'s patches...) was taken for a message of its own, the request around
        it failed to structure, and it was dropped unanswered. `handle_message` structures
        the top-level object only."""
        return data

    def handle_message(self, message: Any):
        if isinstance(message, dict):
            message = self._structure_top_level(message)
        return super().handle_message(message)

    def _structure_top_level(self, data: dict[str, Any]):
        """pygls' structuring of one decoded message (the top-level object only)."""
        try:
            return super().structure_message(data)
        except JsonRpcException as exc:
            method = data.get("method") if isinstance(data, dict) else None
            cause = exc.__cause__ or exc
            logger.warning("malformed %s message: %s", method or "?", cause)
            if isinstance(data, dict) and "id" in data and method:
                error = JsonRpcInvalidParams(f"invalid parameters for {method}: {cause}")
                self._send_response(data["id"], error=error.to_response_error())
                return _Answered()
            if method:  # a malformed notification: nothing to answer
                return _Answered()
            raise


# --- values passed around -----------------------------------------------------------------------


@dataclass(frozen=True)
class ReplySource:
    """Where a reply came from: its text, and (for a document) where that text sits in it."""

    text: str
    uri: str | None = None
    version: int | None = None
    line_offset: int = 0  # the document line the text starts on (a selection's first line)
    whole_document: bool = True


@dataclass(frozen=True)
class CommandOptions:
    partial: bool | None = None
    preview: bool = False
    fuzzy_threshold: float | None = None


@dataclass(frozen=True)
class Analysis:
    """A reply placed against the workspace, with what diagnostics and lenses need."""

    source: ReplySource
    parsed: ParsedReply
    plan: Plan
    root: Path
    uris: dict[str, str]  # workspace path → the URI the editor uses for it
    related: dict[int, list[types.DiagnosticRelatedInformation]] = field(default_factory=dict)
    retry_thresholds: dict[int, float] = field(default_factory=dict)  # blocks a looser fuzzy places


@dataclass
class Stats:
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


class RequestFailed(JsonRpcException):
    CODE = types.LSPErrorCodes.RequestFailed.value
    MESSAGE = "Request failed"


def _invalid(message: str) -> JsonRpcInvalidParams:
    return JsonRpcInvalidParams(message)


# --- the server ---------------------------------------------------------------------------------


class LlmPatchServer(LanguageServer):
    """State of one editor session: settings, reply documents, analyses, statistics."""

    def __init__(self) -> None:
        super().__init__(
            "llm-patch",
            _version(),
            text_document_sync_kind=types.TextDocumentSyncKind.Incremental,
            protocol_cls=_Protocol,
        )
        self.settings = Settings()
        self.reply_uris: set[str] = set()
        self.analyses: dict[str, Analysis] = {}
        self.pending: dict[str, asyncio.Task] = {}
        self.generation: dict[str, int] = {}
        self.stats = Stats()
        self.apply_lock = asyncio.Lock()  # applies run one after another (see `apply`)
        self._doc_events: dict[str, asyncio.Event] = {}
        self._parse_cache: OrderedDict[str, ParsedReply] = OrderedDict()
        self._plan_cache: OrderedDict[tuple, Analysis] = OrderedDict()
        self._hover_cache: OrderedDict[tuple, str] = OrderedDict()
        self._loop: asyncio.AbstractEventLoop | None = None
        self.stopping = False
        self._log_handler: _ClientLogHandler | None = None

    # -- capabilities and positions

    @property
    def encoding(self) -> str:
        try:
            enc = self.workspace.position_encoding
        except RuntimeError:
            return UTF16
        return str(getattr(enc, "value", enc) or UTF16)

    def client_supports(self, path: str) -> Any:
        """A client capability by dotted path ("window.work_done_progress"), None if absent."""
        obj: Any = getattr(self.protocol, "client_capabilities", None)
        for part in path.split("."):
            obj = getattr(obj, part, None) if obj is not None else None
        return obj

    def edit_capabilities(self) -> EditCapabilities:
        caps = getattr(self.protocol, "client_capabilities", None)
        return EditCapabilities.from_client(caps, self.encoding)

    # -- documents

    def open_document(self, uri: str) -> TextDocument | None:
        try:
            return self.workspace.text_documents.get(unquote(uri))
        except RuntimeError:
            return None

    def is_reply_document(self, uri: str) -> bool:
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

    # -- roots and snapshots

    def root_for(self, uri: str | None) -> Path:
        """The workspace folder a reply belongs to: the one holding it, else the first."""
        folders: list[Path] = []
        try:
            ws = self.workspace
            for folder in ws.folders.values():
                path = to_fs_path(folder.uri)
                if path:
                    folders.append(Path(path))
            if not folders and ws.root_path:
                folders.append(Path(ws.root_path))
        except RuntimeError:
            pass
        doc_path = to_fs_path(uri) if uri and uri_scheme(uri) == "file" else None
        if doc_path:
            real = Path(os.path.realpath(doc_path))
            for folder in sorted(folders, key=lambda p: len(str(p)), reverse=True):
                real_folder = Path(os.path.realpath(folder))
                if real_folder == real or real_folder in real.parents:
                    return folder
        if folders:
            return folders[0]
        if doc_path:
            return Path(doc_path).parent
        return Path.cwd()

    def overlay(self, root: Path) -> tuple[dict[str, tuple[str, int]], dict[str, str]]:
        """A frozen copy of the open documents under `root`: path → (text, version), path → URI."""
        real_root = Path(os.path.realpath(root))
        texts: dict[str, tuple[str, int]] = {}
        uris: dict[str, str] = {}
        try:
            docs = list(self.workspace.text_documents.values())
        except RuntimeError:
            docs = []
        for doc in docs:
            if uri_scheme(doc.uri) != "file" or doc.version is None:
                continue
            path = to_fs_path(doc.uri)
            if not path:
                continue
            try:
                rel = Path(os.path.realpath(path)).relative_to(real_root).as_posix()
            except ValueError:
                continue
            texts[rel] = (doc.source, doc.version)
            uris[rel] = doc.uri
        return texts, uris

    # -- parsing and planning

    def parse_cached(self, text: str) -> ParsedReply:
        key = hashlib.sha1(text.encode("utf-8", "surrogatepass")).hexdigest()
        hit = self._parse_cache.get(key)
        if hit is not None:
            self._parse_cache.move_to_end(key)
            return hit
        from lsp_server.reply import parse_reply

        parsed = parse_reply(text)
        self._parse_cache[key] = parsed
        while len(self._parse_cache) > 32:
            self._parse_cache.popitem(last=False)
        return parsed

    async def analyse(
        self,
        source: ReplySource,
        *,
        parsed: ParsedReply | None = None,
        atomic: bool = False,
        fuzzy_threshold: float | None = None,
        cancelled: Callable[[], bool] | None = None,
        progress: _Progress | None = None,
        related: bool = True,
        retries: bool = False,
    ) -> Analysis:
        """Parse (unless given) and place a reply in a worker thread, on frozen document copies."""
        from lsp_server.plan import PlanOptions, plan_reply
        from lsp_server.reply import parse_reply

        loop = asyncio.get_running_loop()
        if parsed is None:
            parsed = await loop.run_in_executor(self.thread_pool, parse_reply, source.text)
        root = self.root_for(source.uri)
        texts, uris = self.overlay(root)
        options = PlanOptions(
            atomic=atomic,
            fuzzy_threshold=fuzzy_threshold
            if fuzzy_threshold is not None
            else self.settings.fuzzy_threshold,
        )
        encoding = self.encoding
        given = cancelled or (lambda: False)

        def check() -> bool:
            return self.stopping or given()

        if progress is not None:
            check = progress.wrap(check, len(parsed.blocks))

        def work() -> Analysis:
            ws = DiskWorkspace(root, texts.get)
            plan = plan_reply(parsed, ws, options, check)
            rel = _related_information(plan, ws, root, uris, encoding) if related else {}
            again = _fuzzy_retries(plan, ws, options, check) if retries else {}
            return Analysis(source, parsed, plan, root, uris, rel, again)

        return await loop.run_in_executor(self.thread_pool, work)

    def uri_for(self, analysis: Analysis) -> Callable[[str], str]:
        def convert(path: str) -> str:
            return analysis.uris.get(path) or from_fs_path(str(analysis.root / path)) or path

        return convert

    # -- reply sources from command arguments

    def reply_source(self, target: Any) -> ReplySource:
        if not isinstance(target, dict):
            raise _invalid(
                'the first argument must be {"text": ...} or {"uri": ..., "range"?: ...}'
            )
        if isinstance(target.get("text"), str):
            return ReplySource(target["text"])
        uri = target.get("uri")
        if not isinstance(uri, str) or not uri:
            raise _invalid('the first argument needs "text" (a string) or "uri" (a document URI)')
        doc = self.open_document(uri)
        if doc is not None:
            text, version = doc.source, doc.version
        else:
            text, version = _read_reply_file(uri), None
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
        try:
            selection = self.protocol._converter.structure(rng, types.Range)
        except Exception as err:  # noqa: BLE001 - cattrs raises several kinds
            raise _invalid(f"range is not an LSP Range: {err}") from None
        index = LineIndex(text, self.encoding)
        start, end = index.offset(selection.start), index.offset(selection.end)
        if end <= start:
            return ReplySource(text, uri, version)
        return ReplySource(
            text[start:end], uri, version, line_offset=selection.start.line, whole_document=False
        )

    # -- diagnostics

    def schedule_diagnostics(self, uri: str, delay: float | None = None) -> None:
        if not self.settings.diagnostics or not self.is_reply_document(uri):
            return
        key = unquote(uri)
        self.generation[key] = self.generation.get(key, 0) + 1
        old = self.pending.pop(key, None)
        if old is not None:
            old.cancel()
        wait = self.settings.diagnostics_delay / 1000 if delay is None else delay
        self.pending[key] = asyncio.ensure_future(self._diagnose_later(uri, wait))

    async def _diagnose_later(self, uri: str, delay: float) -> None:
        key = unquote(uri)
        generation = self.generation.get(key, 0)
        try:
            await asyncio.sleep(delay)
            await self.refresh_analysis(
                uri, superseded=lambda: self.generation.get(key) != generation
            )
        except asyncio.CancelledError:
            pass
        except Cancelled:
            pass
        except Exception:  # noqa: BLE001 - a failed analysis must not kill later ones
            logger.exception("analysing %s failed", uri)
        finally:
            if self.pending.get(key) is asyncio.current_task():
                del self.pending[key]

    async def refresh_analysis(
        self, uri: str, superseded: Callable[[], bool] | None = None
    ) -> Analysis | None:
        doc = self.open_document(uri)
        if doc is None:
            return None
        source = ReplySource(doc.source, uri, doc.version)
        analysis = await self.analyse(source, cancelled=superseded, retries=True)
        if (superseded is not None and superseded()) or doc.version != source.version:
            return None
        self.remember(analysis)
        return analysis

    def remember(self, analysis: Analysis) -> None:
        """Keep a whole-document analysis, publish its diagnostics, refresh lenses."""
        uri = analysis.source.uri
        if uri is None:
            return
        if analysis.source.whole_document:
            self.analyses[unquote(uri)] = analysis
        self.publish(analysis)
        if self.settings.code_lens and self.client_supports("workspace.code_lens.refresh_support"):
            self.protocol.send_request(types.WORKSPACE_CODE_LENS_REFRESH, None)

    def publish(self, analysis: Analysis) -> None:
        uri = analysis.source.uri
        if uri is None:
            return
        doc = self.open_document(uri)
        text = doc.source if doc is not None else analysis.source.text
        diagnostics = build_diagnostics(analysis, LineIndex(text, self.encoding))
        self.text_document_publish_diagnostics(
            types.PublishDiagnosticsParams(
                uri=uri, diagnostics=diagnostics, version=analysis.source.version
            )
        )

    def plan_key(self, source: ReplySource) -> tuple:
        """What a plan depends on: the reply, the open documents' versions, the threshold."""
        open_docs = self.overlay(self.root_for(source.uri))[0]
        return (
            hashlib.sha1(source.text.encode("utf-8", "surrogatepass")).hexdigest(),
            source.uri,
            tuple(sorted((p, v) for p, (_, v) in open_docs.items())),
            self.settings.fuzzy_threshold,
        )

    def reusable_analysis(
        self, source: ReplySource, options: CommandOptions, partial: bool
    ) -> Analysis | None:
        """The analysis a code action just made for this reply, if applying can use it.

        The usual flow asks for code actions and then runs the chosen one's command on the
        same text and document versions: planning again would double the wait. It is reused
        only when nothing it depends on changed (`plan_key`) and its outcome is the one this
        apply would get: the cached plan is not all-or-nothing, which only matters when a
        block failed.
        """
        if options.fuzzy_threshold not in (None, self.settings.fuzzy_threshold):
            return None
        hit = self._plan_cache.get(self.plan_key(source))
        if hit is None or not (partial or hit.plan.ok):
            return None
        return hit

    def current_analysis(self, uri: str) -> Analysis | None:
        analysis = self.analyses.get(unquote(uri))
        doc = self.open_document(uri)
        if analysis is None or doc is None or analysis.source.version != doc.version:
            return None
        return analysis

    async def ensure_analysis(self, uri: str) -> Analysis | None:
        found = self.current_analysis(uri)
        if found is not None:
            return found
        key = unquote(uri)
        pending = self.pending.pop(key, None)
        if pending is not None:
            pending.cancel()
        # a newer didChange cancels this analysis: follow the newest text a few times, then
        # tell the client its request is stale (ContentModified), never an internal error
        for _ in range(3):
            self.generation[key] = self.generation.get(key, 0) + 1
            generation = self.generation[key]
            try:
                return await self.refresh_analysis(
                    uri, lambda g=generation: self.generation.get(key) != g
                )
            except Cancelled:
                found = self.current_analysis(uri)
                if found is not None:
                    return found
        raise JsonRpcContentModified("the reply changed while it was being analysed")

    # -- applying

    def require_write(self) -> None:
        if self.settings.restricted:
            raise RequestFailed(
                RESTRICTED_MESSAGE,
                data={
                    "ok": False,
                    "blocks": [],
                    "files": [],
                    "warnings": [],
                    "error": {
                        "code": str(ErrorCode.MODE_RESTRICTED),
                        "message": RESTRICTED_MESSAGE,
                        "details": {},
                    },
                },
            )

    async def apply(
        self,
        source: ReplySource,
        options: CommandOptions,
        *,
        parsed: ParsedReply | None = None,
        cancelled: Callable[[], bool] | None = None,
    ) -> dict[str, Any]:
        """Plan a reply, send one `workspace/applyEdit`, check the editor really applied it."""
        started = time.monotonic()
        self.stats.patches += 1
        try:
            # one apply at a time: each is planned against the text the one before left, so
            # concurrent applies never race to the same document version
            async with self.apply_lock:
                return await self._apply(source, options, parsed, cancelled or (lambda: False))
        except Cancelled:
            self.stats.cancelled += 1
            logger.info("apply cancelled")
            raise JsonRpcRequestCancelled("the patch was cancelled; nothing was applied") from None
        finally:
            self.stats.latency_total += time.monotonic() - started

    async def _apply(
        self,
        source: ReplySource,
        options: CommandOptions,
        parsed: ParsedReply | None,
        cancelled: Callable[[], bool],
    ) -> dict[str, Any]:
        partial = options.partial if options.partial is not None else not self.settings.atomic
        preview = options.preview or self.settings.always_preview
        whole_reply = parsed is None  # a chosen block's plan says nothing about the others
        if parsed is None:
            parsed = self.parse_cached(source.text)
        reused = self.reusable_analysis(source, options, partial) if whole_reply else None
        if reused is not None:
            analysis = reused
        else:
            async with _Progress.maybe(
                self, "Applying LLM patch", parsed, source.text
            ) as progress:
                analysis = await self.analyse(
                    source,
                    parsed=parsed,
                    atomic=not partial,
                    fuzzy_threshold=options.fuzzy_threshold,
                    cancelled=cancelled,
                    progress=progress,
                )
        plan = analysis.plan
        logger.debug(
            "planned %d block(s): %d placed, %d file(s) change",
            len(plan.outcomes),
            sum(1 for o in plan.outcomes if o.placed),
            len(plan.files),
        )
        self.stats.blocks += len(plan.outcomes)
        self.stats.conflicts += sum(1 for o in plan.outcomes if not o.placed)
        if source.uri is not None:
            self.reply_uris.add(unquote(source.uri))
            if whole_reply:
                self.publish(analysis)

        if plan.failure is not None:
            self.tell(types.MessageType.Warning, f"LLM patch: {plan.failure.message}")
            return report_json(plan, applied=False)
        if not plan.ok and not partial:
            failed = [o for o in plan.outcomes if not o.placed]
            self.tell(types.MessageType.Warning, _refusal_message(failed, len(plan.outcomes)))
            return report_json(plan, applied=False)
        if not plan.files:
            report = report_json(plan, applied=False)
            if plan.outcomes and all(o.already_applied or not o.placed for o in plan.outcomes):
                self.tell(types.MessageType.Info, "LLM patch: nothing to change — already applied")
            return report

        built = build_workspace_edit(
            plan,
            self.edit_capabilities(),
            self.uri_for(analysis),
            confirm_fuzzy=self.settings.confirm_fuzzy,
            preview=preview,
        )
        unsupported = _unsupported_failures(built)
        if unsupported and not partial:
            self.tell(
                types.MessageType.Error, f"LLM patch: {next(iter(unsupported.values())).message}"
            )
            return _mark(report_json(plan, applied=False), plan, unsupported)
        if cancelled():
            raise Cancelled()
        if built.empty:
            return _mark(report_json(plan, applied=False), plan, unsupported)

        n_files = len(built.files)
        label = f"LLM patch: {built.text_edit_count} edits in {n_files} file{'s' * (n_files != 1)}"
        before = {c.path: c.version for c in built.files}
        logger.debug("sending workspace/applyEdit: %s", label)
        try:
            result = await self.workspace_apply_edit_async(
                types.ApplyWorkspaceEditParams(edit=built.edit, label=label)
            )
        except JsonRpcException as err:
            result = types.ApplyWorkspaceEditResult(applied=False, failure_reason=err.message)

        if not result.applied:
            changed = self._changed_since(analysis, before)
            if result.failure_reason:
                code, why = (
                    ErrorCode.IO_ERROR,
                    f"the editor refused the edit: {result.failure_reason}",
                )
            else:
                code = ErrorCode.STALE_VERSION
                why = (
                    STALE_MESSAGE
                    if changed or not built.needs_confirmation
                    else (
                        "the edit was not applied (declined in the preview, or the document "
                        "changed since the patch was planned); run it again"
                    )
                )
            self.tell(types.MessageType.Error, f"LLM patch not applied: {why}")
            self.stats.conflicts += 1
            failures = {c.path: Failure(code, why, {"path": c.path}) for c in built.files}
            return _mark(report_json(plan, applied=False), plan, {**failures, **unsupported})

        stale = await self._verify(analysis, built)
        self.stats.conflicts += len(stale)
        if not stale:
            self.stats.applied += 1
        report = _mark(report_json(plan, applied=True), plan, {**stale, **unsupported})
        if stale:
            paths = ", ".join(sorted(stale))
            self.tell(
                types.MessageType.Error,
                f"LLM patch: the editor reported success but {paths} did not change: "
                f"{STALE_MESSAGE}",
            )
        elif not plan.ok:
            placed = sum(1 for o in plan.outcomes if o.placed)
            self.tell(
                types.MessageType.Warning,
                f"LLM patch: applied {placed} of {len(plan.outcomes)} edits; "
                "the others failed (see the diagnostics on the reply)",
            )
        if analysis.source.uri is not None and analysis.source.whole_document:
            self.schedule_diagnostics(analysis.source.uri, delay=0.05)
        return report

    def _changed_since(self, analysis: Analysis, versions: dict[str, int | None]) -> bool:
        for path, version in versions.items():
            uri = analysis.uris.get(path)
            doc = self.open_document(uri) if uri else None
            if doc is not None and version is not None and doc.version != version:
                return True
        return False

    async def _verify(self, analysis: Analysis, built: BuiltEdit) -> dict[str, Failure]:
        """After `applied: true`, look again: a client may skip a stale document silently."""
        uri_for = self.uri_for(analysis)
        checks = [self._verify_one(change, uri_for, analysis.root) for change in built.files]
        results = await asyncio.gather(*checks)
        return {path: failure for path, failure in results if failure is not None}

    async def _verify_one(
        self, change: FileChange, uri_for: Callable[[str], str], root: Path
    ) -> tuple[str, Failure | None]:
        uri = uri_for(change.path)
        if change.action is FileAction.MODIFY:
            if change.version is None:
                return change.path, None  # not open: the editor edits it unsaved; cannot see it
            doc_now = self.open_document(uri)

            def synced() -> bool:
                doc = self.open_document(uri)
                return doc is None or doc.version != change.version

            await self.wait_for_document(uri, synced, VERIFY_TIMEOUT)
            doc_now = self.open_document(uri)
            if doc_now is None:
                return change.path, None
            if edit_present(change.old_text or "", change.new_text or "", doc_now.source):
                return change.path, None
            return change.path, Failure(
                ErrorCode.STALE_VERSION,
                f"{change.path}: the editor reported the edit applied, but the change is not "
                f"in the document; {STALE_MESSAGE}",
                {"path": change.path, "version": change.version},
            )
        target = root / change.path
        if change.action is FileAction.CREATE:
            ok = lambda: target.exists() or self.open_document(uri) is not None  # noqa: E731
            what = "was not created"
        elif change.action is FileAction.DELETE:
            ok = lambda: not target.exists()  # noqa: E731
            what = "still exists"
        else:
            dest = root / (change.new_path or change.path)
            ok = lambda: dest.exists() and not target.exists()  # noqa: E731
            what = f"was not moved to {change.new_path}"
        if not await _poll(ok, VERIFY_TIMEOUT):
            return change.path, Failure(
                ErrorCode.STALE_VERSION,
                f"{change.path}: the editor reported the edit applied, but the file {what}",
                {"path": change.path},
            )
        return change.path, None

    # -- messages

    def tell(self, kind: types.MessageType, message: str) -> None:
        log = {types.MessageType.Error: logging.ERROR, types.MessageType.Warning: logging.WARNING}
        logger.log(log.get(kind, logging.INFO), "%s", message)
        self.window_show_message(types.ShowMessageParams(type=kind, message=message))

    def report_server_error(self, error: Exception, source: Any) -> None:
        logger.error("internal error (%s): %s", getattr(source, "__name__", source), error)
        super().report_server_error(error, source)

    # -- settings

    def apply_settings(self, raw: Any, origin: str) -> None:
        new, problems = self.settings.merged(raw)
        for problem in problems:
            logger.warning("ignoring setting from %s: %s", origin, problem)
        changed = new != self.settings
        self.settings = new
        if self._log_handler is not None:
            self._log_handler.setLevel(_LOG_LEVELS[new.log_level])
        if changed:
            logger.info("settings (%s): %s", origin, new)
            try:
                for doc in list(self.workspace.text_documents.values()):
                    self.schedule_diagnostics(doc.uri)
            except RuntimeError:
                pass

    async def pull_settings(self) -> None:
        if not self.client_supports("workspace.configuration"):
            return
        try:
            values = await self.workspace_configuration_async(
                types.ConfigurationParams(items=[types.ConfigurationItem(section="llmPatch")])
            )
        except Exception as err:  # noqa: BLE001 - a client without settings is fine
            logger.info("workspace/configuration failed: %s", err)
            return
        if values and isinstance(values[0], dict):
            self.apply_settings(values[0], "workspace/configuration")

    def install_client_logging(self) -> None:
        handler = _ClientLogHandler(self)
        handler.setLevel(_LOG_LEVELS[self.settings.log_level])
        logger.addHandler(handler)
        logger.setLevel(logging.DEBUG)
        self._log_handler = handler
        self._loop = asyncio.get_running_loop()


class _ClientLogHandler(logging.Handler):
    """Our log records as `window/logMessage`, from any thread."""

    _MAP = (
        (logging.ERROR, types.MessageType.Error),
        (logging.WARNING, types.MessageType.Warning),
        (logging.INFO, types.MessageType.Info),
        (0, types.MessageType.Log),
    )

    def __init__(self, server: LlmPatchServer):
        super().__init__()
        self.server = server
        self._local = threading.local()

    def emit(self, record: logging.LogRecord) -> None:
        if getattr(self._local, "busy", False):
            return
        try:
            self._local.busy = True
            message = self.format(record)
            kind = next(t for level, t in self._MAP if record.levelno >= level)
            params = types.LogMessageParams(type=kind, message=message)
            loop = self.server._loop
            if loop is None or loop.is_closed():
                return
            try:
                running = asyncio.get_running_loop()
            except RuntimeError:
                running = None
            if running is loop:
                self.server.window_log_message(params)
            else:
                loop.call_soon_threadsafe(self.server.window_log_message, params)
        except Exception:  # noqa: BLE001 - logging must never raise
            pass
        finally:
            self._local.busy = False


class _Progress:
    """Server-initiated `window/workDoneProgress` for long plans; also a cancel source."""

    def __init__(self, server: LlmPatchServer, title: str):
        self.server = server
        self.title = title
        self.token = f"llm-patch/{uuid.uuid4()}"
        self.started = False
        self.loop = asyncio.get_running_loop()
        self._last = 0.0

    @classmethod
    def maybe(cls, server: LlmPatchServer, title: str, parsed: ParsedReply, text: str) -> Any:
        big = len(parsed.blocks) >= PROGRESS_BLOCKS or len(text) >= PROGRESS_BYTES
        if big and server.client_supports("window.work_done_progress"):
            return cls(server, title)
        return _NoProgress()

    async def __aenter__(self) -> _Progress:
        try:
            await self.server.work_done_progress.create_async(self.token)
        except Exception as err:  # noqa: BLE001 - progress is a courtesy
            logger.debug("progress not available: %s", err)
            return self
        self.started = True
        self.server.work_done_progress.begin(
            self.token,
            types.WorkDoneProgressBegin(title=self.title, cancellable=True, percentage=0),
        )
        return self

    async def __aexit__(self, *exc: Any) -> None:
        if self.started:
            self.server.work_done_progress.end(self.token, types.WorkDoneProgressEnd())
            self.server.work_done_progress.tokens.pop(self.token, None)

    def wrap(self, cancelled: Callable[[], bool], total: int) -> Callable[[], bool]:
        """A cancel check that also reports "block i of n" (plan calls it between blocks)."""
        count = [0]

        def check() -> bool:
            count[0] += 1
            now = time.monotonic()
            if self.started and total and now - self._last > 0.1:
                self._last = now
                done = min(count[0], total)
                report = types.WorkDoneProgressReport(
                    message=f"block {done} of {total}", percentage=int(100 * (done - 1) / total)
                )
                self.loop.call_soon_threadsafe(
                    self.server.work_done_progress.report, self.token, report
                )
            token = self.server.work_done_progress.tokens.get(self.token)
            return cancelled() or (token is not None and token.cancelled())

        return check


class _NoProgress:
    async def __aenter__(self) -> None:
        return None

    async def __aexit__(self, *exc: Any) -> None:
        return None


# --- helpers ------------------------------------------------------------------------------------


def _warm_engine() -> None:
    for name in ENGINE_MODULES:
        importlib.import_module(name)
    boot.save()


def _lf(text: str) -> str:
    return text.replace("\r\n", "\n")


def edit_present(old: str, new: str, now: str) -> bool:
    """Is the change old → new in `now`, even if the user has typed elsewhere since?

    Each changed region of `new`, widened to whole lines plus one line of context on each
    side, must appear in `now`. A client that skipped the edit (Neovim does so silently for
    a stale version) leaves at least one of them missing.
    """
    old, new, now = _lf(old), _lf(new), _lf(now)
    if now == new:
        return True
    if now == old:
        return False
    delta = 0
    for edit in diff_offsets(old, new):
        start = edit.start + delta
        end = start + len(edit.text)
        delta += len(edit.text) - (edit.end - edit.start)
        line_start = new.rfind("\n", 0, start) + 1
        lo = new.rfind("\n", 0, line_start - 1) + 1 if line_start > 0 else 0
        line_end = new.find("\n", end)
        after = new.find("\n", line_end + 1) if line_end != -1 else -1
        hi = after + 1 if after != -1 else len(new)
        fragment = new[lo:hi]
        if fragment and fragment not in now:
            return False
    return True


async def _poll(check: Callable[[], bool], timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while True:
        if check():
            return True
        if time.monotonic() >= deadline:
            return False
        await asyncio.sleep(0.05)


def _read_reply_file(uri: str) -> str:
    """A reply document the editor has not opened: read it from disk (text only, bounded)."""
    if uri_scheme(uri) != "file":
        raise _invalid(f"unknown document {uri}: it is not open and not a file")
    path = to_fs_path(uri)
    try:
        data = Path(path).read_bytes() if path else None
    except OSError as err:
        raise _invalid(f"unknown document {uri}: {err.strerror or err}") from None
    if data is None:
        raise _invalid(f"unknown document {uri}")
    if len(data) > MAX_FILE_BYTES:
        raise RequestFailed(
            f"{uri} is {len(data):,} bytes; too large to be a reply",
            data={"code": str(ErrorCode.CONTENT_TOO_LARGE)},
        )
    from lsp_server.reply import decode_reply  # the CLI's rule: UTF-8 or refused

    try:
        text = decode_reply(data, uri)  # first, so a UTF-16 reply is named as such
    except PlacementError as err:
        raise RequestFailed(err.failure.message, data=err.failure.to_json()) from None
    if b"\x00" in data[:8192]:
        raise RequestFailed(f"{uri} looks binary", data={"code": str(ErrorCode.BINARY_FILE)})
    return text


def _refusal_message(failed: list[BlockOutcome], total: int) -> str:
    first = failed[0]
    code = first.failure.code if first.failure else "?"
    return (
        f"LLM patch not applied: {len(failed)} of {total} edits failed "
        f"(block {first.block.index}, {first.block.path or '?'}: {code}). Nothing was changed; "
        "fix the reply, or apply only the edits that place."
    )


def _unsupported_failures(built: BuiltEdit) -> dict[str, Failure]:
    out: dict[str, Failure] = {}
    for change in built.unsupported:
        out[change.path] = Failure(
            ErrorCode.IO_ERROR,
            f"{change.path}: this editor cannot {change.action.value} files through LSP "
            "(it does not support resource operations)",
            {"path": change.path, "action": change.action.value},
        )
    return out


def _mark(report: dict[str, Any], plan: Plan, failures: dict[str, Failure]) -> dict[str, Any]:
    """Turn the blocks of files that did not make it into failures in a report."""
    if not failures:
        return report
    owners: dict[int, Failure] = {}
    for change in plan.files:
        failure = failures.get(change.path)
        if failure is not None:
            for index in change.blocks:
                owners[index] = failure
    for entry in report["blocks"]:
        failure = owners.get(entry["index"])
        if failure is not None and entry["status"] in (Status.APPLIED, Status.VALIDATED):
            entry["status"] = str(Status.FAILED)
            entry["error"] = failure.to_json()
    report["ok"] = False
    return report


def _block_paths(block: EditBlock) -> set[str]:
    return {p for p in (block.path, block.move_to) if p}


def _related_information(
    plan: Plan, ws: DiskWorkspace, root: Path, uris: dict[str, str], encoding: str
) -> dict[int, list[types.DiagnosticRelatedInformation]]:
    """For each failed block, where in its file the closest (or competing) text is.

    Runs in the worker thread: it reads the target files (through the same snapshots the
    plan used) to turn the core's line numbers into ranges in the client's encoding.
    """
    out: dict[int, list[types.DiagnosticRelatedInformation]] = {}
    texts: dict[str, str | None] = {}
    for outcome in plan.outcomes:
        failure = outcome.failure
        if failure is None:
            continue
        path = failure.details.get("path") or outcome.block.path
        spans: list[tuple[int, int, str]] = []
        closest = failure.details.get("closest")
        if isinstance(closest, dict) and isinstance(closest.get("line"), int):
            sim = closest.get("similarity")
            how = (
                "differs only in whitespace"
                if closest.get("whitespace_only")
                else (f"similarity {sim:.0%}" if isinstance(sim, int | float) else "closest")
            )
            spans.append(
                (
                    closest["line"],
                    int(closest.get("end_line") or closest["line"]),
                    f"closest match ({how})",
                )
            )
        lines = failure.details.get("lines")
        if failure.code in (ErrorCode.TEXT_AMBIGUOUS, ErrorCode.TARGET_AMBIGUOUS) and isinstance(
            lines, list
        ):
            length = int(failure.details.get("length") or 1)
            spans.extend(
                (n, n + length - 1, "matches here") for n in lines[:10] if isinstance(n, int)
            )
        if not path or not spans:
            continue
        if path not in texts:
            try:
                texts[path] = ws.snapshot(path).text
            except PlacementError:
                texts[path] = None
        text = texts[path]
        if text is None:
            continue
        try:
            rel = ws.relative(path)
        except PlacementError:
            continue
        uri = uris.get(rel) or from_fs_path(str(root / rel)) or rel
        index = LineIndex(text, encoding)
        infos = []
        for first, last, message in spans:
            lo, hi = _core_lines_to_lsp(text, index, first, last)
            infos.append(
                types.DiagnosticRelatedInformation(
                    location=types.Location(uri=uri, range=index.line_range(lo, hi)),
                    message=f"{rel}:{first}: {message}",
                )
            )
        out[outcome.block.index] = infos
    return out


def _fuzzy_retries(
    plan: Plan, ws: DiskWorkspace, options: PlanOptions, cancelled: Callable[[], bool]
) -> dict[int, float]:
    """Failed blocks whose closest region a looser fuzzy threshold would accept.

    The quick fix "apply at the closest match" is only offered when it would work: each
    candidate is planned again, alone, with the threshold just under its similarity.
    """
    from lsp_server.plan import PlanOptions, plan_reply

    out: dict[int, float] = {}
    for outcome in plan.outcomes:
        failure = outcome.failure
        if failure is None or failure.code is not ErrorCode.TEXT_NOT_FOUND:
            continue
        closest = failure.details.get("closest")
        sim = closest.get("similarity") if isinstance(closest, dict) else None
        if not isinstance(sim, int | float) or not QUICKFIX_FLOOR <= sim < options.fuzzy_threshold:
            continue
        threshold = max(QUICKFIX_FLOOR, float(sim) - 0.001)
        looser = PlanOptions(atomic=False, fuzzy_threshold=threshold)
        try:
            again = plan_reply(ParsedReply((outcome.block,)), ws, looser, cancelled)
        except Cancelled:
            break
        if again.outcomes and again.outcomes[0].placed:
            out[outcome.block.index] = threshold
    return out


def _core_lines_to_lsp(text: str, index: LineIndex, first: int, last: int) -> tuple[int, int]:
    """The core numbers lines by "\\n" only (1-based); the client also breaks at a lone "\\r"."""
    if "\r" not in text.replace("\r\n", ""):
        return first - 1, last - 1
    offsets = [0]
    for i, ch in enumerate(text):
        if ch == "\n":
            offsets.append(i + 1)
    lo = index.position(offsets[min(first - 1, len(offsets) - 1)]).line
    hi = index.position(offsets[min(last - 1, len(offsets) - 1)]).line
    return lo, max(lo, hi)


def _block_range(analysis: Analysis, block: EditBlock, index: LineIndex) -> types.Range:
    lo, hi = block.reply_lines
    off = analysis.source.line_offset
    return index.line_range(off + lo - 1, off + hi - 1)


def build_diagnostics(analysis: Analysis, index: LineIndex) -> list[types.Diagnostic]:
    """One Error per failed block (on its lines), Warnings for plan warnings."""
    plan = analysis.plan
    out: list[types.Diagnostic] = []
    if plan.failure is not None:
        if plan.failure.code is not ErrorCode.NO_EDIT_BLOCKS:
            out.append(
                types.Diagnostic(
                    range=index.line_range(
                        analysis.source.line_offset, analysis.source.line_offset
                    ),
                    message=plan.failure.message,
                    severity=types.DiagnosticSeverity.Warning,
                    code=str(plan.failure.code),
                    source=SOURCE,
                )
            )
        return out
    blocks = {o.block.index: o.block for o in plan.outcomes}
    for outcome in plan.outcomes:
        failure = outcome.failure
        if failure is None:
            continue
        block = outcome.block
        data: dict[str, Any] = {"block": block.index, "code": str(failure.code)}
        closest = failure.details.get("closest")
        if isinstance(closest, dict):
            data["closest"] = {
                k: closest.get(k) for k in ("line", "end_line", "similarity", "whitespace_only")
            }
        if block.path:
            data["path"] = block.path
        if block.index in analysis.retry_thresholds:
            data["fuzzyThreshold"] = analysis.retry_thresholds[block.index]
        out.append(
            types.Diagnostic(
                range=_block_range(analysis, block, index),
                message=failure.message,
                severity=types.DiagnosticSeverity.Error,
                code=str(failure.code),
                source=SOURCE,
                related_information=analysis.related.get(block.index) or None,
                data=data,
            )
        )
    for warning in plan.warnings:
        targets = (
            [blocks[warning.block]]
            if warning.block in blocks
            else [b for b in blocks.values() if warning.path and warning.path in _block_paths(b)][
                :1
            ]
        )
        for block in targets:
            out.append(
                types.Diagnostic(
                    range=_block_range(analysis, block, index),
                    message=warning.message,
                    severity=types.DiagnosticSeverity.Warning,
                    code=str(warning.type),
                    source=SOURCE,
                    data={"block": block.index, "code": str(warning.type)},
                )
            )
    return out


def lens_title(outcome: BlockOutcome) -> str:
    block = outcome.block
    if outcome.failure is not None:
        return f"✗ {outcome.failure.code}"
    where = block.path or "?"
    if block.move_to:
        where = f"{where} → {block.move_to}"
    elif outcome.placements and outcome.match not in (MatchKind.CREATE, MatchKind.DELETE):
        where = f"{where}:{outcome.placements[0].start_line + 1}"
    how = outcome.match.value if outcome.match else "placed"
    if outcome.match is MatchKind.FUZZY and outcome.score is not None:
        how = f"fuzzy {outcome.score:.0%}"
    if outcome.already_applied:
        how = f"{how}, already applied"
    return f"✓ {where} ({how})"


def corrected_block(block: EditBlock, failure: Failure) -> str | None:
    """The failed block rewritten as a well-formed SEARCH/REPLACE block anchored on the
    closest region of the file, or None when that cannot be done faithfully."""
    closest = failure.details.get("closest")
    if not isinstance(closest, dict) or not isinstance(closest.get("text"), str):
        return None
    if not block.path or len(block.hunks) != 1 or block.action is not Action.MODIFY:
        return None
    hunk = block.hunks[0]
    if hunk.kind is not HunkKind.REPLACE:
        return None
    first, last = closest.get("line"), closest.get("end_line")
    if isinstance(first, int) and isinstance(last, int) and last - first + 1 > 40:
        return None  # the failure only carries the first 40 lines of the region
    search = closest["text"]
    replace = hunk.new[:-1] if hunk.new.endswith("\n") else hunk.new
    fence = "````" if "```" in search + replace else "```"
    return (
        f"{block.path}\n{fence}\n<<<<<<< SEARCH\n{search}\n=======\n{replace}\n"
        f">>>>>>> REPLACE\n{fence}\n"
    )


# --- handlers -----------------------------------------------------------------------------------


def _parse_options(raw: Any) -> CommandOptions:
    if raw is None:
        return CommandOptions()
    if not isinstance(raw, dict):
        raise _invalid("the second argument (options) must be an object")
    partial = raw.get("partial")
    if partial is not None and not isinstance(partial, bool):
        raise _invalid("options.partial must be true or false")
    preview = raw.get("preview", False)
    if not isinstance(preview, bool):
        raise _invalid("options.preview must be true or false")
    threshold = raw.get("fuzzyThreshold")
    if threshold is not None:
        try:
            threshold = _threshold(threshold)
        except (TypeError, ValueError) as err:
            raise _invalid(f"options.fuzzyThreshold: {err}") from None
    return CommandOptions(partial=partial, preview=preview, fuzzy_threshold=threshold)


def _split_args(args: tuple[Any, ...], name: str) -> tuple[Any, CommandOptions]:
    if not args:
        raise _invalid(f'{name} needs an argument: {{"text": ...}} or {{"uri": ...}}')
    if len(args) > 2:
        raise _invalid(f"{name} takes at most two arguments (target, options)")
    return args[0], _parse_options(args[1] if len(args) > 1 else None)


def _request_cancelled(server: LlmPatchServer) -> Callable[[], bool]:
    """A check for `$/cancelRequest` on the request being handled.

    pygls runs `workspace/executeCommand` handlers as a sub-task; the client's cancel
    cancels the request's own future, which this check watches (besides our own task).
    """
    protocol = server.protocol
    msg_id = protocol.msg_id
    futures = getattr(protocol, "_request_futures", {})
    request = futures.get(msg_id) if msg_id is not None else None
    task = asyncio.current_task()

    def cancelled() -> bool:
        if request is not None and request.cancelled():
            return True
        return task is not None and task.cancelling() > 0

    return cancelled


def _tool_call_text(payload: Any, name: str) -> str:
    if isinstance(payload, str):
        return payload
    if not isinstance(payload, dict):
        raise _invalid(f"{name} needs the tool call's JSON object as its first argument")
    return "```json\n" + json.dumps(payload, ensure_ascii=False, indent=2) + "\n```\n"


def create_server() -> LlmPatchServer:
    """A fresh server with every handler registered (one per editor session)."""
    server = LlmPatchServer()

    # -- lifecycle

    @server.feature(types.INITIALIZE)
    def initialize(ls: LlmPatchServer, params: types.InitializeParams) -> None:
        if params.initialization_options is not None:
            ls.apply_settings(params.initialization_options, "initializationOptions")

    @server.feature(types.INITIALIZED)
    async def initialized(ls: LlmPatchServer, params: types.InitializedParams) -> None:
        ls.install_client_logging()
        logger.info(
            "llm-patch %s ready (position encoding %s, edits: %s)",
            ls.version,
            ls.encoding,
            ls.edit_capabilities(),
        )
        # off the request path: load the engine, keep the code attrs/cattrs generated so far
        threading.Thread(target=_warm_engine, name="llm-patch-warm", daemon=True).start()
        await ls.pull_settings()

    @server.feature(types.SHUTDOWN)
    def shutdown(ls: LlmPatchServer, params: None) -> None:
        ls.stopping = True  # running plans stop at their next block
        for task in ls.pending.values():
            task.cancel()

    @server.feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)
    async def did_change_configuration(
        ls: LlmPatchServer, params: types.DidChangeConfigurationParams
    ) -> None:
        settings = params.settings
        if isinstance(settings, dict) and _flatten_settings(settings):
            ls.apply_settings(settings, "workspace/didChangeConfiguration")
        else:
            await ls.pull_settings()

    # -- document sync

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: LlmPatchServer, params: types.DidOpenTextDocumentParams) -> None:
        ls.document_changed(params.text_document.uri)
        ls.schedule_diagnostics(params.text_document.uri, delay=0)

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: LlmPatchServer, params: types.DidChangeTextDocumentParams) -> None:
        uri = params.text_document.uri
        ls.document_changed(uri)
        if ls.is_reply_document(uri):
            ls.schedule_diagnostics(uri)
            return
        # a target file changed: the replies that edit it may place differently now
        doc = ls.open_document(uri)
        path = doc.path if doc is not None else None
        for key, analysis in list(ls.analyses.items()):
            if _mentions(analysis, path):
                ls.schedule_diagnostics(analysis.source.uri or key)

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: LlmPatchServer, params: types.DidCloseTextDocumentParams) -> None:
        uri = params.text_document.uri
        key = unquote(uri)
        task = ls.pending.pop(key, None)
        if task is not None:
            task.cancel()
        if ls.analyses.pop(key, None) is not None or ls.is_reply_document(uri):
            ls.text_document_publish_diagnostics(
                types.PublishDiagnosticsParams(uri=uri, diagnostics=[])
            )

    # -- code actions

    @server.feature(
        types.TEXT_DOCUMENT_CODE_ACTION,
        types.CodeActionOptions(
            code_action_kinds=[
                types.CodeActionKind.QuickFix,
                types.CodeActionKind.Refactor,
                types.CodeActionKind.RefactorRewrite,
            ],
            resolve_provider=True,
        ),
    )
    async def code_action(
        ls: LlmPatchServer, params: types.CodeActionParams
    ) -> list[types.CodeAction] | None:
        uri = params.text_document.uri
        doc = ls.open_document(uri)
        if doc is None:
            return None
        actions: list[types.CodeAction] = []
        actions.extend(_quick_fixes(ls, uri, doc, params.context.diagnostics))
        rng = params.range
        selection = not (
            rng.start.line == rng.end.line and rng.start.character == rng.end.character
        )
        if not selection and not ls.is_reply_document(uri):
            return actions or None
        target: dict[str, Any] = {"uri": uri, "version": doc.version}
        if selection:
            target["range"] = ls.protocol._converter.unstructure(rng)
            source = ls.reply_source(target)
        else:
            source = ReplySource(doc.source, uri, doc.version)
        parsed = ls.parse_cached(source.text)
        if parsed.failure is not None or not parsed.blocks:
            return actions or None
        n = len(parsed.blocks)
        files = len({p for b in parsed.blocks for p in _block_paths(b)}) or 1
        plan = await _known_plan(ls, source, parsed, params.context)
        title = f"Apply LLM patch ({n} edit{'s' * (n != 1)} in {files} file{'s' * (files != 1)})"
        if not ls.settings.restricted:
            actions.append(
                types.CodeAction(
                    title=title,
                    kind=KIND_APPLY,
                    is_preferred=True,
                    command=types.Command(title=title, command=CMD_APPLY, arguments=[target]),
                )
            )
            if ls.edit_capabilities().change_annotations:
                actions.append(
                    types.CodeAction(
                        title=f"Preview LLM patch ({n} edit{'s' * (n != 1)})",
                        kind=KIND_APPLY,
                        command=types.Command(
                            title="Preview LLM patch",
                            command=CMD_APPLY,
                            arguments=[target, {"preview": True}],
                        ),
                    )
                )
            if plan is not None:
                placed = sum(1 for o in plan.outcomes if o.placed)
                if 0 < placed < len(plan.outcomes):
                    partial = (
                        f"Apply {placed} of {len(plan.outcomes)} edits (skip the failing ones)"
                    )
                    actions.append(
                        types.CodeAction(
                            title=partial,
                            kind=KIND_APPLY,
                            command=types.Command(
                                title=partial,
                                command=CMD_APPLY,
                                arguments=[target, {"partial": True}],
                            ),
                        )
                    )
        check = "Check LLM patch (show failures, apply nothing)"
        actions.append(
            types.CodeAction(
                title=check,
                kind=KIND_CHECK,
                command=types.Command(title=check, command=CMD_CHECK, arguments=[target]),
            )
        )
        return actions

    @server.feature(types.CODE_ACTION_RESOLVE)
    async def code_action_resolve(ls: LlmPatchServer, action: types.CodeAction) -> types.CodeAction:
        data = action.data if isinstance(action.data, dict) else None
        if data is None or data.get("fix") != "correct" or action.edit is not None:
            return action
        action.edit = await _correction_edit(ls, data)
        return action

    # -- lenses and hover

    @server.feature(types.TEXT_DOCUMENT_CODE_LENS, types.CodeLensOptions(resolve_provider=False))
    async def code_lens(
        ls: LlmPatchServer, params: types.CodeLensParams
    ) -> list[types.CodeLens] | None:
        uri = params.text_document.uri
        if not ls.settings.code_lens or not ls.is_reply_document(uri):
            return None
        analysis = await ls.ensure_analysis(uri)
        if analysis is None:
            return None
        index = LineIndex(analysis.source.text, ls.encoding)
        lenses = []
        for outcome in analysis.plan.outcomes:
            line = analysis.source.line_offset + outcome.block.reply_lines[0] - 1
            pos = types.Position(line=max(0, min(line, index.line_count - 1)), character=0)
            title = lens_title(outcome)
            lenses.append(
                types.CodeLens(
                    range=types.Range(start=pos, end=pos),
                    command=types.Command(
                        title=title,
                        command=CMD_APPLY_BLOCK,
                        arguments=[
                            {
                                "uri": uri,
                                "version": analysis.source.version,
                                "block": outcome.block.index,
                            }
                        ],
                    ),
                )
            )
        return lenses

    @server.feature(types.TEXT_DOCUMENT_HOVER)
    async def hover(ls: LlmPatchServer, params: types.HoverParams) -> types.Hover | None:
        uri = params.text_document.uri
        if not ls.is_reply_document(uri) and unquote(uri) not in ls.analyses:
            return None
        analysis = await ls.ensure_analysis(uri)
        if analysis is None:
            return None
        line = params.position.line - analysis.source.line_offset + 1
        outcome = next(
            (
                o
                for o in analysis.plan.outcomes
                if o.block.reply_lines[0] <= line <= o.block.reply_lines[1]
            ),
            None,
        )
        if outcome is None:
            return None
        markdown = "markdown" in [
            str(getattr(f, "value", f))
            for f in (ls.client_supports("text_document.hover.content_format") or ["markdown"])
        ]
        text = await _hover_text(ls, analysis, outcome, markdown)
        index = LineIndex(
            ls.open_document(uri).source if ls.open_document(uri) else "", ls.encoding
        )
        return types.Hover(
            contents=types.MarkupContent(
                kind=types.MarkupKind.Markdown if markdown else types.MarkupKind.PlainText,
                value=text,
            ),
            range=_block_range(analysis, outcome.block, index),
        )

    # -- commands

    @server.command(CMD_APPLY)
    async def cmd_apply(ls: LlmPatchServer, *args: Any) -> dict[str, Any]:
        target, options = _split_args(args, CMD_APPLY)
        ls.require_write()
        source = ls.reply_source(target)
        return await ls.apply(source, options, cancelled=_request_cancelled(ls))

    @server.command(CMD_CHECK)
    async def cmd_check(ls: LlmPatchServer, *args: Any) -> dict[str, Any]:
        target, options = _split_args(args, CMD_CHECK)
        source = ls.reply_source(target)
        partial = options.partial if options.partial is not None else not ls.settings.atomic
        analysis = await ls.analyse(
            source,
            parsed=ls.parse_cached(source.text),
            atomic=not partial,
            fuzzy_threshold=options.fuzzy_threshold,
            cancelled=_request_cancelled(ls),
            retries=source.uri is not None,
        )
        if source.uri is not None:
            ls.reply_uris.add(unquote(source.uri))
            ls.remember(analysis)
        return report_json(analysis.plan, applied=False)

    @server.command(CMD_APPLY_BLOCK)
    async def cmd_apply_block(ls: LlmPatchServer, *args: Any) -> dict[str, Any]:
        target, options = _split_args(args, CMD_APPLY_BLOCK)
        ls.require_write()
        if not isinstance(target, dict) or not isinstance(target.get("block"), int):
            raise _invalid(f'{CMD_APPLY_BLOCK} needs {{"uri" | "text", "block": <index>}}')
        source = ls.reply_source(target)
        parsed = ls.parse_cached(source.text)
        chosen = [b for b in parsed.blocks if b.index == target["block"]]
        if not chosen:
            raise _invalid(
                f"the reply has no block {target['block']} ({len(parsed.blocks)} blocks)"
            )
        one = ParsedReply(tuple(chosen))
        return await ls.apply(source, options, parsed=one, cancelled=_request_cancelled(ls))

    @server.command(CMD_PATCH)
    async def cmd_patch(ls: LlmPatchServer, *args: Any) -> dict[str, Any]:
        payload, options = _split_args(args, CMD_PATCH)
        ls.require_write()
        source = ReplySource(_tool_call_text(payload, CMD_PATCH))
        return await ls.apply(source, options, cancelled=_request_cancelled(ls))

    @server.command(CMD_STRUCTURE)
    async def cmd_structure(ls: LlmPatchServer, *args: Any) -> dict[str, Any]:
        payload, options = _split_args(args, CMD_STRUCTURE)
        ls.require_write()
        if isinstance(payload, dict):
            payload = {"operation": "replace_structure", **payload}
        source = ReplySource(_tool_call_text(payload, CMD_STRUCTURE))
        return await ls.apply(source, options, cancelled=_request_cancelled(ls))

    @server.command(CMD_BUILD_DIFF)
    def cmd_build_diff(ls: LlmPatchServer, *args: Any) -> dict[str, Any]:
        if len(args) != 1 or not isinstance(args[0], dict):
            raise _invalid(f'{CMD_BUILD_DIFF} takes one object: {{"original", "updated", "path"?}}')
        arg = args[0]
        original, updated = arg.get("original"), arg.get("updated")
        if not isinstance(original, str) or not isinstance(updated, str):
            raise _invalid('"original" and "updated" must be strings')
        path = arg.get("path") if isinstance(arg.get("path"), str) and arg.get("path") else "file"
        change = FileChange(path, FileAction.MODIFY, original, updated)
        return {"path": path, "diff": file_diff(change)}

    @server.command(CMD_STATS)
    def cmd_stats(ls: LlmPatchServer, *args: Any) -> dict[str, Any]:
        return ls.stats.to_json()

    @server.command(CMD_SHOW)
    async def cmd_show(ls: LlmPatchServer, *args: Any) -> bool:
        if len(args) != 1 or not isinstance(args[0], dict):
            raise _invalid(f'{CMD_SHOW} takes one object: {{"uri", "range"}}')
        try:
            rng = ls.protocol._converter.structure(args[0].get("range"), types.Range)
        except Exception as err:  # noqa: BLE001
            raise _invalid(f"range is not an LSP Range: {err}") from None
        uri = args[0].get("uri")
        if not isinstance(uri, str):
            raise _invalid('"uri" must be a string')
        if not ls.client_supports("window.show_document.support"):
            return False
        result = await ls.window_show_document_async(
            types.ShowDocumentParams(uri=uri, take_focus=True, selection=rng)
        )
        return bool(result and result.success)

    return server


def _mentions(analysis: Analysis, path: str | None) -> bool:
    """Does the reply name this file (as a target) at all?"""
    if not path:
        return False
    for outcome in analysis.plan.outcomes:
        for p in _block_paths(outcome.block):
            if str(analysis.root / p) == path or path.endswith("/" + p.lstrip("./")):
                return True
    return False


async def _known_plan(
    ls: LlmPatchServer, source: ReplySource, parsed: ParsedReply, context: types.CodeActionContext
) -> Plan | None:
    """The plan for a code-action request, without planning on every cursor move.

    A whole reply document has one from its (debounced) diagnostics. A selection is only
    planned when the user explicitly asked for actions (trigger kind Invoked, which Neovim
    always sends) and it is not huge; automatic requests (VS Code's light bulb) reuse a
    cached plan or go without the partial action.
    """
    if source.whole_document and source.uri is not None:
        known = ls.current_analysis(source.uri)
        if known is not None:
            return known.plan
    key = ls.plan_key(source)
    hit = ls._plan_cache.get(key)
    if hit is not None:
        return hit.plan
    automatic = context.trigger_kind == types.CodeActionTriggerKind.Automatic
    if automatic or len(source.text) > PLAN_ON_REQUEST_BYTES:
        return None
    try:
        analysis = await ls.analyse(source, parsed=parsed)
    except Cancelled:
        return None
    ls._plan_cache[key] = analysis
    while len(ls._plan_cache) > 16:
        ls._plan_cache.popitem(last=False)
    return analysis.plan


def _quick_fixes(
    ls: LlmPatchServer, uri: str, doc: TextDocument, diagnostics: Iterable[types.Diagnostic]
) -> list[types.CodeAction]:
    """Fixes for our failure diagnostics: open the closest match, apply it (confirming),
    or rewrite the block so it anchors on what the file really says."""
    out: list[types.CodeAction] = []
    analysis = ls.current_analysis(uri)
    for diag in diagnostics:
        if diag.source != SOURCE or not isinstance(diag.data, dict):
            continue
        index = diag.data.get("block")
        closest = diag.data.get("closest")
        if not isinstance(index, int):
            continue
        if diag.related_information:
            loc = diag.related_information[0].location
            out.append(
                types.CodeAction(
                    title=f"Open the closest match ({diag.related_information[0].message})",
                    kind=types.CodeActionKind.QuickFix,
                    diagnostics=[diag],
                    command=types.Command(
                        title="Open the closest match",
                        command=CMD_SHOW,
                        arguments=[
                            {"uri": loc.uri, "range": ls.protocol._converter.unstructure(loc.range)}
                        ],
                    ),
                )
            )
        if not isinstance(closest, dict):
            continue
        sim = closest.get("similarity")
        threshold = diag.data.get("fuzzyThreshold")
        if not ls.settings.restricted and isinstance(threshold, int | float):
            title = (
                f"Apply block {index} at line {closest.get('line')} "
                f"({sim:.0%} similar, confirm first)"
            )
            out.append(
                types.CodeAction(
                    title=title,
                    kind=types.CodeActionKind.QuickFix,
                    diagnostics=[diag],
                    command=types.Command(
                        title=title,
                        command=CMD_APPLY_BLOCK,
                        arguments=[
                            {"uri": uri, "version": doc.version, "block": index},
                            {"fuzzyThreshold": threshold, "preview": True},
                        ],
                    ),
                )
            )
        outcome = None
        if analysis is not None:
            outcome = next((o for o in analysis.plan.outcomes if o.block.index == index), None)
        if outcome is None or outcome.failure is None:
            continue
        if corrected_block(outcome.block, outcome.failure) is None:
            continue
        data = {"fix": "correct", "uri": uri, "version": doc.version, "block": index}
        action = types.CodeAction(
            title=f"Rewrite block {index} to anchor on the closest match",
            kind=types.CodeActionKind.QuickFix,
            diagnostics=[diag],
            data=data,
        )
        resolvable = ls.client_supports("text_document.code_action.resolve_support")
        if resolvable is None or "edit" not in (resolvable.properties or []):
            action.edit = _correction_edit_now(ls, data)
            if action.edit is None:
                continue
        out.append(action)
    return out


def _correction_edit_now(ls: LlmPatchServer, data: dict[str, Any]) -> types.WorkspaceEdit | None:
    uri = data.get("uri")
    if not isinstance(uri, str):
        return None
    analysis = ls.current_analysis(uri)
    doc = ls.open_document(uri)
    if analysis is None or doc is None or doc.version != data.get("version"):
        return None
    outcome = next((o for o in analysis.plan.outcomes if o.block.index == data.get("block")), None)
    if outcome is None or outcome.failure is None:
        return None
    text = corrected_block(outcome.block, outcome.failure)
    if text is None:
        return None
    index = LineIndex(doc.source, ls.encoding)
    lo, hi = outcome.block.reply_lines
    off = analysis.source.line_offset
    start = types.Position(line=off + lo - 1, character=0)
    end_line = off + hi
    if end_line < index.line_count:
        end = types.Position(line=end_line, character=0)
    else:
        end = index.position(len(doc.source))
        text = text.rstrip("\n")
    edit = types.TextEdit(range=types.Range(start=start, end=end), new_text=text)
    caps = ls.edit_capabilities()
    if caps.document_changes:
        return types.WorkspaceEdit(
            document_changes=[
                types.TextDocumentEdit(
                    text_document=types.OptionalVersionedTextDocumentIdentifier(
                        uri=uri, version=doc.version
                    ),
                    edits=[edit],
                )
            ]
        )
    return types.WorkspaceEdit(changes={uri: [edit]})


async def _correction_edit(ls: LlmPatchServer, data: dict[str, Any]) -> types.WorkspaceEdit | None:
    uri = data.get("uri")
    if isinstance(uri, str) and ls.current_analysis(uri) is None:
        await ls.ensure_analysis(uri)
    return _correction_edit_now(ls, data)


async def _hover_text(
    ls: LlmPatchServer, analysis: Analysis, outcome: BlockOutcome, markdown: bool
) -> str:
    """The block's own diff: the file after the blocks before it vs. after it as well."""
    block = outcome.block
    key = (analysis.source.uri, analysis.source.version, block.index, markdown)
    cached = ls._hover_cache.get(key)
    if cached is not None:
        return cached
    head = f"Block {block.index} · {block.format.value} · {block.path or '?'}"
    if block.move_to:
        head += f" → {block.move_to}"
    if outcome.failure is not None:
        body = f"{outcome.failure.code}: {outcome.failure.message}"
        closest = outcome.failure.details.get("closest")
        diff = closest.get("diff") if isinstance(closest, dict) else None
        text = (
            f"**{head}** — ✗\n\n{body}" + (f"\n\n```diff\n{diff}\n```" if diff else "")
            if markdown
            else f"{head} — ✗\n\n{body}"
        )
    else:
        paths = _block_paths(block)
        earlier = [
            b for b in analysis.parsed.blocks if b.index < block.index and _block_paths(b) & paths
        ]
        before = (
            await ls.analyse(analysis.source, parsed=ParsedReply(tuple(earlier)), related=False)
            if earlier
            else None
        )
        after = await ls.analyse(
            analysis.source, parsed=ParsedReply((*earlier, block)), related=False
        )
        diffs = []
        for change in after.plan.files:
            if not ({change.path, change.new_path} & paths):
                continue
            if before is not None:
                prior = next((c for c in before.plan.files if c.path == change.path), None)
                if prior is not None:
                    change = dataclasses.replace(change, old_text=prior.new_text)
            diffs.append(file_diff(change))
        how = lens_title(outcome)
        diff = "".join(diffs) or "(no change: already applied)"
        text = (
            f"**{head}** — {how}\n\n```diff\n{diff}```" if markdown else f"{head} — {how}\n\n{diff}"
        )
    ls._hover_cache[key] = text
    while len(ls._hover_cache) > 64:
        ls._hover_cache.popitem(last=False)
    return text


# --- entry points -------------------------------------------------------------------------------


def serve_main(args: list[str]) -> int:
    """`llm-patch serve [--stdio | --tcp HOST:PORT]` and `python -m lsp_server`."""
    parser = argparse.ArgumentParser(prog="llm-patch serve", description="Run the language server.")
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--stdio", action="store_true", help="speak LSP on stdin/stdout (default)")
    mode.add_argument("--tcp", metavar="HOST:PORT", help="listen on a TCP port")
    parser.add_argument("--log-file", help="also write the server log to this file")
    parser.add_argument(
        "--log-level", default="warning", choices=list(_LOG_LEVELS), help="level for --log-file"
    )
    try:
        opts = parser.parse_args(args)
    except SystemExit as exc:
        return 0 if exc.code == 0 else 2
    if opts.log_file:
        handler = logging.FileHandler(opts.log_file, encoding="utf-8")
        handler.setLevel(_LOG_LEVELS[opts.log_level])
        handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
        logging.getLogger().addHandler(handler)
        logging.getLogger().setLevel(_LOG_LEVELS[opts.log_level])
    server = create_server()
    boot.finish()
    if opts.tcp:
        host, sep, port = opts.tcp.rpartition(":")
        if not sep or not port.isdigit():
            print(f"llm-patch serve: --tcp wants HOST:PORT, got {opts.tcp!r}", file=sys.stderr)
            return 2
        server.start_tcp(host or "127.0.0.1", int(port))
    else:
        server.start_io()
    boot.save()  # hooks generated after start (code actions, applyEdit) help the next one
    return 0


def serve(argv: list[str] | None = None) -> int:
    return serve_main(list(sys.argv[1:] if argv is None else argv))


__all__ = [
    "Analysis",
    "LlmPatchServer",
    "Settings",
    "build_diagnostics",
    "corrected_block",
    "create_server",
    "edit_present",
    "lens_title",
    "serve",
    "serve_main",
]
