"""Finding a session's subagent files: ``<project>/<sessionId>/subagents/agent-<id>.jsonl``
beside ``<project>/<sessionId>.jsonl``, each with an ``agent-<id>.meta.json`` that names the
Agent call that started it (``toolUseId``). Without a meta file, a subagent is matched to its
call by its first prompt, which is the call's ``prompt``.

A session may be a local file or a URL (``s3://bucket/projects/p/<sessionId>.jsonl``): its
subagents are then listed and read through the same fsspec filesystem.

:func:`nested_in_run` tells which of a run's inputs are subagent files shown nested under a
session of the same run (so ``show`` does not show them a second time as files of their
own); a subagent file given without its session is shown as itself.
"""

from __future__ import annotations

import functools
import os
import re
from collections.abc import Iterable
from typing import Any

import orjson

__all__ = [
    "counted_by_sessions",
    "nested_in_run",
    "open_log",
    "parent_session",
    "path_exists",
    "subagent_files",
    "subagent_logs",
]

_AGENT_NAME = re.compile(r"agent-([^/\\]+)\.jsonl")


def _is_url(path: str) -> bool:
    from ...remote import is_url

    return is_url(path)


def _join(folder: str, name: str) -> str:
    return f"{folder.rstrip('/')}/{name}" if _is_url(folder) else os.path.join(folder, name)


_SESSION_ID = re.compile(r"[0-9a-fA-F]{8}(?:-[0-9a-fA-F]{4}){3}-[0-9a-fA-F]{12}")


def _folder(session: str) -> str | None:
    """``<sessionId>/subagents`` beside a session file, or None for a name that is no session.
    In object storage, where each look is a request, only a file named by a session id (as
    Claude Code names them) is looked beside."""
    if not session.endswith(".jsonl"):
        return None
    stem = session[: -len(".jsonl")]
    if _is_url(session) and not _SESSION_ID.fullmatch(stem.rpartition("/")[2]):
        return None
    return _join(stem, "subagents")


def parent_session(path: str) -> str | None:
    """The session file a subagent file's place names (``<x>.jsonl`` for
    ``<x>/subagents/agent-<id>.jsonl``), or None."""
    if _is_url(path):
        folder, _, base = path.rstrip("/").rpartition("/")
        project, _, sub = folder.rpartition("/")
    else:
        folder, base = os.path.split(path)
        project, sub = os.path.split(folder)
    if sub != "subagents" or not _AGENT_NAME.fullmatch(base) or not project:
        return None
    return project + ".jsonl"


def open_log(path: str) -> Any:
    """A local file or a URL opened for reading bytes."""
    from ...remote import open_binary

    return open_binary(path)


def path_exists(path: str) -> bool:
    """Whether a local file or an object at a URL exists."""
    if not _is_url(path):
        return os.path.isfile(path)
    from ...remote import RemoteError, filesystem

    try:
        fs, where = filesystem(path)
        return bool(fs.isfile(where))
    except (RemoteError, Exception):
        return False


def _listing(folder: str) -> tuple[tuple[str, int], ...] | None:
    from ...remote import folder_files

    return folder_files(folder)


def subagent_logs(session: str) -> list[tuple[str, str]] | None:
    """``(agent id, path)`` of every subagent file beside a session file, in name order;
    None when there is no ``subagents`` folder beside it."""
    folder = _folder(session)
    if folder is None:
        return None
    listed = _listing(folder)
    if listed is None:
        return None
    out = []
    for name, _ in listed:
        found = _AGENT_NAME.fullmatch(name)
        if found:
            out.append((found.group(1), _join(folder, name)))
    return out


def subagent_files(session: str) -> dict[Any, tuple[str, str]]:
    """``{call id or ("prompt", text): (title, path)}`` for the subagents of a session file."""
    folder = _folder(session)
    if folder is None:
        return {}
    listed = _listing(folder)
    if not listed:
        return {}
    return _scan(folder, listed)


