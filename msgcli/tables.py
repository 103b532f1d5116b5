"""Logs as tables: the rows of ``msgcli export`` and ``msgcli sql``.

:func:`table_rows` reads logs of any dialect (event logs replayed on the way,
through :class:`msgcli.stream.LogReader`) and hands rows to a writer in
batches, so memory stays bounded however long the log: what is kept between
batches is only the tool calls still waiting for their result.

The tables (:data:`TABLES`, column name and type):

- ``messages``: one row a message;
- ``blocks``: one row a content block, those inside tool results too;
- ``tool_calls``: one row a tool call, paired with its result by id across the file
  (a result no call in the file asked for gets a row of its own, without a call);
- ``findings``: what ``msgcli validate`` finds, so bad rows can be joined to their reason
  (on ``file`` and ``line``).

``session_id``, ``agent_id`` and ``is_sidechain`` (in ``messages`` and ``tool_calls``) say
which session a message belongs to, which agent wrote it (a subagent's id) and whether it is
off the main thread, where its dialect records that (:meth:`Dialect.thread_of`);
``parent_session_id`` the session its session was forked from or spawned by (a fork's
source, a sub-agent's parent: :meth:`Dialect.parent_session`); a tool call's are those of the
message that made it.

Types are ``VARCHAR``, ``BIGINT``, ``DOUBLE``, ``BOOLEAN`` and ``TIMESTAMP``. A ``TIMESTAMP`` is the
time as the log records it: times with a zone are given in UTC, times without one
(AgentScope's local times) as written; ``*_text`` columns keep the text as written.
A value of another JSON type than its column's (a malformed record) is its JSON
text in a ``VARCHAR`` column and null in the others.

The writers live in :mod:`msgcli.tablewriters`; they need the ``tables`` extra
(pyarrow, duckdb) except for SQLite and CSV.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from .filters import message_text, session_of
from .model import (
    DataBlock,
    HintBlock,
    Message,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
    ToolResultBlock,
    ValueBlock,
    pointer,
)

__all__ = ["TABLES", "RowCounts", "table_rows"]

VARCHAR, BIGINT, DOUBLE, TIMESTAMP = "VARCHAR", "BIGINT", "DOUBLE", "TIMESTAMP"
BOOLEAN = "BOOLEAN"

#: every table: its columns, in order, as (name, type)
TABLES: dict[str, tuple[tuple[str, str], ...]] = {
    "messages": (
        ("file", VARCHAR),
        ("line", BIGINT),
        ("dialect", VARCHAR),
        ("variant", VARCHAR),
        ("id", VARCHAR),
        ("role", VARCHAR),
        ("sender", VARCHAR),
        ("session", VARCHAR),
        ("time", TIMESTAMP),
        ("time_text", VARCHAR),
        ("finish_reason", VARCHAR),
        ("error", VARCHAR),
        ("input_tokens", BIGINT),
        ("output_tokens", BIGINT),
        ("cached_tokens", BIGINT),
        ("reasoning_tokens", BIGINT),
        ("blocks", BIGINT),
        ("tool_calls", BIGINT),
        ("text", VARCHAR),
        ("session_id", VARCHAR),
        ("agent_id", VARCHAR),
        ("is_sidechain", BOOLEAN),
        ("parent_session_id", VARCHAR),
    ),
    "blocks": (
        ("file", VARCHAR),
        ("line", BIGINT),
        ("message_id", VARCHAR),
        ("seq", BIGINT),
        ("pointer", VARCHAR),
        ("type", VARCHAR),
        ("kind", VARCHAR),
        ("block_id", VARCHAR),
        ("tool_name", VARCHAR),
        ("state", VARCHAR),
        ("text", VARCHAR),
        ("media_type", VARCHAR),
        ("url", VARCHAR),
        ("data_chars", BIGINT),
    ),
    "tool_calls": (
        ("file", VARCHAR),
        ("call_id", VARCHAR),
        ("name", VARCHAR),
        ("arguments", VARCHAR),
        ("call_line", BIGINT),
        ("call_message_id", VARCHAR),
        ("call_time", TIMESTAMP),
        ("status", VARCHAR),
        ("result_text", VARCHAR),
        ("result_line", BIGINT),
        ("result_message_id", VARCHAR),
        ("result_time", TIMESTAMP),
        ("latency_seconds", DOUBLE),
        ("session_id", VARCHAR),
        ("agent_id", VARCHAR),
        ("is_sidechain", BOOLEAN),
        ("parent_session_id", VARCHAR),
    ),
    "findings": (
        ("file", VARCHAR),
        ("line", BIGINT),
        ("code", VARCHAR),
        ("severity", VARCHAR),
        ("message", VARCHAR),
        ("pointer", VARCHAR),
    ),
}

#: rows handed to the writer at a time, per table
BATCH = 5_000

Sink = Callable[[str, list[tuple]], None]


def _text(value: Any) -> str | None:
    if value is None or isinstance(value, str):
        return value
    from .writer import dumps

    try:
        return dumps(value).decode()
    except TypeError:
        return str(value)


def _int(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value if -(2**63) <= value < 2**63 else None
    if isinstance(value, float) and value.is_integer() and abs(value) < 2**63:
        return int(value)
    return None


def _time(dialect: Any, value: Any) -> datetime | None:
    if value is None:
        return None
    when = dialect.parse_time(value)
    if when is None:
        return None
    if when.tzinfo is not None:
        when = when.astimezone(UTC).replace(tzinfo=None)
    return when


_POINTERS: dict[tuple, str] = {}


def _pointer(path: tuple) -> str:
    """``pointer(path)``, remembered: the same few paths come back in every message."""
    found = _POINTERS.get(path)
    if found is None:
        found = pointer(path)
        if len(_POINTERS) < 10_000:
            _POINTERS[path] = found
    return found


def _output_text(output: Any) -> str | None:
    """A tool result's output as text: its text (and structured values, as JSON) blocks."""
    if isinstance(output, list):
        texts = []
        for b in output:
            if isinstance(b, TextBlock) and isinstance(b.text, str):
                texts.append(b.text)
            elif isinstance(b, ValueBlock) and b.value is not None:
                texts.append(_text(b.value) or "")
        return "\n".join(texts) if texts else None
    return _text(output)


