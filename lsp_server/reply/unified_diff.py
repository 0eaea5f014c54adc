"""Unified diffs: `--- a/x` / `+++ b/x` / `@@ -l,s +l,s @@`, git-style or plain, fenced or bare.

Models write diffs by hand, so the numbers in `@@` headers are often wrong or missing. A
hunk is read by its content: its lines decide `old` and `new`, and the numbers only become
`line_hint`s that break ties when the same text occurs in several places. The counts are
consulted only where the content alone cannot tell:

* whether a blank line (a blank context line whose leading space got stripped) still
  belongs to the hunk: when both counts run out exactly there, the counts are believed;
* whether a `--- x` / `+++ y` pair is a removed and an added line or the next file's header;
* whether a diff that stops at the end of the reply stopped early (streaming);
* whether a line without a prefix followed by more hunk lines is prose or a context line
  that lost its space (which fails the block rather than silently dropping the rest).

A hunk of context lines only changes nothing; it is left out and the diff's other hunks are
placed (a diff none of whose hunks changes anything is refused: it cannot be what was meant).

One block per file in the diff, spanning its header and hunks; a fence around the whole
diff is added to the first and last block's lines so diagnostics cover what a person sees.
"""

from __future__ import annotations

import dataclasses
import functools
import re
from dataclasses import dataclass, field

from lsp_server.model import Action, EditBlock, ErrorCode, Failure, Format, Hunk, HunkKind
from lsp_server.reply.common import (
    Fence,
    dedent_indented_fences,
    fence_open,
    find_fences,
    is_fence_close,
)

DEV_NULL = "/dev/null"

# Numbers are optional: `@@ ... @@`, `@@`, `@@ -3 +3 @@ def f():` are all hunk headers.
_HUNK_NUMBERS = re.compile(r"^@@+\s*-(\d+)(?:,(\d+))?\s+\+(\d+)(?:,(\d+))?\s*@@")
_GIT_EXTENDED = re.compile(
    r"^(old mode|new mode|deleted file mode|new file mode|copy from|copy to|rename from|"
    r"rename to|rename old|rename new|similarity index|dissimilarity index|index)(?: (.*))?$"
)
# Timestamps diff(1) and svn put after the file name when there is no tab before them.
_TRAILERS = (
    re.compile(r"\s+\d{4}-\d\d-\d\d[ T]\d\d:\d\d(?::\d\d(?:\.\d+)?)?(?:\s*(?:[+-]\d{4}|Z))?$"),
    re.compile(r"\s+\w{3} \w{3} [ \d]\d \d\d:\d\d:\d\d \d{4}$"),
    re.compile(r"\s+\((?:revision \d+|working copy|nonexistent)\)$"),
)
_TRAILER_WINDOW = 80
_BODY_CHARS = " +-\\"


@dataclass
class _RawHunk:
    """One hunk as written: its lines by side, the header's numbers, how it ended."""

    header: int  # index of the `@@` line
    last: int  # index of its last line
    end: int  # index of the first line after it
    numbers: tuple[int, int, int, int] | None
    old: list[str] = field(default_factory=list)
    new: list[str] = field(default_factory=list)
    changed: bool = False
    body: int = 0
    old_no_eol: bool = False
    new_no_eol: bool = False
    error: Failure | None = None


