"""LoongFlow: ``loongflow.agentsdk.message`` ``Message.to_dict()`` records.

A LoongFlow log is a sequence of whole messages (JSONL, or one JSON array as
``FileStorage`` writes it); there is no event stream. Keys, in the order
``to_dict()`` writes them::

    id, timestamp, trace_id, conversation_id, role, sender, metadata, content

``content`` is a list of elements told apart by ``type``:

- ``content`` ``{type, mime_type, metadata, data}``: text, JSON, or media
  (``data`` is then a URL, a ``data:`` URI or base64);
- ``tool_call`` (alias ``function``, kept as written) ``{type, call_id,
  metadata, target, arguments}``;
- ``tool_output`` ``{type, call_id, metadata, tool_name, status, result}``,
  ``result`` being content elements whose ``type`` may be left out;
- ``think`` ``{type, metadata, content}``;
- ``evolve_result`` ``{type, best_score, best_solution, evaluation,
  start_time, end_time, cost_time, last_iteration, total_iterations,
  total_cost, total_tokens}``: ``best_solution``/``evaluation`` are lists of
  strings in the current library and strings in PyPI 0.0.1, which has no
  ``total_cost``/``total_tokens``.

``from_dict()`` fills in what a record leaves out (a fresh ``id`` and
``call_id``, the load time as ``timestamp``, ``""`` and ``{}`` defaults) and
drops unknown keys; :meth:`LoongFlowDialect.check` reports both, since real
``to_dict()`` output always has every key.
"""

from __future__ import annotations

import math
import re
from datetime import datetime, timedelta
from types import MappingProxyType
from typing import Any

from ..guard import json_text
from ..model import (
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
    pointer,
)
from ..textsafe import short
from .base import DIGEST_CALL as _CALL
from .base import DIGEST_RESULT as _RESULT
from .base import MESSAGE, Dialect, Emit, is_number, micros, other_keys, says_nothing

__all__ = ["DIALECT", "LoongFlowDialect"]

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
#: message keys ``to_dict()`` always writes but ``from_dict()`` does not require
_DEFAULTED_MESSAGE_KEYS = ("id", "timestamp", "trace_id", "conversation_id", "sender", "metadata")

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
_CURRENT_ONLY = ("total_cost", "total_tokens")

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
_MEDIA_PREFIXES = ("image/", "audio/", "video/")


def _uuid_form(value: Any) -> bool:
    return isinstance(value, str) and UUID_FORMS.fullmatch(value) is not None


def canonical_uuid(value: str) -> str | None:
    """The lower-case hyphenated form of a UUID in any accepted form, else ``None``."""
    if not _uuid_form(value):
        return None
    digits = value.removeprefix("urn:uuid:").strip("{}").replace("-", "").lower()
    return f"{digits[:8]}-{digits[8:12]}-{digits[12:16]}-{digits[16:20]}-{digits[20:]}"


def _uuid_form_name(value: str) -> str:
    if value.startswith("urn:uuid:"):
        return "with a 'urn:uuid:' prefix"
    if value.startswith("{"):
        return "in braces"
    if len(value) == 32:
        return "as 32 hex digits without hyphens"
    return "in upper case"


# -- time ----------------------------------------------------------------------


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


def _parse_time(value: Any) -> _Time | None:
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


# -- reading -------------------------------------------------------------------


def _known(obj: dict, keys: tuple[str, ...], *skip: str) -> dict[str, Any]:
    return {k: obj[k] for k in keys if k in obj and k not in skip}


def _evolve_shape(element: dict) -> str | None:
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


def _source(data: str, mime_type: Any) -> Source:
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
    if isinstance(data, str) and base and base.startswith(_MEDIA_PREFIXES):
        return DataBlock(
            type="data",
            path=path,
            fields=fields,
            extra=extra,
            kind="content",
            source=_source(data, mime_type),
        )
    return ValueBlock(
        type="value",
        path=path,
        fields=fields,
        extra=extra,
        value=data,
        mime_type=el.get("mime_type"),
    )


def _read_element(el: Any, path: tuple, in_result: bool = False) -> Block:
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
                _read_element(item, (*path, "result", i), in_result=True)
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
    shape = _evolve_shape(el)
    if shape == "0.0.1":  # PyPI 0.0.1 has no total_cost/total_tokens: it drops them
        keys = keys[: -len(_CURRENT_ONLY)]
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


# -- writing -------------------------------------------------------------------


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


# -- the dialect ---------------------------------------------------------------


