"""A SEARCH/REPLACE block that names no file (a chat window's, a model that forgot the path
line) goes where `--file` (or the editor's target) says, else to the one file its prose
names that holds its SEARCH text; two such, or none, and it is refused naming them. It was
refused as malformed whatever `--file` said."""

from __future__ import annotations

import json
from pathlib import Path

from lsp_server.plan import PlanOptions, plan_reply
from lsp_server.reply import parse_reply
from lsp_server.workspace import DiskWorkspace
from tests.cli.support import llm_patch, put

A = "def f():\n    return 1\n"
B = "def g():\n    return 1\n"
BLOCK = "```python\n<<<<<<< SEARCH\n    return 1\n=======\n    return 2\n>>>>>>> REPLACE\n```\n"


def test_file_names_the_file_a_pathless_block_applies_to(tmp_path: Path):
    put(tmp_path, {"a.py": A, "b.py": B})
    r = llm_patch("apply", "-", "--file", "b.py", cwd=tmp_path, stdin=BLOCK)
    assert r.returncode == 0, r.stdout + r.stderr
    assert (tmp_path / "b.py").read_text() == B.replace("1", "2")
    assert (tmp_path / "a.py").read_text() == A


def test_the_one_named_file_holding_the_search_text_is_taken(tmp_path: Path):
    put(tmp_path, {"a.py": A, "notes.md": "no code\n"})
    reply = "In `notes.md` I noted it; now in `a.py`:\n\n" + BLOCK
    r = llm_patch("apply", "-", cwd=tmp_path, stdin=reply)
    assert r.returncode == 0, r.stdout + r.stderr
    assert (tmp_path / "a.py").read_text() == A.replace("1", "2")


def test_two_named_files_holding_it_are_refused_naming_both(tmp_path: Path):
    put(tmp_path, {"a.py": A, "b.py": B})
    reply = "In `a.py` or `b.py`:\n\n" + BLOCK
    r = llm_patch("apply", "-", "--json", cwd=tmp_path, stdin=reply)
    assert r.returncode == 1, r.stdout
    error = json.loads(r.stdout)["blocks"][0]["error"]
    assert error["code"] == "TARGET_NOT_FOUND"
    assert "a.py" in error["message"] and "b.py" in error["message"]
    assert "--file" in error["message"]
    assert (tmp_path / "a.py").read_text() == A and (tmp_path / "b.py").read_text() == B


def test_a_pathless_block_with_no_file_named_says_how_to_name_one(tmp_path: Path):
    put(tmp_path, {"a.py": A})
    r = llm_patch("apply", "-", cwd=tmp_path, stdin=BLOCK)
    assert r.returncode == 1
    assert "--file PATH" in r.stdout and "name the file above the fence" in r.stdout
    assert (tmp_path / "a.py").read_text() == A


def test_the_editors_target_is_the_file_of_a_pathless_block(tmp_path: Path):
    put(tmp_path, {"a.py": A, "b.py": B})
    plan = plan_reply(parse_reply(BLOCK), DiskWorkspace(tmp_path), PlanOptions(target="a.py"))
    assert plan.ok, plan.outcomes
    (change,) = plan.files
    assert change.path == "a.py" and change.new_text == A.replace("1", "2")


def test_a_block_after_one_with_a_path_still_takes_that_path(tmp_path: Path):
    put(tmp_path, {"a.py": A, "b.py": B})
    first = "b.py\n```python\n<<<<<<< SEARCH\ndef g():\n=======\ndef g(x):\n>>>>>>> REPLACE\n```\n"
    r = llm_patch("apply", "-", "--file", "a.py", cwd=tmp_path, stdin=first + "\n" + BLOCK)
    assert r.returncode == 0, r.stdout
    assert (tmp_path / "b.py").read_text() == "def g(x):\n    return 2\n"
    assert (tmp_path / "a.py").read_text() == A
