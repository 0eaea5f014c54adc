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

import bisect
import re

from lsp_server.model import Action, EditBlock, Format
from lsp_server.reply.common import (
    Fence,
    blocks_per_fence,
    looks_like_file_path,
    normalise_text,
    strip_comment_marker,
)
from lsp_server.reply.marker_lines import VERBATIM, find_marker, is_document
from lsp_server.reply.whole_file import NOT_FILES, fence_head
from lsp_server.resolve.placeholders import is_placeholder_line

# Info strings that are never code to place: prose, data samples, program output.
_NOT_CODE = NOT_FILES | frozenset(
    """text txt plaintext output log markdown md json yaml yml toml csv xml html ini
    env dotenv mermaid""".split()
)

# Words that may stand before a definition keyword, and the keywords that open one.
_MODIFIERS = frozenset(
    """export default public private protected internal static async abstract final override
    virtual sealed partial pub unsafe extern inline open suspend declare readonly data case
    fileprivate mutating const""".split()
)
_KEYWORDS = frozenset(
    """def class function function* func fn fun struct enum trait impl interface module record
    object namespace macro_rules!""".split()
)
_BINDINGS = frozenset({"const", "let", "var"})
_CONTROL = frozenset(
    """if else elif for foreach while do switch case when catch try return throw new await
    yield print println printf echo puts assert with using lock match loop select defer go
    unless until""".split()
)
_WORD = re.compile(r"[\w$!*]+")
# characters of the words before a signature's name: modifiers, types, generics, pointers
_TYPE_CHARS = frozenset("_$<>[],.?*&: ") | frozenset(
    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
)


def _skip_modifiers(words: list[str]) -> list[str]:
    k = 0
    while k < len(words) and (words[k] in _MODIFIERS or words[k].startswith("pub(")):
        k += 1
    return words[k:]


def opens_definition(line: str) -> bool:
    """Does this (stripped) line open a definition in some language? Plain string tests,
    no backtracking: a reply line may be long and hostile."""
    if line.startswith("#") and line[1:2].isalpha() and "(" in line:
        # a JavaScript / TypeScript private method: `#bump(by: number): void {`
        return _is_signature(line[1:])
    if not line or line.startswith(("#", "//", "/*", "*", "@", "--")):
        return False
    words = line.split()
    rest = _skip_modifiers(words)
    if rest:
        head = _WORD.match(rest[0])
        word = head.group(0) if head else ""
        if word in _KEYWORDS and (len(rest) > 1 or len(word) < len(rest[0])):
            return True
        if word == "type" and len(rest) > 2 and rest[2].startswith(("struct", "interface")):
            return True
    return _is_arrow_definition(words) or _is_signature(line)


# A class field on one line, as TypeScript and JavaScript write them: `#count = 10;`,
# `private readonly step: number = 1;`, `static defaults?: Options;`. The name stands alone
# (no type word before it: `static int x = 1;` may be a C function's local), and the line
# is a declaration, not a call or an assignment to a member (`this.x = 1;`).
_FIELD_MODIFIERS = frozenset(
    "private protected public readonly static declare override abstract accessor".split()
)
_FIELD = re.compile(r"#?[A-Za-z_$][\w$]*[?!]?\s*(?::[^=;(]+)?(?:=(?![=>]).*)?;?")
# Languages whose `#name` is a private field; elsewhere `#` may open a comment.
_HASH_FIELDS = frozenset("ts typescript tsx js javascript jsx mjs cjs mts cts".split())


def opens_field(line: str, language: str | None) -> bool:
    """Is this (stripped) line a one-line class field in some language?"""
    if line.startswith("#"):
        if not (line[1:2].isalpha() or line[1:2] in "_$") or line.startswith("#!"):
            return False
        if (language or "").lower() not in _HASH_FIELDS and not line.endswith(";"):
            return False  # `#note = ...` in a language whose `#` opens a comment
        return _FIELD.fullmatch(line) is not None
    words = line.split(None)
    k = 0
    while k < len(words) and words[k] in _FIELD_MODIFIERS:
        k += 1
    if k == 0 or k == len(words):
        return False
    rest = " ".join(words[k:])
    return not rest.startswith("#!") and _FIELD.fullmatch(rest) is not None


