"""Placeholder lines: what counts as "code left out here", and what is code."""

from __future__ import annotations

import pytest

from lsp_server.resolve.placeholders import has_placeholder, is_placeholder_line


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
