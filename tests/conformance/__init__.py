"""Conformance with other tools' own test corpora (aider, Codex, Continue)."""
