"""Another tree of llm-patch as a tool of `compare_peers`: before and after in one run.

    python -m benchmarks.compare_peers --baseline DIR

DIR holds another version of the project (`git worktree add DIR main`, or
`git archive COMMIT | tar -x -C DIR`); a child process imports `lsp_server` from it and
plans each reply as shipped, first sight (every cache emptied), timing only
`parse_reply` + `plan_reply`, as the aider child does. Its rounds are interleaved with
every other tool's, so the ratio of the two versions is not a ratio of two runs on a
machine whose load moved in between.
"""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from pathlib import Path

_CHILD = r"""
import hashlib, json, sys, time
sys.path.insert(0, sys.argv[-1])
from lsp_server.model import Snapshot
from lsp_server.plan import plan_reply
from lsp_server.reply import parse_reply
from lsp_server.resolve import cache


class Source:
    def __init__(self, path, text):
        self.path, self.text = path, text

    def snapshot(self, path):
        return Snapshot(path, self.text if path == self.path else None)


print(json.dumps({"ready": True}), flush=True)
texts = {}
for line in sys.stdin:
    job = json.loads(line)
    if job["key"] not in texts:  # read once per size, untimed, as the file it edits
        texts[job["key"]] = open(job["file"], encoding="utf-8").read()
    text = texts[job["key"]]
    source = Source(job["path"], text[:1] + text[1:])  # a new string, as a file just read
    cache.clear_all()
    t0, c0 = time.perf_counter(), time.thread_time()
    plan = plan_reply(parse_reply(job["reply"]), source)
    cpu = (time.thread_time() - c0) * 1000.0
    ms = (time.perf_counter() - t0) * 1000.0
    got = [f.new_text for f in plan.files] if plan.ok else []
    sha = hashlib.sha256(got[0].encode()).hexdigest() if len(got) == 1 else None
    print(json.dumps({"ms": ms, "cpu": cpu, "sha": sha}), flush=True)
"""


def version(tree: Path) -> str:
    done = subprocess.run(
        ["git", "-C", str(tree), "rev-parse", "--short", "HEAD"], capture_output=True, text=True
    )
    return done.stdout.strip() if done.returncode == 0 else str(tree)


class BaselineChild:
    """The child: `run(key, file, path, reply, expected)` returns (ms, right, CPU ms)."""

    def __init__(self, tree: Path) -> None:
        if not (tree / "lsp_server" / "plan.py").is_file():
            raise FileNotFoundError(f"{tree} holds no lsp_server/plan.py")
        self.child = subprocess.Popen(
            [sys.executable, "-c", _CHILD, str(tree)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        assert self.child.stdout is not None
        if not self.child.stdout.readline().strip():
            raise RuntimeError(f"the baseline child for {tree} did not start")
        self.shas: dict[str, str] = {}

    def run(
        self, key: str, file: Path, path: str, reply: str, expected: str
    ) -> tuple[float, bool, float]:
        assert self.child.stdin is not None and self.child.stdout is not None
        sha = self.shas.setdefault(expected, hashlib.sha256(expected.encode()).hexdigest())
        job = {"key": key, "file": str(file), "path": path, "reply": reply}
        self.child.stdin.write(json.dumps(job) + "\n")
        self.child.stdin.flush()
        got = json.loads(self.child.stdout.readline())
        return got["ms"], got["sha"] == sha, got["cpu"]

    def close(self) -> None:
        assert self.child.stdin is not None
        self.child.stdin.close()
        self.child.wait(timeout=30)
