"""Reply → blocks: find every edit block in free-form text, whatever its format.

Each format lives in its own module with a `find_blocks(lines) -> list[EditBlock]`
function. They all run over the same reply; where two claim overlapping lines the one
earlier in `FINDERS` wins (explicit markers beat a bare fenced block, which is only a
whole-file edit when nothing more specific claims it).

How a finder is listed in `FINDERS`, and what it may rely on:

* `lines` is a `ReplyLines` (reply/common.py): a read-only list of the reply's lines that
  also holds, computed once and shared, the joined text, the fences (`find_fences`) and the
  dedented copies (`dedent_indented_fences`). Finders use those helpers rather than
  scanning for fences themselves, and never change `lines`.
* An entry is either a finder function (always run) or a `Gated` one: the format's module,
  imported on first use, whose finder runs only when the reply's text holds one of
  `needs`, literal strings or compiled patterns searched in `"\n" + text` (so `\n`
  stands for a line start). `needs` must be necessary: a reply that holds none of them
  has no block of that format, whatever else it holds (a property test holds every gate to
  this, against the finder run on every reply). A format whose markers change updates
  its `needs` with them; when in doubt, list the finder ungated.
* A `Gated` entry may also name a `view`: how its finder reads the lines (no-break spaces
  where they are syntax, list-item fences dedented), one line for one so that line
  numbers hold: `page_text.prefix_spaces` for a format with a prefix column (diff, V4A),
  `page_text.indent_spaces` for one whose leading blanks are never content (JSON).
* `per_fence=True` says every block the finder returns covers a fence's opening line (it
  reads fenced bodies, one block per fence): it is skipped when earlier finders have
  claimed the opening line of every fence, since all it could find would be dropped.
"""

from __future__ import annotations

import bisect
import functools
import importlib
import re
from collections.abc import Callable, Iterable
from typing import NamedTuple

from lsp_server.model import EditBlock, ErrorCode, Failure, ParsedReply, PlacementError
from lsp_server.reply.common import Fence, ReplyLines, dedent_indented_fences, numbered
from lsp_server.reply.marker_lines import MarkerKind, edit_marker
from lsp_server.reply.page_text import indent_spaces, prefix_spaces, read_web_spaces

# A reply over this is refused as a whole (CONTENT_TOO_LARGE) before any parsing. A long model
# reply (~60k tokens) is about 240 KB, so the limit leaves room for prose and pasted output
# while bounding what one parse may cost.
MAX_REPLY_BYTES = 1_000_000

FindBlocks = Callable[[list[str]], list[EditBlock]]


class Gated(NamedTuple):
    """The `find_blocks` of `lsp_server.reply.<module>`, imported the first time a reply
    holds one of `needs` and run only on such replies (see the module docstring). `view`,
    when given, is the reading of the lines this finder gets instead of the lines
    themselves (one line for one, so line numbers hold). A NamedTuple rather than a
    dataclass: as immutable, and much cheaper to define at import."""

    module: str
    needs: tuple[str | re.Pattern[str], ...]
    view: Callable[[list[str]], list[str]] | None = None
    # every block the finder returns covers the opening line of a fence (it reads fenced
    # bodies, one block per fence): once earlier finders have claimed every fence's opening
    # line, all it could find would be dropped, so it is not run
    per_fence: bool = False

    def may_find(self, lines: ReplyLines) -> bool:
        text = lines.text
        return any(n in text if isinstance(n, str) else n.search(text) for n in self.needs)

    @property
    def find_blocks(self) -> FindBlocks:
        # the format's module loads only for a reply that may hold its blocks: a process
        # placing one SEARCH/REPLACE block never imports the diff or V4A parsers
        find = _LOADED.get(self.module)
        if find is None:
            # import_module, not a look in sys.modules: another thread (the server parses
            # off its event loop) may be importing the module, and only the import system
            # waits for it to finish
            find = importlib.import_module(f"lsp_server.reply.{self.module}").find_blocks
            _LOADED[self.module] = find
        return find


_LOADED: dict[str, FindBlocks] = {}  # each format's find_blocks, once its module has loaded


def _opens_block(head: list[str]) -> bool:
    """Does a fence whose first non-blank lines are `head` hold SEARCH/REPLACE or EDIT
    blocks (a marker first, or a path line and then the marker)? Only such a fence under a
    list item is dedented for those finders: a fence inside a block's own text (a Markdown
    file's code sample) keeps its indentation."""
    return any(
        m is not None and m.kind is MarkerKind.BLOCK
        for m in (edit_marker(head, k) for k in range(len(head)))
    )


