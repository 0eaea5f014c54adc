"""Helpers every reply format shares: fences and the reply's lines, path lines, indented
fences, block headers behind comment syntax, block numbering and the malformed-block limit.
Lines shaped like edit markers are in `marker_lines`, text copied from a rendered page
(no-break spaces) in `page_text`.

Models put the file name in many places (the line before the fence, the fence's info
string, the first line inside the fence, decorated with `#`, `*`, backticks or a trailing
colon). These helpers read all of them one way.
"""

from __future__ import annotations

import bisect
import dataclasses
import re
from collections.abc import Callable, Sequence
from typing import NamedTuple

from lsp_server.model import EditBlock, ErrorCode, Failure
from lsp_server.patterns import compiled_on_use

# ``` or ~~~ (3+), optionally indented, then an info string. Linear: no nested quantifiers.
_FENCE = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>`{3,}|~{3,})(?P<info>[^`]*)$")
# A path: only these characters, ending in a name character (or one "." after one). Two
# patterns, each linear: the single `^[...]*[\w\-]\.?[\w\-]*$` they replace backtracked
# quadratically on a long run of "-" that failed at its end.
# route folders of web frameworks hold brackets, parentheses and `$` (`[...slug].astro`,
# `(auth)/page.tsx`, `$postId.tsx`, `+page.svelte`); a bracket must be closed where it opens
_PATHISH_CHARS = re.compile(r"^[\w.\-/\\@+~ $\[\](){}]*$")
_BRACKETS = {"[": "]", "(": ")", "{": "}"}
_PATHISH_END = re.compile(r"[\w\-]\.?$")


class Fence(NamedTuple):
    """A fenced region: `start` is the opening line index, `end` the closing one (or None).

    A NamedTuple, as are the other records built while parsing: immutable like a frozen
    dataclass, and defining one costs a fraction of what a dataclass does at import."""

    start: int
    end: int | None
    marker: str
    info: str

    @property
    def language(self) -> str | None:
        word = self.info.strip().split(" ", 1)[0] if self.info.strip() else ""
        return word or None

    @property
    def body(self) -> range:
        stop = self.end if self.end is not None else None
        return range(self.start + 1, stop if stop is not None else self.start + 1)


def fence_open(line: str) -> re.Match[str] | None:
    return _FENCE.match(line)


def is_fence_close(line: str, marker: str) -> bool:
    s = line.strip()
    if marker[0] == "<":  # `<source>` is closed by `</source>` only
        return s == "</" + marker[1:]
    # only the marker's character (a strip, not a set of the line's characters per line)
    return s.startswith(marker[0] * len(marker)) and not s.strip(marker[0])


# aider fences a file that holds ``` fences itself with `<source>` … `</source>` (and kin);
# alone on its line, with a language word at most, so HTML's `<source src=…>` is not one
_TAG_FENCE = re.compile(
    r"^[ \t]*<(?P<tag>source|sourcecode|codeblock)(?:[ \t]+(?P<info>[\w+#.-]+))?>[ \t]*$"
)


def find_fences(lines: list[str]) -> list[Fence]:
    """All top-level fences, in order. An unclosed fence runs to the end (end=None).

    On a `ReplyLines` (what `parse_reply` gives every finder) they are found once per reply
    and shared by every finder that asks."""
    if isinstance(lines, ReplyLines):
        return list(lines.fences)
    return _scan_fences(lines)


def _scan_fences(lines: list[str]) -> list[Fence]:
    out: list[Fence] = []
    candidates = line_starts(_FENCE_CANDIDATE, lines)
    n = len(candidates)
    i = 0
    while i < n:
        line = lines[candidates[i]]
        m = _FENCE.match(line) or (_TAG_FENCE.match(line) if "<" in line else None)
        if not m:
            i += 1
            continue
        if m.re is _TAG_FENCE:  # which pattern matched (not a dict of its groups per fence)
            marker, info = f"<{m.group('tag')}>", m.group("info") or ""
        else:
            marker, info = m.group("fence", "info")
        j = i + 1
        while j < n and not is_fence_close(lines[candidates[j]], marker):
            j += 1
        end = candidates[j] if j < n else None
        out.append(Fence(candidates[i], end, marker, info.strip()))
        i = j + 1
    return out