def find_blocks(lines: list[str]) -> list[EditBlock]:
    """Every file section of every unified diff in the reply, in order."""
    lines = dedent_indented_fences(lines, _opens_diff)
    blocks: list[EditBlock] = []
    n = len(lines)
    i = 0
    # the fence we are inside: marker, index of its opening line, language; and the
    # indexes (into `blocks`) of the diff blocks found inside it
    fence: tuple[str, int, str | None] | None = None
    in_fence: list[int] = []
    # the git patch the next `diff --git` section continues: (its first line, where the last
    # section ended); a section that follows another with nothing but blank lines between
    # is part of the same patch
    patch: tuple[int, int] | None = None
    while i < n:
        if _starts_diff(lines, i):
            marker = fence[0] if fence else None
            git = lines[i].startswith("diff --git ")
            if not git or patch is None or any(lines[k].strip() for k in range(patch[1], i)):
                patch = (i + 1, i) if git else None
            block, i = _parse_file(lines, i, marker)
            if patch is not None:
                patch = (patch[0], i)
                if block is not None:
                    block = dataclasses.replace(block, patch=patch[0])
            if block is not None:
                if fence is not None:
                    block = dataclasses.replace(block, language=fence[2])
                    in_fence.append(len(blocks))
                blocks.append(block)
            continue
        line = lines[i]
        if fence is None:
            m = fence_open(line)
            if m:
                info = m.group("info").strip()
                fence = (m.group("fence"), i, info.split()[0] if info else None)
                in_fence = []
        elif is_fence_close(line, fence[0]):
            _widen_to_fence(lines, blocks, in_fence, fence[1], i)
            fence, in_fence = None, []
        i += 1
    if fence is not None and in_fence:
        _widen_to_fence(lines, blocks, in_fence, fence[1], None)
    return _with_headerless(lines, blocks)


_DIFF_INFO = ("diff", "patch")


def _diff_fences(lines: list[str], blocks: list[EditBlock]) -> list[tuple[Fence, int]]:
    """The closed ```diff fences no diff block was found in, each with the line above
    which no prose belongs to it (the previous fence's end)."""
    taken = [b.reply_lines for b in blocks]
    out: list[tuple[Fence, int]] = []
    floor = -1
    for fence in find_fences(lines):
        word = fence.info.split()[0].lower() if fence.info.split() else ""
        inside = any(fence.start < lo <= (fence.end or len(lines)) + 1 for lo, _ in taken)
        if word in _DIFF_INFO and fence.end is not None and not inside:
            out.append((fence, floor))
        floor = fence.end if fence.end is not None else len(lines)
    return out


def _with_headerless(lines: list[str], blocks: list[EditBlock]) -> list[EditBlock]:
    """`blocks` and the headerless diffs chat windows write: a ```diff fence of ` `/`-`/`+`
    lines (`@@` lines between hunks allowed) with no `---`/`+++` header. The file is the
    one the prose names, or `--file`: the plan picks it among `candidates`."""
    found = []
    for fence, floor in _diff_fences(lines, blocks):
        raws = _headerless_hunks(lines, fence)
        if raws is None:
            continue
        from lsp_server.reply.snippets import prose_paths  # only for such a fence

        span = (fence.start + 1, (fence.end or fence.start) + 1)
        error = next((raw.error for raw in raws if raw.error is not None), None)
        hunks: list[Hunk] = []
        for raw in raws:
            if error is None and raw.changed:
                hunk = _to_hunk(raw)
                if isinstance(hunk, Failure):
                    error = hunk
                else:
                    hunks.append(hunk)
        found.append(
            EditBlock(
                Format.UNIFIED_DIFF,
                None,
                span,
                hunks=tuple(hunks),
                language=fence.info.split()[0],
                error=error,
                candidates=prose_paths(lines, fence.start, floor),
            )
        )
    return sorted(blocks + found, key=lambda b: b.reply_lines) if found else blocks


def _headerless_hunks(lines: list[str], fence: Fence) -> list[_RawHunk] | None:
    """The hunks of a headerless diff fence, or None when the fence is not one (a line of
    another shape in it, or nothing added or removed)."""
    end = fence.end if fence.end is not None else len(lines)
    body = [lines[k] for k in range(fence.start + 1, end) if lines[k].strip()]
    if not body or not all(x[:1] in " +-" or x.startswith("@@") for x in body):
        return None
    if not any(x[:1] in "+-" for x in body) or (body[0].startswith("--- ") and len(body) > 1):
        return None
    raws: list[_RawHunk] = []
    k = fence.start  # the fence line stands for the first hunk's header
    while k < end:
        raw = _parse_hunk(lines, k, fence.marker)
        raws.append(raw)
        k = raw.end
        while k < end and not lines[k].strip():
            k += 1
        if k < end and not lines[k].startswith("@@"):
            return None  # not all of the fence was read as hunks
    return raws if any(raw.changed for raw in raws) else None


def unreadable_diff_fence(lines: list[str]) -> str | None:
    """Why the first ```diff fence of a reply in which nothing was found could not be read
    as a diff, or None when there is no such fence: the refusal says that, rather than
    list every format."""
    for fence, _ in _diff_fences(lines, []):
        end = fence.end if fence.end is not None else len(lines)
        for k in range(fence.start + 1, end):
            line = lines[k]
            if line.strip() and line[:1] not in " +-\\" and not line.startswith("@@"):
                return (
                    f"the ```{fence.info.split()[0]} fence at reply line {fence.start + 1} "
                    f"is not a diff that can be read: reply line {k + 1} ({line[:60]!r}) "
                    "starts with neither ' ' (context), '-' nor '+'; every line of a diff "
                    "hunk does"
                )
        return (
            f"the ```{fence.info.split()[0]} fence at reply line {fence.start + 1} holds no "
            "added or removed line ('+' or '-'), so it changes nothing"
        )
    return None


def _opens_diff(head: list[str]) -> bool:
    """Does a fence whose first lines are `head` hold a diff (a `--- `/`+++ ` pair or a git
    header)? A lone `--- x` is more likely a context line of a patched Markdown file."""
    if head[0].startswith(("diff --git ", "Index: ")):
        return True
    return head[0].startswith("--- ") and len(head) > 1 and head[1].startswith("+++ ")


def _widen_to_fence(
    lines: list[str], blocks: list[EditBlock], members: list[int], start: int, end: int | None
) -> None:
    """Let the first/last block of a fenced diff cover the fence lines when the fence holds
    nothing but the diff (a fence that also holds prose keeps its lines to itself)."""
    if not members:
        return
    first, last = members[0], members[-1]
    lo = blocks[first].reply_lines[0]
    hi = blocks[last].reply_lines[1]
    if any(lines[k].strip() for k in range(start + 1, lo - 1)):
        return
    if end is not None and any(lines[k].strip() for k in range(hi, end)):
        return
    if first == last and end is not None:
        blocks[first] = dataclasses.replace(blocks[first], reply_lines=(start + 1, end + 1))
        return
    blocks[first] = dataclasses.replace(
        blocks[first], reply_lines=(start + 1, blocks[first].reply_lines[1])
    )
    if end is not None:
        blocks[last] = dataclasses.replace(
            blocks[last], reply_lines=(blocks[last].reply_lines[0], end + 1)
        )


def _starts_diff(lines: list[str], i: int) -> bool:
    line = lines[i]
    if line.startswith("diff --git "):
        return True
    return line.startswith("--- ") and i + 1 < len(lines) and lines[i + 1].startswith("+++ ")


def _at_end(lines: list[str], i: int) -> bool:
    """Nothing but blank lines from `i` on: the reply stopped here."""
    return all(not lines[k].strip() for k in range(i, len(lines)))  # stops at the first text


def _malformed(message: str, **details: object) -> Failure:
    return Failure(ErrorCode.MALFORMED_BLOCK, message, dict(details))


def _incomplete(message: str) -> Failure:
    return Failure(ErrorCode.MALFORMED_BLOCK, message, {"incomplete": True})


# ---------------------------------------------------------------------------------------
# file sections


