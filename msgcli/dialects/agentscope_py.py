"""AgentScope Python: ``Msg`` records of 2.x (pydantic) and of 1.x (``to_dict``).

Two shapes share this dialect, told apart by the time key:

- **2.x** (``agentscope`` 2.0.x) writes ``Msg.model_dump_json()``: eleven keys
  (``name``, ``content``, ``role``, ``id``, ``metadata``, ``created_at``,
  ``usage``, ``finished_at``, ``finished_reason``, ``structured_output``,
  ``error``), always all of them, ``content`` a list of ``text``,
  ``thinking``, ``hint``, ``tool_call``, ``tool_result`` and ``data`` blocks.
  A tool call's ``input`` is the raw JSON *text*; tool results sit in the same
  assistant message as their calls.
- **1.x** (``agentscope`` 1.0.x) writes ``Msg.to_dict()``: ``id``, ``name``,
  ``role``, ``content`` (a string or a list), ``metadata``, ``timestamp``.
  Blocks are plain dicts: ``text``, ``thinking``, ``image``/``audio``/``video``
  with a ``source``, ``tool_use`` (``input`` an object, ``raw_input`` the text)
  and ``tool_result``; tool results are separate ``system`` messages.

A record is 1.x when it has ``timestamp`` and no ``created_at``; everything
else of this dialect is 2.x. Events (upper-case ``type``, ``reply_id``) are
recognised but not read here.

Reading keeps everything: keys a block or message of that version does not
have go to ``extra``; values the model cannot hold (a ``source`` that is not
an object, a block of unknown type) are kept whole so that writing gives the
record back. A 1.x string ``content`` becomes one :class:`TextBlock` whose
``path`` is ``("content",)`` (the text *is* the content), and is written back
as a string.
"""

from __future__ import annotations

import re
import zlib
from datetime import datetime, timedelta, timezone
from types import MappingProxyType
from typing import Any

from ..guard import as_key
from ..model import (
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
    micros,
    object_text,
    other_keys,
)

__all__ = ["DIALECT", "AgentScopePyDialect"]

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
#: 2.x message keys with a default (the schema requires the others)
_MSG2_DEFAULTED = {
    "id": "gives it a new random id",
    "metadata": "sets it to {}",
    "created_at": "stamps it with the time of loading",
    "usage": "sets it to null",
    "finished_at": "sets it to null",
    "finished_reason": "sets it to null",
    "structured_output": "sets it to null",
    "error": "sets it to null",
}
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
_NOW = "stamps it with the time of loading"
_NULL = "sets it to null"
_NEW_ID = "gives it a new random id"
#: 2.x block keys with a default, and what loading a record without them does
_BLOCK2_DEFAULTED = {
    "text": {"id": _NEW_ID, "created_at": _NOW, "finished_at": _NULL},
    "thinking": {"id": _NEW_ID, "created_at": _NOW, "finished_at": _NULL},
    "hint": {"id": _NEW_ID, "source": _NULL, "created_at": _NOW, "finished_at": _NOW},
    "tool_call": {
        "state": 'sets it to "pending"',
        "suggested_rules": "sets it to []",
        "created_at": _NOW,
        "finished_at": _NULL,
    },
    "tool_result": {
        "state": 'sets it to "running"',
        "metadata": "sets it to {}",
        "created_at": _NOW,
        "finished_at": _NULL,
    },
    "data": {"id": _NEW_ID, "name": _NULL, "created_at": _NOW, "finished_at": _NULL},
}
#: block types allowed inside a 2.x ``tool_result.output`` or ``hint`` list
_NESTED2 = frozenset({"text", "data"})
_SOURCE2_KEYS = {"base64": ("type", "data", "media_type"), "url": ("type", "url", "media_type")}
_USAGE2_KEYS = (
    "input_tokens",
    "output_tokens",
    "cache_input_tokens",
    "cache_creation_input_tokens",
)
_USAGE2_DEFAULTED = ("cache_input_tokens", "cache_creation_input_tokens")

_MSG2_KEYSET = frozenset(_MSG2_KEYS)
_BLOCK2_KEYSETS = {kind: frozenset(keys) for kind, keys in _BLOCK2_KEYS.items()}
_TEXT2_KEYSET = _BLOCK2_KEYSETS["text"]
_USAGE2_KEYSET = frozenset(_USAGE2_KEYS)

