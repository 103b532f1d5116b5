"""Comparing two conversations: ``msgcli diff`` and :func:`msgcli.diff`.

Both logs are read into the dialect-neutral model (event logs are replayed on the
way), so two logs of different dialects compare as the conversations they hold.
Each message becomes one or more *steps*: AgentScope Python keeps a tool result
inside the message that made the call, AgentScope Java and LoongFlow write it as a
message of its own, so every tool result is a step of its own (role ``tool``, the
sender of the message it came from) and the two shapes compare equal.

A step is compared by what a user sees: role, sender, and its blocks in order (text,
thinking, hints, tool calls by name and arguments as JSON values, tool results by
name, state and output, media by type and digest). Ids, times, token usage and
metadata are left out unless asked for (``compare``); ``ignore_paths`` leaves out
fields by their neutral JSON pointer (``/metadata/session_id``, globs allowed).

Steps are aligned by a longest common subsequence (Myers' algorithm) over a key
(role, sender, block kinds, tool names), so one inserted message is one insertion;
aligned steps whose values differ are *changed*, field by field.
"""

from __future__ import annotations

import gc
import hashlib
import os
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field, replace
from fnmatch import fnmatchcase
from pathlib import Path
from typing import IO, Any

import orjson

from .dialects import DIALECTS
from .guard import deep_recursion, json_text
from .model import (
    Block,
    DataBlock,
    EvolveResultBlock,
    HintBlock,
    Message,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
    ToolResultBlock,
    UnknownBlock,
    ValueBlock,
    pointer,
)
from .textsafe import named

__all__ = [
    "COMPARABLE",
    "MATCHES",
    "DiffError",
    "DiffResult",
    "Difference",
    "Side",
    "Step",
    "diff",
    "read_steps",
]

MATCHES = ("strict", "tools", "unordered", "subset")
#: what is left out unless asked for
COMPARABLE = ("usage", "ids", "times", "metadata")
#: the metadata key where ``msgcli convert`` keeps what a dialect has no place for: never compared
_CARRY_KEY = "_msgcli"
#: beyond this many edits the middle of two logs is paired in order (bounded time)
_MAX_EDITS = 4000


_TIME = re.compile(r"\d{4}-\d\d-\d\d[T ]\d\d:\d\d(?::\d\d(?:\.\d+)?)?(?:Z|[+-]\d\d:?\d\d)?")


class DiffError(Exception):
    """A log that cannot be compared at all (missing, unreadable, not a log)."""


# -- steps -------------------------------------------------------------------------


@dataclass(slots=True)
class Side:
    """Where a difference is in one log: file, line, and JSON pointer into that record."""

    path: str
    line: int
    pointer: str = ""

    def as_dict(self) -> dict[str, Any]:
        return {"path": self.path, "line": self.line, "pointer": self.pointer}


@dataclass(slots=True)
class Step:
    """One compared unit: a message, the part of one before or after a tool result, a
    tool result, or (``match="tools"``) one tool call.

    Only the key and a digest of the compared value are kept; the value itself is made
    again from the blocks when a difference needs it (``value``), so a long log costs
    little more memory than its messages."""

    path: str
    line: int
    message: Message
    blocks: list[Block]
    role: Any  # the step's role ("tool" for a tool result); None for a tool call (tools)
    opts: _Opts
    key: Any = None
    digest: bytes = b""
    #: the first step of its message (the one that carries the message's usage and metadata)
    first: bool = True

    @property
    def value(self) -> dict[str, Any]:
        """What is compared, as JSON values (made again on each use)."""
        return _step_value(self)

    def label(self) -> str:
        """``assistant Friday`` / ``tool call get_weather``: what a reader recognises (a
        role or a name a record holds as another JSON value, however deep, named short)."""
        if self.role is None:
            return f"tool call {named(self.blocks[0].name) or '(no name)'}"  # type: ignore[attr-defined]
        if self.role == "tool":
            tools = [getattr(b, "name", None) for b in self.blocks]
            return "tool result" + "".join(f" {named(t)}" for t in tools if t is not None)
        name = _name(self.message.name)
        # a message without a role is labelled as the text view heads it ("?")
        return (named(self.role) or "?") + (f" {named(name)}" if name is not None else "")

    def record_pointer(self, neutral: str) -> str:
        """The JSON pointer in the record of a compared field (as near as the record has it)."""
        parts = neutral.split("/")[1:]
        if self.role is None:  # a tool call: its fields are the call's
            block: Any = self.blocks[0]
            rest = parts
        elif len(parts) >= 2 and parts[0] == "content" and parts[1].isdecimal():
            index = int(parts[1])
            if index >= len(self.blocks):
                return ""
            block, rest = self.blocks[index], parts[2:]
        elif self.role == "tool" and self.blocks:
            return pointer(self.blocks[0].path)
        else:
            return ""
        if isinstance(block, ToolCallBlock) and rest and rest[0] == "arguments":
            key = "input" if block.arguments is None else _arguments_key(self.message.dialect)
            if _arguments(block)[1]:  # an object in the record: point into it
                return pointer(block.path, key) + "".join("/" + p for p in rest[1:])
            return pointer(block.path, key)
        return pointer(block.path)


def _media(block: DataBlock) -> dict[str, Any]:
    global _media_type_of
    if _media_type_of is None:
        from .converters.text import media_type_of

        _media_type_of = media_type_of
    source = block.source
    media_type = _media_type_of(block)
    out: dict[str, Any] = {"kind": media_type.split("/", 1)[0] or "data", "media_type": media_type}
    if source is not None and isinstance(source.data, str):
        body = re.sub(r"\s+", "", source.data).encode()
        out["digest"] = "sha256:" + hashlib.sha256(body).hexdigest()
    elif source is not None and source.url is not None:
        out["url"] = source.url
    return out


