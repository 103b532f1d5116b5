"""The validation pipeline: records -> dialect -> schema -> checks -> findings.

:func:`validate_paths` is what ``msgcli validate`` runs; :func:`validate_file`
checks one input. Both stream: a file is read record by record, and the only
state kept is what the checks across records need (see
:class:`msgcli.checks.CrossChecks`).
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from .checks import CrossChecks, check_message, digest
from .dialects import EVENT, MESSAGE, Dialect, classify, fits, get_dialect, is_plain
from .findings import (
    ERROR,
    LOG_SUFFIXES,
    WARNING,
    FileSummary,
    Finding,
    Severity,
    Summary,
    suffix_list,
)
from .progress import Tracker, tracker
from .reader import STDIN_NAME, ReadError, json_file_is_log, read_records, source_name
from .replayers import Replayer
from .rules import RULES
from .schemas import CompiledSchema, compiled, explain

__all__ = [
    "LOG_SUFFIXES",
    "FileReport",
    "Options",
    "RunReport",
    "expand_paths",
    "validate_file",
    "validate_paths",
]

#: of the suffixes a directory scan takes, those of files that may be JSON documents
_DOCUMENT_SUFFIXES = (".json", ".json.gz")

#: ``sink(path, line, message)``: a message rebuilt from an event log
MessageSink = Callable[[str, int, dict], None]


@dataclass(slots=True)
class Options:
    """What to check and how. ``select`` is the set of rule codes that are on."""

    dialect: str | None = None
    select: frozenset[str] = frozenset(RULES)
    strict: bool = False
    max_errors: int | None = None
    #: event logs: stop the replay after this many events (an int) or after the
    #: event with this id (a str); what is open then is written, marked "open"
    until: int | str | None = None
    #: event logs: the zone replayed AgentScope Java messages' times are written in (a
    #: ``tzinfo``; None: UTC)
    zone: Any = None
    #: worker processes (1: check everything in this process); see :mod:`msgcli.parallel`
    jobs: int = 1
    #: "invalid": every file is a negative fixture, held to its expectation (:mod:`msgcli.expect`)
    expect: str | None = None
    #: per-file settings (a project configuration's overrides): ``files(name)`` gives the
    #: options for that file, or None when the configuration excludes it
    files: Callable[[str], Options | None] | None = None
    #: only event logs are wanted (``replay``): a message log is left at its first message
    #: (its summary says ``kind == "messages"``), not checked to its end
    events_only: bool = False

    def for_file(self, name: str) -> Options | None:
        """The options that apply to the file ``name`` (None: excluded)."""
        return self if self.files is None else self.files(name)


@dataclass(slots=True)
class FileReport:
    summary: FileSummary
    findings: list[Finding] = field(default_factory=list)
    #: a negative fixture's own findings that were expected (see :mod:`msgcli.expect`)
    expected: list[Finding] = field(default_factory=list)


@dataclass(slots=True)
class RunReport:
    """The outcome of a whole run, once every file was checked."""

    files: list[FileReport] = field(default_factory=list)
    summary: Summary = field(default_factory=Summary)
    strict: bool = False

    def errors(self) -> list[Finding]:
        """Every finding of error severity."""
        return [f for fr in self.files for f in fr.findings if f.severity is ERROR]

    def findings(self) -> list[Finding]:
        return [f for fr in self.files for f in fr.findings]

    @property
    def exit_code(self) -> int:
        if self.summary.unreadable:
            return 2
        s = self.summary
        if s.errors or s.failed or (self.strict and s.warnings):
            return 1
        return 0


def expand_paths(
    paths: Iterable[str | Path],
    skipped: list[str] | None = None,
    excluded: Callable[[str], bool] | None = None,
) -> Iterator[tuple[str, str | Path | None, str]]:
    """``(display name, source, problem)`` for every input named on the command line.

    A directory gives every log file below it (hidden folders skipped), in
    name order; ``source`` is ``None`` when the path cannot be used, with
    ``problem`` saying why. A ``*.json`` file found there that is no log of a known
    dialect (a schema, a configuration, a state file without messages) is passed over,
    and named in ``skipped``; named on the command line, it is checked (``P011``). A file
    ``excluded(name)`` says the configuration excludes is not opened to find out.
    """
    for raw in paths:
        text = str(raw)
        if text == "-":
            yield STDIN_NAME, "-", ""
            continue
        if "://" in text:
            from .remote import is_url, listing, mask

            if is_url(text):
                # a URL: the object, or every log below the prefix (raises RemoteError)
                for url, _ in listing(text):
                    if url != text and _no_log(url, excluded):
                        if skipped is not None:
                            skipped.append(mask(url))
                        continue
                    yield mask(url), url, ""
                continue
        path = Path(text)
        if path.is_dir():
            found = False
            for root, dirs, files in os.walk(path):
                dirs[:] = sorted(d for d in dirs if not d.startswith("."))
                for name in sorted(files):
                    if name.startswith(".") or not name.endswith(LOG_SUFFIXES):
                        continue
                    found = True
                    full = os.path.join(root, name)
                    if _no_log(full, excluded):
                        if skipped is not None:
                            skipped.append(full)
                        continue
                    yield full, full, ""
            if not found:
                yield text, None, "no-logs"
        elif path.exists():
            yield text, path, ""
        else:
            yield text, None, "missing"


def _no_log(name: str, excluded: Any) -> bool:
    """Whether a file a directory scan found is a JSON document that is no log (passed over;
    one the configuration excludes is not even opened)."""
    return (
        name.endswith(_DOCUMENT_SUFFIXES)
        and not (excluded is not None and excluded(name))
        and not json_file_is_log(name)
    )


class _Budget:
    __slots__ = ("errors", "limit")

    def __init__(self, limit: int | None):
        self.limit = limit
        self.errors = 0

    @property
    def spent(self) -> bool:
        return self.limit is not None and self.errors >= self.limit


def validate_paths(
    paths: Iterable[str | Path],
    options: Options | None = None,
    streams: Iterable[IO[bytes]] = (),
    sink: MessageSink | None = None,
) -> RunReport:
    """Validate open binary ``streams``, then every file the paths name.

    Event logs are replayed on the way; ``sink(path, line, message)`` receives
    every message the replay rebuilds, as soon as it is complete.
    """
    options = options or Options()
    report = RunReport()  # each file's summary says whether its warnings fail it
    excluded: list[str] = []
    skipped = report.summary.skipped
    for file_report in iter_file_reports(paths, options, streams, sink, excluded, skipped):
        report.files.append(file_report)
        tally(report.summary, file_report)
        if file_report.summary.stopped_early:
            report.summary.stopped_early = True
    report.summary.excluded = len(excluded)
    return report


def iter_file_reports(
    paths: Iterable[str | Path],
    options: Options,
    streams: Iterable[IO[bytes]] = (),
    sink: MessageSink | None = None,
    excluded: list[str] | None = None,
    skipped: list[str] | None = None,
) -> Iterator[FileReport]:
    """One report per input, as soon as that input is done. Files the configuration
    excludes are appended to ``excluded`` instead, JSON documents a directory scan
    passed over to ``skipped``."""
    if options.jobs > 1 and sink is None and options.max_errors is None:
        from .parallel import iter_file_reports_parallel

        yield from iter_file_reports_parallel(paths, options, streams, excluded, skipped)
        return
    budget = _Budget(options.max_errors)
    for stream in streams:
        if budget.spent:
            return
        yield settled(
            validate_file(stream, options=options, budget=budget, sink=sink), options, None
        )
    for name, source, problem, chosen in planned(paths, options, excluded, skipped):
        if budget.spent:
            return
        if source is None or chosen is None:
            yield unusable(name, problem, options.select)
            continue
        report = validate_file(source, name=name, options=chosen, budget=budget, sink=sink)
        yield settled(report, chosen, source)


def planned(
    paths: Iterable[str | Path],
    options: Options,
    excluded: list[str] | None = None,
    skipped: list[str] | None = None,
) -> Iterator[tuple[str, str | Path | None, str, Options | None]]:
    """``expand_paths`` with each usable file's own options (None for a path that names no
    log); the files the configuration excludes go to ``excluded`` instead."""
    left_out = None if options.files is None else (lambda name: options.for_file(name) is None)
    for name, source, problem in expand_paths(paths, skipped, left_out):
        if source is None:
            yield name, None, problem, None
            continue
        chosen = options.for_file(name)
        if chosen is None:
            if excluded is not None:
                excluded.append(name)
            continue
        yield name, source, problem, chosen


def settled(report: FileReport, options: Options, source: object) -> FileReport:
    """A checked file's report, held to its expectation when it is a negative fixture."""
    if options.expect is None:
        return report
    from .expect import find_sidecar, settle

    sidecar = find_sidecar(source) if isinstance(source, (str, Path)) and source != "-" else None
    return settle(report, options.select, sidecar)


