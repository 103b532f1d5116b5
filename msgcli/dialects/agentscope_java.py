"""AgentScope Java: ``Msg`` records as Jackson writes them.

The format is ``io.agentscope.core.message.Msg`` of ``agentscope-ai/agentscope-java``
(2.x, and the older 1.x shape), serialised by the framework's Jackson mapper:

- message keys, in order: ``id``, ``name``, ``role``, ``content``, ``metadata``,
  ``timestamp``, ``usage`` (1.x has no ``usage``); roles are upper case
  (``USER``, ``ASSISTANT``, ``SYSTEM``, ``TOOL``);
- blocks ``text``, ``thinking``, ``tool_use``, ``tool_result``, ``image``,
  ``audio``, ``video``, and in 2.x ``hint`` and ``data``; ``type`` comes first;
- a tool call holds its arguments twice: ``input`` (the parsed object) and
  ``content`` (the raw JSON text the model streamed, or null);
- tool results sit in ``TOOL`` messages, one ``tool_result`` per message;
- ``timestamp`` is ``yyyy-MM-dd HH:mm:ss.SSS`` in the JVM's local zone.

A record's version shape is told by what it holds: ``usage``, a ``hint`` or
``data`` block, a ``state`` on a tool call or result, or a ``mime_type`` on a
URL source only exist in 2.x; a record with none of them is the 1.x shape
(six keys). Jackson ignores unknown keys, so every key it does not bind is
kept in ``extra`` and reported.
"""

from __future__ import annotations

import functools
import re
from datetime import datetime
from types import MappingProxyType
from typing import Any

import orjson

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
from ..textsafe import short
from .base import DIGEST_CALL as _CALL
from .base import DIGEST_RESULT as _RESULT
from .base import (
    EVENT,
    MESSAGE,
    Dialect,
    Emit,
    has_words,
    id_key,
    is_number,
    micros,
    object_text,
    other_keys,
    says_nothing,
)

__all__ = ["DIALECT", "AgentScopeJava"]

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
BLOCK_TYPES = tuple(BLOCK_KEYS)
MEDIA_TYPES = ("image", "audio", "video", "data")
SOURCE_KEYS = {"url": ("type", "url", "mime_type"), "base64": ("type", "media_type", "data")}

#: keys of each block that Jackson writes even when null, and what loading does without them
_ALWAYS_WRITTEN: dict[str, tuple[tuple[str, str], ...]] = {
    "text": (("text", 'reads the text as ""'),),
    "thinking": (("thinking", 'reads the thinking as ""'), ("metadata", "reads it as null")),
    "tool_use": (
        ("id", "leaves the call without an id"),
        ("name", "leaves the call without a tool name"),
        ("input", "reads the arguments as {}"),
        ("content", "leaves the raw argument text unset"),
        ("metadata", "reads it as {}"),
    ),
    "tool_result": (
        ("id", "leaves the result without the id of its call"),
        ("name", "leaves the result without a tool name"),
        ("output", "reads the output as []"),
        ("metadata", "reads it as {}"),
    ),
    "data": (("id", "gives the block a fresh random id"),),
    "hint": (
        ("id", "reads it as null"),
        ("hint", "reads it as null"),
        ("source", "reads it as null"),
    ),
}
#: keys written in 2.x only
_ALWAYS_WRITTEN_V2: dict[str, tuple[tuple[str, str], ...]] = {
    "tool_use": (("state", 'reads the state as "pending"'),),
    "tool_result": (("state", 'reads the state as "running"'),),
}
_MESSAGE_KEY_EFFECT = {
    "id": "leaves the message without an id",
    "name": "reads the name as null",
    "content": "reads the content as []",
    "metadata": "reads the metadata as {}",
    "timestamp": "leaves the message without a time",
    "usage": "reads the usage as null",
}

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
_TIMESTAMP = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2} [0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3}")
_ISO_LIKE = re.compile(
    r"[0-9]{4}-[0-9]{2}-[0-9]{2}[T ][0-9]{2}:[0-9]{2}(:[0-9]{2}(\.[0-9]{1,9})?)?"
)
#: tool_result outputs nested deeper than this are kept whole (as UnknownBlock) instead of read
_MAX_DEPTH = 64