class ReplyLines(list[str]):
    """One reply's lines as `parse_reply` hands them to every finder.

    It is a list, so a finder indexes and slices it like any other, and it carries what
    several finders need, each computed once on first use and then shared: the joined text
    (for `line_starts` and for the finders' cheap "may this reply hold my blocks" tests),
    the fences, and derived copies (indented fences dedented, say). Finders read it and never
    change it (the mutating list methods raise TypeError): copy with `list(lines)` to edit.

    Fences survive dedenting unchanged: a fence line is recognised whatever blanks and tabs
    precede it, and dedenting only removes such a prefix. So a dedented copy shares them.
    """

    __slots__ = ("text", "_fences", "_derived", "_starts")

    def __init__(self, text: str):
        """`text` with its line ends already "\\n" (`parse_reply` makes them so): no line
        of the result holds a newline, which `line_starts` relies on."""
        super().__init__(text.split("\n"))
        self.text = "\n" + text  # "\n" first: every line start follows a "\n"
        self._fences: tuple[Fence, ...] | None = None
        self._derived: dict[object, ReplyLines] = {}
        self._starts: dict[re.Pattern[str], list[int]] = {}

    def starts(self, pattern: re.Pattern[str]) -> list[int]:
        """`line_starts(pattern, self)`, searched once per pattern (then bisected)."""
        got = self._starts.get(pattern)
        if got is None:
            got = self._starts[pattern] = _starts_in(pattern, self.text, 0)
        return got

    @property
    def fences(self) -> tuple[Fence, ...]:
        if self._fences is None:
            self._fences = tuple(_scan_fences(self))
        return self._fences

    def derived(
        self, key: object, make: Callable[[], list[str]], same_fences: bool = False
    ) -> ReplyLines:
        """The copy `make()` builds (this one when it changes nothing), made once per `key`;
        `same_fences`: the copy's fences are known to be this one's (dedenting)."""
        got = self._derived.get(key)
        if got is None:
            out = make()
            if out is self:
                got = self
            else:
                got = ReplyLines("\n".join(out))
                if same_fences:
                    got._fences = self.fences
            self._derived[key] = got
        return got


def _read_only(self: ReplyLines, *args: object, **kwargs: object) -> None:
    raise TypeError("ReplyLines is shared by every finder and read-only; copy it to edit")


for _name in (
    "__setitem__", "__delitem__", "__iadd__", "__imul__", "append", "extend", "insert", "pop",
    "remove", "clear", "sort", "reverse",
):  # fmt: skip
    setattr(ReplyLines, _name, _read_only)


# A line that may open or close a fence: only whitespace before a run of ``` or ~~~. Searched
# as "\n" + pattern over "\n" + the joined lines: a literal first character lets the regex
# engine skip to each line start, where `^` with MULTILINE is tried at every character.
_FENCE_CANDIDATE = re.compile(r"\n[^\S\n]*(?:[`~]{3}|</?(?:source|sourcecode|codeblock)\b)")


def line_starts(
    pattern: re.Pattern[str], lines: Sequence[str], start: int = 0, stop: int | None = None
) -> list[int]:
    """Indexes of the lines in `lines[start:stop]` where `pattern` (which begins with "\n")
    matches at the line's start: one search over the joined text instead of a Python loop
    (a reply can be 1 MB, and every finder looks for fences), once per reply and pattern
    on a `ReplyLines`. Lines holding a newline of their own (never so from `parse_reply`)
    are looked at one by one."""
    stop = len(lines) if stop is None else stop
    if isinstance(lines, ReplyLines):
        every = lines.starts(pattern)
        return every[bisect.bisect_left(every, start) : bisect.bisect_left(every, stop)]
    text = "\n" + "\n".join(lines[start:stop])
    if text.count("\n") != max(stop - start, 1):
        return [k for k in range(start, stop) if pattern.match("\n" + lines[k])]
    return _starts_in(pattern, text, start)


