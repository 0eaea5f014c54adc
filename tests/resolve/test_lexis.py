"""The lexical reading kept per text (resolve/lexis.py).

`TopLevel.proves(text, at)` answers from the line starts it proved before; the answer must
always be the one reading the whole text above `at` gives (`Lexis.neutral(text, 0, at)`),
whatever was asked before, and an entry must never answer for another text. Texts are
random lines from pools that open and close strings, comments, templates and brackets;
questions are random line starts, asked in random order, with steps small enough that
every text has several.
"""

from __future__ import annotations

import re
from unittest import mock

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lsp_server.resolve import cache, lexis

_POOLS = {
    "python": [
        "def f(a, b):",
        "    return a",
        "x = (1,",
        "    2)",
        "y = [",
        "]",
        "z = {'k': (1, 2)}",
        '"""',
        "'''",
        'doc = """one"""',
        "s = 'it\\'s'",
        's = "a\\"b"',
        "# comment (",
        "#",
        "value = call(",
        ")",
        "\\",
        "x = 1 \\",
        "@decorator",
        "class K:",
        "else:",
        "",
        'raw = r"\\d+"',
        "t = '''a",
        "b'''",
        'u = """x\\"""',
        "q = ''",
        'e = ""',
        "]",
        "}",
    ],
    "typescript": [
        "function f(a: number) {",
        "}",
        "let x = (1,",
        "2);",
        "const s = 'it\\'s';",
        "/*",
        "*/",
        "// comment (",
        "const t = `a ${b} c`;",
        "const u = `",
        "`;",
        "x = a / b;",
        "const r = /a(b/;",
        '"',
        "'",
        "[",
        "]",
        "{",
        "(",
        ")",
        "",
        "export class C {",
        "const v = `${ {a: 1} }`;",
        "else {",
        "@Component()",
    ],
    "go": [
        "func f() {",
        "}",
        "x := (1 +",
        "2)",
        "var s = `raw",
        "raw`",
        "var q = 'a'",
        "/*",
        "*/",
        "// comment (",
        '"',
        "'",
        "[",
        "]",
        "{",
        "(",
        ")",
        "",
        "type T struct {",
        'var e = "a\\"b"',
        "x := a / b",
    ],
    "javascript": [
        "function f() {",
        "}",
        "const el = <div>(</div>;",
        "x = a < b;",
        "`",
        "${",
        "/*",
        "*/",
        "// c",
        "'",
        '"',
        "(",
        ")",
        "",
        "const s = 'x';",
    ],
}


@st.composite
def _texts(draw: st.DrawFn, language: str) -> str:
    lines = draw(st.lists(st.sampled_from(_POOLS[language]), max_size=60))
    return "".join(line + "\n" for line in lines)


def _line_starts(text: str) -> list[int]:
    return [0] + [i + 1 for i, c in enumerate(text) if c == "\n"]


@pytest.mark.parametrize("language", sorted(lexis.LANGUAGES))
@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_a_kept_answer_is_the_reading_from_the_start(language: str, data: st.DataObject) -> None:
    with mock.patch.object(lexis, "STEP", data.draw(st.integers(1, 64))):
        _questions(language, data)


def _questions(language: str, data: st.DataObject) -> None:
    text = data.draw(_texts(language))
    model = lexis.lexis_for(language)
    assert model is not None
    cache.clear_all()
    index = lexis.top_level(text, model, language)
    starts = _line_starts(text)
    # mostly line starts (what the syntax check asks), and any offset now and then
    anywhere = st.one_of(st.sampled_from(starts), st.integers(0, len(text)))
    for at in data.draw(st.lists(anywhere, min_size=1, max_size=12)):
        assert index.proves(text, at) == model.neutral(text, 0, at), (at, index.known)
    # every line start it keeps is one the reading from the start proves
    assert all(model.neutral(text, 0, k) for k in index.known)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_an_entry_never_answers_for_another_text(data: st.DataObject) -> None:
    """Two texts that differ anywhere (even only below the question) have two entries;
    an equal text, even another string object, shares one."""
    model = lexis.lexis_for("python")
    assert model is not None
    a = data.draw(_texts("python"))
    b = data.draw(_texts("python"))
    cache.clear_all()
    first = lexis.top_level(a, model, "python")
    for at in _line_starts(a):
        first.proves(a, at)
    second = lexis.top_level(b, model, "python")
    assert (second is first) == (a == b)
    for at in _line_starts(b):
        assert second.proves(b, at) == model.neutral(b, 0, at)
    copy = "".join(list(a))  # an equal text, not the same object
    assert lexis.top_level(copy, model, "python") is lexis.top_level(a, model, "python")
    assert lexis.top_level(a, model, "go") is not first  # nor for another language


