"""Where a text is at top level, read lexically: outside every string, comment and bracket.

`syntax_check` proves an edit added no syntax error from the changed windows alone, and
needs to know that a window starts at top level. That is read from the text above it with
one regular expression per language (`Lexis.neutral`), which costs time in proportion to
that text: the cost of a whole plan at 100,000 lines, when the edit is small.

The text above an edit is the same from one plan to the next (the server plans replies
against the same open document again and again; a block's text is the previous block's
result, whose start did not change). `TopLevel` keeps, per text, the line starts already
proven at top level, so a question is answered by reading from the nearest one below it,
not from the start. Reading from there is the same reading: a line start proven at top
level ends every match of the expression (strings and comments cannot cross it open), so
the expression reads the text after it as it would alone, and the brackets before it are
matched among themselves (see `TopLevel.proves`). An edit checked once hands what was
proven outside it to the edited text (`TopLevel.carry`), whose next edit, in the server's
open document, then reads from near it too. Property tests hold every answer to the
reading from the start, for random texts, questions and edits.
"""

from __future__ import annotations

import bisect
import functools
import re
import threading
from typing import NamedTuple

from lsp_server.resolve.cache import TextCache

# Bracket pairs are removed innermost first until none is left (see `Lexis.neutral`).
_NOT_BRACKETS = bytes(c for c in range(256) if c not in b"()[]{}")
# Appended to the text `Lexis.skip` reads: a string or comment left open swallows it.
_END = "\x00"


class Lexis(NamedTuple):
    """What a language's text looks like to a reader that knows only where strings,
    comments and brackets are.

    `skip` matches every complete string and comment (an unterminated one does not
    match, so its quote stays behind, or runs to the end of the text); `unsure` lists
    the characters that, left after `skip` removed what it matched, mean the state cannot
    be read lexically; `start`
    matches a line that begins a top-level statement (`continues` excepted: `else:` and
    the like go on the statement before them); `heads` finds the line starts `start`
    matches at, so that lines which cannot begin one are skipped in C, not one by one.
    """

    skip: re.Pattern[str]
    unsure: str
    start: re.Pattern[str]
    continues: re.Pattern[str] | None = None
    heads: re.Pattern[str] | None = None

    def neutral(self, text: str, start: int, end: int) -> bool:
        """Whether `text[start:end]`, read from top level, ends at top level: every string
        and comment closed, every bracket matched, no line continuation at its end."""
        if end <= start:
            return True
        if text[end - 2 : end] == "\\\n":
            return False
        code = self.skip.sub("", text[start:end] + _END)
        if not code.endswith(_END) or any(c in code for c in self.unsure):
            return False
        # bytes.translate deletes in C; every byte of a non-ASCII character goes too
        brackets = code.encode("utf-8", "surrogatepass").translate(None, _NOT_BRACKETS)
        while brackets:
            fewer = brackets.replace(b"()", b"").replace(b"[]", b"").replace(b"{}", b"")
            if len(fewer) == len(brackets):
                return False  # an unmatched or crossed bracket
            brackets = fewer
        return True

    def starts_at(self, text: str, at: int) -> bool:
        """Whether the line of `text` starting at offset `at` reads as a new top-level
        statement after the last non-blank line before it. The patterns are matched in
        place: most lines do not start at column 0, and cost one match, no copy."""
        if not self.start.match(text, at):
            return False
        if self.continues is not None and self.continues.match(text, at):
            return False
        previous = _previous_line(text, at)
        return previous is None or not previous.startswith("@")


def _previous_line(text: str, at: int) -> str | None:
    """The last non-blank line before the line starting at `at`, or None."""
    end = at - 1
    while end > 0:
        begin = text.rfind("\n", 0, end) + 1
        line = text[begin:end]
        if line.strip():
            return line
        end = begin - 1
    return None


