"""Session-wide test settings."""

from __future__ import annotations

import os
import tempfile


def pytest_configure(config: object) -> None:
    # servers started by the tests keep their start-up code cache (lsp_server.codecache)
    # in a folder of this session, not in the user's ~/.cache
    os.environ.setdefault("LLM_PATCH_CODE_CACHE", tempfile.mkdtemp(prefix="llm-patch-codecache-"))
