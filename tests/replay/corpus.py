"""The replay corpus: real assistant replies with the files before and the files after.

Each case lives in `cases/<source>/<id>/`:

* `reply.md` — the assistant's message as its transcript recorded it;
* `before/` — the files the reply names or the commit touched, as they were;
* `after/` — the same files as they must end up (a file not under `after/` stays as it was;
  `meta.json`'s `deleted` lists paths the commit removed);
* `meta.json` — where it comes from (`repo`, `commit`, `license`) and `expect`:
  `after` (only the `after/` tree is right), `refuse-or-place` (the edit failed for the tool
  that wrote the transcript: a refusal is right too, a placement must equal `after/` when
  there is one, and leave the files alone when there is none), `refuse`.

A case is replayed the way `llm-patch apply` places a reply — the command line itself, on a
temporary copy of `before/` — and its outcome is one of:

* `right` — the files are byte for byte the expected ones;
* `refused` — nothing was written (the expected files differ from `before/`);
* `wrong` — something was written and the files are not the expected ones.

    python -m tests.replay.corpus [--source aider] [--show wrong,refused] [--by language]
    python -m tests.replay.corpus --readme   # rewrites both tables in tests/replay/README.md

prints the table by source, or by the language of the files a case touches (and the cases of
the outcomes named).
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import sys
import tempfile
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from lsp_server import cli

CASES = Path(__file__).resolve().parent / "cases"
OUTCOMES = ("right", "refused", "wrong")


@dataclass(frozen=True)
class Case:
    folder: Path
    meta: dict

    @property
    def name(self) -> str:
        return f"{self.folder.parent.name}/{self.folder.name}"

    @property
    def expect(self) -> str:
        return self.meta["expect"]

    def before(self) -> dict[str, bytes]:
        return _tree(self.folder / "before")

    def expected(self) -> dict[str, bytes] | None:
        """The files as they must end up, or None when no after state is known."""
        after = self.folder / "after"
        deleted = self.meta.get("deleted") or []
        if not after.is_dir() and not deleted:
            return None
        files = self.before()
        files.update(_tree(after))
        for path in deleted:
            files.pop(path, None)
        return files


@dataclass(frozen=True)
class Replay:
    case: Case
    outcome: str  # one of OUTCOMES
    exit_code: int
    report: dict
    result: dict[str, bytes]

    def why(self) -> str:
        """A line saying what went wrong or was refused, for the test's message."""
        blocks = self.report.get("blocks") or []
        failures = [b.get("error", {}).get("code") for b in blocks if b.get("error")]
        error = (self.report.get("error") or {}).get("code")
        expected = self.case.expected() or self.case.before()
        differ = sorted(
            p for p in set(expected) | set(self.result) if expected.get(p) != self.result.get(p)
        )
        return (
            f"{self.case.name} ({self.case.meta.get('format')}, expect "
            f"{self.case.expect}): {self.outcome}, exit {self.exit_code}, "
            f"errors {failures or error}, files differing from the expected: {differ}"
        )


def _tree(root: Path) -> dict[str, bytes]:
    if not root.is_dir():
        return {}
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


def cases(source: str | None = None) -> list[Case]:
    found = []
    for meta in sorted(CASES.glob("*/*/meta.json")):
        if source is None or meta.parent.parent.name == source:
            found.append(Case(meta.parent, json.loads(meta.read_text(encoding="utf-8"))))
    return found


def _apply(reply: Path, files: dict[str, bytes]) -> tuple[int, dict, dict[str, bytes]]:
    """`llm-patch apply reply --root <files> --json` on a temporary copy of `files`: the exit
    code, the JSON report and the files as the run left them."""
    with tempfile.TemporaryDirectory(prefix="llm-patch-replay-") as tmp:
        root = Path(tmp) / "ws"
        root.mkdir()
        # the copy is the user's own files: writable whatever modes the data has
        for path, data in files.items():
            target = root / path
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            code = cli.run(["apply", str(reply), "--root", str(root), "--json"])
        result = _tree(root)
    report = json.loads(out.getvalue()) if out.getvalue().strip() else {}
    return code, report, result