#: legacy names ``AgentEventType.fromValue`` still maps (never as an event's own type)
EVENT_ALIASES = {
    "RUN_STARTED": "AGENT_START",
    "REPLY_START": "AGENT_START",
    "RUN_FINISHED": "AGENT_END",
    "REPLY_END": "AGENT_END",
    "MODEL_CALL_STARTED": "MODEL_CALL_START",
    "MODEL_CALL_ENDED": "MODEL_CALL_END",
    "BINARY_BLOCK_START": "DATA_BLOCK_START",
    "BINARY_BLOCK_DELTA": "DATA_BLOCK_DELTA",
    "BINARY_BLOCK_END": "DATA_BLOCK_END",
    "TOOL_RESULT_BINARY_DELTA": "TOOL_RESULT_DATA_DELTA",
    "THREAD_EXPOSED": "SUBAGENT_EXPOSED",
}


class AgentScopeJava(Dialect):
    name = NAME
    title = "AgentScope Java"
    writer = "msgcli.converters.agentscope_java:WRITER"
    formatters = MappingProxyType(
        {
            "openai": "msgcli.formatters.java.openai:FORMATTER",
            "dashscope": "msgcli.formatters.java.dashscope:FORMATTER",
            "anthropic": "msgcli.formatters.java.anthropic:FORMATTER",
        }
    )
    keeps_extra_on = frozenset()
    # TOOL messages carry results; the engine's suspended and stopped replies
    # (buildSuspendedMsg, buildStopMsg) hold a call and its result in one ASSISTANT message.
    tool_result_roles = frozenset({"tool", "assistant"})
    tool_input_key = "content"

    # -- detection ------------------------------------------------------------

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

    def prepare_event(self, raw: bytes, obj: dict, emit: Emit) -> None:
        """Resolve the ``type`` Jackson writes twice, and legacy type names.

        orjson keeps the last ``type``; Jackson's reader takes the first (the
        type id that picks the event class), so that one wins when they differ.
        """
        kind = obj.get("type")
        if raw[:9] == b'{"type":"':
            end = raw.find(b'"', 9)
            if end > 0 and raw.find(b"\\", 9, end) < 0:
                first = raw[9:end].decode("utf-8", "replace")
                if first != kind:
                    emit(
                        "E010",
                        f"the event's two 'type' keys disagree: {short(first)} first, "
                        f"{short(kind)} last; replayed as {short(first)}, "
                        "the one AgentScope Java reads",
                        "/type",
                    )
                    obj["type"] = kind = first
        if type(kind) is str and kind in EVENT_ALIASES:
            current = EVENT_ALIASES[kind]
            emit(
                "E012",
                f"{kind} is a legacy name the framework no longer reads as an event type: "
                f"replayed as {current}",
                "/type",
            )
            obj["type"] = current

    def event_schema(self, obj: dict) -> str:
        """The deprecated coarse ``Event`` (``type, message, isLast``) has a schema of its own."""
        if "isLast" in obj and "createdAt" not in obj:
            return f"{NAME}/legacy-event"
        return f"{NAME}/event"

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

    def parked(self, metadata: Any) -> bool:
        """A paused session: the engine keeps the reply id of the confirmation or external
        execution it waits for in the metadata of the message holding the calls, until the
        resume (``ReActAgent.persistPendingRequestReplyId``); those calls have no result yet."""
        return type(metadata) is dict and (
            "agentscope_confirm_request_reply_id" in metadata
            or "agentscope_external_execution_request_reply_id" in metadata
        )

    def variant(self, obj: dict) -> str | None:
        if not isinstance(obj, dict):
            return None
        if "usage" in obj or _has_v2_content(obj.get("content"), 0):
            return V2
        return V1

    # -- reading --------------------------------------------------------------

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
                        _read_block(item, ("content", i), 0) for i, item in enumerate(value)
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

    # -- writing --------------------------------------------------------------

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

    # -- checks ---------------------------------------------------------------

    def check(self, obj: dict, msg: Message, emit: Emit) -> None:
        if not isinstance(obj, dict):
            return
        v2 = msg.variant != V1
        version = "2.x" if v2 else "1.x"
        for key in MESSAGE_KEYS if v2 else MESSAGE_KEYS_V1:
            if key in obj or key == "role":  # a missing role is a schema error
                continue
            why = ""
            if key == "usage":
                why = " (this record is of the 2.x shape: it holds 2.x blocks or keys)"
            emit(
                "S004",
                f"the message has no {short(key)} key, which AgentScope Java {version} writes on "
                f"every message{why}; loading it {_MESSAGE_KEY_EFFECT[key]}",
                "",
            )
        content = obj.get("content")
        if isinstance(content, list):
            _check_blocks(content, ("content",), v2, emit, 0)

        if "timestamp" in obj:
            _check_timestamp(obj["timestamp"], emit)

        usage = obj.get("usage")
        if isinstance(usage, dict):
            for key in USAGE_KEYS:
                if key not in usage:
                    effect = "recomputes it" if key == "totalTokens" else "reads it as 0"
                    emit(
                        "S004",
                        f"the usage has no {short(key)} key, which AgentScope Java always "
                        f"writes; loading it {effect}",
                        "/usage",
                    )
            _check_total(usage, ("usage",), emit)
        metadata = obj.get("metadata")
        if isinstance(metadata, dict):
            chat_usage = metadata.get("_chat_usage")
            if isinstance(chat_usage, dict):
                _check_total(chat_usage, ("metadata", "_chat_usage"), emit)

    # -- time -----------------------------------------------------------------

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
            if _TIMESTAMP.fullmatch(value):
                return _written_time(value)
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

    # -- the fast path ---------------------------------------------------------
    def fast_digest(self, obj: dict) -> tuple[str | None, tuple] | None:
        # a 2.x record as Jackson writes it, with text, thinking and tool blocks;
        # anything else takes the full path
        if obj.keys() != _MESSAGE_KEYSET:
            return None
        role = obj["role"]
        if role not in _ROLESET:
            return None
        stamp = obj["timestamp"]
        if type(stamp) is not str or not _TIMESTAMP.fullmatch(stamp):
            return None
        when = _written_time(stamp)
        if when is None:
            return None
        usage = obj["usage"]
        if usage is not None and (
            type(usage) is not dict
            or usage.keys() != _USAGE_KEYSET
            or not says_nothing(_check_total, usage, ("usage",))
        ):
            return None
        metadata = obj["metadata"]
        if type(metadata) is dict and "_chat_usage" in metadata:
            chat = metadata["_chat_usage"]
            if type(chat) is dict and not says_nothing(
                _check_total, chat, ("metadata", "_chat_usage")
            ):
                return None
        content = obj["content"]
        if type(content) is not list:
            return None
        results_allowed = role in ("TOOL", "ASSISTANT")
        empty = True
        tools: list[tuple] = []
        for index, block in enumerate(content):
            if type(block) is not dict:
                return None
            kind = block.get("type")
            if type(kind) is not str or block.keys() != _FAST_BLOCK_KEYSETS.get(kind):
                return None
            if kind == "text":
                if has_words(block["text"]):
                    empty = False
                continue
            empty = False
            if kind == "thinking":
                continue
            bid = block["id"]
            if type(bid) is not str or not bid:
                return None
            name = block["name"]
            if kind == "tool_use":
                if type(name) is not str or name.startswith("__"):
                    return None
                text = block["content"]
                if text is not None and (type(text) is not str or not object_text(text)):
                    return None
                state = "parked" if self.parked(obj["metadata"]) else block["state"]
                tools.append((_CALL, bid, ("content", index), name, state, bid))
            elif results_allowed:  # a tool_result
                output = block["output"]
                if type(output) is not list:
                    return None
                for item in output:
                    if type(item) is not dict or item.keys() != _TEXT_KEYSET:
                        return None
                    if item["type"] != "text":
                        return None
                tools.append((_RESULT, bid, ("content", index), name, bid))
            else:
                return None
        if empty:
            return None
        mid = obj["id"]
        return V2, (id_key(mid), mid, micros(when), None, tuple(tools))


