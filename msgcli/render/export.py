"""Walking logs into the conversation units that the exports (HTML, Markdown) write.

The same reading as ``msgcli show``: every log a path names, event logs
replayed, the show filters, ``--head``/``--tail``, and the tool results paired
with their calls by :class:`~msgcli.render.thread.Thread`. A *sink* gets what
to write, in order, as soon as it is known, so an export streams.
"""

from __future__ import annotations

from collections import deque
from typing import IO, Any, Protocol

from ..reader import ReadError
from ..stream import Item, LogReader
from .thread import Thread, Unit
from .view import Filters

__all__ = ["Sink", "walk"]


class Sink(Protocol):
    def begin_file(self, name: str, several: bool) -> None: ...

    def unit(self, unit: Unit) -> None: ...

    def notice(self, item: Item) -> None: ...

    def unreadable(self, name: str, why: str) -> None: ...

    def end_file(self, name: str) -> None: ...


class _Enough(Exception):
    """--head is reached: stop reading."""


def walk(
    paths: list[str],
    dialect: str | None,
    sink: Sink,
    filters: Filters | None = None,
    head: int | None = None,
    tail: int | None = None,
) -> int:
    """Hand every log the paths name to ``sink``; the exit status (2: a path could not be
    read, else 0)."""
    from ..pipeline import expand_paths

    filters = filters or Filters()
    kept: deque[Unit] | None = deque(maxlen=tail) if tail else None
    sources = list(expand_paths(paths))
    several = len(sources) > 1
    shown = 0
    unreadable = 0
    opened: list[str] = []  # the file whose section is open, if any

    def open_file(name: str) -> None:
        if opened and opened[0] == name:
            return
        if opened:
            sink.end_file(opened.pop())
        sink.begin_file(name, several)
        opened.append(name)

    def emit(unit: Unit) -> None:
        nonlocal shown
        if unit.item.message is None:
            open_file(unit.item.path)
            sink.notice(unit.item)
            return
        if kept is not None:
            kept.append(unit)
            return
        if head is not None and shown >= head:
            raise _Enough
        shown += 1
        open_file(unit.item.path)
        sink.unit(unit)

    try:
        for name, source, problem in sources:
            if kept is None:
                open_file(name)
            if source is None:
                unreadable += 1
                open_file(name)
                sink.unreadable(name, "no such file" if problem == "missing" else "no logs")
                continue
            thread = Thread(emit, filters)
            try:
                for item in LogReader(name, dialect).items(source):
                    thread.add(item)
            except ReadError as exc:
                unreadable += 1
                open_file(name)
                sink.unreadable(name, str(exc))
            thread.close()
    except _Enough:
        pass
    for unit in kept or ():
        open_file(unit.item.path)
        sink.unit(unit)
    if opened:
        sink.end_file(opened.pop())
    return 2 if unreadable else 0


def findings_by_line(paths: list[str], dialect: str | None) -> dict[tuple[str, int], list[Any]]:
    """What ``msgcli validate`` finds in the logs, per ``(path, line)``."""
    from ..pipeline import Options, validate_paths

    found: dict[tuple[str, int], list[Any]] = {}
    for report in validate_paths(paths, Options(dialect=dialect)).files:
        for finding in report.findings:
            found.setdefault((finding.path, finding.line), []).append(finding)
    return found


def write_html(
    paths: list[str],
    out: IO[str],
    options: Any,
    dialect: str | None = None,
    filters: Filters | None = None,
    head: int | None = None,
    tail: int | None = None,
) -> tuple[int, Any]:
    """The page for the logs the paths name, written to ``out``; ``(exit status, tally)``."""
    from .html import HtmlWriter

    writer = HtmlWriter(out, options)
    code = walk(paths, dialect, writer, filters, head, tail)
    writer.close()
    return code, writer.tally


def write_markdown(
    paths: list[str],
    out: IO[str],
    dialect: str | None = None,
    filters: Filters | None = None,
    head: int | None = None,
    tail: int | None = None,
    title: str | None = None,
) -> int:
    """The conversation as GitHub-flavoured Markdown, written to ``out``; the exit status."""
    from .markdown import MarkdownWriter

    writer = MarkdownWriter(out, title)
    return walk(paths, dialect, writer, filters, head, tail)