def _parse_file(lines: list[str], i: int, marker: str | None) -> tuple[EditBlock | None, int]:
    """Parse one file's section starting at `i`; returns its block (or None for a section
    that changes nothing we can act on, such as a mode change) and the next line index."""
    n = len(lines)
    start = i
    git: dict[str, str] | None = None
    git_paths: tuple[str, str] | None = None
    binary = False
    if lines[i].startswith("diff --git "):
        git = {}
        git_paths = _git_line_paths(lines[i][len("diff --git ") :])
        i += 1
        while i < n:
            m = _GIT_EXTENDED.match(lines[i])
            if m:
                git[m.group(1)] = (m.group(2) or "").strip()
            elif lines[i].startswith("Binary files ") or lines[i].startswith("GIT binary patch"):
                binary = True
            else:
                break
            i += 1
    old_path = new_path = None
    header_line = i
    if i + 1 < n and lines[i].startswith("--- ") and lines[i + 1].startswith("+++ "):
        old_path = _header_path(lines[i][4:])
        new_path = _header_path(lines[i + 1][4:])
        i += 2
    last = i - 1
    raws: list[_RawHunk] = []
    while True:
        k = i
        while k < n and not lines[k].strip():
            k += 1  # blank lines between hunks
        if k < n and lines[k].startswith("@@"):
            raw = _parse_hunk(lines, k, marker)
            raws.append(raw)
            last, i = raw.last, raw.end
            continue
        break
    trailing = _empty_last_hunk(lines, raws, marker)
    if trailing is not None:
        raws.pop()
    span = (start + 1, last + 1)

    def fail(failure: Failure, path: str | None) -> tuple[EditBlock, int]:
        return EditBlock(Format.UNIFIED_DIFF, path, span, error=failure), i

    # ---- which file, and what happens to it
    prefixed = git is not None or (
        old_path is not None
        and new_path is not None
        and (old_path.startswith("a/") or old_path == DEV_NULL)
        and (new_path.startswith("b/") or new_path == DEV_NULL)
    )
    if old_path is not None and new_path is not None:
        old_p = _strip_prefix(old_path, "a/" if prefixed else "")
        new_p = _strip_prefix(new_path, "b/" if prefixed else "")
    elif git_paths is not None:
        old_p, new_p = git_paths
    else:  # unreachable: a section starts at `diff --git` or at a ---/+++ pair
        return None, i
    # `copy from`/`copy to`: the new path gets the old one's text (and the hunks); the old
    # path stays as it is. Planned as a create (plan_patch.py): refused where a file is.
    copying = git is not None and ("copy from" in git or "copy to" in git)
    if git is not None:
        old_p = git.get("rename from") or git.get("rename old") or git.get("copy from") or old_p
        new_p = git.get("rename to") or git.get("rename new") or git.get("copy to") or new_p
    creating = old_p == DEV_NULL or (git is not None and "new file mode" in git)
    deleting = new_p == DEV_NULL or (git is not None and "deleted file mode" in git)
    name = new_p if new_p != DEV_NULL else old_p
    if not old_p or not new_p:
        return fail(
            _malformed(f"line {header_line + 1}: the '--- '/'+++ ' lines must name the file"),
            name or None,
        )
    if old_p == DEV_NULL and new_p == DEV_NULL:
        return fail(
            _malformed(f"line {header_line + 1}: both sides of the diff are /dev/null"), None
        )
    if creating and deleting:
        return fail(_malformed(f"line {start + 1}: the diff both creates and deletes {name}"), name)
    if binary:
        return fail(
            _malformed(f"line {start + 1}: {name} is a binary diff, which cannot be applied"),
            name,
        )
    if copying and (
        creating
        or deleting
        or old_p == new_p
        or "copy from" not in git
        or "copy to" not in git
        or "rename from" in git
        or "rename to" in git
    ):
        return fail(
            _malformed(
                f"line {start + 1}: a git copy names two different files, in 'copy from' and "
                "'copy to', and neither creates, deletes nor renames"
            ),
            name,
        )
    action = Action.COPY if copying else Action.MODIFY

    # ---- hunks
    for raw in raws:
        if raw.error is not None:
            return fail(raw.error, name)
    if not raws:
        if old_path is not None:  # a ---/+++ header must be followed by a hunk
            if _at_end(lines, i):
                return fail(
                    _incomplete(
                        f"the diff for {name} ends after its header at line {header_line + 2}; "
                        "its @@ hunks are missing (was the reply cut off?)"
                    ),
                    name,
                )
            return fail(
                _malformed(
                    f"line {header_line + 3}: expected a '@@' hunk header after the "
                    f"'--- '/'+++ ' lines for {name}"
                ),
                name,
            )
        if creating:
            return EditBlock(Format.UNIFIED_DIFF, name, span, Action.CREATE, content=""), i
        if deleting:
            return EditBlock(Format.UNIFIED_DIFF, old_p, span, Action.DELETE), i
        if old_p != new_p:
            return EditBlock(Format.UNIFIED_DIFF, old_p, span, action, move_to=new_p), i
        if _at_end(lines, i):
            return fail(
                _incomplete(f"the diff for {name} ends after its git header (reply cut off?)"),
                name,
            )
        return None, i  # a mode change or an empty section: nothing to place

    if creating:
        for raw in raws:
            if raw.old:
                return fail(
                    _malformed(
                        f"line {raw.header + 1}: the diff creates {name} (from /dev/null), so "
                        "its hunks may only have '+' lines"
                    ),
                    name,
                )
        content = "".join(_side_text(raw.new, raw.new_no_eol) for raw in raws)
        return EditBlock(Format.UNIFIED_DIFF, name, span, Action.CREATE, content=content), i
    if deleting:
        for raw in raws:
            if raw.new:
                return fail(
                    _malformed(
                        f"line {raw.header + 1}: the diff deletes {old_p} (to /dev/null), so "
                        "its hunks may only have '-' lines"
                    ),
                    old_p,
                )
        return EditBlock(Format.UNIFIED_DIFF, old_p, span, Action.DELETE), i
    changing = [raw for raw in raws if raw.changed]
    renaming = old_p != new_p and prefixed
    if not changing and not renaming:
        first = raws[0].header + 1
        what = "the hunk has no" if len(raws) == 1 else f"none of its {len(raws)} hunks has"
        return fail(
            _malformed(
                f"line {first}: {what} '+' or '-' lines, so the diff changes nothing",
                line=first,
            ),
            old_p,
        )
    hunks: list[Hunk] = []
    # a hunk of context lines only changes nothing: it is left out, and the rest placed
    for raw in changing:
        hunk = _to_hunk(raw)
        if isinstance(hunk, Failure):
            return fail(hunk, old_p)
        hunks.append(hunk)
    skipped = (
        tuple(
            f"reply line {raw.header + 1}: the hunk has only context lines, so it changes "
            "nothing; it was skipped"
            for raw in raws
            if not raw.changed
        )
        if len(changing) < len(raws)  # most diffs skip nothing: no generator for them
        else ()
    ) + (
        (
            f"reply line {trailing + 1}: an empty hunk header (no lines after it) ends the "
            "diff; it was skipped",
        )
        if trailing is not None
        else ()
    )
    if old_p != new_p and not prefixed:
        # `--- x.orig` / `+++ x` from diff(1): the new name is the file being patched
        block = EditBlock(Format.UNIFIED_DIFF, new_p, span, hunks=tuple(hunks), skipped=skipped)
        return block, i
    move_to = new_p if new_p != old_p else None  # git / a-b prefixes: a rename
    block = EditBlock(
        Format.UNIFIED_DIFF,
        old_p,
        span,
        action,
        hunks=tuple(hunks),
        move_to=move_to,
        skipped=skipped,
    )
    return block, i


