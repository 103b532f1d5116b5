"""What ``msgcli stats`` counts of OpenCode's storage beyond the common counts.

Tokens are counted once per model response, as the API reported them: one response per
``step-finish`` part (its message's ``tokens`` repeat the numbers of its last step, so
the message is not counted again), a fork's copies of its source's messages not at all
(the source counts them), and sub-agent sessions apart from the main thread. OpenCode
stores ``input`` as the prompt less the cached tokens and ``output`` without the
reasoning tokens; both are reported as stored, with the prompt and completion sums the
API's ``usage`` holds beside them. The title request OpenCode makes for a new session is
stored nowhere: no reader of the storage can count it.
"""

from __future__ import annotations

from typing import Any

from ...model import Message
from .usage import message_responses

__all__ = ["finish", "note"]

_KEYS = ("input", "output", "reasoning", "cache_read", "cache_write")

#: what stats says of the title request
TITLE_NOTE = (
    "the title request OpenCode makes for each new session is not stored: its tokens are "
    "in no count"
)


def _tokens() -> dict[str, Any]:
    return {"responses": 0, **dict.fromkeys(_KEYS, 0), "prompt_tokens": 0, "completion_tokens": 0}


def _section(details: dict) -> dict:
    found = details.get("opencode")
    if found is None:
        found = details["opencode"] = {
            "sessions": 0,
            "sub_agent_sessions": 0,
            "forks": 0,
            "fork_copies_not_counted": 0,
            "failed_responses": 0,
            "main": _tokens(),
            "sub_agents": _tokens(),
            "by_model": {},
            "cost": 0,
        }
    return found


def note(msg: Message, details: dict) -> None:
    oc = _section(details)
    fields = msg.fields
    if msg.role == "session":
        if fields.get("migrated"):
            # a storage/ session also in the database beside it: counted from there
            oc["migrated_sessions_counted_from_the_database"] = (
                oc.get("migrated_sessions_counted_from_the_database", 0) + 1
            )
            return
        oc["sessions"] += 1
        oc["title_request"] = TITLE_NOTE
        if fields.get("parent") is not None:
            oc["sub_agent_sessions"] += 1
        if fields.get("fork_of") is not None:
            oc["forks"] += 1
        return
    if msg.role != "assistant":
        return
    if fields.get("copy_of") is not None:
        oc["fork_copies_not_counted"] += 1
        return
    if fields.get("error") is not None:
        oc["failed_responses"] += 1
    cost = fields.get("cost")
    if isinstance(cost, (int, float)) and not isinstance(cost, bool):
        oc["cost"] = round(oc["cost"] + cost, 10)
    thread = oc["sub_agents"] if fields.get("parent") is not None else oc["main"]
    for response in message_responses(msg):
        model = response.model or ""
        if response.provider:
            model = f"{response.provider}/{model}"
        per_model = oc["by_model"].get(model)
        if per_model is None:
            per_model = oc["by_model"][model] = _tokens()
        for target in (thread, per_model):
            target["responses"] += 1
            target["input"] += response.input
            target["output"] += response.output - response.reasoning
            target["reasoning"] += response.reasoning
            target["cache_read"] += response.cache_read
            target["cache_write"] += response.cache_write
            target["prompt_tokens"] += response.input + response.cache_read + response.cache_write
            target["completion_tokens"] += response.output


def finish(path: str, details: dict, count: Any) -> None:
    _section(details)
