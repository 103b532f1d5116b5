"""``msgcli convert`` over files: read each log, convert it, report what was lost.

The records of every input go, in order, to one ``write(record)``; findings
(unreadable lines, records of another dialect, X001/X002) make up a
:class:`msgcli.pipeline.RunReport` like ``validate``'s, so the same reporters
and exit codes serve.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from datetime import tzinfo
from pathlib import Path
from typing import Any

from ..engine import Options, unusable
from ..findings import FileReport, FileSummary, Finding, RunReport, tally
from ..inputs import planned
from ..reader import ReadError, source_name
from ..rules import RULES
from ..stream import open_log
from . import Converter
from .base import LogFacts

__all__ = ["convert_paths"]


def convert_paths(
    paths: Iterable[Any],
    target: str,
    write: Callable[[dict], None],
    options: Options | None = None,
    *,
    carry: bool = True,
    local: tzinfo | None = None,
    redact: bool = False,
) -> RunReport:
    """Convert every log named (files, directories, ``-``, open binary streams) into
    ``target``'s records.

    ``options`` says, as for :func:`msgcli.pipeline.validate_paths`, the dialect to read,
    the rules that are on, and whether warnings fail a file; its ``files(name)`` (a project
    configuration's overrides) settles them per file, or leaves the file out."""
    options = options or Options()
    run = RunReport()  # each file's summary says whether its warnings fail it
    excluded: list[str] = []
    for name, source, problem, chosen in _sources(paths, options, excluded):
        if source is None or chosen is None:
            report = unusable(name, problem, options.select)
        else:
            report = _convert_file(
                name,
                source,
                target,
                write,
                chosen.dialect,
                carry,
                local,
                chosen.select,
                redact,
            )
            report.summary.strict = chosen.strict
        run.files.append(report)
        tally(run.summary, report)
    run.summary.excluded = len(excluded)
    return run


def _sources(
    paths: Iterable[Any], options: Options, excluded: list[str]
) -> Iterator[tuple[str, Any, str, Options | None]]:
    """``planned``, in the order named, and a binary stream as it is (with the options as
    given: a stream has no name a configuration could match)."""
    for item in paths:
        if hasattr(item, "read"):
            yield source_name(item), item, "", options
        else:
            yield from planned([item], options, excluded)


def _add(report: FileReport, finding: Finding, select: frozenset[str] | None) -> None:
    if select is not None and finding.code not in select:
        return
    report.findings.append(finding)
    if finding.severity.value == "error":
        report.summary.errors += 1
    elif finding.severity.value == "warning":
        report.summary.warnings += 1


def _convert_file(
    name: str,
    source: Any,
    target: str,
    write: Callable[[dict], None],
    dialect: str | None,
    carry: bool,
    local: tzinfo | None,
    select: frozenset[str] | None,
    redact: bool = False,
) -> FileReport:
    fs = FileSummary(path=name)
    report = FileReport(fs)

    def finding(line: int, code: str, message: str, ptr: str = "") -> None:
        _add(report, Finding(name, line, code, RULES[code].severity, message, ptr), select)

    reader = open_log(
        str(source) if isinstance(source, Path) else source,
        Options(dialect=dialect, redact=redact),
        name=name,
    )
    converter = Converter(target, carry=carry, local=local, report=finding)
    # a target whose log is one document (an ATIF trajectory): the records of this log are
    # put together into it at the end
    whole: list[dict] | None = [] if converter.writer.document else None
    facts = LogFacts()
    if whole is not None:
        write_log = write
        write = whole.append
    aside: dict[str, int] = {}
    first_aside = 0
    kept = False  # (a document kept what is outside the conversation)
    try:
        for item in reader:
            if item.message is None:
                if item.code == "P009":
                    fs.readable = False
                finding(item.line, item.code or "P001", item.notice)
                continue
            if whole is not None and reader.dialect is not None:
                session = reader.dialect.thread_of(item.message)[0]
                if (
                    isinstance(session, str)
                    and session
                    and facts.session is not None
                    and session != facts.session
                    and not reader.dialect.aside(item.message)
                ):
                    # a log of several sessions: a document for each
                    for record in converter.finish():
                        write(record)
                    if whole:
                        write_log(converter.writer.whole(whole, facts))
                    whole.clear()
                    kept = kept or facts.kept
                    facts = LogFacts()
                facts.note(reader.dialect, item.message, item.raw)
            if reader.dialect is not None and reader.dialect.aside(item.message):
                # a record outside the conversation (Claude Code's attachments, titles, ...)
                aside[str(item.message.role)] = aside.get(str(item.message.role), 0) + 1
                first_aside = first_aside or item.line
                continue
            converter.replayed = reader.kind == "event"
            for record in converter.feed(item.line, item.message, item.raw or {}):
                write(record)
        for record in converter.finish():
            write(record)
        if whole:
            write_log(converter.writer.whole(whole, facts))
        if aside and not (kept or facts.kept):
            counted = ", ".join(f"{kind} {n}" for kind, n in aside.items())
            finding(
                first_aside,
                "X002",
                f"{sum(aside.values())} record(s) outside the conversation ({counted}) have no "
                "place in the target: not converted",
            )
    except ReadError as exc:
        fs.readable = False
        finding(0, "P009", f"cannot read: {exc}")
    if reader.empty is not None:  # an error, as validate says it
        finding(0, "P008", reader.empty)
    fs.records = reader.records
    fs.dialect = reader.dialect.name if reader.dialect else None
    fs.kind = {"event": "events", "message": "messages"}.get(reader.kind or "", "unknown")
    report.findings.sort(key=Finding.sort_key)
    return report
