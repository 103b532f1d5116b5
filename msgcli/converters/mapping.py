"""The mapping between the dialects, through one neutral form.

Every conversion reads a *group* of source messages into a :class:`Turn` (the
dialect-neutral form of one message and the tool messages that answer it), and
writes the turn as the target dialect's messages:

- AgentScope Python keeps tool results inside the assistant message that made
  the calls; AgentScope Java and LoongFlow put each in a message of its own
  (``TOOL`` / ``"tool"``). So a group is a message plus the tool messages that
  follow it; Python writes it as one message, Java and LoongFlow split a Python
  message at its tool results (the message, a tool message per result, and a
  further message for what the reply says after the results).
- Ids, times, states and block types are mapped as the README's mapping table
  says; what the target has no place for is written as its nearest
  counterpart and reported through ``note(line, pointer, text)``.

These functions only map. Keeping what the target cannot hold, for the way
back, is :mod:`msgcli.converters.carry`'s part.
"""

from __future__ import annotations

import hashlib
import mimetypes
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timezone, tzinfo
from typing import Any

import orjson

from ..dialects import get_dialect
from ..model import (
    Block,
    DataBlock,
    EvolveResultBlock,
    HintBlock,
    Message,
    Source,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
    ToolResultBlock,
    UnknownBlock,
    Usage,
    ValueBlock,
    pointer,
)
from ..writer import dumps

__all__ = ["DIALECT_NAMES", "Part", "Turn", "read_turn", "write_turn"]

JAVA = "agentscope-java"
PY = "agentscope-py"
LOONGFLOW = "loongflow"
#: the provider wire forms (written by :mod:`msgcli.dialects.wire_write`)
WIRE = ("openai-chat", "openai-responses", "anthropic")
DIALECT_NAMES = (JAVA, PY, LOONGFLOW, *WIRE)

_UUID_TEXT = re.compile(
    r"[0-9a-fA-F]{32}|[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"
)

Note = Callable[[int, str, str], None]  # note(line, pointer, text)

_TOOL_CALL_STATES = ("pending", "asking", "allowed", "submitted", "finished")
_TOOL_RESULT_STATES = ("success", "error", "interrupted", "denied", "running")
_LOONGFLOW_STATUS = ("success", "error", "in_progress")
_ROLES = ("user", "assistant", "system", "tool")
#: the block kinds each role may hold, where a dialect restricts them
_PY_ROLE_BLOCKS = {"user": ("text", "data"), "system": ("text",)}
_JAVA_ROLE_BLOCKS = {"user": ("text", "data"), "system": ("text",)}


@dataclass(slots=True)
class Home:
    """A message that held tool results only (Java ``TOOL``, LoongFlow ``"tool"``,
    Python 1.x ``system``): kept so that a split gives it back."""

    id: Any
    name: Any
    when: datetime | None
    metadata: Any
    usage: Usage | None
    line: int


@dataclass(slots=True)
class Part:
    """One block of a turn, with the line of the record it came from."""

    block: Block
    line: int
    home: Home | None = None
    when: datetime | None = None  # the block's own time, where the dialect stamps blocks

    @property
    def pointer(self) -> str:
        """Where the block is in its record (for findings: made only when one is reported)."""
        return pointer(self.block.path)


@dataclass(slots=True)
class Turn:
    """One message in the neutral form (see the module docstring)."""

    source: str
    line: int
    role: Any
    name: Any
    id: Any
    when: datetime | None  # aware
    metadata: Any
    usage: Usage | None
    parts: list[Part] = field(default_factory=list)
    #: AgentScope Python's reply fields, LoongFlow's trace ids: mapped where the target has them
    fields: dict[str, Any] = field(default_factory=dict)


# -- times and ids ----------------------------------------------------------------


def aware(naive: datetime | None, local: tzinfo | None, utc: bool) -> datetime | None:
    """A dialect's naive time as an aware one: UTC for LoongFlow, else the writer's
    local zone (``local``; ``None``: this machine's)."""
    if naive is None:
        return None
    if utc:
        return naive.replace(tzinfo=timezone.utc)
    if local is None:
        try:
            return naive.astimezone()
        except (OverflowError, OSError, ValueError):
            return naive.replace(tzinfo=timezone.utc)
    return naive.replace(tzinfo=local)


