"""Choosing messages: the filters of ``msgcli query`` and ``msgcli show``, and the neutral JSON.

:class:`Filter` decides, message by message and in log order, whether a message
of a log is wanted. Every condition given must hold (each one repeatable: any of
its values may match):

- ``roles`` / ``names``: the role (any case) or the sender;
- ``tools``: the message holds a call of that tool, or a result of that tool (by the
  result's own tool name, or by the id of a call of that tool earlier in the file);
- ``errors``: a failed tool result (state ``error``, ``denied``, ``interrupted``...), a
  finish reason that is not a normal stop, an ``error`` the message records, or a
  finding of ``msgcli validate`` at the message's line (``finding_lines``);
- ``patterns``: a regular expression found in the message's text, thinking, hints,
  tool arguments or tool results;
- ``since`` / ``until``: the message's time (see :func:`parse_when`);
- ``finish``: the finish reason as recorded (any case);
- ``ids``: the message id or a prefix of it;
- ``sessions``: the session or conversation id where the dialect records one
  (:func:`session_of`);
- ``where``: a JMESPath expression over :func:`neutral` that is true (not null,
  false, empty).

A filter keeps per-file state (the ids of calls of the wanted tools still
waiting for their result): call :meth:`Filter.reset` at the start of each file.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field, fields
from datetime import UTC, datetime, timedelta
from typing import Any

from .dialects import get_dialect
from .dialects.base import session_of
from .model import (
    Block,
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
from .textsafe import name_text

__all__ = [
    "FAILED_STATES",
    "Filter",
    "FilterError",
    "failed_finish",
    "message_text",
    "message_texts",
    "neutral",
    "parse_when",
    "session_of",
]

#: tool result states that mean the tool did not do its work (compared in lower case)
FAILED_STATES = frozenset(
    {"error", "failed", "failure", "denied", "interrupted", "cancelled", "canceled", "timeout"}
)
#: finish reasons of a normal end (compared in lower case); any other one is an error
_NORMAL_FINISH = frozenset({"completed", "model_stop", "stop", "end_turn", "tool_suspended"})

_DURATION = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([smhdw])\s*$", re.IGNORECASE)
_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604800}


class FilterError(ValueError):
    """A filter that cannot be used (a bad regular expression, time or expression)."""


def parse_when(text: str, now: datetime | None = None) -> datetime:
    """An ISO date or time (``2026-11-22``, ``2026-11-22T11:54``, with or without a
    zone), or a duration back from now (``90s``, ``30m``, ``12h``, ``7d``, ``2w``)."""
    match = _DURATION.match(text)
    if match:
        amount, unit = float(match.group(1)), match.group(2).lower()
        now = now or datetime.now(UTC)
        return now - timedelta(seconds=amount * _UNITS[unit])
    value = text.strip()
    if value.endswith(("Z", "z")):
        value = value[:-1] + "+00:00"
    try:
        return datetime.fromisoformat(value)
    except ValueError:
        raise FilterError(f"not an ISO time or a duration such as 30m, 12h, 7d: {text!r}") from None


def _comparable(when: datetime) -> datetime:
    """A time in this machine's zone without zone: times a log writes without a zone are
    the producer's local time, taken as this machine's."""
    if when.tzinfo is not None:
        return when.astimezone().replace(tzinfo=None)
    return when


def failed_finish(reason: Any) -> bool:
    """A finish reason that is not a normal end (``error``, ``interrupted``,
    ``exceed_max_iters``...)."""
    return isinstance(reason, str) and bool(reason) and reason.lower() not in _NORMAL_FINISH


def message_texts(msg: Message) -> Iterator[str]:
    """Every text of a message a search looks in: text, thinking, hints, tool arguments and
    tool results (those nested in results too)."""
    for block in msg.blocks():
        if isinstance(block, TextBlock) and isinstance(block.text, str):
            yield block.text
        elif isinstance(block, ThinkingBlock) and isinstance(block.thinking, str):
            yield block.thinking
        elif isinstance(block, HintBlock) and isinstance(block.hint, str):
            yield block.hint
        elif isinstance(block, ToolCallBlock):
            if isinstance(block.input, str):
                yield block.input
            elif block.arguments is not None or block.input is not None:
                yield _json_text(block.arguments if block.arguments is not None else block.input)
        elif isinstance(block, ToolResultBlock) and isinstance(block.output, str):
            yield block.output
        elif isinstance(block, ValueBlock) and block.value is not None:
            yield block.value if isinstance(block.value, str) else _json_text(block.value)


def message_text(msg: Message) -> str:
    """The message's own text blocks (not those inside tool results), one after another."""
    return "\n".join(
        b.text for b in msg.content if isinstance(b, TextBlock) and isinstance(b.text, str)
    )