DIALECT = AgentScopeJava()
_MESSAGE_KEYSET = frozenset(MESSAGE_KEYS)
_ROLESET = frozenset(ROLES)
_USAGE_KEYSET = frozenset(USAGE_KEYS)
_TEXT_KEYSET = frozenset(BLOCK_KEYS["text"])
#: the block types the fast path takes, each with every key Jackson writes on it
_FAST_BLOCK_KEYSETS = {
    kind: frozenset(BLOCK_KEYS[kind]) for kind in ("text", "thinking", "tool_use", "tool_result")
}


# -- reading helpers ----------------------------------------------------------


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
    if not isinstance(content, list) or depth > _MAX_DEPTH:
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


def _read_block(raw: Any, path: tuple, depth: int) -> Block:
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
            if depth < _MAX_DEPTH:
                output = [
                    _read_block(item, (*path, "output", i), depth + 1)
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


# -- writing helpers ----------------------------------------------------------


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


# -- check helpers ------------------------------------------------------------


def _check_blocks(content: list, path: tuple, v2: bool, emit: Emit, depth: int) -> None:
    if depth > _MAX_DEPTH:
        return
    for i, block in enumerate(content):
        if not isinstance(block, dict):
            continue
        kind = block.get("type")
        if not isinstance(kind, str):
            continue
        here = (*path, i)
        wanted = _ALWAYS_WRITTEN.get(kind, ())
        if v2:
            wanted = wanted + _ALWAYS_WRITTEN_V2.get(kind, ())
        for key, effect in wanted:
            if key not in block:
                emit(
                    "S004",
                    f"the {kind} block has no {short(key)} key, which AgentScope Java always "
                    f"writes; loading it {effect}",
                    pointer(here),
                )
        if kind == "tool_result" and isinstance(block.get("output"), list):
            _check_blocks(block["output"], (*here, "output"), v2, emit, depth + 1)


@functools.lru_cache(maxsize=4096)
def _written_time(value: str) -> datetime | None:
    """``yyyy-MM-dd HH:mm:ss.SSS`` (already matched by ``_TIMESTAMP``) as a datetime.

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


def _check_timestamp(value: Any, emit: Emit) -> None:
    if value is None:
        emit(
            "C001",
            "the timestamp is null; AgentScope Java stamps every message it makes "
            "(yyyy-MM-dd HH:mm:ss.SSS)",
            "/timestamp",
        )
        return
    if not isinstance(value, str):
        return  # a schema error
    if _TIMESTAMP.fullmatch(value):
        if _written_time(value) is None:
            emit("C001", f"the timestamp {short(value)} is not a real date and time", "/timestamp")
        return
    emit(
        "C001",
        f"the timestamp {short(value)} is not in the form AgentScope Java writes: "
        "yyyy-MM-dd HH:mm:ss.SSS in local time without a zone, e.g. 2026-08-22 23:15:56.123",
        "/timestamp",
    )


def _check_total(usage: dict, path: tuple, emit: Emit) -> None:
    if "totalTokens" not in usage:
        return
    total = usage["totalTokens"]
    inp = usage.get("inputTokens")
    out = usage.get("outputTokens")
    inp = 0 if inp is None else inp  # Jackson reads a missing or null count as 0
    out = 0 if out is None else out
    if not (is_number(inp) and is_number(out)):
        return  # a schema error
    where = pointer(path, "totalTokens")
    if not is_number(total):
        emit(
            "B003",
            f"totalTokens is {short(total)}, not a number; AgentScope Java writes "
            f"inputTokens + outputTokens = {inp + out}",
            where,
        )
    elif total != inp + out:
        emit(
            "B003",
            f"totalTokens is {short(total)} but inputTokens + outputTokens is {inp + out} "
            f"({short(inp)} + {short(out)}); AgentScope Java ignores the stored total and "
            "recomputes it",
            where,
        )
