"""Blocks + snapshots → Plan: every block placed (or refused) and the net change per file.

Blocks apply in reply order, each to the text the earlier ones produced, so a reply that
edits a file twice, or creates a file and then edits it, works as written. Moves carry text
from path to path, and the plan's file changes are each path's net change (see `net_changes`),
so the writer and an editor end with what applying the blocks one by one gives. By default
the plan is all-or-nothing: one failed block and no file changes at all (the placed blocks
are reported as skipped). Pure: snapshots come from a `SnapshotSource`, nothing is written.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import NamedTuple

from lsp_server.lines import split_lines, to_lf
from lsp_server.model import (
    DEFAULT_FUZZY_THRESHOLD,
    Action,
    BlockOutcome,
    Cancelled,
    EditBlock,
    ErrorCode,
    Failure,
    Format,
    MatchKind,
    OnExists,
    ParsedReply,
    Placement,
    PlacementError,
    Plan,
    PlanWarning,
    Status,
    Target,
    WarningType,
)
from lsp_server.plan_patch import PatchReads
from lsp_server.plan_state import FileState, PlanState, missing, net_changes
from lsp_server.plan_verdicts import Verdict, contradicted, evidence
from lsp_server.plan_warnings import set_aside_code_samples, warnings_for
from lsp_server.resolve.hunks import HunksResult, apply_hunks, rebuild
from lsp_server.workspace import SnapshotSource

MAX_BLOCK_BYTES = 1_000_000
ORDERED_FORMATS = {Format.UNIFIED_DIFF, Format.APPLY_PATCH, Format.OPENAI_PATCH}
# old text may be part of a line
INLINE_FORMATS = {
    Format.PATCH_TOOL,
    Format.TEXT_EDITOR,
    Format.CLAUDE_CODE,
    Format.GEMINI,
    Format.OPENHANDS,
}


class PlanOptions(NamedTuple):  # not a dataclass: see journal.Entry
    """How a plan is made: all or nothing, how close a fuzzy match must be, and more."""

    atomic: bool = True
    fuzzy_threshold: float = DEFAULT_FUZZY_THRESHOLD
    check_syntax: bool = True  # warn (SYNTAX_BROKEN) when an edit adds tree-sitter errors
    # globs no block may write, on top of the version-control folders that are always
    # protected (`--protect`, `llmPatch.protectedPaths`; see workspace.refuse_protected)
    protected: tuple[str, ...] = ()
    # the workspace-relative file a block that names no path applies to (a chat window's
    # code snippet): the CLI's `--file`, the LSP commands' `target`, the editor's buffer
    target: str | None = None
    # the reading of a block without markers the user chose (resolve.merge.readings):
    # `--as whole|fragment`, `--keep-rest|--drop-rest`, an editor's code action
    read_as: str | None = None
    rest: str | None = None


DEFAULT_OPTIONS = PlanOptions()


def _check_size(block: EditBlock) -> None:
    size = len(block.content or "") + sum(len(h.old) + len(h.new) for h in block.hunks)
    if size > MAX_BLOCK_BYTES:
        raise PlacementError.of(
            ErrorCode.CONTENT_TOO_LARGE,
            f"the block carries {size:,} characters; the limit is {MAX_BLOCK_BYTES:,}. "
            "Split it into smaller edits.",
            chars=size,
            limit=MAX_BLOCK_BYTES,
        )


def _check_unicode(block: EditBlock) -> None:
    """A lone surrogate (a JSON `"\\ud800"` escape) has no UTF-8 form: writing it would crash
    or put U+FFFD in the file. Refuse the block and say where."""
    texts = [block.content or ""] + [t for h in block.hunks for t in (h.old, h.new)]
    for text in texts:
        if text.isascii():
            continue
        try:
            text.encode("utf-8")
        except UnicodeEncodeError as err:
            line = text.count("\n", 0, err.start) + 1
            raise PlacementError.of(
                ErrorCode.MALFORMED_BLOCK,
                f"the block's text is not valid Unicode: a lone surrogate "
                f"U+{ord(text[err.start]):04X} on its line {line}",
                line=line,
            ) from None


def _to_file_endings(new: str, like: str | None) -> str:
    """Give model text ("\\n") the endings of the file it replaces (CRLF stays CRLF)."""
    if like is None:
        return new
    lines = split_lines(like)
    if lines and sum(x.endswith("\r\n") for x in lines) * 2 > len(lines):
        return new.replace("\r\n", "\n").replace("\n", "\r\n")
    return new


# A whole-file block for a new path whose lines are at least this share of an existing
# file's of the same name meant that file.
MISPLACED_SHARE = 0.5


def _refuse_misplaced(state: PlanState, key: str, content: str) -> None:
    """A whole-file block naming a path that does not exist, whose text is mostly that of a
    file with the same name elsewhere in the workspace (`path/to/sample.txt` for
    `sample.txt`), meant that file: a copy created beside it would be a guess, so it is
    refused, naming the file. A new file sharing little with any other is created."""
    find = getattr(state.source, "files_named", None)
    ours = {line.strip() for line in content.splitlines() if line.strip()}
    if find is None or not ours:
        return
    for other in find(key.rsplit("/", 1)[-1]):
        if other == key:
            continue
        text = state.look(other)[2].text or ""
        theirs = {line.strip() for line in text.splitlines() if line.strip()}
        if len(ours & theirs) >= MISPLACED_SHARE * len(ours):
            raise PlacementError.of(
                ErrorCode.FILE_NOT_FOUND,
                f"{key} does not exist, and the block's text is mostly that of {other}: "
                f"did you mean {other}? Name that file to edit it (a new file was not "
                "created)",
                path=key,
                did_you_mean=other,
            )


def _resolve_block(state: PlanState, block: EditBlock, options: PlanOptions) -> BlockOutcome:
    if block.error is not None:
        raise PlacementError(block.error)
    if block.action is Action.SNIPPET and not block.path:
        block = dataclasses.replace(block, path=_snippet_file(state, block, options))
    elif block.hunks and not block.path:
        block = dataclasses.replace(block, path=_diff_file(state, block, options))
    if not block.path:
        raise PlacementError.of(ErrorCode.MALFORMED_BLOCK, "the block names no file")
    _check_size(block)
    _check_unicode(block)
    action = block.action
    reads = action is Action.STRUCTURAL and (block.target or Target()).operation == "read_structure"
    key, f = state.get(block.path) if reads else state.writable(block.path)
    if action is Action.DELETE:
        state.refuse_link(block.path, "delete")
        if f.text is None:
            elsewhere = _same_name_elsewhere(state, key) if f.snap.text is None else []
            if f.snap.text is None and not f.snap.is_dir and not elsewhere:
                # not there before the reply: what the delete asks for holds already
                return BlockOutcome(block, Status.VALIDATED, MatchKind.DELETE, already_applied=True)
            if f.snap.text is None and len(elsewhere) == 1:
                raise PlacementError.of(
                    ErrorCode.FILE_NOT_FOUND,
                    f"{key} does not exist; nothing to delete: did you mean {elsewhere[0]}?",
                    path=key,
                    did_you_mean=elsewhere[0],
                )
            raise missing(key, "nothing to delete", f.snap)
        f.text = None
        f.blocks.append(block.index)
        return BlockOutcome(block, Status.VALIDATED, MatchKind.DELETE)

    if action in (Action.SNIPPET, Action.LAZY) and f.text is not None:
        return _merge_block(block, key, f, options)
    if action is Action.SNIPPET:
        raise missing(key, "a code snippet is placed into an existing file", f.snap)

    if action in (Action.CREATE, Action.OVERWRITE) or (action is Action.LAZY and f.text is None):
        if f.snap.is_dir and f.text is None:
            raise missing(key, "cannot write a file over a directory", f.snap)
        # whole-file blocks only: a reply of SEARCH/REPLACE edits never loads the merge
        from lsp_server.resolve import placeholders

        if action is Action.LAZY and placeholders.has_placeholder(block.content or "", key):
            raise missing(
                key,
                "the block leaves code out with `... existing code ...` "
                "lines, so it can only be merged into an existing file",
            )
        existed = f.text is not None
        if not existed or action is Action.CREATE:
            state.refuse_lookalike(block.path)
        if action is Action.LAZY and not existed:
            _refuse_misplaced(state, key, block.content or "")
        if action is Action.CREATE and existed and f.text and block.on_exists is OnExists.APPEND:
            return _append(state, key, f, block)
        if (
            action is Action.CREATE
            and existed
            and f.text == _to_file_endings(block.content or "", f.text)
        ):
            # the file holds what the block creates (the reply applied before): overwriting
            # or refusing, there is nothing to do (an append is not: it adds the text again)
            f.blocks.append(block.index)
            return BlockOutcome(block, Status.VALIDATED, MatchKind.CREATE, already_applied=True)
        if action is Action.CREATE and existed and f.text and block.on_exists is OnExists.ERROR:
            raise PlacementError.of(
                ErrorCode.FILE_EXISTS,
                f"{key} already exists and is not empty; an empty SEARCH/EDIT section "
                "creates a new file — quote the text to replace instead",
                path=key,
            )
        new = block.content or ""
        before = f.text
        if existed and f.text:
            f.text = rebuild(f.text, new)
        else:
            f.text, f.cr = new, False
            f.origin = f.origin if existed else None
        if action is Action.CREATE and before and f.text != before and f.origin is not None:
            # V4A `Add File` / text-editor `create` over a file that was there
            state.warnings.append(
                PlanWarning(
                    WarningType.OVERWRITES_FILE,
                    f"block {block.index} creates {key}, which already exists: its old "
                    "content is replaced (the diff shows what goes)",
                    key,
                    block.index,
                )
            )
            f.replaced = True
        f.blocks.append(block.index)
        kind = MatchKind.OVERWRITE if existed else MatchKind.CREATE
        n = len(split_lines(f.text))
        return BlockOutcome(
            block, Status.VALIDATED, kind, placements=(Placement(0, n, kind, 1.0, n),)
        )

    if f.text is None and block.move_to and _moved_already(state, key, f, block, options):
        return BlockOutcome(block, Status.VALIDATED, MatchKind.RENAME, already_applied=True)
    if f.text is None:
        raise missing(
            key,
            "it must exist to be edited (create it with an empty SEARCH, "
            "`*** Add File:` or a diff from /dev/null)",
            f.snap,
        )

    if action is Action.STRUCTURAL:
        # tree-sitter loads with it: only for the first reply that needs it
        from lsp_server.resolve import structure

        old_lf = to_lf(f.text)
        target = block.target or Target()
        if target.operation == "read_structure":
            found = structure.read_structure(old_lf, key, target, block.language)
            return BlockOutcome(
                block, Status.VALIDATED, MatchKind.STRUCTURAL, result={"matches": found}
            )
        if target.operation.startswith("move_structure_to_"):
            dest, levels = structure.move_destination(target)
            if dest is not None and state.look(dest)[0] != key:
                return _move_across_files(state, block, key, f, old_lf, target, dest, levels)
        edit = structure.apply_structure(old_lf, key, target, block.content, block.language)
        f.text = rebuild(f.text, edit.text)
        f.blocks.append(block.index)
        for w in structure.structural_warnings(
            old_lf, edit.text, key, edit.placement, block.language
        ):
            state.warnings.append(dataclasses.replace(w, block=block.index))
        return BlockOutcome(
            block,
            Status.VALIDATED,
            MatchKind.STRUCTURAL,
            placements=(edit.placement,),
            result=edit.result,
        )

    result = _apply_block_hunks(f.text, f.base, block, options, state.clipboards)
    f.text = result.text
    f.blocks.append(block.index)
    kind = result.match
    if block.move_to:
        moved = _move(state, key, f, block, block.move_to)
        kind = kind if block.hunks else moved
    return BlockOutcome(
        block,
        Status.VALIDATED,
        kind,
        placements=result.placements,
        already_applied=result.already_applied,
        score=result.score if kind is MatchKind.FUZZY else None,
    )


def _apply_block_hunks(
    text: str,
    base: str | None,
    block: EditBlock,
    options: PlanOptions,
    clipboards: dict[str, str],
) -> HunksResult:
    """`apply_hunks` with what the block's format and the options say about its hunks."""
    return apply_hunks(
        text,
        block.hunks,
        ordered=block.format in ORDERED_FORMATS,
        simultaneous=block.simultaneous,
        fuzzy_threshold=options.fuzzy_threshold,
        clipboards=clipboards,
        inline=block.format in INLINE_FORMATS,
        eol_from=base,
    )


