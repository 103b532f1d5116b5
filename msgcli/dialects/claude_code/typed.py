"""The typed path of a Claude Code session's common records (see
:meth:`.checks.SessionChecker.typed`).

A line is decoded straight into the types below: one per record type with a schema,
told apart by ``type``, each holding exactly the fields msgcli knows of that type
(:data:`.known.RECORD_FIELDS`; a field it does not know makes the line refuse the
types), each of the type the record type's published schema asks for (a field the schema
says nothing of takes any JSON value); the assistant message and its content blocks the
same way. Decoding checks all of that while it parses; :func:`digest` then asks what
the types cannot say (an attachment kind and a system subtype msgcli knows, no synthetic
API-error response) and answers the record's digest for the checks across records, the
one :func:`.checks._digest` gives the same record. A record the types refuse, or one a
rule could speak on, takes the whole way (parsed, its schema, each rule in turn) and
gets the findings it always got.

Every value is decoded, none skipped, so that the text of every string is checked as
the whole way checks it (UTF-8, no lone surrogate); a field the types do not name is
refused rather than skipped for the same reason. Numbers: an integer is one written
without a fraction and within 64 bits, signed (a whole number written as ``1.0``, which the
schema takes as an integer, and a larger one go the whole way).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, Union, get_args

import msgspec
from msgspec import UNSET, Meta, Struct, UnsetType

from .known import ATTACHMENT_KINDS, MESSAGE_FIELDS, RECORD_FIELDS, SYNTHETIC_MODEL, SYSTEM_SUBTYPES

__all__ = ["CONSTRAINED", "REQUIRED", "decoder", "digest"]

#: the integers taken here: within int64, which orjson reads as integers too (it reads
#: one beyond 64 bits as a float; msgspec bounds only int64)
_LOWEST = -(2**63)
_HIGHEST = 2**63 - 1

_Id = Annotated[str, Meta(min_length=1)]
_Ref = str | None
_Object = dict[str, Any]
_Int = Annotated[int, Meta(ge=_LOWEST, le=_HIGHEST)]
_Count = Annotated[int, Meta(ge=0, le=_HIGHEST)] | None


# -- content blocks ($defs/block): each known type with its fields; another type, or a
# -- field not named here, goes the whole way


class _Text(Struct, tag_field="type", tag="text", forbid_unknown_fields=True, gc=False):
    text: str
    citations: Any = UNSET


class _ToolUse(Struct, tag_field="type", tag="tool_use", forbid_unknown_fields=True, gc=False):
    id: _Id
    name: str
    input: _Object
    caller: Any = UNSET


class _ToolResult(
    Struct, tag_field="type", tag="tool_result", forbid_unknown_fields=True, gc=False
):
    tool_use_id: _Id
    content: str | list[Any] | UnsetType = UNSET
    is_error: bool | UnsetType = UNSET


class _Thinking(Struct, tag_field="type", tag="thinking", forbid_unknown_fields=True, gc=False):
    thinking: str
    signature: str | UnsetType = UNSET


class _RedactedThinking(
    Struct, tag_field="type", tag="redacted_thinking", forbid_unknown_fields=True, gc=False
):
    data: str


class _Image(Struct, tag_field="type", tag="image", forbid_unknown_fields=True, gc=False):
    source: _Object


_Block = _Text | _ToolUse | _ToolResult | _Thinking | _RedactedThinking | _Image


class _Usage(Struct, forbid_unknown_fields=True, gc=False):
    """``$defs/usage``: the four token counts, and the other keys the API writes."""

    input_tokens: _Count = None
    output_tokens: _Count = None
    cache_read_input_tokens: _Count = None
    cache_creation_input_tokens: _Count = None
    server_tool_use: Any = UNSET
    service_tier: Any = UNSET
    cache_creation: Any = UNSET
    inference_geo: Any = UNSET
    iterations: Any = UNSET
    speed: Any = UNSET


#: the types the assistant message's schema asks of the fields it names (the others of
#: :data:`.known.MESSAGE_FIELDS` take any value)
_MESSAGE: dict[str, Any] = {
    "id": _Id,
    "type": Literal["message"],
    "role": Literal["assistant"],
    "model": str,
    "content": list[_Block],
    "stop_reason": str | None,
    "stop_sequence": str | None,
    "usage": _Usage | None,
}
_MESSAGE_REQUIRED = frozenset({"id", "role", "model", "content"})


class _UserMessage(Struct, forbid_unknown_fields=True, gc=False):
    role: Literal["user"]
    content: str | list[_Block]


#: the envelope of a graph record: the types of ``$defs`` uuid, parentRef, sessionId,
#: timestamp, text and flag
_ENVELOPE: dict[str, Any] = {
    "uuid": _Id,
    "parentUuid": _Ref,
    "logicalParentUuid": _Ref,
    "isSidechain": bool,
    "sessionId": str,
    "timestamp": str,
    "cwd": str,
    "gitBranch": str,
    "version": str,
    "userType": str,
    "entrypoint": str,
    "slug": str,
    "agentId": str,
    "isMeta": bool,
}
_GRAPH_REQUIRED = frozenset({"uuid", "parentUuid", "sessionId", "timestamp"})

#: record type -> the type its schema asks of each field it constrains (a field msgcli
#: knows and this does not name takes any value)
CONSTRAINED: dict[str, dict[str, Any]] = {
    "user": {
        **_ENVELOPE,
        "message": _UserMessage,
        "promptId": str,
        "permissionMode": str,
        "promptSource": str,
        "origin": _Object,
        "sourceToolAssistantUUID": _Id,
        "isCompactSummary": bool,
        "isVisibleInTranscriptOnly": bool,
        "interruptedMessageId": str,
    },
    "assistant": {
        **_ENVELOPE,
        "requestId": str,
        "message": None,  # (the message type, made below)
        "attributionAgent": str,
        "isApiErrorMessage": bool,
        "apiErrorStatus": _Int | None,
    },
    "attachment": {**_ENVELOPE, "attachment": _Object},
    "system": {
        **_ENVELOPE,
        "subtype": str,
        "content": str,
        "level": str,
        "compactMetadata": _Object,
        "durationMs": float,
        "messageCount": _Int,
    },
    "queue-operation": {"operation": str, "timestamp": str, "sessionId": str, "content": str},
    "last-prompt": {"lastPrompt": str, "leafUuid": _Id, "sessionId": str},
    "file-history-snapshot": {"messageId": str, "snapshot": _Object, "isSnapshotUpdate": bool},
}
#: record type -> the fields its schema requires (besides ``type``)
REQUIRED: dict[str, frozenset[str]] = {
    "user": _GRAPH_REQUIRED | {"message"},
    "assistant": _GRAPH_REQUIRED | {"message"},
    "attachment": _GRAPH_REQUIRED | {"attachment"},
    "system": _GRAPH_REQUIRED | {"subtype"},
    "queue-operation": frozenset({"operation", "sessionId"}),
    "last-prompt": frozenset({"sessionId"}),
    "file-history-snapshot": frozenset({"messageId", "snapshot"}),
}


def _fields(
    known: frozenset[str], constrained: dict[str, Any], required: frozenset[str], tag: str = ""
) -> list[tuple]:
    """msgspec fields: every field msgcli knows (but the ``tag`` field), of the type the
    schema asks (any value where it says nothing), required or not as the schema says. An
    absent field that may be null reads as None (as ``dict.get`` reads it), another as
    UNSET."""
    out: list[tuple] = []
    for name in sorted(known - {tag}):
        kind = constrained.get(name, Any)
        if name in required:
            out.append((name, kind))
        elif kind is not Any and type(None) in get_args(kind):
            out.append((name, kind, None))
        else:
            out.append((name, Union[kind, UnsetType], UNSET))  # noqa: UP007 (kind: a value)
    return out


_Message = msgspec.defstruct(
    "_Message",
    _fields(MESSAGE_FIELDS, _MESSAGE, _MESSAGE_REQUIRED),
    forbid_unknown_fields=True,
    kw_only=True,
    gc=False,
)
CONSTRAINED["assistant"]["message"] = _Message

#: record type -> its type
TYPES = {
    kind: msgspec.defstruct(
        f"_{kind.title().replace('-', '')}",
        _fields(RECORD_FIELDS[kind], fields, REQUIRED[kind], "type"),
        tag_field="type",
        tag=kind,
        forbid_unknown_fields=True,
        kw_only=True,
        gc=False,
    )
    for kind, fields in CONSTRAINED.items()
}
_Record = Union[tuple(TYPES.values())]  # type: ignore[valid-type]  # noqa: UP007


def decoder() -> Any:
    """``decode(line)``: the line's record in its type; raises what msgspec raises for a
    line the types refuse (:data:`REFUSED`)."""
    return msgspec.json.Decoder(_Record).decode


#: what decoding a line the types refuse raises (invalid UTF-8 is a ValueError)
REFUSED = (msgspec.ValidationError, msgspec.DecodeError, ValueError, RecursionError)

_USER = TYPES["user"]
_ASSISTANT = TYPES["assistant"]
_ATTACHMENT = TYPES["attachment"]
_SYSTEM = TYPES["system"]
_LAST_PROMPT = TYPES["last-prompt"]
#: the records of the uuid/parentUuid graph
_GRAPH = frozenset({_USER, _ASSISTANT, _ATTACHMENT, _SYSTEM})


def digest(value: Any) -> tuple | None:
    """The digest of a decoded record for the checks across records (``()``: it feeds them
    nothing), or None when a rule could speak on it (it then goes the whole way). (Written
    out for each record type: it runs for every record.)"""
    kind = type(value)
    if kind not in _GRAPH:
        if kind is _LAST_PROMPT:
            leaf = value.leafUuid
            if leaf is not UNSET:
                return ("last-prompt", None, (("/leafUuid", leaf),), None, None, (), (), None)
        return ()
    parent = value.parentUuid
    logical = value.logicalParentUuid
    if logical is None:
        refs: tuple = () if parent is None else (("/parentUuid", parent),)
    elif parent is None:
        refs = (("/logicalParentUuid", logical),)
    else:
        refs = (("/parentUuid", parent), ("/logicalParentUuid", logical))
    if kind is _ASSISTANT:
        message = value.message
        model = message.model
        if model == SYNTHETIC_MODEL:
            return None
        usage = message.usage
        if usage is not None:
            usage = (
                usage.input_tokens,
                usage.output_tokens,
                usage.cache_read_input_tokens,
                usage.cache_creation_input_tokens,
            )
        request = value.requestId
        sig = (model, None if request is UNSET else request, usage, message.stop_reason)
        content = message.content
        if len(content) == 1:  # (one block per record, as Claude Code writes them)
            block = content[0]
            calls: tuple = ((block.id, block.name, 0),) if type(block) is _ToolUse else ()
        else:
            calls = tuple(
                [
                    (block.id, block.name, index)
                    for index, block in enumerate(content)
                    if type(block) is _ToolUse
                ]
            )
        return ("assistant", value.uuid, refs, message.id, sig, calls, (), None)
    if kind is _USER:
        content = value.message.content
        results: tuple = ()
        source = None
        if type(content) is list:
            if len(content) == 1:  # (one tool result per record, as Claude Code writes them)
                block = content[0]
                results = ((block.tool_use_id, 0),) if type(block) is _ToolResult else ()
            else:
                results = tuple(
                    [
                        (block.tool_use_id, index)
                        for index, block in enumerate(content)
                        if type(block) is _ToolResult
                    ]
                )
            if results:
                source = value.sourceToolAssistantUUID
                if source is UNSET:
                    source = None
        return ("user", value.uuid, refs, None, None, (), results, source)
    if kind is _ATTACHMENT:
        what = value.attachment.get("type")
        if type(what) is not str or what not in ATTACHMENT_KINDS:
            return None
        return ("attachment", value.uuid, refs, None, None, (), (), None)
    if value.subtype not in SYSTEM_SUBTYPES:
        return None
    return ("system", value.uuid, refs, None, None, (), (), None)
