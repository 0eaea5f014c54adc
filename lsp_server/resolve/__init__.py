"""Placement: where each block lands in its file.

Text blocks climb the matching ladder (`hunks` -> `ladder`, over a `content_index`, with
`indent` for re-indented quotes and `placeholders` for `...` lines); whole-file snippets
with placeholders go through `merge` (the merge room); structural targets go through the tree-sitter
stages `syntax` -> `outline` -> `targets` -> `spans` -> `structure` (or `data_paths` for
JSON, YAML and TOML).
"""