def _snippet_file(state: PlanState, block: EditBlock, options: PlanOptions) -> str:
    """The file a snippet that names none applies to (see resolve.snippet_files)."""
    from lsp_server.resolve.merge import files as snippet_files

    def text_of(path: str) -> str | None:
        try:
            key, _, snap = state.look(path)
        except PlacementError:
            return None  # outside the workspace, unreadable: not a file it can mean
        f = state.files.get(key)
        return f.text if f is not None else snap.text

    listing = getattr(state.source, "files_ending", None)
    return snippet_files.choose(block, options.target, text_of, listing)


def _diff_file(state: PlanState, block: EditBlock, options: PlanOptions) -> str:
    """The file a diff without a header (or a SEARCH/REPLACE block without a path) applies
    to: the caller's target, else the one file the prose names that holds the old text of
    every hunk. Two such, or none: refused, naming them (`--file` chooses)."""
    if options.target:
        return options.target
    holding: list[str] = []
    applied: list[str] = []  # named files holding every hunk's new side instead
    for path in block.candidates:
        try:
            key, _, snap = state.look(path)
        except PlacementError:
            continue
        f = state.files.get(key)
        text = to_lf((f.text if f is not None else snap.text) or "")
        if text and all(h.old in text for h in block.hunks) and key not in holding:
            holding.append(key)
        # a reply applied before: its old lines are gone, its new ones stand (blank lines
        # stand anywhere, so they prove nothing); the hunks then say whether it is applied
        elif text and all(h.new.strip() and h.new in text for h in block.hunks):
            if key not in applied:
                applied.append(key)
    if len(holding) == 1:
        return holding[0]
    if not holding and len(applied) == 1:
        return applied[0]
    named = ", ".join(block.candidates) or "none"
    why = (
        f"several of the files it names hold its old lines ({', '.join(holding)})"
        if holding
        else f"no file its prose names holds its old lines (named: {named})"
    )
    unnamed = (
        "the diff has no ---/+++ header naming its file"
        if block.format is Format.UNIFIED_DIFF
        else "the block names no file"
    )
    raise PlacementError.of(
        ErrorCode.TARGET_NOT_FOUND,
        f"{unnamed}, and {why}; name the file above the fence, or give it (`--file PATH`, "
        "or the editor's target)",
        candidates=list(holding or block.candidates),
    )


