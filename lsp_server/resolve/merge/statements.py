"""A snippet's statements that are not definitions (`module.exports = ...`, a call at the
top level): each placed by the text ladder as an edit of itself, so it must already stand
in the file, or stand there but for whitespace or indentation.

An edit of itself keeps the file's bytes on every line it matched (the ladder's rule for
lines a block keeps). A line that is only alike (`{ add, sub }` in the file for the
snippet's `{ add, sub, mul }`) would then stay as the file has it and the snippet's change
be lost, or be reported already applied: such a statement is refused instead. Replacing
the file's line and adding the statement beside it are both readings, and nothing in the
snippet tells them apart.
"""

from __future__ import annotations

from lsp_server.model import ErrorCode, Hunk, MatchKind, Placement, PlacementError
from lsp_server.resolve.hunks import HunksResult, apply_hunks
from lsp_server.resolve.outcome import refused
from lsp_server.resolve.syntax import Grammar


def place(
    text: str, path: str, grammar: Grammar, statements: list[str], fuzzy_threshold: float
) -> tuple[str, list[Placement]]:
    """`text` with each statement found in it (nothing changes) and where each stands, or
    a refusal naming the first that is not there."""
    placements: list[Placement] = []
    for statement in statements:
        try:
            done = apply_hunks(text, [Hunk(statement, statement)], fuzzy_threshold=fuzzy_threshold)
        except PlacementError as err:
            raise refused(
                err.failure.code,
                f"the snippet's statement `{_shown(statement, grammar)}` is not a definition, "
                f"and it is not in {path} (nor close to a line there), so there is no telling "
                f"where it goes: {err.failure.message}",
                statement=statement,
                **{k: v for k, v in err.failure.details.items() if k != "state"},
            ) from None
        if done.match is MatchKind.FUZZY and done.score < 1.0:
            raise _differs(statement, done, path, grammar)
        text = done.text
        placements.extend(done.placements)
    return text, placements


def _shown(statement: str, grammar: Grammar) -> str:
    """The statement's first line that is not a comment, for a message."""
    lines = [ln.strip() for ln in statement.split("\n") if ln.strip()]
    markers = tuple(grammar.spec.comment_markers)
    return next((ln for ln in lines if not ln.startswith(markers)), lines[0])[:80]


def _differs(statement: str, done: HunksResult, path: str, grammar: Grammar) -> PlacementError:
    lines = done.text.split("\n")
    region = done.placements[0] if done.placements else None
    theirs = (
        next((ln.strip() for ln in lines[region.start_line : region.end_line] if ln.strip()), "")
        if region is not None
        else ""
    )
    like = f" (`{theirs[:80]}`)" if theirs else ""
    return refused(
        ErrorCode.TEXT_NOT_FOUND,
        f"the snippet's statement `{_shown(statement, grammar)}` is not a definition, and "
        f"{path} has only a line like it{like}, {int(done.score * 100)}% alike: the block "
        "may change that line or add a new one beside it. Quote the line to change "
        "(SEARCH/REPLACE); if the block is the whole file, `--as whole` writes it as it is",
        statement=statement,
        similarity=round(done.score, 3),
    )