_media_type_of: Any = None


def _arguments(block: ToolCallBlock) -> tuple[Any, bool]:
    """The arguments as a JSON value, and whether the record holds them as an object."""
    if block.arguments is not None:
        return block.arguments, True
    value = block.input
    if isinstance(value, str):
        if not value.strip():
            return {}, False
        try:
            return orjson.loads(value), False
        except orjson.JSONDecodeError:
            return value, False  # not JSON: compared as the text it is
    return ({} if value is None else value), isinstance(value, dict)


def _block_value(block: Any, opts: _Opts) -> dict[str, Any]:
    if isinstance(block, TextBlock):
        value: dict[str, Any] = {"kind": "text", "text": block.text}
    elif isinstance(block, ThinkingBlock):
        value = {"kind": "thinking", "thinking": block.thinking}
    elif isinstance(block, HintBlock):
        hint = block.hint
        if not opts.times and isinstance(hint, str):
            # AgentScope's runtime-state hint tells the model the current time: a time
            # like any other, left out unless times are compared
            hint = _TIME.sub("<time>", hint)
        value = {"kind": "hint", "hint": hint}
    elif isinstance(block, ToolCallBlock):
        value = {"kind": "tool_call", "name": block.name, "arguments": _arguments(block)[0]}
    elif isinstance(block, ToolResultBlock):
        output = block.output
        if isinstance(output, list):
            items = [_block_value(b, opts) if isinstance(b, Block) else b for b in output]
        elif output is None or output == "":
            items = []
        else:
            items = [{"kind": "text", "text": output}]
        value = {"kind": "tool_result", "name": block.name}
        if block.state is not None:  # AgentScope Python 1.x records no state
            value["state"] = block.state.lower() if isinstance(block.state, str) else block.state
        value["output"] = items
    elif isinstance(block, DataBlock):
        value = _media(block)
    elif isinstance(block, ValueBlock):
        value = {"kind": "value", "mime_type": block.mime_type, "value": block.value}
    elif isinstance(block, EvolveResultBlock):
        value = {"kind": "evolve_result", "fields": dict(block.fields)}
    elif isinstance(block, UnknownBlock):
        value = {"kind": str(block.type), "raw": block.raw}
    else:
        value = {"kind": str(getattr(block, "type", "unknown"))}
    if opts.ids and isinstance(block, (ToolCallBlock, ToolResultBlock)) and block.id is not None:
        value["id"] = block.id
    if opts.times:
        for name in ("created_at", "finished_at"):
            if name in block.fields:
                value[name] = block.fields[name]
    return value


@dataclass(slots=True)
class _Opts:
    ids: bool = False
    times: bool = False
    usage: bool = False
    metadata: bool = False
    unordered: bool = False
    ignore: tuple[str, ...] = ()


def _usage(msg: Message) -> dict[str, Any] | None:
    usage = msg.usage
    if usage is None:
        return None
    out = {
        k: getattr(usage, k)
        for k in ("input_tokens", "output_tokens", "cached_tokens", "cache_creation_tokens")
        if getattr(usage, k) is not None
    }
    return out or None


def _metadata(msg: Message) -> Any:
    metadata = msg.metadata
    if isinstance(metadata, dict) and _CARRY_KEY in metadata:
        metadata = {k: v for k, v in metadata.items() if k != _CARRY_KEY}
    return metadata or None


def _system_tool_results(dialect: Any) -> bool:
    found = DIALECTS.get(dialect) if isinstance(dialect, str) else None
    return found is not None and found.system_tool_results


def _is_tool_message(msg: Message, role: Any) -> bool:
    """A message that only answers tool calls (Java ``TOOL``, LoongFlow ``tool``, Python
    1.x ``system``), as the converters group them."""
    if role != "tool" and (role != "system" or not _system_tool_results(msg.dialect)):
        return False
    content = msg.content
    return bool(content) and all(type(b) is ToolResultBlock for b in content)


def _name(value: Any) -> Any:
    return None if value == "" else value


def _steps_of(path: str, line: int, msg: Message, opts: _Opts) -> Iterator[Step]:
    """The steps of one message: tool results split out, in order."""
    role = msg.role.lower() if isinstance(msg.role, str) else msg.role
    if role is None:  # (no role, or null: a step whose role is None is a tool call's)
        role = ""
    if _is_tool_message(msg, role):
        role = "tool"
    first = True
    current: list[Block] = []
    for block in msg.content:
        if type(block) is ToolResultBlock:
            if current:
                yield _finish(Step(path, line, msg, current, role, opts, first=first))
                first = False
                current = []
            yield _finish(Step(path, line, msg, [block], "tool", opts, first=first))
            first = False
        else:
            current.append(block)
    if current or first:
        yield _finish(Step(path, line, msg, current, role, opts, first=first))


def _tool_steps(path: str, line: int, msg: Message, opts: _Opts) -> Iterator[Step]:
    """``match="tools"``: a step per tool call, by name and arguments only."""
    for block in msg.content:
        if isinstance(block, ToolCallBlock):
            yield _finish(Step(path, line, msg, [block], None, opts))


_KEYS: dict[Any, Any] = {}


