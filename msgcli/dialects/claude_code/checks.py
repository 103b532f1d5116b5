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
import sys
from collections.abc import Callable
from typing import Any

import orjson

from ...schemas import CompiledSchema, compiled, explain
from ...textsafe import short
from .known import (
    AGENT_TOOLS,
    ATTACHMENT_KINDS,
    BLOCK_TYPES,
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
        #: the response being written: ``(message id, line of its first record, signature)``;
        #: its records come before any record of the next response
        self.response: tuple[Any, int, tuple] = (None, 0, ())
        self.last_mid: Any = None
        self.meta_tool: tuple[int, str] | None = None
        self.agent_line = 0
        #: a worker checking part of a large file records each record's digest here instead
        #: (see msgcli.parallel); None: the checks across records run as the file is read
        self.digests: list | None = None

    # -- per record -------------------------------------------------------------

    def _schema_of(self, kind: str) -> CompiledSchema | None:
        try:
            return self.schemas[kind]
        except KeyError:
            schema = _schema(kind) if kind in RECORD_FIELDS else None
            self.schemas[kind] = schema
            return schema

    def check(self, line: int, obj: dict, recovered: bool = False) -> None:
        """The checks of one record; what the checks across records need of it goes to
        :meth:`feed_digest`, here or (a large file checked in parts) in the process that
        owns the file, in file order."""
        kind = obj.get("type")
        if type(kind) is not str:
            if "agentType" in obj:
                self._meta(line, obj, recovered)
            else:  # a record of a kind no release msgcli knows wrote, without a type
                self.emit(
                    "K001",
                    f"a record of a kind msgcli does not know (keys: "
                    f"{', '.join(short(k) for k in list(obj)[:6]) or 'none'}; a newer Claude "
                    "Code?): kept and counted",
                )
            return
        try:
            schema = self.schemas[kind]
        except KeyError:
            schema = self._schema_of(kind)
        if schema is None:
            self._unknown(line, obj, kind)
            return
        emit = self.emit
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
            if kind == "assistant" or kind == "user":
                self._blocks(obj)
            if self.agent is not None or kind != "user":
                self._record(obj, kind)
            item = _digest(obj, kind)
        elif kind == "last-prompt":
            leaf = obj.get("leafUuid")
            if type(leaf) is not str:
                return
            item = (kind, None, (("/leafUuid", leaf),), None, None, (), (), None)
        else:
            return
        if self.digests is not None:
            self.digests.append((line, item))
        else:
            self.feed_digest(line, item)

    def _unknown(self, line: int, obj: dict, kind: str) -> None:
        """A record of a type with no schema: one msgcli knows to have no rules, or an
        unknown one (a newer Claude Code), said and kept."""
        if kind in OTHER_TYPES:
            return
        self.emit(
            "K001",
            f"record type {short(kind)} is not one msgcli knows (a newer Claude Code?): "
            "kept and counted",
            "/type",
        )
        if kind and "uuid" in obj:
            self._out(line, _digest(obj, kind))

    def _out(self, line: int, item: tuple) -> None:
        if self.digests is not None:
            self.digests.append((line, item))
        else:
            self.feed_digest(line, item)

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
            self._out(line, ("meta", None, (), None, None, (), (), tool))

    def _blocks(self, obj: dict) -> None:
        """A content block of a type msgcli does not know (a newer API): an info finding."""
        message = obj.get("message")
        content = message.get("content") if isinstance(message, dict) else None
        if not isinstance(content, list):
            return
        for i, block in enumerate(content):
            what = block.get("type") if isinstance(block, dict) else None
            if type(what) is str and what not in BLOCK_TYPES:
                self.emit(
                    "U003",
                    f"block type {short(what)} is not one msgcli knows: kept as written",
                    f"/message/content/{i}/type",
                )

    def _record(self, obj: dict, kind: str) -> None:
        """The checks of a graph record that need only the record."""
        emit = self.emit
        if self.agent is not None:
            agent = obj.get("agentId")
            if type(agent) is str and agent != self.agent:
                emit(
                    "K014",
                    f"agentId {short(agent)} differs from the subagent file's name "
                    f"(agent-{self.agent})",
                    "/agentId",
                )
        if kind == "assistant":
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
            if message.get("model") == SYNTHETIC_MODEL and obj.get("isApiErrorMessage") is True:
                text = ""
                content = message.get("content")
                if isinstance(content, list) and content and isinstance(content[0], dict):
                    text = content[0].get("text") or ""
                emit("K013", f"the API call failed: {short(text, 120)}", "/message/content")
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

    def typed(self, whole: Callable[[int, bytes], bool]) -> Callable[[int, bytes], bool]:
        """``step(line, raw)``: the checks of a JSONL line in its common case on the typed
        path (:mod:`.typed`): the line decodes into the types of its record type, no rule
        speaks on the record, and its digest goes on to the checks across records. Any
        other line is ``whole(line, raw)``'s (the lean loop's step on the parsed record),
        and so is the answer (whether the line was taken)."""
        from ...guard import RECORD_DEPTH, may_nest_deeper
        from .typed import REFUSED, decoder, digest

        decode = decoder()
        session, agent, digests = self.session, self.agent, self.digests
        out = self.feed_digest if digests is None else None
        plain = session is None and agent is None
        # before Python 3.12, msgspec decodes nested values within the interpreter's
        # recursion limit (a RecursionError beyond): under a limit no higher than the depth
        # a record may have, what it decodes nests no deeper, and the JSON text's brackets
        # need no counting (from 3.12 on, its limit is the C stack's)
        shallow = sys.version_info < (3, 12)
        limit = sys.getrecursionlimit

        def step(line: int, raw: bytes) -> bool:
            try:
                value = decode(raw)
            except REFUSED:
                return whole(line, raw)
            if (not shallow or limit() > RECORD_DEPTH) and may_nest_deeper(raw):
                return whole(line, raw)
            item = digest(value)
            if item is None or not (plain or self._named(value)):
                return whole(line, raw)
            if item:
                if out is None:
                    digests.append((line, item))  # type: ignore[union-attr]
                else:
                    out(line, item)
            return True

        return step

    def _named(self, value: Any) -> bool:
        """Whether a typed record agrees with what the file's name says (no K008, no K014)."""
        if self.session is not None:
            session = getattr(value, "sessionId", None)
            if type(session) is str and session != self.session:
                return False
        if self.agent is not None:
            agent = getattr(value, "agentId", None)
            if type(agent) is str and agent != self.agent:
                return False
        return True

    # -- across records ---------------------------------------------------------

    def feed_digest(self, line: int, item: tuple) -> None:
        """The checks across records, from a record's digest (see :func:`_digest`)."""
        kind, uuid, refs, mid, sig, calls, results, source = item
        emit = self.emit
        if kind == "meta":
            self.meta_tool = (line, source)
            return
        if self.agent is not None and not self.agent_line and kind in GRAPH_TYPES:
            self.agent_line = line
        uuids = self.uuids
        if uuid is not None:
            if uuid in uuids:
                emit(
                    "K006",
                    f"uuid {short(uuid)} is the uuid of an earlier record too",
                    "/uuid",
                    line=line,
                )
            else:
                uuids.add(uuid)
        for ptr, ref in refs:
            if ref not in uuids:
                self.forward.append((line, ptr, ref))
        if mid is not None:
            self._response(line, mid, sig)
            for tid, name, index in calls:
                self._call(line, uuid, mid, tid, name, index)
        for tid, index in results:
            self._result(line, source, tid, index)

    def _response(self, line: int, mid: str, sig: tuple) -> None:
        current, first, seen_sig = self.response
        if mid != current:
            self.response = (mid, line, sig)
        elif seen_sig != sig:
            what = [
                name
                for name, a, b in zip(
                    ("model", "requestId", "usage", "stop_reason"),
                    seen_sig,
                    sig,
                    strict=True,
                )
                if a != b
            ]
            self.emit(
                "K007",
                f"this record of response {short(mid)} differs from its record on line "
                f"{first} in {', '.join(what)}",
                "/message",
                line=line,
            )
        self.last_mid = mid

    def _call(self, line: int, uuid: Any, mid: str, tid: str, name: Any, index: int) -> None:
        if tid in self.calls or tid in self.answered:
            self.emit(
                "I002",
                f"tool call id {short(tid)} is used by an earlier tool call too",
                f"/message/content/{index}/id",
                line=line,
            )
            return
        early = self.early.pop(tid, None)
        if early is not None:
            self.answered.add(tid)
            self._source(early[0], early[1], uuid, tid)
        else:
            self.calls[tid] = _Call(line, uuid, name, mid)

    def _source(self, line: int, source: Any, uuid: Any, tid: str) -> None:
        if type(source) is str and source != uuid:
            self.emit(
                "K009",
                f"sourceToolAssistantUUID {short(source)} is not the record holding tool call "
                f"{short(tid)} ({short(uuid)})",
                "/sourceToolAssistantUUID",
                line=line,
            )

    def _result(self, line: int, source: Any, tid: str, index: int) -> None:
        call = self.calls.pop(tid, None)
        if call is not None:
            self.answered.add(tid)
            self._source(line, source, call.uuid, tid)
        elif tid in self.answered or tid in self.early:
            self.emit(
                "K012",
                f"a second result for tool call {short(tid)}",
                f"/message/content/{index}/tool_use_id",
                line=line,
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
        from .subagents import parent_session, path_exists

        name = self.name  # (a meta file's session is its subagent file's)
        if name.endswith(".meta.json"):
            name = name[: -len(".meta.json")] + ".jsonl"
        parent = parent_session(name)  # a local file, or an object beside it
        if parent is None or not path_exists(parent):
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


def _digest(obj: dict, kind: str) -> tuple:
    """What the checks across records need of a graph record: ``(kind, uuid, references,
    message id, response signature, tool calls, tool results, sourceToolAssistantUUID)``."""
    get = obj.get
    uuid = get("uuid")
    if type(uuid) is not str:
        uuid = None
    parent = get("parentUuid")
    refs: tuple = (("/parentUuid", parent),) if type(parent) is str else ()
    logical = get("logicalParentUuid")
    if type(logical) is str:
        refs += (("/logicalParentUuid", logical),)
    mid = sig = source = None
    calls: tuple = ()
    results: tuple = ()
    if kind == "assistant" or kind == "user":
        message = get("message")
        if isinstance(message, dict):
            content = message.get("content")
            if kind == "assistant":
                found = message.get("id")
                if type(found) is str:
                    mid = found
                    usage = message.get("usage")
                    if isinstance(usage, dict):
                        # (the four token counts: what must agree, and a small thing to send
                        # between processes)
                        usage = tuple([usage.get(k) for k in _TOKEN_KEYS])
                    sig = (
                        message.get("model"),
                        get("requestId"),
                        usage,
                        message.get("stop_reason"),
                    )
                    if isinstance(content, list):
                        calls = tuple(
                            [
                                (b["id"], b.get("name"), i)
                                for i, b in enumerate(content)
                                if isinstance(b, dict)
                                and b.get("type") == "tool_use"
                                and type(b.get("id")) is str
                            ]
                        )
            elif isinstance(content, list):
                results = tuple(
                    [
                        (b["tool_use_id"], i)
                        for i, b in enumerate(content)
                        if isinstance(b, dict)
                        and b.get("type") == "tool_result"
                        and type(b.get("tool_use_id")) is str
                    ]
                )
                if results:
                    source = get("sourceToolAssistantUUID")
    return kind, uuid, refs, mid, sig, calls, results, source


_TOKEN_KEYS = (
    "input_tokens",
    "output_tokens",
    "cache_read_input_tokens",
    "cache_creation_input_tokens",
)


def _lines_with(path: str, needle: bytes):
    from .subagents import open_log

    try:
        with open_log(path) as stream:
            for raw in stream:
                if needle in raw:
                    try:
                        obj = orjson.loads(raw)
                    except orjson.JSONDecodeError:
                        continue
                    if isinstance(obj, dict):
                        yield obj
    except Exception:  # unreadable (a local file, or an object store that refuses): no check
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
                    and type(block.get("name")) is str
                    and block["name"] in AGENT_TOOLS
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
