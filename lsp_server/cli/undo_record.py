"""What `llm-patch undo` needs from the last apply in a root, kept after that apply wrote.

For each file the apply changed: what it did (modify, create, delete, rename), the text
the file had before (absent for a file it created), and the SHA-256 of the bytes it wrote
(absent for a file it deleted). `undo` puts the old texts back only while every file still
holds exactly those bytes; a file changed since is named and nothing is written.

Where it is kept: inside the enclosing repository's own folder when there is one
(`.git/llm-patch/`, following a worktree's `.git` file to its git folder; `.hg/llm-patch/`,
`.svn/llm-patch/`), where no status lists it and no reply may write (version-control
folders are always protected); elsewhere in the user's state folder
(`$LLM_PATCH_STATE`, else `$XDG_STATE_HOME/llm-patch`, else `~/.local/state/llm-patch`),
so no folder appears among the user's files. One record per root, replaced by each apply
that writes; `undo` removes it once it has put the files back, so a second `undo` has
nothing to do.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
from pathlib import Path
from typing import NamedTuple

from lsp_server.cli.roots import Root
from lsp_server.model import FileAction, PlacementError, Plan
from lsp_server.workspace import DiskWorkspace, digest, encode

VERSION = 1


class Change(NamedTuple):
    action: str  # FileAction's value, as the apply did it
    path: str
    new_path: str | None  # a rename's destination
    before: str | None  # the text before the apply (None: the apply created the file)
    after: str | None  # SHA-256 of the bytes the apply wrote (None: it deleted the file)
    bom: bool
    # the text a move or `Add File` replaced at its destination, which comes back too
    replaced: str | None = None


class Record(NamedTuple):
    root: str
    changes: tuple[Change, ...]


# The record is one file: a JSON line naming the changes, then the old texts as raw UTF-8,
# each change's `before` and `replaced` in turn, their byte lengths in the JSON line.
# JSON-escaping a large old text would cost the apply more than writing the file does
# (some 60 ms for a 5 MB one).
_TEXTS = ("before", "replaced")


def _encode(record: Record) -> list[bytes]:
    heads, blobs = [], []
    for c in record.changes:
        head = c._asdict()
        for key in _TEXTS:
            text = head[key]
            if text is not None:
                blobs.append(text.encode("utf-8"))
                head[key] = len(blobs[-1])
        heads.append(head)
    line = json.dumps({"version": VERSION, "root": record.root, "changes": heads})
    return [line.encode("utf-8") + b"\n", *blobs]


def _decode(data: bytes) -> Record:
    line, _, rest = data.partition(b"\n")
    raw = json.loads(line)
    if not isinstance(raw, dict) or raw.get("version") != VERSION:
        raise ValueError("not a record of this version")
    at, changes = 0, []
    for head in raw["changes"]:
        for key in _TEXTS:
            n = head[key]
            if n is not None:
                if not isinstance(n, int) or n < 0 or at + n > len(rest):
                    raise ValueError("cut short")
                head[key] = rest[at : at + n].decode("utf-8")
                at += n
        changes.append(Change(**head))
    if at != len(rest):
        raise ValueError("trailing bytes")
    return Record(str(raw["root"]), tuple(changes))


def folder(root: Path, repo: Path | None, vcs: str | None) -> Path:
    """Where the record of `root` is kept (see the module's doc)."""
    if repo is not None and vcs == "git":
        dot = repo / ".git"
        if dot.is_file():  # a worktree or submodule: `gitdir: <path>`
            text = dot.read_text(encoding="utf-8", errors="replace").strip()
            if text.startswith("gitdir:"):
                dot = (repo / text.removeprefix("gitdir:").strip()).resolve()
        return dot / "llm-patch"
    if repo is not None and vcs in ("hg", "svn"):
        return repo / f".{vcs}" / "llm-patch"
    return state_folder() / "undo"


def state_folder() -> Path:
    """Where llm-patch keeps what belongs to no repository."""
    own = os.environ.get("LLM_PATCH_STATE")
    if own:
        return Path(own)
    xdg = os.environ.get("XDG_STATE_HOME")
    return (Path(xdg) if xdg else Path.home() / ".local" / "state") / "llm-patch"


def _file(root: Path, where: Path) -> Path:
    key = hashlib.sha256(str(root).encode("utf-8", "surrogateescape")).hexdigest()[:16]
    return where / f"last-apply-{key}.record"


def build(plan: Plan, replaced: dict[str, str]) -> tuple[Change, ...]:
    """The record of `plan`, made before it is written; `replaced` holds the texts of the
    destinations a move or an overwrite replaces (read by the caller under the lock)."""
    out = []
    for c in plan.files:
        after = None if c.new_text is None else digest(encode(c.new_text, c.bom))
        before = None if c.action is FileAction.CREATE else c.old_text
        dest = c.new_path if c.action is FileAction.RENAME else c.path
        out.append(
            Change(
                str(c.action),
                c.path,
                c.new_path,
                before,
                after,
                c.bom,
                replaced.get(dest) if c.overwrite_dest else None,
            )
        )
    return tuple(out)


def save(root: Path, where: Path, changes: tuple[Change, ...]) -> Path:
    """Write the record atomically (a temporary file renamed over the last one). Not
    fsynced: a record lost to a crash costs only the undo, and `undo` checks every file's
    hash, so an older record left in its place is refused, never applied."""
    where.mkdir(parents=True, exist_ok=True)
    target = _file(root, where)
    temp = where / f".{target.name}.{os.getpid()}.tmp"  # tempfile would cost the start-up
    fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        with os.fdopen(fd, "wb") as out:
            out.writelines(_encode(Record(str(root), changes)))
        os.replace(temp, target)
    except BaseException:
        temp.unlink(missing_ok=True)
        raise
    return target


def load(root: Path, where: Path) -> Record | None:
    """The last apply's record in `root`; None when there is none. A record that cannot be
    read is a ValueError saying so: there is nothing `undo` can prove from it."""
    try:
        data = _file(root, where).read_bytes()
    except FileNotFoundError:
        return None
    except OSError as err:
        raise ValueError(f"{_file(root, where)} cannot be read: {err.strerror or err}") from None
    try:
        return _decode(data)
    except (ValueError, TypeError, KeyError):  # UnicodeDecodeError is a ValueError
        raise ValueError(f"{_file(root, where)} is not a record this version can read") from None


def latest_elsewhere(root: Path, where: Path) -> str | None:
    """The root of the newest record kept in `where` for another root (an apply run with
    `--root`), so `undo` without it can say which `--root` it needs."""
    found: list[tuple[float, str]] = []
    for path in where.glob("last-apply-*.record") if where.is_dir() else ():
        try:
            with path.open("rb") as f:
                head = json.loads(f.readline())
            found.append((path.stat().st_mtime, str(head["root"])))
        except (OSError, ValueError, KeyError, TypeError):
            continue
    others = [r for _, r in sorted(found, reverse=True) if r != str(root)]
    return others[0] if others else None


def drop(root: Path, where: Path) -> None:
    _file(root, where).unlink(missing_ok=True)


def prepare(plan: Plan, ws: DiskWorkspace) -> tuple[Change, ...]:
    """The record of a plan about to be written, under the workspace lock: the texts the
    plan replaces wholesale at a move's or an overwrite's destination are read now."""
    replaced: dict[str, str] = {}
    for c in plan.files:
        dest = c.new_path if c.action is FileAction.RENAME else c.path
        if c.overwrite_dest and dest and c.action is FileAction.RENAME:
            try:
                replaced[dest] = ws.snapshot(dest).text or ""
            except (
                PlacementError,
                OSError,
            ):  # unreadable: that file cannot come back, said at undo
                pass
    return build(plan, replaced)


def keep(root: Root, changes: tuple[Change, ...]) -> bool:
    """Keep the record after a write; a record that cannot be kept costs the undo, not the
    apply, and is said on stderr (False)."""
    try:
        save(root.path, folder(root.path, root.repo, root.vcs), changes)
        return True
    except OSError as err:
        print(
            f"llm-patch: the files were written, but `llm-patch undo` will not be able to "
            f"put them back: its record could not be kept ({err.strerror or err})",
            file=sys.stderr,
        )
        return False