def naive(when: datetime, local: tzinfo | None, utc: bool) -> datetime:
    try:
        if utc:
            return when.astimezone(timezone.utc).replace(tzinfo=None)
        return when.astimezone(local).replace(tzinfo=None)
    except (OverflowError, OSError, ValueError):
        return when.replace(tzinfo=None)


def as_uuid(value: Any) -> str | None:
    """A UUID id (32 hex digits or the dashed form, any case) as 32 lower-case hex digits."""
    if isinstance(value, str) and _UUID_TEXT.fullmatch(value):
        return value.replace("-", "").lower()
    return None


def dashed(hex32: str) -> str:
    """32 hex digits in the dashed UUID form."""
    h = hex32
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"


def made_id(*seed: Any) -> str:
    """An id made from what it stands for (32 hex digits, a version-8 UUID), so converting
    the same log twice gives the same ids."""
    digest = bytearray(
        hashlib.blake2b("\x1f".join(str(s) for s in seed).encode(), digest_size=16).digest()
    )
    digest[6] = (digest[6] & 0x0F) | 0x80  # version 8: made by the application
    digest[8] = (digest[8] & 0x3F) | 0x80  # the RFC 4122 variant
    return digest.hex()


# -- reading a group ---------------------------------------------------------------


def is_tool_message(msg: Message) -> bool:
    """Whether a message only answers tool calls (it joins the turn before it)."""
    role = msg.role.lower() if isinstance(msg.role, str) else msg.role
    if not msg.content or not all(isinstance(b, ToolResultBlock) for b in msg.content):
        return False
    if role == "tool":
        return True
    # AgentScope Python 1.x writes tool results as system messages, Anthropic as user turns
    return (role == "system" and msg.dialect == PY) or (
        role == "user" and msg.dialect == "anthropic"
    )


def read_turn(
    group: list[tuple[int, Message]], local: tzinfo | None, strip: Callable[[Any], Any]
) -> Turn:
    """The turn of a group: its first message, with the results of the tool messages
    after it in place. ``strip(metadata)`` takes out what a conversion keeps for itself."""
    line, first = group[0]
    dialect = get_dialect(first.dialect)
    utc = first.dialect == LOONGFLOW
    role = first.role  # the model holds roles in lower case already (Java's included)
    if len(group) == 1 and is_tool_message(first):
        role = "tool"
    turn = Turn(
        source=first.dialect,
        line=line,
        role=role,
        name=first.name,
        id=first.id,
        when=aware(dialect.parse_time(first.timestamp), local, utc),
        metadata=strip(first.metadata),
        usage=first.usage,
        fields=_turn_fields(first),
    )
    for index, (at, msg) in enumerate(group):
        home = None
        if index or role == "tool":
            home = Home(
                id=msg.id,
                name=msg.name,
                when=aware(dialect.parse_time(msg.timestamp), local, utc),
                metadata=strip(msg.metadata) if index else turn.metadata,
                usage=msg.usage,
                line=at,
            )
        for block in msg.content:
            stamp = block.fields.get("created_at")
            when = aware(dialect.parse_time(stamp), local, utc) if stamp is not None else None
            turn.parts.append(Part(block, at, home, when))
    return turn


def _turn_fields(msg: Message) -> dict[str, Any]:
    if msg.dialect == PY:
        return {k: v for k, v in msg.fields.items() if k != "usage"}
    if msg.dialect == LOONGFLOW:
        return dict(msg.fields)
    return {}


# -- text for what has no place ----------------------------------------------------


def as_text(block: Block) -> str:
    """A block the target has no kind for, as the text of a text block."""
    if isinstance(block, TextBlock):
        return block.text if isinstance(block.text, str) else _json(block.text)
    if isinstance(block, ThinkingBlock):
        return block.thinking if isinstance(block.thinking, str) else _json(block.thinking)
    if isinstance(block, HintBlock):
        return parts_text(block.hint)
    if isinstance(block, ValueBlock):
        return block.value if isinstance(block.value, str) else _json(block.value)
    if isinstance(block, EvolveResultBlock):
        return _json(block.fields)
    if isinstance(block, ToolCallBlock):
        return f"{block.name}({arguments_text(block)})"
    if isinstance(block, ToolResultBlock):
        return parts_text(block.output)
    if isinstance(block, DataBlock):
        source = block.source
        where = (source.url if source.kind == "url" else "inline data") if source else "no source"
        return f"[{block.kind}: {where}]"
    if isinstance(block, UnknownBlock):
        return _json(block.raw)
    return ""


