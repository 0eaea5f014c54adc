"""A long report is summarised (issue 26): a reply of thousands of blocks that miss prints a
page, not megabytes. Beyond `LIST_ALL` blocks the terminal lists the first failures in full
and counts every block by reason and file; nothing is left out without a line saying how
many and how to see them (`--all`, `--json`), and `--json` always holds every block."""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from lsp_server.terminal import GROUPS, LIST_ALL, SHOWN, Context, render_human
from tests.cli.support import llm_patch, put

CODES = ("TEXT_NOT_FOUND", "TEXT_AMBIGUOUS", "FILE_NOT_FOUND", "CONTENT_TOO_LARGE")
LISTED = re.compile(r"^[✓✗·] block (\d+) ", re.M)
GROUP = re.compile(r"^ {4} *([\d,]+)  (.+?) +(\S+)  \(blocks? ([\d, …]+)\)$")
REST = re.compile(r"^ {4} *([\d,]+)  in ([\d,]+) more groups$")


@st.composite
def reports(draw):
    n = draw(st.integers(0, 150))
    paths = [f"src/f{k}.py" for k in range(draw(st.integers(1, 4)))]
    blocks = []
    for i in range(n):
        failed = draw(st.booleans())
        path = draw(st.sampled_from(paths))
        lo = i * 6 + 1
        b = {
            "index": i,
            "format": "search-replace",
            "path": path,
            "status": "failed" if failed else draw(st.sampled_from(["validated", "skipped"])),
            "match": None if failed else draw(st.sampled_from(["exact", "fuzzy"])),
            "reply_lines": [lo, lo + 5],
        }
        if failed:
            b["error"] = {
                "code": draw(st.sampled_from(CODES)),
                "message": f"block {i} (reply lines {lo}-{lo + 5}), {path}: not here",
            }
        blocks.append(b)
    warnings = [
        {"type": draw(st.sampled_from(["FUZZY_MATCH", "SYNTAX_BROKEN"])), "message": f"w{k}"}
        for k in range(draw(st.integers(0, 2 * LIST_ALL)))
    ]
    ok = bool(blocks) and all("error" not in b for b in blocks)
    return {"ok": ok, "blocks": blocks, "files": [], "warnings": warnings}


def sections(text: str) -> dict[str, list[tuple[int, str, str, list[int]]]]:
    """The summary's group lines under their heading: (count, what, file, block numbers);
    the line counting the groups not named is (count, "", "", [number of groups])."""
    out: dict[str, list[tuple[int, str, str, list[int]]]] = {}
    heading = None
    for line in text.splitlines():
        if line.startswith("  failed, by reason"):
            heading = "failed"
        elif line.startswith("  not failed, by outcome"):
            heading = "other"
        elif heading and (m := REST.match(line)):
            count, groups = (int(x.replace(",", "")) for x in m.groups())
            out.setdefault(heading, []).append((count, "", "", [groups]))
        elif heading and (m := GROUP.match(line)):
            numbers = [int(x) for x in m.group(4).replace("…", "").split(",") if x.strip()]
            out.setdefault(heading, []).append(
                (int(m.group(1).replace(",", "")), m.group(2), m.group(3), numbers)
            )
        elif not line.startswith("    "):
            heading = None
    return out


def check_groups(rows, expected: Counter, members) -> None:
    """The summary's groups against an independent count: the largest `GROUPS` named with
    their size and first blocks, the rest counted on one line."""
    named = [(c, w, f, ns) for c, w, f, ns in rows if w]
    rest = [(c, ns[0]) for c, w, _, ns in rows if not w]
    assert len(named) == min(len(expected), GROUPS)
    for count, what, where, numbers in named:
        assert expected[(what, where)] == count
        assert numbers == members(what, where)[:5]
    smallest_named = min((c for c, *_ in named), default=0)
    unnamed = {
        k: v for k, v in expected.items() if (v, *k) not in {(c, w, f) for c, w, f, _ in named}
    }
    assert all(v <= smallest_named for v in unnamed.values())
    assert rest == ([(sum(unnamed.values()), len(unnamed))] if unnamed else [])