def _merge_block(block: EditBlock, key: str, f: FileState, options: PlanOptions) -> BlockOutcome:
    """A block without markers for an existing file: the merge room places it by the
    reading the evidence settles or the user chose, or refuses naming the readings."""
    from lsp_server.resolve.merge import place  # tree-sitter: only when a reply needs it

    old_lf = to_lf(f.text or "")
    try:
        merged = place.place(
            old_lf,
            key,
            block.content or "",
            block.language,
            place.Choice(options.read_as, options.rest),
            options.fuzzy_threshold,
        )
    except PlacementError as err:
        if block.format is not Format.SNIPPET:
            raise
        # the file was chosen for the block, which names none: say which one
        failure = err.failure
        raise PlacementError.of(
            failure.code, f"{key}: {failure.message}", **{"path": key, **failure.details}
        ) from None
    already = merged.text == old_lf
    whole = merged.reading == "whole"
    f.text = f.text if already else rebuild(f.text, _own_ending(f.text, merged.text, whole))
    f.blocks.append(block.index)
    return BlockOutcome(
        block,
        Status.VALIDATED,
        merged.match,
        placements=merged.placements,
        already_applied=already,
    )


def _own_ending(text: str | None, new_lf: str, whole: bool) -> str:
    """The merged text ending as the file does: a file whose last line has no newline
    keeps it so when the block is merged into it (a fence always ends its last line, so a
    reply cannot ask for one); a block read as the whole file is written as it is."""
    if whole or not text or text.endswith(("\n", "\r")):
        return new_lf
    return new_lf[:-1] if new_lf.endswith("\n") else new_lf