class LoongFlowDialect(Dialect):
    name = "loongflow"
    title = "LoongFlow"
    writer = "msgcli.converters.loongflow:WRITER"
    formatters = MappingProxyType(
        {
            "openai": "msgcli.formatters.python:OPENAI",
            "dashscope": "msgcli.formatters.python:DASHSCOPE",
            "anthropic": "msgcli.formatters.python:ANTHROPIC",
        }
    )
    keeps_extra_on = frozenset()
    tool_result_roles = frozenset({"tool"})
    tool_input_key = None
    tool_call_id_key = "call_id"
    tool_call_name_key = "target"
    block_word = "element"

    # -- detection ---------------------------------------------------------------

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
            _evolve_shape(el)
            for el in content
            if isinstance(el, dict) and el.get("type") == "evolve_result"
        }
        shapes.discard(None)
        if not shapes:
            return None
        return shapes.pop() if len(shapes) == 1 else "mixed"

    # -- model -------------------------------------------------------------------

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
            msg.content = [_read_element(el, ("content", i)) for i, el in enumerate(content)]
        elif "content" in obj:
            # not a list (the schema reports it): kept whole so it is written back as it was
            msg.content = [UnknownBlock(type="unknown", path=("content",), raw=content)]
        msg.usage = _usage(msg.metadata)
        msg.variant = self.variant(obj)
        msg.extra = other_keys(obj, MESSAGE_KEYS)
        return msg

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

    # -- checks ------------------------------------------------------------------

    def check(self, obj: dict, msg: Message, emit: Emit) -> None:
        if not isinstance(obj, dict):
            return
        for key in _DEFAULTED_MESSAGE_KEYS:
            if key not in obj:
                emit("S004", _MISSING_MESSAGE_KEY[key], "")
        role = obj.get("role")
        if isinstance(role, str) and role not in _USUAL_ROLES:
            emit(
                "S006",
                f"role {short(role)} is not one of system, user, assistant, tool: LoongFlow keeps "
                "it as written, and a model provider it is sent to rejects it",
                "/role",
            )
        self._check_id(obj.get("id"), "message id", "/id", emit)
        if "timestamp" in obj:
            self._check_timestamp(obj["timestamp"], emit)
        content = obj.get("content")
        if not isinstance(content, list):
            return
        shapes: dict[str, int] = {}
        for i, el in enumerate(content):
            if not isinstance(el, dict):
                continue
            path = ("content", i)
            kind = el.get("type")
            if kind == "content":
                _missing(el, path, ("mime_type", "metadata"), emit)
            elif kind in ("tool_call", "function"):
                _missing(el, path, ("call_id", "metadata"), emit)
                self._check_id(el.get("call_id"), "call_id", pointer(path, "call_id"), emit)
                _check_arguments_error(el, path, emit)
            elif kind == "tool_output":
                _missing(el, path, ("metadata",), emit)
                self._check_id(el.get("call_id"), "call_id", pointer(path, "call_id"), emit)
                result = el.get("result")
                if isinstance(result, list):
                    for j, item in enumerate(result):
                        # another element type in a result is a schema error, not a missing key
                        if isinstance(item, dict) and item.get("type", "content") == "content":
                            keys = ("type", "mime_type", "metadata")
                            _missing(item, (*path, "result", j), keys, emit)
            elif kind == "think":
                _missing(el, path, ("metadata",), emit)
            elif kind == "evolve_result":
                _check_evolve_result(el, path, shapes, emit)

    @staticmethod
    def _check_id(value: Any, what: str, where: str, emit: Emit) -> None:
        if not isinstance(value, str) or not _uuid_form(value):
            return
        if CANONICAL_UUID.fullmatch(value):
            return
        emit(
            "I003",
            f"{what} {value!r} is a UUID {_uuid_form_name(value)}: LoongFlow accepts it but "
            f"writes {canonical_uuid(value)!r}",
            where,
        )

    @staticmethod
    def _check_timestamp(value: Any, emit: Emit) -> None:
        parsed = _parse_time(value)
        if parsed is None:
            return  # not accepted at all: the schema reports it
        written = parsed.written()
        if value == written:
            return
        if parsed.epoch_ms is not None:
            unit = "milliseconds" if parsed.epoch_ms else "seconds"
            text = "text" if isinstance(value, str) else "number"
            message = (
                f"timestamp {value!r} is Unix time in {unit} as a {text}: LoongFlow accepts it "
                f"but writes ISO 8601 text, here {written!r}"
            )
        else:
            message = (
                f"timestamp {value!r} is accepted but not in the form LoongFlow writes: "
                f"it writes {written!r}"
            )
        emit("C001", message, "/timestamp")

    # -- the fast path -------------------------------------------------------------
    def fast_digest(self, obj: dict) -> tuple[str | None, tuple] | None:
        # a record as to_dict() writes it, of plain-text content, thoughts and tool
        # elements; its dialect checks are run as they are (they read only the dict),
        # what the shared checks would look at is looked at here
        if obj.keys() != _MESSAGE_KEYSET:
            return None
        role = obj["role"]
        content = obj["content"]
        if type(content) is not list:
            return None
        empty = True
        tools: list[tuple] = []
        for index, el in enumerate(content):
            if type(el) is not dict:
                return None
            kind = el.get("type")
            if type(kind) is not str or el.keys() != _FAST_ELEMENT_KEYSETS.get(kind):
                return None
            if kind == "content":
                if not _plain_text(el):
                    if not _fast_content(el, ("content", index)):
                        return None
                    empty = False
                elif el["data"].strip():
                    empty = False
                continue
            empty = False
            if kind == "think":
                if type(el["content"]) is not str:
                    return None
                continue
            cid = el["call_id"]
            key = self.pair_key(cid)
            if type(cid) is not str or not cid or type(key) is not str:
                return None
            if kind == "tool_output":
                result = el["result"]
                if role != "tool" or type(result) is not list:
                    return None
                for at, item in enumerate(result):
                    if type(item) is not dict or item.keys() != _CONTENT_KEYSET:
                        return None
                    if item["type"] != "content":
                        return None
                    if not _plain_text(item) and not _fast_content(
                        item, ("content", index, "result", at)
                    ):
                        return None
                tools.append((_RESULT, key, ("content", index), el["tool_name"], cid))
            else:  # tool_call, function
                name = el["target"]
                if type(name) is str and name.startswith("__"):
                    return None
                tools.append((_CALL, key, ("content", index), name, None, cid))
        if empty or not says_nothing(self.check, obj, None):
            return None
        mid = obj["id"]
        when = self.parse_time(obj["timestamp"])
        group = None if when is None else obj["conversation_id"]
        if not (group is None or isinstance(group, (str, int))):
            group = json_text(group)  # the same key as checks.digest gives it
        key = self.pair_key(mid) if mid != "" and isinstance(mid, (str, int)) else None
        if not isinstance(key, (str, int)):
            key = None
        return None, (key, mid, None if when is None else micros(when), group, tuple(tools))

    # -- tool-call pairing and time ----------------------------------------------

    def pair_key(self, call_id: Any) -> Any:
        if isinstance(call_id, str):
            return canonical_uuid(call_id) or call_id
        return call_id

    def parse_time(self, value: Any) -> datetime | None:
        parsed = _parse_time(value)
        if parsed is None:
            return None
        try:
            return parsed.utc()
        except OverflowError:
            return None

    def time_group(self, msg: Message) -> Any:
        return msg.fields.get("conversation_id", "")


