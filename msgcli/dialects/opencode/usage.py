"""What OpenCode's storage says of each model response: its tokens (per step), its time.

Shared by the dialect (:mod:`msgcli.dialects.opencode`), its checks and its stats.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from ...model import Message, ResponseUsage
from ..base import is_number
from .known import MARK

__all__ = [
    "message_responses",
    "ms_time",
    "step_usages",
    "time_text",
    "tokens_of",
]


def _count(value: Any) -> int | float:
    return value if is_number(value) else 0


def tokens_of(raw: Any) -> tuple[int | float, int | float, int | float, int | float, int | float]:
    """``(input, output, reasoning, cache read, cache write)`` of a ``tokens`` object."""
    if not isinstance(raw, dict):
        return 0, 0, 0, 0, 0
    cache = raw.get("cache")
    cache = cache if isinstance(cache, dict) else {}
    return (
        _count(raw.get("input")),
        _count(raw.get("output")),
        _count(raw.get("reasoning")),
        _count(cache.get("read")),
        _count(cache.get("write")),
    )


def step_usages(obj: dict) -> list[tuple[Any, tuple]]:
    """``(key, tokens)`` of every model response a message record holds the usage of, each
    once: one per ``step-finish`` part (the numbers the API sent for that step; the
    message's own ``tokens`` repeat the last of them), or, for a reply with no step-finish
    part, the message's ``tokens`` when it ended without an error and counts anything.
    None for a user message, and none for a fork's copy of a message (its source counts)."""
    info = obj.get("info")
    if not isinstance(info, dict) or info.get("role") != "assistant":
        return []
    mark = obj.get(MARK)
    if isinstance(mark, dict) and mark.get("copy_of") is not None:
        return []
    out = []
    parts = obj.get("parts")
    for index, part in enumerate(parts if isinstance(parts, list) else ()):
        if isinstance(part, dict) and part.get("type") == "step-finish":
            key = part.get("id") if isinstance(part.get("id"), str) else (info.get("id"), index)
            out.append((key, tokens_of(part.get("tokens"))))
    if out or info.get("error") is not None:
        return out
    tokens = tokens_of(info.get("tokens"))
    if any(tokens):
        out.append((info.get("id"), tokens))
    return out


def ms_time(value: Any) -> datetime | None:
    """An aware time from OpenCode's milliseconds (or from the text :func:`time_text` made)."""
    if isinstance(value, str):
        try:
            when = datetime.fromisoformat(value.replace("Z", "+00:00"))
        except ValueError:
            return None
        return when if when.tzinfo is not None else when.replace(tzinfo=UTC)
    if not is_number(value):
        return None
    try:
        return datetime.fromtimestamp(value / 1000, UTC)
    except (OverflowError, OSError, ValueError):
        return None


def time_text(value: Any) -> Any:
    """OpenCode's milliseconds since 1970 as ISO 8601 text in UTC (what ``show`` prints and a
    conversion writes); any other value as it is."""
    when = ms_time(value) if is_number(value) else None
    if when is None:
        return value
    return when.strftime("%Y-%m-%dT%H:%M:%S.") + f"{when.microsecond // 1000:03d}Z"


def message_responses(msg: Message) -> list[ResponseUsage]:
    steps = msg.fields.get("steps")
    if msg.role != "assistant" or msg.fields.get("copy_of") is not None:
        return []
    record = {
        "info": {
            "role": "assistant",
            "id": msg.id,
            "tokens": msg.fields.get("tokens"),
            "error": msg.fields.get("error"),
        },
        "parts": steps or [],
    }
    parent = msg.fields.get("parent")
    agent = msg.fields.get("agent") if parent is not None else None
    path = msg.fields.get("path")
    project = path.get("root") if isinstance(path, dict) else None
    time = msg.fields.get("time")
    completed = time.get("completed") if isinstance(time, dict) else None
    when = ms_time(completed if completed is not None else msg.timestamp)
    model = msg.fields.get("modelID")
    provider = msg.fields.get("providerID")
    out = []
    for key, (inp, output, reasoning, read, write) in step_usages(record):
        out.append(
            ResponseUsage(
                model=model if isinstance(model, str) else None,
                input=int(inp),
                output=int(output + reasoning),
                cache_read=int(read),
                cache_write=int(write),
                reasoning=int(reasoning),
                time=when,
                session=msg.fields.get("sessionID"),
                project=project if isinstance(project, str) else None,
                agent=agent if isinstance(agent, str) else None,
                provider=provider if isinstance(provider, str) else None,
                key=("opencode", key),
            )
        )
    return out
