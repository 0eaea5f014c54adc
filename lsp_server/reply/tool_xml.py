"""Agents' tool calls written as XML in a reply: Cline's and Roo Code's tool tags, and the
function calls of OpenHands and SWE-agent.

```
<replace_in_file>                          <function=str_replace_editor>
<path>src/app.ts</path>                    <parameter=command>str_replace</parameter>
<diff>                                     <parameter=path>/repo/src/app.py</parameter>
------- SEARCH                             <parameter=old_str>x = 1</parameter>
old lines                                  <parameter=new_str>x = 2</parameter>
=======                                    </function>
new lines
+++++++ REPLACE
</diff>
</replace_in_file>
```

What each call becomes:
* Cline's `replace_in_file` `{path, diff}` and Roo Code's `apply_diff` `{path, diff}` (or its
  multi-file `<args><file><path/><diff><content/><start_line/></diff>...</file></args>`):
  one MODIFY block per file, its hunks the diff's SEARCH/REPLACE blocks
  (`search_replace_calls.blocks_from_parts`, which reads Roo's `:start_line:` hints and copied line
  numbers);
* `write_to_file` `{path, content}` (Cline's; Roo's when it carries `<line_count>`): the
  whole file, created or overwritten. A content wrapped whole in one Markdown fence is
  unwrapped (some models add one); one that leaves code out with a placeholder line
  (`// ... existing code ...`) is merged into the file around it, never written with it;
* Roo's `insert_content` `{path, line, content}`: the content before line `line` (1-based),
  or at the end of the file for line 0;
* `<function=NAME>` / `<invoke name="NAME">` with `<parameter=command>` (or
  `<parameter name="command">`) `str_replace` / `create` / `insert`: the text-editor command
  (`editor_commands`), reported as OpenHands'. `view` and `undo_edit`, and functions
  without an editor command (running a shell, say), are not edits. OpenHands stops the
  model at `</function`, so a call may lack its closing tag: it then ends after its last
  closed parameter, and a parameter left open makes it incomplete.

A call is an opening tag at the start of a line (indentation allowed) with nothing after it
on the line but another tag, or an opening tag after text on its line with a tag next (`Let
me fix it:<replace_in_file>`): a tag named in a sentence or a code span is prose. Tool and
parameter values are the reply's text as it stands, except:
* a value's first line break (after the opening tag) and its last (before the closing tag's
  line) are layout, not content;
* XML entities (`&lt;` `&gt;` `&amp;` `&quot;` `&apos;`, numeric ones) are decoded only when
  the call is plainly entity-escaped: its values hold `&lt;` or `&gt;`, no raw `<` or `>`
  (SEARCH/REPLACE marker lines aside), and no `&` that does not begin an entity. Cline and
  Roo send raw text, where `&lt;` is the file's own text (an HTML page, an escaping helper)
  and is kept; a model that escaped its call escapes every `<` it sends. A value wrapped
  in one CDATA section is unwrapped, and says the call is raw.

A call that is plainly meant but cannot be used (no closing tag, no `<path>`, a diff with no
block, an `insert` without its line) is MALFORMED_BLOCK naming the call and the reason. Text
written verbatim into a file (a whole-file content, new text) is refused the same way when
it holds a line shaped like an edit marker (see `marker_lines.edit_marker`).
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Sequence
from typing import NamedTuple

from lsp_server.model import Action, EditBlock, ErrorCode, Failure, Format, Hunk, HunkKind
from lsp_server.reply.agent_tools import MalformedCall, write_action
from lsp_server.reply.common import find_fences, normalise_text
from lsp_server.reply.editor_commands import COMMANDS, editor_block
from lsp_server.reply.marker_lines import SECTION, VERBATIM, MarkerKind, find_marker, is_document
from lsp_server.reply.search_replace import cline_syntax
from lsp_server.reply.search_replace_calls import DiffPart, blocks_from_parts

# one alternation of literal openers; names are bounded, so a failed match costs little
_OPENER = re.compile(
    r"<(?P<tag>replace_in_file|write_to_file|apply_diff|insert_content)>"
    r"|<function=(?P<fn>[\w.\-]{1,100})>"
    r'|<invoke name="(?P<inv>[\w.\-]{1,100})">'
)
_PARAMETER = re.compile(
    r'<parameter=(?P<a>[\w.\-]{1,100})>|<parameter name="(?P<b>[\w.\-]{1,100})">'
)
_PARAMETER_END = "</parameter>"
_ENTITY = re.compile(r"&(?:lt|gt|amp|quot|apos|#[0-9]{1,7}|#[xX][0-9a-fA-F]{1,6});")
_NAMED = {"lt": "<", "gt": ">", "amp": "&", "quot": '"', "apos": "'"}
_NUMBER = re.compile(r"\d{1,9}")
_CDATA_OPEN, _CDATA_CLOSE = "<![CDATA[", "]]>"
_NEXT_TAG = re.compile(r"(?<![ \t\n])[ \t\n]*<")
_LAYOUT_HEAD = re.compile(r"(?<![ \t])[ \t]*\n")
_LAYOUT_TAIL = re.compile(r"\n[ \t]*\Z")


class _Refused(Exception):
    """A call that is plainly meant but cannot be used: the reason, in words."""


class _Text(NamedTuple):
    """The reply as one string, with line starts to name lines by offset."""

    text: str
    starts: list[int]

    @classmethod
    def of(cls, lines: list[str]) -> _Text:
        starts = [0]
        for line in lines[:-1]:
            starts.append(starts[-1] + len(line) + 1)
        return cls("\n".join(lines), starts)

    def line(self, offset: int) -> int:
        """The 0-based line holding `offset`."""
        return bisect.bisect_right(self.starts, offset) - 1

    def at_line_start(self, offset: int) -> bool:
        start = self.starts[self.line(offset)]
        return not self.text[start:offset].strip()

    def line_rest(self, offset: int) -> str:
        """The rest of the line from `offset`, stripped."""
        end = self.text.find("\n", offset)
        return self.text[offset : end if end >= 0 else len(self.text)].strip()


class _Value(NamedTuple):
    """A parameter's text, where it starts in the reply, and its text as meant."""

    raw: str
    offset: int
    cdata: bool = False  # the value was a CDATA section: its text is raw, never escaped

    @classmethod
    def of(cls, text: str, begin: int, end: int) -> _Value:
        """text[begin:end], unwrapped when it is one CDATA section (`<![CDATA[` … `]]>`, with
        only blanks around them): the wrapper goes, the line breaks stay, so lines keep
        their numbers."""
        raw = text[begin:end]
        head = raw.lstrip()
        if head.startswith(_CDATA_OPEN) and raw.rstrip().endswith(_CDATA_CLOSE):
            lo = raw.index(_CDATA_OPEN) + len(_CDATA_OPEN)
            hi = raw.rindex(_CDATA_CLOSE)
            if lo <= hi:
                return cls(raw[lo:hi], begin + lo, cdata=True)
        return cls(raw, begin)

    def layout_stripped(self, keep_end: bool = False) -> tuple[str, int]:
        """The value without its first and last line break (layout around the tags), and the
        offset of what is left. With `keep_end` the last line break stays (what is left of
        the closing tag's line goes): a file's text between tags on their own lines is whole
        lines."""
        text, offset = self.raw, self.offset
        head = _LAYOUT_HEAD.match(text)
        if head:
            text, offset = text[head.end() :], offset + head.end()
        tail = _LAYOUT_TAIL.search(text)
        if tail:
            text = text[: tail.start() + (1 if keep_end else 0)]
        return text, offset


