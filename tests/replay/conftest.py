# the cases' files are data (a `test_*.py` among them is some project's test, not ours)
collect_ignore_glob = ["cases/*"]
