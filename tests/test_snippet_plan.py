"""Chat-window snippets through the plan: which file they apply to (the prose, the
caller's target, the one file that defines them) and whole-file blocks that are snippets."""

from __future__ import annotations

from pathlib import Path

import pytest

from lsp_server.model import ErrorCode, MatchKind, Status, WarningType
from lsp_server.plan import PlanOptions, plan_reply
from lsp_server.reply import parse_reply
from lsp_server.report import report_json
from lsp_server.terminal import render_human
from lsp_server.workspace import DiskWorkspace
from tests.resolve.snippet_samples import SAMPLES

LANGS = sorted(SAMPLES)
FENCE_TAGS = {"csharp": "csharp", "tsx": "tsx"}


def _workspace(root: Path, files: dict[str, str]) -> DiskWorkspace:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return DiskWorkspace(root)


def _plan(reply: str, ws: DiskWorkspace, target: str | None = None):
    return plan_reply(parse_reply(reply), ws, PlanOptions(target=target))


def _fenced(lang: str, code: str, prose: str = "Here is the updated code:") -> str:
    return f"{prose}\n\n```{FENCE_TAGS.get(lang, lang)}\n{code}```\n\nLet me know!\n"


@pytest.mark.parametrize("lang", LANGS)
def test_pathless_snippet_applies_to_the_callers_target(tmp_path, lang):
    s = SAMPLES[lang]
    ws = _workspace(tmp_path, {s.path: s.file, "other/" + s.path: s.file})
    plan = _plan(_fenced(lang, s.elided_class), ws, target=s.path)
    assert plan.ok, plan.outcomes[0].failure
    (outcome,) = plan.outcomes
    assert outcome.match is MatchKind.SNIPPET and outcome.block.path == s.path
    (change,) = plan.files
    assert change.path == s.path and s.new_doc in (change.new_text or "")


@pytest.mark.parametrize("lang", LANGS)
def test_pathless_snippet_with_no_target_is_refused_listing_the_candidates(tmp_path, lang):
    s = SAMPLES[lang]
    ws = _workspace(tmp_path, {s.path: s.file, "other/" + s.path: s.file})
    plan = _plan(_fenced(lang, s.elided_class), ws)
    (outcome,) = plan.outcomes
    assert outcome.status is Status.FAILED and not plan.files
    assert outcome.failure.code is ErrorCode.TARGET_AMBIGUOUS
    assert s.path in outcome.failure.message and "other/" + s.path in outcome.failure.message
    assert sorted(outcome.failure.details["candidates"]) == sorted([s.path, "other/" + s.path])


@pytest.mark.parametrize("lang", LANGS)
def test_the_one_file_that_defines_the_snippet_is_inferred(tmp_path, lang):
    s = SAMPLES[lang]
    unrelated = "unrelated" + s.path[s.path.rindex(".") :]
    ws = _workspace(tmp_path, {s.path: s.file, unrelated: ""})
    plan = _plan(_fenced(lang, s.elided_class), ws)
    assert plan.ok, plan.outcomes[0].failure
    assert [c.path for c in plan.files] == [s.path]


@pytest.mark.parametrize("lang", LANGS)
def test_no_file_defining_the_snippet_is_target_not_found(tmp_path, lang):
    s = SAMPLES[lang]
    ws = _workspace(tmp_path, {"README.md": "# hi\n"})
    (outcome,) = _plan(_fenced(lang, s.elided_class), ws).outcomes
    assert outcome.failure.code is ErrorCode.TARGET_NOT_FOUND
    assert "--file" in outcome.failure.message


@pytest.mark.parametrize(
    "prose",
    [
        "Here's the updated `describe` method in `{path}`:",
        "Replace the class in {path} with this:",
        "Open the modified `{path}` file.\n\nThen change `describe`:",
    ],
    ids=["backticked", "bare", "paragraph-before"],
)
@pytest.mark.parametrize("lang", ["python", "go", "typescript"])
def test_the_path_the_prose_names_wins_over_the_target(tmp_path, lang, prose):
    s = SAMPLES[lang]
    ws = _workspace(tmp_path, {s.path: s.file, "other/" + s.path: s.file})
    reply = _fenced(lang, s.elided_class, prose.format(path=s.path))
    plan = _plan(reply, ws, target="other/" + s.path)
    assert plan.ok, plan.outcomes[0].failure
    assert [c.path for c in plan.files] == [s.path]


def test_a_prose_path_that_does_not_exist_falls_back_to_the_target(tmp_path):
    s = SAMPLES["python"]
    ws = _workspace(tmp_path, {s.path: s.file})
    plan = _plan(_fenced("python", s.elided_class, "Put this in `missing.py`:"), ws, s.path)
    assert plan.ok and [c.path for c in plan.files] == [s.path]


