"""Applying a reply twice is harmless (issue 22, item 6): for every block the engine places,
the same reply planned again on the result is `already applied` for every block, plans no
file change, and is ok (exit 0).

The property runs over every format — SEARCH/REPLACE, unified diffs, apply_patch updates,
creates, deletes and moves, tool calls (whole-line and substring edits), whole files,
structural blocks and chat snippets — on files with repeated lines, for each of the edits
models make: a stretch rewritten, lines inserted after or before an anchor that the block
restates (REPLACE = SEARCH plus new lines), a part of a line changed or extended.
The oracle is the first result itself: the second plan must leave it byte for byte.

Outside the property, by design (nothing in the file can tell a second run from a first):
a block that only adds blank lines next to its anchor (blank lines prove nothing: "a blank
line before `main`" is added each time, as the reply asks); a pure deletion that keeps no
line (once carried out, nothing shows where it was: the second run says TEXT_NOT_FOUND);
a block whose old text stands in its result again (a line deleted next to its twin: the
block applies again by its own terms); a zero-context diff's insertion (its line number
is all it has: it is placed as written each time). A second run without evidence that
the block ran — its new text not unique in the file — may refuse (TEXT_NOT_FOUND /
TEXT_AMBIGUOUS); it never changes a byte.

`LLM_PATCH_IDEMPOTENCE_EXAMPLES` raises the number of examples for a long run.
"""

from __future__ import annotations

import difflib
import json
import os

from hypothesis import HealthCheck, event, example, given, settings
from hypothesis import strategies as st

from lsp_server.model import ErrorCode, FileAction
from lsp_server.plan import PlanOptions, plan_reply
from lsp_server.reply import parse_reply
from lsp_server.report import report_json
from tests.reply.agent_workspace import Files, Placed

EXAMPLES = int(os.environ.get("LLM_PATCH_IDEMPOTENCE_EXAMPLES", "300"))

# a small vocabulary, so that lines repeat (anchors that occur twice, new lines equal to
# the anchor, a line inserted next to its twin)
BODY = [
    "    x = load(path)",
    "    y = x + 1",
    "    if x:",
    "        return y",
    "    return x",
    "    log(x)",
    "    }",
    "",
    "    # note",
    "    items.append(x)",
]


@st.composite
def module(draw) -> list[str]:
    """A Python module: a few functions whose bodies come from BODY (repeats included)."""
    out = ["import os", ""]
    for k in range(draw(st.integers(1, 4))):
        out.append(f"def f{k}(path):")
        out.extend(draw(st.lists(st.sampled_from(BODY), min_size=1, max_size=5)))
        out.append("")
    return out


@st.composite
def new_lines(draw) -> list[str]:
    return draw(
        st.lists(
            st.one_of(
                st.sampled_from(BODY),
                st.from_regex(r"    z[0-9] = [a-z]{1,3}\([0-9]\)", fullmatch=True),
            ),
            min_size=1,
            max_size=3,
        )
    )


@st.composite
def line_edit(draw):
    """(file lines, old lines, new lines): an intent on a stretch of whole lines."""
    lines = draw(module())
    n = len(lines)
    i = draw(st.integers(0, n - 1))
    k = draw(st.integers(1, min(3, n - i)))
    old = lines[i : i + k]
    kind = draw(st.sampled_from(["rewrite", "insert-after", "insert-before", "middle"]))
    add = draw(new_lines())
    if kind == "rewrite":
        new = add
    elif kind == "insert-after":
        new = old + add
    elif kind == "insert-before":
        new = add + old
    else:
        new = old[:1] + add + old[1:]
    return lines, i, old, new, kind


def place(reply: str, files: dict[str, str]) -> Placed:
    """The reply planned on files in memory, and the files it leaves (a rename moves one)."""
    plan = plan_reply(parse_reply(reply), Files(dict(files)), PlanOptions())
    after = dict(files)
    for change in plan.files:
        if change.action is FileAction.RENAME or change.new_text is None:
            after.pop(change.path, None)
        if change.new_text is not None:
            after[change.new_path or change.path] = change.new_text
    return Placed(plan, after)


def text(lines: list[str]) -> str:
    return "".join(x + "\n" for x in lines)


def sr(path: str, old: str, new: str) -> str:
    return f"{path}\n```\n<<<<<<< SEARCH\n{old}=======\n{new}>>>>>>> REPLACE\n```\n"


def udiff(path: str, before: str, after: str, context: int) -> str:
    body = "".join(
        difflib.unified_diff(
            before.splitlines(True), after.splitlines(True), f"a/{path}", f"b/{path}", n=context
        )
    )
    return f"```diff\n{body}```\n"


