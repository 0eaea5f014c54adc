"""What `llm-patch apply` loads (issue 17 #2): only what the reply needs. The language server
(pygls, lsprotocol, the `lsp` package, the start-up code cache) never loads on this path,
nor `logging`, nor the parsers of formats the reply does not use; tree-sitter only when a
changed file has a grammar."""

from __future__ import annotations

import functools
import json
import subprocess
import sys
from pathlib import Path

import pytest

PROBE = """
import contextlib, io, json, sys
from lsp_server.cli import run
with contextlib.redirect_stdout(io.StringIO()):
    code = run(sys.argv[1:])
print(json.dumps({"code": code, "modules": sorted(sys.modules)}))
"""

NEVER = (
    "pygls",
    "lsprotocol",
    "lsp_server.lsp",
    "lsp_server.boot.codecache",
    "logging",
    "cattrs",
    "shutil",  # argparse's for the terminal's width: `cli.args` asks `os` (issue 26)
    "argparse",  # the usual apply / check line is read by `cli.fast_args` (issue 26)
    "gettext",
    "locale",
)


def loaded(root: Path, reply: str, command: str = "apply") -> list[str]:
    (root / "reply.md").write_text(reply)
    done = subprocess.run(
        [sys.executable, "-c", PROBE, command, "reply.md", "--root", "."],
        cwd=root,
        capture_output=True,
        text=True,
        check=True,
    )
    out = json.loads(done.stdout.strip().splitlines()[-1])
    assert out["code"] == 0, done.stderr
    return out["modules"]


def under(modules: list[str], prefix: str) -> list[str]:
    return [m for m in modules if m == prefix or m.startswith(prefix + ".")]


@functools.cache
def with_the_package(package: str) -> frozenset[str]:
    """The submodules `import package` loads by itself (the helpers every format shares),
    so that what a reply loads beyond them is exactly its formats' parsers."""
    code = f"import json, sys, {package}; print(json.dumps(list(sys.modules)))"
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
    )
    return frozenset(m[len(package) + 1 :] for m in under(json.loads(done.stdout), package))


@pytest.mark.parametrize(
    "name, before, reply, formats",
    [
        (
            "notes.txt",
            "one\ntwo\n",
            "notes.txt\n```\n<<<<<<< SEARCH\none\n=======\nuno\n>>>>>>> REPLACE\n```\n",
            # the SEARCH/REPLACE block claims the fence, so the finders that read fenced
            # bodies one by one (whole files, chat snippets) do not run; nor does whole_file's
            # check for stray marker lines, since the block holds the fence's whole body
            {"search_replace"},
        ),
        (
            "notes.txt",
            "one\ntwo\n",
            "notes.txt\n```\nuno\ntwo\n```\n",
            # a fence no other format claims is a whole file; once it is, the snippet
            # finder has no fence left to read
            {"whole_file"},
        ),
        (
            "notes.txt",
            "one\ntwo\n",
            "--- a/notes.txt\n+++ b/notes.txt\n@@ -1,2 +1,2 @@\n-one\n+uno\n two\n",
            {"unified_diff"},
        ),
    ],
)
def test_apply_loads_only_what_the_reply_needs(tmp_path, name, before, reply, formats):
    (tmp_path / name).write_text(before)
    modules = loaded(tmp_path, reply)
    assert (tmp_path / name).read_text() == "uno\ntwo\n"
    for prefix in NEVER:
        assert not under(modules, prefix), prefix
    parsers = {m.rsplit(".", 1)[1] for m in under(modules, "lsp_server.reply")} - {"reply"}
    assert parsers - with_the_package("lsp_server.reply") == formats
    assert not under(modules, "tree_sitter")  # a .txt file has no grammar to check with


def test_an_apply_whose_report_shows_no_diff_loads_no_differ(tmp_path):
    """difflib's matcher is for diffs shown (`check`, the editor's preview); an apply of
    one block reports no diff, so it loads neither difflib nor heapq (issue 26)."""
    (tmp_path / "notes.txt").write_text("one\ntwo\n")
    reply = "notes.txt\n```\n<<<<<<< SEARCH\none\n=======\nuno\n>>>>>>> REPLACE\n```\n"
    modules = loaded(tmp_path, reply)
    assert (tmp_path / "notes.txt").read_text() == "uno\ntwo\n"
    assert not under(modules, "difflib")


def test_check_loads_neither_the_writer_nor_the_undo_record(tmp_path):
    """A check writes nothing: the writer and the undo record stay unloaded (issue 26)."""
    (tmp_path / "notes.txt").write_text("one\ntwo\n")
    reply = "notes.txt\n```\n<<<<<<< SEARCH\none\n=======\nuno\n>>>>>>> REPLACE\n```\n"
    modules = loaded(tmp_path, reply, "check")
    assert (tmp_path / "notes.txt").read_text() == "one\ntwo\n"
    assert not under(modules, "lsp_server.writer")
    assert not under(modules, "lsp_server.cli.undo_record")
    for prefix in NEVER:
        assert not under(modules, prefix), prefix


def test_importing_the_command_line_loads_almost_nothing():
    """`import lsp_server.cli` — what every start pays before reading its arguments — loads
    no argument parser, no engine, no grammar and no server (issue 26)."""
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            "import json, sys; import lsp_server.cli; print(json.dumps(sorted(sys.modules)))",
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    modules = json.loads(done.stdout)
    engine = ("tree_sitter", "lsp_server.reply", "lsp_server.model", "dataclasses", "typing")
    for prefix in (*NEVER, *engine):
        assert not under(modules, prefix), prefix
