"""Hostile content: huge, repetitive, malformed or pathological input ends in bounded time and
memory, with a correct result or a clear error — never a hang, a crash or a wrong byte.

Bounds are generous (`bounded` fails a run that takes minutes, the way a quadratic loop
does, not one that is merely slow on a busy machine); each test says what its input costs
when it goes wrong.
"""

from __future__ import annotations

import ast
import itertools
import json
import re
import time
from pathlib import Path

import pytest

from lsp_server import cli
from lsp_server.model import ErrorCode, MatchKind
from lsp_server.plan import plan_reply
from lsp_server.reply import MAX_REPLY_BYTES, parse_reply
from lsp_server.reply.search_replace import MAX_MALFORMED
from lsp_server.workspace import MAX_FILE_BYTES, DiskWorkspace

from .support import (
    REPO,
    apply_on_disk,
    bounded,
    plan_text,
    result_bytes,
    search_replace,
    tree,
)


def codes(plan) -> list:
    return [o.failure.code if o.failure else o.match for o in plan.outcomes]


# --- size ----------------------------------------------------------------------------------


def test_a_file_just_under_ten_megabytes_is_edited_exactly(tmp_path: Path):
    line = b"value_%06d = compute(%06d)  # padding to make the lines long enough\n"
    count = (MAX_FILE_BYTES - 4096) // len(line % (0, 0))
    data = b"".join(line % (i, i) for i in range(count))
    assert MAX_FILE_BYTES - 8192 < len(data) <= MAX_FILE_BYTES
    (tmp_path / "big.py").write_bytes(data)
    mid = count // 2
    old, new = (line % (mid, mid)).decode(), "value_changed = 0\n"
    plan = bounded(
        120,
        lambda: apply_on_disk(search_replace("big.py", old, new), tmp_path, check_syntax=False),
        "editing a 10 MB file",
        memory_mb=1500,
    )
    assert plan.ok
    assert (tmp_path / "big.py").read_bytes() == data.replace(old.encode(), new.encode())