def _is_arrow_definition(words: list[str]) -> bool:
    """`const Button = (props) => {`, `export const load = async function () {`."""
    k = 0
    while k < len(words) and words[k] in ("export", "default"):
        k += 1
    if k >= len(words) or words[k] not in _BINDINGS:
        return False
    tail = " ".join(words[k + 1 :])
    _, eq, value = tail.partition("=")
    if not eq or value.startswith(("=", ">")):
        return False
    value = value.strip()
    return "=>" in value or value.startswith(
        ("function", "async function", "React.", "memo(", "forwardRef(")
    )


def _is_signature(line: str) -> bool:
    """A method or C-family function signature: words, a name, a parameter list, and the
    opening of a body (`{`; or nothing, with a return type before the name). Calls, control
    statements and callbacks (`useEffect(() => {`) are not."""
    first = _WORD.match(line)
    if first is None or first.group(0) in _CONTROL or line.endswith((";", ",")):
        return False
    open_at = line.find("(")
    close_at = line.rfind(")")
    if open_at <= 0 or close_at < open_at:
        return False
    params = line[open_at:close_at]
    if "=>" in line or '"' in params or "'" in params:
        return False
    before = line[:open_at].rstrip()
    name_at = len(before)
    while name_at > 0 and (before[name_at - 1].isalnum() or before[name_at - 1] in "_$~"):
        name_at -= 1
    prefix = before[:name_at]
    if name_at == len(before) or prefix.endswith((".", "->", "::")) or "=" in prefix:
        return False
    if not set(prefix) <= _TYPE_CHARS:
        return False
    after = line[close_at + 1 :].strip()
    if after.endswith("{"):
        return True
    return not after and bool(prefix.strip())


def has_definition(body: list[str]) -> bool:
    """Does a line at the body's outermost indentation open a definition? Comment lines
    (`// ...existing code...` around a nested definition, as Copilot writes them) do not
    set that indentation, and the block's first line of code is always outermost (a
    template literal's text may sit further left than the code around it)."""
    code = [ln for ln in body if ln.strip() and not _is_comment(ln.strip())]
    if not code:
        return False
    if opens_definition(code[0].strip()):
        return True
    depth = min(len(ln) - len(ln.lstrip()) for ln in code)
    return any(len(ln) - len(ln.lstrip()) == depth and opens_definition(ln.strip()) for ln in code)


def _only_fields(body: list[str], language: str | None) -> bool:
    """Every line of code is a one-line class field (the members a chat answer restates to
    change an initial value or a type): the block is a snippet of a class's members."""
    code = [ln.strip() for ln in body if ln.strip()]
    code = [ln for ln in code if not (_is_comment(ln) and not opens_field(ln, language))]
    return bool(code) and all(opens_field(ln, language) for ln in code)


def _elides(body: list[str]) -> bool:
    """A line of the block says code is left out (`// ...existing code...`): the block is
    an edit of a file whatever it holds (a statement, a callback, object properties), as
    Copilot's chat writes them."""
    return any(is_placeholder_line(line) for line in body)


def _is_comment(line: str) -> bool:
    if line.startswith("#") and opens_definition(line):
        return False
    return line.startswith(("#", "//", "/*", "*", "--", "<!--", "{/*")) and not line.startswith(
        ("#[", "#include", "#define", "#if", "#!")
    )


# --- the language, guessed when the fence has no info string ------------------------------


def _guess(line: str, ruby_end: bool) -> str | None:
    """The language one stripped line gives away, if any."""
    if line.startswith(("def ", "async def ")):
        return "python" if line.endswith(":") else ("ruby" if ruby_end else None)
    if line.startswith("class ") and line.endswith(":"):
        return "python"
    if line.startswith(("func ", "package ")):
        return "go"
    if line.startswith(("fn ", "pub fn ", "impl ", "impl<", "pub struct ", "use std::")):
        return "rust"
    if "{ get;" in line or line.startswith(("namespace ", "using System")):
        return "csharp"
    if line.startswith(("interface ", "export interface ", "export type ", "type ")):
        return "typescript"
    if line.startswith(("return <", "<")) and line.endswith((">", ">;", ">)")):
        return "tsx"
    if line.startswith(("public ", "private ", "protected ", "import java.")):
        return "java"
    if line.startswith(("function ", "export function ", "export default function ")):
        return "javascript"
    return None