def _append(state: PlanState, key: str, f: FileState, block: EditBlock) -> BlockOutcome:
    """aider's reading of an empty SEARCH on a file that exists: the REPLACE text goes at
    the end of the file, and the report says so. A file that already ends with that text
    has it: applied before (a second apply adds nothing)."""
    add = block.content or ""
    base = to_lf(f.text or "")
    n_old = len(split_lines(base))
    if add.strip() and base.endswith(add):
        f.blocks.append(block.index)
        return BlockOutcome(block, Status.VALIDATED, MatchKind.EXACT, already_applied=True)
    new = base + ("" if not base or base.endswith("\n") else "\n") + add
    f.text = rebuild(f.text or "", new)
    f.blocks.append(block.index)
    state.warnings.append(
        PlanWarning(
            WarningType.APPENDED,
            f"block {block.index}: its SEARCH section is empty and {key} exists, so its "
            "REPLACE text was added at the end of the file, as aider does (quote the lines "
            "to replace to put it elsewhere)",
            key,
            block.index,
        )
    )
    n = len(split_lines(new))
    return BlockOutcome(
        block,
        Status.VALIDATED,
        MatchKind.EXACT,
        placements=(Placement(n_old, n_old, MatchKind.EXACT, 1.0, n),),
    )


def _same_name_elsewhere(state: PlanState, key: str) -> list[str]:
    """Files named like `key` elsewhere in the workspace. A delete of a path that does not
    exist finds what it asks for (applied before), unless one of these exists: then the
    path is more likely a wrong guess at it, and FILE_NOT_FOUND says so."""
    find = getattr(state.source, "files_named", None)
    found = find(key.rsplit("/", 1)[-1]) if find is not None else []
    return [other for other in found if other != key]


