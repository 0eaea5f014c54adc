"""Plan → files on disk, as one transaction: every file or none, even across a crash.

Under the workspace lock (`disk.workspace_lock`), in this order:

1. **Check** every file the plan touches, before anything is written: it is where the plan
   left it (a file that changed since it was read is `STALE_VERSION`), a regular file,
   writable by the user (a read-only file is `PERMISSION_DENIED`, for root too), not one
   of llm-patch's own names. Its mode, owner, group and extended attributes are read.
2. **Journal** (`journal.py`) what is about to happen, fsynced.
3. **Prepare**: each new text goes to a temporary file in its destination's folder, gets
   the metadata of the file it replaces, and is fsynced.
4. **Rename**: each old file is first kept under a saved name (a hard link, so the name
   never goes missing), then — immediately before its own rename — checked again (inode,
   size, mtime and a hash of its bytes; the inode only where the file system keeps inode
   numbers), then the new file is renamed over it. A deleted file is renamed to its saved
   name.
5. **Commit**: once every rename is done and durable, and no saved file changed meanwhile,
   the journal says so; the saved files are removed.

Any failure before the commit puts every saved file back under its name and removes every
new one — where the bytes prove it (`journal.undo`): a file another program wrote meanwhile
is kept and named. A crash leaves the journal, and the next run (or `llm-patch recover`)
does the same. All of it goes through folder descriptors (`disk.Folders`), never through a path that
could have been swapped for a symlink since it was checked.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from pathlib import Path

from lsp_server import journal
from lsp_server.disk import (
    BACKUP_SUFFIX,
    JOURNAL_NAME,
    RENAME_EXCHANGE,
    RENAME_NOREPLACE,
    TEMP_SUFFIX,
    Folders,
    Metadata,
    NotRegular,
    WriteError,
    fsync_folder,
    io_failure,
    is_reserved,
    lstat,
    open_regular,
    read_regular,
    remove_proven,
    rename2,
    reserved_name,
    split_rel,
    workspace_lock,
)
from lsp_server.journal import Entry, Journal, Text, text_of
from lsp_server.model import ErrorCode, Failure, FileAction, PlacementError, Plan
from lsp_server.workspace import MAX_FILE_BYTES, DiskWorkspace, digest, encode

_NOTHING = "nothing was written"
_WHILE = "while the patch was being written"


@dataclass
class _Target:
    """One name the plan changes: its new bytes (None: removed) and what it must find there."""

    folder: str  # the real folder, root-relative
    name: str
    path: str  # as the plan names it
    data: bytes | None
    must_exist: bool
    digest: str | None = None  # the plan's hash of the old bytes
    meta_from: tuple[str, str] | None = None  # whose metadata a new text takes
    old: os.stat_result | None = None  # what was there when checked
    old_hash: str | None = None
    old_text: Text | None = None  # the old bytes (a symlink's target) as the journal names them
    meta: Metadata | None = None
    linked: bool = False  # the old file is also under its saved name already
    # a new file's mode before the umask: executable where the text it continues was (a
    # git copy of a script, as git makes it)
    create_mode: int = 0o666

    @property
    def key(self) -> tuple[str, str]:
        return self.folder, self.name


class _Abort(Exception):
    def __init__(self, failure: Failure):
        super().__init__(failure.message)
        self.failure = failure


def _stale(path: str, when: str) -> _Abort:
    return _Abort(
        Failure(
            ErrorCode.STALE_VERSION,
            f"{path} changed on disk {when}; {_NOTHING} — run it again",
            {"path": path},
        )
    )


def write_plan(plan: Plan, ws: DiskWorkspace) -> tuple[str, ...]:
    """Write every file change or none. Raises WriteError naming the failure.

    Returns what was left as it was beside the tree, each a sentence naming where (usually
    nothing): a saved old file a program wrote into through a descriptor it held open
    across the apply (kept, not removed), an interrupted apply's file changed since."""
    if not plan.files:
        return ()
    with workspace_lock(ws.root):
        try:
            folders = Folders(ws.root)
        except OSError as err:
            raise io_failure(str(ws.root), err, _NOTHING) from None
        try:
            # an apply died here before: finish it first (and drop a journal it was still
            # writing); the checks below then refuse whatever this plan read from its
            # half-written tree
            recovered = journal.recover_open(folders)
            return recovered.kept + _Transaction(plan, ws, folders).run()
        finally:
            folders.close()


