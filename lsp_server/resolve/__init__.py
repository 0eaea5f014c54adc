"""Placement: where each block lands in its file (text ladder, lazy merge, structure)."""
