"""Structural targets (`TARGET_NODE`): tree-sitter finds the function the block names.

* **cold** — a new interpreter resolves one block: importing the resolver, loading the
  grammar, parsing the whole file, indexing its structures and splicing. Measured inside
  the child process around the call (interpreter start-up excluded), median of a few runs.
  The children may write and read bytecode (`__pycache__`, as an installed package has)
  even when `PYTHONDONTWRITEBYTECODE` is set, and an untimed first child writes it:
  otherwise every cold run would also compile the resolver's source, some 30 ms that no
  installed copy pays.
* **warm** — the same block again in the same process: the parsed tree is cached.
* **after an edit** — the text changed a little since the last resolution (a document being
  typed in): the tree is re-parsed incrementally.

Each result is checked against the file with the function replaced.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from typing import Any

from benchmarks.timing import sample, summary
from benchmarks.workloads import EXTENSIONS, LANGUAGES, Workload, generate

Log = Callable[[str], None]
_HEADER = {"python": "def", "typescript": "function", "go": "func"}
_COMMENT = {"python": "#", "typescript": "//", "go": "//"}
_FENCE = {"python": "python", "typescript": "ts", "go": "go"}


def available() -> str | None:
    """None when structural targets can be benchmarked, else why not."""
    try:
        from lsp_server.resolve import structure  # noqa: F401
    except ImportError as err:
        return f"lsp_server.resolve.structure is not importable: {err}"
    return None


def structural_case(w: Workload) -> tuple[str, str, str]:
    """(path, reply text, expected file) for a block that rewrites one loop function."""
    unit = [u for u in w.units if u.kind == 0][len([u for u in w.units if u.kind == 0]) * 2 // 3]
    lines = list(w.lines)
    end = unit.end
    while end > unit.start and not lines[end - 1].strip():
        end -= 1
    body = lines[unit.start : end]
    name = body[0].split("(")[0].split()[-1]
    new_body = body[:-1] + [_indent(body[-2]) + f"{_COMMENT[w.language]} patched", body[-1]]
    path = f"src/structural.{EXTENSIONS[w.language]}"
    mark = _COMMENT[w.language]
    reply = "\n".join(
        [
            f"```{_FENCE[w.language]}",
            f"{mark} FILE: {path}",
            f"{mark} TARGET_NODE: {_HEADER[w.language]} {name}",
            *new_body,
            "```",
            "",
        ]
    )
    expected = "".join(x + "\n" for x in lines[: unit.start] + new_body + lines[end:])
    return path, reply, expected


def _indent(line: str) -> str:
    return line[: len(line) - len(line.lstrip(" \t"))]


_CHILD = """
import json, sys, time
from lsp_server.reply import parse_reply
text, path, reply = json.load(sys.stdin)
block = parse_reply(reply).blocks[0]
t0 = time.perf_counter()
from lsp_server.resolve.structure import apply_structure
new = apply_structure(text, path, block.target, block.content, block.language).text
took = (time.perf_counter() - t0) * 1000.0
print(json.dumps({"ms": took, "text": new}))
"""


def _child_env() -> dict[str, str]:
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def _cold(text: str, path: str, reply: str) -> tuple[float, str]:
    done = subprocess.run(
        [sys.executable, "-c", _CHILD],
        input=json.dumps([text, path, reply]).encode(),
        capture_output=True,
        check=True,
        env=_child_env(),
    )
    out = json.loads(done.stdout)
    return out["ms"], out["text"]


def run(sizes: list[int], repeat: int, cold_runs: int, log: Log) -> list[dict[str, Any]]:
    from lsp_server.reply import parse_reply
    from lsp_server.resolve.structure import apply_structure

    rows = []
    for size in sizes:
        for lang in LANGUAGES:
            w = generate(lang, size)
            text = w.text
            path, reply, expected = structural_case(w)
            block = parse_reply(reply).blocks[0]
            if cold_runs:
                _cold(text, path, reply)  # untimed: writes the bytecode an install would have
            cold = [_cold(text, path, reply) for _ in range(cold_runs)]
            target, content, language = block.target, block.content, block.language
            assert target is not None
            new = apply_structure(text, path, target, content, language).text
            warm = sample(
                lambda: apply_structure(text, path, target, content, language),  # noqa: B023
                repeat,
            )
            edited = [text.replace("\n", "\n\n", 1), text]  # a blank line typed at the top
            flip = iter(range(10**9))

            def after_edit() -> None:
                apply_structure(edited[next(flip) % 2], path, target, content, language)  # noqa: B023

            incremental = sample(after_edit, repeat)
            correct = new == expected and all(t == expected for _, t in cold)
            row = {
                "language": lang,
                "lines": len(w.lines),
                "correct": correct,
                "cold": summary([ms for ms, _ in cold]) if cold else None,
                "warm": summary(warm),
                "after_edit": summary(incremental),
            }
            rows.append(row)
            cold_ms = row["cold"]["median_ms"] if row["cold"] else float("nan")
            log(
                f"structural {lang:10} {size:>6}  cold {cold_ms:8.1f} ms"
                f"  warm {row['warm']['median_ms']:7.2f} ms"
                f"  after edit {row['after_edit']['median_ms']:7.2f} ms  correct={correct}"
            )
    return rows
