"""The language server, driven over stdio by a small JSON-RPC client that plays an editor.

* **start** — spawn `python -m lsp_server`, send `initialize`, stop the clock at its response
  (a new process each time). The servers run as an installed package does: they may write
  and read bytecode even when `PYTHONDONTWRITEBYTECODE` is set, and they keep their
  start-up code cache (`lsp_server.boot.codecache`) in a folder of this run. The very first
  start, with that cache still empty (the first start after an install or upgrade), is
  reported on its own as `first_start_ms`; the median is over the starts after it.
  (`bench_startup.py` sets starts with the cache on and off side by side.)
* **round trip** — the 10 target files (5,000 lines each) and a reply document are open; the
  client asks for code actions on the whole reply, runs the `Apply LLM patch` action's
  command, and stops the clock when `workspace/applyEdit` arrives. The client then applies
  the edit, sends `didChange` (as an editor does before answering), waits for the command to
  finish, and puts the documents back for the next round. The first round is cold; the
  others are what a user sees when applying again after an undo.
* **command** — `workspace/executeCommand llmPatch.apply [{"text": reply}]` until
  `workspace/applyEdit` arrives.
* **memory** — peak RSS (`VmHWM`) of the server after opening N generated 10,000-line
  documents, and again after checking a reply against ten of them.
* **typing** — a 12 MB document is open (not a reply); each keystroke is an incremental
  `didChange` inserting one character somewhere in it. *Keystroke* is how long the server's
  event loop is busy with one: from sending the `didChange` until the answer to a
  `llmPatch.stats` request sent right behind it, less that request's own round trip
  measured alone. *CPU* is the server's CPU time over a burst of keystrokes, per
  keystroke. The first keystroke (which counts the document's lines once) is reported
  apart.
"""

from __future__ import annotations

import asyncio
import atexit
import json
import os
import random
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from benchmarks.timing import summary
from benchmarks.workloads import EXTENSIONS, LANGUAGES, Reply, generate, make_reply

Log = Callable[[str], None]
SERVER = [sys.executable, "-m", "lsp_server"]
LANGUAGE_IDS = {"py": "python", "ts": "typescript", "go": "go", "md": "markdown"}

CAPABILITIES: dict[str, Any] = {
    "general": {"positionEncodings": ["utf-16"]},
    "workspace": {
        "applyEdit": True,
        "workspaceEdit": {
            "documentChanges": True,
            "resourceOperations": ["create", "rename", "delete"],
        },
        "configuration": True,
        "executeCommand": {},
    },
    "textDocument": {
        "synchronization": {"didSave": True},
        "codeAction": {
            "codeActionLiteralSupport": {
                "codeActionKind": {"valueSet": ["quickfix", "refactor", "source"]}
            }
        },
        "publishDiagnostics": {"relatedInformation": True},
    },
    "window": {"workDoneProgress": False},
}


_CODE_CACHE = tempfile.mkdtemp(prefix="llm-patch-bench-codecache-")
atexit.register(shutil.rmtree, _CODE_CACHE, True)


def _server_env() -> dict[str, str]:
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["LLM_PATCH_CODE_CACHE"] = _CODE_CACHE
    return env