def test_a_prose_path_that_does_not_exist_is_named_in_the_refusal(tmp_path):
    ws = _workspace(tmp_path, {"a.py": "x = 1\n"})
    reply = _fenced("python", "def brand_new():\n    pass\n", "Put this in `missing.py`:")
    (outcome,) = _plan(reply, ws).outcomes
    assert outcome.failure.code is ErrorCode.TARGET_NOT_FOUND
    assert "missing.py" in outcome.failure.message


@pytest.mark.parametrize("lang", ["python", "rust", "ruby", "java"])
def test_a_path_in_a_first_line_comment_places_a_fragment_as_a_snippet(tmp_path, lang):
    s = SAMPLES[lang]
    marker = {"python": "#", "ruby": "#"}.get(lang, "//")
    ws = _workspace(tmp_path, {s.path: s.file})
    reply = _fenced(lang, f"{marker} {s.path}\n{s.elided_class}")
    plan = _plan(reply, ws)
    assert plan.ok, plan.outcomes[0].failure
    (outcome,) = plan.outcomes
    assert outcome.block.format.value == "whole-file" and outcome.match is MatchKind.SNIPPET
    new = plan.files[0].new_text or ""
    assert s.new_doc in new and "Circle" in new and s.path not in new


def test_a_whole_file_block_that_is_one_function_of_the_file_keeps_the_rest(tmp_path):
    file = (
        "import os\n\n\ndef a():\n    return 1\n\n\ndef b():\n    return 2\n\n\n"
        "def c():\n    return 3\n"
    )
    ws = _workspace(tmp_path, {"m.py": file})
    plan = _plan("m.py\n```python\ndef b():\n    return 20\n```\n", ws)
    assert plan.ok, plan.outcomes[0].failure
    assert plan.files[0].new_text == file.replace("return 2\n", "return 20\n")


def test_a_whole_file_rewrite_is_still_a_whole_file(tmp_path):
    file = "import os\n\n\ndef a():\n    return 1\n\n\nprint(a())\n"
    ws = _workspace(tmp_path, {"m.py": file})
    new = "import sys\n\n\ndef a():\n    return 2\n\n\nprint(a())\n"
    plan = _plan(f"m.py\n```python\n{new}```\n", ws)
    assert plan.ok and plan.files[0].new_text == new
    assert plan.outcomes[0].match is MatchKind.OVERWRITE


def test_a_pathless_whole_file_named_in_the_prose_is_a_whole_file(tmp_path):
    file = "def a():\n    return 1\n\n\nprint(a())\n"
    ws = _workspace(tmp_path, {"m.py": file})
    new = "def a():\n    return 2\n\n\nprint(a())\n"
    plan = _plan(_fenced("python", new, "Here is the new `m.py`:"), ws)
    assert plan.ok and plan.files[0].new_text == new


def test_a_snippet_statement_that_cannot_be_placed_refuses_the_block(tmp_path):
    ws = _workspace(tmp_path, {"m.py": "def a():\n    return 1\n\n\ndef b():\n    return 1\n"})
    reply = _fenced("python", "def a():\n    return 2\n\nregister(a)\n", "In `m.py`:")
    plan = _plan(reply, ws)
    (outcome,) = plan.outcomes
    assert outcome.failure.code is ErrorCode.TEXT_NOT_FOUND and not plan.files
    assert "register(a)" in outcome.failure.message


def test_a_snippet_for_a_missing_target_file_is_file_not_found(tmp_path):
    ws = _workspace(tmp_path, {"a.py": "x = 1\n"})
    (outcome,) = _plan(_fenced("python", "def f():\n    pass\n"), ws, "new.py").outcomes
    assert outcome.failure.code is ErrorCode.FILE_NOT_FOUND


def test_a_mentioned_file_of_another_language_is_passed_over(tmp_path):
    s = SAMPLES["python"]
    ws = _workspace(tmp_path, {s.path: s.file, "requirements.txt": "flask\n"})
    prose = f"Update `{s.path}` (and pin flask in `requirements.txt`):"
    plan = _plan(_fenced("python", s.elided_class, prose), ws)
    assert plan.ok, plan.outcomes[0].failure
    assert [c.path for c in plan.files] == [s.path]


