"""Walking logs into the conversation units that the exports (HTML, Markdown) write.

The same reading as ``msgcli show``: every log a path names, event logs
replayed, the show filters, ``--head``/``--tail``, and the tool results paired
with their calls by :class:`~msgcli.render.thread.Thread`. A *sink* gets what
to write, in order, as soon as it is known, so an export streams.
"""

from __future__ import annotations

from collections import deque
from typing import IO, Any, Protocol

from ..engine import Options
from ..guard import deep_recursion
from ..reader import ReadError
from ..stream import Item, open_log
from .thread import Thread, Unit
from .view import Filters

__all__ = ["Sink", "walk"]


class Sink(Protocol):
    def begin_file(self, name: str, several: bool) -> None: ...

    def unit(self, unit: Unit) -> None: ...

    def notice(self, item: Item) -> None: ...

    def unreadable(self, name: str, why: str) -> None: ...

    def end_file(self, name: str) -> None: ...

    def begin_nested(self, title: str, path: str) -> None: ...

    def end_nested(self, title: str, path: str) -> None: ...


class _Enough(Exception):
    """--head is reached: stop reading."""


#: subagents nest no deeper than this (as in the terminal view)
_MAX_DEPTH = 8


def _write_unit(
    sink: Sink, unit: Unit, filters: Filters, depth: int = 0, redact: bool = False
) -> None:
    """The unit, then the logs its dialect nests under it (a subagent's transcript under
    the call that started it), as ``msgcli show`` shows them: the filters apply, and
    ``--head``/``--tail`` count only the messages of the logs named."""
    with deep_recursion():  # a value may nest as deep as the reader takes (msgcli.guard)
        sink.unit(unit)
    from ..dialects import DIALECTS

    msg = unit.item.message
    dialect = DIALECTS.get(msg.dialect) if msg is not None else None
    if msg is None or dialect is None or depth >= _MAX_DEPTH:
        return
    for title, path in dialect.nested_logs(unit.item.path, msg):

        def put(inner: Unit) -> None:
            if inner.item.message is None:
                sink.notice(inner.item)
            else:
                _write_unit(sink, inner, filters, depth + 1, redact)

        sink.begin_nested(title, path)
        thread = Thread(put, filters)
        try:
            for item in open_log(path, Options(msg.dialect, redact=redact)):
                thread.add(item)
        except ReadError as exc:
            sink.unreadable(path, str(exc))
        thread.close()
        sink.end_nested(title, path)


def walk(
    paths: list[str],
    dialect: str | None,
    sink: Sink,
    filters: Filters | None = None,
    head: int | None = None,
    tail: int | None = None,
    redact: bool = False,
) -> int:
    """Hand every log the paths name to ``sink``; the exit status (2: a path could not be
    read, else 0). ``redact``: secrets masked in every record first (``--redact``)."""
    from ..inputs import expand_paths
    from .thread import without_nested

    filters = filters or Filters()
    kept: deque[Unit] | None = deque(maxlen=tail) if tail else None
    sources = without_nested(expand_paths(paths))  # (a subagent: under its session's call)
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
        _write_unit(sink, unit, filters, redact=redact)

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
                for item in open_log(source, Options(dialect, redact=redact), name=name):
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
        _write_unit(sink, unit, filters, redact=redact)
    if opened:
        sink.end_file(opened.pop())
    return 2 if unreadable else 0


def findings_by_line(
    paths: list[str], dialect: str | None, redact: bool = False
) -> dict[tuple[str, int], list[Any]]:
    """What ``msgcli validate`` finds in the logs, per ``(path, line)``; with ``redact``,
    secrets a finding quotes from its record masked."""
    from dataclasses import replace

    from ..engine import Options
    from ..pipeline import validate_paths
    from ..redact import redact_text

    found: dict[tuple[str, int], list[Any]] = {}
    for report in validate_paths(paths, Options(dialect=dialect)).files:
        for finding in report.findings:
            if redact:
                finding = replace(finding, message=redact_text(finding.message))
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
    redact: bool = False,
) -> tuple[int, Any]:
    """The page for the logs the paths name, written to ``out``; ``(exit status, tally)``."""
    from .html import HtmlWriter

    writer = HtmlWriter(out, options)
    code = walk(paths, dialect, writer, filters, head, tail, redact)
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
    redact: bool = False,
) -> int:
    """The conversation as GitHub-flavoured Markdown, written to ``out``; the exit status."""
    from .markdown import MarkdownWriter

    writer = MarkdownWriter(out, title)
    return walk(paths, dialect, writer, filters, head, tail, redact)
