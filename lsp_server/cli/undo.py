"""`llm-patch undo`: put back what the last apply in this root changed, every file or none.

The record (`undo_record`) holds each file's text before the apply and the hash of what
the apply wrote. Under the workspace lock, every file is read again: one whose bytes are
not the ones the apply wrote (edited since, deleted, recreated) is named and nothing is
written. Otherwise the inverse changes go through the same writer as an apply (one
transaction, journalled, metadata kept), and the record is removed.
"""

from __future__ import annotations

import argparse
import os
import sys

from lsp_server.cli import roots, undo_record
from lsp_server.cli.output import print_json, use_color
from lsp_server.model import FileAction, FileChange, PlacementError, Plan
from lsp_server.report import file_diff
from lsp_server.terminal import diff_lines
from lsp_server.workspace import UTF8_BOM, DiskWorkspace, digest, refuse_protected


class Refused(Exception):
    def __init__(self, message: str, paths: list[str]):
        super().__init__(message)
        self.message, self.paths = message, paths


def undo(args: argparse.Namespace) -> int:
    from lsp_server import boot, journal
    from lsp_server.disk import WriteError, workspace_lock
    from lsp_server.writer import write_plan

    boot.finish()
    if args.root is not None and not os.path.isdir(args.root):
        print(f"llm-patch: --root {args.root} is not a folder", file=sys.stderr)
        return 2
    root = roots.find_root(args.root)
    where = undo_record.folder(root.path, root.repo, root.vcs)
    ws = DiskWorkspace(root.path)
    try:
        with workspace_lock(ws.root):
            recovery = journal.recover(ws.root)
            if recovery.outcome != "nothing":
                from lsp_server.cli.recover import say_recovered

                say_recovered(recovery)
            record = undo_record.load(root.path, where)
            if record is None:
                other = undo_record.latest_elsewhere(root.path, where)
                if other is not None:
                    raise Refused(
                        "no apply to undo in this root; the last apply recorded nearby was "
                        f"in {other}: run `llm-patch undo --root {other}`",
                        [],
                    )
                raise Refused(
                    "no apply to undo in this root (undo puts back the last apply that wrote)",
                    [],
                )
            changes = _inverse(record, ws)
            if not args.dry_run:
                write_plan(Plan((), changes), ws)
                undo_record.drop(root.path, where)
    except Refused as err:
        return _say(args, root, False, err.message, err.paths, ())
    except ValueError as err:  # a record this version cannot read
        return _say(args, root, False, str(err), [], ())
    except WriteError as err:
        return _say(args, root, False, err.failure.message, [], ())
    paths = [c.path for c in changes]
    verb = "would put back" if args.dry_run else "put back"
    return _say(args, root, True, f"{verb} {_files(len(paths))}: {', '.join(paths)}", [], changes)


def _files(n: int) -> str:
    return f"{n} file{'' if n == 1 else 's'}"


def _current(ws: DiskWorkspace, path: str) -> bytes | None:
    from lsp_server.workspace import MAX_FILE_BYTES, read_regular

    try:
        where = ws.absolute(path)
        if not os.path.lexists(where):
            return None
        return read_regular(where, path, MAX_FILE_BYTES)
    except (PlacementError, OSError):  # not a regular file now, unreadable: changed
        return b""


def _inside(ws: DiskWorkspace, path: str) -> None:
    """A record names only root-relative paths a plan could write: anything else (a record
    edited by hand or damaged) is refused before a file is read."""
    try:
        same = ws.relative(path) == path
        refuse_protected(path)
    except PlacementError as err:
        raise Refused(f"the undo record is damaged: {err.failure.message}", [path]) from None
    if not same:
        raise Refused(f"the undo record is damaged: it names {path!r}", [path])


def _inverse(record: undo_record.Record, ws: DiskWorkspace) -> tuple[FileChange, ...]:
    """The changes that undo the record, after checking every file is as the apply left
    it; `Refused` naming each one that is not."""
    changed: list[str] = []
    out: list[FileChange] = []
    for c in record.changes:
        for path in filter(None, (c.path, c.new_path)):
            _inside(ws, path)
        action = FileAction(c.action)
        now_path = c.new_path if action is FileAction.RENAME and c.new_path else c.path
        data = _current(ws, now_path)
        if c.after is None:  # the apply deleted it: it must still be gone
            if data is not None:
                changed.append(f"{c.path} (deleted by the apply, it exists again)")
                continue
            out.append(FileChange(c.path, FileAction.CREATE, None, c.before or "", bom=c.bom))
            continue
        if data is None:
            changed.append(f"{now_path} (gone)")
            continue
        if digest(data) != c.after:
            changed.append(f"{now_path} (edited)")
            continue
        text = (data[len(UTF8_BOM) :] if c.bom and data.startswith(UTF8_BOM) else data).decode(
            "utf-8"
        )
        if action is FileAction.CREATE:
            out.append(FileChange(c.path, FileAction.DELETE, text, None, digest=c.after))
        elif action is FileAction.RENAME and c.new_path:
            out.append(
                FileChange(
                    c.new_path,
                    FileAction.RENAME,
                    text,
                    c.before,
                    new_path=c.path,
                    digest=c.after,
                    bom=c.bom,
                )
            )
            if c.replaced is not None:  # the file the move replaced comes back
                out.append(FileChange(c.new_path, FileAction.CREATE, None, c.replaced))
        else:
            out.append(
                FileChange(c.path, FileAction.MODIFY, text, c.before, digest=c.after, bom=c.bom)
            )
    if changed:
        raise Refused(
            "refused: changed since the last apply, so undoing it would lose that work: "
            + ", ".join(changed)
            + "; nothing was written",
            changed,
        )
    return tuple(out)


def _say(
    args: argparse.Namespace,
    root: roots.Root,
    ok: bool,
    message: str,
    changed: list[str],
    changes: tuple[FileChange, ...],
) -> int:
    if args.json:
        print_json(
            {
                "ok": ok,
                "root": str(root.path),
                "dry_run": bool(args.dry_run),
                "message": message,
                "changed": changed,
                "files": [
                    {
                        "path": c.path,
                        "action": str(c.action),
                        **({"new_path": c.new_path} if c.new_path else {}),
                        "diff": file_diff(c),
                    }
                    for c in changes
                ],
            }
        )
    else:
        if not ok:  # a refusal: on stderr, as the command's other errors
            print(f"llm-patch: ✗ {message} (root: {roots.describe(root)})", file=sys.stderr)
            return 1
        # as an apply reports: the root first, then the diff, then what was done
        color = use_color(args.color)
        print(f"root: {roots.describe(root)}")
        for c in changes:
            for line in diff_lines(file_diff(c), color):
                print(line)
        print(f"✓ {message}" + ("; nothing written (dry run)" if args.dry_run else ""))
    return 0 if ok else 1
