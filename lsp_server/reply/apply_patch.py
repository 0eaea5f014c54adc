"""Codex `apply_patch` (V4A) patches: `*** Begin Patch` … `*** End Patch`.

One block per file operation (`*** Add File:`, `*** Delete File:`, `*** Update File:` with an
optional `*** Move to:`). An update's chunks become hunks in patch order; the resolver
applies them in that order, each searched after the previous one, which is how Codex reads
them. Stacked `@@ context` headers become `Hunk.anchors` (outermost first); a chunk followed
by `*** End of File` must end the file.

Leniency, where Codex's own parser is lenient or where models routinely slip:
* marker and header lines may carry leading/trailing whitespace (Codex trims them);
* a missing `*** End Patch` is tolerated: the patch then ends at the end of the reply, at
  the closing fence or heredoc delimiter, or before trailing prose;
* the heredoc wrapper (`apply_patch <<'EOF'` … `EOF`, `cat <<EOF | apply_patch`) is part of
  the block;
* blank lines between operations are skipped; a blank line inside a chunk or an added file
  that is followed by more patch lines stands for an empty line.

Deliberate difference from Codex: a chunk that only adds lines under an `@@ context` header
is inserted right after that context line (Codex appends it to the end of the file, which is
never what the model meant); without a header it is appended to the end, as in Codex.
"""

from __future__ import annotations

import bisect
import dataclasses
import re
from dataclasses import dataclass, field

from lsp_server.model import (
    Action,
    EditBlock,
    ErrorCode,
    Failure,
    Format,
    Hunk,
    HunkKind,
    OnExists,
)
from lsp_server.reply.common import (
    MAX_MALFORMED,
    Fence,
    dedent_indented_fences,
    find_fences,
    normalise_newlines,
    unread_failure,
)

BEGIN = "*** Begin Patch"
END = "*** End Patch"
END_OF_FILE = "*** End of File"
_ADD = "*** Add File:"
_DELETE = "*** Delete File:"
_UPDATE = "*** Update File:"
_MOVE = "*** Move to:"

_HEREDOC = re.compile(
    r"""^\s*(?:\$\s+)?(?:"""
    r"""(?:cat\s+)?<<-?\s*(?P<q1>['"]?)(?P<d1>[A-Za-z_]\w*)(?P=q1)\s*\|\s*(?:apply_patch|applypatch)"""
    r"""|(?:apply_patch|applypatch)\s+<<-?\s*(?P<q2>['"]?)(?P<d2>[A-Za-z_]\w*)(?P=q2))\s*$"""
)
# `@@ -3,7 +3,8 @@ def f():` written by a model used to unified diffs: the numbers go
_SOME_FILE = re.compile(r"\*\*\* [A-Z][a-z]+ File:")  # `*** Rename File:`: a header we do not know
_UNIFIED_RANGE = re.compile(r"^-\d+(?:,\d+)?\s+\+\d+(?:,\d+)?\s*@@\s?")


@dataclass
class _Op:
    """One file operation as read, before it becomes an EditBlock."""

    action: Action
    path: str | None
    first: int  # index of its header line
    last: int  # index of its last line
    move_to: str | None = None
    content: list[str] = field(default_factory=list)
    hunks: list[Hunk] = field(default_factory=list)
    error: Failure | None = None


@dataclass
class _Patch:
    """The extent of one patch and what closes it."""

    begin: int  # index of `*** Begin Patch`
    stop: int  # index just past the last body line
    end_marker: int | None  # index of `*** End Patch`, when there is one
    first: int  # first line of the whole patch (heredoc line or Begin)
    closer: int | None  # index of the heredoc delimiter line, when there is one
    last_structural: int  # last body line that is a header, `@@` or marker
    # where reading stopped, the malformed operations having reached MAX_MALFORMED (the
    # patch ends before it; the rest of the reply is unread)
    cut: int | None = None

    @property
    def scanned(self) -> int:
        """The last line the patch could reach (where scanning for the next one resumes)."""
        for candidate in (self.closer, self.end_marker):
            if candidate is not None:
                return candidate
        return max(self.stop - 1, self.begin)


