"""AgentScope Java's record model: ``Msg`` records read onto the neutral model and written back."""

from __future__ import annotations

import functools
import re
from datetime import datetime
from typing import Any

import orjson

from ...model import (
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
)
from ..base import (
    EVENT,
    MESSAGE,
    Dialect,
    is_number,
    other_keys,
)

NAME = "agentscope-java"

V1 = "1.x"

V2 = "2.x"

ROLES = ("USER", "ASSISTANT", "SYSTEM", "TOOL")

MESSAGE_KEYS = ("id", "name", "role", "content", "metadata", "timestamp", "usage")

MESSAGE_KEYS_V1 = MESSAGE_KEYS[:-1]

USAGE_KEYS = ("inputTokens", "outputTokens", "cachedTokens", "time", "totalTokens")

TOOL_CALL_STATES = ("pending", "asking", "allowed", "submitted", "finished")

TOOL_RESULT_STATES = ("success", "error", "interrupted", "denied", "running")

#: every key Jackson binds on each block type, in the order it writes them ("type" first);
#: image and video limits are written camelCase and read in either spelling
BLOCK_KEYS: dict[str, tuple[str, ...]] = {
    "text": ("type", "text"),
    "thinking": ("type", "thinking", "metadata"),
    "tool_use": ("type", "id", "name", "input", "content", "metadata", "state"),
    "tool_result": ("type", "id", "name", "output", "metadata", "state"),
    "image": ("type", "source", "minPixels", "min_pixels", "maxPixels", "max_pixels"),
    "audio": ("type", "source"),
    "video": (
        "type",
        "source",
        "fps",
        "maxFrames",
        "max_frames",
        "minPixels",
        "min_pixels",
        "maxPixels",
        "max_pixels",
        "totalPixels",
        "total_pixels",
    ),
    "data": ("type", "source", "id", "name"),
    "hint": ("type", "id", "hint", "source"),
}

MEDIA_TYPES = ("image", "audio", "video", "data")

SOURCE_KEYS = {"url": ("type", "url", "mime_type"), "base64": ("type", "media_type", "data")}

# Python 2.x messages and events, Python 1.x (told by its lower-case roles), LoongFlow
_FOREIGN_KEYS = (
    "created_at",
    "reply_id",
    "finished_at",
    "finished_reason",
    "sender",
    "trace_id",
    "conversation_id",
)

#: LoongFlow's content element types (AgentScope Java has none of them)
_FOREIGN_ELEMENTS = frozenset({"content", "think", "function", "tool_output", "evolve_result"})

TIMESTAMP = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2} [0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3}")

_ISO_LIKE = re.compile(
    r"[0-9]{4}-[0-9]{2}-[0-9]{2}[T ][0-9]{2}:[0-9]{2}(:[0-9]{2}(\.[0-9]{1,9})?)?"
)

#: tool_result outputs nested deeper than this are kept whole (as UnknownBlock) instead of read
MAX_DEPTH = 64


def _foreign_content(content: Any) -> bool:
    """Whether a content list holds LoongFlow elements (a cheap look at each element's type)."""
    if not isinstance(content, list):
        return False
    for el in content:
        if isinstance(el, dict):
            kind = el.get("type")
            if isinstance(kind, str) and kind in _FOREIGN_ELEMENTS:
                return True
            if kind == "tool_call" and ("call_id" in el or "target" in el):
                return True
    return False


def _has_v2_content(content: Any, depth: int) -> bool:
    """Whether a content list holds anything that only AgentScope Java 2.x writes."""
    if not isinstance(content, list) or depth > MAX_DEPTH:
        return False
    for block in content:
        if not isinstance(block, dict):
            continue
        kind = block.get("type")
        if kind in ("hint", "data"):
            return True
        if kind in ("tool_use", "tool_result") and "state" in block:
            return True
        source = block.get("source")
        if isinstance(source, dict) and source.get("type") == "url" and "mime_type" in source:
            return True
        if kind == "tool_result" and _has_v2_content(block.get("output"), depth + 1):
            return True
    return False


