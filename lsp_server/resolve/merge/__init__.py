"""The merge room: a fenced block with no edit markers (a chat snippet, a whole file, a
whole file with `... existing code ...` lines) put into the file it is for.

The rule
--------
A block changes a line of the file only because the reply shows the change:

* the line is matched to a reply line, and is kept byte for byte as the FILE has it, or
  rewritten as the reply rewrites it;
* or it lies inside a stretch the reply marks as elided (a placeholder comment that says
  code is left out), and is kept;
* or it lies between two reply lines that anchor it, and is replaced by what the reply
  puts there.

Everything else is ambiguous, and an ambiguous block is refused with the readings it
allows, never guessed (`readings`):

* **whole file or fragment**, when the block could be either and the two give different
  files (`--as whole|fragment`);
* **keep the rest or drop it**, when a restated definition stops (or leaves out its
  docstring) with no marker and the file's goes on (`--keep-rest|--drop-rest`);
* a snippet whose definition exists in two places, or in no file the prose names
  (TARGET_AMBIGUOUS / TARGET_NOT_FOUND, from `snippet` and `files`).

Conventions that settle a reading with no doubt, and are used: a block that begins where
the file begins and holds every top-level definition the file has is the whole file; a
`... existing code ...` marker elides; imports of one module are one import (`imports`).
A merge whose result adds syntax errors the file did not have has read the reply wrong
and is refused too (`verify`; for Python, by Python's own parser as well).

Modules, in data-flow order: `files` (which file a pathless snippet is for), `readings`
(the choices and the refusal naming them), `place` (the one entry: decides the reading,
runs it, verifies it), `shape` (what a block is, the questions `place` asks), `elision`
(which lines say code is left out), `snippet` (definitions placed by kind, name and
scope), `lazy` (the line alignment around placeholders, in `lazy_alignment`,
`blank_joins`, `restatement`, `offset_lines`), `imports`, `tails` (a definition cut short),
`bytes` (restated lines keep the file's bytes), `verify`. Nothing here is imported until a
reply needs it: tree-sitter loads with it.
"""
