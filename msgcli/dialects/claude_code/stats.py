"""What ``msgcli stats`` counts of a Claude Code session beyond the common counts.

Tokens are counted once per API response: the records of one response (one
``message.id`` and ``requestId``) each carry the usage of the whole response, so they
are merged first (:mod:`.assemble`), a response met again is not counted again, and the
synthetic records Claude Code writes itself (``model: "<synthetic>"``) are skipped.
The sums then equal the ``usage`` of the stream-json ``result`` of the same run.

Under ``claude_code``: responses, cache read and cache creation tokens apart, per
model, and, for a main session file in its ``projects`` layout, the subagents beside it
(``<sessionId>/subagents/agent-<id>.jsonl``) with their own tokens, which the file's
``tokens`` leave out, as Claude Code's own totals do.
"""

from __future__ import annotations

from typing import Any

from ...model import Message
from ..base import is_number
from .known import REPEATED, SYNTHETIC_MODEL

__all__ = ["finish", "note"]

_KEYS = ("input", "output", "cache_read", "cache_creation")


def _tokens() -> dict[str, Any]:
    return {"responses": 0, **dict.fromkeys(_KEYS, 0)}


def _section(details: dict) -> dict:
    found = details.get("claude_code")
    if found is None:
        found = details["claude_code"] = {
            "thread": "main",
            **_tokens(),
            "synthetic": 0,
            "by_model": {},
        }
    return found


def note(msg: Message, details: dict) -> None:
    cc = _section(details)
    if msg.fields.get("isSidechain") is True:
        cc["thread"] = "subagent"
    if msg.role != "assistant":
        return
    model = msg.fields.get("model")
    if model == SYNTHETIC_MODEL:
        cc["synthetic"] += 1
        return
    if msg.fields.get(REPEATED):
        return
    usage = msg.usage
    counts = (
        (usage.input_tokens, usage.output_tokens, usage.cached_tokens, usage.cache_creation_tokens)
        if usage is not None
        else (None, None, None, None)
    )
    key = model if isinstance(model, str) else ""
    per_model = cc["by_model"].get(key)
    if per_model is None:
        per_model = cc["by_model"][key] = _tokens()
    for target in (cc, per_model):
        target["responses"] += 1
        for name, value in zip(_KEYS, counts, strict=True):
            if is_number(value):
                target[name] += value


def finish(path: str, details: dict, count: Any) -> None:
    """The subagents of a session, each counted by ``count`` (``msgcli.stats.file_stats``)."""
    cc = _section(details)
    if not path.endswith(".jsonl") or cc["thread"] != "main":
        return
    from .subagents import subagent_logs

    found = subagent_logs(path)  # beside a local file, or below the same URL prefix
    if found is None:
        return
    from ...remote import mask

    subagents: dict[str, Any] = {"files": 0, **_counts(), "by_agent": {}}
    for agent, where in found:
        counted = count(where, name=mask(where))
        theirs = (counted.details or {}).get("claude_code")
        if theirs is None:
            continue
        subagents["files"] += 1
        mine = subagents["by_agent"][agent] = {
            "records": counted.records,
            "messages": counted.messages,
            "tool_calls": counted.tool_calls,
            **{k: theirs[k] for k in ("responses", *_KEYS)},
        }
        for k, value in mine.items():
            subagents[k] += value
    cc["subagents"] = subagents


def _counts() -> dict[str, Any]:
    """What is counted of each subagent: its records, messages and tool calls (so that a
    subagent counted under its session, and not as a file of its own, is counted whole), and
    its responses and tokens."""
    return {"records": 0, "messages": 0, "tool_calls": 0, **_tokens()}