def _split(raw: dict, known: tuple[str, ...]) -> tuple[dict, dict]:
    fields: dict[str, Any] = {}
    extra: dict[str, Any] = {}
    for key, value in raw.items():
        if key == "type":
            continue
        if key in known:
            fields[key] = value
        else:
            extra[key] = value
    return fields, extra


def read_block(raw: Any, path: tuple, depth: int) -> Block:
    if not isinstance(raw, dict):
        return UnknownBlock(path=path, raw=raw)
    kind = raw.get("type")
    known = BLOCK_KEYS.get(kind) if isinstance(kind, str) else None
    if known is None:
        return UnknownBlock(path=path, raw=raw)
    fields, extra = _split(raw, known)
    if kind == "text":
        return TextBlock(type="text", path=path, extra=extra, text=fields.get("text"))
    if kind == "thinking":
        thinking = ThinkingBlock(
            type="thinking", path=path, extra=extra, thinking=fields.pop("thinking", None)
        )
        thinking.fields = fields  # metadata
        return thinking
    if kind == "hint":
        return HintBlock(
            type="hint",
            id=fields.get("id"),
            path=path,
            extra=extra,
            hint=fields.get("hint"),
            source=fields.get("source"),
        )
    if kind == "tool_use":
        return ToolCallBlock(
            type="tool_call",
            id=fields.pop("id", None),
            path=path,
            fields={k: v for k, v in fields.items() if k == "metadata"},
            extra=extra,
            name=fields.get("name"),
            input=fields.get("content"),
            arguments=fields.get("input"),
            state=fields.get("state"),
        )
    if kind == "tool_result":
        output = fields.get("output")
        if isinstance(output, list):
            if depth < MAX_DEPTH:
                output = [
                    read_block(item, (*path, "output", i), depth + 1)
                    for i, item in enumerate(output)
                ]
            else:  # too deep to read on: keep each element whole
                output = [
                    UnknownBlock(path=(*path, "output", i), raw=item)
                    for i, item in enumerate(output)
                ]
        return ToolResultBlock(
            type="tool_result",
            id=fields.get("id"),
            path=path,
            fields={k: v for k, v in fields.items() if k == "metadata"},
            extra=extra,
            name=fields.get("name"),
            output=output,
            state=fields.get("state"),
        )
    # image, audio, video, data
    block = DataBlock(type="data", path=path, extra=extra, kind=kind)
    if "source" in fields:
        source = _read_source(fields["source"])
        if source is not None:
            block.source = source
            del fields["source"]
    if kind == "data":
        block.id = fields.pop("id", None)
        block.name = fields.pop("name", None)
    block.fields = fields  # pixel and frame limits, or a source that is not a Source
    return block


def _read_source(raw: Any) -> Source | None:
    if not isinstance(raw, dict):
        return None
    kind = raw.get("type")
    if kind == "url":
        fields, extra = _split(raw, SOURCE_KEYS["url"])
        return Source(
            kind="url", url=fields.get("url"), media_type=fields.get("mime_type"), extra=extra
        )
    if kind == "base64":
        fields, extra = _split(raw, SOURCE_KEYS["base64"])
        return Source(
            kind="base64",
            media_type=fields.get("media_type"),
            data=fields.get("data"),
            extra=extra,
        )
    return None


def _read_usage(raw: dict) -> Usage:
    extra = other_keys(raw, USAGE_KEYS)
    return Usage(
        input_tokens=raw.get("inputTokens"),
        output_tokens=raw.get("outputTokens"),
        cached_tokens=raw.get("cachedTokens"),
        total_tokens=raw.get("totalTokens"),
        time=raw.get("time"),
        extra=extra,
    )