def tally(summary: Summary, report: FileReport) -> None:
    """Count a file's report into the run's totals."""
    fs = report.summary
    summary.files += 1
    summary.records += fs.records
    summary.errors += fs.errors
    summary.warnings += fs.warnings
    if fs.failed:
        summary.failed += 1
    if not fs.readable and fs.expect is None:
        summary.unreadable += 1


def unusable(name: str, problem: str, select: frozenset[str]) -> FileReport:
    """The report of a path that names no log (missing, or a directory without logs)."""
    fs = FileSummary(path=name, kind="unknown", readable=False)
    if problem == "no-logs":
        code = "P010"
        message = f"the directory holds no log files ({suffix_list()})"
    else:
        code = "P009"
        message = "cannot read: no such file or directory"
    report = FileReport(fs)
    if code in select:
        report.findings.append(Finding(name, 0, code, RULES[code].severity, message))
        fs.errors += 1
    return report


def validate_file(
    source: str | Path | IO[bytes],
    *,
    name: str | None = None,
    options: Options | None = None,
    forced: Dialect | None = None,
    budget: _Budget | None = None,
    sink: MessageSink | None = None,
) -> FileReport:
    """Check one log file (a path, ``-``, or a binary stream); replay it if it is an event log."""
    options = options or Options()
    if forced is None and options.dialect:
        forced = get_dialect(options.dialect)
    if name is None:
        name = source_name(source)
    check = _FileCheck(name, options, forced, budget or _Budget(options.max_errors), sink)
    state = tracker()
    try:
        if state is None or hasattr(source, "read") or str(source) == "-":
            check.run(read_records(source))
        else:
            _run_tracked(check, source, state)
    except ReadError as exc:
        check.summary.readable = False
        check.emit("P009", f"cannot read: {exc}")
    return check.report()


