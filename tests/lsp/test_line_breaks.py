"""CRLF files through every client: each stores the line breaks of an edit's newText its own
way (see `edits.client_line_breaks`), and the file it saves must hold the planned text.

The clients here are played as their sources (and, for Kate, the real editor) show them:
VS Code, Neovim, Sublime Text, Zed and Kate normalise newText to the document's line break;
Helix inserts it as sent into a buffer that holds the file's bytes; Emacs (eglot) inserts it
as sent into a buffer that decoded the CRLF file to "\\n".
"""

from __future__ import annotations

from pathlib import Path

import pytest
import pytest_lsp
from hypothesis import given, settings
from hypothesis import strategies as st

from lsp_server.edits import (
    AS_IS,
    DECODES_DOS,
    NORMALISES,
    buffer_line_break,
    client_line_breaks,
    text_edits,
)

from .conftest import CONFIG, EditorClient, apply_edits, sr, start_session

# (clientInfo.name, captured capabilities, how its buffer stores newText)
STYLES = [
    ("Visual Studio Code", "visual-studio-code", NORMALISES),
    ("Neovim", "neovim@v0.10.0", NORMALISES),
    ("Emacs (eglot)", "emacs@v29.1", DECODES_DOS),
    ("Kate", "emacs@v29.1", NORMALISES),
    ("helix", "emacs@v29.1", AS_IS),
    ("Sublime Text LSP", "emacs@v29.1", NORMALISES),
    ("Zed", "emacs@v29.1", NORMALISES),
]


@pytest_lsp.fixture(config=CONFIG, params=STYLES, ids=[s[0] for s in STYLES])
async def styled(request, lsp_client: EditorClient, tmp_path: Path):
    name, spec, style = request.param
    root = tmp_path / "ws"
    root.mkdir()
    await start_session(lsp_client, spec, root.resolve(), name=name, line_breaks=style)
    yield
    await lsp_client.shutdown_session()


@pytest.mark.parametrize("opened", [False, True])
async def test_a_crlf_file_is_saved_with_crlf_only(styled: EditorClient, opened: bool):
    """An insertion into a CRLF file: every client saves `\\r\\n` line breaks, never
    `\\r\\r\\n` (eglot saved `y = x + 1^M`), open in the editor or not."""
    client = styled
    client.write("a.py", "")
    (client.root / "a.py").write_bytes(b"x = 1\r\ny = 2\r\n")
    uri = client.uri("a.py")
    if opened:
        client.open("a.py")
    reply = sr("a.py", "x = 1\n", "x = 1\nz = x + 1\n")
    report = await client.command("llmPatch.apply", {"text": reply})
    assert report["ok"] is True, report["summary"]
    await client.wait_for(lambda: uri in client.docs and "z = x" in client.text(uri), what="edit")
    client.save(uri)
    assert (client.root / "a.py").read_bytes() == b"x = 1\r\nz = x + 1\r\ny = 2\r\n"


def test_clients_are_told_apart_by_name_and_capability():
    assert client_line_breaks("Emacs (eglot)", None) == DECODES_DOS
    assert client_line_breaks("Kate", None) == NORMALISES
    assert client_line_breaks("kate", None) == NORMALISES  # its process name: no clientInfo
    assert client_line_breaks("helix", None) == AS_IS
    assert client_line_breaks("Neovim", None) == NORMALISES
    assert client_line_breaks("anything", True) == NORMALISES
    assert client_line_breaks(None, None) == AS_IS


# --- the rule against simulated buffers ---------------------------------------------------------

LINE = st.text(alphabet="ab =\t", max_size=6)


def _buffer(style: str, text: str) -> tuple[str, bool]:
    """(the buffer a client makes of a file's text, whether it decoded CRLF)."""
    crlf = text.count("\r\n")
    if style == DECODES_DOS and crlf and crlf == text.count("\n"):
        return text.replace("\r\n", "\n"), "\r\n" in text
    return text, False


def _store(style: str, buffer: str, new_text: str) -> str:
    if style != NORMALISES:
        return new_text
    return new_text.replace("\r\n", "\n").replace("\n", "\r\n" if "\r\n" in buffer else "\n")


@settings(max_examples=150, deadline=None)
@given(
    old=st.lists(LINE, min_size=1, max_size=6),
    new=st.lists(LINE, min_size=1, max_size=6),
    style=st.sampled_from([NORMALISES, AS_IS, DECODES_DOS]),
)
def test_every_client_saves_the_planned_crlf_text(old, new, style):
    """The oracle is the file's bytes after the client applies the edit to its own buffer
    and saves it; it must be the planned text, for a file the editor had not opened."""
    old_text = "".join(line + "\r\n" for line in old)
    new_text = "".join(line + "\r\n" for line in new)
    edits = text_edits(old_text, new_text)
    line_break = buffer_line_break(style, old_text, opened=False)
    buffer, decoded = _buffer(style, old_text)
    sent = [
        e.__class__(range=e.range, new_text=e.new_text.replace("\r\n", line_break))
        if line_break
        else e
        for e in edits
    ]
    stored = [e.__class__(range=e.range, new_text=_store(style, buffer, e.new_text)) for e in sent]
    saved = apply_edits(buffer, stored, "utf-16")
    if decoded:
        saved = saved.replace("\n", "\r\n")
    assert saved == new_text
