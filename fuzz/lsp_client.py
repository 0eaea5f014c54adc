"""A raw JSON-RPC client for the language server: frames exactly what it is given.

pytest-lsp's client refuses to send ill-typed params, which is what a fuzzer wants to send,
so the hostile tests and the server fuzz target drive `python -m lsp_server` through this
one instead. It plays a small editor: it keeps the documents it opened, answers the
server's requests (`workspace/applyEdit` by applying the edit the way VS Code does —
refused as a whole when a pinned version is stale, `didChange` sent before the answer —,
`workspace/configuration`, progress, refreshes, `window/showDocument`), and records every
response by id.
"""

from __future__ import annotations

import json
import os
import queue
import re
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

_LINE_BREAK = re.compile(r"\r\n|\r|\n")


class ServerDied(AssertionError):
    pass


def _lines(text: str) -> list[str]:
    """Lines with their breaks, split where the LSP splits them."""
    out, start = [], 0
    for m in _LINE_BREAK.finditer(text):
        out.append(text[start : m.end()])
        start = m.end()
    out.append(text[start:])
    return out


def offset_of(text: str, line: int, character: int) -> int:
    """A UTF-16 LSP position → an index into `text` (clamped like editors do)."""
    lines = _lines(text)
    if line >= len(lines):
        return len(text)
    before = sum(len(x) for x in lines[:line])
    body = _LINE_BREAK.sub("", lines[line])
    units = body.encode("utf-16-le", "surrogatepass")
    prefix = units[: 2 * max(0, character)].decode("utf-16-le", "surrogatepass")
    return before + len(prefix)


def apply_text_edits(text: str, edits: list[dict[str, Any]]) -> str:
    spans = []
    for edit in edits:
        rng = edit["range"]
        start = offset_of(text, rng["start"]["line"], rng["start"]["character"])
        end = offset_of(text, rng["end"]["line"], rng["end"]["character"])
        spans.append((start, end, edit["newText"]))
    spans.sort(key=lambda s: (s[0], s[1]))
    for a, b in zip(spans, spans[1:], strict=False):
        if a[1] > b[0]:
            raise ValueError(f"overlapping edits {a[:2]} and {b[:2]}")
    for start, end, new in reversed(spans):
        text = text[:start] + new + text[end:]
    return text


CAPABILITIES: dict[str, Any] = {
    "general": {"positionEncodings": ["utf-16"]},
    "workspace": {
        "applyEdit": True,
        "configuration": True,
        "workspaceEdit": {
            "documentChanges": True,
            "resourceOperations": ["create", "rename", "delete"],
            "failureHandling": "abort",
            "changeAnnotationSupport": {"groupsOnLabel": True},
        },
        "executeCommand": {"dynamicRegistration": False},
        "codeLens": {"refreshSupport": True},
        "diagnostics": {"refreshSupport": True},
    },
    "textDocument": {
        "synchronization": {"didSave": True},
        "codeAction": {
            "codeActionLiteralSupport": {
                "codeActionKind": {"valueSet": ["", "quickfix", "refactor", "source"]}
            },
            "resolveSupport": {"properties": ["edit"]},
            "dataSupport": True,
        },
        "publishDiagnostics": {"relatedInformation": True, "versionSupport": True},
        "hover": {"contentFormat": ["markdown", "plaintext"]},
    },
    "window": {"workDoneProgress": True, "showDocument": {"support": True}},
}


