"""Fuzz the language server's request handling: random but well-framed JSON-RPC messages.

    .venv/bin/python fuzz/fuzz_server.py                   # hypothesis, 2,000 sequences
    .venv/bin/python fuzz/fuzz_server.py --examples 50000

(No atheris mode: the server runs in its own process, where coverage guidance cannot see,
so libFuzzer would only mutate blindly; hypothesis' structured generation does better.)

One server process (`python -m lsp_server`) in a scratch workspace serves every sequence.
A sequence is a few messages: real methods with params that are nearly right (wrong
types, missing fields, odd URIs, positions past the end, replies from the reply fuzzer),
unknown methods, notifications, cancellations. The server must answer every request —
a result or an error, with the request's id — and, after each sequence, still answer a
known-good `llmPatch.check` correctly. It must never exit.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from fuzz.lsp_client import LspClient  # noqa: E402
from fuzz.targets import REPLIES  # noqa: E402

FILES = {
    "a.py": "x = 1\ndef f():\n    return 1\n",
    "notes.llm.md": "a.py\n```\n<<<<<<< SEARCH\nx = 1\n=======\nx = 2\n>>>>>>> REPLACE\n```\n",
    "data.json": '{"a": [1, 2]}\n',
}
# the known-good probe edits a file the fuzzer never names, so its answer never drifts
PROBE_FILE = "probe/p.py"
GOOD_REPLY = f"{PROBE_FILE}\n```\n<<<<<<< SEARCH\nx = 1\n=======\nx = 2\n>>>>>>> REPLACE\n```\n"

COMMANDS = [
    "llmPatch.apply",
    "llmPatch.check",
    "llmPatch.applyBlock",
    "llmPatch.patch",
    "llmPatch.structure",
    "llmPatch.buildDiff",
    "llmPatch.stats",
    "llmPatch.showLocation",
    "llmPatch.nope",
]
REQUESTS = [
    "textDocument/codeAction",
    "codeAction/resolve",
    "textDocument/codeLens",
    "codeLens/resolve",
    "textDocument/hover",
    "workspace/executeCommand",
    "textDocument/completion",
    "textDocument/definition",
    "workspace/symbol",
    "$/unknown",
    "nonsense",
]
NOTIFICATIONS = [
    "textDocument/didOpen",
    "textDocument/didChange",
    "textDocument/didClose",
    "textDocument/didSave",
    "workspace/didChangeConfiguration",
    "workspace/didChangeWatchedFiles",
    "$/cancelRequest",
    "$/setTrace",
    "window/workDoneProgress/cancel",
]

# Keys include the JSON-RPC envelope's own names: a nested object that looks like a message
# must stay plain data (pygls used to turn it into a message and drop the request).
_KEYS = st.text(max_size=8) | st.sampled_from(["jsonrpc", "id", "method", "params", "result"])
JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(_KEYS, inner, max_size=4),
    max_leaves=12,
)


def _uris(root: Path) -> st.SearchStrategy[Any]:
    known = [(root / name).resolve().as_uri() for name in FILES]
    return st.one_of(
        st.sampled_from(known),
        st.sampled_from(
            [
                "untitled:Untitled-1",
                "file:///etc/passwd",
                (root / "missing.llm.md").resolve().as_uri(),
                (root / ".." / "outside.py").as_uri(),
                "file://" + "/a" * 2000,
                "not a uri",
                "",
            ]
        ),
        JSON,
    )


def _position() -> st.SearchStrategy[Any]:
    number = st.one_of(st.integers(0, 40), st.integers(-5, 2**31), JSON)
    return st.one_of(st.fixed_dictionaries({"line": number, "character": number}), JSON)


def _range() -> st.SearchStrategy[Any]:
    return st.one_of(st.fixed_dictionaries({"start": _position(), "end": _position()}), JSON)


def _command_args(root: Path) -> st.SearchStrategy[Any]:
    source = st.one_of(
        st.fixed_dictionaries({"text": REPLIES}),
        st.fixed_dictionaries({"uri": _uris(root)}, optional={"range": _range()}),
        st.fixed_dictionaries({"text": REPLIES, "block": st.integers(-2, 5)}),
        st.fixed_dictionaries(
            {"path": st.sampled_from(["a.py", "../x", "data.json", ""]), "patches": JSON}
        ),
        JSON,
    )
    options = st.one_of(
        st.fixed_dictionaries(
            {},
            optional={
                "partial": st.booleans(),
                "preview": st.booleans(),
                "fuzzyThreshold": st.floats(-1, 2) | JSON,
            },
        ),
        JSON,
    )
    return st.lists(st.one_of(source, options), max_size=3)


def _params(method: str, root: Path) -> st.SearchStrategy[Any]:
    doc = st.fixed_dictionaries({"uri": _uris(root)})
    versioned = st.fixed_dictionaries({"uri": _uris(root), "version": st.integers(-1, 10) | JSON})
    if method == "workspace/executeCommand":
        return (
            st.fixed_dictionaries(
                {"command": st.sampled_from(COMMANDS) | JSON, "arguments": _command_args(root)}
            )
            | JSON
        )
    if method in ("textDocument/codeAction",):
        return (
            st.fixed_dictionaries(
                {
                    "textDocument": doc,
                    "range": _range(),
                    "context": st.fixed_dictionaries({"diagnostics": st.lists(JSON, max_size=2)})
                    | JSON,
                }
            )
            | JSON
        )
    if method in ("textDocument/hover", "textDocument/completion", "textDocument/definition"):
        return st.fixed_dictionaries({"textDocument": doc, "position": _position()}) | JSON
    if method == "textDocument/codeLens":
        return st.fixed_dictionaries({"textDocument": doc}) | JSON
    if method == "textDocument/didOpen":
        item = st.fixed_dictionaries(
            {
                "uri": _uris(root),
                "languageId": st.sampled_from(["markdown", "python", "plaintext"]) | JSON,
                "version": st.integers(0, 5) | JSON,
                "text": REPLIES,
            }
        )
        return st.fixed_dictionaries({"textDocument": item}) | JSON
    if method == "textDocument/didChange":
        change = st.one_of(
            st.fixed_dictionaries({"text": REPLIES}),
            st.fixed_dictionaries({"range": _range(), "text": REPLIES}),
            JSON,
        )
        return (
            st.fixed_dictionaries(
                {"textDocument": versioned, "contentChanges": st.lists(change, max_size=3)}
            )
            | JSON
        )
    if method in ("textDocument/didClose", "textDocument/didSave"):
        return st.fixed_dictionaries({"textDocument": doc}) | JSON
    if method == "workspace/didChangeConfiguration":
        settings_ = st.fixed_dictionaries(
            {},
            optional={
                "mode": st.sampled_from(["restricted", "unrestricted"]) | JSON,
                "atomic": st.booleans() | JSON,
                "fuzzyThreshold": st.floats(-1, 2) | JSON,
            },
        )
        return st.fixed_dictionaries({"settings": st.fixed_dictionaries({"llmPatch": settings_})})
    if method == "$/cancelRequest":
        return st.fixed_dictionaries({"id": st.integers(0, 50) | st.text(max_size=5) | JSON})
    return JSON


@st.composite
def message(draw, root: Path) -> tuple[str, str, Any]:
    """("request" | "notify", method, params)."""
    if draw(st.booleans()):
        method = draw(st.sampled_from(REQUESTS))
        return "request", method, draw(_params(method, root))
    method = draw(st.sampled_from(NOTIFICATIONS))
    return "notify", method, draw(_params(method, root))


class Session:
    """The one server every sequence talks to (restarted, and reported, if it dies)."""

    def __init__(self) -> None:
        self.tmp = tempfile.TemporaryDirectory(prefix="llm-patch-fuzz-")
        self.root = Path(self.tmp.name).resolve()
        self.client: LspClient | None = None

    def get(self) -> LspClient:
        if self.client is None or not self.client.alive():
            for name, text in {**FILES, PROBE_FILE: "x = 1\n"}.items():
                (self.root / name).parent.mkdir(parents=True, exist_ok=True)
                (self.root / name).write_text(text)
            self.client = LspClient(self.root)
            self.client.initialize()
        return self.client

    def close(self) -> None:
        if self.client is not None:
            self.client.close()
        self.tmp.cleanup()


def exercise(client: LspClient, messages: list[tuple[str, str, Any]], timeout: float = 60) -> None:
    """Send the messages (all at once, pipelined), then demand an answer to each request and
    a correct answer to a known-good one."""
    ids = []
    for kind, method, params in messages:
        if kind == "request":
            ids.append(client.request_async(method, params))
        else:
            client.notify(method, params)
    for msg_id in ids:
        answer = client.wait(msg_id, timeout)
        assert answer.get("id") == msg_id
        assert ("result" in answer) != ("error" in answer), answer
        if "error" in answer:
            assert isinstance(answer["error"].get("code"), int), answer
    # still serving, and still right (a setting the fuzzer changed may restrict; check works)
    probe = client.command("llmPatch.check", {"text": GOOD_REPLY}, timeout=timeout)
    assert probe.get("result", {}).get("ok") is True, probe
    assert client.alive()


SESSION: Session | None = None


def session() -> Session:
    global SESSION
    if SESSION is None:
        SESSION = Session()
    return SESSION


def _messages() -> st.SearchStrategy[list[tuple[str, str, Any]]]:
    return st.lists(message(session().root), min_size=1, max_size=6)


@given(data=st.data())
def server_target(data: st.DataObject) -> None:
    s = session()
    client = s.get()
    exercise(client, data.draw(_messages()))


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--examples", type=int, default=2000)
    args = parser.parse_args(argv)
    try:
        run = settings(
            max_examples=args.examples,
            deadline=None,
            database=None,
            suppress_health_check=list(HealthCheck),
        )(server_target)
        run()
    finally:
        if SESSION is not None:
            SESSION.close()
    print(f"fuzz_server: {args.examples} sequences, no failure")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
