"""Tokens and cost, by day, week, month, session, model, project or agent: ``msgcli usage``.

Every log is read for the model responses it records (:meth:`Dialect.responses`, each
dialect's own rule of what one response is: the numbers of ``msgcli stats``); a response
met in several files (:attr:`msgcli.model.ResponseUsage.key`) is counted once. A dialect
with a lean path (:meth:`Dialect.scan_responses`: Claude Code's session files) finds its
responses without reading every record; any other file, or one the lean path is unsure
of, is read whole. Files are read by worker processes, several to a task.

Each response is priced on its own (:mod:`msgcli.prices`): its model's rates in force on
its date, a tier chosen by its own input tokens. A response whose model has no known price
is counted as unpriced: its tokens are in every total, its cost in none, and the report
says how many there were.
"""

from __future__ import annotations

import os
from collections import deque
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, tzinfo
from pathlib import Path
from typing import Any

from .dialects import DIALECTS
from .model import ResponseUsage

__all__ = [
    "GROUPS",
    "Totals",
    "UsageReport",
    "collect_usage",
    "file_rows",
    "parse_day",
]

#: what a report can be grouped by
GROUPS = ("day", "week", "month", "session", "model", "project", "agent")
#: the fields of a row sent back by a worker: a response, lean
_ROW = (
    "key",
    "model",
    "input",
    "output",
    "cache_read",
    "cache_write",
    "reasoning",
    "time",
    "session",
    "project",
    "agent",
    "provider",
)
#: files of at most this many bytes go several to a worker's task
_TASK_BYTES = 16 << 20


def _row(r: ResponseUsage) -> tuple:
    when = r.time.timestamp() if r.time is not None else None
    return (
        r.key,
        r.model,
        r.input,
        r.output,
        r.cache_read,
        r.cache_write,
        r.reasoning,
        when,
        r.session,
        r.project,
        r.agent,
        r.provider,
    )


def _usage(row: tuple) -> ResponseUsage:
    key, model, inp, out, read, write, reasoning, when, session, project, agent, provider = row
    return ResponseUsage(
        model=model,
        input=inp,
        output=out,
        cache_read=read,
        cache_write=write,
        reasoning=reasoning,
        time=datetime.fromtimestamp(when, UTC) if when is not None else None,
        session=session,
        project=project,
        agent=agent,
        provider=provider,
        key=key,
    )


# -- reading ------------------------------------------------------------------------------


def _lean(path: str) -> tuple[list[ResponseUsage], Any] | None:
    for dialect in DIALECTS.values():
        found = dialect.scan_responses(path)
        if found is not None:
            return found, dialect
    return None


def file_rows(name: str, source: str | Path) -> tuple[list[tuple], str | None, list[str]]:
    """The responses of one log as rows, why it could not be read (or ``None``), and the
    logs that belong to it (:meth:`Dialect.related_logs`)."""
    path = str(source)
    local = "://" not in path
    lean = _lean(path) if local else None
    if lean is not None:
        found, dialect = lean
        related = [where for _, where in dialect.related_logs(path)]
        lean_rows: list[tuple] = []
        while found:  # (each response let go as its row is made: half the memory)
            lean_rows.append(_row(found.pop()))
        lean_rows.reverse()
        return lean_rows, None, related
    from .engine import Options
    from .reader import ReadError
    from .stream import open_log

    rows: list[tuple] = []
    reader = open_log(source, Options(), name=name)
    problem = None
    try:
        for item in reader:
            message = item.message
            if message is not None:
                dialect = reader.dialect
                assert dialect is not None
                rows.extend(_row(r) for r in dialect.responses(message))
    except ReadError as exc:
        problem = f"cannot read: {exc}"
    related = []
    if reader.dialect is not None and local:
        related = [where for _, where in reader.dialect.related_logs(path)]
    return rows, problem, related


def _task(files: list[tuple[str, str]]) -> list[tuple[list[tuple], str | None, list[str]]]:
    return [file_rows(name, path) for name, path in files]


def _tasks(files: list[tuple[str, str]]) -> Iterator[list[tuple[str, str]]]:
    batch: list[tuple[str, str]] = []
    size = 0
    for name, path in files:
        try:
            n = os.stat(path).st_size if "://" not in path else _TASK_BYTES
        except OSError:
            n = 0
        if batch and size + n > _TASK_BYTES:
            yield batch
            batch, size = [], 0
        batch.append((name, path))
        size += n
    if batch:
        yield batch


