"""Checking on every core: many files, and one large file in parts, over worker processes.

``msgcli validate -j N`` hands each input to a pool of N worker processes.
A plain JSONL message log larger than :data:`SPLIT_BYTES` is cut at line
boundaries into parts of at most :data:`PART_BYTES`; a worker checks a part
record by record (reading, schema, the per-record rules) and sends back its
findings and, for each message, the digest that the checks across records
read (:func:`msgcli.checks.digest`: ids, time, tool calls and results). This
process feeds the digests of every part, in file order, into the file's one
:class:`~msgcli.checks.CrossChecks`, so tool pairing, duplicate ids and time
order across part borders come out exactly as in a single pass. Line numbers
are local to a part until they arrive here.

Event logs, gzip, JSON-array and SSE files, standard input and runs with
``--max-errors`` are not split (an event log is one state machine; the others
cannot be cut at a byte offset); such a file is still checked in a worker of
its own while the others run.

``msgcli replay -j N`` (:func:`iter_replay_reports`), and ``validate -j N`` alike,
cut one kind of event log:
a large plain JSONL log of provider streams whose replayer can tell a line that
opens a stream afresh (Anthropic's plain ``message_start``: whatever came before
it, it closes the stream still open, as cut, and starts anew). Each part but the
first starts at such a line; a worker replays it with the file's line numbers
and, at its end, closes what is open as the next part's first line would. The
messages come back as the JSONL lines the output writes (or as values for any
other sink) and are written in file order.

Reports come back in the order of the inputs, each as soon as it and the ones
before it are done.
"""

from __future__ import annotations

import gc
import marshal
import os
from collections import deque
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from .detect import Detector
from .dialects import EVENT, MESSAGE, Dialect, get_dialect
from .engine import (
    MessageSink,
    Options,
    PartCheck,
    PartsMerge,
    Preset,
    ReplayMerge,
    ReplayPartCheck,
    unusable,
    validate_file,
)
from .expect import settled
from .findings import FileReport
from .inputs import planned
from .reader import ReadError, read_records
from .records import BOM, GZIP_MAGIC, collector_paused, part_records
from .remote import open_binary, size
from .workers import context, worker_start
from .writer import JsonlOutput, dumps_line

if TYPE_CHECKING:  # pragma: no cover
    from .progress import Tracker

__all__ = [
    "PART_BYTES",
    "SPLIT_BYTES",
    "absolute",
    "assemble",
    "batched",
    "default_jobs",
    "iter_file_reports_parallel",
    "iter_replay_reports",
    "plain_preset",
    "plan",
    "replay_part",
    "run_task",
    "stream_ranges",
    "unbatched",
]

#: a plain message log (or a log of provider streams) at least this large is split into parts
SPLIT_BYTES = 8 << 20
#: the largest part a worker reads at once (its memory: the part's bytes and digests)
PART_BYTES = 16 << 20
#: how many records from the start are read to learn a file's dialect before splitting it
_SNIFF_RECORDS = 1000
#: local files smaller than this go to a worker together, up to this many bytes or
#: :data:`BATCH_FILES` files a task: handing back a small file's report took longer than
#: checking it (20,000 files of 5 KB took twice as long on two workers as on one)
BATCH_BYTES = 1 << 20
BATCH_FILES = 64


def default_jobs() -> int:
    """The cores this process may run on."""
    count = getattr(os, "process_cpu_count", None)
    if count is not None:
        return count() or 1
    try:
        return len(os.sched_getaffinity(0)) or 1
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


