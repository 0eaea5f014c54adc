"""The server's request handling, fuzzed: random but well-framed JSON-RPC messages.

One server process serves the whole module (the long-run version of this is
`fuzz/fuzz_server.py`). Each example sends a short sequence at once; every request must be
answered with its id, and a known-good check must still come back right afterwards.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fuzz import fuzz_server
from fuzz.lsp_client import LspClient


@pytest.fixture(scope="module")
def fuzz_session():
    session = fuzz_server.session()
    yield session
    session.close()
    fuzz_server.SESSION = None


@settings(max_examples=max(30, settings.default.max_examples // 2))
@given(data=st.data())
def test_random_messages_are_all_answered_and_the_server_keeps_serving(fuzz_session, data):
    client = fuzz_session.get()
    messages = data.draw(st.lists(fuzz_server.message(fuzz_session.root), min_size=1, max_size=6))
    fuzz_server.exercise(client, messages)


@pytest.fixture
def client(tmp_path: Path):
    (tmp_path / "a.py").write_text("x = 1\n")
    c = LspClient(tmp_path)
    c.initialize()
    yield c
    c.close()


GOOD = "a.py\n```\n<<<<<<< SEARCH\nx = 1\n=======\nx = 2\n>>>>>>> REPLACE\n```\n"


def still_serving(c: LspClient) -> None:
    answer = c.command("llmPatch.check", {"text": GOOD}, timeout=30)
    assert answer["result"]["ok"] is True
    assert c.alive()


def framed(body: dict) -> bytes:
    return json.dumps(body).encode()


@pytest.mark.parametrize(
    "name, body, answered",
    [
        (
            "nested params",
            b'{"jsonrpc":"2.0","id":"n","method":"textDocument/hover","params":'
            + b"[" * 100_000
            + b"]" * 100_000
            + b"}",
            False,
        ),
        ("not JSON", b"this is not json {", False),
        ("a JSON string", framed("hello"), False),  # type: ignore[arg-type]
        ("a batch", framed([{"jsonrpc": "2.0", "id": "b", "method": "llmPatch.stats"}]), False),  # type: ignore[arg-type]
        ("no method", framed({"jsonrpc": "2.0", "id": "m"}), False),
        ("a stray response", framed({"jsonrpc": "2.0", "id": 99999, "result": None}), False),
        (
            "string id",
            framed(
                {
                    "jsonrpc": "2.0",
                    "id": "s",
                    "method": "workspace/executeCommand",
                    "params": {"command": "llmPatch.stats"},
                }
            ),
            True,
        ),
        (
            "float id",
            framed(
                {
                    "jsonrpc": "2.0",
                    "id": 1.5,
                    "method": "workspace/executeCommand",
                    "params": {"command": "llmPatch.stats"},
                }
            ),
            True,
        ),
        (
            "huge id",
            framed(
                {
                    "jsonrpc": "2.0",
                    "id": 10**30,
                    "method": "workspace/executeCommand",
                    "params": {"command": "llmPatch.stats"},
                }
            ),
            True,
        ),
        (
            "params a list",
            framed(
                {
                    "jsonrpc": "2.0",
                    "id": "l",
                    "method": "textDocument/codeLens",
                    "params": [1, 2, 3],
                }
            ),
            True,
        ),
        (
            "5 MB document",
            framed(
                {
                    "jsonrpc": "2.0",
                    "method": "textDocument/didOpen",
                    "params": {
                        "textDocument": {
                            "uri": "untitled:big",
                            "languageId": "markdown",
                            "version": 1,
                            "text": "x" * 5_000_000,
                        }
                    },
                }
            ),
            False,
        ),
        (
            "surrogates",
            b'{"jsonrpc":"2.0","id":"u","method":"workspace/executeCommand",'
            b'"params":{"command":"llmPatch.check","arguments":[{"text":"a.py\\n\\ud800"}]}}',
            True,
        ),
    ],
    ids=lambda v: v if isinstance(v, str) else "",
)
def test_odd_messages_never_stop_the_server(client: LspClient, name, body, answered):
    client.send(body)
    if answered:
        msg_id = json.loads(body)["id"]
        answer = client.wait(msg_id, timeout=30)
        assert ("result" in answer) != ("error" in answer), answer
    else:
        time.sleep(0.2)
    still_serving(client)


def test_a_flood_of_cancellations_and_unknown_methods(client: LspClient):
    ids = [client.request_async(f"custom/method{i}", {"i": i}) for i in range(300)]
    for i in range(300):
        client.notify("$/cancelRequest", {"id": i})
        client.notify(f"custom/notification{i}", None)
    for msg_id in ids:
        answer = client.wait(msg_id, timeout=60)
        assert answer["error"]["code"] in (-32601, -32800), answer
    still_serving(client)


@pytest.mark.xfail(
    strict=True,
    reason="pygls decodes JSON with structure_message as object_hook, so any nested dict with "
    "a 'jsonrpc' key is taken for a message; when that fails the whole request is dropped and "
    "never answered (server.py could decode without the hook, or answer InvalidParams)",
)
def test_a_nested_jsonrpc_key_in_params_still_gets_an_answer(client: LspClient):
    msg_id = client.request_async(
        "workspace/executeCommand",
        {"command": "llmPatch.check", "arguments": [{"text": GOOD, "jsonrpc": "2.0"}]},
    )
    answer = client.wait(msg_id, timeout=10)
    assert ("result" in answer) != ("error" in answer)
