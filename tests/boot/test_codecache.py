"""The start-up code cache must be invisible: same code out, or a plain compile."""

from __future__ import annotations

import json
import marshal
import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lsp_server.boot import codecache
from lsp_server.boot.codecache import CodeCache

SOURCES = [
    "def f(a, b=2):\n    return a * b + 1\n",
    "class C:\n    x = 1\n    def m(self):\n        return self.x\n",
    "x = [i * i for i in range(5)]\n",
]


def _run(code, namespace=None):
    ns = {} if namespace is None else namespace
    exec(code, ns)  # noqa: S102 - the point is to run what the cache hands back
    return ns


def test_a_saved_cache_hands_back_the_same_code(tmp_path: Path) -> None:
    path = tmp_path / "c.marshal"
    first = CodeCache(path)
    codes = [first.compile(src, f"<gen {i}>", "exec") for i, src in enumerate(SOURCES)]
    assert (first.hits, first.misses) == (0, 3)
    assert first.save()
    assert not first.save()  # nothing new since

    second = CodeCache(path)
    again = [second.compile(src, f"<gen {i}>", "exec") for i, src in enumerate(SOURCES)]
    assert (second.hits, second.misses) == (3, 0)
    for a, b in zip(codes, again, strict=True):
        assert a == b  # code objects compare by their contents
        assert a.co_filename == b.co_filename
    assert _run(again[0])["f"](3) == 7
    assert _run(again[2])["x"] == [0, 1, 4, 9, 16]


def test_the_key_is_source_filename_and_mode(tmp_path: Path) -> None:
    path = tmp_path / "c.marshal"
    cache = CodeCache(path)
    cache.compile("y = 1\n", "<a>", "exec")
    cache.save()
    cache = CodeCache(path)
    assert cache.compile("y = 2\n", "<a>", "exec") is not None  # other source: a miss
    assert cache.compile("y = 1\n", "<b>", "exec").co_filename == "<b>"  # other file: a miss
    assert cache.compile("1 + 1", "<a>", "eval") is not None
    assert (cache.hits, cache.misses) == (0, 3)


@settings(max_examples=60, deadline=None)
@given(
    name=st.from_regex(r"[a-z_][a-z0-9_]{0,10}", fullmatch=True),
    values=st.lists(st.integers(-1000, 1000), max_size=6),
    filename=st.text(min_size=1, max_size=20).filter(lambda s: "\0" not in s),
)
def test_cached_code_behaves_like_compiled_code(name, values, filename) -> None:
    import tempfile

    source = f"def {name}_():\n    return {values!r}\nresult = {name}_()\n"
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "c.marshal"
        cache = CodeCache(path)
        cache.compile(source, filename, "exec")
        cache.save()
        hit = CodeCache(path).compile(source, filename, "exec")
    plain = compile(source, filename, "exec")
    assert hit == plain
    assert _run(hit)["result"] == _run(plain)["result"] == values


def test_save_keeps_only_what_this_process_used(tmp_path: Path) -> None:
    path = tmp_path / "c.marshal"
    cache = CodeCache(path)
    for i, src in enumerate(SOURCES):
        cache.compile(src, f"<gen {i}>", "exec")
    cache.save()
    cache = CodeCache(path)
    cache.compile(SOURCES[0], "<gen 0>", "exec")  # used
    cache.compile("z = 3\n", "<new>", "exec")  # new
    assert cache.save()
    assert len(marshal.loads(path.read_bytes())) == 2


@pytest.mark.parametrize(
    "damage",
    [b"", b"not marshal at all", marshal.dumps([1, 2, 3]), marshal.dumps({b"k": "not bytes"})],
)
def test_a_damaged_file_is_ignored(tmp_path: Path, damage: bytes) -> None:
    path = tmp_path / "c.marshal"
    path.write_bytes(damage)
    os.chmod(path, 0o600)
    cache = CodeCache(path)
    code = cache.compile(SOURCES[0], "<gen>", "exec")
    assert _run(code)["f"](1) == 3
    assert cache.misses == 1


