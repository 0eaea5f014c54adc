"""The merge room's questions about a block (`shape`) share one reading of its snippet per
distinct arguments: an answer must never come from a reading made for another file text,
path or question."""

from __future__ import annotations

import itertools

from lsp_server.resolve import cache
from lsp_server.resolve.merge import shape

CONTENT = "def f():\n    x = 1\n    # ... rest of the setup ...\n    return x\n"
# the file holds the block's comment at that place (then it is that comment, no elision) ...
HOLDS = CONTENT + "\n\ndef g():\n    pass\n"
# ... or does not (then the comment marks code left out)
LACKS = "def f():\n    x = 1\n    y = 2\n    return x\n\n\ndef g():\n    pass\n"

QUESTIONS = [
    ("elides_code", HOLDS, "m.py"),
    ("elides_code", LACKS, "m.py"),
    ("elides_code", LACKS, "n.py"),
    ("is_fragment", HOLDS, "m.py"),
    ("is_fragment", LACKS, "m.py"),
    ("restates_some", LACKS, "m.py"),
]


def _ask(question: tuple[str, str, str]) -> object:
    name, text, path = question
    return getattr(shape, name)(text, path, CONTENT)


def _fresh(question: tuple[str, str, str]) -> object:
    cache.clear_all()
    return _ask(question)


def test_the_comment_the_file_holds_decides_the_answer() -> None:
    # the oracle below would be vacuous if the file text did not matter
    assert _fresh(QUESTIONS[0]) is False and _fresh(QUESTIONS[1]) is True


def test_answers_in_any_order_are_the_uncached_answers() -> None:
    expected = {q: _fresh(q) for q in QUESTIONS}
    cache.clear_all()
    bare = shape.is_bare("m.py", CONTENT)  # a question without the file's text
    for order in itertools.permutations(QUESTIONS, 4):
        cache.clear_all()
        for q in order:
            assert _ask(q) == expected[q], (q, order)
            assert shape.is_bare("m.py", CONTENT) is bare
