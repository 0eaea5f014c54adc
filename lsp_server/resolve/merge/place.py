"""The one entry of the merge room: a block without markers, for an existing file, placed
by the reading the evidence settles (or the one the user chose), or refused naming the
readings. See the package docstring for the rule.

Which reading, in order:

* a block that marks code as left out (`... existing code ...`, a worded elision) is
  merged around its markers: member by member when it is a part of the file (a class
  with members elided, members shown without their class), else as the whole file with
  parts elided (`lazy`);
* a block that defines no code its file's grammar knows (Markdown, CSS, data, a language
  with no grammar) is the whole file, or the one definition it restates (`lazy`);
* a block that begins where a file begins (the file's first line when that is not a
  definition's — an import written another way counts —, or an import, include or
  package line) and holds every top-level definition the file has is the whole file:
  aider's whole format, and any full rewrite, by that convention;
* a block that does not begin where a file begins is a part of it (a whole file would
  begin with its imports, or with the file's own first line); so is one that restates
  some of the file's definitions and leaves others out;
* anything else could be either — a block that begins like a file, defines none of the
  file's definitions and leaves some out (`main.cpp` rewritten from `setup()`/`loop()` to
  `app_main`). Both readings are made: equal, the block is placed; different, it is
  refused with both (`--as whole|fragment`); a fragment reading that cannot be placed
  leaves the whole file, and the fragment's own readings, to choose from.

Every result then passes `verify` (no new syntax errors; Python's parser agrees) and
keeps the file's own bytes on the lines it restates (`keep_bytes`).
"""

from __future__ import annotations

from typing import NamedTuple

from lsp_server.model import (
    DEFAULT_FUZZY_THRESHOLD,
    ErrorCode,
    MatchKind,
    Placement,
    PlacementError,
)
from lsp_server.resolve import placeholders
from lsp_server.resolve.line_shape import definition_name
from lsp_server.resolve.merge import lazy, readings, shape, shown, snippet, verify
from lsp_server.resolve.merge.bytes import keep_bytes
from lsp_server.resolve.merge.imports import normalise_import
from lsp_server.resolve.merge.readings import Choice
from lsp_server.resolve.reply_chars import plain_text

__all__ = ["Choice", "Merged", "place", "refuse_partial_rewrite"]


class Merged(NamedTuple):
    """The file after the block, how it was read, and where its pieces landed."""

    text: str
    match: MatchKind
    placements: tuple[Placement, ...] = ()
    reading: str = ""  # "fragment", "whole", "elided": reported, so the user knows


def place(
    text: str,
    path: str,
    content: str,
    language: str | None = None,
    choice: Choice | None = None,
    fuzzy_threshold: float = DEFAULT_FUZZY_THRESHOLD,
) -> Merged:
    """`content` (a block without markers) merged into the file `text` at `path`.

    A reply copied from a rendered page may carry no-break spaces in its indentation that
    the file does not use: when the block as written leaves the file with syntax errors
    and the block with plain spaces does not, the spaces were the page's."""
    choice = choice or Choice()
    try:
        return _place(text, path, content, language, choice, fuzzy_threshold)
    except PlacementError as err:
        done = _already(text, path, content, language, choice, fuzzy_threshold, err)
        if done is not None:
            return done
        plain = plain_text(content, text)
        if plain == content or "syntax_errors" not in err.failure.details:
            raise
        return _place(text, path, plain, language, choice, fuzzy_threshold)


def _already(
    text: str,
    path: str,
    content: str,
    language: str | None,
    choice: Choice,
    fuzzy_threshold: float,
    err: PlacementError,
) -> Merged | None:
    """A block refused for its readings, one of which leaves the file as it is: the block
    was applied before (read that way), and applying it again changes nothing."""
    for r in readings.readings_of(err.failure.details):
        picked = readings.choice_of(r.get("choice"), choice)
        if picked == choice:
            continue
        try:
            merged = _place(text, path, content, language, picked, fuzzy_threshold)
        except PlacementError:
            continue
        if merged.text == text:
            return merged
    return None