def _write_block(block: Block, native: bool, v2: bool) -> Any:
    fields = block.fields if native else {}
    out: dict[str, Any]
    if isinstance(block, TextBlock):
        out = {"type": "text", "text": block.text}
    elif isinstance(block, ThinkingBlock):
        out = {"type": "thinking", "thinking": block.thinking, "metadata": fields.get("metadata")}
    elif isinstance(block, HintBlock):
        source = block.source
        if not native and source is not None and not isinstance(source, str):
            source = orjson.dumps(source).decode()
        out = {"type": "hint", "id": block.id, "hint": block.hint, "source": source}
    elif isinstance(block, ToolCallBlock):
        out = _write_tool_call(block, native, v2)
    elif isinstance(block, ToolResultBlock):
        out = _write_tool_result(block, native, v2)
    elif isinstance(block, DataBlock):
        out = _write_data(block, native)
    elif isinstance(block, UnknownBlock):
        return block.raw
    elif isinstance(block, ValueBlock):  # another dialect's structured value: as JSON text
        value = block.value
        text = value if isinstance(value, str) else orjson.dumps(value).decode()
        out = {"type": "text", "text": text}
    elif isinstance(block, EvolveResultBlock):
        out = {"type": "text", "text": orjson.dumps(block.fields, default=str).decode()}
    else:
        out = {"type": block.type}
    for key, value in block.extra.items():
        out.setdefault(key, value)
    return out


def _write_tool_call(block: ToolCallBlock, native: bool, v2: bool) -> dict:
    if native:
        out = {
            "type": "tool_use",
            "id": block.id,
            "name": block.name,
            "input": block.arguments,
            "content": block.input,
            "metadata": block.fields.get("metadata"),
        }
        if v2:
            out["state"] = block.state
        return out
    arguments = block.arguments
    raw = block.input if isinstance(block.input, str) else None
    if not isinstance(arguments, dict):
        arguments = {}
        if raw is not None:
            try:
                parsed = orjson.loads(raw)
            except orjson.JSONDecodeError:
                parsed = None
            if isinstance(parsed, dict):
                arguments = parsed
    if raw is None and isinstance(block.arguments, dict):
        raw = orjson.dumps(block.arguments).decode()
    out = {
        "type": "tool_use",
        "id": block.id,
        "name": block.name,
        "input": arguments,
        "content": raw,
        "metadata": {},
    }
    if v2:
        out["state"] = block.state if block.state in TOOL_CALL_STATES else "pending"
    return out


def _write_tool_result(block: ToolResultBlock, native: bool, v2: bool) -> dict:
    output = block.output
    if isinstance(output, list):
        output = [_write_block(b, native, v2) if isinstance(b, Block) else b for b in output]
    elif not native:
        output = [] if output is None else [{"type": "text", "text": str(output)}]
    if native:
        metadata = block.fields.get("metadata")
    else:
        metadata = block.fields.get("metadata")
        metadata = dict(metadata) if isinstance(metadata, dict) else {}
    out = {
        "type": "tool_result",
        "id": block.id,
        "name": block.name,
        "output": output,
        "metadata": metadata,
    }
    if v2:
        state = block.state
        if not native:
            state = (
                {"in_progress": "running"}.get(state, state) if isinstance(state, str) else state
            )
            if state not in TOOL_RESULT_STATES:
                state = "success"
        out["state"] = state
    return out


def _write_data(block: DataBlock, native: bool) -> dict:
    kind = block.kind if block.kind in MEDIA_TYPES else "data"
    fields = block.fields if native else {}
    out: dict[str, Any] = {"type": kind}
    if block.source is not None:
        out["source"] = _write_source(block.source)
    elif "source" in fields:
        out["source"] = fields["source"]
    if kind == "data":
        if block.id is not None:
            out["id"] = block.id
        if block.name is not None:
            out["name"] = block.name
    else:
        for key in BLOCK_KEYS[kind][2:]:
            if key in fields:
                out[key] = fields[key]
    return out


