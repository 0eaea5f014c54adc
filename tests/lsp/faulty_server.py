"""The real server, with the reply parser made to throw on a marker: a handler failure on demand.

Used by test_robustness.py to check that an exception deep inside a handler turns into an
error response (or a logged background failure) and that the server keeps serving.
"""

from __future__ import annotations

import sys

import lsp_server.reply as reply
from lsp_server import cli

_real_parse = reply.parse_reply


def _parse(text: str):
    if "BOOM" in text:
        raise RuntimeError("injected failure")
    return _real_parse(text)


reply.parse_reply = _parse  # the server imports the parser on first use, from this module

if __name__ == "__main__":
    sys.exit(cli.run(["serve", *sys.argv[1:]]))