def v4a_update(old: list[str], new: list[str]) -> str:
    sm = difflib.SequenceMatcher(None, old, new, autojunk=False)
    rows = []
    for tag, i1, i2, j1, j2 in sm.get_opcodes():
        if tag == "equal":
            rows += [" " + x for x in old[i1:i2]]
        else:
            rows += ["-" + x for x in old[i1:i2]] + ["+" + x for x in new[j1:j2]]
    return "@@\n" + "".join(r + "\n" for r in rows)


def v4a(*ops: str) -> str:
    return "```\n*** Begin Patch\n" + "".join(ops) + "*** End Patch\n```\n"


def claude_edit(path: str, old: str, new: str) -> str:
    call = {"file_path": path, "old_string": old, "new_string": new}
    return f"```json\n{json.dumps(call, indent=2)}\n```\n"


def renderings(path: str, lines: list[str], i: int, old: list[str], new: list[str]) -> dict:
    before = text(lines)
    o, n = text(old), text(new)
    after = text(lines[:i] + new + lines[i + len(old) :])
    return {
        "search-replace": sr(path, o, n),
        "unified-diff": udiff(path, before, after, 3),
        "unified-diff-0": udiff(path, before, after, 0),
        "apply-patch": v4a(f"*** Update File: {path}\n" + v4a_update(old, new)),
        "claude-edit-lines": claude_edit(path, o.rstrip("\n"), n.rstrip("\n")),
        "whole-file": f"{path}\n```\n{after}```\n",
    }


def line_runs(lines: list[str], text_: str) -> int:
    """How many times `lines` stand in `text_` as whole lines."""
    hay = text_.split("\n")
    n = len(lines)
    return sum(hay[i : i + n] == lines for i in range(len(hay) - n + 1))


def unique_news(reply: str, files: dict[str, str]) -> bool:
    """Every hunk's new text, as the reply's parser reads it (a SEARCH/REPLACE's blank edge
    lines trimmed, a diff hunk's new side with its context), stands exactly once in its file
    as whole lines: the evidence a second run needs."""
    for block in parse_reply(reply).blocks:
        for hunk in block.hunks:
            new = hunk.new.split("\n")
            if new and new[-1] == "":
                new.pop()
            text_ = files.get(block.move_to or block.path or "", "")
            if not new or line_runs(new, text_) != 1:
                return False
            old = hunk.old.split("\n")[:-1] if hunk.old.endswith("\n") else hunk.old.split("\n")
            inside = sum(new[i : i + len(old)] == old for i in range(len(new) - len(old) + 1))
            if hunk.old and hunk.old in hunk.new and line_runs(old, text_) != inside:
                return False  # the anchor stands elsewhere too (overlapping the new text,
                # say): a place the block could apply to, so no evidence either way
    return True


def old_reformed(reply: str, files: dict[str, str]) -> bool:
    """Some hunk that is no insertion (its new text does not hold its old text) finds its
    old text in the result again, as whole lines — a line deleted next to its twin, a
    rewrite whose new lines recreate the old ones: the block applies again by its own
    terms, and nothing in the file says it ran before."""
    for block in parse_reply(reply).blocks:
        for hunk in block.hunks:
            if not hunk.old:
                return True  # placed by its line number alone: see the docstring
            old = hunk.old.split("\n")
            if old and old[-1] == "":
                old.pop()
            if old and hunk.old not in hunk.new:
                if line_runs(old, files.get(block.move_to or block.path or "", "")):
                    return True
            elif not hunk.new.replace(hunk.old, "", 1).strip():
                return True  # it only adds blank lines: see the module's docstring
    return False


def all_already(plan) -> bool:
    """Every block reported already applied, as the user reads it (`report_json`: a
    whole-text write into a file that holds that text counts, as a block whose new text
    is there does)."""
    blocks = report_json(plan, applied=False)["blocks"]
    return bool(blocks) and all(b.get("already_applied") for b in blocks)


