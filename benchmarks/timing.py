"""Timing helpers: repeated samples, median and p95, and what the machine was doing.

Samples are wall-clock (`perf_counter`) in milliseconds. The garbage collector stays on, as
in real use; a collection is forced before each series so one series does not pay for the
garbage of the previous one. The machine's load average is recorded with every run: on a
shared 2-core machine other work shows up in the p95 first.
"""

from __future__ import annotations

import gc
import math
import os
import statistics
import time
from collections.abc import Callable
from typing import Any


def sample(
    fn: Callable[[], Any],
    repeat: int,
    setup: Callable[[], Any] | None = None,
    budget_ms: float = 0.0,
) -> list[float]:
    """At least `repeat` timings of `fn()` in ms; `setup()` runs before each one, untimed.

    `budget_ms`: keep sampling, up to ten times `repeat`, until the timed calls add up to
    this much. A median of nine calls of a millisecond is at the mercy of one busy moment
    of a shared machine; what costs little is measured more often (as `timeit` does).
    """
    gc.collect()
    out: list[float] = []
    spent = 0.0
    while len(out) < repeat or (spent < budget_ms and len(out) < 10 * repeat):
        if setup is not None:
            setup()
        t0 = time.perf_counter()
        fn()
        ms = (time.perf_counter() - t0) * 1000.0
        out.append(ms)
        spent += ms
    return out


def percentile(values: list[float], q: float) -> float:
    """Nearest-rank percentile (q in 0..100): a value that was really measured."""
    ordered = sorted(values)
    rank = max(1, math.ceil(q / 100.0 * len(ordered)))
    return ordered[rank - 1]


def summary(values: list[float]) -> dict[str, float | int]:
    return {
        "median_ms": round(statistics.median(values), 4),
        "p95_ms": round(percentile(values, 95), 4),
        "min_ms": round(min(values), 4),
        "n": len(values),
    }


def load_average() -> list[float] | None:
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except OSError:
        return None