def _read_all(
    files: list[tuple[str, str]], jobs: int, warm: Any = None
) -> Iterator[tuple[str, tuple[list[tuple], str | None, list[str]]]]:
    """``(name, result of file_rows)`` of every file, in order, with ``jobs`` workers;
    ``warm``: work for this process meanwhile (loading the price table)."""
    tasks = list(_tasks(files))
    if jobs <= 1 or (len(tasks) <= 1 and len(files) <= 1):
        if warm is not None:
            warm()
        for name, path in files:
            yield name, file_rows(name, path)
        return
    from concurrent.futures import ProcessPoolExecutor

    from .workers import context, worker_start

    workers = min(jobs, len(tasks))
    with ProcessPoolExecutor(workers, mp_context=context(), initializer=worker_start) as pool:
        # a few tasks ahead of the one taken in, so that results never pile up here
        pending: deque = deque()
        queued = iter(tasks)
        for task in queued:
            pending.append((task, pool.submit(_task, task)))
            if len(pending) >= 2 * workers:
                break
        if warm is not None:
            warm()
        while pending:
            task, future = pending.popleft()
            results = future.result()
            for more in queued:
                pending.append((more, pool.submit(_task, more)))
                break
            for (name, _), result in zip(task, results, strict=True):
                yield name, result


# -- totals -------------------------------------------------------------------------------


@dataclass(slots=True)
class Totals:
    """The responses of one row of a report, their tokens and their cost."""

    responses: int = 0
    input: int = 0
    output: int = 0
    cache_read: int = 0
    cache_write: int = 0
    reasoning: int = 0
    cost: float = 0.0
    #: responses without a known price (their tokens are counted, their cost is not)
    unpriced: int = 0
    unpriced_models: set[str] = field(default_factory=set)
    models: dict[str, Totals] | None = None

    def add(self, r: ResponseUsage, price: float | None) -> None:
        self.responses += 1
        self.input += r.input
        self.output += r.output
        self.cache_read += r.cache_read
        self.cache_write += r.cache_write
        self.reasoning += r.reasoning
        if price is None:
            self.unpriced += 1
            self.unpriced_models.add(r.model or "")
        else:
            self.cost += price

    @property
    def tokens(self) -> int:
        return self.input + self.output + self.cache_read + self.cache_write

    def to_dict(self) -> dict:
        out: dict[str, Any] = {
            "responses": self.responses,
            "input": self.input,
            "output": self.output,
            "cache_read": self.cache_read,
            "cache_write": self.cache_write,
            "reasoning": self.reasoning,
            "tokens": self.tokens,
            "cost": round(self.cost, 6) if self.unpriced < self.responses else None,
            "unpriced": self.unpriced,
        }
        if self.unpriced:
            out["unpriced_models"] = sorted(self.unpriced_models)
        if self.models is not None:
            out["models"] = {m: t.to_dict() for m, t in sorted(self.models.items())}
        return out


@dataclass
class UsageReport:
    """The rows of a report, keyed by the groups asked for, and their total."""

    by: tuple[str, ...]
    rows: dict[tuple, Totals] = field(default_factory=dict)
    total: Totals = field(default_factory=Totals)
    files: int = 0
    unreadable: list[tuple[str, str]] = field(default_factory=list)
    prices: list[str] = field(default_factory=list)
    zone: str = ""

    @property
    def exit_code(self) -> int:
        return 2 if self.unreadable else 0

    def sorted_rows(self) -> list[tuple[tuple, Totals]]:
        return sorted(self.rows.items(), key=lambda item: tuple(_order(v) for v in item[0]))

    def to_dict(self) -> dict:
        return {
            "by": list(self.by),
            "rows": [
                {"key": dict(zip(self.by, key, strict=True)), **totals.to_dict()}
                for key, totals in self.sorted_rows()
            ],
            "total": self.total.to_dict(),
            "files": self.files,
            "unreadable": [{"path": p, "problem": why} for p, why in self.unreadable],
            "prices": self.prices,
            "time_zone": self.zone,
        }


def _order(value: Any) -> tuple:
    return (value is None, "" if value is None else str(value))


def parse_day(text: str) -> date:
    """A day as ``YYYY-MM-DD`` or ``YYYYMMDD``."""
    text = text.strip()
    if len(text) == 8 and text.isdigit():
        text = f"{text[:4]}-{text[4:6]}-{text[6:]}"
    return date.fromisoformat(text)


