"""What a block without markers is, read with its file's grammar: the questions the merge
room asks before it chooses a reading (`place`) and a file (`files`). Never raises where a
yes-or-no is asked: a block the grammar cannot read answers no.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

from lsp_server.model import PlacementError
from lsp_server.resolve import cache, outline, spans, syntax
from lsp_server.resolve.merge import verify
from lsp_server.resolve.merge.imports import normalise
from lsp_server.resolve.merge.snippet import (
    CODE_KINDS,
    MAX_DEFINITIONS,
    elides,
    family,
    in_namespaces,
    members_only,
    namesake,
    read_snippet,
)
from lsp_server.resolve.syntax import Grammar

# The questions below are asked of one block in turn (`place` asks up to five), and a reply
# may give many blocks the same body for the same file: each would read the snippet with
# the grammar again, 100 µs to milliseconds a time. `read_snippet` is a function of its
# arguments alone (its syntax-tree cache changes how fast, never what), and these readers
# only read what it returns, so one reading serves them all: keyed by every argument (the
# grammar by identity), a few entries, since the questions about one block come one after
# another. Guarded by `syntax.locked`, as every reader here is.
_READS: OrderedDict[tuple[str, Grammar, str, str | None], Any] = OrderedDict()
_MAX_READS = 8


def _read(content: str, grammar: Grammar, path: str, text: str | None = None) -> Any:
    """`read_snippet(content, grammar, path, text)`, read once per distinct arguments (a
    snippet that does not parse raises every time it is asked)."""
    key = (content, grammar, path, text)
    s = _READS.get(key)
    if s is None:
        s = read_snippet(content, grammar, path, text)
        _READS[key] = s
        if len(_READS) > _MAX_READS:
            _READS.popitem(last=False)
    else:
        _READS.move_to_end(key)
    return s


cache.on_clear(_READS.clear)


@syntax.locked
def definition_names(content: str, path: str, language: str | None = None) -> list[str]:
    """The names of the snippet's outermost code definitions (for choosing its file)."""
    grammar = syntax.grammar_for(path, language)
    s = _read(content, grammar, path)
    return [i.name for i in s.top if i.kind in CODE_KINDS]


@syntax.locked
def defines_any(text: str, path: str, content: str, language: str | None = None) -> bool:
    """Does the file define a namesake of one of the snippet's code definitions?"""
    grammar = syntax.grammar_for(path, language)
    s = _read(content, grammar, path, text)
    p = syntax.parse(text, grammar, path)
    for item in s.top:
        if item.kind not in CODE_KINDS:
            continue
        try:
            if namesake(p, s, item, None) is not None:
                return True
        except PlacementError:
            return True  # several namesakes are still namesakes
    return False


# A whole-file block that keeps less than this share of the file's lines is not a rewrite.
# (MAX_DEFINITIONS, above, bounds the work one snippet may ask for: each definition is
# placed against the text the previous one left.)
REWRITE_SHARE = 0.5


@syntax.locked
def is_fragment(text: str, path: str, content: str, language: str | None = None) -> bool:
    """Is a whole-file block for an existing file really a snippet of it? Never raises.

    Not when it defines no code (a function, class...), or leaves placeholders between
    definitions (the block is the file with parts elided: the lazy merge's). Otherwise it is
    a snippet when it is indented (members without their class); when it elides code inside
    a definition and holds nothing but definitions and imports; and, when the file holds
    something it does not restate (a definition, an import, a statement, a comment), when
    its definitions are some of the file's, or it leaves out the file's imports or
    statements while being nothing but definitions, or it keeps under half of the file's
    lines. Anything else (a rewrite that renames a function, say) is the whole file.
    """
    name = syntax.language_for(path, language)
    if name is None:
        return False
    try:
        grammar = syntax.grammar(name)
        if grammar.spec.data:
            return False
        s = _read(content, grammar, path, text)
        if not any(i.kind in CODE_KINDS for i in s.top) and not members_only(s):
            return False
        if len(s.top) > MAX_DEFINITIONS:
            return False  # a chat snippet is never this long: the block is the file
        if s.bare:
            return True
        if s.loose_placeholders:
            return False
        if not s.statements and any(elides(s, i) for i in s.top):
            return True  # a class with members left out: merged member by member
        p = syntax.parse(text, grammar, path)
        mine = {(family(i.kind), i.name) for i in s.top}
        theirs = {(family(i.kind), i.name) for i in outline.index(p) if in_namespaces(i)}
        missing = [i for i in outline.top(p) if (family(i.kind), i.name) not in mine]
        said = {normalise(ln) for ln in content.split("\n") if ln.strip()}
        covered = [spans.layers(p, i.node) for i in outline.top(p)]
        others = [
            c
            for c in p.tree.root_node.named_children
            if not any(lay.outer_row <= c.start_point.row <= lay.end_row for lay in covered)
        ]
        unsaid = [c for c in others if normalise(p.first_line(c)) not in said]
        if not missing and not unsaid:
            return False
        if missing and mine <= theirs:
            return True  # only definitions the file has, and it holds more of them
        if not s.statements and any("comment" not in c.type for c in unsaid):
            return True  # new definitions, without the file's imports or statements
        kept = [ln for ln in p.line_list() if ln.strip()]
        share = sum(normalise(ln) in said for ln in kept) / max(len(kept), 1)
        return share < REWRITE_SHARE
    except PlacementError:
        return False