def _moved_already(
    state: PlanState, key: str, f: FileState, block: EditBlock, options: PlanOptions
) -> bool:
    """An update-and-move whose source is gone and whose destination already holds the
    block's change (every hunk already applied there, or no hunks): applied before."""
    if f.snap.text is not None or block.move_to is None:
        return False
    _, d = state.get(block.move_to)
    if d.text is None:
        return False
    if not block.hunks:
        return True
    try:
        # a copy of the clipboards: this is a look, not a placement
        result = _apply_block_hunks(d.text, d.base, block, options, dict(state.clipboards))
    except PlacementError:
        return False
    # (hunks that change nothing — context only — are there when their text is)
    return result.already_applied or result.text == d.text


_MOVE_WHERE = {
    "move_structure_to_before": "before",
    "move_structure_to_after": "after",
    "move_structure_to_file_start": "start",
    "move_structure_to_file_end": "end",
}


def _move_across_files(
    state: PlanState,
    block: EditBlock,
    key: str,
    f: FileState,
    old_lf: str,
    target: Target,
    dest: str,
    levels: list[str],
) -> BlockOutcome:
    """A structure moved into another file: cut here, insert there, both in this plan."""
    from lsp_server.resolve import structure  # tree-sitter: see _resolve_block

    where = _MOVE_WHERE.get(target.operation)
    if where is None:
        raise PlacementError.of(
            ErrorCode.MALFORMED_BLOCK, f"unknown operation {target.operation!r}"
        )
    dkey, d = state.writable(dest)
    if d.text is None:
        raise missing(dkey, "the destination of a move must exist", d.snap)
    cut_text, code, src_lines = structure.remove_structure(old_lf, key, target, block.language)
    d_lf = to_lf(d.text)
    new_dest, dest_lines = structure.insert_code(
        d_lf, dkey, code, where, levels or None, block.language
    )
    f.text = rebuild(f.text, cut_text)
    d.text = rebuild(d.text, new_dest)
    f.blocks.append(block.index)
    d.blocks.append(block.index)
    start, end = src_lines[0] - 1, src_lines[1]
    return BlockOutcome(
        block,
        Status.VALIDATED,
        MatchKind.STRUCTURAL,
        placements=(Placement(start, end, MatchKind.STRUCTURAL, 1.0, start),),
        result={
            "source_original_line_range": src_lines,
            "destination_final_line_range": dest_lines,
            "destination_path": dkey,
        },
    )