def _write_source(source: Source) -> dict:
    if source.kind == "url":
        out: dict[str, Any] = {"type": "url"}
        if source.url is not None:
            out["url"] = source.url
        if source.media_type is not None:
            out["mime_type"] = source.media_type
    else:
        out = {"type": "base64", "media_type": source.media_type, "data": source.data}
    for key, value in source.extra.items():
        out.setdefault(key, value)
    return out


def _write_usage(usage: Usage | None, native: bool) -> dict | None:
    if usage is None:
        return None
    if native:
        out: dict[str, Any] = {
            "inputTokens": usage.input_tokens,
            "outputTokens": usage.output_tokens,
            "cachedTokens": usage.cached_tokens,
            "time": usage.time,
            "totalTokens": usage.total_tokens,
        }
        for key, value in usage.extra.items():
            out.setdefault(key, value)
        return out

    def count(value: Any) -> int:
        return int(value) if is_number(value) else 0

    inp, outp = count(usage.input_tokens), count(usage.output_tokens)
    time = float(usage.time) if is_number(usage.time) else 0.0  # type: ignore[arg-type]
    return {
        "inputTokens": inp,
        "outputTokens": outp,
        "cachedTokens": count(usage.cached_tokens),
        "time": time,
        "totalTokens": inp + outp,
    }


def _java_time(value: Any) -> Any:
    """Another dialect's time text in Java's ``yyyy-MM-dd HH:mm:ss.SSS`` form, when it parses."""
    if not isinstance(value, str):
        return value
    try:
        when = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return value
    return when.strftime("%Y-%m-%d %H:%M:%S.") + f"{when.microsecond // 1000:03d}"


@functools.lru_cache(maxsize=4096)
def written_time(value: str) -> datetime | None:
    """``yyyy-MM-dd HH:mm:ss.SSS`` (already matched by ``TIMESTAMP``) as a datetime.

    Built from the digits directly: ``strptime`` is the slowest step of a record otherwise,
    and the cache serves the check and the time-order comparison from one parse.
    """
    try:
        return datetime(
            int(value[0:4]),
            int(value[5:7]),
            int(value[8:10]),
            int(value[11:13]),
            int(value[14:16]),
            int(value[17:19]),
            int(value[20:23]) * 1000,
        )
    except ValueError:
        return None