def _finish(step: Step) -> Step:
    """The step with its key (shared among equal keys) and the digest of its value."""
    value = _step_value(step)
    if step.role is None:
        key: Any = ("call", _hashable(step.blocks[0].name))  # type: ignore[attr-defined]
    else:
        blocks = step.blocks
        kinds: tuple = tuple(type(b).__name__ for b in blocks)
        tools: tuple = tuple(
            _hashable(getattr(b, "name", None))
            for b in blocks
            if type(b) in (ToolCallBlock, ToolResultBlock)
        )
        if step.opts.unordered:
            kinds, tools = tuple(sorted(kinds)), tuple(sorted(map(str, tools)))
        who = _hashable(_name(step.message.name)) if step.role != "tool" else None
        key = (_hashable(step.role), who, kinds, tools)
    step.key = _KEYS.setdefault(key, key) if len(_KEYS) < 100_000 else key
    step.digest = hashlib.blake2b(_dump(value), digest_size=16).digest()
    return step


def _step_value(step: Step) -> dict[str, Any]:
    opts = step.opts
    if step.role is None:  # match="tools": a call
        block: Any = step.blocks[0]
        value: dict[str, Any] = {"name": block.name, "arguments": _arguments(block)[0]}
        if opts.ids and block.id is not None:
            value["id"] = block.id
        return _ignoring(value, opts.ignore) if opts.ignore else value
    msg = step.message
    # a tool result is the tool's answer: which message holds it (and so its sender)
    # is the dialect's way of writing it, not part of the conversation
    value = {"role": step.role}
    if step.role != "tool":
        value["name"] = _name(msg.name)
    content = [_block_value(b, opts) for b in step.blocks]
    value["content"] = _sorted_calls(content) if opts.unordered else content
    if step.first:  # what belongs to the whole message is compared once, on its first step
        if opts.ids and msg.id is not None:
            value["id"] = msg.id
        if opts.times and msg.timestamp is not None:
            value["timestamp"] = msg.timestamp
        if opts.usage:
            usage = _usage(msg)
            if usage is not None:
                value["usage"] = usage
        if opts.metadata:
            metadata = _metadata(msg)
            if metadata is not None:
                value["metadata"] = metadata
    return _ignoring(value, opts.ignore) if opts.ignore else value


def _sorted_calls(content: list[dict]) -> list[dict]:
    """The tool calls of a step in a canonical order, in the places calls take."""
    places = [i for i, c in enumerate(content) if c.get("kind") == "tool_call"]
    if len(places) < 2:
        return content
    calls = sorted((content[i] for i in places), key=_dump)
    out = list(content)
    for i, call in zip(places, calls, strict=False):
        out[i] = call
    return out


def _hashable(value: Any) -> Any:
    try:
        hash(value)
        return value
    except TypeError:
        return json_text(value)  # (a list or an object, nested as deep as the reader takes)


def _dump(value: Any) -> bytes:
    try:
        return orjson.dumps(value, option=orjson.OPT_SORT_KEYS | orjson.OPT_NON_STR_KEYS)
    except TypeError:  # nested past orjson's 255 levels
        return json_text(value).encode()


def _ignoring(value: Any, patterns: tuple[str, ...]) -> Any:
    """``value`` without the fields ``--ignore-path`` names (a walk with room for values
    nested as deep as the reader takes)."""
    with deep_recursion():
        return _without(value, patterns)


def _without(value: Any, patterns: tuple[str, ...], at: str = "") -> Any:
    """``value`` without the fields whose neutral pointer matches a pattern."""
    if isinstance(value, dict):
        out = {}
        for k, v in value.items():
            here = f"{at}/{_escape(str(k))}"
            if any(fnmatchcase(here, p) for p in patterns):
                continue
            kept = _without(v, patterns, here)
            if kept in ({}, []) and v not in ({}, []):
                continue  # emptied by what is ignored: as if it were not there
            out[k] = kept
        return out
    if isinstance(value, list):
        out_list = []
        for i, v in enumerate(value):
            here = f"{at}/{i}"
            if any(fnmatchcase(here, p) for p in patterns):
                continue
            out_list.append(_without(v, patterns, here))
        return out_list
    return value


def _escape(part: str) -> str:
    return part.replace("~", "~0").replace("/", "~1")


# -- reading -----------------------------------------------------------------------

Source = str | Path | IO[bytes]


def _messages(
    source: Any, name: str, dialect: str | None, problems: list[str], redact: bool = False
) -> Iterator[tuple[int, Message]]:
    """``(line, message)`` of a log (replayed when it is an event log), or of a list of
    messages or dialect records. What cannot be read becomes a located problem. With
    ``redact``, secrets are masked in every record before it is read (a log's, and each
    dialect record of a list)."""
    if isinstance(source, (list, tuple)):
        from .dialects import classify, get_dialect

        chosen = get_dialect(dialect) if dialect else None
        for index, entry in enumerate(source, 1):
            if isinstance(entry, Message):
                yield index, entry
                continue
            if isinstance(entry, tuple) and len(entry) == 2 and isinstance(entry[1], Message):
                yield entry  # (line, message), as read_messages gives them
                continue
            if not isinstance(entry, dict):
                problems.append(f"{name}:{index}: not a message: {type(entry).__name__}")
                continue
            if redact:
                from .redact import redact_record

                entry = redact_record(entry)
            found = chosen or (classify(entry) or (None,))[0]
            if found is None or found.classify(entry) != "message":
                problems.append(f"{name}:{index}: not a message of a known dialect")
                continue
            yield index, found.read(entry)
        return
    from .engine import Options
    from .reader import ReadError
    from .stream import SKIP, open_log

    if isinstance(source, (str, Path)) and str(source) != "-":
        path = Path(source)
        if path.is_dir():
            raise DiffError(f"{name}: is a directory, not a log")
        if not path.exists():
            raise DiffError(f"{name}: no such file")
    reader = open_log(source, Options(dialect=dialect, redact=redact), name=name, others=SKIP)
    seen = 0
    try:
        for item in reader:
            if item.message is None:
                problems.append(f"{name}:{item.line}: {item.code} {item.notice}")
                continue
            seen += 1
            yield item.line, item.message
    except (ReadError, OSError) as exc:
        raise DiffError(f"{name}: cannot read: {exc}") from None
    if not seen and reader.skipped and reader.dialect is None:
        raise DiffError(f"{name}: no message of a known dialect: not a message or event log")


