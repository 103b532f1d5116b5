"""LoongFlow's record model: ``Message`` records read onto the neutral model and written back."""

from __future__ import annotations

import math
import re
from datetime import datetime, timedelta
from typing import Any

from ...model import (
    Block,
    DataBlock,
    EvolveResultBlock,
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
from ..base import MESSAGE, Dialect, is_number, other_keys

#: message keys in the order ``to_dict()`` writes them
MESSAGE_KEYS = (
    "id",
    "timestamp",
    "trace_id",
    "conversation_id",
    "role",
    "sender",
    "metadata",
    "content",
)

#: element keys in the order ``to_dict()`` writes them, by element type
ELEMENT_KEYS: dict[str, tuple[str, ...]] = {
    "content": ("type", "mime_type", "metadata", "data"),
    "tool_call": ("type", "call_id", "metadata", "target", "arguments"),
    "tool_output": ("type", "call_id", "metadata", "tool_name", "status", "result"),
    "think": ("type", "metadata", "content"),
    "evolve_result": (
        "type",
        "best_score",
        "best_solution",
        "evaluation",
        "start_time",
        "end_time",
        "cost_time",
        "last_iteration",
        "total_iterations",
        "total_cost",
        "total_tokens",
    ),
}

ELEMENT_KEYS["function"] = ELEMENT_KEYS["tool_call"]

_EVOLVE_FIELDS = ELEMENT_KEYS["evolve_result"][1:]

CURRENT_ONLY = ("total_cost", "total_tokens")

#: element types no other dialect has (``tool_call`` is also AgentScope Python's)
_OWN_ELEMENT_TYPES = ("content", "function", "tool_output", "think", "evolve_result")

#: keys only AgentScope records carry (Python ``created_at``/``reply_id``, Java camelCase)
_FOREIGN_KEYS = ("created_at", "reply_id", "createdAt", "replyId")

#: keys only LoongFlow messages carry
_OWN_KEYS = ("sender", "trace_id", "conversation_id")

#: keys a LoongFlow message may have when nothing else tells its dialect
_PLAIN_KEYS = frozenset({"id", "timestamp", "role", "content", "metadata"})

_HEX = "[0-9a-fA-F]"

_H36 = f"{_HEX}{{8}}-{_HEX}{{4}}-{_HEX}{{4}}-{_HEX}{{4}}-{_HEX}{{12}}"

#: every UUID form pydantic accepts (the Rust ``uuid`` crate's parser)
UUID_FORMS = re.compile(f"{_HEX}{{32}}|{_H36}|\\{{{_H36}\\}}|urn:uuid:{_H36}")

_HYPHENATED = re.compile(f"{_H36}|\\{{{_H36}\\}}|urn:uuid:{_H36}")

CANONICAL_UUID = re.compile("[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")

#: the date-times pydantic accepts (speedate); fields are checked for range after matching
_DATETIME = re.compile(
    r"(?P<date>(?P<y>\d{4})-(?P<mo>\d{2})-(?P<d>\d{2}))"
    r"(?:(?P<sep>[Tt _])(?P<h>\d{2}):(?P<mi>\d{2})(?::(?P<s>\d{2})(?:[.,](?P<f>\d+))?)?"
    r"(?P<tz>[Zz]|(?P<sign>[+-])(?P<oh>\d{2}):?(?P<om>\d{2}))?)?",
    re.ASCII,
)

_EPOCH_TEXT = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)", re.ASCII)

#: above this absolute value an epoch number is in milliseconds (pydantic's rule)
_MS_THRESHOLD = 2e10

_EPOCH = datetime(1970, 1, 1)

_URL = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://")

_DATA_URI = re.compile(r"data:([^;,]+);base64,(.*)", re.DOTALL)

_BASE64_TEXT = re.compile(r"[A-Za-z0-9+/=\s]*")

#: the base MIME types whose string data is media (a URL, a data: URI or base64)
MEDIA_PREFIXES = ("image/", "audio/", "video/")


def uuid_form(value: Any) -> bool:
    return isinstance(value, str) and UUID_FORMS.fullmatch(value) is not None


