"""Roo Code's `apply_diff` as a peer of `compare_peers`: its own code, run by Node.

Roo Code (the VS Code extension) edits a file with SEARCH/REPLACE sections that carry the
line the search starts at (`:start_line:`); its `MultiSearchReplaceDiffStrategy` looks
there first and, failing that, searches outward from it. The extension is not published as
a library, so its source is read from a checkout of its repository that the user names
(`--roo-code DIR`, or the `ROO_CODE_SRC` environment variable):

    git clone https://github.com/RooCodeInc/Roo-Code

Its strategy file is bundled with `esbuild` (installed from npm into `benchmarks/.peers`,
git-ignored, with `fastest-levenshtein`, its one runtime dependency) into
`benchmarks/.peers/roo/apply_diff.cjs`, and a Node child process runs it: jobs on stdin,
one JSON line back per job, timing only the `applyDiff` call, as the aider child does.
The document readers the same source file imports for other tools (PDF, Word, Excel) are
never called by `applyDiff`; the child answers their `require` with an empty module, so
they need not be installed. Nothing of Roo's is copied into this repository.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

STRATEGY = "src/core/diff/strategies/multi-search-replace.ts"
NPM_PACKAGES = ("esbuild", "fastest-levenshtein")

# Runs in Node: loads the bundle, answers jobs. The modules the bundle requires but
# `applyDiff` never calls are stubbed (see the module docstring).
_CHILD = r"""
const Module = require("module");
const crypto = require("crypto");
const fs = require("fs");
const readline = require("readline");
const [bundle, nodeModules] = process.argv.slice(-2);
const unused = new Set(["pdf-parse/lib/pdf-parse", "mammoth", "isbinaryfile", "exceljs"]);
const load = Module._load;
Module._load = function (request, parent, isMain) {
  if (unused.has(request)) return {};
  if (request === "fastest-levenshtein") {
    return load.call(this, require.resolve(request, { paths: [nodeModules] }), parent, isMain);
  }
  return load.call(this, request, parent, isMain);
};
const { MultiSearchReplaceDiffStrategy } = require(bundle);
const strategy = new MultiSearchReplaceDiffStrategy();
const texts = new Map();
console.log(JSON.stringify({ ready: true }));
const lines = readline.createInterface({ input: process.stdin });
lines.on("line", async (line) => {
  const job = JSON.parse(line);
  if (!texts.has(job.key)) texts.set(job.key, fs.readFileSync(job.file, "utf8"));
  const original = texts.get(job.key);
  const t0 = process.hrtime.bigint();
  const c0 = process.cpuUsage();
  const result = await strategy.applyDiff(original, job.diff);
  const c1 = process.cpuUsage(c0);
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  const cpu = (c1.user + c1.system) / 1000;
  const sha = result.success
    ? crypto.createHash("sha256").update(result.content, "utf8").digest("hex")
    : null;
  console.log(JSON.stringify({ ms, cpu, sha }));
});
"""


def roo_diff(blocks: list[tuple[int, str, str]]) -> str:
    """Roo's `apply_diff` text for `blocks` of (1-based start line, search, replace), each
    text ending in a newline, as its prompt asks the model to write it."""
    out = []
    for line, search, replace in blocks:
        out.append(
            f"<<<<<<< SEARCH\n:start_line:{line}\n-------\n{search}=======\n{replace}"
            ">>>>>>> REPLACE\n"
        )
    return "\n".join(out)


def version(source: Path) -> str:
    try:
        meta = json.loads((source / "src" / "package.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return ""
    done = subprocess.run(
        ["git", "-C", str(source), "rev-parse", "--short", "HEAD"], capture_output=True, text=True
    )
    commit = done.stdout.strip()
    return f"Roo Code {meta.get('version', '?')}" + (f", {commit}" if commit else "")


def bundle(source: Path, peers: Path, install: bool) -> Path | str:
    """The bundled strategy (built when missing or older than the source), or why not."""
    if not (source / STRATEGY).is_file():
        return f"Roo Code: {source} holds no {STRATEGY}"
    node = shutil.which("node")
    if node is None:
        return "Roo Code: `node` is not on PATH"
    modules = peers / "node_modules"
    esbuild = modules / ".bin" / "esbuild"
    if not esbuild.exists() or not (modules / "fastest-levenshtein").is_dir():
        npm = shutil.which("npm")
        if not install or npm is None:
            return f"Roo Code: {', '.join(NPM_PACKAGES)} not installed in {peers}"
        peers.mkdir(parents=True, exist_ok=True)
        done = subprocess.run(
            [npm, "install", "--no-audit", "--no-fund", "--prefix", str(peers), *NPM_PACKAGES],
            capture_output=True,
            text=True,
        )
        if done.returncode != 0:
            return f"Roo Code: `npm install` failed: {done.stderr.strip()[-300:]}"
    out = peers / "roo" / "apply_diff.cjs"
    if not out.exists() or out.stat().st_mtime < (source / STRATEGY).stat().st_mtime:
        out.parent.mkdir(parents=True, exist_ok=True)
        done = subprocess.run(
            [str(esbuild), str(source / STRATEGY), "--bundle", "--platform=node",
             "--format=cjs", "--packages=external", f"--outfile={out}", "--log-level=error"],
            capture_output=True,
            text=True,
        )  # fmt: skip
        if done.returncode != 0:
            return f"Roo Code: esbuild could not bundle {STRATEGY}: {done.stderr.strip()[-300:]}"
    return out


class RooChild:
    """The Node child: `run(key, file, diff, expected)` returns (ms, right, CPU ms)."""

    def __init__(self, bundled: Path, peers: Path) -> None:
        node = shutil.which("node") or "node"
        self.child = subprocess.Popen(
            [node, "-e", _CHILD, str(bundled), str(peers / "node_modules")],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        assert self.child.stdout is not None
        hello = self.child.stdout.readline()
        if not hello.strip():
            raise RuntimeError("the Roo Code child did not start")
        self.shas: dict[str, str] = {}

    def run(self, key: str, file: Path, diff: str, expected: str) -> tuple[float, bool, float]:
        assert self.child.stdin is not None and self.child.stdout is not None
        sha = self.shas.setdefault(expected, hashlib.sha256(expected.encode()).hexdigest())
        job: dict[str, Any] = {"key": key, "file": str(file), "diff": diff}
        self.child.stdin.write(json.dumps(job) + "\n")
        self.child.stdin.flush()
        got = json.loads(self.child.stdout.readline())
        return got["ms"], got["sha"] == sha, got["cpu"]

    def close(self) -> None:
        assert self.child.stdin is not None
        self.child.stdin.close()
        self.child.wait(timeout=30)


def source_dir(given: str | None) -> Path | None:
    found = given or os.environ.get("ROO_CODE_SRC")
    return Path(found).expanduser().resolve() if found else None
