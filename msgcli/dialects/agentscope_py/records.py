"""AgentScope Python's record model: ``Msg`` records of 2.x and 1.x read onto the neutral
model and written back."""

from __future__ import annotations

import re
import zlib
from datetime import UTC, datetime, timedelta, timezone
from typing import Any

from ...guard import as_key
from ...model import (
    Block,
    DataBlock,
    HintBlock,
    Message,
    Source,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
    ToolResultBlock,
    UnknownBlock,
    Usage,
)
from ..base import (
    EVENT,
    MESSAGE,
    Dialect,
    other_keys,
)
from .events import is_agui, is_stream_wrapper

NAME = "agentscope-py"

V1 = "1.x"

V2 = "2.x"

#: the path of a content value that is not a list (1.x text content, or a malformed record)
_WHOLE_CONTENT = ("content",)

# -- 2.x ------------------------------------------------------------------------
#: message keys in the order ``model_dump_json`` writes them
_MSG2_KEYS = (
    "name",
    "content",
    "role",
    "id",
    "metadata",
    "created_at",
    "usage",
    "finished_at",
    "finished_reason",
    "structured_output",
    "error",
)

#: 2.x message keys kept in ``Message.fields``
_MSG2_FIELDS = ("finished_at", "finished_reason", "structured_output", "error")

#: 2.x block keys in output order, ``type`` first
_BLOCK2_KEYS = {
    "text": ("type", "text", "id", "created_at", "finished_at"),
    "thinking": ("type", "thinking", "id", "created_at", "finished_at"),
    "hint": ("type", "hint", "id", "source", "created_at", "finished_at"),
    "tool_call": (
        "type",
        "id",
        "name",
        "input",
        "state",
        "suggested_rules",
        "created_at",
        "finished_at",
    ),
    "tool_result": (
        "type",
        "id",
        "name",
        "output",
        "state",
        "metadata",
        "created_at",
        "finished_at",
    ),
    "data": ("type", "id", "source", "name", "created_at", "finished_at"),
}

#: block types allowed inside a 2.x ``tool_result.output`` or ``hint`` list
NESTED2 = frozenset({"text", "data"})

_SOURCE2_KEYS = {"base64": ("type", "data", "media_type"), "url": ("type", "url", "media_type")}

_USAGE2_KEYS = (
    "input_tokens",
    "output_tokens",
    "cache_input_tokens",
    "cache_creation_input_tokens",
)

MSG2_KEYSET = frozenset(_MSG2_KEYS)

BLOCK2_KEYSETS = {kind: frozenset(keys) for kind, keys in _BLOCK2_KEYS.items()}

TEXT2_KEYSET = BLOCK2_KEYSETS["text"]

USAGE2_KEYSET = frozenset(_USAGE2_KEYS)

# -- 1.x ------------------------------------------------------------------------
#: message keys in the order ``to_dict`` writes them
_MSG1_KEYS = ("id", "name", "role", "content", "metadata", "timestamp")

#: keys ``from_dict`` reads but ``to_dict`` does not write
_MSG1_FIELDS = ("invocation_id",)

_MEDIA1 = ("image", "audio", "video")

_BLOCK1_KEYS = {
    "text": ("type", "text"),
    "thinking": ("type", "thinking"),
    "image": ("type", "source"),
    "audio": ("type", "source"),
    "video": ("type", "source"),
    "tool_use": ("type", "id", "name", "input", "raw_input"),
    "tool_result": ("type", "id", "name", "output"),
}

_NESTED1 = frozenset({"text", *_MEDIA1})

_SOURCE1_KEYS = {"base64": ("type", "media_type", "data"), "url": ("type", "url")}

# -- times ----------------------------------------------------------------------
#: what ``datetime.now().isoformat()`` writes (the fraction is left out at 0 µs)
ISO_WRITTEN = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{6})?$")

#: what 1.x writes: ``strftime("%Y-%m-%d %H:%M:%S.%f")[:-3]``
V1_WRITTEN = re.compile(r"^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\.\d{3}$")

_TIME = re.compile(
    r"^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?"
    r"\s*(Z|[+-]\d{2}(?::?\d{2})?)?$",
    re.IGNORECASE,
)

#: keys that mark another dialect's record (AgentScope Java, LoongFlow)
_FOREIGN_KEYS = ("createdAt", "replyId", "sender", "trace_id", "conversation_id")

#: message keys only AgentScope Python 2.x writes
_V2_ONLY = ("created_at", "finished_at", "finished_reason", "structured_output")


