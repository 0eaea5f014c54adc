"""The repository ships what a package needs (issue 25): the licence, the metadata that
names it and the project, one version, and the script that fetches the conformance
corpora, checked by hash."""

from __future__ import annotations

import hashlib
import importlib.util
import json
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _tool(name: str):
    spec = importlib.util.spec_from_file_location(name, ROOT / "tools" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_licence_file_is_the_one_pyproject_names():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert project["license"] == "MIT" and project["license-files"] == ["LICENSE"]
    text = (ROOT / "LICENSE").read_text()
    assert text.startswith("MIT License\n") and "WITHOUT WARRANTY OF ANY KIND" in text


def test_the_metadata_names_the_project():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert set(project["urls"]) == {"Homepage", "Documentation", "Source", "Issues", "Changelog"}
    assert "version" in project["dynamic"] and "version" not in project


def test_the_release_workflow_publishes_with_trusted_publishing():
    workflow = ROOT / ".github" / "workflows" / "release.yml"
    if not workflow.parent.is_dir():
        pytest.skip("not a clone of the repository (an sdist carries no .github/)")
    text = workflow.read_text()
    assert "id-token: write" in text  # OIDC: no API token stored anywhere
    assert "pypa/gh-action-pypi-publish" in text
    assert "tools/check_dist.py" in text  # what is published is what CI checks


def _manifest(tmp_path: Path, files: dict[str, bytes]) -> Path:
    entries = [
        {
            "file": name,
            "repo": "owner/name",
            "commit": "0" * 40,
            "path": f"up/{name}",
            "bytes": len(data),
            "sha256": hashlib.sha256(data).hexdigest(),
        }
        for name, data in files.items()
    ]
    path = tmp_path / "corpora.json"
    path.write_text(json.dumps({"files": entries, "notice": ["from owner/name"]}))
    return path


def test_the_fetch_script_keeps_only_the_pinned_bytes(tmp_path, monkeypatch):
    fetch = _tool("fetch_conformance")
    good = {"a/x.txt": b"one\n", "b.txt": b"two\n"}
    monkeypatch.setattr(fetch, "MANIFEST", _manifest(tmp_path, good))
    source = tmp_path / "source"
    for name, data in good.items():
        (source / name).parent.mkdir(parents=True, exist_ok=True)
        (source / name).write_bytes(data)
    (source / "b.txt").write_bytes(b"tampered\n")
    dest = tmp_path / "dest"
    assert fetch.main(["--from", str(source), "--dest", str(dest)]) == 1
    assert (dest / "a/x.txt").read_bytes() == b"one\n"
    assert not (dest / "b.txt").exists()  # the wrong bytes are never written
    assert fetch.main(["--check", "--dest", str(dest)]) == 1
    (source / "b.txt").write_bytes(b"two\n")
    assert fetch.main(["--from", str(source), "--dest", str(dest)]) == 0
    assert fetch.main(["--check", "--dest", str(dest)]) == 0
    assert "from owner/name" in (dest / "NOTICE").read_text()


def test_the_fetch_script_stops_trying_when_the_network_is_unreachable(tmp_path, monkeypatch):
    """Offline (or behind a proxy), the first file's failure says why and the other files
    are named as not fetched, instead of each waiting through its own timeouts."""
    import urllib.error

    fetch = _tool("fetch_conformance")
    monkeypatch.setattr(fetch, "MANIFEST", _manifest(tmp_path, {"a.txt": b"1", "b.txt": b"2"}))
    calls = []

    def offline(url, timeout):
        calls.append(url)
        raise urllib.error.URLError("Network is unreachable")

    monkeypatch.setattr(fetch.urllib.request, "urlopen", offline)
    monkeypatch.setattr(fetch.time, "sleep", lambda s: None)
    problems = fetch.fetch(tmp_path / "dest", None, False)
    assert len(calls) == 3  # one file's attempts, not every file's
    assert problems[0].startswith("a.txt: cannot download")
    assert problems[1] == (
        "b.txt: not fetched (raw.githubusercontent.com unreachable: "
        "<urlopen error Network is unreachable>)"
    )


def test_the_fetch_script_goes_on_after_one_missing_file(tmp_path, monkeypatch):
    """An answer about one file (HTTP 404) says nothing about the others."""
    import io
    import urllib.error

    fetch = _tool("fetch_conformance")
    monkeypatch.setattr(fetch, "MANIFEST", _manifest(tmp_path, {"a.txt": b"1", "b.txt": b"2"}))

    def answer(url, timeout):
        if url.endswith("/up/a.txt"):
            raise urllib.error.HTTPError(url, 404, "Not Found", {}, None)
        return io.BytesIO(b"2")

    monkeypatch.setattr(fetch.urllib.request, "urlopen", answer)
    monkeypatch.setattr(fetch.time, "sleep", lambda s: None)
    problems = fetch.fetch(tmp_path / "dest", None, False)
    assert len(problems) == 1 and problems[0].startswith("a.txt: cannot download")
    assert (tmp_path / "dest" / "b.txt").read_bytes() == b"2"


def test_the_manifest_pins_every_corpus_file_the_tests_read():
    manifest = json.loads((ROOT / "tests" / "conformance" / "corpora.json").read_text())
    files = {e["file"] for e in manifest["files"]}
    assert len(files) == 98
    assert {
        "aider-chat-history/chat-history.md",
        "codex-apply-patch/001_add_file/patch.txt",
    } <= files
    assert {f.split("/")[0] for f in files} == {
        "aider-chat-history",
        "codex-apply-patch",
        "continue-lazy",
    }
    for e in manifest["files"]:
        assert len(e["commit"]) == 40 and len(e["sha256"]) == 64


def test_the_manifest_matches_a_corpus_copy_when_there_is_one():
    from tests.conformance.corpus import CORPORA

    manifest = json.loads((ROOT / "tests" / "conformance" / "corpora.json").read_text())
    if not (CORPORA / "codex-apply-patch").is_dir():
        pytest.skip("no corpus copy to compare: `python3 tools/fetch_conformance.py` fetches one")
    for e in manifest["files"]:
        assert hashlib.sha256((CORPORA / e["file"]).read_bytes()).hexdigest() == e["sha256"]


def test_a_missing_corpus_skip_names_the_script_that_fetches_it():
    """The conformance tests skip in a fresh clone; each skip says what to run."""
    from tests.conformance.corpus import CORPORA, missing

    reason = missing("the Codex corpus")
    assert "`python3 tools/fetch_conformance.py`" in reason
    if not CORPORA.is_dir():  # a fresh clone: the folder named is the one the script fills
        assert f"not found in {ROOT / '.conformance'}:" in reason
    assert (ROOT / "tools" / "fetch_conformance.py").is_file()
    for module in sorted((ROOT / "tests" / "conformance").glob("test_*.py")):
        text = module.read_text()
        assert "skip" not in text or "missing(" in text, module.name