def test_a_file_over_ten_megabytes_is_refused_before_it_is_read(tmp_path: Path):
    (tmp_path / "huge.txt").write_bytes(b"x\n" * (MAX_FILE_BYTES // 2 + 1))
    plan = bounded(
        10,
        lambda: apply_on_disk(search_replace("huge.txt", "x\n", "y\n"), tmp_path),
        "a file over the limit",
        memory_mb=50,
    )
    (outcome,) = plan.outcomes
    assert outcome.failure.code is ErrorCode.FILE_TOO_LARGE
    assert outcome.failure.details["limit"] == MAX_FILE_BYTES


def test_a_reply_at_the_limit_is_parsed_and_one_byte_more_is_refused(tmp_path: Path, capsys):
    (tmp_path / "a.py").write_text("x = 1\n")
    block = search_replace("a.py", "x = 1\n", "x = 2\n")
    prose = "Some words about the change, repeated to fill the reply.\n"
    filler = prose * ((MAX_REPLY_BYTES - len(block)) // len(prose))
    reply = block + filler + "#" * (MAX_REPLY_BYTES - len(block) - len(filler))
    assert len(reply.encode()) == MAX_REPLY_BYTES
    parsed = bounded(30, lambda: parse_reply(reply), "parsing a 1 MB reply", memory_mb=400)
    assert parsed.failure is None and len(parsed.blocks) == 1
    over = parse_reply(reply + "é")  # two bytes in UTF-8
    assert over.failure.code is ErrorCode.CONTENT_TOO_LARGE and over.blocks == ()
    # through the command line: refused as a whole, nothing written
    path = tmp_path / "reply.md"
    path.write_text(reply + "#")
    assert cli.run(["apply", str(path), "--root", str(tmp_path), "--json"]) == 1
    report = json.loads(capsys.readouterr().out)
    assert report["ok"] is False
    assert (tmp_path / "a.py").read_text() == "x = 1\n"


def test_ten_thousand_blocks(tmp_path: Path):
    n = 10_000
    files = {"many.py": "".join(f"v{i} = {i}\n" for i in range(n)).encode()}
    reply = "".join(search_replace("many.py", f"v{i} = {i}\n", f"v{i} = -{i}\n") for i in range(n))
    plan = bounded(
        180, lambda: plan_text(reply, files, check_syntax=False), "10,000 blocks", memory_mb=1500
    )
    assert plan.ok and len(plan.outcomes) == n
    expected = "".join(f"v{i} = -{i}\n" for i in range(n)).encode()
    assert result_bytes(plan, files)["many.py"] == expected


def test_ten_thousand_broken_blocks_are_reported_up_to_the_limit():
    """Each broken block is reported up to `MAX_MALFORMED`; the rest of the reply is one
    refusal saying why (a report of 10,000 failures helps nobody, and each costs time)."""
    reply = "a.py\n<<<<<<< SEARCH\nx\n" * 10_000  # never a divider: every block is broken
    parsed = bounded(60, lambda: parse_reply(reply), "10,000 broken blocks")
    assert len(parsed.blocks) == MAX_MALFORMED + 1
    assert {b.error.code for b in parsed.blocks} == {ErrorCode.MALFORMED_BLOCK}
    assert parsed.blocks[-1].error.details["malformed_blocks"] == MAX_MALFORMED


# --- repetition ------------------------------------------------------------------------------

N_SAME = 100_000


def test_a_block_of_a_hundred_thousand_identical_lines_matches_its_one_place():
    files = {"same.txt": b"head\n" + b"line\n" * N_SAME + b"tail\n"}
    reply = search_replace("same.txt", "line\n" * N_SAME, "replaced\n")
    plan = bounded(60, lambda: plan_text(reply, files), "100,000 identical lines")
    assert plan.ok
    assert result_bytes(plan, files)["same.txt"] == b"head\nreplaced\ntail\n"


@pytest.mark.parametrize(
    "file_line, block_line, code",
    [
        # 50,001 exact places: checking each one line by line would take hours
        ("line", "line", ErrorCode.TEXT_AMBIGUOUS),
        ("line  ", "line", ErrorCode.TEXT_AMBIGUOUS),  # trailing spaces
        ("  line", "line", ErrorCode.TEXT_AMBIGUOUS),  # indented
        ("ln a", "ln b", ErrorCode.TEXT_NOT_FOUND),  # only look-alikes
    ],
    ids=["exact", "whitespace", "indent", "fuzzy"],
)
def test_a_hundred_thousand_identical_lines_in_many_places_is_refused_quickly(
    file_line, block_line, code
):
    files = {"same.txt": (file_line + "\n").encode() * (N_SAME + N_SAME // 2)}
    reply = search_replace("same.txt", (block_line + "\n") * N_SAME, "replaced\n")
    plan = bounded(90, lambda: plan_text(reply, files), f"100,000 lines: {code}")
    assert codes(plan) == [code]
    assert plan.files == ()


def test_a_periodic_file_is_never_fuzzy_matched_at_one_of_its_equal_places():
    """Every window of `a b a b ...` is as good as the next: placing the block at one of
    them would be a guess (it used to, when only eight windows were looked at)."""
    files = {"ab.txt": b"a\nb\n" * 75_000}
    reply = search_replace("ab.txt", "a\nb\n" * 50_000 + "a\nc\n", "x\n")
    plan = bounded(60, lambda: plan_text(reply, files), "a periodic file")
    (outcome,) = plan.outcomes
    assert outcome.failure is not None
    assert outcome.failure.code in (ErrorCode.TEXT_AMBIGUOUS, ErrorCode.TEXT_NOT_FOUND)


def test_many_short_indented_candidates_stay_bounded():
    files = {"f.txt": b"  x\n" * 200_000}
    plan = bounded(
        60, lambda: plan_text(search_replace("f.txt", "x\nx\n", "y\n"), files), "indent rung"
    )
    assert codes(plan) == [ErrorCode.TEXT_AMBIGUOUS]


# --- long lines ------------------------------------------------------------------------------


def test_a_one_megabyte_line_in_the_file_is_kept_byte_for_byte():
    long_line = b"s = '" + b"a" * 1_000_000 + b"'\n"
    files = {"long.py": b"x = 1\n" + long_line + b"y = 2\n"}
    plan = bounded(
        30, lambda: plan_text(search_replace("long.py", "y = 2\n", "y = 3\n"), files), "1 MB line"
    )
    assert plan.ok
    assert result_bytes(plan, files)["long.py"] == b"x = 1\n" + long_line + b"y = 3\n"


def test_a_near_miss_of_a_one_megabyte_line_is_not_found_quickly():
    """Comparing two 1 MB lines character by character took minutes (fuzzy rung), and a
    self-overlapping needle made the exact search restart at every character."""
    files = {"long.txt": b"a" * 1_000_000 + b"\nb\n"}
    reply = search_replace("long.txt", "a" * 990_000 + "\n", "c\n")
    plan = bounded(30, lambda: plan_text(reply, files), "near-miss 1 MB line")
    assert codes(plan) == [ErrorCode.TEXT_NOT_FOUND]


def test_a_one_megabyte_reply_line_is_parsed_quickly():
    for line in ("-" * 999_000 + "!", " " * 999_000 + "x", "a.py" + " " * 999_000):
        bounded(30, lambda line=line: parse_reply(line + "\n<<<<<<< SEARCH\n"), "a long line")


# --- encodings and bytes -------------------------------------------------------------------


def test_invalid_utf8_file_is_refused_with_its_offset(tmp_path: Path):
    (tmp_path / "latin1.txt").write_bytes("café\n".encode("latin-1"))
    before = tree(tmp_path)
    plan = apply_on_disk(search_replace("latin1.txt", "café\n", "cafe\n"), tmp_path)
    (outcome,) = plan.outcomes
    assert outcome.failure.code is ErrorCode.BINARY_FILE
    assert outcome.failure.details["offset"] == 3
    assert tree(tmp_path) == before


@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-le-bom", "utf-16-be-bom", "utf-32"])
def test_utf16_and_utf32_files_are_refused_by_name(tmp_path: Path, encoding: str):
    """Decision: UTF-16/32 files are refused (BINARY_FILE, naming the encoding), not edited.
    The writer, the diff and the editor edits all speak UTF-8, and "convert it first" is
    better than a round trip that could change bytes."""
    text = "x = 'é'\n"
    data = {
        "utf-16": text.encode("utf-16"),
        "utf-16-le-bom": b"\xff\xfe" + text.encode("utf-16-le"),
        "utf-16-be-bom": b"\xfe\xff" + text.encode("utf-16-be"),
        "utf-32": text.encode("utf-32"),
    }[encoding]
    (tmp_path / "wide.py").write_bytes(data)
    plan = apply_on_disk(search_replace("wide.py", text, "x = 2\n"), tmp_path)
    failure = plan.outcomes[0].failure
    assert failure.code is ErrorCode.BINARY_FILE
    assert "UTF-" in failure.message and "convert" in failure.message
    assert (tmp_path / "wide.py").read_bytes() == data


def test_utf16_without_a_bom_is_refused_as_binary(tmp_path: Path):
    data = "x = 1\n".encode("utf-16-le")
    (tmp_path / "wide.py").write_bytes(data)
    plan = apply_on_disk(search_replace("wide.py", "x = 1\n", "x = 2\n"), tmp_path)
    assert codes(plan) == [ErrorCode.BINARY_FILE]
    assert (tmp_path / "wide.py").read_bytes() == data


def test_nul_bytes(tmp_path: Path):
    # in a file: binary, refused
    (tmp_path / "bin.dat").write_bytes(b"abc\x00def\n")
    assert codes(apply_on_disk(search_replace("bin.dat", "abc\n", "x\n"), tmp_path)) == [
        ErrorCode.BINARY_FILE
    ]
    # in a reply: only text; the parser neither crashes nor loses the block around it
    (tmp_path / "a.py").write_text("x = 1\n")
    plan = apply_on_disk(search_replace("a.py", "x = 1\n", "x = '\x00'\n"), tmp_path)
    assert plan.ok and (tmp_path / "a.py").read_bytes() == b"x = '\x00'\n"  # what was asked
    assert parse_reply("\x00" * 100_000).failure.code is ErrorCode.NO_EDIT_BLOCKS


@pytest.mark.parametrize(
    "call",
    [
        {"path": "a.py", "patches": [{"oldText": "x = 1", "newText": "x = \ud800"}]},
        {"path": "a.py", "patches": [{"oldText": "x = \udfff", "newText": "x = 2"}]},
        {"path": "a\ud800.py", "patches": [{"oldText": "x = 1", "newText": "x = 2"}]},
        {"command": "create", "path": "b.py", "file_text": "\udc80\n"},
        {"command": "str_replace", "path": "a.py", "old_str": "x = 1", "new_str": "\ud83d"},
    ],
    ids=["new-text", "old-text", "path", "create", "str-replace"],
)
def test_lone_surrogates_in_json_tool_calls_are_a_clear_error(tmp_path: Path, capsys, call):
    (tmp_path / "a.py").write_text("x = 1\n")
    before = tree(tmp_path)
    reply = "```json\n" + json.dumps(call) + "\n```\n"  # json.dumps writes \\ud800 escapes
    plan = apply_on_disk(reply, tmp_path)
    (outcome,) = plan.outcomes
    assert outcome.failure.code is ErrorCode.MALFORMED_BLOCK
    assert "surrogate" in outcome.failure.message
    assert tree(tmp_path) == before
    # the command line prints its report (it used to die encoding the surrogate)
    path = tmp_path / "reply.md"
    path.write_text(reply)
    for extra in ([], ["--json"]):
        assert cli.run(["apply", str(path), "--root", str(tmp_path), *extra]) == 1
        out = capsys.readouterr().out
        out.encode("utf-8")
        assert "surrogate" in out


@pytest.mark.parametrize("depth", [50, 100_000, 400_000])
def test_deeply_nested_json_is_bounded_and_never_recursion_error(depth):
    opened = "[" * depth
    wrapped = '{"arguments": ' * min(depth, 1000) + "{}" + "}" * min(depth, 1000)
    for reply in (
        opened,
        "```json\n" + opened + "\n```\n",
        "```json\n" + '{"patches": ' + opened + "\n```\n",
        ("[\n" * depth)[:900_000],
        wrapped,
        "```json\n" + wrapped + "\n```\n",
    ):
        parsed = bounded(30, lambda reply=reply: parse_reply(reply), f"nested JSON {depth}")
        assert all(b.error is not None for b in parsed.blocks)


def test_a_tool_call_wrapped_past_the_depth_limit_is_ignored_not_crashed():
    call = {"path": "a.py", "patches": [{"oldText": "x = 1", "newText": "x = 2"}]}
    value: object = call
    for _ in range(60):
        value = {"arguments": value}
    plan = plan_text("```json\n" + json.dumps(value) + "\n```\n", {"a.py": b"x = 1\n"})
    assert plan.failure is not None and plan.failure.code is ErrorCode.NO_EDIT_BLOCKS
    value = call
    for _ in range(3):
        value = {"function": {"arguments": json.dumps(value)}}
    plan = plan_text(json.dumps(value) + "\n", {"a.py": b"x = 1\n"})
    assert plan.ok and codes(plan) == [MatchKind.EXACT]


# --- pathological marker lines ---------------------------------------------------------------

N_LINE = 200_000  # one line of this many characters; a quadratic regex needs hours for it

PATHOLOGICAL = {
    "markers <": "<" * N_LINE,
    "markers < SEARCH": ("<" * 100 + " SEARCH\n") * 5000,
    "markers =": "=" * N_LINE,
    "marker with spaces": "<<<<<<<" + " " * N_LINE + "SEARCH",
    "dashes path": "-" * N_LINE + "!\n<<<<<<< SEARCH\n",
    "spaced path": "a" + " " * N_LINE + ".py\n<<<<<<< SEARCH\n",
    "diff header spaces": "--- a" + " " * N_LINE + "x\n+++ b\n@@ -1 +1 @@\n-a\n+b\n",
    "diff header tabs": "--- a\t" + "\t" * N_LINE + "x\n+++ b\n@@ -1 +1 @@\n-a\n+b\n",
    "diff timestamp-ish": "--- a"
    + " 2024-01-01" * (N_LINE // 11)
    + "\n+++ b\n@@ -1 +1 @@\n-a\n+b\n",
    "hunk header digits": "--- a\n+++ b\n@@ -" + "1" * N_LINE + " +1 @@\n-a\n+b\n",
    "hunk header spaces": "--- a\n+++ b\n@@ -1" + " " * N_LINE + "x\n",
    "git quoted": 'diff --git "' + "\\\\" * (N_LINE // 2) + "\n",
    "git b/ many": "diff --git " + " b/" * (N_LINE // 3) + "\n",
    "fence info": "```" + "a" * N_LINE + "\n",
    "fence title": "```py title=" + "'" * N_LINE + "\n",
    "fence many title=": "```py " + "title=" * (N_LINE // 6) + "\n",
    "backticks": "`" * N_LINE,
    "fences": "```\n" * (N_LINE // 4),
    "v4a stars": "*" * N_LINE,
    "v4a header-ish": "*** " + "A" * N_LINE + " File:",
    "v4a heredoc": "apply_patch " + " " * N_LINE + "<<EOF\n*** Begin Patch\n",
    "v4a anchor": "*** Begin Patch\n*** Update File: a\n@@ -" + "1" * N_LINE + "\n-x\n+y\n",
    "edit markers": "<<<< EDIT\n" * (N_LINE // 10),
    "target node": "```python\n# FILE: a.py\n# TARGET_NODE: function f" + " " * N_LINE + "x\n```\n",
    "target path": "```json\n// FILE: a.json\n// TARGET_PATH: " + "a." * (N_LINE // 2) + "\n```\n",
    "placeholders": "```python a.py\n" + "# ... " * (N_LINE // 6) + "\n```\n",
    "json key": '```json\n{"path": "' + "\\" * N_LINE + '"}\n```\n',
    "bare braces": "{\n" * (N_LINE // 2),
    "CR only": "\r" * N_LINE,
    "unicode breaks": "\u2028\u2029\x85\x0b\x0c" * (N_LINE // 5),
}


@pytest.mark.parametrize("name", sorted(PATHOLOGICAL))
def test_pathological_marker_lines_parse_in_bounded_time(name):
    text = PATHOLOGICAL[name]
    parsed = bounded(30, lambda: parse_reply(text), name)
    ws = {"a.py": b"def f():\n    return 1\n", "a.json": b'{"a": 1}\n'}
    from .support import MemoryWorkspace

    bounded(30, lambda: plan_reply(parsed, MemoryWorkspace(ws)), f"planning {name}")


def test_a_structure_target_with_a_long_run_of_spaces_is_linear():
    call = {
        "operation": "replace_structure",
        "path": "a.py",
        "target": "function f" + " " * 500_000 + "x",
        "content": "def f():\n    return 2\n",
    }
    reply = "```json\n" + json.dumps(call) + "\n```\n"
    bounded(30, lambda: plan_text(reply, {"a.py": b"def f():\n    return 1\n"}), "level split")


@pytest.mark.parametrize(
    "target",
    ["a[" + "9" * 5000 + "]", "a." + "9" * 5000, "a.²", "a[" + "1" * 19 + "]", "k" * 2000],
    ids=["huge-index", "huge-key-index", "superscript-digit", "19-digit-index", "long-key"],
)
def test_a_long_or_odd_target_path_is_a_structural_error_never_file_content(target):
    """A header line over 1,000 characters used to be no header at all: the block fell to the
    whole-file finder, which wrote `// TARGET_PATH: ...` into the file."""
    files = {"a.json": b'{"a": [1, 2]}\n'}
    reply = f"```json\n// FILE: a.json\n// TARGET_PATH: {target}\n5\n```\n"
    plan = bounded(30, lambda: plan_text(reply, files), "odd target path")
    (outcome,) = plan.outcomes
    assert outcome.block.format.value == "structural"
    if outcome.failure is None:  # a new key named like that: a correct structural edit
        assert b"TARGET_PATH" not in result_bytes(plan, files)["a.json"]
    else:
        assert outcome.failure.code in (ErrorCode.MALFORMED_BLOCK, ErrorCode.TARGET_NOT_FOUND)


# --- every regex the reply parsers use is linear --------------------------------------------

# Patterns that are quadratic on their own but only ever see a bounded slice of a line.
BOUNDED_USE = {
    r"\s+\d{4}-\d\d-\d\d[ T]\d\d:\d\d(?::\d\d(?:\.\d+)?)?(?:\s*(?:[+-]\d{4}|Z))?$": "tail",
    r"\s+\w{3} \w{3} [ \d]\d \d\d:\d\d:\d\d \d{4}$": "tail",
    r"\s+\((?:revision \d+|working copy|nonexistent)\)$": "tail",
}


def _reply_patterns() -> list[tuple[str, int, str]]:
    out = []
    for path in sorted((REPO / "lsp_server" / "reply").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and isinstance(node.func.value, ast.Name)
                and node.func.value.id == "re"
                and node.args
                and isinstance(node.args[0], ast.Constant)
                and isinstance(node.args[0].value, str)
            ):
                out.append((path.name, node.lineno, node.args[0].value))
    return out


def test_every_regex_in_the_reply_parsers_is_linear_on_adversarial_input():
    """Each pattern meets runs of its own literal characters (and pairs of them) that fail
    at the end: the inputs that make a backtracking regex quadratic or worse. A linear
    pattern takes microseconds on 5,000 characters; a quadratic one about a second."""
    patterns = _reply_patterns()
    assert len(patterns) > 20  # the scan found the parsers' patterns
    n = 5000
    slow = []
    for name, line, source in patterns:
        if source in BOUNDED_USE:
            continue
        rx = re.compile(source)
        chars = sorted({c for c in source if c.isprintable()} | set(" \t-:.*#@`<>=~\"'/\\a1"))
        inputs = [c * n + tail for c in chars for tail in ("", "!", "\n", "\x00")]
        inputs += [(a + b) * (n // 2) + "!" for a, b in itertools.combinations(chars, 2)]
        worst = 0.0
        for text in inputs:
            started = time.process_time()
            rx.search(text)
            rx.match(text)
            worst = max(worst, time.process_time() - started)
        if worst > 0.25:
            slow.append(f"{name}:{line} {source!r} ({worst:.2f}s)")
    assert not slow, "super-linear regexes on reply text:\n" + "\n".join(slow)


def test_the_bounded_patterns_really_are_applied_to_a_bounded_slice():
    header = "--- a" + " " * 300_000 + "x 2024-01-02 10:11:12\n+++ b\n@@ -1 +1 @@\n-a\n+b\n"
    parsed = bounded(20, lambda: parse_reply(header), "diff timestamps")
    assert parsed.blocks and parsed.blocks[0].path == "b"
    stamped = "--- a/x.py\t2024-01-02 10:11:12\n+++ b/x.py 2024-01-02 10:11:12.5 +0100\n"
    parsed = parse_reply(stamped + "@@ -1 +1 @@\n-a\n+b\n")
    assert parsed.blocks[0].path == "x.py"


def test_disk_workspace_sees_the_same_as_memory(tmp_path: Path):
    """The fast in-memory workspace used by the properties agrees with the disk."""
    files = {"a.py": b"\xef\xbb\xbfx = 1\r\n", "b.txt": b"no newline"}
    for name, data in files.items():
        (tmp_path / name).write_bytes(data)
    reply = search_replace("a.py", "x = 1\n", "x = 2\ny = 3\n") + search_replace(
        "b.txt", "no newline\n", "still none\n"
    )
    disk = plan_reply(parse_reply(reply), DiskWorkspace(tmp_path))
    memory = plan_text(reply, files)
    assert [c.new_text for c in disk.files] == [c.new_text for c in memory.files]
    assert result_bytes(memory, files) == {
        "a.py": b"\xef\xbb\xbfx = 2\r\ny = 3\r\n",
        "b.txt": b"still none",
    }
