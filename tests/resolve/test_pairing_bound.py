"""A fuzzy block that rewrites a whole stretch pairs each new line with the old line it
stands for (to keep the file's characters its quote left out), comparing every old line
with every new one. A whole 2,000-line file rewritten under a quote with one misquoted
line took 25 s of CPU (100 s at 4,000): past `MAX_PAIRINGS` such a block is refused, and
under it the pairing is as before."""

from __future__ import annotations

from pathlib import Path

from lsp_server.model import ErrorCode
from lsp_server.plan import plan_reply
from lsp_server.reply import parse_reply
from lsp_server.resolve.replacement import MAX_PAIRINGS
from lsp_server.workspace import DiskWorkspace


def _rewrite(n: int, name: str) -> list[str]:
    return [x for i in range(n // 2) for x in (f"{name}_{i} = {i}", "")]


def _case(tmp_path: Path, n: int):
    old, new = _rewrite(n, "old"), _rewrite(n, "new")
    quoted = list(old)
    quoted[n // 2] = quoted[n // 2].replace(" = ", " == ")  # one line misremembered
    text = "".join(x + "\n" for x in old)
    (tmp_path / "a.py").write_text(text)
    reply = "a.py\n```python\n<<<<<<< SEARCH\n" + "".join(x + "\n" for x in quoted)
    reply += "=======\n" + "".join(x + "\n" for x in new) + ">>>>>>> REPLACE\n```\n"
    plan = plan_reply(parse_reply(reply), DiskWorkspace(tmp_path))
    return plan, "".join(x + "\n" for x in new)


def test_a_misquoted_rewrite_too_large_to_pair_is_refused(tmp_path: Path):
    plan, _ = _case(tmp_path, 2000)
    assert not plan.ok and plan.files == ()
    failure = plan.outcomes[0].failure
    assert failure.code is ErrorCode.TEXT_NOT_FOUND
    olds, news = failure.details["stretch"]
    assert olds * news > MAX_PAIRINGS


def test_a_misquoted_rewrite_within_the_bound_is_placed_as_written(tmp_path: Path):
    plan, expected = _case(tmp_path, 120)
    assert plan.ok, plan.outcomes
    (change,) = plan.files
    assert change.new_text == expected
