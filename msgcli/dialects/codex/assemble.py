"""One message per model response.

A Codex rollout writes what one model response produced as several ``response_item``
lines (its reasoning, its answer, its tool calls), each on its own line, with
``event_msg`` lines among them, and then one ``token_usage_record`` naming the
``response_id`` and the usage of that response alone. :class:`Assembler` joins the items
of a response into one record (``type: "response"``, at the line of its first item) when
its ``token_usage_record`` comes, and hands on the records it held meanwhile after it, in
file order. Items that no ``token_usage_record`` closes (a stream that broke off after an
item was done) are handed on as a response without usage when the next prompt, tool
result or turn end comes. Memory: one response's records at most.

Every record handed on carries the thread it belongs to (:data:`THREAD`: the file's
``session_meta``), so that a message read alone knows its session, its sub-agent and its
parent; a response carries the model of the turn it was made in.
"""

from __future__ import annotations

from typing import Any

from .known import OUTPUT_ITEMS, OUTPUT_RESULTS, REPEATED, RESPONSE

__all__ = ["THREAD", "TOOL", "Assembler", "thread_info"]

#: the key under which a record handed on carries its thread (see :func:`thread_info`)
THREAD = "\x00thread"
#: the key under which a tool output handed on carries the name of the tool its call named
TOOL = "\x00tool"
#: a response is closed after this many records held behind it, whatever comes
_MAX_HELD = 10_000


def thread_info(meta: Any) -> dict[str, Any]:
    """What a ``session_meta`` payload says of its thread: its id, its session, the thread
    it was spawned by or forked from, and a sub-agent's path and nickname."""
    if not isinstance(meta, dict):
        return {}
    out: dict[str, Any] = {}
    for key in ("id", "session_id", "parent_thread_id", "forked_from_id", "cwd", "model_provider"):
        value = meta.get(key)
        if isinstance(value, str):
            out[key] = value
    source = meta.get("source")
    spawn = source.get("subagent") if isinstance(source, dict) else None
    spawn = spawn.get("thread_spawn") if isinstance(spawn, dict) else None
    if isinstance(spawn, dict):
        for key in ("parent_thread_id", "agent_path", "agent_nickname"):
            value = spawn.get(key)
            if isinstance(value, str):
                out.setdefault(key, value)
        out.setdefault("agent_path", "subagent")
    return out


def _is_output(obj: dict) -> bool:
    """A ``response_item`` line that a model response wrote."""
    if obj.get("type") != "response_item":
        return False
    payload = obj.get("payload")
    if not isinstance(payload, dict):
        return False
    kind = payload.get("type")
    if type(kind) is not str:
        return False
    if kind in OUTPUT_ITEMS:
        return True
    return kind == "message" and payload.get("role") == "assistant"


def _closes(obj: dict) -> bool:
    """A line that no response's items come after: a prompt, a tool result, a turn's end."""
    kind = obj.get("type")
    if kind in ("session_meta", "compacted"):
        return True
    payload = obj.get("payload")
    if not isinstance(payload, dict):
        return False
    ptype = payload.get("type")
    if type(ptype) is not str:
        return False
    if kind == "response_item":
        return ptype in OUTPUT_RESULTS or ptype in ("message", "agent_message")
    return kind == "event_msg" and ptype in ("task_complete", "task_started", "turn_aborted")


class Assembler:
    """Feeds on ``(line, record)`` in file order; gives back ``(line, record)`` with the
    items of each model response joined into one record."""

    __slots__ = ("_held", "_line", "_names", "_open", "_seen", "model", "thread")

    def __init__(self) -> None:
        self._open: dict | None = None
        self._line = 0
        self._held: list[tuple[int, dict]] = []
        self._seen: set[str] = set()
        self.thread: dict[str, Any] = {}
        self.model: Any = None
        #: the tool names of the calls still waiting for their output, by call id
        self._names: dict[str, Any] = {}

    @property
    def holding(self) -> int | None:
        return self._line if self._open is not None else None

    def feed(self, line: int, obj: dict) -> list[tuple[int, dict]]:
        kind = obj.get("type")
        if kind == "session_meta" and not self.thread:
            self.thread = thread_info(obj.get("payload"))
        elif kind == "turn_context":
            payload = obj.get("payload")
            if isinstance(payload, dict) and isinstance(payload.get("model"), str):
                self.model = payload["model"]
        obj[THREAD] = self.thread
        if _is_output(obj):
            opened = self._open if self._open is not None else self._start(line, obj)
            item = obj["payload"]
            opened["payload"]["items"].append(item)
            call = item.get("call_id")
            if type(call) is str and len(self._names) < _MAX_HELD:
                self._names[call] = item.get("name")
            return []
        if kind == "response_item":
            payload = obj.get("payload")
            call = payload.get("call_id") if isinstance(payload, dict) else None
            if type(call) is str and call in self._names:
                obj[TOOL] = self._names.pop(call)
        if kind == "token_usage_record":
            if self._open is None:
                self._start(line, obj)
            self._close(obj)
            return self._flush()
        if self._open is None:
            return [(line, obj)]
        if _closes(obj) or len(self._held) >= _MAX_HELD:
            out = self._flush()
            out.append((line, obj))
            return out
        self._held.append((line, obj))
        return []

    def finish(self) -> list[tuple[int, dict]]:
        return self._flush() if self._open is not None else []

    def _start(self, line: int, obj: dict) -> dict:
        meta = obj.get("payload")
        turn = (
            meta.get("internal_chat_message_metadata_passthrough")
            if isinstance(meta, dict)
            else None
        )
        self._open = {
            "type": RESPONSE,
            "timestamp": obj.get("timestamp"),
            "ordinal": obj.get("ordinal"),
            "payload": {
                "items": [],
                "model": self.model,
                "turn_id": turn.get("turn_id") if isinstance(turn, dict) else None,
            },
            THREAD: self.thread,
        }
        self._line = line
        return self._open

    def _close(self, record: dict) -> None:
        assert self._open is not None
        payload = record.get("payload")
        if not isinstance(payload, dict):
            return
        mine = self._open["payload"]
        rid = payload.get("response_id")
        mine["response_id"] = rid
        mine["usage"] = payload.get("usage")
        for key in ("turn_id", "thread_id", "session_id"):
            if isinstance(payload.get(key), str):
                mine[key] = payload[key]
        mine["usage_timestamp"] = record.get("timestamp")
        if isinstance(rid, str):
            if rid in self._seen:
                self._open[REPEATED] = True
            else:
                self._seen.add(rid)

    def _flush(self) -> list[tuple[int, dict]]:
        assert self._open is not None
        out = [(self._line, self._open), *self._held]
        self._open, self._held = None, []
        return out
