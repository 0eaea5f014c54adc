"""Plan → `WorkspaceEdit`: the smallest text edits that turn each file's old text into its new one.

The plan carries whole texts (before and after). Sending "replace the whole file" would
work, but it would wipe the editor's undo granularity, cursors, marks and folds, and make
the refactor preview useless; so each file's change is diffed line by line, and changed
lines are trimmed to the characters that really differ.

Positions are in the encoding the client negotiated (UTF-16 unless it asked for UTF-8 or
UTF-32) and are always computed from the document text itself: a column is the length of
the line's prefix in that encoding's code units. Lines end at "\\n", "\\r\\n" or "\\r" only
(the LSP's definition), never at the other characters Python's `splitlines` accepts, and an
edit never starts or ends between the "\\r" and "\\n" of one line ending.
"""

from __future__ import annotations

import bisect
import itertools
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from lsprotocol import types

from lsp_server.linediff import diff_offsets
from lsp_server.lines import LineMap, lsp_line_starts, split_lsp_lines, strip_ending
from lsp_server.model import MATCH_STRENGTH, BlockOutcome, FileAction, FileChange, MatchKind, Plan
from lsp_server.report import percent

UTF8 = "utf-8"
UTF16 = "utf-16"
UTF32 = "utf-32"


def units(text: str, encoding: str) -> int:
    """Length of `text` in the code units of `encoding`."""
    if encoding == UTF8:
        return len(text.encode("utf-8", "surrogatepass"))
    if encoding == UTF32:
        return len(text)
    return len(text) + sum(1 for c in text if ord(c) > 0xFFFF)


def _prefix_for_units(line: str, count: int, encoding: str) -> int:
    """How many characters of `line` fit in `count` code units (a split character counts whole)."""
    if encoding == UTF32:
        return min(count, len(line))
    used = 0
    for i, ch in enumerate(line):
        if used >= count:
            return i
        if encoding == UTF8:
            used += len(ch.encode("utf-8", "surrogatepass"))
        else:
            used += 2 if ord(ch) > 0xFFFF else 1
    return len(line)


class PositionIndex:
    """Offsets (code points into the text) ↔ LSP positions, for one text and one encoding."""

    def __init__(self, text: str, encoding: str = UTF16):
        self.text = text
        self.encoding = encoding
        self.lines = split_lsp_lines(text)
        self.starts = lsp_line_starts(self.lines)

    @property
    def line_count(self) -> int:
        return len(self.starts)

    def line_text(self, line: int) -> str:
        """Line `line` without its ending ("" past the end)."""
        if line < 0 or line >= len(self.lines):
            return ""
        return strip_ending(self.lines[line])

    def position(self, offset: int) -> types.Position:
        offset = max(0, min(offset, len(self.text)))
        line = bisect.bisect_right(self.starts, offset) - 1
        col = offset - self.starts[line]
        prefix = self.text[self.starts[line] : self.starts[line] + col]
        return types.Position(line=line, character=units(prefix, self.encoding))

    def offset(self, position: types.Position) -> int:
        """Offset of a client position; a column past the line's end clamps to the end."""
        if position.line >= len(self.starts):
            return len(self.text)
        start = self.starts[position.line]
        body = self.line_text(position.line)
        return start + _prefix_for_units(body, position.character, self.encoding)

    def line_range(self, first: int, last: int) -> types.Range:
        """The range covering lines first..last (0-based, inclusive), without the last ending."""
        last_line = max(first, min(last, self.line_count - 1))
        first = max(0, min(first, self.line_count - 1))
        end_col = units(self.line_text(last_line), self.encoding)
        return types.Range(
            start=types.Position(line=first, character=0),
            end=types.Position(line=last_line, character=end_col),
        )


def text_edits(old: str, new: str, encoding: str = UTF16) -> list[types.TextEdit]:
    """The minimal `TextEdit`s (positions in `encoding`, against `old`) that give `new`."""
    index = PositionIndex(old, encoding)
    return [
        types.TextEdit(
            range=types.Range(start=index.position(e.start), end=index.position(e.end)),
            new_text=e.text,
        )
        for e in diff_offsets(old, new)
    ]


# --- line breaks in newText ------------------------------------------------------------------