def _dedent_blocks(lines: list[str]) -> list[str]:
    return dedent_indented_fences(lines, _opens_block)


_FENCED = ("```", "~~~", "<source", "<codeblock")

FINDERS: tuple[FindBlocks | Gated, ...] = (
    # an agent's tool call written as XML: its opening tag
    Gated(
        "tool_xml",
        (
            "<replace_in_file>",
            "<write_to_file>",
            "<apply_diff>",
            "<insert_content>",
            "<function=",
            '<invoke name="',
        ),
    ),
    # the line that opens every V4A patch
    Gated("apply_patch", ("*** Begin Patch",), prefix_spaces),
    # a block opens with `<<<<<<< SEARCH` (5 to 9 `<`; Cline's 3 or more `<` or `-`), an EDIT
    # block with `<<<< EDIT` (4 to 9)
    # (or ends with `>>>>>>> REPLACE`: a block whose SEARCH line was left out)
    Gated("search_replace", (re.compile("(?:<<<|---) *SEARCH|>>>>> *REPLACE"),), _dedent_blocks),
    Gated("edit_protocol", (re.compile("<<<< *EDIT"),), _dedent_blocks),
    # a JSON value starts a line: bare, or as a fenced body's first text
    # or follows a chat template's tag on its line (`<tool_call>{`, `[TOOL_CALLS] [`)
    Gated(
        "tool_calls",
        (
            re.compile(r"\n[^\S\n]*[\[{]"),
            "<tool_call",
            "<function_call>",
            "<functioncall>",
            "<tool_use>",
            "[TOOL_CALLS]",
            "<|python_tag|>",
        ),
        indent_spaces,
    ),
    Gated("structural", (re.compile(r"(?i)target[_ -]?(?:node|path)"),)),  # its header
    # a git header, or `--- a` over `+++ b`
    # (or a ```diff fence: a chat window's diff without the header)
    Gated(
        "unified_diff",
        ("diff --git ", "+++ ", re.compile(r"(?:```|~~~)[ \t]*(?:diff|patch)\b")),
        prefix_spaces,
    ),
    Gated("whole_file", _FENCED, per_fence=True),
    # a chat window's code block of whole definitions, with no path of its own
    Gated("snippets", _FENCED, indent_spaces, per_fence=True),
)


# longest first: a UTF-32-LE mark begins with the UTF-16-LE one
_WIDE_BOMS = (
    (b"\xff\xfe\x00\x00", "UTF-32-LE"),
    (b"\x00\x00\xfe\xff", "UTF-32-BE"),
    (b"\xff\xfe", "UTF-16-LE"),
    (b"\xfe\xff", "UTF-16-BE"),
)


