"""End-to-end fixtures: the real server process, driven by a pytest-lsp client that plays an editor.

The client starts with the capabilities pytest-lsp captured from real editors and answers
`workspace/applyEdit` itself, the way that editor would:

* VS Code refuses an edit pinned to a version it no longer has (`applied: false`, no
  reason) and syncs the edited documents before answering;
* Neovim silently skips a stale document yet answers `applied: true`, and sends its
  `didChange` notifications after a debounce.

Edits are applied with an applier written here (positions converted by encoding the line
prefix with Python's codecs), not with `lsp_server.edits`, so the two check each other.
"""

from __future__ import annotations

import asyncio
import json
import re
import sys
from pathlib import Path
from typing import Any, Union

import attrs
import pytest
import pytest_lsp
from lsprotocol import types
from pygls.protocol import default_converter
from pygls.uris import from_fs_path, to_fs_path
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities
from pytest_lsp.client import DEFAULT_CLIENT_FEATURES, register_lsp_features

from lsp_server.model import EditBlock, Format

CLIENTS = ["visual-studio-code", "neovim@v0.10.0", "neovim@v0.11.0"]
SERVER = [sys.executable, "-m", "lsp_server"]


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "only_clients(*specs): run the test with these editors of CLIENTS only"
    )


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """A test of what only some editors do (VS Code's preview) runs with those: the other
    editors' cases are deselected, not skipped — a skip says a tool is missing."""
    kept, dropped = [], []
    for item in items:
        marker = item.get_closest_marker("only_clients")
        spec = getattr(getattr(item, "callspec", None), "params", {}).get("client")
        (dropped if marker and spec is not None and spec not in marker.args else kept).append(item)
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        items[:] = kept


def fixed_converter():
    """lsprotocol 2025.0.0 decodes any `CodeAction` that has a `command` as a `Command`
    (it only checks that the key exists); tell them apart by the key's type instead."""
    converter = default_converter()

    def structure(obj: Any, _: Any) -> types.Command | types.CodeAction:
        if isinstance(obj.get("command"), str):
            return converter.structure(obj, types.Command)
        return converter.structure(obj, types.CodeAction)

    converter.register_structure_hook(Union[types.Command, types.CodeAction], structure)  # noqa: UP007
    return converter


# --- replies and edits --------------------------------------------------------------------------


def sr(path: str, search: str, replace: str) -> str:
    """A SEARCH/REPLACE block as a model writes it."""
    return f"{path}\n```\n<<<<<<< SEARCH\n{search}=======\n{replace}>>>>>>> REPLACE\n```\n"


def whole(text: str) -> types.Range:
    lines = text.split("\n")
    return types.Range(
        start=types.Position(line=0, character=0),
        end=types.Position(line=len(lines) - 1, character=len(lines[-1])),
    )


def edit_block(index=0, path="a.py", lines=(1, 8), hunks=()) -> EditBlock:
    """A SEARCH/REPLACE block as the parser would give it, for tests without a client."""
    return EditBlock(Format.SEARCH_REPLACE, path, lines, hunks=hunks, index=index)


def only_text_edits(params: types.ApplyWorkspaceEditParams) -> list[types.TextDocumentEdit]:
    return [
        op for op in params.edit.document_changes or [] if isinstance(op, types.TextDocumentEdit)
    ]


# --- an independent applier ----------------------------------------------------------------------


def _lines(text: str) -> list[str]:
    parts = re.split(r"(\r\n|\r|\n)", text)
    return [parts[i] + parts[i + 1] for i in range(0, len(parts) - 1, 2)] + [parts[-1]]


def offset_of(text: str, pos: types.Position, encoding: str) -> int:
    lines = _lines(text)
    assert pos.line < len(lines), f"position {pos} past the end of the document"
    before = sum(len(x) for x in lines[: pos.line])
    body = re.sub(r"(\r\n|\r|\n)$", "", lines[pos.line])
    if encoding == "utf-8":
        raw = body.encode("utf-8")
        assert pos.character <= len(raw)
        return before + len(raw[: pos.character].decode("utf-8"))
    if encoding == "utf-32":
        return before + pos.character
    raw = body.encode("utf-16-le", "surrogatepass")
    assert pos.character * 2 <= len(raw)
    return before + len(raw[: pos.character * 2].decode("utf-16-le", "surrogatepass"))


