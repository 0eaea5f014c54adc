"""Structure operations: replace, insert next to, delete, move or read the structure a
`TARGET_NODE` names, or edit text inside it; and the checks run after an edit.

Text anchors break on nested, repetitive code (closing braces, JSX, JSON). A structural
target names a node instead, `targets` finds exactly that node (or refuses), `spans` says
which bytes belong to it, and the operations here replace exactly those bytes. New code
arrives at column 0 as often as not; it is re-indented to the node's indentation in the
file's own style, keeping its relative indentation (`indent.reindent`). In JSON, YAML and
TOML files the target is a data path and `data_paths` does the edit.

Every operation is pure (text in, text out) and refuses with a PlacementError whose
details say the file is unchanged. Grammars and `tree_sitter` are loaded on first use
(see `syntax`), so importing this module stays cheap.
"""

from __future__ import annotations

from typing import Any

from lsp_server.model import ErrorCode, MatchKind, Placement, PlanWarning, Target, WarningType
from lsp_server.resolve import data_paths, literals, outline, spans, syntax, targets
from lsp_server.resolve.indent import Style, dedent, indent_of, reindent, style_of
from lsp_server.resolve.outcome import StructureEdit, refused
from lsp_server.resolve.outline import Item
from lsp_server.resolve.syntax import Grammar, Parsed

# Operations a Target may ask for (Target.operation).
OPERATIONS = (
    "replace_structure",
    "insert_before_structure",
    "insert_after_structure",
    "delete_structure",
    "read_structure",
    "replace_text_in_structure",
    "replace_all_text_in_structure",
    "move_structure_to_before",
    "move_structure_to_after",
    "move_structure_to_file_start",
    "move_structure_to_file_end",
)


def _option(options: dict[str, Any], *names: str) -> Any:
    for name in names:
        if name in options and options[name] is not None:
            return options[name]
    return None


def _content_lines(content: str | None) -> list[str]:
    return (content or "").replace("\r\n", "\n").split("\n")


def _data_path(target: Target) -> str:
    """The data path a target names: TARGET_PATH, or TARGET_NODE levels joined by dots."""
    return target.data_path if target.data_path is not None else ".".join(targets.levels_of(target))


def _join(lines: list[str]) -> str:
    return "\n".join(lines)


def _file_style_near(p: Parsed, row: int) -> Style | None:
    """The indentation style around `row` (the file's first lines when that is unclear),
    read from its code: the text of multi-line strings is not the file's style."""
    lines = p.line_list()
    lo, hi = max(0, row - 300), min(len(lines), row + 300)
    strings = literals.string_rows(p)
    near = {r - lo for r in strings if lo <= r < hi}
    return style_of(lines[lo:hi], near) or style_of(lines[: min(len(lines), 2000)], strings)


def _reindented(p: Parsed, content: str, indent: str, style: Style | None) -> list[str]:
    """`content` re-indented at `indent`, the text of its multi-line strings untouched."""
    content = content.replace("\r\n", "\n")
    rows = literals.string_rows_of(content, p.grammar, p.key)
    return reindent(content, indent, style, p.grammar.spec.convert_indent_units, rows)


def _with_eol(text: str, fn: Any) -> Any:
    """Run an edit on "\\n" text; CRLF files are converted back afterwards."""
    if "\r\n" not in text:
        return fn(text, False)
    return fn(text.replace("\r\n", "\n"), True)


def _crlf(s: str, on: bool) -> str:
    return s.replace("\n", "\r\n") if on else s


@syntax.locked
def apply_structure(
    text: str,
    path: str,
    target: Target,
    content: str | None = None,
    language: str | None = None,
) -> StructureEdit:
    """Perform `target.operation` on the node `target` names in `text`.

    Pure: text in, text out. Raises PlacementError with TARGET_NOT_FOUND,
    TARGET_AMBIGUOUS, LANGUAGE_UNSUPPORTED, PARSER_FAILED, TEXT_NOT_FOUND,
    TEXT_AMBIGUOUS or COUNT_MISMATCH (every failure's details say FILE_UNCHANGED).
    """
    grammar = syntax.grammar_for(path, language)

    def run(t: str, crlf: bool) -> StructureEdit:
        edit = _apply(t, path, grammar, target, content)
        if not crlf:
            return edit
        return StructureEdit(_crlf(edit.text, True), edit.placement, edit.result, edit.moved)

    return _with_eol(text, run)