def _starts_in(pattern: re.Pattern[str], text: str, first: int) -> list[int]:
    """The lines of `text` ("\\n" + lines joined, from line `first`) `pattern` matches."""
    out: list[int] = []
    k, pos = first - 1, 0
    for m in pattern.finditer(text):
        k += text.count("\n", pos, m.start() + 1)
        pos = m.start() + 1
        out.append(k)
    return out


def clean_path(line: str) -> str:
    """Strip the decoration models put around a file name: `#`, `*`, backticks, `:`, quotes."""
    labels = ("File:", "FILE:", "file:", "Path:", "path:", "Filename:", "filename:")
    s = line.strip()
    s = s.rstrip(":").strip()
    s = s.lstrip("#").strip()
    s = s.strip("`").strip()
    s = s.strip("*").strip()
    s = s.strip("`").strip()
    s = s.rstrip(":").strip()
    if s.startswith(labels):  # one test for the usual line, which has no label
        for prefix in labels:
            if s.startswith(prefix):
                s = s[len(prefix) :].strip().strip("`").strip()
    if len(s) >= 2 and s[0] == s[-1] and s[0] in "'\"":
        s = s[1:-1]
    return s


def looks_like_path(s: str) -> bool:
    """A plausible relative or absolute file path: no spaces-only prose, has a name."""
    if not s or len(s) > 4096 or "\x00" in s:
        return False
    if " " in s.strip() and "/" not in s and "." not in s:
        return False
    if len(s.split()) > 1:  # prose, not a path
        return False
    if not (_PATHISH_CHARS.match(s) and _PATHISH_END.search(s)):
        return False
    if not _balanced(s):
        return False
    return "." in s or "/" in s or s[0].isalpha()


def _balanced(s: str) -> bool:
    """Every bracket closed in the same path segment, in order (`[...slug]`, `[[...x]]`):
    prose in brackets or a Markdown link is not a path."""
    if not any(c in s for c in "[](){}"):
        return True
    for segment in s.replace("\\", "/").split("/"):
        stack: list[str] = []
        for c in segment:
            if c in _BRACKETS:
                stack.append(_BRACKETS[c])
            elif c in ")]}" and (not stack or stack.pop() != c):
                return False
        if stack:
            return False
    return True


_info_path = compiled_on_use(r"""(?:title|file|path|filename)=["']?([^"'\s]+)""")


def path_from_info(info: str) -> str | None:
    """A path in a fence's info string: ```python src/a.py, ```src/a.py, ```py title="a.py"."""
    m = _info_path().search(info)
    if m:
        return m.group(1)
    for word in info.split():
        w = clean_path(word)
        if ("/" in w or "." in w) and looks_like_path(w):
            return w
    return None


def normalise_text(lines: list[str]) -> str:
    """Join reply lines as file text: "\\n" endings, one after every line."""
    return "\n".join(lines) + "\n" if lines else ""


# --- Locating the path above a marker line (SEARCH/REPLACE, EDIT protocol) -------------------
#
# The rules follow aider's, which have been exercised on a large corpus of real replies: look
# at most three lines up, nearest first; a fence line is passed over (its info string counts
# only when it contains "." or "/"), the first other line ends the walk; prefer a candidate
# containing ".". We differ on purpose: marker lines, prose and a bare word ending in ":"
# ("Changes:") are never taken for a path, indented fences are walked over like flush ones,
# blank lines are skipped without counting (an empty line after the opening fence must not
# hide the path), and a path in an info string (```python src/a.py) is read as the path alone.

