"""How a data path is written: `TARGET_PATH: a.b[2].c` for JSON, YAML and TOML files.

Paths: dotted keys with `[n]` indexes (`scripts.build`, `servers[0].port`), quoted keys
for dots inside names (`a."b.c"` or `a["b.c"]`), a leading `$` (JSONPath style), or a JSON
pointer (`/a/b/0`).
"""

from __future__ import annotations

import json
import re

from lsp_server.model import ErrorCode
from lsp_server.resolve.outcome import refused

Segment = str | int

# Kept as text: `re` compiles and caches it on first use, so a structural edit in a code file
# (which imports this module too) never pays for compiling it.
_SEGMENT = (
    r"""\.?(?:"((?:[^"\\]|\\.)*)"|'([^']*)'|\[\s*(-?\d+)\s*\]|\[\s*"((?:[^"\\]|\\.)*)"\s*\]"""
    r"""|\[\s*'([^']*)'\s*\]|([^.\[\]"']+))"""
)


def parse_data_path(path: str) -> list[Segment]:
    """`a.b[2]."c.d"` -> ["a", "b", 2, "c.d"]; `/a/b/0` (JSON pointer) -> ["a", "b", "0"].

    Pointer segments stay strings: "0" indexes an array and names a key in an object.
    """
    s = path.strip()
    if s.startswith("$"):
        s = s[1:].lstrip(".")
    if s.startswith("/"):
        return [part.replace("~1", "/").replace("~0", "~") for part in s[1:].split("/")]
    segment = re.compile(_SEGMENT)
    out: list[Segment] = []
    pos = 0
    while pos < len(s):
        m = segment.match(s, pos)
        if m is None or m.end() == pos:
            raise refused(
                ErrorCode.MALFORMED_BLOCK,
                f"cannot read the data path `{path}` at `{s[pos:]}`; write keys with dots and "
                'indexes in brackets, e.g. servers[0].port or a."dotted.key"',
                data_path=path,
            )
        dq, sq, idx, bdq, bsq, bare = m.groups()
        if idx is not None:
            if len(idx) > 18:  # int() refuses past 4,300 digits; no array is that long anyway
                raise refused(
                    ErrorCode.MALFORMED_BLOCK,
                    f"the index `[{idx[:20]}…]` in the data path is too large",
                    data_path=path[:200],
                )
            out.append(int(idx))
        else:
            key = next(x for x in (dq, sq, bdq, bsq, bare) if x is not None)
            out.append(key.strip() if bare is not None else key)
        pos = m.end()
    return out


def format_path(path: list[Segment]) -> str:
    """Segments written back as a path, the way reports show it: `servers[0]."a.b"`."""
    out = ""
    for seg in path:
        if isinstance(seg, int):
            out += f"[{seg}]"
        elif re.fullmatch(r"[\w\-]+", seg):
            out += ("." if out else "") + seg
        else:
            out += ("." if out else "") + json.dumps(seg)
    return out