def position_of(text: str, offset: int, encoding: str) -> types.Position:
    lines = _lines(text)
    seen = 0
    for n, line in enumerate(lines):
        body = re.sub(r"(\r\n|\r|\n)$", "", line)
        if offset <= seen + len(body) or n == len(lines) - 1:
            prefix = body[: offset - seen]
            if encoding == "utf-8":
                col = len(prefix.encode("utf-8"))
            elif encoding == "utf-32":
                col = len(prefix)
            else:
                col = len(prefix.encode("utf-16-le", "surrogatepass")) // 2
            return types.Position(line=n, character=col)
        seen += len(line)
    raise AssertionError("offset past the end")


def apply_edits(text: str, edits: list, encoding: str) -> str:
    spans = sorted(
        (
            (
                offset_of(text, e.range.start, encoding),
                offset_of(text, e.range.end, encoding),
                e.new_text,
            )
            for e in edits
        ),
        key=lambda s: s[0],
    )
    for a, b in zip(spans, spans[1:], strict=False):
        assert a[1] <= b[0], "overlapping edits"
    for start, end, new_text in reversed(spans):
        text = text[:start] + new_text + text[end:]
    return text


# --- a server in this process ------------------------------------------------------------------


class Wire:
    """The server's transport: every message it sends, decoded."""

    def __init__(self) -> None:
        self.sent: list[dict] = []

    def write(self, data: bytes) -> None:
        self.sent.append(json.loads(data))

    def close(self) -> None:
        pass

    def answer(self, msg_id: object) -> dict:
        return next(m for m in self.sent if m.get("id") == msg_id and "method" not in m)


# --- the client ----------------------------------------------------------------------------------