# both start with "<", tested first: the path line above every block is looked at
_xml_fence = compiled_on_use(r"<(?:sourcecode|source|codeblock|code|pre)(?:[ \t][^>]*)?>")
_xml_fence_end = compiled_on_use(r"</(?:sourcecode|source|codeblock|code|pre)>")


def fence_info(line: str) -> str | None:
    """The info string when `line` is a fence line (``` or ~~~ of any length, or the
    `<source>`-style tags some models use), else None. Openers and closers alike: a bare
    fence has info ""."""
    s = line.strip()
    if s.startswith("```") or s.startswith("~~~"):
        return s.lstrip(s[0]).strip()
    m = _xml_fence().match(s) if s.startswith("<") else None
    if m:
        return s[m.end() :].strip()
    return None


def is_fence_end(line: str) -> bool:
    """A line that can only close a fence: a bare run of ``` / ~~~, or `</source>` and kin."""
    s = line.strip()
    if len(s) >= 3 and s[0] in "`~" and s == s[0] * len(s):
        return True
    return s.startswith("</") and _xml_fence_end().fullmatch(s) is not None


def path_from_line(line: str) -> str | None:
    """A path written alone on a line (possibly decorated, or behind `# ` or `// `), else None."""
    s = clean_path(line)
    for comment in ("// ", "-- ", "; "):
        if s.startswith(comment):
            s = clean_path(s[len(comment) :])
    return s if looks_like_path(s) else None


class PathAbove(NamedTuple):
    """What the lines above a marker say: the path (or None) and where the block's header
    starts (the path line or the fence opener; the marker itself when there is neither)."""

    path: str | None
    start: int
    language: str | None = None


def _language(info: str) -> str | None:
    word = info.split(maxsplit=1)[0] if info else ""
    return word if word and "/" not in word and "." not in word else None


def path_above(
    lines: list[str],
    marker: int,
    floor: int = -1,
    markers: tuple[re.Pattern[str], ...] = (),
    reach: int = 3,
    bare_names: bool = True,
) -> PathAbove:
    """Find the path for the block whose first marker is `lines[marker]`.

    Only lines after `floor` (the end of the previous block) are looked at, so one block's
    lines never name the next block's file; a line matching one of `markers` (stripped)
    ends the walk without being a candidate. With `bare_names` False a name needs a "." or
    a "/" (`Makefile` no longer counts): for lines that may be another block's content.
    """
    candidates: list[tuple[str, int]] = []
    fences: list[int] = []  # fence lines walked over, nearest first
    language: str | None = None
    nearest = marker  # the first line above the marker that is not blank
    k = marker
    for _ in range(reach):
        k -= 1
        while k > floor and not lines[k].strip():
            k -= 1  # blank lines between the path, the fence and the marker are only layout
        if k <= floor:
            break
        nearest = min(nearest, k)
        line = lines[k]
        if any(p.fullmatch(line.strip()) for p in markers):
            break
        info = fence_info(line)
        if info is not None:
            fences.append(k)
            language = language or _language(info)
            if "." in info or "/" in info:
                p = path_from_info(info)
                if p:
                    candidates.append((p, k))
            continue
        if line.strip() != "...":
            p = path_from_line(line)
            bare = p is not None and "." not in p and "/" not in p
            # "Makefile" is a name; "Changes:" introduces what follows
            if p and not (bare and (not bare_names or line.rstrip().endswith(":"))):
                candidates.append((p, k))
        break
    if not candidates:
        start = fences[0] if fences and fences[0] == nearest else marker
        return PathAbove(None, start, language if start < marker else None)
    path, k = next((c for c in candidates if "." in c[0]), candidates[0])
    if k == nearest and not fences and k - 1 > floor:
        info = fence_info(lines[k - 1])
        if info:  # a path as the first line inside a fence: the opener belongs to the block
            return PathAbove(path, k - 1, _language(info))
    return PathAbove(path, k, language)


