"""The CLI contract: exit codes, JSON report, human output, writes."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from lsp_server.cli import run

REPO = Path(__file__).resolve().parents[1]


def cli(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "lsp_server.cli", *args],
        input=stdin,
        capture_output=True,
        text=True,
        cwd=REPO,
    )


@pytest.fixture
def shop(tmp_path: Path) -> Path:
    dest = tmp_path / "shop"
    shutil.copytree(REPO / "examples" / "shop", dest)
    return dest


def test_example_reply_checks_and_applies(shop):
    reply = str(REPO / "examples" / "reply.md")
    before = (shop / "shop" / "cart.py").read_text()
    r = cli("check", "--root", str(shop), reply, "--json")
    assert r.returncode == 0, r.stdout + r.stderr
    report = json.loads(r.stdout)
    assert report["ok"] and [b["status"] for b in report["blocks"]] == ["validated"] * 3
    assert [b["match"] for b in report["blocks"]] == ["indent", "exact", "create"]
    assert (shop / "shop" / "cart.py").read_text() == before  # check writes nothing
    assert not (shop / "CHANGES.md").exists()

    r = cli("apply", "--root", str(shop), reply)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "✓ 3 of 3 blocks applied, 3 files changed" in r.stdout
    cart = (shop / "shop" / "cart.py").read_text()
    assert "        if item.quantity <= 0:\n" in cart  # re-indented into the class
    assert (shop / "CHANGES.md").read_text().startswith("# Changes\n")


def test_failure_exit_1_nothing_written_and_message(shop):
    reply = (
        "shop/pricing.py\n```\n<<<<<<< SEARCH\ndef format_price(cents: int) -> str:\n"
        "    return f'{cents}'\n=======\nX\n>>>>>>> REPLACE\n```\n"
        "shop/cart.py\n```\n<<<<<<< SEARCH\n    def remove(self, name: str) -> None:\n"
        "=======\n    def drop(self, name: str) -> None:\n>>>>>>> REPLACE\n```\n"
    )
    before = {p: p.read_bytes() for p in shop.rglob("*.py")}
    r = cli("apply", "--root", str(shop), "-", "--json", stdin=reply)
    assert r.returncode == 1
    report = json.loads(r.stdout)
    assert [b["status"] for b in report["blocks"]] == ["failed", "skipped"]
    err = report["blocks"][0]["error"]
    assert err["code"] == "TEXT_NOT_FOUND"
    assert "block 0 (reply lines 1-9), shop/pricing.py" in err["message"]
    assert err["details"]["closest"]["line"] == 8
    assert report["files"] == []
    assert {p: p.read_bytes() for p in shop.rglob("*.py")} == before

    r = cli("apply", "--root", str(shop), "-", "--partial", "--json", stdin=reply)
    assert r.returncode == 1
    assert json.loads(r.stdout)["blocks"][1]["status"] == "applied"
    assert "def drop" in (shop / "shop" / "cart.py").read_text()


def test_usage_errors_exit_2(tmp_path):
    assert run(["apply"]) == 2
    assert run(["apply", str(tmp_path / "missing.md"), "--root", str(tmp_path)]) == 2
    assert run(["apply", "x.md", "--root", str(tmp_path / "nope")]) == 2


def test_no_edit_blocks(tmp_path):
    r = cli("check", "--root", str(tmp_path), "-", "--json", stdin="Just prose, no code.\n")
    assert r.returncode == 1
    assert json.loads(r.stdout)["error"]["code"] == "NO_EDIT_BLOCKS"


def test_human_output_lists_blocks_and_diff(shop):
    r = cli("check", "--root", str(shop), str(REPO / "examples" / "reply.md"))
    assert "✓ block 1 shop/cart.py (indent) validated" in r.stdout  # counted from 1
    assert "+++ b/CHANGES.md" in r.stdout
    assert "\033[" not in r.stdout  # not a terminal: no colour


# --- replies that are not UTF-8 text: refused, never read with replacement characters -------

LATIN1_REPLY = (
    "a.py\n```\n<<<<<<< SEARCH\nx = 'caf\xe9'\n=======\nx = 'bar'\n>>>>>>> REPLACE\n```\n"
)
BAD_BYTE = LATIN1_REPLY.encode("latin-1").index(b"\xe9")


def cli_bytes(*args: str, stdin: bytes) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-m", "lsp_server.cli", *args],
        input=stdin,
        capture_output=True,
        cwd=REPO,
    )


@pytest.fixture
def latin1(tmp_path: Path) -> Path:
    """A workspace whose file and reply are both Latin-1: read leniently, the reply's é would
    become U+FFFD, and a fuzzy match could write that into the file."""
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "a.py").write_text("x = 'caf\ufffd'\n", encoding="utf-8")
    (tmp_path / "reply.md").write_bytes(LATIN1_REPLY.encode("latin-1"))
    return ws


@pytest.mark.parametrize("command", ["apply", "check"])
def test_a_reply_that_is_not_utf8_is_refused_with_exit_2(latin1: Path, command: str):
    reply = latin1.parent / "reply.md"
    before = (latin1 / "a.py").read_bytes()
    r = cli(command, "--root", str(latin1), str(reply))
    assert r.returncode == 2, r.stdout + r.stderr
    assert f"{reply} is not UTF-8 text" in r.stderr
    assert f"offset {BAD_BYTE}" in r.stderr  # where the first bad byte is
    assert r.stdout == ""
    assert (latin1 / "a.py").read_bytes() == before
    assert sorted(p.name for p in latin1.iterdir()) == ["a.py"]


def test_a_reply_that_is_not_utf8_gets_the_json_error_shape(latin1: Path):
    reply = latin1.parent / "reply.md"
    before = (latin1 / "a.py").read_bytes()
    r = cli("apply", "--root", str(latin1), str(reply), "--json")
    assert r.returncode == 2, r.stdout + r.stderr
    report = json.loads(r.stdout)
    assert report["ok"] is False
    assert report["blocks"] == [] and report["files"] == []
    assert report["error"]["code"] == "BINARY_FILE"
    assert report["error"]["message"].startswith(f"{reply} is not UTF-8 text")
    assert report["error"]["details"] == {"path": str(reply), "offset": BAD_BYTE}
    assert "not UTF-8 text" in r.stderr
    assert (latin1 / "a.py").read_bytes() == before


def test_a_reply_on_stdin_that_is_not_utf8_is_refused(latin1: Path):
    before = (latin1 / "a.py").read_bytes()
    r = cli_bytes("apply", "--root", str(latin1), "-", stdin=LATIN1_REPLY.encode("latin-1"))
    assert r.returncode == 2
    assert b"stdin is not UTF-8 text" in r.stderr
    r = cli_bytes(
        "apply", "--root", str(latin1), "-", "--json", stdin=LATIN1_REPLY.encode("latin-1")
    )
    assert r.returncode == 2
    assert json.loads(r.stdout)["error"]["details"]["path"] == "stdin"
    assert (latin1 / "a.py").read_bytes() == before
    # the same reply in UTF-8 is read and placed (fuzzily: é is not U+FFFD)
    r = cli_bytes("check", "--root", str(latin1), "-", stdin=LATIN1_REPLY.encode("utf-8"))
    assert r.returncode == 0, r.stderr
    assert b"1 of 1 block can be placed" in r.stdout


def test_a_utf16_reply_is_named_as_such(tmp_path: Path):
    reply = tmp_path / "reply.md"
    reply.write_bytes(LATIN1_REPLY.encode("utf-16"))  # with its byte-order mark
    r = cli("check", "--root", str(tmp_path), str(reply), "--json")
    assert r.returncode == 2
    error = json.loads(r.stdout)["error"]
    assert error["code"] == "BINARY_FILE"
    assert "UTF-16-LE byte-order mark" in error["message"]
    assert error["details"]["encoding"] == "utf-16-le"


# --- chat-window snippets: `--file` names the file a pathless snippet applies to --------------

SNIPPET_REPLY = (
    "Here's `describe` with the name in it:\n\n"
    "```python\nclass Shape:\n    # ... existing code ...\n\n    def describe(self):\n"
    '        return f"Shape {self.name}"\n```\n'
)
SHAPES = (
    "class Shape:\n    def __init__(self, name):\n        self.name = name\n\n"
    "    def describe(self):\n        return self.name\n"
)


@pytest.fixture
def two_shapes(tmp_path: Path) -> Path:
    for rel in ("a/shapes.py", "b/shapes.py"):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(SHAPES)
    (tmp_path / "reply.md").write_text(SNIPPET_REPLY)
    return tmp_path


def test_file_names_the_file_a_pathless_snippet_applies_to(two_shapes: Path, capsys):
    root = str(two_shapes)
    reply = str(two_shapes / "reply.md")
    assert run(["apply", reply, "--root", root, "--file", "b/shapes.py"]) == 0
    assert 'return f"Shape {self.name}"' in (two_shapes / "b/shapes.py").read_text()
    assert (two_shapes / "a/shapes.py").read_text() == SHAPES
    assert "existing code" not in (two_shapes / "b/shapes.py").read_text()


def test_a_pathless_snippet_without_file_is_refused_listing_the_candidates(
    two_shapes: Path, capsys
):
    root = str(two_shapes)
    assert run(["check", str(two_shapes / "reply.md"), "--root", root, "--json"]) == 1
    report = json.loads(capsys.readouterr().out)
    (block,) = report["blocks"]
    assert block["format"] == "snippet" and block["status"] == "failed"
    assert block["error"]["code"] == "TARGET_AMBIGUOUS"
    assert block["error"]["details"]["candidates"] == ["a/shapes.py", "b/shapes.py"]
    assert "a/shapes.py" in block["error"]["message"] and "--file" in block["error"]["message"]


def test_file_reports_the_snippet_match_for_confirmation(two_shapes: Path, capsys):
    root = str(two_shapes)
    args = ["check", str(two_shapes / "reply.md"), "--root", root, "--json", "--file"]
    assert run([*args, "a/shapes.py"]) == 0
    (block,) = json.loads(capsys.readouterr().out)["blocks"]
    assert block["match"] == "snippet" and block["path"] == "a/shapes.py"
