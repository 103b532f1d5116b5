"""The rules on one AgentScope Java record that need the dialect's knowledge (stage ``record``)."""

from __future__ import annotations

from typing import Any

from ...model import (
    Message,
    pointer,
)
from ...textsafe import short
from ..base import (
    Dialect,
    Emit,
    is_number,
)
from .records import (
    MAX_DEPTH,
    MESSAGE_KEYS,
    MESSAGE_KEYS_V1,
    TIMESTAMP,
    USAGE_KEYS,
    V1,
    written_time,
)

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


def _check_blocks(content: list, path: tuple, v2: bool, emit: Emit, depth: int) -> None:
    if depth > MAX_DEPTH:
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
    if TIMESTAMP.fullmatch(value):
        if written_time(value) is None:
            emit("C001", f"the timestamp {short(value)} is not a real date and time", "/timestamp")
        return
    emit(
        "C001",
        f"the timestamp {short(value)} is not in the form AgentScope Java writes: "
        "yyyy-MM-dd HH:mm:ss.SSS in local time without a zone, e.g. 2026-08-22 23:15:56.123",
        "/timestamp",
    )


def check_total(usage: dict, path: tuple, emit: Emit) -> None:
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


class Rules(Dialect):
    """The per-record rules only AgentScope Java's records need (beyond the schema)."""

    own_rules = frozenset({"B003", "E010", "E011", "E012"})

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
            check_total(usage, ("usage",), emit)
        metadata = obj.get("metadata")
        if isinstance(metadata, dict):
            chat_usage = metadata.get("_chat_usage")
            if isinstance(chat_usage, dict):
                check_total(chat_usage, ("metadata", "_chat_usage"), emit)
