"""The one place the server's features are registered, and how it is served.

Each feature is a module of its own (`diagnostics`, `code_actions`, `hover`, `lenses`,
`symbols`, `commands`, `lifecycle`); its handlers are plain functions taking the session
(`session.LlmPatchServer`) and the request's params. `create_server` wires them to a fresh
session; `serve` runs one on stdio or TCP (`llm-patch serve`, `python -m lsp_server`).
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Callable
from typing import Any

from lsprotocol import types

from lsp_server import boot
from lsp_server.lsp import (
    code_actions,
    commands,
    diagnostics,
    hover,
    lenses,
    lifecycle,
    symbols,
)
from lsp_server.lsp.pygls_compat import BoundedInput, start_tcp
from lsp_server.lsp.session import LlmPatchServer
from lsp_server.lsp.settings import LOG_LEVELS

# (LSP method, handler, registration options)
FEATURES: tuple[tuple[str, Callable[..., Any], Any], ...] = (
    (types.INITIALIZE, lifecycle.initialize, None),
    (types.INITIALIZED, lifecycle.initialized, None),
    (types.SHUTDOWN, lifecycle.shutdown, None),
    (types.WORKSPACE_DID_CHANGE_CONFIGURATION, lifecycle.did_change_configuration, None),
    (types.TEXT_DOCUMENT_DID_OPEN, diagnostics.did_open, None),
    (types.TEXT_DOCUMENT_DID_CHANGE, diagnostics.did_change, None),
    (types.TEXT_DOCUMENT_DID_CLOSE, diagnostics.did_close, None),
    (types.TEXT_DOCUMENT_CODE_ACTION, code_actions.code_action, code_actions.OPTIONS),
    (types.CODE_ACTION_RESOLVE, code_actions.code_action_resolve, None),
    (types.TEXT_DOCUMENT_CODE_LENS, lenses.code_lens, lenses.OPTIONS),
    (types.TEXT_DOCUMENT_HOVER, hover.hover, None),
    (types.TEXT_DOCUMENT_DOCUMENT_SYMBOL, symbols.document_symbol, symbols.OPTIONS),
)


def create_server() -> LlmPatchServer:
    """A fresh server with every feature and command registered (one per editor session)."""
    server = LlmPatchServer()
    for method, handler, options in FEATURES:
        server.feature(method, options)(handler)
    for name, handler in commands.COMMANDS.items():
        server.command(name)(handler)
    return server


def serve(
    tcp: tuple[str, int] | None = None, log_file: str | None = None, log_level: str = "warning"
) -> int:
    """Run the server on stdio (or TCP) until the client exits; 2 if the log cannot be opened.

    The caller has called `boot.begin()` before importing this module.
    """
    if log_file:
        try:
            handler = logging.FileHandler(log_file, encoding="utf-8")
        except OSError as err:
            print(
                f"llm-patch serve: cannot write {log_file}: {err.strerror or err}", file=sys.stderr
            )
            return 2
        handler.setLevel(LOG_LEVELS[log_level])
        handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
        logging.getLogger().addHandler(handler)
        logging.getLogger().setLevel(LOG_LEVELS[log_level])
    server = create_server()
    boot.finish()
    if tcp is not None:
        start_tcp(server, *tcp)  # pygls's, its reads bounded as on stdio
    else:
        server.start_io(stdin=BoundedInput(sys.stdin.buffer))
    boot.save()  # hooks generated after start (code actions, applyEdit) help the next one
    return 0