def find_blocks(lines: list[str]) -> list[EditBlock]:
    """Every XML tool call in the reply `lines` that asks for an edit, in order."""
    if not any("<" in line for line in lines):
        return []
    doc = _Text.of(_dedented(lines))
    text = doc.text
    out: list[EditBlock] = []
    pos = 0
    while True:
        m = _OPENER.search(text, pos)
        if m is None:
            break
        if not _opens_here(doc, m):
            pos = m.end()
            continue
        tag = m.group("tag")
        if tag is not None:
            blocks, pos = _tag_call(doc, m, tag)
        else:
            blocks, pos = _function_call(doc, m, m.group("fn") or m.group("inv"))
        out.extend(blocks)
    return out


def _opens_here(doc: _Text, m: re.Match[str]) -> bool:
    """Is the opening tag `m` a call? At the start of a line: when nothing but another tag
    follows it on the line. After text on its line (`Let me fix it:<replace_in_file>`): when
    a tag comes next, and it is not quoted in a code span."""
    if doc.at_line_start(m.start()):
        rest = doc.line_rest(m.end())
        return not rest or rest.startswith("<")
    return doc.text[m.start() - 1] != "`" and _NEXT_TAG.match(doc.text, m.end()) is not None


def _dedented(lines: list[str]) -> list[str]:
    """`lines` with each call indented under a list item (`1. Fix it:` then the call
    indented by 3 spaces) moved back to the margin: the indentation of its opening line goes
    from every line of the call when every non-blank one starts with it, as for a fence
    under a list item. A call's values are then the file's text, not the list's. One line in,
    one line out."""
    out = lines
    openers = [k for k, line in enumerate(lines) if "<" in line and _opens_call(line)]
    for i, k in enumerate(openers):
        line = lines[k]
        indent = line[: len(line) - len(line.lstrip())]
        if not indent:
            continue
        m = _OPENER.match(line.lstrip())
        closer = f"</{m.group('tag')}>" if m and m.group("tag") else None
        if m and closer is None:
            closer = "</function>" if m.group("fn") else "</invoke>"
        stop = openers[i + 1] if i + 1 < len(openers) else len(lines)
        end = next((j for j in range(k, stop) if closer and closer in lines[j]), None)
        if end is None:  # a function call cut at its stop word: to its last closed parameter
            end = next((j for j in range(stop - 1, k - 1, -1) if _PARAMETER_END in lines[j]), k)
        body = range(k, end + 1)
        if all(lines[j].startswith(indent) for j in body if lines[j].strip()):
            if out is lines:
                out = list(lines)
            for j in body:
                out[j] = lines[j][len(indent) :] if lines[j].startswith(indent) else lines[j]
    return out