def _json(value: Any) -> str:
    return dumps(value).decode()


def parts_text(value: Any) -> str:
    """A hint or a tool output (a text, or a list of blocks) as one text."""
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return "\n".join(as_text(b) if isinstance(b, Block) else _item_text(b) for b in value)
    return "" if value is None else _json(value)


def _item_text(item: Any) -> str:
    if isinstance(item, dict) and isinstance(item.get("text"), str):
        return item["text"]
    return _json(item)


def arguments_text(block: ToolCallBlock) -> str:
    """The argument text of a call: as the model wrote it where the record keeps it."""
    if isinstance(block.input, str):
        return block.input
    if block.arguments is not None:
        return _json(block.arguments)
    return "{}"


def arguments_object(block: ToolCallBlock) -> tuple[dict, bool]:
    """The arguments as an object, and whether the record's arguments were one."""
    if isinstance(block.arguments, dict):
        return block.arguments, True
    if isinstance(block.input, str):
        try:
            parsed = orjson.loads(block.input)
        except orjson.JSONDecodeError:
            return {}, False
        if isinstance(parsed, dict):
            return parsed, True
    return {}, False


def media_type_of(block: DataBlock) -> str:
    """A data block's media type; guessed from the URL, then the block's kind, when the
    record does not say."""
    source = block.source
    if source is not None and isinstance(source.media_type, str) and source.media_type:
        return source.media_type
    if source is not None and isinstance(source.url, str):
        guessed, _ = mimetypes.guess_type(source.url, strict=False)
        if guessed:
            return guessed
    kind = block.kind if block.kind in ("image", "audio", "video") else "application"
    return f"{kind}/octet-stream" if kind == "application" else f"{kind}/unknown"


# -- writing a turn ---------------------------------------------------------------


def _id_key(value: Any) -> Any:
    """An id as a set member (a malformed record may hold any JSON value there)."""
    return value if isinstance(value, (str, int, float, bool, type(None))) else _json(value)


def _answered(turn: Turn) -> set:
    """The ids of the tool calls the turn holds results for."""
    return {_id_key(p.block.id) for p in turn.parts if isinstance(p.block, ToolResultBlock)}


@dataclass(slots=True)
class _Out:
    """What the writers share: the zone and where notes go."""

    local: tzinfo | None
    note: Note


def write_turn(turn: Turn, target: str, local: tzinfo | None, note: Note) -> list[dict]:
    """The target dialect's records for a turn."""
    out = _Out(local, note)
    if target in WIRE:
        from ..dialects.wire_write import write_turn as write_wire

        return write_wire(turn, target, note)
    if target == PY:
        return [get_dialect(PY).write(_py_message(turn, out))]
    messages = _split(turn, target, out)
    dialect = get_dialect(target)
    return [dialect.write(m) for m in messages]


def _role(turn: Turn, allowed: tuple[str, ...], out: _Out, target: str) -> str:
    role = turn.role
    if isinstance(role, str) and role in allowed:
        return role
    out.note(
        turn.line,
        "/role",
        f"role {role!r} has no {target} counterpart: written as 'assistant'",
    )
    return "assistant"


def _recast(part: Part, out: _Out, why: str) -> TextBlock:
    out.note(part.line, part.pointer, why)
    return TextBlock(type="text", text=as_text(part.block))


# ---- AgentScope Python 2.x ------------------------------------------------------


def _py_time(when: datetime | None, out: _Out) -> str | None:
    return naive(when, out.local, utc=False).isoformat() if when is not None else None


def _py_id(value: Any, *seed: Any) -> str:
    u = as_uuid(value)
    if u is not None:
        return u
    if isinstance(value, str) and value:
        return value
    return made_id(*seed)