class Client:
    """Just enough of an editor: requests, notifications, and answers to the server's asks."""

    def __init__(self) -> None:
        self.proc: asyncio.subprocess.Process | None = None
        self._next = 0
        self._pending: dict[int, asyncio.Future] = {}
        self._reader: asyncio.Task | None = None
        self.on_apply_edit: Callable[[dict[str, Any]], None] | None = None
        self.spawned_at = 0.0

    async def start(
        self, cwd: Path, command: list[str] | None = None, env: dict[str, str] | None = None
    ) -> None:
        """Spawn the server (`command`, default `python -m lsp_server`; `env`, default this
        run's: see the module docstring)."""
        self.spawned_at = time.perf_counter()
        self.proc = await asyncio.create_subprocess_exec(
            *(command or SERVER),
            cwd=str(cwd),
            env=env if env is not None else _server_env(),
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.DEVNULL,
            limit=1 << 26,
        )
        self._reader = asyncio.create_task(self._read())

    async def _read(self) -> None:
        assert self.proc is not None and self.proc.stdout is not None
        stream = self.proc.stdout
        while True:
            try:
                header = await stream.readuntil(b"\r\n\r\n")
            except (asyncio.IncompleteReadError, ConnectionError):
                return
            length = 0
            for line in header.decode("ascii").split("\r\n"):
                if line.lower().startswith("content-length:"):
                    length = int(line.split(":", 1)[1])
            message = json.loads(await stream.readexactly(length))
            if "method" in message and "id" in message:
                self._send({"jsonrpc": "2.0", "id": message["id"], "result": self._answer(message)})
            elif "id" in message and message["id"] in self._pending:
                future = self._pending.pop(message["id"])
                if "error" in message:
                    future.set_exception(RuntimeError(json.dumps(message["error"])[:2000]))
                else:
                    future.set_result(message.get("result"))

    def _answer(self, message: dict[str, Any]) -> Any:
        method = message["method"]
        if method == "workspace/applyEdit":
            if self.on_apply_edit is not None:
                self.on_apply_edit(message["params"])
            return {"applied": True}
        if method == "workspace/configuration":
            return [None for _ in message["params"].get("items", [])]
        return None

    def _send(self, payload: dict[str, Any]) -> None:
        assert self.proc is not None and self.proc.stdin is not None
        body = json.dumps(payload).encode("utf-8")
        self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)

    async def request(self, method: str, params: Any) -> Any:
        self._next += 1
        future = asyncio.get_running_loop().create_future()
        self._pending[self._next] = future
        self._send({"jsonrpc": "2.0", "id": self._next, "method": method, "params": params})
        return await future

    def notify(self, method: str, params: Any) -> None:
        self._send({"jsonrpc": "2.0", "method": method, "params": params})

    async def initialize(self, root: Path) -> Any:
        uri = root.as_uri()
        result = await self.request(
            "initialize",
            {
                "processId": os.getpid(),
                "rootUri": uri,
                "workspaceFolders": [{"uri": uri, "name": root.name}],
                "capabilities": CAPABILITIES,
            },
        )
        self.notify("initialized", {})
        return result

    def open(self, uri: str, text: str, version: int = 1) -> None:
        ext = uri.rsplit(".", 1)[-1]
        self.notify(
            "textDocument/didOpen",
            {
                "textDocument": {
                    "uri": uri,
                    "languageId": LANGUAGE_IDS.get(ext, "plaintext"),
                    "version": version,
                    "text": text,
                }
            },
        )

    def change(self, uri: str, text: str, version: int) -> None:
        self.notify(
            "textDocument/didChange",
            {
                "textDocument": {"uri": uri, "version": version},
                "contentChanges": [{"text": text}],
            },
        )

    def cpu_ms(self) -> float:
        """User + system CPU time the server process has used (from /proc, 10 ms ticks)."""
        assert self.proc is not None
        fields = Path(f"/proc/{self.proc.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) * 1000.0 / os.sysconf("SC_CLK_TCK")

    def rss_kb(self) -> dict[str, int]:
        assert self.proc is not None
        out = {}
        status = Path(f"/proc/{self.proc.pid}/status").read_text()
        for line in status.splitlines():
            key, _, value = line.partition(":")
            if key in ("VmRSS", "VmHWM"):
                out[key] = int(value.split()[0])
        return out

    async def stop(self) -> None:
        if self.proc is None:
            return
        try:
            await asyncio.wait_for(self.request("shutdown", None), 5)
            self.notify("exit", None)
            await asyncio.wait_for(self.proc.wait(), 5)
        except (TimeoutError, RuntimeError, ConnectionError):
            self.proc.kill()
            await self.proc.wait()
        if self._reader is not None:
            self._reader.cancel()


def apply_text_edits(text: str, edits: list[dict[str, Any]]) -> str:
    """LSP TextEdits on a "\\n"-only ASCII text (what the generated workloads are)."""
    starts = [0]
    for line in text.split("\n")[:-1]:
        starts.append(starts[-1] + len(line) + 1)

    def offset(pos: dict[str, int]) -> int:
        if pos["line"] >= len(starts):
            return len(text)
        return starts[pos["line"]] + pos["character"]

    spans = sorted(
        ((offset(e["range"]["start"]), offset(e["range"]["end"]), e["newText"]) for e in edits),
        reverse=True,
    )
    for start, end, new in spans:
        text = text[:start] + new + text[end:]
    return text


def _edits_by_uri(edit: dict[str, Any]) -> dict[str, list[dict[str, Any]]]:
    out: dict[str, list[dict[str, Any]]] = {}
    for change in edit.get("documentChanges") or []:
        if "textDocument" in change:
            out.setdefault(change["textDocument"]["uri"], []).extend(change["edits"])
    for uri, edits in (edit.get("changes") or {}).items():
        out.setdefault(uri, []).extend(edits)
    return out


def _write(root: Path, reply: Reply) -> dict[str, str]:
    uris = {}
    for path, text in reply.files.items():
        target = root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8", newline="")
        uris[path] = target.as_uri()
    return uris


async def _server(root: Path, client: Client | None) -> Client:
    if client is None:
        client = Client()
        await client.start(root)
        await client.initialize(root)
    return client


async def _round_trips(
    root: Path, reply: Reply, rounds: int, settle: float, client: Client | None = None
) -> dict[str, Any]:
    uris = _write(root, reply)
    texts = {uris[p]: t for p, t in reply.files.items()}
    versions = dict.fromkeys(texts, 1)
    expected = {uris[p]: t for p, t in reply.expected.items()}
    shared = client is not None
    client = await _server(root, client)
    for uri, text in texts.items():
        client.open(uri, text)
    reply_uri = (root / "reply.llm.md").as_uri()
    client.open(reply_uri, reply.text)
    await asyncio.sleep(settle * 2)  # let the server analyse the reply once, as it would

    arrived: dict[str, Any] = {}

    def on_edit(params: dict[str, Any]) -> None:
        arrived["t"] = time.perf_counter()
        arrived["edit"] = params["edit"]
        # an editor applies the edit and syncs the documents before it answers
        for uri, edits in _edits_by_uri(params["edit"]).items():
            new = apply_text_edits(texts[uri], edits)
            arrived.setdefault("texts", {})[uri] = new
            versions[uri] += 1
            client.change(uri, new, versions[uri])

    client.on_apply_edit = on_edit
    lines = reply.text.count("\n")
    action_ms, trip_ms, command_ms, correct = [], [], [], True
    for _ in range(rounds):
        arrived.clear()
        t0 = time.perf_counter()
        actions = await client.request(
            "textDocument/codeAction",
            {
                "textDocument": {"uri": reply_uri},
                "range": {"start": {"line": 0, "character": 0},
                          "end": {"line": lines, "character": 0}},
                "context": {"diagnostics": [], "triggerKind": 1},
            },
        )
        t1 = time.perf_counter()
        apply = next(a for a in actions or [] if a["title"].startswith("Apply LLM patch"))
        command = apply.get("command") or {}
        done = asyncio.ensure_future(
            client.request(
                "workspace/executeCommand",
                {"command": command["command"], "arguments": command.get("arguments", [])},
            )
        )
        report = await done
        if "t" not in arrived:
            raise RuntimeError(f"no workspace/applyEdit; report: {json.dumps(report)[:2000]}")
        action_ms.append((t1 - t0) * 1000.0)
        trip_ms.append((arrived["t"] - t0) * 1000.0)
        correct = correct and bool(report.get("ok")) and arrived.get("texts") == expected
        for uri, text in texts.items():  # undo, for the next round
            versions[uri] += 1
            client.change(uri, text, versions[uri])
        await asyncio.sleep(settle)

    # the command with the reply's text, no code action first
    client.on_apply_edit = on_edit
    for _ in range(rounds):
        arrived.clear()
        t0 = time.perf_counter()
        report = await client.request(
            "workspace/executeCommand",
            {"command": "llmPatch.apply", "arguments": [{"text": reply.text}]},
        )
        if "t" not in arrived:
            raise RuntimeError(f"no workspace/applyEdit; report: {json.dumps(report)[:2000]}")
        command_ms.append((arrived["t"] - t0) * 1000.0)
        for uri, text in texts.items():
            versions[uri] += 1
            client.change(uri, text, versions[uri])
        await asyncio.sleep(settle)
    client.on_apply_edit = None
    if not shared:
        await client.stop()
    return {
        "blocks": len(reply.blocks),
        "files": len(reply.files),
        "correct": correct,
        "first_round_trip_ms": round(trip_ms[0], 3),
        "round_trip": summary(trip_ms[1:] or trip_ms),
        "code_action": summary(action_ms[1:] or action_ms),
        "command": summary(command_ms[1:] or command_ms),
    }


async def _memory(
    root: Path, n_docs: int, lines: int, client: Client | None = None
) -> dict[str, Any]:
    """Open `n_docs` generated documents of `lines` lines; ten of them are the files a
    50-block reply edits, and that reply is checked at the end."""
    reply = make_reply(50, n_files=min(10, n_docs), file_lines=lines, seed=7)
    docs = {f"mem/{p}": t for p, t in reply.files.items()}
    text = reply.text.replace("\nsrc/", "\nmem/src/")
    for i in range(n_docs - len(docs)):
        lang = LANGUAGES[i % 3]
        docs[f"mem/src/open_{i}.{EXTENSIONS[lang]}"] = generate(lang, lines, seed=1000 + i).text
    shared = client is not None
    client = await _server(root, client)
    idle = client.rss_kb()
    for path, text in docs.items():
        target = root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
        client.open(target.as_uri(), text)
    await client.request("workspace/executeCommand", {"command": "llmPatch.stats", "arguments": []})
    opened = client.rss_kb()
    check = {"command": "llmPatch.check", "arguments": [{"text": text}]}
    report = await client.request("workspace/executeCommand", check)
    checked = client.rss_kb()
    if not shared:
        await client.stop()
    return {
        "documents": n_docs,
        "lines_each": lines,
        "check_ok": bool(report.get("ok")),
        "idle_rss_mb": round(idle["VmRSS"] / 1024, 1),
        "open_rss_mb": round(opened["VmRSS"] / 1024, 1),
        "after_check_rss_mb": round(checked["VmRSS"] / 1024, 1),
        "peak_rss_mb": round(max(opened["VmHWM"], checked["VmHWM"]) / 1024, 1),
    }


TYPING_MB = 12


async def _typing(root: Path, keystrokes: int, client: Client | None = None) -> dict[str, Any]:
    """Keystrokes in a big open document: the event loop's time per `didChange`."""
    unit = generate("python", 10_000, seed=11).text
    text = unit * max(1, (TYPING_MB << 20) // len(unit))
    lines = text.count("\n")
    shared = client is not None
    client = await _server(root, client)
    uri = (root / "typing" / "big.py").as_uri()
    client.open(uri, text)

    async def stats_ms() -> float:
        t0 = time.perf_counter()
        await client.request("workspace/executeCommand", {"command": "llmPatch.stats"})
        return (time.perf_counter() - t0) * 1000.0

    await stats_ms()  # the document is open and the server idle
    rng = random.Random(3)
    version = 1

    def keystroke() -> None:
        nonlocal version
        version += 1
        at = {"line": rng.randrange(lines), "character": 4}
        client.notify(
            "textDocument/didChange",
            {
                "textDocument": {"uri": uri, "version": version},
                "contentChanges": [{"range": {"start": at, "end": at}, "text": "x"}],
            },
        )

    t0 = time.perf_counter()
    keystroke()
    await client.request("workspace/executeCommand", {"command": "llmPatch.stats"})
    first = (time.perf_counter() - t0) * 1000.0
    alone = [await stats_ms() for _ in range(keystrokes)]
    typed = []
    for _ in range(keystrokes):
        t0 = time.perf_counter()
        keystroke()
        await client.request("workspace/executeCommand", {"command": "llmPatch.stats"})
        typed.append((time.perf_counter() - t0) * 1000.0)
    base = statistics.median(alone)
    cpu0 = client.cpu_ms()
    for _ in range(keystrokes):
        keystroke()
    await stats_ms()
    cpu = (client.cpu_ms() - cpu0) / keystrokes
    client.notify("textDocument/didClose", {"textDocument": {"uri": uri}})
    if not shared:
        await client.stop()
    return {
        "document_mb": round(len(text) / (1 << 20), 1),
        "lines": lines,
        "keystrokes": keystrokes,
        "first_keystroke_ms": round(max(0.0, first - base), 3),
        "keystroke": summary([max(0.0, t - base) for t in typed]),
        "round_trip_alone": summary(alone),
        "cpu_per_keystroke_ms": round(cpu, 3),
    }


async def _run(
    starts: int, rounds: int, blocks: int, docs: int, settle: float, log: Log, reuse: bool
) -> dict[str, Any]:
    """`reuse` (smoke runs): one server process for everything, instead of a new one for the
    start measurement, the round trips and the memory figure each."""
    out: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="llm-patch-lsp-") as tmp:
        root = Path(tmp)
        times = []
        client = None
        for i in range(starts):
            client = Client()
            await client.start(root)
            await client.initialize(root)
            times.append(((time.perf_counter() - client.spawned_at) * 1000.0, client.cpu_ms()))
            if not (reuse and i == starts - 1):
                await client.stop()
                client = None
        out["first_start_ms"] = round(times[0][0], 3)
        rest = times[1:] or times
        out["start"] = summary([wall for wall, _ in rest])
        out["start_cpu"] = summary([cpu for _, cpu in rest])
        log(
            f"lsp start to initialize  median {out['start']['median_ms']:.1f} ms"
            f" (server CPU {out['start_cpu']['median_ms']:.0f} ms;"
            f" first start, empty code cache: {out['first_start_ms']:.0f} ms)"
        )
        out["round_trip"] = await _round_trips(root, make_reply(blocks), rounds, settle, client)
        rt = out["round_trip"]
        log(
            f"lsp {blocks}-block round trip  first {rt['first_round_trip_ms']:.1f} ms"
            f"  median {rt['round_trip']['median_ms']:.1f} ms"
            f"  command {rt['command']['median_ms']:.1f} ms  correct={rt['correct']}"
        )
        out["memory"] = await _memory(root, docs, 10_000, client)
        mem = out["memory"]
        log(
            f"lsp memory  {docs} open docs: rss {mem['open_rss_mb']} MB,"
            f" peak {mem['peak_rss_mb']} MB (idle {mem['idle_rss_mb']} MB)"
        )
        out["typing"] = await _typing(root, max(20, 25 * rounds), client)
        typing = out["typing"]
        log(
            f"lsp typing in a {typing['document_mb']} MB document  keystroke median"
            f" {typing['keystroke']['median_ms']:.2f} ms (p95 {typing['keystroke']['p95_ms']:.2f}),"
            f" CPU {typing['cpu_per_keystroke_ms']:.2f} ms;"
            f" first {typing['first_keystroke_ms']:.0f} ms"
        )
        if client is not None:
            await client.stop()
    out["shared_process"] = reuse
    return out


def run(
    starts: int, rounds: int, blocks: int, docs: int, settle: float, log: Log, reuse: bool = False
) -> dict[str, Any]:
    return asyncio.run(_run(starts, rounds, blocks, docs, settle, log, reuse))
