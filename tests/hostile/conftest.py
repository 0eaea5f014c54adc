"""Hostile-input suite: shared helpers.

Its hypothesis profiles are the session's (tests/conftest.py): the suite's examples, or
`HYPOTHESIS_PROFILE=long .venv/bin/pytest tests/hostile` for fifty times as many, a run
before a release or after touching a parser (see fuzz/README.md for the longer fuzz
targets). The whole `tests/hostile` folder runs in well under three minutes on two cores.
"""

from __future__ import annotations

import sys
from pathlib import Path

# the fuzz targets (REPO/fuzz) are shared with these tests; an editable install already puts
# the repository on sys.path, a plain checkout may not
REPO = Path(__file__).resolve().parents[2]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))