@dataclass(slots=True)
class RowCounts:
    """How many rows each table got; the paths that could not be read."""

    rows: dict[str, int] = field(default_factory=lambda: dict.fromkeys(TABLES, 0))
    files: int = 0
    unreadable: list[tuple[str, str]] = field(default_factory=list)


class _Rows:
    """Buffers rows per table and hands them on in batches."""

    def __init__(self, sink: Sink, counts: RowCounts, batch: int):
        self.sink = sink
        self.counts = counts
        self.batch = batch
        self.buffers: dict[str, list[tuple]] = {name: [] for name in TABLES}

    def add(self, table: str, row: tuple) -> None:
        buffer = self.buffers[table]
        buffer.append(row)
        if len(buffer) >= self.batch:
            self.flush(table)

    def extend(self, table: str, rows: list[tuple]) -> None:
        buffer = self.buffers[table]
        buffer.extend(rows)
        batch = self.batch
        while len(buffer) >= batch:
            self.counts.rows[table] += batch
            self.sink(table, buffer[:batch])
            buffer = self.buffers[table] = buffer[batch:]

    def flush(self, table: str) -> None:
        buffer = self.buffers[table]
        if buffer:
            self.counts.rows[table] += len(buffer)
            self.sink(table, buffer)
            self.buffers[table] = []

    def flush_all(self) -> None:
        for table in TABLES:
            self.flush(table)


