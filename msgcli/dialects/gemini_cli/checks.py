"""Checking a Gemini CLI session (or sub-agent) file: each record against the schema of its
kind, and the rules across records over the history the CLI rebuilds (:mod:`.history`):
every tool call answered once by its call id, sub-agents pointing at existing files, the
session id consistent with the file's name, copies of a response agreeing."""

from __future__ import annotations

import os
import re
from typing import Any

from ...schemas import CompiledSchema, compiled, explain
from ...textsafe import short
from .history import History, is_message
from .known import (
    AGENT_TOOL,
    DROPPED,
    HEADER_FIELDS,
    MESSAGE_FIELDS,
    SET_KEYS,
    SYNTHETIC,
    TOOL_CALL_FIELDS,
)

__all__ = ["SessionChecker", "record_kind"]

_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
_SESSION_FILE = re.compile(r"session-.*-([0-9a-f]{8})\.jsonl?")


def record_kind(obj: dict) -> str:
    """The schema a record is checked against."""
    if "$set" in obj:
        return "patch"
    if "$rewindTo" in obj:
        return "rewind"
    if "sessionId" in obj and "projectHash" in obj and "type" not in obj:
        return "session"
    kind = obj.get("type")
    if kind in ("user", "gemini"):
        return kind
    return "notice" if kind in ("info", "error", "warning") else "unknown"


def _pointer(*keys: Any) -> str:
    return "".join("/" + str(k).replace("~", "~0").replace("/", "~1") for k in keys)


