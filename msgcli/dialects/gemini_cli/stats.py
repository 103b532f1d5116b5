"""What ``msgcli stats`` counts of a Gemini CLI session beyond the common counts.

Tokens are counted once per model response: a response is one ``gemini`` message id, the
last copy written counts (:mod:`.history`). The common ``tokens`` are the API's own
numbers: ``input`` = promptTokenCount (the cached tokens are part of it), ``output`` =
candidatesTokenCount (the thoughts are not), ``cached`` = cachedContentTokenCount,
``reasoning`` = thoughtsTokenCount. Under ``gemini_cli``: the same per model, the
tool-use prompt tokens and the totals, the responses no longer in the history (rewound),
and, for a main session file in the CLI's layout, its sub-agents
(``chats/<sessionId>/<agent>.jsonl``) counted apart: the file's ``tokens`` leave them out.
"""

from __future__ import annotations

import os
from typing import Any

from ...model import Message
from ..base import is_number
from .known import AGENT, DROPPED, SESSION

__all__ = ["finish", "note"]

_KEYS = ("input", "output", "cached", "thoughts", "tool", "total")


def _tokens() -> dict[str, Any]:
    return {"responses": 0, **dict.fromkeys(_KEYS, 0)}


def _section(details: dict) -> dict:
    found = details.get("gemini_cli")
    if found is None:
        found = details["gemini_cli"] = {
            "thread": "main",
            "session": None,
            **_tokens(),
            "rewound": 0,
            "by_model": {},
        }
    return found


def note(msg: Message, details: dict) -> None:
    gc = _section(details)
    if msg.fields.get(AGENT) is not None:
        gc["thread"] = "subagent"
    session = msg.fields.get(SESSION)
    if isinstance(session, str):
        gc["session"] = session
    if msg.role != "assistant" or msg.usage is None:
        return
    usage = msg.usage
    counts = (
        usage.input_tokens,
        usage.output_tokens,
        usage.cached_tokens,
        usage.extra.get("thoughts"),
        usage.extra.get("tool"),
        usage.total_tokens,
    )
    if msg.fields.get(DROPPED):
        gc["rewound"] += 1
    model = msg.fields.get("model")
    key = model if isinstance(model, str) else ""
    per_model = gc["by_model"].get(key)
    if per_model is None:
        per_model = gc["by_model"][key] = _tokens()
    for target in (gc, per_model):
        target["responses"] += 1
        for name, value in zip(_KEYS, counts, strict=True):
            if is_number(value):
                target[name] += value


def finish(path: str, details: dict, count: Any) -> None:
    """The sub-agents of a main session, each counted by ``count``."""
    gc = _section(details)
    session = gc.get("session")
    if gc["thread"] != "main" or not isinstance(session, str):
        return
    from ...remote import folder_files, is_url

    if is_url(path):
        folder = f"{path.rpartition('/')[0]}/{session}"
    else:
        folder = os.path.join(os.path.dirname(path), session)
    listed = folder_files(folder)  # (a folder in object storage too)
    if listed is None:
        return
    subagents: dict[str, Any] = {
        "files": 0,
        "records": 0,
        "messages": 0,
        "tool_calls": 0,
        **_tokens(),
        "by_agent": {},
    }
    for entry, _ in listed:
        if not entry.endswith(".jsonl"):
            continue
        counted = count(f"{folder}/{entry}" if is_url(folder) else os.path.join(folder, entry))
        theirs = (counted.details or {}).get("gemini_cli")
        if theirs is None:
            continue
        subagents["files"] += 1
        mine = subagents["by_agent"][entry[: -len(".jsonl")]] = {
            "records": counted.records,
            "messages": counted.messages,
            "tool_calls": counted.tool_calls,
            **{k: theirs[k] for k in ("responses", *_KEYS)},
        }
        for k, value in mine.items():
            subagents[k] += value
    gc["subagents"] = subagents