def iter_file_reports_parallel(
    paths: Iterable[str | Path],
    options: Options,
    streams: Iterable[IO[bytes]] = (),
    excluded: list[str] | None = None,
    skipped: list[str] | None = None,
    tracker: Tracker | None = None,
) -> Iterator[FileReport]:
    """Like :func:`msgcli.pipeline.iter_file_reports`, with ``options.jobs`` workers;
    ``tracker``: the progress bar to move."""
    for stream in streams:
        yield settled(validate_file(stream, options=options), options, None)

    slots, tasks = plan(paths, options, excluded, options.jobs, skipped)
    if len(tasks) < 2 and all(kind in ("file", "done", "stdin") for kind, _ in slots):
        # at most one small file: a worker would only cost its start-up
        for kind, value in slots:
            if kind == "done":
                yield value
            elif kind == "stdin":
                name, chosen = value
                yield settled(validate_file("-", name=name, options=chosen), chosen, None)
            else:
                name, chosen, path = value
                report = validate_file(path, name=name, options=chosen, tracker=tracker)
                yield settled(report, chosen, path)
        return

    workers = min(options.jobs, len(tasks))
    # (the cycle collector waits in this process while the parts' results come in: they are
    # many small tuples, and collecting as each is unpickled took longer than the checks
    # across records; a worker collects as usual)
    with collector_paused():
        pool = _pool(workers, tracker)
        try:
            results = unbatched(_in_order(pool, batched(tasks), window=2 * workers))
            yield from assemble(slots, results, tracker)
        finally:
            pool.shutdown(cancel_futures=True)


def assemble(
    slots: list[tuple[str, Any]], results: Iterator, tracker: Tracker | None = None
) -> Iterator[FileReport]:
    """The report of every slot, in input order, from the tasks' ``results`` in task order
    (the parts of a large file merged as they arrive). ``tracker``: the progress bar to
    move here (None: the caller moves it, as the results arrive)."""
    state = tracker
    for kind, value in slots:
        if kind == "done":
            yield value
        elif kind == "stdin":
            name, chosen = value
            yield settled(validate_file("-", name=name, options=chosen), chosen, None)
        elif kind == "file":
            name, chosen, path = value
            report = next(results)
            if state is not None:
                state.done(size(path), report.summary.records)
            yield settled(report, chosen, path)
        elif kind == "replay-parts":
            name, chosen, path, preset, ranges = value
            merge = ReplayMerge(name, chosen, preset)
            for start, end in ranges:
                summary, findings, _ = next(results)
                if state is not None:
                    state.done(end - start, summary.records)
                merge.add(summary, findings)
            yield settled(merge.report(), chosen, path)
        else:
            name, chosen, path, preset, ranges = value
            arriving = (next(results) for _ in ranges)  # each merged as it comes
            merged = merge_parts(name, preset, arriving, chosen, ranges, state)
            yield settled(merged, chosen, path)


def plan(
    paths: Iterable[str | Path],
    options: Options,
    excluded: list[str] | None,
    workers: int,
    skipped: list[str] | None = None,
) -> tuple[list[tuple[str, Any]], list[tuple]]:
    """Every input as a slot (a finished report, one task, or the tasks of its parts), and
    the tasks, in input order; a large message log is cut into parts for ``workers``."""
    from dataclasses import replace

    # Each file's own options travel with its tasks (without the per-file lookup itself).
    slots: list[tuple[str, Any]] = []
    tasks: list[tuple] = []
    for name, source, problem, chosen in planned(paths, options, excluded, skipped):
        if source is None or chosen is None:
            slots.append(("done", unusable(name, problem, options.select)))
            continue
        chosen = replace(chosen, files=None)
        if source == "-":
            # read here: a worker has no standard input of its own
            slots.append(("stdin", (name, chosen)))
            continue
        parts = _plan_parts(source, workers, chosen.forced(), SPLIT_BYTES, PART_BYTES)
        # a task names its file absolutely: a worker of a cluster has a directory of its own
        where = absolute(source)
        streams = (
            None if parts is not None else _plan_replay_parts(source, workers, chosen.forced())
        )
        if streams is not None:
            # a large log of provider streams: replayed in parts, as replay -j does
            preset, cuts = streams
            slots.append(("replay-parts", (name, chosen, str(source), preset, cuts)))
            tasks += _replay_tasks(name, where, chosen, preset, cuts, None)
        elif parts is None:
            slots.append(("file", (name, chosen, str(source))))
            tasks.append(("file", name, where, chosen))
        else:
            preset, ranges = parts
            slots.append(("parts", (name, chosen, str(source), preset, ranges)))
            preset_names = (preset[0].name, preset[1], preset[2])
            for start, end in ranges:
                tasks.append(("part", name, where, chosen, preset_names, start, end))
    return slots, tasks


