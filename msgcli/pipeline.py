"""The validation pipeline: inputs -> one engine per file -> expectations -> the run's report.

:func:`validate_paths` is what ``msgcli validate`` runs. It chooses how the files are
checked: here, one after the other (:func:`msgcli.engine.validate_file`); in worker
processes (``jobs`` > 1, :mod:`msgcli.parallel`); or on a Dask cluster (``client``,
:mod:`msgcli.cluster`). Every strategy gives the same reports, in input order.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from .engine import Budget, MessageSink, Options, unusable, validate_file
from .expect import settled
from .findings import FileReport, RunReport
from .inputs import planned

if TYPE_CHECKING:  # pragma: no cover
    from .progress import Tracker

__all__ = ["Options", "RunReport", "iter_file_reports", "validate_paths"]

#: ``tracker`` not given: the bar of the ``progress()`` block the run is made in, if any
CURRENT: Any = object()


def validate_paths(
    paths: Iterable[str | Path],
    options: Options | None = None,
    streams: Iterable[IO[bytes]] = (),
    sink: MessageSink | None = None,
    *,
    tracker: Tracker | None = CURRENT,
    client: Any = None,
) -> RunReport:
    """Validate open binary ``streams``, then every file the paths name.

    Event logs are replayed on the way; ``sink(path, line, message)`` receives
    every message the replay rebuilds, as soon as it is complete. ``tracker`` is the
    progress bar the run moves; ``client`` a Dask client to check the files on.
    """
    options = options or Options()
    report = RunReport()
    excluded: list[str] = []
    skipped = report.summary.skipped
    reports = iter_file_reports(
        paths, options, streams, sink, excluded, skipped, tracker=tracker, client=client
    )
    for file_report in reports:
        report.add(file_report)
    report.summary.excluded = len(excluded)
    return report


def iter_file_reports(
    paths: Iterable[str | Path],
    options: Options,
    streams: Iterable[IO[bytes]] = (),
    sink: MessageSink | None = None,
    excluded: list[str] | None = None,
    skipped: list[str] | None = None,
    *,
    tracker: Tracker | None = CURRENT,
    client: Any = None,
) -> Iterator[FileReport]:
    """One report per input, as soon as that input is done. Files the configuration
    excludes are appended to ``excluded`` instead, JSON documents a directory scan
    passed over to ``skipped``."""
    if tracker is CURRENT:
        from .progress import tracker as current

        tracker = current()
    if client is not None:
        from .cluster import iter_file_reports_cluster

        yield from iter_file_reports_cluster(
            paths, options, client, excluded, tracker=tracker, streams=streams
        )
        return
    if options.jobs > 1 and sink is None and options.max_errors is None:
        from .parallel import iter_file_reports_parallel

        yield from iter_file_reports_parallel(
            paths, options, streams, excluded, skipped, tracker=tracker
        )
        return
    if (
        options.jobs > 1
        and sink is not None
        and options.max_errors is None
        and options.until is None
    ):
        # a replay: a large event log whose streams can be told apart is cut into parts
        from .parallel import iter_replay_reports

        yield from iter_replay_reports(
            paths, options, sink, streams, excluded, skipped, tracker=tracker
        )
        return
    yield from _serial(paths, options, streams, sink, excluded, skipped, tracker)


def _serial(
    paths: Iterable[str | Path],
    options: Options,
    streams: Iterable[IO[bytes]],
    sink: MessageSink | None,
    excluded: list[str] | None,
    skipped: list[str] | None,
    tracker: Tracker | None,
) -> Iterator[FileReport]:
    """Every input checked here, one after the other, under one ``--max-errors`` budget."""
    budget = Budget(options.max_errors)
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
        report = validate_file(
            source, name=name, options=chosen, budget=budget, sink=sink, tracker=tracker
        )
        yield settled(report, chosen, source)
