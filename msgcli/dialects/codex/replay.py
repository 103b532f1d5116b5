"""Replaying ``codex exec --json`` output (what the CLI prints on standard output).

Its lines are ``thread.started``, ``turn.started``, ``item.started``/``item.updated``/
``item.completed`` (an ``agent_message``, ``reasoning``, ``command_execution``,
``file_change``, ``mcp_tool_call``, ``collab_tool_call``, ``web_search``, ``todo_list`` or
``error`` item), ``turn.completed`` and ``turn.failed``, and ``error``. The messages are
rebuilt as the rollout of the same run holds them: what the model said up to a tool call
is one response, the tool's result a message of its own, the last answer a response.

The output names no model response, and its ``turn.completed`` usage is the thread's
running total (a resumed run's includes the runs before it; a fork's its parent's): it is
kept in the replay's counts, never given to a message, so tokens are counted from the
rollout alone. Its item ids (``item_0``...) are the call ids of the rebuilt calls: the
output does not carry the model's call ids.
"""

from __future__ import annotations

from typing import Any

from ...guard import as_key
from ...replayers import Replayer
from ...textsafe import short
from .known import EXEC_EVENTS, EXEC_ITEMS, RESPONSE

__all__ = ["ExecReplayer"]

_TOOL_ITEMS = frozenset(
    {"command_execution", "file_change", "mcp_tool_call", "collab_tool_call", "web_search"}
)


def _call(item: dict) -> tuple[str, Any]:
    """A tool item's name and arguments as a call."""
    kind = item.get("type")
    if kind == "command_execution":
        return "exec_command", {"cmd": item.get("command")}
    if kind == "file_change":
        return "apply_patch", {"changes": item.get("changes")}
    if kind == "mcp_tool_call":
        return f"{item.get('server')}.{item.get('tool')}", item.get("arguments")
    if kind == "collab_tool_call":
        tool = item.get("tool")
        return str(tool), {k: v for k, v in item.items() if k not in ("id", "type", "status")}
    return str(kind), {"query": item.get("query")}


def _output(item: dict) -> tuple[Any, str | None]:
    """A tool item's output and whether it succeeded."""
    kind = item.get("type")
    status = item.get("status")
    if kind == "command_execution":
        code = item.get("exit_code")
        text = item.get("aggregated_output")
        out = f"Process exited with code {code}\nOutput:\n{text if isinstance(text, str) else ''}"
        return out, "success" if code == 0 else "error"
    if kind == "mcp_tool_call":
        result = item.get("result") if item.get("result") is not None else item.get("error")
        return result, "error" if status == "failed" else "success"
    return (
        {k: v for k, v in item.items() if k not in ("id", "type")},
        "error" if status == "failed" else "success",
    )


class ExecReplayer(Replayer):
    known_types = EXEC_EVENTS
    time_key = "\x00"  # the output carries no time stamps
    id_keys = ()

    def __init__(self, emit: Any, sink: Any = None):
        super().__init__(emit, sink)
        self.thread: dict[str, Any] = {}
        self._items: list[dict] = []
        self._line = 0
        self._calls: set[Any] = set()
        self._names: dict[Any, str] = {}
        #: each ``turn.completed`` usage (the thread's running total), as printed
        self.turn_usage: list[Any] = []

    def feed(self, line: int, event: dict, valid: bool = True) -> None:
        self.line = line
        stats = self.stats
        stats.events += 1
        kind = event.get("type")
        if type(kind) is not str:
            return
        if kind not in self.known_types:
            stats.unknown[kind] += 1
            self.emit(
                "R010",
                f"codex exec --json event {short(kind)} is not one msgcli knows: counted",
                "/type",
            )
            return
        stats.by_type[kind] += 1
        if kind == "thread.started":
            tid = event.get("thread_id")
            self.thread = {"id": tid} if isinstance(tid, str) else {}
            # the thread's header, as its rollout begins (the output says no more of it)
            self.write(
                self.line,
                {"type": "session_meta", "timestamp": None, "payload": dict(self.thread)},
            )
        elif kind in ("item.started", "item.completed"):
            item = event.get("item")
            if isinstance(item, dict):
                self._item(kind, item)
        elif kind == "turn.completed":
            self._flush()
            self.turn_usage.append(event.get("usage"))
            stats.completed += 1
            stats.finished_reasons["completed"] += 1
        elif kind == "turn.failed":
            self._flush()
            error = event.get("error")
            message = error.get("message") if isinstance(error, dict) else None
            self._error(message if isinstance(message, str) else "the turn failed")
            stats.finished_reasons["failed"] += 1
        elif kind == "error":
            message = event.get("message")
            self._error(f"error: {message}")

    def _item(self, kind: str, item: dict) -> None:
        itype = item.get("type")
        if type(itype) is str and itype not in EXEC_ITEMS:
            self.emit(
                "R010",
                f"codex exec --json item type {short(itype)} is not one msgcli knows: counted",
                "/item/type",
            )
            return
        iid = as_key(item.get("id"))
        if type(itype) is not str:
            return
        if itype in _TOOL_ITEMS:
            if iid not in self._calls:
                name, args = _call(item)
                self._open().append(
                    {"type": "function_call", "name": name, "arguments": args, "call_id": iid}
                )
                self._calls.add(iid)
                self._names[iid] = name
            if kind == "item.completed":
                self._flush()
                self._calls.discard(iid)
                output, state = _output(item)
                self.write(
                    self.line,
                    {
                        "type": "response_item",
                        "timestamp": None,
                        "payload": {
                            "type": "function_call_output",
                            "call_id": iid,
                            "output": output,
                            "state": state,
                            # (the output names its tool, which a rollout's outputs do not)
                            "name": self._names.pop(iid, None),
                        },
                    },
                )
            return
        if kind != "item.completed":
            return
        if itype == "agent_message":
            self._open().append(
                {
                    "type": "message",
                    "role": "assistant",
                    "content": [{"type": "output_text", "text": item.get("text")}],
                }
            )
        elif itype == "reasoning":
            self._open().append(
                {
                    "type": "reasoning",
                    "summary": [{"type": "summary_text", "text": item.get("text")}],
                }
            )
        elif itype == "error":
            self._error(item.get("message"))
        else:  # a to-do list: kept as what it is
            self._open().append(dict(item))

    def _open(self) -> list[dict]:
        if not self._items:
            self._line = self.line
        return self._items

    def _flush(self) -> None:
        if not self._items:
            return
        items, self._items = self._items, []
        self.write(
            self._line,
            {
                "type": RESPONSE,
                "timestamp": None,
                "payload": {
                    "items": items,
                    "response_id": None,
                    "thread_id": self.thread.get("id"),
                },
            },
        )

    def _error(self, message: Any) -> None:
        self.write(
            self.line,
            {
                "type": "event_msg",
                "timestamp": None,
                "payload": {"type": "error", "message": message},
            },
        )

    def finish(self, line: int, cut: bool = False) -> None:
        self._flush()