def absolute(source: str | Path) -> str:
    """A local path made absolute (a URL as it is)."""
    text = str(source)
    return text if "://" in text else os.path.abspath(text)


def _in_order(pool, tasks: Iterable[tuple], window: int) -> Iterator:
    """The results of ``tasks`` in order, with at most ``window`` of them waiting or running.

    ``Executor.map`` would start every task at once and hold every result that is done
    before this process takes it: the memory of a whole large file's digests.
    """
    pending: deque = deque()
    queued = iter(tasks)
    for task in queued:
        pending.append(pool.submit(run_task, task))
        if len(pending) >= window:
            break
    while pending:
        result = pending.popleft().result()
        for task in queued:
            pending.append(pool.submit(run_task, task))
            break
        yield result


def _plan_parts(
    source: str | Path, jobs: int, forced: Dialect | None, split_bytes: int, part_bytes: int
) -> tuple[Preset, list[tuple[int, int]]] | None:
    """``(preset, byte ranges)`` to check a large plain message log in parts, else ``None``."""
    total = _large(source, jobs, split_bytes)
    if total is None:
        return None
    preset = plain_preset(source, forced)
    if preset is None or preset[1] != MESSAGE or not preset[0].splittable:
        return None
    if jobs < preset[0].split_jobs:
        return None
    return preset, ranges(source, total, _part_count(total, jobs, part_bytes))


def _large(source: str | Path, jobs: int, split_bytes: int) -> int | None:
    """The size of a file that is worth cutting for ``jobs`` workers, else ``None``."""
    if source == "-" or jobs < 2:
        return None
    try:
        total = size(source)
    except OSError:
        return None
    return total if total >= split_bytes else None