def read_steps(
    source: Any,
    name: str | None = None,
    *,
    dialect: str | None = None,
    match: str = "strict",
    compare: Iterable[str] = (),
    ignore_paths: Iterable[str] = (),
    problems: list[str] | None = None,
    redact: bool = False,
) -> list[Step]:
    """The compared steps of a log (a path, ``-``, a binary stream, or a list of
    :class:`~msgcli.model.Message` or dialect records), secrets masked with ``redact``."""
    opts = _options(match, compare, ignore_paths)
    if name is None:
        name = str(source) if isinstance(source, (str, Path)) else "<messages>"
    found: list[str] = [] if problems is None else problems
    make = _tool_steps if match == "tools" else _steps_of
    steps: list[Step] = []
    for line, msg in _turns(_messages(source, name, dialect, found, redact)):
        steps.extend(make(name, line, msg, opts))
    if opts.unordered:
        _sort_result_runs(steps)
    return steps


def _arguments_key(dialect: Any) -> str:
    """The record's key of a tool call's arguments object, in this dialect."""
    from .dialects import DIALECTS

    known = DIALECTS.get(dialect)
    return known.tool_arguments_key if known is not None else "arguments"


def _turns(messages: Iterable[tuple[int, Message]]) -> Iterator[tuple[int, Message]]:
    """The messages, those a dialect writes as parts of one reply joined into one (at the
    line of the first), so that a reply compares equal across dialects."""
    from .dialects import DIALECTS

    held: tuple[int, Message] | None = None
    joined = False
    for line, msg in messages:
        if held is not None and held[1].dialect == msg.dialect:
            known = DIALECTS.get(msg.dialect)
            if known is not None and known.same_turn(held[1], msg):
                if not joined:  # a copy: the message read is left as it was
                    first = held[1]
                    held = (held[0], replace(first, content=list(first.content)))
                    joined = True
                held[1].content.extend(msg.content)
                if held[1].usage is None:  # a response's usage comes with its last item
                    held[1].usage = msg.usage
                continue
        if held is not None:
            yield held
        held, joined = (line, msg), False
    if held is not None:
        yield held


def _sort_result_runs(steps: list[Step]) -> None:
    """``match="unordered"``: the results of calls made together, in a canonical order."""
    i = 0
    while i < len(steps):
        if steps[i].role != "tool":
            i += 1
            continue
        j = i
        while j < len(steps) and steps[j].role == "tool":
            j += 1
        if j - i > 1:
            steps[i:j] = sorted(steps[i:j], key=lambda s: s.digest)
        i = j


def _options(match: str, compare: Iterable[str], ignore_paths: Iterable[str]) -> _Opts:
    if match not in MATCHES:
        raise ValueError(f"unknown match mode {match!r}: pick one of {', '.join(MATCHES)}")
    wanted = set()
    for entry in compare:
        for part in str(entry).split(","):
            part = part.strip()
            if not part:
                continue
            if part not in COMPARABLE:
                raise ValueError(f"cannot compare {part!r}: pick from {', '.join(COMPARABLE)}")
            wanted.add(part)
    patterns = []
    for entry in ignore_paths:
        text = str(entry).strip()
        if not text:
            continue
        patterns.append(text if text.startswith("/") else "/" + text)
    return _Opts(
        ids="ids" in wanted,
        times="times" in wanted,
        usage="usage" in wanted,
        metadata="metadata" in wanted,
        unordered=match == "unordered",
        ignore=tuple(patterns),
    )


# -- alignment ---------------------------------------------------------------------


def _align(a: list[Any], b: list[Any]) -> list[tuple[int, int]]:
    """The index pairs of a longest common subsequence of ``a`` and ``b`` (Myers' O(ND)),
    after the common start and end are taken off."""
    n, m = len(a), len(b)
    start = 0
    while start < n and start < m and a[start] == b[start]:
        start += 1
    end = 0
    while end < n - start and end < m - start and a[n - 1 - end] == b[m - 1 - end]:
        end += 1
    pairs = [(i, i) for i in range(start)]
    pairs.extend(_myers(a[start : n - end], b[start : m - end], start))
    pairs.extend((n - end + k, m - end + k) for k in range(end))
    return pairs