class SessionChecker:
    """The rules of one Gemini CLI file (:meth:`msgcli.dialects.base.Dialect.record_checker`)."""

    def __init__(self, emit: Any, name: str):
        self.emit = emit
        self.name = name
        base = os.path.basename(name)
        found = _SESSION_FILE.fullmatch(base)
        #: the first 8 hex digits of the session id a main session file's name gives
        self.prefix = found.group(1) if found else None
        stem = base[: -len(".jsonl")] if base.endswith(".jsonl") else None
        #: the session id a sub-agent file's name gives
        self.agent = stem if stem is not None and _UUID.fullmatch(stem) else None
        self.schemas: dict[str, CompiledSchema] = {}
        self.history = History()
        self.session: str | None = None
        self.header_seen = False
        self.first = True
        #: id -> (line, tokens, model) of the first copy of each response
        self.copies: dict[str, tuple[int, Any, Any]] = {}
        self.rewinds: list[tuple[int, str]] = []
        self.digests: list | None = None

    def feed_digest(self, line: int, item: Any) -> None:
        """(No digests: a session is checked whole, in one process.)"""

    def _schema(self, kind: str) -> CompiledSchema:
        found = self.schemas.get(kind)
        if found is None:
            found = self.schemas[kind] = compiled(f"gemini-cli/{kind}")
        return found

    # -- per record -------------------------------------------------------------

    def check(self, line: int, obj: dict, recovered: bool = False) -> None:
        emit = self.emit
        kind = record_kind(obj)
        if self.first:
            self.first = False
            if kind != "session":
                emit(
                    "G009",
                    "the file does not begin with a session header (sessionId, projectHash): "
                    "Gemini CLI cannot load it",
                )
        if kind == "unknown":
            if "type" in obj:
                emit(
                    "G001",
                    f"message type {short(obj.get('type'))} is not one msgcli knows: kept",
                    "/type",
                )
            else:
                emit("G001", f"record {short(next(iter(obj)))} is not one msgcli knows: kept")
        else:
            schema = self._schema(kind)
            if recovered or not schema.is_valid(obj):
                for code, message, ptr in explain(schema, obj) or [
                    ("S001", f"the record does not match the {schema.name} schema", "")
                ]:
                    emit(code, message, ptr)
        if kind == "session":
            self._header(obj)
            for i, msg in enumerate(obj.get("messages") or ()):
                if isinstance(msg, dict):
                    self._message(line, msg, ("messages", i))
        elif kind == "patch":
            patch = obj.get("$set")
            if isinstance(patch, dict):
                for key in patch:
                    if key not in SET_KEYS:
                        emit(
                            "G001",
                            f"$set key {short(key)} is not one msgcli knows: kept",
                            _pointer("$set", key),
                        )
                messages = patch.get("messages")
                if isinstance(messages, list):
                    for i, msg in enumerate(messages):
                        if isinstance(msg, dict):
                            self._fields(msg, ("$set", "messages", i))
                session = patch.get("sessionId")
                if isinstance(session, str):
                    self._session(session, "/$set/sessionId")
        elif kind == "rewind":
            target = obj.get("$rewindTo")
            if isinstance(target, str):
                self.rewinds.append((line, target))
                self._check_rewind(line, target)
        elif is_message(obj):
            self._message(line, obj, ())
        self.history.feed(line, _slim(obj))

    def _header(self, obj: dict) -> None:
        self.header_seen = True
        for key in obj:
            if key not in HEADER_FIELDS:
                self.emit(
                    "G001",
                    f"header field {short(key)} is not one msgcli knows: kept",
                    _pointer(key),
                )
        session = obj.get("sessionId")
        if isinstance(session, str):
            self._session(session, "/sessionId")

    def _session(self, session: str, ptr: str) -> None:
        emit = self.emit
        if self.session is not None and session != self.session:
            emit(
                "G005",
                f"session {short(session)} follows session {short(self.session)} in one file",
                ptr,
            )
            return
        if self.session is None:
            if self.prefix is not None and not session.startswith(self.prefix):
                emit(
                    "G005",
                    f"sessionId {short(session)} differs from the file's name (…-{self.prefix})",
                    ptr,
                )
            elif self.agent is not None and session != self.agent:
                emit(
                    "G005",
                    f"sessionId {short(session)} differs from the sub-agent file's "
                    f"name ({self.agent})",
                    ptr,
                )
        self.session = session

    def _fields(self, obj: dict, at: tuple) -> None:
        kind = obj.get("type")
        known = MESSAGE_FIELDS.get(kind) if isinstance(kind, str) else None
        if known is None:
            return
        calls = obj.get("toolCalls")
        if known.issuperset(obj) and not calls:
            return
        for key in obj:
            if key not in known:
                self.emit(
                    "G001",
                    f"field {short(key)} is not one msgcli knows on a {kind} message: kept",
                    _pointer(*at, key),
                )
        if isinstance(calls, list):
            for i, call in enumerate(calls):
                if isinstance(call, dict) and not TOOL_CALL_FIELDS.issuperset(call):
                    for key in call:
                        if key not in TOOL_CALL_FIELDS:
                            self.emit(
                                "G001",
                                f"tool call field {short(key)} is not one msgcli knows: kept",
                                _pointer(*at, "toolCalls", i, key),
                            )

    def _message(self, line: int, obj: dict, at: tuple) -> None:
        self._fields(obj, at)
        if obj.get("type") != "gemini":
            return
        mid = obj.get("id")
        tokens = obj.get("tokens")
        if not isinstance(mid, str) or tokens is None:
            return
        first = self.copies.get(mid)
        if first is None:
            self.copies[mid] = (line, tokens, obj.get("model"))
        elif first[1] != tokens or first[2] != obj.get("model"):
            self.emit(
                "G006",
                f"response {short(mid)} reports other tokens or another model "
                f"than its copy on line {first[0]}: the last copy counts",
                _pointer(*at, "tokens"),
            )

    def _check_rewind(self, line: int, target: str) -> None:
        if not self.history.holds(target):
            self.emit(
                "G007",
                f"$rewindTo {short(target)} names no message of the history: the CLI empties it",
                "/$rewindTo",
            )

    # -- across records ---------------------------------------------------------

    def finish(self) -> None:
        emit = self.emit
        records = self.history.finish(marked=False)
        calls: dict[str, tuple[int, Any, Any]] = {}
        answers: dict[str, int] = {}
        order: list[str] = []
        for line, obj in records:
            if obj.get(DROPPED):
                continue  # (no longer in the history: its calls and results pair no more)
            kind = obj.get("type")
            content = obj.get("content")
            parts: list = content if isinstance(content, list) else []
            if kind == "gemini":
                for call in obj.get("toolCalls") or ():
                    if isinstance(call, dict) and isinstance(call.get("id"), str):
                        if call["id"] not in calls:
                            order.append(call["id"])
                        calls[call["id"]] = (line, call.get("name"), call.get("agentId"))
                for part in parts:
                    fc = part.get("functionCall") if isinstance(part, dict) else None
                    if not isinstance(fc, dict):
                        continue
                    cid = fc.get("id")
                    if isinstance(cid, str) and cid not in calls:
                        order.append(cid)
                        calls[cid] = (line, fc.get("name"), None)
            elif kind == "user":
                for part in parts:
                    fr = part.get("functionResponse") if isinstance(part, dict) else None
                    if isinstance(fr, dict) and isinstance(fr.get("id"), str):
                        cid = fr["id"]
                        if cid not in calls and not obj.get(SYNTHETIC):
                            emit(
                                "G003",
                                f"tool result {short(cid)} answers no tool call of the history",
                                "/content",
                                line=line,
                            )
                            continue
                        answers[cid] = answers.get(cid, 0) + 1
                        if answers[cid] == 2:
                            emit(
                                "G003",
                                f"tool call {short(cid)} is answered more than once",
                                "/content",
                                line=line,
                            )
        for cid in order:
            line, name, agent = calls[cid]
            if not answers.get(cid):
                emit(
                    "G002",
                    f"tool call {short(cid)} ({short(name)}) gets no result",
                    "/toolCalls",
                    line=line,
                )
            if name == AGENT_TOOL and isinstance(agent, str):
                self._subagent(line, agent)
        if self.agent is not None:
            self._parent()

    def _subagent(self, line: int, agent: str) -> None:
        if self.session is None or self.prefix is None:
            return
        folder = os.path.join(os.path.dirname(self.name), self.session)
        if not os.path.isdir(os.path.dirname(self.name) or "."):
            return  # (not a local file)
        if not os.path.isfile(os.path.join(folder, f"{agent}.jsonl")):
            self.emit(
                "G004",
                f"sub-agent {short(agent)} has no file "
                f"{short(os.path.join(self.session, agent + '.jsonl'))} beside the "
                "session",
                "/toolCalls",
                line=line,
            )

    def _parent(self) -> None:
        """A sub-agent file: the session that started it, when its file is beside the folder."""
        folder = os.path.dirname(self.name)
        parent_id = os.path.basename(folder)
        chats = os.path.dirname(folder)
        if not _UUID.fullmatch(parent_id) or not os.path.isdir(chats):
            return
        needle = f'"agentId":"{self.agent}"'.encode()
        prefix = f"-{parent_id[:8]}.json"
        parents = [
            entry
            for entry in sorted(os.listdir(chats))
            if entry.startswith("session-") and prefix in entry
        ]
        if not parents:
            return  # (the parent session was not kept beside it)
        for entry in parents:
            with open(os.path.join(chats, entry), "rb") as fh:
                if needle in fh.read():
                    return
        self.emit(
            "G004",
            f"no session file of {short(parent_id)} beside this folder calls "
            f"sub-agent {short(self.agent)}",
            line=1,
        )


