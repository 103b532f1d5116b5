"""The checking engine: one input, record by record, into a :class:`FileReport`.

:func:`validate_file` checks one log (a path, ``-`` or a binary stream): every record
is read (:mod:`msgcli.reader`), placed by the file's :class:`~msgcli.detect.Detector`,
checked against its dialect's schema and rules, and, in an event log, replayed. Only
what the checks across records need is kept (:class:`msgcli.checks.CrossChecks`).

Three classes, one per way a file is checked:

- :class:`FileCheck`: a whole file, in this process;
- :class:`PartCheck`: a part of a large message log, in a worker process, which keeps
  the digests of its messages for the cross-record checks instead of running them;
- :class:`PartsMerge`: the process that owns a split file, which runs the cross-record
  checks over every part's digests, in file order.

How a run is made of files is :mod:`msgcli.pipeline`'s business.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from .checks import CrossChecks, check_message, digest
from .detect import Detector
from .dialects import EVENT, MESSAGE, Dialect, get_dialect
from .findings import ERROR, WARNING, FileReport, FileSummary, Finding, Severity
from .guard import RECORD_DEPTH, may_nest_deeper, nests_deeper
from .inputs import suffix_list
from .reader import ReadError, container_of, read_records, source_name
from .records import Truncated, collector_paused, line_problem, parsed_record, take_over
from .replayers import Replayer
from .rules import RULES
from .schemas import CompiledSchema, compiled, explain

if TYPE_CHECKING:  # pragma: no cover
    from .progress import Tracker

__all__ = [
    "Budget",
    "FileCheck",
    "MessageSink",
    "Options",
    "PartCheck",
    "PartsMerge",
    "unusable",
    "validate_file",
]

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
    #: reading commands (:func:`msgcli.stream.open_log`): mask secrets in every record
    #: before it is read (``--redact``: see :mod:`msgcli.redact`)
    redact: bool = False

    def for_file(self, name: str) -> Options | None:
        """The options that apply to the file ``name`` (None: excluded)."""
        return self if self.files is None else self.files(name)

    def forced(self) -> Dialect | None:
        """The dialect ``--dialect`` names, if any."""
        return get_dialect(self.dialect) if self.dialect else None


class Budget:
    """How many errors a run may report before it stops (``--max-errors``)."""

    __slots__ = ("errors", "limit")

    def __init__(self, limit: int | None):
        self.limit = limit
        self.errors = 0

    @property
    def spent(self) -> bool:
        return self.limit is not None and self.errors >= self.limit


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
    budget: Budget | None = None,
    sink: MessageSink | None = None,
    tracker: Tracker | None = None,
) -> FileReport:
    """Check one log file (a path, ``-``, or a binary stream); replay it if it is an event
    log. ``tracker``: the progress bar that follows the file's read position."""
    options = options or Options()
    if name is None:
        name = source_name(source)
    check = FileCheck(
        name, options, forced or options.forced(), budget or Budget(options.max_errors), sink
    )
    try:
        if (
            tracker is None
            or hasattr(source, "read")
            or str(source) == "-"
            or container_of(source) is not None  # (a database: its rows, not its bytes)
        ):
            check.run(read_records(source))
        else:
            _run_tracked(check, source, tracker)
    except ReadError as exc:
        check.summary.readable = False
        check.emit("P009", f"cannot read: {exc}")
    return check.report()


def _run_tracked(check: FileCheck, source: str | Path, state: Tracker) -> None:
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