def _apply(
    text: str, path: str, grammar: Grammar, target: Target, content: str | None
) -> StructureEdit:
    op = target.operation or "replace_structure"
    if op not in OPERATIONS:
        raise refused(
            ErrorCode.MALFORMED_BLOCK,
            f"unknown structure operation `{op}`; expected one of {', '.join(OPERATIONS)}",
            operation=op,
            operations=list(OPERATIONS),
        )
    if grammar.spec.data and (
        target.data_path is not None or not grammar.structures or target.node
    ):
        dpath = _data_path(target)
        return data_paths.apply_data_path(
            text, grammar.name, dpath, op, content, target.options, key=path
        )
    if target.data_path is not None and not target.node:
        raise refused(
            ErrorCode.LANGUAGE_UNSUPPORTED,
            f"TARGET_PATH works in JSON, YAML and TOML files; {path} is {grammar.name}. "
            "Use TARGET_NODE to name a structure.",
            path=path,
            language=grammar.name,
            supported=["json", "yaml", "toml"],
        )
    p = syntax.parse(text, grammar, path)
    levels = targets.levels_of(target)
    item = targets.resolve_one(p, levels)
    if op == "read_structure":
        lay = spans.layers(p, item.node)
        return StructureEdit(
            text,
            Placement(
                lay.outer_row, lay.end_row + 1, MatchKind.STRUCTURAL, new_end_line=lay.end_row + 1
            ),
            {"lines": [lay.outer_row + 1, lay.end_row + 1]},
        )
    if op == "replace_structure":
        if not (content or "").strip():
            return _delete(p, item)
        return replace_item(p, item, content or "")
    if op == "delete_structure":
        return _delete(p, item)
    if op in ("insert_before_structure", "insert_after_structure"):
        return insert_next_to(p, item, content or "", before=op == "insert_before_structure")
    if op in ("replace_text_in_structure", "replace_all_text_in_structure"):
        return _replace_text(p, item, target.options, all_of=op.startswith("replace_all"))
    return _move_within(p, item, target, levels)


def replace_item(p: Parsed, item: Item, content: str) -> StructureEdit:
    """`item` replaced by `content` (the layers it restates: see `spans.region_for`),
    re-indented to the item's indentation in the file's style."""
    raw = _content_lines(content)
    region = spans.region_for(p, item, raw)
    lines = p.line_list()
    indent = indent_of(lines[region.start_row])
    style = _file_style_near(p, region.start_row)
    new_lines = _reindented(p, content, indent, style)
    new_text = spans.splice(p, region, new_lines, indent)
    if new_text and p.text.endswith("\n") and not new_text.endswith("\n"):
        # a node that ends the file (a Markdown last section) holds its final newline:
        # the file keeps it, it was not asked to change
        new_text += "\n"
    new_end = region.start_row + len(new_lines)
    return StructureEdit(
        new_text,
        Placement(region.start_row, region.end_row + 1, MatchKind.STRUCTURAL, new_end_line=new_end),
        {
            "lines": [region.start_row + 1, new_end],
            "affected_lines": [region.start_row + 1, new_end],
            "original_lines": [region.start_row + 1, region.end_row + 1],
        },
    )


def _delete(p: Parsed, item: Item) -> StructureEdit:
    lay = spans.layers(p, item.node)
    top = item.node if item.block else lay.chain[-1]
    start = top.start_point.row if item.block else lay.outer_row
    end_byte = item.node.end_byte if item.block else lay.end_byte
    row0 = top.start_point.row
    before = p.src[spans.line_start_byte(p, row0) : top.start_byte]
    eol = p.src.find(b"\n", end_byte)
    eol = len(p.src) if eol < 0 else eol
    after = p.src[end_byte:eol].strip()
    if before.strip() or after not in (b"", b";", b",", b";;"):
        # shares its lines with other code: cut only its own bytes
        new_text = (p.src[: top.start_byte] + p.src[end_byte:]).decode("utf-8", "surrogatepass")
        last = spans.row_of_byte(p, max(end_byte - 1, top.start_byte))
        return StructureEdit(
            new_text,
            Placement(row0, last + 1, MatchKind.STRUCTURAL, new_end_line=row0 + 1),
            {"deleted_line_range_inclusive": [row0 + 1, last + 1], "lines": [row0 + 1, last + 1]},
        )
    end = spans.row_of_byte(p, max(end_byte - 1, top.start_byte))
    kept, gap = spans.delete_rows(list(p.line_list()), start, end)
    return StructureEdit(
        _join(kept),
        Placement(start, end + 1, MatchKind.STRUCTURAL, new_end_line=start),
        {
            "deleted_line_range_inclusive": [start + 1, end + 1],
            "lines": [start + 1, end + 1],
            "now_at_line": gap + 1,
        },
    )