def test_a_second_question_reads_only_from_the_nearest_kept_line(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Not vacuous: after one question deep in a big file, a question near it reads a
    few lines, not the file; and `cache.clear_all` forgets (a benchmark's first sight)."""
    model = lexis.lexis_for("python")
    assert model is not None
    unit = 'def f(items):\n    """Doc (with a bracket."""\n    return [x for x in items]\n\n'
    text = unit * 20_000  # 80,000 lines, about 1.3 MB
    read: list[int] = []
    real = lexis.Lexis.neutral

    def counted(self: lexis.Lexis, t: str, start: int, end: int) -> bool:
        read.append(end - start)
        return real(self, t, start, end)

    monkeypatch.setattr(lexis.Lexis, "neutral", counted)
    cache.clear_all()
    deep = len(text) * 2 // 3
    deep -= deep % len(unit)  # a `def` line
    index = lexis.top_level(text, model, "python")
    assert index.proves(text, deep)
    assert sum(read) == deep  # first sight: the text above, once
    assert len(index.known) > 3  # with steps kept on the way
    read.clear()
    assert index.proves(text, deep - 100 * len(unit))
    assert index.proves(text, deep + 3 * len(unit))
    assert 0 < sum(read) <= 2 * lexis.STEP + 200 * len(unit)
    read.clear()
    cache.clear_all()
    assert lexis.top_level(text, model, "python").proves(text, deep)
    assert sum(read) == deep


def test_a_text_inside_a_string_is_never_kept_as_top_level() -> None:
    model = lexis.lexis_for("python")
    assert model is not None
    text = "x = 1\nTEXT = '''\n" + "def f():\n    return 1\n\n" * 30_000 + "'''\ny = 2\n"
    cache.clear_all()
    index = lexis.top_level(text, model, "python")
    inside = text.index("def f():", len(text) // 2)
    assert not index.proves(text, inside)
    assert index.known == [0]  # no step inside the string was kept
    assert index.proves(text, text.index("y = 2"))


@pytest.mark.parametrize("language", sorted(lexis.LANGUAGES))
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_what_is_carried_to_the_edited_text_is_what_reading_it_proves(
    language: str, data: st.DataObject
) -> None:
    """After an edit (some lines replaced), the edited text's entry starts with the line
    starts carried from the old one's: each must be one the reading of the new text from
    its start proves, and every later answer too."""
    with mock.patch.object(lexis, "STEP", data.draw(st.integers(1, 64))):
        _carried(language, data)


def _carried(language: str, data: st.DataObject) -> None:
    model = lexis.lexis_for(language)
    assert model is not None
    lines = data.draw(st.lists(st.sampled_from(_POOLS[language]), max_size=60))
    i = data.draw(st.integers(0, len(lines)))
    j = data.draw(st.integers(i, len(lines)))
    put = data.draw(st.lists(st.sampled_from(_POOLS[language]), max_size=4))
    old = "".join(x + "\n" for x in lines)
    new = "".join(x + "\n" for x in lines[:i] + put + lines[j:])
    start = len("".join(x + "\n" for x in lines[:i]))
    end = len(old) - len("".join(x + "\n" for x in lines[j:]))
    new_end = end + len(new) - len(old)
    cache.clear_all()
    index = lexis.top_level(old, model, language)
    for at in data.draw(st.lists(st.sampled_from(_line_starts(old)), max_size=8)):
        index.proves(old, at)
    index.carry(old, new, start, end, new_end)
    carried = lexis.top_level(new, model, language)
    assert all(model.neutral(new, 0, k) for k in carried.known), carried.known
    for at in _line_starts(new):
        assert carried.proves(new, at) == model.neutral(new, 0, at)


def test_the_next_edit_of_an_edited_text_reads_from_near_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Not vacuous: the syntax check of one edit deep in a big file carries its proven
    line starts to the edited text, so checking a second edit there reads little."""
    from lsp_server.resolve import syntax_check

    unit = "def f_{i}(items):\n    return [x + {i} for x in items]\n\n\n"
    old = "".join(unit.format(i=i) for i in range(20_000))  # 80,000 lines
    first = old.replace("    return [x + 15000 ", "    return [x - 15000 ", 1)
    second = first.replace("    return [x + 15010 ", "    return [x - 15010 ", 1)
    cache.clear_all()
    assert syntax_check.regional_clean(old, first, "python")
    read: list[int] = []
    real = lexis.Lexis.neutral

    def counted(self: lexis.Lexis, t: str, start: int, end: int) -> bool:
        read.append(end - start)
        return real(self, t, start, end)

    monkeypatch.setattr(lexis.Lexis, "neutral", counted)
    assert syntax_check.regional_clean(first, second, "python")
    assert 0 < sum(read) < 2 * lexis.STEP + 4096  # not the 60,000 lines above it


@pytest.mark.parametrize("language", sorted(lexis.LANGUAGES))
@given(data=st.data())
@settings(max_examples=200, deadline=None)
def test_heads_finds_every_line_that_may_start_a_statement(
    language: str, data: st.DataObject
) -> None:
    """The windows' boundaries are looked for among `heads`' matches only (in C), not
    line by line: every line start `starts_at` accepts must be one, and each is a line
    start, searched from anywhere."""
    model = lexis.lexis_for(language)
    assert model is not None and model.heads is not None
    text = data.draw(_texts(language)) + data.draw(st.sampled_from(["", "x", "\n", "@d"]))
    starts = _line_starts(text)
    found = [m.start() for m in model.heads.finditer(text)]
    assert set(found) <= set(starts)
    assert {p for p in starts if model.starts_at(text, p)} <= set(found)
    lo = data.draw(st.integers(0, len(text)))
    assert [m.start() for m in model.heads.finditer(text, lo)] == [p for p in found if p >= lo]


@pytest.mark.parametrize("language", sorted(lexis.LANGUAGES))
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_the_alternative_added_for_speed_changes_no_reading(
    language: str, data: st.DataObject
) -> None:
    """`skip` carries an alternative that never matches (`lexis._NEVER`, for a faster
    search): it strips what the language's expression alone strips, and every reading
    is the one that expression gives, `\\x01` characters in the text included."""
    model = lexis.lexis_for(language)
    assert model is not None
    plain = model._replace(skip=re.compile(lexis._LEXES[language][0]))
    assert model.skip.pattern != plain.skip.pattern
    lines = data.draw(st.lists(st.sampled_from([*_POOLS[language], "\x01", "a\x01(", "#\x01"])))
    text = "".join(line + "\n" for line in lines)
    assert model.skip.sub("", text) == plain.skip.sub("", text)
    for at in data.draw(st.lists(st.sampled_from(_line_starts(text)), max_size=8)):
        assert model.neutral(text, 0, at) == plain.neutral(text, 0, at)
