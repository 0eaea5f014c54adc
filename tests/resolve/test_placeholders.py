"""Placeholder lines: what counts as "code left out here", and what is code."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lsp_server.resolve.placeholders import (
    count_placeholder_lines,
    has_placeholder,
    is_placeholder_line,
)


@pytest.mark.parametrize(
    "line",
    [
        "...",
        "…",
        "# ...",
        "    // ... existing code ...",
        "// … existing code …",
        "# ... rest of file unchanged",
        "// rest of file unchanged",
        "# ... same ...",
        "  // ... existing imports ...",
        "(unchanged)",
        "    # ... other methods ...",
        "      {/* ... existing code ... */}",
        "<!-- ... -->",
        "<!-- rest of the file unchanged -->",
        "-- ... existing code ...",
        "/* ... */",
        "// ...existing code...",
        "# ... (omitted for brevity) ...",
        "// Rest of the code remains the same",
        "# existing code",
        "// ... rest of the existing code ...",
    ],
)
def test_placeholder_lines(line: str) -> None:
    assert is_placeholder_line(line)


@pytest.mark.parametrize(
    "line",
    [
        "",
        "x = 1",
        "# compute the total",
        "// same as above, but for the header",  # says more than "kept as is"
        "  ...rest,",  # JavaScript spread
        "  ...props",
        '"...",',  # a string literal
        "print('...')",
        "# TODO: handle the rest",
        "return ...",
        "// keep this in sync with the server",
    ],
)
def test_not_placeholder_lines(line: str) -> None:
    assert not is_placeholder_line(line)


def test_bare_ellipsis_is_code_in_a_stub_file() -> None:
    assert is_placeholder_line("    ...", "pkg/mod.py")
    assert not is_placeholder_line("    ...", "pkg/mod.pyi")
    assert is_placeholder_line("    # ...", "pkg/mod.pyi")


def test_has_placeholder() -> None:
    assert has_placeholder("a\n# ... existing code ...\nb\n")
    assert not has_placeholder("a\nb\n")


# --- the whole-file count a lazy merge makes, and the search that turns lines away ---------

_OPENERS = ("", "# ", "// ", "-- ", "/* ", "<!-- ", "{/* ", "; ")
_CLOSERS = {"/* ": " */", "<!-- ": " -->", "{/* ": " */}"}
_WORDS = ("existing", "code", "rest", "of", "the", "file", "unchanged", "same", "as", "before")
_ELLIPSES = ("...", "…", ". . .", "....")


@st.composite
def _placeholder(draw: st.DrawFn) -> str:
    """A placeholder line built from its grammar, in any ASCII letter case."""
    opener = draw(st.sampled_from(_OPENERS))
    words = draw(st.lists(st.sampled_from(_WORDS), min_size=0, max_size=4))
    dots = draw(st.sampled_from(("", *_ELLIPSES)))
    if not dots and not any(w in ("existing", "unchanged", "same", "rest") for w in words):
        words.append(draw(st.sampled_from(("existing", "unchanged", "same", "rest"))))
    phrase = " ".join(x for x in (dots, " ".join(words), dots) if x)
    phrase = "".join(c.upper() if draw(st.booleans()) else c for c in phrase)
    indent = draw(st.sampled_from(("", "    ", "\t", "  ")))
    return indent + opener + phrase + _CLOSERS.get(opener, "")


@given(_placeholder())
@settings(max_examples=400)
def test_a_placeholder_built_from_its_grammar_is_recognised_in_any_case(line: str) -> None:
    assert is_placeholder_line(line), line


_CODE = st.sampled_from(
    ("x = 1", "    return result", "}", "", "def f(*args): ...", "print('...')", "# a comment",
     "...props,", "Rest = 2", "# SAME", "\u0130nstance = 1", "a . . . b")
)


@given(st.lists(st.one_of(_CODE, _placeholder()), max_size=40))
@settings(max_examples=300)
def test_counting_a_files_placeholders_agrees_with_testing_every_line(lines: list[str]) -> None:
    # the count's one-pass search is a shortcut: the oracle tests each line on its own
    assert count_placeholder_lines(lines) == sum(is_placeholder_line(line) for line in lines)
