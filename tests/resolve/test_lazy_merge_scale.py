"""A lazy merge of a big file reads closely only the lines the snippet restates (issue 26):
the file's lines by offset (`OffsetLines`), parents worked out on demand (`Parents`), the
common first and last lines of a result found on the characters (`keep_bytes`). Each is
stated against the plain reading it replaces."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from lsp_server.linediff import common_prefix, common_suffix
from lsp_server.resolve import line_shape
from lsp_server.resolve.blank_pairs import same_lines
from lsp_server.resolve.hunks import rebuild
from lsp_server.resolve.line_shape import Parents, parents
from lsp_server.resolve.merge import offset_lines
from lsp_server.resolve.merge.bytes import keep_bytes
from lsp_server.resolve.merge.lazy import adds_placeholder, merge
from lsp_server.resolve.merge.offset_lines import OffsetLines, line_chunks
from lsp_server.resolve.placeholders import count_placeholder_lines


def _split(text: str) -> list[str]:
    """How the merge has always read a file: split at "\\n", no empty piece after the last."""
    if not text:
        return []
    lines = text.split("\n")
    return lines[:-1] if lines[-1] == "" else lines


@given(st.text(alphabet="ab \r\n", max_size=60), st.integers(1, 8))
@settings(max_examples=400)
def test_offset_lines_read_a_text_as_a_split_does(text: str, chunk: int) -> None:
    saved = offset_lines._CHUNK
    offset_lines._CHUNK = chunk  # tiny chunks: every piece boundary is exercised
    try:
        view = OffsetLines(text)
        chunks = [line for piece in line_chunks(text) for line in piece]
    finally:
        offset_lines._CHUNK = saved
    want = _split(text)
    assert len(view) == len(want)
    assert list(view) == want == chunks
    assert [view[i] for i in range(-len(want), len(want))] == want + want
    assert view[1:] == want[1:] and view[::2] == want[::2] and view[2:1] == []
    for lo in range(len(want) + 1):
        assert view.chars(lo, len(want)) == "\n".join(want[lo:])
    for at in range(len(text)):
        row = view.line_at(at)
        assert view.start(row) <= at < view.start(row + 1)


_LINE = st.tuples(
    st.sampled_from(["", " ", "  ", "\t", "    ", "        "]),
    st.sampled_from(["", "x", "def f():", "}", "end", ")", "</div>", "foo {"]),
).map("".join)


@given(st.lists(_LINE, max_size=60), st.data())
@settings(max_examples=400)
def test_parents_worked_out_on_demand_are_the_stacks_in_any_order(lines, data) -> None:
    skip = data.draw(st.none() | st.lists(st.booleans(), min_size=len(lines), max_size=len(lines)))
    want = parents(lines, skip)
    lazy = Parents(lines, skip)
    for i in data.draw(st.permutations(range(len(lines)))):
        assert lazy[i] == want[i], (i, lines, skip)


def test_a_merge_of_a_big_file_measures_only_the_lines_it_aligns(monkeypatch) -> None:
    """Every line's parent used to be worked out, the whole file's indentation measured
    (half of a 10 MB merge's time, and a list of half a million entries); the answer
    depends only on the lines the snippet restates and the blocks around them."""
    units = [[f"def f{i}(x):", f"    y = x + {i}", "    return y", ""] for i in range(5_000)]
    file_lines = [line for unit in units for line in unit]
    original = "\n".join(file_lines) + "\n"
    snippet = "# ... existing code ...\ndef f2500(x):\n    y = x + 2500\n    y += 1\n"
    snippet += "    return y\n# ... existing code ...\n"
    measured = 0
    real = line_shape.width

    def counting(indent: str, *args: int) -> int:
        nonlocal measured
        measured += 1
        return real(indent, *args)

    monkeypatch.setattr(line_shape, "width", counting)
    got = merge(original, snippet, "big.py").text
    at = file_lines.index("def f2500(x):") + 2
    assert got == "\n".join([*file_lines[:at], "    y += 1", *file_lines[at:]]) + "\n"
    assert measured < 200, measured  # 15,000 code lines in the file


def _keep_bytes_by_lists(old: str, new: str) -> str:
    """The reading `keep_bytes` must give, on whole line lists: common first and last lines
    stand; in the middle, a new line that is an old one but for trailing whitespace takes
    the old one's bytes (blank lines tied by their neighbours: `blank_pairs`)."""
    if old == new or not old:
        return new
    a, b = old.split("\n"), new.split("\n")
    pre = common_prefix(a, b)
    suf = common_suffix(a, b, min(len(a), len(b)) - pre)
    mid_a, mid_b = a[pre : len(a) - suf], b[pre : len(b) - suf]
    if not mid_a or not mid_b:
        return new
    out = list(mid_b)
    for i, j in same_lines([x.rstrip() for x in mid_a], [x.rstrip() for x in mid_b]):
        out[j] = mid_a[i]
    return "\n".join(b[:pre] + out + b[len(b) - suf :])


_TEXT = st.lists(st.sampled_from(["", "a", "a ", "a\t", "b", "b ", "x", " "]), max_size=12).map(
    "\n".join
)


@given(_TEXT, _TEXT)
@settings(max_examples=1500)
def test_keep_bytes_on_the_characters_is_the_line_list_reading(old: str, new: str) -> None:
    assert keep_bytes(old, new) == _keep_bytes_by_lists(old, new)


@given(st.text(alphabet="ab \n", max_size=40), st.text(alphabet="ab \n", max_size=40))
@settings(max_examples=300)
def test_a_new_text_over_an_old_one_without_cr_is_the_new_text(old: str, new: str) -> None:
    assert rebuild(old, new) == new


def test_a_new_text_over_a_crlf_one_keeps_its_endings() -> None:
    assert rebuild("a\r\nb\r\n", "a\nc\n") == "a\r\nc\r\n"


@st.composite
def _file_and_edit(draw):
    """A file of functions (bodies repeat one another's lines, so few lines anchor), one
    restated between placeholders with a line added. (Blank lines where the restated part
    meets a kept one are the joins' to settle: none here.)"""
    n = draw(st.integers(2, 12))
    bodies = [
        draw(st.lists(st.sampled_from(["    x = 1", "    return x", "    pass"]), min_size=1))
        for _ in range(n)
    ]
    lines: list[str] = []
    heads = []
    for i, body in enumerate(bodies):
        heads.append(len(lines))
        lines += [f"def unit_{i}(x):", *body, ""]
    k = draw(st.integers(0, n - 1))
    end = heads[k] + 1 + len(bodies[k])
    at = draw(st.integers(heads[k] + 1, end))
    added = "    added_by_the_reply = True"
    restated = [*lines[heads[k] : at], added, *lines[at:end]]
    return lines, at, added, restated


@given(_file_and_edit())
@settings(max_examples=300)
def test_a_restated_function_with_a_line_added_adds_that_line_only(case) -> None:
    lines, at, added, restated = case
    snippet = "# ... existing code ...\n" + "\n".join(restated) + "\n# ... existing code ...\n"
    got = merge("\n".join(lines) + "\n", snippet, "m.py").text
    assert got == "\n".join([*lines[:at], added, *lines[at:]]) + "\n"


_PLACEHOLDERISH = st.sampled_from(
    ["", "x", "# ... existing code ...", "...", "// rest unchanged", " "]
)


@given(
    st.lists(_PLACEHOLDERISH, max_size=10).map("\n".join),
    st.lists(_PLACEHOLDERISH, max_size=10).map("\n".join),
    st.sampled_from(["", "\n"]),
    st.sampled_from(["", "\n"]),
)
@settings(max_examples=500)
def test_the_placeholder_check_reads_only_the_middle_and_counts_as_the_whole(o, m, eo, em):
    """The merge's last check (never write a placeholder line the file did not have) reads
    only the lines between the common first and last ones: the same answer as counting
    both whole texts."""
    old, new = o + eo, m + em
    whole = count_placeholder_lines(new.split("\n")) > count_placeholder_lines(old.split("\n"))
    assert adds_placeholder(old, new, "f.py") == whole
