"""The library API: the same pipeline as the command line, without the command line.

Use it inside a test suite to hold recorded transcripts to the same checks
as ``msgcli validate``::

    import msgcli

    def test_golden_transcripts_are_clean():
        run = msgcli.validate_paths(["tests/transcripts"])
        assert [str(f) for f in run.errors()] == []
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from datetime import tzinfo
from pathlib import Path
from typing import IO, Any

from .detect import Detector
from .dialects import EVENT, get_dialect
from .engine import Options
from .findings import Finding, RunReport
from .model import Message
from .pipeline import validate_paths
from .reader import read_records
from .rules import RULES, select_codes
from .stream import open_log

__all__ = [
    "ReplayResult",
    "detect_dialect",
    "export_one",
    "iter_findings",
    "read_messages",
    "replay",
    "stats_one",
    "validate",
    "validate_one",
]

Source = str | Path | IO[bytes]


def detect_dialect(source: Source) -> tuple[str, str] | None:
    """``(dialect name, "message" | "event")`` of a log, from its first recognisable record
    (as every command settles it: :class:`msgcli.detect.Detector`)."""
    detector = Detector()
    for record in read_records(source):
        if record.obj is not None:
            kind = detector.kind_of(record.obj, record.line)
            if kind is not None and detector.dialect is not None:
                return detector.dialect.name, kind
    return None


def read_messages(source: Source, dialect: str | None = None) -> Iterator[tuple[int, Message]]:
    """``(line, message)`` for every message record of a message log, in the neutral model.

    Lines that are not messages of the log's dialect (bad JSON, other dialects) are
    skipped, and an event log gives none (:func:`replay` rebuilds its messages);
    ``validate`` reports them.
    """
    log = open_log(source, Options(dialect=dialect))
    for item in log:
        if log.kind == EVENT:
            return
        if item.message is not None:
            yield item.line, item.message


def validate(
    paths: Source | Iterable[str | Path],
    *,
    dialect: str | None = None,
    select: list[str] | None = None,
    ignore: list[str] | None = None,
    strict: bool | None = None,
    max_errors: int | None = None,
    jobs: int = 1,
    expect_invalid: bool = False,
    config: str | Path | bool = False,
) -> RunReport:
    """Validate files, directories or a stream.

    ``select`` and ``ignore`` take rule codes or prefixes, as on the command line.
    ``jobs`` > 1 checks in that many worker processes, as ``-j`` does (the default
    here is this process only). ``expect_invalid`` holds every file to its expectation
    as ``--expect-invalid`` does (negative fixtures, ``.expect`` sidecars).

    ``config``: ``False`` (the default) reads no configuration file; ``True`` reads the
    one the command line would find from the current directory up; a path reads that
    file. The arguments given here win over it, as options do on the command line.
    Raises :class:`msgcli.config.ConfigError` for a configuration that cannot be used.
    """
    from .config import Layer, Resolver, load

    project = load(None if config is True else (config or None), use=config is not False)
    given = Layer(
        "arguments",
        dialect=dialect,
        select=tuple(select) if select else None,
        ignore=tuple(ignore) if ignore else None,
        strict=strict,
        expect="invalid" if expect_invalid else None,
    )
    options = Resolver(project, given, Options(max_errors=max_errors, jobs=jobs)).top()
    if hasattr(paths, "read"):
        return validate_paths([], options, streams=[paths])  # type: ignore[list-item]
    if isinstance(paths, (str, Path)):
        paths = [paths]
    return validate_paths(paths, options)  # type: ignore[arg-type]


def iter_findings(paths: Source | Iterable[str | Path], **options) -> Iterator[Finding]:
    """Every finding of :func:`validate`, file by file, in line order."""
    for file_report in validate(paths, **options).files:
        yield from file_report.findings


@dataclass(slots=True)
class ReplayResult:
    """What :func:`replay` rebuilt: the messages (as the dialect's JSON, in the order they
    completed) and the report of the run (findings, and per file ``summary.replay``)."""

    report: RunReport
    messages: list[dict] = field(default_factory=list)


def replay(
    paths: Source | Iterable[str | Path],
    *,
    dialect: str | None = None,
    until: int | str | None = None,
    select: list[str] | None = None,
    ignore: list[str] | None = None,
    sink: Callable[[str, int, dict], None] | None = None,
    zone: tzinfo | None = None,
    jobs: int = 1,
) -> ReplayResult:
    """Rebuild the messages of event logs, as ``msgcli replay`` does.

    ``until`` stops each log after that many events, or after the event with that
    id. ``zone`` writes AgentScope Java message times in that zone (the JVM's) rather
    than UTC. Pass ``sink(path, line, message)`` to receive each message as soon as it
    completes instead of collecting them (a long log then needs no memory for them).
    ``jobs`` > 1 replays a large log of Anthropic streams in parts on that many worker
    processes, as ``-j`` does (the default here is this process only); the messages reach
    ``sink`` in the same order.
    """
    options = Options(
        dialect=dialect, select=select_codes(select, ignore), until=until, zone=zone, jobs=jobs
    )
    result = ReplayResult(RunReport())
    if sink is None:

        def sink(path: str, line: int, message: dict) -> None:
            result.messages.append(message)

    if hasattr(paths, "read"):
        result.report = validate_paths([], options, streams=[paths], sink=sink)  # type: ignore[list-item]
    else:
        if isinstance(paths, (str, Path)):
            paths = [paths]
        result.report = validate_paths(paths, options, sink=sink)  # type: ignore[arg-type]
    return result


@dataclass(slots=True)
class ConvertResult:
    """What :func:`convert` wrote: the records (as the target dialect's JSON, in order) and
    the report of the run (findings: lines that could not be read, X001/X002)."""

    report: RunReport
    records: list[dict] = field(default_factory=list)


def convert(
    paths: Source | Iterable[str | Path],
    to: str,
    *,
    dialect: str | None = None,
    carry: bool = True,
    zone: tzinfo | None = None,
    select: list[str] | None = None,
    ignore: list[str] | None = None,
    sink: Callable[[dict], None] | None = None,
) -> ConvertResult:
    """Convert message logs (or event logs, replayed first) to the dialect ``to``, as
    ``msgcli convert`` does.

    ``carry`` keeps what ``to`` has no place for in ``metadata._msgcli``, so converting
    back gives the original records. ``zone`` is the zone of AgentScope's local times
    (``None``: this machine's). Pass ``sink(record)`` to receive each record as it is
    made instead of collecting them.
    """
    from .converters.run import convert_paths

    result = ConvertResult(RunReport())
    write = sink if sink is not None else result.records.append
    if hasattr(paths, "read"):
        sources: Iterable[Any] = [paths]
    elif isinstance(paths, (str, Path)):
        sources = [paths]
    else:
        sources = paths
    options = Options(dialect=dialect, select=select_codes(select, ignore))
    result.report = convert_paths(sources, to, write, options=options, carry=carry, local=zone)
    return result


def query(
    paths: Source | Iterable[str | Path],
    *,
    dialect: str | None = None,
    **filters: Any,
) -> Iterator[Any]:
    """The messages that match, as ``msgcli query`` chooses them: a
    :class:`msgcli.filters.Match` each (``path``, ``line``, ``message`` in the neutral model,
    ``raw`` as the dialect's JSON). ``filters`` are those of :meth:`msgcli.filters.Filter.build`
    (``roles``, ``names``, ``tools``, ``errors``, ``grep``, ``ignore_case``, ``since``,
    ``until``, ``finish``, ``ids``, ``sessions``, ``where``); a filter that cannot be used
    raises :class:`msgcli.filters.FilterError`."""
    from .filters import Filter, Selection

    selection = Selection(Filter.build(**filters), dialect)
    yield from selection.run([str(p) for p in _path_list(paths)])


def export(
    paths: Source | Iterable[str | Path],
    to: str | Path,
    *,
    dialect: str | None = None,
    findings: bool = True,
    replace: bool = False,
) -> Any:
    """Write the tables of :mod:`msgcli.tables` (messages, blocks, tool_calls, findings) to
    ``to``, in the format its suffix names (``.parquet`` and ``.csv``: a directory;
    ``.sqlite``/``.db``, ``.duckdb``: a database), as ``msgcli export`` does; the
    :class:`msgcli.tables.RowCounts`. An existing target is replaced only with
    ``replace=True``. Parquet and DuckDB need the ``tables`` extra
    (:class:`msgcli.tablewriters.MissingExtra` otherwise)."""
    from .tables import table_rows
    from .tablewriters import open_writer

    target = str(to)
    if os.path.lexists(target) and not replace:
        raise FileExistsError(f"{target} exists (replace=True replaces it)")
    writer = open_writer(target)
    try:
        counts = table_rows(
            [str(p) for p in _path_list(paths)], writer.write, dialect=dialect, findings=findings
        )
    except BaseException:
        writer.abort()
        raise
    writer.close(replace=replace)
    return counts


def sql(
    statement: str,
    paths: Source | Iterable[str | Path],
    *,
    dialect: str | None = None,
    findings: bool | None = None,
) -> tuple[list[str], list[tuple]]:
    """Run DuckDB SQL over the tables of the logs (built on the fly, as ``msgcli sql``
    does): ``(column names, rows)``. ``findings``: fill the findings table (a second
    reading of each file); by default when the statement names it. Needs the ``tables``
    extra."""
    import re

    from .sqlrun import run_sql

    if findings is None:
        findings = re.search(r"\bfindings\b", statement, re.IGNORECASE) is not None

    return run_sql(
        statement, [str(p) for p in _path_list(paths)], dialect=dialect, findings=findings
    )


def _path_list(paths: Any) -> list:
    if hasattr(paths, "read"):
        raise TypeError("give paths (or '-' for standard input), not a stream")
    if isinstance(paths, (str, Path)):
        return [paths]
    return list(paths)


# -- one file at a time, for Spark, Ray or any other engine ---------------------------------


def validate_one(
    path: str,
    *,
    dialect: str | None = None,
    select: list[str] | None = None,
    ignore: list[str] | None = None,
    strict: bool = False,
) -> dict:
    """Validate one log (a local path or a URL such as ``s3://bucket/logs/a.jsonl``) and
    return plain data (dicts, lists, str, int): ``{"path", "summary", "findings",
    "failed"}``, each finding as :meth:`Finding.to_dict`. Call it from Spark's
    ``mapPartitions`` or a Ray task; the findings are those ``msgcli validate`` gives the file.
    """
    from .engine import validate_file
    from .expect import settled
    from .remote import mask

    options = Options(dialect=dialect, select=select_codes(select, ignore), strict=strict)
    report = settled(validate_file(path, name=mask(path), options=options), options, path)
    return {
        "path": report.summary.path,
        "summary": report.summary.to_dict(),
        "findings": [f.to_dict() for f in report.findings],
        "failed": report.summary.failed or not report.summary.readable,
    }


def stats_one(path: str, *, dialect: str | None = None) -> dict:
    """The counts of ``msgcli stats`` for one log (path or URL), as plain data (the
    ``files`` entry of ``msgcli stats --format json``)."""
    from .remote import mask
    from .stats import file_stats

    return file_stats(path, name=mask(path), dialect=dialect).to_dict()


def export_one(path: str, *, dialect: str | None = None, findings: bool = True) -> dict:
    """The rows ``msgcli export`` writes for one log (path or URL): ``{table: [row, ...]}``
    with each row a dict of the table's columns (datetimes stay ``datetime``)."""
    from .tables import TABLES, table_rows

    rows: dict[str, list[dict]] = {t: [] for t in TABLES}

    def sink(table: str, batch: list[tuple]) -> None:
        names = [name for name, _ in TABLES[table]]
        rows[table].extend(dict(zip(names, row, strict=True)) for row in batch)

    table_rows([path], sink, dialect=dialect, findings=findings)
    return rows


# -- resolved options: what the command line runs ---------------------------------------


def resolve_options(
    *,
    config: str | Path | bool = False,
    dialect: str | None = None,
    select: list[str] | None = None,
    ignore: list[str] | None = None,
    strict: bool | None = None,
    expect_invalid: bool = False,
    expectations: bool = True,
    source: str = "arguments",
    **base: Any,
) -> Any:
    """The settings of a run, per file: a :class:`msgcli.config.Resolver` whose ``top()``
    is the :class:`Options` to pass to the functions below, and whose ``config`` is the
    project configuration found.

    ``config`` as for :func:`validate`; the other arguments win over it (``source`` names
    them in ``msgcli config``); ``base`` are further :class:`Options` fields (``jobs``,
    ``max_errors``, ``until``, ``zone``, ...). ``expectations=False`` leaves out the
    negative-fixture expectations (for replay and convert). Raises
    :class:`msgcli.config.ConfigError` for a configuration that cannot be used and
    :class:`ValueError` for an unknown rule code."""
    from .config import Layer, Resolver, load

    project = load(None if config is True else (config or None), use=config is not False)
    given = Layer(
        source,
        dialect=dialect,
        select=tuple(select) if select else None,
        ignore=tuple(ignore) if ignore else None,
        strict=strict,
        expect="invalid" if expect_invalid else None,
    )
    return Resolver(project, given, Options(**base), expectations=expectations)


@dataclass(slots=True)
class FormattedLog:
    """What :func:`format_log` made of a log: the dialect it settled on (``None``: no
    messages of a known dialect), how many messages it read, the lines that could not be
    read (``(line, why)``), and the request (``None`` when msgcli does not format the
    dialect, or found none)."""

    dialect: Any
    messages: int = 0
    unreadable: list[tuple[int | None, str]] = field(default_factory=list)
    formatted: Any = None


def format_log(
    source: Source, options: Options, provider: str, multi_agent: bool | None = None
) -> FormattedLog:
    """The request ``provider`` is sent for the conversation in a log, as ``msgcli format``
    builds it (``options.dialect``: read the log as that dialect). ``multi_agent=None``
    decides by the senders. Raises :class:`msgcli.reader.ReadError` or :class:`OSError`
    when the log cannot be read."""
    from .formatters import DIALECTS as FORMATTED
    from .formatters import format_request

    name = "<stdin>" if source == "-" else str(source)
    reader = open_log(source, Options(dialect=options.dialect), name=name)
    messages: list[Message] = []
    lines: list[int] = []
    log = FormattedLog(None)
    for item in reader:
        if item.message is not None:
            messages.append(item.message)
            lines.append(item.line)
        else:
            log.unreadable.append((item.line, item.notice))
    log.dialect = reader.dialect
    log.messages = len(messages)
    if reader.dialect is not None and reader.dialect.name in FORMATTED:
        log.formatted = format_request(messages, reader.dialect.name, provider, multi_agent, lines)
    return log


def run_validate(
    paths: Iterable[str], options: Options, *, client: Any = None, tracker: Any = None
) -> RunReport:
    """Validate ``paths`` as ``msgcli validate`` does, with resolved ``options`` (see
    :func:`resolve_options`; the configuration included): in this process, or in
    ``options.jobs`` worker processes, or on a Dask ``client`` (:func:`msgcli.cluster.connect`);
    ``tracker``: the progress bar the run moves (:func:`msgcli.progress.progress`).
    """
    return validate_paths(list(paths), options, tracker=tracker, client=client)


def run_replay(
    paths: Iterable[str],
    options: Options,
    sink: Callable[[str, int, dict], None],
    *,
    tracker: Any = None,
) -> RunReport:
    """Rebuild the messages of event logs as ``msgcli replay`` does: ``options`` resolved
    with ``expectations=False`` and ``events_only=True`` (``until`` and ``zone`` as
    wanted); ``sink(path, line, message)`` receives each message as it completes."""
    return validate_paths(list(paths), options, sink=sink, tracker=tracker)


def run_convert(
    paths: Iterable[Any],
    to: str,
    write: Callable[[dict], None],
    options: Options,
    *,
    carry: bool = True,
    redact: bool = False,
    local: tzinfo | None = None,
) -> RunReport:
    """Convert logs to the dialect ``to`` as ``msgcli convert`` does, ``write`` receiving each
    record, with resolved ``options`` (the dialect to read, the rules on, strictness and
    the configuration's per-file settings). ``carry``, ``redact`` and ``local`` (the zone
    of AgentScope's local times; ``None``: this machine's) as for :func:`convert`."""
    from .converters.run import convert_paths

    return convert_paths(paths, to, write, options=options, carry=carry, redact=redact, local=local)


def run_otlp(
    paths: Iterable[Any],
    url: str,
    options: Options,
    *,
    protobuf: bool = False,
    headers: dict[str, str] | None = None,
) -> tuple[RunReport, Any]:
    """Send logs of any dialect to the OTLP/HTTP endpoint ``url`` as ``msgcli export --otlp``
    does: each converted to OTLP (``convert --to otel``) and posted as JSON, or as protobuf
    with ``protobuf``. Returns the conversion's report and what was sent
    (:class:`msgcli.dialects.otel.send.Sent`); raises
    :class:`msgcli.dialects.otel.send.SendError` when the endpoint refuses a request."""
    from .converters.run import convert_paths
    from .dialects.otel.send import Sent, endpoint, send

    endpoint(url)  # (a URL that is none is said before any file is read)
    lines: list[dict] = []
    report = convert_paths(paths, "otel", lines.append, options=options)
    sent = send(url, lines, protobuf=protobuf, headers=headers) if lines else Sent()
    return report, sent


def run_stats(
    paths: Iterable[str], options: Options, *, client: Any = None, tracker: Any = None
) -> Any:
    """The counts of ``msgcli stats`` for ``paths`` (a :class:`msgcli.stats.StatsReport`),
    reading them as ``options.dialect`` (``None``: detect), here or on a Dask ``client``."""
    if client is None:
        from .stats import collect_stats

        return collect_stats(list(paths), options.dialect)
    from .cluster import collect_stats_cluster

    return collect_stats_cluster(list(paths), options.dialect, client, tracker=tracker)


def run_export(
    paths: Iterable[str],
    sink: Callable[[str, list[tuple]], None],
    options: Options,
    *,
    findings: bool = True,
    target: str | None = None,
    client: Any = None,
) -> Any:
    """The rows of ``msgcli export`` (:class:`msgcli.tables.RowCounts` returned): handed to
    ``sink(table, rows)`` in batches, reading the logs as ``options.dialect``; with a Dask
    ``client``, each task writes its Parquet files under ``target`` instead (``sink``
    unused). ``findings`` fills the findings table (a second reading of each file)."""
    if client is not None:
        from .cluster import export_cluster

        return export_cluster(
            list(paths),
            str(target),
            client,
            dialect=options.dialect,
            findings=findings,
            redact=options.redact,
        )
    from .tables import table_rows

    return table_rows(
        list(paths), sink, dialect=options.dialect, findings=findings, redact=options.redact
    )


def open_sql(paths: Iterable[str], options: Options, *, findings: bool = True) -> Any:
    """A context manager giving ``(DuckDB connection, row counts)`` with the tables of
    ``msgcli sql`` over the logs (read as ``options.dialect``, secrets masked with
    ``options.redact``), removed on leaving."""
    from .sqlrun import connect_logs

    return connect_logs(
        list(paths), dialect=options.dialect, findings=findings, redact=options.redact
    )


def select_messages(flt: Any, options: Options) -> Any:
    """A :class:`msgcli.filters.Selection` of the messages ``flt`` (a
    :class:`msgcli.filters.Filter`) matches, reading logs as ``options.dialect``: its
    ``run(paths)`` yields each match (secrets masked with ``options.redact``); ``problems``
    and ``unreadable`` tell what could not be read."""
    from .filters import Selection

    return Selection(flt, options.dialect, redact=options.redact)


def run_diff(
    a: Any,
    b: Any,
    options: Options,
    options_b: Options | None = None,
    *,
    match: str = "strict",
    compare: Iterable[str] = (),
    ignore_paths: Iterable[str] = (),
) -> Any:
    """Compare two logs as conversations, as ``msgcli diff`` does (a
    :class:`msgcli.compare.DiffResult`): ``a`` read as ``options.dialect``, ``b`` as
    ``options_b.dialect`` (default: as ``a``)."""
    from .compare import diff

    return diff(
        a,
        b,
        match=match,
        compare=compare,
        ignore_paths=ignore_paths,
        dialect=options.dialect,
        dialect_b=(options_b or options).dialect,
        redact=options.redact,
    )


def _config_settings(resolver: Any, name: str | None) -> dict:
    eff = resolver.effective(name)
    off = sorted(set(RULES) - eff.select)
    return {
        "dialect": {"value": eff.dialect, "source": eff.sources["dialect"]},
        "rules": {
            "on": len(eff.select),
            "off": off,
            "source": eff.sources["rules"],
            "steps": [
                {"source": source, "step": step, "codes": list(codes)}
                for source, step, codes in eff.rule_steps
            ],
        },
        "strict": {"value": eff.strict, "source": eff.sources["strict"]},
        "expect": {"value": eff.expect, "source": eff.sources["expect"]},
    }


def config_document(resolver: Any, paths: Iterable[str] = ()) -> dict:
    """The settings in effect, as ``msgcli config --format json`` prints them: the file
    found, each setting with where it came from, the exclusions and overrides, and for
    each of ``paths`` whether it is excluded and what applies to it. ``resolver`` is what
    :func:`resolve_options` returns."""
    project = resolver.config
    doc: dict = {
        "file": str(project.path) if project.path else None,
        "table": project.table or None,
        "root": str(project.root) if project.path else None,
        "settings": _config_settings(resolver, None),
        "exclude": list(project.exclude),
        "overrides": [
            {
                "number": o.number,
                "paths": list(o.paths),
                **{
                    key: value
                    for key, value in (
                        ("dialect", o.dialect),
                        ("select", list(o.select) if o.select is not None else None),
                        ("ignore", list(o.ignore) if o.ignore is not None else None),
                        ("strict", o.strict),
                        ("expect", o.expect),
                    )
                    if value is not None
                },
            }
            for o in project.overrides
        ],
        "paths": [],
    }
    for name in paths:
        entry: dict = {"path": name, "excluded": project.excluded(name)}
        if not entry["excluded"]:
            entry["overrides"] = [o.number for o in project.matching(name)]
            entry["settings"] = _config_settings(resolver, name)
        doc["paths"].append(entry)
    return doc


# -- one byte range at a time: a large log over Spark, Dask or Ray --------------------------
#
# ``msgcli validate -j`` and ``--scheduler`` check a large message log in byte ranges and merge
# the ranges' results in file order (:mod:`msgcli.parallel`); these functions hand the same
# steps to an engine of one's own: ranges from :func:`byte_ranges` (or any split of the file),
# :func:`validate_range` on each, then :func:`join_ranges` over all of them gives what
# :func:`validate_one` gives the whole file, finding for finding.


def byte_ranges(path: str, parts: int | None = None, *, part_bytes: int | None = None) -> list:
    """``[(start, end), ...]``: byte ranges that cover a log (path or URL), cut at line
    starts: ``parts`` of about equal size, or as many of at most ``part_bytes`` (16 MiB by
    default) as it takes. Any other split of ``[0, size)`` into ranges works as well (an
    engine's own input splits): each range checks the lines that start in it."""
    from .parallel import PART_BYTES, ranges
    from .remote import size as size_of

    size = size_of(path)
    if size <= 0:
        return [(0, max(size, 0))]
    count = parts if parts else -(-size // (part_bytes or PART_BYTES))
    return ranges(path, size, max(1, count))


def _range_setup(path: str, dialect: str | None) -> tuple[Any, bool]:
    """``(preset, whole)``: what the file's first records say (dialect, kind, line), and
    whether the file must be read whole (not a plain JSONL message log of a dialect whose
    checks can be split: gzip, JSON, SSE, an event log, a Claude Code session)."""
    from .dialects import MESSAGE
    from .parallel import plain_preset

    # what -j asks of a file before it cuts one (msgcli.parallel._plan_parts), without the cuts
    preset = plain_preset(path, get_dialect(dialect) if dialect else None)
    if preset is None or preset[1] != MESSAGE or not preset[0].splittable:
        return None, True
    return preset, False


def _line_start(stream: IO[bytes], offset: int) -> int:
    """The first line start at or after ``offset``."""
    if offset <= 0:
        return 0
    stream.seek(offset - 1)
    stream.readline()  # the rest of the line holding byte offset-1
    return stream.tell()


def validate_range(
    path: str,
    start: int,
    end: int,
    *,
    dialect: str | None = None,
    select: list[str] | None = None,
    ignore: list[str] | None = None,
    strict: bool = False,
) -> dict:
    """Check the lines of a log (path or URL) that start in bytes ``[start, end)``, as a
    worker of ``msgcli validate -j`` checks its part: each record read, held to its schema and
    the per-record rules, here; the checks across records (tool pairing, repeated ids, time
    order) are left to :func:`join_ranges`, which runs them over every range in file order.

    Returns plain data to hand to :func:`join_ranges` unchanged: ``path``, ``start``,
    ``end``, ``lines`` (how many lines the range holds), ``findings`` (with line numbers
    within the range), ``summary``, and ``digests`` (what the checks across records need of
    each message; tuples of str, int and None). A log that cannot be cut (gzip, a JSON
    document, SSE, an event log, a Claude Code session) is checked whole by the range that
    starts at byte 0; every other range of it gives nothing.
    """
    from .parallel import check_part
    from .remote import mask, open_binary

    if start < 0 or end < start:
        raise ValueError(f"not a byte range: [{start}, {end})")
    name = mask(path)
    out: dict[str, Any] = {"path": name, "start": start, "end": end, "lines": 0}
    preset, whole = _range_setup(path, dialect)
    if whole:
        out["whole"] = (
            validate_one(path, dialect=dialect, select=select, ignore=ignore, strict=strict)
            if start == 0
            else None
        )
        return out
    options = Options(dialect=dialect, select=select_codes(select, ignore), strict=strict)
    with open_binary(path) as stream:
        begin, stop = _line_start(stream, start), _line_start(stream, end)
    out["preset"] = (preset[0].name, preset[1], preset[2])
    if stop <= begin:  # no line starts here (the range lies inside one line)
        out.update(summary=_part_summary(None), findings=[], digests=[])
        return out
    lines, summary, findings, digests = check_part(name, path, options, out["preset"], begin, stop)
    out.update(
        lines=lines,
        summary=_part_summary(summary),
        findings=[
            {"line": line, "code": code, "message": message, "pointer": pointer}
            for code, message, pointer, line in findings
        ],
        digests=digests,
    )
    return out


def _part_summary(summary: Any) -> dict:
    if summary is None:
        return {"records": 0, "errors": 0, "warnings": 0, "readable": True, "variants": []}
    return {
        "records": summary.records,
        "errors": summary.errors,
        "warnings": summary.warnings,
        "readable": summary.readable,
        "variants": list(summary.variants),
    }


class RangeError(ValueError):
    """The ranges handed to :func:`join_ranges` do not cover one file exactly once."""


def join_ranges(
    results: Iterable[dict],
    *,
    dialect: str | None = None,
    select: list[str] | None = None,
    ignore: list[str] | None = None,
    strict: bool = False,
) -> dict:
    """One file's report from the :func:`validate_range` results of its ranges (in any
    order), with the checks across records run over them in file order: the same dict as
    :func:`validate_one` of the whole file, with the same findings. Give the options the
    ranges were checked with. Raises :class:`RangeError` when the ranges are of several
    files, leave a gap, overlap or are given twice (a range lost or counted twice)."""
    from types import SimpleNamespace

    from .parallel import merge_parts
    from .remote import size as size_of

    ordered = sorted(results, key=lambda r: (r["start"], r["end"]))
    if not ordered:
        raise RangeError("no ranges to join")
    names = {r["path"] for r in ordered}
    if len(names) > 1:
        raise RangeError(f"ranges of {len(names)} files: join the ranges of one file at a time")
    name = ordered[0]["path"]
    at = 0
    for result in ordered:
        if result["start"] != at:
            what = "a gap" if result["start"] > at else "an overlap"
            raise RangeError(f"{name}: {what} at byte {min(at, result['start'])}")
        at = result["end"]
    if any("whole" in r for r in ordered):
        (first,) = [r for r in ordered if r["start"] == 0][:1]
        if first.get("whole") is None:
            raise RangeError(f"{name}: the range at byte 0 was not checked")
        return first["whole"]
    known = size_of(name) if "://" not in name or "***" not in name else 0
    if known and at < known:
        raise RangeError(f"{name}: the ranges end at byte {at} of {known}")
    options = Options(dialect=dialect, select=select_codes(select, ignore), strict=strict)
    preset_name, kind, line = ordered[0]["preset"]
    preset = (get_dialect(preset_name), kind, line)

    def parts() -> Iterator[tuple]:
        for r in ordered:
            summary = SimpleNamespace(**r["summary"])
            found = [(f["code"], f["message"], f["pointer"], f["line"]) for f in r["findings"]]
            yield r["lines"], summary, found, r["digests"]

    spans = [(r["start"], r["end"]) for r in ordered]
    report = merge_parts(name, preset, parts(), options, spans, None)
    return {
        "path": report.summary.path,
        "summary": report.summary.to_dict(),
        "findings": [f.to_dict() for f in report.findings],
        "failed": report.summary.failed or not report.summary.readable,
    }


def read_range(path: str, start: int, end: int, *, dialect: str | None = None) -> dict:
    """The message records of a log (path or URL) whose lines start in bytes ``[start,
    end)``, as :func:`read_messages` reads them: ``{"path", "start", "end", "lines",
    "messages": [(line within the range, Message), ...]}``. :func:`joined_messages` numbers
    the lines of every range as in the file. A log that cannot be cut is read whole by the
    range that starts at byte 0."""
    from .reader import part_records
    from .remote import mask, open_binary

    if start < 0 or end < start:
        raise ValueError(f"not a byte range: [{start}, {end})")
    out: dict[str, Any] = {"path": mask(path), "start": start, "end": end, "lines": 0}
    preset, whole = _range_setup(path, dialect)
    if whole:
        out["messages"] = list(read_messages(path, dialect)) if start == 0 else []
        out["whole"] = True
        return out
    chosen = preset[0]
    with open_binary(path) as stream:
        begin, stop = _line_start(stream, start), _line_start(stream, end)
        stream.seek(begin)
        data = stream.read(max(0, stop - begin))
    messages = []
    expand = getattr(chosen, "expand", None)
    for record in part_records(data, first=begin == 0):
        obj = record.obj
        if obj is None or (begin == 0 and record.line < preset[2]):
            continue  # (before its first message, read_messages knows no dialect yet)
        if chosen.classify(obj) == EVENT:
            continue
        for one in [obj] if expand is None else expand(obj):
            messages.append((record.line, chosen.read(one)))
    out["lines"] = data.count(b"\n") + (0 if not data or data.endswith(b"\n") else 1)
    out["messages"] = messages
    return out


def joined_messages(results: Iterable[dict]) -> Iterator[tuple[int, Message]]:
    """``(line, message)`` of every :func:`read_range` result of one file, in file order,
    each line numbered as in the file."""
    base = 0
    for result in sorted(results, key=lambda r: (r["start"], r["end"])):
        for line, message in result["messages"]:
            yield (line if result.get("whole") else line + base), message
        base += result["lines"]


__all__ += [
    "RangeError",
    "byte_ranges",
    "join_ranges",
    "joined_messages",
    "read_range",
    "validate_range",
]
