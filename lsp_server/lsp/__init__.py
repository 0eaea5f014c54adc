"""The language server: the editor's way into the core.

`server.create_server` registers every feature; each feature lives in the module named for
it (`hover`, `code_actions`, `diagnostics`...), on top of `session` (the state of one editor
session and the services all features share) and `analysis` (a reply placed against the
workspace). `pygls_compat` holds the few places pygls itself is adjusted.
"""