class EditorClient(LanguageClient):
    """A pytest-lsp client that keeps its documents and applies edits like an editor."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.spec = "visual-studio-code"
        self.root: Path = Path.cwd()
        self.docs: dict[str, list] = {}  # uri → [text, version]
        self.received: list[types.ApplyWorkspaceEditParams] = []
        self.encoding = "utf-16"
        self.refuse_next = False  # answer the next applyEdit with applied: false
        self.refuse_reason: str | None = None  # ... and this failureReason
        # apply only the operations before this index of the next edit, then answer
        # `applied: false, failedChange: index` (as a client whose failure handling is abort)
        self.fail_at: int | None = None
        # documents (URIs) whose operations the user unticks in the preview of the next edit
        self.leave_out: set[str] = set()
        self.questions: list[types.ShowMessageRequestParams] = []  # window/showMessageRequest
        self.answers: list[str | None] = []  # the buttons the user presses, in turn (None: Esc)
        self.before_apply: Any = None  # called (with the client) before an edit is applied
        self.before_progress: Any = None  # called (with the client) before a progress token
        self.sync_delay = 0.0
        self.unsynced = 0  # applied edits whose didChange is not sent yet
        self.line_breaks = "normalises"  # how newText's line breaks are stored (`load`)
        self.shares_sources = True  # False: documents an edit opens are not sent (Kate)
        self.private: set[str] = set()  # documents open here that the server never got
        self.decoded: set[str] = set()  # documents whose CRLF the buffer decoded
        self.lens_refreshes = 0

    @property
    def is_neovim(self) -> bool:
        return self.spec.startswith("neovim")

    # documents

    def uri(self, rel: str) -> str:
        return from_fs_path(str(self.root / rel))

    def write(self, rel: str, text: str) -> str:
        path = self.root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(text.encode("utf-8"))
        return self.uri(rel)

    def open(
        self,
        rel_or_uri: str,
        text: str | None = None,
        language_id: str = "plaintext",
        version: int = 1,
        share: bool = True,
    ) -> str:
        """Open a document (Neovim opens at version 0, VS Code at 1); `share=False` keeps
        it from the server (an editor that starts the server for replies only)."""
        uri = rel_or_uri if ":" in rel_or_uri.split("/")[0] else self.uri(rel_or_uri)
        if text is None:
            text = self.load(Path(to_fs_path(uri)))
        self.docs[uri] = [text, version]
        if not share:
            self.private.add(uri)
            return uri
        self.text_document_did_open(
            types.DidOpenTextDocumentParams(
                text_document=types.TextDocumentItem(
                    uri=uri, language_id=language_id, version=version, text=text
                )
            )
        )
        return uri

    # line breaks, as each editor stores them (see `edits.client_line_breaks`)

    def load(self, path: Path) -> str:
        """A file's text as this editor's buffer holds it: Emacs decodes a file whose lines
        all end in CRLF; the others keep the bytes."""
        text = path.read_bytes().decode("utf-8")
        crlf = text.count("\r\n")
        decode = self.line_breaks == "decodes-dos" and crlf and crlf == text.count("\n")
        if decode and "\r\n" in text:
            self.decoded.add(from_fs_path(str(path)))
            return text.replace("\r\n", "\n")
        return text

    def save(self, uri: str) -> None:
        """Write the buffer as the editor would (a decoded buffer gets its CRLF back)."""
        text = self.text(uri)
        if uri in self.decoded:
            text = text.replace("\n", "\r\n")
        Path(to_fs_path(uri)).write_bytes(text.encode("utf-8"))

    def _stored(self, text: str, new_text: str) -> str:
        """newText as the editor stores it in a buffer holding `text`."""
        if self.line_breaks != "normalises":
            return new_text  # inserted as sent
        eol = "\r\n" if "\r\n" in text else "\n"
        return re.sub(r"\r\n|\r|\n", eol, new_text)

    def replace_all(self, uri: str, text: str) -> None:
        """The user replaces the document's text (sent as one incremental change)."""
        old, version = self.docs[uri]
        end = position_of(old, len(old), self.encoding)
        self._send_changes(
            uri, [(types.Range(start=types.Position(line=0, character=0), end=end), text)]
        )
        self.docs[uri] = [text, version + 1]

    def text(self, uri: str) -> str:
        return self.docs[uri][0]

    def _send_changes(
        self, uri: str, changes: list[tuple[types.Range, str]], version: int | None = None
    ):
        version = version if version is not None else self.docs[uri][1] + 1
        if uri in self.private:
            return
        self.text_document_did_change(
            types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
                content_changes=[
                    types.TextDocumentContentChangePartial(range=rng, text=new)
                    for rng, new in changes
                ],
            )
        )

    # commands

    async def command(self, name: str, *args: Any) -> Any:
        return await self.workspace_execute_command_async(
            types.ExecuteCommandParams(command=name, arguments=list(args))
        )

    async def actions(self, uri: str, rng: types.Range, *, only_ours: bool = True, diagnostics=()):
        result = await self.text_document_code_action_async(
            types.CodeActionParams(
                text_document=types.TextDocumentIdentifier(uri=uri),
                range=rng,
                context=types.CodeActionContext(
                    diagnostics=list(diagnostics), trigger_kind=types.CodeActionTriggerKind.Invoked
                ),
            )
        )
        return list(result or [])

    async def run_action(self, action: types.CodeAction) -> Any:
        assert isinstance(action, types.CodeAction), action
        assert action.command is not None
        return await self.command(action.command.command, *(action.command.arguments or []))

    async def wait_for(self, predicate, timeout: float = 10.0, what: str = "condition") -> None:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while not predicate():
            if loop.time() > deadline:
                raise AssertionError(f"timed out waiting for {what}")
            await asyncio.sleep(0.02)

    async def settings(self, values: dict[str, Any]) -> None:
        """Change `llmPatch.*` settings the way an editor does: store, then notify."""
        for key, value in values.items():
            self.set_configuration(value, section=f"llmPatch.{key}")
        self.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings=None))
        await asyncio.sleep(0.3)

    # applying edits like the editor would

    def apply_workspace_edit(
        self, params: types.ApplyWorkspaceEditParams
    ) -> types.ApplyWorkspaceEditResult:
        self.received.append(params)
        if self.before_apply is not None:
            hook, self.before_apply = self.before_apply, None
            hook(self)
        if self.refuse_next:
            self.refuse_next = False
            reason, self.refuse_reason = self.refuse_reason, None
            return types.ApplyWorkspaceEditResult(applied=False, failure_reason=reason)
        edit = params.edit
        operations = list(edit.document_changes or [])
        if edit.changes:
            operations.extend(
                types.TextDocumentEdit(
                    text_document=types.OptionalVersionedTextDocumentIdentifier(
                        uri=uri, version=None
                    ),
                    edits=list(edits),
                )
                for uri, edits in edit.changes.items()
            )
        left_out, self.leave_out = self.leave_out, set()
        if left_out:  # VS Code's refactor preview, some edits unticked: the rest applies
            operations = [op for op in operations if _operation_uri(op) not in left_out]
        failed_change, self.fail_at = self.fail_at, None
        if failed_change is not None:
            operations = operations[:failed_change]
        if not self.is_neovim:
            # VS Code: the whole edit is refused when a pinned version is stale
            for op in operations:
                if isinstance(op, types.TextDocumentEdit):
                    doc = self.docs.get(op.text_document.uri)
                    version = op.text_document.version
                    if doc is not None and version is not None and version != doc[1]:
                        return types.ApplyWorkspaceEditResult(applied=False)
        pending: list[tuple[str, list, int]] = []
        for op in operations:
            if isinstance(op, types.TextDocumentEdit):
                uri = op.text_document.uri
                version = op.text_document.version
                if uri not in self.docs:
                    path = Path(to_fs_path(uri))
                    text = self.load(path) if path.exists() else ""
                    self.open(uri, text, share=self.shares_sources)
                doc = self.docs[uri]
                if version and version != doc[1]:
                    # Neovim: "Buffer ... newer than edits", skipped, still applied; it does
                    # not check version 0 (its didOpen version) at all
                    continue
                old = doc[0]
                stored = [
                    types.TextEdit(range=e.range, new_text=self._stored(old, e.new_text))
                    for e in op.edits
                ]
                doc[0] = apply_edits(old, stored, self.encoding)
                doc[1] += 1
                pending.append((uri, self._changes_for(old, stored), doc[1]))
            elif isinstance(op, types.CreateFile):
                path = Path(to_fs_path(op.uri))
                if path.exists() and op.options and op.options.ignore_if_exists:
                    continue
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_bytes(b"")
            elif isinstance(op, types.RenameFile):
                src, dst = Path(to_fs_path(op.old_uri)), Path(to_fs_path(op.new_uri))
                dst.parent.mkdir(parents=True, exist_ok=True)
                if op.old_uri in self.docs:
                    # the edited (unsaved) text goes with the buffer, as in an editor
                    text, _ = self.docs.pop(op.old_uri)
                    src.write_bytes(text.encode("utf-8"))
                    self.text_document_did_close(
                        types.DidCloseTextDocumentParams(
                            text_document=types.TextDocumentIdentifier(uri=op.old_uri)
                        )
                    )
                    src.replace(dst)
                    self.open(op.new_uri, text)
                else:
                    src.replace(dst)
            elif isinstance(op, types.DeleteFile):
                path = Path(to_fs_path(op.uri))
                if op.uri in self.docs:
                    del self.docs[op.uri]
                    self.text_document_did_close(
                        types.DidCloseTextDocumentParams(
                            text_document=types.TextDocumentIdentifier(uri=op.uri)
                        )
                    )
                if path.exists():
                    path.unlink()
        self._sync(pending)
        if failed_change is not None:
            return types.ApplyWorkspaceEditResult(applied=False, failed_change=failed_change)
        return types.ApplyWorkspaceEditResult(applied=True)

    def _changes_for(self, old: str, edits: list) -> list[tuple[types.Range, str]]:
        """The edits as incremental changes, last first, so each range is valid when sent."""
        ordered = sorted(
            edits, key=lambda e: (e.range.start.line, e.range.start.character), reverse=True
        )
        return [(e.range, e.new_text) for e in ordered]

    def _sync(self, pending: list[tuple[str, list, int]]) -> None:
        def send() -> None:
            self.unsynced -= 1
            for uri, changes, version in pending:
                self._send_changes(uri, changes, version)

        self.unsynced += 1
        if self.sync_delay:
            asyncio.get_running_loop().call_later(self.sync_delay, send)
        else:
            send()

    async def synced(self) -> None:
        """Wait until every applied edit has been sent to the server (Neovim debounces)."""
        await self.wait_for(lambda: not self.unsynced, what="the editor's didChange")


