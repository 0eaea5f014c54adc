"""Regular expressions compiled the first time they are used.

`llm-patch apply` is a new process each time, and compiling every pattern of every module
it loads at import was a large share of its start (benchmarks/README.md, "The command
line, stage by stage"). A pattern only some replies, rungs or languages need is held as
`name = compiled_on_use(r"...")` and used as `name()`; a pattern every run needs, or one a
loop runs line by line on the common path, is compiled at import as usual.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable


def compiled_on_use(pattern: str, flags: int = 0) -> Callable[[], re.Pattern[str]]:
    """`pattern` compiled the first time the returned function is called, then kept.
    (Threads calling it at once for the first time may each compile it: the same pattern
    either way.)"""
    return functools.cache(functools.partial(re.compile, pattern, flags))
