"""Checking a Claude Code session (or subagent) file: each record against the schema of
its type, and the rules across records.

Kept while a file is read: the uuids of its records, the references not yet resolved
(a child may come before its parent in file order), the tool calls still waiting for a
result, the ids of the calls answered, and the last few responses (to compare the
records of one response). Nothing else.
"""

from __future__ import annotations

import os
import re
from collections import OrderedDict
from typing import Any

import orjson

from ...schemas import CompiledSchema, compiled, explain
from ...textsafe import short
from .known import (
    AGENT_TOOLS,
    ATTACHMENT_KINDS,
    GRAPH_TYPES,
    MESSAGE_FIELDS,
    META_FIELDS,
    OTHER_TYPES,
    RECORD_FIELDS,
    SYNTHETIC_MODEL,
    SYSTEM_SUBTYPES,
)

__all__ = ["SessionChecker"]

_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
_AGENT_FILE = re.compile(r"agent-(.+)\.(?:jsonl|meta\.json)")
#: responses remembered for comparing their records (records of one response are close)
_RESPONSES_KEPT = 256


def _a(word: str) -> str:
    return f"{'an' if word[:1] in 'aeiou' else 'a'} {word}"


def _schema(kind: str) -> CompiledSchema:
    return compiled(f"claude-code/{kind}")


class _Call:
    __slots__ = ("line", "mid", "name", "uuid")

    def __init__(self, line: int, uuid: Any, name: Any, mid: Any):
        self.line, self.uuid, self.name, self.mid = line, uuid, name, mid


