"""Per-language data for structural targets: which syntax nodes count as structures.

Structural targets (`TARGET_NODE: class UserAuth` / `validate`) are resolved against a
tree-sitter tree. What a "function" or a "class" is differs per grammar, so it lives here as
data, not code: each `LanguageSpec` names the node types that are structures (and their
kind), the block-bearing statements a level may name by their first line, the wrapper
nodes that belong to the structure they wrap (decorators, `export`, `template <...>`), the
sibling nodes above a structure that belong to it (Rust `#[...]`, TypeScript decorators),
and how to read a name when the grammar has no `name` field. Types a grammar does not
know are dropped when the spec is bound to the grammar, so one table serves every grammar
version; a test checks that every type listed here exists in the bundled grammars.

Grammars without an entry get `generic_spec`: node types ending in `_definition`,
`_declaration`, `_item`, `_specifier` or `_signature` are structures when a name can be
read from them, and common control-flow statements are blocks.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from types import MappingProxyType
from typing import NamedTuple

# Canonical kinds, and the words a model uses for them in `TARGET_NODE: <kind> <name>`.
CALLABLE = frozenset({"function", "method", "constructor", "macro"})
TYPES = frozenset(
    {"class", "struct", "interface", "trait", "enum", "type", "union", "record", "object"}
)
VARIABLES = frozenset({"variable", "const", "property", "field"})
IMPLS = frozenset({"impl", "extension"})

KIND_WORDS: Mapping[str, frozenset[str]] = MappingProxyType(
    {
        **dict.fromkeys(
            ("def", "function", "func", "fn", "fun", "method", "sub", "proc", "procedure"),
            CALLABLE,
        ),
        **dict.fromkeys(("constructor", "ctor", "init"), CALLABLE),
        "component": CALLABLE | TYPES | VARIABLES,
        "macro": frozenset({"macro"}),
        **dict.fromkeys(
            (
                "class",
                "struct",
                "interface",
                "trait",
                "protocol",
                "enum",
                "type",
                "typedef",
                "typealias",
                "record",
                "union",
                "object",
            ),
            TYPES,
        ),
        **dict.fromkeys(("impl", "extension"), IMPLS),
        **dict.fromkeys(("module", "mod", "namespace", "package"), frozenset({"module"})),
        **dict.fromkeys(
            ("const", "let", "var", "val", "variable", "property", "field", "attribute"),
            VARIABLES,
        ),
        **dict.fromkeys(("section", "heading", "header", "chapter"), frozenset({"section"})),
        **dict.fromkeys(("list", "item", "bullet"), frozenset({"list_item"})),
        **dict.fromkeys(("code", "fence", "codeblock", "snippet"), frozenset({"code_block"})),
        **dict.fromkeys(("quote", "blockquote"), frozenset({"blockquote"})),
        **dict.fromkeys(("element", "tag"), frozenset({"element"})),
        **dict.fromkeys(("rule", "selector", "ruleset"), frozenset({"rule"})),
        "media": frozenset({"media"}),
        "keyframes": frozenset({"keyframes"}),
        **dict.fromkeys(("key", "table", "pair", "entry"), frozenset({"key", "table"})),
    }
)

# Words that precede a name without saying what it is; skipped when reading a level.
MODIFIERS = frozenset(
    {
        "pub",
        "pub(crate)",
        "export",
        "default",
        "async",
        "static",
        "public",
        "private",
        "protected",
        "internal",
        "abstract",
        "final",
        "override",
        "virtual",
        "inline",
        "extern",
        "unsafe",
        "open",
        "sealed",
        "data",
        "case",
        "suspend",
        "local",
        "readonly",
        "declare",
        "partial",
        "sync",
        "synchronized",
        "native",
        "fileprivate",
        "mutating",
        "lazy",
        "constexpr",
        "explicit",
        "friend",
    }
)

# Node types that are comments in some grammar (found by position above a structure).
COMMENT_WORD = "comment"

# The default of a spec's mappings: one shared empty mapping, read-only so no spec can
# change another's.
_NONE: Mapping[str, str] = MappingProxyType({})


class LanguageSpec(NamedTuple):
    """What counts as a structure in one grammar. See the module docstring."""

    name: str
    structures: Mapping[str, str]  # node type -> canonical kind
    blocks: frozenset[str] = frozenset()  # block-bearing nodes, matched by their first line
    wrappers: frozenset[str] = frozenset()  # parents that belong to their sole structure child
    attached: frozenset[str] = frozenset()  # siblings above a structure that belong to it
    weak: frozenset[str] = frozenset()  # declarations only; lose to a definition of that name
    names: Mapping[str, str] = _NONE  # node type -> name path
    kind_rules: Mapping[str, str] = _NONE  # node type -> dynamic kind
    top_blank_lines: int = 1  # blank lines between top-level definitions
    nested_blank_lines: int = 1
    comment_markers: tuple[str, ...] = ("//", "/*")
    data: bool = False  # JSON / YAML / TOML: TARGET_PATH addresses values
    convert_indent_units: bool = True  # False where indentation is content (Markdown, YAML)


_C_LIKE_COMMENTS = ("//", "/*")
_HASH_COMMENTS = ("#",)

_JS_STRUCTURES = {
    "function_declaration": "function",
    "generator_function_declaration": "function",
    "class_declaration": "class",
    "method_definition": "method",
    "variable_declarator": "variable",
    "field_definition": "property",
}
_TS_STRUCTURES = {
    **{k: v for k, v in _JS_STRUCTURES.items() if k != "field_definition"},
    "abstract_class_declaration": "class",
    "interface_declaration": "interface",
    "type_alias_declaration": "type",
    "enum_declaration": "enum",
    "internal_module": "module",
    "module": "module",
    "public_field_definition": "property",
    "method_signature": "method",
    "abstract_method_signature": "method",
    "function_signature": "function",
    "property_signature": "property",
}
_JS_BLOCKS = frozenset(
    {
        "if_statement",
        "else_clause",
        "for_statement",
        "for_in_statement",
        "while_statement",
        "do_statement",
        "switch_statement",
        "switch_case",
        "switch_default",
        "try_statement",
        "catch_clause",
        "finally_clause",
        "arrow_function",
        "function_expression",
        "generator_function",
        "object",
        "class",
        "class_static_block",
    }
)
_JSX_BLOCKS = frozenset({"jsx_element", "jsx_self_closing_element"})
_JS_WRAPPERS = frozenset(
    {"export_statement", "lexical_declaration", "variable_declaration", "expression_statement"}
)
_TS_WRAPPERS = _JS_WRAPPERS | {"ambient_declaration"}
_JS_NAMES = {"field_definition": "property", "variable_declarator": "name"}
_TS_NAMES = {"variable_declarator": "name"}
_JS_KINDS = {"variable_declarator": "value"}

_C_STRUCTURES = {
    "function_definition": "function",
    "struct_specifier": "struct",
    "union_specifier": "union",
    "enum_specifier": "enum",
    "type_definition": "type",
    "declaration": "variable",
    "preproc_def": "macro",
    "preproc_function_def": "macro",
}
_C_BLOCKS = frozenset(
    {
        "if_statement",
        "else_clause",
        "for_statement",
        "while_statement",
        "do_statement",
        "switch_statement",
        "case_statement",
    }
)
_C_NAMES = {
    "function_definition": "declarator*",
    "type_definition": "declarator*",
    "declaration": "declarator*",
    "field_declaration": "declarator*",
}

SPECS: Mapping[str, LanguageSpec] = MappingProxyType(
    {
        "python": LanguageSpec(
            name="python",
            structures={
                "function_definition": "function",
                "class_definition": "class",
                "assignment": "variable",
                "type_alias_statement": "type",
            },
            blocks=frozenset(
                {
                    "if_statement",
                    "elif_clause",
                    "else_clause",
                    "for_statement",
                    "while_statement",
                    "with_statement",
                    "try_statement",
                    "except_clause",
                    "finally_clause",
                    "match_statement",
                    "case_clause",
                    "lambda",
                }
            ),
            wrappers=frozenset({"decorated_definition", "expression_statement"}),
            names={"assignment": "left", "type_alias_statement": "left"},
            top_blank_lines=2,
            comment_markers=_HASH_COMMENTS,
        ),
        "javascript": LanguageSpec(
            name="javascript",
            structures=_JS_STRUCTURES,
            blocks=_JS_BLOCKS | _JSX_BLOCKS,
            wrappers=_JS_WRAPPERS,
            attached=frozenset({"decorator"}),
            names=_JS_NAMES,
            kind_rules=_JS_KINDS,
        ),
        "typescript": LanguageSpec(
            name="typescript",
            structures=_TS_STRUCTURES,
            blocks=_JS_BLOCKS,
            wrappers=_TS_WRAPPERS,
            attached=frozenset({"decorator"}),
            weak=frozenset({"function_signature"}),
            names=_TS_NAMES,
            kind_rules=_JS_KINDS,
        ),
        "tsx": LanguageSpec(
            name="tsx",
            structures=_TS_STRUCTURES,
            blocks=_JS_BLOCKS | _JSX_BLOCKS,
            wrappers=_TS_WRAPPERS,
            attached=frozenset({"decorator"}),
            weak=frozenset({"function_signature"}),
            names=_TS_NAMES,
            kind_rules=_JS_KINDS,
        ),
        "go": LanguageSpec(
            name="go",
            structures={
                "function_declaration": "function",
                "method_declaration": "method",
                "type_spec": "type",
                "type_alias": "type",
                "const_spec": "const",
                "var_spec": "variable",
                "method_elem": "method",
                "field_declaration": "field",
            },
            blocks=frozenset(
                {
                    "if_statement",
                    "for_statement",
                    "expression_switch_statement",
                    "type_switch_statement",
                    "select_statement",
                    "func_literal",
                    "expression_case",
                    "type_case",
                    "communication_case",
                    "default_case",
                }
            ),
            wrappers=frozenset({"type_declaration", "const_declaration", "var_declaration"}),
            names={"method_declaration": "=go_method"},
            kind_rules={"type_spec": "go_type"},
        ),
        "rust": LanguageSpec(
            name="rust",
            structures={
                "function_item": "function",
                "function_signature_item": "function",
                "struct_item": "struct",
                "enum_item": "enum",
                "union_item": "union",
                "trait_item": "trait",
                "impl_item": "impl",
                "mod_item": "module",
                "const_item": "const",
                "static_item": "variable",
                "type_item": "type",
                "macro_definition": "macro",
                "field_declaration": "field",
                "enum_variant": "field",
            },
            blocks=frozenset(
                {
                    "if_expression",
                    "else_clause",
                    "for_expression",
                    "while_expression",
                    "loop_expression",
                    "match_expression",
                    "match_arm",
                    "closure_expression",
                    "unsafe_block",
                    "async_block",
                }
            ),
            attached=frozenset({"attribute_item"}),
            weak=frozenset({"function_signature_item"}),
            names={"impl_item": "=rust_impl"},
        ),
        "java": LanguageSpec(
            name="java",
            structures={
                "class_declaration": "class",
                "interface_declaration": "interface",
                "enum_declaration": "enum",
                "record_declaration": "class",
                "annotation_type_declaration": "interface",
                "method_declaration": "method",
                "constructor_declaration": "constructor",
                "compact_constructor_declaration": "constructor",
                "field_declaration": "field",
                "constant_declaration": "const",
            },
            blocks=frozenset(
                {
                    "if_statement",
                    "for_statement",
                    "enhanced_for_statement",
                    "while_statement",
                    "do_statement",
                    "switch_expression",
                    "switch_block_statement_group",
                    "switch_rule",
                    "try_statement",
                    "try_with_resources_statement",
                    "catch_clause",
                    "finally_clause",
                    "lambda_expression",
                    "synchronized_statement",
                    "static_initializer",
                }
            ),
            names={
                "field_declaration": "declarator/name",
                "constant_declaration": "declarator/name",
            },
        ),
        "c": LanguageSpec(
            name="c",
            structures=_C_STRUCTURES,
            blocks=_C_BLOCKS,
            weak=frozenset({"declaration"}),
            names=_C_NAMES,
        ),
        "cpp": LanguageSpec(
            name="cpp",
            structures={
                **_C_STRUCTURES,
                "class_specifier": "class",
                "namespace_definition": "module",
                "field_declaration": "field",
                "alias_declaration": "type",
                "concept_definition": "type",
            },
            blocks=_C_BLOCKS
            | frozenset({"lambda_expression", "for_range_loop", "try_statement", "catch_clause"}),
            wrappers=frozenset({"template_declaration"}),
            weak=frozenset({"declaration", "field_declaration"}),
            names=_C_NAMES,
        ),
        "csharp": LanguageSpec(
            name="csharp",
            structures={
                "class_declaration": "class",
                "struct_declaration": "struct",
                "interface_declaration": "interface",
                "enum_declaration": "enum",
                "record_declaration": "class",
                "method_declaration": "method",
                "constructor_declaration": "constructor",
                "destructor_declaration": "method",
                "operator_declaration": "method",
                "property_declaration": "property",
                "field_declaration": "field",
                "event_declaration": "property",
                "delegate_declaration": "type",
                "namespace_declaration": "module",
                "file_scoped_namespace_declaration": "module",
                "local_function_statement": "function",
            },
            blocks=frozenset(
                {
                    "if_statement",
                    "for_statement",
                    "foreach_statement",
                    "while_statement",
                    "do_statement",
                    "switch_statement",
                    "switch_section",
                    "try_statement",
                    "catch_clause",
                    "finally_clause",
                    "lambda_expression",
                    "using_statement",
                    "lock_statement",
                    "anonymous_method_expression",
                }
            ),
            names={"field_declaration": "#variable_declaration/#variable_declarator/name"},
        ),
        "ruby": LanguageSpec(
            name="ruby",
            structures={
                "method": "method",
                "singleton_method": "method",
                "class": "class",
                "module": "module",
                "singleton_class": "class",
                "assignment": "const",
            },
            blocks=frozenset(
                {
                    "if",
                    "unless",
                    "elsif",
                    "else",
                    "while",
                    "until",
                    "for",
                    "case",
                    "when",
                    "begin",
                    "do_block",
                    "block",
                    "lambda",
                }
            ),
            names={"assignment": "left"},
            comment_markers=_HASH_COMMENTS,
        ),
        "php": LanguageSpec(
            name="php",
            structures={
                "function_definition": "function",
                "method_declaration": "method",
                "class_declaration": "class",
                "interface_declaration": "interface",
                "trait_declaration": "trait",
                "enum_declaration": "enum",
                "namespace_definition": "module",
                "const_declaration": "const",
                "property_declaration": "property",
            },
            blocks=frozenset(
                {
                    "if_statement",
                    "else_if_clause",
                    "else_clause",
                    "for_statement",
                    "foreach_statement",
                    "while_statement",
                    "do_statement",
                    "switch_statement",
                    "try_statement",
                    "catch_clause",
                    "anonymous_function",
                    "arrow_function",
                    "match_expression",
                }
            ),
            names={
                "const_declaration": "#const_element/#name",
                "property_declaration": "#property_element/#variable_name",
            },
            comment_markers=("//", "#", "/*"),
        ),
        "kotlin": LanguageSpec(
            name="kotlin",
            structures={
                "class_declaration": "class",
                "object_declaration": "object",
                "companion_object": "object",
                "function_declaration": "function",
                "property_declaration": "property",
                "type_alias": "type",
                "secondary_constructor": "constructor",
            },
            blocks=frozenset(
                {
                    "if_expression",
                    "for_statement",
                    "while_statement",
                    "do_while_statement",
                    "when_expression",
                    "when_entry",
                    "try_expression",
                    "lambda_literal",
                    "anonymous_function",
                    "annotated_lambda",
                }
            ),
            names={
                "class_declaration": "#type_identifier",
                "object_declaration": "#type_identifier",
                "companion_object": "#type_identifier",
                "function_declaration": "#simple_identifier",
                "property_declaration": "#variable_declaration/#simple_identifier",
                "type_alias": "#type_identifier",
                "secondary_constructor": "=constructor",
            },
            kind_rules={"class_declaration": "keyword"},
        ),
        "swift": LanguageSpec(
            name="swift",
            structures={
                "class_declaration": "class",
                "protocol_declaration": "interface",
                "function_declaration": "function",
                "protocol_function_declaration": "function",
                "init_declaration": "constructor",
                "deinit_declaration": "method",
                "property_declaration": "property",
                "typealias_declaration": "type",
                "subscript_declaration": "method",
            },
            blocks=frozenset(
                {
                    "if_statement",
                    "guard_statement",
                    "for_statement",
                    "while_statement",
                    "repeat_while_statement",
                    "switch_statement",
                    "switch_entry",
                    "do_statement",
                    "lambda_literal",
                }
            ),
            names={"init_declaration": "=init", "deinit_declaration": "=deinit"},
            kind_rules={"class_declaration": "keyword"},
        ),
        "scala": LanguageSpec(
            name="scala",
            structures={
                "class_definition": "class",
                "object_definition": "object",
                "trait_definition": "trait",
                "enum_definition": "enum",
                "function_definition": "function",
                "function_declaration": "function",
                "val_definition": "const",
                "var_definition": "variable",
                "val_declaration": "const",
                "var_declaration": "variable",
                "type_definition": "type",
                "given_definition": "variable",
                "extension_definition": "extension",
            },
            blocks=frozenset(
                {
                    "if_expression",
                    "for_expression",
                    "while_expression",
                    "do_while_expression",
                    "match_expression",
                    "case_clause",
                    "try_expression",
                    "catch_clause",
                    "lambda_expression",
                }
            ),
            names={
                "val_definition": "pattern",
                "var_definition": "pattern",
                "extension_definition": "=extension",
            },
        ),
        "lua": LanguageSpec(
            name="lua",
            structures={
                "function_declaration": "function",
                "assignment_statement": "variable",
            },
            blocks=frozenset(
                {
                    "if_statement",
                    "elseif_statement",
                    "else_statement",
                    "for_statement",
                    "while_statement",
                    "repeat_statement",
                    "do_statement",
                    "function_definition",
                    "table_constructor",
                }
            ),
            wrappers=frozenset({"variable_declaration"}),
            names={"assignment_statement": "#variable_list/name"},
            kind_rules={"assignment_statement": "lua_assign"},
            comment_markers=("--",),
        ),
        "bash": LanguageSpec(
            name="bash",
            structures={"function_definition": "function"},
            blocks=frozenset(
                {
                    "if_statement",
                    "elif_clause",
                    "else_clause",
                    "for_statement",
                    "c_style_for_statement",
                    "while_statement",
                    "case_statement",
                    "case_item",
                    "subshell",
                }
            ),
            comment_markers=_HASH_COMMENTS,
        ),
        "markdown": LanguageSpec(
            name="markdown",
            structures={
                "section": "section",
                "list_item": "list_item",
                "fenced_code_block": "code_block",
                "block_quote": "blockquote",
            },
            names={
                "section": "=md_section",
                "list_item": "=md_item",
                "fenced_code_block": "=md_code",
                "block_quote": "=md_quote",
            },
            comment_markers=("<!--",),
            convert_indent_units=False,
        ),
        "json": LanguageSpec(
            name="json",
            structures={"pair": "key"},
            names={"pair": "=data_key"},
            data=True,
            comment_markers=("//",),
        ),
        "yaml": LanguageSpec(
            name="yaml",
            structures={"block_mapping_pair": "key", "flow_pair": "key"},
            names={"block_mapping_pair": "=data_key", "flow_pair": "=data_key"},
            data=True,
            comment_markers=_HASH_COMMENTS,
            convert_indent_units=False,
        ),
        "toml": LanguageSpec(
            name="toml",
            structures={"table": "table", "table_array_element": "table", "pair": "key"},
            names={"table": "=data_key", "table_array_element": "=data_key", "pair": "=data_key"},
            data=True,
            comment_markers=_HASH_COMMENTS,
        ),
        "html": LanguageSpec(
            name="html",
            structures={
                "element": "element",
                "script_element": "element",
                "style_element": "element",
            },
            names={
                "element": "=html_element",
                "script_element": "=html_element",
                "style_element": "=html_element",
            },
            comment_markers=("<!--",),
        ),
        "css": LanguageSpec(
            name="css",
            structures={
                "rule_set": "rule",
                "media_statement": "media",
                "keyframes_statement": "keyframes",
                "supports_statement": "media",
                "at_rule": "media",
            },
            blocks=frozenset({"keyframe_block"}),
            names={
                "rule_set": "=css_rule",
                "media_statement": "=css_at",
                "supports_statement": "=css_at",
                "at_rule": "=css_at",
                "keyframes_statement": "#keyframes_name",
            },
            comment_markers=("/*",),
        ),
    }
)

# Languages that share another's table (their grammars use the same node types).
SPEC_ALIASES: Mapping[str, str] = MappingProxyType({"scss": "css", "arduino": "cpp", "cuda": "cpp"})

TABLED_LANGUAGES: tuple[str, ...] = tuple(SPECS)

_GENERIC_SUFFIXES = ("_definition", "_declaration", "_item", "_specifier", "_signature")
# Patterns for `generic_spec` only, kept as text: `re` compiles and caches them on first
# use, so a file in a tabled language never pays for compiling them.
_GENERIC_BLOCK = (
    r"^(if|elif|else|for|foreach|while|do|loop|match|switch|case|when|try|catch|with|unless"
    r"|until|repeat|lambda|closure|anonymous_function|function_expression|arrow_function"
    r"|func_literal)(_statement|_expression|_clause|_block|_literal|_loop)?$"
)
_GENERIC_KIND = (
    r"(function|method|class|struct|interface|trait|enum|type|module|namespace|impl|const"
    r"|variable|macro|union|object|record|protocol|property|field|constructor)"
)
_KIND_CANON = {"namespace": "module"}
# Suffix-matching node types that are never useful targets on their own.
_GENERIC_SKIP = (
    r"(parameter|argument|specifier_list|storage_class|type_specifier|access_specifier"
    r"|import|include|using|package|attribute|annotation|modifier|qualifier|label)"
)


def generic_spec(name: str, node_kinds: list[str]) -> LanguageSpec:
    """A spec for a grammar without a table entry, read off its list of node kinds."""
    structures: dict[str, str] = {}
    blocks: set[str] = set()
    for kind in node_kinds:
        if kind.endswith(_GENERIC_SUFFIXES) and not re.search(_GENERIC_SKIP, kind):
            m = re.search(_GENERIC_KIND, kind)
            canon = m.group(1) if m else "definition"
            structures[kind] = _KIND_CANON.get(canon, canon)
        elif re.match(_GENERIC_BLOCK, kind):
            blocks.add(kind)
    return LanguageSpec(name=name, structures=structures, blocks=frozenset(blocks))


def spec_name(language: str) -> str:
    """The table entry a grammar uses (its own, or the one it shares)."""
    return SPEC_ALIASES.get(language, language)
