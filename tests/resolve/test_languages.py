"""A representative structural target in every tabled language, the table itself, the
generic rule for other grammars, and offline loading of the bundled grammars."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import PurePosixPath

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lsp_server.model import Action, EditBlock, Format, MatchKind, Target
from lsp_server.resolve import languages as L
from lsp_server.resolve import outline, syntax
from lsp_server.resolve.language_names import name_and_suffix
from lsp_server.resolve.structure import apply_structure
from lsp_server.resolve.syntax import language_for, supported_languages


def _replace(path: str, text: str, levels: list[str], content: str) -> str:
    return apply_structure(text, path, Target(node=tuple(levels)), content).text


# (path, source, target levels, new code as the model sends it (column 0), old, new)
# The expected file is `source` with `old` replaced by `new`: everything else byte-for-byte.
CASES = [
    (
        "src/auth.py",
        '''import os


class UserAuth:
    """Auth."""

    @property
    def name(self):
        return self.user.name

    # Checks the user.
    @staticmethod
    def validate(user):
        if user.is_active:
            return True
        return False
''',
        ["class UserAuth", "validate"],
        "def validate(user):\n    return user.ok\n",
        "    def validate(user):\n        if user.is_active:\n            return True\n"
        "        return False\n",
        "    def validate(user):\n        return user.ok\n",
    ),
    (
        "web/greet.js",
        """import x from "y";

/** Greets. */
export function greet(name) {
  return "hi " + name;
}

class Point {
  dist(other) {
    return 0;
  }
}
""",
        ["Point", "dist"],
        "dist(other) {\n    return Math.hypot(this.x - other.x);\n}\n",
        "  dist(other) {\n    return 0;\n  }\n",
        "  dist(other) {\n    return Math.hypot(this.x - other.x);\n  }\n",
    ),
    (
        "src/point.ts",
        """export default class Point<T> extends Base implements I {
  private x = 1;
  @memo()
  dist(other: Point): number {
    return 0;
  }
}

interface Shape {
  area(): number;
}
""",
        ["class Point", "dist"],
        "dist(other: Point): number {\n  return 1;\n}\n",
        "  dist(other: Point): number {\n    return 0;\n  }\n",
        "  dist(other: Point): number {\n    return 1;\n  }\n",
    ),
    (
        "src/App.tsx",
        """import React from "react";

export default function App() {
  return (
    <div className="app">
      <Header title="x" />
    </div>
  );
}
""",
        ["component App"],
        "function App() {\n  return <main />;\n}\n",
        '  return (\n    <div className="app">\n      <Header title="x" />\n    </div>\n  );\n',
        "  return <main />;\n",
    ),
    (
        "geo/point.go",
        """package geo

// Point is a point.
type Point struct {
\tX, Y int
}

// Dist returns the distance.
func (p *Point) Dist(q Point) int {
\treturn 0
}
""",
        ["Point", "Dist"],
        "func (p *Point) Dist(q Point) int {\n    if p.X > q.X {\n        return p.X - q.X\n"
        "    }\n    return q.X - p.X\n}\n",
        "\treturn 0\n",
        "\tif p.X > q.X {\n\t\treturn p.X - q.X\n\t}\n\treturn q.X - p.X\n",
    ),
    (
        "src/point.rs",
        """use std::fmt;

/// A point.
#[derive(Debug)]
pub struct Point {
    x: i32,
}

impl fmt::Display for Point {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        Ok(())
    }
}
""",
        ["impl Display for Point", "fn fmt"],
        'fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {\n    write!(f, "{}", self.x)\n}\n',
        "        Ok(())\n",
        '        write!(f, "{}", self.x)\n',
    ),
    (
        "src/User.java",
        """package a;

/** A user. */
@Entity
public class User {
    @Override
    public String toString() {
        return "";
    }
}
""",
        ["class User", "toString"],
        'public String toString() {\n    return "User";\n}\n',
        '        return "";\n',
        '        return "User";\n',
    ),
    (
        "src/add.c",
        """#include <stdio.h>

int add(int a, int b);

/** Adds. */
int add(int a, int b) {
    return 0;
}
""",
        ["add"],
        "int add(int a, int b) {\n    return a + b;\n}\n",
        "    return 0;\n",
        "    return a + b;\n",
    ),
    (
        "src/point.cpp",
        """namespace geo {
class Point {
public:
    double dist(const Point& o) const;
};
}

double geo::Point::dist(const Point& o) const {
    return 0;
}
""",
        ["Point", "dist"],
        "double geo::Point::dist(const Point& o) const {\n    return 1.0;\n}\n",
        "    return 0;\n}\n",
        "    return 1.0;\n}\n",
    ),
    (
        "src/User.cs",
        """namespace App;

public class User
{
    [Obsolete]
    public void Save()
    {
    }
}
""",
        ["User", "Save"],
        "public void Save()\n{\n    Db.Save(this);\n}\n",
        "    {\n    }\n",
        "    {\n        Db.Save(this);\n    }\n",
    ),
    (
        "lib/user.rb",
        """class User < Base
  # Greets.
  def greet(name)
    "hi"
  end