@functools.lru_cache(maxsize=32)
def _scan(folder: str, listed: tuple[tuple[str, int], ...]) -> dict[Any, tuple[str, str]]:
    # (``listed`` holds each file's time or size: a folder that changed is read again)
    found: dict[Any, tuple[str, str]] = {}
    names = {name for name, _ in listed}
    for name, _ in listed:
        matched = _AGENT_NAME.fullmatch(name)
        if not matched:
            continue
        path = _join(folder, name)
        agent = matched.group(1)
        meta_name = f"agent-{agent}.meta.json"
        meta = _load(_join(folder, meta_name)) if meta_name in names else {}
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
        with open_log(path) as stream:
            value = orjson.loads(stream.read())
    except (OSError, orjson.JSONDecodeError, Exception):
        return {}
    return value if isinstance(value, dict) else {}


def _first_prompt(path: str) -> str | None:
    try:
        with open_log(path) as stream:
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
    except Exception:
        return None
    return None


def _agent_calls(session: str) -> tuple[set[str], set[str]]:
    """The ids and prompts of the Agent (Task) calls a session file holds."""
    from .known import AGENT_TOOLS

    ids: set[str] = set()
    prompts: set[str] = set()
    try:
        with open_log(session) as stream:
            for raw in stream:
                if b'"tool_use"' not in raw:
                    continue
                try:
                    obj = orjson.loads(raw)
                except orjson.JSONDecodeError:
                    continue
                message = obj.get("message") if isinstance(obj, dict) else None
                content = message.get("content") if isinstance(message, dict) else None
                if not isinstance(content, list):
                    continue
                for block in content:
                    if (
                        isinstance(block, dict)
                        and block.get("type") == "tool_use"
                        and type(block.get("name")) is str
                        and block["name"] in AGENT_TOOLS
                        and isinstance(block.get("id"), str)
                    ):
                        ids.add(block["id"])
                        given = block.get("input")
                        prompt = given.get("prompt") if isinstance(given, dict) else None
                        if isinstance(prompt, str):
                            prompts.add(prompt)
    except Exception:
        pass
    return ids, prompts


def nested_under(session: str) -> set[str]:
    """The subagent files ``msgcli show`` nests under an Agent call of this session (those
    the call's id or prompt finds, as :meth:`ClaudeCode.nested_logs` matches them)."""
    found = subagent_files(session)
    if not found:
        return set()
    ids, prompts = _agent_calls(session)
    out = set()
    for key, (_, path) in found.items():
        if (key in ids) if isinstance(key, str) else (key[1] in prompts):
            out.add(path)
    return out


def _key(path: str) -> str:
    return path if _is_url(path) else os.path.normpath(os.path.abspath(path))


def nested_in_run(sources: Iterable[object]) -> set[str]:
    """Of the inputs of one run, the subagent files that a session of the same run nests, and
    their ``.meta.json`` (each subagent is shown under the Agent call that started it, with
    the title its meta file gives, not again as a file of its own)."""
    given = [str(s) for s in sources if s is not None and str(s) != "-"]
    by_key = {_key(s): s for s in given}
    parents = set()
    for source in given:
        stem = source[: -len(".meta.json")] + ".jsonl" if source.endswith(".meta.json") else source
        parent = parent_session(stem)
        if parent is not None and _key(parent) in by_key:
            parents.add(by_key[_key(parent)])
    out: set[str] = set()
    for parent in sorted(parents):
        for path in nested_under(parent):
            for one in (path, path[: -len(".jsonl")] + ".meta.json"):
                if _key(one) in by_key:
                    out.add(by_key[_key(one)])
    return out


def counted_by_sessions(files: list[tuple[str, Any]]) -> set[str]:
    """Of ``(path, claude_code stats)`` of a run's files, the paths of the subagent files (and
    their ``.meta.json``) that a session among them counts under ``subagents.by_agent``."""
    by_key = {_key(path): details for path, details in files}
    out: set[str] = set()
    for path, _ in files:
        stem = path[: -len(".meta.json")] + ".jsonl" if path.endswith(".meta.json") else path
        parent = parent_session(stem)
        if parent is None:
            continue
        details = by_key.get(_key(parent))
        subagents = details.get("subagents") if isinstance(details, dict) else None
        agents = subagents.get("by_agent") if isinstance(subagents, dict) else None
        base = stem.rpartition("/")[2] if _is_url(stem) else os.path.basename(stem)
        matched = _AGENT_NAME.fullmatch(base)
        if isinstance(agents, dict) and matched and matched.group(1) in agents:
            out.add(path)
    return out