def _json_text(value: Any) -> str:
    from .writer import dumps

    try:
        return dumps(value).decode()
    except TypeError:
        return str(value)


@dataclass(slots=True)
class Filter:
    """Which messages are wanted; calling it with ``(msg, dialect, line)`` answers."""

    roles: set[str] = field(default_factory=set)
    names: set[str] = field(default_factory=set)
    tools: set[str] = field(default_factory=set)
    errors: bool = False
    patterns: list[Any] = field(default_factory=list)  # compiled regular expressions
    since: datetime | None = None
    until: datetime | None = None
    finish: set[str] = field(default_factory=set)  # lower case
    ids: list[str] = field(default_factory=list)
    sessions: set[str] = field(default_factory=set)
    where: Any = None  # a compiled JMESPath expression
    #: each ``ids`` prefix -> the message ids it matched (one prefix may match several)
    matched: dict[str, set[str]] = field(default_factory=dict)
    #: lines of the current file that ``validate`` has an error finding for (``errors``)
    finding_lines: set[int] = field(default_factory=set)
    _calls: set[Any] = field(default_factory=set)  # ids of wanted-tool calls awaiting results

    @classmethod
    def build(
        cls,
        *,
        roles: list[str] | None = None,
        names: list[str] | None = None,
        tools: list[str] | None = None,
        errors: bool = False,
        grep: list[str] | None = None,
        ignore_case: bool = False,
        since: str | None = None,
        until: str | None = None,
        finish: list[str] | None = None,
        ids: list[str] | None = None,
        sessions: list[str] | None = None,
        where: str | None = None,
    ) -> Filter:
        """A filter from command-line values; :class:`FilterError` says what is wrong."""
        flags = re.IGNORECASE if ignore_case else 0
        patterns = []
        for text in grep or ():
            try:
                patterns.append(re.compile(text, flags))
            except re.error as exc:
                raise FilterError(f"--grep: not a regular expression: {exc}") from None
        compiled = None
        if where is not None:
            compiled = compile_where(where)
        return cls(
            roles={r.lower() for r in roles or ()},
            names=set(names or ()),
            tools=set(tools or ()),
            errors=errors,
            patterns=patterns,
            since=_comparable(parse_when(since)) if since else None,
            until=_comparable(parse_when(until)) if until else None,
            finish={f.lower() for f in finish or ()},
            ids=list(ids or ()),
            sessions=set(sessions or ()),
            where=compiled,
        )

    @property
    def active(self) -> bool:
        """Whether any condition is set (else every message is wanted)."""
        return bool(
            self.roles
            or self.names
            or self.tools
            or self.errors
            or self.patterns
            or self.since
            or self.until
            or self.finish
            or self.ids
            or self.sessions
            or self.where is not None
        )

    def reset(self) -> None:
        """Start a new file."""
        self._calls.clear()
        self.finding_lines = set()

    def __call__(self, msg: Message, dialect: Any = None, line: int = 0, path: str = "") -> bool:
        if isinstance(dialect, str):
            dialect = get_dialect(dialect)
        # the tool filter keeps state (the calls waiting for their results): it sees every
        # message, whatever the other filters say of it
        if self.tools and not self._uses_tool(msg, dialect):
            return False
        if self.roles and str(msg.role).lower() not in self.roles:
            return False
        if self.names and str(msg.name) not in self.names:
            return False
        if self.ids:
            hits = [prefix for prefix in self.ids if str(msg.id).startswith(prefix)]
            if not hits:
                return False
            for prefix in hits:
                self.matched.setdefault(prefix, set()).add(str(msg.id))
        if self.sessions and session_of(msg) not in self.sessions:
            return False
        if self.finish:
            reason = dialect.finish_reason(msg) if dialect is not None else None
            if not isinstance(reason, str) or reason.lower() not in self.finish:
                return False
        if (self.since is not None or self.until is not None) and not self._in_time(msg, dialect):
            return False
        if self.errors and not self._failed(msg, dialect, line):
            return False
        if self.patterns and not all(
            any(p.search(text) for text in message_texts(msg)) for p in self.patterns
        ):
            return False
        if self.where is not None:
            found = self.where.search(neutral(msg, dialect, path, line))
            if not _truthy(found):
                return False
        return True

    def _in_time(self, msg: Message, dialect: Any) -> bool:
        if dialect is None or msg.timestamp is None:
            return False
        when = dialect.parse_time(msg.timestamp)
        if when is None:
            return False
        when = _comparable(when)
        if self.since is not None and when < self.since:
            return False
        return not (self.until is not None and when > self.until)

    def _uses_tool(self, msg: Message, dialect: Any) -> bool:
        hit = False
        for block in msg.blocks():
            if isinstance(block, ToolCallBlock):
                if block.name in self.tools:
                    hit = True
                    if block.id is not None:
                        self._calls.add(_key(block.id, dialect))
            elif isinstance(block, ToolResultBlock):
                key = _key(block.id, dialect) if block.id is not None else None
                if key is not None and key in self._calls:
                    hit = True
                    if not isinstance(block.state, str) or block.state.lower() not in (
                        "running",
                        "in_progress",
                    ):
                        self._calls.discard(key)
                elif block.name in self.tools:
                    hit = True
        return hit

    def _failed(self, msg: Message, dialect: Any, line: int) -> bool:
        if line in self.finding_lines:
            return True
        if msg.fields.get("error") is not None:
            return True
        if dialect is not None and failed_finish(dialect.finish_reason(msg)):
            return True
        return any(
            isinstance(block, ToolResultBlock)
            and isinstance(block.state, str)
            and block.state.lower() in FAILED_STATES
            for block in msg.blocks()
        )


