"""validate, stats and export on a Dask cluster (``--scheduler ADDRESS``).

The work is planned as ``-j`` plans it (:func:`msgcli.parallel.plan`): a task
per file, and a large plain message log cut at line boundaries into byte
ranges whose digests are merged here, in file order, into the file's one
cross-record check. The tasks are the same functions the worker processes of
``-j`` run, so the findings are the same.

Results come back as tasks finish (the progress bar moves with them) and are
put back in input order, so the output equals a local run. Each task has a
key of its own; its result is taken once, by key. When a worker is lost, the
scheduler runs its tasks again on another worker (every task reads its input
and returns a value: running one twice gives the same value).

``ADDRESS`` is ``tcp://host:port`` (a running ``dask scheduler``), ``local``
(a LocalCluster, one single-threaded worker process per core) or ``local:N``
(N worker processes). dask and distributed are imported only here.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any

__all__ = [
    "ENV",
    "ClusterError",
    "collect_stats_cluster",
    "connect",
    "export_cluster",
    "iter_file_reports_cluster",
    "run_tasks",
]

#: the environment variable that names a scheduler when ``--scheduler`` is not given
ENV = "MSGCLI_SCHEDULER"
#: seconds to wait for a scheduler to answer
CONNECT_TIMEOUT = 5


class ClusterError(Exception):
    """The scheduler cannot be used (one line, for the user)."""


@contextmanager
def connect(address: str) -> Iterator[Any]:
    """A ``distributed.Client`` for ``address``, closed (with its LocalCluster) at the end."""
    try:
        import logging

        from distributed import Client, LocalCluster
    except ImportError:
        raise ClusterError("--scheduler needs the dask extra: pip install 'msgcli[dask]'") from None
    from .remote import mask

    text = address.strip()
    cluster = None
    if text == "local" or text.startswith("local:"):
        count = text.partition(":")[2]
        if count and not (count.isdigit() and int(count) > 0):
            raise ClusterError(f"--scheduler {mask(text)}: local:N takes a number of workers")
        from .parallel import default_jobs

        workers = int(count) if count else default_jobs()
        try:
            cluster = LocalCluster(
                n_workers=workers,
                threads_per_worker=1,
                processes=True,
                dashboard_address=None,
                # (the scheduler serves HTTP anyway, on 8787 by default: taken by another
                # cluster, that printed a warning; any free port will do)
                scheduler_kwargs={"dashboard_address": ":0"},
                silence_logs=logging.ERROR,
            )
            client = Client(cluster, timeout=CONNECT_TIMEOUT * 6)
        except Exception as exc:
            if cluster is not None:
                cluster.close()
            raise ClusterError(f"cannot start a local Dask cluster: {exc}") from None
    elif "://" in text or ":" in text:
        if "://" not in text:
            text = f"tcp://{text}"
        try:
            client = Client(text, timeout=CONNECT_TIMEOUT)
        except (OSError, TimeoutError) as exc:
            why = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            raise ClusterError(
                f"cannot reach the Dask scheduler at {mask(text)}: {mask(why)}"
            ) from None
        except Exception as exc:
            raise ClusterError(f"--scheduler {mask(text)}: {exc}") from None
    else:
        raise ClusterError(f"--scheduler {mask(text)}: give tcp://HOST:PORT, local or local:N")
    try:
        yield client
    finally:
        if cluster is None:
            client.close()
        else:
            _close_quietly(client, cluster)


def _quiet() -> None:
    """Silence distributed's logging in this process: a cluster closing down is not news."""
    import logging

    logging.getLogger("distributed").setLevel(logging.CRITICAL + 1)


def _close_quietly(client: Any, cluster: Any) -> None:
    """Close a LocalCluster msgcli started, with nothing logged while it goes down.

    A worker can be in the middle of a heartbeat when the scheduler goes, and logs
    the broken connection with its traceback (distributed's own race). The work is
    done and its results are in by then, so the workers, and this process (where the
    scheduler runs), are made silent first. A worker that cannot be reached is silent
    already.
    """
    import logging

    with suppress(Exception):
        client.run(_quiet, on_error="ignore")
    log = logging.getLogger("distributed")
    level = log.level
    _quiet()
    try:
        client.close()
        cluster.close()
    finally:
        log.setLevel(level)


