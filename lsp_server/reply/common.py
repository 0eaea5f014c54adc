"""Helpers every reply format shares: fences, path lines, line spans.

Models put the file name in many places (the line before the fence, the fence's info
string, the first line inside the fence, decorated with `#`, `*`, backticks or a trailing
colon). These helpers read all of them one way.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from lsp_server.model import EditBlock

# ``` or ~~~ (3+), optionally indented, then an info string. Linear: no nested quantifiers.
_FENCE = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>`{3,}|~{3,})(?P<info>[^`]*)$")
# A path: only these characters, ending in a name character (or one "." after one). Two
# patterns, each linear: the single `^[...]*[\w\-]\.?[\w\-]*$` they replace backtracked
# quadratically on a long run of "-" that failed at its end.
_PATHISH_CHARS = re.compile(r"^[\w.\-/\\@+~ ]*$")
_PATHISH_END = re.compile(r"[\w\-]\.?$")


@dataclass(frozen=True)
class Fence:
    """A fenced region: `start` is the opening line index, `end` the closing one (or None)."""

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
    return s.startswith(marker[0] * len(marker)) and set(s) <= {marker[0]}


def find_fences(lines: list[str]) -> list[Fence]:
    """All top-level fences, in order. An unclosed fence runs to the end (end=None)."""
    out: list[Fence] = []
    i = 0
    n = len(lines)
    while i < n:
        m = _FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        marker, info = m.group("fence"), m.group("info")
        j = i + 1
        while j < n and not is_fence_close(lines[j], marker):
            j += 1
        out.append(Fence(i, j if j < n else None, marker, info.strip()))
        i = j + 1
    return out


def clean_path(line: str) -> str:
    """Strip the decoration models put around a file name: `#`, `*`, backticks, `:`, quotes."""
    s = line.strip()
    s = s.rstrip(":").strip()
    s = s.lstrip("#").strip()
    s = s.strip("`").strip()
    s = s.strip("*").strip()
    s = s.strip("`").strip()
    s = s.rstrip(":").strip()
    for prefix in ("File:", "FILE:", "file:", "Path:", "path:", "Filename:", "filename:"):
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
    return "." in s or "/" in s or s[0].isalpha()


def path_from_info(info: str) -> str | None:
    """A path in a fence's info string: ```python src/a.py, ```src/a.py, ```py title="a.py"."""
    m = re.search(r"""(?:title|file|path|filename)=["']?([^"'\s]+)""", info)
    if m:
        return m.group(1)
    for word in info.split():
        w = clean_path(word)
        if ("/" in w or "." in w) and looks_like_path(w):
            return w
    return None


def normalise_text(lines: list[str]) -> str:
    """Join reply lines as file text: "\\n" endings, one after every line."""
    return "".join(line + "\n" for line in lines)


# --- Locating the path above a marker line (SEARCH/REPLACE, EDIT protocol) -------------------
#
# The rules follow aider's, which have been exercised on a large corpus of real replies: look
# at most three lines up, nearest first; a fence line is passed over (its info string counts
# only when it contains "." or "/"), the first other line ends the walk; prefer a candidate
# containing ".". We differ on purpose: marker lines, prose and a bare word ending in ":"
# ("Changes:") are never taken for a path, indented fences are walked over like flush ones,
# and a path in an info string (```python src/a.py) is read as the path alone.

_XML_FENCE = re.compile(r"<(?:sourcecode|source|codeblock|code|pre)(?:[ \t][^>]*)?>")
_XML_FENCE_END = re.compile(r"</(?:sourcecode|source|codeblock|code|pre)>")


def fence_info(line: str) -> str | None:
    """The info string when `line` is a fence line (``` or ~~~ of any length, or the
    `<source>`-style tags some models use), else None. Openers and closers alike: a bare
    fence has info ""."""
    s = line.strip()
    if s.startswith("```") or s.startswith("~~~"):
        return s.lstrip(s[0]).strip()
    m = _XML_FENCE.match(s)
    if m:
        return s[m.end() :].strip()
    return None