def _run_tracked(check: _FileCheck, source: str | Path, state: Tracker) -> None:
    """Check a file whose read position the progress bar follows."""
    try:
        stream = open(source, "rb")  # noqa: SIM115 - closed below
    except OSError:
        check.run(read_records(source))  # which says why it cannot be read
        return
    state.reading(stream, check.summary)
    try:
        check.run(read_records(stream))
        state.done(stream.tell(), check.summary.records)
    finally:
        state.reading(None, None)
        stream.close()


class _FileCheck:
    """The state of checking one file: its dialect, its findings, its cross-record checks."""

    def __init__(
        self,
        name: str,
        options: Options,
        forced: Dialect | None,
        budget: _Budget,
        sink: MessageSink | None = None,
        preset: tuple[Dialect, str, int] | None = None,
        digests: list | None = None,
    ):
        self.name = name
        self.selected = options.select
        self.until = options.until
        self.events_only = options.events_only
        self.zone = options.zone
        self.sink = sink
        self.replayer: Replayer | None = None
        self.event_schema: CompiledSchema | None = None
        self.prepare: Callable[[bytes, dict, Callable[..., None]], None]
        self.forced = forced
        self.budget = budget
        self.summary = FileSummary(path=name, strict=options.strict)
        self.findings: list[Finding] = []
        self.line = 0
        self.where = ""
        self.placed: dict[int, str] = {}  # line -> JSON pointer of a document's messages
        self.dialect: Dialect | None = forced
        self.kind: str | None = None
        self.first_line = 0
        #: the last line counted (kept by a lean replay loop)
        self.last = 0
        #: the file so far holds only plain messages, which every provider dialect takes
        self.tentative = False
        self.variants: dict[str, None] = {}
        # a worker checking part of a file records the digests of its messages here, for
        # the process that owns the file to feed its cross-record checks in file order
        self.digests = digests
        # set once the file turns out to be a message log (see _settle)
        self.cross: CrossChecks | _DigestRecorder | Any
        self.schema: CompiledSchema
        if preset is not None:
            # part of a file: what its first records said, found by the owner of the file
            dialect, kind, self.line = preset
            self._settle(dialect, kind)

    def emit(self, code: str, message: str, ptr: str = "", line: int | None = None) -> None:
        if code not in self.selected:
            return
        severity: Severity = RULES[code].severity
        if severity is ERROR:
            if self.budget.spent:
                self.summary.stopped_early = True
                return
            self.summary.errors += 1
            self.budget.errors += 1
        elif severity is WARNING:
            self.summary.warnings += 1
        at = self.line if line is None else line
        where = self.where if line is None else self.placed.get(line, "")
        if where:
            ptr = where + ptr  # a message inside a JSON document: a pointer into it
        self.findings.append(Finding(self.name, at, code, severity, message, ptr))

    def run(self, records) -> None:
        until = self.until
        cut = False
        last = 0
        for record in records:
            if self.budget.spent:
                self.summary.stopped_early = True
                return
            self.line = record.line
            self.where = record.where
            if record.where:
                self.placed[record.line] = record.where
            problem = record.problem
            if problem is not None:
                if problem.code == "P009":
                    self.summary.readable = False
                self.emit(problem.code, problem.message, problem.pointer)
            if record.line > 0 and (problem is None or problem.code != "P009"):
                self.summary.records += 1
                last = record.line
            obj = record.obj
            if obj is None:
                continue
            kind = self._kind_of(obj)
            if kind == MESSAGE:
                if self.events_only and self.kind == MESSAGE:
                    break  # a message log where an event log is wanted: nothing more to learn
                self._check_message(obj, recovered=problem is not None)
            elif kind == EVENT:
                self._check_event(record, obj)
                if until is not None and (
                    self.summary.records >= until if type(until) is int else obj.get("id") == until
                ):
                    cut = True
                    break
                lean = getattr(self.replayer, "lean", None)
                if lean is not None and until is None and not self.budget.limit:
                    # a provider stream: the rest of its lines in the replayer's own loop,
                    # which hands back every record that needs more than its common case
                    from .reader import take_over

                    self.last = last
                    record = take_over(records, functools.partial(lean, check=self))
                    last = self.last
                    if record is not None:  # (not JSONL: the records go on as they were)
                        last = self.take(record) or last
        if self.kind == MESSAGE:
            self.cross.finish()
        elif self.replayer is not None:
            # a broken stream is reported after the last event that could be read
            self.replayer.finish(self.replayer.line or last, cut=cut)
            self.summary.replay = self.replayer.stats
            if until is not None and not cut:
                self.summary.until_missed = True

    def _kind_of(self, obj: dict) -> str | None:
        """Detect the file's dialect from its first records; report records that do not fit."""
        settled = self.dialect
        if settled is not None and settled.distinct and self.forced is None:
            # no other dialect claims this one's records: its own answer settles the record
            kind = settled.classify(obj)
            if kind is not None and kind == self.kind:
                return kind
        found = classify(obj)
        if self.forced is not None:
            kind = EVENT if found == (self.forced, EVENT) else MESSAGE
            if self.kind is None:
                self._settle(self.forced, kind)
            return self.kind
        if found is None:
            self.emit("D001", _undetected(obj))
            return None
        dialect, kind = found
        if self.dialect is None:
            self._settle(dialect, kind)
            self.tentative = is_plain(obj)
        elif dialect is not self.dialect or kind != self.kind:
            assert self.kind is not None
            if self.tentative and kind == self.kind:
                # the file so far held only plain messages: it is of this record's dialect
                first = self.first_line
                self._settle(dialect, kind)
                self.first_line = first
            elif fits(self.dialect, obj) == self.kind:
                return self.kind
            else:
                self.emit("D002", _mixed(dialect, kind, self.dialect, self.kind, self.first_line))
                return None
        if self.tentative and not is_plain(obj):
            self.tentative = False
        return kind

    def _settle(self, dialect: Dialect, kind: str) -> None:
        self.dialect, self.kind, self.first_line = dialect, kind, self.line
        self.summary.dialect = dialect.name
        self.summary.kind = "events" if kind == EVENT else "messages"
        if kind == EVENT:
            sink = self.sink
            name = self.name
            self.event_schema = compiled(f"{dialect.name}/event")
            zone = self.zone
            self.replayer = dialect.replayer(
                self.emit,
                None if sink is None else (lambda line, message: sink(name, line, message)),
                zone=zone,
            )
            self.prepare = dialect.prepare_event
        else:
            own = dialect.record_checker(self.emit, self.name)
            if own is not None:
                # a dialect with its own record rules (Claude Code sessions)
                own.digests = self.digests
                self.cross = own
                self._check_message = (  # type: ignore[method-assign]
                    lambda obj, recovered: own.check(self.line, obj, recovered)
                )
                return
            if self.digests is not None:
                self.cross = _DigestRecorder(dialect, self.digests)
            else:
                self.cross = CrossChecks(dialect, self.emit)
            self.schema = compiled(f"{dialect.name}/message")

    def take(self, record) -> int:
        """One record, the whole way (what a lean replay loop hands back); its line."""
        self.line = record.line
        problem = record.problem
        if problem is not None:
            if problem.code == "P009":
                self.summary.readable = False
            self.emit(problem.code, problem.message, problem.pointer)
        counted = record.line > 0 and (problem is None or problem.code != "P009")
        if counted:
            self.summary.records += 1
        obj = record.obj
        if obj is not None:
            kind = self._kind_of(obj)
            if kind == MESSAGE:
                self._check_message(obj, recovered=problem is not None)
            elif kind == EVENT:
                self._check_event(record, obj)
        return record.line if counted else 0

    def _check_event(self, record, obj: dict) -> None:
        self.prepare(record.raw, obj, self.emit)
        schema = self.event_schema
        assert schema is not None and self.replayer is not None and self.dialect is not None
        name = self.dialect.event_schema(obj)
        if name != schema.name:
            schema = compiled(name)
        valid = record.problem is None and schema.is_valid_typed(obj)
        if not valid:
            for code, message, ptr in explain(schema, obj) or [
                ("S001", f"the event does not match the {schema.name} schema", "")
            ]:
                self.emit(code, message, ptr)
        self.replayer.feed(self.line, obj, valid)

    def _check_message(self, obj: dict, recovered: bool) -> None:
        dialect, schema, emit = self.dialect, self.schema, self.emit
        assert dialect is not None
        if recovered:
            # a record with NaN/Infinity: only the Python engine takes such values
            explained = explain(schema, obj)
        elif schema.is_valid(obj):
            fast = dialect.fast_digest(obj)
            if fast is not None:
                # the common case: nothing to report, only the cross-record checks to feed
                variant, item = fast
                if variant is not None:
                    self.variants.setdefault(variant, None)
                self.cross.feed_digest(self.line, item)
                return
            explained = []
        else:
            explained = explain(schema, obj) or [
                # the two engines disagree (a regex corner case): still fail the record
                ("S001", f"the record does not match the {schema.name} schema", "")
            ]
        for code, message, ptr in explained:
            emit(code, message, ptr)
        msg = dialect.read(obj)
        if msg.variant is not None:
            self.variants.setdefault(msg.variant, None)
        dialect.check(obj, msg, emit)
        check_message(dialect, msg, obj, emit)
        self.cross.feed(self.line, msg)

    def report(self) -> FileReport:
        fs = self.summary
        fs.variants = list(self.variants)
        if fs.dialect is None:
            fs.kind = "unknown"
        self.findings.sort(key=Finding.sort_key)
        return FileReport(fs, self.findings)


