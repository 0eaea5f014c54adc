"""The readings an ambiguous block allows, the user's choice among them, and the refusal
that names them.

A block the evidence leaves open (`merge` docstring: whole file or fragment; keep the rest
of a definition cut short or drop it) is never guessed: it is refused with TEXT_AMBIGUOUS
and `details.readings`, one entry per reading: its name, the title an editor shows on its
code action, the command-line flag that picks it, and the choice to plan again with. A
`Choice` carries the user's pick into the next plan (the CLI's `--as whole|fragment`,
`--keep-rest|--drop-rest`; the editor's code action).
"""

from __future__ import annotations

from typing import Any, NamedTuple

from lsp_server.model import ErrorCode, PlacementError


class Choice(NamedTuple):
    """The readings the user picked; None: none picked, the evidence must settle it."""

    as_: str | None = None  # "whole" | "fragment"
    rest: str | None = None  # "keep" | "drop"


class Reading(NamedTuple):
    name: str  # "whole", "fragment", "keep-rest", "drop-rest"
    title: str  # the editor's code action
    flag: str  # the command line's
    choice: dict[str, str]  # the Choice fields it sets

    def as_json(self) -> dict[str, Any]:
        return {"name": self.name, "title": self.title, "flag": self.flag, "choice": self.choice}


WHOLE = Reading("whole", "Apply as the whole file", "--as whole", {"as": "whole"})
FRAGMENT = Reading("fragment", "Merge into the file", "--as fragment", {"as": "fragment"})


def keep_rest(name: str) -> Reading:
    return Reading("keep-rest", f"Keep the rest of `{name}`", "--keep-rest", {"rest": "keep"})


def drop_rest(name: str) -> Reading:
    return Reading("drop-rest", f"Replace `{name}` as written", "--drop-rest", {"rest": "drop"})


def choice_of(fields: dict[str, str] | None, base: Choice | None = None) -> Choice:
    """A Choice from a reading's `choice` fields (over `base`)."""
    out = base or Choice()
    fields = fields or {}
    if fields.get("as") in ("whole", "fragment"):
        out = out._replace(as_=fields["as"])
    if fields.get("rest") in ("keep", "drop"):
        out = out._replace(rest=fields["rest"])
    return out


def ambiguous(message: str, readings: list[Reading], **details: Any) -> PlacementError:
    """TEXT_AMBIGUOUS naming `readings` in the message and in `details.readings`."""
    named = "; ".join(f"{r.title.lower()} ({r.flag})" for r in readings)
    return PlacementError.of(
        ErrorCode.TEXT_AMBIGUOUS,
        f"{message}. Choose a reading: {named}",
        readings=[r.as_json() for r in readings],
        reason=message,
        state="FILE_UNCHANGED",
        **details,
    )


def readings_of(details: dict[str, Any]) -> list[dict[str, Any]]:
    """The readings a failure's details offer (for editors' code actions)."""
    found = details.get("readings")
    return [r for r in found if isinstance(r, dict)] if isinstance(found, list) else []


def reading_commands(
    data: dict[str, Any], uri: str, version: int | None
) -> list[tuple[str, list[dict[str, Any]]]]:
    """For a failure's diagnostic data: (title, arguments of `llmPatch.applyBlock`) per
    reading it offers, the block applied with a preview. Plain data: the server makes the
    code actions."""
    block = data.get("block")
    if not isinstance(block, int):
        return []
    out = []
    for r in readings_of(data):
        choice = r.get("choice")
        if not isinstance(choice, dict) or not isinstance(r.get("title"), str):
            continue
        target = {"uri": uri, "version": version, "block": block}
        out.append(
            (f"{r['title']} (block {block})", [target, {"reading": choice, "preview": True}])
        )
    return out