def find_blocks(lines: list[str]) -> list[EditBlock]:
    """Every file operation of every V4A patch in the reply, in order."""
    lines = dedent_indented_fences(lines, _opens_patch)
    blocks: list[EditBlock] = []
    fences: list[Fence] | None = None
    starts: list[int] = []
    i = 0
    n = len(lines)
    malformed = 0  # past MAX_MALFORMED, the rest of the reply is one block, unread
    while i < n:
        if lines[i].strip() != BEGIN:
            i += 1
            continue
        if malformed >= MAX_MALFORMED:
            blocks.append(_unread(lines, i, malformed))
            break
        patch = _extent(lines, i)
        ops = _parse_ops(lines, patch, MAX_MALFORMED - malformed)
        if fences is None:
            fences = find_fences(lines)
            starts = [f.start for f in fences]
        # fences do not nest: the only one that can hold the patch is the last opened before it
        k = bisect.bisect_left(starts, patch.first) - 1
        read = _to_blocks(lines, patch, ops, fences[k] if k >= 0 else None)
        blocks.extend(read)
        malformed += sum(b.error is not None for b in read)
        if patch.cut is not None:  # the limit was reached inside this patch
            blocks.append(_unread(lines, patch.cut, malformed))
            break
        i = patch.scanned + 1
    return blocks


def _unread(lines: list[str], at: int, malformed: int) -> EditBlock:
    """The block that stands for `lines[at:]` once `malformed` blocks were malformed."""
    span = (at + 1, max(at + 1, len(lines)))
    failure = unread_failure(f"reply line {at + 1}", malformed)
    return EditBlock(Format.APPLY_PATCH, None, span, error=failure)


def _opens_patch(head: list[str]) -> bool:
    return head[0].strip() == BEGIN or bool(_HEREDOC.match(head[0]))


# ---------------------------------------------------------------------------------------
# extent


def _extent(lines: list[str], b: int) -> _Patch:
    """Where the patch that begins at `b` ends, with or without `*** End Patch`."""
    n = len(lines)
    heredoc = _HEREDOC.match(lines[b - 1]) if b > 0 else None
    delim = (heredoc.group("d1") or heredoc.group("d2")) if heredoc else None
    first = b - 1 if heredoc else b
    j = b + 1
    end_marker = None
    closer = None
    while j < n:
        line = lines[j]
        if "***" in line:  # as both markers are: the other lines are not copied to strip
            s = line.strip()
            if s == END:
                end_marker = j
                break
            if s == BEGIN:
                break
        if delim is not None and line.rstrip() == delim:  # as bash reads it: unindented
            closer = j
            break
        if line.startswith("```") or line.startswith("~~~"):
            break
        j += 1
    stop = j
    if end_marker is None:
        while stop > b + 1 and not lines[stop - 1].strip():
            stop -= 1  # trailing blank lines are not part of an unterminated patch
    if end_marker is not None and delim is not None:
        k = end_marker + 1
        while k < n and not lines[k].strip():
            k += 1
        if k < n and lines[k].rstrip() == delim:
            closer = k
    structural = b
    for k in range(b + 1, stop):
        if _is_marker(lines[k]):
            structural = k
    return _Patch(b, stop, end_marker, first, closer, structural)


def _is_marker(line: str) -> bool:
    return line.startswith("@@") or ("***" in line and _header(line) is not None)


# ---------------------------------------------------------------------------------------
# operations


def _header(line: str) -> tuple[str, str] | None:
    """(kind, rest) for a file-operation header (padding allowed), else None."""
    if "***" not in line:
        return None  # asked of every body line, several times: no copy of it made
    s = line.strip()
    if not s.startswith("***"):
        return None  # every header below, known or not, starts so: most lines end here
    for prefix in (_ADD, _DELETE, _UPDATE, _MOVE):
        if s.startswith(prefix):
            return prefix, s[len(prefix) :].strip()
    if s == END_OF_FILE:
        return END_OF_FILE, ""
    if not s.strip("*"):
        return None  # a markdown rule, not a header
    if line.startswith("***") or (s.startswith("*** ") and s.endswith(":")):
        return "unknown", s
    if _SOME_FILE.match(s):
        return "unknown", s
    return None


