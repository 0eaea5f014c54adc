"""`llmPatch.*` settings: what each one means, and how a client's object becomes them.

Clients send settings in several shapes (`initializationOptions`, `workspace/configuration`,
`didChangeConfiguration`): nested under "llmPatch", dotted ("llmPatch.atomic") or the
section's own object. A bad value is named in the log and not applied; the others are.
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from lsp_server.model import DEFAULT_FUZZY_THRESHOLD

# `llmPatch.logLevel` (what the client sees) and `serve --log-level` (the log file).
LOG_LEVELS = {
    "off": logging.CRITICAL + 10,
    "error": logging.ERROR,
    "warning": logging.WARNING,
    "info": logging.INFO,
    "debug": logging.DEBUG,
}


@dataclass(frozen=True)
class Settings:
    """`llmPatch.*` settings, from `initializationOptions` and `workspace/configuration`."""

    atomic: bool = True
    confirm_fuzzy: bool = True
    always_preview: bool = False
    fuzzy_threshold: float = DEFAULT_FUZZY_THRESHOLD
    mode: str = "unrestricted"
    log_level: str = "info"
    diagnostics: bool = True
    diagnostics_delay: int = 300  # milliseconds from the last change to the analysis
    code_lens: bool = True
    reply_files: tuple[str, ...] = ("*.llm.md", "*.patch", "*.diff")
    protected_paths: tuple[str, ...] = ()  # globs no edit may write (PlanOptions.protected)
    startup_message: bool = True  # the start-up message to a client sharing only some files

    @property
    def restricted(self) -> bool:
        return self.mode == "restricted"

    def merged(self, raw: Any) -> tuple[Settings, list[str]]:
        """These settings updated from a client's object; bad values are named, not applied."""
        values = flatten_settings(raw)
        problems: list[str] = []
        updates: dict[str, Any] = {}
        for key, value in values.items():
            spec = SETTING_KEYS.get(key)
            if spec is None:
                continue
            name, check = spec
            try:
                updates[name] = check(value)
            except (TypeError, ValueError) as err:
                problems.append(f"llmPatch.{key}: {err}")
        return dataclasses.replace(self, **updates), problems


def flatten_settings(raw: Any) -> dict[str, Any]:
    """Accept {"llmPatch": {...}}, {"llmPatch.x": v} or the section's own object."""
    if not isinstance(raw, dict):
        return {}
    out: dict[str, Any] = {}
    nested = raw.get("llmPatch")
    if isinstance(nested, dict):
        out.update(nested)
    for key, value in raw.items():
        if key.startswith("llmPatch."):
            out[key[len("llmPatch.") :]] = value
        elif key != "llmPatch":
            out.setdefault(key, value)
    return out


def fuzzy_threshold(value: Any) -> float:
    """A similarity threshold: a number in (0, 1]; also checks a command's option."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise TypeError(f"expected a number between 0 and 1, got {value!r}")
    if not 0.0 < float(value) <= 1.0:
        raise ValueError(f"expected a number between 0 and 1, got {value!r}")
    return float(value)


def _bool(value: Any) -> bool:
    if isinstance(value, bool):
        return value
    raise TypeError(f"expected true or false, got {value!r}")


def _mode(value: Any) -> str:
    if value not in ("unrestricted", "restricted"):
        raise ValueError(f'expected "unrestricted" or "restricted", got {value!r}')
    return value


def _level(value: Any) -> str:
    if not isinstance(value, str) or value.lower() not in LOG_LEVELS:
        raise ValueError(f"expected one of {', '.join(LOG_LEVELS)}, got {value!r}")
    return value.lower()


def _delay(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
        raise ValueError(f"expected milliseconds (a number ≥ 0), got {value!r}")
    return int(value)


def _globs(value: Any) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise TypeError(f"expected a list of glob patterns, got {value!r}")
    return tuple(value)


# Each client key → (the `Settings` field, the check that turns a client value into it).
SETTING_KEYS: dict[str, tuple[str, Callable[[Any], Any]]] = {
    "atomic": ("atomic", _bool),
    "confirmFuzzy": ("confirm_fuzzy", _bool),
    "alwaysPreview": ("always_preview", _bool),
    "fuzzyThreshold": ("fuzzy_threshold", fuzzy_threshold),
    "mode": ("mode", _mode),
    "logLevel": ("log_level", _level),
    "diagnostics": ("diagnostics", _bool),
    "diagnosticsDelay": ("diagnostics_delay", _delay),
    "codeLens": ("code_lens", _bool),
    "replyFiles": ("reply_files", _globs),
    "protectedPaths": ("protected_paths", _globs),
    "startupMessage": ("startup_message", _bool),
}