def _myers(a: list[Any], b: list[Any], offset: int) -> list[tuple[int, int]]:
    n, m = len(a), len(b)
    if not n or not m:
        return []
    limit = min(n + m, _MAX_EDITS)
    size = 2 * limit + 2
    v = [0] * size
    trace: list[list[int]] = []
    found = False
    for d in range(limit + 1):
        trace.append(v[:])
        for k in range(-d, d + 1, 2):
            x = v[k + 1] if k == -d or (k != d and v[k - 1] < v[k + 1]) else v[k - 1] + 1
            y = x - k
            while x < n and y < m and a[x] == b[y]:
                x += 1
                y += 1
            v[k] = x
            if x >= n and y >= m:
                found = True
                break
        if found:
            break
    if not found:  # too different to align in bounded time: pair the equal keys in order
        return _greedy(a, b, offset)
    pairs: list[tuple[int, int]] = []
    x, y = n, m
    for d in range(len(trace) - 1, -1, -1):
        vd = trace[d]
        k = x - y
        if d == 0:
            while x > 0 and y > 0:
                x, y = x - 1, y - 1
                pairs.append((x + offset, y + offset))
            break
        prev_k = k + 1 if k == -d or (k != d and vd[k - 1] < vd[k + 1]) else k - 1
        prev_x = vd[prev_k]
        prev_y = prev_x - prev_k
        while x > prev_x and y > prev_y:
            x, y = x - 1, y - 1
            pairs.append((x + offset, y + offset))
        x, y = prev_x, prev_y
    pairs.reverse()
    return pairs


def _greedy(a: list[Any], b: list[Any], offset: int) -> list[tuple[int, int]]:
    pairs = []
    j = 0
    for i, key in enumerate(a):
        for jj in range(j, min(len(b), j + 50)):
            if b[jj] == key:
                pairs.append((i + offset, jj + offset))
                j = jj + 1
                break
    return pairs


# -- the result --------------------------------------------------------------------


@dataclass(slots=True)
class Difference:
    """One difference: a step ``added`` in B, ``removed`` from A, or one field ``changed``.

    ``a`` and ``b`` are where it is in each log; for a step only one log has, the other
    side is where it would be (the line of the next step there, no pointer).

    ``field`` is the neutral JSON pointer of the changed field within the step
    (``/content/2/arguments/city``; empty for a whole step); ``old``/``new`` are the
    values in A and B (the whole step's compared value for an added or removed step).
    """

    kind: str
    a: Side | None
    b: Side | None
    field: str = ""
    old: Any = None
    new: Any = None
    label: str = ""
    tool_call: bool = False

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "kind": self.kind,
            "what": self.label,
            "a": self.a.as_dict() if self.a is not None else None,
            "b": self.b.as_dict() if self.b is not None else None,
        }
        if self.kind == "changed":
            out["field"] = self.field
            out["old"] = self.old
            out["new"] = self.new
        elif self.kind == "removed":
            out["old"] = self.old
        else:
            out["new"] = self.new
        return out

    def describe(self) -> str:
        """One line for a reader (and for a GitHub annotation)."""
        if self.kind == "changed":
            if isinstance(self.old, str) and isinstance(self.new, str):
                return f"{self.label}: {self.field} changed: {word_changes(self.old, self.new)}"
            return (
                f"{self.label}: {self.field or '/'} changed from {_short(self.old)} "
                f"to {_short(self.new)}"
            )
        if self.kind == "removed":
            where = f"line {self.a.line} of A" if self.a is not None else "A"
            return f"{self.label} ({where}) is missing: {preview(self.old)}"
        return f"{self.label} added: {preview(self.new)}"


_WORDS = re.compile(r"\w+\s*|[^\w\s]\s*|\s+")


def words(text: str) -> list[str]:
    """A text cut into words and single signs, each with the white space after it (for
    word diffs)."""
    return _WORDS.findall(text)


#: how many words (or lines) the differing middle of two texts may have to be matched word
#: by word; a longer one is one change (matching takes time quadratic in it, minutes for
#: two long texts of a repeated sentence)
MATCHED = 2_000


def opcodes(a: list[str], b: list[str]) -> list[tuple[str, int, int, int, int]]:
    """:meth:`difflib.SequenceMatcher.get_opcodes` of two lists of words or lines, in bounded
    time: what both begin and end with is equal without matching, and a differing middle of
    more than :data:`MATCHED` items on either side is one change."""
    import difflib

    n = min(len(a), len(b))
    lo = 0
    while lo < n and a[lo] == b[lo]:
        lo += 1
    hi = 0
    while hi < n - lo and a[-1 - hi] == b[-1 - hi]:
        hi += 1
    a_end, b_end = len(a) - hi, len(b) - hi
    ops: list[tuple[str, int, int, int, int]] = [("equal", 0, lo, 0, lo)] if lo else []
    if a_end - lo > MATCHED or b_end - lo > MATCHED:
        tag = "replace" if a_end > lo and b_end > lo else ("delete" if a_end > lo else "insert")
        ops.append((tag, lo, a_end, lo, b_end))
    elif a_end > lo or b_end > lo:
        matcher = difflib.SequenceMatcher(None, a[lo:a_end], b[lo:b_end], autojunk=False)
        for tag, i1, i2, j1, j2 in matcher.get_opcodes():
            ops.append((tag, i1 + lo, i2 + lo, j1 + lo, j2 + lo))
    if hi:
        ops.append(("equal", a_end, len(a), b_end, len(b)))
    return ops


def word_changes(old: str, new: str, limit: int = 300) -> str:
    """The words that differ between two texts, as ``…context [-old-]{+new+} context…``."""
    a, b = words(old), words(new)
    pieces = []
    for tag, i1, i2, j1, j2 in opcodes(a, b):
        if tag == "equal":
            continue
        before = "".join(a[max(i1 - 4, 0) : i1])
        after = "".join(a[i2 : i2 + 4])
        gone, came, space = trailing_space("".join(a[i1:i2]), "".join(b[j1:j2]))
        piece = ("…" if i1 > 4 else "") + before
        piece += (f"[-{gone}-]" if gone else "") + ("{+" + came + "+}" if came else "")
        pieces.append(piece + space + after + ("…" if i2 + 4 < len(a) else ""))
    text = " ".join(pieces) or "(white space only)"
    return text if len(text) <= limit else text[: limit - 1] + "…"