# -- 1.x ------------------------------------------------------------------------
#: message keys in the order ``to_dict`` writes them
_MSG1_KEYS = ("id", "name", "role", "content", "metadata", "timestamp")
#: keys ``from_dict`` reads but ``to_dict`` does not write
_MSG1_FIELDS = ("invocation_id",)
#: 1.x message keys ``from_dict`` fills in when missing (``timestamp`` is what makes a
#: record 1.x, so a record without it is read as 2.x)
_MSG1_DEFAULTED = {
    "id": "gives it a new random id",
    "metadata": "sets it to {}",
}
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
_ISO_WRITTEN = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{6})?$")
#: what 1.x writes: ``strftime("%Y-%m-%d %H:%M:%S.%f")[:-3]``
_V1_WRITTEN = re.compile(r"^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\.\d{3}$")
_TIME = re.compile(
    r"^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?"
    r"\s*(Z|[+-]\d{2}(?::?\d{2})?)?$",
    re.IGNORECASE,
)

#: keys that mark another dialect's record (AgentScope Java, LoongFlow)
_FOREIGN_KEYS = ("createdAt", "replyId", "sender", "trace_id", "conversation_id")
#: message keys only AgentScope Python 2.x writes
_V2_ONLY = ("created_at", "finished_at", "finished_reason", "structured_output")


class AgentScopePyDialect(Dialect):
    name = NAME
    title = "AgentScope Python"
    writer = "msgcli.converters.agentscope_py:WRITER"
    formatters = MappingProxyType(
        {
            "openai": "msgcli.formatters.python:OPENAI",
            "dashscope": "msgcli.formatters.python:DASHSCOPE",
            "anthropic": "msgcli.formatters.python:ANTHROPIC",
        }
    )
    keeps_extra_on = frozenset({"thinking"})
    tool_result_roles = frozenset({"assistant", "system"})
    tool_input_key = "input"

    # -- detection ----------------------------------------------------------------

    def tool_input_key_of(self, block: ToolCallBlock) -> str | None:
        # 1.x keeps the parsed object in `input` and the argument text in `raw_input`
        return "raw_input" if block.arguments is not None else "input"

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

    def event_schema(self, obj: dict) -> str:
        """The AG-UI form and the 1.x streaming wrapper have schemas of their own."""
        if is_agui(obj):
            return f"{NAME}/agui-event"
        if is_stream_wrapper(obj):
            return f"{NAME}/stream-wrapper"
        return f"{NAME}/event"

    def finish_reason(self, msg: Message) -> Any:
        return msg.fields.get("finished_reason")

    def variant(self, obj: Any) -> str | None:
        if not isinstance(obj, dict):
            return None
        if "timestamp" in obj and "created_at" not in obj:
            return V1
        return V2

    # -- reading ------------------------------------------------------------------
    def read(self, obj: Any) -> Message:
        if not isinstance(obj, dict):
            return Message(dialect=NAME)
        if self.variant(obj) == V1:
            return _read_v1(obj)
        return _read_v2(obj)

    # -- writing ------------------------------------------------------------------
    def write(self, msg: Message) -> dict:
        if msg.variant == V1:
            return _write_v1(msg)
        return _write_v2(msg)

    # -- checks -------------------------------------------------------------------
    def check(self, obj: dict, msg: Message, emit: Emit) -> None:
        if not isinstance(obj, dict):
            return
        if msg.variant == V1:
            _check_v1(obj, emit)
        else:
            _check_v2(obj, emit)

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
            return _part(msg.role, msg.name, msg.content[0].id, unfinished)
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
            when = when.replace(tzinfo=timezone(offset)).astimezone(timezone.utc)
            when = when.replace(tzinfo=None)
        return when

    # -- the fast path ----------------------------------------------------------------
    def fast_digest(self, obj: dict) -> tuple[str | None, tuple] | None:
        # a 2.x record as model_dump_json writes it: every key, nothing else, times in
        # isoformat, text/thinking/hint/tool blocks; anything else takes the full path
        if obj.keys() != _MSG2_KEYSET:
            return None
        created = obj["created_at"]
        if type(created) is not str or not _ISO_WRITTEN.match(created) or not created.isascii():
            return None
        try:
            when = datetime.fromisoformat(created)
        except ValueError:
            return None
        finished = obj["finished_at"]
        if finished is not None and not _fast_iso(finished):
            return None
        usage = obj["usage"]
        if usage is not None and (type(usage) is not dict or usage.keys() != _USAGE2_KEYSET):
            return None
        if obj["error"] is not None or obj["finished_reason"] == "error":
            return None
        content = obj["content"]
        if type(content) is not list:
            return None
        results_allowed = obj["role"] in ("assistant", "system")
        empty = True
        tools: list[tuple] = []
        for index, block in enumerate(content):
            if type(block) is not dict:
                return None
            kind = block.get("type")
            if type(kind) is not str or block.keys() != _BLOCK2_KEYSETS.get(kind):
                return None
            if not _fast_iso(block["created_at"]):
                return None
            finished = block["finished_at"]
            if finished is not None and not _fast_iso(finished):
                return None
            if kind == "text":
                if has_words(block["text"]):
                    empty = False
                continue
            empty = False
            if kind == "thinking":
                continue
            if kind == "hint":
                if type(block["hint"]) is not str:
                    return None
                continue
            bid = block["id"]
            if type(bid) is not str or not bid:
                return None
            name = block["name"]
            if kind == "tool_call":
                text = block["input"]
                if type(name) is not str or name.startswith("__") or type(text) is not str:
                    return None
                if not object_text(text):
                    return None
                tools.append((_CALL, bid, ("content", index), name, block["state"], bid))
            elif kind == "tool_result" and results_allowed:
                output = block["output"]
                if type(output) is list and not _fast_output(output):
                    return None
                tools.append((_RESULT, bid, ("content", index), name, bid))
            elif kind == "data":
                if not _fast_data(block, ("content", index)):
                    return None
            else:
                return None  # a result in a user message
        if empty:
            return None
        mid = obj["id"]
        first = content[0].get("id") if content else None
        digest = (id_key(mid), mid, micros(when), None, tuple(tools))
        return V2, digest if first is None else (
            *digest,
            _part(obj["role"], obj["name"], first, obj["finished_reason"] is None),
        )


