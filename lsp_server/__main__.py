"""`python -m lsp_server`: the language server on stdio (same options as `llm-patch serve`)."""

from __future__ import annotations

import sys

from lsp_server.server import serve_main

if __name__ == "__main__":
    raise SystemExit(serve_main(sys.argv[1:]))
