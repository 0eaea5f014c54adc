"""Start-up speed of the language server and the command, kept apart from what they do.

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

The `llm-patch` command starts in `main()` here (its console-script entry point), so the
pause covers its own imports too: `apply` and `check` load the engine (the dataclasses of
the vocabulary, the parsers' patterns) and then call `finish()`; `serve` goes on to
`begin()`, which finds collection already paused and leaves the resuming to the server.
"""

from __future__ import annotations

import gc

_paused = False


def pause() -> None:
    """Stop collecting until `finish()`; a no-op when collection is already off."""
    global _paused
    if gc.isenabled():
        gc.disable()
        _paused = True


def begin() -> None:
    """Call first, before anything imports pygls or lsprotocol."""
    pause()
    from lsp_server.boot import codecache  # the server's alone: `apply` never loads it

    codecache.install()


def finish() -> None:
    """Call once the server object exists (or the command's engine is loaded); a no-op when
    nothing here paused collection."""
    global _paused
    if _paused:
        gc.freeze()
        gc.enable()
        _paused = False


def save() -> bool:
    """Keep the code this process compiled for the next start; True when the cache was written."""
    from lsp_server.boot import codecache

    return codecache.save()


def main() -> None:
    """The `llm-patch` console script: pause collection, then run the command."""
    pause()
    from lsp_server.cli import main as command  # after the pause: its imports are the point

    command()