# How a client stores the line breaks of an edit's `newText` (read in each editor's source,
# and for Kate seen in the real editor): VS Code (it says `normalizesLineEndings`), Neovim
# (`apply_text_edits` turns "\r\n" into "\n"), Sublime Text's LSP (drops every "\r"), Zed
# (its buffer normalises every edit) and Kate (a CRLF newText into a CRLF file, open or not,
# is saved as exactly CRLF: tests/editors/test_kate.py) store the document's own line break
# whatever the edit says. Helix inserts the text as it is, into a buffer that holds the
# file's own bytes (CRLF stays CRLF). Emacs (eglot) inserts it as it is too, into a buffer
# that decoded a file whose lines all end in CRLF to "\n" (a `dos` buffer; a file with
# mixed endings is read as it is, "\r" and all): a "\r\n" sent there is stored as "\r"
# plus a line break, and the file is saved with "\r\r\n".
NORMALISES = "normalises"  # any line break in newText becomes the document's own
AS_IS = "as-is"  # inserted as sent, into a buffer with the file's own line breaks
DECODES_DOS = "decodes-dos"  # inserted as sent, into a buffer that decoded a CRLF file

_CLIENTS = (  # the client's name (`lsp.sharing.client_program`), lowercased, starts with → how
    ("visual studio code", NORMALISES),
    ("code-server", NORMALISES),
    ("vscodium", NORMALISES),
    ("neovim", NORMALISES),
    ("nvim", NORMALISES),
    ("sublime", NORMALISES),
    ("zed", NORMALISES),
    ("helix", AS_IS),
    ("emacs", DECODES_DOS),
    ("eglot", DECODES_DOS),
    ("kate", NORMALISES),
)


def client_line_breaks(name: str | None, normalizes: bool | None) -> str:
    """How the client named `name` stores the line breaks of `newText`. A client that does
    not say (`normalizesLineEndings`) and is not known gets the file's own line breaks,
    which is what a buffer holding the file's bytes needs."""
    if normalizes:
        return NORMALISES
    low = (name or "").strip().lower()
    return next((kind for prefix, kind in _CLIENTS if low.startswith(prefix)), AS_IS)


def _all_crlf(text: str) -> bool:
    """Does every line of `text` end in "\r\n" (at least one does)?"""
    crlf = text.count("\r\n")
    return crlf > 0 and crlf == text.count("\n") and crlf == text.count("\r")


def buffer_line_break(policy: str, text: str, opened: bool) -> str | None:
    """The line break newText must use for this client's buffer of a document whose text
    (as the plan read it) is `text`: "\n", or None for the text as planned. An open
    document's text is what the editor sent, so it is what its buffer holds."""
    if policy in (NORMALISES, AS_IS) or "\r\n" not in text:
        return None
    if opened:
        return None  # the buffer holds the "\r" the editor sent
    return "\n" if _all_crlf(text) else None


# --- what the client can take -------------------------------------------------------------


@dataclass(frozen=True)
class EditCapabilities:
    """The parts of the client's `workspace.workspaceEdit` capability the builder cares about."""

    document_changes: bool = True
    resource_operations: frozenset[str] = frozenset({"create", "rename", "delete"})
    change_annotations: bool = True
    encoding: str = UTF16
    line_breaks: str = NORMALISES  # how the client stores newText's line breaks

    @classmethod
    def from_client(
        cls, caps: types.ClientCapabilities | None, encoding: str, client_name: str | None = None
    ) -> EditCapabilities:
        """Decide from what the client advertises (and, for line breaks, who it is).

        Resource operations only exist inside `documentChanges`, so a client that lists any
        (Neovim does, without setting `documentChanges`) takes `documentChanges`.
        """
        ws_edit = caps.workspace.workspace_edit if caps and caps.workspace else None
        if ws_edit is None:
            breaks = client_line_breaks(client_name, None)
            return cls(False, frozenset(), False, encoding, breaks)
        ops = frozenset(str(getattr(op, "value", op)) for op in (ws_edit.resource_operations or ()))
        doc_changes = bool(ws_edit.document_changes) or bool(ops)
        annotations = doc_changes and ws_edit.change_annotation_support is not None
        breaks = client_line_breaks(client_name, ws_edit.normalizes_line_endings)
        ops = ops if doc_changes else frozenset()
        return cls(doc_changes, ops, annotations, encoding, breaks)


# --- the builder ----------------------------------------------------------------------------


