"""Progress for long plans (`window/workDoneProgress`), which is also a way to cancel them.

A plan of many blocks or a big reply reports "block i of n" while it runs, when the client
supports server-initiated progress. The user's cancel button on that progress stops the
plan at its next block, as `$/cancelRequest` does.
"""

from __future__ import annotations

import asyncio
import logging
import time
import uuid
from collections.abc import Callable
from typing import Any

from lsprotocol import types
from pygls.capabilities import get_capability
from pygls.lsp.server import LanguageServer

from lsp_server.model import ParsedReply

logger = logging.getLogger("lsp_server")

# Work above these sizes reports progress.
PROGRESS_BLOCKS = 8
PROGRESS_BYTES = 200_000
# Reports come at most this often (seconds): each is a message the client must render.
REPORT_INTERVAL = 0.1


class Progress:
    """Server-initiated progress for one piece of work; use `Progress.maybe`."""

    def __init__(self, server: LanguageServer, title: str):
        self.server = server
        self.title = title
        self.token = f"llm-patch/{uuid.uuid4()}"
        self.started = False
        self.loop = asyncio.get_running_loop()
        self._last = 0.0

    @classmethod
    def maybe(
        cls, server: LanguageServer, title: str, parsed: ParsedReply, text: str
    ) -> Progress | NoProgress:
        """Progress when the work is big and the client can show it; else nothing."""
        big = len(parsed.blocks) >= PROGRESS_BLOCKS or len(text) >= PROGRESS_BYTES
        if big and get_capability(server.client_capabilities, "window.work_done_progress"):
            return cls(server, title)
        return NoProgress()

    async def __aenter__(self) -> Progress:
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
        """A cancel check that also reports "block i of n" (the plan calls it between
        blocks, from its worker thread)."""
        count = 0

        def check() -> bool:
            nonlocal count
            count += 1
            now = time.monotonic()
            if self.started and total and now - self._last > REPORT_INTERVAL:
                self._last = now
                done = min(count, total)
                report = types.WorkDoneProgressReport(
                    message=f"block {done} of {total}", percentage=int(100 * (done - 1) / total)
                )
                self.loop.call_soon_threadsafe(
                    self.server.work_done_progress.report, self.token, report
                )
            token = self.server.work_done_progress.tokens.get(self.token)
            return cancelled() or (token is not None and token.cancelled())

        return check


class NoProgress:
    """Stands in for `Progress` when there is nothing to show."""

    async def __aenter__(self) -> None:
        return None

    async def __aexit__(self, *exc: Any) -> None:
        return None