class _Findings:
    """What every check keeps: the file's summary and findings, counted against a budget."""

    def __init__(self, name: str, options: Options, budget: Budget):
        self.name = name
        self.selected = options.select
        self.budget = budget
        self.summary = FileSummary(path=name, strict=options.strict)
        self.findings: list[Finding] = []
        self.line = 0
        self.where = ""
        self.placed: dict[int, str] = {}  # line -> JSON pointer of a document's messages
        self.variants: dict[str, None] = {}

    def emit(self, code: str, message: str, ptr: str = "", line: int | None = None) -> None:
        """Report ``code`` with ``message`` at ``ptr`` of the record on ``line`` (the
        current record when None)."""
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

    def add_part(self, part: FileSummary, findings: list[tuple], base: int = 0) -> None:
        """The counts and findings of a part of this file checked elsewhere (findings as
        ``(code, message, pointer, line)``, ``base`` the lines before the part)."""
        summary = self.summary
        summary.records += part.records
        summary.errors += part.errors
        summary.warnings += part.warnings
        summary.readable = summary.readable and part.readable
        for variant in part.variants:
            self.variants.setdefault(variant, None)
        for code, message, ptr, line in findings:
            self.findings.append(
                Finding(self.name, line + base, code, RULES[code].severity, message, ptr)
            )

    def report(self) -> FileReport:
        fs = self.summary
        fs.variants = list(self.variants)
        if fs.dialect is None:
            fs.kind = "unknown"
        self.findings.sort(key=Finding.sort_key)
        return FileReport(fs, self.findings)