def is_fence_end(line: str) -> bool:
    """A line that can only close a fence: a bare run of ``` / ~~~, or `</source>` and kin."""
    s = line.strip()
    if len(s) >= 3 and s[0] in "`~" and s == s[0] * len(s):
        return True
    return bool(_XML_FENCE_END.fullmatch(s))


def path_from_line(line: str) -> str | None:
    """A path written alone on a line (possibly decorated, or behind `# ` or `// `), else None."""
    s = clean_path(line)
    for comment in ("// ", "-- ", "; "):
        if s.startswith(comment):
            s = clean_path(s[len(comment) :])
    return s if looks_like_path(s) else None


@dataclass(frozen=True)
class PathAbove:
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
    for k in range(marker - 1, max(floor, marker - 1 - reach), -1):
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
        start = fences[0] if fences and fences[0] == marker - 1 else marker
        return PathAbove(None, start, language if start < marker else None)
    path, k = next((c for c in candidates if "." in c[0]), candidates[0])
    if k == marker - 1 and not fences and k - 1 > floor:
        info = fence_info(lines[k - 1])
        if info:  # a path as the first line inside a fence: the opener belongs to the block
            return PathAbove(path, k - 1, _language(info))
    return PathAbove(path, k, language)


def dedent_indented_fences(
    lines: list[str], opens: Callable[[list[str]], bool] | None = None
) -> list[str]:
    """A fence indented under a list item (`1. Apply:` / `   ```diff`) indents its body too;
    strip the fence's indent from the body so prefix-sensitive formats (diff, V4A) read as
    written. One line in, one line out: indexes stay valid.

    With `opens`, only a fence whose first two non-blank body lines (dedented) pass it
    counts: a diff or V4A patch of a Markdown file has context lines such as ` ```sh` that
    look like an indented fence, and dedenting what follows them would break the patch."""
    out = lines
    if not any(line[:1] in (" ", "\t") and line.lstrip()[:3] in ("```", "~~~") for line in lines):
        return out
    for f in find_fences(lines):
        m = fence_open(lines[f.start])
        indent = m.group("indent") if m else ""
        if not indent:
            continue
        stop = f.end if f.end is not None else len(lines)
        if opens is not None:
            head = [lines[k] for k in range(f.start + 1, stop) if lines[k].strip()][:2]
            if not head or not opens([x.removeprefix(indent) for x in head]):
                continue
        if out is lines:
            out = list(lines)
        for k in range(f.start + 1, stop):
            if out[k].startswith(indent):
                out[k] = out[k][len(indent) :]
    return out


# --- Fenced-block helpers: comment markers, file paths, target levels ------------------------
#
# Whole-file, structural and tool-call blocks put their header (a path, `FILE:`,
# `TARGET_NODE:`) behind whatever comment syntax the fence's language uses.

_WRAPPED_COMMENTS = (("{/*", "*/}"), ("<!--", "-->"), ("/*", "*/"), ("(*", "*)"))
_LINE_COMMENTS = ("//", "--", "#", ";", "%")
_FILE_EXT = re.compile(r"[^/\\.]\.[A-Za-z0-9_+\-]*[A-Za-z][A-Za-z0-9_+\-]*$")
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
    return bool(_FILE_EXT.search(s)) or ("/" in s and any(c.isalpha() for c in name))


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


def normalise_newlines(text: str) -> str:
    """CRLF and lone CR become "\\n" (JSON strings and pasted text may carry either)."""
    return text.replace("\r\n", "\n").replace("\r", "\n")


def blocks_per_fence(
    lines: list[str], make: Callable[[list[str], Fence, int], EditBlock | None]
) -> list[EditBlock]:
    """Run `make(lines, fence, floor)` on every fence (indented fences dedented first);
    `floor` is the previous fence's closing line, above which no header is looked for."""
    lines = dedent_indented_fences(lines)
    out: list[EditBlock] = []
    floor = -1
    for fence in find_fences(lines):
        block = make(lines, fence, floor)
        floor = fence.end if fence.end is not None else len(lines)
        if block is not None:
            out.append(block)
    return out
