"""Snippet placement: put a chat window's definitions into their file by kind, name and scope.

A snippet is code a model showed without saying where it goes: one or more whole
definitions (functions, methods, classes, components), perhaps imports, perhaps a class
with members left out. It is read with the file's own grammar, and each of its outermost
definitions is placed in turn against the text the previous ones left:

* matched by kind family (callable, type, impl, variable), name and enclosing scope to
  exactly one definition of the file (`outline`), and replaced in full by the structural
  resolver (`structure.replace_item`: decorators, attributes and doc comments included,
  re-indented in the file's style). A definition that names an owner (Go's
  `func (p *Point) Area`) matches the owner's; a *bare member* (the snippet was indented,
  needed a class around it to parse, or its first parameter is `self`) matches by name
  across the file's classes. Two candidates that the header does not tell apart are
  TARGET_AMBIGUOUS, listing both;
* a class that leaves members out (or elides them with `...`, `# ...`,
  `// ... existing code ...`) is merged: each member it shows is placed by the same rules
  inside the file's class, the rest of the class stays; a changed first line (a new base
  class) replaces the file's;
* a function whose body elides code with placeholder lines is merged into the file's
  function around them (`lazy_merge`), so a placeholder is never written;
* a definition without a namesake is new: it goes after the nearest definition before it
  in the snippet that the file has (or before the nearest one after it); with neither, at
  the end of the file (in Python, before a trailing `if __name__ == "__main__":` block)
  or of its class;
* imports the file lacks join its import block; the ones it has are left alone;
* any other statement is placed by the text ladder (`hunks.apply_hunks`) as an edit of
  itself: it is already there, or close enough to replace; otherwise the whole snippet is
  refused, naming the statement. Nothing in a snippet is dropped silently.

Every placement reports MatchKind.SNIPPET: it was inferred from names, not quoted text,
so editors ask before applying it. `is_fragment` decides whether a whole-file block for an
existing file is such a snippet (see docs/snippets.md). Pure: text in, text out; texts use
"\\n" line endings.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass

from lsp_server.model import (
    DEFAULT_FUZZY_THRESHOLD,
    ErrorCode,
    Hunk,
    MatchKind,
    Placement,
    PlacementError,
)
from lsp_server.resolve import languages as L
from lsp_server.resolve import literals, outline, spans, structure, syntax
from lsp_server.resolve.hunks import apply_hunks
from lsp_server.resolve.indent import dedent, indent_of, reindent, style_of, width
from lsp_server.resolve.merge import elision, neighbours, readings, shown, tails, verify
from lsp_server.resolve.merge import lazy as lazy_merge
from lsp_server.resolve.merge.imports import add_imports, is_import, normalise
from lsp_server.resolve.merge.statements import place as place_statements
from lsp_server.resolve.merge.strings import restated_strings
from lsp_server.resolve.outcome import refused
from lsp_server.resolve.outline import Item
from lsp_server.resolve.syntax import Grammar, Parsed

# Code that members need around them to parse: a class for C-family methods, an impl for
# Rust. The snippet's lines go between, one level deeper.
_SHELLS: dict[str, tuple[str, str]] = {
    **dict.fromkeys(
        ("java", "csharp", "typescript", "tsx", "javascript", "kotlin", "scala", "dart"),
        ("class __Snippet__ {", "}"),
    ),
    "swift": ("class __Snippet__ {", "}"),
    "php": ("<?php class __Snippet__ {", "}"),
    "rust": ("impl __Snippet__ {", "}"),
    "cpp": ("struct __Snippet__ {", "};"),
    "ruby": ("class Snippet__", "end"),
}
# Kinds a snippet must define for a whole-file block to be read as one (a Markdown section
# or a CSS rule is not a definition in this sense).
CODE_KINDS = L.CALLABLE | L.TYPES | L.IMPLS | frozenset({"module"})
_SELF = re.compile(r"^\(\s*(?:&\s*(?:'\w+\s+)?(?:mut\s+)?)?(?:self|cls|this)\b")
_CLOSER = re.compile(r"^[\s})\];,]*(?:end)?[\s})\];,]*$")
_MAIN_GUARD = re.compile(r"^if\s+__name__\s*==")
# The most outermost definitions one snippet may place.
MAX_DEFINITIONS = 200


@dataclass(frozen=True)
class SnippetEdit:
    """The file after the snippet, and where each of its pieces landed (in the text it was
    applied to, pieces in order)."""

    text: str
    placements: tuple[Placement, ...]


@dataclass
class _Snippet:
    """A snippet read with the file's grammar. Rows are the parsed text's; `raw` holds the
    snippet's own lines at the same rows (placeholders included), `offset` the rows a shell
    added above them."""

    parsed: Parsed
    raw: list[str]
    offset: int
    bare: bool  # members shown without their class
    top: list[Item]
    imports: list[str]
    statements: list[str]
    placeholders: frozenset[int]
    loose_placeholders: bool  # a placeholder outside every definition
    rest: str | None = None  # the reading chosen for a definition cut short: keep / drop


def family(kind: str) -> str:
    if kind in L.CALLABLE:
        return "callable"
    if kind in L.TYPES:
        return "type"
    if kind in L.IMPLS:
        return "impl"
    if kind in L.VARIABLES:
        return "variable"
    return kind


def _errors(p: Parsed) -> int:
    return len(syntax.error_nodes(p))


def read_snippet(
    content: str, grammar: Grammar, key: str, file_text: str | None = None
) -> _Snippet:
    """Parse the snippet, in a shell when its members need one to parse; with the file's
    text, a comment the file holds at that place is that comment, never an elision."""
    raw = content.split("\n")
    if raw and raw[-1] == "":
        raw.pop()
    markers = grammar.spec.comment_markers
    holes = [elision.says_elided(line, markers, key) for line in raw]
    if file_text is not None:
        holes = elision.file_comments_in(raw, holes, file_text)
    python = grammar.spec.name == "python"
    # every elision is written the one way the lazy merge reads (`// ... existing code ...`
    # behind the language's comment marker); `...` is code in Python and stays
    raw = [
        line if not hole or (python and line.strip() == "...") else _canonical(line, grammar)
        for line, hole in zip(raw, holes, strict=True)
    ]
    parse_lines = list(raw)
    # a multi-line string's text is not indentation: it is neither measured nor moved
    strings = literals.string_rows_of("\n".join(raw) + "\n", grammar, key + "\x00snippet-raw")
    code = [ln for k, ln in enumerate(raw) if ln.strip() and k not in strings]
    bare = bool(code) and min(len(indent_of(ln)) for ln in code) > 0
    lines = dedent(parse_lines, strings)
    cut = _common(code)
    # a blank line keeps the white space it was written with, cut as its code is: where
    # it is new, it is written as the reply shows it (`reindent` moves it with the code)
    body = [ln if k in strings else ln[min(cut, len(indent_of(ln))) :] for k, ln in enumerate(raw)]
    p = syntax.parse("\n".join(lines) + "\n", grammar, key + "\x00snippet")
    shell = _SHELLS.get(grammar.spec.name)
    offset = 0
    container = p.tree.root_node

    def inside(rows: list[str]) -> list[str]:
        return ["    " + ln if ln and k not in strings else ln for k, ln in enumerate(rows)]

    if shell is not None and (p.tree.root_node.has_error or not _outer_items(p, None)):
        wrapped = [shell[0], *inside(lines), shell[1]]
        q = syntax.parse("\n".join(wrapped) + "\n", grammar, key + "\x00snippet-shell")
        holder = next((i for i in outline.index(q) if i.parent is None), None)
        if holder is not None and _errors(q) < max(_errors(p), 1) and outline.kids(q, holder):
            p, offset, bare = q, 1, True
            container = holder.node.child_by_field_name("body") or holder.node
            body = [shell[0], *inside(body), shell[1]]
            holes = [False, *holes, False]
    errors = syntax.error_nodes(p)
    if errors:  # its definitions' boundaries would be error recovery's guess
        rows = sorted({spans.node_rows(p, e)[0] - offset + 1 for e in errors[:10]})
        raise refused(
            ErrorCode.PARSER_FAILED,
            f"the snippet does not parse as {grammar.name} (line "
            f"{', '.join(map(str, rows))} of the block), so its definitions cannot be told "
            "apart; fix the snippet, or quote the lines to change (SEARCH/REPLACE)",
            language=grammar.name,
            lines=rows,
        )
    top = _outer_items(p, container if offset else None)
    covered: list[tuple[int, int]] = []
    for item in top:
        lay = spans.layers(p, item.node)
        covered.append((lay.outer_row, lay.end_row))
    placeholders = frozenset(r for r, hole in enumerate(holes) if hole)
    imports: list[str] = []
    statements: list[str] = []
    loose = False
    carried: int | None = None  # a comment directly above the next statement starts here
    for node in container.named_children:
        start, end = spans.node_rows(p, node)
        if offset and (start < offset or end >= len(body) - 1):
            continue  # the shell's own name or closer
        if any(a <= start and end <= b for a, b in covered):
            carried = None
            continue
        rows = [r for r in range(start, end + 1) if body[r].strip()] if end < len(body) else []
        if rows and all(r in placeholders for r in rows):
            loose, carried = True, None
            continue
        nxt = node.next_named_sibling
        if "comment" in node.type and nxt is not None and nxt.start_point.row == end + 1:
            carried = start if carried is None else carried
            continue  # `# Example usage` belongs to the statement under it
        start, carried = (start if carried is None else carried), None
        text = "\n".join(dedent(body[start : end + 1]))
        if not text.strip():
            continue
        if is_import(p, node):
            imports.append(text)
        else:
            statements.append(text)
    return _Snippet(p, body, offset, bare, top, imports, statements, placeholders, loose)


def _canonical(line: str, grammar: Grammar) -> str:
    """An elision as the language writes a comment, in the words the lazy merge knows."""
    marker = grammar.spec.comment_markers[0] if grammar.spec.comment_markers else "//"
    closer = " */" if marker == "/*" else ""
    return f"{indent_of(line)}{marker} ... existing code ...{closer}"


def _common(code: list[str]) -> int:
    """The indentation the snippet's lines of code share (what `dedent` removed)."""
    return min((len(indent_of(ln)) for ln in code), default=0)