class _DigestRecorder:
    """Stands in for :class:`CrossChecks` in a worker: keeps each message's digest."""

    __slots__ = ("_dialect", "_out")

    def __init__(self, dialect: Dialect, out: list):
        self._dialect = dialect
        self._out = out

    def feed(self, line: int, msg) -> None:
        self._out.append((line, digest(self._dialect, msg)))

    def feed_digest(self, line: int, item: tuple) -> None:
        self._out.append((line, item))

    def finish(self) -> None:
        pass


def _undetected(obj: dict) -> str:
    keys = ", ".join(list(obj)[:8]) or "no keys"
    return (
        f"this record matches none of the known dialects (keys: {keys}); "
        "name one with --dialect if the file is of a known dialect"
    )


def _a(title: str) -> str:
    return f"{'an' if title[:1].lower() in 'aeiou' else 'a'} {title}"


def _kind_name(kind: str) -> str:
    return "event" if kind == EVENT else "message"


def _mixed(d: Dialect, kind: str, file_dialect: Dialect, file_kind: str, since: int) -> str:
    return (
        f"this record is {_a(d.title)} {_kind_name(kind)}, "
        f"but the file is {_a(file_dialect.title)} "
        f"{_kind_name(file_kind)} log (from line {since}); one file should hold one dialect"
    )
