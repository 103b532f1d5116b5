"""What ``msgcli stats`` counts of a Codex rollout beyond the common counts.

Tokens are counted once per model response: the usage of each ``token_usage_record``,
by its ``response_id`` (a response recorded again is not counted again). Never the
``token_count`` events (running totals of the thread, written more than once around a
compaction, and a fork's including its parent's) nor the ``--json`` output's
``turn.completed`` usage (the thread's running total at the end of each run).

Under ``codex``: the responses and tokens of the main threads and of the sub-agents apart
(``subagents.by_agent``), per model, and the forks read (whose files hold only what the
fork added: the parent's records are in the parent's file).
"""

from __future__ import annotations

from typing import Any

from ...model import Message
from ..base import is_number

__all__ = ["note"]

_KEYS = ("input", "cached", "output", "reasoning")


def _tokens() -> dict[str, Any]:
    return {"responses": 0, **dict.fromkeys(_KEYS, 0)}


def _section(details: dict) -> dict:
    found = details.get("codex")
    if found is None:
        found = details["codex"] = {
            "main": _tokens(),
            "subagents": {**_tokens(), "by_agent": {}},
            "by_model": {},
            "forks": 0,
        }
    return found


def note(msg: Message, details: dict) -> None:
    cx = _section(details)
    fields = msg.fields
    if fields.get("record_type") == "session_meta" and fields.get("forked_from_id"):
        cx["forks"] += 1
    if msg.role != "assistant" or msg.usage is None or fields.get("repeated"):
        return
    usage = msg.usage
    counts = (
        usage.input_tokens,
        usage.cached_tokens,
        usage.output_tokens,
        fields.get("reasoning_tokens"),
    )
    model = fields.get("model")
    key = model if isinstance(model, str) else ""
    per_model = cx["by_model"].get(key)
    if per_model is None:
        per_model = cx["by_model"][key] = _tokens()
    agent = fields.get("agent_path")
    targets = [per_model]
    if isinstance(agent, str):
        subagents = cx["subagents"]
        mine = subagents["by_agent"].get(agent)
        if mine is None:
            mine = subagents["by_agent"][agent] = _tokens()
        targets += [subagents, mine]
    else:
        targets.append(cx["main"])
    for target in targets:
        target["responses"] += 1
        for name, value in zip(_KEYS, counts, strict=True):
            if is_number(value):
                target[name] += value
