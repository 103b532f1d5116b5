"""The typed path of validation for AgentScope Python 2.x messages (see
``Dialect.typed_messages``).

A line is decoded straight into the types below, which hold a record exactly as
``Msg.model_dump_json()`` writes it: all eleven message keys and every key of each block,
nothing else, each of the type the schema asks for. Decoding checks the structure while it
parses; :func:`digest` then asks what the types cannot say (the blocks a role may hold,
times in the form the framework writes, argument text that is a JSON object, media that
passes its checks) and answers the same digest :meth:`FastPath.fast_digest` gives the same
record as a dict. Anything else, a line that does not decode or a record on which a rule
could speak, takes the whole way (schema, rules, explanations) and gets the findings it
always got.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal
from zlib import crc32

import msgspec
from msgspec import Meta, Struct

from ..base import DIGEST_CALL, DIGEST_RESULT, object_text
from ..media import written_source_is_clean
from .records import ISO_WRITTEN, V2, message_part_key

__all__ = ["Message", "digest", "typed_path"]

#: a time (whether it is in the form the framework writes is asked by :func:`digest`)
Time = str
#: an integer within 64 bits (orjson reads one beyond as a float; the whole way reads those)
Int = Annotated[int, Meta(ge=-(2**63), le=2**63 - 1)]


class _Usage(Struct, forbid_unknown_fields=True, gc=False):
    input_tokens: Int
    output_tokens: Int
    cache_input_tokens: Int
    cache_creation_input_tokens: Int


class _Text(Struct, tag_field="type", tag="text", forbid_unknown_fields=True, gc=False):
    text: str
    id: str
    created_at: Time
    finished_at: Time | None


class _OutputText(Struct, forbid_unknown_fields=True, gc=False):
    """A text block inside a tool result's output (its ``type`` is required there too: a
    tag is only asked for in a union)."""

    type: Literal["text"]
    text: str
    id: str
    created_at: Time
    finished_at: Time | None


class _Thinking(Struct, tag_field="type", tag="thinking", forbid_unknown_fields=True, gc=False):
    thinking: str
    id: str
    created_at: Time
    finished_at: Time | None


class _Hint(Struct, tag_field="type", tag="hint", forbid_unknown_fields=True, gc=False):
    hint: str
    id: str
    source: str | None
    created_at: Time
    finished_at: Time | None


class _Rule(Struct, forbid_unknown_fields=True, gc=False):
    tool_name: str
    rule_content: str | None
    behavior: Literal["allow", "deny", "ask", "passthrough"]
    source: str


class _ToolCall(Struct, tag_field="type", tag="tool_call", forbid_unknown_fields=True, gc=False):
    id: str
    name: str
    input: str
    state: Literal["pending", "asking", "allowed", "submitted", "finished"]
    suggested_rules: list[_Rule]
    created_at: Time
    finished_at: Time | None


class _ToolResult(
    Struct, tag_field="type", tag="tool_result", forbid_unknown_fields=True, gc=False
):
    id: str
    name: str
    #: text blocks only: a result with media takes the whole way
    output: str | list[_OutputText]
    state: Literal["success", "error", "interrupted", "denied", "running"]
    metadata: dict[str, Any]
    created_at: Time
    finished_at: Time | None


class _Base64(Struct, tag_field="type", tag="base64", forbid_unknown_fields=True, gc=False):
    data: str
    media_type: str


class _Url(Struct, tag_field="type", tag="url", forbid_unknown_fields=True, gc=False):
    url: str
    media_type: str


class _Data(Struct, tag_field="type", tag="data", forbid_unknown_fields=True, gc=False):
    id: str
    source: _Base64 | _Url
    name: str | None
    created_at: Time
    finished_at: Time | None


class Message(Struct, forbid_unknown_fields=True, gc=False):
    """A 2.x message as ``Msg.model_dump_json()`` writes it."""

    name: str
    content: list[_Text | _Thinking | _Hint | _ToolCall | _ToolResult | _Data]
    role: Literal["user", "assistant", "system"]
    id: str
    metadata: dict[str, Any]
    created_at: Time
    usage: _Usage | None
    finished_at: Time | None
    finished_reason: Literal["completed", "interrupted", "exceed_max_iters", None]
    structured_output: dict[str, Any] | None
    error: None


def typed_path() -> tuple[Any, Any]:
    """``(decode, digest)``: a line into a :class:`Message` (raising on anything else), and
    :func:`digest` (see ``Dialect.typed_messages``)."""
    return msgspec.json.Decoder(Message).decode, digest


#: the digits of an ASCII time as 0, and the forms the framework writes times in
_SHAPE = bytes.maketrans(b"0123456789", b"0000000000")
_WRITTEN = frozenset({b"0000-00-00T00:00:00", b"0000-00-00T00:00:00.000000"})
#: ``n`` times with a fraction, so read, a NUL between two (the common case at a glance)
_ALL_FRACTIONS = [b"\x00".join([b"0000-00-00T00:00:00.000000"] * n) for n in range(65)]
_from_iso = datetime.fromisoformat
_EPOCH = datetime(1970, 1, 1)


def _all_written(times: list) -> bool:
    """Whether every time (``None`` for none) is in the form the framework writes (what
    ``ISO_WRITTEN`` says), all of them read at once."""
    times = [t for t in times if t is not None]
    text = "\x00".join(times)
    if text.isascii():
        shapes = text.encode().translate(_SHAPE).split(b"\x00")
        # (as many as there are times: a time that holds a NUL is no time)
        if len(shapes) == len(times) and _WRITTEN.issuperset(shapes):
            return True
    # (a time with other digits, or a line end, which the pattern takes too)
    return all(ISO_WRITTEN.match(t) for t in times)


#: ``(role, name)`` -> the sender's number in a message's part key (see message_part_key)
_SENDERS: dict[tuple[str, str], int] = {}


def digest(msg: Message) -> tuple[str, tuple] | None:
    """``(variant, digest)`` of a decoded message no record rule speaks on, else ``None``
    (the types have checked the keys, their types and the times' form already)."""
    created = msg.created_at
    if not created.isascii():
        return None
    try:
        when = _from_iso(created)
    except ValueError:
        return None
    role = msg.role
    content: list[Any] = msg.content
    # every time of the message (no null), to be read at once
    times = [created]
    add = times.append
    finished = msg.finished_at
    if finished is not None:
        add(finished)
    empty = True
    if role == "assistant":
        tools: list[tuple] = []
        for index, block in enumerate(content):
            add(block.created_at)
            finished = block.finished_at
            if finished is not None:
                add(finished)
            kind = type(block)
            if kind is _Text:
                if empty:
                    text = block.text
                    if text and not text.isspace():  # (has_words)
                        empty = False
                continue
            empty = False
            if kind is _Thinking or kind is _Hint:
                continue
            bid = block.id
            if not bid:
                return None
            if kind is _ToolCall:
                name = block.name
                if name.startswith("__") or not object_text(block.input):
                    return None
                tools.append((DIGEST_CALL, bid, ("content", index), name, block.state, bid))
            elif kind is _ToolResult:
                output = block.output
                if type(output) is list:
                    for part in output:
                        add(part.created_at)
                        finished = part.finished_at
                        if finished is not None:
                            add(finished)
                tools.append((DIGEST_RESULT, bid, ("content", index), block.name, bid))
            elif not _clean_data(block):
                return None
        found = tuple(tools)
    else:
        # a user message holds text and data blocks, a system message text blocks (S002)
        for block in content:
            add(block.created_at)
            finished = block.finished_at
            if finished is not None:
                add(finished)
            kind = type(block)
            if kind is _Text:
                if empty:
                    text = block.text
                    if text and not text.isspace():
                        empty = False
                continue
            if kind is not _Data or role == "system" or not block.id:
                return None
            if not _clean_data(block):
                return None
            empty = False
        found = ()
    if empty:
        return None
    # (the types refuse a lone surrogate, so every time encodes)
    count = len(times)
    if not (
        count < 65 and "\x00".join(times).encode().translate(_SHAPE) == _ALL_FRACTIONS[count]
    ) and not _all_written(times):
        return None
    mid = msg.id
    name = msg.name
    sender = (role, name)
    who = _SENDERS.get(sender)
    if who is None:
        who = message_part_key(role, name, "", False)[0]
        if len(_SENDERS) < 4096:  # (a log of many senders does not grow it without end)
            _SENDERS[sender] = who
    since = when - _EPOCH  # (micros(when), without a call)
    return V2, (
        mid or None,
        mid,
        since.days * 86_400_000_000 + since.seconds * 1_000_000 + since.microseconds,
        None,
        found,
        (who, crc32(content[0].id.encode("utf-8", "surrogatepass")), msg.finished_reason is None),
    )


def _clean_data(block: _Data) -> bool:
    """A data block whose source passes the media checks."""
    source = block.source
    if isinstance(source, _Base64):
        return written_source_is_clean("base64", source.media_type, source.data)
    return written_source_is_clean("url", source.media_type, source.url)