def assert_idempotent(
    reply: str, files: dict[str, str], evidenced=None, reformed=old_reformed
) -> bool:
    """Plan `reply` on `files`; when it places, plan it again on the result. That second
    plan never changes a byte. It is ok with every block already applied — necessarily so
    when `evidenced(result)` says the block's new text stands in the result unmistakably
    (the independent oracle); without that evidence it may instead refuse, as TEXT_NOT_FOUND
    or TEXT_AMBIGUOUS (prove or ask). Returns whether the first plan placed."""
    first = place(reply, files)
    if not first.plan.ok or not first.plan.files:
        return False
    if reformed is not None and reformed(reply, first.files):
        event("the old text stands in the result again: outside the property")
        return False
    second = place(reply, first.files)
    why = [
        (o.status, o.failure.code if o.failure else None, o.already_applied)
        for o in second.outcomes
    ]
    assert second.plan.files == (), [(c.path, c.new_text) for c in second.plan.files]
    assert second.files == first.files
    if second.plan.ok and all_already(second.plan):
        return True
    assert evidenced is not None and not evidenced(first.files), why
    # (FILE_NOT_FOUND: a move whose source is gone, its change not provably at the
    # destination)
    refusals = {None, ErrorCode.TEXT_NOT_FOUND, ErrorCode.TEXT_AMBIGUOUS, ErrorCode.FILE_NOT_FOUND}
    assert {c for _, c, _ in why} <= refusals, why
    event("second run refused: the new text is not unique in the result")
    return True


_F1 = [
    "import os",
    "",
    "def f0(path):",
    "    x = load(path)",
    "",
    "def f1(path):",
    "    x = load(path)",
    "",
    "    y = x + 1",
    "",
]
_BROKEN = [
    "import os",
    "",
    "def f0(path):",
    "    x = load(path)",
    "    x = load(path)",
    "    x = load(path)",
    "",
    "def f1(path):",
    "        return y",
    "    x = load(path)",
    "",
]


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck))
# what earlier runs found (each a wrong write, or a refusal of an applied edit, before)
@example(  # deleting `def f0` again deleted `def f1`, its look-alike
    edit=(
        _F1[:8],
        1,
        ["", "def f0(path):", "    x = load(path)"],
        ["    x = load(path)"],
        "rewrite",
    ),
    how="unified-diff-0",
)
@example(
    edit=(_F1, 7, ["", "    y = x + 1"], ["    y = x + 1"], "rewrite"), how="claude-edit-lines"
)
@example(
    edit=(_F1, 7, ["", "    y = x + 1"], ["    y = x + 1", "", "    y = x + 1"], "insert-before"),
    how="claude-edit-lines",
)
@example(
    edit=(_F1[:5], 0, ["import os"], ["    # note", "import os"], "insert-before"),
    how="whole-file",
)
@example(
    edit=(
        _BROKEN,
        5,
        ["    x = load(path)", "", "def f1(path):"],
        ["    x = load(path)", "", "def f1(path):", "    x = load(path)"],
        "insert-after",
    ),
    how="whole-file",
)
@given(
    edit=line_edit(),
    how=st.sampled_from(
        [
            "search-replace",
            "unified-diff",
            "unified-diff-0",
            "apply-patch",
            "claude-edit-lines",
            "whole-file",
        ]
    ),
)
def test_a_placed_line_edit_is_already_applied_the_second_time(edit, how):
    lines, i, old, new, kind = edit
    if not any(x.strip() for x in new):
        return  # a deletion that keeps no line: see the module's docstring
    reply = renderings("m.py", lines, i, old, new)[how]
    placed = assert_idempotent(
        reply, {"m.py": text(lines)}, lambda after: unique_news(reply, after)
    )
    event(f"{how} {kind}: {'placed' if placed else 'refused'}")


WORDS = ["load", "path", "x", "y", "(", ")", " + 1", "return", "log", "items"]


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck))
@given(
    lines=module(),
    data=st.data(),
    kind=st.sampled_from(["replace", "extend-right", "extend-left"]),
    extra=st.from_regex(r"[a-z_, ]{1,6}", fullmatch=True),
)
def test_a_substring_edit_is_already_applied_the_second_time(lines, data, kind, extra):
    """A tool call whose old_string is part of a line: the second run is already applied,
    not TEXT_NOT_FOUND, and an old_string the new one extends is not extended again."""
    body = text(lines)
    cands = [i for i, x in enumerate(lines) if len(x.strip()) > 3]
    if not cands:
        return
    line = lines[data.draw(st.sampled_from(cands))]
    a = data.draw(st.integers(0, len(line) - 2))
    b = data.draw(st.integers(a + 2, len(line)))
    old = line[a:b]
    if kind == "replace":
        new = old[:1] + extra + old[-1:]
    elif kind == "extend-right":
        new = old + extra
    else:
        new = extra + old
    if new == old:
        return
    placed = assert_idempotent(
        claude_edit("m.py", old, new),
        {"m.py": body},
        lambda after: after["m.py"].count(new) == 1,
        lambda _, after: (
            (old not in new and old in after["m.py"]) or not new.replace(old, "", 1).strip()
        ),
    )
    event(f"substring {kind}: {'placed' if placed else 'refused'}")


