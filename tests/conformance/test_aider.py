"""Conformance with aider's SEARCH/REPLACE parser on its own ~100k-line transcript.

aider's test renders every section of `chat-history.md` through its parser and compares the
text with `chat-history-search-replace-gold.txt` (format: the corpus README, section 2).
Here the blocks come from OUR scanner (`search_replace.scan_block`, on which `find_blocks` is
built); only what is aider's own business is rendered by test code: the `####` sections, the
fence chosen per section (used only in an error text), shell blocks (aider records them, we
have no use for them) and the text of an error record (aider stops a section at its first
error; we keep going, so the test stops where aider would).
"""

from __future__ import annotations

import difflib
import re
import time

import pytest

from lsp_server.model import ErrorCode
from lsp_server.reply import search_replace as sr
from lsp_server.reply.common import normalise_text

from .corpus import CORPORA, missing

HISTORY = CORPORA / "aider-chat-history" / "chat-history.md"
GOLD = CORPORA / "aider-chat-history" / "chat-history-search-replace-gold.txt"

pytestmark = pytest.mark.skipif(
    not (HISTORY.is_file() and GOLD.is_file()), reason=missing("the aider corpus")
)

A = "@" * 20
TB = "`" * 3
FENCES = (TB + "`", "<source>", "<code>", "<pre>", "<codeblock>", "<sourcecode>", TB)
SHELLS = ("bash", "sh", "shell", "cmd", "batch", "powershell", "ps1", "zsh", "fish", "ksh")
SHELLS += ("csh", "tcsh")
ERRORS = {
    sr.DIVIDER: "Expected `=======`",
    sr.REPLACE: "Expected `>>>>>>> REPLACE` or `=======`",
}

# Records where our output deliberately differs from aider's, with the reason, would be listed
# here; there are none: on this corpus our scanner reproduces aider's parse exactly (our
# deliberate differences, such as a SEARCH marker always starting a new block, never change
# a record of this transcript).


def _choose_fence(body: str) -> str:
    return next((f for f in FENCES if "\n" + f in body), TB)


def _is_shell_start(lines: list[str], i: int) -> bool:
    s = lines[i].strip()
    if not any(s.startswith(TB + sh) for sh in SHELLS):
        return False
    near = lines[i + 1 : i + 3]
    return not any(sr.marker_kind(line) == sr.SEARCH for line in near)


def render_section(section: str) -> str:
    """One section's record, as aider's process_markdown writes it ("" when it has none)."""
    header = section.split("\n", 1)[0].strip()
    body = section.split("\n", 1)[1] if "\n" in section else ""
    kept = body.splitlines(keepends=True)  # aider's lines; the corpus has only "\n" breaks
    lines = [line.removesuffix("\n") for line in kept]
    fence = _choose_fence(body)
    out: list[str] = []
    i, floor, prev = 0, -1, None
    n = len(lines)
    head = f"\n\n@@@ {header} {A}\n"

    def error(upto: int, message: str) -> str:
        return head + "".join(kept[: upto + 1]) + f"\n^^^ {message}\n"

    while i < n:
        if _is_shell_start(lines, i):
            j = i + 1
            while j < n and not lines[j].strip().startswith(TB):
                j += 1
            out.append(f"@@@ SHELL {A}\n" + normalise_text(lines[i + 1 : j]))
            out.append(f"@@@ ENDSHELL {A}\n")
            i, floor = j + 1, j
            continue
        if sr.marker_kind(lines[i]) != sr.SEARCH:
            i += 1
            continue
        raw = sr.scan_block(lines, i, floor, prev)
        if raw.path is None:
            missing = "Bad/missing filename. The filename must be alone on the line before"
            return error(i, f"{missing} the opening fence {fence}")
        if raw.expected is not None:
            return error(raw.stop, ERRORS[raw.expected])
        out.append(f"@@@ SEARCH: {raw.path} {A}\n" + normalise_text(list(raw.original)))
        out.append(A + "\n" + normalise_text(list(raw.updated)) + f"@@@ REPLACE {A}\n")
        prev, floor, i = raw.path, raw.end, raw.stop + 1
    return head + "".join(out) if out else ""


def sections(text: str) -> list[str]:
    """aider's split: before every `####` + whitespace, anywhere in a line (zero-width)."""
    return re.split(r"(?=####\s)", text)


def render(text: str) -> str:
    parts = []
    for section in sections(text):
        if "editblock_coder.py" in section or "test_editblock.py" in section:
            continue
        if section.strip():
            parts.append(render_section(section))
    return "".join(parts)


def test_aider_gold_is_reproduced_byte_for_byte() -> None:
    ours = render(HISTORY.read_text(encoding="utf-8"))
    gold = GOLD.read_text(encoding="utf-8")
    # the totals the corpus README gives, so a rendering that lost everything cannot pass
    assert (ours.count("\n@@@ SEARCH: "), ours.count("\n^^^ "), ours.count("@@@ SHELL ")) == (
        577,
        33,
        22,
    )
    if ours != gold:
        diff = difflib.unified_diff(
            gold.splitlines(keepends=True), ours.splitlines(keepends=True), "gold", "ours", n=2
        )
        pytest.fail("ours differs from aider's gold:\n" + "".join(list(diff)[:300]))


def test_whole_transcript_parses_in_linear_time() -> None:
    """find_blocks over all 100k lines at once: no exception, well under a second per MB."""
    lines = HISTORY.read_text(encoding="utf-8").split("\n")
    started = time.process_time()
    blocks = sr.find_blocks(lines)
    elapsed = time.process_time() - started
    assert elapsed < 5, elapsed
    good = [b for b in blocks if b.error is None]
    broken = [b for b in blocks if b.error is not None]
    # 713 SEARCH marker lines (707 flush, 6 indented): each starts exactly one block of ours
    assert len(blocks) == 713
    # replies the user interrupted mid-block: each is reported at the next block's marker
    assert len(good) == 668 and len(broken) == 45
    assert all(b.error.code == ErrorCode.MALFORMED_BLOCK for b in broken)
    spans = [b.reply_lines for b in blocks]
    assert all(a[1] < b[0] for a, b in zip(spans, spans[1:], strict=False))
