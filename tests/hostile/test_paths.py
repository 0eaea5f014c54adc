"""Hostile paths: whatever a reply names, nothing outside the workspace root is ever touched.

Every test runs beside a honeypot: folders next to the root (one of them named like the root
plus a suffix, for prefix confusion) whose whole tree — bytes, modes, links — is compared
before and after. Paths are tried as bare EditBlocks (straight at the planner and writer,
no parser in between) and inside real replies in every format, for every operation: modify,
create, delete, move from and move to.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from lsp_server import cli
from lsp_server.model import (
    Action,
    EditBlock,
    ErrorCode,
    Format,
    Hunk,
    OnExists,
    ParsedReply,
    Plan,
)
from lsp_server.plan import plan_reply
from lsp_server.reply import parse_reply
from lsp_server.workspace import DiskWorkspace
from lsp_server.writer import WriteError, write_plan

from .support import (
    editor_create,
    patch_tool,
    search_replace,
    tree,
    unified_diff,
    v4a,
    v4a_add,
    v4a_delete,
    v4a_move,
    whole_file,
)


@dataclass
class Site:
    base: Path
    root: Path
    honeypot: Path
    sibling: Path  # "<root>-evil": a string prefix of the root's path is not the root

    def outside(self) -> dict:
        return {"honeypot": tree(self.honeypot), "sibling": tree(self.sibling)}


def make_site(base: Path) -> Site:
    root, honeypot, sibling = base / "root", base / "honeypot", base / "root-evil"
    for folder in (root / "sub", honeypot / "deep", sibling):
        folder.mkdir(parents=True)
    (root / "a.py").write_text("a\n")
    (root / "sub" / "b.py").write_text("a\n")
    (root / "afile").write_text("a\n")
    (root / "real.py").write_text("a\n")
    (root / "inlink.py").symlink_to(root / "real.py")  # a link inside the root: allowed
    (root / "linkdir").symlink_to(honeypot)
    (root / "sub" / "up").symlink_to(Path("..") / ".." / "honeypot")  # relative link out
    (root / "linkfile.py").symlink_to(honeypot / "t.py")
    (root / "dangling.py").symlink_to(honeypot / "new.py")  # not there yet: creating follows
    (root / "linkbase").symlink_to(base)
    (root / "loop").symlink_to("loop")
    (honeypot / "t.py").write_text("a\n")
    (honeypot / "deep" / "x.py").write_text("a\n")
    (sibling / "t.py").write_text("a\n")
    os.chmod(honeypot / "t.py", 0o644)
    return Site(base, root.resolve(), honeypot, sibling)


@pytest.fixture
def site(tmp_path: Path):
    s = make_site(tmp_path)
    before = s.outside()
    yield s
    assert s.outside() == before, "something outside the root changed"


OUTSIDE = {ErrorCode.OUTSIDE_WORKSPACE}
IO = {ErrorCode.IO_ERROR}
LONG_TREE = ("d" * 200 + "/") * 25 + "x.py"  # 5,000 bytes: past PATH_MAX, each segment legal


def hostile_paths(s: Site) -> list[tuple[str, set[ErrorCode]]]:
    hp = s.honeypot
    return [
        ("../honeypot/t.py", OUTSIDE),
        ("sub/../../honeypot/t.py", OUTSIDE),
        ("./../honeypot/t.py", OUTSIDE),
        ("..", OUTSIDE),
        (str(hp / "t.py"), OUTSIDE),
        (str(s.sibling / "t.py"), OUTSIDE),
        (str(s.root) + "/../honeypot/t.py", OUTSIDE),
        (str(s.root), OUTSIDE),
        ("/", OUTSIDE),
        (".", OUTSIDE),
        ("~/t.py", OUTSIDE),
        ("~root/t.py", OUTSIDE),
        ("..\\honeypot\\t.py", OUTSIDE),
        ("sub\\..\\..\\honeypot\\t.py", OUTSIDE),
        ("C:\\honeypot\\t.py", OUTSIDE),
        ("C:/t.py", OUTSIDE),
        ("c:t.py", OUTSIDE),
        ("\\\\server\\share\\t.py", OUTSIDE),
        ("//server/share/t.py", OUTSIDE),
        ("t\x00.py", OUTSIDE),
        ("../honeypot/t.py\x00.txt", OUTSIDE),
        ("a\ud800.py", OUTSIDE),
        ("linkdir/t.py", OUTSIDE),
        ("linkdir/new.py", OUTSIDE),
        ("linkdir/deep/x.py", OUTSIDE),
        ("linkdir", OUTSIDE),
        ("sub/up/t.py", OUTSIDE),
        ("linkfile.py", OUTSIDE),
        ("dangling.py", OUTSIDE),
        ("linkbase/honeypot/t.py", OUTSIDE),
        ("linkbase/root-evil/t.py", OUTSIDE),
        ("x" * 256 + ".py", OUTSIDE),
        ("é" * 128 + ".py", OUTSIDE),  # 256 bytes in UTF-8
        ("afile/x.py", IO),
        ("afile/deeper/x.py", IO),
        (LONG_TREE, IO),
        ("loop/x.py", IO | {ErrorCode.FILE_NOT_FOUND}),
    ]


def _block(op: str, path: str) -> EditBlock:
    span = (1, 3)
    if op == "modify":
        return EditBlock(Format.SEARCH_REPLACE, path, span, hunks=(Hunk("a\n", "b\n"),))
    if op == "create":
        return EditBlock(
            Format.APPLY_PATCH,
            path,
            span,
            Action.CREATE,
            content="pwned\n",
            on_exists=OnExists.OVERWRITE,
        )
    if op == "delete":
        return EditBlock(Format.APPLY_PATCH, path, span, Action.DELETE)
    if op == "move_to":
        return EditBlock(
            Format.APPLY_PATCH, "a.py", span, hunks=(Hunk("a\n", "b\n"),), move_to=path
        )
    assert op == "move_from"
    return EditBlock(
        Format.APPLY_PATCH, path, span, hunks=(Hunk("a\n", "b\n"),), move_to="moved.py"
    )


OPS = ("modify", "create", "delete", "move_to", "move_from")


def _plan_and_write(root: Path, reply: ParsedReply) -> Plan:
    ws = DiskWorkspace(root)
    plan = plan_reply(reply, ws)
    if plan.ok and plan.files:
        write_plan(plan, ws)
    return plan


@pytest.mark.parametrize("op", OPS)
def test_every_hostile_path_is_refused_for_every_operation(site: Site, op: str):
    inside = tree(site.root)
    for path, codes in hostile_paths(site):
        plan = _plan_and_write(site.root, ParsedReply((_block(op, path),)))
        (outcome,) = plan.outcomes
        assert outcome.failure is not None, f"{op} {path!r} was placed"
        assert outcome.failure.code in codes, (op, path, outcome.failure.message)
        assert plan.files == ()
        assert tree(site.root) == inside, f"{op} {path!r} changed the root"


@pytest.mark.parametrize(
    "reply",
    [
        lambda p: search_replace(p, "a\n", "pwned\n"),
        lambda p: search_replace(p, "", "pwned\n"),
        lambda p: unified_diff(p, "a\n", "pwned\n"),
        lambda p: f"--- /dev/null\n+++ {p}\n@@ -0,0 +1 @@\n+pwned\n",
        lambda p: f"diff --git a/a.py b/x\nrename from a.py\nrename to {p}\n",
        lambda p: v4a(p, "a\n", "pwned\n"),
        lambda p: v4a_add(p, "pwned\n"),
        lambda p: v4a_delete(p),
        lambda p: v4a_move("a.py", p),
        lambda p: patch_tool(p, "a", "pwned"),
        lambda p: editor_create(p, "pwned\n"),
        lambda p: whole_file(p, "pwned\n"),
    ],
    ids=[
        "sr",
        "sr-create",
        "diff",
        "diff-create",
        "git-rename",
        "v4a",
        "v4a-add",
        "v4a-delete",
        "v4a-move",
        "patch-tool",
        "editor-create",
        "whole-file",
    ],
)
def test_hostile_paths_inside_real_replies(site: Site, reply):
    """The parsers may read a path differently (or not as a path at all); whatever they read,
    the reply fails as a whole and nothing on either side of the root changes."""
    inside = tree(site.root)
    for path, _ in hostile_paths(site):
        plan = _plan_and_write(site.root, parse_reply(reply(path)))
        assert not plan.ok, f"{path!r} in {reply(path)!r} was accepted"
        assert plan.files == ()
        assert tree(site.root) == inside


def test_paths_that_normalise_inside_the_root_work(site: Site):
    for path in ("./a.py", "sub//b.py", str(site.root / "real.py"), "sub/./b.py/"):
        plan = _plan_and_write(site.root, ParsedReply((_block("modify", path),)))
        assert plan.ok, (path, plan.outcomes[0].failure)
        (site.root / "a.py").write_text("a\n")
        (site.root / "sub" / "b.py").write_text("a\n")
        (site.root / "real.py").write_text("a\n")


def test_a_symlink_inside_the_root_is_written_through_not_replaced(site: Site):
    plan = _plan_and_write(site.root, ParsedReply((_block("modify", "inlink.py"),)))
    assert plan.ok
    assert (site.root / "inlink.py").is_symlink()
    assert (site.root / "real.py").read_text() == "b\n"


def test_atomic_reply_mixing_good_and_hostile_blocks_writes_nothing(site: Site, capsys):
    reply = (
        search_replace("a.py", "a\n", "changed\n")
        + search_replace("../honeypot/t.py", "a\n", "pwned\n")
        + v4a_add("linkdir/new.py", "pwned\n")
    )
    path = site.base / "reply.md"
    path.write_text(reply)
    inside = tree(site.root)
    assert cli.run(["apply", str(path), "--root", str(site.root), "--json"]) == 1
    assert tree(site.root) == inside
    # --partial writes the good block, still nothing outside
    assert cli.run(["apply", str(path), "--root", str(site.root), "--partial"]) == 1
    assert (site.root / "a.py").read_text() == "changed\n"
    capsys.readouterr()


@pytest.mark.parametrize("swap", ["folder", "file"])
def test_a_symlink_swapped_in_between_plan_and_write_is_refused(site: Site, swap: str):
    """Time of check vs time of use: the writer checks every path again before writing."""
    ws = DiskWorkspace(site.root)
    target = "sub/b.py"
    plan = plan_reply(ParsedReply((_block("modify", target),)), ws)
    assert plan.ok
    if swap == "folder":
        shutil.rmtree(site.root / "sub")
        (site.root / "sub").symlink_to(site.honeypot)
        (site.honeypot / "b.py").write_text("a\n")  # same bytes: only the path check saves it
    else:
        (site.root / target).unlink()
        (site.root / target).symlink_to(site.honeypot / "t.py")
    with pytest.raises(WriteError) as err:
        write_plan(plan, ws)
    assert err.value.failure.code in (ErrorCode.OUTSIDE_WORKSPACE, ErrorCode.STALE_VERSION)
    if swap == "folder":
        assert (site.honeypot / "b.py").read_text() == "a\n"
        (site.honeypot / "b.py").unlink()  # the fixture compares with the tree before


def test_created_folders_stay_inside(site: Site):
    plan = _plan_and_write(site.root, ParsedReply((_block("create", "new/deeper/still/c.py"),)))
    assert plan.ok
    assert (site.root / "new" / "deeper" / "still" / "c.py").read_text() == "pwned\n"


# --- random paths built from dangerous pieces --------------------------------------------------

SEGMENTS = [
    "..",
    ".",
    "",
    "~",
    "~root",
    "a.py",
    "sub",
    "b.py",
    "afile",
    "linkdir",
    "linkfile.py",
    "dangling.py",
    "linkbase",
    "honeypot",
    "root-evil",
    "t.py",
    "C:",
    "c:",
    "\\",
    "\\\\",
    "..\\..",
    "x" * 255,
    "x" * 256,
    "\x00",
    "é",
    "new.py",
    " ",
    "loop",
    "up",
]


@st.composite
def hostile_path(draw) -> str:
    pieces = draw(st.lists(st.sampled_from(SEGMENTS), min_size=1, max_size=6))
    sep = draw(st.sampled_from(["/", "\\", "//"]))
    path = sep.join(pieces)
    if draw(st.booleans()):
        path = draw(st.sampled_from(["/", "\\", "~/", "C:\\", "//", "./"])) + path
    return path


@given(path=hostile_path(), op=st.sampled_from(OPS), absolute=st.booleans())
def test_random_paths_never_leave_the_root(path: str, op: str, absolute: bool):
    with tempfile.TemporaryDirectory() as tmp:
        s = make_site(Path(tmp))
        before = s.outside()
        if absolute:
            path = str(s.root) + "/" + path
        plan = _plan_and_write(s.root, ParsedReply((_block(op, path),)))
        assert s.outside() == before, (op, path)
        for change in plan.files:
            for name in (change.path, change.new_path):
                if name is not None:
                    real = Path(os.path.realpath(s.root / name))
                    assert real == s.root or s.root in real.parents, (op, path, name)
