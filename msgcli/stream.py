"""The messages of any log, one at a time, for the commands that read rather than check.

:meth:`LogReader.items` reads a message log or an event log (replaying it on the
way) and yields an :class:`Item` per message as soon as it is complete, in
the dialect-neutral model. What could not be read becomes a notice item at
its line, so a reader sees where the log is broken; nothing is checked
beyond what reading needs (``msgcli validate`` does that).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from .dialects import EVENT, Dialect, classify, fits, get_dialect, is_plain
from .findings import ERROR
from .model import Message
from .reader import read_records
from .rules import RULES

__all__ = ["Item", "LogReader"]


@dataclass(slots=True)
class Item:
    """A message of the log (``message``), or a notice about a line (``notice``)."""

    path: str
    line: int
    message: Message | None = None
    raw: dict | None = None  # the message as the dialect's JSON
    notice: str = ""
    code: str = ""
    #: where the message sits in a JSON document (a JSON pointer; "" in a log)
    where: str = ""


class LogReader:
    """Reads one log into items; also keeps what ``stats`` needs of an event log."""

    def __init__(self, name: str, dialect: str | None = None, redact: bool = False):
        self.name = name
        #: mask secrets in every record before it is read (``--redact``: see msgcli.redact)
        self.redact = redact
        self.forced: Dialect | None = get_dialect(dialect) if dialect else None
        self.dialect: Dialect | None = self.forced
        self.kind: str | None = None
        #: the log so far holds only plain messages, which every provider dialect takes
        self.tentative = False
        self.replayer: Any = None
        self.schema: Any = None
        self.assembler: Any = None
        self.records = 0
        #: called with ``(line, record)`` for a record this reader leaves out because it is
        #: of another dialect or kind than the file's (``convert`` reports it)
        self.on_skip: Callable[[int, dict], None] | None = None
        #: the file holds no records (P008): why, as the reader says it; not an item, since
        #: an empty log reads as no messages
        self.empty: str | None = None
        self._pending: deque[Item] = deque()

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
        for record in read_records(source):
            if on_record is not None and record.line > 1:
                on_record()
            problem = record.problem
            if problem is not None and record.obj is None:
                if problem.code == "P008":
                    self.empty = problem.message
                else:
                    yield Item(self.name, record.line, notice=problem.message, code=problem.code)
                continue
            if record.line > 0:
                self.records += 1
            obj = record.obj
            if self.redact:
                from .redact import redact_record

                obj = redact_record(obj)
            kind = self._kind_of(obj)
            if kind is None:
                if self.on_skip is not None:
                    self.on_skip(record.line, obj)
                continue
            if kind == EVENT:
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
                assert self.dialect is not None
                for line, joined in self.assembler.feed(record.line, obj):
                    yield Item(self.name, line, self.dialect.read(joined), joined)
            else:
                assert self.dialect is not None
                for one, message in _read_in(self.dialect, obj):
                    yield Item(self.name, record.line, message, one, where=record.where)
        if self.assembler is not None:
            assert self.dialect is not None
            for line, joined in self.assembler.finish():
                yield Item(self.name, line, self.dialect.read(joined), joined)
        if self.replayer is not None:
            self.replayer.finish(self.replayer.line)
            while pending:
                yield pending.popleft()

    def open_messages(self) -> list[Message]:
        """What an event log's replay is still building, in the neutral model."""
        if self.replayer is None or self.dialect is None:
            return []
        return [self.dialect.read(obj) for obj in self.replayer.open_messages()]

    def _kind_of(self, obj: dict) -> str | None:
        if self.kind is not None:
            assert self.dialect is not None
            found = fits(self.dialect, obj)
            if found is None and self.tentative and self.forced is None:
                detected = classify(obj)
                if detected is not None and detected[1] == self.kind:
                    # the log so far held only plain messages: it is of this record's dialect
                    self.dialect, found = detected
            if self.tentative and not is_plain(obj):
                self.tentative = False
            return found if found == self.kind else None
        if self.forced is not None:
            kind = fits(self.forced, obj)
        else:
            detected = classify(obj)
            if detected is None:
                return None
            self.dialect, kind = detected
        if kind is None:
            return None
        self.kind = kind
        self.tentative = is_plain(obj)
        if kind != EVENT:
            assert self.dialect is not None
            self.assembler = self.dialect.assembler()
        if kind == EVENT:
            from .schemas import compiled

            assert self.dialect is not None
            try:
                self.replayer = self.dialect.replayer(self._emit, self._sink)
            except KeyError:
                return kind
            self.schema = compiled(f"{self.dialect.name}/event")
        return kind


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