def _empty_last_hunk(lines: list[str], raws: list[_RawHunk], marker: str | None) -> int | None:
    """The header line of an empty `@@ ... @@` that ends a diff after real hunks (models
    write one as a closing flourish), or None. Only where what follows shows the diff is
    over — its fence closing, the next file's header — never before unprefixed lines, which
    may be a hunk whose prefixes were lost."""
    if len(raws) < 2 or raws[-1].body or raws[-1].error is None:
        return None
    j = raws[-1].end
    if j >= len(lines):
        return None  # the reply ends there: cut off, perhaps
    nxt = lines[j]
    over = (marker is not None and is_fence_close(nxt, marker)) or nxt.startswith("diff --git ")
    over = over or (
        nxt.startswith("--- ") and j + 1 < len(lines) and lines[j + 1].startswith("+++ ")
    )
    return raws[-1].header if over else None


def _to_hunk(raw: _RawHunk) -> Hunk | Failure:
    old = _side_text(raw.old, raw.old_no_eol)
    new = _side_text(raw.new, raw.new_no_eol)
    if raw.old:
        hint = raw.numbers[0] if raw.numbers and raw.numbers[0] >= 1 else None
        return Hunk(old, new, line_hint=hint)
    if raw.numbers is None:
        return _malformed(
            f"line {raw.header + 1}: this hunk only adds lines and has neither context lines "
            "nor line numbers, so nothing says where they go; add a few unchanged lines "
            "around the addition (prefixed with a space) or '@@ -l,0 +l,n @@' numbers",
            line=raw.header + 1,
        )
    old_start, old_len = raw.numbers[0], raw.numbers[1]
    # `-l,0` means "after line l"; a header that claims old lines the body lacks means
    # the addition goes where those lines would start, i.e. before line l
    after = old_start if old_len == 0 else old_start - 1
    return Hunk("", new, kind=HunkKind.INSERT_AT_LINE, line_hint=max(after, 0))


