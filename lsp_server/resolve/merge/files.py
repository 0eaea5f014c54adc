"""Which file a snippet that names none applies to.

A chat snippet rarely says where it goes, so its file is chosen by evidence, in order:

1. a path the prose just before it mentions (`reply.snippets` records them, nearest
   first) that exists in the workspace and is a file of the snippet's language - the
   first one that is;
2. the caller's target (`--file`, the LSP commands' `target`, the editor's buffer);
3. the one workspace file in the snippet's language that defines a namesake of one of the
   snippet's definitions (`shape.defines_any`), among a bounded listing.

With none of these, or with several files in step 3, the block is refused
(TARGET_NOT_FOUND / TARGET_AMBIGUOUS) with the candidates in the message, never guessed.
Pure: the workspace is reached through the two callables the plan passes in.
"""

from __future__ import annotations

from collections.abc import Callable

from lsp_server.model import EditBlock, ErrorCode, PlacementError
from lsp_server.resolve.language_names import EXTENSIONS, language_name_for

# Files in the snippet's language read at most when inferring its file, and the most
# candidates named in a refusal.
MAX_SCANNED = 1_000
MAX_LISTED = 20

# Grammars whose code is at home in each other's files: a `tsx` guess may be a `.ts` file's
# code and the other way round, a `c` block may belong in a `.h` file read as C++.
_RELATED = (frozenset({"typescript", "tsx", "javascript"}), frozenset({"c", "cpp", "objc"}))

TextOf = Callable[[str], "str | None"]
Listing = Callable[[tuple[str, ...]], list[str]]


def suffixes_for(language: str) -> tuple[str, ...]:
    """The file extensions of a language (and of the ones its code is mistaken for)."""
    names = {language}
    for group in _RELATED:
        if language in group:
            names |= group
    return tuple(sorted(ext for ext, name in EXTENSIONS.items() if name in names))


def _fits(path: str, language: str | None) -> bool:
    """Can `path` hold code in `language`? (`requirements.txt` mentioned beside `app.py`
    is not where a Python function goes.) Anything fits a snippet of unknown language."""
    if language is None:
        return True
    theirs = language_name_for(path)
    return theirs is not None and (
        theirs == language or any(language in group and theirs in group for group in _RELATED)
    )


def choose(
    block: EditBlock,
    target: str | None,
    text_of: TextOf,
    listing: Listing | None,
) -> str:
    """The workspace path the snippet `block` applies to (see the module docstring).
    `text_of(path)` is the file's current text, None when there is none (or the path is
    not one the workspace can read); `listing(suffixes)` lists the workspace's files with
    those extensions, bounded."""
    mentioned = list(block.candidates)
    language = language_name_for(None, block.language) if block.language else None
    for path in mentioned:
        if _fits(path, language) and text_of(path) is not None:
            return path
    if target:
        return target
    said = ""
    if mentioned:
        said = f"the prose mentions {', '.join(mentioned)}, but none of them exists; "
    if language is None or listing is None:
        raise PlacementError.of(
            ErrorCode.TARGET_NOT_FOUND,
            f"the code snippet names no file: {said}name it on the line before the fence "
            "(or in a first-line comment), or give the file to apply it to (`--file PATH`, "
            "or the editor's target)",
            mentioned=mentioned,
            candidates=[],
        )
    # tree-sitter: only for a reply that needs it
    from lsp_server.resolve.merge import shape as snippets

    found: list[str] = []
    names_in: dict[str | None, list[str]] = {}  # the snippet's names, read once per grammar
    for path in listing(suffixes_for(language))[:MAX_SCANNED]:
        text = text_of(path)
        if not text:
            continue
        try:
            grammar = language_name_for(path)
            if grammar not in names_in:
                names_in[grammar] = []  # stays empty when the snippet does not parse there
                names_in[grammar] = snippets.definition_names(
                    block.content or "", path, block.language
                )
            names = names_in[grammar]
            if not any(name in text for name in names):
                continue
            if snippets.defines_any(text, path, block.content or "", block.language):
                found.append(path)
        except PlacementError:
            continue
    if len(found) == 1:
        return found[0]
    shown = ", ".join(found[:MAX_LISTED]) + (" ..." if len(found) > MAX_LISTED else "")
    if found:
        raise PlacementError.of(
            ErrorCode.TARGET_AMBIGUOUS,
            f"the code snippet names no file, and {len(found)} {language} files define its "
            f"definitions: {shown}. Name the file before the fence, or give it "
            "(`--file PATH`, or the editor's target)",
            mentioned=mentioned,
            candidates=found[:MAX_LISTED],
        )
    raise PlacementError.of(
        ErrorCode.TARGET_NOT_FOUND,
        f"the code snippet names no file: {said}no {language} file in the workspace defines "
        "any of its definitions. Name the file before the fence, or give it (`--file PATH`, "
        "or the editor's target)",
        mentioned=mentioned,
        candidates=[],
    )
