"""A chat snippet that rewrites part of a method between `# ... previous code ...` markers
(a real Cursor reply, `closup/process-xbrl`): a block it shows whole ends up as shown or the
snippet is refused; the method's docstring keeps its columns; a new method shown between two
the file keeps apart is not placed by guess."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from lsp_server.model import ErrorCode
from tests.merge.support import plan, refused, written

TABLE = '''import pandas as pd


class Table:
    def n_header_lines(self):
        return 1

    def reshape_data(self) -> None:
        """
        Process the sheet
        """
        raw_columns = self._df.iloc[self.n_header_lines()]

        # First, identify which columns to keep
        columns_to_keep = []
        for i, col in enumerate(raw_columns):
            column_data = self._df.iloc[:, i]
            if not column_data.isna().all():
                columns_to_keep.append(i)

        # Keep only non-hidden columns
        self._df = self._df.iloc[:, columns_to_keep]
        for i, col in enumerate(raw_columns):
            print(i, col)
        return None
'''

LOOP = """    for i, col in enumerate(raw_columns):
        column_data = self._df.iloc[:, i]
{body}
"""


def _reply(body: str) -> str:
    return (
        "In `table.py`:\n\n```python\ndef reshape_data(self) -> None:\n"
        "    # ... previous code ...\n\n"
        "    # First, identify which columns to keep\n    columns_to_keep = []\n"
        + LOOP.format(body=body)
        + "\n    # ... rest of the code ...\n```\n"
    )


def test_a_loop_shown_whole_does_not_keep_the_old_check_beside_the_new(tmp_path):
    body = (
        "\n        has_values = False\n        for value in column_data:\n"
        "            if pd.notna(value):\n                has_values = True\n"
        "                break\n\n        if has_values:\n            columns_to_keep.append(i)"
    )
    p = plan(tmp_path, {"table.py": TABLE}, _reply(body))
    failure = refused(p, ErrorCode.TEXT_AMBIGUOUS)
    assert "if not column_data.isna().all():" in failure.message


def test_a_loop_shown_whole_with_a_changed_line_is_placed(tmp_path):
    body = "        if column_data.notna().any():\n            columns_to_keep.append(i)"
    out = written(plan(tmp_path, {"table.py": TABLE}, _reply(body)), "table.py")
    assert out == TABLE.replace("if not column_data.isna().all():", "if column_data.notna().any():")


def test_the_docstring_of_a_merged_method_keeps_its_columns(tmp_path):
    body = (
        "        if not column_data.isna().all():\n            columns_to_keep.append(i)\n"
        '        print("kept", i)'
    )
    out = written(plan(tmp_path, {"table.py": TABLE}, _reply(body)), "table.py")
    assert out == TABLE.replace(
        "                columns_to_keep.append(i)\n",
        '                columns_to_keep.append(i)\n            print("kept", i)\n',
    )


CELL = """class Cell:
    def prefix(self):
        return "("

    def suffix(self):
        return ")"

    def tr_class(self):
        return "row"

    def __repr__(self):
        return f"{self.prefix()}{self.suffix()}"
"""
NEW = "\n    def formatted(self):\n        return repr(self)\n"


def test_a_new_method_between_two_the_file_keeps_apart_is_refused(tmp_path):
    reply = (
        "In `cell.py`:\n\n```python\nclass Cell:\n    # ... other methods ...\n\n"
        '    def suffix(self):\n        return ")"\n' + NEW + "\n    def __repr__(self):\n"
        "        return self.formatted()\n```\n"
    )
    failure = refused(plan(tmp_path, {"cell.py": CELL}, reply), ErrorCode.TARGET_AMBIGUOUS)
    assert "formatted" in failure.message and "suffix" in failure.message


def test_a_placeholder_says_which_side_the_new_method_goes(tmp_path):
    reply = (
        "In `cell.py`:\n\n```python\nclass Cell:\n    # ... other methods ...\n\n"
        '    def suffix(self):\n        return ")"\n' + NEW + "\n    # ... other methods ...\n\n"
        "    def __repr__(self):\n        return self.formatted()\n```\n"
    )
    out = written(plan(tmp_path, {"cell.py": CELL}, reply), "cell.py")
    assert out == CELL.replace('        return ")"\n', '        return ")"\n' + NEW).replace(
        'f"{self.prefix()}{self.suffix()}"', "self.formatted()"
    )


_STATEMENT = st.sampled_from(
    [
        "columns_to_keep.append(i)",
        "print(i)",
        "if column_data.notna().any():\n    columns_to_keep.append(i)",
        "if not column_data.isna().all():\n    columns_to_keep.append(i)",
        "total = column_data.sum()",
        "if total:\n    columns_to_keep.append(i)",
        "continue",
    ]
)


@settings(max_examples=60, deadline=None)
@given(st.lists(_STATEMENT, min_size=1, max_size=4))
def test_a_loop_shown_whole_is_placed_as_shown_or_refused(tmp_path_factory, statements):
    """Oracle: the file with the first loop's body replaced by the reply's body; anything
    else written is wrong. A refusal is allowed (the reply may be read two ways)."""
    lines = []
    for statement in statements:
        lines += ["        " + ln for ln in statement.split("\n")]
    body = "\n".join(lines)
    old_body = (
        "            column_data = self._df.iloc[:, i]\n"
        "            if not column_data.isna().all():\n"
        "                columns_to_keep.append(i)\n"
    )
    new_body = "            column_data = self._df.iloc[:, i]\n" + "".join(
        "    " + ln + "\n" for ln in lines
    )
    expected = TABLE.replace(old_body, new_body)
    root = tmp_path_factory.mktemp("loop")
    p = plan(root, {"table.py": TABLE}, _reply(body))
    if p.ok and p.files:
        assert written(p, "table.py") == expected


MODULE = """import pandas as pd


