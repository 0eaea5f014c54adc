"""The replay corpus (tests/replay) through aider's own appliers, beside llm-patch.

    python -m benchmarks.replay_aider [--no-install]

aider runs in its own virtual environment (`benchmarks/.aider-venv`, see compare_aider),
in a child process: for each case, in a temporary copy of `before/`, the coder class of
the case's format (`EditBlockCoder` for SEARCH/REPLACE, `UnifiedDiffCoder` for udiff,
`WholeFileCoder` for whole files) reads the reply with its own `get_edits` and writes with
its own `apply_edits`, on a stand-in for the rest of the coder (files, fence, paths) — the
same parsing and matching aider runs after a model answers. aider writes the edits that
matched even when others failed; that is counted as it lands.

Each result is classified as the replay test classifies llm-patch's (right / refused /
wrong against the case's expected files); the table goes to tests/replay/README.md.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import textwrap
from collections import Counter
from pathlib import Path

from benchmarks.compare_aider import ensure_aider
from tests.replay.corpus import OUTCOMES, Case, cases, replay

README = Path(__file__).resolve().parent.parent / "tests" / "replay" / "README.md"
BEGIN, END = "<!-- replay-aider:begin -->", "<!-- replay-aider:end -->"

_CHILD = textwrap.dedent(
    """
    import json, os, sys, tempfile
    from importlib.metadata import version
    from pathlib import Path
    from aider.coders.editblock_coder import EditBlockCoder
    from aider.coders.udiff_coder import UnifiedDiffCoder
    from aider.coders.wholefile_coder import WholeFileCoder

    CODERS = {"search-replace": EditBlockCoder, "udiff": UnifiedDiffCoder,
              "whole": WholeFileCoder}

    class IO:
        def read_text(self, path):
            try:
                return Path(path).read_text(encoding="utf-8")
            except OSError:
                return None
        def write_text(self, path, text):
            Path(path).parent.mkdir(parents=True, exist_ok=True)
            Path(path).write_text(text, encoding="utf-8")

    class Stub:
        # what aider's coder methods read of the coder: the reply, the fence, the files
        def __init__(self, root, reply, files):
            self.root, self.io, self.fence = root, IO(), ("```", "```")
            self.partial_response_content = reply
            self.shell_commands = []
            self.files = files
            self.abs_fnames = {os.path.join(root, f) for f in files}
        def get_multi_response_content_in_progress(self):
            return self.partial_response_content
        def get_inchat_relative_files(self):
            return sorted(self.files)
        def abs_root_path(self, path):
            return os.path.join(self.root, path)
        def get_rel_fname(self, path):
            return os.path.relpath(path, self.root)

    def tree(root):
        out = {}
        for dirpath, _, names in os.walk(root):
            for n in names:
                p = os.path.join(dirpath, n)
                out[os.path.relpath(p, root).replace(os.sep, "/")] = Path(p).read_text(
                    encoding="utf-8", errors="surrogateescape")
        return out

    jobs = json.load(sys.stdin)
    out = {"version": version("aider-chat"), "results": {}}
    for job in jobs:
        with tempfile.TemporaryDirectory() as root:
            for rel, text in job["files"].items():
                p = Path(root, rel)
                p.parent.mkdir(parents=True, exist_ok=True)
                p.write_text(text, encoding="utf-8")
            coder = CODERS[job["format"]]
            stub = Stub(root, job["reply"], list(job["named"]))
            error = None
            try:
                edits = coder.get_edits(stub)
                coder.apply_edits(stub, edits)
            except Exception as exc:  # aider reports its failures as exceptions
                error = f"{type(exc).__name__}: {str(exc)[:200]}"
            out["results"][job["name"]] = {"files": tree(root), "error": error}
    json.dump(out, sys.stdout)
    """
)


def _named(case: Case) -> list[str]:
    """The files aider had in the chat: those the case holds, and those the reply names
    as a path line (aider adds a file the model asks to create)."""
    files = set(case.before()) | set(case.expected() or {})
    return sorted(files)


def _outcome(case: Case, result: dict[str, str]) -> str:
    got = {p: t.encode("utf-8", "surrogateescape") for p, t in result.items()}
    before = case.before()
    expected = case.expected()
    if expected is None and case.expect == "refuse":
        expected = before
    if got == expected:
        return "right"
    if got == before:
        return "refused"
    return "wrong"


def run(install: bool) -> tuple[str, dict[str, Counter], dict[str, Counter]]:
    py = ensure_aider(install)
    todo = [c for c in cases() if c.meta.get("format") in ("search-replace", "udiff", "whole")]
    jobs = [
        {
            "name": c.name,
            "format": c.meta["format"],
            "reply": (c.folder / "reply.md").read_text(encoding="utf-8"),
            "files": {p: b.decode("utf-8") for p, b in c.before().items()},
            "named": _named(c),
        }
        for c in todo
    ]
    done = subprocess.run(
        [str(py), "-c", _CHILD], input=json.dumps(jobs), capture_output=True, text=True
    )
    if done.returncode != 0:
        raise SystemExit(done.stderr[-2000:])
    answer = json.loads(done.stdout)
    theirs: dict[str, Counter] = {}
    ours: dict[str, Counter] = {}
    for c in todo:
        source = c.folder.parent.name
        theirs.setdefault(source, Counter())[_outcome(c, answer["results"][c.name]["files"])] += 1
        ours.setdefault(source, Counter())[replay(c).outcome] += 1
    return answer["version"], ours, theirs


def table(version: str, ours: dict[str, Counter], theirs: dict[str, Counter]) -> str:
    rows = [
        f"Both on the same {sum(sum(c.values()) for c in ours.values())} cases "
        f"(aider {version}; its appliers read SEARCH/REPLACE, udiff and whole-file replies):",
        "",
        "| source | engine | right | refused | wrong |",
        "|---|---|---|---|---|",
    ]
    for source in sorted(ours):
        for name, counts in (("llm-patch", ours[source]), ("aider", theirs[source])):
            rows.append(
                f"| {source} | {name} | " + " | ".join(str(counts[o]) for o in OUTCOMES) + " |"
            )
    return "\n".join(rows)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--no-install", action="store_true", help="fail if aider is not installed")
    args = ap.parse_args()
    text = table(*run(not args.no_install))
    print(text)
    doc = README.read_text(encoding="utf-8")
    pattern = re.compile(re.escape(BEGIN) + ".*?" + re.escape(END), re.S)
    if pattern.search(doc):
        doc = pattern.sub(lambda _: f"{BEGIN}\n{text}\n{END}", doc)
        README.write_text(doc, encoding="utf-8")


if __name__ == "__main__":
    main()