def insert_next_to(p: Parsed, item: Item, content: str, before: bool) -> StructureEdit:
    """`content` inserted before (or after) `item` with its doc comments and decorators, at
    its indentation, separated by the blank lines its neighbours use."""
    lay = spans.layers(p, item.node)
    lines = list(p.line_list())
    start, end = lay.outer_row, lay.end_row
    if item.block:
        start = item.node.start_point.row
    indent = indent_of(lines[start])
    style = _file_style_near(p, start)
    new_lines = _reindented(p, content, indent, style)
    if not new_lines:
        raise refused(
            ErrorCode.MALFORMED_BLOCK,
            "nothing to insert: the block's code is empty",
            lines=[start + 1, end + 1],
        )
    sep = spans.separator(p, item, start, end)
    if before:
        out = lines[:start] + new_lines + [""] * sep + lines[start:]
        inserted_at = start
        target_now = start + len(new_lines) + sep
        placement = Placement(
            start, end + 1, MatchKind.STRUCTURAL, new_end_line=end + 1 + len(new_lines) + sep
        )
    else:
        out = lines[: end + 1] + [""] * sep + new_lines + lines[end + 1 :]
        inserted_at = end + 1 + sep
        target_now = start
        placement = Placement(
            start, end + 1, MatchKind.STRUCTURAL, new_end_line=end + 1 + sep + len(new_lines)
        )
    return StructureEdit(
        _join(out),
        placement,
        {
            "inserted_at_line": inserted_at + 1,
            "inserted_lines": [inserted_at + 1, inserted_at + len(new_lines)],
            "target_now_at_line": target_now + 1,
            "lines": [inserted_at + 1, inserted_at + len(new_lines)],
        },
    )


def _replace_text(p: Parsed, item: Item, options: dict[str, Any], all_of: bool) -> StructureEdit:
    old = _option(options, "old_text", "oldText", "old", "search", "old_str", "find", "text")
    new = _option(options, "new_text", "newText", "new", "replace", "new_str", "replacement")
    lay = spans.layers(p, item.node)
    s_row, e_row = lay.outer_row, lay.end_row
    lines = p.line_list()
    struct_lines = [s_row + 1, e_row + 1]
    if not isinstance(old, str) or old == "":
        raise refused(
            ErrorCode.TEXT_NOT_FOUND,
            "replace_text_in_structure needs a non-empty `old_text`",
            structure_lines=struct_lines,
        )
    new = new if isinstance(new, str) else ""
    old = old.replace("\r\n", "\n")
    new = new.replace("\r\n", "\n")
    segment = "\n".join(lines[s_row : e_row + 1])
    positions = []
    at = segment.find(old)
    while at >= 0:
        positions.append(at)
        at = segment.find(old, at + max(len(old), 1))
    occurrence_lines = [s_row + 1 + segment.count("\n", 0, pos) for pos in positions]
    expected = _option(options, "expected_count", "expectedCount", "expected_replacements")
    if not positions and not (all_of and expected == 0):
        raise refused(
            ErrorCode.TEXT_NOT_FOUND,
            f"the text to replace does not occur inside lines {struct_lines[0]}-{struct_lines[1]}",
            structure_lines=struct_lines,
            old_text=old,
        )
    if not all_of and len(positions) > 1:
        raise refused(
            ErrorCode.TEXT_AMBIGUOUS,
            f"the text to replace occurs {len(positions)} times inside lines "
            f"{struct_lines[0]}-{struct_lines[1]} (at lines "
            f"{', '.join(map(str, occurrence_lines))}); give more context or use "
            "replace_all_text_in_structure",
            structure_lines=struct_lines,
            matches=occurrence_lines,
        )
    if all_of and expected is not None and int(expected) != len(positions):
        raise refused(
            ErrorCode.COUNT_MISMATCH,
            f"expected {expected} occurrences inside lines {struct_lines[0]}-{struct_lines[1]}, "
            f"found {len(positions)}",
            structure_lines=struct_lines,
            expected_count=int(expected),
            found=len(positions),
            matches=occurrence_lines,
        )
    replaced = segment.replace(old, new) if all_of else segment.replace(old, new, 1)
    out = lines[:s_row] + replaced.split("\n") + lines[e_row + 1 :]
    new_end = e_row + 1 + (replaced.count("\n") - segment.count("\n"))
    return StructureEdit(
        _join(out),
        Placement(s_row, e_row + 1, MatchKind.STRUCTURAL, new_end_line=new_end),
        {
            "total_replacements": len(positions),
            "affected_lines": sorted(set(occurrence_lines)),
            "structure_lines": struct_lines,
            "lines": [s_row + 1, new_end],
        },
    )