@dataclass(frozen=True)
class BuiltEdit:
    """A `WorkspaceEdit` plus what the server needs to report about it."""

    edit: types.WorkspaceEdit
    text_edit_count: int
    files: tuple[FileChange, ...]
    unsupported: tuple[FileChange, ...] = ()  # file operations this client cannot perform
    needs_confirmation: bool = False
    annotations: dict[str, types.ChangeAnnotation] = field(default_factory=dict)
    # the file (its `FileChange.path`) each entry of `documentChanges` belongs to, in order:
    # what a client's `failedChange` index names
    operations: tuple[str, ...] = ()

    @property
    def empty(self) -> bool:
        return not self.files


# The client capability (`resourceOperations`) each file action needs.
_RESOURCE_OPERATIONS = {
    FileAction.CREATE: "create",
    FileAction.DELETE: "delete",
    FileAction.RENAME: "rename",
}


# A block placed at this strength or weaker must be looked at: a node replaced whole by
# its name (what it held and the reply does not show is gone, as with an overwritten
# file), lines taken as elided, a snippet placed by its definitions' names, a fuzzy match.
MUST_LOOK = MATCH_STRENGTH[MatchKind.STRUCTURAL]


def needs_confirmation(match: MatchKind | None, *, confirm_fuzzy: bool, preview: bool) -> bool:
    """Does this block's edit need the user's look before it lands?

    Only an edit the evidence does not settle: a fuzzy match, lines taken as elided, a
    node replaced whole (with `confirmFuzzy`), and a snippet placement always, whatever
    `confirmFuzzy` says — its place was inferred from the definitions' names, not found by
    quoted text. A match that
    differs only in whitespace or indentation is certain. A preview (`preview`) does not
    ask for more: VS Code's refactor preview unticks every edit that needs confirmation, so
    asking for all of them applied nothing unless the user ticked each one."""
    del preview  # kept for callers: a preview shows the annotations, it asks for no more
    if match is MatchKind.SNIPPET:
        return True
    if not confirm_fuzzy or match is None:
        return False
    return MATCH_STRENGTH.get(match, 0) >= MUST_LOOK


def annotation_id(block_index: int) -> str:
    return f"llm-patch/block-{block_index}"


def overwrite_annotation_id(path: str) -> str:
    return f"llm-patch/replaces/{path}"


def _overwrite_annotation(change: FileChange) -> types.ChangeAnnotation:
    """A file whose content is replaced by another's (a move onto it, an `Add File` over
    it) always asks first: what it held is lost, whatever the match."""
    return types.ChangeAnnotation(
        label=f"LLM patch replaces the existing {change.path}",
        needs_confirmation=True,
        description=f"{change.path}: its old content is replaced",
    )


def _annotation(
    outcome: BlockOutcome, *, confirm_fuzzy: bool, preview: bool
) -> types.ChangeAnnotation:
    block = outcome.block
    match = outcome.match.value if outcome.match else "placed"
    if outcome.match is MatchKind.FUZZY and outcome.score is not None:
        match = f"fuzzy {percent(outcome.score)}"
    target = block.path or "?"
    if block.move_to:
        target = f"{target} → {block.move_to}"
    lo, hi = block.reply_lines
    return types.ChangeAnnotation(
        label=f"LLM patch block {block.index} ({block.format.value}, {match})",
        needs_confirmation=needs_confirmation(
            outcome.match, confirm_fuzzy=confirm_fuzzy, preview=preview
        ),
        description=f"{target} · reply lines {lo}-{hi}",
    )


def _weakest(outcomes: Sequence[BlockOutcome]) -> BlockOutcome | None:
    ranked = sorted(
        outcomes,
        key=lambda o: (MATCH_STRENGTH.get(o.match, 0) if o.match else 0, -o.block.index),
        reverse=True,
    )
    return ranked[0] if ranked else None


class _Reach:
    """Each block's placements sorted by first line, with the furthest line any of them
    reaches so far: whether one overlaps an edit is a bisect, not a scan (a replace_all
    places a block at every occurrence, and a file can have thousands)."""

    def __init__(self, outcomes: Sequence[BlockOutcome]):
        self.tables: list[tuple[BlockOutcome, list[int], list[int]]] = []
        for o in outcomes:
            placements = sorted(o.placements, key=lambda p: p.start_line)
            starts = [p.start_line for p in placements]
            ends = (max(p.start_line + 1, p.end_line, p.new_end_line or 0) - 1 for p in placements)
            self.tables.append((o, starts, list(itertools.accumulate(ends, max))))

    def hits(self, lo: int, hi: int) -> list[BlockOutcome]:
        """The blocks with a placement starting at or before `hi` and reaching `lo`."""
        out = []
        for o, starts, reach in self.tables:
            k = bisect.bisect_right(starts, hi)
            if k and reach[k - 1] >= lo:
                out.append(o)
        return out