def decode_reply(data: bytes, name: str) -> str:
    """A reply's bytes as text: UTF-8, strictly. Anything else raises PlacementError
    (BINARY_FILE) rather than being read with replacement characters, which would place and
    write U+FFFD where the reply had other bytes. `name` is the file (or "stdin") to name."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as err:
        details: dict[str, object] = {"path": name, "offset": err.start}
        why = f"invalid byte at offset {err.start}"
        for bom, encoding in _WIDE_BOMS:
            if data.startswith(bom):
                why = f"it starts with a {encoding} byte-order mark"
                details["encoding"] = encoding.lower()
                break
        raise PlacementError.of(
            ErrorCode.BINARY_FILE,
            f"{name} is not UTF-8 text ({why}); llm-patch reads replies as UTF-8: "
            "convert it to UTF-8 first",
            **details,
        ) from None


def parse_reply(text: str) -> ParsedReply:
    """Parse a whole reply. Never raises on any input text."""
    # a character is at most 4 bytes in UTF-8: only a long text needs counting
    size = len(text.encode("utf-8", "surrogatepass")) if len(text) > MAX_REPLY_BYTES // 4 else 0
    if size > MAX_REPLY_BYTES:
        return ParsedReply(
            (),
            Failure(
                ErrorCode.CONTENT_TOO_LARGE,
                f"the reply is {size:,} bytes; the limit is {MAX_REPLY_BYTES:,}. "
                "Ask the model for smaller patches, one file at a time.",
                {"bytes": size, "limit": MAX_REPLY_BYTES},
            ),
        )
    # CRLF and lone CR (a reply copied from a web page or a Windows tool) end lines too
    lines = ReplyLines(read_web_spaces(text.replace("\r\n", "\n").replace("\r", "\n")))
    claimed: list[tuple[int, int]] = []  # disjoint spans, sorted
    starts: list[int] = []
    found: list[EditBlock] = []
    for entry in FINDERS:
        if isinstance(entry, Gated):
            if not entry.may_find(lines):
                continue
            if entry.per_fence and all(_claimed(starts, claimed, f.start) for f in lines.fences):
                continue
            finder = entry.find_blocks
            if entry.view is not None:
                finder = functools.partial(_in_view, finder, entry.view)
        else:
            finder = entry
        for block in finder(lines):
            lo, hi = block.reply_lines
            # the claimed span starting last at or before `hi` is the only one that can reach
            # `lo` (they are disjoint): a lookup, not a scan, so 10,000 blocks stay linear
            k = bisect.bisect_right(starts, hi)
            if k and claimed[k - 1][1] >= lo:
                continue
            found.append(block)
        # claim after each finder so one format's own blocks never shadow each other
        claimed = _union(b.reply_lines for b in found)
        starts = [lo for lo, _ in claimed]
    # marker lines are looked for in the fence body lines no block holds, and there are none
    # when the blocks hold every fence's whole body (a fenced SEARCH/REPLACE block): then
    # `stray_markers` could only return [], and whole_file is not imported to say so
    if not all(_held(starts, claimed, f.start + 2, _body_end(f, lines)) for f in lines.fences):
        from lsp_server.reply import whole_file

        found.extend(whole_file.stray_markers(lines, found))
    found.sort(key=lambda b: b.reply_lines)
    blocks = tuple(numbered(b, i) for i, b in enumerate(found))
    if not blocks:
        if any(f.info.split()[:1] in (["diff"], ["patch"]) for f in lines.fences):
            from lsp_server.reply.unified_diff import unreadable_diff_fence

            why = unreadable_diff_fence(lines)
            if why is not None:
                return ParsedReply((), Failure(ErrorCode.NO_EDIT_BLOCKS, why))
        return ParsedReply(
            (),
            Failure(
                ErrorCode.NO_EDIT_BLOCKS,
                "no edit blocks found in the reply (looked for SEARCH/REPLACE, EDIT, unified "
                "diff, *** Begin Patch, TARGET_NODE, fenced whole-file and JSON tool-call blocks, "
                "and fenced code snippets of whole definitions)",
            ),
        )
    return ParsedReply(blocks)


def _claimed(starts: list[int], claimed: list[tuple[int, int]], index: int) -> bool:
    """Is the 0-based line `index` inside one of the `claimed` 1-based spans?"""
    k = bisect.bisect_right(starts, index + 1)
    return k > 0 and claimed[k - 1][1] >= index + 1


def _held(starts: list[int], claimed: list[tuple[int, int]], lo: int, hi: int) -> bool:
    """Are all the 1-based lines `lo`..`hi` inside the `claimed` spans? An empty range (lo >
    hi) is. `_union` merges touching spans, so a run of held lines lies in one span."""
    if lo > hi:
        return True
    k = bisect.bisect_right(starts, lo)
    return k > 0 and claimed[k - 1][1] >= hi


def _body_end(fence: Fence, lines: list[str]) -> int:
    """The 1-based number of `fence`'s last body line, the one before its closing line (whose
    0-based index is that number); an unclosed fence's body runs to the end of the reply."""
    return fence.end if fence.end is not None else len(lines)


def _in_view(
    finder: FindBlocks, view: Callable[[list[str]], list[str]], lines: list[str]
) -> list[EditBlock]:
    return finder(view(lines))


def _union(spans: Iterable[tuple[int, int]]) -> list[tuple[int, int]]:
    """Inclusive line spans merged into disjoint ones, sorted by start; spans that touch
    (one ends on line n, the next starts on n + 1) are merged too."""
    out: list[tuple[int, int]] = []
    for lo, hi in sorted(spans):
        if out and lo <= out[-1][1] + 1:
            out[-1] = (out[-1][0], max(out[-1][1], hi))
        else:
            out.append((lo, hi))
    return out