end
""",
        ["User", "def greet"],
        'def greet(name)\n  "hi #{name}"\nend\n',
        '    "hi"\n',
        '    "hi #{name}"\n',
    ),
    (
        "src/User.php",
        """<?php
namespace App;

class User {
    public function save(): void {
    }
}
""",
        ["User", "function save"],
        "public function save(): void {\n    $this->db->save($this);\n}\n",
        "    public function save(): void {\n    }\n",
        "    public function save(): void {\n        $this->db->save($this);\n    }\n",
    ),
    (
        "src/User.kt",
        """package a

data class User(val name: String) {
    fun greet(): String {
        return name
    }
}
""",
        ["User", "fun greet"],
        'fun greet(): String {\n    return "hi $name"\n}\n',
        "        return name\n",
        '        return "hi $name"\n',
    ),
    (
        "Sources/Point.swift",
        """struct Point {
    var x: Int
    func dist() -> Int {
        return 0
    }
}
""",
        ["struct Point", "func dist"],
        "func dist() -> Int {\n    return abs(x)\n}\n",
        "        return 0\n",
        "        return abs(x)\n",
    ),
    (
        "src/Point.scala",
        """class Point(x: Int) {
  def dist(o: Point): Int = {
    0
  }
}
""",
        ["Point", "dist"],
        "def dist(o: Point): Int = {\n  math.abs(x - o.x)\n}\n",
        "    0\n",
        "    math.abs(x - o.x)\n",
    ),
    (
        "lua/m.lua",
        """local M = {}

function M.greet(name)
  return name
end

return M
""",
        ["M.greet"],
        'function M.greet(name)\n  return "hi " .. name\nend\n',
        "  return name\n",
        '  return "hi " .. name\n',
    ),
    (
        "bin/run.sh",
        """#!/bin/bash
greet() {
  echo hi
}
""",
        ["greet"],
        'greet() {\n  echo "hello $1"\n}\n',
        "  echo hi\n",
        '  echo "hello $1"\n',
    ),
    (
        "docs/guide.md",
        """# Guide

Intro.

## Install

Old text.

## Usage

Run it.
""",
        ["## Install"],
        "## Install\n\nRun `pip install x`.\n",
        "Old text.\n",
        "Run `pip install x`.\n",
    ),
    (
        "package.json",
        """{
  "name": "x",
  "scripts": {
    "build": "tsc"
  }
}
""",
        ["scripts", "build"],
        '"tsc -p ."',
        '"build": "tsc"',
        '"build": "tsc -p ."',
    ),
    (
        "config.yaml",
        """# settings
server:
  port: 8080  # the port
  host: a
""",
        ["server", "port"],
        "9090",
        "port: 8080",
        "port: 9090",
    ),
    (
        "Cargo.toml",
        """[package]
name = "x"
version = "0.1.0" # bump me
""",
        ["package", "version"],
        '"0.2.0"',
        '"0.1.0"',
        '"0.2.0"',
    ),
    (
        "index.html",
        """<html>
<body>
  <div id="main" class="card">
    <p>Hi</p>
  </div>
</body>
</html>
""",
        ["div#main"],
        '<div id="main" class="card">\n  <p>Bye</p>\n</div>\n',
        "    <p>Hi</p>\n",
        "    <p>Bye</p>\n",
    ),
    (
        "style.css",
        """/* buttons */
.btn {
  color: red;
}

