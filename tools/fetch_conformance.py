"""Fetch the conformance corpora the tests in tests/conformance/ read.

They are other projects' test data (OpenAI Codex's apply_patch scenarios, aider's chat
history and its SEARCH/REPLACE gold parse, Continue's lazy-apply examples; Apache-2.0),
so the repository does not carry them: this script downloads each file from its upstream
repository at the commit pinned in tests/conformance/corpora.json and keeps it only if its
SHA-256 is the one recorded there (the git blob id is recorded too, to check against
upstream with git). Files already in place with the right hash are not fetched again.

    python3 tools/fetch_conformance.py              # into .conformance/ (git-ignored)
    python3 tools/fetch_conformance.py --dest DIR   # elsewhere; point LLM_PATCH_CONFORMANCE at it
    python3 tools/fetch_conformance.py --from DIR   # copy from a corpus folder you have, checked
    python3 tools/fetch_conformance.py --check      # only check what is there

Needs only Python 3.11 and HTTPS access to raw.githubusercontent.com. Exit 0 when every
file is in place and checked, 1 otherwise (each failure named).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
MANIFEST = REPO / "tests" / "conformance" / "corpora.json"
DEFAULT_DEST = REPO / ".conformance"
RAW = "https://raw.githubusercontent.com/{repo}/{commit}/{path}"


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _download(url: str, attempts: int = 3) -> bytes:
    for attempt in range(attempts):
        try:
            with urllib.request.urlopen(url, timeout=30) as response:
                return response.read()
        except OSError:
            if attempt == attempts - 1:
                raise
            time.sleep(2**attempt)
    raise AssertionError("unreachable")


def _unreachable(err: OSError) -> bool:
    """The host could not be reached at all (no network, a proxy, DNS), as opposed to an
    answer about one file (HTTP 404): the other files would wait as long, for nothing."""
    return not isinstance(err, urllib.error.HTTPError)


def _write(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    temp = path.with_name(f".{path.name}.part")
    temp.write_bytes(data)
    os.replace(temp, path)


def fetch(dest: Path, source: Path | None, check_only: bool) -> list[str]:
    """Put every file of the manifest under `dest`; the problems, one line each."""
    manifest = json.loads(MANIFEST.read_text(encoding="utf-8"))
    problems: list[str] = []
    fetched = kept = 0
    offline: str | None = None  # why the host cannot be reached, once it could not be
    for entry in manifest["files"]:
        target = dest / entry["file"]
        if target.is_file() and _sha256(target.read_bytes()) == entry["sha256"]:
            kept += 1
            continue
        if check_only:
            problems.append(f"{entry['file']}: missing or not the pinned bytes")
            continue
        if source is not None:
            where = str(source / entry["file"])
            try:
                data = (source / entry["file"]).read_bytes()
            except OSError as err:
                problems.append(f"{entry['file']}: cannot read {where}: {err.strerror or err}")
                continue
        else:
            where = RAW.format(**entry)
            if offline is not None:
                problems.append(f"{entry['file']}: not fetched ({offline})")
                continue
            # each file said as it goes: a slow or silent network is seen at once
            print(f"fetching {entry['file']}", file=sys.stderr, flush=True)
            try:
                data = _download(where)
            except OSError as err:
                problems.append(f"{entry['file']}: cannot download {where}: {err}")
                if _unreachable(err):
                    offline = f"raw.githubusercontent.com unreachable: {err}"
                continue
        if len(data) != entry["bytes"] or _sha256(data) != entry["sha256"]:
            problems.append(
                f"{entry['file']}: {where} has {len(data)} bytes, sha256 {_sha256(data)}; "
                f"expected {entry['bytes']} bytes, sha256 {entry['sha256']} (not written)"
            )
            continue
        _write(target, data)
        fetched += 1
    if not check_only and not problems:
        head = "Third-party test data, unmodified (provenance: tests/conformance/corpora.json)"
        _write(dest / "NOTICE", "\n".join([head, "", *manifest["notice"], ""]).encode())
    total = len(manifest["files"])
    print(f"{dest}: {kept + fetched} of {total} files in place ({fetched} fetched now)")
    return problems


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--dest", type=Path, default=DEFAULT_DEST, help="default: .conformance/")
    p.add_argument("--from", dest="source", type=Path, help="copy from this corpus folder")
    p.add_argument("--check", action="store_true", help="only check the files in --dest")
    args = p.parse_args(argv)
    problems = fetch(args.dest, args.source, args.check)
    for line in problems:
        print(f"  {line}", file=sys.stderr)
    if problems:
        print(f"{len(problems)} files not in place", file=sys.stderr)
        return 1
    if args.dest.resolve() != DEFAULT_DEST.resolve():
        print(f"run the tests with LLM_PATCH_CONFORMANCE={args.dest}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
