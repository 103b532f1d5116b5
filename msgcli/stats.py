"""What happened in a log, counted: the numbers behind ``msgcli stats``.

:func:`collect_stats` reads every log it is given once, message by message
(event logs are replayed on the way, see :mod:`msgcli.stream`), and keeps
only counters: no message is held. Tool calls are paired with their results
by id across the whole file; the only state kept for that is the calls still
waiting for a result (and the ids of results that came before any call).

What is counted, per file and in total:

- messages by role and by sender name;
- messages that carry a structured output (AgentScope Python's
  ``structured_output``);
- blocks by neutral type (every block, those inside tool results too; the
  blocks inside tool results are also counted on their own, by type), and
  media blocks by family: ``image``, ``audio``, ``video`` or ``other``, from
  the block's own kind or else the major part of its media type;
- tool calls by tool name, and their results by state (``success``,
  ``error``, ``denied``, ``interrupted``, ``running``, LoongFlow's
  ``in_progress``, ...; ``unstated`` when the result has no state, as in
  AgentScope 1.x); a call that no result in the file answers counts as
  ``no_result``. A result is counted under the tool of the call it answers,
  or under its own tool name when it answers no waiting call;
- token usage summed over the messages that report it (see each dialect's
  ``token_counts`` for where it keeps it; LoongFlow's is in ``metadata.usage``);
- the time span: the earliest and the latest message time (a message's
  creation time, and the time a reply finished where the dialect records it);
- finish reasons as the messages record them (AgentScope Python's
  ``finished_reason``, AgentScope Java's ``agentscope_generate_reason``);
- for event logs, what the replay saw (:class:`msgcli.replayers.ReplayStats`):
  events by type, unknown event types, replies completed, parked and cut;
- lines that could not be read, and the stream errors the replay reported.

:meth:`StatsReport.to_dict` is the JSON document of ``msgcli stats --format
json`` (version 1; later versions may add keys, never rename or remove them).
"""

from __future__ import annotations

from collections import Counter, deque
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import IO, Any

from .dialects import EVENT, Dialect, get_dialect
from .dialects.base import is_number
from .model import DataBlock, Message, ToolCallBlock, ToolResultBlock
from .reader import ReadError, source_name
from .replayers import ReplayStats
from .stream import LogReader, open_log
from .textsafe import short

__all__ = [
    "MEDIA_FAMILIES",
    "FileStats",
    "StatsReport",
    "TokenTotals",
    "ToolStats",
    "collect_stats",
    "file_stats",
    "media_family",
]

#: the media families data blocks are counted in (anything else is ``other``)
MEDIA_FAMILIES = ("image", "audio", "video")
#: the state counted for a tool result that has none
UNSTATED = "unstated"

Number = int | float


def _key(value: Any) -> str:
    """A role, name or state as a counter key: the text itself, ``""`` for none,
    else the value as short JSON (a malformed record still counts)."""
    if isinstance(value, str):
        return value
    if value is None:
        return ""
    return short(value, 40)


def _ordered(counter: Counter) -> dict[str, int]:
    """Most frequent first; ties in the order first seen."""
    return dict(counter.most_common())


def media_family(block: DataBlock) -> str:
    """``image``, ``audio``, ``video`` or ``other``: the block's own kind when it names a
    family (AgentScope Java, Python 1.x), else the major type of its media type."""
    kind = block.kind
    if isinstance(kind, str) and kind in MEDIA_FAMILIES:
        return kind
    media_type = block.source.media_type if block.source is not None else None
    if isinstance(media_type, str):
        major = media_type.split("/", 1)[0].strip().lower()
        if major in MEDIA_FAMILIES:
            return major
    return "other"


@dataclass(slots=True)
class ToolStats:
    """One tool: how often it was called, and how the calls were answered."""

    calls: int = 0
    results: Counter = field(default_factory=Counter)  # state -> results
    no_result: int = 0  # calls no result in the file answers

    def add(self, other: ToolStats) -> None:
        self.calls += other.calls
        self.results.update(other.results)
        self.no_result += other.no_result

    def to_dict(self) -> dict:
        return {
            "calls": self.calls,
            "results": _ordered(self.results),
            "no_result": self.no_result,
        }


@dataclass(slots=True)
class TokenTotals:
    """Token counts summed over the messages that report usage."""

    input: Number = 0
    output: Number = 0
    cached: Number = 0
    messages: int = 0  # messages that report usage
    #: reasoning tokens (OpenAI's usage counts them apart, inside the output)
    reasoning: Number = 0

    def add_counts(self, counts: tuple[Any, Any, Any]) -> None:
        self.messages += 1
        inp, out, cached = counts
        if is_number(inp):
            self.input += inp
        if is_number(out):
            self.output += out
        if is_number(cached):
            self.cached += cached

    def add(self, other: TokenTotals) -> None:
        self.input += other.input
        self.output += other.output
        self.cached += other.cached
        self.messages += other.messages
        self.reasoning += other.reasoning

    def to_dict(self) -> dict:
        return {
            "input": _json_number(self.input),
            "output": _json_number(self.output),
            "cached": _json_number(self.cached),
            "messages": self.messages,
            **({"reasoning": _json_number(self.reasoning)} if self.reasoning else {}),
        }


def _add_details(mine: dict, theirs: dict) -> None:
    """Add one file's dialect counts to the totals: numbers summed, tables merged."""
    for key, value in theirs.items():
        if isinstance(value, dict):
            _add_details(mine.setdefault(key, {}), value)
        elif is_number(value):
            mine[key] = mine.get(key, 0) + value
        elif key not in mine:
            mine[key] = value


def _json_number(value: Number) -> Number:
    """An integer JSON writers can hold (64 bits), else the same count as a float."""
    if isinstance(value, int) and not -(2**63) <= value < 2**64:
        return float(value)
    return value


