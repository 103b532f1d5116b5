"""The typed path of validation for LoongFlow messages (see ``Dialect.typed_messages``).

A line is decoded straight into the types below, which hold a record exactly as
``Message.to_dict()`` writes it: all eight message keys and every key of each element,
nothing else, each of the type the schema asks for, and the element told apart by its
``type``; an ``evolve_result`` in either of its shapes (strings and no ``total_cost`` /
``total_tokens`` in PyPI 0.0.1, lists and both of them in the current library). Decoding
checks the structure while it parses; :func:`digest` then asks what the types cannot say
(ids and the timestamp in the form LoongFlow writes them, the elements a role may hold,
the argument errors a call's metadata reports, media that passes its checks, one shape of
evolve_result per message) and answers the same ``(variant, digest)`` the whole path gives
the same record when it finds nothing in it (:meth:`FastPath.fast_digest` where that
answers). Anything else, a line that does not decode or a record on which a rule could
speak, takes the whole way (schema, rules, explanations) and gets the findings it always
got.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

import msgspec
from msgspec import UNSET, Struct, UnsetType

from ..base import DIGEST_CALL, DIGEST_RESULT
from .fast import data_is_clean
from .written import (
    DIGITS_AS_0,
    EPOCH,
    HEX_AS_0,
    NAIVE_FRACTION,
    NO_FRACTION,
    UUID_RUNS,
    written_ids,
    written_time,
)

_MANY_IDS = len(UUID_RUNS)
_from_iso = datetime.fromisoformat

__all__ = ["Message", "digest", "typed_path"]

#: the integers orjson reads as integers (it reads one beyond as a float, which the whole way
#: reports as a whole float where LoongFlow keeps an integer; msgspec bounds only int64)
_LOWEST = -(2**63)
_HIGHEST = 2**64 - 1


class _Content(Struct, tag_field="type", tag="content", forbid_unknown_fields=True, gc=False):
    mime_type: str
    metadata: dict[str, Any]
    data: Any


class _Think(Struct, tag_field="type", tag="think", forbid_unknown_fields=True, gc=False):
    metadata: dict[str, Any]
    content: Any


class _ToolCall(Struct, tag_field="type", tag="tool_call", forbid_unknown_fields=True, gc=False):
    call_id: str
    metadata: dict[str, Any]
    target: str
    arguments: dict[str, Any]


class _Function(_ToolCall, tag="function", gc=False):
    """A tool call written under the alias LoongFlow keeps as written."""


class _Never(Struct, tag_field="type", tag="\x00", forbid_unknown_fields=True, gc=False):
    """No element has this type: with it, a result item must say ``"type": "content"``
    (a struct alone would take an item without its tag)."""


class _ToolOutput(
    Struct, tag_field="type", tag="tool_output", forbid_unknown_fields=True, gc=False
):
    call_id: str
    metadata: dict[str, Any]
    tool_name: str
    status: Literal["success", "error", "in_progress"]
    result: list[_Content | _Never]


class _Evolve(Struct, tag_field="type", tag="evolve_result", forbid_unknown_fields=True, gc=False):
    """Both shapes: which one it is, and that the keys agree with it, :func:`digest` asks."""

    best_score: float
    best_solution: str | list[str]
    evaluation: str | list[str]
    start_time: str
    end_time: str
    cost_time: int
    last_iteration: int
    total_iterations: int
    total_cost: float | UnsetType = UNSET
    total_tokens: float | UnsetType = UNSET


class Message(Struct, forbid_unknown_fields=True, gc=False):
    """A message as ``Message.to_dict()`` writes it."""

    id: str
    timestamp: str
    trace_id: str
    conversation_id: str
    role: Literal["system", "user", "assistant", "tool"]
    sender: str
    metadata: dict[str, Any]
    content: list[_Content | _Think | _ToolCall | _Function | _ToolOutput | _Evolve]


def typed_path() -> tuple[Any, Any]:
    """``(decode, digest)``: a line into a :class:`Message` (raising on anything else), and
    :func:`digest` (see ``Dialect.typed_messages``)."""
    return msgspec.json.Decoder(Message).decode, digest


def _plain_text(mime_type: str) -> bool:
    """Whether a content element of this type holds text (when its data is a string)."""
    return mime_type.split(";")[0].strip().lower() == "text/plain"


def digest(msg: Message) -> tuple[str | None, tuple] | None:
    """``(variant, digest)`` of a decoded message no record rule speaks on, else ``None``
    (the types have checked the keys, their types, the role and the tool status)."""
    role = msg.role
    mid = msg.id
    # the ids, to be read all at once (see written_ids)
    ids = mid
    count = 1
    empty = True
    tools: list[tuple] = []
    shape = None
    content: list[Any] = msg.content
    for index, el in enumerate(content):
        kind = type(el)
        if kind is _Content:
            data = el.data
            if type(data) is str and (el.mime_type == "text/plain" or _plain_text(el.mime_type)):
                if empty and data and not data.isspace():
                    empty = False
                continue
            if not data_is_clean(data, el.mime_type, ("content", index)):
                return None
        elif kind is _ToolCall or kind is _Function:
            name = el.target
            if name.startswith("__"):
                return None  # (T008)
            metadata = el.metadata
            if metadata:
                error = metadata.get("tool_arguments_err")
                if not (error is None or error == "" or error is False):
                    return None  # (T009)
            cid = el.call_id
            ids += "|" + cid
            count += 1
            tools.append((DIGEST_CALL, cid, ("content", index), name, None, cid))
        elif kind is _ToolOutput:
            if role != "tool":
                return None  # (T007)
            for at, item in enumerate(el.result):
                if type(item) is not _Content:
                    return None
                data = item.data
                if type(data) is str and (
                    item.mime_type == "text/plain" or _plain_text(item.mime_type)
                ):
                    continue
                if not data_is_clean(data, item.mime_type, ("content", index, "result", at)):
                    return None
            cid = el.call_id
            ids += "|" + cid
            count += 1
            tools.append((DIGEST_RESULT, cid, ("content", index), el.tool_name, cid))
        elif kind is _Evolve:
            counts = (el.cost_time, el.last_iteration, el.total_iterations)
            if min(counts) < _LOWEST or max(counts) > _HIGHEST:
                return None
            if type(el.best_solution) is str:
                this = "0.0.1"  # (no total_cost, total_tokens: PyPI 0.0.1 has none)
                if type(el.evaluation) is not str or el.total_cost is not UNSET:
                    return None
                if el.total_tokens is not UNSET:
                    return None
            else:
                this = "current"
                if type(el.evaluation) is str or el.total_cost is UNSET:
                    return None
                if el.total_tokens is UNSET:
                    return None
            if shape is None:
                shape = this
            elif shape != this:
                return None  # (B004)
        # (a thought of any value says something)
        empty = False
    if empty:
        return None  # (B001)
    # every id a UUID as LoongFlow writes it (I003; the schema asks for a UUID), and the
    # timestamp in the form it writes it (C001)
    # (the common case at a glance: the types refuse a lone surrogate, so every text encodes,
    # and no byte beyond ASCII reads as a digit)
    if not (
        count < _MANY_IDS and ids.encode().translate(HEX_AS_0) == UUID_RUNS[count]
    ) and not written_ids(ids, count):
        return None
    stamp = msg.timestamp
    if stamp.encode().translate(DIGITS_AS_0) == NAIVE_FRACTION and not stamp.endswith(NO_FRACTION):
        # the common case of written_time, read here: naive, with a fraction
        try:
            since = _from_iso(stamp) - EPOCH
        except ValueError:
            return None  # (not a date: the schema says so)
        when: int | None = (
            since.days * 86_400_000_000 + since.seconds * 1_000_000 + since.microseconds
        )
    else:
        written, when = written_time(stamp)
        if not written:
            return None
    group: Any = None
    if when is not None:
        group = msg.conversation_id
        if role == "tool" or msg.sender == "compressor":  # (follows)
            group = (group,)
    return shape, (mid, mid, when, group, tuple(tools))