_INDENTED_FENCE = re.compile(r"\n[ \t][^\S\n]*(?:```|~~~)")


def dedent_indented_fences(
    lines: list[str], opens: Callable[[list[str]], bool] | None = None
) -> list[str]:
    """A fence indented under a list item (`1. Apply:` / `   ```diff`) indents its body too;
    strip the fence's indent from the body so prefix-sensitive formats (diff, V4A) read as
    written. One line in, one line out: indexes stay valid.

    With `opens`, only a fence whose first two non-blank body lines (dedented) pass it
    counts: a diff or V4A patch of a Markdown file has context lines such as ` ```sh` that
    look like an indented fence, and dedenting what follows them would break the patch."""
    if isinstance(lines, ReplyLines):
        return lines.derived(("dedent", opens), lambda: _dedent(lines, opens), same_fences=True)
    return _dedent(lines, opens)


def _dedent(lines: list[str], opens: Callable[[list[str]], bool] | None) -> list[str]:
    out = lines
    text = lines.text if isinstance(lines, ReplyLines) else "\n" + "\n".join(lines)
    if not _INDENTED_FENCE.search(text):
        return out
    for f in find_fences(lines):
        m = fence_open(lines[f.start])
        indent = m.group("indent") if m else ""
        if not indent:
            continue
        stop = f.end if f.end is not None else len(lines)
        body = range(f.start + 1, stop)
        n = len(indent)
        if any(lines[k].strip() and not indented_by(lines[k], indent) for k in body):
            # a fence under a list item indents every line of its body; one that does not
            # is something else (a context line ` ```` inside a bare diff, say)
            continue
        if opens is not None:
            head = [lines[k] for k in body if lines[k].strip()][:2]
            if not head or not opens([x[n:] for x in head]):
                continue
        if out is lines:
            out = list(lines)
        for k in body:
            if indented_by(out[k], indent):
                out[k] = out[k][n:]
    return out


NBSP = "\u00a0"


def indented_by(line: str, indent: str) -> bool:
    """Does `line` start with `indent` (blanks and tabs), a no-break space counting as a
    space? The list item's indentation is removed; it is never the file's content."""
    if line.startswith(indent):
        return True
    return NBSP in line[: len(indent)] and line[: len(indent)].replace(NBSP, " ") == indent


# --- Fenced-block helpers: comment markers, file paths, target levels ------------------------
#
# Whole-file, structural and tool-call blocks put their header (a path, `FILE:`,
# `TARGET_NODE:`) behind whatever comment syntax the fence's language uses.

_WRAPPED_COMMENTS = (("{/*", "*/}"), ("<!--", "-->"), ("/*", "*/"), ("(*", "*)"))
_LINE_COMMENTS = ("//", "--", "#", ";", "%")
_file_ext = compiled_on_use(r"[^/\\.]\.[A-Za-z0-9_+\-]*[A-Za-z][A-Za-z0-9_+\-]*$")
_FILE_NAMES = frozenset(
    {"Makefile", "Dockerfile", "Containerfile", "Gemfile", "Rakefile", "Procfile", "Justfile"}
)
_LEVEL_SEPARATORS = (" / ", " > ", " :: ", " → ")


def strip_comment_marker(line: str) -> tuple[str, str | None]:
    """The text of `line` behind one layer of comment syntax, stripped, and the marker that
    was there (`//`, `#`, `--`, `;`, `%`, `<!--`, `/*`, `{/*`, `(*`), or None for none."""
    s = line.strip()
    for opener, closer in _WRAPPED_COMMENTS:
        if s.startswith(opener) and s.endswith(closer) and len(s) >= len(opener) + len(closer):
            return s[len(opener) : len(s) - len(closer)].strip(), opener
    for marker in _LINE_COMMENTS:
        if s.startswith(marker):
            return s.lstrip(marker[0]).strip(), marker
    return s, None


