"""Replay on typed events: the lean loop of an event log whose dialect declares the types
of the events its framework writes (AgentScope Python and Java).

Each JSONL line is decoded straight into those types (msgspec Structs, a tagged union on
the event ``type``), which check the event's structure while it is parsed: every key the
framework writes, of the type the event schema asks for, and no other key. A decoded event
goes to its type's *fast path*, which applies it to the replayer's state when nothing about
it could be reported (its reply or model call is open, its block started, its id is new,
its time is not earlier than the events before it...) and says so; it changes nothing
otherwise. Any line the types refuse, or a fast path leaves, takes the whole way (parsed,
its dialect placed, its schema checked and explained, :meth:`Replayer.feed`) and gets
exactly the findings it always got.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

__all__ = ["EMPTY_OBJECT", "TypedReplay", "in_time", "object_of"]

#: a fast path: ``apply(event, line)`` applies a decoded event in place and says so
#: (``True``), or changes nothing (``False``: the event takes the whole way)
FastPath = Callable[[Any, int], bool]

#: the JSON text of an empty object, as a ``msgspec.Raw`` value holds it
EMPTY_OBJECT = b"{}"


def object_of(raw: Any) -> dict | None:
    """A JSON object held undecoded (a ``msgspec.Raw``) as orjson reads it, the same values
    the whole way gets (integers beyond 64 bits, invalid UTF-8 and lone surrogates in it
    included); ``None``: not an object, or not one orjson reads."""
    import orjson

    text = bytes(raw)
    if text == EMPTY_OBJECT:
        return {}
    try:
        value = orjson.loads(text)
    except orjson.JSONDecodeError:
        return None
    return value if type(value) is dict else None


def in_time(replayer: Any, key: str, last: str) -> bool:
    """Whether an event stamped ``key``, earlier than the latest stamp ``last``, is within
    the tolerance of ``Replayer.check_time`` (which then has nothing to say)."""
    from . import TIME_TOLERANCE, seconds_of

    latest = replayer._last_seconds
    if latest is None:
        latest = replayer._last_seconds = seconds_of(last)
    earlier = seconds_of(key)
    return earlier is None or latest is None or latest - earlier <= TIME_TOLERANCE


class TypedReplay:
    """What a replayer with typed events adds (a mixin of :class:`~msgcli.replayers.Replayer`):
    :meth:`lean`, the loop :mod:`msgcli.engine` hands the rest of a JSONL log to."""

    #: after how many records the engine hands the rest of the log to :meth:`lean` (a short
    #: log is done before the types would be imported and built)
    lean_after = 1000

    #: where the event types live: ``"module:function"``, the function of the replayer
    #: giving what :meth:`typed_events` gives (imported only when a log comes to it)
    typed = ""

    #: what adds the events the fast paths counted on their own to the replay's counts
    #: (set by :meth:`typed_events`)
    tallies: Sequence[Callable[[], None]] = ()

    def tally(self) -> None:
        """Add the events the fast paths counted on their own to the replay's counts."""
        for count in self.tallies:
            count()

    def typed_events(self) -> tuple[Callable[[bytes], Any], dict[type, FastPath]]:
        """``(decode, fast)``: ``decode(line)`` reads a JSONL line into the event types (and
        raises on anything else); ``fast`` maps each type to its fast path."""
        import importlib

        module, _, function = self.typed.partition(":")
        return getattr(importlib.import_module(module), function)(self)

    def lean(self, lines: Any, check: Any) -> int:
        """Replay the rest of a JSONL log from its numbered lines: each line that decodes
        and that its fast path applies is done; any other goes to ``check.take`` as a
        record, the whole way. Returns how many records it read; ``check.last`` is the line
        of the last one."""
        from ..records import collector_paused

        with collector_paused():
            return self._typed_lines(lines, check)

    def _typed_lines(self, lines: Any, check: Any) -> int:
        import msgspec
        import orjson

        from ..guard import RECORD_DEPTH
        from ..records import Truncated, line_problem, parsed_record

        decode, fast = self.typed_events()
        refused = (msgspec.ValidationError, RecursionError)
        malformed = (msgspec.DecodeError, ValueError)  # (invalid UTF-8 too)
        bad_json = orjson.JSONDecodeError
        take = check.take
        count = 0
        fasted = 0  # events the fast paths applied
        last = check.last  # the line of the last record counted
        # a line that did not parse, held back as the reader does: it may be the last one,
        # cut off
        pending: tuple[int, bytes, Any] | None = None
        try:
            for number, raw in lines:
                if pending is not None:
                    last = take(line_problem(*pending, last=False)) or last
                    pending = None
                try:
                    event = decode(raw)
                except refused:
                    event = None
                except malformed:
                    if not raw.strip():
                        continue
                    event = None
                if (
                    event is not None
                    # (a line shorter than the depth limit cannot nest past it)
                    and (
                        len(raw) <= RECORD_DEPTH
                        or raw.count(b"[") + raw.count(b"{") <= RECORD_DEPTH
                    )
                    and fast[type(event)](event, number)
                ):
                    fasted += 1
                    last = number
                    continue
                count += 1
                try:
                    record = parsed_record(number, raw)
                except bad_json as exc:
                    pending = (number, raw, exc)
                    continue
                last = take(record) or last
        except Truncated:
            # a compressed log cut short: the reader reports where it broke off
            if pending is not None:
                last = take(line_problem(*pending, last=False)) or last
                pending = None
            raise
        finally:
            check.summary.records += fasted
            self.stats.events += fasted  # type: ignore[attr-defined]
            self.tally()
            check.last = last
        if pending is not None:
            last = check.last = take(line_problem(*pending, last=True)) or last
        return count + fasted