def _py_message(turn: Turn, out: _Out) -> Message:
    role = turn.role
    if role == "tool":
        role = "assistant"  # Python has no tool role: results sit in assistant messages
    elif not (isinstance(role, str) and role in ("user", "assistant", "system")):
        role = _role(turn, ("user", "assistant", "system"), out, "AgentScope Python")
    stamp = _py_time(turn.when, out)
    msg_id = _py_id(turn.id, turn.source, turn.line, "message")
    allowed = _PY_ROLE_BLOCKS.get(role)
    result_ids = _answered(turn)
    content: list[Block] = []
    for index, part in enumerate(turn.parts):
        block = part.block
        kind = _kind(block)
        if allowed is not None and kind not in allowed:
            block = _recast(
                part,
                out,
                f"a {kind} block may not stand in a {role} message in AgentScope "
                "Python: written as text",
            )
            kind = "text"
        content.append(_py_block(block, part, index, msg_id, stamp, result_ids, out))
    name = turn.name if isinstance(turn.name, str) else role
    fields = dict(turn.fields) if turn.source == PY else {}
    fields.setdefault("finished_at", stamp if turn.source != PY and role == "assistant" else None)
    metadata = _metadata(turn.metadata, turn.source, turn.usage, PY)
    return Message(
        dialect=PY,
        role=role,
        name=name,
        id=msg_id,
        content=content,
        metadata=metadata,
        timestamp=stamp,
        usage=_usage(turn.usage),
        variant="2.x",
        fields=fields,
    )


def _usage(usage: Usage | None) -> Usage | None:
    if usage is None:
        return None
    return Usage(
        input_tokens=usage.input_tokens if usage.input_tokens is not None else 0,
        output_tokens=usage.output_tokens if usage.output_tokens is not None else 0,
        cached_tokens=usage.cached_tokens if usage.cached_tokens is not None else 0,
        cache_creation_tokens=(
            usage.cache_creation_tokens if usage.cache_creation_tokens is not None else 0
        ),
        total_tokens=usage.total_tokens,
        time=usage.time,
    )


_KINDS: dict[type, str] = {
    TextBlock: "text",
    DataBlock: "data",
    ThinkingBlock: "thinking",
    HintBlock: "hint",
    ToolCallBlock: "tool_call",
    ToolResultBlock: "tool_result",
    EvolveResultBlock: "evolve_result",
    ValueBlock: "value",
}


def _kind(block: Block) -> str:
    return _KINDS.get(type(block), "unknown")


def _py_stamps(block: Block, stamp: str | None, done: bool) -> dict[str, Any]:
    times = {k: v for k, v in block.fields.items() if k in ("created_at", "finished_at")}
    if "created_at" in times:
        return {"created_at": times["created_at"], "finished_at": times.get("finished_at")}
    return {"created_at": stamp, "finished_at": stamp if done else None}


def _py_block(
    block: Block,
    part: Part,
    index: int,
    msg_id: str,
    stamp: str | None,
    result_ids: set,
    out: _Out,
) -> Block:
    def bid(value: Any, *more: Any) -> str:
        return _py_id(value, msg_id, index, *more)

    if isinstance(block, TextBlock):
        return TextBlock(
            type="text",
            id=bid(block.id),
            fields=_py_stamps(block, stamp, False),
            text=block.text if isinstance(block.text, str) else as_text(block),
        )
    if isinstance(block, ThinkingBlock):
        return ThinkingBlock(
            type="thinking",
            id=bid(block.id),
            fields=_py_stamps(block, stamp, False),
            thinking=block.thinking,
        )
    if isinstance(block, HintBlock):
        source = block.source
        if source is not None and not isinstance(source, str):
            source = _json(source)
        return HintBlock(
            type="hint",
            id=bid(block.id),
            fields=_py_stamps(block, stamp, True),
            hint=block.hint if isinstance(block.hint, (str, list)) else parts_text(block.hint),
            source=source,
        )
    if isinstance(block, ToolCallBlock):
        state = block.state
        if state not in _TOOL_CALL_STATES:
            state = "finished" if _id_key(block.id) in result_ids else "pending"
        fields = _py_stamps(block, stamp, _id_key(block.id) in result_ids)
        rules = block.fields.get("suggested_rules")
        fields["suggested_rules"] = rules if isinstance(rules, list) else []
        return ToolCallBlock(
            type="tool_call",
            id=block.id if isinstance(block.id, str) else bid(block.id, "call"),
            fields=fields,
            name=block.name,
            input=arguments_text(block),
            state=state,
        )
    if isinstance(block, ToolResultBlock):
        output = block.output
        if isinstance(output, list):
            output = [
                _py_nested(b, part, i, msg_id, index, stamp, out) for i, b in enumerate(output)
            ]
        elif output is not None and not isinstance(output, str):
            output = parts_text(output)
        state = _result_state(block.state)
        fields = _py_stamps(block, stamp, True)
        metadata = block.fields.get("metadata")
        fields["metadata"] = dict(metadata) if isinstance(metadata, dict) else {}
        return ToolResultBlock(
            type="tool_result",
            id=block.id,
            fields=fields,
            name=block.name,
            output=output,
            state=state,
        )
    if isinstance(block, DataBlock):
        return _py_data(block, bid(block.id), stamp)
    return TextBlock(
        type="text",
        id=bid(None),
        fields=_py_stamps(block, stamp, False),
        text=_recast(part, out, _no_kind(block, "AgentScope Python")).text,
    )


