"""Session-wide test settings."""

from __future__ import annotations

import os
import shutil
import tempfile

from hypothesis import HealthCheck, settings

_made: list[str] = []

# One set of hypothesis profiles for the whole session (a profile is process-wide: a second
# conftest loading its own would overrule this one for every test). Property tests draw the
# same examples on every run of the suite (`derandomize`): a red suite then means a change
# broke something, not that a run happened on an old bug. Exploring for new ones is its own
# run: `HYPOTHESIS_PROFILE=explore` draws fresh examples, `long` fifty times as many for
# tests that do not pin their count (docs/design.md, "Tests and conformance").
_COMMON = dict(
    deadline=None,  # shared CI machines stall; bounds on time are asserted with timeouts
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    print_blob=True,
    max_examples=150,  # for tests that do not pin their own count
)
settings.register_profile("suite", derandomize=True, **_COMMON)
settings.register_profile("explore", derandomize=False, **_COMMON)
settings.register_profile("long", derandomize=False, **{**_COMMON, "max_examples": 150 * 50})
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "suite"))


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