def _operation_uri(op: Any) -> str:
    if isinstance(op, types.TextDocumentEdit):
        return op.text_document.uri
    return op.old_uri if isinstance(op, types.RenameFile) else op.uri


def make_client() -> EditorClient:
    client = EditorClient(converter_factory=fixed_converter)
    register_lsp_features(
        client,
        {**DEFAULT_CLIENT_FEATURES, types.WINDOW_WORK_DONE_PROGRESS_CREATE: _progress_create},
    )
    client.feature(types.WORKSPACE_APPLY_EDIT)(_apply_edit)
    client.feature(types.WORKSPACE_CODE_LENS_REFRESH)(_lens_refresh)
    client.feature(types.WINDOW_SHOW_MESSAGE_REQUEST)(_show_message_request)
    return client


def _show_message_request(
    ls: EditorClient, params: types.ShowMessageRequestParams
) -> types.MessageActionItem | None:
    """The user reads the question and presses the next button of `answers` (or Esc)."""
    ls.questions.append(params)
    title = ls.answers.pop(0) if ls.answers else None
    if title is None:
        return None
    assert title in [a.title for a in params.actions or []], (title, params.actions)
    return types.MessageActionItem(title=title)


def _lens_refresh(ls: EditorClient, params: None) -> None:
    ls.lens_refreshes += 1


