"""Start-up speed of the language server, kept apart from what the server does.

The editor waits for the `initialize` answer, and most of that wait is the interpreter
building `lsprotocol.types`: some 550 attrs classes and about 100,000 objects. Two things
make it shorter; neither changes what any code computes, and benchmarks/README.md
("Start-up, boot on and off") has what each one saves:

* `codecache`: attrs and cattrs write Python source for those classes' methods and for the
  (un)structure hooks and compile it; the code objects are kept on disk, the way CPython
  keeps `.pyc` files, and the next start reuses them;
* no garbage collection while importing: the import only allocates, it frees nothing, so
  each collection the allocations trigger scans a growing heap for nothing. Once the server
  is built, `gc.freeze()` moves those long-lived objects out of the collector's sight (later
  collections do not rescan them either) and collection resumes.

The server meets this package in three calls: `begin()` before anything imports pygls or
lsprotocol (`llm-patch serve`, `python -m lsp_server`), `finish()` once the server object
exists, `save()` after code that may have generated new hooks has run.
"""

from __future__ import annotations

import gc

from lsp_server.boot import codecache

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


def save() -> bool:
    """Keep the code this process compiled for the next start; True when the cache was written."""
    return codecache.save()