def _key(value: Any, dialect: Any) -> Any:
    if dialect is None or not isinstance(value, (str, int)):
        return value if isinstance(value, (str, int)) else repr(value)
    return dialect.pair_key(value)


def _truthy(value: Any) -> bool:
    """JMESPath's truth: everything but null, false and empty strings, lists and objects."""
    if value is None or value is False:
        return False
    return not (isinstance(value, (str, list, dict)) and not value)


def compile_where(text: str) -> Any:
    """A compiled JMESPath expression (:class:`FilterError` if it is not one)."""
    import jmespath
    from jmespath.exceptions import JMESPathError

    try:
        return jmespath.compile(text)
    except JMESPathError as exc:
        message = " ".join(str(exc).split())
        raise FilterError(f"--where: not a JMESPath expression: {message}") from None


# -- the neutral JSON form ---------------------------------------------------------------------


def neutral(msg: Message, dialect: Any = None, path: str = "", line: int = 0) -> dict:
    """A message in the dialect-neutral model as a JSON object: the same keys in every
    dialect (``--neutral`` output, and what ``--where`` expressions see).

    ``time`` is the creation time as written; ``finish_reason``, ``session`` and ``usage``
    (``input_tokens``, ``output_tokens``, ``cached_tokens``) are read the dialect's way;
    ``text`` is the message's own text blocks; ``content`` is the blocks, each with its
    neutral ``type`` and fields (a tool result's ``output`` nests its blocks).
    """
    if isinstance(dialect, str):
        dialect = get_dialect(dialect)
    usage = None
    if dialect is not None:
        counts = dialect.token_counts(msg)
        if counts is not None:
            usage = {
                "input_tokens": counts[0],
                "output_tokens": counts[1],
                "cached_tokens": counts[2],
            }
    elif msg.usage is not None:
        usage = {
            "input_tokens": msg.usage.input_tokens,
            "output_tokens": msg.usage.output_tokens,
            "cached_tokens": msg.usage.cached_tokens,
        }
    out: dict[str, Any] = {
        "file": name_text(path),
        "line": line,
        "dialect": msg.dialect,
        "variant": msg.variant,
        "id": msg.id,
        "role": msg.role,
        "name": msg.name,
        "time": msg.timestamp,
        "session": session_of(msg),
        "finish_reason": dialect.finish_reason(msg) if dialect is not None else None,
        "usage": usage,
        "text": message_text(msg),
        "content": [_block(b) for b in msg.content],
        "metadata": msg.metadata,
        "fields": msg.fields,
    }
    if msg.extra:
        out["extra"] = msg.extra
    return out


