"""Issue 22 item 8: a re-indent never changes a line inside a multi-line string literal,
and a file's indentation style is read from its code."""

from __future__ import annotations

import pytest

from tests.merge.support import plan, written

GO = """package main

import "fmt"

const header = `#!/bin/sh
    set -e
    echo start
        nested
`

func script(name string) string {
\ttmpl := `#!/bin/sh
    set -e
    if [ -n "$X" ]; then
        echo "%s"
    fi
`
\treturn fmt.Sprintf(tmpl, name)
}

func other() int {
\tif true {
\t\treturn 1
\t}
\treturn 2
}
"""
GO_REPLY = """Update `main.go`:

```go
func script(name string) string {
\ttmpl := `#!/bin/sh
    set -e
    if [ -n "$X" ]; then
        echo "%s"
    fi
`
\tout := fmt.Sprintf(tmpl, name)
\treturn out
}
```
"""
GO_AFTER = GO.replace(
    "\treturn fmt.Sprintf(tmpl, name)\n", "\tout := fmt.Sprintf(tmpl, name)\n\treturn out\n"
)


@pytest.mark.parametrize("shown", ["tabs", "spaces"])
def test_a_go_function_holding_a_raw_string_keeps_gofmt_tabs_and_the_string(tmp_path, shown):
    reply = GO_REPLY if shown == "tabs" else GO_REPLY.replace("\t", "    ")
    assert written(plan(tmp_path, {"main.go": GO}, reply), "main.go") == GO_AFTER


PY = '''class Store:
    def sql(self):
        q = """
SELECT *
  FROM t
"""
        return q

    def other(self):
        return 1
'''


def test_a_python_method_shown_dedented_keeps_its_triple_quoted_text(tmp_path):
    reply = (
        'In `store.py`:\n\n```python\ndef sql(self):\n  q = """\nSELECT *\n  FROM t\n"""\n'
        "  return q.strip()\n```\n"
    )
    out = written(plan(tmp_path, {"store.py": PY}, reply), "store.py")
    assert out == PY.replace("        return q\n", "        return q.strip()\n")


TS = """export class Page {
  render(): string {
    return `
<div>
    <p>hi</p>
</div>`;
  }

  title(): string {
    return "a";
  }
}
"""


def test_a_template_literal_is_not_re_indented(tmp_path):
    reply = (
        "In `page.ts`:\n\n```ts\n  render(): string {\n    const x = 1;\n    return `\n<div>\n"
        "    <p>hi</p>\n</div>`;\n  }\n```\n"
    )
    out = written(plan(tmp_path, {"page.ts": TS}, reply), "page.ts")
    assert out == TS.replace("    return `\n<div>", "    const x = 1;\n    return `\n<div>")