def replay(case: Case) -> Replay:
    before = case.before()
    code, report, result = _apply(case.folder / "reply.md", before)
    expected = case.expected()
    if expected is None and case.expect == "refuse":
        expected = before  # leaving the files alone is the right answer
    if result == expected:
        outcome = "right"
    elif result == before:
        outcome = "refused"
    else:  # written, and not the known after state (or none is known: not provably right)
        outcome = "wrong"
    return Replay(case, outcome, code, report, result)


def again(first: Replay) -> Replay:
    """The same reply applied a second time, to the files its first run left: `right` when
    it leaves them alone with exit 0 (every block already applied), `refused` when it leaves
    them alone and fails, `wrong` when it writes."""
    code, report, result = _apply(first.case.folder / "reply.md", first.result)
    if result != first.result:
        outcome = "wrong"
    else:
        outcome = "right" if code == 0 else "refused"
    return Replay(first.case, outcome, code, report, result)


def _rows(replays: list[Replay], by: str) -> dict[str, Counter]:
    """Outcome counts per source folder, or per language (a case touching files of two
    languages counts in both rows; the total row counts it once)."""
    rows: dict[str, Counter] = {}
    for r in replays:
        if by == "language":
            keys = r.case.meta.get("languages") or ["unknown"]
        else:
            keys = [r.case.folder.parent.name]
        for key in dict.fromkeys(keys):
            rows.setdefault(key, Counter())[r.outcome] += 1
    return rows


def table(replays: list[Replay], by: str = "source") -> str:
    rows = _rows(replays, by)
    total = Counter(r.outcome for r in replays)
    lines = [f"| {by} | cases | right | refused | wrong |", "|---|---|---|---|---|"]
    # sources in name order; languages by how many cases touch them, most first
    if by == "source":
        order = sorted(rows)
    else:
        order = sorted(rows, key=lambda k: (-sum(rows[k].values()), k))
    for key in order:
        counts = rows[key]
        lines.append(
            f"| {key} | {sum(counts.values())} | "
            + " | ".join(str(counts[o]) for o in OUTCOMES)
            + " |"
        )
    lines.append(
        f"| **all** | {sum(total.values())} | " + " | ".join(str(total[o]) for o in OUTCOMES) + " |"
    )
    return "\n".join(lines)


README = Path(__file__).resolve().parent / "README.md"
MARKERS = {
    "source": ("<!-- replay:begin -->", "<!-- replay:end -->"),
    "language": ("<!-- replay-language:begin -->", "<!-- replay-language:end -->"),
}


def rewrite_readme(text: str, replays: list[Replay]) -> str:
    """The README with each table between its markers replaced by the current one."""
    for by, (begin, end) in MARKERS.items():
        head, sep, rest = text.partition(begin)
        _, sep2, tail = rest.partition(end)
        if not sep or not sep2:
            raise ValueError(f"{README.name} has no {begin} ... {end} markers")
        text = head + begin + "\n" + table(replays, by) + "\n" + end + tail
    return text


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--source", help="only the cases of this folder under cases/")
    ap.add_argument("--show", default="wrong", help="outcomes to list, comma-separated")
    ap.add_argument("--by", choices=sorted(MARKERS), default="source", help="rows of the table")
    ap.add_argument("--readme", action="store_true", help="rewrite the tables in README.md")
    args = ap.parse_args(argv)
    replays = [replay(c) for c in cases(args.source)]
    show = set(args.show.split(","))
    for r in replays:
        if r.outcome in show:
            print(r.why())
    print(table(replays, args.by))
    if args.readme:
        if args.source:
            ap.error("--readme tables are of the whole corpus: leave out --source")
        text = rewrite_readme(README.read_text(encoding="utf-8"), replays)
        README.write_text(text, encoding="utf-8")
    return 1 if any(r.outcome == "wrong" for r in replays) else 0


if __name__ == "__main__":
    sys.exit(main())