def helper():
    return 1


def reshape(df, raw_columns):
    columns_to_keep = []
    for i, col in enumerate(raw_columns):
        column_data = df.iloc[:, i]
        if not column_data.isna().all():
            columns_to_keep.append(i)

    return df.iloc[:, columns_to_keep]
"""


def test_a_whole_file_with_placeholders_does_not_keep_the_old_check_either(tmp_path):
    reply = (
        "`m.py`\n```python\nimport pandas as pd\n\n# ... existing code ...\n\n"
        "def reshape(df, raw_columns):\n    columns_to_keep = []\n"
        "    for i, col in enumerate(raw_columns):\n        column_data = df.iloc[:, i]\n"
        "        has_values = column_data.notna().any()\n        if has_values:\n"
        "            columns_to_keep.append(i)\n\n    # ... rest of the code ...\n```\n"
    )
    failure = refused(plan(tmp_path, {"m.py": MODULE}, reply), ErrorCode.TEXT_AMBIGUOUS)
    assert "if not column_data.isna().all():" in failure.message


def test_a_method_shown_unindented_keeps_the_file_s_docstring(tmp_path):
    reply = "In `table.py`:\n\n```python\ndef n_header_lines(self):\n    return 2\n```\n"
    text = TABLE.replace(
        "    def n_header_lines(self):\n",
        '    def n_header_lines(self):\n        """\n        Rows above the data\n        """\n',
    )
    reply = reply.replace("(self):\n", '(self):\n    """\n    Rows above the data\n    """\n')
    out = written(plan(tmp_path, {"table.py": text}, reply), "table.py")
    assert out == text.replace("return 1", "return 2")


def test_a_file_without_a_final_newline_keeps_it_without(tmp_path):
    text = TABLE.rstrip("\n")
    reply = (
        "In `table.py`:\n\n```python\ndef reshape_data(self) -> None:\n"
        + "".join(
            ln[4:] + "\n"
            for ln in TABLE.split("    def reshape_data(self) -> None:\n")[1].split("\n")
        )
        .replace("return None", "return self._df")
        .rstrip("\n")
        + "\n```\n"
    )
    out = written(plan(tmp_path, {"table.py": text}, reply), "table.py")
    assert out == text.replace("return None", "return self._df")


@settings(max_examples=40, deadline=None)
@given(
    n=st.integers(min_value=2, max_value=6),
    pair=st.tuples(st.integers(min_value=0), st.integers(min_value=0)),
    side=st.sampled_from(["none", "left", "right", "both"]),
)
def test_a_new_method_goes_between_neighbours_only_when_the_file_has_them_side_by_side(
    tmp_path_factory, n, pair, side
):
    """Oracle: a new method shown between the file's methods i < j goes right after i when
    j is i's next method, or when a placeholder stands between the new method and j only;
    right before j when a placeholder stands between i and the new method only; anything
    else is refused (TARGET_AMBIGUOUS) and nothing is written."""
    i, j = sorted((pair[0] % n, pair[1] % n))
    if i == j:
        j = i + 1 if i + 1 < n else i - 1
        i, j = sorted((i, j))
    methods = [f"    def m{k}(self):\n        return {k}\n" for k in range(n)]
    text = "class Box:\n" + "\n".join(methods)
    new = "    def fresh(self):\n        return -1\n"
    mark = "    # ... existing code ...\n"
    shown = (
        "class Box:\n"
        + methods[i]
        + "\n"
        + (mark + "\n" if side in ("left", "both") else "")
        + new
        + "\n"
        + (mark + "\n" if side in ("right", "both") else "")
        + methods[j]
    )
    reply = "In `box.py`:\n\n```python\n" + shown + "```\n"
    p = plan(tmp_path_factory.mktemp("box"), {"box.py": text}, reply)
    if j == i + 1 or side in ("left", "right"):
        at = i if (j == i + 1 and side != "left") or side == "right" else j - 1
        expected = "class Box:\n" + "\n".join(methods[: at + 1] + [new] + methods[at + 1 :])
        assert written(p, "box.py") == expected
    else:
        refused(p, ErrorCode.TARGET_AMBIGUOUS)