_MISSING_MESSAGE_KEY = {
    "id": "'id' is missing: LoongFlow invents a fresh random id every time it loads the record",
    "timestamp": (
        "'timestamp' is missing: LoongFlow stamps the message with the time it loads the record"
    ),
    "trace_id": (
        "'trace_id' is missing: LoongFlow always writes it (loading defaults it to \"\"), "
        "so the record was edited or made elsewhere"
    ),
    "conversation_id": (
        "'conversation_id' is missing: LoongFlow always writes it (loading defaults it to \"\"), "
        "so the record was edited or made elsewhere"
    ),
    "sender": (
        "'sender' is missing: LoongFlow always writes it (loading defaults it to \"\"), "
        "so the record was edited or made elsewhere"
    ),
    "metadata": (
        "'metadata' is missing: LoongFlow always writes it (loading defaults it to {}), "
        "so the record was edited or made elsewhere"
    ),
}

_MISSING_ELEMENT_KEY = {
    "call_id": (
        "'call_id' is missing from this tool call: LoongFlow invents a fresh random one every "
        "time it loads the record, so no tool output can answer it"
    ),
    "metadata": "'metadata' is missing: LoongFlow always writes it (loading defaults it to {})",
    "mime_type": (
        "'mime_type' is missing: LoongFlow always writes it (loading defaults it to text/plain)"
    ),
    "type": (
        "'type' is missing from this tool result item: LoongFlow always writes it "
        '(loading defaults it to "content")'
    ),
    "total_cost": (
        "'total_cost' is missing from this current-shape evolve_result: LoongFlow always "
        "writes it (loading defaults it to 0.0)"
    ),
    "total_tokens": (
        "'total_tokens' is missing from this current-shape evolve_result: LoongFlow always "
        "writes it (loading defaults it to 0.0)"
    ),
}


