"""The typed path of validation for AgentScope Java 2.x messages (see
``Dialect.typed_messages``).

A line is decoded straight into the types below, which hold a record exactly as the
framework's Jackson mapper writes it: all seven message keys (in any order, as in the
metadata, a ``HashMap``) and every key of each text, thinking, tool_use and tool_result block,
nothing else, each of the type the schema asks for. Decoding checks the structure while it
parses; :func:`digest` then asks what the types cannot say (the blocks a role may hold,
the timestamp in Jackson's form and a real time, argument text that is a JSON object,
usage totals) and answers the same digest :meth:`FastPath.fast_digest` gives the same
record as a dict. Anything else (a line that does not decode, a media block, the
1.x shape, a record on which a rule could speak) takes the whole way (schema, rules,
explanations) and gets the findings it always got.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

import msgspec
from msgspec import Meta, Struct

from ..base import DIGEST_CALL, DIGEST_RESULT, object_text
from .records import V2

__all__ = ["Message", "digest", "typed_path"]

#: a count within a Java int, as JSON Schema sees an integer: ``412`` or ``412.0``
Count = (
    Annotated[int, Meta(ge=-(2**31), le=2**31 - 1)]
    | Annotated[float, Meta(ge=-(2**31), le=2**31 - 1, multiple_of=1)]
)
#: any number; an integer beyond 64 bits is refused (orjson reads it as a float, and so
#: does the whole way)
Number = Annotated[int, Meta(ge=-(2**63), le=2**63 - 1)] | float
#: the block states, lower case, or null
CallState = Literal["pending", "asking", "allowed", "submitted", "finished", None]
ResultState = Literal["success", "error", "interrupted", "denied", "running", None]


class _Usage(Struct, forbid_unknown_fields=True, gc=False):
    inputTokens: Count | None  # (the keys as Jackson writes them)
    outputTokens: Count | None
    cachedTokens: Count | None
    time: float | None
    #: any value loads (the framework recomputes it); one that is not the sum is B003
    totalTokens: Number


class _Text(Struct, tag_field="type", tag="text", forbid_unknown_fields=True, gc=False):
    text: str | None


class _Thinking(Struct, tag_field="type", tag="thinking", forbid_unknown_fields=True, gc=False):
    thinking: str | None
    metadata: dict[str, Any] | None


class _ToolUse(Struct, tag_field="type", tag="tool_use", forbid_unknown_fields=True, gc=False):
    id: str | None
    name: str | None
    input: dict[str, Any] | None
    content: str | None
    metadata: dict[str, Any] | None
    state: CallState


class _ToolResult(
    Struct, tag_field="type", tag="tool_result", forbid_unknown_fields=True, gc=False
):
    id: str | None
    name: str | None
    #: blocks (whether they are text blocks only, as the fast path takes them, is asked by
    #: :func:`digest`: a lone tagged type would not require its tag)
    output: list[_Text | _Thinking | _ToolUse | _ToolResult]
    #: (a null value, which fails to load, is asked by :func:`digest`)
    metadata: dict[str, Any] | None
    state: ResultState


class _Hint(Struct, tag_field="type", tag="hint", forbid_unknown_fields=True, gc=False):
    id: str | None
    hint: str | None
    source: str | None


_Block = _Text | _Thinking | _ToolUse | _ToolResult


class Message(Struct, forbid_unknown_fields=True, gc=False):
    """A 2.x ``Msg`` as the Jackson mapper writes it."""

    id: str | None
    name: str | None
    role: Literal["USER", "ASSISTANT", "SYSTEM", "TOOL"]
    content: list[_Text | _Thinking | _Hint | _ToolUse | _ToolResult]
    metadata: dict[str, Any] | None
    timestamp: str
    usage: _Usage | None


def typed_path() -> tuple[Any, Any]:
    """``(decode, digest)``: a line into a :class:`Message` (raising on anything else), and
    :func:`digest` (see ``Dialect.typed_messages``)."""
    return msgspec.json.Decoder(Message).decode, digest


#: the digits of an ASCII timestamp as 0, and Jackson's ``yyyy-MM-dd HH:mm:ss.SSS`` so read
_DIGITS = bytes.maketrans(b"0123456789", b"0000000000")
_WRITTEN = b"0000-00-00 00:00:00.000"
_from_iso = datetime.fromisoformat
_EPOCH = datetime(1970, 1, 1)
#: the metadata keys of a paused session (see ``Records.parked``)
_CONFIRM = "agentscope_confirm_request_reply_id"
_EXTERNAL = "agentscope_external_execution_request_reply_id"
#: the integers orjson reads as integers (others as floats)
_LOWEST, _HIGHEST = -(2**63), 2**64 - 1


def digest(msg: Message) -> tuple[str, tuple] | None:
    """``(variant, digest)`` of a decoded message no record rule speaks on, else ``None``
    (the types have checked the keys and their types already)."""
    stamp = msg.timestamp
    # the timestamp's form (C001) without a regex, then whether it is a real time
    if not stamp.isascii() or stamp.encode().translate(_DIGITS) != _WRITTEN:
        return None
    try:
        when = _from_iso(stamp)
    except ValueError:
        return None
    if not when.hour and stamp[11] != "0":
        return None  # 24:00 (which newer Pythons read as the next midnight)
    usage = msg.usage
    if usage is not None:
        # B003: the total is the sum (a missing or null count reads as 0)
        inp = usage.inputTokens
        out = usage.outputTokens
        if usage.totalTokens != (0 if inp is None else inp) + (0 if out is None else out):
            return None
    metadata = msg.metadata
    if metadata and "_chat_usage" in metadata:
        chat = metadata["_chat_usage"]
        if type(chat) is dict:
            # B003 on the copy of the usage (any JSON): first the common case at a glance
            total = chat.get("totalTokens")
            inp = chat.get("inputTokens")
            out = chat.get("outputTokens")
            if not (
                type(total) is int
                and type(inp) is int
                and type(out) is int
                and total == inp + out
                and _LOWEST <= inp <= _HIGHEST
                and _LOWEST <= out <= _HIGHEST
                and _LOWEST <= total <= _HIGHEST
            ) and not _total_agrees(chat):
                return None
    content: list[Any] = msg.content
    empty = True
    role = msg.role
    if role == "USER" or role == "SYSTEM":
        # text here (Msg.validateRoleContent, S002; media takes the whole way)
        for block in content:
            if type(block) is not _Text:
                return None
            if empty:
                text = block.text
                if text and not text.isspace():  # (has_words)
                    empty = False
        if empty:
            return None
        mid = msg.id
        since = when - _EPOCH  # (micros(when), without a call and twice as fast as its //)
        micros = since.days * 86_400_000_000 + since.seconds * 1_000_000 + since.microseconds
        return V2, (mid or None, mid, micros, None, ())
    tools: list[tuple] = []
    parked = None
    index = -1
    for block in content:
        index += 1
        kind = type(block)
        if kind is _Text:
            if empty:
                text = block.text
                if text and not text.isspace():
                    empty = False
            continue
        empty = False
        if kind is _Thinking or kind is _Hint:
            continue
        bid = block.id
        if not bid:
            return None
        name = block.name
        if kind is _ToolUse:
            if name is None or name.startswith("__"):
                return None
            text = block.content
            if text is not None and not object_text(text):
                return None
            if parked is None:
                parked = metadata is not None and (_CONFIRM in metadata or _EXTERNAL in metadata)
            state = "parked" if parked else block.state
            tools.append((DIGEST_CALL, bid, ("content", index), name, state, bid))
        else:  # a tool_result: text output, a metadata without nulls (the schema's)
            for item in block.output:
                if type(item) is not _Text:
                    return None
            held = block.metadata
            if held and None in held.values():
                return None
            tools.append((DIGEST_RESULT, bid, ("content", index), name, bid))
    if empty:
        return None
    mid = msg.id
    since = when - _EPOCH
    micros = since.days * 86_400_000_000 + since.seconds * 1_000_000 + since.microseconds
    return V2, (mid or None, mid, micros, None, tuple(tools))


def _total_agrees(usage: dict) -> bool:
    """What ``check_total`` says of the metadata's ``_chat_usage`` (any JSON there): nothing
    (``True``), or B003, with the counts read as orjson reads them."""
    if "totalTokens" not in usage:
        return True
    total = _as_read(usage["totalTokens"])
    inp = _as_read(usage.get("inputTokens"))
    out = _as_read(usage.get("outputTokens"))
    inp = 0 if inp is None else inp
    out = 0 if out is None else out
    if not (_number(inp) and _number(out)):
        return True  # a schema error of the whole way's check
    return _number(total) and total == inp + out


def _number(value: Any) -> bool:
    kind = type(value)
    return kind is int or kind is float


def _as_read(value: Any) -> Any:
    """An integer beyond what orjson reads as one as the float it reads it as."""
    if type(value) is int and not _LOWEST <= value <= _HIGHEST:
        return float(value)
    return value
