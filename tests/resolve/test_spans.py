"""Spans: where a structure's lines start and end (the layers that belong to it are
tested through the operations, in test_targets.py)."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from lsp_server.resolve import spans

from .samples import LANGS, fresh, random_edit, source_file


@settings(max_examples=60, deadline=None)
@given(lang=st.sampled_from(sorted(LANGS)), seed=st.integers(0, 10**9))
def test_a_line_start_found_near_a_node_is_the_line_table_entry(lang: str, seed: int) -> None:
    r = random.Random(seed)
    text = random_edit(source_file(lang, r, r.randint(1, 12)), r)
    if r.random() < 0.3:
        text = "\n" * r.randint(1, 90) + text + "\n" * r.randint(0, 90) + "é"
    lines = text.count("\n") + 1
    for row in {0, 1, lines - 1, lines, lines + 3, *(r.randrange(lines) for _ in range(20))}:
        lazy = fresh(lang, text)
        table = fresh(lang, text)
        table.line_starts()
        assert spans.line_start_byte(lazy, row) == spans.line_start_byte(table, row)
