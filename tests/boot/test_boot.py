"""The boot corner: collection paused while the server imports, back on once it is built,
and the code cache reaching no module but the code generators."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

PROBE = r"""
import gc, json, sys
from lsp_server import boot
from lsp_server.boot import codecache
from lsp_server.boot.codecache import CodeCache
before = gc.isenabled()
boot.begin()
paused = not gc.isenabled()
import lsp_server.lsp.server as server
server.create_server()
boot.finish()
def routed(module):  # a module-level `compile` or `exec` that the code cache answers
    found = (getattr(module, name, None) for name in ("compile", "exec"))
    return any(isinstance(getattr(f, "__self__", None), CodeCache) for f in found)
patched = sorted(name for name, module in list(sys.modules.items()) if routed(module))
print(json.dumps({
    "before": before, "paused": paused, "resumed": gc.isenabled(),
    "frozen": gc.get_freeze_count() > 0, "patched": patched,
    "generators": list(codecache.GENERATORS),
}))
"""


def _probe(env: dict[str, str]) -> dict:
    out = subprocess.run(
        [sys.executable, "-c", PROBE], env=env, capture_output=True, text=True, check=True
    )
    return json.loads(out.stdout)


def test_collection_pauses_for_the_imports_and_resumes(tmp_path: Path) -> None:
    result = _probe(dict(os.environ, LLM_PATCH_CODE_CACHE=str(tmp_path)))
    assert result["before"] and result["paused"] and result["resumed"] and result["frozen"]


def test_only_the_code_generators_compile_through_the_cache(tmp_path: Path) -> None:
    result = _probe(dict(os.environ, LLM_PATCH_CODE_CACHE=str(tmp_path)))
    assert result["patched"] == sorted(result["generators"])


def test_with_the_cache_off_nothing_is_patched() -> None:
    result = _probe(dict(os.environ, LLM_PATCH_CODE_CACHE="off"))
    assert result["patched"] == []
    assert result["paused"] and result["resumed"]  # the pause does not depend on the cache


COMMAND_PROBE = r"""
import gc, json, sys
seen = {}
class Watch:  # notes whether collection was paused when the command's own module loaded
    def find_spec(self, name, path=None, target=None):
        if name == "lsp_server.cli":
            seen["paused_at_cli_import"] = not gc.isenabled()
        return None
sys.meta_path.insert(0, Watch())
from lsp_server import boot
sys.argv = ["llm-patch", *sys.argv[1:]]
try:
    boot.main()
except SystemExit as exc:
    seen["code"] = exc.code
seen["resumed"] = gc.isenabled()
seen["frozen"] = gc.get_freeze_count() > 0
print(json.dumps(seen))
"""


def test_the_console_script_starts_in_boot_main() -> None:
    import tomllib

    project = tomllib.loads((Path(__file__).parents[2] / "pyproject.toml").read_text())
    assert project["project"]["scripts"]["llm-patch"] == "lsp_server.boot:main"


def test_the_command_loads_with_collection_paused_and_resumes_it(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("x = 1\n")
    reply = tmp_path / "reply.md"
    reply.write_text(
        "a.py\n```python\n<<<<<<< SEARCH\nx = 1\n=======\nx = 2\n>>>>>>> REPLACE\n```\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", COMMAND_PROBE, "check", str(reply), "--root", str(tmp_path)],
        capture_output=True,
        text=True,
        check=True,
    )
    seen = json.loads(out.stdout.splitlines()[-1])
    assert seen == {"paused_at_cli_import": True, "code": 0, "resumed": True, "frozen": True}