def _outer_items(p: Parsed, container) -> list[Item]:  # noqa: ANN001 - a tree_sitter Node
    """The snippet's outermost definitions (inside the shell's body when there is one)."""
    items = outline.index(p)
    if container is None:
        return [i for i in items if i.parent is None]
    holder = next((i for i in items if i.parent is None), None)
    return [i for i in items if i.parent is holder and holder is not None]


def _span(s: _Snippet, item: Item) -> tuple[int, int]:
    """A snippet definition's rows: its doc comments and decorators included, a placeholder
    comment directly above it (`# ...`) not."""
    lay = spans.layers(s.parsed, item.node)
    start = lay.outer_row
    while start < lay.end_row and (start in s.placeholders or not s.raw[start].strip()):
        start += 1
    return start, lay.end_row


def _text_of(s: _Snippet, item: Item) -> str:
    """A snippet definition's own lines, dedented, placeholders as the model wrote them."""
    start, end = _span(s, item)
    strings = {r - start for r in literals.string_rows(s.parsed) if start <= r <= end}
    return "\n".join(dedent(s.raw[start : end + 1], strings)) + "\n"


def elides(s: _Snippet, item: Item) -> bool:
    start, end = _span(s, item)
    return any(start <= r <= end for r in s.placeholders)


def members_only(s: _Snippet) -> bool:
    """Class fields that parse only inside a class (`#count = 10;`, `private step = 2;`):
    no file is written that way, so the block is members of one of the file's classes.
    One that elides code is the lazy merge's (object properties between placeholders
    parse as fields too)."""
    if not s.offset or not s.top or s.placeholders:
        return False
    return all(family(i.kind) == "variable" for i in s.top)


