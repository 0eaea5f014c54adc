"""`python -m lsp_server.cli`: the `llm-patch` command without its console script."""

from lsp_server.cli import main

main()