@settings(max_examples=150, deadline=None)
@given(reports(), st.booleans())
def test_a_long_report_lists_some_blocks_and_counts_every_one(report, dry):
    text = render_human(report, color=False, context=Context(dry=dry))
    blocks = report["blocks"]
    failed = [b for b in blocks if "error" in b]
    others = [b for b in blocks if "error" not in b]
    listed = [int(n) for n in LISTED.findall(text)]
    assert listed == sorted(listed) and len(set(listed)) == len(listed)
    if len(blocks) <= LIST_ALL:
        assert listed == [b["index"] + 1 for b in blocks]
        assert "not listed above" not in text
    else:
        by_number = {b["index"] + 1: b for b in blocks}
        assert sum("error" in by_number[n] for n in listed) == min(len(failed), SHOWN)
        assert sum("error" not in by_number[n] for n in listed) == min(len(others), SHOWN)
        # the first failure of each reason and file is among those shown in full
        kinds = {(b["error"]["code"], b["path"]) for b in failed}
        shown = {
            (by_number[n]["error"]["code"], by_number[n]["path"])
            for n in listed
            if "error" in by_number[n]
        }
        assert len(shown) == min(len(kinds), SHOWN)
        hidden = len(blocks) - len(listed)
        assert hidden > 0
        (note,) = [line for line in text.splitlines() if "not listed above" in line]
        assert f"({len(listed):,} of {len(blocks):,} blocks listed)" in note
        assert "--all" in note and "--json" in note
        groups = sections(text)
        # an independent count of the report: each group's size, name, file and first blocks
        expected = Counter((b["error"]["code"], b["path"]) for b in failed)
        check_groups(
            groups.get("failed", []),
            expected,
            lambda what, where: [
                b["index"] + 1 for b in failed if (b["error"]["code"], b["path"]) == (what, where)
            ],
        )
        assert sum(c for c, *_ in groups.get("other", [])) == len(others)
    # the warnings: every one listed, or the first ones and a count of the rest by type
    warnings = report["warnings"]
    listed_w = re.findall(r"^! (FUZZY_MATCH|SYNTAX_BROKEN): ", text, re.M)
    if len(warnings) <= LIST_ALL:
        assert len(listed_w) == len(warnings)
    else:
        assert len(listed_w) == SHOWN
        assert f"! … {len(warnings) - SHOWN:,} more warnings not listed" in text
    # a page, whatever the number of blocks
    assert len(text.splitlines()) <= 3 * SHOWN + 2 * LIST_ALL + 40


@settings(max_examples=40, deadline=None)
@given(reports())
def test_all_lists_every_block_and_warning(report):
    text = render_human(report, color=False, context=Context(every=True))
    assert [int(n) for n in LISTED.findall(text)] == [b["index"] + 1 for b in report["blocks"]]
    assert "not listed" not in text
    assert len(re.findall(r"^! ", text, re.M)) == len(report["warnings"])


def misses(n: int) -> str:
    """A reply of `n` blocks whose SEARCH text none of three files has."""
    return "".join(
        f"{'abc'[i % 3]}.py\n<<<<<<< SEARCH\ndef gone_{i}(a):\n    return {i}\n=======\n"
        f"x = 1\n>>>>>>> REPLACE\n"
        for i in range(n)
    )


def test_a_refusal_of_thousands_of_blocks_prints_a_page_and_json_keeps_all(tmp_path: Path):
    n = 3000
    code = "".join(f"def kept_{j}(a):\n    return a + {j}\n\n" for j in range(40))
    put(tmp_path, {"a.py": code, "b.py": code, "c.py": code, "reply.md": misses(n)})
    human = llm_patch("apply", "reply.md", "--root", ".", "--color", "never", cwd=tmp_path)
    assert human.returncode == 1, human.stderr
    assert len(human.stdout) < 20_000  # a page, where listing every block took megabytes
    whole = llm_patch("apply", "reply.md", "--root", ".", "--json", cwd=tmp_path)
    report = json.loads(whole.stdout)
    assert len(report["blocks"]) == n
    failed = Counter((b["error"]["code"], b["path"]) for b in report["blocks"] if "error" in b)
    assert {(w, f): c for c, w, f, _ in sections(human.stdout)["failed"]} == dict(failed)
    assert f"{sum(failed.values())} of {n} blocks failed: nothing was written" in human.stdout
    # the closest match of a block shown in full is drawn, as for a short reply
    assert "(what the block expected)" in human.stdout
    every = llm_patch("apply", "reply.md", "--root", ".", "--all", "--color", "never", cwd=tmp_path)
    assert [int(x) for x in LISTED.findall(every.stdout)] == list(range(1, n + 1))
    assert (tmp_path / "a.py").read_text() == code  # refused: nothing written
