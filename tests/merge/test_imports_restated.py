"""An import the file has, restated by a snippet under a comment of its own, is that
import with the comment added — never a second copy of the import (found by the
idempotence property: a whole file that added an indented comment above the file's
first import was merged as a fragment, and `import os` stood twice)."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.merge.support import plan, written

FILE = (
    "import os\nimport sys\n\n\ndef f0(path):\n    x = load(path)\n\n\n"
    "def f1(path):\n    return path\n"
)


def test_a_comment_above_a_restated_import_is_added_once(tmp_path):
    reply = (
        "m.py\n```python\n# the one import we need\nimport os\n\n"
        "def f0(path):\n    x = 2\n```\n"
    )
    out = written(plan(tmp_path, {"m.py": FILE}, reply), "m.py")
    assert out.count("import os") == 1
    assert out.startswith("# the one import we need\nimport os\nimport sys\n")
    assert "    x = 2\n" in out
    again = plan(tmp_path, {"m.py": out}, reply)
    assert again.ok and not again.files


@settings(max_examples=100, deadline=None, suppress_health_check=list(HealthCheck))
@given(
    comment=st.from_regex(r"# [a-z ]{1,12}", fullmatch=True),
    indent=st.sampled_from(["", "    "]),
    which=st.sampled_from(["os", "sys"]),
)
def test_a_restated_import_is_never_written_twice(tmp_path_factory, comment, indent, which):
    root = tmp_path_factory.mktemp("m")
    reply = f"m.py\n```\n{indent}{comment}\nimport {which}\n\ndef f0(path):\n    x = 3\n```\n"
    p = plan(root, {"m.py": FILE}, reply)
    if not p.ok:
        return  # refused: allowed (prove or ask)
    out = written(p, "m.py")
    assert out.count(f"import {which}\n") == 1
    assert out.count(comment) == 1
    assert out.index(comment) < out.index(f"import {which}\n")
