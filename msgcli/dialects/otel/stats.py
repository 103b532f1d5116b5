"""What ``msgcli stats`` counts of an OTLP file beyond the common counts (under ``otel``):
spans by operation (those not about GenAI apart), model calls, their latency from the
span times, errors (``error.type`` and error status) by type, tokens per model call
(cache read and reasoning apart) and per model. An agent span's aggregated usage is the
sum of its calls': it is never counted again."""

from __future__ import annotations

from typing import Any

from ...model import Message

__all__ = ["note"]


def _section(details: dict) -> dict:
    found = details.get("otel")
    if found is None:
        found = details["otel"] = {
            "spans": {},
            "calls": 0,
            "latency_ms": {"total": 0.0, "max": 0.0},
            "errors": {},
            "tokens": {"input": 0, "output": 0, "cache_read": 0, "reasoning": 0},
            "by_model": {},
        }
    return found


def _add(into: dict, key: str, value: Any) -> None:
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        into[key] = into.get(key, 0) + value


def note(msg: Message, details: dict) -> None:
    section = _section(details)
    fields = msg.fields
    if fields.get("aside"):
        kind = str(msg.role)
        section["spans"][kind] = section["spans"].get(kind, 0) + 1
    error = fields.get("error")
    if isinstance(error, dict):
        kind = str(error.get("type", "error"))
        section["errors"][kind] = section["errors"].get(kind, 0) + 1
    if not fields.get("call"):
        return
    section["spans"]["chat"] = section["spans"].get("chat", 0) + 1
    section["calls"] += 1
    latency = fields.get("latency_ms")
    if isinstance(latency, (int, float)):
        section["latency_ms"]["total"] = round(section["latency_ms"]["total"] + latency, 3)
        section["latency_ms"]["max"] = max(section["latency_ms"]["max"], latency)
    usage = msg.usage
    if usage is None:
        return
    tokens = section["tokens"]
    _add(tokens, "input", usage.input_tokens)
    _add(tokens, "output", usage.output_tokens)
    _add(tokens, "cache_read", usage.cached_tokens)
    _add(tokens, "reasoning", usage.extra.get("reasoning"))
    model = str(fields.get("model") or "unknown")
    per = section["by_model"].setdefault(model, {"calls": 0, "input": 0, "output": 0})
    per["calls"] += 1
    _add(per, "input", usage.input_tokens)
    _add(per, "output", usage.output_tokens)
