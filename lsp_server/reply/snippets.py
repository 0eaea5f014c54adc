"""Code snippets from chat windows: a fenced block of whole definitions, and no markers.

````
Here's the updated `compute` function in `src/app.py` that validates its inputs:

```python
def compute(x):
    ...
```
````

A chat answer shows the new version of a function, a method or a class in a plain code
block and names the file in a sentence, if at all. Such a fence is a snippet when nothing
more specific claimed it (a fence that names its own path is a whole-file block, which the
plan reads as a snippet when the file holds more than it: see `resolve.snippets`), its
language is not a shell or a diff, and a line at its outermost indentation opens a
definition (`def`, `class`, `function`, `func`, `fn`, `impl`, a method signature, a
`const Name = (...) =>` component...). A block of statements alone is a usage example,
not an edit.

The block names no file; the prose just before it may. Every path mentioned in the
paragraph before the fence and the one before that (backticked or bare, `the modified
\\`hello.py\\` file`, `in src/app.py:`) is recorded as a candidate, nearest first. Whether
one exists is for the plan to check against the workspace (see
`resolve.snippet_files`); this module stays text in, blocks out.

The block's language is its fence's info string, else a guess from the code's keywords
(only to choose among workspace files; a file's own extension decides its grammar).
"""

from __future__ import annotations

import re

from lsp_server.model import Action, EditBlock, Format
from lsp_server.reply.common import (
    VERBATIM,
    Fence,
    blocks_per_fence,
    find_marker,
    is_document,
    looks_like_file_path,
    normalise_text,
)
from lsp_server.reply.whole_file import NOT_FILES, fence_head

# Info strings that are never code to place: prose, data samples, program output.
_NOT_CODE = NOT_FILES | frozenset(
    """text txt plaintext output log markdown md json yaml yml toml csv xml html ini
    env dotenv mermaid""".split()
)

# Modifiers that may stand before a definition keyword.
_MODS = (
    r"(?:(?:export|default|public|private|protected|internal|static|async|abstract|final"
    r"|override|virtual|sealed|partial|pub(?:\([^)]*\))?|unsafe|extern|inline|open|suspend"
    r"|declare|readonly|data|case|fileprivate|mutating|const)\s+)*"
)
# A line that opens a definition, by keyword (def, class, func, fn, impl, ...).
_KEYWORD_DEF = re.compile(
    _MODS + r"(?:def|class|function\*?|func|fn|fun|struct|enum|trait|impl|interface|module"
    r"|record|object|namespace|type\s+\w+\s+(?:struct|interface)|macro_rules!)"
    r"(?:\s|\(|<|$)"
)
# `const Button = (props) => {`, `export const fetchUser = async (id: string) => {`
_ARROW_DEF = re.compile(
    r"(?:export\s+(?:default\s+)?)?(?:const|let|var)\s+[A-Za-z_$][\w$]*\s*(?::[^=]+)?="
    r"\s*(?:async\s+)?(?:function\b|\([^)]*\)\s*(?::[^=]+)?=>|[A-Za-z_$][\w$]*\s*=>|React\.)"
)
# A method or a C-family function signature: words, a name, a parameter list, then the
# opening of a body (`{`, or nothing when the brace is on the next line). `if (x) {` and
# calls are told apart by the first word.
_SIGNATURE = re.compile(
    r"(?:[\w$<>\[\],.?*&:]+\s+)*[\w$~]+\s*(?:<[^()]*>)?\s*\([^;]*\)\s*"
    r"(?::\s*[^={;]+|->\s*[^{;]+|throws\s+[\w., ]+|const|noexcept|override|where\s+[^{]+)?"
    r"\s*\{?\s*$"
)
_CONTROL = frozenset(
    """if else elif for foreach while do switch case when catch try return throw new await
    yield print println printf echo puts assert with using lock match loop select defer go
    unless until""".split()
)


def opens_definition(line: str) -> bool:
    """Does this (stripped) line open a definition in some language?"""
    if not line or line.startswith(("#", "//", "/*", "*", "@", "--")):
        return False
    if _KEYWORD_DEF.match(line) or _ARROW_DEF.match(line):
        return True
    first = re.match(r"[\w$~]+", line)
    if first is None or first.group(0) in _CONTROL or line.endswith((";", ",")):
        return False
    return bool(_SIGNATURE.fullmatch(line)) and ("{" in line or line.endswith(")"))


def has_definition(body: list[str]) -> bool:
    """Does a line at the body's outermost indentation open a definition?"""
    code = [ln for ln in body if ln.strip()]
    if not code:
        return False
    depth = min(len(ln) - len(ln.lstrip()) for ln in code)
    return any(
        len(ln) - len(ln.lstrip()) == depth and opens_definition(ln.strip()) for ln in code
    )


# --- the language, guessed when the fence has no info string ------------------------------