def _part_count(total: int, jobs: int, part_bytes: int) -> int:
    """How many parts: none larger than ``part_bytes``, and a multiple of the workers, so
    none waits for the last part."""
    count = max(jobs, -(-total // part_bytes))
    return count + -count % jobs


def plain_preset(source: str | Path, forced: Dialect | None) -> Preset | None:
    """The dialect, kind and line a single pass settles on (:func:`sniff`) for a log that
    can be cut at line starts: a plain JSONL file (not gzip, a JSON array or document, or
    SSE); ``None`` for any other."""
    try:
        with open_binary(source) as stream:
            head = stream.read(64 << 10)
    except OSError:
        return None
    if head.startswith(GZIP_MAGIC):
        return None
    from .containers import container_for

    if container_for(str(source), head) is not None:
        return None  # a database (a container of records): read whole, never cut
    start = head[len(BOM) :] if head.startswith(BOM) else head
    if start.lstrip().startswith((b"[", b"data:", b":", b"event:", b"id:", b"retry:")):
        return None
    return sniff(source, forced)


def sniff(source: str | Path, forced: Dialect | None) -> Preset | None:
    """The dialect, kind and line a single pass would settle on, from the first records."""
    detector = Detector(forced)
    try:
        for index, record in enumerate(read_records(source)):
            if index >= _SNIFF_RECORDS:
                return None
            if record.where:
                return None  # a JSON document (a state file) is read whole, never cut
            if record.obj is None:
                continue
            kind = detector.kind_of(record.obj, record.line)
            if kind is not None and detector.dialect is not None:
                return detector.dialect, kind, record.line
    except ReadError:
        return None
    return None


def ranges(source: str | Path, size: int, count: int) -> list[tuple[int, int]]:
    """``count`` byte ranges of about equal size that start at line starts."""
    cuts = [0]
    with open_binary(source) as stream:
        for i in range(1, count):
            at = max(size * i // count, cuts[-1], 1)
            stream.seek(at - 1)
            stream.readline()  # to the start of the line after the one holding byte at-1
            where = stream.tell()
            if where >= size:
                break
            if where > cuts[-1]:
                cuts.append(where)
    cuts.append(size)
    return [(cuts[i], cuts[i + 1]) for i in range(len(cuts) - 1)]


# -- in a worker -------------------------------------------------------------------


class _Batch(list):
    """The reports of a task of several small files (see :func:`batched`)."""

    __slots__ = ()


def batched(tasks: Iterable[tuple]) -> Iterator[tuple]:
    """The tasks, with runs of whole small local files joined into ``("files", tasks)``
    tasks (:data:`BATCH_BYTES`, :data:`BATCH_FILES`); the order is kept."""
    batch: list[tuple] = []
    size = 0
    for task in tasks:
        n = _small(task)
        if n is not None:
            batch.append(task)
            size += n
            if size < BATCH_BYTES and len(batch) < BATCH_FILES:
                continue
        if batch:
            yield ("files", batch) if len(batch) > 1 else batch[0]
            batch, size = [], 0
        if n is None:
            yield task
    if batch:
        yield ("files", batch) if len(batch) > 1 else batch[0]


def _small(task: tuple) -> int | None:
    """The size of a whole local file's task under :data:`BATCH_BYTES`, else None (a part,
    a URL, a large file, or one that cannot be read: its report says why)."""
    if task[0] != "file" or "://" in task[2]:
        return None
    try:
        size = os.stat(task[2]).st_size
    except OSError:
        return None
    return size if size < BATCH_BYTES else None


def unbatched(results: Iterator[Any]) -> Iterator[Any]:
    """The results of :func:`batched` tasks, one a file again."""
    for result in results:
        if type(result) is _Batch:
            yield from result
        else:
            yield result


def run_task(task: tuple) -> Any:
    """What a worker does with one task of :func:`plan`: a whole file's report, or a
    part's result (see :func:`check_part`); or a part of an event log to replay
    (:func:`replay_part`); or the reports of several small files (:func:`batched`)."""
    if task[0] == "file":
        _, name, path, options = task
        return validate_file(path, name=name, options=options)
    if task[0] == "files":
        return _Batch(
            validate_file(path, name=name, options=options) for _, name, path, options in task[1]
        )
    if task[0] == "replay-part":
        return replay_part(*task[1:])
    _, name, path, options, preset_names, start, end = task
    lines, summary, findings, digests = check_part(name, path, options, preset_names, start, end)
    return lines, summary, findings, _sent(digests)


def _sent(digests: list) -> Any:
    """A part's digests as they go back to the owner: marshalled (a digest holds only
    tuples, strings, numbers and parsed JSON values, which marshal writes four times as fast as
    pickle), or the list itself should one hold anything else."""
    try:
        return marshal.dumps(digests)
    except ValueError:
        return digests


def check_part(
    name: str, path: str, options: Options, preset_names: tuple, start: int, end: int
) -> tuple:
    """Check bytes ``[start, end)`` of a message log; line numbers are local to the part.

    Returns ``(lines, summary, findings, digests)``; findings as
    ``(code, message, pointer, line)``.
    """
    dialect_name, kind, first_line = preset_names
    digests: list = []
    check = PartCheck(name, options, (get_dialect(dialect_name), kind, first_line), digests)
    if start:
        # (a later part's lines are numbered from 1: all of them come after the record that
        # settled the file, as a record of no known dialect in a tolerant dialect's file must)
        check.detector.after = 0
    lines, summary, findings = _checked(check, path, start, end, 1)
    del check
    gc.collect()  # (see replay_part)
    return lines, summary, findings, digests


def _checked(check: Any, path: str, start: int, end: int, first_line: int) -> tuple:
    """``check`` run over bytes ``[start, end)`` of a file, its lines numbered from
    ``first_line``: ``(lines, summary, findings)``, the lines the part holds and the
    findings as ``(code, message, pointer, line)``."""
    data = b""
    try:
        with open_binary(path) as stream:
            stream.seek(start)
            data = stream.read(end - start)
    except OSError as exc:
        check.summary.readable = False
        check.emit("P009", f"cannot read: {exc.strerror or exc}")
    else:
        check.run(part_records(data, first=start == 0, start=first_line))
    report = check.report()
    findings = [(f.code, f.message, f.pointer, f.line) for f in report.findings]
    lines = data.count(b"\n") + (0 if not data or data.endswith(b"\n") else 1)
    return lines, report.summary, findings


def replay_part(
    name: str,
    path: str,
    options: Options,
    preset_names: tuple,
    start: int,
    end: int,
    first_line: int,
    next_line: int | None,
    keep: str | None,
) -> tuple:
    """Replay bytes ``[start, end)`` of an event log, whose first line is ``first_line`` of
    the file and opens a stream; ``next_line``: the line the next part starts at (``None``:
    this part ends the file).

    Returns ``(summary, findings, messages)``: findings as ``(code, message, pointer,
    line)``; the messages, by ``keep``: ``"lines"`` as ``(JSONL bytes, count)``, the lines a
    :class:`JsonlOutput` writes for them; ``"values"`` as ``(line, message)`` pairs,
    marshalled (see :func:`_sent`); ``None``: not kept (a check without output)."""
    dialect_name, kind, line = preset_names
    messages: list = []
    sink: MessageSink | None = None
    if keep == "lines":
        add = messages.append

        def sink(_name: str, _line: int, message: dict) -> None:
            add(dumps_line(message))

    elif keep == "values":

        def sink(_name: str, line: int, message: dict) -> None:
            messages.append((line, message))

    check = ReplayPartCheck(name, options, (get_dialect(dialect_name), kind, line), sink, next_line)
    _, summary, findings = _checked(check, path, start, end, first_line)
    # the part's check holds its records in reference cycles: gone now, not at some later
    # collection (a worker took on some 40 MB a part without)
    del check
    gc.collect()
    if keep == "lines":
        return summary, findings, (b"".join(messages), len(messages))
    return summary, findings, _sent(messages)


# -- back in the process that owns the file ------------------------------------------


def merge_parts(
    name: str,
    preset: Preset,
    parts: Iterator[tuple],
    options: Options,
    ranges: list[tuple[int, int]],
    tracker: Tracker | None,
) -> FileReport:
    """One file's report from its parts' results, with the checks across records run here."""
    merge = PartsMerge(name, options, preset)
    for (start, end), (lines, part, findings, digests) in zip(ranges, parts, strict=False):
        # (the part's digests are dropped once fed: memory holds one part at a time)
        if tracker is not None:
            tracker.done(end - start, part.records)
        if type(digests) is bytes:  # (as a worker sends them: see _sent)
            digests = marshal.loads(digests)
        merge.add(lines, part, findings, digests)
    return merge.finish()


# -- replaying large event logs in parts -------------------------------------------------


def iter_replay_reports(
    paths: Iterable[str | Path],
    options: Options,
    sink: MessageSink,
    streams: Iterable[IO[bytes]] = (),
    excluded: list[str] | None = None,
    skipped: list[str] | None = None,
    tracker: Tracker | None = None,
) -> Iterator[FileReport]:
    """Like :func:`msgcli.pipeline.iter_file_reports` with a ``sink``, the inputs one after
    the other: a large event log whose streams can be told apart (its replayer's
    :attr:`~msgcli.replayers.Replayer.opens_stream`) is cut before a line that opens a
    stream, and its parts replayed on ``options.jobs`` workers; the messages reach ``sink``
    in the order a single pass writes them, the findings and counts are a single pass's."""
    for stream in streams:
        yield settled(validate_file(stream, options=options, sink=sink), options, None)
    # a JSONL output takes a part's messages as the lines it would write for them, made by
    # the worker; any other sink gets each message itself
    output = getattr(sink, "__self__", None)
    written = output.lines if type(output) is JsonlOutput else None
    pool = None
    try:
        for name, source, problem, chosen in planned(paths, options, excluded, skipped):
            if source is None or chosen is None:
                yield unusable(name, problem, options.select)
                continue
            parts = _plan_replay_parts(source, options.jobs, chosen.forced())
            if parts is None:
                report = validate_file(
                    source, name=name, options=chosen, sink=sink, tracker=tracker
                )
                yield settled(report, chosen, source)
                continue
            if pool is None:
                pool = _pool(options.jobs, tracker)
            preset, cuts = parts
            tasks = _replay_tasks(
                name,
                absolute(source),
                chosen,
                preset,
                cuts,
                "values" if written is None else "lines",
            )
            results = _in_order(pool, tasks, window=2 * options.jobs)
            merge = ReplayMerge(name, chosen, preset)
            # (the messages arriving are many small containers: the cycle collector waits)
            with collector_paused():
                for (start, end), (summary, findings, messages) in zip(cuts, results, strict=True):
                    if tracker is not None:
                        tracker.done(end - start, summary.records)
                    merge.add(summary, findings)
                    if written is not None:
                        written(*messages)
                        continue
                    if type(messages) is bytes:
                        messages = marshal.loads(messages)
                    for line, message in messages:
                        sink(name, line, message)
                    del messages
            yield settled(merge.report(), chosen, source)
    finally:
        if pool is not None:
            pool.shutdown(cancel_futures=True)  # (parts not started yet are not wanted)


def _pool(jobs: int, tracker: Tracker | None) -> Any:
    """A pool of ``jobs`` worker processes, every one started before anything else runs (a
    worker that dies, say killed for memory, fails the run: BrokenProcessPool, not a hang).
    A worker collects reference cycles, whatever this process does meanwhile (see
    :func:`msgcli.workers.worker_start`)."""
    from concurrent.futures import ProcessPoolExecutor

    pool = ProcessPoolExecutor(jobs, mp_context=context(), initializer=worker_start)
    if tracker is None:
        pool.submit(int).result()
    else:
        with tracker.paused():
            # the first task forks every worker, before the pool starts threads of its own;
            # the progress bar's thread is paused meanwhile, so the fork copies no thread's
            # lock
            pool.submit(int).result()
    return pool


def _plan_replay_parts(
    source: str | Path, jobs: int, forced: Dialect | None
) -> tuple[Preset, list[tuple[int, int]]] | None:
    """``(preset, byte ranges)`` to replay a large plain event log in parts, each but the
    first starting at a line that opens a stream; else ``None``."""
    total = _large(source, jobs, SPLIT_BYTES)
    if total is None:
        return None
    preset = plain_preset(source, forced)
    if preset is None or preset[1] != EVENT:
        return None
    try:
        opens = preset[0].replayer_type().opens_stream
    except KeyError:
        return None
    if opens is None:
        return None
    cuts = stream_ranges(source, total, _part_count(total, jobs, PART_BYTES), opens)
    return (preset, cuts) if len(cuts) > 1 else None


def stream_ranges(
    source: str | Path, size: int, count: int, opens: Any, reach: int = PART_BYTES
) -> list[tuple[int, int]]:
    """About ``count`` byte ranges of about equal size, each but the first starting at a
    line that ``opens(line)`` a stream (looked for up to ``reach`` bytes past the even cut;
    none there: no cut)."""
    cuts = [0]
    with open_binary(source) as stream:
        for i in range(1, count):
            at = max(size * i // count, cuts[-1] + 1)
            stream.seek(at - 1)
            stream.readline()  # to the start of the line after the one holding byte at-1
            where = stream.tell()
            while where < size and where - at < reach:
                line = stream.readline()
                if opens(line):
                    cuts.append(where)
                    break
                where += len(line)
    cuts.append(size)
    return [(cuts[i], cuts[i + 1]) for i in range(len(cuts) - 1) if cuts[i] < cuts[i + 1]]


def _replay_tasks(
    name: str,
    path: str,
    options: Options,
    preset: Preset,
    cuts: list[tuple[int, int]],
    keep: str | None,
) -> Iterator[tuple]:
    """The tasks of :func:`replay_part`, made as they are wanted: a part's lines are
    counted (for the line the next part starts at) only once the parts before it are out."""
    preset_names = (preset[0].name, preset[1], preset[2])
    first = 1
    with open_binary(path) as stream:
        for index, (start, end) in enumerate(cuts):
            if index + 1 == len(cuts):
                following = None
            else:
                stream.seek(start)
                following = first + stream.read(end - start).count(b"\n")
            yield (
                "replay-part",
                name,
                path,
                options,
                preset_names,
                start,
                end,
                first,
                following,
                keep,
            )
            if following is not None:
                first = following
