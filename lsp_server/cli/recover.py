"""`llm-patch recover`: finish or roll back an apply that was interrupted (killed, crashed)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

from lsp_server.cli.output import print_json
from lsp_server.cli.roots import find_root

if TYPE_CHECKING:
    import argparse  # for the hints only: `apply` loads this module, and not argparse

    from lsp_server.journal import Recovery


def say_recovered(recovery: Recovery) -> None:
    if recovery.outcome == "nothing":
        return
    print(f"llm-patch: {_recovery_words(recovery)}", file=sys.stderr)


def _recovery_words(recovery: Recovery) -> str:
    if recovery.outcome == "nothing":
        return "no interrupted apply to recover" + (
            f"; {recovery.removed} leftover temporary files removed" if recovery.removed else ""
        )
    files = ", ".join(recovery.paths[:10]) + (" ..." if len(recovery.paths) > 10 else "")
    if recovery.kept:  # files changed after the crash: theirs, not "as it was before"
        how = f"{recovery.outcome}, except: " + "; ".join(recovery.kept)
    elif recovery.outcome == "rolled back":
        how = "rolled back: every file is as it was before it"
    else:
        how = "completed: it had committed, every file holds its new text"
    return f"an interrupted apply ({len(recovery.paths)} files: {files}) was {how}"


def recover(args: argparse.Namespace) -> int:
    """`recover`: what an apply killed half-way left behind, finished or undone."""
    from lsp_server import boot, journal  # with the writer: see place.place
    from lsp_server.disk import WriteError

    boot.finish()

    if args.root is not None and not Path(args.root).is_dir():
        print(f"llm-patch: --root {args.root} is not a folder", file=sys.stderr)
        return 2
    root = find_root(args.root).path
    try:
        recovery = journal.recover(root, sweep=True)
    except WriteError as err:
        if args.json:
            print_json({"ok": False, "error": err.failure.to_json()})
        else:
            print(f"llm-patch: {err.failure.message}", file=sys.stderr)
        return 1
    if args.json:
        result = {
            "ok": True,
            "outcome": recovery.outcome,
            "paths": list(recovery.paths),
            "removed": recovery.removed,
            "kept": list(recovery.kept),
        }
        print_json(result)
    else:
        print(f"llm-patch: {_recovery_words(recovery)}")
    return 0