def _py_nested(
    item: Any, part: Part, i: int, msg_id: str, index: int, stamp: str | None, out: _Out
) -> Block:
    bid = _py_id(getattr(item, "id", None), msg_id, index, "output", i)
    if isinstance(item, DataBlock):
        return _py_data(item, bid, stamp)
    if isinstance(item, TextBlock) and isinstance(item.text, str):
        return TextBlock(type="text", id=bid, fields=_py_stamps(item, stamp, False), text=item.text)
    text = as_text(item) if isinstance(item, Block) else _json(item)
    if not isinstance(item, TextBlock):
        out.note(
            part.line,
            f"{part.pointer}/output/{i}",
            "a tool output item of a kind AgentScope Python has no place for: written as text",
        )
    return TextBlock(
        type="text", id=bid, fields={"created_at": stamp, "finished_at": None}, text=text
    )


def _py_data(block: DataBlock, bid: str, stamp: str | None) -> DataBlock:
    source = block.source
    fields = _py_stamps(block, stamp, False)
    if source is None:
        return DataBlock(
            type="data",
            id=bid,
            fields=fields,
            kind="data",
            name=block.name,
            source=Source(kind="url", url="", media_type=media_type_of(block)),
        )
    return DataBlock(
        type="data",
        id=bid,
        fields=fields,
        kind="data",
        name=block.name if isinstance(block.name, str) else None,
        source=Source(
            kind=source.kind,
            url=source.url if source.kind == "url" else None,
            data=source.data if source.kind == "base64" else None,
            media_type=media_type_of(block),
        ),
    )


def _no_kind(block: Block, target: str) -> str:
    kind = _kind(block)
    if kind == "unknown":
        return f"a block of unknown type cannot be written in {target}: kept as its JSON text"
    words = {
        "evolve_result": "an evolve_result element",
        "value": "a structured content element",
        "hint": "a hint block",
    }
    return f"{words.get(kind, 'a ' + kind + ' block')} has no {target} counterpart: written as text"


def _result_state(state: Any) -> Any:
    """A result state for AgentScope (LoongFlow's ``in_progress`` is ``running``)."""
    if state == "in_progress":
        return "running"
    if state in _TOOL_RESULT_STATES:
        return state
    return "success" if state is None else "error"


# ---- AgentScope Java and LoongFlow: a message per tool result ------------------


def _split(turn: Turn, target: str, out: _Out) -> list[Message]:
    """Java and LoongFlow messages for a turn: tool results go to tool messages of their
    own, and what follows them to a further message of the turn's role."""
    java = target == JAVA
    messages: list[Message] = []
    role = turn.role
    if java and not (isinstance(role, str) and role in _ROLES):
        role = _role(turn, _ROLES, out, "AgentScope Java")  # LoongFlow keeps any role
    current: Message | None = None
    current_home: Home | None = None
    in_tool = False
    segment = 0
    result_ids = _answered(turn)
    for part in turn.parts:
        block = part.block
        if isinstance(block, ToolResultBlock) and (role != "tool" or part.home is not None):
            home = part.home
            if current is None or not in_tool or current_home is not home:
                current = _tool_message(turn, part, target, out, len(messages))
                current_home = home
                in_tool = True
                messages.append(current)
            current.content.append(_block_for(target, part, "tool", result_ids, out))
            continue
        if current is None or in_tool:
            current = _segment(turn, target, role, out, segment, part.when if segment else None)
            current_home = None
            in_tool = False
            segment += 1
            messages.append(current)
        current.content.append(_block_for(target, part, role, result_ids, out))
    if not messages:
        messages.append(_segment(turn, target, role, out, 0))
    return messages


