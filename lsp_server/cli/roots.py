"""Which folder a command works in, and where a path the reply names might really be.

Run from a subfolder of a repository, the paths a model writes are the repository's
(`src/app.py`), so the root is the enclosing repository's top: the nearest folder above
that holds `.git` (a folder, or a worktree's file), `.hg` or `.svn`. Outside any
repository it is the current folder. `--root` overrides it, and every report names it.

When a block's file is missing under the root, `hint` looks where else the path could
point — the repository's top, the current folder, or, for an agent's absolute path
(`/workspace/app/models.py`, `/testbed/...`), the tail of it that names a file under the
root — and says which option reaches it. It only reads; nothing is mapped without the
user's option (`--root`, `--strip-prefix`).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import NamedTuple

VCS_MARKERS = (".git", ".hg", ".svn")


class Root(NamedTuple):
    path: Path  # resolved
    how: str  # "given" | "git" | "hg" | "svn" | "current folder"
    repo: Path | None  # the enclosing repository's top, whether or not it is the root
    vcs: str | None  # which marker made `repo` one


def enclosing_repo(start: Path) -> tuple[Path, str] | None:
    """The nearest folder at or above `start` holding a version-control marker."""
    for folder in (start, *start.parents):
        for marker in VCS_MARKERS:
            if os.path.lexists(folder / marker):
                return folder, marker[1:]
    return None


def find_root(given: str | None, cwd: Path | None = None) -> Root:
    here = Path(os.path.realpath(cwd or Path.cwd()))
    if given is not None:
        path = Path(os.path.realpath(given))
        found = enclosing_repo(path)
        return Root(path, "given", *(found or (None, None)))
    found = enclosing_repo(here)
    if found is None:
        return Root(here, "current folder", None, None)
    return Root(found[0], found[1], found[0], found[1])


def describe(root: Root) -> str:
    """`/src/app (the git repository's top)`, for the report's first line."""
    if root.how == "given":
        return f"{root.path} (--root)"
    if root.how == "current folder":
        return f"{root.path} (the current folder: no git, hg or svn repository encloses it)"
    return f"{root.path} (the {root.how} repository's top)"


def _is_file(path: Path) -> bool:
    try:
        return path.is_file()
    except OSError:
        return False


def _shown(path: Path, cwd: Path) -> str:
    """A folder as the user would type it: relative to where they stand when shorter."""
    rel = os.path.relpath(path, cwd)
    return rel if len(rel) < len(str(path)) else str(path)


def hint(path: str, root: Root, cwd: Path | None = None) -> str | None:
    """Why a path the reply names is missing under the root, when the answer is in sight;
    None when it is not."""
    here = Path(os.path.realpath(cwd or Path.cwd()))
    if os.path.isabs(path):
        return _absolute_hint(path, root)
    for base, name in ((root.repo, "the repository's top"), (here, "the current folder")):
        if base is None or base == root.path:
            continue
        if _is_file(base / path):
            return (
                f"{path} is not under the root {root.path}, but {name} has it "
                f"({base / path}): rerun with --root {_shown(base, here)}"
            )
    # a path under a folder the model put in front (`repo/src/app.py`, `a/testbed/...`)
    found = _tail_under_root(Path(path).parts, root, new_files=False)
    if found is not None:
        prefix, tail, what = found
        return (
            f"{path} is not under the root {root.path}, but the root has {what}: rerun with "
            f"--strip-prefix {prefix} to read the reply's paths under {prefix}/ as relative "
            "to the root"
        )
    return _same_name(path, root)


_NAMED: dict[tuple[Path, str], list[str]] = {}  # one walk per name and root, per run


def _same_name(path: str, root: Root) -> str | None:
    """A file of the same name elsewhere under the root (`util.js` for `src/app/util.js`):
    no option maps one path to another, so the hint names the file to put in the reply."""
    name = Path(path).name
    if not name:
        return None
    if (root.path, name) not in _NAMED:
        from lsp_server.workspace import DiskWorkspace  # only for a missing file

        _NAMED[root.path, name] = DiskWorkspace(root.path).files_named(name)
    others = [p for p in _NAMED[root.path, name] if p != path]
    if not others or len(others) > 3:
        return None
    if len(others) == 1:
        return (
            f"the one file named {name} under the root is {others[0]}: if the reply means "
            "it, name that path in the reply"
        )
    return f"the files named {name} under the root are {', '.join(others)}: name one in the reply"


def _absolute_hint(path: str, root: Root) -> str | None:
    """An agent's absolute path: the longest tail of it that names a file under the root,
    and the `--strip-prefix` that maps the rest away."""
    found = _tail_under_root(Path(path).parts[1:], root, new_files=True)  # without "/"
    if found is None:
        return None
    prefix, tail, what = found
    return (
        f"{path} is an absolute path outside the root {root.path}; the root has {what}: "
        f"rerun with --strip-prefix /{prefix} to read the reply's paths under /{prefix} as "
        "relative to the root"
    )


def _tail_under_root(
    parts: tuple[str, ...], root: Root, *, new_files: bool
) -> tuple[str, str, str] | None:
    """The leading folders to strip from `parts` so that the rest is a file under the root
    (`app/models.py`), else, with `new_files` (an agent's absolute path, which may create
    a file: OpenHands' `create`), so that the rest is a new file in a folder the root has
    (`app/new.py` beside `app/`): (prefix, tail, the words for it). The longest such tail;
    a bare file name in the root's own folder says too little."""
    cuts = range(1, len(parts))
    for cut in cuts:
        tail = Path(*parts[cut:])
        if _is_file(root.path / tail):
            return "/".join(parts[:cut]), tail.as_posix(), tail.as_posix()
    for cut in cuts if new_files else ():
        tail = Path(*parts[cut:])
        if len(tail.parts) > 1 and _is_dir(root.path / tail.parent):
            words = f"the folder {tail.parent.as_posix()}/ (for a new {tail.as_posix()})"
            return "/".join(parts[:cut]), tail.as_posix(), words
    return None


def _is_dir(path: Path) -> bool:
    try:
        return path.is_dir()
    except OSError:
        return False


def strip_prefix(path: str | None, prefixes: tuple[str, ...]) -> str | None:
    """`path` with the first of `prefixes` it lies under removed (`/workspace/app/x.py`,
    `/workspace` → `app/x.py`); unchanged otherwise. What remains is still checked by the
    workspace's guard like any reply path (`..` or an absolute path is refused)."""
    if path is None:
        return None
    for prefix in prefixes:
        head = prefix.rstrip("/")
        if head and path.startswith(head + "/"):
            return path[len(head) + 1 :]
    return path


def typed_path(path: str, root: Root, cwd: Path | None = None) -> str | None:
    """A path the user typed (`--file`) as the root-relative path a plan takes: with
    `--root` it is relative to that root, as it always was; with the root found above the
    current folder it is relative to where the user stands, as any path typed in a shell.
    None when it lies outside the root."""
    if root.how == "given" and not os.path.isabs(path):
        return path
    here = Path(os.path.realpath(cwd or Path.cwd()))
    full = Path(os.path.normpath(here / path))
    try:
        return full.relative_to(root.path).as_posix()
    except ValueError:
        return None