def canonical_uuid(value: str) -> str | None:
    """The lower-case hyphenated form of a UUID in any accepted form, else ``None``."""
    if not uuid_form(value):
        return None
    digits = value.removeprefix("urn:uuid:").strip("{}").replace("-", "").lower()
    return f"{digits[:8]}-{digits[8:12]}-{digits[12:16]}-{digits[16:20]}-{digits[20:]}"


def uuid_form_name(value: str) -> str:
    if value.startswith("urn:uuid:"):
        return "with a 'urn:uuid:' prefix"
    if value.startswith("{"):
        return "in braces"
    if len(value) == 32:
        return "as 32 hex digits without hyphens"
    return "in upper case"


def follows(role: Any, sender: Any) -> bool:
    """Whether a LoongFlow message is stamped at another moment than the one it is put in
    order at, so that it is only compared with the latest time before it (C002):

    - a tool output (role ``tool``): the actor runs a reply's calls at once, stamps each
      output when its tool finishes, and adds them in the order of the calls
      (``framework/react/components/default_actor.py``, lines 77 and 100);
    - a compressor's summary (sender ``compressor``): a compression puts its new summary
      before the older messages it keeps (``agentsdk/memory/grade/memory.py``, lines 110
      to 115; ``compressor/default_compressor.py``, line 79).
    """
    return role == "tool" or sender == "compressor"


class _Time:
    """A parsed timestamp: the instant, whether it had a zone, and how it was written."""

    __slots__ = ("epoch_ms", "offset", "value")

    def __init__(self, value: datetime, offset: timedelta | None, epoch_ms: bool | None):
        self.value = value  # naive, in the written zone (or UTC for epochs)
        self.offset = offset  # None: naive
        self.epoch_ms = epoch_ms  # None: not an epoch; else True for milliseconds

    def utc(self) -> datetime:
        return self.value - self.offset if self.offset is not None else self.value

    def written(self) -> str:
        """What ``to_dict()`` writes for this value."""
        v = self.value
        text = f"{v.year:04d}-{v.month:02d}-{v.day:02d}T{v.hour:02d}:{v.minute:02d}:{v.second:02d}"
        if v.microsecond:
            text += f".{v.microsecond:06d}"
        if self.offset is None:
            return text
        if not self.offset:
            return text + "Z"
        minutes = int(self.offset.total_seconds()) // 60
        sign = "+" if minutes >= 0 else "-"
        hours, minutes = divmod(abs(minutes), 60)
        return f"{text}{sign}{hours:02d}:{minutes:02d}"


def _parse_epoch(number: float) -> _Time | None:
    """Unix time as pydantic reads it: seconds, or milliseconds above 2e10 in absolute value;
    the fraction is rounded to the microsecond (to the microsecond of a millisecond)."""
    millis = abs(number) > _MS_THRESHOLD
    try:
        whole = math.floor(number)
        scale = 1000 if millis else 1_000_000
        micros = whole * scale + math.floor((number - whole) * scale + 0.5)
        value = _EPOCH + timedelta(microseconds=micros)
    except (OverflowError, ValueError):
        return None
    return _Time(value, timedelta(0), millis)


def read_time(value: Any) -> _Time | None:
    """Parse a timestamp the way pydantic's lax datetime does, or ``None``."""
    if is_number(value):
        if value != value or value in (float("inf"), float("-inf")):
            return None
        return _parse_epoch(value)
    if not isinstance(value, str):
        return None
    if _EPOCH_TEXT.fullmatch(value):
        try:
            return _parse_epoch(float(value))
        except (OverflowError, ValueError):
            return None
    m = _DATETIME.fullmatch(value)
    if m is None:
        return None
    try:
        if m["h"] is None:
            moment = datetime(int(m["y"]), int(m["mo"]), int(m["d"]))
        else:
            fraction = ((m["f"] or "") + "000000")[:6]
            moment = datetime(
                int(m["y"]),
                int(m["mo"]),
                int(m["d"]),
                int(m["h"]),
                int(m["mi"]),
                int(m["s"] or 0),
                int(fraction),
            )
    except ValueError:
        return None
    offset = None
    if m["tz"]:
        if m["sign"] is None:
            offset = timedelta(0)
        else:
            hours, minutes = int(m["oh"]), int(m["om"])
            if hours > 23 or minutes > 59:
                return None
            offset = timedelta(hours=hours, minutes=minutes)
            if m["sign"] == "-":
                offset = -offset
    return _Time(moment, offset, None)


