"""SYNTAX_BROKEN in proportion to the edit (resolve/syntax_check.py).

The regional check may only ever say "this edit adds no error"; its verdict, and the
verdict of `new_errors` as a whole, must be the one the whole-file check gives: parse the
whole old and new texts and compare their error counts (`_oracle`, the check as it was).
Files are generated Python, TypeScript, Go and JSON; edits replace random lines with lines
from a pool that opens and closes strings, brackets, comments and blocks.
"""

from __future__ import annotations

import json
import random
import re
from unittest import mock

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lsp_server.model import EditBlock as Block
from lsp_server.model import Format, Hunk, ParsedReply, Snapshot, WarningType
from lsp_server.plan import plan_reply
from lsp_server.resolve import cache as resolve_cache
from lsp_server.resolve import lexis, syntax, syntax_check

# --------------------------------------------------------------------------- the oracle


def _oracle(old: str, new: str, language: str) -> bool:
    """The whole-file check: the new text has more tree-sitter errors than the old."""
    syntax.forget_all()
    after = syntax.syntax_errors(new, "oracle-new", language)
    before = syntax.syntax_errors(old, "oracle-old", language)
    syntax.forget_all()
    return len(after) > len(before)


def _verdict(old: str, new: str, language: str) -> bool:
    syntax.forget_all()  # no cached tree: the regional path is taken first
    return syntax_check.new_errors(old, new, "checked", language) is not None


# --------------------------------------------------------------------------- files

_PY_UNITS = (
    ["def {n}(items, limit={k}):", '    """Collect {n} (see #{k})."""', "    out = []",
     "    for x in items:", "        if x > limit:", "            out.append(x)",
     "    return out", "", ""],
    ["@register", "def {n}():", "    return {{'a': [1, 2], 'b': ')'}}", "", ""],
    ["class {N}:", "    '''A class.'''", "", "    def run(self, x):",
     '        return f"{{x}} ({k})"', "", "    def stop(self):", "        pass", "", ""],
    ["if {n}:", "    x = ({k},", "        {k})", "else:", "    x = None", ""],
    ["TEXT_{k} = \"\"\"", "def not_code(:", "    [", "\"\"\"", ""],
    ["VALUES_{k} = [", "1,", "2,", "]", ""],
    ["# a comment with a quote ' and a bracket (", "{n} = 'x' + \"(\"  # [", ""],
    ["try:", "    pass", "except ValueError:", "    raise", "finally:", "    {n} = 1", ""],
)

_TS_UNITS = (
    ["export function {n}(items: number[]): number[] {{", "  const out: number[] = [];",
     "  for (const x of items) {{", "    if (x > {k}) {{", "      out.push(x);", "    }}",
     "  }}", "  return out;", "}}", ""],
    ["// a comment with a quote ' and a bracket (", "const {n} = `value ${{{k}}} and (`;", ""],
    ["export class {N} {{", "  private count = {k};", "  run(): string {{",
     "    return \"(\" + this.count + ']';", "  }}", "}}", ""],
    ["/* a block comment", "function broken( {{", "*/", "let {n} = [{k}, '['];", ""],
    ["if ({n}) {{", "  console.log({k});", "}}", "else {{", "  console.log(0);", "}}", ""],
    ["const {n}Text = `", "function notCode( {{", "`;", ""],
)

_GO_UNITS = (
    ["func {N}(items []int) []int {{", "\tout := []int{{}}", "\tfor _, x := range items {{",
     "\t\tif x > {k} {{", "\t\t\tout = append(out, x)", "\t\t}}", "\t}}", "\treturn out",
     "}}", ""],
    ["// a comment with a quote \" and a bracket (", "var {n} = \"(\" + string('[')", ""],
    ["var {n}Raw = `", "func notCode( {{", "`", ""],
    ["type {N} struct {{", "\tcount int", "}}", "", "func (t *{N}) Run() int {{",
     "\treturn t.count / {k}", "}}", ""],
    ["var (", "\t{n}A = {k}", "\t{n}B = \"{{\"", ")", ""],
)

