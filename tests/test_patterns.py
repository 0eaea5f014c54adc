"""lsp_server.patterns: a pattern held with `compiled_on_use` is compiled at its first use,
once, with its flags."""

from __future__ import annotations

import re

import pytest

from lsp_server.patterns import compiled_on_use


def test_nothing_is_compiled_until_the_first_use() -> None:
    broken = compiled_on_use("(")  # an error would be raised here if it compiled now
    with pytest.raises(re.error):
        broken()


def test_the_first_use_compiles_it_once_with_its_flags() -> None:
    word = compiled_on_use(r"^abc$", re.IGNORECASE | re.MULTILINE)
    first = word()
    assert first is word()
    assert (first.pattern, first.flags) == (
        re.compile(r"^abc$", re.IGNORECASE | re.MULTILINE).pattern,
        re.compile(r"^abc$", re.IGNORECASE | re.MULTILINE).flags,
    )
    assert first.findall("x\nABC\n") == ["ABC"]