def _side_text(lines: list[str], no_eol: bool) -> str:
    if not lines:
        return ""
    text = "\n".join(lines)
    return text if no_eol else text + "\n"


# ---------------------------------------------------------------------------------------
# hunks


def _parse_hunk(lines: list[str], h: int, marker: str | None) -> _RawHunk:
    """Read the hunk whose `@@` header is at `h` (content decides, counts only advise)."""
    n = len(lines)
    m = _HUNK_NUMBERS.match(lines[h])
    if m and any(len(g) > 18 for g in m.groups() if g):
        m = None  # no file has that many lines (and int() refuses past 4,300 digits)
    numbers = None
    if m:
        numbers = (
            int(m.group(1)),
            int(m.group(2)) if m.group(2) is not None else 1,
            int(m.group(3)),
            int(m.group(4)) if m.group(4) is not None else 1,
        )
    raw = _RawHunk(header=h, last=h, end=h + 1, numbers=numbers)
    rem = [numbers[1], numbers[3]] if numbers else None  # lines still promised, old / new
    marked_old = marked_new = -1  # side lengths when a `\ No newline` marker was seen
    prev = ""
    j = h + 1
    while j < n:
        line = lines[j]
        if not line:
            k = j
            while k < n and not lines[k]:
                k += 1
            counts_done = rem is not None and rem[0] == 0 and rem[1] == 0
            if counts_done or k >= n or not _is_body(lines, k, marker, rem):
                break
            for _ in range(k - j):
                raw.old.append("")
                raw.new.append("")
                raw.body += 1
                if rem is not None:
                    rem[0] -= 1
                    rem[1] -= 1
            prev = " "
            j = k
            continue
        if not _is_body(lines, j, marker, rem):
            break
        c, text = line[0], line[1:]
        if c == "\\":
            if prev in ("-", " "):
                marked_old = len(raw.old)
            if prev in ("+", " "):
                marked_new = len(raw.new)
        else:
            raw.body += 1
            if c in " -":
                raw.old.append(text)
                if rem is not None:
                    rem[0] -= 1
            if c in " +":
                raw.new.append(text)
                if rem is not None:
                    rem[1] -= 1
            if c != " ":
                raw.changed = True
            prev = c
        raw.last = j
        j += 1
    raw.end = raw.last + 1
    raw.old_no_eol = bool(raw.old) and marked_old == len(raw.old)
    raw.new_no_eol = bool(raw.new) and marked_new == len(raw.new)
    where = f"line {h + 1}"
    # the counts first: `_at_end` reads the lines, and most hunks keep their promise
    if rem is not None and (rem[0] > 0 or rem[1] > 0) and _at_end(lines, raw.end):
        blanks = n - raw.end
        # a hunk whose last context lines were blank and lost their space is complete
        if not (rem[0] == rem[1] and rem[0] <= blanks):
            raw.error = _incomplete(
                f"the reply ends inside the hunk that starts at {where}: its header promises "
                f"{max(rem[0], 0)} more old and {max(rem[1], 0)} more new lines "
                "(was the reply cut off?)"
            )
            return raw
    stray = raw.end
    if _is_stray(lines, stray, marker, rem):
        raw.error = _malformed(
            f"line {stray + 1}: expected a line of the hunk that starts at {where}, starting "
            f"with ' ' (context), '-' or '+', found {lines[stray]!r}; the hunk goes on after "
            "it, so it looks like a context line that lost its leading space",
            line=stray + 1,
        )
    elif raw.body == 0:
        if _at_end(lines, raw.end):
            raw.error = _incomplete(f"the reply ends right after the hunk header at {where}")
        else:
            raw.error = _malformed(
                f"{where}: the hunk header is not followed by diff lines (each line of a hunk "
                "starts with ' ' for context, '-' for removed or '+' for added)",
                line=h + 1,
            )
    return raw


