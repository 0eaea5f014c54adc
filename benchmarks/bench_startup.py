"""Start-up with the boot corner's code cache on and off, side by side.

`python -m benchmarks.bench_startup [--rounds N] [--out FILE]`

Each round starts, once with the code cache warm (a folder of this run, filled by starts
that are not counted) and once with `LLM_PATCH_CODE_CACHE=off`:

* the language server, as `python -m lsp_server` and as the installed `llm-patch serve`,
  until its answer to `initialize` (wall clock, and the server's CPU time at that moment);
* `llm-patch check` of a one-block reply against a one-line file, until it exits.

The settings take turns and the order flips every round, so a busy moment of the shared
machine does not fall on one of them only. Collection is paused during the imports either
way (`lsp_server.boot.begin`); only the cache differs. Bytecode is written and read as an
installed package does (`PYTHONDONTWRITEBYTECODE` is unset for the children).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from benchmarks.bench_lsp import SERVER, Client
from benchmarks.timing import load_average, summary

REPLY = "a.py\n```python\n<<<<<<< SEARCH\nx = 1\n=======\nx = 2\n>>>>>>> REPLACE\n```\n"


def _env(cache: str) -> dict[str, str]:
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["LLM_PATCH_CODE_CACHE"] = cache
    return env


def _commands() -> dict[str, list[str]]:
    out = {"python -m lsp_server": SERVER}
    script = shutil.which("llm-patch", path=str(Path(sys.executable).parent))
    if script is not None:
        out["llm-patch serve"] = [script, "serve"]
    return out


async def _server_start(root: Path, command: list[str], env: dict[str, str]) -> tuple[float, float]:
    client = Client()
    await client.start(root, command, env)
    try:
        await client.initialize(root)
        return (time.perf_counter() - client.spawned_at) * 1000.0, client.cpu_ms()
    finally:
        await client.stop()


def _check(root: Path, env: dict[str, str]) -> float:
    cmd = [sys.executable, "-m", "lsp_server.cli", "check", "reply.md", "--root", "."]
    t0 = time.perf_counter()
    done = subprocess.run(cmd, cwd=root, env=env, capture_output=True, check=False)
    ms = (time.perf_counter() - t0) * 1000.0
    if done.returncode != 0:
        raise RuntimeError(f"llm-patch check failed: {done.stderr.decode()[-2000:]}")
    return ms


def run(rounds: int, log=print) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="llm-patch-startup-") as tmp:
        root = Path(tmp) / "root"
        root.mkdir()
        (root / "a.py").write_text("x = 1\n")
        (root / "reply.md").write_text(REPLY)
        settings = {"on": _env(str(Path(tmp) / "cache")), "off": _env("off")}
        commands = _commands()
        samples: dict[str, list[float]] = {}
        for command in commands.values():  # warm-up, not counted: bytecode, the cache
            for env in settings.values():
                for _ in range(2):
                    asyncio.run(_server_start(root, command, env))
        for r in range(rounds):
            order = list(settings) if r % 2 == 0 else list(settings)[::-1]
            for setting in order:
                env = settings[setting]
                for name, command in commands.items():
                    wall, cpu = asyncio.run(_server_start(root, command, env))
                    samples.setdefault(f"{name}|{setting}|wall", []).append(wall)
                    samples.setdefault(f"{name}|{setting}|cpu", []).append(cpu)
                samples.setdefault(f"llm-patch check|{setting}|wall", []).append(_check(root, env))
    out: dict[str, Any] = {"rounds": rounds, "load_average": load_average(), "rows": []}
    for what in [*commands, "llm-patch check"]:
        row: dict[str, Any] = {"what": what}
        for setting in settings:
            row[setting] = summary(samples[f"{what}|{setting}|wall"])
            if f"{what}|{setting}|cpu" in samples:
                row[f"{setting}_cpu"] = summary(samples[f"{what}|{setting}|cpu"])
        out["rows"].append(row)
        on, off = row["on"]["median_ms"], row["off"]["median_ms"]
        cpu = ""
        if "on_cpu" in row:
            cpu = f"  (CPU {row['on_cpu']['median_ms']:.0f} / {row['off_cpu']['median_ms']:.0f})"
        log(f"{what:22s} cache on {on:6.0f} ms   off {off:6.0f} ms   saves {off - on:5.0f} ms{cpu}")
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.bench_startup", description=__doc__)
    parser.add_argument("--rounds", type=int, default=10, help="starts per setting (default 10)")
    parser.add_argument("--out", help="also write the results as JSON to this file")
    args = parser.parse_args(argv)
    result = run(args.rounds)
    print(f"load average after: {result['load_average']}")
    if args.out:
        Path(args.out).write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