def _is_member(s: _Snippet, item: Item) -> bool:
    """Shown without its class: the snippet was indented or needed a shell, or its first
    parameter is the instance (`self`, `&mut self`, `cls`)."""
    if s.bare or (item.kind in L.CALLABLE and s.parsed.grammar.spec.name in _METHODS_ONLY):
        return True
    params = item.node.child_by_field_name("parameters")
    return params is not None and bool(_SELF.match(s.parsed.bytes_of(params)))


# --------------------------------------------------------------------------- matching


def _head(p: Parsed, item: Item) -> str:
    return outline.normalize_head(p.first_line(item.node))


def _impl_head(p: Parsed, item: Item) -> str:
    """An impl block's head without generics' details: what it implements, for what."""
    head = _head(p, item)
    return re.sub(r"\s+", "", outline.strip_generics(head.split(" where ")[0]))


def namesake(p: Parsed, s: _Snippet, item: Item, scope: Item | None) -> Item | None:
    """The one definition of the file `item` stands for, None when it has none; raises
    TARGET_AMBIGUOUS when several fit equally."""
    fam = family(item.kind)
    if scope is not None:
        pool = [c for c in outline.kids(p, scope) if c.name == item.name]
    else:
        found = outline.named(p, {item.name})
        if found is None:
            found = outline.index(p)
        named = [i for i in found if i.name == item.name]
        if item.owner:
            pool = [i for i in named if i.owner == item.owner]
        elif _is_member(s, item):
            pool = [i for i in named if i.parent is not None and i.parent.kind in _OWNERS]
            pool = pool or [i for i in named if in_namespaces(i)]
        else:  # a plain function is not a method defined outside its type (Go, C++)
            pool = [i for i in named if in_namespaces(i) and not i.owner]
            pool = [i for i in pool if family(i.kind) == fam]
            if not pool and fam == "callable" and s.parsed.grammar.name not in _FREE:
                # a method shown unindented, in a language where that still parses
                pool = [i for i in named if i.parent is not None and i.parent.kind in _OWNERS]
            if not pool and fam == "callable":
                # a function local to another (a React component's `handleSubmit`)
                pool = [i for i in named if _in_callable(i)]
    pool = [i for i in pool if family(i.kind) == fam]
    if fam == "impl":  # `impl Display for Shape` is not `impl Shape`
        pool = [i for i in pool if _impl_head(p, i) == _impl_head(s.parsed, item)]
    if len(pool) > 1:  # a declaration (a TypeScript overload signature) loses to a definition
        pool = [i for i in pool if not i.weak] or pool
    if len(pool) > 1:
        head = _head(s.parsed, item)
        same = [i for i in pool if _head(p, i) == head]
        pool = same or pool
    if len(pool) > 1:
        raise _ambiguous(p, item, pool)
    return pool[0] if pool else None