def _fast_iso(value: Any) -> bool:
    return type(value) is str and _ISO_WRITTEN.match(value) is not None


def _fast_data(item: dict, path: tuple) -> bool:
    """A data block whose source passes the media checks."""
    from ..checks import source_is_clean

    block = _read_block_v2(item, path, nested=False)
    return isinstance(block, DataBlock) and block.source is not None and source_is_clean(block)


def _fast_output(items: list) -> bool:
    """A tool result's output holds only text blocks as the framework writes them."""
    for item in items:
        if type(item) is not dict or item.get("type") != "text" or item.keys() != _TEXT2_KEYSET:
            return False
        if not _fast_iso(item["created_at"]):
            return False
        finished = item["finished_at"]
        if finished is not None and not _fast_iso(finished):
            return False
    return True


# -- reading helpers --------------------------------------------------------------


def _pick(obj: dict, keys: tuple[str, ...]) -> dict:
    """The present keys among ``keys``, with their values."""
    return {k: obj[k] for k in keys if k in obj}


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
        block = _read_block_v1(item, path, nested) if v1 else _read_block_v2(item, path, nested)
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
    return _read_block_v2(item, path, True)


def _read_block_v2(item: Any, path: tuple, nested: bool) -> Block:
    if not isinstance(item, dict):
        return _unknown(item, path)
    kind = item.get("type")
    if not isinstance(kind, str) or kind not in _BLOCK2_KEYS or (nested and kind not in _NESTED2):
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


# -- writing helpers --------------------------------------------------------------


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


# -- checks -----------------------------------------------------------------------


def _missing(emit: Emit, key: str, where: str, version: str, effect: str, ptr: str) -> None:
    emit(
        "S004",
        f"{where} has no {short(key)}, which AgentScope {version} always writes "
        f"(the record was edited or made elsewhere); loading it {effect}",
        ptr,
    )


def _check_iso(emit: Emit, value: Any, key: str, path: tuple) -> None:
    if isinstance(value, str) and not _ISO_WRITTEN.match(value):
        emit(
            "C001",
            f"{key} {short(value)} is not in the form AgentScope writes "
            "(local time without zone, e.g. 2026-11-22T11:54:32.302881)",
            pointer(path, key),
        )


def _check_v2(obj: dict, emit: Emit) -> None:
    for key, effect in _MSG2_DEFAULTED.items():
        if key not in obj:
            _missing(emit, key, "the message", V2, effect, "")
    usage = obj.get("usage")
    if isinstance(usage, dict):
        for key in _USAGE2_DEFAULTED:
            if key not in usage:
                _missing(emit, key, "the usage", V2, "sets it to 0", "/usage")
    error = obj.get("error")
    if isinstance(error, dict) and "type" not in error:
        _missing(emit, "type", "the error", V2, 'sets it to "unknown"', "/error")
    _check_iso(emit, obj.get("created_at"), "created_at", ())
    _check_iso(emit, obj.get("finished_at"), "finished_at", ())
    if obj.get("finished_reason") == "error" and obj.get("error") is None:
        emit(
            "B002",
            'the reply finished with reason "error" but its "error" is '
            + ("null" if "error" in obj else "missing")
            + ": nothing says what went wrong",
            "/finished_reason",
        )
    content = obj.get("content")
    if isinstance(content, list):
        _check_blocks_v2(content, ("content",), emit, nested=False)