def _time_text(target: str, when: datetime | None, out: _Out) -> str | None:
    if when is None:
        return None
    if target == JAVA:
        local = naive(when, out.local, utc=False)
        return local.strftime("%Y-%m-%d %H:%M:%S.") + f"{local.microsecond // 1000:03d}"
    return naive(when, out.local, utc=True).isoformat()


def _uuid_text(value: Any, target: str, *seed: Any) -> str:
    u = as_uuid(value)
    if u is not None:
        return dashed(u)
    if target == JAVA and isinstance(value, str) and value:
        return value
    return dashed(made_id(value, *seed) if isinstance(value, str) and value else made_id(*seed))


def _segment(
    turn: Turn, target: str, role: Any, out: _Out, index: int, when: datetime | None = None
) -> Message:
    base = _uuid_text(turn.id, target, turn.source, turn.line, "message")
    msg_id = base if index == 0 else dashed(made_id(base, "part", index))
    usage = turn.usage if index == 0 else None
    metadata = _metadata(turn.metadata, turn.source, usage, target)
    fields: dict[str, Any] = {}
    if target == LOONGFLOW:
        fields = {k: turn.fields.get(k, "") for k in ("trace_id", "conversation_id")}
        if usage is not None and "usage" not in metadata:
            metadata["usage"] = _loongflow_usage(usage)
    name = turn.name
    if target == LOONGFLOW and not isinstance(name, str):
        name = ""
    return Message(
        dialect=target,
        role=role.upper() if target == JAVA and isinstance(role, str) else role,
        name=name,
        id=msg_id,
        content=[],
        metadata=metadata,
        timestamp=_time_text(target, when or turn.when, out),
        usage=_java_usage(usage) if target == JAVA else None,
        variant="2.x" if target == JAVA else None,
        fields=fields,
    )


def _tool_message(turn: Turn, part: Part, target: str, out: _Out, index: int) -> Message:
    home = part.home
    block = part.block
    if home is not None:
        msg_id = _uuid_text(home.id, target, turn.source, home.line, "message")
        name, when, metadata, usage = home.name, home.when, home.metadata, home.usage
    else:
        base = _uuid_text(turn.id, target, turn.source, turn.line, "message")
        msg_id = dashed(made_id(base, "result", block.id, index))
        name = turn.name  # the agent that ran the tool, as AgentScope and LoongFlow write it
        when, metadata, usage = part.when or turn.when, None, None
    metadata = _metadata(metadata, turn.source, usage, target)
    fields: dict[str, Any] = {}
    if target == LOONGFLOW:
        fields = {k: turn.fields.get(k, "") for k in ("trace_id", "conversation_id")}
        if usage is not None and "usage" not in metadata:
            metadata["usage"] = _loongflow_usage(usage)
        if not isinstance(name, str):
            name = ""
    return Message(
        dialect=target,
        role="TOOL" if target == JAVA else "tool",
        name=name,
        id=msg_id,
        content=[],
        metadata=metadata,
        timestamp=_time_text(target, when, out),
        usage=_java_usage(usage) if target == JAVA else None,
        variant="2.x" if target == JAVA else None,
        fields=fields,
    )


def _metadata(metadata: Any, source: str, usage: Usage | None, target: str) -> dict:
    """A copy of the metadata; LoongFlow's usage, which AgentScope keeps in ``usage``,
    leaves it for AgentScope."""
    out = dict(metadata) if isinstance(metadata, dict) else {}
    if source == LOONGFLOW and target != LOONGFLOW and usage is not None:
        out.pop("usage", None)
    return out


def _java_usage(usage: Usage | None) -> Usage | None:
    if usage is None:
        return None

    def count(value: Any) -> Any:
        return value if isinstance(value, (int, float)) and not isinstance(value, bool) else 0

    inp, outp = count(usage.input_tokens), count(usage.output_tokens)
    total = usage.total_tokens if usage.total_tokens is not None else inp + outp
    time = usage.time if isinstance(usage.time, (int, float)) else 0.0
    return Usage(
        input_tokens=inp,
        output_tokens=outp,
        cached_tokens=count(usage.cached_tokens),
        total_tokens=total,
        time=time,
    )


def _loongflow_usage(usage: Usage) -> dict[str, Any]:
    inp, outp = usage.input_tokens or 0, usage.output_tokens or 0
    if usage.total_tokens is not None:
        total = usage.total_tokens
    elif all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in (inp, outp)):
        total = inp + outp
    else:
        total = None  # a count that is no number (a malformed record) gives no sum
    return {"completion_tokens": outp, "prompt_tokens": inp, "total_tokens": total}