_DQ = r'"[^"\\\n]*(?:\\.[^"\\\n]*)*"'
_SQ = r"'[^'\\\n]*(?:\\.[^'\\\n]*)*'"
# a block comment left open runs to the end of the text, taking the end marker with it
_C_COMMENTS = r"//[^\n]*|/\*[\s\S]*?\*/|/\*[\s\S]*"
# A template literal is read only when its `${...}` hold no braces, quotes or templates.
_TEMPLATE = r"`[^`\\$]*(?:(?:\\[\s\S]|\$(?!\{)|\$\{[^{}`'\"]*\})[^`\\$]*)*`"
_JS_SKIP = rf"{_C_COMMENTS}|{_DQ}|{_SQ}|{_TEMPLATE}"

# Each language's lexical model as pattern sources: (strings and comments, characters that
# leave a doubt, a top-level statement's first line, a line that goes on the statement
# before it). Compiled when a language is first checked (`lexis_for`), as every pattern
# of the resolver: a run checks the languages of the files it changed, if any.
_LEXES: dict[str, tuple[str, str, str, str | None]] = {
    "python": (
        r'"""[^"\\]*(?:(?:\\[\s\S]|"(?!""))[^"\\]*)*"""'
        r"|'''[^'\\]*(?:(?:\\[\s\S]|'(?!''))[^'\\]*)*'''"
        # three quotes always open a long string: one left open runs to the end of the
        # text, taking the end marker with it (see `Lexis.neutral`)
        r'|"""[\s\S]*'
        r"|'''[\s\S]*"
        rf"|{_DQ}|{_SQ}|#[^\n]*",
        "\"'",
        r"[A-Za-z_@]",
        r"(?:else|elif|except|finally)\b",
    ),
    "typescript": (
        _JS_SKIP,
        # a `/` left over may open a regular expression, whose text is not code
        "\"'`/",
        r"[A-Za-z_$@]",
        r"(?:else|catch|finally)\b",
    ),
    # JavaScript files may hold JSX, whose text between tags is not code either.
    "javascript": (
        _JS_SKIP,
        "\"'`/<",
        r"[A-Za-z_$@]",
        r"(?:else|catch|finally)\b",
    ),
    # raw strings (backquotes) have no escapes
    "go": (rf"{_C_COMMENTS}|{_DQ}|{_SQ}|`[^`]*`", "\"'`", r"[A-Za-z_]", None),
}

LANGUAGES = frozenset(_LEXES)

# An alternative that never matches (`(?!)` fails wherever it is tried), added to every
# `skip` for the speed of the search alone. The regular expression engine skips ahead to
# the next character a match can start with, testing each character against that set;
# CPython stores a set of one or two runs of characters (Python's `"#` and `'`) as a list
# it walks per character, and a set of three runs or more as a bitmap, one lookup
# (`re._compiler._optimize_charset`). `\x01` makes a third run: `neutral` over 1.5 MB
# of the generated Python file of `benchmarks/` takes 1.7-2.3x less time (about 4 ns a
# character instead of 7-10; `python -m benchmarks.compare_peers`, the plan as shipped at
# 100,000 lines); TypeScript's and Go's sets span three runs already. What matches is the
# same: the added alternative is tried at a `\x01` only, and fails there.
_NEVER = r"\x01(?!)"


@functools.cache
def lexis_for(language: str) -> Lexis | None:
    """The lexical model of `language`, None when there is none."""
    found = _LEXES.get(language)
    if found is None:
        return None
    skip, unsure, start, continues = found
    return Lexis(
        re.compile(f"{skip}|{_NEVER}"),
        unsure,
        re.compile(start),
        None if continues is None else re.compile(continues),
        re.compile(f"^(?:{start})", re.MULTILINE),
    )


# Between two line starts kept as proven, about this many characters: a later question
# reads at most this far (plus the line it lands in) beyond the nearest one below it.
STEP = 32_768
# A step is ended on a line that looks like a top-level statement's first line (`Lexis`'s
# `start`), found within this many lines of the step's length; a step that ends inside a
# string or bracket is not kept (see `TopLevel.proves`).
_STEP_LINES = 64


