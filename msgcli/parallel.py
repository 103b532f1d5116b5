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

Reports come back in the order of the inputs, each as soon as it and the ones
before it are done.
"""

from __future__ import annotations

import os
import sys
from collections import deque
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import IO, Any

from .dialects import EVENT, MESSAGE, Dialect, classify, get_dialect
from .findings import Finding
from .progress import drawing_paused, tracker
from .reader import _BOM, _GZIP_MAGIC, ReadError, part_records, read_records
from .rules import RULES

__all__ = ["PART_BYTES", "SPLIT_BYTES", "default_jobs", "iter_file_reports_parallel", "plan"]

#: a plain message log at least this large is split into parts
SPLIT_BYTES = 8 << 20
#: the largest part a worker reads at once (its memory: the part's bytes and digests)
PART_BYTES = 16 << 20
#: how many records from the start are read to learn a file's dialect before splitting it
_SNIFF_RECORDS = 1000


def default_jobs() -> int:
    """The cores this process may run on."""
    count = getattr(os, "process_cpu_count", None)
    if count is not None:
        return count() or 1
    try:
        return len(os.sched_getaffinity(0)) or 1
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


def _context():
    # fork starts a worker in milliseconds and hands it the compiled schemas; where it is
    # unsafe or missing (macOS, Windows) the platform's default start method is used
    import multiprocessing

    if sys.platform == "linux":
        return multiprocessing.get_context("fork")
    return multiprocessing.get_context()


def iter_file_reports_parallel(
    paths: Iterable[str | Path],
    options,
    streams: Iterable[IO[bytes]] = (),
    excluded: list[str] | None = None,
    skipped: list[str] | None = None,
) -> Iterator:
    """Like :func:`msgcli.pipeline.iter_file_reports`, with ``options.jobs`` workers."""
    from .pipeline import settled, validate_file

    for stream in streams:
        yield settled(validate_file(stream, options=options), options, None)

    slots, tasks = plan(paths, options, excluded, options.jobs, skipped)
    if len(tasks) < 2 and all(kind != "parts" for kind, _ in slots):
        # at most one small file: a worker would only cost its start-up
        for kind, value in slots:
            if kind == "done":
                yield value
            elif kind == "stdin":
                name, chosen = value
                yield settled(validate_file("-", name=name, options=chosen), chosen, None)
            else:
                name, chosen, path = value
                yield settled(validate_file(path, name=name, options=chosen), chosen, path)
        return

    from concurrent.futures import ProcessPoolExecutor

    workers = min(options.jobs, len(tasks))
    # (a worker that dies, say killed for memory, fails the run: BrokenProcessPool, not a hang)
    with ProcessPoolExecutor(workers, mp_context=_context()) as pool:
        with drawing_paused():
            # the first task forks every worker, before the pool starts threads of its own;
            # the progress bar's thread is paused meanwhile, so the fork copies no thread's lock
            pool.submit(int).result()
        yield from assemble(slots, _in_order(pool, tasks, window=2 * workers))


def assemble(slots: list[tuple[str, Any]], results: Iterator, track: bool = True) -> Iterator:
    """The report of every slot, in input order, from the tasks' ``results`` in task order
    (the parts of a large file merged as they arrive). ``track``: move the progress bar
    here (else the caller does, as the results arrive)."""
    from .pipeline import settled, validate_file

    state = tracker() if track else None
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
                state.done(_size(path), report.summary.records)
            yield settled(report, chosen, path)
        else:
            name, chosen, path, preset, ranges = value
            arriving = (next(results) for _ in ranges)  # each merged as it comes
            merged = _merge_parts(name, preset, arriving, chosen, ranges, track)
            yield settled(merged, chosen, path)


def plan(
    paths: Iterable[str | Path],
    options,
    excluded: list[str] | None,
    workers: int,
    skipped: list[str] | None = None,
) -> tuple[list[tuple[str, Any]], list[tuple]]:
    """Every input as a slot (a finished report, one task, or the tasks of its parts), and
    the tasks, in input order; a large message log is cut into parts for ``workers``."""
    from dataclasses import replace

    from .pipeline import planned, unusable

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
        forced = get_dialect(chosen.dialect) if chosen.dialect else None
        parts = _plan_parts(source, workers, forced, SPLIT_BYTES, PART_BYTES)
        # a task names its file absolutely: a worker of a cluster has a directory of its own
        where = absolute(source)
        if parts is None:
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


def _in_order(pool, tasks: list[tuple], window: int) -> Iterator:
    """The results of ``tasks`` in order, with at most ``window`` of them waiting or running.

    ``Executor.map`` would start every task at once and hold every result that is done
    before this process takes it: the memory of a whole large file's digests.
    """
    pending: deque = deque()
    queued = iter(tasks)
    for task in queued:
        pending.append(pool.submit(_run_task, task))
        if len(pending) >= window:
            break
    while pending:
        result = pending.popleft().result()
        for task in queued:
            pending.append(pool.submit(_run_task, task))
            break
        yield result


def _plan_parts(
    source: str | Path, jobs: int, forced: Dialect | None, split_bytes: int, part_bytes: int
) -> tuple[tuple[Dialect, str, int], list[tuple[int, int]]] | None:
    """``(preset, byte ranges)`` to check a large plain message log in parts, else ``None``."""
    if source == "-" or jobs < 2:
        return None
    from .remote import open_binary
    from .remote import size as size_of

    try:
        size = size_of(source)
        if size < split_bytes:
            return None
        with open_binary(source) as stream:
            head = stream.read(64 << 10)
    except OSError:
        return None
    if head.startswith(_GZIP_MAGIC):
        return None
    start = head[len(_BOM) :] if head.startswith(_BOM) else head
    first = start.lstrip()
    if first.startswith((b"[", b"data:", b":", b"event:", b"id:", b"retry:")):
        return None
    preset = _sniff(source, forced)
    if preset is None or preset[1] != MESSAGE or not preset[0].splittable:
        return None
    count = max(jobs, -(-size // part_bytes))
    count += -count % jobs  # a multiple of the workers, so none waits for the last part
    return preset, _ranges(source, size, count)


def _sniff(source: str | Path, forced: Dialect | None) -> tuple[Dialect, str, int] | None:
    """The dialect, kind and line a single pass would settle on, from the first records."""
    try:
        for index, record in enumerate(read_records(source)):
            if index >= _SNIFF_RECORDS:
                return None
            if record.where:
                return None  # a JSON document (a state file) is read whole, never cut
            if record.obj is None:
                continue
            found = classify(record.obj)
            if forced is not None:
                return forced, EVENT if found == (forced, EVENT) else MESSAGE, record.line
            if found is not None:
                return found[0], found[1], record.line
    except ReadError:
        return None
    return None


def _ranges(source: str | Path, size: int, count: int) -> list[tuple[int, int]]:
    """``count`` byte ranges of about equal size that start at line starts."""
    from .remote import open_binary

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


def _run_task(task: tuple):
    from .pipeline import validate_file

    if task[0] == "file":
        _, name, path, options = task
        return validate_file(path, name=name, options=options)
    _, name, path, options, preset_names, start, end = task
    return _check_part(name, path, options, preset_names, start, end)


def _check_part(name: str, path: str, options, preset_names, start: int, end: int) -> tuple:
    """Check bytes ``[start, end)`` of a message log; line numbers are local to the part.

    Returns ``(lines, summary, findings, digests)``; findings as
    ``(line, code, message, pointer)``.
    """
    from .pipeline import _Budget, _FileCheck

    dialect_name, kind, first_line = preset_names
    forced = get_dialect(options.dialect) if options.dialect else None
    digests: list = []
    check = _FileCheck(
        name,
        options,
        forced,
        _Budget(None),
        preset=(get_dialect(dialect_name), kind, first_line),
        digests=digests,
    )
    from .remote import open_binary

    data = b""
    try:
        with open_binary(path) as stream:
            stream.seek(start)
            data = stream.read(end - start)
    except OSError as exc:
        check.summary.readable = False
        check.emit("P009", f"cannot read: {exc.strerror or exc}")
    else:
        check.run(part_records(data, first=start == 0))
    report = check.report()
    findings = [(f.line, f.code, f.message, f.pointer) for f in report.findings]
    lines = data.count(b"\n") + (0 if not data or data.endswith(b"\n") else 1)
    return lines, report.summary, findings, digests


# -- back in the process that owns the file ------------------------------------------


def _size(path: str) -> int:
    from .remote import size

    return size(path)


def _merge_parts(
    name: str,
    preset: tuple[Dialect, str, int],
    parts: Iterator[tuple],
    options,
    ranges: list[tuple[int, int]],
    track: bool = True,
):
    """One file's report from its parts' results, with the checks across records run here."""
    from .pipeline import _Budget, _FileCheck

    check = _FileCheck(name, options, None, _Budget(None), preset=preset)
    summary, findings, feed = check.summary, check.findings, check.cross.feed_digest
    base = 0
    state = tracker() if track else None
    for (start, end), (lines, part, part_findings, digests) in zip(ranges, parts, strict=False):
        # (the part's digests are dropped once fed: memory holds one part at a time)
        if state is not None:
            state.done(end - start, part.records)
        summary.records += part.records
        summary.errors += part.errors
        summary.warnings += part.warnings
        summary.readable = summary.readable and part.readable
        for variant in part.variants:
            check.variants.setdefault(variant, None)
        for line, code, message, ptr in part_findings:
            findings.append(Finding(name, line + base, code, RULES[code].severity, message, ptr))
        for line, item in digests:
            feed(line + base, item)
        base += lines
    check.cross.finish()
    return check.report()