class Records(Dialect):
    """AgentScope Java's record model: detection, reading, writing, times."""

    def classify(self, obj: dict) -> str | None:
        if not isinstance(obj, dict):
            return None
        for key in _FOREIGN_KEYS:
            if key in obj:
                return None
        role = obj.get("role")
        evented = "createdAt" in obj or "replyId" in obj
        if isinstance(role, str) and role != role.lower():
            # an upper-case role is Java's alone (AGENT_START's role is lower case), unless
            # the content is LoongFlow's, which takes any role string
            if evented and "content" not in obj:
                return EVENT
            return None if _foreign_content(obj.get("content")) else MESSAGE
        if evented:
            return EVENT
        if "isLast" in obj and "type" in obj:  # the deprecated coarse Event of 1.x/2.0
            return EVENT
        if "event_type" in obj and "ts" in obj and "agent_id" in obj:  # JSONL hook trace
            return EVENT
        if "usage" in obj and "content" in obj and next(iter(obj)) == "id":
            # the 2.x key order with a lower-case, missing or non-string role
            return None if _foreign_content(obj["content"]) else MESSAGE
        return None

    def variant(self, obj: dict) -> str | None:
        if not isinstance(obj, dict):
            return None
        if "usage" in obj or _has_v2_content(obj.get("content"), 0):
            return V2
        return V1

    def read(self, obj: dict) -> Message:
        msg = Message(dialect=NAME)
        if not isinstance(obj, dict):
            return msg
        msg.variant = self.variant(obj)
        for key, value in obj.items():
            if key == "id":
                msg.id = value
            elif key == "name":
                msg.name = value
            elif key == "role":
                if isinstance(value, str):
                    msg.role = value.lower()
                    if value != value.upper():
                        msg.fields["role"] = value  # written back as it was
                else:
                    msg.role = value
            elif key == "content":
                if isinstance(value, list):
                    msg.content = [
                        read_block(item, ("content", i), 0) for i, item in enumerate(value)
                    ]
                else:
                    msg.fields["content"] = value
            elif key == "metadata":
                msg.metadata = value
            elif key == "timestamp":
                msg.timestamp = value
            elif key == "usage":
                if isinstance(value, dict):
                    msg.usage = _read_usage(value)
                elif value is not None:
                    msg.fields["usage"] = value
            else:
                msg.extra[key] = value
        return msg

    def message_id(self, obj: Any) -> Any:
        return obj.get("id") if isinstance(obj, dict) else None

    def write(self, msg: Message) -> dict:
        native = msg.dialect == NAME
        v2 = msg.variant != V1
        fields = msg.fields if native else {}
        out: dict[str, Any] = {}
        out["id"] = msg.id
        out["name"] = msg.name
        if "role" in fields:
            out["role"] = fields["role"]
        else:
            out["role"] = msg.role.upper() if isinstance(msg.role, str) else msg.role
        if "content" in fields:
            out["content"] = fields["content"]
        else:
            out["content"] = [_write_block(b, native, v2) for b in msg.content]
        if native:
            out["metadata"] = msg.metadata
            out["timestamp"] = msg.timestamp
        else:
            out["metadata"] = dict(msg.metadata) if isinstance(msg.metadata, dict) else {}
            out["timestamp"] = _java_time(msg.timestamp)
        if v2:
            if "usage" in fields:
                out["usage"] = fields["usage"]
            else:
                out["usage"] = _write_usage(msg.usage, native)
        for key, value in msg.extra.items():
            out.setdefault(key, value)
        return out

    def parse_time(self, value: Any) -> datetime | None:
        """``yyyy-MM-dd HH:mm:ss.SSS`` (naive: the writer's local time).

        Near forms (no or other fraction digits, a ``T``) are read too, so a
        timestamp in the wrong format (C001) still takes part in the time
        order; a time with a zone offset cannot be compared with local times
        and gives ``None``.
        """
        if not isinstance(value, str):
            return None
        try:
            if TIMESTAMP.fullmatch(value):
                return written_time(value)
            if not _ISO_LIKE.fullmatch(value):
                return None
            text = value
            if "." in text:
                head, frac = text.split(".", 1)
                text = f"{head}.{(frac + '000000')[:6]}"
            when = datetime.fromisoformat(text)
        except ValueError:
            return None
        return when if when.tzinfo is None else None

    def parked(self, metadata: Any) -> bool:
        """A paused session: the engine keeps the reply id of the confirmation or external
        execution it waits for in the metadata of the message holding the calls, until the
        resume (``ReActAgent.persistPendingRequestReplyId``); those calls have no result yet."""
        return type(metadata) is dict and (
            "agentscope_confirm_request_reply_id" in metadata
            or "agentscope_external_execution_request_reply_id" in metadata
        )

    def finish_reason(self, msg: Message) -> Any:
        """The generate reason, which the engine writes on its stop, suspension and summary
        paths only."""
        if isinstance(msg.metadata, dict):
            return msg.metadata.get("agentscope_generate_reason")
        return None

    def token_counts(self, msg: Message) -> tuple[Any, Any, Any] | None:
        """``usage``; a message without it (the 1.x shape) may carry the same counts in
        ``metadata._chat_usage`` (never added to ``usage``: it repeats it)."""
        counts = super().token_counts(msg)
        if counts is None and isinstance(msg.metadata, dict):
            chat = msg.metadata.get("_chat_usage")
            if isinstance(chat, dict):
                return chat.get("inputTokens"), chat.get("outputTokens"), chat.get("cachedTokens")
        return counts
