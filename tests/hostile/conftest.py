"""Hostile-input suite: hypothesis profiles and shared helpers.

Profiles (pick one with `HYPOTHESIS_PROFILE=<name>`, default "ci"):

* `ci` — a few hundred examples per property, several thousand across the suite; the whole
  `tests/hostile` folder runs in well under three minutes on two cores.
* `long` — fifty times as many examples per property, for a run before a release or after
  touching a parser: `HYPOTHESIS_PROFILE=long .venv/bin/pytest tests/hostile` (see
  fuzz/README.md for the longer fuzz targets).

Loading a profile is process-wide. The other test files pin their own `max_examples`, so
only the unpinned settings (no deadline, no too-slow health check) reach them.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from hypothesis import HealthCheck, settings

# the fuzz targets (REPO/fuzz) are shared with these tests; an editable install already puts
# the repository on sys.path, a plain checkout may not
REPO = Path(__file__).resolve().parents[2]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

_COMMON = dict(
    deadline=None,  # shared CI machines stall; bounds on time are asserted with timeouts
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    print_blob=True,
)

settings.register_profile("ci", max_examples=150, **_COMMON)
settings.register_profile("long", max_examples=150 * 50, **_COMMON)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))
