"""Synthetic but realistic workloads: big source files full of near-duplicate code.

Real files that hurt a matcher are not random: they are hundreds of functions written from
the same few patterns, so most lines (`result = []`, `}`, `if err != nil {`) occur hundreds
or thousands of times and only a name or a constant tells two functions apart. The
generators here write Python, TypeScript and Go files like that, deterministically from a
seed, and cut cases out of them: a block to find, the place it must be found, and the file
as it must look after the edit.

Everything is pure and deterministic: the same (language, size, seed) gives the same bytes.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass

LANGUAGES = ("python", "typescript", "go")
EXTENSIONS = {"python": "py", "typescript": "ts", "go": "go"}

_VERBS = (
    "load", "save", "parse", "render", "merge", "split", "check", "build", "fetch", "apply",
    "index", "filter", "scan", "count", "update", "reset", "encode", "decode", "sync", "sort",
)
_NOUNS = (
    "user", "order", "item", "batch", "record", "entry", "token", "event", "config", "report",
    "invoice", "session", "profile", "message", "account", "payload", "cursor", "buffer",
)
_WORDS = ("timeout", "retries", "limit", "depth", "width", "size", "ttl", "port", "mode")


def _snake(rng: random.Random, i: int) -> str:
    return f"{rng.choice(_VERBS)}_{rng.choice(_NOUNS)}_{i}"


def _camel(rng: random.Random, i: int) -> str:
    return f"{rng.choice(_VERBS)}{rng.choice(_NOUNS).title()}{i}"


def _pascal(rng: random.Random, i: int) -> str:
    return f"{rng.choice(_VERBS).title()}{rng.choice(_NOUNS).title()}{i}"


# --- one "unit" (function or class) per template; each returns its lines -----------------
#
# Each template has a few interchangeable spellings (local names, helper, condition), like
# code written by several people from one pattern: most lines recur hundreds of times, a
# function is told apart by its name and two or three lines, and whole clones do occur.

_ACC = ("result", "out", "values", "collected")
_VAR = ("item", "row", "entry", "x")
_HELPER = ("transform", "convert", "normalise")
_STORE = ("REGISTRY", "CACHE", "STORE")


def _py_units(rng: random.Random, i: int) -> list[str]:
    n = rng.randrange(1, 60)  # small range: constants collide between functions on purpose
    kind = i % 3
    if kind == 0:
        acc, var, helper = rng.choice(_ACC), rng.choice(_VAR), rng.choice(_HELPER)
        cond = rng.choice(("value > limit", "value >= limit", "limit < value"))
        return [
            f"def {_snake(rng, i)}(items, limit={n}):",
            f'    """Collect the values of batch {n} above the limit."""',
            f"    {acc} = []",
            f"    for {var} in items:",
            f"        if {var} is None:",
            "            continue",
            f"        value = {helper}({var}, {n})",
            f"        if {cond}:",
            f"            {acc}.append(value)",
            f"    return {acc}",
            "",
            "",
        ]
    if kind == 1:
        store, dflt = rng.choice(_STORE), rng.choice(("default", "fallback"))
        flag = rng.choice(("expired", "stale"))
        return [
            f"def {_snake(rng, i)}(key, {dflt}=None):",
            f'    """Look up {rng.choice(_NOUNS)} entries in the registry."""',
            f"    if key not in {store}:",
            f"        return {dflt}",
            f"    entry = {store}[key]",
            f"    if entry.{flag}:",
            f"        del {store}[key]",
            f"        return {dflt}",
            "    return entry.value",
            "",
            "",
        ]
    cls = _pascal(rng, i)
    method = rng.choice(("handle", "process", "dispatch"))
    return [
        f"class {cls}:",
        f'    """{cls} keeps the state of handler {n}."""',
        "",
        "    def __init__(self, config):",
        "        self.config = config",
        "        self.count = 0",
        "",
        f"    def {method}(self, event):",
        "        if event is None:",
        "            return None",
        "        self.count += 1",
        f'        return self.config.get("{rng.choice(_WORDS)}", {n})',
        "",
        "    def reset(self):",
        "        self.count = 0",
        "        return self",
        "",
        "",
    ]


def _ts_units(rng: random.Random, i: int) -> list[str]:
    n = rng.randrange(1, 60)
    kind = i % 3
    if kind == 0:
        acc, var, helper = rng.choice(_ACC), rng.choice(_VAR), rng.choice(_HELPER)
        cond = rng.choice(("value > limit", "value >= limit", "limit < value"))
        return [
            f"export function {_camel(rng, i)}(items: Item[], limit = {n}): number[] {{",
            f"  const {acc}: number[] = [];",
            f"  for (const {var} of items) {{",
            f"    if ({var} === null) {{",
            "      continue;",
            "    }",
            f"    const value = {helper}({var}, {n});",
            f"    if ({cond}) {{",
            f"      {acc}.push(value);",
            "    }",
            "  }",
            f"  return {acc};",
            "}",
            "",
        ]
    if kind == 1:
        store, flag = rng.choice(("registry", "cache", "store")), rng.choice(("expired", "stale"))
        return [
            f"export function {_camel(rng, i)}(key: string, fallback?: Entry): Entry | null {{",
            f"  const entry = {store}.get(key);",
            "  if (entry === undefined) {",
            "    return fallback;",
            "  }",
            f"  if (entry.{flag}) {{",
            f"    {store}.delete(key);",
            "    return fallback;",
            "  }",
            "  return entry;",
            "}",
            "",
        ]
    cls = _pascal(rng, i)
    method = rng.choice(("handle", "process", "dispatch"))
    return [
        f"export class {cls} {{",
        "  private count = 0;",
        "",
        "  constructor(private readonly config: Config) {}",
        "",
        f"  {method}(event: AppEvent | null): string | null {{",
        "    if (event === null) {",
        "      return null;",
        "    }",
        "    this.count += 1;",
        f'    return this.config.get("{rng.choice(_WORDS)}", {n});',
        "  }",
        "",
        "  reset(): this {",
        "    this.count = 0;",
        "    return this;",
        "  }",
        "}",
        "",
    ]


def _go_units(rng: random.Random, i: int) -> list[str]:
    n = rng.randrange(1, 60)
    kind = i % 3
    if kind == 0:
        acc, var, helper = rng.choice(_ACC), rng.choice(_VAR), rng.choice(_HELPER)
        cond = rng.choice(("value > limit", "value >= limit", "limit < value"))
        return [
            f"func {_pascal(rng, i)}(items []Item, limit int) ([]int, error) {{",
            f"\t{acc} := make([]int, 0, len(items))",
            f"\tfor _, {var} := range items {{",
            f"\t\tif {var} == nil {{",
            "\t\t\tcontinue",
            "\t\t}",
            f"\t\tvalue, err := {helper}({var}, {n})",
            "\t\tif err != nil {",
            "\t\t\treturn nil, err",
            "\t\t}",
            f"\t\tif {cond} {{",
            f"\t\t\t{acc} = append({acc}, value)",
            "\t\t}",
            "\t}",
            f"\treturn {acc}, nil",
            "}",
            "",
        ]
    if kind == 1:
        store = rng.choice(("registry", "cache", "store"))
        return [
            f"func {_pascal(rng, i)}(key string) (*Entry, error) {{",
            f"\tentry, ok := {store}[key]",
            "\tif !ok {",
            "\t\treturn nil, ErrNotFound",
            "\t}",
            f"\tif entry.{rng.choice(('Expired', 'Stale'))}() {{",
            f"\t\tdelete({store}, key)",
            "\t\treturn nil, ErrNotFound",
            "\t}",
            "\treturn entry, nil",
            "}",
            "",
        ]
    cls = _pascal(rng, i)
    method = rng.choice(("Handle", "Process", "Dispatch"))
    return [
        f"type {cls} struct {{",
        "\tconfig Config",
        "\tcount  int",
        "}",
        "",
        f"func (h *{cls}) {method}(event *Event) (string, error) {{",
        "\tif event == nil {",
        '\t\treturn "", errNoEvent',
        "\t}",
        "\th.count++",
        f'\treturn h.config.Get("{rng.choice(_WORDS)}", {n})',
        "}",
        "",
    ]


_HEADERS = {
    "python": ["from registry import REGISTRY", "from transforms import transform", "", ""],
    "typescript": ['import { registry, transform } from "./core";', "", ""],
    "go": [
        "package bench", "", 'import "errors"', "", 'var errNoEvent = errors.New("no event")', "",
    ],
}
_UNITS = {"python": _py_units, "typescript": _ts_units, "go": _go_units}


@dataclass(frozen=True)
class Unit:
    """One function or class in a generated file: its kind and 0-based line span."""

    kind: int  # 0: loop function, 1: lookup function, 2: class / struct with methods
    start: int
    end: int


@dataclass(frozen=True)
class Workload:
    language: str
    lines: tuple[str, ...]  # without endings
    units: tuple[Unit, ...]

    @property
    def text(self) -> str:
        return "".join(line + "\n" for line in self.lines)

    @property
    def path(self) -> str:
        return f"src/bench_{len(self.lines)}.{EXTENSIONS[self.language]}"


def generate(language: str, n_lines: int, seed: int = 0) -> Workload:
    """A file of about `n_lines` lines (whole units only) of repetitive `language` code."""
    rng = random.Random(f"{language}:{n_lines}:{seed}")
    lines = list(_HEADERS[language])
    units: list[Unit] = []
    make = _UNITS[language]
    i = 0
    while len(lines) < n_lines:
        body = make(rng, i)
        units.append(Unit(i % 3, len(lines), len(lines) + len(body)))
        lines.extend(body)
        i += 1
    return Workload(language, tuple(lines), tuple(units))


# --- cases ----------------------------------------------------------------------------------

RUNGS = (
    "exact",
    "whitespace",
    "indent",
    "elision",
    "fuzzy1",
    "fuzzy3",
    "ambiguous",
    "not_found",
)
COMMENT = {"python": "#", "typescript": "//", "go": "//"}


@dataclass(frozen=True)
class Case:
    """One block against one workload.

    `old` / `new` are the SEARCH and REPLACE texts ("\\n" endings). A case that must place
    has `start`/`end` (the 0-based span of file lines the block stands for) and `region`
    (those lines as the file must read after the edit); a case that must be refused has
    `refusal` (the error code) instead.
    """

    rung: str
    old: str
    new: str
    start: int | None = None
    end: int | None = None
    region: tuple[str, ...] | None = None
    refusal: str | None = None
    note: str = ""

    def expected(self, w: Workload) -> str | None:
        """The whole file after the edit, or None when the block must be refused."""
        if self.region is None or self.start is None or self.end is None:
            return None
        return _join(list(w.lines[: self.start]) + list(self.region) + list(w.lines[self.end :]))


def _join(lines: list[str]) -> str:
    return "".join(line + "\n" for line in lines)


def _pick_unit(w: Workload, kind: int, where: float, accept=None) -> Unit:
    """The unit of `kind` nearest to the fraction `where` of the file (deep, not at the top)
    for which `accept(unit)` holds."""
    target = int(len(w.lines) * where)
    units = sorted((u for u in w.units if u.kind == kind), key=lambda u: abs(u.start - target))
    return next(u for u in units if accept is None or accept(u))


def occurrences(lines: Sequence[str], block: Sequence[str], strip: bool = False) -> list[int]:
    """Every 0-based line where `block` starts (overlaps counted), optionally ignoring
    indentation."""
    if strip:
        lines, block = [x.strip() for x in lines], [x.strip() for x in block]
    hay = "\n" + "\n".join(lines) + "\n"
    needle = "\n" + "\n".join(block) + "\n"
    out, at = [], hay.find(needle)
    while at >= 0:
        out.append(hay.count("\n", 0, at))
        at = hay.find(needle, at + 1)
    return out


def count_occurrences(lines: Sequence[str], block: Sequence[str], strip: bool = False) -> int:
    return len(occurrences(lines, block, strip))


def _indent(line: str) -> str:
    return line[: len(line) - len(line.lstrip(" \t"))]


def _edited(lines: list[str], marker: str) -> list[str]:
    """The replacement a model would write: the block with one real change in it (a comment
    line before its last `return`, or at its end)."""
    out = list(lines)
    at = next((i for i in range(len(out) - 1, -1, -1) if "return" in out[i]), None)
    if at is None:
        out.append(_indent(out[-1]) + f"{marker} patched")
    else:
        out.insert(at, _indent(out[at]) + f"{marker} patched")
    return out


_SWAPS = (
    ("result", "results"), ("item", "elem"), ("value", "val"), ("entry", "record"),
    ("config", "settings"), ("count", "counter"), ("limit", "max_limit"), ("event", "evt"),
    ("key", "name"),
)


def _typo(line: str, k: int) -> str:
    """A plausible model slip on one line: a changed constant or a renamed identifier."""
    body = line.lstrip(" \t")
    ind = line[: len(line) - len(body)]
    if k % 3 == 0 and any(ch.isdigit() for ch in body):
        return ind + "".join(str((int(ch) + 3) % 10) if ch.isdigit() else ch for ch in body)
    for a, b in _SWAPS[k % len(_SWAPS) :] + _SWAPS[: k % len(_SWAPS)]:
        if a in body:
            return ind + body.replace(a, b, 1)
    return ind + body + "  # note"


def _retab(line: str) -> str:
    body = line.lstrip(" ")
    spaces = len(line) - len(body)
    return "\t" * (spaces // 4) + " " * (spaces % 4) + body


def _respace(line: str, unit_from: int, unit_to: int) -> str:
    body = line.lstrip(" ")
    spaces = len(line) - len(body)
    return " " * (spaces // unit_from * unit_to + spaces % unit_from) + body


_ALIEN = {
    "python": [
        "async def stream_frames(sock, codec):", "    while True:",
        "        frame = await sock.recv()", "        if not frame:", "            break",
        "        yield codec.decode(frame)",
    ],
    "typescript": [
        "async function* streamFrames(sock: Socket, codec: Codec) {", "  while (true) {",
        "    const frame = await sock.recv();", "    if (!frame) break;",
        "    yield codec.decode(frame);", "  }", "}",
    ],
    "go": [
        "func StreamFrames(sock Socket, codec Codec) <-chan Frame {", "\tout := make(chan Frame)",
        "\tgo func() {", "\t\tdefer close(out)", "\t\tfor frame := range sock.Recv() {",
        "\t\t\tout <- codec.Decode(frame)", "\t\t}", "\t}()", "\treturn out", "}",
    ],
}


def _indent_case(w: Workload, mark: str) -> Case:
    """A function or method quoted with another indentation than the file's."""
    lines = w.lines

    def unique(s: int, e: int) -> bool:
        return count_occurrences(lines, lines[s:e], strip=True) == 1

    if w.language == "go":
        u = _pick_unit(w, 1, 0.4, lambda u: unique(u.start, u.end - 1))
        s, e = u.start, u.end - 1  # the whole lookup function, without the blank after it
        quoted = [x.replace("\t", "    ") for x in lines[s:e]]
        new = _edited(quoted, mark)
        region = [_retab(x) for x in new]
        note = "tabs quoted as four spaces"
    elif w.language == "python":
        u = _pick_unit(w, 2, 0.4, lambda u: unique(u.start + 7, u.start + 12))
        s = u.start + 7  # `    def handle(self, event):` and its body
        e = s + 5
        quoted = [x[4:] for x in lines[s:e]]
        new = _edited(quoted, mark)
        region = [("    " + x) if x.strip() else x for x in new]
        note = "method quoted without the class indent"
    else:
        u = _pick_unit(w, 2, 0.4, lambda u: unique(u.start + 5, u.start + 12))
        s = u.start + 5  # `  handle(event: AppEvent | null): ... {` to its `}`
        e = s + 7
        quoted = [_respace(x[2:], 2, 4) for x in lines[s:e]]
        new = _edited(quoted, mark)
        region = [("  " + _respace(x, 4, 2)) if x.strip() else x for x in new]
        note = "2-space method quoted at 4 spaces, outer indent dropped"
    return Case("indent", _join(quoted), _join(new), s, e, tuple(region), note=note)


