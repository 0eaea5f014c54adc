"""Fuzz placement: blocks cut from generated files, written wrong, checked when placed.

    .venv/bin/python -m fuzz.fuzz_placement                   # 10,000 examples
    .venv/bin/python -m fuzz.fuzz_placement --examples 100000 --seed 7

Each example is a `fuzz.placement.Case`: a file, a true edit of a region of it, and the
reply's copy of the edit perturbed (see that module). A placed block must pass
`check_case`'s oracle; a refusal is always allowed. At the end the run prints how many
blocks were placed, refused or found already applied, overall and per perturbation, so a
change that quietly refuses everything shows up as well as one that places wrongly.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from hypothesis import HealthCheck, given, seed, settings  # noqa: E402

from fuzz.placement import PERTURBATIONS, Case, cases, check_case  # noqa: E402

OUTCOMES: Counter[str] = Counter()
BY_PERTURBATION: dict[str, Counter[str]] = {name: Counter() for name in ["none", *PERTURBATIONS]}


@given(case=cases())
def placement_target(case: Case) -> None:
    outcome = check_case(case)
    OUTCOMES[outcome] += 1
    for name in case.applied or ["none"]:
        BY_PERTURBATION[name][outcome] += 1


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--examples", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=None)
    args = parser.parse_args(argv)
    run = settings(
        max_examples=args.examples,
        deadline=None,
        database=None,
        suppress_health_check=list(HealthCheck),
    )(placement_target)
    if args.seed is not None:
        run = seed(args.seed)(run)
    run()
    total = sum(OUTCOMES.values())
    print(f"fuzz_placement: {total} examples, no failure: {dict(OUTCOMES)}")
    for name, counts in BY_PERTURBATION.items():
        placed, n = counts["placed"], sum(counts.values())
        print(f"  {name:14} {n:7} cases  {placed:7} placed  {counts['refused']:7} refused")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
