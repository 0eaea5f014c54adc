"""Issue 22 items 3-5, 9 and 10: what a merge may change, and what it must refuse."""

from __future__ import annotations

from lsp_server.model import ErrorCode
from tests.merge.support import plan, refused, written

# --- item 4: a changed import replaces the file's ---------------------------------------------

MODELS = """from app.models import Table, Cell
from app.db import session


def load(table_id):
    return session.get(Table, table_id)
"""


def test_an_import_of_the_same_module_with_more_names_replaces_the_files(tmp_path):
    reply = (
        "In `app/load.py`:\n\n```python\n"
        "from app.models import Table, Cell, Context, Dimension\n\n\n"
        "def load(table_id):\n    return session.get(Table, table_id, Context)\n```\n"
    )
    out = written(plan(tmp_path, {"app/load.py": MODELS}, reply), "app/load.py")
    assert out.count("from app.models import") == 1
    assert "from app.models import Table, Cell, Context, Dimension\n" in out
    assert "session.get(Table, table_id, Context)" in out


def test_the_same_import_in_other_quotes_and_order_is_the_same_import(tmp_path):
    file = (
        "import { b, a } from './x';\n\nexport function f() {\n  return a + b;\n}\n\n"
        "export function g() {\n  return 1;\n}\n"
    )
    reply = (
        'In `m.ts`:\n\n```ts\nimport { a, b } from "./x"\n\n'
        "export function f() {\n  return a * b;\n}\n```\n"
    )
    out = written(plan(tmp_path, {"m.ts": file}, reply), "m.ts")
    assert out == file.replace("a + b", "a * b")


def test_an_import_with_fewer_names_adds_only_the_new_ones(tmp_path):
    file = "from m import a, b\n\n\ndef f():\n    return a + b\n\n\ndef g():\n    return 1\n"
    reply = "In `x.py`:\n\n```python\nfrom m import a, c\n\n\ndef f():\n    return a + c\n```\n"
    out = written(plan(tmp_path, {"x.py": file}, reply), "x.py")
    assert [ln for ln in out.split("\n") if "import" in ln] == [
        "from m import a, b",
        "from m import c",
    ]


def test_imports_read_as_one_idea():
    from lsp_server.resolve.merge import imports

    same = [
        "import type { Metadata } from 'next'",
        'import type { Metadata } from "next";',
        "import type {Metadata} from  'next' ;",
    ]
    assert len({imports.normalise_import(x) for x in same}) == 1
    assert imports.normalise_import("from a import x, y") == imports.normalise_import(
        "from a import (y,\n    x)"
    )
    assert imports.normalise_import("use std::io::{Read, Write};") == imports.normalise_import(
        "use std::io::{Write, Read};"
    )


# --- item 5: bytes not asked for change ----------------------------------------------------


def test_restated_lines_keep_their_trailing_whitespace_and_indented_blank_lines(tmp_path):
    file = (
        "class A:\n    def f(self):  \n        x = 1\n        \n        return x\n\n"
        "    def g(self):\n        return 2\n"
    )
    reply = (
        "In `a.py`:\n\n```python\n    def f(self):\n        x = 1\n\n        return x + 1\n```\n"
    )
    out = written(plan(tmp_path, {"a.py": file}, reply), "a.py")
    assert out == file.replace("return x\n", "return x + 1\n")


# --- item 9: a real comment is not a placeholder ------------------------------------------

NETRC = """import os


def read_netrc(path):
    try:
        data = open(path).read()
    except OSError:
        # Issue while reading the netrc file, ignore...
        data = ""
    return data


def other():
    return 1
"""


def test_a_comment_that_trails_off_is_a_comment(tmp_path):
    reply = (
        "In `auth.py`:\n\n```python\ndef read_netrc(path):\n    try:\n"
        '        data = open(path, encoding="utf-8").read()\n'
        "    except (OSError, UnicodeDecodeError):\n"
        "        # Issue while reading the netrc file, ignore...\n"
        "        data = None\n    return data\n```\n"
    )
    out = written(plan(tmp_path, {"auth.py": NETRC}, reply), "auth.py")
    assert out == NETRC.replace("open(path)", 'open(path, encoding="utf-8")').replace(
        "except OSError:", "except (OSError, UnicodeDecodeError):"
    ).replace('data = ""', "data = None")


def test_the_files_own_placeholder_shaped_comment_is_that_comment(tmp_path):
    file = (
        "def f():\n    a = 1\n    # ... rest unchanged\n    return a\n\n\ndef g():\n    return 2\n"
    )
    reply = (
        "m.py\n```python\ndef f():\n    a = 2\n    # ... rest unchanged\n    return a\n\n\n"
        "def g():\n    return 2\n```\n"
    )
    out = written(plan(tmp_path, {"m.py": file}, reply), "m.py")
    assert out == file.replace("a = 1", "a = 2")


# --- items 3 and 10: results that do not parse -------------------------------------------------


def test_python_rejects_an_orphaned_block_tree_sitter_accepts():
    from lsp_server.resolve.merge import verify

    old = "def f(x):\n    if x:\n        return 1\n    return 2\n"
    new = "def f(x):\n    if x:\n        return 1\n    return 2\n        return 3\n"
    assert verify.new_errors(old, new, "m.py")
    assert verify.python_rejects(old, new) is not None
    assert not verify.new_errors(old, old.replace("2", "4"), "m.py")


def test_a_whole_file_cut_short_is_refused_not_written_broken(tmp_path):
    file = (
        "export function a(x: number): number {\n  return x + 1;\n}\n\n"
        "export function b(x: number): number {\n  const y = x * 2;\n  return y;\n}\n"
    )
    reply = (
        "src/m.ts\n```ts\nexport function a(x: number): number {\n  return x + 2;\n}\n\n"
        "export function b(x: number): number {\n  const y = x * 2;\n```\n"
    )
    failure = refused(plan(tmp_path, {"src/m.ts": file}, reply), ErrorCode.PARSER_FAILED)
    assert "syntax errors it did not have" in failure.message


def test_a_target_node_on_a_markdowns_last_section_keeps_the_final_newline(tmp_path):
    md = "# Title\n\nIntro.\n\n## Usage\n\nOld usage.\n\n## License\n\nMIT\n"
    reply = (
        "```markdown\n<!-- FILE: README.md -->\n<!-- TARGET_NODE: License -->\n"
        "## License\n\nApache-2.0\n```\n"
    )
    out = written(plan(tmp_path, {"README.md": md}, reply), "README.md")
    assert out == md.replace("MIT", "Apache-2.0")