@media (max-width: 600px) {
  .btn {
    color: blue;
  }
}
""",
        ["@media (max-width: 600px)", ".btn"],
        ".btn {\n  color: green;\n}\n",
        "    color: blue;\n",
        "    color: green;\n",
    ),
]


def _case_id(case: tuple) -> str:
    return case[0].rsplit(".", 1)[-1]


@pytest.mark.parametrize("case", CASES, ids=[_case_id(c) for c in CASES])
def test_representative_target_in_every_tabled_language(case: tuple) -> None:
    path, source, levels, content, old, new = case
    assert source.count(old) == 1, "the test's own anchor must be unique"
    assert _replace(path, source, levels, content) == source.replace(old, new)


def test_cases_cover_every_tabled_language() -> None:
    covered = {language_for(c[0]) for c in CASES}
    assert set(L.TABLED_LANGUAGES) <= covered


@pytest.mark.parametrize("name", L.TABLED_LANGUAGES)
def test_every_tabled_node_type_exists_in_its_grammar(name: str) -> None:
    from tree_sitter_language_pack import get_language

    language = get_language(name)  # type: ignore[arg-type]
    spec = L.SPECS[name]
    listed = (
        set(spec.structures)
        | set(spec.blocks)
        | set(spec.wrappers)
        | set(spec.attached)
        | set(spec.weak)
        | set(spec.names)
        | set(spec.kind_rules)
    )
    missing = sorted(t for t in listed if language.id_for_node_kind(t, True) is None)
    assert missing == []


def test_a_structural_block_reports_a_structural_placement() -> None:
    text = "def a():\n    return 1\n\n\ndef b():\n    return 2\n"
    block = EditBlock(
        format=Format.STRUCTURAL,
        path="m.py",
        reply_lines=(1, 5),
        action=Action.STRUCTURAL,
        target=Target(node=("function b",)),
        content="def b():\n    return 3\n",
        language="python",
    )
    assert block.target is not None
    edit = apply_structure(text, "m.py", block.target, block.content, block.language)
    new, placement = edit.text, edit.placement
    assert new == "def a():\n    return 1\n\n\ndef b():\n    return 3\n"
    assert placement.match is MatchKind.STRUCTURAL
    assert (placement.start_line, placement.end_line, placement.new_end_line) == (4, 6, 6)


GENERIC = [
    # grammars without a table entry still find their definitions by the generic rule
    ("contract.sol", "contract Token {\n    function mint() public {\n    }\n}\n", "mint"),
    ("lib.dart", "class A {\n  void run() {\n  }\n}\n", "A"),
    ("geo.jl", "module Geo\nfunction area(r)\n    return r^2\nend\nend\n", "area"),
]


@pytest.mark.parametrize("path,source,name", GENERIC, ids=[g[0] for g in GENERIC])
def test_generic_rule_finds_named_definitions(path: str, source: str, name: str) -> None:
    assert language_for(path) not in L.SPECS
    p = syntax.parse(source, syntax.grammar_for(path, None), path)
    assert name in [item.name for item in outline.index(p)]


def test_generic_rule_replaces_a_solidity_function() -> None:
    source = "contract Token {\n    function mint() public {\n    }\n}\n"
    new = _replace("t.sol", source, ["Token", "mint"], "function mint() public {\n    x = 1;\n}\n")
    assert new == "contract Token {\n    function mint() public {\n        x = 1;\n    }\n}\n"


def test_language_for_uses_path_first_and_fence_tag_for_unknown_or_ambiguous() -> None:
    assert language_for("a.ts", "python") == "typescript"
    assert language_for("a.h") == "cpp"
    assert language_for("a.h", "c") == "c"
    assert language_for("notes", "py") == "python"
    assert language_for("Dockerfile") == "dockerfile"
    assert language_for("x.unknown") is None
    assert language_for(None, "text") is None


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.sampled_from(["", ".", "..", "a", "b.py", ".bashrc", "x.tar.gz", "Dockerfile", "a.b"]),
        max_size=5,
    ),
    st.booleans(),
    st.booleans(),
)
def test_file_names_and_extensions_are_read_like_pathlib(
    parts: list[str], absolute: bool, trailing: bool
) -> None:
    path = ("/" if absolute else "") + "/".join(parts) + ("/" if trailing else "")
    p = PurePosixPath(path)
    assert name_and_suffix(path) == (p.name, p.suffix)


def test_pack_offers_every_tabled_language() -> None:
    assert set(L.TABLED_LANGUAGES) <= set(supported_languages())
    assert len(supported_languages()) > 150


def test_grammars_load_with_no_network() -> None:
    """The offline install: grammars are bundled in the wheel, nothing is fetched."""
    script = textwrap.dedent(
        """
        import socket

        def refuse(*args, **kwargs):
            raise OSError("network access attempted")

        socket.socket.connect = refuse
        socket.socket.connect_ex = refuse
        socket.create_connection = refuse
        socket.getaddrinfo = refuse

        from tree_sitter_language_pack import get_parser
        for name in ("python", "typescript", "tsx", "go", "rust", "java", "c", "cpp",
                     "csharp", "ruby", "php", "kotlin", "swift", "scala", "lua", "bash",
                     "markdown", "json", "yaml", "toml", "html", "css", "zig", "elixir"):
            tree = get_parser(name).parse(b"x")
            assert tree.root_node is not None, name

        from lsp_server.model import Target
        from lsp_server.resolve.structure import apply_structure
        out = apply_structure("def f():\\n    return 1\\n", "a.py", Target(node=("f",)),
                              "def f():\\n    return 2\\n").text
        assert out == "def f():\\n    return 2\\n", out
        print("ok")
        """
    )
    env = {
        k: v
        for k, v in os.environ.items()
        if "proxy" not in k.lower() and not k.startswith(("PIP_", "UV_"))
    }
    env["NO_PROXY"] = "*"
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "ok"


def test_importing_the_module_does_not_load_grammars() -> None:
    """Server start stays fast: the pack is imported on the first structural edit."""
    script = (
        "import sys\n"
        "import lsp_server.resolve.structure\n"
        "assert 'tree_sitter_language_pack' not in sys.modules\n"
        "assert 'tree_sitter' not in sys.modules\n"
        "print('ok')\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
