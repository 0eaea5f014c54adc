"""Kill `llm-patch apply` at random moments; after one recovery the tree is all old or all new.

    .venv/bin/python -m fuzz.crash_loop --kills 50                 # 200 files x 5,000 lines
    .venv/bin/python -m fuzz.crash_loop --kills 5 --files 40 --lines 1000 --seed 7

Each round restores the original tree, starts `llm-patch apply` in a subprocess on a reply
that modifies every file (search/replace), creates, deletes and moves executable files,
and sends it SIGKILL at a random moment: of the whole run in a quarter of the rounds, of
one state of its journal (prepare, commit, committed) in the others. Then `llm-patch
recover` runs once —
and, in some rounds, is itself killed first and run again — and the tree must equal either
the tree before (bytes and modes) or the tree a complete apply leaves, with no temporary
file and no journal left. A re-check of the reply must then place every block, or report
every search/replace block as already applied.

The run ends with a table: where the kills landed (the journal's state), what recovery did,
and any round that broke the rule. `tests/safety/test_writer_crash.py` runs a short version.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
JOURNAL = ".llm-patch.journal"
CLI = [sys.executable, "-m", "lsp_server.cli"]


@dataclass
class Corpus:
    """An original tree, the reply, and what a complete apply of it leaves."""

    base: Path
    files: int
    lines: int
    old: dict[str, Any] = field(default_factory=dict)
    new: dict[str, Any] = field(default_factory=dict)

    @property
    def pristine(self) -> Path:
        return self.base / "pristine"

    @property
    def reply(self) -> Path:
        return self.base / "reply.md"

    @property
    def modify_reply(self) -> Path:
        """The search/replace blocks alone: applied twice, each is "already applied"."""
        return self.base / "modify.md"

    @property
    def root(self) -> Path:
        return self.base / "root"


def build(base: Path, files: int, lines: int, extras: int = 4) -> Corpus:
    corpus = Corpus(base, files, lines)
    top = corpus.pristine
    parts: list[str] = []
    for i in range(files):
        path = f"d{i % 10}/f{i:03d}.py"
        body = "".join(f"v_{i}_{j} = {j}\n" for j in range(lines))
        (top / path).parent.mkdir(parents=True, exist_ok=True)
        (top / path).write_text(body)
        mid = lines // 2
        parts.append(
            f"{path}\n```python\n<<<<<<< SEARCH\nv_{i}_{mid} = {mid}\n=======\n"
            f"v_{i}_{mid} = 'new'\n>>>>>>> REPLACE\n```\n"
        )
    v4a = ["*** Begin Patch"]
    for k in range(extras):
        gone = top / "gone" / f"del_{k}.sh"
        src = top / "mv" / f"src_{k}.sh"
        for p in (gone, src):
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_text("".join(f"echo {k} {j}\n" for j in range(50)))
            os.chmod(p, 0o755)
        v4a += [f"*** Add File: new/created_{k}.py"] + [f"+c_{k} = {j}" for j in range(200)]
        v4a += [f"*** Delete File: gone/del_{k}.sh"]
        v4a += [f"*** Update File: mv/src_{k}.sh", f"*** Move to: moved/dst_{k}.sh", "@@"]
        v4a += [f"-echo {k} 0", f"+echo moved {k}"]
    v4a.append("*** End Patch")
    corpus.reply.write_text("".join(parts) + "\n".join(v4a) + "\n")
    corpus.modify_reply.write_text("".join(parts))
    corpus.old = snapshot(top)
    reset(corpus)
    done = cli("apply", str(corpus.reply), "--root", str(corpus.root))
    if done.returncode != 0:
        raise SystemExit(f"the reference apply failed:\n{done.stdout}\n{done.stderr}")
    corpus.new = snapshot(corpus.root)
    return corpus


def snapshot(top: Path) -> dict[str, Any]:
    """Every file's bytes and mode, every folder, every symlink, under `top`."""
    out: dict[str, Any] = {}
    for folder, dirs, names in os.walk(top):
        for name in dirs + names:
            p = Path(folder) / name
            rel = p.relative_to(top).as_posix()
            st = p.lstat()
            if p.is_symlink():
                out[rel] = ("link", os.readlink(p))
            elif p.is_dir():
                out[rel] = ("dir",)
            else:
                out[rel] = (p.read_bytes(), st.st_mode & 0o7777)
    return out