_SNIPPETS = {
    "python": [
        "x = 1", "    y = 2", "        return z", "def f(a, b):", "class K:", "else:",
        "@decorator", "(", ")", "[", "]", "{", "}", '"""', "'''", '"', "'", "# comment",
        "#", "value = call(1,", "    2)", "\\", "if x:", "    pass", "", "print('(')",
        'doc = """one line"""', "z = {'k': [1, (2, 3)]}", "elif y:", "except:", "\x0c",
        "w = 1 \x0c v = 2",
    ],
    "typescript": [
        "let x = 1;", "  y = 2;", "function f(a: number) {", "}", "{", "(", ")", "[", "]",
        "`", "`${a}`", "`${", "'", '"', "/*", "*/", "// comment", "const r = /a(b/;",
        "x = a / b;", "else {", "} else {", "", "if (x) {", "return 1;", "export class C {",
        "const s = 'it''s';", "@Component()",
    ],
    "go": [
        "x := 1", "\ty := 2", "func f() {", "}", "{", "(", ")", "[", "]", "`", "'a'",
        "'", '"', "/*", "*/", "// comment", "var s = `raw", "raw`", "else {", "} else {",
        "", "if x {", "return 1", "type T struct {", "import \"fmt\"",
    ],
    "json": [
        "{", "}", "[", "]", '"a": 1,', '"b": [1, 2],', '"c": "text",', '"d": {', '"e"',
        ",", ":", "null", "true,", '"unterminated', "1e5", "NaN", "",
    ],
}


def _names(rng: random.Random, i: int) -> dict[str, str | int]:
    word = rng.choice(("load", "save", "parse", "check", "merge")) + f"_{i}"
    return {"n": word, "N": word.title().replace("_", ""), "k": rng.randrange(100)}


def _source(language: str, seed: int, units: int, kinds: slice = slice(None)) -> str:
    rng = random.Random(seed)
    if language == "json":
        doc = {
            f"key_{i}": rng.choice(
                ([1, 2, {"x": "y"}], {"nested": {"a": [i, "b"]}}, "text (", None, 3.5)
            )
            for i in range(units)
        }
        return json.dumps(doc, indent=2) + "\n"
    table = {"python": _PY_UNITS, "typescript": _TS_UNITS, "go": _GO_UNITS}[language][kinds]
    lines = ["package main", ""] if language == "go" else []
    for i in range(units):
        unit = rng.choice(table)
        lines += [line.format(**_names(rng, i)) for line in unit]
    return "\n".join(lines) + "\n"


_EXT = {"python": "py", "typescript": "ts", "go": "go", "json": "json"}


@st.composite
def _cases(draw: st.DrawFn, language: str) -> tuple[str, str]:
    old = _source(language, draw(st.integers(0, 10_000)), draw(st.integers(3, 25)))
    lines = old.split("\n")
    for _ in range(draw(st.integers(1, 3))):  # one to three edits, maybe far apart
        i = draw(st.integers(0, len(lines)))
        j = min(len(lines), i + draw(st.integers(0, 3)))
        pool = _SNIPPETS[language] + [x for x in lines if x.strip()]
        put = draw(st.lists(st.sampled_from(pool), max_size=3))
        lines[i:j] = put
    return old, "\n".join(lines)


# --------------------------------------------------------------------------- properties