def guess_language(body: list[str]) -> str | None:
    """The language the code reads as, from the first line that gives it away (keywords
    only); None when nothing does."""
    ruby_end = any(line.strip() == "end" for line in body)
    found = [g for line in body if (g := _guess(line.strip(), ruby_end)) is not None]
    # C# reads like Java line by line; its properties and usings tell it apart
    return "csharp" if "csharp" in found else next(iter(found), None)


# --- paths the prose mentions ----------------------------------------------------------------

_BACKTICKED = re.compile(r"`([^`\n]{1,300})`")
_TOKEN = re.compile(r"[^\s`'\"()\[\]{}<>,;]+")
_PARAGRAPHS = 2  # the paragraph before the fence, and the one before that
_PROSE_LINES = 40  # how far up the prose is read, at most


def _mentions(line: str) -> list[str]:
    """The file paths a line of prose mentions, in reading order: backticked, or bare
    words shaped like a file name (`hello.py`, `src/app.ts`); never part of a URL."""
    found: list[tuple[int, str]] = []
    starts: list[int] = []  # the backticked spans, in order and disjoint: a bisect finds
    ends: list[int] = []  # the one a token could be in (a scan of all is quadratic)
    for m in _BACKTICKED.finditer(line):
        text = m.group(1).strip().strip("'\"")
        starts.append(m.start())
        ends.append(m.end())
        if looks_like_file_path(text) and "://" not in text:
            found.append((m.start(), text))
    for m in _TOKEN.finditer(line):
        k = bisect.bisect_right(starts, m.start()) - 1
        if (k >= 0 and m.start() < ends[k]) or "://" in m.group(0):
            continue
        text = m.group(0).strip("*_~").rstrip(".:!?*_")  # **bold**, _emphasis_
        if "." in text and text[0].isalpha() and looks_like_file_path(text):
            found.append((m.start(), text))
    return [text for _, text in sorted(found)]


def prose_paths(lines: list[str], start: int, floor: int) -> tuple[str, ...]:
    """The paths mentioned in the paragraph ending just above `lines[start]` and the one
    before it (never above `floor`), the closest mention first."""
    out: dict[str, None] = {}  # ordered, and a look-up per mention (a line may hold thousands)
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
            out.setdefault(path)
        k -= 1
    return tuple(out)


def _header_mentions(body: list[str]) -> tuple[str, ...]:
    """The paths a first-line comment that only names a file mentions (`# app.py
    (updated)`, `// In src/util.ts:`): such a line heads the block and is not its code."""
    first = next((ln for ln in body if ln.strip()), "")
    text, marker = strip_comment_marker(first)
    if marker is None or len(text.split()) > 6 or len(first) > 200:
        return ()
    return tuple(reversed(_mentions(text)))


def find_blocks(lines: list[str]) -> list[EditBlock]:
    """Every fenced block without a path whose code opens a definition, as a SNIPPET block
    with the paths the prose before it mentions as candidates."""
    return blocks_per_fence(lines, _block)


def _block(lines: list[str], fence: Fence, floor: int, index: int) -> EditBlock | None:
    head = fence_head(lines, fence, floor)
    if head.path is not None or fence.end is None:
        return None  # a whole-file block (whole_file reads it), or a cut-off sample
    language = head.language
    if language in _NOT_CODE or language == "diff":
        return None
    body = lines[fence.start + 1 : fence.end]
    if not has_definition(body) and not _elides(body) and not _only_fields(body, language):
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
            index=index,
        )
    if not language:
        language = guess_language(body)
    candidates = prose_paths(lines, fence.start, floor)
    named = _header_mentions(body)
    if named:  # `# app.py (updated)`: a header, not code
        at = next(k for k, ln in enumerate(body) if ln.strip())
        body = body[:at] + body[at + 1 :]
        candidates = tuple(dict.fromkeys(named + candidates))
    return EditBlock(
        Format.SNIPPET,
        None,
        span,
        action=Action.SNIPPET,
        content=normalise_text(body),
        language=language,
        candidates=candidates,
        index=index,
    )
