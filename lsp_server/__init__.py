"""llm-patch: place the edits in a pasted LLM reply into the real text of your files."""

__version__ = "0.1.0"