class _Transaction:
    def __init__(self, plan: Plan, ws: DiskWorkspace, folders: Folders):
        self.plan, self.ws, self.folders = plan, ws, folders
        self.dirs: list[str] = []  # folders to create, outermost first
        self.current = ""  # the user's file being worked on, for an error's message
        # False where the file system numbers inodes itself (some FUSE file systems): a
        # file's inode number is then no sign of its identity, and its bytes are compared
        self.stable_inodes = True

    def run(self) -> tuple[str, ...]:
        try:
            targets = self._targets()
            for t in targets:
                self._check(t)
        except _Abort as err:
            raise WriteError(err.failure) from None
        entries = tuple(
            Entry(
                t.folder,
                t.name,
                t.path,
                temp=reserved_name(TEMP_SUFFIX) if t.data is not None else None,
                backup=reserved_name(BACKUP_SUFFIX) if t.old is not None else None,
                new=text_of(t.data) if t.data is not None else None,
                old=t.old_text if t.old is not None else None,
            )
            for t in targets
        )
        record = Journal(journal.PREPARE, entries, tuple(self.dirs), os.getpid())
        try:
            journal.save(self.folders, record)
        except OSError as err:
            try:  # renamed into place but not made durable: nothing else was done yet
                journal.discard(self.folders)
            except OSError:
                pass
            raise io_failure(targets[0].path, err, _NOTHING) from None
        self.current = targets[0].path
        try:
            self._prepare(targets, entries)
            record = record._replace(state=journal.COMMIT)
            self._save(record, targets[0].path)
            self._keep_old(targets, entries)
            for t, e in zip(targets, entries, strict=True):
                self.current = t.path
                self._rename(t, e)
            self._make_durable(targets)
            self._recheck(targets, entries)
            self._save(record._replace(state=journal.COMMITTED), targets[0].path)
        except _Abort as err:
            self._roll_back(record, err.failure)
        except OSError as err:
            self._roll_back(record, io_failure(self.current, err, _NOTHING).failure)
        except BaseException:  # Ctrl-C: undo now rather than leave it to the next run
            if not journal.undo(record, self.folders).failed:
                journal.discard(self.folders)
            raise
        try:
            done = journal.finish(record, self.folders)
            journal.discard(self.folders)
        except OSError:
            return ()  # committed: the leftovers are removed by the next run (the journal says so)
        return done.kept

    def _save(self, record: Journal, path: str) -> None:
        try:
            journal.save(self.folders, record)
        except OSError as err:
            raise _Abort(io_failure(path, err, _NOTHING).failure) from None

    def _roll_back(self, record: Journal, failure: Failure) -> None:
        try:
            # the journal on disk must not say `committed` while this undoes the renames
            # (a failed fsync after the journal's own rename would leave it saying so)
            journal.save(self.folders, record)
        except OSError:
            pass
        try:
            done = journal.undo(record, self.folders, journal.LIVE)
            failed, kept = list(done.failed), list(done.kept)
            if not failed:
                journal.discard(self.folders)
        except OSError:
            failed, kept = [JOURNAL_NAME], []
        if kept:
            # a file another program wrote meanwhile keeps what it wrote: "nothing was
            # written" would be untrue there, so the message says what is where
            failure = Failure(
                failure.code,
                f"{failure.message.replace(_NOTHING, 'the apply was rolled back')}; except: "
                f"{'; '.join(kept)}",
                {**failure.details, "kept": kept},
            )
        if failed:
            failure = Failure(
                failure.code,
                f"{failure.message}; and {', '.join(failed)} could not be put back: run "
                "`llm-patch recover` (the journal of this apply was kept)",
                {**failure.details, "unrestored": failed},
            )
        raise WriteError(failure)

    # --- 1. what to change, and checking it ----------------------------------------------------

    def _targets(self) -> list[_Target]:
        """Every name the plan writes or removes, once. A name that one change removes and
        another writes (a file moved away and another moved in) is simply written; two new
        texts for one file (two paths reaching it) is refused rather than one lost."""
        out: dict[tuple[str, str], _Target] = {}
        for change in self.plan.files:
            try:
                new = self._change_targets(change)
            except PlacementError as err:  # the tree changed since the plan (a symlink)
                raise _Abort(err.failure) from None
            for t in new:
                have = out.get(t.key)
                if have is None:
                    out[t.key] = t
                elif have.data is not None and t.data is not None:
                    raise _Abort(
                        Failure(
                            ErrorCode.IO_ERROR,
                            f"{t.path} and {have.path} are the same file, and the plan gives "
                            f"it two new texts; {_NOTHING}",
                            {"path": t.path},
                        )
                    )
                else:
                    write, gone = (have, t) if have.data is not None else (t, have)
                    write.must_exist = True
                    write.digest = write.digest or gone.digest
                    out[t.key] = write
        return list(out.values())

    def _change_targets(self, change) -> list[_Target]:
        data = None if change.new_text is None else encode(change.new_text, change.bom)
        if change.action is FileAction.DELETE:
            return [
                _Target(*self._where(change.path, False), change.path, None, True, change.digest)
            ]
        if change.action is FileAction.RENAME:
            dest = change.new_path or change.path
            source = self._where(change.path, True)
            return [
                _Target(
                    *self._where(dest, False),
                    dest,
                    data,
                    change.overwrite_dest,
                    meta_from=source,
                ),
                _Target(*self._where(change.path, False), change.path, None, True, change.digest),
            ]
        # a symlink inside the root is written through, as an editor saving through it would:
        # replacing the link would leave the file it names untouched and turn it into a copy
        where = self._where(change.path, True)
        existing = change.action is FileAction.MODIFY
        executable = change.mode is not None and change.mode & 0o111
        return [
            _Target(
                *where,
                change.path,
                data,
                existing,
                change.digest,
                meta_from=where if existing else None,
                create_mode=0o777 if executable else 0o666,
            )
        ]

    def _where(self, rel: str, follow: bool) -> tuple[str, str]:
        """(real folder, name) of the plan's `rel`; `follow` resolves a final symlink too."""
        target = self.ws.absolute(rel)  # the root guard, again: PlacementError if it leaves
        try:
            if follow:
                real = Path(os.path.realpath(target))
            else:
                real = Path(os.path.realpath(target.parent)) / target.name
        except OSError as err:
            raise _Abort(io_failure(rel, err, _NOTHING).failure) from None
        try:
            real_rel = real.relative_to(self.ws.root).as_posix()
        except ValueError:
            real_rel = ""
        if real_rel in ("", "."):
            raise _Abort(
                Failure(
                    ErrorCode.OUTSIDE_WORKSPACE,
                    f"refusing path {rel!r}: it resolves to a place outside the root; {_NOTHING}",
                    {"path": rel},
                )
            )
        return split_rel(real_rel)

    def _check(self, t: _Target) -> None:
        if is_reserved(t.name) or is_reserved(t.path.rpartition("/")[2]):
            raise _Abort(
                Failure(
                    ErrorCode.PERMISSION_DENIED,
                    f"{t.path}: names starting with .llm-patch- and {JOURNAL_NAME} are "
                    f"llm-patch's own files (temporary files, the journal); {_NOTHING}",
                    {"path": t.path},
                )
            )
        try:
            fd = self._existing_folder(t)
            st = None if fd is None else lstat(fd, t.name)
            if st is None and t.must_exist:
                raise _stale(t.path, "after the patch was planned (it is gone)")
            if st is not None:
                self._check_old(t, fd, st)
            if t.data is not None and t.meta_from is not None:
                t.meta = self._metadata(t)
        except NotRegular:
            raise _not_regular(t.path) from None
        except OSError as err:
            raise _Abort(io_failure(t.path, err, _NOTHING).failure) from None

    def _check_old(self, t: _Target, fd: int, st: os.stat_result) -> None:
        if not t.must_exist:
            raise _stale(t.path, "after the patch was planned (it was created meanwhile)")
        if stat.S_ISDIR(st.st_mode):
            raise _Abort(Failure(ErrorCode.IO_ERROR, f"{t.path} is a directory", {"path": t.path}))
        t.old = st
        if stat.S_ISLNK(st.st_mode):
            # a link removed or replaced as itself: its own bytes are its target
            t.old_text = text_of(os.fsencode(os.readlink(t.name, dir_fd=fd)), link=True)
            return
        if not stat.S_ISREG(st.st_mode):
            raise _not_regular(t.path)
        _writable(t, fd, st)
        data, opened = read_regular(fd, t.name, MAX_FILE_BYTES)
        if opened.st_ino != st.st_ino:
            # the name and the file opened by it disagree: inode numbers made up per call
            self.stable_inodes = False
        t.old, t.old_hash, t.old_text = opened, digest(data), text_of(data)
        if t.digest is not None and t.old_hash != t.digest:
            raise _stale(t.path, "after the patch was planned")

    def _existing_folder(self, t: _Target) -> int | None:
        """The folder's descriptor, or None when it does not exist yet (its missing folders
        are noted to be created); a folder that is now a symlink or a file is stale."""
        parts = t.folder.split("/") if t.folder else []
        for i in range(len(parts) + 1):
            rel = "/".join(parts[:i])
            try:
                fd = self.folders.fd(rel)
            except FileNotFoundError:
                for j in range(i, len(parts) + 1):
                    missing = "/".join(parts[:j])
                    if missing not in self.dirs:
                        self.dirs.append(missing)
                return None
            except OSError:  # ELOOP, ENOTDIR: swapped for a symlink or a file
                raise _stale(
                    t.path, f"after the patch was planned ({rel} is no longer a folder)"
                ) from None
        return fd

    def _metadata(self, t: _Target) -> Metadata | None:
        assert t.meta_from is not None
        folder, name = t.meta_from
        fd = open_regular(self.folders.fd(folder), name)
        try:
            return Metadata.of(fd)
        finally:
            os.close(fd)

    # --- 3. the new texts ----------------------------------------------------------------------

    def _prepare(self, targets: list[_Target], entries: tuple[Entry, ...]) -> None:
        for t, e in zip(targets, entries, strict=True):
            if t.data is None or e.temp is None:
                continue
            try:
                self._write_temp(t, e.temp)
            except FileNotFoundError:  # its folder was removed since it was checked
                raise _stale(
                    t.path, "while the patch was being written (its folder is gone)"
                ) from None
            except OSError as err:
                raise _Abort(io_failure(t.path, err, _NOTHING).failure) from None

    def _write_temp(self, t: _Target, temp: str) -> None:
        assert t.data is not None
        folder = self.folders.fd(t.folder, create=True)
        # a replacement starts private and takes the old file's mode at the end; a new file
        # gets what any new file in that folder gets (umask, default ACL, set-group-ID folder)
        mode = 0o600 if t.meta is not None else t.create_mode
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
        fd = os.open(temp, flags, mode, dir_fd=folder)
        with os.fdopen(fd, "wb") as fh:
            fh.write(t.data)
            fh.flush()
            if t.meta is not None:
                t.meta.apply(fh.fileno())
            os.fsync(fh.fileno())

    # --- 4. the renames ------------------------------------------------------------------------

    def _keep_old(self, targets: list[_Target], entries: tuple[Entry, ...]) -> None:
        """Each file about to be replaced gets a second name, the saved one, so that undoing
        is a rename and the file keeps its inode, mode, owner and attributes."""
        touched: set[str] = set()
        for t, e in zip(targets, entries, strict=True):
            if t.data is None or t.old is None or e.backup is None:
                continue
            self.current = t.path
            folder = self.folders.fd(t.folder)
            try:
                os.link(
                    t.name, e.backup, src_dir_fd=folder, dst_dir_fd=folder, follow_symlinks=False
                )
                t.linked = True
                touched.add(t.folder)
                saved = lstat(folder, e.backup)
                if saved is None or saved.st_ino != t.old.st_ino:
                    # a second name of the file checked, with another number: the numbers
                    # are made up per name (or the file was replaced: compared by bytes then)
                    self.stable_inodes = False
            except FileNotFoundError:
                raise _stale(t.path, "while the patch was being written (it is gone)") from None
            except OSError:
                t.linked = False  # no hard links here: it is renamed away right before its swap
        try:
            for rel in touched:
                fsync_folder(self.folders.fd(rel))
        except OSError as err:
            raise _Abort(io_failure(targets[0].path, err, _NOTHING).failure) from None

    def _rename(self, t: _Target, e: Entry) -> None:
        folder = self.folders.fd(t.folder)
        try:
            if t.data is None:
                # moved aside first, checked after: what was moved is exactly what is checked
                assert e.backup is not None
                os.replace(t.name, e.backup, src_dir_fd=folder, dst_dir_fd=folder)
                self._same(t, folder, e.backup)
                return
            assert e.temp is not None
            if t.old is None:
                self._onto_nothing(t, folder, e.temp)
                return
            assert e.backup is not None
            if t.linked:
                self._same(t, folder, e.backup)
                self._same(t, folder, t.name, by_number=True)
                self._swap(t, folder, e.temp, e.backup)
            else:
                os.replace(t.name, e.backup, src_dir_fd=folder, dst_dir_fd=folder)
                self._same(t, folder, e.backup)
                self._onto_nothing(t, folder, e.temp)
        except FileNotFoundError:
            raise _stale(t.path, f"{_WHILE} (it is gone)") from None
        except FileExistsError:
            raise _stale(t.path, f"{_WHILE} (it was created meanwhile)") from None
        except NotRegular:
            raise _stale(t.path, _WHILE) from None
        except OSError as err:
            raise _Abort(io_failure(t.path, err, _NOTHING).failure) from None

    def _swap(self, t: _Target, folder: int, temp: str, backup: str) -> None:
        """The new text takes the name in one atomic exchange, so that whatever held the name
        at that instant (the file checked, or an editor's save a moment after the check)
        ends up under the temporary name, where it is looked at once more."""
        assert t.old is not None
        if not rename2(folder, temp, t.name, RENAME_EXCHANGE):
            os.replace(temp, t.name, src_dir_fd=folder, dst_dir_fd=folder)  # no exchange here
            return
        try:
            self._same(t, folder, temp, by_number=True)
        except _Abort:
            rename2(folder, temp, t.name, RENAME_EXCHANGE)  # give the name back to theirs
            # the old file is no longer what the name should hold: its saved name goes —
            # unless a program wrote into it, or holds it open to, since it was checked
            # (then it stays, and the rollback names it)
            old = t.old_text
            if old is not None:
                remove_proven(folder, backup, old.sha256, old.size)
            raise
        os.unlink(temp, dir_fd=folder)  # a second name of the old file: the saved one stays

    def _onto_nothing(self, t: _Target, folder: int, temp: str) -> None:
        """Rename where nothing is (FileExistsError when someone just created the name)."""
        if lstat(folder, t.name) is not None:
            raise FileExistsError(t.name)
        if rename2(folder, temp, t.name, RENAME_NOREPLACE):
            return
        try:
            # a link fails when the name was taken since the check above; a rename would not
            os.link(temp, t.name, src_dir_fd=folder, dst_dir_fd=folder, follow_symlinks=False)
        except FileExistsError:
            raise
        except OSError:  # no hard links either: a plain rename, right after the check
            os.replace(temp, t.name, src_dir_fd=folder, dst_dir_fd=folder)
            return
        os.unlink(temp, dir_fd=folder)

    def _same(self, t: _Target, folder: int, name: str, by_number: bool = False) -> None:
        """The file now under `name` is the one checked before anything was written: same
        inode, size, modification time and bytes. Otherwise someone changed it meanwhile.

        `by_number`: the inode number alone is enough — for a second look at a file whose
        bytes were just compared under its other name. Where the numbers disagree, the file
        system may be making them up (some FUSE file systems do): from then on this apply
        compares size, modification time and bytes without them."""
        assert t.old is not None
        st = lstat(folder, name)
        if st is None:
            raise _stale(t.path, _WHILE)
        if self.stable_inodes and st.st_ino == t.old.st_ino and by_number:
            return
        if st.st_ino != t.old.st_ino:
            self.stable_inodes = False  # or another file: its size, time or bytes say so
        if not stat.S_ISREG(t.old.st_mode):
            if stat.S_ISLNK(st.st_mode) and t.old_text == text_of(
                os.fsencode(os.readlink(name, dir_fd=folder)), link=True
            ):
                return
            raise _stale(t.path, _WHILE)
        data, st = read_regular(folder, name, MAX_FILE_BYTES)
        if self._stamp(st) != self._stamp(t.old) or digest(data) != t.old_hash:
            raise _stale(t.path, _WHILE)

    # --- 5. the commit -------------------------------------------------------------------------

    def _make_durable(self, targets: list[_Target]) -> None:
        try:
            for rel in dict.fromkeys(t.folder for t in targets):
                fsync_folder(self.folders.fd(rel))
        except OSError as err:
            raise _Abort(io_failure(targets[0].path, err, _NOTHING).failure) from None

    def _recheck(self, targets: list[_Target], entries: tuple[Entry, ...]) -> None:
        """A write into an old file between its check and its rename went to the inode that
        is now the saved file: its size or time shows it, and the apply is undone."""
        for t, e in zip(targets, entries, strict=True):
            if t.old is None or e.backup is None or not stat.S_ISREG(t.old.st_mode):
                continue
            self.current = t.path
            st = lstat(self.folders.fd(t.folder), e.backup)
            if st is None or self._stamp(st) != self._stamp(t.old):
                raise _stale(t.path, _WHILE)

    def _stamp(self, st: os.stat_result) -> tuple[int, int, int]:
        return st.st_ino if self.stable_inodes else 0, st.st_size, st.st_mtime_ns