@pytest.mark.parametrize("language", ["python", "typescript", "go", "json"])
@settings(max_examples=800, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_the_check_agrees_with_parsing_whole_files(language: str, data: st.DataObject) -> None:
    old, new = data.draw(_cases(language))
    broken = _oracle(old, new, language)
    syntax.forget_all()
    if syntax_check.regional_clean(old, new, language):
        assert not broken, "the regional check cleared an edit that adds errors"
    assert _verdict(old, new, language) == broken


@pytest.mark.parametrize("language", ["python", "typescript", "go"])
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_edits_spread_over_a_file_agree_too(language: str, data: st.DataObject) -> None:
    """The same property with every edit taken through the path for edits spread over a
    big file (changed lines found by a line diff), which small files rarely reach."""
    old, new = data.draw(_cases(language))
    walk = data.draw(st.booleans())  # the walk a few lines at a time, or one diff
    with (
        mock.patch.object(syntax_check, "_SPLIT_CHARS", 0),
        mock.patch.object(syntax_check, "_WALK_CHARS", 0 if walk else 1 << 16),
        mock.patch.object(syntax_check, "_STEP", data.draw(st.integers(1, 300))),
        mock.patch.object(syntax_check, "_REACH", data.draw(st.sampled_from([8, 1000, 1 << 20]))),
    ):
        if syntax_check.regional_clean(old, new, language):
            assert not _oracle(old, new, language)


@pytest.mark.parametrize("language", ["python", "go"])
@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_the_changed_spans_cover_every_difference(language: str, data: st.DataObject) -> None:
    """What `_changes` finds, a few differences at a time (`_walk`) or in one diff: spans
    in order, at the old text's line starts, with the texts equal between them, so that
    putting each new span in place of its old one turns the old text into the new one."""
    old, new = data.draw(_cases(language))
    with (
        mock.patch.object(syntax_check, "_SPLIT_CHARS", data.draw(st.sampled_from([0, 40]))),
        mock.patch.object(syntax_check, "_WALK_CHARS", data.draw(st.sampled_from([0, 50]))),
        mock.patch.object(syntax_check, "_STEP", data.draw(st.integers(1, 300))),
        mock.patch.object(syntax_check, "_REACH", data.draw(st.sampled_from([8, 1000]))),
        mock.patch.object(syntax_check, "_MAX_REGIONS", data.draw(st.sampled_from([1, 3, 64]))),
    ):
        spans = syntax_check._changes(old, new)
        limit = syntax_check._MAX_REGIONS
    if spans is None:
        return
    assert len(spans) <= limit
    built, a_at, b_at = [], 0, 0
    for a1, a2, b1, b2 in spans:
        assert a_at <= a1 <= a2 and b_at <= b1 <= b2
        assert old[a_at:a1] == new[b_at:b1]
        for at in (a1, a2):  # the windows are cut at the old text's line starts
            assert at in (0, len(old)) or old[at - 1] == "\n"
        built += [old[a_at:a1], new[b1:b2]]
        a_at, b_at = a2, b2
    assert old[a_at:] == new[b_at:]
    assert "".join(built) + old[a_at:] == new


@pytest.mark.parametrize("language", ["python", "typescript", "go"])
@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_a_text_seen_before_gets_the_answer_of_a_first_sight(
    language: str, data: st.DataObject
) -> None:
    """The line starts proven at top level are kept per old text (lexis.TopLevel): after
    other edits of the same text were checked, an edit gets the answer it gets on a first
    sight, which is the whole-file verdict's when it clears. Small steps, so that every
    text keeps several."""
    old, new = data.draw(_cases(language))
    lines = old.split("\n")
    others = []
    for _ in range(data.draw(st.integers(1, 3))):
        i = data.draw(st.integers(0, len(lines)))
        put = data.draw(st.lists(st.sampled_from(_SNIPPETS[language]), max_size=2))
        others.append("\n".join(lines[:i] + put + lines[i + 1 :]))
    with mock.patch.object(lexis, "STEP", data.draw(st.integers(1, 200))):
        resolve_cache.clear_all()
        first_sight = syntax_check.regional_clean(old, new, language)
        resolve_cache.clear_all()
        for other in others:
            syntax_check.regional_clean(old, other, language)
        assert syntax_check.regional_clean(old, new, language) == first_sight
    if first_sight:
        assert not _oracle(old, new, language)


@pytest.mark.parametrize("language", ["python", "typescript", "go"])
def test_the_regional_check_decides_ordinary_edits_alone(language: str) -> None:
    """Not vacuous: an edit that keeps the code valid, deep in a file, is cleared without
    a whole-file parse (the property above would hold if it never decided anything)."""
    old = _source(language, 7, 400, slice(0, 2))  # functions, comments, decorators
    lines = old.split("\n")
    real = re.compile(r"(def|export function|func) \w+\d\(")  # not one in a string
    at = next(
        i for i in range(len(lines) // 2, len(lines)) if real.match(lines[i]) and not lines[i - 1]
    )
    lines.insert(at, {"python": "x = 1", "typescript": "let x = 1;", "go": "var x = 1"}[language])
    new = "\n".join(lines)
    assert not _oracle(old, new, language)
    assert syntax_check.regional_clean(old, new, language)


# --------------------------------------------------------------------------- plans


class _Files:
    def __init__(self, files: dict[str, str]):
        self.files = files

    def snapshot(self, path: str) -> Snapshot:
        return Snapshot(path, self.files.get(path))


def _plan(path: str, text: str, old: str, new: str):  # type: ignore[no-untyped-def]
    syntax.forget_all()
    block = Block(Format.SEARCH_REPLACE, path, (1, 1), hunks=(Hunk(old, new),))
    return plan_reply(ParsedReply((block,)), _Files({path: text}))


def _big_python(n_units: int) -> str:
    return "".join(
        f"def f_{i}(items):\n    return [x + {i} for x in items]\n\n\n" for i in range(n_units)
    )


def test_an_edit_breaking_the_middle_of_a_100k_line_file_is_flagged() -> None:
    text = _big_python(25_000)  # 100,000 lines
    assert text.count("\n") == 100_000
    plan = _plan("big.py", text, "def f_12500(items):\n", "def f_12500(items:\n")
    assert plan.ok
    broken = [w for w in plan.warnings if w.type is WarningType.SYNTAX_BROKEN]
    assert len(broken) == 1
    lines = [int(x) for x in re.findall(r"line (\d+)", broken[0].message)]
    assert any(50_001 <= x <= 50_010 for x in lines), broken[0].message  # where it broke


def test_a_valid_edit_in_the_middle_of_a_100k_line_file_is_not_flagged() -> None:
    text = _big_python(25_000)
    plan = _plan("big.py", text, "    return [x + 12500 for x in items]\n", "    return []\n")
    assert plan.ok
    assert not [w for w in plan.warnings if w.type is WarningType.SYNTAX_BROKEN]


def test_an_edit_next_to_an_error_already_there_is_not_blamed() -> None:
    text = _big_python(50).replace("def f_25(items):", "def f_25(items:")  # already broken
    plan = _plan("near.py", text, "def f_26(items):\n", "def f_26(values):\n")
    assert plan.ok
    assert not [w for w in plan.warnings if w.type is WarningType.SYNTAX_BROKEN]
    # and an edit that adds a second error next to it is flagged
    plan = _plan("near.py", text, "def f_26(items):\n", "def f_26(items:\n")
    assert [w for w in plan.warnings if w.type is WarningType.SYNTAX_BROKEN]


def test_a_last_line_without_newline_is_not_an_equal_line() -> None:
    """Found by the property above: appending "\n(" to a file must not read as the file's
    last (empty, unterminated) line kept and "(" added after it."""
    old = "x = 1\n\ndef f():\n    return 1\n\n\n"
    new = old + "\n("
    for split in (4096, 0):
        with mock.patch.object(syntax_check, "_SPLIT_CHARS", split):
            assert not syntax_check.regional_clean(old, new, "python")
    assert _verdict(old, new, "python") and _oracle(old, new, "python")


@pytest.mark.parametrize("language", ["go", "typescript"])
def test_a_block_comment_left_open_before_the_edit_is_a_doubt(language: str) -> None:
    """Balanced code inside an unclosed `/*`: the text before the edit is not at top
    level, though every bracket in it is matched."""
    word = {"go": "func", "typescript": "function"}[language]
    old = "".join(f"{word} {name}() {{}}\n\n" for name in ("f", "g", "h"))
    new = old.replace(f"{word} g()", f"{word} k()")
    assert syntax_check.regional_clean(old, new, language)  # closed: cleared alone
    old, new = "/* open\n" + old, "/* open\n" + new
    assert not syntax_check.regional_clean(old, new, language)


def test_crlf_files_are_read_as_their_lines() -> None:
    old = _source("python", 3, 60, slice(0, 2)).replace("\n", "\r\n")
    new = old.replace("    out = []\r\n", "    out = list()\r\n", 1)
    assert new != old and not _oracle(old, new, "python")
    assert syntax_check.regional_clean(old, new, "python")
    broken = old.replace("    out = []\r\n", "    out = [\r\n", 1)
    assert _verdict(old, broken, "python") and _oracle(old, broken, "python")


def test_a_string_opened_before_the_edit_is_a_doubt_not_a_verdict() -> None:
    """Code-looking lines inside a long string: the text before the edit is not at top
    level, so the regions alone prove nothing, and the whole-file parse decides."""
    old = "x = 1\nTEXT = '''\ndef f():\n    return 1\n\ndef g():\n    return 2\n'''\n"
    new = old.replace("def g():", "def g(:")
    assert not syntax_check.regional_clean(old, new, "python")
    assert _verdict(old, new, "python") == _oracle(old, new, "python")


# --------------------------------------------------------------------------- helpers


def test_an_edit_cleared_once_is_not_scanned_again(monkeypatch: pytest.MonkeyPatch) -> None:
    """The server plans one reply many times: the second verdict is remembered."""
    old = _source("python", 5, 80, slice(0, 2))
    new = old.replace("    out = []\n", "    out = list()\n", 1)
    syntax.forget_all()
    assert syntax_check.new_errors(old, new, "k.py", "python") is None
    calls: list[tuple[str, str, str]] = []
    real = syntax_check.regional_clean

    def counted(a: str, b: str, language: str) -> bool:
        calls.append((a, b, language))
        return real(a, b, language)

    monkeypatch.setattr(syntax_check, "regional_clean", counted)
    assert syntax_check.new_errors(old, new, "k.py", "python") is None
    assert not calls
    broken = new.replace("    out = list()\n", "    out = list(\n", 1)
    assert syntax_check.new_errors(old, broken, "k.py", "python") is not None
    assert calls  # a different text is checked afresh


@settings(max_examples=500, deadline=None)
@given(
    st.text(alphabet="ab\n\u00e9\U0001f600", max_size=3000),
    st.text(alphabet="ab\n\u00e9\U0001f600", max_size=3000),
    st.text(alphabet="ab\n", max_size=40),
    st.integers(0, 4000),
)
def test_common_starts_and_ends_compared_in_place_are_the_sliced_ones(
    a: str, b: str, shared: str, limit: int
) -> None:
    """`_same_for` and `_same_back` (one side copied, the other compared in place) count
    what `linediff.common_prefix` and `common_suffix` count, from any offsets."""
    from lsp_server.linediff import common_prefix, common_suffix

    old, new = shared + a + shared, shared + b + shared
    assert syntax_check._same_for(old, 0, len(old), new, 0, len(new)) == common_prefix(old, new)
    assert syntax_check._same_back(old, new, limit) == common_suffix(old, new, limit)
    i, j = len(shared) // 2, len(shared) // 3
    assert syntax_check._same_for(old, i, len(old) - j, new, j, len(new) - i) == common_prefix(
        old[i : len(old) - j], new[j : len(new) - i]
    )