class FileCheck(_Findings):
    """The state of checking one whole file: its dialect, its findings, its cross-record
    checks, its replay."""

    #: a part's digests, kept for the process that owns the file (:class:`PartCheck`)
    digests: list | None = None
    #: after how many records a message log goes on in its dialect's typed path (a short
    #: log is done before the typed types would be imported and built)
    typed_after = 1000

    def __init__(
        self,
        name: str,
        options: Options,
        forced: Dialect | None,
        budget: Budget,
        sink: MessageSink | None = None,
    ):
        super().__init__(name, options, budget)
        self.until = options.until
        self.events_only = options.events_only
        self.zone = options.zone
        self.sink = sink
        self.replayer: Replayer | None = None
        self.event_schema: CompiledSchema | None = None
        self.prepare: Callable[[bytes, dict, Callable[..., None]], None]
        self.detector = Detector(forced)
        #: a message log's own record checker (its dialect's :meth:`Dialect.record_checker`)
        self.own: Any = None
        self.dialect: Dialect | None = None
        self.kind: str | None = None
        #: the last line counted (kept by a lean replay loop)
        self.last = 0
        # set once the file turns out to be a message log (see _settle)
        self.cross: CrossChecks | _DigestRecorder | Any
        self.schema: CompiledSchema
        #: a message log's lean loop, once its dialect is known: makes the function that
        #: reads the rest of a JSONL log's numbered lines and says how many records it read
        #: (see :meth:`_lean_loop` and :meth:`_typed_loop`)
        self.lean: Callable[[], Callable[[Iterator[tuple[int, bytes]]], int]] | None = None

    def run(self, records: Iterator[Any]) -> None:
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
                if self.detector.stranger is obj and self.own is None:
                    self._unknown_record(obj)
                else:
                    self._check_message(obj, recovered=problem is not None)
                if (
                    self.lean is not None
                    and record.raw
                    and self.summary.records >= self.typed_after
                    and not self.budget.limit
                ):
                    # a message log with a lean loop: the rest of its lines in that loop
                    reader = self.lean()
                    self.lean = None
                    record = take_over(records, reader)
                    if record is not None:  # (not JSONL: the records go on as they were)
                        self.take(record)
            elif kind == EVENT:
                self._check_event(record, obj)
                if until is not None and (
                    self.summary.records >= until if type(until) is int else obj.get("id") == until
                ):
                    cut = True
                    break
                lean = getattr(self.replayer, "lean", None)
                if (
                    lean is not None
                    and until is None
                    and not self.budget.limit
                    and self.summary.records >= getattr(self.replayer, "lean_after", 0)
                ):
                    # the rest of its lines in the replayer's own loop (a provider stream's, or
                    # one on typed events), which hands back every record that needs more than
                    # its common case
                    self.last = last
                    record = take_over(records, functools.partial(lean, check=self))
                    last = self.last
                    if record is not None:  # (not JSONL: the records go on as they were)
                        last = self.take(record) or last
        if self.kind == MESSAGE:
            self.cross.finish()
        elif self.replayer is not None:
            self._end_replay(last, cut)
            self.summary.replay = self.replayer.stats
            if until is not None and not cut:
                self.summary.until_missed = True

    def _kind_of(self, obj: dict) -> str | None:
        """The record's kind, as the file's detector places it; a record that is not one
        of the file's is reported (D001, D002)."""
        detector = self.detector
        kind = detector.kind_of(obj, self.line)
        if kind is None:
            problem = detector.problem
            assert problem is not None
            self.emit(problem.code, problem.message)
            return None
        if detector.dialect is not self.dialect:
            assert detector.dialect is not None and detector.kind is not None
            self._settle(detector.dialect, detector.kind)
        return kind

    def _unknown_record(self, obj: Any) -> None:
        """A record of no known dialect in a tolerant dialect's message log (see
        :meth:`Dialect.unknown_record`): said, and nothing else checked."""
        assert self.dialect is not None
        self.dialect.unknown_record(obj, self.emit)

    def _settle(self, dialect: Dialect, kind: str) -> None:
        self.dialect, self.kind = dialect, kind
        self.summary.dialect = dialect.name
        self.summary.kind = "events" if kind == EVENT else "messages"
        if kind == EVENT:
            sink = self.sink
            name = self.name
            self.event_schema = compiled(f"{dialect.name}/event")
            self.replayer = dialect.replayer(
                self.emit,
                None if sink is None else functools.partial(sink, name),
                zone=self.zone,
            )
            self.prepare = dialect.prepare_event
        else:
            own = dialect.record_checker(self.emit, self.name)
            if own is not None:
                # a dialect with its own record rules (Claude Code sessions)
                own.digests = self.digests
                self.cross = self.own = own
                self._check_message = (  # type: ignore[method-assign]
                    lambda obj, recovered: own.check(self.line, obj, recovered)
                )
                if not self.events_only:
                    self.lean = lambda: functools.partial(self._lean_loop, self._own_step(own))
                return
            self.cross = self._cross_checks(dialect)
            self.schema = compiled(f"{dialect.name}/message")
            if dialect.typed is not None and not self.events_only and not self.detector.tentative:
                self.lean = self._typed_loop

    def _cross_checks(self, dialect: Dialect) -> Any:
        return CrossChecks(dialect, self.emit)

    def _end_replay(self, last: int, cut: bool) -> None:
        # a broken stream is reported after the last event that could be read
        assert self.replayer is not None
        self.replayer.finish(self.replayer.line or last, cut=cut)

    def take(self, record: Any) -> int:
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
                if self.detector.stranger is obj and self.own is None:
                    self._unknown_record(obj)
                else:
                    self._check_message(obj, recovered=problem is not None)
            elif kind == EVENT:
                self._check_event(record, obj)
        return record.line if counted else 0

    def _lean_loop(
        self, step: Callable[[int, bytes], bool], lines: Iterator[tuple[int, bytes]]
    ) -> int:
        """Check the rest of a JSONL message log from its numbered lines: ``step`` takes each
        line in its common case (a record no rule speaks on, or one its dialect's checker
        takes from the parsed object) and says whether it did; any other line goes the whole
        way (:meth:`take`). Returns how many records it read."""
        with collector_paused():
            return self._lean_lines(step, lines)

    def _lean_lines(
        self, step: Callable[[int, bytes], bool], lines: Iterator[tuple[int, bytes]]
    ) -> int:
        import orjson

        bad_json = orjson.JSONDecodeError
        summary = self.summary
        take = self.take
        count = 0
        # a line that did not parse, held back as the reader holds it: it may be the last
        # one, cut off
        pending: tuple[int, bytes, Any] | None = None
        try:
            for number, raw in lines:
                if pending is not None:
                    take(line_problem(*pending, last=False))
                    pending = None
                if step(number, raw):
                    count += 1
                    summary.records += 1
                    continue
                if not raw.strip():
                    continue
                count += 1
                try:
                    take(parsed_record(number, raw))
                except bad_json as exc:
                    pending = (number, raw, exc)
        except Truncated:
            # a compressed log cut short: the reader says where it broke off
            if pending is not None:
                take(line_problem(*pending, last=False))
            raise
        if pending is not None:
            take(line_problem(*pending, last=True))
        return count

    def _typed_loop(self) -> Callable[[Iterator[tuple[int, bytes]]], int]:
        """The lean loop of a dialect's typed path: each line decoded into its types, and a
        record no rule speaks on only feeds the checks across records; any other line goes
        the whole way (:meth:`take`), as in :meth:`_lean_lines`. (One loop with the common
        case written out in it: it runs for every record of a large log.)"""
        import msgspec
        import orjson

        assert self.dialect is not None
        typed = self.dialect.typed_messages()
        assert typed is not None  # (a dialect with a typed path: see _settle)
        decode, digest_of = typed
        # a line the types refuse, that does not parse (invalid UTF-8 too), or nests too deep
        refused = (msgspec.ValidationError, msgspec.DecodeError, ValueError, RecursionError)
        bad_json = orjson.JSONDecodeError
        feed = self.cross.feed_digest
        variants = self.variants
        summary = self.summary
        take = self.take
        # a shorter line cannot nest too deep (see may_nest_deeper: asked only past it)
        short_line = 2 * RECORD_DEPTH + 1

        def loop(lines: Iterator[tuple[int, bytes]]) -> int:
            before = summary.records
            # a line that did not parse, held back as the reader holds it: it may be the
            # last one, cut off
            pending: tuple[int, bytes, Any] | None = None
            with collector_paused():
                try:
                    for number, raw in lines:
                        if pending is not None:
                            take(line_problem(*pending, last=False))
                            pending = None
                        try:
                            value = decode(raw)
                        except refused:
                            pass
                        else:
                            if len(raw) <= short_line or not may_nest_deeper(raw):
                                fast = digest_of(value)
                                if fast is not None:
                                    variant, item = fast
                                    if variant is not None and variant not in variants:
                                        variants[variant] = None
                                    feed(number, item)
                                    summary.records += 1
                                    continue
                        if not raw.strip():
                            continue
                        try:
                            take(parsed_record(number, raw))
                        except bad_json as exc:
                            pending = (number, raw, exc)
                except Truncated:
                    # a compressed log cut short: the reader says where it broke off
                    if pending is not None:
                        take(line_problem(*pending, last=False))
                    raise
                if pending is not None:
                    take(line_problem(*pending, last=True))
            return summary.records - before

        return loop

    def _own_step(self, own: Any) -> Callable[[int, bytes], bool]:
        """The lean step of a dialect with its own record checker (Claude Code sessions):
        a line that parses into one of the file's records goes straight to the checker."""
        import orjson

        assert self.dialect is not None
        loads = orjson.loads
        bad_json = orjson.JSONDecodeError
        classify = self.dialect.classify
        check = own.check

        def step(number: int, raw: bytes) -> bool:
            try:
                obj = loads(raw)
            except bad_json:
                return False
            if type(obj) is not dict or nests_deeper(obj, raw=raw) or classify(obj) != MESSAGE:
                return False
            self.line = number
            check(number, obj)
            return True

        # the common records on the checker's typed path, when it has one (the others on
        # this step)
        typed = getattr(own, "typed", None)
        return step if typed is None else typed(step)

    def _check_event(self, record: Any, obj: dict) -> None:
        if self.detector.stranger is obj:
            # a record of no known dialect in a tolerant dialect's stream: its replayer
            # counts it and skips it, as the provider's SDK does
            assert self.replayer is not None
            self.replayer.feed(self.line, obj, False)
            return
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


