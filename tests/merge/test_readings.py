"""Issue 22 items 1-2 and the readings: a block the evidence leaves open is refused naming
its readings, and each reading, once chosen, places what it says."""

from __future__ import annotations

from lsp_server.model import ErrorCode
from tests.merge.support import plan, refused_with, written

# --- item 1: a whole file read as a fragment ----------------------------------------------

LAYOUT = """import type { Metadata } from 'next'
import './globals.css'

export const metadata: Metadata = {
  title: 'App',
}

export default function RootLayout({ children }: { children: React.ReactNode }) {
  return <html><body>{children}</body></html>
}
"""
LAYOUT_NEW = """import type { Metadata } from "next";
import { Inter } from "next/font/google";
import "./globals.css";

const inter = Inter({ subsets: ["latin"] });

export const metadata: Metadata = {
  title: "App",
};

export default function RootLayout({ children }: { children: React.ReactNode }) {
  return <html><body className={inter.className}>{children}</body></html>;
}
"""


def test_an_aider_whole_file_with_its_imports_rewritten_is_the_whole_file(tmp_path):
    # begins where the file begins (the same import, other quotes) and holds every
    # top-level definition the file has: the whole file, by convention
    p = plan(tmp_path, {"app/layout.tsx": LAYOUT}, f"app/layout.tsx\n```tsx\n{LAYOUT_NEW}```\n")
    assert written(p, "app/layout.tsx") == LAYOUT_NEW


MAIN_CPP = """#include <Arduino.h>

void setup() {
  Serial.begin(115200);
}

void loop() {
  delay(1000);
}
"""
APP_MAIN = """#include <stdio.h>
#include "freertos/FreeRTOS.h"

extern "C" void app_main(void) {
  printf("hello\\n");
}
"""


def test_a_rewrite_that_drops_definitions_is_refused_naming_both_readings(tmp_path):
    reply = f"src/main.cpp\n```cpp\n{APP_MAIN}```\n"
    failure = refused_with(plan(tmp_path, {"src/main.cpp": MAIN_CPP}, reply), "whole", "fragment")
    assert failure.code is ErrorCode.TEXT_AMBIGUOUS


def test_as_whole_writes_the_block_as_the_file(tmp_path):
    reply = f"src/main.cpp\n```cpp\n{APP_MAIN}```\n"
    p = plan(tmp_path, {"src/main.cpp": MAIN_CPP}, reply, read_as="whole")
    assert written(p, "src/main.cpp") == APP_MAIN


def test_as_fragment_merges_the_block_into_the_file(tmp_path):
    reply = f"src/main.cpp\n```cpp\n{APP_MAIN}```\n"
    p = plan(tmp_path, {"src/main.cpp": MAIN_CPP}, reply, read_as="fragment")
    out = written(p, "src/main.cpp")
    assert "void setup()" in out and "void loop()" in out and "app_main" in out
    assert out.count("#include <Arduino.h>") == 1 and '#include "freertos/FreeRTOS.h"' in out


def test_a_chat_snippet_of_one_function_is_still_a_fragment(tmp_path):
    file = "import os\n\n\ndef a():\n    return 1\n\n\ndef b():\n    return 2\n"
    reply = "In `m.py`:\n\n```python\ndef a():\n    return 10\n```\n"
    p = plan(tmp_path, {"m.py": file}, reply)
    assert written(p, "m.py") == file.replace("return 1\n", "return 10\n")


# --- item 2: a definition cut short loses its tail ----------------------------------------

LOADER = '''import pandas as pd


class Loader:
    def __init__(self, path):
        self.path = path

    def reshape_data(self, df):
        """Melt the frame."""
        long = pd.melt(df, id_vars=["id"])
        long = long.dropna()
        long["value"] = long["value"].astype(float)
        long = long.sort_values("id")
        long = long.reset_index(drop=True)
        return long
'''
DEBUG = '''Add debug prints in `loader.py`:

```python
    def __init__(self, path):
        print("init", path)
        self.path = path

    def reshape_data(self, df):
        """Melt the frame."""
        print(df.shape)
        long = pd.melt(df, id_vars=["id"])
```
'''


def test_a_definition_cut_short_is_refused_with_keep_and_drop(tmp_path):
    failure = refused_with(plan(tmp_path, {"loader.py": LOADER}, DEBUG), "keep-rest", "drop-rest")
    assert "reshape_data" in failure.message and "long = long.dropna()" in failure.message


def test_keep_rest_keeps_the_definitions_tail(tmp_path):
    out = written(plan(tmp_path, {"loader.py": LOADER}, DEBUG, rest="keep"), "loader.py")
    assert out == LOADER.replace(
        "        self.path = path\n", '        print("init", path)\n        self.path = path\n'
    ).replace('"""Melt the frame."""\n', '"""Melt the frame."""\n        print(df.shape)\n')