_SKIP = frozenset({"path", "extra"})


def _block(block: Block) -> dict:
    out: dict[str, Any] = {"type": block.type, "id": block.id}
    for f in fields(block):
        name = f.name
        if name in _SKIP or name in out:
            continue
        value = getattr(block, name)
        if name == "output" and isinstance(value, list):
            value = [_block(b) if isinstance(b, Block) else b for b in value]
        elif name == "source" and isinstance(block, DataBlock) and value is not None:
            value = {f2.name: getattr(value, f2.name) for f2 in fields(value)}
        out[name] = value
    out["pointer"] = pointer(block.path)
    if block.extra:
        out["extra"] = block.extra
    return out


# -- running a filter over logs ----------------------------------------------------------------


@dataclass(slots=True)
class Match:
    """A message a filter chose: where it is, in the neutral model and as the dialect's JSON."""

    path: str
    line: int
    message: Message
    raw: dict | None
    dialect: Any  # the Dialect that read it


def error_lines(source: Any, name: str, dialect: str | None = None) -> set[int]:
    """The lines of a log that ``msgcli validate`` finds an error on (all rules on)."""
    from .engine import Options, validate_file
    from .findings import ERROR

    report = validate_file(source, name=name, options=Options(dialect=dialect))
    return {f.line for f in report.findings if f.severity is ERROR}


class Selection:
    """Runs a :class:`Filter` over the logs that paths name (files, directories searched
    for logs, ``-``); event logs are replayed on the way.

    ``problems`` collects ``(path, line, message)`` for what could not be read: a path
    (line 0) or a line; ``unreadable`` counts the paths. ``redact``: secrets are masked in
    every record before it is read (``--redact``).
    """

    def __init__(
        self, flt: Filter | None = None, dialect: str | None = None, *, redact: bool = False
    ):
        self.filter = flt or Filter()
        self.dialect = dialect
        #: mask secrets in every record before it is read (``--redact``)
        self.redact = redact
        self.problems: list[tuple[str, int, str]] = []
        self.unreadable = 0
        self.matched = 0

    def run(self, paths: list[str]) -> Iterator[Match]:
        from .inputs import expand_paths
        from .reader import ReadError
        from .stream import LogReader

        flt = self.filter
        active = flt.active
        for name, source, problem in expand_paths(paths):
            if source is None:
                self.unreadable += 1
                why = "no such file or directory" if problem == "missing" else "no logs found"
                self.problems.append((name, 0, why))
                continue
            flt.reset()
            if flt.errors and str(source) != "-":
                flt.finding_lines = error_lines(source, name, self.dialect)
            reader = LogReader(name, self.dialect, self.redact)
            try:
                for item in reader.items(source):
                    msg = item.message
                    if msg is None:
                        self.problems.append((name, item.line, item.notice))
                        continue
                    if active and not flt(msg, reader.dialect, item.line, name):
                        continue
                    self.matched += 1
                    yield Match(name, item.line, msg, item.raw, reader.dialect)
            except ReadError as exc:
                self.unreadable += 1
                self.problems.append((name, 0, f"cannot read: {exc}"))