def test_a_chat_reply_with_two_typescript_snippets_and_worded_elisions(tmp_path):
    service = (
        'import { db } from "./db";\n\nexport interface User {\n  id: string;\n}\n\n'
        "export class UserService {\n  constructor(private readonly table = \"users\") {}\n\n"
        "  async find(id: string): Promise<User | null> {\n    return db.get(this.table, id);\n"
        "  }\n\n  async save(user: User): Promise<void> {\n    await db.put(this.table, user);\n"
        "  }\n}\n"
    )
    ws = _workspace(tmp_path, {"src/userService.ts": service})
    reply = (
        "Here's your `UserService` with a new `deactivate` method:\n\n```typescript\n"
        'import { db } from "./db";\nimport { logger } from "./logger";\n\n'
        "export class UserService {\n  // ... existing constructor ...\n\n"
        "  async find(id: string): Promise<User | null> {\n    if (!id) throw new Error();\n"
        "    return db.get(this.table, id);\n  }\n\n  // ... save() unchanged ...\n\n"
        "  async deactivate(id: string): Promise<void> {\n    logger.info(id);\n  }\n}\n```\n\n"
        "And add a field to the interface:\n\n```ts\nexport interface User {\n  id: string;\n"
        "  lastSeen?: Date;\n}\n```\n"
    )
    plan = _plan(reply, ws)
    assert plan.ok, [o.failure for o in plan.outcomes]
    new = plan.files[0].new_text or ""
    assert 'import { logger } from "./logger";' in new and "lastSeen?: Date;" in new
    assert "existing" not in new and "unchanged" not in new
    assert new.index("deactivate") < new.index("async save")  # after `find`, its neighbour
    assert "await db.put(this.table, user);" in new and "constructor(private" in new


# --- a code sample beside the reply's marker edits ----------------------------------------

_EDIT_AND_SAMPLE = (
    "Rename the constant:\n\napp.py\n```python\n<<<<<<< SEARCH\nLIMIT = 1\n=======\n"
    "LIMIT = 2\n>>>>>>> REPLACE\n```\n\nYou could then test it like this:\n\n"
    "```python\ndef test_limit():\n    assert LIMIT == 2\n```\n"
)


def test_a_code_sample_beside_marker_edits_is_set_aside_with_a_warning(tmp_path):
    ws = _workspace(tmp_path, {"app.py": "LIMIT = 1\n\n\ndef run():\n    return LIMIT\n"})
    plan = _plan(_EDIT_AND_SAMPLE, ws)
    assert plan.ok, [o.failure for o in plan.outcomes]
    edit, sample = plan.outcomes
    assert edit.status is Status.VALIDATED
    assert sample.status is Status.SKIPPED and sample.failure is None
    (change,) = plan.files
    assert change.new_text == "LIMIT = 2\n\n\ndef run():\n    return LIMIT\n"
    (warning,) = [w for w in plan.warnings if w.type is WarningType.CODE_SAMPLE]
    assert warning.block == sample.block.index and "not applied" in warning.message


def test_the_same_sample_alone_is_refused(tmp_path):
    ws = _workspace(tmp_path, {"app.py": "LIMIT = 1\n"})
    reply = "```python\ndef test_limit():\n    assert LIMIT == 2\n```\n"
    (outcome,) = _plan(reply, ws).outcomes
    assert outcome.failure is not None and outcome.failure.code is ErrorCode.TARGET_NOT_FOUND


def test_a_sample_whose_prose_names_a_file_is_still_refused_beside_edits(tmp_path):
    ws = _workspace(tmp_path, {"app.py": "LIMIT = 1\n"})
    reply = _EDIT_AND_SAMPLE.replace("test it like this", "add this to `tests/test_app.py`")
    plan = _plan(reply, ws)
    assert not plan.ok and not plan.files
    assert plan.outcomes[1].failure.code is ErrorCode.TARGET_NOT_FOUND


def test_with_a_target_the_sample_beside_edits_goes_to_the_target(tmp_path):
    ws = _workspace(tmp_path, {"app.py": "LIMIT = 1\n"})
    plan = _plan(_EDIT_AND_SAMPLE, ws, target="app.py")
    assert plan.ok and plan.outcomes[1].match is MatchKind.SNIPPET
    (change,) = plan.files
    assert "def test_limit():" in change.new_text and change.new_text.startswith("LIMIT = 2\n")


def test_the_report_counts_a_set_aside_sample_apart_from_the_blocks(tmp_path):
    ws = _workspace(tmp_path, {"app.py": "LIMIT = 1\n"})
    report = report_json(_plan(_EDIT_AND_SAMPLE, ws), applied=False)
    text = render_human(report, color=False)
    assert "(code sample, not applied) skipped" in text
    last = text.rstrip().splitlines()[-1]
    assert last == (
        "✓ 1 of 1 block can be placed, 1 file would change; nothing written; "
        "1 code sample set aside"
    )