def test_a_garbled_entry_compiles_again(tmp_path: Path) -> None:
    path = tmp_path / "c.marshal"
    cache = CodeCache(path)
    cache.compile(SOURCES[0], "<gen>", "exec")
    cache.save()
    data = marshal.loads(path.read_bytes())
    path.write_bytes(marshal.dumps({k: b"\xff garbage" for k in data}))
    cache = CodeCache(path)
    assert _run(cache.compile(SOURCES[0], "<gen>", "exec"))["f"](2) == 5
    assert (cache.hits, cache.misses) == (0, 1)


@pytest.mark.skipif(not hasattr(os, "getuid"), reason="POSIX permissions")
def test_a_file_others_may_write_is_not_trusted(tmp_path: Path) -> None:
    path = tmp_path / "c.marshal"
    cache = CodeCache(path)
    cache.compile(SOURCES[0], "<gen>", "exec")
    cache.save()
    os.chmod(path, 0o666)
    assert CodeCache(path).compile(SOURCES[0], "<gen>", "exec") is not None
    assert CodeCache(path).hits == 0
    other = CodeCache(path)
    other.compile(SOURCES[0], "<gen>", "exec")
    assert other.misses == 1


def test_cache_file_depends_on_the_interpreter_and_libraries(tmp_path: Path) -> None:
    name = codecache.cache_file(tmp_path).name
    assert name.startswith("codecache-") and name.endswith(".marshal")
    assert codecache.cache_file(tmp_path) == codecache.cache_file(tmp_path)


def test_switched_off_by_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(codecache.ENV, "off")
    assert codecache.cache_dir() is None


PROBE = r"""
import json, sys
import dataclasses
from lsp_server import boot
from lsp_server.boot import codecache
boot.begin()
from lsprotocol import types
from pygls.protocol import default_converter
import lsp_server.lsp.server as server
boot.finish()
conv = default_converter()
p = types.Position(line=1, character=2)
raw = {"textDocument": {"uri": "file:///a"}, "position": {"line": 3, "character": 4}}
params = conv.structure(raw, types.HoverParams)
cache = codecache.installed()
cache.save()
print(json.dumps({
    "hits": cache.hits, "misses": cache.misses,
    "eq": p == types.Position(line=1, character=2),
    "repr": repr(types.TextDocumentIdentifier(uri="file:///a")),
    "hash_differs": types.Position(line=1, character=2) != types.Position(line=2, character=1),
    "params": conv.unstructure(params),
    "server": type(server.create_server()).__name__,
    "stdlib_untouched": "exec" not in vars(dataclasses) and "compile" not in vars(dataclasses),
}))
"""


def test_the_server_imports_the_same_way_with_a_warm_cache(tmp_path: Path) -> None:
    env = dict(os.environ, LLM_PATCH_CODE_CACHE=str(tmp_path))

    def probe() -> dict:
        out = subprocess.run(
            [sys.executable, "-c", PROBE], env=env, capture_output=True, text=True, check=True
        )
        return json.loads(out.stdout)

    cold = probe()
    assert list(tmp_path.glob("codecache-*.marshal")), "the first start saved its code"
    warm = probe()
    assert cold["hits"] == 0 and cold["misses"] > 500  # lsprotocol's ~550 classes
    assert warm["hits"] > 500 and warm["misses"] <= 5
    for result in (cold, warm):
        assert result["eq"] and result["hash_differs"]
        assert result["repr"] == "TextDocumentIdentifier(uri='file:///a')"
        assert result["params"] == {
            "textDocument": {"uri": "file:///a"},
            "position": {"line": 3, "character": 4},
        }
        assert result["server"] == "LlmPatchServer"
        assert result["stdlib_untouched"]


def test_a_save_clears_what_a_killed_save_left_behind(tmp_path: Path) -> None:
    stale = tmp_path / ".codecache-abandoned"
    stale.write_bytes(b"half a file")
    os.utime(stale, (0, 0))  # long ago
    fresh = tmp_path / ".codecache-in-progress"
    fresh.write_bytes(b"another server is writing this")
    cache = CodeCache(tmp_path / "c.marshal")
    cache.compile(SOURCES[0], "<gen>", "exec")
    assert cache.save()
    assert not stale.exists()
    assert fresh.exists()  # too young to be abandoned
