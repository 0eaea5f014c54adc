"""Plan → files on disk, as one transaction.

Every new file is prepared first (a temp file in the destination's folder, fsynced), each
original is re-read and its hash compared with the one read at plan time (`STALE_VERSION`
if someone changed it meanwhile), then the temp files are renamed in. If any step fails,
files already replaced are restored from their saved bytes and created ones removed, so
the tree ends either fully old or fully new. Modes of existing files are kept.
"""

from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass
from pathlib import Path

from lsp_server.model import ErrorCode, Failure, FileAction, FileChange, PlacementError, Plan
from lsp_server.workspace import DiskWorkspace, digest, encode


class WriteError(Exception):
    def __init__(self, failure: Failure):
        super().__init__(failure.message)
        self.failure = failure


@dataclass
class _Step:
    target: Path
    data: bytes | None  # None: remove target
    original: bytes | None  # bytes before (None: did not exist)
    mode: int | None
    temp: Path | None = None
    done: bool = False


def _io(path: str, err: OSError) -> WriteError:
    code = ErrorCode.PERMISSION_DENIED if isinstance(err, PermissionError) else ErrorCode.IO_ERROR
    return WriteError(
        Failure(code, f"{path}: {err.strerror or err}; nothing was written", {"path": path})
    )


def _read_current(target: Path) -> bytes | None:
    try:
        return target.read_bytes()
    except FileNotFoundError:
        return None


def _steps(plan: Plan, ws: DiskWorkspace) -> list[_Step]:
    steps: list[_Step] = []
    for change in plan.files:
        src = ws.absolute(change.path)
        original = _read_current(src)
        _check_fresh(change, original)
        if change.action is FileAction.DELETE:
            if src.is_dir():
                raise WriteError(
                    Failure(
                        ErrorCode.IO_ERROR, f"{change.path} is a directory", {"path": change.path}
                    )
                )
            steps.append(_Step(src, None, original, None))
            continue
        data = encode(change.new_text or "", change.bom)
        if change.action is FileAction.RENAME:
            dest = ws.absolute(change.new_path or change.path)
            steps.append(_Step(dest, data, _read_current(dest), change.mode))
            steps.append(_Step(src, None, original, None))
            continue
        if src.is_symlink():
            # edit the file the link names (inside the root: `absolute` checked), as an editor
            # saving through the link would; replacing the link itself would leave its target
            # untouched and turn the link into a copy
            src = Path(os.path.realpath(src))
        steps.append(_Step(src, data, original, change.mode))
    return steps


def _check_fresh(change: FileChange, current: bytes | None) -> None:
    if change.action is FileAction.CREATE:
        return
    if change.digest is not None and (current is None or digest(current) != change.digest):
        raise WriteError(
            Failure(
                ErrorCode.STALE_VERSION,
                f"{change.path} changed on disk after the patch was planned; nothing was "
                "written — run it again",
                {"path": change.path},
            )
        )


def write_plan(plan: Plan, ws: DiskWorkspace) -> None:
    """Write every file change or none. Raises WriteError naming the failure."""
    try:
        steps = _steps(plan, ws)
    except PlacementError as err:  # the tree changed since the plan (a symlink swapped in)
        raise WriteError(err.failure) from None
    made_dirs: list[Path] = []
    try:
        for step in steps:
            if step.data is None:
                continue
            _make_parents(step.target.parent, made_dirs)
            fd, tmp = tempfile.mkstemp(prefix=".llm-patch-", dir=step.target.parent)
            step.temp = Path(tmp)
            with os.fdopen(fd, "wb") as fh:
                fh.write(step.data)
                fh.flush()
                os.fsync(fh.fileno())
            os.chmod(tmp, step.mode if step.mode is not None else 0o666 & ~_umask())
        for step in steps:
            if step.data is None:
                if step.target.exists():
                    os.unlink(step.target)
            else:
                assert step.temp is not None
                os.replace(step.temp, step.target)
                step.temp = None
            step.done = True
    except OSError as err:
        _rollback(steps)
        _remove_temps(steps)
        for folder in reversed(made_dirs):
            try:
                folder.rmdir()
            except OSError:
                pass
        raise _io(_name(err, ws), err) from None
    finally:
        _remove_temps(steps)
    _remove_empty_dirs(plan, ws)


def _remove_temps(steps: list[_Step]) -> None:
    for step in steps:
        if step.temp is not None:
            step.temp.unlink(missing_ok=True)
            step.temp = None


def _make_parents(folder: Path, made: list[Path]) -> None:
    """mkdir -p that records each folder in `made` as soon as it exists, outermost first, so
    a rollback removes them even when a deeper mkdir fails."""
    missing: list[Path] = []
    while not folder.exists():
        missing.append(folder)
        folder = folder.parent
    for m in reversed(missing):
        m.mkdir()
        made.append(m)


def _name(err: OSError, ws: DiskWorkspace) -> str:
    if err.filename:
        try:
            return Path(err.filename).resolve().relative_to(ws.root).as_posix()
        except ValueError:
            return str(err.filename)
    return "(workspace)"


def _rollback(steps: list[_Step]) -> None:
    for step in reversed(steps):
        if not step.done:
            continue
        try:
            if step.original is None:
                if step.target.exists():
                    os.unlink(step.target)
            else:
                step.target.write_bytes(step.original)
        except OSError:
            pass


def _remove_empty_dirs(plan: Plan, ws: DiskWorkspace) -> None:
    """A moved or deleted file's now-empty folders go too (git cannot keep them anyway)."""
    for change in plan.files:
        if change.action not in (FileAction.DELETE, FileAction.RENAME):
            continue
        folder = (ws.root / change.path).parent
        while folder != ws.root and ws.root in folder.parents:
            try:
                folder.rmdir()
            except OSError:
                break
            folder = folder.parent


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask
