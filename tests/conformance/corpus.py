"""Where the peer corpora live: `$LLM_PATCH_CONFORMANCE`; else `.conformance/` in the
repository, where `python3 tools/fetch_conformance.py` puts them (fetched from upstream at
pinned commits, hash-checked); else `conformance/` in the folder `shared/` beside the
repository. A test whose corpus is not there skips, saying how to fetch it."""

from __future__ import annotations

import os
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
FETCHED = REPO / ".conformance"
CORPORA = (
    Path(os.environ["LLM_PATCH_CONFORMANCE"])
    if os.environ.get("LLM_PATCH_CONFORMANCE")
    else FETCHED
    if FETCHED.is_dir()
    else REPO.parent / "shared" / "conformance"
)


def missing(what: str) -> str:
    """The skip reason of a test whose corpus is absent: what to run to have it."""
    # the folder beside the repository is a fallback few have: name where the script puts
    # the corpora unless that folder is really there
    where = CORPORA if CORPORA.is_dir() or CORPORA == FETCHED else FETCHED
    return (
        f"{what} not found in {where}: fetch it with `python3 tools/fetch_conformance.py` "
        "(from upstream at pinned commits, hash-checked), or set LLM_PATCH_CONFORMANCE"
    )


def working_copy(src: Path, dst: Path) -> None:
    """A scenario's input tree copied for a run to change: contents and layout only. The
    corpora may sit on a read-only mount (modes r--), and llm-patch refuses to write a file
    whose mode says read-only — the peers' scenarios are about text, not permissions."""
    import shutil

    shutil.copytree(src, dst, copy_function=shutil.copyfile)
    for folder in [dst, *(p for p in dst.rglob("*") if p.is_dir())]:
        folder.chmod(0o755)