def _move(state: PlanState, key: str, f: FileState, block: EditBlock, dest: str) -> MatchKind:
    """`*** Move to:` / `rename to`: the text (with its origin) leaves `key` for `dest`. A
    destination that holds a file is replaced, as Codex and git do, with a warning."""
    state.refuse_link(block.path or key, "move")
    dkey, d = state.writable(dest)
    if dkey == key:
        return MatchKind.RENAME
    if d.snap.is_dir and d.text is None:
        raise missing(dkey, "cannot move a file onto a directory", d.snap)
    state.refuse_lookalike(dest)
    if d.text and d.origin is not None and d.text != f.text:
        state.warnings.append(
            PlanWarning(
                WarningType.OVERWRITES_FILE,
                f"block {block.index} moves {key} onto {dkey}, which already exists: "
                f"{dkey}'s old content is replaced (the diff shows what goes)",
                dkey,
                block.index,
            )
        )
        d.replaced = True
    d.text, d.origin, d.cr = f.text, f.origin, f.cr
    d.blocks.extend(f.blocks + [block.index])
    f.text = None
    return MatchKind.RENAME


def _with_context(block: EditBlock, failure: Failure) -> Failure:
    lo, hi = block.reply_lines
    where = f"block {block.index} (reply lines {lo}-{hi})"
    path = f", {block.path}" if block.path else ""
    details = dict(failure.details)
    details.setdefault("block", block.index)
    details.setdefault("reply_lines", block.reply_lines)  # the block's own pair, not a copy
    if block.path:
        details.setdefault("path", block.path)
    return Failure(failure.code, f"{where}{path}: {failure.message}", details)


# The file lines the loose blocks of one reply (those that failed, placed only
# approximately, or were found already applied) may be searched for in; each counts the
# lines of its file. Such a block went down the whole ladder and scored windows all over
# its file, the most costly path there is (an already applied one first failed to find
# its old text), and a placed one leaves a new version of the file to index for the next
# block: a reply of thousands of near-miss blocks (written for another version of the
# file, or garbage) would take minutes. Past this, the rest of the reply is refused
# untried, saying why.
LOOSE_WORK_LINES = 2_000_000
# A loose block costs more than its file's lines: it is read (a whole-file block parsed with
# its file's grammar, a hunk's text indexed), it goes down the ladder, it is reported. Each
# counts at least this many lines, so a reply of tens of thousands of small loose blocks (a
# megabyte of whole-file blocks for a one-line file, of hunks for a missing file) stops at
# the same budget as one of large files: a line searched costs about 0.2 µs, a small loose
# block 15 to 300 µs, so 2,000 of them at most, whatever their files' size.
LOOSE_BLOCK_LINES = 1_000


def _lines_tried(state: PlanState, block: EditBlock) -> int:
    """The lines of the file a block was tried on (1 when it never got to a file). The
    file as read: a failed block's own changes to the plan's state were rolled back."""
    found = state.named.get(block.path or "")
    f = state.files.get(found[0]) if found is not None else None
    text = f.text if f is not None else found[2].text if found is not None else None
    return 1 + (text.count("\n") if text is not None else 0)


def _not_tried(loose: int, spent: int) -> Failure:
    return PlacementError.of(
        ErrorCode.CONTENT_TOO_LARGE,
        f"not tried: {loose:,} earlier blocks of this reply failed, matched only "
        f"approximately or were already applied, searched for in {spent:,} file lines in "
        f"all (the limit for one reply is {LOOSE_WORK_LINES:,}); fix those blocks, then "
        "apply the reply again",
        not_tried=True,
        loose_blocks=loose,
        loose_lines=spent,
        limit=LOOSE_WORK_LINES,
    ).failure


