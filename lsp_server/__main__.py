"""`python -m lsp_server`: the language server on stdio (same options as `llm-patch serve`)."""

from __future__ import annotations

import sys

from lsp_server import boot

if __name__ == "__main__":
    boot.begin()  # before pygls imports lsprotocol: see lsp_server.boot
    from lsp_server.server import serve_main

    raise SystemExit(serve_main(sys.argv[1:]))
