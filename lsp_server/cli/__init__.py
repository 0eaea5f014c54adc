"""`llm-patch apply | check | undo | recover | serve`: the terminal face of the core.

One module per command, meeting here: `args` builds the argument parser (every
subcommand's options, parsed once; `serve` hands them to the language server), and
`fast_args` reads the usual `apply` / `check` line the same way without it, `place`
runs `apply` and `check`, `undo` puts back what the last apply changed (its record:
`undo_record`), `recover` finishes an interrupted apply. What they share: `roots` (which
folder is the root: the enclosing repository's top by default), `explain` (what the
command line adds to a report: where a missing file is, why a close match was refused,
`--strict`, `--strip-prefix`), `output` (JSON, or `lsp_server.terminal`'s words, and
colour).

Exit codes: 0 every block placed (and written unless a dry run), 1 at least one block
failed (nothing written unless --partial; a reply over the limit is such a failure, read no
further than the limit), 2 usage error or unreadable reply (missing, not a regular file, or
not UTF-8 text: refused rather than read with replacement characters). `recover` exits 0
when the workspace is consistent afterwards (whether or not there was anything to do), 1
when it could not be made so. `undo` exits 0 when it put the files back, 1 when there was
nothing to undo or a file changed since (nothing written).
"""

from __future__ import annotations

import sys

from lsp_server.cli import fast_args


def run(argv: list[str]) -> int:
    args = fast_args.read(argv)  # the usual apply / check line, without argparse
    if args is None:
        from lsp_server.cli.args import command_of, parser  # everything else: argparse's

        try:
            args = parser(command_of(argv)).parse_args(argv)
        except SystemExit as exc:
            return 0 if exc.code == 0 else 2
    if args.command == "serve":
        from lsp_server import boot  # the server's start-up corner (hashlib, the code cache)

        boot.begin()  # before pygls imports lsprotocol: see lsp_server.boot
        from lsp_server.lsp.server import serve  # pygls: only now, after boot.begin

        return serve(args.tcp, args.log_file, args.log_level)
    if args.command == "undo":
        from lsp_server.cli.undo import undo

        return undo(args)
    if args.command == "recover":
        from lsp_server.cli.recover import recover

        return recover(args)
    from lsp_server.cli.place import place

    return place(args)


def main() -> None:
    sys.exit(run(sys.argv[1:]))
