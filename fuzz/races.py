"""The concurrency repros from the report, against a real `llm-patch apply` on a big tree.

    .venv/bin/python -m fuzz.races --trials 3

* **together** — two applies started at once on the same 200 files, each changing other
  lines: both must exit 0 and every file must hold both changes (before: one's edits gone).
* **append** — a line appended to a file the reply edits as soon as the first temporary
  file appears: the line must survive, in the old text (the apply stops, `STALE_VERSION`
  naming that file) or in the new one (before: silently lost).
* **swap** — `rm -r root/zz; ln -s ../honeypot root/zz` as soon as the first temporary file
  appears: the honeypot beside the root must not change (before: its file was rewritten).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path

from fuzz.crash_loop import CLI, REPO, snapshot

WATCH = "d0"  # the folder of the reply's first file: its temporary file appears first


def make_tree(root: Path, files: int, lines: int) -> None:
    for i in range(files):
        folder = root / f"d{i % 10}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"f{i:03d}.py").write_text("".join(f"v_{i}_{j} = {j}\n" for j in range(lines)))


def reply(files: int, line: int, value: str, extra: str = "") -> str:
    blocks = [
        f"d{i % 10}/f{i:03d}.py\n```\n<<<<<<< SEARCH\nv_{i}_{line} = {line}\n=======\n"
        f"v_{i}_{line} = {value}\n>>>>>>> REPLACE\n```\n"
        for i in range(files)
    ]
    return "".join(blocks) + extra


def apply(root: Path, reply_path: Path) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [*CLI, "apply", str(reply_path), "--root", str(root), "--json"],
        cwd=REPO,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def on_first_temp(root: Path, act: Callable[[], None]) -> threading.Thread:
    """A watcher that runs `act` once a temporary file appears in the first folder."""

    def watch() -> None:
        deadline = time.monotonic() + 300
        while time.monotonic() < deadline:
            try:
                names = os.listdir(root / WATCH)
            except OSError:
                names = []
            if any(n.startswith(".llm-patch-") for n in names):
                act()
                return
            time.sleep(0.0005)

    thread = threading.Thread(target=watch, daemon=True)
    thread.start()
    return thread


def together(base: Path, files: int, lines: int) -> str:
    root = base / "root"
    make_tree(root, files, lines)
    first, second = base / "first.md", base / "second.md"
    first.write_text(reply(files, 10, "'first'"))
    second.write_text(reply(files, lines - 10, "'second'"))
    procs = [apply(root, first), apply(root, second)]
    for p in procs:
        p.communicate(timeout=600)  # reading as it goes: a full pipe would stall it
    codes = [p.returncode for p in procs]
    if codes != [0, 0]:
        return f"BROKEN: exit codes {codes}"
    for i in range(files):
        text = (root / f"d{i % 10}" / f"f{i:03d}.py").read_text()
        if "'first'" not in text or "'second'" not in text:
            return f"BROKEN: f{i:03d}.py lost an apply's edit"
    return "both landed"


def append(base: Path, files: int, lines: int) -> str:
    root = base / "root"
    make_tree(root, files, lines)
    victim = root / "d5" / f"f{files - 5:03d}.py"
    path = base / "reply.md"
    path.write_text(reply(files, 7, "'new'"))

    def add_line() -> None:
        with open(victim, "a") as fh:
            fh.write("appended = True\n")

    watcher = on_first_temp(root, add_line)
    proc = apply(root, path)
    out, _ = proc.communicate(timeout=600)
    watcher.join(5)
    text = victim.read_text()
    if not text.endswith("appended = True\n"):
        return f"BROKEN: the appended line was lost (exit {proc.returncode})"
    if proc.returncode == 0:
        return "append after the rename: kept in the new text"
    error = json.loads(out).get("error") or {}
    if error.get("code") != "STALE_VERSION" or error.get("details", {}).get("path") != (
        victim.relative_to(root).as_posix()
    ):
        return f"BROKEN: refused, but not as STALE_VERSION naming the file: {error}"
    new_elsewhere = any("'new'" in p.read_text() for p in root.rglob("*.py") if p != victim)
    return "BROKEN: refused, but other files changed" if new_elsewhere else "STALE_VERSION, kept"


def swap(base: Path, files: int, lines: int) -> str:
    root, honeypot = base / "root", base / "honeypot"
    make_tree(root, files, lines)
    (root / "zz").mkdir()
    (root / "zz" / "victim.txt").write_text("victim\n")
    honeypot.mkdir()
    (honeypot / "victim.txt").write_text("victim\n")
    outside = snapshot(honeypot)
    extra = "zz/victim.txt\n```\n<<<<<<< SEARCH\nvictim\n=======\npwned\n>>>>>>> REPLACE\n```\n"
    path = base / "reply.md"
    path.write_text(reply(files, 7, "'new'", extra))

    def attack() -> None:
        shutil.rmtree(root / "zz", ignore_errors=True)
        (root / "zz").symlink_to("../honeypot")

    watcher = on_first_temp(root, attack)
    proc = apply(root, path)
    proc.communicate(timeout=600)
    watcher.join(5)
    if snapshot(honeypot) != outside:
        return "BROKEN: the honeypot outside the root changed"
    return f"honeypot untouched (exit {proc.returncode})"


RACES = {"together": together, "append": append, "swap": swap}


def run(trials: int, files: int, lines: int) -> list[tuple[str, str]]:
    results = []
    for name, race in RACES.items():
        for _ in range(trials):
            with tempfile.TemporaryDirectory() as tmp:
                results.append((name, race(Path(tmp), files, lines)))
    return results


def summary(results: list[tuple[str, str]]) -> str:
    lines = []
    for name in RACES:
        outcomes = [r for n, r in results if n == name]
        lines.append(f"  {name}: " + "; ".join(outcomes))
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--trials", type=int, default=3)
    parser.add_argument("--files", type=int, default=200)
    parser.add_argument("--lines", type=int, default=5000)
    args = parser.parse_args(argv)
    results = run(args.trials, args.files, args.lines)
    print(summary(results))
    return 1 if any(r.startswith("BROKEN") for _, r in results) else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
