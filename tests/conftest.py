"""Session-wide test settings."""

from __future__ import annotations

import os
import shutil
import tempfile

_made: list[str] = []


def pytest_configure(config: object) -> None:
    # servers started by the tests keep their start-up code cache (lsp_server.boot.codecache)
    # in a folder of this session, not in the user's ~/.cache
    if "LLM_PATCH_CODE_CACHE" not in os.environ:
        _made.append(tempfile.mkdtemp(prefix="llm-patch-codecache-"))
        os.environ["LLM_PATCH_CODE_CACHE"] = _made[-1]
    # and `llm-patch undo`'s records of applies outside a repository (lsp_server.cli
    # .undo_record) go to a folder of this session, not the user's ~/.local/state
    _made.append(tempfile.mkdtemp(prefix="llm-patch-state-"))
    os.environ["LLM_PATCH_STATE"] = _made[-1]
    # the key that signs the writer's journals lives there too: made now, so that no test
    # that counts an apply's disk calls counts the key's first making among them
    from lsp_server.journal import user_key

    user_key(create=True)


def pytest_unconfigure(config: object) -> None:
    for folder in _made:
        shutil.rmtree(folder, ignore_errors=True)
