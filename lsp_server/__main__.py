"""`python -m lsp_server`: the language server, with the options of `llm-patch serve`."""

from __future__ import annotations

import sys

from lsp_server.cli import run

if __name__ == "__main__":
    raise SystemExit(run(["serve", *sys.argv[1:]]))
