"""TARGET_PATH in JSON, YAML and TOML: one value changes, every other byte stays."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lsp_server.model import Target
from lsp_server.resolve.data_path_syntax import parse_data_path
from lsp_server.resolve.structure import apply_structure, read_structure


def put(
    path: str, text: str, data_path: str, content: str | None, operation: str = "replace_structure"
) -> str:
    return apply_structure(
        text, path, Target(data_path=data_path, operation=operation), content
    ).text


@pytest.mark.parametrize(
    "path,segments",
    [
        ("a.b[2].c", ["a", "b", 2, "c"]),
        ('a."b.c".d', ["a", "b.c", "d"]),
        ("a['b.c']", ["a", "b.c"]),
        ('a["x y"][0]', ["a", "x y", 0]),
        ("$.a.b", ["a", "b"]),
        ("/a/b~1c/0", ["a", "b/c", "0"]),
        ("servers[-1]", ["servers", -1]),
    ],
)
def test_parse_data_path(path: str, segments: list) -> None:
    assert parse_data_path(path) == segments


PKG = """{
  "name": "x",
  "scripts": {
    "build": "tsc",
    "test": "jest"
  },
  "list": [1, {"a": 2}, 3],
  "empty": {}
}
"""


@pytest.mark.parametrize(
    "data_path,content,old,new",
    [
        ("scripts.build", '"tsc -p ."', '"build": "tsc"', '"build": "tsc -p ."'),
        ("scripts.build", '"build": "tsc -b",', '"build": "tsc"', '"build": "tsc -b"'),
        ("list[1].a", "5", '{"a": 2}', '{"a": 5}'),
        ("list[-1]", "4", '{"a": 2}, 3]', '{"a": 2}, 4]'),
        ("/scripts/test", '"vitest"', '"jest"', '"vitest"'),
        (
            "scripts",
            '{\n  "a": "b",\n  "c": {\n    "d": 1\n  }\n}',
            '{\n    "build": "tsc",\n    "test": "jest"\n  }',
            '{\n    "a": "b",\n    "c": {\n      "d": 1\n    }\n  }',
        ),
    ],
)
def test_json_value_replacement(data_path: str, content: str, old: str, new: str) -> None:
    assert PKG.count(old) == 1
    assert put("package.json", PKG, data_path, content) == PKG.replace(old, new)


def test_json_adds_a_new_key_next_to_its_siblings() -> None:
    out = put("package.json", PKG, "scripts.lint", '"eslint ."')
    assert out == PKG.replace('"test": "jest"\n', '"test": "jest",\n    "lint": "eslint ."\n')
    json.loads(out)


def test_json_adds_to_an_empty_object_and_appends_to_an_array() -> None:
    assert put("package.json", PKG, "empty.k", '"v"') == PKG.replace(
        '"empty": {}', '"empty": {"k": "v"}'
    )
    assert put("package.json", PKG, "list[3]", "4") == PKG.replace("3],", "3, 4],")


def test_json_adds_a_multiline_value_indented_like_its_siblings() -> None:
    out = put("package.json", PKG, "scripts.more", '{\n  "x": 1\n}')
    assert '    "more": {\n      "x": 1\n    }\n' in out
    json.loads(out)


def test_json_delete_handles_commas() -> None:
    assert put("p.json", PKG, "scripts.test", None, "delete_structure") == PKG.replace(
        '"tsc",\n    "test": "jest"', '"tsc"'
    )
    assert put("p.json", PKG, "scripts.build", None, "delete_structure") == PKG.replace(
        '"build": "tsc",\n    ', ""
    )
    for data_path in ("scripts.test", "scripts.build", "list[0]", "list[2]", "name"):
        json.loads(put("p.json", PKG, data_path, None, "delete_structure"))


def test_json_keeps_crlf_and_no_final_newline() -> None:
    text = '{\r\n  "a": 1,\r\n  "b": 2\r\n}'
    assert put("x.json", text, "b", "3") == '{\r\n  "a": 1,\r\n  "b": 3\r\n}'


def test_read_data_path() -> None:
    [found] = read_structure(PKG, "p.json", Target(data_path="scripts"))
    assert found["lines"] == [3, 6]
    assert found["text"].startswith("{\n")


YAML = """# settings
name: x
server:
  port: 8080  # the port
  hosts:
    - a
    - b: 1
      c: 2
flow: {a: 1, b: [1, 2]}
"""


@pytest.mark.parametrize(
    "data_path,content,old,new",
    [
        ("server.port", "9090", "port: 8080", "port: 9090"),
        ("server.port", "port: 9091", "port: 8080", "port: 9091"),
        ("server.hosts", "- x\n- y\n", "    - a\n    - b: 1\n      c: 2\n", "    - x\n    - y\n"),
        ("server.hosts[1].c", "3", "c: 2", "c: 3"),
        ("server.hosts[0]", "z", "- a\n", "- z\n"),
        ("flow.b", "[3]", "b: [1, 2]", "b: [3]"),
        ("name", '"quoted"', "name: x", 'name: "quoted"'),
        (
            "server",
            "server:\n  port: 1\n  hosts: []\n",
            "  port: 8080  # the port\n  hosts:\n    - a\n    - b: 1\n      c: 2\n",
            "  port: 1\n  hosts: []\n",
        ),
    ],
)
def test_yaml_value_replacement_keeps_comments_and_layout(
    data_path: str, content: str, old: str, new: str
) -> None:
    assert YAML.count(old) == 1
    assert put("c.yaml", YAML, data_path, content) == YAML.replace(old, new)


def test_yaml_block_scalar() -> None:
    text = "run: |\n  echo a\nnext: 1\n"
    assert (
        put("ci.yml", text, "run", "|\n  echo b\n  echo c\n")
        == "run: |\n  echo b\n  echo c\nnext: 1\n"
    )


def test_yaml_adds_a_key_to_a_mapping() -> None:
    assert put("c.yaml", YAML, "server.debug", "true") == YAML.replace(
        "      c: 2\n", "      c: 2\n  debug: true\n"
    )


def test_yaml_delete_a_pair() -> None:
    assert put("c.yaml", YAML, "name", None, "delete_structure") == YAML.replace("name: x\n", "")


TOML = """# top
title = "x"