_OWNERS = L.TYPES | L.IMPLS | frozenset({"module"})
# Languages whose functions all live in a class: a function in a snippet is a method.
_METHODS_ONLY = frozenset({"java", "csharp"})
# Languages where an unindented function is never a method: Python's methods take `self`,
# Go's have receivers, and a JavaScript method does not parse outside its class.
_FREE = frozenset({"python", "go", "javascript", "typescript", "tsx"})


def _in_callable(item: Item) -> bool:
    parent = item.parent
    while parent is not None:
        if parent.kind in L.CALLABLE:
            return True
        parent = parent.parent
    return False


def in_namespaces(item: Item) -> bool:
    """At the top of the file, or inside namespaces / modules only (C#'s `namespace Demo`
    around every class): where a snippet's outermost definition may stand."""
    parent = item.parent
    while parent is not None:
        if parent.kind != "module":
            return False
        parent = parent.parent
    return True


def _rows(p: Parsed, item: Item) -> tuple[int, int]:
    lay = spans.layers(p, item.node)
    return lay.outer_row + 1, lay.end_row + 1


def _ambiguous(p: Parsed, item: Item, pool: list[Item]) -> PlacementError:
    matches = [
        {
            "kind": i.kind,
            "name": i.name,
            "path": f"{i.owner}.{i.name}" if i.owner and i.parent is None else i.path,
            "lines": list(_rows(p, i)),
        }
        for i in pool
    ]
    where = ", ".join(f"{m['path']} (lines {m['lines'][0]}-{m['lines'][1]})" for m in matches)
    return refused(
        ErrorCode.TARGET_AMBIGUOUS,
        f"the snippet's {item.kind} `{item.name}` matches {len(pool)} definitions: {where}. "
        "Show it inside its class, or name the file's structure with TARGET_NODE",
        name=item.name,
        matches=matches,
    )


