"""Where the peer corpora live: `$LLM_PATCH_CONFORMANCE`, else `conformance/` in the folder
`shared/` beside the repository (`<repo>/../shared/conformance`). A test whose corpus is not
there skips."""

from __future__ import annotations

import os
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
CORPORA = (
    Path(os.environ["LLM_PATCH_CONFORMANCE"])
    if os.environ.get("LLM_PATCH_CONFORMANCE")
    else REPO.parent / "shared" / "conformance"
)
