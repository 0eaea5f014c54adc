"""A merge whose result adds syntax errors the file did not have has read the reply wrong.

The check runs on every merge result (snippet, whole file, placeholders): tree-sitter's
error count must not grow, and for Python, Python's own parser must accept the result
whenever it accepted the file — tree-sitter's Python grammar recovers from an orphaned
indented block that `compile()` rejects. The caller refuses with the readings the block
allows. Pure.
"""

from __future__ import annotations

import ast
import functools
import warnings
from typing import Any

from lsp_server.model import PlacementError
from lsp_server.resolve import syntax, syntax_check

_PYTHON_MAX_CHARS = 4_000_000


def python_rejects(old: str, new: str) -> str | None:
    """Python's complaint about `new` when it accepts `old`, else None."""
    if len(new) > _PYTHON_MAX_CHARS or len(old) > _PYTHON_MAX_CHARS:
        return None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # SyntaxWarning for invalid escapes: not ours
        try:
            ast.parse(old)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            return None  # the file itself is not Python this interpreter reads
        try:
            ast.parse(new)
        except SyntaxError as err:
            return f"line {err.lineno}: {err.msg}"
        except (ValueError, RecursionError, MemoryError):
            return None
    return None


def error_rows(p: syntax.Parsed) -> list[tuple[int, int]]:
    """The 0-based row ranges where the parsed file is broken: tree-sitter's error nodes,
    and, for Python, where Python's own parser stops (an orphaned indented line that
    tree-sitter's grammar reads as top-level code is an error to Python only)."""
    rows = [(n.start_point.row, n.end_point.row) for n in syntax.error_nodes(p)]
    if p.grammar.name == "python":
        stop = _python_stop(p.text)
        if stop is not None:
            rows.append(stop)
    return rows


@functools.lru_cache(maxsize=4)
def _python_stop(text: str) -> tuple[int, int] | None:
    """Rows of the first syntax error Python's parser reports in `text`, if any (cached:
    every definition a snippet places asks about the same text)."""
    if len(text) > _PYTHON_MAX_CHARS:
        return None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            ast.parse(text)
        except SyntaxError as err:
            first = max((err.lineno or 1) - 1, 0)
            return first, max((err.end_lineno or err.lineno or 1) - 1, first)
        except (ValueError, RecursionError, MemoryError):
            return None
    return None


def new_errors(old: str, new: str, path: str, language: str | None = None) -> list[dict[str, Any]]:
    """The syntax errors `new` adds to `old` (empty: none, or no grammar to tell)."""
    if old == new:
        return []
    name = syntax.language_for(path, language)
    if name is None:
        return []
    found: list[dict[str, Any]] = []
    try:
        found = syntax_check.new_errors(old, new, path, name) or []
    except PlacementError:
        found = []
    if not found and name == "python":
        said = python_rejects(old, new)
        if said is not None:
            line = said.split(":")[0].removeprefix("line ")
            found = [{"line": int(line) if line.isdigit() else 0, "text": said, "by": "python"}]
    return found
