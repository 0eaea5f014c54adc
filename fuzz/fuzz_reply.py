"""Fuzz the reply parser and the planner: `check_reply` on every input, forever.

    .venv/bin/python fuzz/fuzz_reply.py                  # hypothesis, 100,000 examples
    .venv/bin/python fuzz/fuzz_reply.py --examples 1000000
    .venv/bin/python fuzz/fuzz_reply.py --atheris -max_total_time=3600 -max_len=4096

With `--atheris` (needs `pip install atheris`), libFuzzer drives the same hypothesis
strategy through `fuzz_one_input`, so its byte mutations explore the reply grammar rather
than raw noise. Every failure is printed with the input that caused it.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from hypothesis import HealthCheck, given, settings  # noqa: E402

from fuzz.targets import REPLIES, check_reply  # noqa: E402


@given(text=REPLIES)
def reply_target(text: str) -> None:
    check_reply(text)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--examples", type=int, default=100_000)
    parser.add_argument("--atheris", action="store_true", help="coverage-guided, via atheris")
    args, rest = parser.parse_known_args(argv)
    if args.atheris:
        import atheris  # type: ignore[import-not-found]

        atheris.instrument_all()
        atheris.Setup([sys.argv[0], *rest], reply_target.hypothesis.fuzz_one_input)
        atheris.Fuzz()
        return 0
    run = settings(
        max_examples=args.examples,
        deadline=None,
        database=None,
        suppress_health_check=list(HealthCheck),
    )(reply_target)
    run()
    print(f"fuzz_reply: {args.examples} examples, no failure")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
