"""Characters a reply carries that mean something plainer: Unicode spaces and zero-width
characters copied from a rendered page, typographic punctuation, runs of spaces.

A reply copied out of a chat page often has U+00A0 (or another Unicode space) where the
model wrote spaces, and sometimes a zero-width space or a stray byte-order mark inside a
line. `plain_text` reads them as what was meant before any rung looks at the block, so the
text written uses the file's own indentation characters. A file that itself holds one of
these characters keeps it meaningful: only the characters the file does not use are read
this way, so an exact quote of such a file still matches exactly.

`collapse` and `fold` are the normalisations of the ladder's last rungs: runs of white space
inside a line read as one space, and typographic quotes, dashes and ellipses read as their
ASCII spelling (models and web pages convert both ways).
"""

from __future__ import annotations

import re

from lsp_server.patterns import compiled_on_use

# Unicode spaces read as one plain space in a reply line's indentation.
UNICODE_SPACES = "\u00a0" + "".join(map(chr, range(0x2000, 0x200B))) + "\u202f\u3000"
# Characters that take no room, read as nothing anywhere in a reply line.
ZERO_WIDTH = "\u200b\ufeff"


# A line's indentation, Unicode spaces included (compiled on first use: only a text that is not
# ASCII is read with it).
_leading = compiled_on_use(f"^[ \t{UNICODE_SPACES}]+", re.MULTILINE)


_FOLD = str.maketrans(
    {
        "\u2018": "'",  # ‘
        "\u2019": "'",  # ’
        "\u201a": "'",  # ‚
        "\u201b": "'",  # ‛
        "\u2032": "'",  # ′
        "\u201c": '"',  # “
        "\u201d": '"',  # ”
        "\u201e": '"',  # „
        "\u201f": '"',  # ‟
        "\u2033": '"',  # ″
        "\u00ab": '"',  # «
        "\u00bb": '"',  # »
        "\u2010": "-",  # ‐
        "\u2011": "-",  # non-breaking hyphen
        "\u2012": "-",  # ‒
        "\u2013": "-",  # –
        "\u2014": "-",  # —
        "\u2015": "-",  # ―
        "\u2212": "-",  # −
        "\u2026": "...",  # …
    }
)


def plain_text(text: str, file_text: str) -> str:
    """`text` (a block's old or new text) with the Unicode spaces in each line's indentation
    written as spaces and zero-width characters removed, except characters the file
    itself uses (a Unicode space in its indentation, a zero-width character anywhere).
    Returns `text` itself when there is nothing to change."""
    if text.isascii():
        return text
    spaces = "".join(c for c in UNICODE_SPACES if c in text)
    if spaces:
        used = _indent_chars(file_text)
        spaces = "".join(c for c in spaces if c not in used)
    gone = "".join(c for c in ZERO_WIDTH if c in text and c not in file_text)
    if gone:
        text = text.translate({ord(c): None for c in gone})
    if spaces:
        table = {ord(c): " " for c in spaces}
        text = _leading().sub(lambda m: m.group(0).translate(table), text)
    return text


def _indent_chars(file_text: str) -> str:
    """The Unicode spaces the file itself indents with (almost always none)."""
    if file_text.isascii():
        return ""
    found = {c for m in _leading().finditer(file_text) for c in m.group(0) if c not in " \t"}
    return "".join(found)


def collapse(line: str) -> str:
    """The line without leading or trailing white space, each inner run read as one space."""
    s = line.strip()
    if s.isascii() and "  " not in s and "\t" not in s and "\x0b" not in s and "\x0c" not in s:
        return s  # most lines of code: nothing to collapse (a whole file is read this way)
    return " ".join(s.split())


def fold(line: str) -> str:
    """`collapse`, with typographic quotes, dashes and ellipses in their ASCII spelling."""
    if line.isascii():
        return collapse(line)
    return " ".join(line.translate(_FOLD).split())
