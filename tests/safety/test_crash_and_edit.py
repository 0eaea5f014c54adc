"""Crash, then a user who goes on working, then recovery: no byte the user wrote is lost.

A property test (issue 23): an apply that modifies, creates (in a new folder), deletes and
moves files is killed before a random one of its disk-changing calls (the in-process hook of
`writer_support.die_at`). Then a random "user" works on the tree as people and editors do:
saves in place (`>>`, a rewrite), saves by writing a copy and renaming it over, creates,
deletes and renames files. Then the tree is recovered — by `llm-patch recover`, or by the
next apply, which recovers first. The oracle is independent of the writer: it knows only
the texts before and after the reply and what the user did.

* every name the user left holding bytes holds exactly those bytes (unless they are exactly
  the old or new text of that name — a file moved away and back: bytes are the identity,
  so that name counts as one nobody touched);
* every file the user did not touch holds its old text, or every one of them its new text;
* no journal and no temporary `.new` file is left (a saved `.old` file may be, and then the
  recovery named it).

`HYPOTHESIS_PROFILE=long` runs 6,000 examples (the suite runs 300).
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lsp_server.journal import recover
from lsp_server.writer import WriteError, write_plan

from .writer_support import count_steps, die_at, plan_for, search_replace

EXAMPLES = 6_000 if os.environ.get("HYPOTHESIS_PROFILE") == "long" else 300

OLD = {
    "f0.py": b"f0 = 'old'\n",
    "f1.py": b"f1 = 'old'\n",
    "f2.py": b"f2 = 'old'\n",
    "d.py": b"d = 'old'\n",
    "r.py": b"r = 'old'\n",
}
REPLY = (
    search_replace("f0.py", "f0 = 'old'\n", "f0 = 'new'\n")
    + search_replace("f1.py", "f1 = 'old'\n", "f1 = 'new'\n")
    + search_replace("f2.py", "f2 = 'old'\n", "f2 = 'new'\n")
    + "*** Begin Patch\n*** Add File: pkg/n.py\n+n = 'new'\n*** Delete File: d.py\n"
    "*** Update File: r.py\n*** Move to: r2.py\n@@\n-r = 'old'\n+r = 'new'\n*** End Patch\n"
)
NEW = {
    "f0.py": b"f0 = 'new'\n",
    "f1.py": b"f1 = 'new'\n",
    "f2.py": b"f2 = 'new'\n",
    "pkg/n.py": b"n = 'new'\n",
    "r2.py": b"r = 'new'\n",
}
NAMES = ["f0.py", "f1.py", "f2.py", "d.py", "r.py", "r2.py", "pkg/n.py", "u.py"]


def make(root: Path) -> None:
    if root.exists():
        shutil.rmtree(root)
    root.mkdir()
    for name, data in OLD.items():
        (root / name).write_bytes(data)


def files(root: Path) -> dict[str, bytes]:
    out = {}
    for p in root.rglob("*"):
        if p.is_file() and not p.is_symlink():
            out[p.relative_to(root).as_posix()] = p.read_bytes()
    return out


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    root = tmp_path_factory.mktemp("crash-edit") / "root"
    make(root)
    plan, ws = plan_for(root, REPLY)
    with pytest.MonkeyPatch.context() as mp:
        counter = count_steps(mp)
        write_plan(plan, ws)
    assert files(root) == NEW
    return root, plan, ws, counter[0]


OPS = st.lists(
    st.tuples(
        st.sampled_from(["append", "rewrite", "atomic", "delete", "rename"]),
        st.sampled_from(NAMES),
        st.sampled_from(NAMES),
    ),
    max_size=6,
)


def act(root: Path, ops, written: dict[str, bytes | None]) -> None:
    """The user's work; `written` gets each name they touched: its bytes, or None when they
    removed it (or moved it away)."""
    for i, (kind, name, other) in enumerate(ops):
        path = root / name
        mine = f"# user {i} in {name}\n".encode()
        if kind in ("append", "delete", "rename") and not path.is_file():
            continue
        if kind == "append":  # an editor that saves in place
            with open(path, "ab") as fh:
                fh.write(mine)
            written[name] = path.read_bytes()
        elif kind == "rewrite":  # in place, or a new file
            path.parent.mkdir(parents=True, exist_ok=True)
            with open(path, "wb") as fh:
                fh.write(mine)
            written[name] = mine
        elif kind == "atomic":  # a copy renamed over the name
            path.parent.mkdir(parents=True, exist_ok=True)
            copy = path.with_name(path.name + ".swp")
            copy.write_bytes(mine)
            os.replace(copy, path)
            written[name] = mine
        elif kind == "delete":
            path.unlink()
            written[name] = None
        elif name != other:  # rename
            (root / other).parent.mkdir(parents=True, exist_ok=True)
            data = path.read_bytes()
            os.replace(path, root / other)
            written[other], written[name] = data, None


@settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(step=st.integers(1, 10_000), ops=OPS, by_apply=st.booleans())
def test_no_byte_the_user_wrote_after_a_crash_is_lost(site, step, ops, by_apply):
    root, plan, ws, total = site
    step = 1 + step % (total + 1)  # total + 1: the apply finished before its kill
    make(root)
    with pytest.MonkeyPatch.context() as mp:
        code = die_at(step, mp, lambda: write_plan(plan, ws))
    assert code == (137 if step <= total else 0)
    written: dict[str, bytes | None] = {}
    act(root, ops, written)
    if by_apply:  # the next apply recovers first; its plan then finds the user's changes
        try:
            write_plan(plan, ws)
        except WriteError:
            pass
    else:
        recover(root)
    now = files(root)
    for name, data in list(written.items()):
        if data is not None and data in (OLD.get(name), NEW.get(name)):
            # exactly a text the apply wrote or saved at that name (a file moved away and
            # back): bytes are the identity, so it is one nobody touched
            del written[name]
    for name, data in written.items():
        if data is not None:
            assert now.get(name) == data, f"{name}: the user's bytes are gone"
    untouched = [n for n in set(OLD) | set(NEW) if n not in written]
    old = all(now.get(n) == OLD.get(n) for n in untouched)
    new = all(now.get(n) == NEW.get(n) for n in untouched)
    assert old or new, {n: now.get(n) for n in untouched}
    own = [n for n in now if ".llm-patch" in n]
    assert not [n for n in own if not n.endswith(".old")], own
    assert recover(root).outcome == "nothing"
