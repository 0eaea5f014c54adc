"""Long plans: progress while they run, and cancelling them (`$/cancelRequest`)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcRequestCancelled

from .conftest import EditorClient, sr


async def test_progress_is_reported_for_many_blocks(client: EditorClient, ws: Path):
    client.write("many.py", "".join(f"v{i} = {i}\n" for i in range(20)))
    reply = "".join(sr("many.py", f"v{i} = {i}\n", f"v{i} = {i * 10}\n") for i in range(12))
    report = await client.command("llmPatch.apply", {"text": reply})
    assert report["ok"] is True
    kinds = [v.kind for reports in client.progress_reports.values() for v in reports]
    assert kinds[0] == "begin" and kinds[-1] == "end"


async def test_cancel_request_stops_an_apply_between_blocks(client: EditorClient, ws: Path):
    lines = 1_000
    original = "".join(f"line_{i} = {i}\n" for i in range(lines))
    client.write("big.py", original)
    reply = "".join(
        sr("big.py", f"line_{i} = {i}\n", f"line_{i} = -{i}\n") for i in range(0, lines, 5)
    )

    # A plan this size reports progress, and the server waits for the editor to accept the
    # progress token before it plans: the cancel sent just before that answer is always
    # there when the plan checks between blocks, however fast the machine plans.
    def cancel(c: EditorClient) -> None:
        c.protocol.notify(types.CANCEL_REQUEST, types.CancelParams(id="apply-1"))

    client.before_progress = cancel
    params = types.ExecuteCommandParams(command="llmPatch.apply", arguments=[{"text": reply}])
    with pytest.raises(JsonRpcRequestCancelled):
        await client.protocol.send_request_async(
            types.WORKSPACE_EXECUTE_COMMAND, params, msg_id="apply-1"
        )
    assert client.before_progress is None, "the server never asked for a progress token"

    # the answer comes as soon as the request is cancelled; the plan stops at its next check
    async def stats() -> dict:
        return await client.command("llmPatch.stats")

    deadline = asyncio.get_running_loop().time() + 30
    while (await stats())["cancelled"] != 1:
        assert asyncio.get_running_loop().time() < deadline, "the plan was never cancelled"
        await asyncio.sleep(0.05)
    done = await stats()
    assert done["blocks"] == 0, done  # stopped inside the plan: no block was counted
    assert done["applied"] == 0, done
    assert client.received == []
    assert (ws / "big.py").read_text() == original
