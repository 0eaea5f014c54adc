"""A disk cache for the Python code that attrs and cattrs write while the server starts.

Why: `lsprotocol.types` declares about 550 attrs classes, and attrs builds each class's
`__init__`, `__repr__` and `__eq__` by writing Python source and compiling it; cattrs does the
same for every (un)structure hook the first messages need. That compiling is a large share
of the server's start (benchmarks/README.md, "Start-up, boot on and off"), while the source
it compiles depends only on the installed versions of those libraries. So the compiled code
objects are kept on disk, the way CPython keeps `.pyc` files, and the next start reuses them.

How: the module-level name `compile` in the modules that generate code (`GENERATORS`) is
pointed at `CodeCache.compile`; nothing else in the process is touched, the standard library
included.

What keeps it safe:

* The key is a hash of (filename, mode, source): a lookup returns exactly what `compile`
  would have returned for that source, or misses and compiles as before.
* The file name carries the interpreter's bytecode magic number (code objects are only valid
  for the interpreter that made them) and the size and time stamp of the installed attrs,
  cattrs and lsprotocol sources, so an upgrade starts a new file instead of growing the old
  one. (`importlib.metadata.version` would say the same thing but has to read every
  installed distribution's metadata.)
* The file is only read when it belongs to the current user and nobody else may write it
  (it holds code that will run, the same trust as the user's own `.pyc` files); anything
  unreadable or damaged is ignored. Writes are atomic (temporary file + rename).
* `LLM_PATCH_CODE_CACHE=off` disables it; `LLM_PATCH_CODE_CACHE=/some/dir` moves it.
"""

from __future__ import annotations

import builtins
import hashlib
import importlib.util
import marshal
import os
import sys
import threading
import time
from importlib import import_module
from pathlib import Path
from types import CodeType, ModuleType
from typing import Any

ENV = "LLM_PATCH_CODE_CACHE"
# The modules whose module-level name `compile` is looked up when they generate code.
GENERATORS = ("attr._make", "cattrs.gen", "cattrs.gen.typeddicts")
_STAMPED = ("attr", "cattrs", "lsprotocol")  # packages whose installed files date the cache
_MAX_BYTES = 32 * 1024 * 1024  # a cache file larger than this is not ours

_compile = builtins.compile


def cache_dir() -> Path | None:
    """Where cache files live, or None when the cache is switched off."""
    setting = os.environ.get(ENV, "")
    if setting.lower() in {"off", "0", "no", "false"}:
        return None
    if setting:
        return Path(setting)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "llm-patch"


def cache_file(directory: Path) -> Path:
    """The file for this interpreter and these library versions."""
    parts = [importlib.util.MAGIC_NUMBER.hex(), sys.implementation.cache_tag or "python"]
    for package in _STAMPED:
        parts.append(_stamp(package))
    stem = hashlib.blake2b("|".join(parts).encode(), digest_size=8).hexdigest()
    return directory / f"codecache-{stem}.marshal"


def _stamp(package: str) -> str:
    """Path, size and modification time of a package's `__init__`, without importing it."""
    try:
        spec = importlib.util.find_spec(package)
        origin = spec.origin if spec is not None else None
        st = os.stat(origin) if origin else None
    except (ImportError, OSError, ValueError):
        return f"{package}:none"
    if st is None:
        return f"{package}:none"
    return f"{package}:{origin}:{st.st_size}:{st.st_mtime_ns}"


def _key(source: str, filename: str, mode: str) -> bytes:
    h = hashlib.blake2b(digest_size=16)
    for part in (filename, mode, source):
        h.update(part.encode("utf-8", "surrogatepass"))
        h.update(b"\0")
    return h.digest()