def _opens_call(line: str) -> bool:
    stripped = line.lstrip()
    m = _OPENER.match(stripped)
    return m is not None and (
        not stripped[m.end() :].strip() or stripped[m.end() :].lstrip()[:1] == "<"
    )


def _span(doc: _Text, start: int, end: int) -> tuple[int, int]:
    return (doc.line(start) + 1, doc.line(max(start, end - 1)) + 1)


def _refusal(
    fmt: Format, path: str | None, span: tuple[int, int], name: str, reason: str, **details: object
) -> EditBlock:
    message = f"the `{name}` call at reply line {span[0]}: {reason}"
    return EditBlock(
        fmt,
        path,
        span,
        error=Failure(ErrorCode.MALFORMED_BLOCK, message, {"tool": name, **details}),
    )


# --- Cline's and Roo Code's tool tags ---------------------------------------------------------


def _element(text: str, name: str, lo: int, hi: int, last: bool = False) -> _Value | None:
    """The text inside `<name>...</name>` in text[lo:hi]: the first element, closed by the
    first closing tag, or by the last one with `last` (the big values - a diff, a file - may
    hold the closing tag themselves, the small ones never do; and a big value whose closing
    tag was left out ends where text[lo:hi] does)."""
    opener = text.find(f"<{name}>", lo, hi)
    if opener < 0:
        return None
    begin = opener + len(name) + 2
    closer = f"</{name}>"
    end = text.rfind(closer, begin, hi) if last else text.find(closer, begin, hi)
    if end < 0:
        if not last:
            return None
        end = hi  # a big value left open runs to the call's closing tag, which bounds it
    return _Value.of(text, begin, end)


def _path_of(text: str, lo: int, hi: int) -> str | None:
    """The `<path>` in text[lo:hi] as it reads, for naming a refused call."""
    path = _element(text, "path", lo, hi)
    return (_decode(path.raw).strip() or None) if path is not None else None