def make_cases(w: Workload) -> dict[str, Case]:
    """One case per rung of the ladder, each cut from deep inside the workload."""
    mark = COMMENT[w.language]
    lines = list(w.lines)
    cases: dict[str, Case] = {}

    # exact: the first 10 lines of a loop function two thirds into the file
    u = _pick_unit(w, 0, 0.66)
    s, e = u.start, u.start + 10
    new = _edited(lines[s:e], mark)
    cases["exact"] = Case("exact", _join(lines[s:e]), _join(new), s, e, tuple(new))

    # whitespace: the same shape elsewhere, with trailing blanks on three lines
    u = _pick_unit(w, 0, 0.5)
    s, e = u.start, u.start + 10
    sloppy = [x + ("  " if k in (1, 4, 7) else "") for k, x in enumerate(lines[s:e])]
    new = _edited(lines[s:e], mark)
    cases["whitespace"] = Case(
        "whitespace", _join(sloppy), _join(new), s, e, tuple(new),
        note="trailing blanks on 3 of 10 lines",
    )

    cases["indent"] = _indent_case(w, mark)

    # elision: the head of a loop function, a bare `...` line, its last two lines
    u = _pick_unit(w, 0, 0.3)
    body_end = u.end - (2 if w.language == "python" else 1)  # without the blank lines after
    head, tail = lines[u.start : u.start + 3], lines[body_end - 2 : body_end]
    middle = lines[u.start + 3 : body_end - 2]
    new_head = [head[0], f"{head[1]}  {mark} patched", head[2]]
    cases["elision"] = Case(
        "elision", _join(head + ["..."] + tail), _join(new_head + ["..."] + tail),
        u.start, body_end, tuple(new_head + middle + tail),
        note="head, `...`, last two lines (shared by every loop function)",
    )

    # fuzzy: a 10-line block with one / three lines the model got slightly wrong
    for rung, where, changed in (("fuzzy1", 0.6, (6,)), ("fuzzy3", 0.7, (3, 6, 8))):
        u = _pick_unit(w, 0, where)
        s, e = u.start, u.start + 10
        wrong = [(_typo(x, k) if k in changed else x) for k, x in enumerate(lines[s:e])]
        new = _edited(wrong, mark)
        # the slipped lines are context the block keeps: the file keeps its own
        right = _edited(lines[s:e], mark)
        note = f"{len(changed)} of 10 lines differ slightly"
        cases[rung] = Case(rung, _join(wrong), _join(new), s, e, tuple(right), note=note)

    # ambiguous: four body lines many loop functions have; the one meant is mid-file, and it
    # is not the first copy
    skip = 2 if w.language == "python" else 1  # to `result = ...`, then the loop's head

    def shared(u: Unit) -> bool:
        """The block recurs, and not only after this unit: taking the first copy is wrong."""
        where = occurrences(lines, lines[u.start + skip : u.start + skip + 4])
        return len(where) > 1 and where[0] < u.start

    u = _pick_unit(w, 0, 0.5, shared)
    s = u.start + skip
    old = lines[s : s + 4]
    copies = count_occurrences(lines, old)
    cases["ambiguous"] = Case(
        "ambiguous", _join(old), _join(_edited(old, mark)), s, s + 4,
        refusal="TEXT_AMBIGUOUS", note=f"the 4 lines occur {copies} times",
    )

    # not found: code-shaped text that is nowhere in the file
    alien = _ALIEN[w.language]
    cases["not_found"] = Case(
        "not_found", _join(alien), _join(_edited(alien, mark)), refusal="TEXT_NOT_FOUND",
        note="nothing like it in the file",
    )
    return cases