def trailing_space(gone: str, came: str) -> tuple[str, str, str]:
    """Two changed pieces without the white space both end with, and that white space."""
    n = 0
    while n < min(len(gone), len(came)) and gone[-1 - n] == came[-1 - n] and gone[-1 - n].isspace():
        n += 1
    if not n:
        return gone, came, ""
    return gone[:-n], came[:-n], gone[-n:]


def preview(value: dict[str, Any], limit: int = 100) -> str:
    """What a reader recognises a step by: its first text, call or result."""
    content = value.get("content")
    if content is None:  # match="tools": a call
        return _short(value.get("arguments"), limit)
    for wanted in ("text", "tool_call", "tool_result", "thinking"):
        for block in content:
            if not isinstance(block, dict) or block.get("kind") != wanted:
                continue
            if wanted == "tool_call":
                return f"{block.get('name')}({_short(block.get('arguments'), limit)})"
            if wanted == "tool_result":
                output = preview({"content": block.get("output") or []}, limit)
                return f"{block.get('state') or 'result'}: {output}"
            text = block.get(wanted)
            if isinstance(text, str):
                from .textsafe import visible

                text = visible(text)
                return text if len(text) <= limit else text[: limit - 1] + "…"
    kinds = ", ".join(str(b.get("kind")) for b in content if isinstance(b, dict))
    return f"({kinds or 'no content'})"


def _short(value: Any, limit: int = 60) -> str:
    from .textsafe import short

    return short(value, limit)


@dataclass(slots=True)
class Op:
    """One entry of the alignment: ``same`` (a run of equal steps), ``removed``,
    ``added`` or ``changed`` (a pair of steps)."""

    kind: str
    a: Step | None = None
    b: Step | None = None
    count: int = 1
    differences: list[Difference] = field(default_factory=list)


@dataclass(slots=True)
class DiffResult:
    """What :func:`diff` found. ``same`` is true when there is no difference;
    ``problems`` lists lines that could not be read (``file:line: CODE message``)."""

    a: str
    b: str
    match: str
    differences: list[Difference] = field(default_factory=list)
    ops: list[Op] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    steps: tuple[int, int] = (0, 0)

    @property
    def same(self) -> bool:
        return not self.differences

    @property
    def exit_code(self) -> int:
        """As ``diff``: 0 the same, 1 different, 2 trouble (a line that could not be read)."""
        if self.problems:
            return 2
        return 0 if self.same else 1

    def stat(self) -> dict[str, int]:
        """Messages (steps) added, removed and changed, and tool calls changed."""
        counts = {"added": 0, "removed": 0, "changed": 0, "tool_calls_changed": 0}
        for op in self.ops:
            if op.kind in ("added", "removed", "changed"):
                counts[op.kind] += 1
            if op.kind == "changed":
                counts["tool_calls_changed"] += len(
                    {
                        d.field.split("/")[2] if d.field.startswith("/content/") else d.field
                        for d in op.differences
                        if d.tool_call
                    }
                )
            elif op.kind in ("added", "removed"):
                step = op.a if op.kind == "removed" else op.b
                assert step is not None
                counts["tool_calls_changed"] += sum(
                    isinstance(b, ToolCallBlock) for b in step.blocks
                )
        return counts

    def stat_line(self) -> str:
        c = self.stat()
        unit = "tool call" if self.match == "tools" else "message"

        def n(count: int, what: str) -> str:
            return f"{count} {what}{'' if count == 1 else 's'}"

        text = f"{n(c['added'], unit)} added, {c['removed']} removed, {c['changed']} changed"
        if self.match != "tools":
            text += f"; {n(c['tool_calls_changed'], 'tool call')} changed"
        return text

    def as_dict(self) -> dict[str, Any]:
        return {
            "a": self.a,
            "b": self.b,
            "match": self.match,
            "same": self.same,
            "steps": {"a": self.steps[0], "b": self.steps[1]},
            "stat": self.stat(),
            "differences": [d.as_dict() for d in self.differences],
            "problems": list(self.problems),
        }


def _side(step: Step, neutral: str = "") -> Side:
    return Side(step.path, step.line, step.record_pointer(neutral) if neutral else _whole(step))


def _whole(step: Step) -> str:
    """The pointer of a whole step: a tool result or call is pointed at as its block."""
    if step.role in (None, "tool") and step.blocks and step.message.role != "tool":
        return pointer(step.blocks[0].path)
    return ""


def _leaves(value: Any, at: str, out: dict[str, Any]) -> None:
    """Every leaf of ``value`` (an empty list or object is one) by its pointer, in order:
    a loop, as a value may nest as deep as the reader takes."""
    stack = [(value, at)]
    while stack:
        value, at = stack.pop()
        if isinstance(value, dict) and value:
            items = [(v, f"{at}/{_escape(str(k))}") for k, v in value.items()]
            stack.extend(reversed(items))
        elif isinstance(value, list) and value:
            stack.extend(reversed([(v, f"{at}/{i}") for i, v in enumerate(value)]))
        else:
            out[at] = value