class _Grouper:
    """The key of a response's row: its day, week, month in the zone asked for..."""

    def __init__(self, by: tuple[str, ...], zone: tzinfo | None, agents_apart: bool):
        self.by = by
        self.zone = zone
        self.agents_apart = agents_apart
        self._days: dict[float, date] = {}

    def day(self, r: ResponseUsage) -> date | None:
        if r.time is None:
            return None
        if self.zone is None:
            return datetime.fromtimestamp(r.time.timestamp()).date()
        return r.time.astimezone(self.zone).date()

    def key(self, r: ResponseUsage, day: date | None) -> tuple:
        out = []
        for name in self.by:
            if name == "day":
                out.append(day.isoformat() if day else None)
            elif name == "week":
                if day is None:
                    out.append(None)
                else:
                    year, week, _ = day.isocalendar()
                    out.append(f"{year}-W{week:02}")
            elif name == "month":
                out.append(f"{day.year}-{day.month:02}" if day else None)
            elif name == "agent":
                out.append(r.agent if self.agents_apart or "agent" in self.by else None)
            else:
                out.append(getattr(r, name))
        return tuple(out)


def collect_usage(
    paths: Iterable[str | Path],
    *,
    by: tuple[str, ...] = ("day",),
    zone: tzinfo | None = None,
    since: date | None = None,
    until: date | None = None,
    subagents: str = "in",
    breakdown: bool = False,
    prices: str | None = None,
    priced: bool = True,
    jobs: int | None = None,
) -> UsageReport:
    """The report of ``msgcli usage`` over ``paths`` (files, directories searched for logs).
    ``zone``: the time zone days are counted in (``None``: the local one); ``subagents``:
    ``in`` (a sub-agent's responses in its session's rows) or ``apart`` (rows of their
    own); ``prices``: a user's price table (:mod:`msgcli.prices`)."""
    from .inputs import expand_paths
    from .prices import PriceBook, cost

    book = PriceBook(prices) if priced else None
    apart = subagents == "apart"
    if apart and "agent" not in by:
        by = (*by, "agent")
    report = UsageReport(by=by)
    report.zone = str(getattr(zone, "key", None) or (str(zone) if zone else "local"))
    files: list[tuple[str, str]] = []
    for name, source, problem in expand_paths(paths):
        if source is None:
            why = (
                "the directory holds no log files"
                if problem == "no-logs"
                else "cannot read: no such file or directory"
            )
            report.unreadable.append((name, why))
            continue
        files.append((name, str(source)))
    if jobs is None:
        from .parallel import default_jobs

        jobs = default_jobs()
    grouper = _Grouper(by, zone, apart)
    seen_keys: set = set()
    read = {os.path.abspath(p) if "://" not in p else p for _, p in files}
    rates_cache: dict[tuple, Any] = {}
    pending = files
    while pending:
        more: list[tuple[str, str]] = []
        warm = book.warm if book is not None else None
        for name, (rows, trouble, related) in _read_all(pending, jobs, warm):
            report.files += 1
            if trouble is not None:
                report.unreadable.append((name, trouble))
            for where in related:
                key = os.path.abspath(where) if "://" not in where else where
                if key not in read:
                    read.add(key)
                    more.append((where, where))
            for row in rows:
                rkey = row[0]
                if rkey is not None:
                    # (one string: a fifth of the memory of the tuple and its parts)
                    if type(rkey) is tuple:
                        rkey = "\x00".join(map(str, rkey))
                    if rkey in seen_keys:
                        continue
                    seen_keys.add(rkey)
                r = _usage(row)
                day = grouper.day(r) if r.time is not None else None
                if (since is not None or until is not None) and (
                    day is None
                    or (since is not None and day < since)
                    or (until is not None and day > until)
                ):
                    continue
                price = None
                if book is not None:
                    hour = (r.model, r.provider, None if row[7] is None else int(row[7] // 3600))
                    rates = rates_cache.get(hour, book)
                    if rates is book:
                        rates = rates_cache[hour] = book.rates(r)
                    if rates is not None:
                        price = cost(r, rates)
                gkey = grouper.key(r, day)
                totals = report.rows.get(gkey)
                if totals is None:
                    totals = report.rows[gkey] = Totals(models={} if breakdown else None)
                totals.add(r, price)
                if breakdown:
                    assert totals.models is not None
                    per = totals.models.get(r.model or "")
                    if per is None:
                        per = totals.models[r.model or ""] = Totals()
                    per.add(r, price)
                report.total.add(r, price)
        pending = more
    if book is not None:
        report.prices = book.sources
        book.save()
    return report