def _owner(
    edit_lines: tuple[int, int],
    outcomes: Sequence[BlockOutcome],
    core_line_of: Callable[[int], int],
    reach: _Reach,
) -> BlockOutcome | None:
    """The block an edit belongs to: of those whose placement overlaps it, the least certain.

    Placements of later blocks are in the coordinates of the text earlier blocks produced,
    so the match is approximate; choosing the weakest candidate means a fuzzy block's
    confirmation is never lost to a neighbour's exact one.
    """
    lo, hi = edit_lines
    hits = reach.hits(core_line_of(lo), core_line_of(hi))
    return _weakest(hits) if hits else _weakest(outcomes)


def build_workspace_edit(
    plan: Plan,
    caps: EditCapabilities,
    uri_for: Callable[[str], str],
    *,
    confirm_fuzzy: bool = True,
    preview: bool = False,
    files: Sequence[FileChange] | None = None,
) -> BuiltEdit:
    """Turn the plan's file changes into one `WorkspaceEdit` this client can apply.

    With `documentChanges`: one `TextDocumentEdit` per file, pinned to the version the plan
    read (null for files that were not open), resource operations for create / rename /
    delete (`CreateFile` always with `ignoreIfExists`, since some clients empty an existing
    file otherwise) and, when the client supports them, one change annotation per block; a
    file whose content a move or an `Add File` replaces (`overwrite_dest`) gets its own
    annotation, which always asks for confirmation. The plan gives each path one change at
    most, so the operations of different files never depend on each other's order; a
    moved file's text edit comes after its rename, under the new name.
    Without: a plain `changes` map; file operations it cannot express come back in
    `unsupported` so the caller can refuse or report them.
    """
    changes = tuple(files if files is not None else plan.files)
    by_index = {o.block.index: o for o in plan.outcomes}
    annotations: dict[str, types.ChangeAnnotation] = {}
    use_annotations = caps.change_annotations

    def annotate(blocks: Iterable[int]) -> None:
        for i in blocks:
            if i in by_index and annotation_id(i) not in annotations:
                annotations[annotation_id(i)] = _annotation(
                    by_index[i], confirm_fuzzy=confirm_fuzzy, preview=preview
                )

    doc_changes: list = []
    op_paths: list[str] = []

    def emit(path: str, operation: Any) -> None:
        doc_changes.append(operation)
        op_paths.append(path)

    plain: dict[str, list[types.TextEdit]] = {}
    unsupported: list[FileChange] = []
    count = 0

    def edits_for(change: FileChange, old: str, new: str) -> list:
        nonlocal count
        index = PositionIndex(old, caps.encoding)
        offsets = diff_offsets(old, new, index.lines)
        count += len(offsets)
        outcomes = [by_index[i] for i in change.blocks if i in by_index]
        core_line_of = LineMap(old, index.starts).core_line
        reach = _Reach(outcomes)
        replaced = replaced_annotation(change)
        line_break = buffer_line_break(caps.line_breaks, old, change.version is not None)
        out: list = []
        for e in offsets:
            rng = types.Range(start=index.position(e.start), end=index.position(e.end))
            if line_break is not None:
                e = e._replace(text=e.text.replace("\r\n", line_break))
            if replaced is not None:
                out.append(
                    types.AnnotatedTextEdit(annotation_id=replaced, range=rng, new_text=e.text)
                )
                continue
            if use_annotations and outcomes:
                owner = _owner((rng.start.line, rng.end.line), outcomes, core_line_of, reach)
                if owner is not None:
                    annotate([owner.block.index])
                    out.append(
                        types.AnnotatedTextEdit(
                            annotation_id=annotation_id(owner.block.index),
                            range=rng,
                            new_text=e.text,
                        )
                    )
                    continue
            out.append(types.TextEdit(range=rng, new_text=e.text))
        return out

    def replaced_annotation(change: FileChange) -> str | None:
        if not use_annotations or not change.overwrite_dest:
            return None
        key = overwrite_annotation_id(change.path)
        annotations.setdefault(key, _overwrite_annotation(change))
        return key

    def file_annotation(change: FileChange) -> str | None:
        if not use_annotations:
            return None
        replaced = replaced_annotation(change)
        if replaced is not None:
            return replaced
        owner = _weakest([by_index[i] for i in change.blocks if i in by_index])
        if owner is None:
            return None
        annotate([owner.block.index])
        return annotation_id(owner.block.index)

    for change in changes:
        uri = uri_for(change.path)
        old = change.old_text or ""
        new = change.new_text or ""
        if not caps.document_changes:
            if change.action is FileAction.MODIFY:
                plain.setdefault(uri, []).extend(
                    types.TextEdit(range=e.range, new_text=e.new_text)
                    for e in edits_for(change, old, new)
                )
            else:
                unsupported.append(change)
            continue

        operation = _RESOURCE_OPERATIONS.get(change.action)
        if operation is not None and (
            operation not in caps.resource_operations
            or (change.action is FileAction.RENAME and change.new_path is None)
        ):
            unsupported.append(change)
            continue
        if change.action is FileAction.MODIFY:
            emit(change.path, _doc_edit(uri, change.version, edits_for(change, old, new)))
        elif change.action is FileAction.CREATE:
            created = types.CreateFileOptions(ignore_if_exists=True)
            emit(
                change.path,
                types.CreateFile(uri=uri, options=created, annotation_id=file_annotation(change)),
            )
            if new != old:
                emit(change.path, _doc_edit(uri, change.version, edits_for(change, old, new)))
        elif change.action is FileAction.DELETE:
            deleted = types.DeleteFileOptions(ignore_if_not_exists=True)
            emit(
                change.path,
                types.DeleteFile(uri=uri, options=deleted, annotation_id=file_annotation(change)),
            )
        elif change.action is FileAction.RENAME and change.new_path is not None:
            # the rename first, then the edit under the new name: an editor that renames a
            # document saves its pending changes first (Neovim runs `:update!`), so an edit
            # sent before the rename would be written to disk unasked. The document under
            # its new name has a version the server cannot know yet (null); the one read
            # was checked right before sending (`guards.moved_documents`).
            emit(
                change.path,
                types.RenameFile(
                    old_uri=uri,
                    new_uri=uri_for(change.new_path),
                    options=types.RenameFileOptions(
                        overwrite=True if change.overwrite_dest else None,
                        ignore_if_exists=None if change.overwrite_dest else False,
                    ),
                    annotation_id=file_annotation(change),
                ),
            )
            if new != old:
                moved = uri_for(change.new_path)
                emit(change.path, _doc_edit(moved, None, edits_for(change, old, new)))

    if preview and use_annotations and not any(a.needs_confirmation for a in annotations.values()):
        _open_preview(doc_changes, annotations)
    sent = tuple(c for c in changes if c not in unsupported)
    if caps.document_changes:
        edit = types.WorkspaceEdit(
            document_changes=doc_changes,
            change_annotations=dict(annotations) if annotations else None,
        )
    else:
        edit = types.WorkspaceEdit(changes=plain)
    return BuiltEdit(
        edit=edit,
        text_edit_count=count,
        files=sent,
        unsupported=tuple(unsupported),
        needs_confirmation=any(a.needs_confirmation for a in annotations.values()),
        annotations=annotations,
        operations=tuple(op_paths),
    )


