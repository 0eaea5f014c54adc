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
    PlacementError,
    WarningType,
)
from lsp_server.plan_state import FileState, PlanState


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

    def resolve(
        self, state: PlanState, block: EditBlock, resolve: Callable[[EditBlock], BlockOutcome]
    ) -> BlockOutcome:
        """`resolve(block)`, reading as its patch reads. Call inside the plan's
        checkpoint: a refusal here leaves the restoring to it."""
        if block.patch is None or not block.path:
            self.patch = None
            return resolve(block)
        if block.patch != self.patch:
            self.patch, self.before, self.wrote, self.blocks = block.patch, {}, {}, set()
        key = state.look(block.path)[0]
        dest = state.look(block.move_to)[0] if block.move_to else None
        for k, name in ((key, block.path), (dest, block.move_to)):
            if k is not None and k not in self.before:
                self.before[k] = _copy(state.get(name or k)[1])
        if dest is not None and dest != key and dest in self.wrote:
            if state.files[dest].text is not None:
                raise _conflict(block, dest, self.wrote[dest], "moves a file onto")
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
        return outcome