def _changes(a: Step, b: Step) -> list[Difference]:
    """The fields of two aligned steps that differ, in order."""
    left: dict[str, Any] = {}
    right: dict[str, Any] = {}
    _leaves(a.value, "", left)
    _leaves(b.value, "", right)
    label = b.label()
    out = []
    for ptr in dict.fromkeys([*left, *right]):
        old, new = left.get(ptr, _MISSING), right.get(ptr, _MISSING)
        if (old is _MISSING or new is _MISSING) and ptr.endswith("/state"):
            continue  # a result state one dialect does not record: nothing to compare
        if old is _MISSING or new is _MISSING or _dump(old) != _dump(new):
            out.append(
                Difference(
                    "changed",
                    Side(a.path, a.line, a.record_pointer(ptr)),
                    Side(b.path, b.line, b.record_pointer(ptr)),
                    ptr,
                    None if old is _MISSING else old,
                    None if new is _MISSING else new,
                    label,
                    _in_tool_call(a, ptr) or _in_tool_call(b, ptr),
                )
            )
    return out


_MISSING = object()


def _in_tool_call(step: Step, ptr: str) -> bool:
    if step.role is None:
        return True  # match="tools": every step is a call
    parts = ptr.split("/")
    if len(parts) < 3 or parts[1] != "content" or not parts[2].isdecimal():
        return False
    index = int(parts[2])
    return index < len(step.blocks) and isinstance(step.blocks[index], ToolCallBlock)


def diff(
    a: Any,
    b: Any,
    *,
    match: str = "strict",
    compare: Iterable[str] = (),
    ignore_paths: Iterable[str] = (),
    dialect: str | None = None,
    dialect_b: str | None = None,
    names: tuple[str, str] | None = None,
    redact: bool = False,
) -> DiffResult:
    """Compare two conversations as ``msgcli diff`` does.

    ``a`` and ``b`` are each a path, ``-``, a binary stream, or a list of
    :class:`~msgcli.model.Message` or of dialect records (dicts). ``match``: ``strict``
    (the same messages in order), ``tools`` (only the sequence of tool calls and their
    arguments), ``unordered`` (tool calls of a turn, and their results, in any order) or
    ``subset`` (B holds A's steps, in order, among others). ``compare`` adds what is
    left out by default: ``usage``, ``ids``, ``times``, ``metadata``. ``ignore_paths``:
    neutral JSON pointers (globs allowed) of fields to leave out, such as
    ``/metadata/session_id`` or ``/content/*/arguments/request_id``. ``dialect``
    reads both logs as that dialect (``dialect_b``: B's, when it differs). ``redact``
    masks secrets in every record before it is read (``--redact``).

    Raises :class:`DiffError` when a log cannot be read at all, :class:`ValueError` for
    an unknown mode or field.
    """
    compare = list(compare)
    ignore_paths = list(ignore_paths)
    _options(match, compare, ignore_paths)  # errors before any reading
    name_a, name_b = names or (_name_of(a, "A"), _name_of(b, "B"))
    result = DiffResult(name_a, name_b, match)
    # Both logs are held in memory while they are read: the cyclic garbage collector would
    # walk every message read so far again and again (half the time of a long diff), and
    # reading makes no cycles to collect. It is switched back on as it was.
    collecting = gc.isenabled()
    gc.disable()
    how: dict[str, Any] = {
        "match": match,
        "compare": compare,
        "ignore_paths": ignore_paths,
        "redact": redact,
    }
    # two large files: B is read in a second process while this one reads A
    remote = _Remote.start(b, name_b, dialect_b or dialect, how) if _parallel(a, b) else None
    try:
        steps_a = read_steps(a, name_a, dialect=dialect, problems=result.problems, **how)
        steps_b: list[Any] | None = remote.steps(result.problems) if remote else None
        if steps_b is None:
            remote = None
            steps_b = read_steps(
                b, name_b, dialect=dialect_b or dialect, problems=result.problems, **how
            )
        result.steps = (len(steps_a), len(steps_b))
        _compare(steps_a, steps_b, result, remote.fill if remote else None)
    finally:
        if remote is not None:
            remote.close()
        if collecting:
            gc.enable()
    return result


#: two files together at least this large are read in two processes
PARALLEL_BYTES = 8 << 20


def _parallel(a: Any, b: Any) -> bool:
    import multiprocessing

    if not all(isinstance(x, (str, Path)) and str(x) != "-" for x in (a, b)):
        return False
    if "fork" not in multiprocessing.get_all_start_methods():
        return False
    from .parallel import default_jobs

    try:
        size = os.path.getsize(a) + os.path.getsize(b)
    except OSError:
        return False
    return size >= PARALLEL_BYTES and default_jobs() > 1


@dataclass(slots=True)
class _Stub:
    """A step read in the other process: what alignment needs; the whole step is fetched
    when a difference needs it."""

    key: Any
    digest: bytes
    line: int
    path: str


class _Remote:
    """B's steps, read in a forked process that keeps them until the differences are known."""

    def __init__(self, conn: Any, process: Any):
        self.conn = conn
        self.process = process
        self.stubs: list[Any] = []

    @classmethod
    def start(cls, source: Any, name: str, dialect: str | None, how: dict) -> _Remote | None:
        import multiprocessing

        context = multiprocessing.get_context("fork")
        here, there = context.Pipe()
        process = context.Process(
            target=_serve, args=(there, source, name, dialect, how), daemon=True
        )
        try:
            process.start()
        except OSError:
            return None
        there.close()
        return cls(here, process)

    def steps(self, problems: list[str]) -> list[Any] | None:
        """Stubs of B's steps (``None``: the process failed; read B here instead)."""
        try:
            status, payload, found = self.conn.recv()
        except (EOFError, OSError):
            self.close()
            return None
        if status == "error":
            self.close()
            raise DiffError(payload)
        problems.extend(found)
        self.stubs = [_Stub(key, digest, line, path) for key, digest, line, path in payload]
        return self.stubs

    def fill(self, steps: list[Any], wanted: list[int]) -> None:
        """Put the whole steps at these indexes in place of their stubs."""
        if not wanted:
            return
        self.conn.send(wanted)
        for index, step in zip(wanted, self.conn.recv(), strict=True):
            steps[index] = step

    def close(self) -> None:
        import contextlib

        with contextlib.suppress(OSError, ValueError):
            self.conn.send(None)
        self.conn.close()
        self.process.join(5)
        if self.process.is_alive():
            self.process.kill()