def _writable(t: _Target, folder: int, st: os.stat_result) -> None:
    """A file its owner made read-only is not replaced behind their back (a rename would).

    `os.access` answers as the kernel would for a write, and for root the kernel allows
    every write: a 0444 file would be replaced when running as root (the usual case in
    containers and CI). So root is held to the mode bits: a file no one may write (no `w`
    bit at all) is read-only for root too. Anyone else gets the kernel's answer (bits,
    ACLs, a read-only mount)."""
    if os.geteuid() == 0 and not stat.S_IMODE(st.st_mode) & 0o222:
        allowed = False
    else:
        effective = os.access in os.supports_effective_ids
        allowed = os.access(t.name, os.W_OK, dir_fd=folder, effective_ids=effective)
    if allowed:
        return
    assert t.old is not None
    raise _Abort(
        Failure(
            ErrorCode.PERMISSION_DENIED,
            f"{t.path} is not writable for you (mode {stat.S_IMODE(t.old.st_mode):04o}); "
            f"{_NOTHING} — make it writable first if it should change",
            {"path": t.path},
        )
    )


def _not_regular(path: str) -> _Abort:
    return _Abort(
        Failure(
            ErrorCode.IO_ERROR,
            f"{path} is not a regular file (a FIFO, a device or a socket); {_NOTHING}",
            {"path": path},
        )
    )
