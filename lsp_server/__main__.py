"""`python -m lsp_server`: the language server, with the options of `llm-patch serve`."""

from __future__ import annotations

import sys

from lsp_server import boot

if __name__ == "__main__":
    boot.begin()  # before anything else loads: see lsp_server.boot
    from lsp_server.cli import run

    raise SystemExit(run(["serve", *sys.argv[1:]]))