def plan_reply(
    reply: ParsedReply,
    source: SnapshotSource,
    options: PlanOptions = DEFAULT_OPTIONS,
    cancelled: Callable[[], bool] | None = None,
) -> Plan:
    if reply.failure is not None:
        return Plan((), (), failure=reply.failure)
    state = PlanState(source, options.protected)
    outcomes: list[BlockOutcome] = []
    loose = spent = 0  # loose blocks so far (see LOOSE_WORK_LINES), and their files' lines
    patch = PatchReads()  # a git patch's sections read their files at once
    untried: Failure | None = None  # why the blocks past LOOSE_WORK_LINES are not tried
    verdicts: list[Verdict] = []  # what each already-applied verdict rested on
    for block in reply.blocks:
        if cancelled is not None and cancelled():
            raise Cancelled()
        if spent > LOOSE_WORK_LINES:
            # the same for every block from here on: made once
            err = untried = untried or _not_tried(loose, spent)
            outcomes.append(BlockOutcome(block, Status.FAILED, failure=_with_context(block, err)))
            continue
        cp = state.checkpoint()
        try:
            outcomes.append(
                patch.resolve(state, block, lambda b: _resolve_block(state, b, options))
            )
        except PlacementError as err:
            state.restore(cp)
            outcomes.append(
                BlockOutcome(block, Status.FAILED, failure=_with_context(block, err.failure))
            )
        done = outcomes[-1]
        if done.already_applied and block.hunks:
            v = evidence(state, block, len(outcomes) - 1)
            verdicts += [v] if v is not None else []
        if not done.placed or done.match is MatchKind.FUZZY or done.already_applied:
            loose += 1
            spent += max(_lines_tried(state, block), LOOSE_BLOCK_LINES)
    if verdicts:
        by_index = {b.index: b for b in reply.blocks}
        for at, failure in contradicted(state, by_index, verdicts).items():
            block = outcomes[at].block
            outcomes[at] = BlockOutcome(block, Status.FAILED, failure=_with_context(block, failure))
    outcomes, samples = set_aside_code_samples(outcomes, options.target)
    ok = all(o.placed for o in outcomes)
    warnings = warnings_for(state, outcomes, options.check_syntax) + samples
    if not ok and options.atomic:
        outcomes = [
            o if not o.placed else dataclasses.replace(o, status=Status.SKIPPED) for o in outcomes
        ]
        return Plan(tuple(outcomes), (), tuple(warnings))
    return Plan(tuple(outcomes), tuple(net_changes(state)), tuple(warnings))


# The least similarity at which a failed block's closest region is worth a second try.
RETRY_FLOOR = 0.5


def fuzzy_retries(
    plan: Plan,
    source: SnapshotSource,
    options: PlanOptions,
    cancelled: Callable[[], bool] | None = None,
) -> dict[int, float]:
    """The failed blocks a looser fuzzy threshold would place: block index → that threshold.

    A block whose closest region is at least `RETRY_FLOOR` similar (but under the threshold
    it was planned with) is planned again, alone, with the threshold just under its
    similarity; only those that then place are returned. An editor offers "apply at the
    closest match" for exactly these, so the offer never fails when taken.
    """
    out: dict[int, float] = {}
    for outcome in plan.outcomes:
        failure = outcome.failure
        if failure is None or failure.code is not ErrorCode.TEXT_NOT_FOUND:
            continue
        closest = failure.details.get("closest")
        sim = closest.get("similarity") if isinstance(closest, dict) else None
        if not isinstance(sim, int | float) or not RETRY_FLOOR <= sim < options.fuzzy_threshold:
            continue
        threshold = max(RETRY_FLOOR, float(sim) - 0.001)
        looser = options._replace(atomic=False, fuzzy_threshold=threshold)
        try:
            again = plan_reply(ParsedReply((outcome.block,)), source, looser, cancelled)
        except Cancelled:
            break
        if again.outcomes and again.outcomes[0].placed:
            out[outcome.block.index] = threshold
    return out