@dataclass(slots=True)
class FileStats:
    """The counts of one log (or, in :attr:`StatsReport.total`, of all of them)."""

    path: str
    dialect: str | None = None
    kind: str = "unknown"  # "messages", "events" or "unknown" (nothing recognised)
    readable: bool = True
    problem: str | None = None  # why the path could not be read (fully)
    records: int = 0
    unreadable_lines: int = 0
    stream_errors: int = 0
    messages: int = 0
    roles: Counter = field(default_factory=Counter)
    senders: Counter = field(default_factory=Counter)
    structured_outputs: int = 0
    blocks: Counter = field(default_factory=Counter)
    #: the blocks inside tool results' outputs (counted in ``blocks`` too)
    nested: Counter = field(default_factory=Counter)
    media: Counter = field(default_factory=Counter)
    tools: dict[str, ToolStats] = field(default_factory=dict)
    tokens: TokenTotals = field(default_factory=TokenTotals)
    finish_reasons: Counter = field(default_factory=Counter)
    #: earliest and latest message time: (parsed, as written)
    first_time: tuple[datetime, Any] | None = None
    last_time: tuple[datetime, Any] | None = None
    #: event logs: what the replay saw (``None`` for message logs)
    events: ReplayStats | None = None
    #: counts only one dialect has, under the dialect's key (``claude_code``); see
    #: :meth:`msgcli.dialects.base.Dialect.note_stats`
    details: dict | None = None
    #: a JSON document (a state file): where each message sits, ``(line, JSON pointer)``
    placed: list[tuple[int, str]] = field(default_factory=list)

    # -- derived ----------------------------------------------------------------

    def tool(self, name: str) -> ToolStats:
        stats = self.tools.get(name)
        if stats is None:
            stats = self.tools[name] = ToolStats()
        return stats

    @property
    def tool_calls(self) -> int:
        return sum(t.calls for t in self.tools.values())

    @property
    def tool_results(self) -> Counter:
        total: Counter = Counter()
        for t in self.tools.values():
            total.update(t.results)
        return total

    @property
    def no_result(self) -> int:
        return sum(t.no_result for t in self.tools.values())

    @property
    def seconds(self) -> float | None:
        """From the earliest to the latest message time, in seconds."""
        if self.first_time is None or self.last_time is None:
            return None
        return round((self.last_time[0] - self.first_time[0]).total_seconds(), 6)

    # -- building ---------------------------------------------------------------

    def see_time(self, when: datetime, written: Any) -> None:
        try:
            if self.first_time is None or when < self.first_time[0]:
                self.first_time = (when, written)
            if self.last_time is None or when > self.last_time[0]:
                self.last_time = (when, written)
        except TypeError:  # a time with a zone against one without: not comparable
            return

    def add(self, other: FileStats) -> None:
        """Add another file's counts to these (for the totals)."""
        self.records += other.records
        self.unreadable_lines += other.unreadable_lines
        self.stream_errors += other.stream_errors
        self.messages += other.messages
        self.roles.update(other.roles)
        self.senders.update(other.senders)
        self.blocks.update(other.blocks)
        self.nested.update(other.nested)
        self.structured_outputs += other.structured_outputs
        self.media.update(other.media)
        for name, tool in other.tools.items():
            self.tool(name).add(tool)
        self.tokens.add(other.tokens)
        self.finish_reasons.update(other.finish_reasons)
        if other.first_time is not None:
            self.see_time(*other.first_time)
        if other.last_time is not None:
            self.see_time(*other.last_time)
        if other.events is not None:
            if self.events is None:
                self.events = ReplayStats()
            mine, theirs = self.events, other.events
            mine.events += theirs.events
            mine.by_type.update(theirs.by_type)
            mine.unknown.update(theirs.unknown)
            mine.messages += theirs.messages
            mine.completed += theirs.completed
            mine.parked += theirs.parked
            mine.cut += theirs.cut
            mine.finished_reasons.update(theirs.finished_reasons)
        if other.details is not None:
            if self.details is None:
                self.details = {}
            _add_details(self.details, other.details)

    # -- output -----------------------------------------------------------------

    def counts_dict(self) -> dict:
        """Every count, without what names the file (the shape of the totals)."""
        tools = self.tools
        names = sorted(tools, key=lambda n: (-tools[n].calls, -sum(tools[n].results.values())))
        return {
            "records": self.records,
            "unreadable_lines": self.unreadable_lines,
            "stream_errors": self.stream_errors,
            "messages": {
                "total": self.messages,
                "by_role": _ordered(self.roles),
                "by_sender": _ordered(self.senders),
                "structured_outputs": self.structured_outputs,
            },
            "blocks": {
                "by_type": _ordered(self.blocks),
                "in_tool_results": _ordered(self.nested),
                "media": _ordered(self.media),
            },
            "tools": {
                "calls": self.tool_calls,
                "results": _ordered(self.tool_results),
                "no_result": self.no_result,
                "by_tool": {name: tools[name].to_dict() for name in names},
            },
            "tokens": self.tokens.to_dict(),
            "time": {
                "first": None if self.first_time is None else self.first_time[1],
                "last": None if self.last_time is None else self.last_time[1],
                "seconds": self.seconds,
            },
            "finish_reasons": _ordered(self.finish_reasons),
            "events": None if self.events is None else self.events.to_dict(),
            **(self.details or {}),
        }

    def to_dict(self) -> dict:
        return {
            "path": self.path,
            "dialect": self.dialect,
            "kind": self.kind,
            "readable": self.readable,
            "problem": self.problem,
            **self.counts_dict(),
            **(
                {"document": [{"line": line, "pointer": ptr} for line, ptr in self.placed]}
                if self.placed
                else {}
            ),
        }