class CodeCache:
    """Compiled code objects by source hash, loaded from and saved to one file."""

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self.hits = 0
        self.misses = 0
        # marshalled code by key: each entry is unmarshalled only when asked for, which in a
        # new process is several times cheaper than unmarshalling one big dict of code
        self._blobs: dict[bytes, bytes] = {}
        self._new: dict[bytes, CodeType] = {}
        self._used: set[bytes] = set()
        self._lock = threading.Lock()
        if path is not None:
            self._blobs = _load(path)

    def compile(self, source: Any, filename: Any, mode: str, *args: Any, **kwargs: Any) -> Any:
        """`builtins.compile`, answered from the cache for plain source strings."""
        if args or kwargs or not isinstance(source, str) or not isinstance(filename, str):
            return _compile(source, filename, mode, *args, **kwargs)
        key = _key(source, filename, mode)
        blob = self._blobs.get(key)
        if blob is not None:
            try:
                code = marshal.loads(blob)
            except (EOFError, ValueError, TypeError):
                code = None
            if isinstance(code, CodeType):
                self.hits += 1
                self._used.add(key)
                return code
        code = _compile(source, filename, mode)
        with self._lock:
            self.misses += 1
            self._new[key] = code
        return code

    def save(self) -> bool:
        """Write the cache if this process compiled anything new; True when it wrote.

        Only what this process used or compiled is kept, so entries that no longer come up
        (an attrs `__hash__` embeds the per-process string-hash salt, for one) drop out at
        the next save instead of piling up.
        """
        if self.path is None or not self._new:
            return False
        with self._lock:
            kept = {k: v for k, v in self._blobs.items() if k in self._used}
            for k, code in self._new.items():
                kept[k] = self._blobs[k] = marshal.dumps(code)
                self._used.add(k)
            self._new.clear()
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
            _remove_stale_temporaries(self.path.parent)
            # a name of this process alone, created only if it does not exist yet (what
            # tempfile.mkstemp does, without importing tempfile into the server)
            tmp = self.path.parent / f".codecache-{os.getpid()}-{time.monotonic_ns()}"
            flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0)
            fd = os.open(tmp, flags, 0o600)
            try:
                with os.fdopen(fd, "wb") as out:
                    marshal.dump(kept, out)
                os.replace(tmp, self.path)
            except BaseException:
                os.unlink(tmp)
                raise
        except (OSError, ValueError):
            return False  # a read-only home or a full disk only costs the next start time
        return True


def _remove_stale_temporaries(directory: Path, age: float = 600.0) -> None:
    """Temporary files a server killed in the middle of a save left behind."""
    now = time.time()
    for leftover in directory.glob(".codecache-*"):
        try:
            if now - leftover.stat().st_mtime > age:
                leftover.unlink()
        except OSError:
            pass


def _load(path: Path) -> dict[bytes, bytes]:
    try:
        with open(path, "rb") as f:
            st = os.fstat(f.fileno())
            if hasattr(os, "getuid") and (st.st_uid != os.getuid() or st.st_mode & 0o022):
                return {}
            if st.st_size > _MAX_BYTES:
                return {}
            data = marshal.load(f)
    except (OSError, EOFError, ValueError, TypeError):
        return {}
    if not isinstance(data, dict):
        return {}
    return {k: v for k, v in data.items() if isinstance(k, bytes) and isinstance(v, bytes)}


_installed: CodeCache | None = None


def install() -> CodeCache | None:
    """Route the code generators' `compile` through the cache. Call before importing
    `lsprotocol.types`; a second call returns the cache already installed."""
    global _installed
    if _installed is not None:
        return _installed
    directory = cache_dir()
    if directory is None:
        return None
    cache = CodeCache(cache_file(directory))
    for name in GENERATORS:
        try:
            module: ModuleType = import_module(name)
        except ImportError:
            continue
        module.compile = cache.compile  # type: ignore[attr-defined]
    _installed = cache
    return cache


def installed() -> CodeCache | None:
    return _installed


def save() -> bool:
    """Persist what this process compiled (no-op when nothing is new or not installed)."""
    return _installed.save() if _installed is not None else False
