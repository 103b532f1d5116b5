"""Finding a session's subagent files: ``<project>/<sessionId>/subagents/agent-<id>.jsonl``
beside ``<project>/<sessionId>.jsonl``, each with an ``agent-<id>.meta.json`` that names the
Agent call that started it (``toolUseId``). Without a meta file, a subagent is matched to its
call by its first prompt, which is the call's ``prompt``."""

from __future__ import annotations

import functools
import os
from typing import Any

import orjson

__all__ = ["subagent_files"]


def subagent_files(session: str) -> dict[Any, tuple[str, str]]:
    """``{call id or ("prompt", text): (title, path)}`` for the subagents of a session file."""
    if not session.endswith(".jsonl"):
        return {}
    folder = os.path.join(session[: -len(".jsonl")], "subagents")
    try:
        stamp = os.stat(folder).st_mtime_ns
    except OSError:
        return {}
    return _scan(folder, stamp)


@functools.lru_cache(maxsize=32)
def _scan(folder: str, _stamp: int) -> dict[Any, tuple[str, str]]:
    found: dict[Any, tuple[str, str]] = {}
    for name in sorted(os.listdir(folder)):
        if not (name.startswith("agent-") and name.endswith(".jsonl")):
            continue
        path = os.path.join(folder, name)
        agent = name[len("agent-") : -len(".jsonl")]
        meta = _load(os.path.join(folder, f"agent-{agent}.meta.json"))
        kind = meta.get("agentType") if isinstance(meta.get("agentType"), str) else "subagent"
        what = meta.get("description")
        title = f"subagent {kind} ({agent})" + (f": {what}" if isinstance(what, str) else "")
        tool = meta.get("toolUseId")
        if isinstance(tool, str):
            found[tool] = (title, path)
        prompt = _first_prompt(path)
        if prompt is not None:
            found.setdefault(("prompt", prompt), (title, path))
    return found


def _load(path: str) -> dict:
    try:
        with open(path, "rb") as stream:
            value = orjson.loads(stream.read())
    except (OSError, orjson.JSONDecodeError):
        return {}
    return value if isinstance(value, dict) else {}


def _first_prompt(path: str) -> str | None:
    try:
        with open(path, "rb") as stream:
            for index, raw in enumerate(stream):
                if index > 20:
                    break
                try:
                    obj = orjson.loads(raw)
                except orjson.JSONDecodeError:
                    continue
                if isinstance(obj, dict) and obj.get("type") == "user":
                    message = obj.get("message")
                    content = message.get("content") if isinstance(message, dict) else None
                    return content if isinstance(content, str) else None
    except OSError:
        return None
    return None