#: what the owner of a file found in its first records: ``(dialect, kind, line)``
Preset = tuple[Dialect, str, int]


class PartCheck(FileCheck):
    """Part of a large message log, checked in a worker: the dialect is what the owner of
    the file found in its first records; each message's digest is kept in ``digests``
    (in part order) for the owner's cross-record checks."""

    #: a part goes on in its dialect's lean loop after its first record (the worker builds
    #: the types once for all its parts)
    typed_after = 1

    def __init__(self, name: str, options: Options, preset: Preset, digests: list):
        super().__init__(name, options, options.forced(), Budget(None))
        self.digests = digests
        dialect, kind, self.line = preset
        self.detector.settle(dialect, kind, self.line)
        self._settle(dialect, kind)

    def _cross_checks(self, dialect: Dialect) -> Any:
        assert self.digests is not None
        return _DigestRecorder(dialect, self.digests)


class ReplayPartCheck(FileCheck):
    """Part of a large event log, replayed in a worker: it starts at a line that opens a
    stream (the dialect is what the owner of the file found in its first records), and
    its lines are numbered as in the whole file. ``next_line``: the line the next part
    starts at (``None``: this is the last part); the stream still open there is closed as
    that line would close it."""

    def __init__(
        self,
        name: str,
        options: Options,
        preset: Preset,
        sink: MessageSink | None,
        next_line: int | None,
    ):
        super().__init__(name, options, options.forced(), Budget(None), sink)
        self.next_line = next_line
        dialect, kind, self.line = preset
        self.detector.settle(dialect, kind, self.line)
        self._settle(dialect, kind)

    def _end_replay(self, last: int, cut: bool) -> None:
        assert self.replayer is not None
        if self.next_line is None:
            super()._end_replay(last, cut)
        else:
            self.replayer.cut_before(self.next_line)