def _place(
    text: str,
    path: str,
    content: str,
    language: str | None,
    choice: Choice,
    fuzzy_threshold: float,
) -> Merged:
    if choice.as_ == "whole" and not placeholders.has_placeholder(content, path):
        return _checked(text, path, language, _whole(text, content), [readings.FRAGMENT])
    if choice.as_ == "fragment" and _kind(text, path, content, language) == "text":
        # no code to place by name: the part of the file the block restates (`lazy`)
        return _checked(text, path, language, _lazy(text, path, content, True), [])
    if choice.as_ == "fragment" or (choice.rest is not None and choice.as_ is None):
        # keeping or dropping the rest of a definition is a reading of a fragment
        return _checked(
            text,
            path,
            language,
            _fragment(text, path, content, language, choice, fuzzy_threshold),
            [readings.WHOLE],
        )
    kind = _kind(text, path, content, language)
    if kind == "fragment":
        merged = _fragment(text, path, content, language, choice, fuzzy_threshold)
        return _checked(text, path, language, merged, [])
    if kind == "whole":
        return _checked(text, path, language, _whole(text, content), [])
    if kind in ("text", "elided"):
        return _checked(text, path, language, _lazy(text, path, content), [])
    # either: make both readings
    whole = _whole(text, content)
    try:
        part = _fragment(text, path, content, language, choice, fuzzy_threshold)
    except PlacementError as err:
        raise _whole_or_failed_fragment(text, path, content, language, whole, err) from None
    if part.text.rstrip("\n") == whole.text.rstrip("\n"):
        return _checked(text, path, language, part, [])
    raise readings.ambiguous(
        f"the block for {path} may be the whole new file or a part of it, and the two "
        f"readings give different files: {_difference(text, part.text, whole.text)}",
        [readings.WHOLE, readings.FRAGMENT],
        path=path,
    )


def _whole_or_failed_fragment(
    text: str, path: str, content: str, language: str | None, whole: Merged, err: PlacementError
) -> PlacementError:
    """The refusal of a block that may be the whole file, whose fragment reading failed:
    the whole file is a reading; so are the fragment's own readings, if it has any (the
    whole file is left out when it is one of them)."""
    failure = err.failure
    reason = failure.details.get("reason", failure.message)
    own = readings.readings_of(failure.details)
    if not own:
        return readings.ambiguous(
            f"the block for {path} may be the whole new file; as a part of the file it "
            f"cannot be placed: {reason}",
            [readings.WHOLE],
            path=path,
            fragment_failure=failure.code.value,
        )
    offered = [readings.Reading(**{**r, "choice": {"as": "fragment", **r["choice"]}}) for r in own]
    try:
        dropped = _fragment(text, path, content, language, Choice(rest="drop"), 0.0).text
    except PlacementError:
        dropped = None
    if dropped is None or dropped.rstrip("\n") != whole.text.rstrip("\n"):
        offered = [readings.WHOLE, *offered]
    return readings.ambiguous(
        reason,
        offered,
        path=path,
        **{k: v for k, v in failure.details.items() if k not in ("readings", "reason", "state")},
    )


def _difference(old: str, part: str, whole: str) -> str:
    """What the whole-file reading would drop that merging keeps, in a few words."""
    kept = {ln.strip() for ln in whole.split("\n") if ln.strip()}
    gone = [ln.strip() for ln in old.split("\n") if ln.strip() and ln.strip() not in kept]
    if gone:
        return (
            f"as the whole file it removes {len(gone)} line(s) of the file's "
            f"(first: `{gone[0][:60]}`), as a fragment it keeps them"
        )
    return "merged, the file keeps lines the block does not show"


def _kind(text: str, path: str, content: str, language: str | None) -> str:
    """ "fragment", "whole" (by convention), "elided" (placeholders between definitions),
    "text" (no code to place by name: the lazy merge's) or "either" (see the module
    docstring)."""
    elides = placeholders.has_placeholder(content, path) or shape.elides_code(
        text, path, content, language
    )
    fragment = shape.is_fragment(text, path, content, language)
    if fragment and (elides or shape.is_bare(path, content, language)):
        return "fragment"
    if elides:
        return "elided"
    if not fragment and not shape.defines_code(path, content, language):
        return "text"
    begins = _begins_like_file(text, content)
    if begins and shape.holds_every_definition(text, path, content, language):
        return "whole"
    if not begins:
        # a whole file begins at its top, a part at a definition; a file whose first line
        # is a definition's begins at both, so a block beginning there and restating every
        # definition, members included, may be either
        same_top = _first_line(text) == _first_line(content)
        if same_top and shape.holds_every_member(text, path, content, language):
            return "either"
        return "fragment"
    if (
        fragment
        and shape.restates_some(text, path, content, language)
        and shape.parses(text, path, language)
    ):
        # a rewrite would restate them all; a file that does not parse has no outline to
        # tell "some" from "all" by
        return "fragment"
    return "either"


