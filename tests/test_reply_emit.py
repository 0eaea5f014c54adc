"""Blocks written back as reply syntax: the corrected SEARCH/REPLACE block of a quick fix."""

from __future__ import annotations

from lsp_server.model import EditBlock, ErrorCode, Failure, Format, Hunk
from lsp_server.reply.emit import corrected_block


def _block(index=0, path="a.py", lines=(1, 8), hunks=()) -> EditBlock:
    return EditBlock(Format.SEARCH_REPLACE, path, lines, hunks=hunks, index=index)


def test_corrected_block_anchors_on_the_closest_region():
    block = _block(hunks=(Hunk("value = evnt['k']\n", "value = event.get('k')\n"),))
    failure = Failure(
        ErrorCode.TEXT_NOT_FOUND,
        "not found",
        {"closest": {"line": 3, "end_line": 3, "similarity": 0.9, "text": "value = event['k']"}},
    )
    assert corrected_block(block, failure) == (
        "a.py\n```\n<<<<<<< SEARCH\nvalue = event['k']\n=======\n"
        "value = event.get('k')\n>>>>>>> REPLACE\n```\n"
    )
    # nothing to anchor on, or several hunks that one block cannot stand for
    assert corrected_block(block, Failure(ErrorCode.TEXT_NOT_FOUND, "not found")) is None
    two = _block(hunks=(Hunk("a\n", "b\n"), Hunk("c\n", "d\n")))
    assert corrected_block(two, failure) is None
