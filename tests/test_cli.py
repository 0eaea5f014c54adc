"""The CLI contract of DESIGN §5: exit codes, JSON report, human output, writes."""

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
    assert "3 of 3 blocks placed" in r.stdout
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
    assert "✓ block 0 shop/cart.py (indent) validated" in r.stdout
    assert "+++ b/CHANGES.md" in r.stdout
    assert "\033[" not in r.stdout  # not a terminal: no colour