_GUESSES: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("python", re.compile(r"(?m)^\s*(?:async\s+)?def\s+\w+\s*\(.*\)\s*(?:->.*)?:\s*$")),
    ("python", re.compile(r"(?m)^\s*class\s+\w+(?:\(.*\))?:\s*$")),
    ("go", re.compile(r"(?m)^func\s+(?:\([^)]*\)\s*)?\w+\s*\(")),
    ("rust", re.compile(r"(?m)^\s*(?:pub(?:\([^)]*\))?\s+)?(?:fn\s+\w+|impl\b)")),
    ("ruby", re.compile(r"(?m)^\s*def\s+[\w.?!]+(?:\(.*\))?\s*$")),
    ("csharp", re.compile(r"(?m)\{\s*get;|^\s*namespace\s+[\w.]+|^\s*using\s+System")),
    ("java", re.compile(r"(?m)^\s*(?:public|private|protected)\s+(?:static\s+)?[\w<>\[\]]+ \w+\(")),
    ("tsx", re.compile(r"(?s)=>\s*\(?\s*<\w|return\s*\(?\s*<\w")),
    ("typescript", re.compile(r"(?m)^\s*(?:export\s+)?(?:interface|type)\s+\w+|\):\s*\w+.*\{$")),
    ("javascript", re.compile(r"(?m)^\s*(?:export\s+)?(?:async\s+)?function\b|=>\s*\{")),
)


def guess_language(body: list[str]) -> str | None:
    """The language the code reads as, from keywords only; None when nothing says."""
    text = "\n".join(body)
    for name, pattern in _GUESSES:
        if pattern.search(text):
            return name
    return None


# --- paths the prose mentions ----------------------------------------------------------------

_BACKTICKED = re.compile(r"`([^`\n]{1,300})`")
# a bare file name or path in a sentence: word characters and separators, an extension
_BARE_PATH = re.compile(r"(?<![\w/.@:-])((?:[\w.\-]+/)*[\w\-]+(?:\.[\w\-]+)*\.[A-Za-z][\w+\-]*)")
_URL = re.compile(r"\b[a-z][a-z+.-]*://\S+")
_PARAGRAPHS = 2  # the paragraph before the fence, and the one before that
_PROSE_LINES = 40  # how far up the prose is read, at most


def _mentions(line: str) -> list[str]:
    """The file paths a line of prose mentions, in reading order."""
    line = _URL.sub(" ", line)
    found: list[tuple[int, str]] = []
    taken: list[tuple[int, int]] = []
    for m in _BACKTICKED.finditer(line):
        text = m.group(1).strip().strip("'\"")
        taken.append(m.span())
        if looks_like_file_path(text):
            found.append((m.start(), text))
    for m in _BARE_PATH.finditer(line):
        if any(a <= m.start() < b for a, b in taken):
            continue
        text = m.group(1).rstrip(".")
        if looks_like_file_path(text) and not text[0].isdigit():
            found.append((m.start(), text))
    return [text for _, text in sorted(found)]


def prose_paths(lines: list[str], start: int, floor: int) -> tuple[str, ...]:
    """The paths mentioned in the paragraph ending just above `lines[start]` and the one
    before it (never above `floor`), the closest mention first."""
    out: list[str] = []
    k = start - 1
    paragraphs = 0
    while k > floor and not lines[k].strip():
        k -= 1
    while k > floor and start - k <= _PROSE_LINES and paragraphs < _PARAGRAPHS:
        line = lines[k]
        if not line.strip():
            paragraphs += 1
            k -= 1
            continue
        if line.lstrip().startswith(("```", "~~~")):
            break
        for path in reversed(_mentions(line)):
            if path not in out:
                out.append(path)
        k -= 1
    return tuple(out)


def find_blocks(lines: list[str]) -> list[EditBlock]:
    """Every fenced block without a path whose code opens a definition, as a SNIPPET block
    with the paths the prose before it mentions as candidates."""
    return blocks_per_fence(lines, _block)


def _block(lines: list[str], fence: Fence, floor: int) -> EditBlock | None:
    head = fence_head(lines, fence, floor)
    if head.path is not None or fence.end is None:
        return None  # a whole-file block (whole_file reads it), or a cut-off sample
    language = head.language
    if language in _NOT_CODE or language == "diff":
        return None
    body = lines[fence.start + 1 : fence.end]
    if not has_definition(body):
        return None
    span = (fence.start + 1, fence.end + 1)
    marker = find_marker(lines, fence.start + 1, fence.end, VERBATIM, is_document(None, language))
    if marker is not None:
        return EditBlock(
            marker.format,
            None,
            span,
            language=language,
            error=marker.failure(marker.index + 1, "a code snippet"),
        )
    if not language:
        language = guess_language(body)
    return EditBlock(
        Format.SNIPPET,
        None,
        span,
        action=Action.SNIPPET,
        content=normalise_text(body),
        language=language,
        candidates=prose_paths(lines, fence.start, floor),
    )
