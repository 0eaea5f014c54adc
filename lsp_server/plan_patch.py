"""A git patch's sections read at once, as `git apply` reads them.

The plan applies blocks one after another, each to what the blocks before it left: that is
what a reply of separate blocks means. The sections of one git patch mean something else:
git reads every section's old file as it was before the patch, then writes. The two agree
unless a section reads a path another section of the same patch wrote: `rename a.py → b.py`
then `rename b.py → a.py` is a swap to git, and one after the other it would move `a.py`'s
text over `b.py`'s and back, losing `b.py`.

So a section that reads (modifies, renames or deletes) a path an earlier section of its
patch wrote reads that path as it was before the patch, and the earlier section's text
stays there once the path's old text has been carried away. A path that did not exist
before the patch has only one reading: what the earlier section left there. Where git
would refuse the patch too — a path one section writes and another patches in place, or
two sections that write one path — the later section is refused, saying why: content is
never lost.

A copy (`copy from`/`copy to`) reads its source the same way, as it was before the patch,
and is a create of its destination: its text is the source's with the section's hunks
applied (placed by the plan's own resolver on a scratch copy of the source, which stays
as it is). A destination holding another text is refused, as any create is.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass, field

from lsp_server.model import (
    Action,
    BlockOutcome,
    EditBlock,
    ErrorCode,
    HunkKind,
    MatchKind,
    OnExists,
    PlacementError,
    Status,
    WarningType,
)
from lsp_server.plan_state import FileState, PlanState, missing
from lsp_server.workspace import protected_reason


def _copy(f: FileState) -> FileState:
    return dataclasses.replace(f, blocks=list(f.blocks))


def _conflict(block: EditBlock, path: str, other: int, what: str) -> PlacementError:
    return PlacementError.of(
        ErrorCode.MALFORMED_BLOCK,
        f"this section of a git patch {what} {path}, which block {other} of the same patch "
        "already writes; git reads every section's file as it was before the patch, so the "
        "two cannot both hold (git apply refuses this patch too): split the patch, or fix "
        "its paths",
        path=path,
        other_block=other,
    )


@dataclass
class PatchReads:
    """The git patch being planned: each path its sections touched, as it was before the
    patch, and which section wrote it."""

    patch: int | None = None
    before: dict[str, FileState] = field(default_factory=dict)
    wrote: dict[str, int] = field(default_factory=dict)  # key → the block that wrote it
    blocks: set[int] = field(default_factory=set)  # the patch's blocks placed so far
    # key → the patch's in-place edits of it found already made, in order (see `_sources`)
    undone: dict[str, list[EditBlock]] = field(default_factory=dict)

    def resolve(
        self, state: PlanState, block: EditBlock, resolve: Callable[[EditBlock], BlockOutcome]
    ) -> BlockOutcome:
        """`resolve(block)`, reading as its patch reads. Call inside the plan's
        checkpoint: a refusal here leaves the restoring to it."""
        copying = block.action is Action.COPY and block.error is None
        if (block.patch is None and not copying) or not block.path:
            self.patch = None
            return resolve(block)
        if block.patch != self.patch or block.patch is None:
            self.patch, self.before, self.wrote, self.blocks = block.patch, {}, {}, set()
            self.undone = {}
        key = state.look(block.path)[0]
        dest = state.look(block.move_to)[0] if block.move_to else None
        for k, name in ((key, block.path), (dest, block.move_to)):
            if k is not None and k not in self.before:
                self.before[k] = _copy(state.get(name or k)[1])
        if dest is not None and dest != key and dest in self.wrote:
            if state.files[dest].text is not None:
                what = "copies a file onto" if copying else "moves a file onto"
                raise _conflict(block, dest, self.wrote[dest], what)
        if copying:
            assert dest is not None and block.move_to is not None
            state.get(block.path)  # both in the plan's files (a refused block took them out)
            state.get(block.move_to)
            sources = self._sources(state, key, resolve)
            outcome = copy_file(state, block, key, dest, sources, resolve)
            self.wrote.setdefault(dest, block.index)  # the source is only read
            self.blocks.add(block.index)
            return outcome
        stash = None
        # a path that did not exist before the patch can only be read as an earlier section
        # left it (`a → t`, `b → a`, `t → b`: a swap through a third name): one reading
        if key in self.wrote and self.before[key].text is not None:
            if block.action is Action.CREATE:
                if state.files[key].text is not None:
                    raise _conflict(block, key, self.wrote[key], "creates")
            else:
                stash = state.files[key]
                state.files[key] = _copy(self.before[key])
        outcome = resolve(block)
        if stash is not None:
            if state.files[key].text is not None:
                raise _conflict(block, key, self.wrote[key], "patches")
            # the path's old text left with this section: the earlier section's text stays,
            # and what that section replaced was not lost
            stash.blocks.append(block.index)
            stash.replaced = False
            state.files[key] = stash
            state.warnings[:] = [
                w
                for w in state.warnings
                if not (
                    w.type is WarningType.OVERWRITES_FILE
                    and w.path == key
                    and w.block in self.blocks
                )
            ]
        for k in (key, dest):
            if k is not None:
                self.wrote.setdefault(k, block.index)
        self.blocks.add(block.index)
        if (
            outcome.already_applied
            and block.action is Action.MODIFY
            and block.hunks
            and (dest is None or dest == key)
        ):
            # a second run: this section's change is in the file already, so the path's
            # text before the patch is this one with the change taken out (see `_sources`)
            self.undone.setdefault(key, []).append(block)
        return outcome

    def _sources(
        self, state: PlanState, key: str, resolve: Callable[[EditBlock], BlockOutcome]
    ) -> list[FileState]:
        """The readings of `key` as it was before the patch, for a copy: what the path held
        when the patch first touched it (a path that did not exist then: what an earlier
        section left there); and, where earlier sections of the patch found their change
        to it already made (the patch applied before), that text with those changes taken
        out — the copy then finds its destination as it made it."""
        first = self.before.get(key)
        now = first if first is not None and first.text is not None else state.files[key]
        out = [now]
        done = self.undone.get(key, [])
        if any(not h.new for b in done for h in b.hunks):
            return out  # a removal's way back has no anchor: no second reading
        if done and now.text is not None:
            back = [
                dataclasses.replace(
                    b,
                    hunks=tuple(
                        dataclasses.replace(h, old=h.new, new=h.old, kind=HunkKind.REPLACE)
                        for h in reversed(b.hunks)
                    ),
                )
                for b in reversed(done)
            ]
            try:
                out.append(_derive(state, key, now, back, resolve))
            except PlacementError:
                pass  # the changes do not come out cleanly: no second reading
        return out


# --- git `copy from` / `copy to` ------------------------------------------------------------


def _derive(
    state: PlanState,
    key: str,
    start: FileState,
    blocks: list[EditBlock],
    resolve: Callable[[EditBlock], BlockOutcome],
) -> FileState:
    """`start` with each block's hunks applied in turn, as they would be at `key` — placed
    by the plan's own resolver on a scratch copy of the path, which is then put back as it
    was (its warnings too): nothing of it stays in the plan."""
    stash = state.files[key]
    n = len(state.warnings)
    state.files[key] = _copy(start)
    try:
        for b in blocks:
            if b.hunks:
                resolve(dataclasses.replace(b, action=Action.MODIFY, move_to=None, patch=None))
        return state.files[key]
    finally:
        state.files[key] = stash
        del state.warnings[n:]


def copy_file(
    state: PlanState,
    block: EditBlock,
    key: str,
    dest: str,
    sources: list[FileState],
    resolve: Callable[[EditBlock], BlockOutcome],
) -> BlockOutcome:
    """git's `copy from`/`copy to`: the destination is created holding the source's text
    as it was before the patch, with the section's hunks applied; the source stays as it
    is. A create: a destination that holds another text is refused (as `git apply`
    does), one that already holds the copy is the patch applied before."""
    assert block.move_to is not None
    if dest == key:
        raise PlacementError.of(
            ErrorCode.MALFORMED_BLOCK,
            f"the git copy copies {key} onto itself",
            path=key,
        )
    state.refuse_link(block.path or key, "copy")
    _, rel, _ = state.look(block.path or key)
    for name in dict.fromkeys((rel, key)):
        # a protected file's text is not carried out of it into one that is not (a token in
        # `.git/config`, a key under a `--protect`ed folder)
        reason = protected_reason(name, state.protected)
        if reason is not None:
            raise PlacementError.of(
                ErrorCode.PROTECTED_PATH,
                f"refusing to copy {name} to {dest}: {name} is protected, and its text is not "
                f"copied out of it ({reason.message})",
                path=name,
            )
    source = sources[0]
    modify = dataclasses.replace(block, action=Action.MODIFY, move_to=None, patch=None)
    if source.text is None:
        d = state.files[dest]
        if (
            source.snap.text is None
            and d.text is not None
            and _holds(state, key, d, modify, resolve)
        ):
            # the source is gone (the same patch deleted or moved it) and the copy is there,
            # with its hunks' change: applied before — the rule a rename follows
            d.blocks.append(block.index)
            return BlockOutcome(block, Status.VALIDATED, MatchKind.CREATE, already_applied=True)
        raise missing(key, "a git copy's source must exist", source.snap)
    placed: BlockOutcome | None = None
    made: FileState | None = source
    failed: PlacementError | None = None
    if block.hunks:
        # the hunks' outcome (how each matched) is the copy's
        stash = state.files[key]
        n = len(state.warnings)
        state.files[key] = _copy(source)
        try:
            placed = resolve(modify)
            made = state.files[key]
        except PlacementError as err:
            made, failed = None, err
        finally:
            state.files[key] = stash
            del state.warnings[n:]
    d = state.files[dest]
    if d.text and (made is None or d.text != made.text):
        # another reading of the source (the patch applied before): the destination may
        # hold what the copy made from it
        for other in sources[1:]:
            try:
                again = _derive(state, key, other, [modify], resolve)
            except PlacementError:
                continue
            if again.text == d.text:
                d.blocks.append(block.index)
                return BlockOutcome(block, Status.VALIDATED, MatchKind.CREATE, already_applied=True)
        if made is not None:
            raise PlacementError.of(
                ErrorCode.FILE_EXISTS,
                f"{dest} already exists and does not hold the copy of {key} this git patch "
                f"makes; a copy creates a new file (git apply refuses it too): delete or "
                f"rename {dest} first, or fix the patch",
                path=dest,
                source=key,
            )
    if made is None:
        assert failed is not None
        raise failed
    assert made.text is not None
    created = resolve(
        dataclasses.replace(
            block,
            action=Action.CREATE,
            path=block.move_to,
            move_to=None,
            hunks=(),
            content=made.text,
            on_exists=OnExists.ERROR,
            patch=None,
        )
    )
    d = state.files[dest]
    if not created.already_applied:
        # the copy's bytes are the source's (its line endings, its byte order mark and mode
        # through `origin`), never a rename of it
        d.cr, d.origin, d.copied = made.cr, made.origin, True
    if placed is None:
        return dataclasses.replace(created, block=block)
    return dataclasses.replace(placed, block=block, already_applied=created.already_applied)


def _holds(
    state: PlanState,
    key: str,
    d: FileState,
    modify: EditBlock,
    resolve: Callable[[EditBlock], BlockOutcome],
) -> bool:
    """`d`'s text already has the change `modify`'s hunks make (or there are none)."""
    if not modify.hunks:
        return True
    try:
        return _derive(state, key, d, [modify], resolve).text == d.text
    except PlacementError:
        return False