def _missing(el: dict, path: tuple, keys: tuple[str, ...], emit: Emit) -> None:
    for key in keys:
        if key not in el:
            emit("S004", _MISSING_ELEMENT_KEY[key], pointer(path))


def _check_arguments_error(el: dict, path: tuple, emit: Emit) -> None:
    metadata = el.get("metadata")
    if not isinstance(metadata, dict) or "tool_arguments_err" not in metadata:
        return
    error = metadata["tool_arguments_err"]
    if error is None or error == "" or error is False:
        return
    target = el.get("target")
    detail = error if isinstance(error, str) else json_text(error)
    if len(detail) > 120:
        detail = detail[:119] + "…"
    emit(
        "T009",
        f"LoongFlow could not parse the model's arguments for tool call "
        f"{target!r}: {detail}; its actor answers such a call with an error output",
        pointer(path, "metadata", "tool_arguments_err"),
    )


_USUAL_ROLES = frozenset({"system", "user", "assistant", "tool"})
_EVOLVE_FLOATS = ("best_score", "total_cost", "total_tokens")
_EVOLVE_INTS = ("cost_time", "last_iteration", "total_iterations")


def _check_coercions(el: dict, path: tuple, emit: Emit) -> None:
    """Values pydantic's lax mode converts on load: strings and booleans for numbers,
    and whole floats for integers."""
    for key in (*_EVOLVE_FLOATS, *_EVOLVE_INTS):
        value = el.get(key)
        wants = "an integer" if key in _EVOLVE_INTS else "a number"
        if isinstance(value, bool):
            becomes = str(int(value))
        elif isinstance(value, str):
            becomes = "a number"
        elif key in _EVOLVE_INTS and isinstance(value, float) and value.is_integer():
            becomes = str(int(value))
        else:
            continue
        emit(
            "S005",
            f"{key} is {short(value)} where LoongFlow keeps {wants}: it is converted to "
            f"{becomes} on load, and other readers of the log will not do that",
            pointer(path, key),
        )


def _check_evolve_result(el: dict, path: tuple, shapes: dict[str, int], emit: Emit) -> None:
    _check_coercions(el, path, emit)
    shape = _evolve_shape(el)
    if shape == "mixed":
        kinds = {
            key: "a string" if isinstance(el.get(key), str) else "a list"
            for key in ("best_solution", "evaluation")
        }
        emit(
            "B004",
            f"best_solution is {kinds['best_solution']} but evaluation is {kinds['evaluation']}: "
            "PyPI 0.0.1 wants two strings and the current LoongFlow two lists of strings, so "
            "neither version loads this element",
            pointer(path),
        )
        return
    if shape is None:
        return
    if shape == "current":
        _missing(el, path, _CURRENT_ONLY, emit)
    other = "current" if shape == "0.0.1" else "0.0.1"
    if other in shapes:
        emit(
            "B004",
            f"this evolve_result has the {shape} shape but the one at /content/{shapes[other]} "
            f"has the {other} shape: no LoongFlow version loads a message holding both",
            pointer(path),
        )
    shapes.setdefault(shape, path[1])


DIALECT = LoongFlowDialect()
_MESSAGE_KEYSET = frozenset(MESSAGE_KEYS)
_CONTENT_KEYSET = frozenset(ELEMENT_KEYS["content"])
#: the element types the fast path takes, each with every key to_dict() writes on it
_FAST_ELEMENT_KEYSETS = {
    kind: frozenset(ELEMENT_KEYS[kind])
    for kind in ("content", "think", "tool_call", "function", "tool_output")
}


def _fast_content(el: dict, path: tuple) -> bool:
    """A content element that is not plain text: a JSON value, or media whose data
    passes the media checks."""
    from ..checks import source_is_clean

    block = _read_element(el, path)
    if isinstance(block, ValueBlock):
        return True
    return isinstance(block, DataBlock) and block.source is not None and source_is_clean(block)


def _plain_text(el: dict) -> bool:
    mime_type = el["mime_type"]
    return (
        type(el["data"]) is str
        and type(mime_type) is str
        and mime_type.split(";")[0].strip().lower() == "text/plain"
    )