def _pick(obj: dict, keys: tuple[str, ...]) -> dict:
    """The present keys among ``keys``, with their values (in the order of ``keys``)."""
    out = {}
    for key in keys:
        if key in obj:
            out[key] = obj[key]
    return out


def _read_content(value: Any, v1: bool) -> list[Block]:
    if isinstance(value, list):
        return _read_blocks(value, ("content",), v1, nested=False)
    if isinstance(value, str):
        return [TextBlock(type="text", text=value, path=_WHOLE_CONTENT)]
    return [UnknownBlock(type="unknown", path=_WHOLE_CONTENT, raw=value)]


def _read_blocks(items: list, base: tuple, v1: bool, nested: bool) -> list[Block]:
    out: list[Block] = []
    for i, item in enumerate(items):
        path = (*base, i)
        block = _read_block_v1(item, path, nested) if v1 else read_block_v2(item, path, nested)
        out.append(block)
    return out


def _unknown(item: Any, path: tuple) -> UnknownBlock:
    return UnknownBlock(type="unknown", path=path, raw=item)


def _read_source(raw: Any, v1: bool) -> Source | None:
    """A :class:`Source` for a well-formed source object, else ``None`` (kept raw)."""
    if not isinstance(raw, dict):
        return None
    kind = raw.get("type")
    table = _SOURCE1_KEYS if v1 else _SOURCE2_KEYS
    if not isinstance(kind, str) or kind not in table:
        return None
    known = table[kind]
    return Source(
        kind=kind,
        url=raw.get("url") if kind == "url" else None,
        data=raw.get("data") if kind == "base64" else None,
        media_type=raw.get("media_type") if "media_type" in known else None,
        extra=other_keys(raw, known),
    )


def read_nested_block(item: Any, path: tuple) -> Block:
    """A block inside a ``tool_result`` output or a ``hint`` list, read as this dialect reads
    it (text and data blocks; anything else is an :class:`UnknownBlock`)."""
    return read_block_v2(item, path, True)


def read_block_v2(item: Any, path: tuple, nested: bool) -> Block:
    if not isinstance(item, dict):
        return _unknown(item, path)
    kind = item.get("type")
    if not isinstance(kind, str) or kind not in _BLOCK2_KEYS or (nested and kind not in NESTED2):
        return _unknown(item, path)
    known = _BLOCK2_KEYS[kind]
    extra = other_keys(item, known)
    bid = item.get("id")
    times = _pick(item, ("created_at", "finished_at"))
    if kind == "text":
        return TextBlock(
            type="text", id=bid, path=path, fields=times, extra=extra, text=item.get("text")
        )
    if kind == "thinking":
        return ThinkingBlock(
            type="thinking",
            id=bid,
            path=path,
            fields=times,
            extra=extra,
            thinking=item.get("thinking"),
        )
    if kind == "hint":
        return HintBlock(
            type="hint",
            id=bid,
            path=path,
            fields=times,
            extra=extra,
            hint=item.get("hint"),
            source=item.get("source"),
        )
    if kind == "tool_call":
        return ToolCallBlock(
            type="tool_call",
            id=bid,
            path=path,
            fields=_pick(item, ("suggested_rules", "created_at", "finished_at")),
            extra=extra,
            name=item.get("name"),
            input=item.get("input"),
            state=item.get("state"),
        )
    if kind == "tool_result":
        output = item.get("output")
        if isinstance(output, list):
            output = _read_blocks(output, (*path, "output"), v1=False, nested=True)
        return ToolResultBlock(
            type="tool_result",
            id=bid,
            path=path,
            fields=_pick(item, ("metadata", "created_at", "finished_at")),
            extra=extra,
            name=item.get("name"),
            output=output,
            state=item.get("state"),
        )
    # data
    raw_source = item.get("source")
    source = _read_source(raw_source, v1=False)
    fields = (
        times if source is not None or "source" not in item else {"source": raw_source, **times}
    )
    return DataBlock(
        type="data",
        id=bid,
        path=path,
        fields=fields,
        extra=extra,
        kind="data",
        source=source,
        name=item.get("name"),
    )