def _readable(path: str, language: str | None) -> Grammar | None:
    name = syntax.language_for(path, language)
    if name is None:
        return None
    try:
        grammar = syntax.grammar(name)
    except PlacementError:
        return None
    return None if grammar.spec.data else grammar


@syntax.locked
def defines_code(path: str, content: str, language: str | None = None) -> bool:
    """Does the block define code (a function, a class...) its file's grammar knows?"""
    grammar = _readable(path, language)
    if grammar is None:
        return False
    try:
        s = _read(content, grammar, path)
    except PlacementError:
        return False
    return any(i.kind in CODE_KINDS for i in s.top)


@syntax.locked
def is_bare(path: str, content: str, language: str | None = None) -> bool:
    """Members shown without their class (the block is indented, or needed a shell)."""
    grammar = _readable(path, language)
    if grammar is None:
        return False
    try:
        return _read(content, grammar, path).bare
    except PlacementError:
        return False


@syntax.locked
def holds_every_definition(text: str, path: str, content: str, language: str | None = None) -> bool:
    """Does the block define every top-level definition the file has (by kind family and
    name)? Part of the convention by which a block is the whole file."""
    grammar = _readable(path, language)
    if grammar is None:
        return False
    try:
        s = _read(content, grammar, path, text)
        p = syntax.parse(text, grammar, path)
    except PlacementError:
        return False
    mine = {(family(i.kind), i.name) for i in s.top}
    return all((family(i.kind), i.name) in mine for i in outline.top(p))


@syntax.locked
def holds_every_member(text: str, path: str, content: str, language: str | None = None) -> bool:
    """Does the block define every definition the file has, members included (by kind
    family and name)? A part of the file restating its first definition would leave some
    of them out."""
    grammar = _readable(path, language)
    if grammar is None:
        return False
    try:
        q = syntax.parse(content, grammar, path)
        p = syntax.parse(text, grammar, path)
    except PlacementError:
        return False
    mine = {(family(i.kind), i.name) for i in outline.index(q)}
    return all((family(i.kind), i.name) in mine for i in outline.index(p))


@syntax.locked
def parses(text: str, path: str, language: str | None = None) -> bool:
    """Does the file parse (with Python's parser too, for Python)? Its outline is evidence
    of where its definitions end only then."""
    grammar = _readable(path, language)
    if grammar is None:
        return True
    return not verify.error_rows(syntax.parse(text, grammar, path))


@syntax.locked
def elides_code(text: str, path: str, content: str, language: str | None = None) -> bool:
    """Does the block mark code as left out (a placeholder, a worded elision that is not
    a comment the file holds there)?"""
    grammar = _readable(path, language)
    if grammar is None:
        return False
    try:
        return bool(_read(content, grammar, path, text).placeholders)
    except PlacementError:
        return False


@syntax.locked
def restates_some(text: str, path: str, content: str, language: str | None = None) -> bool:
    """Does the block restate one of the file's top-level definitions (by kind family and
    name)? A block that does, and leaves others out, is a part of the file."""
    grammar = _readable(path, language)
    if grammar is None:
        return False
    try:
        s = _read(content, grammar, path, text)
        p = syntax.parse(text, grammar, path)
    except PlacementError:
        return False
    theirs = {(family(i.kind), i.name) for i in outline.top(p)}
    return any((family(i.kind), i.name) in theirs for i in s.top)