def _is_op_boundary(line: str) -> bool:
    if "***" not in line:
        return False  # no header (see `_header`): asked of every body line
    h = _header(line)
    return h is not None and h[0] != END_OF_FILE


def _malformed(message: str, line: int) -> Failure:
    return Failure(ErrorCode.MALFORMED_BLOCK, message, {"line": line})


def _parse_ops(lines: list[str], patch: _Patch, room: int = MAX_MALFORMED) -> list[_Op]:
    """The patch's operations; once `room` of them are malformed, the patch is cut before
    the next line (`patch.cut`), unread."""
    ops: list[_Op] = []
    k = patch.begin + 1
    while k < patch.stop:
        if room <= 0:
            patch.cut, patch.stop, patch.end_marker, patch.closer = k, k, None, None
            break
        line = lines[k]
        if not line.strip():
            k += 1
            continue
        h = _header(line)
        if h is None or h[0] in (END_OF_FILE, _MOVE):
            if _trailing_prose(lines, patch, k):
                patch.stop = k
                break
            what = (
                "'*** Move to:' must directly follow an '*** Update File:' line; "
                if (h is not None and h[0] == _MOVE)
                else ""
            )
            op = _Op(
                Action.MODIFY,
                None,
                k,
                k,
                error=_malformed(
                    f"line {k + 1}: {what}expected a file operation ('*** Add File: path', "
                    f"'*** Delete File: path' or '*** Update File: path'), found {line.strip()!r}",
                    k + 1,
                ),
            )
            k = _skip_to_boundary(lines, k + 1, patch, op)
            ops.append(op)
            room -= 1
            continue
        kind, rest = h
        if kind == "unknown":
            op = _Op(
                Action.MODIFY,
                None,
                k,
                k,
                error=_malformed(
                    f"line {k + 1}: {rest!r} is not a V4A header; expected '*** Add File:', "
                    "'*** Delete File:', '*** Update File:' or '*** End Patch'",
                    k + 1,
                ),
            )
            k = _skip_to_boundary(lines, k + 1, patch, op)
        elif kind == _ADD:
            op, k = _parse_add(lines, k, rest, patch)
        elif kind == _DELETE:
            op, k = _parse_delete(lines, k, rest, patch)
        else:
            op, k = _parse_update(lines, k, rest, patch)
        if op.error is None and not op.path:
            op.error = _malformed(f"line {op.first + 1}: the header names no file", op.first + 1)
        ops.append(op)
        room -= op.error is not None
    return ops


def _trailing_prose(lines: list[str], patch: _Patch, k: int) -> bool:
    """Without `*** End Patch`, a stray line after the last header/`@@` ends the patch,
    unless patch lines follow right after it (then it is a line that lost its prefix)."""
    if patch.end_marker is not None or k <= patch.last_structural:
        return False
    nxt = lines[k + 1] if k + 1 < patch.stop else ""
    return nxt[:1] not in ("+", "-")


def _skip_to_boundary(lines: list[str], k: int, patch: _Patch, op: _Op) -> int:
    """Swallow the lines of a broken operation up to the next header."""
    while k < patch.stop and not _is_op_boundary(lines[k]):
        if lines[k].strip():
            op.last = k
        k += 1
    return k


def _unexpected(lines: list[str], k: int, patch: _Patch, op: _Op, expected: str) -> int:
    """Record a stray line inside `op` (or end the patch before trailing prose)."""
    if _trailing_prose(lines, patch, k):
        patch.stop = k
        return k
    op.error = op.error or _malformed(
        f"line {k + 1}: expected {expected}, found {lines[k].strip()!r}", k + 1
    )
    op.last = k
    return _skip_to_boundary(lines, k + 1, patch, op)