def _block_for(target: str, part: Part, role: Any, result_ids: set, out: _Out) -> Block:
    if target == JAVA:
        return _java_block(part, role, result_ids, out)
    return _loongflow_block(part, result_ids, out)


# ---- AgentScope Java -------------------------------------------------------------


def _java_block(part: Part, role: Any, result_ids: set, out: _Out) -> Block:
    block = part.block
    allowed = _JAVA_ROLE_BLOCKS.get(role)
    kind = _kind(block)
    if allowed is not None and kind not in allowed:
        block = _recast(
            part,
            out,
            f"a {kind} block may not stand in a {role} message in AgentScope Java: written as text",
        )
    if isinstance(block, TextBlock):
        return TextBlock(
            type="text", text=block.text if isinstance(block.text, str) else as_text(block)
        )
    if isinstance(block, ThinkingBlock):
        return ThinkingBlock(
            type="thinking", thinking=block.thinking, fields={"metadata": _meta(block)}
        )
    if isinstance(block, HintBlock):
        source = block.source
        if source is not None and not isinstance(source, str):
            source = _json(source)
        return HintBlock(
            type="hint",
            id=block.id if isinstance(block.id, str) else None,
            hint=parts_text(block.hint) if block.hint is not None else None,
            source=source,
        )
    if isinstance(block, ToolCallBlock):
        arguments, _ = arguments_object(block)
        state = (
            block.state
            if block.state in _TOOL_CALL_STATES
            else ("finished" if _id_key(block.id) in result_ids else "pending")
        )
        return ToolCallBlock(
            type="tool_call",
            id=block.id,
            name=block.name,
            input=arguments_text(block),
            arguments=arguments,
            state=state,
            fields={"metadata": _meta(block) or {}},
        )
    if isinstance(block, ToolResultBlock):
        nested = [_java_nested(b, part, i, out) for i, b in enumerate(_output_items(block))]
        return ToolResultBlock(
            type="tool_result",
            id=block.id,
            name=block.name,
            output=nested,
            state=_result_state(block.state),
            fields={"metadata": _meta(block) or {}},
        )
    if isinstance(block, DataBlock):
        return _java_data(block, part.line, part.pointer)
    return TextBlock(type="text", text=_recast(part, out, _no_kind(block, "AgentScope Java")).text)


def _output_items(block: ToolResultBlock) -> list:
    """A tool result's output as a list of items: a bare string is one text item."""
    output = block.output
    if isinstance(output, list):
        return output
    return [] if output is None else [TextBlock(type="text", text=parts_text(output))]


def _meta(block: Block) -> Any:
    metadata = block.fields.get("metadata")
    return dict(metadata) if isinstance(metadata, dict) else None


def _java_nested(item: Any, part: Part, i: int, out: _Out) -> Block:
    if isinstance(item, DataBlock):
        return _java_data(item, part.line, part.pointer, i)
    if isinstance(item, TextBlock) and isinstance(item.text, str):
        return TextBlock(type="text", text=item.text)
    if isinstance(item, ThinkingBlock):
        return ThinkingBlock(type="thinking", thinking=item.thinking, fields={"metadata": None})
    out.note(
        part.line,
        f"{part.pointer}/output/{i}",
        "a tool output item of a kind AgentScope Java has no place for: written as text",
    )
    return TextBlock(type="text", text=as_text(item) if isinstance(item, Block) else _json(item))


def _java_data(block: DataBlock, *seed: Any) -> DataBlock:
    kind = block.kind if block.kind in ("image", "audio", "video", "data") else "data"
    source = block.source
    new_source = None
    if source is not None:
        if source.kind == "url":
            new_source = Source(kind="url", url=source.url, media_type=source.media_type)
        else:
            new_source = Source(kind="base64", data=source.data, media_type=media_type_of(block))
    block_id = None
    if kind == "data":  # Java writes a data block's id always
        block_id = block.id if isinstance(block.id, str) else dashed(made_id(*seed))
    return DataBlock(
        type="data",
        kind=kind,
        source=new_source,
        id=block_id,
        name=block.name if kind == "data" and isinstance(block.name, str) else None,
    )