def _locate(p: Parsed, anchor: tuple[int, str] | None) -> Item | None:
    """The file's structure that starts at byte `anchor[0]` and is called `anchor[1]`:
    how a class being merged is found again after its members changed (edits inside a
    structure never move its start)."""
    if anchor is None:
        return None
    start, name = anchor
    found = outline.named(p, {name}) or outline.index(p)
    item = next((i for i in found if i.node.start_byte == start and i.name == name), None)
    if item is None:
        raise refused(
            ErrorCode.TARGET_NOT_FOUND,
            f"`{name}` could not be found again after the snippet's earlier definitions",
            name=name,
        )
    return item


# --------------------------------------------------------------------------- placing


@syntax.locked
def place_snippet(
    text: str,
    path: str,
    content: str,
    language: str | None = None,
    fuzzy_threshold: float = DEFAULT_FUZZY_THRESHOLD,
    rest: str | None = None,
) -> SnippetEdit:
    """The file `text` (at `path`) with the snippet `content` placed, or a refusal:
    TARGET_AMBIGUOUS, TARGET_NOT_FOUND (nothing in the snippet is a definition),
    TEXT_NOT_FOUND (a statement the ladder cannot place, a placeholder the merge cannot),
    LANGUAGE_UNSUPPORTED (no grammar for the file)."""
    grammar = syntax.grammar_for(path, language)
    s = read_snippet(content, grammar, path, text)
    s.rest = rest
    if not s.top:
        raise refused(
            ErrorCode.TARGET_NOT_FOUND,
            f"the snippet defines nothing {grammar.name} knows as a function, method or "
            f"class, so it cannot be placed in {path} by name; quote the lines to change "
            "(SEARCH/REPLACE)",
            path=path,
            language=grammar.name,
        )
    if len(s.top) > MAX_DEFINITIONS:
        raise refused(
            ErrorCode.CONTENT_TOO_LARGE,
            f"the snippet has {len(s.top)} definitions; a snippet is placed definition by "
            f"definition, up to {MAX_DEFINITIONS}: send the whole file, or a diff",
            definitions=len(s.top),
            limit=MAX_DEFINITIONS,
        )
    placements: list[Placement] = []
    restated: list[tuple[str, str]] = []  # imports the file has, under a new comment
    if s.imports:
        text = add_imports(text, path, grammar, s.imports, placements, restated)
    for k in range(len(s.top)):
        text = _place(text, path, grammar, s, s.top, k, None, placements)
    for code, commented in restated:
        try:
            done = apply_hunks(text, [Hunk(code, commented)], fuzzy_threshold=fuzzy_threshold)
        except PlacementError as err:
            raise refused(
                err.failure.code,
                f"the snippet restates {path}'s `{code.strip()[:80]}` under a comment the "
                f"file does not have, and that import cannot be told in the file: "
                f"{err.failure.message}",
                statement=commented,
                **{k: v for k, v in err.failure.details.items() if k != "state"},
            ) from None
        text = done.text
        placements.extend(as_snippet(pl) for pl in done.placements)
    text, placed = place_statements(text, path, grammar, s.statements, fuzzy_threshold)
    placements.extend(as_snippet(pl) for pl in placed)
    return SnippetEdit(text, tuple(placements))


def as_snippet(pl: Placement) -> Placement:
    return dataclasses.replace(pl, match=MatchKind.SNIPPET, score=1.0)