class SessionChecker:
    """The rules of one Claude Code file (see :class:`msgcli.dialects.base.Dialect`)."""

    def __init__(self, emit: Any, name: str):
        self.emit = emit
        self.name = name
        base = os.path.basename(name)
        stem = base[: -len(".jsonl")] if base.endswith(".jsonl") else None
        #: the session id a main session file's name gives
        self.session = stem if stem is not None and _UUID.fullmatch(stem) else None
        found = _AGENT_FILE.fullmatch(base)
        #: the agent id a subagent file's name gives
        self.agent = found.group(1) if found else None
        self.schemas: dict[str, CompiledSchema | None] = {}
        self.uuids: set[str] = set()
        self.forward: list[tuple[int, str, str]] = []
        self.calls: dict[str, _Call] = {}
        self.answered: set[str] = set()
        self.early: dict[str, tuple[int, Any]] = {}
        self.responses: OrderedDict[str, tuple[int, tuple]] = OrderedDict()
        self.last_mid: Any = None
        self.meta_tool: tuple[int, str] | None = None
        self.agent_line = 0

    # -- per record -------------------------------------------------------------

    def _schema_of(self, kind: str) -> CompiledSchema | None:
        try:
            return self.schemas[kind]
        except KeyError:
            schema = _schema(kind) if kind in RECORD_FIELDS else None
            self.schemas[kind] = schema
            return schema

    def check(self, line: int, obj: dict, recovered: bool = False) -> None:
        emit = self.emit
        kind = obj.get("type")
        if type(kind) is not str:
            self._meta(line, obj, recovered)
            return
        schema = self._schema_of(kind)
        if schema is None and kind in OTHER_TYPES:
            return
        if schema is None:
            emit(
                "K001",
                f"record type {short(kind)} is not one msgcli knows (a newer Claude Code?): "
                "kept and counted",
                "/type",
            )
            if kind and "uuid" in obj:
                self._graph(line, obj, kind)
            return
        if recovered or not schema.is_valid(obj):
            for code, message, ptr in explain(schema, obj) or [
                ("S001", f"the record does not match the {schema.name} schema", "")
            ]:
                emit(code, message, ptr)
        known = RECORD_FIELDS[kind]
        if not known.issuperset(obj):
            for key in obj:
                if key not in known:
                    emit(
                        "K004",
                        f"field {short(key)} is not one msgcli knows on {_a(kind)} record: kept",
                        "/" + key.replace("~", "~0").replace("/", "~1"),
                    )
        if self.session is not None:
            session = obj.get("sessionId")
            if session != self.session and type(session) is str:
                emit(
                    "K008",
                    f"sessionId {short(session)} differs from the file's name ({self.session})",
                    "/sessionId",
                )
        if kind in GRAPH_TYPES:
            self._graph(line, obj, kind)
        elif kind == "last-prompt":
            leaf = obj.get("leafUuid")
            if type(leaf) is str:
                self._ref(line, "/leafUuid", leaf)

    def _meta(self, line: int, obj: dict, recovered: bool) -> None:
        """A subagent's ``agent-<id>.meta.json``."""
        schema = _schema("subagent-meta")
        if recovered or not schema.is_valid(obj):
            for code, message, ptr in explain(schema, obj) or [
                ("S001", "the record does not match the claude-code/subagent-meta schema", "")
            ]:
                self.emit(code, message, ptr)
        for key in obj:
            if key not in META_FIELDS:
                self.emit("K004", f"field {short(key)} is not one msgcli knows: kept", f"/{key}")
        tool = obj.get("toolUseId")
        if type(tool) is str:
            self.meta_tool = (line, tool)

    def _ref(self, line: int, ptr: str, ref: str) -> None:
        if ref not in self.uuids:
            self.forward.append((line, ptr, ref))

    def _graph(self, line: int, obj: dict, kind: str) -> None:
        emit = self.emit
        uuid = obj.get("uuid")
        if type(uuid) is str:
            if uuid in self.uuids:
                emit("K006", f"uuid {short(uuid)} is the uuid of an earlier record too", "/uuid")
            else:
                self.uuids.add(uuid)
        parent = obj.get("parentUuid")
        if type(parent) is str:
            self._ref(line, "/parentUuid", parent)
        logical = obj.get("logicalParentUuid")
        if type(logical) is str:
            self._ref(line, "/logicalParentUuid", logical)
        if self.agent is not None:
            agent = obj.get("agentId")
            if not self.agent_line:
                self.agent_line = line
            if type(agent) is str and agent != self.agent:
                emit(
                    "K014",
                    f"agentId {short(agent)} differs from the subagent file's name "
                    f"(agent-{self.agent})",
                    "/agentId",
                )
        if kind == "assistant":
            self._assistant(line, obj, uuid)
        elif kind == "user":
            self._user(line, obj)
        elif kind == "attachment":
            att = obj.get("attachment")
            what = att.get("type") if isinstance(att, dict) else None
            if type(what) is str and what not in ATTACHMENT_KINDS:
                emit(
                    "K002",
                    f"attachment kind {short(what)} is not one msgcli knows: kept and counted",
                    "/attachment/type",
                )
        elif kind == "system":
            sub = obj.get("subtype")
            if type(sub) is str and sub not in SYSTEM_SUBTYPES:
                emit(
                    "K003",
                    f"system subtype {short(sub)} is not one msgcli knows: kept and counted",
                    "/subtype",
                )

    def _assistant(self, line: int, obj: dict, uuid: Any) -> None:
        emit = self.emit
        message = obj.get("message")
        if not isinstance(message, dict):
            return
        for key in () if MESSAGE_FIELDS.issuperset(message) else message:
            if key not in MESSAGE_FIELDS:
                emit(
                    "K004",
                    f"field {short(key)} is not one msgcli knows in an assistant message: kept",
                    f"/message/{key}",
                )
        model = message.get("model")
        if model == SYNTHETIC_MODEL and obj.get("isApiErrorMessage") is True:
            text = ""
            content = message.get("content")
            if isinstance(content, list) and content and isinstance(content[0], dict):
                text = content[0].get("text") or ""
            emit("K013", f"the API call failed: {short(text, 120)}", "/message/content")
        mid = message.get("id")
        if type(mid) is not str:
            return
        sig = (model, obj.get("requestId"), message.get("usage"), message.get("stop_reason"))
        seen = self.responses.get(mid)
        if seen is None:
            self.responses[mid] = (line, sig)
            if len(self.responses) > _RESPONSES_KEPT:
                self.responses.popitem(last=False)
        elif seen[1] != sig and _counts(seen[1]) != _counts(sig):
            what = [
                name
                for name, a, b in zip(
                    ("model", "requestId", "usage", "stop_reason"),
                    _counts(seen[1]),
                    _counts(sig),
                    strict=True,
                )
                if a != b
            ]
            emit(
                "K007",
                f"this record of response {short(mid)} differs from its record on line "
                f"{seen[0]} in {', '.join(what)}",
                "/message",
            )
        self.last_mid = mid
        content = message.get("content")
        if not isinstance(content, list):
            return
        for index, block in enumerate(content):
            if not isinstance(block, dict) or block.get("type") != "tool_use":
                continue
            tid = block.get("id")
            if type(tid) is not str:
                continue
            if tid in self.calls or tid in self.answered:
                emit(
                    "I002",
                    f"tool call id {short(tid)} is used by an earlier tool call too",
                    f"/message/content/{index}/id",
                )
                continue
            early = self.early.pop(tid, None)
            if early is not None:
                self.answered.add(tid)
                self._source(early[0], early[1], uuid, tid)
            else:
                self.calls[tid] = _Call(line, uuid, block.get("name"), mid)

    def _source(self, line: int, source: Any, uuid: Any, tid: str) -> None:
        if type(source) is str and source != uuid:
            self.emit(
                "K009",
                f"sourceToolAssistantUUID {short(source)} is not the record holding tool call "
                f"{short(tid)} ({short(uuid)})",
                "/sourceToolAssistantUUID",
                line=line,
            )

    def _user(self, line: int, obj: dict) -> None:
        message = obj.get("message")
        content = message.get("content") if isinstance(message, dict) else None
        if not isinstance(content, list):
            return
        source = obj.get("sourceToolAssistantUUID")
        for index, block in enumerate(content):
            if not isinstance(block, dict) or block.get("type") != "tool_result":
                continue
            tid = block.get("tool_use_id")
            if type(tid) is not str:
                continue
            call = self.calls.pop(tid, None)
            if call is not None:
                self.answered.add(tid)
                self._source(line, source, call.uuid, tid)
            elif tid in self.answered or tid in self.early:
                self.emit(
                    "K012",
                    f"a second result for tool call {short(tid)}",
                    f"/message/content/{index}/tool_use_id",
                )
            else:
                self.early[tid] = (line, source)

    # -- at the end -------------------------------------------------------------

    def finish(self) -> None:
        emit = self.emit
        uuids = self.uuids
        for line, ptr, ref in self.forward:
            if ref not in uuids:
                emit("K005", f"{ptr[1:]} {short(ref)} names no record of this file", ptr, line=line)
        for tid, (line, _source) in self.early.items():
            emit(
                "T001",
                f"tool result {short(tid)} answers no tool call in this file",
                "/message/content",
                line=line,
            )
        for tid, call in self.calls.items():
            name = short(call.name)
            if call.mid == self.last_mid:
                emit(
                    "K011",
                    f"the session ends while tool call {short(tid)} ({name}) waits for its "
                    "result: the run was cut here",
                    line=call.line,
                )
            else:
                emit(
                    "K010",
                    f"tool call {short(tid)} ({name}) gets no result, though the session goes on",
                    line=call.line,
                )
        self._subagent()
        self.uuids = set()
        self.forward = []
        self.calls = {}
        self.answered = set()

    def _subagent(self) -> None:
        """A subagent file's starting Agent call in its parent session, when that is beside it
        (``<project>/<sessionId>.jsonl`` for ``<project>/<sessionId>/subagents/agent-<id>``)."""
        if self.agent is None:
            return
        folder = os.path.dirname(self.name)
        if os.path.basename(folder) != "subagents":
            return
        parent = os.path.dirname(folder) + ".jsonl"
        if not os.path.isfile(parent):
            return
        if self.meta_tool is not None:
            line, tool = self.meta_tool
            if not _parent_calls(parent, tool):
                self.emit(
                    "K014",
                    f"the parent session {short(os.path.basename(parent))} holds no Agent call "
                    f"{short(tool)}",
                    "/toolUseId",
                    line=line,
                )
            return
        if self.agent_line and not _parent_result(parent, self.agent):
            self.emit(
                "K014",
                f"the parent session {short(os.path.basename(parent))} holds no Agent call "
                f"that started agent {short(self.agent)}",
                line=self.agent_line,
            )


