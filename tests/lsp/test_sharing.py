"""A client that does not share the documents a reply edits (Kate set up for Markdown only):
the server says so, and never plans a second edit on a file whose buffer it cannot see."""

from __future__ import annotations

from pathlib import Path

from lsprotocol import types

from .conftest import EditorClient, sr


async def test_a_client_that_shares_no_source_file_is_told_and_not_misled(
    client: EditorClient, ws: Path
):
    client.shares_sources = False  # it opens what an edit touches, and tells the server nothing
    client.write("app.py", "import os\n\n\ndef area(r):\n    return r * r\n")
    client.open("r.llm.md", "notes\n")  # the only document the server is sent
    first = sr("app.py", "import os\n", "import os\nimport sys\n")
    report = await client.command("llmPatch.apply", {"text": first})
    assert report["ok"] is True, report["summary"]
    (warning,) = [w for w in report["warnings"] if w["type"] == "NOT_SHARED"]
    assert "app.py" in warning["message"] and "editors/README.md" in warning["message"]
    assert any("NOT_SHARED" in p for p in report["problems"])
    assert warning["paths"] == ["app.py"]
    told = [m for m in client.messages if "did not share app.py" in m.message]
    assert len(told) == 1 and told[0].type == types.MessageType.Warning
    uri = client.uri("app.py")
    assert client.text(uri).startswith("import os\nimport sys\n")  # unsaved, in the editor

    # planned from disk, a second edit would land a line off in the buffer: refused
    second = sr("app.py", "    return r * r\n", "    return 3.14 * r * r\n")
    report = await client.command("llmPatch.apply", {"text": second})
    assert report["ok"] is False
    assert report["error"]["code"] == "STALE_VERSION"
    assert report["error"]["details"]["not_shared"] is True
    assert "Save app.py" in report["summary"]

    client.save(uri)  # the user saves: the disk is the buffer again
    report = await client.command("llmPatch.apply", {"text": second})
    assert report["ok"] is True, report["summary"]
    assert client.text(uri).endswith("    return 3.14 * r * r\n")
    assert [w["type"] for w in report["warnings"]] == ["NOT_SHARED"]  # each report says it
    told = [m for m in client.messages if "did not share app.py" in m.message]
    assert len(told) == 1  # shown once a session


async def test_a_client_that_shares_its_documents_gets_no_warning(client: EditorClient, ws: Path):
    """VS Code and Neovim open the file an edit changes and send `didOpen` for it."""
    client.write("app.py", "x = 1\n")
    report = await client.command("llmPatch.apply", {"text": sr("app.py", "x = 1\n", "x = 2\n")})
    assert report["ok"] is True
    assert not [w for w in report["warnings"] if w["type"] == "NOT_SHARED"]