def _place(
    text: str,
    path: str,
    grammar: Grammar,
    s: _Snippet,
    siblings: list[Item],
    k: int,
    scope_anchor: tuple[int, str] | None,
    placements: list[Placement],
) -> str:
    """Place `siblings[k]` (inside the file's structure `scope_anchor`, or at the top)."""
    item = siblings[k]
    p = syntax.parse(text, grammar, path)
    scope = _locate(p, scope_anchor)
    twin = namesake(p, s, item, scope)
    if twin is None:
        return _insert_new(text, path, grammar, s, siblings, k, scope, placements)
    members = outline.kids(s.parsed, item)
    if item.kind in L.TYPES | L.IMPLS | {"module"}:
        theirs = {m.name for m in outline.kids(p, twin)}
        if (members or theirs) and (elides(s, item) or not theirs <= {m.name for m in members}):
            return _merge(text, path, grammar, s, item, twin, placements)
    code = _text_of(s, item)
    lay = spans.layers(p, twin.node)
    _check_extent(p, path, item, lay.outer_row, lay.end_row)
    # a multi-line string's text keeps its columns, as the snippet's own does (`_text_of`):
    # what the merge keeps of the file's definition is re-indented around it, never inside
    strings = {
        r - lay.outer_row for r in literals.string_rows(p) if lay.outer_row <= r <= lay.end_row
    }
    old = "\n".join(dedent(p.line_list()[lay.outer_row : lay.end_row + 1], strings)) + "\n"
    if elides(s, item):  # a body with `# ... existing code ...`: merge around them
        merged = lazy_merge.merge(old, code, path).text
        shown.check(old, code, merged, path)
        code = merged
    else:
        code = _cut_short(old, code, item, twin, s, grammar, lay.outer_row)
    edit = structure.replace_item(p, twin, code)
    placements.append(as_snippet(edit.placement))
    return restated_strings(p, strings, lay.outer_row, edit.text, edit.placement)


def _check_extent(p: Parsed, path: str, item: Item, first: int, last: int) -> None:
    """A definition is replaced over the rows the parser gives it. In a file broken at
    those rows, or on the next line of code when that line is indented into the
    definition, where it really ends is unknown (an orphaned indented line after a
    function is its body to the writer, top-level code to the parser): the snippet is
    refused rather than leave a tail twice."""
    broken = verify.error_rows(p)
    if not broken:
        return
    lines = p.line_list()
    after = next((r for r in range(last + 1, len(lines)) if lines[r].strip()), last)
    if width(indent_of(lines[after])) <= width(indent_of(lines[first])):
        after = last  # the next line of code is not indented into the definition
    hit = next((r for r in broken if r[0] <= after and r[1] >= first), None)
    if hit is None:
        return
    raise refused(
        ErrorCode.PARSER_FAILED,
        f"{path} has a syntax error at line {hit[0] + 1}, in or just after the file's "
        f"{item.kind} `{item.name}` (lines {first + 1}-{last + 1}), so where that "
        f"{item.kind} ends cannot be told and replacing it could leave part of it behind; "
        "nothing was written. Quote the lines to change (SEARCH/REPLACE), or fix the "
        "syntax error first",
        path=path,
        name=item.name,
        lines=[first + 1, last + 1],
        error_line=hit[0] + 1,
    )


def _cut_short(
    old: str, code: str, item: Item, twin: Item, s: _Snippet, grammar: Grammar, row: int
) -> str:
    """`code` for the file's definition `old`, or a refusal naming the readings when it
    stops short of the file's (or drops its docstring) with no marker: keep the rest, or
    replace it as written (`tails`)."""
    mine, theirs = code.rstrip("\n").split("\n"), old.rstrip("\n").split("\n")
    c = tails.cut(theirs, mine, grammar.spec.name == "python")
    if c is None or s.rest == "drop":
        return code
    if s.rest == "keep":
        return "\n".join(tails.keep_rest(theirs, mine, c)) + "\n"
    parts = []
    if c.tail is not None:
        a, b = c.tail
        parts.append(
            f"the file's goes on for {b - a} more line(s) (lines {row + a + 1}-{row + b}, "
            f"first `{theirs[a].strip()[:60]}`) that the snippet neither shows nor marks as "
            "left out"
        )
    if c.docstring is not None:
        a, b = c.docstring
        parts.append(f"the file's docstring (line {row + a + 1}) is not in the snippet")
    raise readings.ambiguous(
        f"the snippet's {item.kind} `{item.name}` may be cut short: " + "; and ".join(parts),
        [readings.keep_rest(item.name), readings.drop_rest(item.name)],
        name=item.name,
        lines=[row + 1, row + len(theirs)],
    )