def _parse_add(lines: list[str], k: int, path: str, patch: _Patch) -> tuple[_Op, int]:
    op = _Op(Action.CREATE, path, k, k)
    j = k + 1
    while j < patch.stop:
        line = lines[j]
        if line.startswith("+"):
            op.content.append(line[1:])
            op.last = j
            j += 1
            continue
        if not line.strip():
            nxt = _next_nonblank(lines, j, patch.stop)
            if nxt < patch.stop and lines[nxt].startswith("+"):
                op.content.extend("" for _ in range(j, nxt))
                j = nxt
                continue
            return op, j
        if _is_op_boundary(line):
            return op, j
        return op, _unexpected(
            lines, j, patch, op, "a line starting with '+' (every line of an added file)"
        )
    return op, j


def _parse_delete(lines: list[str], k: int, path: str, patch: _Patch) -> tuple[_Op, int]:
    op = _Op(Action.DELETE, path, k, k)
    j = k + 1
    while j < patch.stop:
        line = lines[j]
        if line.startswith("-"):  # the deleted file's lines, which some models spell out
            op.last = j
            j += 1
            continue
        if not line.strip():
            j += 1
            continue
        if _is_op_boundary(line):
            return op, j
        return op, _unexpected(lines, j, patch, op, "the next '*** ' header after a Delete File")
    return op, j


def _next_nonblank(lines: list[str], j: int, stop: int) -> int:
    while j < stop and not lines[j].strip():
        j += 1
    return j


def _parse_update(lines: list[str], k: int, path: str, patch: _Patch) -> tuple[_Op, int]:
    op = _Op(Action.MODIFY, path, k, k)
    j = k + 1
    if j < patch.stop:
        h = _header(lines[j])
        if h is not None and h[0] == _MOVE:
            op.move_to = h[1]
            op.last = j
            j += 1
            if not op.move_to:
                op.error = _malformed(f"line {j}: '*** Move to:' names no file", j)
    chunks = 0
    while j < patch.stop:
        line = lines[j]
        if not line.strip():
            nxt = _next_nonblank(lines, j, patch.stop)
            starts_chunk = (
                chunks == 0
                and bool(line)
                and nxt < patch.stop
                and lines[nxt][0] in " +-"
                and not _is_op_boundary(lines[nxt])
            )
            if not starts_chunk:
                j += 1
                continue
        elif _is_op_boundary(line):
            break
        if line.startswith("@@") or (chunks == 0 and line[0] in " +-"):
            hunk, j, error = _parse_chunk(lines, j, patch, op)
            chunks += 1
            if error is not None:
                op.error = op.error or error
            elif hunk is not None:
                op.hunks.append(hunk)
            continue
        j = _unexpected(
            lines, j, patch, op, "a chunk line starting with ' ', '+', '-', '@@' or '*** '"
        )
        break
    if chunks == 0 and op.error is None:
        if j >= patch.stop and patch.end_marker is None:
            op.error = Failure(
                ErrorCode.MALFORMED_BLOCK,
                f"line {k + 1}: the patch ends right after '*** Update File: {path}' "
                "(was the reply cut off?)",
                {"line": k + 1, "incomplete": True},
            )
        else:
            op.error = _malformed(
                f"line {k + 1}: '*** Update File: {path}' has no changes; expected '@@' "
                "followed by lines starting with ' ', '+' or '-'",
                k + 1,
            )
    return op, j


def _anchor(line: str) -> str | None:
    """The context named by an `@@` header, or None for a bare `@@`."""
    text = line[2:]
    text = text[1:] if text.startswith(" ") else text
    m = _UNIFIED_RANGE.match(text.strip())
    if m:
        text = text.strip()[m.end() :]
    return text if text.strip() else None