_TOKEN_KEYS = (
    "input_tokens",
    "output_tokens",
    "cache_read_input_tokens",
    "cache_creation_input_tokens",
)


def _counts(sig: tuple) -> tuple:
    """A response signature with its usage as the four token counts (what must agree; a
    release may add other keys to usage)."""
    model, request, usage, stop = sig
    counts = tuple(usage.get(k) for k in _TOKEN_KEYS) if isinstance(usage, dict) else usage
    return model, request, counts, stop


def _lines_with(path: str, needle: bytes):
    try:
        with open(path, "rb") as stream:
            for raw in stream:
                if needle in raw:
                    try:
                        obj = orjson.loads(raw)
                    except orjson.JSONDecodeError:
                        continue
                    if isinstance(obj, dict):
                        yield obj
    except OSError:
        return


def _parent_calls(path: str, tool: str) -> bool:
    """Whether the session at ``path`` holds an Agent (Task) tool call with id ``tool``."""
    for obj in _lines_with(path, tool.encode()):
        message = obj.get("message")
        content = message.get("content") if isinstance(message, dict) else None
        if isinstance(content, list):
            for block in content:
                if (
                    isinstance(block, dict)
                    and block.get("type") == "tool_use"
                    and block.get("id") == tool
                    and block.get("name") in AGENT_TOOLS
                ):
                    return True
    return False


def _parent_result(path: str, agent: str) -> bool:
    """Whether the session at ``path`` holds the result of an Agent call that ran ``agent``."""
    for obj in _lines_with(path, agent.encode()):
        result = obj.get("toolUseResult")
        if isinstance(result, dict) and result.get("agentId") == agent:
            return True
    return False
