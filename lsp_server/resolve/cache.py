"""A small LRU keyed by a document's text: work done on one text version is done once.

The same texts come back again and again: the server re-plans a reply against the same
open documents on every keystroke in the reply (live diagnostics), code actions and the
apply command re-plan what a check already planned, and a reply that edits one file five
times applies each block to the text the previous block produced. Keying by the text itself
(not a path or a version number) makes a stale hit impossible: equal text, equal result.

Looking a text up costs one hash of it (cached by Python on the string object, so free for
the document store's own string) and, on a hit with a different but equal string, one
memory compare. Entries are bounded by count and by total characters.
"""

from __future__ import annotations

import threading
import weakref
from collections import OrderedDict
from collections.abc import Callable
from typing import Generic, TypeVar

T = TypeVar("T")

_ALL: weakref.WeakSet[TextCache] = weakref.WeakSet()
_OTHERS: list[Callable[[], None]] = []


def on_clear(forget: Callable[[], None]) -> None:
    """Have `clear_all` also call `forget`: caches that are not TextCaches (the parsed
    syntax trees) register themselves when their module loads, so this module never
    imports them (the syntax stage is loaded lazily, on the first structural edit)."""
    _OTHERS.append(forget)


def clear_all() -> None:
    """Empty every cache of derived data (benchmarks measuring a first sight; memory
    pressure): every TextCache and every cache registered with `on_clear`."""
    for cache in list(_ALL):
        cache.clear()
    for forget in _OTHERS:
        forget()


class TextCache(Generic[T]):
    """Least-recently-used map from a text to something derived from it."""

    def __init__(self, max_entries: int = 128, max_chars: int = 12_000_000):
        self.max_entries = max_entries
        self.max_chars = max_chars
        self._items: OrderedDict[str, T] = OrderedDict()
        self._chars = 0
        self._lock = threading.Lock()
        _ALL.add(self)

    def get(self, text: str) -> T | None:
        with self._lock:
            value = self._items.get(text)
            if value is not None:
                self._items.move_to_end(text)
            return value

    def put(self, text: str, value: T) -> None:
        if len(text) > self.max_chars:
            return
        with self._lock:
            if text in self._items:
                self._items.move_to_end(text)
                self._items[text] = value
                return
            self._items[text] = value
            self._chars += len(text)
            while len(self._items) > self.max_entries or self._chars > self.max_chars:
                old, _ = self._items.popitem(last=False)
                self._chars -= len(old)

    def clear(self) -> None:
        with self._lock:
            self._items.clear()
            self._chars = 0

    def __len__(self) -> int:
        return len(self._items)
