"""Run from anywhere (issue 25): the root is the enclosing repository's top, named in the
report; a path missing under the root but present elsewhere in sight is said so, and an
agent's absolute path is mapped only when the user asks (`--strip-prefix`)."""

from __future__ import annotations

import json

import pytest

from lsp_server.cli.roots import find_root, strip_prefix
from tests.cli.support import llm_patch, put, sr

EDIT = sr("src/app.py", "x = 1\n", "x = 2\n")


@pytest.mark.parametrize("marker", [".git", ".hg", ".svn"])
def test_from_a_subfolder_the_root_is_the_repository_top(tmp_path, marker):
    (tmp_path / marker).mkdir()
    put(tmp_path, {"src/app.py": "x = 1\n", "src/deep/er/keep.txt": ""})
    r = llm_patch("apply", "-", cwd=tmp_path / "src" / "deep" / "er", stdin=EDIT)
    assert r.returncode == 0, r.stdout + r.stderr
    assert r.stdout.splitlines()[0] == f"root: {tmp_path} (the {marker[1:]} repository's top)"
    assert (tmp_path / "src/app.py").read_text() == "x = 2\n"


def test_a_worktree_git_file_marks_the_top_too(tmp_path):
    (tmp_path / ".git").write_text("gitdir: /elsewhere/.git/worktrees/x\n")
    (tmp_path / "sub").mkdir()
    found = find_root(None, tmp_path / "sub")
    assert (found.path, found.how) == (tmp_path, "git")


def test_outside_a_repository_the_root_is_the_current_folder(tmp_path):
    put(tmp_path, {"src/app.py": "x = 1\n"})
    r = llm_patch("check", "-", "--json", cwd=tmp_path, stdin=EDIT)
    assert r.returncode == 0
    assert json.loads(r.stdout)["root"] == str(tmp_path)
    human = llm_patch("check", "-", cwd=tmp_path, stdin=EDIT).stdout
    assert human.startswith(f"root: {tmp_path} (the current folder: no git, hg or svn")


def test_a_path_missing_under_the_root_but_in_the_repository_is_said_so(tmp_path):
    (tmp_path / ".git").mkdir()
    put(tmp_path, {"src/app.py": "x = 1\n", "docs/x.md": ""})
    r = llm_patch("apply", "-", "--root", "docs", cwd=tmp_path, stdin=EDIT)
    assert r.returncode == 1
    assert "FILE_NOT_FOUND" in r.stdout
    hint = next(line for line in r.stdout.splitlines() if "hint:" in line)
    assert f"src/app.py is not under the root {tmp_path / 'docs'}" in hint
    assert "the repository's top has it" in hint and "rerun with --root ." in hint
    assert (tmp_path / "src/app.py").read_text() == "x = 1\n"


def test_a_path_relative_to_the_current_folder_is_said_so(tmp_path):
    (tmp_path / ".git").mkdir()
    put(tmp_path, {"pkg/src/app.py": "x = 1\n"})
    r = llm_patch("check", "-", "--json", cwd=tmp_path / "pkg", stdin=EDIT)
    assert r.returncode == 1
    hint = json.loads(r.stdout)["blocks"][0]["hint"]
    assert "the current folder has it" in hint and "--root ." in hint
    # the last line points at the hint, not at --partial (which would write elsewhere)
    last = llm_patch("apply", "-", cwd=tmp_path / "pkg", stdin=EDIT).stdout.splitlines()[-1]
    assert last.endswith("the hints above say which --root or --strip-prefix reaches the files")


AGENT = sr("/workspace/app/models.py", "x = 1\n", "x = 2\n")


def test_an_agents_absolute_path_names_the_file_and_the_option(tmp_path):
    put(tmp_path, {"app/models.py": "x = 1\n"})
    r = llm_patch("apply", "-", cwd=tmp_path, stdin=AGENT)
    assert r.returncode == 1
    assert "OUTSIDE_WORKSPACE" in r.stdout
    hint = next(line for line in r.stdout.splitlines() if "hint:" in line)
    assert "the root has app/models.py" in hint and "--strip-prefix /workspace" in hint
    r = llm_patch("apply", "-", "--strip-prefix", "/workspace", cwd=tmp_path, stdin=AGENT)
    assert r.returncode == 0, r.stdout
    assert (tmp_path / "app/models.py").read_text() == "x = 2\n"


def test_an_absolute_path_naming_nothing_under_the_root_gets_no_hint(tmp_path):
    put(tmp_path, {"other.py": "x = 1\n"})
    r = llm_patch("check", "-", "--json", cwd=tmp_path, stdin=AGENT)
    assert r.returncode == 1
    assert "hint" not in json.loads(r.stdout)["blocks"][0]


CREATE = (
    "<function=str_replace_editor>\n<parameter=command>create</parameter>\n"
    "<parameter=path>/workspace/app/new.py</parameter>\n"
    "<parameter=file_text>y = 1\n</parameter>\n</function>\n"
)


def test_an_agents_absolute_path_for_a_new_file_names_its_folder_and_the_option(tmp_path):
    """OpenHands' `create` names a file nobody has yet: the folder it goes in is the
    evidence that the prefix is the agent's."""
    put(tmp_path, {"app/models.py": "x = 1\n"})
    r = llm_patch("apply", "-", cwd=tmp_path, stdin=CREATE)
    assert r.returncode == 1
    hint = next(line for line in r.stdout.splitlines() if "hint:" in line)
    assert "the root has the folder app/ (for a new app/new.py)" in hint
    assert "--strip-prefix /workspace " in hint
    assert not (tmp_path / "app/new.py").exists()
    r = llm_patch("apply", "-", "--strip-prefix", "/workspace", cwd=tmp_path, stdin=CREATE)
    assert r.returncode == 0, r.stdout
    assert (tmp_path / "app/new.py").read_text() == "y = 1\n"