class PartsMerge(_Findings):
    """A split file's report, from its parts' results: their counts and findings, and the
    cross-record checks run here over their digests, in file order."""

    def __init__(self, name: str, options: Options, preset: Preset):
        super().__init__(name, options, Budget(None))
        dialect, _, _ = preset
        self.summary.dialect = dialect.name
        self.summary.kind = "messages"
        own = dialect.record_checker(self.emit, name)
        self.cross: Any = own if own is not None else CrossChecks(dialect, self.emit)
        self._base = 0

    def add(self, lines: int, part: FileSummary, findings: list[tuple], digests: list) -> None:
        """One part's result (in file order): ``lines`` it holds, its summary, its findings
        as ``(code, message, pointer, line)`` and its digests, lines local to the part."""
        base, feed = self._base, self.cross.feed_digest
        self.add_part(part, findings, base)
        for line, item in digests:
            feed(line + base, item)
        self._base = base + lines

    def finish(self) -> FileReport:
        self.cross.finish()
        return self.report()


class ReplayMerge(_Findings):
    """A large event log's report, from the results of its parts replayed in order."""

    def __init__(self, name: str, options: Options, preset: Preset):
        super().__init__(name, options, Budget(None))
        self.summary.dialect = preset[0].name
        self.summary.kind = "events"

    def add(self, part: FileSummary, findings: list[tuple]) -> None:
        """One part's result, in file order (its findings as ``(code, message, pointer,
        line)``, lines those of the file)."""
        self.add_part(part, findings)
        summary = self.summary
        if part.replay is not None:
            if summary.replay is None:
                summary.replay = part.replay
            else:
                summary.replay.add(part.replay)


class _DigestRecorder:
    """Stands in for :class:`CrossChecks` in a worker: keeps each message's digest."""

    __slots__ = ("_dialect", "_out")

    def __init__(self, dialect: Dialect, out: list):
        self._dialect = dialect
        self._out = out

    def feed(self, line: int, msg: Any) -> None:
        self._out.append((line, digest(self._dialect, msg)))

    def feed_digest(self, line: int, item: tuple) -> None:
        self._out.append((line, item))

    def finish(self) -> None:
        pass
