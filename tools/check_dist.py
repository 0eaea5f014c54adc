"""Build the sdist and the wheel and check what a user installing them gets.

    python3 -m pip install build twine && python3 tools/check_dist.py [--outdir DIR]

`python -m build` makes both from a clean copy (the sdist first, the wheel from it, as an
installer would); `twine check --strict` checks the metadata PyPI renders; then this
script checks what the metadata must say: the version from lsp_server/__init__.py, the MIT
licence expression with the LICENSE file inside the wheel, the project URLs, the
`llm-patch` command, and that the sdist carries what its tests need. Exit 0 when all hold,
1 naming each that does not.
"""

from __future__ import annotations

import argparse
import email
import re
import subprocess
import sys
import tarfile
import tempfile
import zipfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
URLS = ("Homepage", "Documentation", "Source", "Issues", "Changelog")
SDIST_NEEDS = (
    "LICENSE",
    "README.md",
    "CHANGELOG.md",
    "pyproject.toml",
    "lsp_server/__init__.py",
    "tests/conftest.py",
    "tests/conformance/corpora.json",
    "fuzz/targets.py",  # the tests import it
    "tools/fetch_conformance.py",
    "examples/reply.md",
)


def _version() -> str:
    text = (REPO / "lsp_server" / "__init__.py").read_text(encoding="utf-8")
    found = re.search(r'^__version__ = "([^"]+)"', text, re.M)
    assert found, "no __version__ in lsp_server/__init__.py"
    return found.group(1)


def check_wheel(wheel: Path, version: str) -> list[str]:
    problems = []
    with zipfile.ZipFile(wheel) as z:
        names = z.namelist()
        info = f"llm_patch-{version}.dist-info"
        meta = email.message_from_bytes(z.read(f"{info}/METADATA"))
        entry_points = z.read(f"{info}/entry_points.txt").decode()
    if meta["Version"] != version:
        problems.append(f"wheel version {meta['Version']}, lsp_server says {version}")
    if meta["License-Expression"] != "MIT":
        problems.append(f"License-Expression is {meta['License-Expression']!r}, not MIT")
    if "LICENSE" not in (meta.get_all("License-File") or []):
        problems.append("no License-File: LICENSE in the metadata")
    if f"{info}/licenses/LICENSE" not in names:
        problems.append("the wheel does not carry LICENSE")
    urls = {u.split(",")[0].strip() for u in meta.get_all("Project-URL") or []}
    problems += [f"no Project-URL {name}" for name in URLS if name not in urls]
    if "llm-patch = lsp_server.boot:main" not in entry_points:
        problems.append("no llm-patch console script")
    if not any(n.startswith("lsp_server/cli/") for n in names):
        problems.append("the wheel lacks lsp_server/cli/")
    if any(n.startswith(("tests/", "benchmarks/")) for n in names):
        problems.append("the wheel carries tests or benchmarks")
    return problems


def check_sdist(sdist: Path, version: str) -> list[str]:
    with tarfile.open(sdist) as t:
        top = f"llm_patch-{version}/"
        names = {n.removeprefix(top) for n in t.getnames()}
    problems = [f"the sdist lacks {need}" for need in SDIST_NEEDS if need not in names]
    # no test that needs what the sdist leaves out (the editor plugins, fetched corpora)
    problems += [
        f"the sdist carries {n}" for n in names if n.startswith(("tests/editors/", ".conformance/"))
    ]
    return problems


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--outdir", type=Path, help="keep the built files here (default: a temp dir)")
    args = p.parse_args(argv)
    version = _version()
    with tempfile.TemporaryDirectory(prefix="llm-patch-dist-") as temp:
        out = args.outdir or Path(temp)
        subprocess.run([sys.executable, "-m", "build", "--outdir", str(out), str(REPO)], check=True)
        wheels = sorted(out.glob(f"llm_patch-{version}-*.whl"))
        sdists = sorted(out.glob(f"llm_patch-{version}.tar.gz"))
        if not wheels or not sdists:
            print(f"built nothing for version {version} in {out}", file=sys.stderr)
            return 1
        subprocess.run(
            [sys.executable, "-m", "twine", "check", "--strict", str(wheels[-1]), str(sdists[-1])],
            check=True,
        )
        problems = check_wheel(wheels[-1], version) + check_sdist(sdists[-1], version)
    for line in problems:
        print(f"  {line}", file=sys.stderr)
    if problems:
        return 1
    print(f"llm-patch {version}: wheel and sdist checked")
    return 0


if __name__ == "__main__":
    sys.exit(main())
