"""Checking a Codex rollout: each record against the schema of its type, and the rules
across records (ordinals, ids, calls and outputs, forks and sub-agents).

Kept while a file is read: the thread's id, the last ordinal, the calls waiting for their
output, the call ids answered and the response ids counted. Nothing else.
"""

from __future__ import annotations

from typing import Any

from ...schemas import CompiledSchema, compiled, explain
from ...textsafe import short
from .known import EVENT_MSG_TYPES, ITEM_TYPES, RECORD_TYPES, RESPONSE_ITEMS
from .threads import find_thread, last_ordinal, thread_in_name

__all__ = ["RolloutChecker"]

_CALLS = frozenset({"function_call", "custom_tool_call", "local_shell_call", "tool_search_call"})
_OUTPUTS = frozenset({"function_call_output", "custom_tool_call_output", "tool_search_output"})
#: events that name no thread and hold no item: nothing to check past the schema
_QUIET_EVENTS = frozenset({"token_count", "task_started", "task_complete"})


class RolloutChecker:
    """The rules of one rollout (see :meth:`msgcli.dialects.base.Dialect.record_checker`)."""

    def __init__(self, emit: Any, name: str):
        self.emit = emit
        self.name = name
        self.schemas: dict[str, CompiledSchema | None] = {}
        self.file_thread = thread_in_name(name)
        self.thread: str | None = None
        self.meta: dict | None = None
        self.meta_line = 0
        self.first = True
        self.first_ordinal: Any = None
        self.ordinal: int | None = None
        self.calls: dict[str, int] = {}
        self.answered: set[str] = set()
        self.responses: set[str] = set()
        #: the checks across records run as the file is read (the file is not cut in parts)
        self.digests: list | None = None

    def _schema(self, kind: str) -> CompiledSchema | None:
        try:
            return self.schemas[kind]
        except KeyError:
            schema = self.schemas[kind] = (
                compiled(f"codex/{kind}") if kind in RECORD_TYPES else None
            )
            return schema

    def check(self, line: int, obj: dict, recovered: bool = False) -> None:
        kind = obj.get("type")
        if self.first:
            self.first = False
            if kind != "session_meta" and self.file_thread is not None:
                self.emit(
                    "R009", "the rollout does not begin with its session_meta record", "/type"
                )
        schemas = self.schemas
        if type(kind) is not str:
            schema = None
        else:
            schema = schemas[kind] if kind in schemas else self._schema(kind)
        if schema is None:
            if type(kind) is str:
                self.emit(
                    "R001",
                    f"record type {short(kind)} is not one msgcli knows (a newer Codex?): "
                    "kept and counted",
                    "/type",
                )
        elif recovered or not schema.is_valid(obj):
            for code, message, ptr in explain(schema, obj) or [
                ("S001", f"the record does not match the {schema.name} schema", "")
            ]:
                self.emit(code, message, ptr)
        ordinal = obj.get("ordinal")
        if type(ordinal) is int:
            last = self.ordinal
            if last is None:
                if self.first_ordinal is None:
                    self.first_ordinal = ordinal
            elif ordinal <= last:
                self.emit(
                    "R002",
                    f"ordinal {ordinal} does not follow the previous record's {last}",
                    "/ordinal",
                )
            self.ordinal = ordinal
        payload = obj.get("payload")
        if type(payload) is not dict:
            return
        if kind == "response_item":
            self._item(line, payload)
        elif kind == "event_msg":
            ptype = payload.get("type")
            if "thread_id" in payload or type(ptype) is not str or ptype not in _QUIET_EVENTS:
                self._event(payload)
        elif kind == "token_usage_record":
            self._usage(payload)
        elif kind == "session_meta":
            self._meta(line, payload)
        elif kind == "response":  # a response msgcli wrote (query, replay)
            items = payload.get("items")
            for item in items if type(items) is list else ():
                if type(item) is dict:
                    self._item(line, item)
            self._usage(payload)

    def _same_thread(self, value: Any, ptr: str) -> None:
        if self.thread is not None and type(value) is str and value != self.thread:
            self.emit(
                "R005",
                f"thread {short(value)} is not the rollout's thread ({self.thread})",
                ptr,
            )

    def _meta(self, line: int, meta: dict) -> None:
        tid = meta.get("id")
        if self.meta is not None:
            if tid != self.thread:
                self.emit(
                    "R005",
                    f"a second session_meta names thread {short(tid)}, not {self.thread}",
                    "/payload/id",
                )
            return
        self.meta, self.meta_line = meta, line
        if type(tid) is str:
            self.thread = tid
            if self.file_thread is not None and tid != self.file_thread:
                self.emit(
                    "R005",
                    f"thread {short(tid)} differs from the file's name ({self.file_thread})",
                    "/payload/id",
                )

    def _item(self, line: int, item: dict) -> None:
        kind = item.get("type")
        if type(kind) is str and kind not in RESPONSE_ITEMS:
            self.emit(
                "R001",
                f"item type {short(kind)} is not one msgcli knows (a newer Codex?): kept",
                "/payload/type",
            )
            return
        call = item.get("call_id")
        if type(call) is not str or type(kind) is not str:
            return
        if kind in _CALLS:
            if call in self.calls or call in self.answered:
                self.emit(
                    "R004", f"call id {short(call)} is used by a second call", "/payload/call_id"
                )
            self.calls[call] = line
        elif kind in _OUTPUTS:
            if self.calls.pop(call, None) is not None:
                self.answered.add(call)
            elif call in self.answered:
                self.emit(
                    "R004",
                    f"call {short(call)} is answered a second time",
                    "/payload/call_id",
                )
            elif not self._forked():
                self.emit(
                    "R004",
                    f"output for call {short(call)}, which no call of this thread made",
                    "/payload/call_id",
                )

    def _forked(self) -> bool:
        return self.meta is not None and "forked_from_id" in self.meta

    def _event(self, payload: dict) -> None:
        ptype = payload.get("type")
        if type(ptype) is str and ptype not in EVENT_MSG_TYPES:
            self.emit(
                "R001",
                f"event type {short(ptype)} is not one msgcli knows (a newer Codex?): kept",
                "/payload/type",
            )
            return
        if "thread_id" in payload:
            self._same_thread(payload["thread_id"], "/payload/thread_id")
        item = payload.get("item")
        if ptype == "item_completed" and isinstance(item, dict):
            itype = item.get("type")
            if type(itype) is str and itype not in ITEM_TYPES:
                self.emit(
                    "R001",
                    f"item type {short(itype)} is not one msgcli knows (a newer Codex?): kept",
                    "/payload/item/type",
                )

    def _usage(self, payload: dict) -> None:
        self._same_thread(payload.get("thread_id"), "/payload/thread_id")
        if "usage" not in payload:
            return
        rid = payload.get("response_id")
        if type(rid) is str:
            if rid in self.responses:
                self.emit(
                    "R008",
                    f"response {short(rid)} was recorded before: its usage is counted once",
                    "/payload/response_id",
                )
            self.responses.add(rid)

    def feed_digest(self, line: int, item: tuple) -> None:  # (the file is never cut in parts)
        return None

    def finish(self) -> None:
        emit = self.emit
        for call, line in self.calls.items():
            emit(
                "R003",
                f"call {short(call)} has no output in this thread",
                "/payload/call_id",
                line=line,
            )
        meta = self.meta
        if meta is None:
            return
        line = self.meta_line
        parent = meta.get("forked_from_id") or meta.get("parent_thread_id")
        if type(parent) is not str:
            return
        found = find_thread(self.name, parent)
        what = "forked from" if "forked_from_id" in meta else "spawned by"
        if found is None:
            emit(
                "R006",
                f"this thread was {what} thread {short(parent)}, whose rollout is not in its "
                "sessions folder",
                "/payload/forked_from_id" if what == "forked from" else "/payload/parent_thread_id",
                line=line,
            )
            return
        at = meta.get("forked_from_ordinal_exclusive")
        if what == "forked from" and type(at) is int:
            last = last_ordinal(found)
            if last is not None and at > last + 1:
                emit(
                    "R007",
                    f"forked before ordinal {at}, but the parent's last record is ordinal {last}",
                    "/payload/forked_from_ordinal_exclusive",
                    line=line,
                )
            first = self.first_ordinal
            if type(first) is int and first < at:
                emit(
                    "R007",
                    f"the fork's first ordinal {first} comes before the ordinal it was "
                    f"forked at ({at})",
                    "/ordinal",
                    line=line,
                )