def _check_blocks_v2(items: list, base: tuple, emit: Emit, nested: bool) -> None:
    for i, item in enumerate(items):
        if not isinstance(item, dict):
            continue
        kind = item.get("type")
        if not isinstance(kind, str) or kind not in _BLOCK2_DEFAULTED:
            continue
        if nested and kind not in _NESTED2:
            continue
        path = (*base, i)
        for key, effect in _BLOCK2_DEFAULTED[kind].items():
            if key not in item:
                _missing(emit, key, f"the {kind} block", V2, effect, pointer(path))
        for key in ("created_at", "finished_at"):
            _check_iso(emit, item.get(key), key, path)
        inner_key = "output" if kind == "tool_result" else "hint" if kind == "hint" else None
        inner = item.get(inner_key) if inner_key else None
        if isinstance(inner, list):
            _check_blocks_v2(inner, (*path, inner_key), emit, nested=True)


def _check_v1(obj: dict, emit: Emit) -> None:
    for key, effect in _MSG1_DEFAULTED.items():
        if key not in obj:
            _missing(emit, key, "the message", V1, effect, "")
    stamp = obj.get("timestamp")
    if not (isinstance(stamp, str) and _V1_WRITTEN.match(stamp)):
        emit(
            "C001",
            f"timestamp {short(stamp)} is not in the form AgentScope 1.x writes "
            "(YYYY-MM-DD HH:MM:SS.mmm, e.g. 2026-11-22 11:54:34.508)",
            "/timestamp",
        )


DIALECT = AgentScopePyDialect()


def _part(role: Any, name: Any, first_block_id: Any, unfinished: bool) -> tuple[int, int, bool]:
    """``(sender, first block, unfinished)`` of a record, kept as numbers (one per message);
    the same in every process, as parts of a file are digested in several."""
    who = zlib.crc32(f"{as_key(role)}\x00{as_key(name)}".encode("utf-8", "surrogatepass"))
    first = str(as_key(first_block_id)).encode("utf-8", "surrogatepass")
    return who, zlib.crc32(first), unfinished


#: the event types of the AG-UI protocol (``ag_ui.core.events.EventType``)
AGUI_TYPES = frozenset(
    {
        "TEXT_MESSAGE_START",
        "TEXT_MESSAGE_CONTENT",
        "TEXT_MESSAGE_END",
        "TEXT_MESSAGE_CHUNK",
        "TOOL_CALL_START",
        "TOOL_CALL_ARGS",
        "TOOL_CALL_END",
        "TOOL_CALL_CHUNK",
        "TOOL_CALL_RESULT",
        "STATE_SNAPSHOT",
        "STATE_DELTA",
        "MESSAGES_SNAPSHOT",
        "ACTIVITY_SNAPSHOT",
        "ACTIVITY_DELTA",
        "RAW",
        "CUSTOM",
        "RUN_STARTED",
        "RUN_FINISHED",
        "RUN_ERROR",
        "STEP_STARTED",
        "STEP_FINISHED",
        "REASONING_START",
        "REASONING_MESSAGE_START",
        "REASONING_MESSAGE_CONTENT",
        "REASONING_MESSAGE_END",
        "REASONING_MESSAGE_CHUNK",
        "REASONING_END",
        "REASONING_ENCRYPTED_VALUE",
        "SUBAGENT_STARTED",
        "SUBAGENT_FINISHED",
        "SUBAGENT_ERROR",
        "THINKING_START",
        "THINKING_END",
        "THINKING_TEXT_MESSAGE_START",
        "THINKING_TEXT_MESSAGE_CONTENT",
        "THINKING_TEXT_MESSAGE_END",
    }
)


def is_agui(obj: dict) -> bool:
    """An AG-UI event (camelCase keys, no ``created_at``), as AgentScope's service sends it."""
    kind = obj.get("type")
    return (
        type(kind) is str
        and kind in AGUI_TYPES
        and "created_at" not in obj
        and "reply_id" not in obj
        and ("content" not in obj or kind == "TOOL_CALL_RESULT")
    )


def is_stream_wrapper(obj: dict) -> bool:
    """AgentScope 1.x's streamed snapshot ``{"msg": ..., "last": ...}``."""
    return "msg" in obj and "last" in obj and type(obj.get("msg")) is dict