def workers(client: Any) -> int:
    """How many tasks the cluster runs at once (its worker threads)."""
    try:
        return max(1, sum(client.nthreads().values()))
    except Exception:
        return 1


def run_tasks(
    client: Any,
    func: Callable[[Any], Any],
    tasks: list,
    arrived: Callable[[int, Any], None] | None = None,
    label: str = "msgcli",
) -> Iterator[Any]:
    """``func(task)`` of every task on the cluster, yielded in task order.

    ``arrived(index, result)`` is called as each task finishes, in the order they
    finish. A task's result is taken once, by its key, however often the scheduler
    ran it (a lost worker's tasks run again elsewhere).
    """
    if not tasks:
        return
    import uuid

    from distributed import as_completed

    run = uuid.uuid4().hex[:12]
    keys = [f"{label}-{run}-{i}" for i in range(len(tasks))]
    index = {key: i for i, key in enumerate(keys)}
    futures = [
        client.submit(func, task, key=key, pure=False, retries=2)
        for key, task in zip(keys, tasks, strict=True)
    ]
    results: dict[int, Any] = {}
    following = 0
    try:
        for future, result in _completed(as_completed(futures, with_results=True)):
            i = index[future.key]
            if i in results:  # already taken: never counted twice
                continue
            results[i] = result
            future.release()
            if arrived is not None:
                arrived(i, result)
            while following in results:
                yield results.pop(following)
                following += 1
    finally:
        for future in futures:
            future.release()


def _completed(pairs: Iterator) -> Iterator:
    """The finished tasks; a task the cluster gave up on ends the run in one line."""
    while True:
        try:
            pair = next(pairs)
        except StopIteration:
            return
        except (ImportError, MemoryError, KeyboardInterrupt):
            raise
        except Exception as exc:
            from .remote import mask

            why = str(exc).splitlines()[0] if str(exc) else ""
            raise ClusterError(
                f"a task failed on the cluster: {type(exc).__name__} {mask(why)}".rstrip()
            ) from exc
        yield pair


def iter_file_reports_cluster(
    paths: Iterable[str | Path],
    options: Any,
    client: Any,
    excluded: list[str] | None = None,
    skipped: list[str] | None = None,
    *,
    tracker: Any = None,
    streams: Iterable[Any] = (),
) -> Iterator:
    """Like :func:`msgcli.pipeline.iter_file_reports`, with the tasks on a Dask cluster;
    ``tracker``: the progress bar to move as the results arrive."""
    from .engine import validate_file
    from .expect import settled
    from .parallel import assemble, batched, plan, run_task, unbatched
    from .remote import size

    for stream in streams:
        yield settled(validate_file(stream, options=options), options, None)
    slots, planned_tasks = plan(paths, options, excluded, max(2, workers(client)), skipped)
    # (small local files go together, as to -j's workers: a task's round trip costs more)
    tasks = list(batched(planned_tasks))
    state = tracker

    def arrived(i: int, result: Any) -> None:
        if state is None:
            return
        task = tasks[i]
        if task[0] == "files":
            for one, report in zip(task[1], result, strict=True):
                state.done(size(one[2]), report.summary.records)
        elif task[0] == "file":
            state.done(size(task[2]), result.summary.records)
        else:
            state.done(task[6] - task[5], result[1].records)

    results = run_tasks(client, run_task, tasks, arrived, "msgcli-validate")
    yield from assemble(slots, unbatched(results))


def _stats_task(task: tuple) -> Any:
    from .stats import file_stats

    name, source, dialect = task
    return file_stats(source, name=name, dialect=dialect)


