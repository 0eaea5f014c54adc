"""The VS Code extension (editors/vscode): its node tests, and its settings against the server's.

`npm test` compiles the TypeScript and runs `node --test`: the pure modules, activation and
command wiring against faked `vscode` / `vscode-languageclient` modules, and the contract with
the real server (this interpreter's `python -m lsp_server`) over stdio. It needs
`editors/vscode/node_modules` (`npm ci`, which editors/ci.sh runs); without it that test skips.
The settings check needs nothing but Python.
"""

from __future__ import annotations

import dataclasses
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from lsp_server.lsp import settings

REPO = Path(__file__).resolve().parents[2]
VSCODE = REPO / "editors" / "vscode"
MANIFEST = json.loads((VSCODE / "package.json").read_text(encoding="utf-8"))
PROPERTIES = MANIFEST["contributes"]["configuration"]["properties"]


def _server_defaults() -> dict[str, object]:
    """Each camelCase setting the server reads → its default, as JSON would carry it."""
    defaults = settings.Settings()
    out: dict[str, object] = {}
    for key, (field_name, _check) in settings.SETTING_KEYS.items():
        value = getattr(defaults, field_name)
        out[key] = list(value) if isinstance(value, tuple) else value
    return out


def test_every_server_setting_is_contributed_with_the_servers_default() -> None:
    contributed = {
        key.removeprefix("llmPatch."): prop
        for key, prop in PROPERTIES.items()
        if not key.startswith(("llmPatch.server.", "llmPatch.trace."))
    }
    assert set(contributed) == set(_server_defaults())
    for key, default in _server_defaults().items():
        assert contributed[key]["default"] == default, key
        assert len(contributed[key].get("markdownDescription", "")) > 30, key


def test_enum_settings_offer_exactly_what_the_server_accepts() -> None:
    assert PROPERTIES["llmPatch.mode"]["enum"] == ["unrestricted", "restricted"]
    assert set(PROPERTIES["llmPatch.logLevel"]["enum"]) == set(settings.LOG_LEVELS)
    # Every accepted value passes the server's own validation.
    for mode in PROPERTIES["llmPatch.mode"]["enum"]:
        merged, problems = settings.Settings().merged({"llmPatch": {"mode": mode}})
        assert not problems and merged.mode == mode


def test_settings_sent_as_initialization_options_are_accepted() -> None:
    # The shape the extension sends: {"llmPatch": {...every contributed default...}}.
    options = {"llmPatch": _server_defaults()}
    merged, problems = settings.Settings().merged(options)
    assert problems == []
    assert dataclasses.asdict(merged) == dataclasses.asdict(settings.Settings())


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
@pytest.mark.skipif(
    not (VSCODE / "node_modules").is_dir(),
    reason="editors/vscode/node_modules is missing: run `npm ci` there (editors/ci.sh does)",
)
def test_extension_node_tests(tmp_path: Path) -> None:
    env = dict(os.environ)
    env["LLM_PATCH_SERVER"] = json.dumps([sys.executable, "-m", "lsp_server"])
    # A private temp dir, so a test that leaves its folders behind is caught below.
    temp = tmp_path / "tmp"
    temp.mkdir()
    env["TMPDIR"] = str(temp)
    proc = subprocess.run(
        ["npm", "test", "--silent"],
        cwd=VSCODE,
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
        check=False,
    )
    output = proc.stdout + proc.stderr
    counts = dict(re.findall(r"^# (pass|fail|skipped) (\d+)$", proc.stdout, re.MULTILINE))
    assert proc.returncode == 0, output
    assert int(counts.get("pass", "0")) > 0 and counts.get("fail") == "0", output
    assert counts.get("skipped") == "0", "the real-server tests were skipped:\n" + output
    left = sorted(p.name for p in temp.iterdir())
    assert left == [], f"the VS Code tests left temporary files behind: {left}"