def _merge(
    text: str,
    path: str,
    grammar: Grammar,
    s: _Snippet,
    item: Item,
    twin: Item,
    placements: list[Placement],
) -> str:
    """A class shown in part: its first line and each member it shows are placed in the
    file's class; what it leaves out stays. A line of its body that is none of these must
    already be in the file's class."""
    p = syntax.parse(text, grammar, path)
    members = outline.kids(s.parsed, item)
    _check_body_lines(p, s, item, twin, members)
    mine, theirs = s.parsed.first_line(item.node), p.first_line(twin.node)
    if outline.normalize_head(mine) != outline.normalize_head(theirs) and _same_opener(
        mine, theirs
    ):
        start = twin.node.start_byte
        end = start + len(syntax.encode(theirs))
        row = twin.node.start_point.row
        text = (p.src[:start] + syntax.encode(mine.strip()) + p.src[end:]).decode(
            "utf-8", "surrogatepass"
        )
        placements.append(Placement(row, row + 1, MatchKind.SNIPPET, 1.0, row + 1))
    anchor = (twin.node.start_byte, twin.name)
    for k in range(len(members)):
        text = _place(text, path, grammar, s, members, k, anchor, placements)
    return _restate_head(text, path, grammar, s, item, anchor, placements)


def _restate_head(
    text: str,
    path: str,
    grammar: Grammar,
    s: _Snippet,
    item: Item,
    anchor: tuple[int, str],
    placements: list[Placement],
) -> str:
    """The decorators and doc comment above a merged class, when the snippet restates them
    differently (`@dataclass` → `@dataclass(frozen=True)`); the file's stay otherwise."""
    first, _ = _span(s, item)
    mine = [s.raw[r] for r in range(first, item.node.start_point.row) if r not in s.placeholders]
    if not any(line.strip() for line in mine):
        return text
    p = syntax.parse(text, grammar, path)
    twin = _locate(p, anchor)
    if twin is None:
        return text
    lines = list(p.line_list())
    top, row = spans.layers(p, twin.node).outer_row, twin.node.start_point.row
    said = [normalise(x) for x in mine if x.strip()]
    if said == [normalise(x) for x in lines[top:row] if x.strip()]:
        return text
    convert = grammar.spec.convert_indent_units
    new = reindent("\n".join(dedent(mine)), indent_of(lines[row]), style_of(lines), convert)
    placements.append(Placement(top, row, MatchKind.SNIPPET, 1.0, top + len(new)))
    return "\n".join(lines[:top] + new + lines[row:])


def _same_opener(a: str, b: str) -> bool:
    """Both first lines open the body the same way (`{`, `:` or neither), so one can stand
    for the other without touching the body."""
    ends = ("{", ":")
    return next((e for e in ends if a.rstrip().endswith(e)), "") == next(
        (e for e in ends if b.rstrip().endswith(e)), ""
    )


def _check_body_lines(p: Parsed, s: _Snippet, item: Item, twin: Item, members: list[Item]) -> None:
    sp = s.parsed
    own = set()
    for m in members:
        lay = spans.layers(sp, m.node)
        own.update(range(lay.outer_row, lay.end_row + 1))
    start, end = spans.node_rows(sp, item.node)
    f_start, f_end = spans.node_rows(p, twin.node)
    theirs = {ln.strip() for ln in p.line_list()[f_start : f_end + 1]}
    for row in range(start + 1, end + 1):
        line = s.raw[row] if row < len(s.raw) else ""
        if row in own or row in s.placeholders or not line.strip() or _CLOSER.match(line):
            continue
        if line.strip() not in theirs:
            raise refused(
                ErrorCode.TEXT_NOT_FOUND,
                f"the snippet's line `{line.strip()[:80]}` in {item.kind} {item.name} is not a "
                f"definition and is not in the file's {twin.kind} {twin.name} "
                f"(lines {f_start + 1}-{f_end + 1}), so there is no telling where it goes; "
                "show the whole class, or quote the lines to change (SEARCH/REPLACE)",
                line=line.strip(),
                name=item.name,
            )


