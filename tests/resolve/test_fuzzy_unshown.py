"""A fuzzy placement never changes a file line the reply does not show (issue 22, item 7).

Real 2023 replies quote lines the file never had — an `import glob` the model imagined
inside a class, a quote that runs from a file's imports straight into a method far below.
Matched loosely, such a block's imagined line stands where a real one is, and the change
the block makes to its own line (dropped, or extended with `, MagicMock`) was written over
the file's line: `def __init__` deleted, a test's assertion rewritten, exit 0. A line the
block changes or drops must be the file's line, at least half alike; otherwise the block is
refused naming both.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from lsp_server.model import ErrorCode
from tests.reply.agent_workspace import examples, place


def sr(path: str, old: str, new: str) -> str:
    return f"{path}\n```python\n<<<<<<< SEARCH\n{old}=======\n{new}>>>>>>> REPLACE\n```\n"


IMPORTS = "import json\nimport os\nimport shlex\nimport subprocess\nimport sys\n\n"
COMMANDS = (
    IMPORTS + "import git\nimport tiktoken\nfrom prompt_toolkit.completion import Completion\n\n"
    "from aider import prompts, utils\n\n\n"
    "class Commands:\n"
    "    def __init__(self, io, coder):\n"
    "        self.io = io\n"
    "        self.coder = coder\n"
)


def test_an_imagined_line_the_block_drops_does_not_take_the_files_line_with_it():
    # the block moves an `import glob` it believes sits inside the class to the top
    quoted = COMMANDS.split("\n\n\nclass")[0] + "\n\nclass Commands:\n"
    reply = sr(
        "aider/commands.py",
        quoted + "    import glob\n",
        quoted.replace("import sys\n", "import sys\nimport glob\n"),
    )
    placed = place(reply, {"aider/commands.py": COMMANDS})
    assert placed.codes() == [ErrorCode.TEXT_NOT_FOUND]
    assert placed.files["aider/commands.py"] == COMMANDS
    assert "import glob" in placed.outcomes[0].failure.message
    assert "def __init__(self, io, coder):" in placed.outcomes[0].failure.message


def test_a_look_alike_line_the_block_rewrites_is_still_placed():
    # a typo in the line the block changes is the file's line, half alike and more
    code = "def total(items):\n    subtotal = sum(i.price for i in items)\n    return subtotal\n"
    reply = sr(
        "m.py",
        "def total(items):\n    subtotal = sum(i.prise for i in items)\n    return subtotal\n",
        "def total(items):\n    subtotal = sum(i.prise for i in items) * 2\n    return subtotal\n",
    )
    placed = place(reply, {"m.py": code})
    assert placed.plan.ok, placed.codes()
    assert placed.files["m.py"] == code.replace("for i in items)", "for i in items) * 2")


# --- the property: a file line the block's copy does not resemble, at the block's edge, ----
# --- is never changed --------------------------------------------------------------------

_CODE = [f"    value_{k} = compute_{k}(source, {k})" for k in range(12)]
_ELSEWHERE = ["from unittest.mock import patch", "import glob", "self.assertTrue(result)"]


@settings(max_examples=examples(150), deadline=None)
@given(
    size=st.integers(6, 12),
    data=st.data(),
    imagined=st.sampled_from(_ELSEWHERE),
    edge=st.sampled_from(["first", "last"]),
    how=st.sampled_from(["drop", "extend"]),
)
def test_a_line_the_block_imagined_at_its_edge_never_changes_the_file_line_in_its_place(
    size, data, imagined, edge, how
):
    body = _CODE[:size]
    code = "def f(source):\n" + "".join(x + "\n" for x in body)
    lo = data.draw(st.integers(0, size - 5))
    hi = data.draw(st.integers(lo + 5, size))
    at = lo if edge == "first" else hi - 1  # the file line the imagined one stands for
    quoted = ["    " + imagined if k == at else body[k] for k in range(lo, hi)]
    k = at - lo
    if how == "drop":
        new = quoted[:k] + quoted[k + 1 :]
    else:
        new = [x + ", extra" if j == k else x for j, x in enumerate(quoted)]
    reply = sr("m.py", "".join(x + "\n" for x in quoted), "".join(x + "\n" for x in new))
    placed = place(reply, {"m.py": code})
    # the oracle: the file's line in the imagined line's place is still there, as it was
    assert body[at] + "\n" in placed.files["m.py"]


def test_a_misquoted_line_between_lines_the_file_has_is_replaced_as_the_reply_says():
    # the quote anchors the stretch at both ends; what lies between is replaced
    code = "def f():\n    a = 1\n    log(a)\n    b = 2\n    c = 3\n    d = 4\n    return a\n"
    reply = sr(
        "m.py",
        "def f():\n    a = 1\n    pass\n    b = 2\n    c = 3\n    d = 4\n    return a\n",
        "def f():\n    return 1\n",
    )
    placed = place(reply, {"m.py": code})
    assert placed.plan.ok, placed.codes()
    assert placed.files["m.py"] == "def f():\n    return 1\n"