def _tag_call(doc: _Text, m: re.Match[str], tag: str) -> tuple[list[EditBlock], int]:
    """The blocks of the Cline / Roo call opened by `m`, and where scanning resumes."""
    text = doc.text
    closer = f"</{tag}>"
    end = text.find(closer, m.end())
    fmt = Format.CLINE if tag == "replace_in_file" else Format.ROO
    if end < 0:
        span = _span(doc, m.start(), len(text))
        reason = f"no `{closer}`: the call is incomplete (was the reply cut off?)"
        path = _path_of(text, m.end(), len(text))
        return [_refusal(fmt, path, span, tag, reason, incomplete=True)], len(text)
    stop = end + len(closer)
    span = _span(doc, m.start(), stop)
    lo, hi = m.end(), end
    if tag == "write_to_file" and _element(text, "line_count", lo, hi) is None:
        fmt = Format.CLINE
    if tag == "apply_diff" and _element(text, "args", lo, hi, last=True) is not None:
        return _roo_files(doc, lo, hi, span), stop
    try:
        return [_tool(doc, tag, fmt, lo, hi, span)], stop
    except _Refused as why:
        return [_refused(why, fmt, _path_of(text, lo, hi), span, tag)], stop


_BIG = {"replace_in_file": "diff", "apply_diff": "diff", "write_to_file": "content"}


def _tool(doc: _Text, tag: str, fmt: Format, lo: int, hi: int, span: tuple[int, int]) -> EditBlock:
    """One file's call: replace_in_file, apply_diff (with a path), write_to_file, insert_content."""
    text = doc.text
    path = _element(text, "path", lo, hi)
    big_name = _BIG.get(tag, "content")
    big = _element(text, big_name, lo, hi, last=True)
    escaped = _escaped([v for v in (path, big) if v is not None])
    name = _path(path, escaped)
    if big is None:
        raise _Refused(f"no `<{big_name}>`")
    if tag in ("replace_in_file", "apply_diff"):
        start = _number(_element(text, "start_line", lo, hi), "start_line")
        part = DiffPart(_maybe_decode(big.raw, escaped), doc.line(big.offset) + 1, start)
        return blocks_from_parts((part,), name, span, fmt)
    content, offset = big.layout_stripped()
    content = _maybe_decode(content, escaped)
    if tag == "write_to_file":
        lines, first = _unfenced(content.split("\n"))
        _check_markers(doc, lines, doc.line(offset) + first, name, VERBATIM, "the file's content")
        body = normalise_text(lines) if content else ""
        return EditBlock(fmt, name, span, action=write_action(body, name), content=body)
    line = _number(_element(text, "line", lo, hi), "line")
    if line is None:
        raise _Refused("no `<line>` (the line to insert before; 0 appends to the file)")
    lines = content.split("\n")
    _check_markers(doc, lines, doc.line(offset), name, SECTION, "the inserted text")
    new = normalise_text(lines)
    if line == 0:
        hunk = Hunk("", new, kind=HunkKind.APPEND_EOF)
    else:
        hunk = Hunk("", new, kind=HunkKind.INSERT_AT_LINE, line_hint=line - 1)
    return EditBlock(fmt, name, span, hunks=(hunk,))


def _split(text: str, name: str, lo: int, hi: int) -> list[tuple[int, int]]:
    """text[lo:hi] cut at every `<name>` opener: the regions from each to the next."""
    cuts: list[int] = []
    at = text.find(f"<{name}>", lo, hi)
    while at >= 0:
        cuts.append(at)
        at = text.find(f"<{name}>", at + len(name) + 2, hi)
    return list(zip(cuts, [*cuts[1:], hi][: len(cuts)], strict=True))


def _roo_files(doc: _Text, lo: int, hi: int, span: tuple[int, int]) -> list[EditBlock]:
    """Roo's multi-file `apply_diff`: `<args>` holding `<file>`s, each a `<path>` and one or
    more `<diff>`s of `<content>` and `<start_line>`. Every file is one block spanning its
    `<file>` element (the first from the call's opening line, the last to its closing one)."""
    files = _split(doc.text, "file", lo, hi)
    if not files:
        return [_refusal(Format.ROO, None, span, "apply_diff", "`<args>` holds no `<file>`")]
    out = []
    for k, (flo, fhi) in enumerate(files):
        first = span[0] if k == 0 else doc.line(flo) + 1
        last = span[1] if k == len(files) - 1 else doc.line(max(flo, fhi - 1)) + 1
        fspan = (first, max(first, last))
        try:
            out.append(_roo_file(doc, flo, fhi, fspan))
        except _Refused as why:
            path = _path_of(doc.text, flo, fhi)
            out.append(_refused(why, Format.ROO, path, fspan, "apply_diff"))
    return out