def reset(corpus: Corpus) -> None:
    if corpus.root.exists():
        shutil.rmtree(corpus.root)
    shutil.copytree(corpus.pristine, corpus.root, symlinks=True)


def cli(*args: str, timeout: float = 600) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*CLI, *args], capture_output=True, text=True, timeout=timeout, cwd=REPO, check=False
    )


def journal_state(root: Path) -> str:
    try:
        return json.loads((root / JOURNAL).read_text())["state"]
    except FileNotFoundError:
        return "none"
    except (ValueError, KeyError, OSError):
        return "unreadable"


PHASES = ("prepare", "commit", "committed")


def kill_at(args: list[str], root: Path, delay: float, phase: str | None) -> str:
    """Start the CLI and SIGKILL it `delay` seconds after it starts, or after its journal
    first says `phase`; returns the journal's state at the kill ("finished" if too late)."""
    proc = subprocess.Popen(
        [*CLI, *args], cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:
        if phase is not None:
            deadline = time.monotonic() + 300
            while journal_state(root) != phase and proc.poll() is None:
                if time.monotonic() > deadline:
                    break
                time.sleep(0.0002)
        time.sleep(delay)
        if proc.poll() is not None:
            return "finished"
        state = journal_state(root)
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        return state
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


@dataclass(frozen=True)
class Timing:
    """A complete apply: its length, and how long its journal stays in each state; and the
    length of a recover with nothing to do (mostly start-up)."""

    total: float
    phases: dict[str, float]
    recover: float


def measure(corpus: Corpus) -> Timing:
    reset(corpus)
    started = time.monotonic()
    proc = subprocess.Popen(
        [*CLI, "apply", str(corpus.reply), "--root", str(corpus.root)],
        cwd=REPO,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    changes: list[tuple[str, float]] = []  # each state of the journal, from when it held
    while proc.poll() is None:
        state = journal_state(corpus.root)
        if not changes or changes[-1][0] != state:
            changes.append((state, time.monotonic()))
        time.sleep(0.0002)
    ended = time.monotonic()
    changes.append(("exit", ended))
    phases = {p: 0.002 for p in PHASES}
    for (state, begin), (_, after) in zip(changes, changes[1:], strict=False):
        if state in phases:
            phases[state] = max(after - begin, 0.002)
    cli("recover", "--root", str(corpus.root))
    return Timing(ended - started, phases, time.monotonic() - ended)


@dataclass
class Round:
    kill: str  # journal state when killed ("none": before it, "finished": it was too quick)
    outcome: str  # what recovery did
    result: str  # "old" | "new" | "BROKEN: ..."
    recovery_killed: bool = False


def one_round(
    corpus: Corpus,
    rng: random.Random,
    timing: Timing,
    kill_recovery: bool,
    target: str | None = "random",
) -> Round:
    """One kill of an apply (aimed at the journal state `target`, None for anywhere in the
    run, "random" for a choice among those), a recovery, and the checks."""
    reset(corpus)
    root = str(corpus.root)
    apply = ["apply", str(corpus.reply), "--root", root]
    # a kill anywhere in the run would mostly land in start-up and planning: aim at each
    # state of the journal as often as at the whole run
    if target == "random":
        target = rng.choice((None, *PHASES))
    if target is None:
        kill = kill_at(apply, corpus.root, rng.uniform(0, timing.total * 1.1), None)
    else:
        kill = kill_at(apply, corpus.root, rng.uniform(0, timing.phases[target]), target)
    killed_recovery = False
    if kill_recovery and rng.random() < 0.3 and os.path.lexists(corpus.root / JOURNAL):
        # recovery must survive being interrupted too
        delay = rng.uniform(0.6, 1.6) * timing.recover
        killed_recovery = kill_at(["recover", "--root", root], corpus.root, delay, None) != (
            "finished"
        )
    done = cli("recover", "--root", root, "--json")
    if done.returncode != 0:
        broken = f"BROKEN: recover exit {done.returncode}: {done.stdout}{done.stderr}"
        return Round(kill, "failed", broken, killed_recovery)
    outcome = json.loads(done.stdout)["outcome"]
    now = snapshot(corpus.root)
    if now == corpus.old:
        result = "old"
    elif now == corpus.new:
        result = "new"
    else:
        result = "BROKEN: " + describe(corpus, now)
    if not result.startswith("BROKEN"):
        result = recheck(corpus, result)
    return Round(kill, outcome, result, killed_recovery)


def recheck(corpus: Corpus, state: str) -> str:
    """Check the reply against the recovered tree: from the old tree every block places;
    from the new one every search/replace block is reported already applied."""
    reply = corpus.reply if state == "old" else corpus.modify_reply
    done = cli("check", str(reply), "--root", str(corpus.root), "--json")
    report = json.loads(done.stdout)
    if done.returncode != 0:
        return f"BROKEN: re-check of the {state} tree failed: {report['summary']}"
    if state == "new":
        bad = [b for b in report["blocks"] if not b.get("already_applied")]
        if bad:
            return f"BROKEN: {len(bad)} blocks not reported already applied"
    return state


def describe(corpus: Corpus, now: dict[str, Any]) -> str:
    keys = set(corpus.old) | set(corpus.new) | set(now)
    as_old = sum(1 for k in keys if now.get(k) == corpus.old.get(k))
    as_new = sum(1 for k in keys if now.get(k) == corpus.new.get(k))
    extra = sorted(k for k in now if k not in corpus.old and k not in corpus.new)[:5]
    return f"{as_old} entries as before, {as_new} as after, of {len(keys)}; unexpected {extra}"


def run(
    kills: int,
    files: int,
    lines: int,
    seed: int,
    kill_recovery: bool = True,
    targets: tuple[str | None, ...] = (),
) -> list[Round]:
    """`kills` rounds; the first ones aimed at `targets` (journal states, None: anywhere)."""
    rng = random.Random(seed)
    aims = list(targets) + ["random"] * max(0, kills - len(targets))
    with tempfile.TemporaryDirectory() as tmp:
        corpus = build(Path(tmp), files, lines)
        timing = measure(corpus)
        rounds = [one_round(corpus, rng, timing, kill_recovery, aim) for aim in aims[:kills]]
    return rounds


def summary(rounds: list[Round]) -> str:
    lines = [f"{len(rounds)} rounds"]
    for title, counter in (
        ("killed in journal state", Counter(r.kill for r in rounds)),
        ("recovery", Counter(r.outcome for r in rounds)),
        ("tree after recovery", Counter(r.result.split(":")[0] for r in rounds)),
    ):
        lines.append(f"  {title}: " + ", ".join(f"{k} {v}" for k, v in sorted(counter.items())))
    lines.append(f"  recoveries killed and run again: {sum(r.recovery_killed for r in rounds)}")
    lines += [f"  {r.result}" for r in rounds if r.result.startswith("BROKEN")]
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--kills", type=int, default=50)
    parser.add_argument("--files", type=int, default=200)
    parser.add_argument("--lines", type=int, default=5000)
    parser.add_argument("--seed", type=int, default=None)
    args = parser.parse_args(argv)
    seed = args.seed if args.seed is not None else random.randrange(1 << 32)
    print(f"seed {seed}: {args.kills} kills, {args.files} files x {args.lines} lines")
    started = time.monotonic()
    rounds = run(args.kills, args.files, args.lines, seed)
    print(summary(rounds))
    print(f"{time.monotonic() - started:.0f} s")
    return 1 if any(r.result.startswith("BROKEN") for r in rounds) else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