def _first_line(text: str) -> str | None:
    return next((ln for ln in text.split("\n") if ln.strip()), None)


def _begins_like_file(text: str, content: str) -> bool:
    """The block begins where a file begins: with the file's first line (an import
    written another way counts) when that line is not a definition's first (a fragment
    begins there too), or with an import, include or package line."""
    mine, theirs = _first_line(content), _first_line(text)
    if mine is None or theirs is None:
        return False
    if normalise_import(mine) == normalise_import(theirs) and not definition_name(theirs):
        return True
    return not mine.startswith((" ", "\t")) and mine.startswith(_HEADS)


_HEADS = (
    "import ",
    "from ",
    "#include",
    "# include",
    "package ",
    "use ",
    "using ",
    "require",
    "#!",
    "<?php",
    '"use ',
    "'use ",
    "module ",
    "namespace ",
)


def _whole(text: str, content: str) -> Merged:
    n = content.count("\n") + (0 if content.endswith("\n") else 1)
    return Merged(
        content, MatchKind.OVERWRITE, (Placement(0, n, MatchKind.OVERWRITE, 1.0, n),), "whole"
    )


def _lazy(text: str, path: str, content: str, as_part: bool = False) -> Merged:
    merged = lazy.merge(text, content, path, as_part)
    if merged.match is MatchKind.OVERWRITE:
        refuse_partial_rewrite(path, text, content)
        return Merged(merged.text, merged.match, (), "whole")
    shown.check(text, content, merged.text, path)
    return Merged(merged.text, merged.match, (), "elided")


def _fragment(
    text: str,
    path: str,
    content: str,
    language: str | None,
    choice: Choice,
    fuzzy_threshold: float,
) -> Merged:
    edit = snippet.place_snippet(text, path, content, language, fuzzy_threshold, choice.rest)
    return Merged(edit.text, MatchKind.SNIPPET, edit.placements, "fragment")


def _checked(
    text: str, path: str, language: str | None, merged: Merged, others: list[readings.Reading]
) -> Merged:
    """`merged` with the file's bytes kept where it restates them, unless it adds syntax
    errors the file did not have: then it read the reply wrong, and is refused."""
    out = merged._replace(text=keep_bytes(text, merged.text))
    if out.text == text:
        return out
    errors = verify.new_errors(text, out.text, path, language)
    if errors:
        where = ", ".join(f"line {e['line']}" for e in errors[:5])
        raise (
            readings.ambiguous(
                f"read as {_READ_AS.get(merged.reading, merged.reading)}, the block leaves {path} "
                f"with syntax errors it did not have ({where}"
                f"{'; ' + errors[0]['text'] if errors[0].get('by') == 'python' else ''}), so that "
                "reading is wrong",
                others,
                path=path,
                syntax_errors=errors[:10],
                reading=merged.reading,
            )
            if others
            else PlacementError.of(
                ErrorCode.PARSER_FAILED,
                f"read as {_READ_AS.get(merged.reading, merged.reading)}, the block leaves {path} "
                f"with syntax errors it did not have ({where}"
                f"{'; ' + errors[0]['text'] if errors[0].get('by') == 'python' else ''}): the "
                "reply was not read right, and nothing was written; quote the lines to change "
                "(SEARCH/REPLACE), or send the whole definition",
                path=path,
                syntax_errors=errors[:10],
                reading=merged.reading,
                state="FILE_UNCHANGED",
            )
        )
    return out


_READ_AS = {
    "fragment": "a part of the file",
    "whole": "the whole file",
    "elided": "the file with parts elided",
}


def refuse_partial_rewrite(key: str, old: str, new: str) -> None:
    """A whole-file block without placeholders replaces the file only when it reads as a
    rewrite of it; a snippet ("add this function") must not erase everything else."""
    old_lines = {x.strip() for x in old.split("\n") if x.strip()}
    if len(old_lines) <= 3:
        return
    kept = len(old_lines & {x.strip() for x in new.split("\n") if x.strip()}) / len(old_lines)
    if kept < 0.5:
        raise PlacementError.of(
            ErrorCode.TEXT_NOT_FOUND,
            f"the block shares only {kept:.0%} of {key}'s lines and marks nothing as kept, so "
            "it reads as a snippet, not the whole file; nothing in it anchors to the file. "
            "Quote the lines to change (SEARCH/REPLACE), or mark kept code with "
            "`... existing code ...` lines (or choose the reading: apply as the whole file "
            "(--as whole))",
            path=key,
            shared=round(kept, 3),
            readings=[readings.WHOLE.as_json()],
        )