@settings(
    max_examples=max(EXAMPLES // 3, 20), deadline=None, suppress_health_check=list(HealthCheck)
)
@given(lines=module(), other=module(), edit=line_edit())
def test_creates_deletes_and_moves_are_already_applied_the_second_time(lines, other, edit):
    flines, _, old, new, _ = edit
    files = {"m.py": text(flines), "gone.py": text(lines)}
    reply = v4a(
        "*** Add File: pkg/new.py\n" + "".join("+" + x + "\n" for x in other),
        "*** Delete File: gone.py\n",
        "*** Update File: m.py\n*** Move to: pkg/moved.py\n" + v4a_update(old, new),
    )
    assert_idempotent(reply, files, lambda after: unique_news(reply, after))
    # an empty SEARCH that creates a file
    assert_idempotent(sr("made.py", "", text(other)), {})


# valid Python statements: a structural block or a snippet names a definition, which the
# file and the block must both parse as one
STATEMENTS = ["    x = load(path)", "    y = x + 1", "    return x", "    log(x)", "    # note"]


@st.composite
def python_module(draw) -> list[str]:
    out = ["import os", ""]
    for k in range(draw(st.integers(1, 4))):
        out.append(f"def f{k}(path):")
        out.extend(draw(statements()))
        out.append("")
    return out


def statements():
    return st.lists(st.sampled_from(STATEMENTS), min_size=1, max_size=4).filter(
        lambda body: any("#" not in x for x in body)
    )


@settings(
    max_examples=max(EXAMPLES // 3, 20), deadline=None, suppress_health_check=list(HealthCheck)
)
@given(lines=python_module(), data=st.data(), body=statements())
def test_structural_and_snippet_blocks_are_already_applied_the_second_time(lines, data, body):
    names = [x[4:-7] for x in lines if x.startswith("def ") and x.endswith("(path):")]
    name = data.draw(st.sampled_from(names))
    new_def = f"def {name}(path):\n" + text(body)
    structural = f"```python\n# FILE: m.py\n# TARGET_NODE: function {name}\n{new_def}```\n"
    snippet = f"In `m.py`, `{name}` becomes:\n\n```python\n{new_def}```\n"
    files = {"m.py": text(lines)}
    for what, reply in (("structural", structural), ("snippet", snippet)):
        placed = assert_idempotent(reply, files, reformed=None)
        event(f"{what}: {'placed' if placed else 'refused'}")


# The classes, one example each (each fails on the engine before this rule).

APP = (
    "def load(path):\n    data = read(path)\n    return data\n\n\n"
    "def save(path, data):\n    write(path, data)\n"
)


def _twice(reply: str, files: dict[str, str]):
    first = place(reply, files)
    assert first.plan.ok and first.plan.files, [o.failure for o in first.outcomes]
    return first, place(reply, first.files)


def _all_already(second) -> bool:
    return second.plan.ok and second.plan.files == () and all_already(second.plan)


def test_an_insertion_after_its_anchor_is_not_inserted_twice():
    reply = sr("app.py", "    write(path, data)\n", "    write(path, data)\n    log(path)\n")
    first, second = _twice(reply, {"app.py": APP})
    assert first.files["app.py"].count("log(path)") == 1
    assert _all_already(second)


def test_an_insertion_before_its_anchor_is_not_inserted_twice():
    reply = sr("app.py", "def save(path, data):\n", "@traced\ndef save(path, data):\n")
    _, second = _twice(reply, {"app.py": APP})
    assert _all_already(second)


def test_an_insertion_that_repeats_its_anchor_is_already_applied_not_ambiguous():
    # the anchor `    return data` occurs twice once the block ran: both inside its new text
    reply = sr(
        "app.py",
        "    return data\n",
        "    return data\n\n\ndef load_twice(path):\n    data = read(path)\n    return data\n",
    )
    _, second = _twice(reply, {"app.py": APP})
    assert _all_already(second)


def test_a_substring_edit_is_already_applied_the_second_time_not_text_not_found():
    reply = claude_edit("app.py", "read(path)", "read(path, 'rb')")
    _, second = _twice(reply, {"app.py": APP})
    assert _all_already(second)


def test_a_substring_extended_in_place_is_not_extended_again():
    reply = claude_edit("app.py", "write(path, ", "write(path, mode, ")
    first, second = _twice(reply, {"app.py": APP})
    assert "write(path, mode, data)" in first.files["app.py"]
    assert _all_already(second)


def test_a_whole_file_and_a_structural_block_that_change_nothing_say_so():
    whole = v4a("*** Add File: app.py\n" + "".join("+" + x + "\n" for x in APP.split("\n")[:-1]))
    plan = place(whole, {"app.py": APP}).plan
    assert plan.ok and plan.files == () and all_already(plan)
    node = (
        "```python\n# FILE: app.py\n# TARGET_NODE: function save\n"
        + APP[APP.index("def save") :]
        + "```\n"
    )
    plan = place(node, {"app.py": APP}).plan
    assert plan.ok and plan.files == () and all_already(plan)


def test_a_blank_line_added_after_an_anchor_is_added_as_asked():
    # blank lines prove nothing: "a blank line before `save`" where one stands already is
    # the reply's edit, not evidence that it ran (a real aider reply, tests/replay)
    reply = sr("app.py", "    return data\n", "    return data\n\n")
    first = place(reply, {"app.py": APP})
    assert first.plan.ok
    assert "    return data\n\n\n\ndef save" in first.files["app.py"]


def test_a_restated_insertion_beside_a_new_one_is_placed_once():
    # "here are the updated blocks": the first was applied in an earlier turn
    files = {
        "ci.yml": "on:\n  push:\n    branches: [main]\n  pull_request:\n    paths-ignore: [docs]\n"
    }
    reply = sr("ci.yml", "  pull_request:\n", "  pull_request:\n    paths-ignore: [docs]\n") + sr(
        "ci.yml", "  push:\n", "  push:\n    paths-ignore: [docs]\n"
    )
    placed = place(reply, files)
    assert placed.plan.ok
    assert [o.already_applied for o in placed.outcomes] == [True, False]
    assert placed.files["ci.yml"].count("paths-ignore") == 2


def test_a_loose_match_where_the_new_text_already_stands_twice_is_refused_with_readings():
    # the old text is gone; the fuzzy rung finds a look-alike (`requests`), and the new
    # line stands in two places: applied already, or meant for the look-alike
    files = {
        "m.py": "def a(request):\n    return None\n\n\n"
        "def b(requests):\n    value = compute(requests)\n    return value\n\n\n"
        "def c(request):\n    return None\n"
    }
    reply = sr("m.py", "    value = compute(request)\n    return value\n", "    return None\n")
    plan = place(reply, files).plan
    (o,) = plan.outcomes
    assert not plan.ok and plan.files == ()
    assert o.failure.code is ErrorCode.TEXT_AMBIGUOUS
    assert o.failure.details["readings"][0] == "already applied"


def test_a_loose_match_for_a_deletion_is_refused_with_readings():
    # a deletion leaves no trace: once `def f0` is gone, its look-alike `def f1` is the
    # closest match, and deleting that is the other reading
    files = {"m.py": "import os\n\nx = 1\n\ndef f1(path):\n    x = load(path)\n"}
    for reply in (
        sr("m.py", "\ndef f0(path):\n", ""),
        "```diff\n--- a/m.py\n+++ b/m.py\n@@ -2,2 +1,0 @@\n-\n-def f0(path):\n```\n",
    ):
        plan = place(reply, files).plan
        (o,) = plan.outcomes
        assert not plan.ok and plan.files == (), reply
        assert o.failure.code is ErrorCode.TEXT_AMBIGUOUS
        assert o.failure.details["readings"] == [
            "already applied",
            "delete the look-alike at line 4",
        ]


def test_a_loose_deletion_at_the_line_its_hunk_names_is_placed():
    # the hunk's line number names the misquoted lines: that is evidence a look-alike
    # elsewhere does not have
    files = {"m.py": "import os\n\ndef f1(path):\n    x = load(path)\n"}
    reply = "```diff\n--- a/m.py\n+++ b/m.py\n@@ -2,2 +1,0 @@\n-\n-def f1(path)\n```\n"
    placed = place(reply, files)
    assert placed.plan.ok, placed.plan.outcomes
    assert placed.files["m.py"] == "import os\n    x = load(path)\n"


def test_a_diff_whose_line_holds_its_new_text_while_the_old_text_stands_elsewhere_asks():
    # the hunk names line 2 for `b = 2` -> `c = 3`; line 2 holds `c = 3` (as does line 3),
    # `b = 2` stands at line 4: applied already, or meant for line 4 (numbers off by two)
    text_ = "a = 1\nc = 3\nc = 3\nb = 2\n"
    reply = "```diff\n--- a/m.py\n+++ b/m.py\n@@ -2 +2 @@\n-b = 2\n+c = 3\n```\n"
    plan = place(reply, {"m.py": text_}).plan
    (o,) = plan.outcomes
    assert not plan.ok and o.failure.code is ErrorCode.TEXT_AMBIGUOUS
    assert o.failure.details["readings"] == ["already applied", "apply at line 4"]
