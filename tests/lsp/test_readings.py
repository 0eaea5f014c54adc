"""A block the evidence leaves open (resolve.merge.readings): one code action per reading,
each applying the block read that way, with its preview."""

from __future__ import annotations

from pathlib import Path

from .conftest import EditorClient

LOADER = """class Loader:
    def __init__(self, path):
        self.path = path

    def reshape_data(self, df):
        long = melt(df)
        long = long.dropna()
        return long
"""
REPLY = """Add a debug print in `loader.py`:

```python
    def reshape_data(self, df):
        print(df.shape)
        long = melt(df)
```
"""


async def test_each_reading_is_a_code_action_that_applies_it(client: EditorClient, ws: Path):
    client.write("loader.py", LOADER)
    chat = client.open("r.llm.md", REPLY)
    await client.wait_for(lambda: client.diagnostics.get(chat), what="a diagnostic")
    (diag,) = client.diagnostics[chat]
    assert "--keep-rest" in diag.message and "--drop-rest" in diag.message
    actions = await client.actions(chat, diag.range, diagnostics=[diag])
    fixes = {a.title: a for a in actions if a.kind == "quickfix"}
    keep = fixes["Keep the rest of `reshape_data` (block 0)"]
    assert "Replace `reshape_data` as written (block 0)" in fixes
    assert keep.command.arguments[1] == {"reading": {"rest": "keep"}, "preview": True}
    report = await client.run_action(keep)
    assert [b["status"] for b in report["blocks"]] == ["applied"]
    target = client.uri("loader.py")
    await client.wait_for(lambda: "print(df.shape)" in client.text(target))
    assert client.text(target) == LOADER.replace(
        "        long = melt(df)\n", "        print(df.shape)\n        long = melt(df)\n"
    )
