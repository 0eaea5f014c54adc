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


# --- nested "jsonrpc" keys --------------------------------------------------------------------
# pygls decodes a message with its structuring function as `json.loads`'s object_hook, which
# sees every nested object too: any object with a "jsonrpc" key was taken for a message, the
# request around it failed to structure and was dropped without an answer. The server
# structures the top-level object only.

ENVELOPE = {"jsonrpc": "2.0", "id": 7, "method": "shutdown", "params": None}


def test_a_nested_jsonrpc_key_in_params_still_gets_an_answer(client: LspClient):
    msg_id = client.request_async(
        "workspace/executeCommand",
        {"command": "llmPatch.check", "arguments": [{"text": GOOD, "jsonrpc": "2.0"}]},
    )
    answer = client.wait(msg_id, timeout=30)
    assert answer["result"]["ok"] is True, answer


@pytest.mark.parametrize(
    "extra",
    [
        {"jsonrpc": "2.0", "x": 1},
        ENVELOPE,
        {"jsonrpc": "2.0", "id": 1, "error": {"code": 1, "message": "m"}},
        {"jsonrpc": "2.0", "id": 1, "result": {"jsonrpc": "2.0"}},
        {"notes": [[{"deep": [{"jsonrpc": "1.0"}]}]]},
    ],
    ids=["bare", "a request", "an error", "a response", "deep"],
)
def test_a_command_argument_shaped_like_a_message_is_just_an_argument(client: LspClient, extra):
    # the check's own argument object carries the message-like keys: it must arrive as the
    # plain object it is (check reads "text" from it and ignores the rest)
    answer = client.command("llmPatch.check", {**extra, "text": GOOD}, timeout=30)
    assert answer.get("result", {}).get("ok") is True, answer
    answer = client.command("llmPatch.check", {"text": GOOD}, {"partial": True, **extra})
    assert ("result" in answer) != ("error" in answer), answer
    still_serving(client)


def test_initialization_options_with_nested_jsonrpc_keys_are_read(tmp_path: Path):
    (tmp_path / "a.py").write_text("x = 1\n")
    c = LspClient(tmp_path)
    try:
        answer = c.initialize(
            {
                "llmPatch": {"mode": "restricted", "jsonrpc": "2.0"},
                "editor": {"jsonrpc": "2.0", "x": 1},
                "history": [ENVELOPE],
            }
        )
        assert "capabilities" in answer["result"], answer
        # the options were honoured, not just survived: restricted mode refuses to write
        refused = c.command("llmPatch.apply", {"text": GOOD}, timeout=30)
        assert refused["error"]["data"]["error"]["code"] == "MODE_RESTRICTED", refused
        assert (tmp_path / "a.py").read_text() == "x = 1\n"
        still_serving(c)
    finally:
        c.close()


_MESSAGE_KEYS = st.sampled_from(["jsonrpc", "id", "method", "params", "result", "error"])
_MESSAGE_LIKE = st.recursive(
    st.none() | st.booleans() | st.integers() | st.sampled_from(["2.0", "shutdown", "exit", ""]),
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(_MESSAGE_KEYS | st.text(max_size=4), inner, max_size=4)
    ),
    max_leaves=10,
)


@settings(max_examples=max(30, settings.default.max_examples // 3))
@given(data=st.data())
def test_params_full_of_message_keys_are_all_answered(fuzz_session, data):
    """The server fuzzer's JSON never spells "jsonrpc" as a key (fuzz/fuzz_server.py keeps it
    out); here params are made of little else."""
    client = fuzz_session.get()
    messages = []
    for _ in range(data.draw(st.integers(1, 4))):
        method = data.draw(st.sampled_from(fuzz_server.REQUESTS))
        if method == "workspace/executeCommand":
            params = {
                "command": data.draw(st.sampled_from(fuzz_server.COMMANDS)),
                "arguments": data.draw(st.lists(_MESSAGE_LIKE, max_size=3)),
            }
        else:
            params = data.draw(st.dictionaries(_MESSAGE_KEYS, _MESSAGE_LIKE, max_size=4))
        messages.append(("request", method, params))
    fuzz_server.exercise(client, messages)