def _insert_new(
    text: str,
    path: str,
    grammar: Grammar,
    s: _Snippet,
    siblings: list[Item],
    k: int,
    scope: Item | None,
    placements: list[Placement],
) -> str:
    """A definition the file lacks: next to its nearest neighbour in the snippet that the
    file has, else at the end of its class or of the file."""
    p = syntax.parse(text, grammar, path)
    code = _text_of(s, siblings[k])
    if elides(s, siblings[k]):
        raise refused(
            ErrorCode.TEXT_NOT_FOUND,
            f"the snippet's {siblings[k].kind} `{siblings[k].name}` is not in {path} and leaves "
            "code out with placeholder lines, so there is nothing to merge it with",
            name=siblings[k].name,
        )
    prev = _nearest(p, s, siblings, range(k - 1, -1, -1), scope)
    nxt = _nearest(p, s, siblings, range(k + 1, len(siblings)), scope)
    if prev is not None and nxt is not None and not neighbours.adjacent(p, prev[1], nxt[1]):
        # shown between two definitions the file keeps apart: after the one or before the
        # other are different files, unless a placeholder says which side the file's stay
        left = neighbours.elided_between(s.placeholders, siblings[prev[0]], siblings[k])
        right = neighbours.elided_between(s.placeholders, siblings[k], siblings[nxt[0]])
        if left == right:
            raise neighbours.apart(path, siblings[k], prev[1], nxt[1])
        prev = None if left else prev
    near = prev or nxt
    if near is not None:
        edit = structure.insert_next_to(p, near[1], code, before=near is nxt)
        placements.append(as_snippet(edit.placement))
        return edit.text
    if scope is not None:
        return _append_to_scope(p, scope, code, placements)
    item = siblings[k]
    if _is_member(s, item) and not item.owner:
        raise refused(
            ErrorCode.TARGET_NOT_FOUND,
            f"the snippet's {item.kind} `{item.name}` is a member of a class, but {path} has "
            "no such member and the snippet shows neither its class nor a neighbour the "
            "file has; show it inside its class",
            name=item.name,
        )
    return _append_to_file(p, path, code, placements)


def _nearest(
    p: Parsed, s: _Snippet, siblings: list[Item], order: range, scope: Item | None
) -> tuple[int, Item] | None:
    """The first of `siblings` (in `order`) the file has, with the file's definition."""
    for j in order:
        try:
            near = namesake(p, s, siblings[j], scope)
        except PlacementError:
            near = None
        if near is not None:
            return j, near
    return None


def _append_to_scope(p: Parsed, scope: Item, code: str, placements: list[Placement]) -> str:
    kids = outline.kids(p, scope)
    if kids:
        edit = structure.insert_next_to(p, kids[-1], code, before=False)
        placements.append(as_snippet(edit.placement))
        return edit.text
    lines = list(p.line_list())
    start, end = spans.node_rows(p, scope.node)
    style = style_of(lines) or (" ", 4)
    unit = "\t" if style[0] == "\t" else " " * style[1]
    row = end if end > start and _CLOSER.match(lines[end]) else end + 1
    new = reindent(code, indent_of(lines[start]) + unit, style, p.grammar.spec.convert_indent_units)
    out = lines[:row] + new + lines[row:]
    placements.append(Placement(row, row, MatchKind.SNIPPET, 1.0, row + len(new)))
    return "\n".join(out)


def _append_to_file(p: Parsed, path: str, code: str, placements: list[Placement]) -> str:
    """At the end of the file; in Python, before a trailing `if __name__ == ...` block."""
    root = p.tree.root_node
    last = root.named_children[-1] if root.named_children else None
    lines = list(p.line_list())
    if last is not None and last.type == "if_statement" and _MAIN_GUARD.match(p.first_line(last)):
        row = last.start_point.row
        while row > 0 and lines[row - 1].lstrip().startswith("#"):
            row -= 1
        head = lines[:row]
        while head and not head[-1].strip():
            head.pop()
        sep = [""] * p.grammar.spec.top_blank_lines
        new = reindent(code, "", style_of(lines), p.grammar.spec.convert_indent_units)
        first = len(head) + (len(sep) if head else 0)
        out = head + (sep if head else []) + new + sep + lines[row:]
        placements.append(Placement(row, row, MatchKind.SNIPPET, 1.0, first + len(new)))
        return "\n".join(out)
    new_text, (first, last_row) = structure.insert_code(p.text, path, code, "end", None)
    placements.append(Placement(first - 1, first - 1, MatchKind.SNIPPET, 1.0, last_row))
    return new_text