def collect_stats_cluster(
    paths: Iterable[str | Path], dialect: str | None, client: Any, tracker: Any = None
):
    """:func:`msgcli.stats.collect_stats` with a task per file on the cluster; ``tracker``:
    the progress bar to move as the results arrive."""
    from .inputs import expand_paths
    from .parallel import absolute
    from .stats import FileStats, StatsReport

    slots: list[Any] = []
    tasks: list[tuple] = []
    for name, source, problem in expand_paths(paths):
        if source is None:
            why = (
                "the directory holds no log files"
                if problem == "no-logs"
                else "cannot read: no such file or directory"
            )
            slots.append(FileStats(path=name, readable=False, problem=why))
        elif source == "-":
            slots.append(("-", name))
        else:
            slots.append(None)
            tasks.append((name, absolute(source), dialect))
    state = tracker

    def arrived(i: int, result: Any) -> None:
        if state is not None:
            state.done(_file_size(tasks[i][1]), result.records)

    results = run_tasks(client, _stats_task, tasks, arrived, "msgcli-stats")
    from .stats import file_stats, without_nested

    found: list[FileStats] = []
    for slot in slots:
        if slot is None:
            found.append(next(results))
        elif isinstance(slot, tuple):
            found.append(file_stats("-", name=slot[1], dialect=dialect))
        else:
            found.append(slot)
    report = StatsReport()
    for stats in without_nested(found):  # a subagent its session counts: counted once
        report.add(stats)
    return report


def _file_size(source: str) -> int:
    from .remote import size

    return size(source) if source != "-" else 0


def chosen_scheduler(given: str | None, configured: str | None = None) -> str | None:
    """The scheduler a run uses: ``--scheduler``, else ``MSGCLI_SCHEDULER``, else the
    configuration's ``scheduler``; ``none`` (or an empty value) runs without one."""
    for value in (given, os.environ.get(ENV), configured):
        if value is not None and value.strip():
            return None if value.strip() == "none" else value.strip()
    return None


def _export_task(task: tuple) -> tuple[int, dict[str, int], list[tuple[str, str]]]:
    """Export one file: a Parquet file per table under ``target/<table>/``, named after the
    task, so a task run twice writes the same file again."""
    from .tables import TABLES, table_rows
    from .tablewriters import arrow_batch, arrow_schema, require

    index, name, source, dialect, findings, target, redact = task
    pa = require("pyarrow")
    pq = require("pyarrow.parquet")
    rows: dict[str, list[tuple]] = {t: [] for t in TABLES}

    def sink(table: str, batch: list[tuple]) -> None:
        rows[table].extend(batch)

    counts = table_rows(
        [source], sink, dialect=dialect, findings=findings, name_as=name, redact=redact
    )
    for table in TABLES:
        schema = arrow_schema(pa, table)
        data = pa.Table.from_batches([arrow_batch(pa, schema, rows[table])], schema=schema)
        where = f"{target.rstrip('/')}/{table}/part-{index:05d}.parquet"
        with _open_for_writing(where) as stream:
            pq.write_table(data, stream, compression="zstd")
    return counts.files, dict(counts.rows), list(counts.unreadable)


def _open_for_writing(where: str) -> Any:
    from .remote import is_url

    if is_url(where):
        import fsspec

        return fsspec.open(where, "wb")
    os.makedirs(os.path.dirname(where), exist_ok=True)
    return open(where, "wb")


def export_cluster(
    paths: Iterable[str],
    target: str,
    client: Any,
    *,
    dialect: str | None,
    findings: bool,
    tracker: Any = None,
    redact: bool = False,
) -> Any:
    """``msgcli export --to DIR --scheduler``: a task per file, each writing its own Parquet
    file of every table under ``DIR/<table>/`` (a dataset DuckDB, Spark and Athena read as
    it is), secrets masked with ``redact``. Returns the :class:`msgcli.tables.RowCounts` of
    the whole run."""
    from .inputs import expand_paths
    from .parallel import absolute
    from .tables import RowCounts

    target = absolute(target)
    counts = RowCounts()
    tasks: list[tuple] = []
    for name, source, problem in expand_paths(paths):
        if source is None:
            why = "no such file or directory" if problem == "missing" else "no logs found"
            counts.unreadable.append((name, why))
            continue
        tasks.append((len(tasks), name, absolute(source), dialect, findings, target, redact))
    state = tracker

    def arrived(i: int, result: Any) -> None:
        if state is not None:
            state.done(_file_size(tasks[i][2]), sum(result[1].values()))

    for files, rows, unreadable in run_tasks(client, _export_task, tasks, arrived, "msgcli-export"):
        counts.files += files
        for table, n in rows.items():
            counts.rows[table] += n
        counts.unreadable.extend(unreadable)
    return counts