class TopLevel:
    """The line starts of one text proven at top level (`Lexis.neutral(text, 0, at)`),
    in order. Only ever read and extended under its lock: the server plans on threads."""

    def __init__(self, lexis: Lexis, language: str) -> None:
        self.lexis = lexis
        self.language = language
        self.known: list[int] = [0]
        self.lock = threading.Lock()

    def proves(self, text: str, at: int) -> bool:
        """`self.lexis.neutral(text, 0, at)`, read from the nearest line start below `at`
        already proven (`at` is kept too when it is a line start and proven).

        Why that is the same answer: at a proven line start `k`, the expression's matches
        over `text[:k]` all end by `k` (a string or comment left open would have taken
        the end marker, a quote left behind is a doubt), and none of them looked past
        `k - 1`, a newline, to decide (each string kind either stops at a newline or
        found its closing quote before `k`). So reading `text[:at]` matches the same
        strings and comments before `k` and starts afresh at `k`: what is left is
        `text[:k]`'s code then `text[k:at]`'s, and brackets matched in pairs before `k`
        leave `text[k:at]`'s to match among themselves. Steps of about `STEP` characters
        are kept on the way, so that a later question below `at` reads little too.
        """
        with self.lock:
            i = bisect.bisect_right(self.known, at) - 1
            k = self.known[i]
            if k == at:
                return True
            neutral = self.lexis.neutral
            while at - k > 2 * STEP:
                step = self._step_end(text, k + STEP)
                if step is None or step >= at or not neutral(text, k, step):
                    break  # one reading to `at` decides: at most twice the text, never more
                i += 1
                self.known.insert(i, step)
                k = step
            if not neutral(text, k, at):
                return False
            if text[at - 1] == "\n":  # only line starts are kept (see above)
                self.known.insert(i + 1, at)
            return True

    def carry(self, old: str, new: str, start: int, end: int, new_end: int) -> None:
        """Give `new`'s entry what this one, `old`'s, proved outside the span where they
        differ: `old[start:end]` became `new[start:new_end]`, `start` and `end` line
        starts. The next reply against the edited file then reads from near its edit too.

        Below `start` the texts are the same, and so is every reading of them. Above the
        span, a line start `k` of `old` proven at top level is one of `new`, shifted, when
        both texts are proven at the span's end: `old[end:k]` then reads to top level
        alone (see `proves`), and it is `new[new_end:k + new_end - end]`. Only a span of
        a few steps is read for that; a longer one carries what lies below it.
        """
        index = top_level(new, self.lexis, self.language)
        if index is self:
            return
        with self.lock:
            below = [k for k in self.known if k <= start]
        with index.lock:
            index.known = sorted({*index.known, *below})
        if end - start > 2 * STEP or new_end - start > 2 * STEP:
            return
        if not (self.proves(old, end) and index.proves(new, new_end)):
            return
        shift = new_end - end
        with self.lock:
            above = [k + shift for k in self.known if k > end]
        with index.lock:
            index.known = sorted({*index.known, *above})

    def _step_end(self, text: str, at: int) -> int | None:
        """The start of a line at or after offset `at` that looks like a top-level
        statement's first line, within `_STEP_LINES` lines; None when there is none.
        Only where a step ends depends on it (a step that does not end at top level is
        not kept), never an answer."""
        start = text.find("\n", at - 1) + 1  # `at` itself when a line starts there
        looks = self.lexis.start.match
        goes_on = self.lexis.continues
        for _ in range(_STEP_LINES):
            if start <= 0 or start >= len(text):
                return None
            if looks(text, start) and (goes_on is None or not goes_on.match(text, start)):
                return start
            start = text.find("\n", start) + 1
        return None


# Each text's proven line starts, by language. Bounded as every cache of derived data,
# emptied by `cache.clear_all` (a benchmark's first sight of a text).
_INDEX: TextCache[dict[str, TopLevel]] = TextCache(max_entries=32)


def top_level(text: str, lexis: Lexis, language: str) -> TopLevel:
    """The proven line starts of `text` read as `language`, made on first use."""
    found = _INDEX.get(text)
    if found is None:
        found = {}
        _INDEX.put(text, found)
    index = found.get(language)
    if index is None:
        index = found.setdefault(language, TopLevel(lexis, language))
    return index