def _roo_file(doc: _Text, lo: int, hi: int, span: tuple[int, int]) -> EditBlock:
    text = doc.text
    path = _element(text, "path", lo, hi)
    diffs = _split(text, "diff", lo, hi)
    pieces: list[tuple[_Value, int | None]] = []
    for dlo, dhi in diffs:
        content = _element(text, "content", dlo, dhi, last=True)
        if content is None:  # the SEARCH/REPLACE text straight inside `<diff>`
            content = _element(text, "diff", dlo, dhi, last=True)
        if content is None:
            raise _Refused("a `<diff>` holds no `<content>`")
        after = content.offset + len(content.raw)
        start = _element(text, "start_line", after, dhi) or _element(
            text, "start_line", dlo, content.offset
        )
        pieces.append((content, _number(start, "start_line")))
    escaped = _escaped([v for v in [path, *(c for c, _ in pieces)] if v is not None])
    name = _path(path, escaped)
    if not pieces:
        raise _Refused(f"the `<file>` for {name} holds no `<diff>`")
    parts = [
        DiffPart(_maybe_decode(c.raw, escaped), doc.line(c.offset) + 1, start)
        for c, start in pieces
    ]
    return blocks_from_parts(parts, name, span, Format.ROO)


def _path(value: _Value | None, escaped: bool) -> str:
    path = _maybe_decode(value.raw, escaped).strip() if value is not None else ""
    if not path:
        raise _Refused("no `<path>` (the file to edit)")
    return path


def _number(value: _Value | None, name: str) -> int | None:
    if value is None:
        return None
    digits = value.raw.strip()
    if _NUMBER.fullmatch(digits) is None:
        raise _Refused(f"`<{name}>` is not a line number ({digits[:40]!r})")
    return int(digits)


def _unfenced(lines: list[str]) -> tuple[list[str], int]:
    """A file's lines without one Markdown fence wrapped around all of them (the first line
    opens it, the last closes it, nothing between closes it), and how many lines went first."""
    if len(lines) >= 2:
        fences = find_fences(lines)
        if len(fences) == 1 and fences[0].start == 0 and fences[0].end == len(lines) - 1:
            return lines[1:-1], 1
    return lines, 0


def _check_markers(
    doc: _Text,
    lines: Sequence[str],
    first: int,
    path: str,
    kinds: frozenset[MarkerKind],
    what: str,
) -> None:
    """Refuse text written verbatim that holds a line shaped like an edit marker; `first` is
    the 0-based reply line of lines[0]."""
    marker = find_marker(lines, 0, len(lines), kinds, is_document(path, None))
    if marker is not None:
        raise _MarkerRefused(marker.failure(first + marker.index + 1, what))


def _refused(
    why: _Refused, fmt: Format, path: str | None, span: tuple[int, int], tag: str
) -> EditBlock:
    if isinstance(why, _MarkerRefused):
        return EditBlock(fmt, path, span, error=why.failure)
    return _refusal(fmt, path, span, tag, str(why))


class _MarkerRefused(_Refused):
    """A refusal that already has its Failure (naming the marker's reply line)."""

    def __init__(self, failure: Failure):
        super().__init__(failure.message)
        self.failure = failure


# --- OpenHands / SWE-agent function calls -----------------------------------------------------