# --- multi-file replies ---------------------------------------------------------------------


@dataclass(frozen=True)
class Reply:
    """A SEARCH/REPLACE reply over several files, and each file before and after."""

    text: str
    files: dict[str, str]  # path -> text before
    expected: dict[str, str]  # path -> text after (only the files the reply edits)
    blocks: tuple[tuple[str, Case], ...]  # (path, case) in reply order


# The mix of rungs a reply's blocks need: mostly exact, some sloppy ones. No fuzzy blocks:
# in code this repetitive the ladder refuses nearly every fuzzy block as ambiguous (see the
# fuzzy rows of the ladder table), and one refusal makes an atomic plan apply nothing.
_MIX = (
    "exact", "exact", "exact", "whitespace", "exact", "indent", "exact", "elision", "exact",
    "exact",
)


def make_reply(n_blocks: int, n_files: int = 10, file_lines: int = 5000, seed: int = 0) -> Reply:
    """A reply of `n_blocks` SEARCH/REPLACE blocks spread round-robin over `n_files` files.

    Files cycle through the three languages. Blocks are six lines long (the usual size of a
    SEARCH section) and target different loop functions of a file in file order, so applying
    them in reply order is well defined.
    """
    workloads: dict[str, Workload] = {}
    for f in range(n_files):
        lang = LANGUAGES[f % 3]
        workloads[f"src/module_{f}.{EXTENSIONS[lang]}"] = generate(
            lang, file_lines, seed=seed * 100 + f
        )
    paths = list(workloads)
    per_file: dict[str, list[Case]] = {p: [] for p in paths}
    order: list[tuple[str, Case]] = []
    for b in range(n_blocks):
        path = paths[b % n_files]
        case = _slot_case(workloads[path], _MIX[b % len(_MIX)], len(per_file[path]))
        per_file[path].append(case)
        order.append((path, case))
    out = ["Here are the changes.", ""]
    for path, c in order:
        out += [
            path, "```", "<<<<<<< SEARCH", c.old.rstrip("\n"), "=======", c.new.rstrip("\n"),
            ">>>>>>> REPLACE", "```", "",
        ]
    expected: dict[str, str] = {}
    for path, cases in per_file.items():
        if not cases:
            continue
        lines = list(workloads[path].lines)
        for c in sorted(cases, key=lambda c: -(c.start or 0)):  # bottom-up keeps spans valid
            lines[c.start : c.end] = list(c.region or ())
        expected[path] = _join(lines)
    files = {p: w.text for p, w in workloads.items()}
    return Reply("\n".join(out) + "\n", files, expected, tuple(order))