def _known(obj: dict, keys: tuple[str, ...], *skip: str) -> dict[str, Any]:
    return {k: obj[k] for k in keys if k in obj and k not in skip}


def evolve_shape(element: dict) -> str | None:
    """The shape of an evolve_result: ``"0.0.1"`` (strings), ``"current"`` (lists),
    ``"mixed"``, or ``None`` when neither key tells."""
    kinds = set()
    for key in ("best_solution", "evaluation"):
        value = element.get(key)
        if isinstance(value, str):
            kinds.add("0.0.1")
        elif isinstance(value, list):
            kinds.add("current")
    if len(kinds) > 1:
        return "mixed"
    return kinds.pop() if kinds else None


def media_source(data: str, mime_type: Any) -> Source:
    """The source of a media content element's string data."""
    media_type = mime_type if isinstance(mime_type, str) else None
    if _URL.match(data):
        return Source(kind="url", url=data, media_type=media_type)
    m = _DATA_URI.fullmatch(data)
    if m is not None:
        return Source(kind="base64", data=m[2], media_type=m[1], data_uri=True)
    if data.startswith("data:") or not _BASE64_TEXT.fullmatch(data):
        # another data: URI (not base64, or no media type), or no base64 at all: a URL
        # (a bare path or host name then fails the URL check, not the base64 one)
        return Source(kind="url", url=data, media_type=media_type)
    return Source(kind="base64", data=data, media_type=media_type)


def _content_block(el: dict, path: tuple, fields: dict, extra: dict) -> Block:
    data = el.get("data")
    mime_type = el.get("mime_type", "text/plain")
    base = isinstance(mime_type, str) and mime_type.split(";")[0].strip().lower()
    if isinstance(data, str) and base == "text/plain":
        return TextBlock(type="text", path=path, fields=fields, extra=extra, text=data)
    if isinstance(data, str) and base and base.startswith(MEDIA_PREFIXES):
        return DataBlock(
            type="data",
            path=path,
            fields=fields,
            extra=extra,
            kind="content",
            source=media_source(data, mime_type),
        )
    return ValueBlock(
        type="value",
        path=path,
        fields=fields,
        extra=extra,
        value=data,
        mime_type=el.get("mime_type"),
    )


def read_element(el: Any, path: tuple, in_result: bool = False) -> Block:
    if not isinstance(el, dict):
        return UnknownBlock(type="unknown", path=path, raw=el)
    kind = el.get("type", "content" if in_result else None)
    if not isinstance(kind, str) or kind not in ELEMENT_KEYS:
        return UnknownBlock(type="unknown", path=path, raw=el)
    keys = ELEMENT_KEYS[kind]
    extra = other_keys(el, keys)
    if kind == "content":
        return _content_block(el, path, _known(el, keys, "data"), extra)
    if kind in ("tool_call", "function"):
        return ToolCallBlock(
            type="tool_call",
            id=el.get("call_id"),
            path=path,
            fields=_known(el, keys, "call_id", "target", "arguments"),
            extra=extra,
            name=el.get("target"),
            arguments=el.get("arguments"),
        )
    if kind == "tool_output":
        result = el.get("result")
        if isinstance(result, list):
            output: Any = [
                read_element(item, (*path, "result", i), in_result=True)
                for i, item in enumerate(result)
            ]
        else:
            output = result
        return ToolResultBlock(
            type="tool_result",
            id=el.get("call_id"),
            path=path,
            fields=_known(el, keys, "call_id", "tool_name", "status", "result"),
            extra=extra,
            name=el.get("tool_name"),
            output=output,
            state=el.get("status"),
        )
    if kind == "think":
        thought = el.get("content")
        fields = _known(el, keys, "content")
        if "content" in el and not isinstance(thought, str):
            fields["content"] = thought  # a non-text thought is kept as it is
        return ThinkingBlock(
            type="thinking",
            path=path,
            fields=fields,
            extra=extra,
            thinking=thought if isinstance(thought, str) else "",
        )
    shape = evolve_shape(el)
    if shape == "0.0.1":  # PyPI 0.0.1 has no total_cost/total_tokens: it drops them
        keys = keys[: -len(CURRENT_ONLY)]
        extra = other_keys(el, keys)
    return EvolveResultBlock(
        type="evolve_result",
        path=path,
        fields=_known(el, keys),
        extra=extra,
        variant=shape,
    )