def _extract(p: Parsed, item: Item) -> tuple[list[str], int, int]:
    lay = spans.layers(p, item.node)
    lines = p.line_list()
    start = item.node.start_point.row if item.block else lay.outer_row
    return lines[start : lay.end_row + 1], start, lay.end_row


def _dedent(block: list[str]) -> str:
    """A structure's lines as code that can be inserted anywhere: shared indentation
    removed (from blank lines too: a blank line's white space moves with its code, see
    `indent.reindent`), "\\n" endings."""
    if not any(ln.strip() for ln in block):
        return ""
    return "\n".join(dedent(block)) + "\n"


def move_destination(target: Target) -> tuple[str | None, list[str]]:
    """Where a `move_structure_to_*` goes: (destination file or None for the same file,
    destination levels). Reads `options.destination` (levels as a list, or a string with
    one level per line / `A > b`, or `{"path": ..., "node": ...}`) and
    `options.destination_path`. A different path means a cross-file move, which the plan
    applies with `remove_structure` + `insert_code`."""
    opts = target.options
    dest = _option(opts, "destination", "destination_target", "to", "anchor", "before", "after")
    dest_path = _option(opts, "destination_path", "destination_file", "to_path", "to_file")
    if isinstance(dest, dict):
        dest_path = dest_path or _option(dest, "path", "file")
        dest = _option(dest, "node", "target", "target_node", "structure")
    levels: list[str] = []
    if isinstance(dest, str):
        levels = targets.levels_of(Target(node=tuple(x for x in dest.split("\n") if x.strip())))
    elif isinstance(dest, list | tuple):
        levels = [str(x) for x in dest]
    return (str(dest_path) if dest_path else None), levels


def file_start_row(p: Parsed) -> int:
    """The first line after the file's preamble (shebang, package, imports, includes)."""
    row = 0
    for child in p.tree.root_node.named_children:
        t = child.type
        kids = child.named_children
        directive = t == "string" or (
            t == "expression_statement" and len(kids) == 1 and "string" in kids[0].type
        )
        if (
            directive  # a module docstring, "use strict"
            or any(
                w in t for w in ("import", "package", "include", "use_", "php_tag", "namespace_use")
            )
            or ("comment" in t and child.start_point.row == row)
        ):
            row = spans.node_rows(p, child)[1] + 1
            lines = p.line_list()
            while row < len(lines) and not lines[row].strip():
                row += 1
            continue
        break
    return row


@syntax.locked
def insert_code(
    text: str,
    path: str,
    code: str,
    where: str,
    anchor: list[str] | None = None,
    language: str | None = None,
) -> tuple[str, list[int]]:
    """Insert a structure's code `before`/`after` the `anchor` structure, or at the file's
    `start`/`end`, re-indented and with the language's blank-line convention.

    Returns the new text and the inserted lines (1-based, inclusive). Used for moves
    within a file and, with `remove_structure`, for moves across files.
    """
    grammar = syntax.grammar_for(path, language)

    def run(t: str, crlf: bool) -> tuple[str, list[int]]:
        out, rng = _insert_code(t, path, grammar, code, where, anchor)
        return _crlf(out, crlf), rng

    return _with_eol(text, run)