def test_drop_rest_replaces_the_definition_as_written(tmp_path):
    out = written(plan(tmp_path, {"loader.py": LOADER}, DEBUG, rest="drop"), "loader.py")
    assert "dropna" not in out and "print(df.shape)" in out


def test_a_definition_restated_without_its_docstring_offers_keep_and_drop(tmp_path):
    file = 'def f(x):\n    """Double x."""\n    y = x * 2\n    return y\n'
    reply = "In `m.py`:\n\n```python\ndef f(x):\n    y = x * 3\n    return y\n```\n"
    refused_with(plan(tmp_path, {"m.py": file}, reply), "keep-rest", "drop-rest")
    kept = written(plan(tmp_path, {"m.py": file}, reply, rest="keep"), "m.py")
    assert kept == file.replace("x * 2", "x * 3")


def test_a_definition_whose_closer_ends_it_is_no_cut(tmp_path):
    # a brace closer at the definition's own indentation anchors its end: lines the reply
    # removed between two anchors are the reply's change
    file = "function f(x) {\n  const a = x;\n  log(a);\n  return a;\n}\n"
    reply = "In `m.js`:\n\n```js\nfunction f(x) {\n  const a = x;\n  return a;\n}\n```\n"
    assert written(plan(tmp_path, {"m.js": file}, reply), "m.js") == file.replace("  log(a);\n", "")


def test_a_definition_whose_last_line_is_rewritten_is_no_cut(tmp_path):
    file = "def f(x):\n    y = x\n    return y\n"
    reply = "In `m.py`:\n\n```python\ndef f(x):\n    y = x\n    return y + 1\n```\n"
    assert written(plan(tmp_path, {"m.py": file}, reply), "m.py") == file.replace(
        "return y\n", "return y + 1\n"
    )


# --- the command line's flags ---------------------------------------------------------------


def _cli(root, reply: str, *flags: str) -> int:
    from lsp_server.cli import run

    (root / "reply.md").write_text(reply)
    return run(["apply", str(root / "reply.md"), "--root", str(root), *flags])


def test_the_cli_refuses_naming_the_flags_and_the_flags_pick_the_reading(tmp_path, capsys):
    (tmp_path / "loader.py").write_text(LOADER)
    assert _cli(tmp_path, DEBUG) != 0
    said = capsys.readouterr()
    assert "--keep-rest" in said.out + said.err and "--drop-rest" in said.out + said.err
    assert (tmp_path / "loader.py").read_text() == LOADER
    assert _cli(tmp_path, DEBUG, "--keep-rest") == 0
    assert "long = long.dropna()" in (tmp_path / "loader.py").read_text()


def test_the_cli_as_whole_flag(tmp_path, capsys):
    (tmp_path / "src").mkdir()
    (tmp_path / "src/main.cpp").write_text(MAIN_CPP)
    reply = f"src/main.cpp\n```cpp\n{APP_MAIN}```\n"
    assert _cli(tmp_path, reply) != 0
    assert "--as whole" in "".join(capsys.readouterr())
    assert _cli(tmp_path, reply, "--as", "whole") == 0
    assert (tmp_path / "src/main.cpp").read_text() == APP_MAIN


def test_a_block_applied_with_a_reading_is_already_applied_the_next_time(tmp_path):
    p = plan(tmp_path, {"loader.py": LOADER}, DEBUG, rest="keep")
    after = written(p, "loader.py")
    again = plan(tmp_path, {"loader.py": after}, DEBUG)
    assert again.ok and not again.files and again.outcomes[0].already_applied


# --- a text file's first block restated, the file going on after it ------------------------

NOTES = "Intro\n  first point\nMore\n  second point\n"


def test_a_text_block_restating_where_the_file_begins_is_whole_or_part(tmp_path):
    # no grammar, no placeholders: the block restates the file's first block (`Intro`
    # and what is indented under it) and stops; the file goes on. As the whole file it
    # drops `More`, as a part it keeps it: two files, so the user chooses
    reply = "notes.txt\n```\nIntro\n  first point\n  a new point\n```\n"
    refused_with(plan(tmp_path, {"notes.txt": NOTES}, reply), "whole", "fragment")
    part = plan(tmp_path, {"notes.txt": NOTES}, reply, read_as="fragment")
    kept = "Intro\n  first point\n  a new point\nMore\n  second point\n"
    assert written(part, "notes.txt") == kept
    whole = plan(tmp_path, {"notes.txt": NOTES}, reply, read_as="whole")
    assert written(whole, "notes.txt") == "Intro\n  first point\n  a new point\n"


def test_a_text_block_restated_in_the_middle_is_that_part(tmp_path):
    reply = "notes.txt\n```\nMore\n  second point\n  third\n```\n"
    out = written(plan(tmp_path, {"notes.txt": NOTES}, reply), "notes.txt")
    assert out == NOTES + "  third\n"