def _usage(metadata: Any) -> Usage | None:
    usage = metadata.get("usage") if isinstance(metadata, dict) else None
    if not isinstance(usage, dict):
        return None

    def count(key: str) -> int | float | None:
        value = usage.get(key)
        return value if is_number(value) else None

    return Usage(
        input_tokens=count("prompt_tokens"),
        output_tokens=count("completion_tokens"),
        total_tokens=count("total_tokens"),
    )


def _write_data(block: DataBlock) -> Any:
    source = block.source
    if source is None:
        return None
    if source.kind == "url":
        return source.url
    if source.data_uri:
        return f"data:{source.media_type or ''};base64,{source.data or ''}"
    return source.data


def _write_element(block: Block, in_result: bool = False) -> Any:
    if isinstance(block, UnknownBlock):
        return block.raw
    f = block.fields
    out: dict[str, Any] = {}

    def put(key: str, value: Any) -> None:
        if value is not None:
            out[key] = value
        elif key in f:
            out[key] = f[key]

    if isinstance(block, (TextBlock, DataBlock, ValueBlock)):
        if "type" in f or not in_result:
            out["type"] = f.get("type", "content")
        mime_type = block.mime_type if isinstance(block, ValueBlock) else None
        put("mime_type", mime_type)
        put("metadata", None)
        if isinstance(block, TextBlock):
            out["data"] = block.text
        elif isinstance(block, DataBlock):
            out["data"] = _write_data(block)
        else:
            out["data"] = block.value
    elif isinstance(block, ToolCallBlock):
        out["type"] = f.get("type", "tool_call")
        put("call_id", block.id)
        put("metadata", None)
        put("target", block.name)
        put("arguments", block.arguments)
    elif isinstance(block, ToolResultBlock):
        out["type"] = f.get("type", "tool_output")
        put("call_id", block.id)
        put("metadata", None)
        put("tool_name", block.name)
        put("status", block.state)
        if isinstance(block.output, list):
            out["result"] = [_write_element(b, in_result=True) for b in block.output]
        else:
            put("result", block.output)
    elif isinstance(block, ThinkingBlock):
        out["type"] = f.get("type", "think")
        put("metadata", None)
        out["content"] = f.get("content", block.thinking)
    elif isinstance(block, EvolveResultBlock):
        out["type"] = f.get("type", "evolve_result")
        for key in _EVOLVE_FIELDS:
            put(key, None)
    else:  # a block of another dialect's kind: its known keys as they are
        out.update(f)
    out.update(block.extra)
    return out