def _parse_chunk(
    lines: list[str], j: int, patch: _Patch, op: _Op
) -> tuple[Hunk | None, int, Failure | None]:
    """One chunk: `@@` headers, then ' '/'+'/'-' lines, then maybe `*** End of File`."""
    start = j
    anchors: list[str] = []
    while j < patch.stop and lines[j].startswith("@@"):
        a = _anchor(lines[j])
        if a is not None:
            anchors.append(a)
        op.last = j
        j += 1
    old: list[str] = []
    new: list[str] = []
    changed = False
    body = 0
    at_eof = False
    while j < patch.stop:
        line = lines[j]
        if "***" in line and line.strip() == END_OF_FILE:
            at_eof = True
            op.last = j
            j += 1
            break
        if not line:
            nxt = _next_nonblank(lines, j, patch.stop)
            if nxt < patch.stop and lines[nxt][0] in " +-" and not _is_op_boundary(lines[nxt]):
                for _ in range(j, nxt):
                    old.append("")
                    new.append("")
                j = nxt
                continue
            break
        if line[0] not in " +-" or _is_op_boundary(line):
            break
        body += 1
        c, text = line[0], line[1:]
        if c in " -":
            old.append(text)
        if c in " +":
            new.append(text)
        changed = changed or c != " "
        op.last = j
        j += 1
    if body == 0:
        if j >= patch.stop and patch.end_marker is None:
            return (
                None,
                j,
                Failure(
                    ErrorCode.MALFORMED_BLOCK,
                    f"line {start + 1}: the patch ends right after this '@@' "
                    "(was the reply cut off?)",
                    {"line": start + 1, "incomplete": True},
                ),
            )
        return (
            None,
            j,
            _malformed(
                f"line {start + 1}: '@@' is not followed by any lines starting with "
                "' ', '+' or '-'",
                start + 1,
            ),
        )
    old_text = "\n".join(old) + "\n" if old else ""
    new_text = "\n".join(new) + "\n" if new else ""
    if old:
        return Hunk(old_text, new_text, anchors=tuple(anchors), at_eof=at_eof), j, None
    if anchors and not at_eof:
        # insert right after the innermost context line (see the module docstring)
        inner = anchors[-1] + "\n"
        return Hunk(inner, inner + new_text, anchors=tuple(anchors[:-1])), j, None
    return (
        Hunk("", new_text, kind=HunkKind.APPEND_EOF, anchors=tuple(anchors), at_eof=at_eof),
        j,
        None,
    )


# ---------------------------------------------------------------------------------------
# blocks


def _to_blocks(
    lines: list[str], patch: _Patch, ops: list[_Op], fence: Fence | None
) -> list[EditBlock]:
    first = patch.first
    if patch.closer is not None:
        last = patch.closer
    elif patch.end_marker is not None:
        last = patch.end_marker
    else:  # unterminated: up to the last line an operation used
        last = max([patch.begin] + [op.last for op in ops])
    f = fence
    if f is not None and f.start < first and (f.end is None or f.end > last):
        # a fence that holds only this patch belongs to its blocks
        if all(not lines[k].strip() for k in range(f.start + 1, first)) and (
            f.end is None or all(not lines[k].strip() for k in range(last + 1, f.end))
        ):
            first = f.start
            last = f.end if f.end is not None else last
    if not ops:
        return [
            EditBlock(
                Format.APPLY_PATCH,
                None,
                (first + 1, last + 1),
                error=Failure(
                    ErrorCode.MALFORMED_BLOCK,
                    f"line {patch.begin + 1}: the patch has no file operations (expected "
                    "'*** Add File:', '*** Delete File:' or '*** Update File:' after "
                    "'*** Begin Patch')",
                    {"line": patch.begin + 1},
                ),
            )
        ]
    blocks: list[EditBlock] = []
    for n, op in enumerate(ops):
        lo = first if n == 0 else op.first
        hi = last if n == len(ops) - 1 else op.last
        span = (lo + 1, hi + 1)
        # one constructor call a block: a patch may hold tens of thousands of operations
        if op.error is not None:
            block = EditBlock(Format.APPLY_PATCH, op.path, span, op.action, error=op.error)
        elif op.action is Action.CREATE:
            content = "".join(line + "\n" for line in op.content)
            block = EditBlock(
                Format.APPLY_PATCH,
                op.path,
                span,
                op.action,
                content=content,
                on_exists=OnExists.OVERWRITE,
            )
        elif op.action is Action.MODIFY:
            block = EditBlock(
                Format.APPLY_PATCH,
                op.path,
                span,
                op.action,
                hunks=tuple(op.hunks),
                move_to=op.move_to,
            )
        else:
            block = EditBlock(Format.APPLY_PATCH, op.path, span, op.action)
        blocks.append(block)
    return blocks