def _is_stray(lines: list[str], j: int, marker: str | None, rem: list[int] | None) -> bool:
    """Did the hunk stop at a line that is neither blank nor a boundary, with hunk lines
    right after it? Then stopping there would silently drop the rest of the hunk."""
    if j + 1 >= len(lines) or not lines[j].strip():
        return False
    if rem is not None and rem[0] == 0 and rem[1] == 0:
        return False  # the counts say the hunk is complete; the next lines are prose
    line = lines[j]
    if line.startswith(("@@", "diff ", "Index: ", "====")) or fence_open(line):
        return False
    if marker is not None and is_fence_close(line, marker):
        return False
    nxt = lines[j + 1]
    if line.startswith("--- ") and nxt.startswith("+++ "):
        return False  # this is the next file's header
    if nxt.startswith("--- ") and j + 2 < len(lines) and lines[j + 2].startswith("+++ "):
        return False  # the next file's header
    if nxt[:1] in ("+", "-"):
        return nxt.rstrip() not in ("---", "+++")  # a markdown rule is prose
    # a context line after the stray one: only the counts can say it still belongs
    return nxt[:1] == " " and bool(nxt.strip()) and rem is not None and min(rem) > 0


def _is_body(lines: list[str], j: int, marker: str | None, rem: list[int] | None) -> bool:
    """Can line `j` belong to the current hunk?"""
    line = lines[j]
    if not line or line[0] not in _BODY_CHARS:
        return False
    if line.startswith("--- ") and _is_file_header(lines, j, rem):
        return False
    if marker is not None and line[0] == " " and is_fence_close(line, marker):
        # ` ```` is a context line holding a fence, or an indented closing fence
        if rem is not None and rem[0] > 0 and rem[1] > 0:
            return True
        if rem is not None and rem[0] <= 0 and rem[1] <= 0:
            return False
        nxt = lines[j + 1] if j + 1 < len(lines) else ""
        return bool(nxt) and (nxt[0] in _BODY_CHARS or is_fence_close(nxt, marker))
    return True