def _read_block_v1(item: Any, path: tuple, nested: bool) -> Block:
    if not isinstance(item, dict):
        return _unknown(item, path)
    kind = item.get("type")
    if not isinstance(kind, str) or kind not in _BLOCK1_KEYS or (nested and kind not in _NESTED1):
        return _unknown(item, path)
    extra = other_keys(item, _BLOCK1_KEYS[kind])
    if kind == "text":
        return TextBlock(type="text", path=path, extra=extra, text=item.get("text"))
    if kind == "thinking":
        return ThinkingBlock(type="thinking", path=path, extra=extra, thinking=item.get("thinking"))
    if kind == "tool_use":
        return ToolCallBlock(
            type="tool_call",
            id=item.get("id"),
            path=path,
            extra=extra,
            name=item.get("name"),
            input=item.get("raw_input"),
            arguments=item.get("input"),
        )
    if kind == "tool_result":
        output = item.get("output")
        if isinstance(output, list):
            output = _read_blocks(output, (*path, "output"), v1=True, nested=True)
        return ToolResultBlock(
            type="tool_result",
            id=item.get("id"),
            path=path,
            extra=extra,
            name=item.get("name"),
            output=output,
        )
    # image / audio / video
    raw_source = item.get("source")
    source = _read_source(raw_source, v1=True)
    fields = {"source": raw_source} if source is None and "source" in item else {}
    return DataBlock(type="data", path=path, fields=fields, extra=extra, kind=kind, source=source)


def _read_usage_v2(raw: Any) -> Usage | None:
    if not isinstance(raw, dict):
        return None
    return Usage(
        input_tokens=raw.get("input_tokens"),
        output_tokens=raw.get("output_tokens"),
        cached_tokens=raw.get("cache_input_tokens"),
        cache_creation_tokens=raw.get("cache_creation_input_tokens"),
        extra=other_keys(raw, _USAGE2_KEYS),
    )


def _read_v2(obj: dict) -> Message:
    fields = _pick(obj, _MSG2_FIELDS)
    raw_usage = obj.get("usage")
    usage = _read_usage_v2(raw_usage)
    if usage is None and raw_usage is not None:
        fields["usage"] = raw_usage  # not an object: kept as written
    return Message(
        dialect=NAME,
        role=obj.get("role"),
        name=obj.get("name"),
        id=obj.get("id"),
        content=_read_content(obj.get("content"), v1=False) if "content" in obj else [],
        metadata=obj.get("metadata"),
        timestamp=obj.get("created_at"),
        usage=usage,
        variant=V2,
        fields=fields,
        extra=other_keys(obj, _MSG2_KEYS),
    )


def _read_v1(obj: dict) -> Message:
    return Message(
        dialect=NAME,
        role=obj.get("role"),
        name=obj.get("name"),
        id=obj.get("id"),
        content=_read_content(obj.get("content"), v1=True) if "content" in obj else [],
        metadata=obj.get("metadata"),
        timestamp=obj.get("timestamp"),
        usage=None,
        variant=V1,
        fields=_pick(obj, _MSG1_FIELDS),
        extra=other_keys(obj, (*_MSG1_KEYS, *_MSG1_FIELDS)),
    )


def _write_content(blocks: list[Block], v1: bool) -> Any:
    if len(blocks) == 1 and tuple(blocks[0].path) == _WHOLE_CONTENT:
        whole = blocks[0]
        if isinstance(whole, TextBlock):
            return whole.text
        if isinstance(whole, UnknownBlock):
            return whole.raw
    write = _write_block_v1 if v1 else _write_block_v2
    return [write(b) for b in blocks]


def _write_source(source: Source, v1: bool) -> dict:
    out: dict[str, Any] = {"type": source.kind}
    if source.kind == "base64":
        if v1:
            out["media_type"] = source.media_type
            out["data"] = source.data
        else:
            out["data"] = source.data
            out["media_type"] = source.media_type
    elif source.kind == "url":
        out["url"] = source.url
        if not v1 or source.media_type is not None:
            out["media_type"] = source.media_type
    else:
        for key in ("url", "data", "media_type"):
            value = getattr(source, key)
            if value is not None:
                out[key] = value
    out.update(source.extra)
    return out


def _data_source(block: DataBlock, v1: bool) -> Any:
    if block.source is not None:
        return _write_source(block.source, v1)
    return block.fields.get("source")


