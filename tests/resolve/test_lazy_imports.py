"""What placing a block loads (issue 17): the single-exact path needs neither the matching
ladder nor counted replacements, and a block that does need them still gets them. Run in a
fresh interpreter, as the CLI is: in this test process every module is loaded already."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

PROBE = """
import json, sys
from lsp_server.model import Hunk
from lsp_server.resolve.hunks import apply_hunks
text, old, new, every = json.loads(sys.argv[1])
out = apply_hunks(text, [Hunk(old=old, new=new, every=every)]).text
print(json.dumps({"text": out, "modules": sorted(sys.modules)}))
"""

LADDER = {
    "lsp_server.resolve.ladder",
    "lsp_server.resolve.replacement",
    "lsp_server.resolve.alignment",
    "lsp_server.resolve.placeholders",  # the ladder reads `...` lines as elisions
}
COUNTED = {"lsp_server.resolve.counted"}
# whole-file blocks only: never loaded by a hunk
LAZY_MERGE = {
    "lsp_server.resolve.merge",
    "lsp_server.resolve.merge.lazy",
    "lsp_server.resolve.line_shape",
}
FILE = "def f():\n    return 1\n\n\ndef g():\n    return 2\n"


def _apply(text: str, old: str, new: str, every: bool = False) -> tuple[str, set[str]]:
    done = subprocess.run(
        [sys.executable, "-c", PROBE, json.dumps([text, old, new, every])],
        capture_output=True,
        text=True,
        check=True,
    )
    out = json.loads(done.stdout)
    return out["text"], set(out["modules"])


@pytest.mark.parametrize(
    "old, new, every, expected, loads",
    [
        # quoted exactly, once: placed without the ladder
        ("    return 1\n", "    return 10\n", False, FILE.replace("1\n", "10\n"), set()),
        # trailing spaces the file lacks: the ladder's whitespace rung places it
        ("    return 1   \n", "    return 10\n", False, FILE.replace("1\n", "10\n"), LADDER),
        # every occurrence: counted replacements, found without the ladder
        ("    return 1\n", "    return 10\n", True, FILE.replace("1\n", "10\n"), COUNTED),
    ],
)
def test_a_block_loads_only_the_resolver_parts_it_needs(old, new, every, expected, loads):
    text, modules = _apply(FILE, old, new, every)
    assert text == expected
    assert modules & (LADDER | COUNTED) == loads
    assert not modules & LAZY_MERGE