class _File:
    """The rows of one file: messages and blocks as they come, tool calls once answered."""

    def __init__(self, name: str, rows: _Rows):
        self.name = name
        self.rows = rows
        self.waiting: dict[Any, list[list[Any]]] = {}  # call key -> calls without a result
        #: session id, agent id, is sidechain, parent session of the message being read
        self.thread: tuple[Any, Any, Any, Any] = (None, None, None, None)

    def message(self, msg: Message, dialect: Any, line: int) -> None:
        name = self.name
        add = self.rows.add
        block_rows: list[tuple] = []
        mid = _text(msg.id)
        when = msg.timestamp
        msg_time = _time(dialect, when)
        counts = dialect.token_counts(msg)
        inp, out, cached = counts if counts is not None else (None, None, None)
        session, agent, side = dialect.thread_of(msg)
        thread = self.thread = (
            _text(session),
            _text(agent),
            side if type(side) is bool else None,
            _text(dialect.parent_session(msg, name)),
        )
        seq = 0
        calls = 0
        for block in msg.blocks():
            kind = None
            text = media_type = url = data_chars = tool_name = state = None
            if isinstance(block, TextBlock):
                text = _text(block.text)
            elif isinstance(block, ThinkingBlock):
                text = _text(block.thinking)
            elif isinstance(block, HintBlock):
                text = _text(block.hint)
            elif isinstance(block, ToolCallBlock):
                calls += 1
                tool_name = _text(block.name)
                state = _text(block.state)
                arguments = block.input if isinstance(block.input, str) else None
                if arguments is None:
                    value = block.arguments if block.arguments is not None else block.input
                    arguments = _text(value)
                text = arguments
                self._call(block, dialect, arguments, line, mid, msg_time)
            elif isinstance(block, ToolResultBlock):
                tool_name = _text(block.name)
                state = _text(block.state)
                if not isinstance(block.output, list):
                    text = _text(block.output)
                self._result(block, dialect, line, mid, msg_time)
            elif isinstance(block, DataBlock):
                kind = _text(block.kind)
                tool_name = None
                source = block.source
                if source is not None:
                    media_type = _text(source.media_type)
                    url = _text(source.url)
                    if isinstance(source.data, str):
                        data_chars = len(source.data)
            elif isinstance(block, ValueBlock):
                text = _text(block.value)
                media_type = _text(block.mime_type)
            block_rows.append(
                (
                    name,
                    line,
                    mid,
                    seq,
                    _pointer(block.path),
                    _text(block.type),
                    kind if kind is not None else _text(block.type),
                    _text(block.id),
                    tool_name,
                    state,
                    text,
                    media_type,
                    url,
                    data_chars,
                ),
            )
            seq += 1
        self.rows.extend("blocks", block_rows)
        error = msg.fields.get("error")
        add(
            "messages",
            (
                name,
                line,
                msg.dialect,
                msg.variant,
                mid,
                _text(msg.role),
                _text(msg.name),
                _text(session_of(msg)),
                msg_time,
                _text(when),
                _text(dialect.finish_reason(msg)),
                _text(error),
                _int(inp),
                _int(out),
                _int(cached),
                _int(msg.fields.get("reasoning_tokens")),
                seq,
                calls,
                message_text(msg),
                *thread,
            ),
        )

    def _key(self, value: Any, dialect: Any) -> Any:
        if value is None or value == "" or not isinstance(value, (str, int)):
            return None
        return dialect.pair_key(value)

    def _block_time(self, block: Any, dialect: Any, fallback: datetime | None) -> datetime | None:
        for key in ("finished_at", "created_at"):
            when = _time(dialect, block.fields.get(key))
            if when is not None:
                return when
        return fallback

    def _call(
        self,
        block: ToolCallBlock,
        dialect: Any,
        arguments: str | None,
        line: int,
        mid: str | None,
        when: datetime | None,
    ) -> None:
        row: list[Any] = [
            self.name,
            _text(block.id),
            _text(block.name),
            arguments,
            line,
            mid,
            self._block_time(block, dialect, when),
            None,
            None,
            None,
            None,
            None,
            None,
            *self.thread,
        ]
        key = self._key(block.id, dialect)
        if key is None:
            self.rows.add("tool_calls", tuple(row))
        else:
            self.waiting.setdefault(key, []).append(row)

    def _result(
        self,
        block: ToolResultBlock,
        dialect: Any,
        line: int,
        mid: str | None,
        when: datetime | None,
    ) -> None:
        key = self._key(block.id, dialect)
        waiting = self.waiting.get(key) if key is not None else None
        if waiting:
            row = waiting[0]
        else:
            row = [self.name, _text(block.id), _text(block.name), None, None, None, None]
            row += [None] * 6
            row += self.thread
        result_time = self._block_time(block, dialect, when)
        row[7] = _text(block.state)
        row[8] = _output_text(block.output)
        row[9] = line
        row[10] = mid
        row[11] = result_time
        call_time = row[6]
        if call_time is not None and result_time is not None:
            row[12] = round((result_time - call_time).total_seconds(), 6)
        final = not (isinstance(block.state, str) and block.state in ("running", "in_progress"))
        if waiting:
            if not final:
                return  # a partial result: the final one completes the row
            waiting.pop(0)
            if not waiting:
                del self.waiting[key]
        self.rows.add("tool_calls", tuple(row))

    def finish(self) -> None:
        for rows in self.waiting.values():
            for row in rows:
                self.rows.add("tool_calls", tuple(row))
        self.waiting.clear()