def _insert_code(
    text: str, path: str, grammar: Grammar, code: str, where: str, anchor: list[str] | None
) -> tuple[str, list[int]]:
    p = syntax.parse(text, grammar, path)
    if where in ("before", "after"):
        item = targets.resolve_one(p, list(anchor or ()))
        edit = insert_next_to(p, item, code, before=where == "before")
        return edit.text, edit.result["inserted_lines"]
    lines = list(p.line_list())
    style = _file_style_near(p, 0)
    new_lines = reindent(code, "", style, grammar.spec.convert_indent_units)
    sep = grammar.spec.top_blank_lines
    if where == "start":
        row = file_start_row(p)
        if row >= len(lines) or (row == len(lines) - 1 and not lines[row]):
            before = [""] * sep if row > 0 else []
            out = lines[:row] + before + new_lines + [""]
            first = row + len(before)
        else:
            gap = [""] * sep
            lead = [""] * sep if row > 0 and lines[row - 1].strip() else []
            out = lines[:row] + lead + new_lines + gap + lines[row:]
            first = row + len(lead)
    else:
        body = lines[:]
        trailing_newline = bool(body) and body[-1] == ""
        if trailing_newline:
            body.pop()
        while body and not body[-1].strip():
            body.pop()
        lead = [""] * sep if body else []
        out = body + lead + new_lines + [""]
        first = len(body) + len(lead)
    return _join(out), [first + 1, first + len(new_lines)]


@syntax.locked
def remove_structure(
    text: str, path: str, target: Target, language: str | None = None
) -> tuple[str, str, list[int]]:
    """Cut the structure `target` names: the new text, the removed code (dedented, with
    "\\n" endings) and its original lines (1-based, inclusive)."""
    grammar = syntax.grammar_for(path, language)

    def run(t: str, crlf: bool) -> tuple[str, str, list[int]]:
        p = syntax.parse(t, grammar, path)
        levels = targets.levels_of(target)
        item = targets.resolve_one(p, levels)
        block, s, e = _extract(p, item)
        edit = _delete(p, item)
        return _crlf(edit.text, crlf), _dedent(block), [s + 1, e + 1]

    return _with_eol(text, run)


def _move_within(p: Parsed, item: Item, target: Target, levels: list[str]) -> StructureEdit:
    op = target.operation
    block, s, e = _extract(p, item)
    code = _dedent(block)
    dest_path, dest_levels = move_destination(target)
    if dest_path is not None and dest_path.replace("\\", "/").lstrip("./") != p.key.lstrip("./"):
        raise refused(
            ErrorCode.TARGET_NOT_FOUND,
            f"{op} into another file ({dest_path}) changes two files; it is applied by the "
            "plan (remove_structure + insert_code), not inside one file",
            target=levels,
            destination_path=dest_path,
        )
    if op in ("move_structure_to_before", "move_structure_to_after"):
        if not dest_levels:
            raise refused(
                ErrorCode.TARGET_NOT_FOUND,
                f"{op} needs a destination structure (options.destination)",
                target=levels,
                parent_found=None,
                suggestions=[],
            )
        dest = targets.resolve_one(p, dest_levels)
        if (
            dest.node.start_byte >= item.node.start_byte
            and dest.node.end_byte <= item.node.end_byte
        ):
            raise refused(
                ErrorCode.TARGET_NOT_FOUND,
                "the destination lies inside the structure being moved",
                target=levels,
                destination=dest_levels,
            )
    removed = _delete(p, item)
    where = {
        "move_structure_to_before": "before",
        "move_structure_to_after": "after",
        "move_structure_to_file_start": "start",
        "move_structure_to_file_end": "end",
    }[op]
    new_text, rng = _insert_code(removed.text, p.key, p.grammar, code, where, dest_levels)
    return StructureEdit(
        new_text,
        Placement(s, e + 1, MatchKind.STRUCTURAL, new_end_line=s),
        {
            "source_original_line_range": [s + 1, e + 1],
            "destination_final_line_range": rng,
            "lines": rng,
        },
        moved=code,
    )