def _slim_part(part: Any) -> Any:
    """What the checks across records need of a part: a call's or a result's id and name."""
    if isinstance(part, dict):
        for key in ("functionCall", "functionResponse"):
            inner = part.get(key)
            if isinstance(inner, dict):
                return {key: {"id": inner.get("id"), "name": inner.get("name")}}
    return None


def _slim_message(obj: Any) -> Any:
    if not isinstance(obj, dict):
        return obj
    out = {k: obj[k] for k in ("id", "type") if k in obj}
    if "tokens" in obj:
        out["tokens"] = {}
    content = obj.get("content")
    if isinstance(content, list):
        out["content"] = [p for p in map(_slim_part, content) if p is not None]
    calls = obj.get("toolCalls")
    if isinstance(calls, list):
        out["toolCalls"] = [
            {
                "id": c.get("id"),
                "name": c.get("name"),
                "agentId": c.get("agentId"),
                "result": [p for p in map(_slim_part, c["result"]) if p is not None]
                if isinstance(c.get("result"), list)
                else None,
            }
            if isinstance(c, dict)
            else c
            for c in calls
        ]
    return out


def _slim(obj: dict) -> dict:
    """A record as the checks across records need it (the history of a long session is held
    until the file ends: ids, calls and results, no text)."""
    if "$set" in obj:
        patch = obj["$set"]
        if isinstance(patch, dict) and isinstance(patch.get("messages"), list):
            return {"$set": {**patch, "messages": [_slim_message(m) for m in patch["messages"]]}}
        return obj
    if is_message(obj):
        return _slim_message(obj)
    if isinstance(obj.get("messages"), list):
        return {**obj, "messages": [_slim_message(m) for m in obj["messages"]]}
    return obj
