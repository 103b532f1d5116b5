"""What every dialect module provides.

A dialect is a module-level singleton subclass of :class:`Dialect`. It
answers four questions about a raw JSON record (a ``dict`` from orjson):

- :meth:`Dialect.classify`: is this one of mine, and is it a message or an
  event? Must be cheap: a few key look-ups, called for every record.
- :meth:`Dialect.read`: map the record onto :class:`msgcli.model.Message`,
  keeping every key. Never raises, whatever the record holds (a record that
  failed the schema is still read as far as it can be).
- :meth:`Dialect.write`: map a :class:`Message` back onto this dialect's JSON,
  keys in the order the framework writes them.
- :meth:`Dialect.check`: the per-record checks that need this dialect's
  knowledge and are not in the schema (keys the framework always writes,
  timestamp format, id forms, ...). It calls ``emit(code, message, pointer)``.

The schema itself is ``schemas/<name>/message.schema.json``.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from datetime import datetime, timedelta
from types import MappingProxyType
from typing import Any

import orjson

from ..model import Message, ToolCallBlock

Emit = Callable[..., None]  # emit(code: str, message: str, pointer: str = "")

MESSAGE = "message"
EVENT = "event"

#: the tags of a tool call and of a tool result in a message digest (see msgcli.checks.digest)
DIGEST_CALL = 0
DIGEST_RESULT = 1

_EPOCH = datetime(1970, 1, 1)
_MICROSECOND = timedelta(microseconds=1)


def micros(when: datetime) -> int:
    """A naive time as microseconds since 1970 (a digest's time: cheap to send and compare)."""
    return (when - _EPOCH) // _MICROSECOND


def object_text(text: str) -> bool:
    """Whether tool-call argument text is a JSON object (what T004/T005 ask of it)."""
    try:
        return type(orjson.loads(text)) is dict
    except orjson.JSONDecodeError:
        return False


def has_words(text: Any) -> bool:
    """Whether a text block's text makes its message non-empty (what B001 asks of it)."""
    return bool(text) and (type(text) is not str or bool(text.strip()))


def id_key(value: Any) -> Any:
    """A message id as the checks across records compare it, for a dialect that compares
    ids as written (``None``: no usable id)."""
    return value if value != "" and isinstance(value, (str, int)) else None


class _Spoke(Exception):
    pass


def _speak(*_args: Any, **_kwargs: Any) -> None:
    raise _Spoke


def says_nothing(check: Callable[..., None], *args: Any) -> bool:
    """Whether ``check(*args, emit)`` finds nothing (it stops at its first finding)."""
    try:
        check(*args, _speak)
    except _Spoke:
        return False
    return True


def other_keys(obj: dict, known: tuple[str, ...] | frozenset[str]) -> dict[str, Any]:
    """The keys of ``obj`` that are not ``known``, with their values, in their order."""
    return {k: v for k, v in obj.items() if k not in known}


def is_number(value: Any) -> bool:
    """A JSON number (``true`` and ``false`` are not numbers, though Python says so)."""
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _load(target: str) -> Any:
    module, _, attr = target.partition(":")
    return getattr(importlib.import_module(module), attr)


class Dialect:
    #: the name users type: ``agentscope-java``, ``agentscope-py``, ``loongflow``
    name: str = ""
    #: one line for ``msgcli schema list`` and the README
    title: str = ""
    #: neutral block types whose unknown keys the framework keeps (so they are no S003)
    keeps_extra_on: frozenset[str] = frozenset()
    #: roles whose messages carry tool results in this dialect (``None``: any role)
    tool_result_roles: frozenset[str] | None = None
    #: the JSON key of a tool call's raw argument text inside the block, if the dialect has one
    tool_input_key: str | None = None
    #: the JSON key of a tool call's arguments object inside the block (for pointers)
    tool_arguments_key: str = "arguments"
    #: the JSON keys of a tool call's id and tool name (for pointers in findings)
    tool_call_id_key: str = "id"
    tool_call_name_key: str = "name"
    #: what the dialect calls the items of ``content`` ("block" or "element")
    block_word: str = "block"
    #: whether the dialect's records are told apart from every other dialect's by
    #: :meth:`classify` alone (so a file settled on it asks only it about each record)
    distinct: bool = False
    #: whether ``validate -j`` checks a large file of this dialect in parts
    splittable: bool = True
    #: whether ``stats`` asks :meth:`note_stats` about every message
    stats_details: bool = False
    #: whether ``convert`` can write this dialect (and so convert back to it)
    writable: bool = True
    #: where ``convert``'s writer for this dialect lives (``"module:function"``, the function
    #: taking neutral messages to this dialect's records), or ``None``: not a conversion target
    writer: str | None = None
    #: provider name -> where that provider's formatter for this dialect lives (``"module:attr"``)
    formatters: Mapping[str, str] = MappingProxyType({})

    def load_writer(self) -> Any:
        """The conversion writer, imported on first use."""
        if self.writer is None:
            raise ValueError(f"msgcli does not write {self.name}")
        return _load(self.writer)

    def load_formatter(self, provider: str) -> Any:
        """The formatter of ``provider`` for this dialect, imported on first use."""
        try:
            return _load(self.formatters[provider])
        except KeyError:
            raise ValueError(f"{self.name} has no formatter for {provider}") from None

    def classify(self, obj: dict) -> str | None:
        """``"message"``, ``"event"``, or ``None`` when the record is not of this dialect."""
        raise NotImplementedError

    def variant(self, obj: dict) -> str | None:
        """The version shape of a message record (e.g. ``"1.x"``, ``"2.x"``), if it tells.

        :meth:`read` records it as ``Message.variant``; later steps use that.
        """
        return None

    def read(self, obj: dict) -> Message:
        raise NotImplementedError

    def write(self, msg: Message) -> dict:
        raise NotImplementedError

    def check(self, obj: dict, msg: Message, emit: Emit) -> None:
        """Dialect-specific per-record checks beyond the schema. Default: none."""

    def fast_digest(self, obj: dict) -> tuple[str | None, tuple] | None:
        """``(variant, digest)`` of a schema-valid record that no per-record rule faults.

        The fast path of validation: a dialect may answer for the records of the
        shape its framework writes, reading only the dict, and must answer
        ``None`` for anything else, or whenever :meth:`check` or
        :func:`msgcli.checks.check_message` could have something to say. The
        digest must be the one :func:`msgcli.checks.digest` makes of
        :meth:`read`'s message. Default: no fast path.
        """
        return None

    def prepare_event(self, raw: bytes, obj: dict, emit: Emit) -> None:
        """Bring an event record into the form its schema and replay expect (in place),
        reporting what that took. ``raw`` is the record's JSON text, when known.
        Default: nothing to do."""

    def event_schema(self, obj: dict) -> str:
        """The name of the schema an event record is checked against (default: the
        dialect's one event schema)."""
        return f"{self.name}/event"

    def finish_reason(self, msg: Message) -> Any:
        """How a reply ended, as the message records it (default: the dialect does not say)."""
        return None

    def token_counts(self, msg: Message) -> tuple[Any, Any, Any] | None:
        """``(input, output, cached)`` tokens a message reports, or ``None`` (default: usage)."""
        usage = msg.usage
        if usage is None:
            return None
        return usage.input_tokens, usage.output_tokens, usage.cached_tokens

    def tool_input_key_of(self, block: ToolCallBlock) -> str | None:
        """The JSON key holding this tool call's argument text (default: ``tool_input_key``)."""
        return self.tool_input_key

    def pair_key(self, call_id: Any) -> Any:
        """The form in which ids (of messages and tool calls) are compared (default: as written)."""
        return call_id

    def parse_time(self, value: Any) -> datetime | None:
        """The message time as a datetime (naive = the dialect's own zone), or ``None``."""
        return None

    def message_part(self, msg: Message) -> Any:
        """What tells apart two records of one message that its framework writes as parts
        of it (e.g. the first block's id), or ``None`` when the framework never splits a
        message (default): then a recurring message id is always a duplicate (I001)."""
        return None

    def parked(self, metadata: Any) -> bool:
        """Whether a message with this metadata says its unanswered tool calls wait for
        someone by design (a paused session); default: no dialect says so."""
        return False

    def assembler(self) -> Any:
        """For a dialect that writes one message over several records: an object whose
        ``feed(line, record)`` and ``finish()`` give back ``(line, record)`` pairs with those
        records joined, for the commands that read (show, stats, convert). Default: none,
        every record is a message."""
        return None

    def record_checker(self, emit: Emit, name: str) -> Any:
        """For a dialect whose files are checked by its own rules rather than as neutral
        messages: an object with ``check(obj, recovered)`` (``emit`` reports at the line
        being checked) and ``finish()``. Default: none."""
        return None

    def aside(self, msg: Message) -> bool:
        """Whether ``msgcli show`` leaves this message out unless asked for ``--all``
        (a record that is not part of the conversation). Default: never."""
        return False

    def nested_logs(self, path: str, msg: Message) -> list[tuple[str, str]]:
        """``(title, path)`` of the logs ``msgcli show`` nests under this message (a
        subagent's transcript under the call that started it). Default: none."""
        return []

    def thread_of(self, msg: Message) -> tuple[Any, Any, Any]:
        """``(session id, agent id, is sidechain)`` of a message, for the tables of
        ``msgcli export`` and ``msgcli query``: which session it belongs to, which agent
        (a subagent's id) wrote it, and whether it is off the main thread. Default: the
        session the message records (if any), no agent, not said."""
        from ..filters import session_of

        return session_of(msg), None, None

    def record_out(self, record: dict) -> dict:
        """A record read from a log as ``msgcli query`` writes it back: without what msgcli
        noted on it while reading. Default: the record as read."""
        return record

    def carry_record(self, record: dict) -> Any:
        """What ``convert`` keeps of a record of this (not writable) dialect in the target's
        metadata, beside the blocks it converted. Default: the record."""
        return record

    def note_stats(self, msg: Message, details: dict) -> None:
        """Count what only this dialect has into ``details`` (``msgcli stats`` shows it as
        it is, keyed by the dialect); called for every message when ``stats_details``."""

    def finish_stats(self, path: str, details: dict) -> None:
        """Complete ``details`` once the file at ``path`` is read."""

    def same_turn(self, before: Message, msg: Message) -> bool:
        """Whether ``msg`` continues the turn of the message ``before`` it: a dialect that
        writes one reply as several records (one per output item) says so, and ``diff``
        compares them as the one message other dialects write. Default: never."""
        return False

    def time_group(self, msg: Message) -> Any:
        """Messages are compared for time order within one group (default: the whole file)."""
        return None
