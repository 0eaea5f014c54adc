"""Every real reply of the corpus (see corpus.py) replayed through `llm-patch apply`.

The suite fails on a wrong write: files written that are not, byte for byte, the files the
commit that followed the reply holds. A refusal is counted, not failed (proving a reading
may take more than the reply shows) — except where no reading can be in doubt: a case whose
every block is a SEARCH/REPLACE whose SEARCH text occurs exactly once, verbatim, in the file
it names (or a new file), and whose literal replacement gives the expected files. Refusing
one of those is a regression whatever the rest of the engine learns.
"""

from __future__ import annotations

import pytest

from lsp_server.model import Action, Format, HunkKind
from lsp_server.reply import parse_reply
from tests.replay.corpus import Case, cases, replay

CASES = cases()


def _literal_result(case: Case) -> dict[str, bytes] | None:
    """The files a plain find-and-replace of every block gives, or None when some block is
    not a plain, unique, verbatim SEARCH (an independent reading of the easy cases)."""
    parsed = parse_reply((case.folder / "reply.md").read_text(encoding="utf-8"))
    if parsed.failure is not None or not parsed.blocks:
        return None
    files = {p: b.decode("utf-8", "replace") for p, b in case.before().items()}
    for block in parsed.blocks:
        if block.format is not Format.SEARCH_REPLACE or block.action is not Action.MODIFY:
            return None
        if block.error is not None or block.path is None:
            return None
        for hunk in block.hunks:
            if hunk.kind is not HunkKind.REPLACE:
                return None
            text = files.get(block.path)
            if text is None and hunk.old == "":
                files[block.path] = hunk.new
                continue
            if text is None or hunk.old == "" or text.count(hunk.old) != 1:
                return None
            files[block.path] = text.replace(hunk.old, hunk.new)
    return {p: t.encode("utf-8") for p, t in files.items()}


def test_corpus_is_there():
    assert len(CASES) >= 41
    for case in CASES:
        assert case.meta.get("license") and case.meta.get("repo"), case.name
        assert case.expect in ("after", "refuse-or-place", "refuse"), case.name
        assert (case.folder / "reply.md").is_file(), case.name


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_replay(case: Case):
    r = replay(case)
    assert r.outcome != "wrong", r.why()
    if r.outcome == "refused" and case.expect == "after":
        certain = _literal_result(case)
        assert certain != case.expected(), "a plain literal reply was refused: " + r.why()