# ---- LoongFlow ------------------------------------------------------------------


def _loongflow_block(part: Part, result_ids: set, out: _Out) -> Block:
    block = part.block
    meta = {"metadata": _meta(block) or {}}
    if isinstance(block, TextBlock) and isinstance(block.text, str):
        return TextBlock(type="text", text=block.text, fields={"mime_type": "text/plain", **meta})
    if isinstance(block, ThinkingBlock):
        return ThinkingBlock(type="thinking", thinking=block.thinking, fields=meta)
    if isinstance(block, ToolCallBlock):
        arguments, whole = arguments_object(block)
        if not whole:
            out.note(
                part.line,
                part.pointer,
                "the tool call's arguments are not a JSON object, "
                "which LoongFlow needs: written as {}",
            )
        if (
            block.state in ("pending", "asking", "allowed", "submitted")
            and _id_key(block.id) not in result_ids
        ):
            out.note(
                part.line,
                part.pointer,
                f"tool call state {block.state!r} has no LoongFlow "
                "counterpart (LoongFlow calls have no state): a call still waiting for "
                "its result reads as unanswered there (T002)",
            )
        return ToolCallBlock(
            type="tool_call",
            id=_call_id(block.id),
            name=block.name,
            arguments=arguments,
            fields=meta,
        )
    if isinstance(block, ToolResultBlock):
        result = [_loongflow_item(b, part, i, out) for i, b in enumerate(_output_items(block))]
        state = block.state
        if state == "running":
            status = "in_progress"
        elif state in _LOONGFLOW_STATUS:
            status = state
        else:
            status = "error" if state in ("interrupted", "denied") else "success"
            if state is not None:
                out.note(
                    part.line,
                    part.pointer,
                    f"tool result state {state!r} has no "
                    f"LoongFlow counterpart: written as {status!r}",
                )
        return ToolResultBlock(
            type="tool_result",
            id=_call_id(block.id),
            name=block.name,
            output=result,
            state=status,
            fields=meta,
        )
    if isinstance(block, DataBlock):
        return _loongflow_data(block, meta)
    if isinstance(block, (EvolveResultBlock, ValueBlock)):
        if isinstance(block, EvolveResultBlock):
            return EvolveResultBlock(
                type="evolve_result", fields=dict(block.fields), variant=block.variant
            )
        return ValueBlock(type="value", value=block.value, mime_type=block.mime_type, fields=meta)
    return TextBlock(
        type="text",
        text=_recast(part, out, _no_kind(block, "LoongFlow")).text,
        fields={"mime_type": "text/plain", "metadata": {}},
    )


def _loongflow_item(item: Any, part: Part, i: int, out: _Out) -> Block:
    if isinstance(item, DataBlock):
        return _loongflow_data(item, {"type": "content", "metadata": {}})
    if isinstance(item, TextBlock) and isinstance(item.text, str):
        return TextBlock(
            type="text",
            text=item.text,
            fields={"type": "content", "mime_type": "text/plain", "metadata": {}},
        )
    if isinstance(item, ValueBlock):
        return ValueBlock(
            type="value",
            value=item.value,
            mime_type=item.mime_type,
            fields={"type": "content", "metadata": {}},
        )
    out.note(
        part.line,
        f"{part.pointer}/output/{i}",
        "a tool output item of a kind LoongFlow has no place for: written as text",
    )
    return TextBlock(
        type="text",
        text=as_text(item) if isinstance(item, Block) else _json(item),
        fields={"type": "content", "mime_type": "text/plain", "metadata": {}},
    )


def _call_id(value: Any) -> str:
    """LoongFlow pairs calls and results by a UUID ``call_id``: a provider's call id
    (``call_…``) becomes a UUID made from it, the same for the call and its result."""
    u = as_uuid(value)
    if u is not None:
        return dashed(u)
    return dashed(made_id("call", value))


def _loongflow_data(block: DataBlock, meta: dict) -> DataBlock:
    source = block.source
    media_type = media_type_of(block)
    if source is None:
        new = Source(kind="url", url="", media_type=media_type)
    elif source.kind == "url":
        new = Source(kind="url", url=source.url, media_type=media_type)
    else:
        new = Source(kind="base64", data=source.data, media_type=media_type, data_uri=True)
    return DataBlock(
        type="data", kind="content", source=new, fields={"mime_type": media_type, **meta}
    )