def _slot_case(w: Workload, rung: str, k: int) -> Case:
    """A block of `rung` on the k-th of a file's spread-out loop functions (never overlapping)."""
    mark = COMMENT[w.language]
    loops = [u for u in w.units if u.kind == 0]
    u = loops[(len(loops) * (2 * k + 1)) // 16 % len(loops)]
    s, e = u.start, u.start + 6  # a signature, a docstring and four body lines
    old = list(w.lines[s:e])
    if rung == "whitespace":
        quoted = [x + ("  " if j in (1, 4) else "") for j, x in enumerate(old)]
        new = _edited(old, mark)
        region = new
    elif rung == "elision":
        # the signature and docstring, `...`, the first line of the loop body
        quoted = old[:2] + ["..."] + old[4:5]
        new = [old[0], f"{old[1]}  {mark} patched", "...", old[4]]
        region = [new[0], new[1]] + old[2:5]
        e = s + 5
    elif rung == "indent":
        # the block quoted one level deeper (as if copied out of a class)
        unit = "\t" if w.language == "go" else ("    " if w.language == "python" else "  ")
        quoted = [unit + x if x.strip() else x for x in old]
        new = _edited(quoted, mark)
        region = [x[len(unit) :] if x.startswith(unit) else x for x in new]
    else:
        quoted = old
        new = _edited(old, mark)
        region = new
    return Case(rung, _join(quoted), _join(new), s, e, tuple(region))


def near_miss_reply(n_blocks: int = 12_000, file_lines: int = 5000, seed: int = 1) -> Reply:
    """`n_blocks` one-line SEARCH/REPLACE blocks against one Python file, each SEARCH a file
    line with one character changed (a reply for another version of the file, or garbage):
    some place approximately, most are refused. About 1 MB for 12,000 blocks."""
    w = generate("python", file_lines, seed=seed)
    rng = random.Random(seed)
    lines = [x for x in w.lines if x.strip()]
    out: list[str] = []
    for _ in range(n_blocks):
        line = rng.choice(lines)
        at = rng.randrange(len(line))
        near = line[:at] + rng.choice("xyz") + line[at + 1 :]
        out += ["m.py", "<<<<<<< SEARCH", near, "=======", "x = 1", ">>>>>>> REPLACE"]
    return Reply("\n".join(out) + "\n", {"m.py": w.text}, {}, ())