def _function_call(doc: _Text, m: re.Match[str], name: str) -> tuple[list[EditBlock], int]:
    """The block of the function call opened by `m` (none when it is not an editor command),
    and where scanning resumes."""
    text = doc.text
    closer = "</function>" if m.group("fn") else "</invoke>"
    following = _OPENER.search(text, m.end())
    limit = following.start() if following is not None else len(text)
    end = text.find(closer, m.end(), limit)
    hi = end if end >= 0 else limit
    params: dict[str, _Value] = {}
    pos, last, open_name = m.end(), m.end(), None
    while True:
        p = _PARAMETER.search(text, pos, hi)
        if p is None:
            break
        key = p.group("a") or p.group("b")
        close = text.find(_PARAMETER_END, p.end(), hi)
        if close < 0:
            open_name = key
            break
        params.setdefault(key, _Value.of(text, p.end(), close))
        pos = last = close + len(_PARAMETER_END)
    stop = end + len(closer) if end >= 0 else (hi if open_name else last)
    resume = max(stop, m.end())
    command = params.get("command")
    verb = command.raw.strip() if command is not None else ""
    if verb not in COMMANDS:
        return [], resume
    fmt = Format.OPENHANDS
    span = _span(doc, m.start(), resume)
    escaped = _escaped(list(params.values()))
    path = params.get("path")
    path_name = _maybe_decode(path.raw, escaped).strip() or None if path is not None else None
    if open_name is not None:
        reason = (
            f"`<parameter={open_name}>` is not closed: the call is incomplete "
            "(was the reply cut off?)"
        )
        return [_refusal(fmt, path_name, span, name, reason, incomplete=True)], resume
    args: dict[str, object] = {}
    for key, value in params.items():
        # new and old text are cut alike (either may be part of a line); a created file is
        # whole lines
        raw, _ = value.layout_stripped(keep_end=key == "file_text")
        raw = _maybe_decode(raw, escaped)
        args[key] = raw.strip() if key in ("command", "path", "insert_line") else raw
    try:
        block = editor_block(verb, args, span, fmt)
        if block is not None:
            _check_function_markers(doc, block, params, escaped)
    except MalformedCall as bad:
        return [_refusal(fmt, bad.path or path_name, span, name, str(bad), **bad.details)], resume
    except _MarkerRefused as why:
        return [EditBlock(fmt, path_name, span, error=why.failure)], resume
    return ([block] if block is not None else []), resume


def _check_function_markers(
    doc: _Text, block: EditBlock, params: dict[str, _Value], escaped: bool
) -> None:
    """A created file or new text holding a line shaped like an edit marker is refused."""
    key, kinds, what = "new_str", SECTION, "the new text"
    if block.action is Action.CREATE:
        key, kinds, what = "file_text", VERBATIM, "the file's content"
    value = params.get(key)
    if value is None or block.path is None:
        return
    text, offset = value.layout_stripped()
    lines = _maybe_decode(text, escaped).split("\n")
    _check_markers(doc, lines, doc.line(offset), block.path, kinds, what)


# --- XML entities -----------------------------------------------------------------------------


def _escaped(values: Sequence[_Value]) -> bool:
    """Is a call's text plainly entity-escaped (see the module)? SEARCH/REPLACE marker lines
    are the call's format, not its data, and are not looked at; a call with a CDATA section
    says its text is raw."""
    angle = False
    for value in values:
        if value.cdata:
            return False
        text = value.raw
        if "<" not in text and ">" not in text and "&" not in text:
            continue
        for line in text.split("\n"):
            if cline_syntax().kind(line) is not None:
                continue
            if "<" in line or ">" in line:
                return False
            if "&" in line:
                if "&" in _ENTITY.sub("", line):
                    return False
                angle = angle or "&lt;" in line or "&gt;" in line
    return angle


def _char(m: re.Match[str]) -> str:
    name = m.group(0)[1:-1]
    if name in _NAMED:
        return _NAMED[name]
    code = int(name[2:], 16) if name[1:2] in ("x", "X") else int(name[1:])
    if code > 0x10FFFF or 0xD800 <= code <= 0xDFFF or code == 0:
        return m.group(0)
    return chr(code)


def _decode(text: str) -> str:
    """Every XML entity in `text` replaced by its character, in one pass (`&amp;lt;` is the
    text `&lt;`, not `<`)."""
    return _ENTITY.sub(_char, text) if "&" in text else text


def _maybe_decode(text: str, escaped: bool) -> str:
    return _decode(text) if escaped else text
