"""The session's life: start, settings as they arrive, the log the client sees, shutdown.

Settings come with `initialize` (`initializationOptions`), are pulled once the client is
ready (`workspace/configuration`), and again whenever it says they changed. The server's
log goes to the client as `window/logMessage` at the `llmPatch.logLevel` level.
"""

from __future__ import annotations

import asyncio
import importlib
import logging
import threading
from typing import Any

from lsprotocol import types

from lsp_server import boot
from lsp_server.lsp import diagnostics, sharing
from lsp_server.lsp.session import LlmPatchServer
from lsp_server.lsp.settings import LOG_LEVELS, flatten_settings

logger = logging.getLogger("lsp_server")

# The engine: imported on first use, or by `warm_engine` once the client is initialised.
# The `initialize` answer, which the editor waits on, should not wait for modules it does
# not need.
ENGINE_MODULES = ("lsp_server.plan", "lsp_server.reply")


# --- handlers -------------------------------------------------------------------------------


def initialize(ls: LlmPatchServer, params: types.InitializeParams) -> None:
    # who the client is decides how the line breaks of an edit are sent (see `edits`)
    ls.client_name = params.client_info.name if params.client_info else None
    # who sends no name (Kate) is known by its process's name
    ls.client_program = sharing.client_program(ls.client_name, params.process_id)
    if params.initialization_options is not None:
        apply_settings(ls, params.initialization_options, "initializationOptions")


async def initialized(ls: LlmPatchServer, params: types.InitializedParams) -> None:
    install_client_logging(ls)
    logger.info(
        "llm-patch %s ready (position encoding %s, edits: %s)",
        ls.version,
        ls.encoding,
        ls.edit_capabilities(),
    )
    # off the request path: load the engine, keep the code attrs/cattrs generated so far
    threading.Thread(target=warm_engine, name="llm-patch-warm", daemon=True).start()
    await pull_settings(ls)
    sharing.startup_notice(ls)  # after the settings: `llmPatch.startupMessage` may be off


def shutdown(ls: LlmPatchServer, params: None) -> None:
    ls.stopping = True  # running plans stop at their next block
    for task in ls.pending.values():
        task.cancel()


async def did_change_configuration(
    ls: LlmPatchServer, params: types.DidChangeConfigurationParams
) -> None:
    settings = params.settings
    if isinstance(settings, dict) and flatten_settings(settings):
        apply_settings(ls, settings, "workspace/didChangeConfiguration")
    else:
        await pull_settings(ls)


# --- settings -------------------------------------------------------------------------------


def apply_settings(ls: LlmPatchServer, raw: Any, origin: str) -> None:
    """Take a client's settings object; when anything changed, analyse the replies again."""
    new, problems = ls.settings.merged(raw)
    for problem in problems:
        logger.warning("ignoring setting from %s: %s", origin, problem)
    changed = new != ls.settings
    ls.settings = new
    if ls.log_handler is not None:
        ls.log_handler.setLevel(LOG_LEVELS[new.log_level])
    if changed:
        logger.info("settings (%s): %s", origin, new)
        try:
            for doc in list(ls.workspace.text_documents.values()):
                diagnostics.schedule(ls, doc.uri)
        except RuntimeError:
            pass


async def pull_settings(ls: LlmPatchServer) -> None:
    if not ls.client_capability("workspace.configuration"):
        return
    try:
        values = await ls.workspace_configuration_async(
            types.ConfigurationParams(items=[types.ConfigurationItem(section="llmPatch")])
        )
    except Exception as err:  # noqa: BLE001 - a client without settings is fine
        logger.info("workspace/configuration failed: %s", err)
        return
    if values and isinstance(values[0], dict):
        apply_settings(ls, values[0], "workspace/configuration")


# --- the log the client sees ----------------------------------------------------------------


def install_client_logging(ls: LlmPatchServer) -> None:
    handler = ClientLogHandler(ls, asyncio.get_running_loop())
    handler.setLevel(LOG_LEVELS[ls.settings.log_level])
    logger.addHandler(handler)
    logger.setLevel(logging.DEBUG)
    ls.log_handler = handler


class ClientLogHandler(logging.Handler):
    """Log records as `window/logMessage`, from any thread."""

    _MAP = (
        (logging.ERROR, types.MessageType.Error),
        (logging.WARNING, types.MessageType.Warning),
        (logging.INFO, types.MessageType.Info),
        (0, types.MessageType.Log),
    )

    def __init__(self, server: LlmPatchServer, loop: asyncio.AbstractEventLoop):
        super().__init__()
        self.server = server
        self.loop = loop
        self._local = threading.local()

    def emit(self, record: logging.LogRecord) -> None:
        if getattr(self._local, "busy", False):
            return  # sending a message logs too: do not log that
        try:
            self._local.busy = True
            message = self.format(record)
            kind = next(t for level, t in self._MAP if record.levelno >= level)
            params = types.LogMessageParams(type=kind, message=message)
            if self.loop.is_closed():
                return
            try:
                running = asyncio.get_running_loop()
            except RuntimeError:
                running = None
            if running is self.loop:
                self.server.window_log_message(params)
            else:
                self.loop.call_soon_threadsafe(self.server.window_log_message, params)
        except Exception:  # noqa: BLE001 - logging must never raise
            pass
        finally:
            self._local.busy = False


def warm_engine() -> None:
    for name in ENGINE_MODULES:
        importlib.import_module(name)
    boot.save()
