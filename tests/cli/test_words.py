"""What the terminal says about a run (issue 25, "Say what happened"): the words and the
exit codes a newcomer reads."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from lsp_server.cli.output import use_color
from tests.cli.support import REPO, git_repo, llm_patch, put, sr

RED, GREEN, YELLOW = "\033[31m", "\033[32m", "\033[33m"

# block 1 does not match the file (pricing.py line 9 reads f"${cents / 100:.2f}"), block 2 does
ONE_FAILS = sr(
    "shop/pricing.py",
    "def format_price(cents: int) -> str:\n    return f'{cents}'\n",
    "X\n",
) + sr(
    "shop/cart.py",
    "    def remove(self, name: str) -> None:\n",
    "    def drop(self, name: str) -> None:\n",
)


@pytest.fixture
def shop(tmp_path: Path) -> Path:
    dest = tmp_path / "shop"
    shutil.copytree(REPO / "examples" / "shop", dest)
    return git_repo(dest)


def test_a_failed_apply_says_nothing_was_written_and_how_to_write_the_rest(shop):
    before = (shop / "shop" / "cart.py").read_bytes()
    r = llm_patch("apply", "-", cwd=shop, stdin=ONE_FAILS)
    assert r.returncode == 1
    last = r.stdout.rstrip().splitlines()[-1]
    assert last == (
        "✗ 1 of 2 blocks failed: nothing was written; "
        "to write the 1 that placed, rerun with --partial"
    )
    assert "· block 2 shop/cart.py (exact) placed, not written: another block failed" in r.stdout
    assert (shop / "shop" / "cart.py").read_bytes() == before

    r = llm_patch("apply", "-", "--partial", cwd=shop, stdin=ONE_FAILS)
    assert r.returncode == 1
    assert r.stdout.rstrip().endswith(
        "the 1 that placed was written (1 file changed); `llm-patch undo` puts it back"
    )
    assert "def drop" in (shop / "shop" / "cart.py").read_text()


def test_a_check_says_what_apply_partial_would_write(shop):
    r = llm_patch("check", "-", cwd=shop, stdin=ONE_FAILS)
    assert r.returncode == 1
    assert r.stdout.rstrip().endswith(
        "✗ 1 of 2 blocks failed: nothing written (dry run); "
        "`apply --partial` would write the 1 that placed"
    )


def test_blocks_count_from_1_and_the_failure_line_says_its_header_once(shop):
    r = llm_patch("check", "-", cwd=shop, stdin=ONE_FAILS)
    lines = r.stdout.splitlines()
    head = lines.index("✗ block 1 shop/pricing.py (reply lines 1-9): TEXT_NOT_FOUND")
    # the reason follows without "block 0 (reply lines 1-9), shop/pricing.py:" again
    assert (
        lines[head + 1] == "    the text was not found; closest match at line 8 (similarity 83%):"
    )
    assert "block 0" not in r.stdout


def test_the_closest_match_diff_is_labelled_numbered_and_reads_file_to_reply(shop):
    r = llm_patch("check", "-", cwd=shop, stdin=ONE_FAILS)
    out = r.stdout.splitlines()
    at = out.index("    --- shop/pricing.py lines 8-9 (what the file has)")
    assert out[at + 1] == "    +++ block 1, reply lines 1-9 (what the block expected)"
    assert out[at + 2].startswith("    @@ -8,2 ")  # the file's own line numbers
    assert '    -    return f"${cents / 100:.2f}"' in out  # `-`: the file's line
    assert "    +    return f'{cents}'" in out  # `+`: the reply's


def test_the_closest_match_diff_is_coloured(shop):
    r = llm_patch("check", "-", "--color", "always", cwd=shop, stdin=ONE_FAILS)
    assert f'{RED}-    return f"${{cents / 100:.2f}}"' in r.stdout
    assert f"{GREEN}+    return f'{{cents}}'" in r.stdout


def test_a_close_match_above_the_threshold_says_why_it_was_refused(shop):
    r = llm_patch("check", "-", cwd=shop, stdin=ONE_FAILS)
    why = next(line for line in r.stdout.splitlines() if "why not placed" in line)
    assert "83% alike, above the 80% threshold" in why
    assert "1 of its 2 lines is rewritten" in why
    # under the threshold, the similarity says it all: no such line
    r = llm_patch("check", "-", "--fuzzy-threshold", "0.9", cwd=shop, stdin=ONE_FAILS)
    assert "why not placed" not in r.stdout
    r = llm_patch("check", "-", "--fuzzy-threshold", "0.805", cwd=shop, stdin=ONE_FAILS)
    assert "83% alike, above the 80.5% threshold" in r.stdout  # as given, not floored
    report = json.loads(llm_patch("check", "-", "--json", cwd=shop, stdin=ONE_FAILS).stdout)
    assert "rewritten" in report["blocks"][0]["why_not_fuzzy"]


REAPPLIED = (
    "*** Begin Patch\n*** Add File: new.py\n+x = 1\n*** End Patch\n\n"
    "```python\n# FILE: a.py\n# TARGET_NODE: f\ndef f():\n    return 2\n```\n\n"
    "<write_to_file>\n<path>w.txt</path>\n<content>\nhello\n</content>\n</write_to_file>\n\n"
    + sr("b.py", "B = 1\n", "B = 2\n")
    + "\nIn `c.py`, change the constant:\n\n```diff\n-C = 1\n+C = 3\n```\n\n"
    "*** Begin Patch\n*** Delete File: gone.py\n*** End Patch\n"
)
REAPPLIED_PATHS = ("new.py", "a.py", "w.txt", "b.py", "c.py", "gone.py")


def test_a_reply_applied_again_says_already_applied(tmp_path):
    """Every kind of block, applied a second time, says so: an Add File, a structural
    block, a write_to_file, a SEARCH/REPLACE, a headerless diff whose file the prose names
    (its old lines are gone now: the named file holding its new lines is that file) and a
    Delete File."""
    put(tmp_path, {"a.py": "def f():\n    return 1\n", "b.py": "B = 1\n", "c.py": "C = 1\n"})
    put(tmp_path, {"gone.py": "G = 1\n"})
    first = llm_patch("apply", "-", cwd=tmp_path, stdin=REAPPLIED)
    assert first.returncode == 0, first.stdout + first.stderr
    again = llm_patch("apply", "-", cwd=tmp_path, stdin=REAPPLIED)
    assert again.returncode == 0, again.stdout
    for n, path in enumerate(REAPPLIED_PATHS, 1):
        assert f"✓ block {n} {path}: already applied" in again.stdout
    assert "gone.py: already applied (the file is already gone" in again.stdout
    assert "(overwrite)" not in again.stdout and "validated" not in again.stdout
    assert again.stdout.rstrip().endswith("✓ nothing to change: 6 blocks already applied")
    report = json.loads(llm_patch("check", "-", "--json", cwd=tmp_path, stdin=REAPPLIED).stdout)
    assert [b.get("already_applied") for b in report["blocks"]] == [True] * 6
    assert report["summary"] == "nothing to change: 6 edits already applied."


def test_a_headerless_diff_is_not_taken_as_applied_on_blank_lines_alone(tmp_path):
    """The named file holding a diff's new side is evidence only when that side says
    something: a diff that adds blank lines finds them in any file."""
    put(tmp_path, {"c.py": "C = 1\n\nD = 2\n"})
    reply = "In `c.py`:\n\n```diff\n-X = 9\n+\n```\n"
    r = llm_patch("apply", "-", cwd=tmp_path, stdin=reply)
    assert r.returncode == 1
    assert "TARGET_NOT_FOUND" in r.stdout and "already applied" not in r.stdout


@pytest.mark.parametrize("reply", ["", "\n\n  \n"])
def test_an_empty_reply_says_so(tmp_path, reply):
    r = llm_patch("apply", "-", cwd=tmp_path, stdin=reply)
    assert r.returncode == 1
    assert "the reply (stdin) is empty" in r.stdout
    assert r.stdout.rstrip().endswith("✗ the reply is empty: nothing was written")
    assert "0 of 0" not in r.stdout


def test_a_reply_without_edit_blocks_exits_1_and_says_so(tmp_path):
    r = llm_patch("apply", "-", cwd=tmp_path, stdin="Just prose.\n")
    assert r.returncode == 1
    assert r.stdout.rstrip().endswith("✗ no edit blocks in the reply: nothing was written")


def test_no_color_and_the_color_option(monkeypatch):
    class Terminal:
        def isatty(self) -> bool:
            return True

    monkeypatch.delenv("NO_COLOR", raising=False)
    assert use_color("auto", Terminal())
    monkeypatch.setenv("NO_COLOR", "1")
    assert not use_color("auto", Terminal())
    assert use_color("always", Terminal())  # asked for: NO_COLOR yields to the option
    monkeypatch.setenv("NO_COLOR", "")  # empty: as if unset (no-color.org)
    assert use_color("auto", Terminal())
    assert not use_color("never", Terminal())


def test_never_colours_and_no_color_is_honoured_end_to_end(shop):
    r = llm_patch("check", "-", "--color", "never", cwd=shop, stdin=ONE_FAILS)
    assert "\033[" not in r.stdout
    r = llm_patch("check", "-", "--color", "bogus", cwd=shop, stdin=ONE_FAILS)
    assert r.returncode == 2


def test_a_fuzzy_match_warning_is_coloured_as_a_warning(tmp_path):
    body = "".join(f"value_{i} = compute({i}, 'abc')\n" for i in range(12))
    put(tmp_path, {"f.py": body})
    old = body.replace("compute(5, 'abc')", "compute(5, 'abd')")
    r = llm_patch(
        "check", "-", "--color", "always", cwd=tmp_path, stdin=sr("f.py", old, "done = True\n")
    )
    assert r.returncode == 0, r.stdout
    assert f"{YELLOW}! FUZZY_MATCH: block 1 matched f.py approximately" in r.stdout


def test_a_failure_a_looser_threshold_would_place_names_that_threshold(tmp_path):
    body = (
        "def price(cents):\n    total = cents * 2\n    tax = total // 10\n    return total + tax\n"
    )
    put(tmp_path, {"p.py": body})
    reply = sr("p.py", body.replace("* 2", "* 3"), "X = 1\n")
    r = llm_patch("check", "-", "--fuzzy-threshold", "0.99", cwd=tmp_path, stdin=reply)
    assert r.returncode == 1
    line = next(x for x in r.stdout.splitlines() if "to take that region anyway" in x)
    threshold = line.split("--fuzzy-threshold ")[1].split()[0]
    # what it says is so: at that threshold the block places
    again = llm_patch("check", "-", "--fuzzy-threshold", threshold, cwd=tmp_path, stdin=reply)
    assert again.returncode == 0, again.stdout
    assert "✓ block 1 p.py (fuzzy 98%) validated" in again.stdout


def test_already_applied_is_not_claimed_for_a_block_held_back(tmp_path):
    """With another block failing nothing is planned to be written, so a whole-file block's
    missing change proves nothing: it is held back (`skipped`), not "already applied"."""
    put(tmp_path, {"new.py": "x = 1\n", "a.py": "a = 1\n"})
    reply = "*** Begin Patch\n*** Add File: new.py\n+x = 2\n*** End Patch\n" + sr(
        "a.py", "nope\n", "b\n"
    )
    report = json.loads(llm_patch("check", "-", "--json", cwd=tmp_path, stdin=reply).stdout)
    assert report["blocks"][0]["status"] == "skipped"
    assert "already_applied" not in report["blocks"][0]


def test_a_write_that_fails_says_the_placed_blocks_were_not_written(tmp_path):
    put(tmp_path, {"ro.py": "q = 1\n"})
    (tmp_path / "ro.py").chmod(0o444)
    r = llm_patch("apply", "-", cwd=tmp_path, stdin=sr("ro.py", "q = 1\n", "q = 2\n"))
    assert r.returncode == 1
    assert "· block 1 ro.py (exact) placed, not written: the write failed" in r.stdout
    assert "✗ PERMISSION_DENIED: ro.py is not writable for you" in r.stdout
    assert r.stdout.rstrip().endswith("✗ 1 block placed, but nothing was written")
    assert (tmp_path / "ro.py").read_text() == "q = 1\n"