# ---------------------------------------------------------------------------------------
# one operation given apart from its patch


def operation_block(
    fmt: Format, action: Action, path: str, diff: str, span: tuple[int, int]
) -> EditBlock:
    """The block for one V4A operation whose body comes without the patch around it, as in
    OpenAI's `apply_patch_call` items: `action` is CREATE (`diff` holds `+` lines), MODIFY
    (`@@` chunks of ' ', '+', '-' lines) or DELETE (no body). Read by the same grammar as a
    whole patch; errors name the line of `diff` (1-based). A body that brings its own
    `*** Begin Patch` envelope (or just the operation's `*** Update File:` header) is read
    as that patch, which must hold this one operation."""
    lines = normalise_newlines(diff).split("\n")
    if action is Action.DELETE:
        return EditBlock(fmt, path, span, Action.DELETE)
    head = _header(lines[0]) if lines else None
    if lines and lines[0].strip() == BEGIN:
        return _enveloped(fmt, action, path, lines, span)
    if head is not None and head[0] in (_ADD, _UPDATE):
        # the operation's own header, without the patch around it
        return _enveloped(fmt, action, path, [BEGIN, *lines, END], span)
    if not any(line.strip() for line in lines) and action is Action.MODIFY:
        failure = _malformed(
            f"the diff for {path} is empty; expected '@@' chunks of lines starting with "
            "' ', '+' or '-'",
            1,
        )
        return EditBlock(fmt, path, span, Action.MODIFY, error=failure)
    # a patch whose body is these lines, its End Patch just past them: read strictly (no
    # trailing prose can follow a JSON string); line k of the list is line k + 1 of `diff`
    patch = _Patch(-1, len(lines), len(lines), -1, None, len(lines) - 1)
    if action is Action.CREATE:
        op, stop = _parse_add(lines, -1, path, patch)
    else:
        op, stop = _parse_update(lines, -1, path, patch)
    rest = _next_nonblank(lines, stop, len(lines))
    if op.error is None and rest < len(lines):
        found = lines[rest].strip()
        why = (
            f"{found!r} starts another file operation; one {action.value} operation holds "
            "one file's changes"
            if _is_op_boundary(lines[rest])
            else f"expected a line starting with '+' (every line of an added file), found {found!r}"
        )
        op.error = _malformed(f"line {rest + 1}: {why}", rest + 1)
    if op.error is not None:
        failure = dataclasses.replace(op.error, message=f"{path}: diff {op.error.message}")
        return EditBlock(fmt, path, span, action, error=failure)
    if action is Action.CREATE:
        content = "".join(line + "\n" for line in op.content)
        return EditBlock(fmt, path, span, action, content=content, on_exists=OnExists.OVERWRITE)
    return EditBlock(fmt, path, span, action, hunks=tuple(op.hunks))


def _enveloped(
    fmt: Format, action: Action, path: str, lines: list[str], span: tuple[int, int]
) -> EditBlock:
    """A body that is a whole `*** Begin Patch` patch: its one operation, on this path."""
    found = find_blocks(lines)
    if len(found) != 1 or found[0].path != path or found[0].action is not action:
        failure = _malformed(
            f"the diff for {path} is a whole '*** Begin Patch' patch that does not hold just "
            f"one {action.value} of {path}; give the operation's body alone",
            1,
        )
        return EditBlock(fmt, path, span, action, error=failure)
    return dataclasses.replace(found[0], format=fmt, reply_lines=span)
