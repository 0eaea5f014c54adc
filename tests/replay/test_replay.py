"""Every real reply of the corpus (see corpus.py) replayed through `llm-patch apply`.

The suite fails on a wrong write: files written that are not, byte for byte, the files the
commit that followed the reply holds. A refusal is counted, not failed (proving a reading
may take more than the reply shows) — except where no reading can be in doubt: a case whose
every block is a SEARCH/REPLACE whose SEARCH text occurs exactly once, verbatim, in the file
it names (or a new file), and whose literal replacement gives the expected files. Refusing
one of those is a regression whatever the rest of the engine learns.

Each reply placed right is then applied a second time, to the files it left (what an editor
user who presses the key twice, or a script run twice, does): it must write nothing but
blank lines (a block that only adds blank lines next to its anchor is placed each time, see
`resolve/applied.py`), and should find every block already applied, exit 0.
"""

from __future__ import annotations

import pytest

from lsp_server.model import Action, Format, HunkKind
from lsp_server.reply import parse_reply
from tests.replay.corpus import Case, Replay, again, cases, replay

CASES = cases()
_FIRST: dict[str, Replay] = {}

# Right cases whose second run is refused today (nothing written) instead of finding every
# block already applied: gaps of the "applying twice is a no-op" rule, each named.
_ADAPTED = "second run: TEXT_NOT_FOUND for a block the first run placed adapted (the file holds "
_ADAPTED += "its new text as the rung rewrote it, not as the reply wrote it)"
_DELETION = "second run: refused for a block that only deletes: a deletion leaves no trace to "
_DELETION += "recognise, and a look-alike found loosely is a second reading (resolve/applied.py)"
SECOND_RUN_REFUSED = {
    "aider/017": "second run: MALFORMED_BLOCK for a block re-indented on its first run (its "
    "new text stands at another indentation, read as a shift of 0 and 2 columns at once)",
    "aider/022": _ADAPTED,
    "aider-turns/003": _ADAPTED,
    "aider-turns/019": _DELETION,
    "aider-chat/001": _DELETION,
    "aider-repos/013": _DELETION,
    "aider-repos/044": _DELETION,
}
# Right cases whose second run writes again, by the documented rule that blank lines are no
# evidence (resolve/applied.py: a block adding only blank lines is placed each time).
SECOND_RUN_ADDS_BLANKS = {
    "aider-chat/126": "a SEARCH `return res` whose REPLACE adds one blank line after it",
}


def _first(case: Case) -> Replay:
    if case.name not in _FIRST:
        _FIRST[case.name] = replay(case)
    return _FIRST[case.name]


def _only_blank_lines_differ(a: bytes, b: bytes) -> bool:
    def text(data: bytes) -> list[str]:
        return [x for x in data.decode("utf-8", "replace").splitlines() if x.strip()]

    return text(a) == text(b)


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
    """No wrong write; and a reply placed right, applied again to the files it left, writes
    no text and finds every block already applied (or is one of the named gaps, which must
    still write nothing)."""
    r = _first(case)
    assert r.outcome != "wrong", r.why()
    if r.outcome == "refused" and case.expect == "after":
        certain = _literal_result(case)
        assert certain != case.expected(), "a plain literal reply was refused: " + r.why()
    if r.outcome != "right":
        return
    second = again(r)
    for path in set(r.result) | set(second.result):
        before, after = r.result.get(path), second.result.get(path)
        assert before is not None and after is not None, f"{case.name}: {path} created/deleted"
        assert _only_blank_lines_differ(before, after), (
            f"{case.name}: the second run of a reply placed right rewrote {path}: " + second.why()
        )
    gap = SECOND_RUN_REFUSED.get(case.name) or SECOND_RUN_ADDS_BLANKS.get(case.name)
    if gap is None:
        assert second.outcome == "right", second.why()
    else:  # a known gap: when it closes, take the case off its list
        assert second.outcome != "right", f"{case.name} is no longer a gap ({gap})"
