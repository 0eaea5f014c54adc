"""What `llm-patch serve` does before and after importing the server, to answer sooner.

The editor waits for the `initialize` answer, and most of that wait is importing
`lsprotocol.types`: ~550 attrs classes and some 100,000 objects. Two things make it shorter:

* the code cache (`codecache`): attrs' generated methods are not compiled again;
* no garbage collection while importing: the import only allocates, it frees nothing, so
  each collection the allocations trigger scans a growing heap for nothing (~60 ms here).
  Once the server is built, `gc.freeze()` moves those long-lived objects out of the
  collector's sight (later collections do not rescan them either) and collection resumes.
"""

from __future__ import annotations

import gc

from lsp_server import codecache

_paused = False


def begin() -> None:
    """Call first, before anything imports pygls or lsprotocol."""
    global _paused
    if gc.isenabled():
        gc.disable()
        _paused = True
    codecache.install()


def finish() -> None:
    """Call once the server object exists; a no-op when `begin` did not pause collection."""
    global _paused
    if _paused:
        gc.freeze()
        gc.enable()
        _paused = False
