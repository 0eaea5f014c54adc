"""Issue 22's reach: Copilot chat's 4-backtick fences with `// ...existing code...` around
nested definitions, callbacks and object properties, and TypeScript class members the
outline did not see."""

from __future__ import annotations

from tests.merge.support import plan, written

FORM = """import React, { useState } from "react";

export default function Form({ onSave }) {
  const [name, setName] = useState("");

  const handleSubmit = async (e) => {
    e.preventDefault();
    await onSave(name);
  };

  const handleReset = () => {
    setName("");
  };

  return (
    <form onSubmit={handleSubmit}>
      <input value={name} onChange={(e) => setName(e.target.value)} />
    </form>
  );
}
"""
HANDLER = """  const handleSubmit = async (e) => {
    e.preventDefault();
    if (!name) return;
    await onSave(name.trim());
  };
"""
FORM_AFTER = FORM.replace(
    "    e.preventDefault();\n    await onSave(name);\n",
    "    e.preventDefault();\n    if (!name) return;\n    await onSave(name.trim());\n",
)


def test_copilot_nested_const_with_a_filepath_comment(tmp_path):
    reply = (
        "Update the submit handler:\n\n````jsx\n// filepath: src/Form.jsx\n"
        f"// ...existing code...\n{HANDLER}// ...existing code...\n````\n"
    )
    assert written(plan(tmp_path, {"src/Form.jsx": FORM}, reply), "src/Form.jsx") == FORM_AFTER


def test_copilot_nested_const_for_the_editors_file(tmp_path):
    reply = f"````jsx\n// ...existing code...\n{HANDLER}// ...existing code...\n````\n"
    p = plan(tmp_path, {"src/Form.jsx": FORM}, reply, target="src/Form.jsx")
    assert written(p, "src/Form.jsx") == FORM_AFTER


SERVER = """const express = require("express");
const app = express();

app.get("/", function (req, res) {
  res.send("hi");
});

app.listen(3000, function () {
  console.log("up");
});
"""


def test_copilot_callback_argument(tmp_path):
    reply = (
        '````js\n// ...existing code...\napp.get("/", function (req, res) {\n'
        '  res.send("hello");\n});\n// ...existing code...\n````\n'
    )
    p = plan(tmp_path, {"server.js": SERVER}, reply, target="server.js")
    assert written(p, "server.js") == SERVER.replace('"hi"', '"hello"')


CONFIG = """export const config = {
  name: "a",
  build: {
    minify: false,
  },
  serve() {
    return 1;
  },
};
"""


def test_copilot_object_property(tmp_path):
    reply = (
        "````ts\n// ...existing code...\n  build: {\n    minify: true,\n  },\n"
        "// ...existing code...\n````\n"
    )
    p = plan(tmp_path, {"config.ts": CONFIG}, reply, target="config.ts")
    assert written(p, "config.ts") == CONFIG.replace("false", "true")


COUNTER = """export class Counter {
  #count = 0;

  #bump(by: number): void {
    this.#count += by;
  }

  increment(): void {
    this.#bump(1);
  }
}
"""


def test_a_typescript_private_method_is_a_definition(tmp_path):
    reply = (
        "In `counter.ts`:\n\n```ts\n  #bump(by: number): void {\n"
        '    if (by < 0) throw new Error("negative");\n    this.#count += by;\n  }\n```\n'
    )
    out = written(plan(tmp_path, {"counter.ts": COUNTER}, reply), "counter.ts")
    assert out == COUNTER.replace(
        "  #bump(by: number): void {\n",
        '  #bump(by: number): void {\n    if (by < 0) throw new Error("negative");\n',
    )


def test_the_outline_names_private_members():
    from lsp_server.resolve import outline, syntax

    p = syntax.parse(COUNTER, syntax.grammar("typescript"), "counter.ts")
    assert [(i.kind, i.name) for i in outline.index(p)][:3] == [
        ("class", "Counter"),
        ("property", "#count"),
        ("method", "#bump"),
    ]