def _write_block_v2(block: Block) -> Any:
    if isinstance(block, UnknownBlock):
        return block.raw
    f = block.fields
    if isinstance(block, TextBlock):
        out = {"type": "text", "text": block.text, "id": block.id}
    elif isinstance(block, ThinkingBlock):
        out = {"type": "thinking", "thinking": block.thinking, "id": block.id}
    elif isinstance(block, HintBlock):
        out = {"type": "hint", "hint": block.hint, "id": block.id, "source": block.source}
    elif isinstance(block, ToolCallBlock):
        out = {
            "type": "tool_call",
            "id": block.id,
            "name": block.name,
            "input": block.input,
            "state": block.state,
            "suggested_rules": f.get("suggested_rules"),
        }
    elif isinstance(block, ToolResultBlock):
        output = block.output
        if isinstance(output, list):
            output = [_write_block_v2(b) if isinstance(b, Block) else b for b in output]
        out = {
            "type": "tool_result",
            "id": block.id,
            "name": block.name,
            "output": output,
            "state": block.state,
            "metadata": f.get("metadata"),
        }
    elif isinstance(block, DataBlock):
        out = {
            "type": "data",
            "id": block.id,
            "source": _data_source(block, v1=False),
            "name": block.name,
        }
    else:
        out = {"type": block.type, "id": block.id}
    out["created_at"] = f.get("created_at")
    out["finished_at"] = f.get("finished_at")
    out.update(block.extra)
    return out


def _write_block_v1(block: Block) -> Any:
    if isinstance(block, UnknownBlock):
        return block.raw
    if isinstance(block, TextBlock):
        out: dict[str, Any] = {"type": "text", "text": block.text}
    elif isinstance(block, ThinkingBlock):
        out = {"type": "thinking", "thinking": block.thinking}
    elif isinstance(block, ToolCallBlock):
        out = {"type": "tool_use", "id": block.id, "name": block.name, "input": block.arguments}
        if block.input is not None:
            out["raw_input"] = block.input
    elif isinstance(block, ToolResultBlock):
        output = block.output
        if isinstance(output, list):
            output = [_write_block_v1(b) if isinstance(b, Block) else b for b in output]
        out = {"type": "tool_result", "id": block.id, "name": block.name, "output": output}
    elif isinstance(block, DataBlock):
        out = {"type": _media_kind_v1(block), "source": _data_source(block, v1=True)}
    else:
        out = {"type": block.type}
    out.update(block.extra)
    return out


def _media_kind_v1(block: DataBlock) -> str:
    if block.kind in _MEDIA1:
        return block.kind
    media_type = block.source.media_type if block.source is not None else None
    if isinstance(media_type, str):
        major = media_type.split("/", 1)[0].lower()
        if major in _MEDIA1:
            return major
    return block.kind


def _write_usage_v2(msg: Message) -> Any:
    usage = msg.usage
    if usage is None:
        return msg.fields.get("usage")
    out = {
        "input_tokens": usage.input_tokens,
        "output_tokens": usage.output_tokens,
        "cache_input_tokens": usage.cached_tokens,
        "cache_creation_input_tokens": usage.cache_creation_tokens,
    }
    out.update(usage.extra)
    return out


def _write_v2(msg: Message) -> dict:
    f = msg.fields
    out = {
        "name": msg.name,
        "content": _write_content(msg.content, v1=False),
        "role": msg.role,
        "id": msg.id,
        "metadata": msg.metadata,
        "created_at": msg.timestamp,
        "usage": _write_usage_v2(msg),
        "finished_at": f.get("finished_at"),
        "finished_reason": f.get("finished_reason"),
        "structured_output": f.get("structured_output"),
        "error": f.get("error"),
    }
    out.update(msg.extra)
    return out


def _write_v1(msg: Message) -> dict:
    out = {
        "id": msg.id,
        "name": msg.name,
        "role": msg.role,
        "content": _write_content(msg.content, v1=True),
        "metadata": msg.metadata,
        "timestamp": msg.timestamp,
    }
    for key in _MSG1_FIELDS:
        if key in msg.fields:
            out[key] = msg.fields[key]
    out.update(msg.extra)
    return out


def message_part_key(
    role: Any, name: Any, first_block_id: Any, unfinished: bool
) -> tuple[int, int, bool]:
    """``(sender, first block, unfinished)`` of a record, kept as numbers (one per message);
    the same in every process, as parts of a file are digested in several."""
    who = zlib.crc32(f"{as_key(role)}\x00{as_key(name)}".encode("utf-8", "surrogatepass"))
    first = str(as_key(first_block_id)).encode("utf-8", "surrogatepass")
    return who, zlib.crc32(first), unfinished