def table_rows(
    paths: Iterable[str],
    sink: Sink,
    *,
    dialect: str | None = None,
    findings: bool = True,
    batch: int = BATCH,
    name_as: str | None = None,
    redact: bool = False,
) -> RowCounts:
    """Read every log the paths name (files, directories searched for logs, ``-``) and
    hand ``sink(table, rows)`` the rows of :data:`TABLES` in batches (each row a tuple in
    the table's column order). ``findings``: also run ``validate`` over each file for the
    ``findings`` table (a second reading of the file). Without it (and for standard input,
    which is read once) the findings are what reading met: lines that cannot be read, and
    the errors an event log's replay reports. ``name_as``: the name the rows give the one
    file ``paths`` names (a cluster's task reads it by its absolute path). ``redact``:
    secrets masked in every record before it is read, and in the findings' messages
    (``--redact``: see :mod:`msgcli.redact`)."""
    from .engine import Options, validate_file
    from .inputs import expand_paths
    from .reader import ReadError
    from .redact import redact_text as mask
    from .stream import LogReader
    from .textsafe import name_text

    counts = RowCounts()
    rows = _Rows(sink, counts, batch)
    for listed, source, problem in expand_paths(paths):
        # (a name that is not UTF-8 goes into the tables with its bytes escaped)
        name = name_text(name_as or listed)
        if source is None:
            why = "no such file or directory" if problem == "missing" else "no logs found"
            counts.unreadable.append((name, why))
            continue
        counts.files += 1
        current = _File(name, rows)
        reader = LogReader(name, dialect, redact)
        notices: list[tuple] = []
        try:
            for item in reader.items(source):
                if item.message is None:
                    notices.append((name, item.line, item.code, "error", item.notice, ""))
                    continue
                current.message(item.message, reader.dialect, item.line)
        except ReadError as exc:
            counts.unreadable.append((name, f"cannot read: {exc}"))
        current.finish()
        if findings and str(source) != "-":
            report = validate_file(source, name=name, options=Options(dialect=dialect))
            for f in report.findings:
                message = mask(f.message) if redact else f.message
                rows.add("findings", (name, f.line, f.code, f.severity.value, message, f.pointer))
        else:
            for row in notices:
                if redact:
                    row = (*row[:4], mask(row[4]), row[5])
                rows.add("findings", row)
    rows.flush_all()
    return counts
