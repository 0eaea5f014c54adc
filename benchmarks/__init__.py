"""Speed and scaling benchmarks for llm-patch: `python -m benchmarks.run` (see README.md)."""