class Records(Dialect):
    """LoongFlow's record model: detection, reading, writing, ids and times."""

    def classify(self, obj: dict) -> str | None:
        if not isinstance(obj, dict):
            return None
        for key in _FOREIGN_KEYS:
            if key in obj:
                return None
        for key in _OWN_KEYS:
            if key in obj:
                return MESSAGE
        content = obj.get("content")
        if isinstance(content, list):
            for el in content:
                if not isinstance(el, dict):
                    continue
                kind = el.get("type")
                if isinstance(kind, str):
                    if kind in _OWN_ELEMENT_TYPES:
                        return MESSAGE
                    if kind == "tool_call" and ("target" in el or "call_id" in el):
                        return MESSAGE
                elif kind is None and "mime_type" in el:
                    return MESSAGE
        if "name" in obj or "type" in obj:  # AgentScope messages always name their sender
            return None
        if "role" not in obj and "content" not in obj:
            return None
        stamp = obj.get("timestamp")
        if is_number(stamp) or (isinstance(stamp, str) and stamp[10:11] in ("T", "t")):
            # AgentScope writes "YYYY-MM-DD HH:MM:SS.mmm" timestamps (or created_at), never these
            return MESSAGE
        # Nothing but role/content (and maybe metadata, a timestamp, a hyphenated UUID id): only
        # LoongFlow accepts such a record (AgentScope messages always carry a name). A 32-hex id
        # without any LoongFlow sign is left alone: it is what AgentScope Python 2.x writes.
        role = obj.get("role")
        ident = obj.get("id")
        if (
            obj.keys() <= _PLAIN_KEYS
            and isinstance(role, str)
            and not role.isupper()
            and isinstance(content, list)
            and all(not isinstance(el, dict) or "type" not in el for el in content)
            and (ident is None or (isinstance(ident, str) and _HYPHENATED.fullmatch(ident)))
        ):
            return MESSAGE
        return None

    def variant(self, obj: dict) -> str | None:
        content = obj.get("content") if isinstance(obj, dict) else None
        if not isinstance(content, list):
            return None
        shapes = {
            evolve_shape(el)
            for el in content
            if isinstance(el, dict) and el.get("type") == "evolve_result"
        }
        shapes.discard(None)
        if not shapes:
            return None
        return shapes.pop() if len(shapes) == 1 else "mixed"

    def read(self, obj: dict) -> Message:
        msg = Message(dialect=self.name)
        if not isinstance(obj, dict):
            return msg
        msg.id = obj.get("id")
        msg.timestamp = obj.get("timestamp")
        msg.role = obj.get("role")
        msg.name = obj.get("sender")
        msg.metadata = obj.get("metadata")
        msg.fields = _known(obj, ("trace_id", "conversation_id"))
        content = obj.get("content")
        if isinstance(content, list):
            msg.content = [read_element(el, ("content", i)) for i, el in enumerate(content)]
        elif "content" in obj:
            # not a list (the schema reports it): kept whole so it is written back as it was
            msg.content = [UnknownBlock(type="unknown", path=("content",), raw=content)]
        msg.usage = _usage(msg.metadata)
        msg.variant = self.variant(obj)
        msg.extra = other_keys(obj, MESSAGE_KEYS)
        return msg

    def message_id(self, obj: Any) -> Any:
        return obj.get("id") if isinstance(obj, dict) else None

    def write(self, msg: Message) -> dict:
        out: dict[str, Any] = {}
        if msg.id is not None:
            out["id"] = msg.id
        if msg.timestamp is not None:
            out["timestamp"] = msg.timestamp
        for key in ("trace_id", "conversation_id"):
            if key in msg.fields:
                out[key] = msg.fields[key]
        if msg.role is not None:
            out["role"] = msg.role
        if msg.name is not None:
            out["sender"] = msg.name
        if msg.metadata is not None:
            out["metadata"] = msg.metadata
        blocks = msg.content
        if (
            len(blocks) == 1
            and isinstance(blocks[0], UnknownBlock)
            and blocks[0].path == ("content",)
        ):
            out["content"] = blocks[0].raw
        else:
            out["content"] = [_write_element(b) for b in blocks]
        out.update(msg.extra)
        return out

    def pair_key(self, call_id: Any) -> Any:
        if isinstance(call_id, str):
            return canonical_uuid(call_id) or call_id
        return call_id

    def parse_time(self, value: Any) -> datetime | None:
        parsed = read_time(value)
        if parsed is None:
            return None
        try:
            return parsed.utc()
        except OverflowError:
            return None

    def time_group(self, msg: Message) -> Any:
        return msg.fields.get("conversation_id", "")

    def time_follows(self, msg: Message) -> bool:
        return follows(msg.role, msg.fields.get("sender"))