@dataclass(slots=True)
class StatsReport:
    """The counts of every file, and their totals."""

    files: list[FileStats] = field(default_factory=list)
    total: FileStats = field(default_factory=lambda: FileStats(path=""))

    @property
    def unreadable(self) -> int:
        return sum(1 for f in self.files if not f.readable)

    @property
    def exit_code(self) -> int:
        """0, or 2 when a path could not be read (as for ``msgcli validate``)."""
        return 2 if self.unreadable else 0

    def add(self, stats: FileStats) -> None:
        self.files.append(stats)
        self.total.add(stats)

    def dialects(self) -> dict[str, int]:
        found: Counter = Counter(f.dialect for f in self.files if f.dialect)
        return _ordered(found)

    def to_dict(self) -> dict:
        return {
            "version": 1,
            "files": [f.to_dict() for f in self.files],
            "total": {
                "files": len(self.files),
                "unreadable": self.unreadable,
                "dialects": self.dialects(),
                **self.total.counts_dict(),
            },
            "exit_code": self.exit_code,
        }


class _Collector:
    """The counting of one file while it is read."""

    __slots__ = ("_early", "_waiting", "stats")

    def __init__(self, stats: FileStats):
        self.stats = stats
        # call key -> tool names of the calls with that id still waiting, oldest first
        self._waiting: dict[Any, deque[str]] = {}
        # call key -> results with that id that came when no call was waiting for them
        self._early: Counter = Counter()

    def message(self, msg: Message, dialect: Dialect) -> None:
        stats = self.stats
        stats.messages += 1
        stats.roles[_key(msg.role)] += 1
        stats.senders[_key(msg.name)] += 1
        usage = dialect.token_counts(msg)
        if usage is not None:
            stats.tokens.add_counts(usage)
            reasoning = msg.fields.get("reasoning_tokens")
            if reasoning is not None and is_number(reasoning):
                stats.tokens.reasoning += reasoning
        if dialect.stats_details:
            if stats.details is None:
                stats.details = {}
            dialect.note_stats(msg, stats.details)
        reason = dialect.finish_reason(msg)
        if reason is not None:
            stats.finish_reasons[_key(reason)] += 1
        for value in (msg.timestamp, msg.fields.get("finished_at")):
            if value is not None:
                when = dialect.parse_time(value)
                if when is not None:
                    stats.see_time(when, value)
        if msg.fields.get("structured_output") is not None:
            stats.structured_outputs += 1
        for block in msg.blocks():
            stats.blocks[_key(block.type)] += 1
            if isinstance(block, ToolResultBlock) and isinstance(block.output, list):
                for inner in block.output:
                    _count_nested(stats.nested, inner)
            if isinstance(block, ToolCallBlock):
                self._call(block, dialect)
            elif isinstance(block, ToolResultBlock):
                self._result(block, dialect)
            elif isinstance(block, DataBlock):
                stats.media[media_family(block)] += 1

    def _pair_key(self, value: Any, dialect: Dialect) -> Any:
        if value is None or value == "" or not isinstance(value, (str, int)):
            return None
        key = dialect.pair_key(value)
        return key if isinstance(key, (str, int)) else None

    def _call(self, block: ToolCallBlock, dialect: Dialect) -> None:
        name = _key(block.name)
        tool = self.stats.tool(name)
        tool.calls += 1
        key = self._pair_key(block.id, dialect)
        if key is None:
            tool.no_result += 1  # nothing can answer a call without an id
            return
        if self._early[key]:
            # its result came first (validate reports that): the call is answered
            self._early[key] -= 1
            if not self._early[key]:
                del self._early[key]
            return
        self._waiting.setdefault(key, deque()).append(name)

    def _result(self, block: ToolResultBlock, dialect: Dialect) -> None:
        state = UNSTATED if block.state is None else _key(block.state)
        key = self._pair_key(block.id, dialect)
        waiting = self._waiting.get(key) if key is not None else None
        if waiting:
            name = waiting.popleft()
            if not waiting:
                del self._waiting[key]
        else:
            name = _key(block.name)
            if key is not None:
                self._early[key] += 1
        self.stats.tool(name).results[state] += 1

    def notice(self, code: str) -> None:
        stats = self.stats
        if code.startswith("P"):
            stats.unreadable_lines += 1
            if code == "P009":  # a gzip stream that breaks off
                stats.readable = False
                stats.problem = "the compressed stream breaks off"
        else:
            stats.stream_errors += 1

    def finish(self, reader: LogReader, source: str | None = None) -> FileStats:
        """The counts once the file is read; ``source`` is where it was read from (the
        dialect looks beside it: a Claude Code session's subagent files), by default its
        name."""
        stats = self.stats
        for names in self._waiting.values():
            for name in names:
                stats.tool(name).no_result += 1
        self._waiting.clear()
        self._early.clear()
        stats.records = reader.records
        if reader.dialect is not None and reader.kind is not None:
            stats.dialect = reader.dialect.name
            stats.kind = "events" if reader.kind == EVENT else "messages"
        if reader.replayer is not None:
            stats.events = reader.replayer.stats
        if reader.dialect is not None and reader.dialect.stats_details:
            if stats.details is None:
                stats.details = {}
            reader.dialect.finish_stats(source or stats.path, stats.details, file_stats)
        return stats