def looks_like_file_path(s: str) -> bool:
    """Stricter than `looks_like_path`: a file name with an extension (`a.py`), a path with
    a slash (`src/main`), or a well-known extensionless name (`Makefile`). Prose such as
    "Done." or "Here is the code" never qualifies."""
    if not looks_like_path(s) or s.endswith(("/", "\\")):
        return False
    name = s.replace("\\", "/").rsplit("/", 1)[-1]
    if name in _FILE_NAMES or (name[:1] == "." and name[1:2].isalpha()):  # .env, .gitignore
        return True
    return bool(_file_ext().search(s)) or ("/" in s and any(c.isalpha() for c in name))


def split_levels(text: str) -> tuple[str, ...]:
    """Hierarchy levels of a structural target: one per line, else split on ` / `, ` > `,
    ` :: ` or ` → ` (the first separator present), empty levels dropped."""
    parts = [p.strip() for p in text.replace("\r", "\n").split("\n")]
    if len([p for p in parts if p]) == 1:
        one = next(p for p in parts if p)
        for sep in _LEVEL_SEPARATORS:
            if sep in one:
                parts = [p.strip() for p in one.split(sep)]
                break
    return tuple(p for p in parts if p)


# Past this many malformed blocks a reply is marker lines (a log, conflict markers, patch
# headers, an attack), not an edit gone slightly wrong: the rest of it is one block, refused
# unread. A megabyte of one-line blocks would cost seconds, and 100,000 failures help nobody.
MAX_MALFORMED = 1_000


def unread_failure(where: str, malformed: int) -> Failure:
    """Why the rest of a reply from `where` on ("reply line 12") is one refused block."""
    return Failure(
        ErrorCode.MALFORMED_BLOCK,
        f"not read from {where} on: the {malformed:,} blocks before it are malformed "
        f"(past {MAX_MALFORMED:,}, the rest of a reply is not read); fix those blocks first",
        {"unread": True, "malformed_blocks": malformed},
    )


def numbered(block: EditBlock, index: int) -> EditBlock:
    """`block` as the reply's `index`-th: itself when it already carries that number (a
    finder that numbers its own blocks in reply order, as `blocks_per_fence` does, spares a
    reply of one format any copy), else a copy with its attributes shared (a frozen block's
    are never changed), set as the frozen dataclass's own `__init__` sets them, without
    `dataclasses.replace`'s reading of the fields on every call (8 µs, paid 60,000 times by
    a megabyte of small blocks). Attribute by attribute, not by copying `vars(block)`:
    asking for an instance's `__dict__` makes Python build one, a second object per block
    for the garbage collector to walk again and again while a large reply is planned."""
    if block.index == index:
        return block
    out = object.__new__(EditBlock)
    for name in _BLOCK_FIELDS:
        _set(out, name, getattr(block, name))
    _set(out, "index", index)
    return out


_BLOCK_FIELDS = tuple(f.name for f in dataclasses.fields(EditBlock))
_set = object.__setattr__


def normalise_newlines(text: str) -> str:
    """CRLF and lone CR become "\\n" (JSON strings and pasted text may carry either)."""
    return text.replace("\r\n", "\n").replace("\r", "\n")


def blocks_per_fence(
    lines: list[str], make: Callable[[list[str], Fence, int, int], EditBlock | None]
) -> list[EditBlock]:
    """Run `make(lines, fence, floor, index)` on every fence (indented fences dedented
    first); `floor` is the previous fence's closing line, above which no header is looked
    for, and `index` the number the block it makes is to carry: its place among this
    finder's blocks, which is its place in the reply when no other format's blocks come
    before it (then `parse_reply` keeps the block as it is; see `numbered`)."""
    lines = dedent_indented_fences(lines)
    out: list[EditBlock] = []
    floor = -1
    for fence in find_fences(lines):
        block = make(lines, fence, floor, len(out))
        floor = fence.end if fence.end is not None else len(lines)
        if block is not None:
            out.append(block)
    return out