def test_a_relative_path_under_a_folder_the_model_added_names_the_file_and_the_option(
    tmp_path,
):
    """`testbed/app/models.py` (or the project's own name in front): the root has the rest."""
    put(tmp_path, {"app/models.py": "x = 1\n"})
    reply = sr("testbed/app/models.py", "x = 1\n", "x = 2\n")
    r = llm_patch("apply", "-", cwd=tmp_path, stdin=reply)
    assert r.returncode == 1 and "FILE_NOT_FOUND" in r.stdout
    hint = next(line for line in r.stdout.splitlines() if "hint:" in line)
    assert "the root has app/models.py: rerun with --strip-prefix testbed " in hint
    r = llm_patch("apply", "-", "--strip-prefix", "testbed", cwd=tmp_path, stdin=reply)
    assert r.returncode == 0, r.stdout
    assert (tmp_path / "app/models.py").read_text() == "x = 2\n"


def test_a_missing_relative_file_is_not_offered_a_folder(tmp_path):
    """An edit needs its file: a folder of the same name elsewhere is no evidence."""
    put(tmp_path, {"app/models.py": "x = 1\n"})
    reply = sr("src/app/gone.py", "x = 1\n", "x = 2\n")
    report = json.loads(llm_patch("check", "-", "--json", cwd=tmp_path, stdin=reply).stdout)
    assert "hint" not in report["blocks"][0]


@pytest.mark.parametrize("prefix", ["/workspace", "/workspace/"])
def test_strip_prefix_still_refuses_paths_that_leave_the_root(tmp_path, prefix):
    root = tmp_path / "root"
    put(root, {"a.py": "x = 1\n"})
    put(tmp_path, {"outside.py": "x = 1\n"})
    reply = sr("/workspace/../outside.py", "x = 1\n", "x = 2\n")
    r = llm_patch("apply", "-", "--strip-prefix", prefix, "--json", cwd=root, stdin=reply)
    assert r.returncode == 1
    assert json.loads(r.stdout)["blocks"][0]["error"]["code"] == "OUTSIDE_WORKSPACE"
    assert (tmp_path / "outside.py").read_text() == "x = 1\n"


def test_strip_prefix_maps_only_paths_under_it():
    assert strip_prefix("/workspace/a/b.py", ("/workspace",)) == "a/b.py"
    assert strip_prefix("/workspacex/a.py", ("/workspace",)) == "/workspacex/a.py"
    assert strip_prefix("a.py", ("/workspace",)) == "a.py"
    assert strip_prefix(None, ("/workspace",)) is None
    assert strip_prefix("/testbed/x.py", ("/workspace", "/testbed/")) == "x.py"


def test_a_root_that_is_not_a_folder_is_a_usage_error(tmp_path):
    r = llm_patch("apply", "-", "--root", str(tmp_path / "nope"), cwd=tmp_path, stdin=EDIT)
    assert r.returncode == 2 and "is not a folder" in r.stderr
    r = llm_patch("undo", "--root", str(tmp_path / "nope"), cwd=tmp_path)
    assert r.returncode == 2 and "is not a folder" in r.stderr


def test_file_is_relative_to_where_the_user_stands_when_the_root_is_found(tmp_path):
    (tmp_path / ".git").mkdir()
    put(tmp_path, {"src/app.py": "def f():\n    return 1\n"})
    snippet = "```python\ndef f():\n    return 2\n```\n"
    r = llm_patch("apply", "-", "--file", "app.py", cwd=tmp_path / "src", stdin=snippet)
    assert r.returncode == 0, r.stdout + r.stderr
    assert (tmp_path / "src/app.py").read_text() == "def f():\n    return 2\n"
    r = llm_patch("apply", "-", "--file", "../../x.py", cwd=tmp_path / "src", stdin=snippet)
    assert r.returncode == 2 and "is outside the root" in r.stderr


def test_a_file_named_without_its_folders_names_the_file_of_that_name(tmp_path):
    """`util.js` for the root's `src/app/util.js`: no option maps it; the hint names it."""
    put(tmp_path, {"src/app/util.js": "x = 1\n", "src/other.js": "x = 1\n"})
    r = llm_patch("apply", "-", cwd=tmp_path, stdin=sr("util.js", "x = 1\n", "x = 2\n"))
    assert r.returncode == 1 and "FILE_NOT_FOUND" in r.stdout
    hint = next(line for line in r.stdout.splitlines() if "hint:" in line)
    assert "the one file named util.js under the root is src/app/util.js" in hint
    assert r.stdout.rstrip().endswith("the hints above say where the files are")
    assert (tmp_path / "src/app/util.js").read_text() == "x = 1\n"
    put(tmp_path, {"lib/util.js": "x = 1\n"})
    report = json.loads(
        llm_patch("check", "-", "--json", cwd=tmp_path, stdin=sr("util.js", "x = 1\n", "")).stdout
    )
    assert "are lib/util.js, src/app/util.js" in report["blocks"][0]["hint"]