def _apply_edit(ls: EditorClient, params: types.ApplyWorkspaceEditParams):
    return ls.apply_workspace_edit(params)


def _progress_create(ls: EditorClient, params: types.WorkDoneProgressCreateParams) -> None:
    """pytest-lsp's handler, after a one-shot hook. The server waits for this answer before
    it starts the work the token reports on, so whatever the hook sends (a `$/cancelRequest`)
    reaches the server before that work begins."""
    if ls.before_progress is not None:
        hook, ls.before_progress = ls.before_progress, None
        hook(ls)
    DEFAULT_CLIENT_FEATURES[types.WINDOW_WORK_DONE_PROGRESS_CREATE](ls, params)


async def start_session(
    client: EditorClient,
    spec: str,
    root: Path,
    init_options=None,
    name: str | None = None,
    line_breaks: str = "normalises",
    experimental: Any = None,
) -> None:
    """Start a session with the capabilities of `spec` (and `experimental` ones), as the
    client called `name` (its `clientInfo`), storing newText's line breaks as `line_breaks`
    says."""
    client.spec = spec
    client.line_breaks = line_breaks
    client.root = root
    client.sync_delay = 0.15 if client.is_neovim else 0.0
    caps = (
        client_capabilities(spec)
        if spec != "bare"
        else types.ClientCapabilities(
            workspace=types.WorkspaceClientCapabilities(apply_edit=True, configuration=True)
        )
    )
    if experimental is not None:
        caps = attrs.evolve(caps, experimental=experimental)
    result = await client.initialize_session(
        types.InitializeParams(
            capabilities=caps,
            root_uri=from_fs_path(str(root)),
            workspace_folders=[types.WorkspaceFolder(uri=from_fs_path(str(root)), name="ws")],
            initialization_options=init_options,
            client_info=types.ClientInfo(name=name) if name else None,
        )
    )
    enc = result.capabilities.position_encoding
    client.encoding = str(getattr(enc, "value", enc) or "utf-16")


CONFIG = ClientServerConfig(server_command=SERVER, client_factory=make_client)


@pytest_lsp.fixture(config=CONFIG, params=CLIENTS)
async def client(request, lsp_client: EditorClient, tmp_path: Path):
    root = tmp_path / "ws"
    root.mkdir()
    await start_session(lsp_client, request.param, root.resolve())
    yield
    await lsp_client.shutdown_session()


@pytest.fixture
def ws(client: EditorClient) -> Path:
    return client.root


@pytest_lsp.fixture(config=CONFIG)
async def bare_client(lsp_client: EditorClient, tmp_path: Path):
    """A client that advertises nothing but `applyEdit` (no documentChanges, cannot ask)."""
    root = tmp_path / "ws"
    root.mkdir()
    await start_session(lsp_client, "bare", root.resolve())
    yield
    await lsp_client.shutdown_session()
