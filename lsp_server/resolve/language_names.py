"""Which language a file is: by its extension or name, refined by a fence's tag.

The tables map extensions, file names and fence tags to tree-sitter grammar names;
`language_name_for` decides between them (the path decides when it is known; a tag decides
for unknown or ambiguous extensions such as `.h`). Pure data and two small functions: the
command line reads them without loading a grammar.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

# File extension (lower case, with the dot) -> grammar name in the language pack.
EXTENSIONS: Mapping[str, str] = MappingProxyType(
    {
        ".py": "python",
        ".pyi": "python",
        ".pyw": "python",
        ".js": "javascript",
        ".mjs": "javascript",
        ".cjs": "javascript",
        ".jsx": "javascript",
        ".ts": "typescript",
        ".mts": "typescript",
        ".cts": "typescript",
        ".tsx": "tsx",
        ".go": "go",
        ".rs": "rust",
        ".java": "java",
        ".c": "c",
        ".h": "cpp",
        ".cc": "cpp",
        ".cpp": "cpp",
        ".cxx": "cpp",
        ".hpp": "cpp",
        ".hh": "cpp",
        ".hxx": "cpp",
        ".ino": "arduino",
        ".cu": "cuda",
        ".cs": "csharp",
        ".rb": "ruby",
        ".rake": "ruby",
        ".gemspec": "ruby",
        ".php": "php",
        ".kt": "kotlin",
        ".kts": "kotlin",
        ".swift": "swift",
        ".scala": "scala",
        ".sc": "scala",
        ".lua": "lua",
        ".sh": "bash",
        ".bash": "bash",
        ".zsh": "bash",
        ".md": "markdown",
        ".markdown": "markdown",
        ".json": "json",
        ".jsonc": "json",
        ".yaml": "yaml",
        ".yml": "yaml",
        ".toml": "toml",
        ".html": "html",
        ".htm": "html",
        ".css": "css",
        ".scss": "scss",
        ".dart": "dart",
        ".ex": "elixir",
        ".exs": "elixir",
        ".erl": "erlang",
        ".hs": "haskell",
        ".ml": "ocaml",
        ".mli": "ocaml_interface",
        ".fs": "fsharp",
        ".jl": "julia",
        ".r": "r",
        ".R": "r",
        ".pl": "perl",
        ".pm": "perl",
        ".zig": "zig",
        ".nim": "nim",
        ".elm": "elm",
        ".clj": "clojure",
        ".cljs": "clojure",
        ".el": "elisp",
        ".vue": "vue",
        ".svelte": "svelte",
        ".sql": "sql",
        ".proto": "proto",
        ".tf": "hcl",
        ".hcl": "hcl",
        ".nix": "nix",
        ".groovy": "groovy",
        ".gradle": "groovy",
        ".m": "objc",
        ".mm": "objc",
        ".v": "v",
        ".sv": "verilog",
        ".vhd": "vhdl",
        ".xml": "xml",
        ".graphql": "graphql",
        ".gql": "graphql",
        ".ps1": "powershell",
        ".fish": "fish",
        ".vim": "vim",
        ".tex": "latex",
        ".rst": "rst",
        ".sol": "solidity",
        ".odin": "odin",
        ".gleam": "gleam",
        ".cmake": "cmake",
        ".mk": "make",
        ".ini": "ini",
        ".glsl": "glsl",
        ".wgsl": "wgsl",
        ".hlsl": "hlsl",
        ".d": "d",
        ".f90": "fortran",
        ".pas": "pascal",
        ".ada": "ada",
        ".adb": "ada",
        ".tcl": "tcl",
        ".janet": "janet",
        ".purs": "purescript",
        ".prisma": "prisma",
        ".kdl": "kdl",
        ".ron": "ron",
        ".bicep": "bicep",
        ".astro": "astro",
        ".twig": "twig",
        ".smali": "smali",
        ".thrift": "thrift",
        ".capnp": "capnp",
        ".luau": "luau",
        ".rkt": "racket",
        ".scm": "scheme",
        ".lisp": "commonlisp",
        ".gd": "gdscript",
        ".hx": "haxe",
        ".hack": "hack",
        ".cairo": "cairo",
        ".move": "move",
        ".typ": "typst",
        ".mermaid": "mermaid",
        ".mmd": "mermaid",
    }
)

# Whole file names that say their language.
FILENAMES: Mapping[str, str] = MappingProxyType(
    {
        "dockerfile": "dockerfile",
        "makefile": "make",
        "gnumakefile": "make",
        "cmakelists.txt": "cmake",
        ".bashrc": "bash",
        ".bash_profile": "bash",
        ".zshrc": "bash",
        ".profile": "bash",
        "gemfile": "ruby",
        "rakefile": "ruby",
        "go.mod": "gomod",
        "go.sum": "gosum",
        "requirements.txt": "requirements",
        ".gitignore": "gitignore",
        ".gitattributes": "gitattributes",
        "cargo.lock": "toml",
        "pipfile": "toml",
    }
)

# Fence tags and common names -> grammar name.
TAG_ALIASES: Mapping[str, str] = MappingProxyType(
    {
        "py": "python",
        "python3": "python",
        "js": "javascript",
        "jsx": "javascript",
        "node": "javascript",
        "mjs": "javascript",
        "ts": "typescript",
        "golang": "go",
        "rs": "rust",
        "c++": "cpp",
        "cxx": "cpp",
        "cc": "cpp",
        "hpp": "cpp",
        "h": "cpp",
        "cs": "csharp",
        "c#": "csharp",
        "rb": "ruby",
        "kt": "kotlin",
        "kts": "kotlin",
        "sh": "bash",
        "shell": "bash",
        "zsh": "bash",
        "console": "bash",
        "md": "markdown",
        "yml": "yaml",
        "htm": "html",
        "jsonc": "json",
        "json5": "json",
        "docker": "dockerfile",
        "tf": "hcl",
        "terraform": "hcl",
        "objective-c": "objc",
        "objectivec": "objc",
        "elisp": "elisp",
        "emacs-lisp": "elisp",
        "ocaml": "ocaml",
        "hs": "haskell",
        "ex": "elixir",
        "exs": "elixir",
        "pl": "perl",
        "ps1": "powershell",
        "pwsh": "powershell",
        "tex": "latex",
    }
)

# Extensions whose language the fence tag may refine (a `.h` file can be C or C++).
AMBIGUOUS_EXTENSIONS: Mapping[str, frozenset[str]] = MappingProxyType(
    {".h": frozenset({"c", "cpp", "objc"})}
)


def _normal_tag(tag: str) -> str:
    return tag.strip().lower().lstrip(".").split("{", 1)[0].split(":", 1)[0].strip()


def name_and_suffix(path: str) -> tuple[str, str]:
    """`PurePosixPath(path)`'s `.name` and `.suffix`, without importing pathlib (a
    noticeable part of a cold structural edit, see benchmarks/README.md): the last part
    that is not empty or `.`, and its extension when the dot is neither its first nor its
    last character."""
    parts = [x for x in path.split("/") if x and x != "."]
    name = parts[-1] if parts else ""
    dot = name.rfind(".")
    return name, (name[dot:] if 0 < dot < len(name) - 1 else "")


def language_name_for(path: str | None, hint: str | None = None) -> str | None:
    """The grammar name for a file path (by extension or file name), refined by a fence tag.

    The path decides when it is known: a `.ts` file is TypeScript whatever the fence says.
    A fence tag decides for unknown or ambiguous extensions (`.h`). Returns None when
    neither says anything (the caller checks the grammar exists in the pack).
    """
    from_path: str | None = None
    suffix = ""
    if path:
        name, suffix = name_and_suffix(path.replace("\\", "/"))
        from_path = EXTENSIONS.get(suffix) or EXTENSIONS.get(suffix.lower())
        if from_path is None:
            from_path = FILENAMES.get(name.lower())
            if from_path is None and name.lower().startswith("dockerfile"):
                from_path = "dockerfile"
    from_hint: str | None = None
    if hint:
        tag = _normal_tag(hint)
        from_hint = TAG_ALIASES.get(tag, tag) or None
    if from_path is not None:
        allowed = AMBIGUOUS_EXTENSIONS.get(suffix.lower())
        if allowed and from_hint in allowed:
            return from_hint
        return from_path
    return from_hint