def file_stats(
    source: str | Path | IO[bytes], name: str | None = None, dialect: str | None = None
) -> FileStats:
    """The counts of one log: a path, ``-`` for standard input, or a binary stream."""
    if name is None:
        name = source_name(source)
    from .engine import Options

    reader = open_log(source, Options(dialect=dialect), name=name)
    collector = _Collector(FileStats(path=name))
    try:
        for item in reader:
            if item.message is not None:
                assert reader.dialect is not None
                collector.message(item.message, reader.dialect)
                if item.where:
                    collector.stats.placed.append((item.line, item.where))
            else:
                collector.notice(item.code)
    except ReadError as exc:
        collector.stats.readable = False
        collector.stats.problem = f"cannot read: {exc}"
    return collector.finish(reader, str(source) if isinstance(source, (str, Path)) else None)


def collect_stats(paths: Iterable[str | Path], dialect: str | None = None) -> StatsReport:
    """The counts of every log the paths name (files, directories searched for logs,
    ``-`` for standard input), and their totals."""
    from .inputs import expand_paths

    if dialect is not None:
        get_dialect(dialect)  # an unknown name fails here, before any file is read
    found: list[FileStats] = []
    for name, source, problem in expand_paths(paths):
        if source is None:
            why = (
                "the directory holds no log files"
                if problem == "no-logs"
                else "cannot read: no such file or directory"
            )
            found.append(FileStats(path=name, readable=False, problem=why))
            continue
        found.append(file_stats(source, name=name, dialect=dialect))
    report = StatsReport()
    for stats in without_nested(found):
        report.add(stats)
    return report


def without_nested(files: list[FileStats]) -> list[FileStats]:
    """The files of a run less those a session of the same run already counts: a Claude Code
    subagent file (and its ``.meta.json``) whose session is among the files, and counts it
    under ``claude_code.subagents``, is not counted a second time as a file of its own."""
    from .dialects.claude_code.subagents import counted_by_sessions

    folded = counted_by_sessions(
        [(f.path, (f.details or {}).get("claude_code")) for f in files if f.readable]
    )
    return [f for f in files if f.path not in folded] if folded else files


def _count_nested(counter: Counter, block: Any) -> None:
    """Count a block inside a tool result's output, and what it holds in turn."""
    counter[_key(getattr(block, "type", None))] += 1
    if isinstance(block, ToolResultBlock) and isinstance(block.output, list):
        for inner in block.output:
            _count_nested(counter, inner)