@syntax.locked
def read_structure(
    text: str, path: str, target: Target, language: str | None = None
) -> list[dict[str, Any]]:
    """Every structure the target names (no uniqueness required), with lines and text."""
    grammar = syntax.grammar_for(path, language)
    text_n = text.replace("\r\n", "\n")
    if grammar.spec.data and (target.data_path is not None or target.node):
        return [data_paths.read_data_path(text_n, grammar.name, _data_path(target), key=path)]
    p = syntax.parse(text_n, grammar, path)
    levels = targets.levels_of(target)
    if not levels:
        return []
    found, _ = targets.resolve_path(p, levels, all_matches=True)
    out = []
    lines = p.line_list()
    for item in found:
        lay = spans.layers(p, item.node)
        start = item.node.start_point.row if item.block else lay.outer_row
        out.append(
            {
                "kind": targets.describe(item),
                "name": item.name,
                "path": item.path if not item.block else item.name,
                "lines": [start + 1, lay.end_row + 1],
                "text": "\n".join(lines[start : lay.end_row + 1]) + "\n",
            }
        )
    return out


@syntax.locked
def structural_warnings(
    old_text: str,
    new_text: str,
    path: str,
    placement: Placement | None = None,
    language: str | None = None,
) -> list[PlanWarning]:
    """Checks after an edit: SYNTAX_BROKEN (new errors, or errors that were already
    there), STRUCTURE_EMPTY (a structure in the edited span lost all its code),
    INDENTATION_INCONSISTENT (the edit mixed tabs and spaces where the file did not)."""
    name = syntax.language_for(path, language)
    if name is None:
        return []
    warnings: list[PlanWarning] = []
    before = syntax.syntax_errors(old_text, path + "\x00old", name)
    after = syntax.syntax_errors(new_text, path, name)
    if len(after) > len(before):
        where = ", ".join(f"{e['line']}:{e['column']}" for e in after[:5])
        warnings.append(
            PlanWarning(
                WarningType.SYNTAX_BROKEN,
                f"the edit introduced syntax errors in {path} (at {where})",
                path,
            )
        )
    elif before:
        where = ", ".join(str(e["line"]) for e in before[:5])
        warnings.append(
            PlanWarning(
                WarningType.SYNTAX_BROKEN,
                f"{path} already had syntax errors before the edit (lines {where}); the "
                "structure's boundaries come from error recovery",
                path,
            )
        )
    new_n = new_text.replace("\r\n", "\n")
    if placement is not None:
        p = syntax.parse(new_n, syntax.grammar(name), path)
        lo = placement.start_line
        hi = placement.new_end_line if placement.new_end_line is not None else placement.end_line
        stop = max(hi, lo + 1)
        lo_byte = spans.line_start_byte(p, lo)
        hi_byte = spans.line_start_byte(p, stop) if stop < len(p.line_list()) else len(p.src) + 1
        for item in outline.starting_in(p, lo_byte, hi_byte):
            row = item.node.start_point.row
            if not lo <= row < max(hi, lo + 1):
                continue
            body = item.node.child_by_field_name("body")
            if body is not None and not [c for c in body.named_children if "comment" not in c.type]:
                warnings.append(
                    PlanWarning(
                        WarningType.STRUCTURE_EMPTY,
                        f"{item.kind} {item.name} in {path} has no code left (line {row + 1})",
                        path,
                    )
                )
        lines = new_n.split("\n")
        rest = lines[:lo] + lines[hi:]
        edited = lines[lo:hi]

        def mix(ls: list[str]) -> tuple[bool, bool]:
            tabs = any(indent_of(x).startswith("\t") for x in ls if x.strip())
            spaces = any(indent_of(x).startswith(" ") for x in ls if x.strip())
            return tabs, spaces

        r_tabs, r_spaces = mix(rest)
        e_tabs, e_spaces = mix(edited)
        if (e_tabs and r_spaces and not r_tabs) or (e_spaces and r_tabs and not r_spaces):
            warnings.append(
                PlanWarning(
                    WarningType.INDENTATION_INCONSISTENT,
                    f"the edited lines {lo + 1}-{hi} of {path} indent with "
                    f"{'tabs' if e_tabs else 'spaces'}; the rest of the file does not",
                    path,
                )
            )
    return warnings
