"""The rules on one AgentScope Python record that need the dialect's knowledge (stage
``record``)."""

from __future__ import annotations

from typing import Any

from ...model import (
    Message,
    ToolCallBlock,
    pointer,
)
from ...textsafe import short
from ..base import (
    Dialect,
    Emit,
)
from .records import ISO_WRITTEN, NESTED2, V1, V1_WRITTEN, V2

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

_USAGE2_DEFAULTED = ("cache_input_tokens", "cache_creation_input_tokens")

#: 1.x message keys ``from_dict`` fills in when missing (``timestamp`` is what makes a
#: record 1.x, so a record without it is read as 2.x)
_MSG1_DEFAULTED = {
    "id": "gives it a new random id",
    "metadata": "sets it to {}",
}


def _missing_key(emit: Emit, key: str, where: str, version: str, effect: str, ptr: str) -> None:
    emit(
        "S004",
        f"{where} has no {short(key)}, which AgentScope {version} always writes "
        f"(the record was edited or made elsewhere); loading it {effect}",
        ptr,
    )


def _check_iso(emit: Emit, value: Any, key: str, path: tuple) -> None:
    if isinstance(value, str) and not ISO_WRITTEN.match(value):
        emit(
            "C001",
            f"{key} {short(value)} is not in the form AgentScope writes "
            "(local time without zone, e.g. 2026-11-22T11:54:32.302881)",
            pointer(path, key),
        )


def _check_v2(obj: dict, emit: Emit) -> None:
    for key, effect in _MSG2_DEFAULTED.items():
        if key not in obj:
            _missing_key(emit, key, "the message", V2, effect, "")
    usage = obj.get("usage")
    if isinstance(usage, dict):
        for key in _USAGE2_DEFAULTED:
            if key not in usage:
                _missing_key(emit, key, "the usage", V2, "sets it to 0", "/usage")
    error = obj.get("error")
    if isinstance(error, dict) and "type" not in error:
        _missing_key(emit, "type", "the error", V2, 'sets it to "unknown"', "/error")
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
        if nested and kind not in NESTED2:
            continue
        path = (*base, i)
        for key, effect in _BLOCK2_DEFAULTED[kind].items():
            if key not in item:
                _missing_key(emit, key, f"the {kind} block", V2, effect, pointer(path))
        for key in ("created_at", "finished_at"):
            _check_iso(emit, item.get(key), key, path)
        inner_key = "output" if kind == "tool_result" else "hint" if kind == "hint" else None
        inner = item.get(inner_key) if inner_key else None
        if isinstance(inner, list):
            _check_blocks_v2(inner, (*path, inner_key), emit, nested=True)


def _check_v1(obj: dict, emit: Emit) -> None:
    for key, effect in _MSG1_DEFAULTED.items():
        if key not in obj:
            _missing_key(emit, key, "the message", V1, effect, "")
    stamp = obj.get("timestamp")
    if not (isinstance(stamp, str) and V1_WRITTEN.match(stamp)):
        emit(
            "C001",
            f"timestamp {short(stamp)} is not in the form AgentScope 1.x writes "
            "(YYYY-MM-DD HH:MM:SS.mmm, e.g. 2026-11-22 11:54:34.508)",
            "/timestamp",
        )


class Rules(Dialect):
    """The per-record rules only AgentScope Python's records need (beyond the schema)."""

    own_rules = frozenset({"B002"})

    def tool_input_key_of(self, block: ToolCallBlock) -> str | None:
        # 1.x keeps the parsed object in `input` and the argument text in `raw_input`
        return "raw_input" if block.arguments is not None else "input"

    def check(self, obj: dict, msg: Message, emit: Emit) -> None:
        if not isinstance(obj, dict):
            return
        if msg.variant == V1:
            _check_v1(obj, emit)
        else:
            _check_v2(obj, emit)