[server]
port = 8080 # the port
hosts = ["a", "b"]

[server.tls]
on = true

[[products]]
name = "a"

[[products]]
name = "b"
inline = { x = 1 }
"""


@pytest.mark.parametrize(
    "data_path,content,old,new",
    [
        ("server.port", "9090", "port = 8080", "port = 9090"),
        ("server.tls.on", "false", "on = true", "on = false"),
        ("products[1].name", '"bb"', 'name = "b"', 'name = "bb"'),
        ("products[0].name", '"aa"', 'name = "a"', 'name = "aa"'),
        ("products[1].inline.x", "2", "x = 1", "x = 2"),
        ("server.hosts[0]", '"z"', '["a", "b"]', '["z", "b"]'),
        ("title", 'title = "y"', 'title = "x"', 'title = "y"'),
        ("server.tls", "on = false\nver = 3", "on = true\n", "on = false\nver = 3\n"),
    ],
)
def test_toml_value_replacement(data_path: str, content: str, old: str, new: str) -> None:
    assert TOML.count(old) == 1
    assert put("c.toml", TOML, data_path, content) == TOML.replace(old, new)


def test_toml_adds_a_key_to_a_table() -> None:
    assert put("c.toml", TOML, "server.debug", "true") == TOML.replace(
        'hosts = ["a", "b"]\n', 'hosts = ["a", "b"]\ndebug = true\n'
    )


def test_target_node_levels_work_as_a_path_in_data_files() -> None:
    out = apply_structure(TOML, "c.toml", Target(node=("server", "port")), "1").text
    assert out == TOML.replace("port = 8080", "port = 1")


# ----------------------------------------------------------------------------- properties

KEYS = st.from_regex(r"[a-z][a-z0-9_]{0,6}", fullmatch=True)
SCALARS = st.one_of(st.integers(-999, 999), st.booleans(), st.text("abcxyz é", max_size=6))


@settings(max_examples=50, deadline=None)
@given(
    data=st.dictionaries(
        KEYS, st.dictionaries(KEYS, SCALARS, min_size=1, max_size=4), min_size=1, max_size=4
    ),
    indent=st.sampled_from([2, 4, "\t"]),
    pick=st.integers(0, 100),
    value=SCALARS,
)
def test_json_edit_changes_exactly_the_value(data: dict, indent, pick: int, value) -> None:
    text = json.dumps(data, indent=indent, ensure_ascii=False) + "\n"
    outer = sorted(data)[pick % len(data)]
    inner = sorted(data[outer])[pick % len(data[outer])]
    out = put("d.json", text, f"{outer}.{inner}", json.dumps(value, ensure_ascii=False))
    expected = dict(data)
    expected[outer] = dict(data[outer])
    expected[outer][inner] = value
    assert out == json.dumps(expected, indent=indent, ensure_ascii=False) + "\n"


@settings(max_examples=50, deadline=None)
@given(
    data=st.dictionaries(
        KEYS,
        st.dictionaries(KEYS, st.integers(0, 99), min_size=1, max_size=4),
        min_size=1,
        max_size=4,
    ),
    pick=st.integers(0, 100),
    value=st.integers(100, 999),
)
def test_yaml_and_toml_edits_change_exactly_the_value(data: dict, pick: int, value: int) -> None:
    outer = sorted(data)[pick % len(data)]
    inner = sorted(data[outer])[pick % len(data[outer])]

    def yaml_of(d: dict) -> str:
        return "".join(
            f"{k}:  # section {k}\n" + "".join(f"  {ik}: {iv}\n" for ik, iv in sorted(v.items()))
            for k, v in sorted(d.items())
        )

    def toml_of(d: dict) -> str:
        return "\n".join(
            f"[{k}]\n" + "".join(f"{ik} = {iv}  # was {iv}\n" for ik, iv in sorted(v.items()))
            for k, v in sorted(d.items())
        )

    expected = {k: dict(v) for k, v in data.items()}
    expected[outer][inner] = value
    assert put("d.yaml", yaml_of(data), f"{outer}.{inner}", str(value)) == yaml_of(expected)
    toml_out = put("d.toml", toml_of(data), f"{outer}.{inner}", str(value))
    old_line = f"{inner} = {data[outer][inner]}  # was {data[outer][inner]}\n"
    new_line = f"{inner} = {value}  # was {data[outer][inner]}\n"
    head, _, tail = toml_of(data).partition(f"[{outer}]\n")
    assert toml_out == head + f"[{outer}]\n" + tail.replace(old_line, new_line, 1)
