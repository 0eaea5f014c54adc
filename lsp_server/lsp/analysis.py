"""A reply placed against the workspace: where the reply came from, and what placing it found.

`place` does the work, in a worker thread, on a frozen view of the editor (`EditorView`):
it finds the root the reply plans against, plans the reply, finds where each failed
block's closest text sits in its file (for the diagnostic's related information), and
which failed blocks a looser fuzzy threshold would place (for the "apply at the closest
match" quick fix). The analysis keeps what the plan read from disk, so a kept plan can be
checked against the disk before it is used. Nothing here talks to the client.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Generic, TypeVar

from lsprotocol import types
from pygls.uris import from_fs_path

from lsp_server.edits import PositionIndex
from lsp_server.lines import LineMap
from lsp_server.lsp.editor_workspace import (
    DiskRead,
    EditorView,
    SessionWorkspace,
    dirty_paths,
    overlay,
    plan_root,
    target_path,
)
from lsp_server.lsp.interrupted import interrupted_apply
from lsp_server.model import EditBlock, ErrorCode, ParsedReply, PlacementError, Plan
from lsp_server.report import percent
from lsp_server.workspace import DiskWorkspace

K = TypeVar("K")
V = TypeVar("V")


class LRU(Generic[K, V]):
    """A dict that keeps only its `size` most recently used entries."""

    def __init__(self, size: int):
        self.size = size
        self._items: OrderedDict[K, V] = OrderedDict()

    def get(self, key: K) -> V | None:
        value = self._items.get(key)
        if value is not None:
            self._items.move_to_end(key)
        return value

    def put(self, key: K, value: V) -> None:
        self._items[key] = value
        self._items.move_to_end(key)
        while len(self._items) > self.size:
            self._items.popitem(last=False)


@dataclass(frozen=True)
class ReplySource:
    """Where a reply came from: its text, and (for a document) where that text sits in it."""

    text: str
    uri: str | None = None
    version: int | None = None
    line_offset: int = 0  # the document line the text starts on (a selection's first line)
    whole_document: bool = True


@dataclass(frozen=True)
class Analysis:
    """A reply placed against the workspace, with what diagnostics and lenses need."""

    source: ReplySource
    parsed: ParsedReply
    plan: Plan
    root: Path
    uris: dict[str, str]  # workspace path → the URI the editor uses for it
    related: dict[int, list[types.DiagnosticRelatedInformation]] = field(default_factory=dict)
    retry_thresholds: dict[int, float] = field(default_factory=dict)  # blocks a looser fuzzy places
    reads: dict[str, DiskRead] = field(default_factory=dict)  # files the plan read from disk


def block_paths(block: EditBlock) -> set[str]:
    """The files a block names: its path, and where it moves the file to."""
    return {p for p in (block.path, block.move_to) if p}


def parse(text: str) -> ParsedReply:
    """The reply's blocks (the engine's parser, loaded on first use: see `place`)."""
    from lsp_server.reply import parse_reply

    return parse_reply(text)


def place(
    source: ReplySource,
    parsed: ParsedReply,
    view: EditorView,
    *,
    atomic: bool,
    fuzzy_threshold: float,
    encoding: str,
    cancelled: Callable[[], bool],
    protected: tuple[str, ...] = (),
    related: bool = True,
    retries: bool = False,
    target: str | None = None,
    dirty: tuple[str, ...] = (),
    reading: tuple[str | None, str | None] = (None, None),
) -> Analysis:
    """Plan a parsed reply against its root, open documents first (runs in a worker thread).

    `target` is the URI of the file the caller names for blocks that give no path (the
    editor's buffer); one outside the root is refused for the whole reply. `dirty` are the
    URIs of documents the client has unsaved changes in that it did not send: stale."""
    # the engine loads on first use (or when the session warms it), not with the server:
    # the editor waits for the `initialize` answer, which does not need it
    from lsp_server.plan import PlanOptions, fuzzy_retries, plan_reply

    root = plan_root(view, source.uri)
    open_texts, uris = overlay(view, root.path)
    interrupted = interrupted_apply(root.path)  # never a plan on a half-applied tree
    if interrupted is not None:
        return Analysis(source, parsed, Plan((), (), failure=interrupted), root.path, uris)
    try:
        rel_target = target_path(root, target) if target is not None else None
    except PlacementError as err:
        return Analysis(source, parsed, Plan((), (), failure=err.failure), root.path, uris)
    options = PlanOptions(
        atomic=atomic,
        fuzzy_threshold=fuzzy_threshold,
        protected=protected,
        target=rel_target,
        read_as=reading[0],
        rest=reading[1],
    )
    ws = SessionWorkspace(root, open_texts, dirty_paths(root.path, dirty))
    plan = plan_reply(parsed, ws, options, cancelled)
    rel = related_information(plan, ws, root.path, uris, encoding) if related else {}
    again = fuzzy_retries(plan, ws, options, cancelled) if retries else {}
    return Analysis(source, parsed, plan, root.path, uris, rel, again, dict(ws.reads))


def related_information(
    plan: Plan, ws: DiskWorkspace, root: Path, uris: dict[str, str], encoding: str
) -> dict[int, list[types.DiagnosticRelatedInformation]]:
    """For each failed block, where in its file the closest (or competing) text is.

    It reads the target files through the same snapshots the plan used, to turn the core's
    line numbers into ranges in the client's encoding.
    """
    out: dict[int, list[types.DiagnosticRelatedInformation]] = {}
    texts: dict[str, str | None] = {}
    for outcome in plan.outcomes:
        failure = outcome.failure
        if failure is None:
            continue
        path = failure.details.get("path") or outcome.block.path
        spans = _failure_spans(failure.code, failure.details)
        if not path or not spans:
            continue
        if path not in texts:
            try:
                texts[path] = ws.snapshot(path).text
            except PlacementError:
                texts[path] = None
        text = texts[path]
        if text is None:
            continue
        try:
            rel = ws.relative(path)
        except PlacementError:
            continue
        uri = uris.get(rel) or from_fs_path(str(root / rel)) or rel
        index = PositionIndex(text, encoding)
        lines = LineMap(text, index.starts)
        infos = []
        for first, last, message in spans:
            lo, hi = lines.lsp_lines(first, last)
            infos.append(
                types.DiagnosticRelatedInformation(
                    location=types.Location(uri=uri, range=index.line_range(lo, hi)),
                    message=f"{rel}:{first}: {message}",
                )
            )
        out[outcome.block.index] = infos
    return out


def _failure_spans(code: ErrorCode, details: dict) -> list[tuple[int, int, str]]:
    """The file lines a failure points at (1-based, inclusive), with what each one is."""
    spans: list[tuple[int, int, str]] = []
    closest = details.get("closest")
    if isinstance(closest, dict) and isinstance(closest.get("line"), int):
        sim = closest.get("similarity")
        how = (
            "differs only in whitespace"
            if closest.get("whitespace_only")
            else (f"similarity {percent(sim)}" if isinstance(sim, int | float) else "closest")
        )
        end = int(closest.get("end_line") or closest["line"])
        spans.append((closest["line"], end, f"closest match ({how})"))
    lines = details.get("lines")
    what = _PLACES.get(code)
    if what is not None and isinstance(lines, list):
        length = int(details.get("length") or 1)
        spans.extend((n, n + length - 1, what) for n in lines[:10] if isinstance(n, int))
    return spans


# the failures whose `lines` are the places the block's text was found (the first line of
# each), and what each place is: the competing matches of an ambiguous block, the
# occurrences a counted replacement found when it asked for another number of them
_PLACES = {
    ErrorCode.TEXT_AMBIGUOUS: "matches here",
    ErrorCode.TARGET_AMBIGUOUS: "matches here",
    ErrorCode.COUNT_MISMATCH: "occurs here",
}
