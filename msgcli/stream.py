"""The one record loop: the items of any log, one at a time, for every command that reads.

:func:`open_log` reads a message log or an event log (replaying it on the way) and
yields a typed :class:`Item` per message as soon as it is complete, in the
dialect-neutral model (and, when asked, per event). What could not be read becomes a
problem item at its line, so a reader sees where the log is broken; a record of no
known dialect, or of another dialect than the file's, is a problem item too (``D001``,
``D002``, worded as ``msgcli validate`` words them: :mod:`msgcli.detect` places every
record for every command). Nothing is checked beyond what reading needs
(``msgcli validate`` does that).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from .detect import READ, Detector
from .dialects import EVENT, MESSAGE, Dialect, get_dialect
from .findings import ERROR
from .model import Message
from .reader import read_records, source_name
from .records import line_problem, take_over
from .rules import RULES

__all__ = [
    "EVENT_ITEM",
    "MESSAGE_ITEM",
    "PROBLEM_ITEM",
    "REPORT",
    "SKIP",
    "Item",
    "LogReader",
    "open_log",
]

#: what an :class:`Item` is (:attr:`Item.kind`)
MESSAGE_ITEM = "message"
EVENT_ITEM = "event"
PROBLEM_ITEM = "problem"

#: what becomes of a record that is not one of the log's (D001, D002): a problem item
#: (every command but ``diff``), or passed over and only counted (``diff``, which compares
#: what two logs say and names a log of no known dialect as a whole)
REPORT = "report"
SKIP = "skip"


@dataclass(slots=True)
class Item:
    """A message of the log (``message``), an event record (``event``, when asked for), or a
    problem with a line (``code`` and ``notice``)."""

    path: str
    line: int
    message: Message | None = None
    raw: dict | None = None  # the message as the dialect's JSON
    notice: str = ""
    code: str = ""
    #: where the message sits in a JSON document (a JSON pointer; "" in a log)
    where: str = ""
    #: an event record of an event log, as read (``open_log(..., events=True)``)
    event: dict | None = None

    @property
    def kind(self) -> str:
        """:data:`MESSAGE_ITEM`, :data:`EVENT_ITEM` or :data:`PROBLEM_ITEM`."""
        if self.message is not None:
            return MESSAGE_ITEM
        return EVENT_ITEM if self.event is not None else PROBLEM_ITEM


def open_log(
    source: str | Path | IO[bytes],
    options: Any = None,
    *,
    name: str | None = None,
    events: bool = False,
    others: str = REPORT,
) -> Log:
    """The items of one log (a path, ``-`` or a binary stream), read as ``options`` say
    (a :class:`msgcli.engine.Options`: its ``dialect`` and ``redact``); ``events``: an
    item for every event record of an event log too; ``others``: what becomes of a record
    that is not one of the log's (:data:`REPORT`, :data:`SKIP`). Iterate it once; what it
    learnt of the log (``dialect``, ``kind``, ``records``, ``skipped``, an event log's
    ``replayer``) is kept on it."""
    dialect = getattr(options, "dialect", None)
    redact = bool(getattr(options, "redact", False))
    name = source_name(source) if name is None else name
    return Log(source, name, dialect, redact, events, others)


class LogReader:
    """Reads one log into items; also keeps what ``stats`` needs of an event log."""

    def __init__(
        self,
        name: str,
        dialect: str | None = None,
        redact: bool = False,
        events: bool = False,
        others: str = REPORT,
    ):
        self.name = name
        #: mask secrets in every record before it is read (``--redact``: see msgcli.redact)
        self.redact = redact
        #: yield an item for every event record too
        self.events = events
        #: what becomes of a record that is not one of the log's (:data:`REPORT`, :data:`SKIP`)
        self.others = others
        #: how many records were not the log's (D001, D002)
        self.skipped = 0
        self.detector = Detector(get_dialect(dialect) if dialect else None, READ)
        self.dialect: Dialect | None = self.detector.dialect
        self.kind: str | None = None
        self.replayer: Any = None
        self.schema: Any = None
        self.assembler: Any = None
        self.records = 0
        #: a message item holds only the message's id (``Dialect.message_id``), where a record
        #: is one message: for a reader that needs the ids alone. Past the first message of a
        #: JSONL message log, the rest of the ids are read in a loop of their own into
        #: :attr:`ids`, with no item made for them
        self.ids_only = False
        self.ids: list[Any] = []
        #: a loop that asks to read the rest of the lines itself (see ``take_over``)
        self._take: Callable[[Iterator[tuple[int, bytes]]], int] | None = None
        #: the file holds no records (P008): why, as the reader says it; not an item, since
        #: an empty log reads as no messages
        self.empty: str | None = None
        self._pending: deque[Item] = deque()
        #: notices of lines inside a response the assembler holds: they follow it out, in
        #: file order (a broken line among a response's records is told after the response)
        self._notices: list[Item] = []

    # the replayer's emit and sink
    def _emit(self, code: str, message: str, ptr: str = "", line: int | None = None) -> None:
        rule = RULES.get(code)
        if rule is not None and rule.severity is ERROR:
            at = self.replayer.line if line is None else line
            self._pending.append(Item(self.name, at, notice=message, code=code))

    def _sink(self, line: int, obj: dict) -> None:
        assert self.dialect is not None
        for one in _messages_of(self.dialect, obj):
            self._pending.append(Item(self.name, line, self.dialect.read(one), one))

    def items(self, source: Any, on_record: Callable[[], None] | None = None) -> Iterator[Item]:
        """The items of the log: a path, ``-``, or a binary stream (anything
        :func:`msgcli.reader.read_records` takes). ``on_record()`` is called after
        every record (a live view redraws what is still being built:
        :meth:`open_messages`)."""
        pending = self._pending
        for record in self._records(source):
            if on_record is not None and record.line > 1:
                on_record()
            problem = record.problem
            if problem is not None and record.obj is None:
                if problem.code == "P008":
                    self.empty = problem.message
                else:
                    yield from self._notice(record.line, problem)
                continue
            if record.line > 0:
                self.records += 1
            obj = record.obj
            if self.redact:
                from .redact import redact_record

                obj = redact_record(obj)
            kind = self._kind_of(obj, record.line)
            if kind is None:
                self.skipped += 1
                problem = self.detector.problem
                if problem is not None and self.others == REPORT:
                    yield from self._notice(record.line, problem)
                continue
            stranger = self.detector.stranger is obj
            if kind == EVENT:
                if self.events:
                    yield Item(self.name, record.line, event=obj)
                if stranger and self.replayer is not None:
                    # a record of no known dialect in a tolerant dialect's stream: counted
                    # and skipped by its replayer, as the provider's SDK skips it
                    self.replayer.feed(record.line, obj, False)
                    while pending:
                        yield pending.popleft()
                    continue
                if self.replayer is None:
                    yield Item(
                        self.name,
                        record.line,
                        notice="this kind of event log cannot be replayed",
                        code="D001",
                    )
                    continue
                if self.schema is not None:
                    self.dialect.prepare_event(record.raw, obj, _quiet)  # type: ignore[union-attr]
                    schema = self.schema
                    name = self.dialect.event_schema(obj)  # type: ignore[union-attr]
                    if name != schema.name:
                        from .schemas import compiled

                        schema = compiled(name)
                    valid = schema.is_valid_typed(obj)
                else:
                    valid = True
                self.replayer.feed(record.line, obj, valid)
                while pending:
                    yield pending.popleft()
            elif self.assembler is not None:
                yield from self._joined(self.assembler.feed(record.line, obj))
            elif stranger:
                # a record of no known dialect in a tolerant dialect's log: kept, a message
                # of its own that show keeps aside (Dialect.read_unknown)
                assert self.dialect is not None
                message = self.dialect.read_unknown(obj)
                yield Item(self.name, record.line, message, obj, where=record.where)
            elif self.ids_only and getattr(self.dialect, "read_in", None) is None:
                assert self.dialect is not None
                message = Message(self.dialect.name, id=self.dialect.message_id(obj))
                yield Item(self.name, record.line, message, obj, where=record.where)
                if record.raw and on_record is None and not self.redact:
                    self._take = self._id_lines  # (the rest of a JSONL log: ids alone)
            else:
                assert self.dialect is not None
                for one, message in _read_in(self.dialect, obj):
                    yield Item(self.name, record.line, message, one, where=record.where)
        if self.assembler is not None:
            yield from self._joined(self.assembler.finish())
        if self.replayer is not None:
            self.replayer.finish(self.replayer.line)
            while pending:
                yield pending.popleft()

    def _notice(self, line: int, problem: Any) -> Iterator[Item]:
        """The notice of a problem at ``line``: now, or with the response the assembler is
        holding when the line is one of its records' (see :meth:`_joined`)."""
        notice = Item(self.name, line, notice=problem.message, code=problem.code)
        if self.assembler is not None and self.assembler.holding is not None:
            self._notices.append(notice)
        else:
            yield notice

    def _joined(self, records: list[tuple[int, dict]]) -> Iterator[Item]:
        """The items of what the assembler hands on, with the notices held beside it, in
        file order."""
        dialect = self.dialect
        assert dialect is not None
        items = [Item(self.name, line, dialect.read(joined), joined) for line, joined in records]
        if self._notices and items:
            # (the notices of lines before a response opened just now go out before it)
            opened = self.assembler.holding
            notices = self._notices
            if opened is not None:
                self._notices = [n for n in notices if n.line > opened]
                notices = [n for n in notices if n.line < opened]
            else:
                self._notices = []
            items = sorted([*items, *notices], key=_line_of)
        yield from items

    def _records(self, source: Any) -> Iterator[Any]:
        """The records of the log; after a record, a loop set in :attr:`_take` reads the rest
        of the lines of a JSONL input itself, and the records after it (if any) follow."""
        records = read_records(source)
        for record in records:
            yield record
            if self._take is not None:
                reader, self._take = self._take, None
                following = take_over(records, reader)
                if following is not None:
                    yield following

    def _id_lines(self, lines: Iterator[tuple[int, bytes]]) -> int:
        """The ids of the messages on the rest of a JSONL message log's lines, into
        :attr:`ids`: what the message items :meth:`items` makes of them with
        :attr:`ids_only` would hold. A line that is no message of the log (a problem, a
        record of another kind or dialect) gives none. Returns how many records it read."""
        import orjson

        from .guard import nests_deeper

        loads = orjson.loads
        bad_json = orjson.JSONDecodeError
        ids = self.ids
        count = 0
        for number, raw in lines:
            try:
                obj = loads(raw)
            except bad_json as exc:
                if not raw.strip():
                    continue
                obj = line_problem(number, raw, exc, last=False).obj  # (what can be recovered)
                if obj is None:
                    count += 1
                    continue
            else:
                if type(obj) is not dict or nests_deeper(obj, raw=raw):
                    count += 1
                    continue
            count += 1
            self.records += 1
            if self._kind_of(obj, number) != MESSAGE:
                continue  # (not the log's, or an event in a message log: no message)
            dialect = self.dialect
            assert dialect is not None
            if self.detector.stranger is obj and obj is not None:
                ids.append(dialect.read_unknown(obj).id)
            elif getattr(dialect, "read_in", None) is None:
                ids.append(dialect.message_id(obj))
            else:
                ids.extend(message.id for _, message in _read_in(dialect, obj))
        return count

    def open_messages(self) -> list[Message]:
        """What an event log's replay is still building, in the neutral model."""
        if self.replayer is None or self.dialect is None:
            return []
        return [self.dialect.read(obj) for obj in self.replayer.open_messages()]

    def _kind_of(self, obj: dict, line: int) -> str | None:
        """The record's kind, as the log's detector places it (None: not one of the log's
        records; the detector's ``problem`` says why)."""
        detector = self.detector
        kind = detector.kind_of(obj, line)
        if kind is None:
            return None
        if detector.dialect is not self.dialect:
            # settled, or (a log of plain messages so far) of this record's dialect after all
            self.dialect = detector.dialect
        if self.kind is not None:
            return kind
        self.kind = kind
        dialect = self.dialect
        # (the ids alone need no joining where the records of a message hold its id, see
        # Dialect.message_id; a dialect that names its messages only once they are joined
        # says so: Dialect.ids_need_joining)
        if (
            kind != EVENT
            and dialect is not None
            and (not self.ids_only or dialect.ids_need_joining)
        ):
            self.assembler = dialect.assembler()
        if kind == EVENT:
            from .schemas import compiled

            assert self.dialect is not None
            try:
                self.replayer = self.dialect.replayer(self._emit, self._sink)
            except KeyError:
                return kind
            self.schema = compiled(f"{self.dialect.name}/event")
        return kind


class Log(LogReader):
    """One log being read: iterate it for its items (:func:`open_log`)."""

    def __init__(
        self,
        source: Any,
        name: str,
        dialect: str | None,
        redact: bool,
        events: bool,
        others: str,
    ):
        super().__init__(name, dialect, redact, events, others)
        self.source = source

    def __iter__(self) -> Iterator[Item]:
        return self.items(self.source)


def _messages_of(dialect: Dialect, obj: dict) -> list[dict]:
    """The messages a record holds: itself, or those of a provider conversation (a
    request body, a request + answer line, a final response object)."""
    expand = getattr(dialect, "expand", None)
    return [obj] if expand is None else expand(obj)


def _read_in(dialect: Dialect, obj: dict) -> list[tuple[dict, Message]]:
    """``(message JSON, message)`` of every message a record holds, the blocks' pointers
    into the record (a provider conversation holds several)."""
    read_in = getattr(dialect, "read_in", None)
    if read_in is not None:
        return read_in(obj)
    return [(obj, dialect.read(obj))]


def _quiet(*_: Any, **__: Any) -> None:
    """An emit that reports nothing: reading for show and stats checks nothing."""


def _line_of(item: Item) -> int:
    return item.line