PREVIEW_ANNOTATION = "llm-patch/preview"


def _open_preview(doc_changes: list, annotations: dict[str, types.ChangeAnnotation]) -> None:
    """A preview the user asked for, of edits none of which must be looked at. An editor
    opens its preview only for an edit that needs confirmation, and starts exactly those
    unticked (VS Code's refactor preview): so one edit that changes nothing asks, and every
    real edit stays ticked — Apply applies what the preview shows. Without a text edit to
    sit beside (only file operations), there is nothing to attach it to: no preview."""
    doc = next((c for c in doc_changes if isinstance(c, types.TextDocumentEdit)), None)
    if doc is None:
        return
    annotations[PREVIEW_ANNOTATION] = types.ChangeAnnotation(
        label="LLM patch preview: the changes above are ticked; this entry changes nothing",
        needs_confirmation=True,
    )
    start = types.Position(line=0, character=0)
    doc.edits.insert(
        0,
        types.AnnotatedTextEdit(
            annotation_id=PREVIEW_ANNOTATION,
            range=types.Range(start=start, end=start),
            new_text="",
        ),
    )


def _doc_edit(uri: str, version: int | None, edits: list) -> types.TextDocumentEdit:
    return types.TextDocumentEdit(
        text_document=types.OptionalVersionedTextDocumentIdentifier(uri=uri, version=version),
        edits=edits,
    )
