"""Rebuilding messages from event logs, and checking the stream protocol on the way.

A replayer takes the events of one log in order (:meth:`Replayer.feed`),
reports protocol problems through ``emit`` (codes of family ``E``), and
hands every message it completes to ``sink`` as soon as it is complete,
written in the dialect's own message JSON. :meth:`Replayer.finish` closes
the log: what is still open is written too, marked, and reported.

Memory is bounded by what is still open (replies, model calls, tool
results), never by the length of the log.

Each dialect's replayer lives in its package (``msgcli.dialects.<name>.replay``), follows
that framework's own reassembly, and is reached through the dialect
(:meth:`msgcli.dialects.base.Dialect.replayer`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC
from typing import Any

from ..textsafe import short

__all__ = ["MARK_KEY", "ReplayStats", "Replayer", "Sink", "listed", "mark"]

#: the metadata key under which a replayed message that did not finish says so
MARK_KEY = "msgcli_replay"

#: ``sink(line, message)``: the line of the event that completed the message
Sink = Callable[[int, dict], None]
Emit = Callable[..., None]  # emit(code, message, pointer="", line=None)


@dataclass(slots=True)
class ReplayStats:
    """What a replay saw: events by type, and how its replies ended."""

    events: int = 0
    by_type: Counter = field(default_factory=Counter)
    unknown: Counter = field(default_factory=Counter)
    messages: int = 0
    completed: int = 0  # replies (Python) or runs (Java) that ended normally
    parked: int = 0  # waiting for a user's confirmation or an external result
    cut: int = 0  # still open when the log ended
    finished_reasons: Counter = field(default_factory=Counter)

    def add(self, other: ReplayStats) -> None:
        """The counts of a replay of the next part of the same log added (each count map
        keeps its keys in the order they first came in the whole log)."""
        self.events += other.events
        self.messages += other.messages
        self.completed += other.completed
        self.parked += other.parked
        self.cut += other.cut
        for mine, theirs in (
            (self.by_type, other.by_type),
            (self.unknown, other.unknown),
            (self.finished_reasons, other.finished_reasons),
        ):
            for key, count in theirs.items():
                mine[key] += count

    def to_dict(self) -> dict:
        """Counts of event types in the order they first came (the order of the stream);
        the other count maps most frequent first."""
        return {
            "events": self.events,
            "by_type": dict(self.by_type),
            "unknown_types": dict(self.unknown.most_common()),
            "messages": self.messages,
            "completed": self.completed,
            "parked": self.parked,
            "cut": self.cut,
            "finished_reasons": dict(self.finished_reasons.most_common()),
        }


class Replayer:
    """The state machine of one event log. Subclasses implement one dialect."""

    #: event types this dialect knows (anything else is E009)
    known_types: frozenset[str] = frozenset()
    #: the key of an event's time stamp
    time_key = "created_at"
    #: the keys naming what an event belongs to (reply, block, tool call)
    id_keys: tuple[str, ...] = ()

    def __init__(self, emit: Emit, sink: Sink | None = None):
        self.emit = emit
        self._sink = sink
        self.stats = ReplayStats()
        self.line = 0
        self.stamp: Any = None  # the time stamp of the event being applied
        self._last_time: str | None = None
        self._last_seconds: float | None = None
        self._last_time_line = 0

    #: whether a line of a log opens a stream that replays the same whatever came before
    #: it (a replay of a large log may then start afresh there, in a part of its own:
    #: :func:`msgcli.parallel.iter_replay_reports`); ``None``: the log is never cut
    opens_stream: Callable[[bytes], bool] | None = None

    def cut_before(self, line: int) -> None:
        """What the event at ``line``, one that :attr:`opens_stream`, does to the stream
        still open before it (the end of a part whose next part starts at ``line``)."""
        raise NotImplementedError

    def write(self, line: int, message: dict) -> None:
        self.stats.messages += 1
        if self._sink is not None:
            self._sink(line, message)

    def feed(self, line: int, event: dict, valid: bool = True) -> None:
        """Apply one event. ``valid`` is False when it failed the event schema: it is
        then still applied as far as its fields allow (so one bad token count does
        not make a model call look unended), if it names what it belongs to."""
        self.line = line
        stats = self.stats
        stats.events += 1
        self.stamp = event.get(self.time_key)
        self.check_time(self.stamp)
        kind = event.get("type")
        if type(kind) is not str:
            return
        if kind not in self.known_types:
            if valid:  # (a name that is no event type at all was reported by the schema)
                stats.unknown[kind] += 1
                self.emit(
                    "E009",
                    f"unknown event type {short(kind)}: skipped (a newer AgentScope version?)",
                    "/type",
                )
            return
        stats.by_type[kind] += 1
        if valid or all(type(event.get(key, "")) is str for key in self.id_keys):
            self.apply(kind, event)

    def apply(self, kind: str, event: dict) -> None:
        """Apply one event of a known type (the dialect's state machine)."""
        raise NotImplementedError

    def note_event_id(self, seen: set[str], event: dict, scope: str) -> None:
        """E014 when ``event``'s id is already in ``seen`` (the ids of its reply or run)."""
        eid = event.get("id")
        if type(eid) is not str:
            return
        if eid in seen:
            self.emit("E014", f"a second event with id {short(eid)} in this {scope}", "/id")
        else:
            seen.add(eid)

    def open_messages(self) -> list[dict]:
        """The messages still being built, as they stand (for a live view)."""
        return []

    def finish(self, line: int, cut: bool = False) -> None:
        """The log ends after ``line``. ``cut``: the user stopped the replay
        there on purpose (``--until``), so what is open is marked but not
        reported as a broken stream."""
        raise NotImplementedError

    # -- shared helpers ------------------------------------------------------

    def check_time(self, stamp: Any) -> None:
        """E008 when ``stamp`` is more than a second earlier than an event before it.

        Events are stamped when they are made, and sent in the order they are
        queued, so stamps a little out of order are normal (a ``CUSTOM`` state
        update is stamped after the tool events queued before it).
        """
        if type(stamp) is not str:
            return
        key = stamp[:-1] if stamp.endswith("Z") else stamp
        last = self._last_time
        if last is None or key >= last:
            if key != last:
                self._last_time = key
                self._last_seconds = None
            self._last_time_line = self.line
            return
        latest = self._last_seconds
        if latest is None:
            latest = self._last_seconds = seconds_of(last)
        earlier = seconds_of(key)
        if earlier is not None and latest is not None and latest - earlier > TIME_TOLERANCE:
            self.emit(
                "E008",
                f"this event is stamped {stamp}, {latest - earlier:.3f} s earlier than the "
                f"event on line {self._last_time_line}",
            )


#: how much earlier than the latest event before it an event may be stamped (seconds)
TIME_TOLERANCE = 1.0


def seconds_of(stamp: str) -> float | None:
    """Seconds since the epoch of a zone-less ISO stamp (any fraction length), or None."""
    from datetime import datetime

    head, _dot, fraction = stamp.partition(".")
    try:
        moment = datetime.fromisoformat(head).replace(tzinfo=UTC)
    except ValueError:
        return None
    digits = fraction[:6] if fraction.isdigit() else ""
    return moment.timestamp() + (int(digits) / 10 ** len(digits) if digits else 0.0)


def listed(value: Any) -> list:
    """An event's list field as a list: an invalid event may hold any value there."""
    return value if type(value) is list else []


def mark(message_metadata: dict, state: str, open_items: list[str], line: int) -> None:
    """Mark a message that did not finish: ``state`` is ``cut`` (the log ended),
    ``open`` (the replay was stopped with --until) or ``orphan``."""
    message_metadata[MARK_KEY] = {"state": state, "open": open_items, "line": line}
