"""Replay the replies aider recorded in a repository's commit messages through llm-patch.

aider's versions of 2023 wrote the chat into each commit's message (`ASSISTANT: …`), so a
clone of a repository developed with aider then holds, per commit, the reply and the files
before and after it. This replays every commit whose message holds one assistant turn with
an edit block in aider's 2023 spellings (`<<<<<<< ORIGINAL` / `>>>>>>> UPDATED`,
`<<<<<<< HEAD` / `>>>>>>> updated`) on its parent's files, the way `llm-patch apply` places
a reply, and compares the files with the commit's:

    git clone https://github.com/Aider-AI/aider /tmp/aider
    .venv/bin/python -m benchmarks.replay_history /tmp/aider [--show differ]

* `right` — the files the reply names are the commit's, byte for byte;
* `refused` — nothing was written;
* `differ` — something was written and it is not the commit's. The commit is aider's
  result, not a verified ground truth (tests/replay/SOURCES.md says what was filtered for
  the corpus): its applier wrote UPDATED text at the reply's indentation, added final
  newlines, and committed the user's own uncommitted edits with the reply's; git's message
  clean-up strips trailing spaces from the reply. Each `differ` is a case to read.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import re
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

from lsp_server import cli
from lsp_server.reply import parse_reply

_BLOCK = re.compile(r"^<<<<<<< (?:ORIGINAL|HEAD)[ \t]*$", re.MULTILINE)


def _git(repo: Path, *args: str) -> bytes:
    return subprocess.run(["git", "-C", str(repo), *args], capture_output=True).stdout


def _blob(repo: Path, commit: str, path: str) -> bytes | None:
    ok = subprocess.run(
        ["git", "-C", str(repo), "cat-file", "-e", f"{commit}:{path}"], capture_output=True
    )
    return _git(repo, "show", f"{commit}:{path}") if ok.returncode == 0 else None


def replay(repo: Path, commit: str) -> str | None:
    """The outcome for one commit (right, refused, differ), or None: no such reply."""
    message = _git(repo, "show", "-s", "--format=%B", commit).decode("utf-8", "replace")
    if message.count("ASSISTANT:") != 1:
        return None  # several turns: which one the commit holds is not known
    reply = message.split("ASSISTANT:", 1)[1].lstrip(" ")
    parents = _git(repo, "show", "-s", "--format=%P", commit).decode().split()
    if not _BLOCK.search(reply) or len(parents) != 1:
        return None
    changed = _git(repo, "diff", "--name-only", "--no-renames", parents[0], commit).decode()
    paths = {b.path for b in parse_reply(reply).blocks if b.path}
    paths |= {p for p in changed.split("\n") if p}
    paths = {p for p in paths if not p.startswith("/") and ".." not in Path(p).parts}
    with tempfile.TemporaryDirectory(prefix="llm-patch-history-") as tmp:
        root = Path(tmp) / "ws"
        root.mkdir()
        before = {p: _blob(repo, parents[0], p) for p in paths}
        for path, data in before.items():
            if data is not None:
                (root / path).parent.mkdir(parents=True, exist_ok=True)
                (root / path).write_bytes(data)
        (Path(tmp) / "reply.md").write_text(reply, encoding="utf-8")
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            cli.run(["apply", str(Path(tmp) / "reply.md"), "--root", str(root), "--json"])
        result = {p: (root / p).read_bytes() if (root / p).is_file() else None for p in paths}
    if result == {p: _blob(repo, commit, p) for p in paths}:
        return "right"
    return "refused" if result == before else "differ"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("repo", type=Path, help="a clone of a repository developed with aider")
    ap.add_argument("--show", default="", help="outcomes to list, comma-separated")
    args = ap.parse_args(argv)
    grep = ["--grep=<<<<<<< ORIGINAL", "--grep=<<<<<<< HEAD"]
    commits = _git(args.repo, "log", "--format=%H", *grep).decode().split()
    counts: Counter[str] = Counter()
    show = set(filter(None, args.show.split(",")))
    for commit in commits:
        outcome = replay(args.repo, commit)
        counts[outcome or "skipped"] += 1
        if outcome in show:
            print(outcome, commit[:12])
    print(
        f"{len(commits)} commits: {counts['right']} right, {counts['refused']} refused, "
        f"{counts['differ']} differ from the commit, {counts['skipped']} skipped "
        "(several turns, no block, a merge)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
