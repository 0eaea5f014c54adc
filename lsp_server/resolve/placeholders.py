"""Placeholder lines: the lines a model writes instead of code it left out.

`// ... existing code ...`, `# rest of file unchanged`, `{/* ... */}`: a placeholder stands
for code that stays as it is. The lazy merge keeps the file's code where one stands (and
never writes one into a file); the text ladder reads one inside a search block as an
elision (`...` between two anchors).
"""

from __future__ import annotations

from collections.abc import Sequence

from lsp_server.patterns import compiled_on_use

# Compiled on first use (lsp_server.patterns): most runs place blocks that hold no line
# this module is asked about.
_ellipsis = compiled_on_use(r"\.{3,}|…|\.\s\.\s\.")
_punct = compiled_on_use(r"[()\[\]{}:;,.!?\-–—]+")
# Characters that make a bare line code.
_code_chars = compiled_on_use(r"[\"'`,;=<>|&*/\\]")
# `...rest,` / `...props` is code (a JavaScript spread).
_spread = compiled_on_use(r"\.\.\.[\w$]")


# Words a placeholder phrase may use. Kept deliberately small: a comment that says more
# than "the rest stays as it was" is a real comment, not a placeholder.
_VOCABULARY = frozenset(
    """
    existing rest of the code file files unchanged same remains remain remaining stays stay
    other others methods method imports import functions function here previous previously
    omitted for brevity is are as before keep kept and content contents lines line class
    classes body implementation implementations logic props properties fields members
    component components elements styles etc more your this in unmodified untouched no
    changes changed not shown left all everything else definitions declarations routes
    handlers tests cases config settings setup helpers types code's snip snipped skipped
    css scss html markup jsx tsx
    """.split()
)
_TRIGGERS = frozenset({"existing", "unchanged", "same", "rest"})
_PYI_SUFFIXES = (".pyi",)


# An ellipsis or a trigger word. Every placeholder holds one, so a lowercased line with neither
# is turned away by one search before any comment or vocabulary parsing: a lazy merge counts the
# placeholder lines of a whole file (before and after), and almost no code line has either. The
# full test lowercases too, so the search never turns away a line it accepts.
_maybe = compiled_on_use(r"\.[^\S\n]*\.[^\S\n]*\.|…|existing|unchanged|same|rest")


def _comment_body(line: str) -> tuple[str, bool]:
    """The text inside one layer of comment syntax, and whether there was any."""
    s = line.strip()
    for opener, closer in (("{/*", "*/}"), ("/*", "*/"), ("<!--", "-->"), ("(*", "*)")):
        if s.startswith(opener) and s.endswith(closer) and len(s) >= len(opener) + len(closer):
            return s[len(opener) : len(s) - len(closer)].strip(), True
    for opener in ("//", "--", "#", ";", "%"):
        if s.startswith(opener):
            return s.lstrip(opener[0]).strip(), True
    return s, False


def is_placeholder_line(line: str, path: str = "") -> bool:
    """True when `line` only says "code omitted here": `...`, `// ... existing code ...`,
    `# rest of file unchanged`, `{/* ... */}`, `<!-- ... -->`, `(unchanged)` and the like.

    The phrase, once comment syntax is removed, is an optional ellipsis, words from a small
    vocabulary, and an optional ellipsis; it must contain an ellipsis or one of
    existing / unchanged / same / rest. A bare `...` in a Python stub file (`.pyi`) is the
    Ellipsis body it always is there, and `...name` is a JavaScript spread, not a
    placeholder.
    """
    if len(line) > 200 or not _maybe().search(line.lower()):
        return False
    body, commented = _comment_body(line)
    if not body:
        return False
    if not commented:
        if _spread().match(body):
            return False
        if path.endswith(_PYI_SUFFIXES) and body == "...":
            return False
        if _code_chars().search(body):
            return False
    lowered = body.lower()
    ellipsis = _ellipsis()
    has_ellipsis = bool(ellipsis.search(lowered))
    words = _punct().sub(" ", ellipsis.sub(" ", lowered)).split()
    if not words:
        return has_ellipsis
    if not all(w in _VOCABULARY for w in words):
        return False
    return has_ellipsis or any(w in _TRIGGERS for w in words)


def count_placeholder_lines(lines: Sequence[str], path: str = "") -> int:
    """How many of `lines` are placeholder lines, testing only the lines `_maybe` finds in
    one pass over the whole lowercased text (a file's lines are mostly turned away there).
    Lowercasing keeps every "\n", so a hit's line number is the newlines before it."""
    lowered = "\n".join(lines).lower()
    count, k, pos, last = 0, 0, 0, -1
    for m in _maybe().finditer(lowered):
        k += lowered.count("\n", pos, m.start())
        pos = m.start()
        if k != last:
            last = k
            count += is_placeholder_line(lines[k], path)
    return count


def has_placeholder(text: str, path: str = "") -> bool:
    """True when any line of `text` is a placeholder line."""
    return any(is_placeholder_line(line, path) for line in text.split("\n"))