def _serve(conn: Any, source: Any, name: str, dialect: str | None, how: dict) -> None:
    """The second process: read the steps, send their stubs, then the steps asked for."""
    try:
        problems: list[str] = []
        try:
            steps = read_steps(source, name, dialect=dialect, problems=problems, **how)
        except DiffError as exc:
            conn.send(("error", str(exc), None))
            return
        conn.send(("ok", [(s.key, s.digest, s.line, s.path) for s in steps], problems))
        while True:
            wanted = conn.recv()
            if wanted is None:
                return
            conn.send([steps[i] for i in wanted])
    except (EOFError, OSError, KeyboardInterrupt):
        return
    finally:
        conn.close()


def _name_of(source: Any, fallback: str) -> str:
    if isinstance(source, (str, Path)):
        return "<stdin>" if str(source) == "-" else str(source)
    name = getattr(source, "name", None)
    return name if isinstance(name, str) else fallback


def _compare(
    steps_a: list[Step],
    steps_b: list[Any],
    result: DiffResult,
    fill: Callable[[list[Any], list[int]], None] | None = None,
) -> None:
    """Align the steps and record the differences. ``fill(steps_b, indexes)`` makes the
    steps of B at those indexes whole, when B was read elsewhere (stubs until then)."""

    subset = result.match == "subset"
    interned: dict[Any, int] = {}

    def ids(steps: list[Step], by_content: bool) -> list[int]:
        return [
            interned.setdefault(s.digest if by_content else s.key, len(interned)) for s in steps
        ]

    # subset: A's steps are looked for as they are; what is left pairs by key as a change
    pairs = _align(ids(steps_a, subset), ids(steps_b, subset))
    # what is left in each gap pairs up as a change: by key after an exact search (subset),
    # else by role and sender (a message whose blocks or tools changed is one change)
    pairs = _pair_gaps(steps_a, steps_b, pairs, _key if subset else _who)
    if fill is not None:
        paired = {j for _, j in pairs}
        wanted = [j for i, j in pairs if steps_a[i].digest != steps_b[j].digest]
        if not subset:
            wanted += [j for j in range(len(steps_b)) if j not in paired]
        fill(steps_b, sorted(wanted))
    ops = result.ops
    ia = ib = 0

    def gap(to_a: int, to_b: int) -> None:
        nonlocal ia, ib
        while ia < to_a:
            step = steps_a[ia]
            d = Difference(
                "removed",
                _side(step),
                _anchor(steps_b, ib),
                "",
                step.value,
                None,
                step.label(),
                any(isinstance(x, ToolCallBlock) for x in step.blocks),
            )
            ops.append(Op("removed", step, None, 1, [d]))
            result.differences.append(d)
            ia += 1
        while ib < to_b:
            step = steps_b[ib]
            if subset:
                ops.append(Op("extra", None, step))
            else:
                d = Difference(
                    "added",
                    _anchor(steps_a, ia),
                    _side(step),
                    "",
                    None,
                    step.value,
                    step.label(),
                    any(isinstance(x, ToolCallBlock) for x in step.blocks),
                )
                ops.append(Op("added", None, step, 1, [d]))
                result.differences.append(d)
            ib += 1

    for i, j in pairs:
        gap(i, j)
        sa, sb = steps_a[i], steps_b[j]
        if sa.digest == sb.digest:
            _same(ops, sa, sb)
        else:
            changes = _changes(sa, sb)
            if changes:
                ops.append(Op("changed", sa, sb, 1, changes))
                result.differences.extend(changes)
            else:
                _same(ops, sa, sb)
            ia, ib = i + 1, j + 1
            continue
        ia, ib = i + 1, j + 1
    gap(len(steps_a), len(steps_b))


def _same(ops: list[Op], a: Step, b: Step) -> None:
    last = ops[-1] if ops else None
    if last is not None and last.kind == "same":
        last.count += 1
    else:
        ops.append(Op("same", a, b))


def _anchor(steps: list[Step], at: int) -> Side | None:
    """Where in one log a step only the other has would be: the line of the next step
    (or of the last), with no pointer."""
    if at < len(steps):
        step = steps[at]
    elif steps:
        step = steps[-1]
    else:
        return None
    return Side(step.path, step.line, "")


def _key(step: Step) -> Any:
    return step.key


def _who(step: Step) -> Any:
    return step.key[:2]


def _pair_gaps(
    steps_a: list[Step], steps_b: list[Step], pairs: list[tuple[int, int]], key: Any
) -> list[tuple[int, int]]:
    """Between aligned steps, pair the steps left over whose ``key`` is the same."""
    out: list[tuple[int, int]] = []
    ia = ib = 0
    for i, j in [*pairs, (len(steps_a), len(steps_b))]:
        jb = ib
        for x in range(ia, i):
            for y in range(jb, j):
                if key(steps_a[x]) == key(steps_b[y]):
                    out.append((x, y))
                    jb = y + 1
                    break
        if i < len(steps_a):
            out.append((i, j))
        ia, ib = i + 1, j + 1
    return out