class LspClient:
    """One server process and the editor side of the conversation."""

    def __init__(self, root: Path, command: list[str] | None = None):
        self.root = root
        self.argv = command or [sys.executable, "-m", "lsp_server"]
        self.docs: dict[str, list[Any]] = {}  # uri -> [text, version]
        self.responses: dict[Any, dict[str, Any]] = {}
        self.notifications: list[dict[str, Any]] = []
        self.server_requests: list[dict[str, Any]] = []
        self.apply_edits: list[dict[str, Any]] = []
        self._cond = threading.Condition()
        self._docs_lock = threading.RLock()  # the reader thread applies edits to them too
        self._write_lock = threading.Lock()
        self._next_id = 0
        self._outbox: queue.Queue[bytes | None] = queue.Queue()
        env = dict(os.environ, PYTHONUNBUFFERED="1")
        self.proc = subprocess.Popen(
            self.argv,
            cwd=str(root),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=env,
        )
        self._reader = threading.Thread(target=self._read_loop, daemon=True, name="lsp-reader")
        self._reader.start()
        self._writer = threading.Thread(target=self._write_loop, daemon=True, name="lsp-writer")
        self._writer.start()

    # --- wire ---------------------------------------------------------------------------

    def uri(self, rel: str) -> str:
        return (self.root / rel).resolve().as_uri()

    def alive(self) -> bool:
        return self.proc.poll() is None

    def send(self, payload: dict[str, Any] | bytes) -> None:
        body = payload if isinstance(payload, bytes) else json.dumps(payload).encode("utf-8")
        self._outbox.put(b"Content-Length: %d\r\n\r\n" % len(body) + body)

    def _write_loop(self) -> None:
        """Writes happen on their own thread: a big burst must never block the reader (the
        server may be waiting for us to read before it reads again)."""
        assert self.proc.stdin is not None
        while True:
            frame = self._outbox.get()
            if frame is None:
                return
            try:
                self.proc.stdin.write(frame)
                self.proc.stdin.flush()
            except (BrokenPipeError, OSError, ValueError):
                return

    def _read_loop(self) -> None:
        stream = self.proc.stdout
        assert stream is not None
        while True:
            length = None
            while True:
                line = stream.readline()
                if not line:
                    with self._cond:
                        self._cond.notify_all()
                    return
                if line in (b"\r\n", b"\n"):
                    break
                name, _, value = line.decode("ascii", "replace").partition(":")
                if name.strip().lower() == "content-length":
                    length = int(value.strip())
            if length is None:
                continue
            body = stream.read(length)
            try:
                message = json.loads(body)
            except ValueError:
                continue
            self._dispatch(message)

    def _dispatch(self, message: dict[str, Any]) -> None:
        if "method" in message and "id" in message:
            self.server_requests.append(message)
            try:
                result = self._answer(message["method"], message.get("params"))
                reply: dict[str, Any] = {"jsonrpc": "2.0", "id": message["id"], "result": result}
            except Exception as err:  # an answer we cannot give is an error, not silence
                reply = {
                    "jsonrpc": "2.0",
                    "id": message["id"],
                    "error": {"code": -32603, "message": str(err)},
                }
            self.send(reply)
            return
        with self._cond:
            if "method" in message:
                self.notifications.append(message)
            else:
                self.responses[message.get("id")] = message
            self._cond.notify_all()

    # --- the editor's answers ------------------------------------------------------------

    def _answer(self, method: str, params: Any) -> Any:
        if method == "workspace/applyEdit":
            return self._apply_edit(params["edit"])
        if method == "workspace/configuration":
            return [None for _ in (params or {}).get("items", [])]
        if method == "window/showDocument":
            return {"success": True}
        if method == "window/showMessageRequest":
            return None
        if method in (
            "window/workDoneProgress/create",
            "client/registerCapability",
            "client/unregisterCapability",
            "workspace/codeLens/refresh",
            "workspace/diagnostic/refresh",
            "workspace/semanticTokens/refresh",
            "workspace/inlayHint/refresh",
        ):
            return None
        raise ValueError(f"the test client does not handle {method}")

    def _apply_edit(self, edit: dict[str, Any]) -> dict[str, Any]:
        """As VS Code does: refuse the whole edit when a pinned version is stale; else apply
        it and send `didChange` for every edited document before answering."""
        with self._docs_lock:
            return self._apply_locked(edit)

    def _apply_locked(self, edit: dict[str, Any]) -> dict[str, Any]:
        self.apply_edits.append(edit)
        ops = list(edit.get("documentChanges") or [])
        for uri, edits in (edit.get("changes") or {}).items():
            ops.append({"textDocument": {"uri": uri, "version": None}, "edits": edits})
        for op in ops:
            if "textDocument" in op:
                doc = self.docs.get(op["textDocument"]["uri"])
                version = op["textDocument"].get("version")
                if doc is not None and version is not None and version != doc[1]:
                    return {"applied": False}
        for op in ops:
            if "textDocument" not in op:
                continue  # resource operations: the tests that fuzz do not check the disk
            uri = op["textDocument"]["uri"]
            if uri not in self.docs:
                continue
            doc = self.docs[uri]
            doc[0] = apply_text_edits(doc[0], op["edits"])
            doc[1] += 1
            self.notify(
                "textDocument/didChange",
                {
                    "textDocument": {"uri": uri, "version": doc[1]},
                    "contentChanges": [{"text": doc[0]}],
                },
            )
        return {"applied": True}

    # --- requests --------------------------------------------------------------------------

    def new_id(self) -> int:
        with self._cond:
            self._next_id += 1
            return self._next_id

    def request_async(self, method: str, params: Any = None, msg_id: Any = None) -> Any:
        msg_id = self.new_id() if msg_id is None else msg_id
        payload: dict[str, Any] = {"jsonrpc": "2.0", "id": msg_id, "method": method}
        if params is not None:
            payload["params"] = params
        self.send(payload)
        return msg_id

    def wait(self, msg_id: Any, timeout: float = 30.0) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        with self._cond:
            while msg_id not in self.responses:
                if not self.alive():
                    raise ServerDied(f"the server exited ({self.proc.returncode}) before {msg_id}")
                left = deadline - time.monotonic()
                if left <= 0:
                    raise AssertionError(f"no answer to request {msg_id!r} within {timeout}s")
                self._cond.wait(min(left, 0.5))
            return self.responses.pop(msg_id)

    def request(self, method: str, params: Any = None, timeout: float = 30.0) -> dict[str, Any]:
        return self.wait(self.request_async(method, params), timeout)

    def notify(self, method: str, params: Any = None) -> None:
        payload: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            payload["params"] = params
        self.send(payload)

    # --- sessions --------------------------------------------------------------------------

    def initialize(self, options: dict[str, Any] | None = None) -> dict[str, Any]:
        root_uri = self.root.resolve().as_uri()
        answer = self.request(
            "initialize",
            {
                "processId": os.getpid(),
                "rootUri": root_uri,
                "workspaceFolders": [{"uri": root_uri, "name": "ws"}],
                "capabilities": CAPABILITIES,
                "initializationOptions": options,
            },
        )
        self.notify("initialized", {})
        return answer

    def open(self, rel: str, text: str, language: str = "plaintext") -> str:
        uri = self.uri(rel)
        with self._docs_lock:
            self.docs[uri] = [text, 1]
            self.notify(
                "textDocument/didOpen",
                {"textDocument": {"uri": uri, "languageId": language, "version": 1, "text": text}},
            )
        return uri

    def change(self, uri: str, text: str) -> None:
        with self._docs_lock:
            doc = self.docs[uri]
            doc[0] = text
            doc[1] += 1
            self.notify(
                "textDocument/didChange",
                {
                    "textDocument": {"uri": uri, "version": doc[1]},
                    "contentChanges": [{"text": text}],
                },
            )

    def command(self, name: str, *args: Any, timeout: float = 60.0) -> dict[str, Any]:
        return self.request(
            "workspace/executeCommand", {"command": name, "arguments": list(args)}, timeout
        )

    def close(self) -> None:
        """Shut down politely, then make sure the process is gone."""
        try:
            if self.alive():
                self.wait(self.request_async("shutdown"), timeout=10)
                self.notify("exit")
                self.proc.wait(timeout=10)
        except (AssertionError, subprocess.TimeoutExpired):
            pass
        finally:
            self._outbox.put(None)
            if self.alive():
                self.proc.kill()
                self.proc.wait()
            for stream in (self.proc.stdin, self.proc.stdout):
                try:
                    if stream is not None:
                        stream.close()
                except OSError:
                    pass
