"""The server parses replies in several worker threads at once, and the reply formats'
parsers load on first use: a thread that finds a parser module another thread is still
importing must wait for it, not use it half-made (it failed with "partially initialized
module ... has no attribute 'find_blocks'", an internal error in the editor)."""

from __future__ import annotations

import subprocess
import sys
import textwrap

SCRIPT = textwrap.dedent(
    """
    import sys, threading
    sys.setswitchinterval(1e-6)  # switch threads as often as possible
    from lsp_server.reply import parse_reply
    REPLY = (
        "a.py\\n```\\n<<<<<<< SEARCH\\nx\\n=======\\ny\\n>>>>>>> REPLACE\\n```\\n"
        "```diff\\n--- a/b\\n+++ b/b\\n@@ -1 +1 @@\\n-x\\n+y\\n```\\n"
        "```\\n*** Begin Patch\\n*** Update File: c\\n@@\\n-x\\n+y\\n*** End Patch\\n```\\n"
    )
    barrier = threading.Barrier(8)
    errors = []
    def work():
        barrier.wait()
        try:
            assert len(parse_reply(REPLY).blocks) == 3
        except Exception as err:
            errors.append(repr(err))
    threads = [threading.Thread(target=work) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    print(errors[0] if errors else "ok")
    """
)


def test_parsers_loaded_by_several_threads_at_once_are_whole():
    # each run is a fresh interpreter, where no parser is loaded yet
    for _ in range(3):
        done = subprocess.run(
            [sys.executable, "-c", SCRIPT], capture_output=True, text=True, timeout=60
        )
        assert done.returncode == 0, done.stderr
        assert done.stdout.strip() == "ok", done.stdout
