"""An apply from the command line that is under way or was interrupted, seen by the server.

While `.llm-patch.journal` sits at the root, the files it names may be half old, half new
(an `llm-patch apply` killed between its renames). A plan made on that tree would be a plan
on text that recovery is about to put back, so the server makes none: the reply's analysis
carries one failure saying so, shown as a diagnostic on the reply, naming
`llm-patch recover`. Reading the journal (and judging it) is left to recovery itself.
"""

from __future__ import annotations

from pathlib import Path

from lsp_server.disk import JOURNAL_NAME
from lsp_server.model import ErrorCode, Failure


def interrupted_apply(root: Path) -> Failure | None:
    """The failure that stands for every block while an apply's journal is at `root`."""
    from lsp_server import journal  # the writer's side, loaded only with the engine

    if not journal.pending(root):
        return None
    return Failure(
        ErrorCode.STALE_VERSION,
        f"an apply in this workspace was interrupted (or is still running): {JOURNAL_NAME} "
        "is at the root, and the files it names may be half old, half new, so nothing was "
        "planned on them — run `llm-patch recover` in the workspace (it finishes or rolls "
        "back that apply, keeping any file changed since), then try again",
        {"path": JOURNAL_NAME, "recover": "llm-patch recover"},
    )