def _is_file_header(lines: list[str], j: int, rem: list[int] | None) -> bool:
    """Is `--- x` at `j` the next file's header rather than a removed `-- x` line?"""
    if j + 1 >= len(lines) or not lines[j + 1].startswith("+++ "):
        return False
    if rem is not None and rem[0] >= 1 and rem[1] >= 1:
        # the counts want more lines on both sides: only a header followed by a hunk header
        # overrides them
        return j + 2 < len(lines) and lines[j + 2].startswith("@@")
    return True


# ---------------------------------------------------------------------------------------
# paths


def _header_path(rest: str) -> str:
    """The file name of a `--- `/`+++ ` line, without the timestamp diff(1) adds."""
    # pure, and asked twice for every file section: a reply of many diffs of a few files
    # names each file thousands of times. Cached per distinct short line (a long one kept
    # as a cache key would hold its memory).
    return _cached_header_path(rest) if len(rest) <= 1024 else _read_header_path(rest)


def _read_header_path(rest: str) -> str:
    if "\t" in rest:
        rest = rest.split("\t", 1)[0]
    rest = rest.strip()
    if len(rest) >= 2 and rest[0] == rest[-1] == '"':
        return _unquote(rest)
    for pattern in _TRAILERS:
        # a timestamp is short: search the end only (`\s+...$` over a long run of spaces
        # is quadratic), then drop whatever spaces were left before it
        tail = rest[-_TRAILER_WINDOW:]
        m = pattern.search(tail)
        if m:
            rest = (rest[: len(rest) - len(tail)] + tail[: m.start()]).rstrip()
    return rest


_cached_header_path = functools.lru_cache(maxsize=1024)(_read_header_path)


def _strip_prefix(path: str, prefix: str) -> str:
    if path == DEV_NULL:
        return path
    if prefix and path.startswith(prefix):
        path = path[len(prefix) :]
    while path.startswith("./"):
        path = path[2:]
    return path


def _git_line_paths(rest: str) -> tuple[str, str] | None:
    """Both names of `diff --git a/x b/y`; a name with spaces is split where both halves
    agree (git writes the same name twice unless the file was renamed)."""
    rest = rest.strip()
    if rest.startswith('"'):
        m = re.match(r'^("(?:[^"\\]|\\.)*")\s+(.*)$', rest)
        if not m:
            return None
        second = m.group(2).strip()
        return (
            _strip_prefix(_unquote(m.group(1)), "a/"),
            _strip_prefix(_unquote(second) if second.startswith('"') else second, "b/"),
        )
    candidates = [m.start() for m in re.finditer(r" b/", rest)]
    if not candidates:
        parts = rest.split(" ", 1)
        if len(parts) != 2:
            return None
        return parts[0], parts[1]
    for pos in candidates:
        a, b = rest[:pos], rest[pos + 1 :]
        if a.startswith("a/") and a[2:] == b[2:]:
            return a[2:], b[2:]
    a, b = rest[: candidates[0]], rest[candidates[0] + 1 :]
    return _strip_prefix(a, "a/"), _strip_prefix(b, "b/")


_ESCAPES = {"n": "\n", "t": "\t", '"': '"', "\\": "\\", "a": "\a", "b": "\b", "f": "\f"}


def _unquote(quoted: str) -> str:
    """Undo git's C-style quoting of unusual file names (octal escapes are UTF-8 bytes)."""
    body = quoted[1:-1]
    out = bytearray()
    i = 0
    while i < len(body):
        ch = body[i]
        if ch == "\\" and i + 1 < len(body):
            nxt = body[i + 1]
            if nxt in "01234567" and re.match(r"[0-7]{3}", body[i + 1 : i + 4]):
                out.append(int(body[i + 1 : i + 4], 8) & 0xFF)
                i += 4
                continue
            out.extend(_ESCAPES.get(nxt, nxt).encode())
            i += 2
            continue
        out.extend(ch.encode("utf-8", "surrogatepass"))
        i += 1
    return out.decode("utf-8", "replace")