class Records(Dialect):
    """AgentScope Python's record model: detection, reading, writing, times, parts."""

    def classify(self, obj: Any) -> str | None:
        if not isinstance(obj, dict):
            return None
        for key in _FOREIGN_KEYS:
            if key in obj:
                return None
        has_content = "content" in obj
        if "reply_id" in obj and not has_content:
            return EVENT
        if is_agui(obj) or is_stream_wrapper(obj):
            return EVENT
        kind = obj.get("type")
        if isinstance(kind, str) and kind.isupper() and "created_at" in obj and not has_content:
            return EVENT  # CUSTOM events have no reply_id
        role = obj.get("role")
        if isinstance(role, str) and role.isupper():
            return None  # AgentScope Java writes USER/ASSISTANT/SYSTEM/TOOL
        if not has_content and "role" not in obj:
            return None
        for key in _V2_ONLY:
            if key in obj:
                return MESSAGE
        if "timestamp" in obj and "usage" not in obj:
            mid = obj.get("id")
            if isinstance(mid, str) and len(mid) == 36 and mid.count("-") == 4:
                return None  # a UUID: AgentScope Java or LoongFlow
            stamp = obj.get("timestamp")
            if isinstance(stamp, str) and len(stamp) > 10 and stamp[10] == " ":
                return MESSAGE
            if isinstance(mid, str) and len(mid) == 22:  # a shortuuid
                return MESSAGE
        return None

    def variant(self, obj: Any) -> str | None:
        if not isinstance(obj, dict):
            return None
        if "timestamp" in obj and "created_at" not in obj:
            return V1
        return V2

    def read(self, obj: Any) -> Message:
        if not isinstance(obj, dict):
            return Message(dialect=NAME)
        if self.variant(obj) == V1:
            return _read_v1(obj)
        return _read_v2(obj)

    def message_id(self, obj: Any) -> Any:
        return obj.get("id") if isinstance(obj, dict) else None

    def write(self, msg: Message) -> dict:
        if msg.variant == V1:
            return _write_v1(msg)
        return _write_v2(msg)

    def finish_reason(self, msg: Message) -> Any:
        return msg.fields.get("finished_reason")

    def message_part(self, msg: Message) -> Any:
        """A message may be written in parts under its one id. When the agent compresses its
        context in the middle of a reply, ``_split_context_for_compression``
        (agentscope-ai/agentscope, src/agentscope/agent/_agent.py:2685-2795) splits the
        boundary message into two deep copies, ``content[:k+1]`` and ``content[k+1:]``, and
        ``offload_context`` (src/agentscope/workspace/_base.py:1004-1058, called at
        _agent.py:629) appends the first to the session's context.jsonl; the kept part, and
        what the reply adds after it, are offloaded by a later compression. The parts keep
        the reply's id, role and name; they start with different blocks (their
        ``created_at`` may differ: in a real run each reasoning step's part has its own, and
        is offloaded unfinished, before the reply ends). So a record is another part of a
        message seen before when it has the same sender and starts with another block, and
        an earlier part is unfinished (no ``finished_reason``) or has its ``created_at``; a
        record with the same first block is the same record again (I001), as is one from
        another sender or a second finished message under the id. (No other writer of this
        dialect repeats an id; LoongFlow's interrupt message, added twice when a run is
        cancelled through ``interrupt()`` (framework/base/agent_base.py:66-104), is made
        anew each time by ``Message.from_text`` (framework/react/react_agent.py:194-201),
        with a fresh uuid4 id, so it is two messages.)"""
        if msg.content and msg.content[0].id is not None:
            unfinished = msg.fields.get("finished_reason") is None
            return message_part_key(msg.role, msg.name, msg.content[0].id, unfinished)
        return None

    def parse_time(self, value: Any) -> datetime | None:
        if not isinstance(value, str):
            return None
        m = _TIME.match(value.strip())
        if m is None:
            return None
        year, month, day, hour, minute, second, fraction, zone = m.groups()
        micro = int((fraction or "0")[:6].ljust(6, "0"))
        try:
            when = datetime(
                int(year),
                int(month),
                int(day),
                int(hour),
                int(minute),
                int(second or 0),
                micro,
            )
        except ValueError:
            return None
        if zone:
            if zone.upper() == "Z":
                offset = timedelta(0)
            else:
                digits = zone[1:].replace(":", "")
                hours, minutes = int(digits[:2]), int(digits[2:4] or 0)
                if hours > 23 or minutes > 59:
                    return None
                offset = timedelta(hours=hours, minutes=minutes)
                if zone[0] == "-":
                    offset = -offset
            # An offset is never written by AgentScope; compare such times in UTC.
            when = when.replace(tzinfo=timezone(offset)).astimezone(UTC)
            when = when.replace(tzinfo=None)
        return when
