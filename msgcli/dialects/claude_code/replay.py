"""Replaying a stream-json log (``claude -p --output-format stream-json --verbose``).

With ``--include-partial-messages`` the log holds the raw Messages API stream events
(``stream_event`` records: ``message_start``, ``content_block_start``/``_delta``/
``_stop``, ``message_delta``, ``message_stop``); each response is rebuilt from them, as
the API's own SDK accumulates a stream: text and thinking deltas appended, a tool call's
``partial_json`` joined and parsed when its block stops, the stop reason and usage of
``message_delta`` applied. Without them (or for a response whose events are missing),
the log's ``assistant`` records, one per content block, are merged by ``message.id``.
User records (prompts and tool results) are written as they are, so the rebuilt log
reads as the conversation. ``system`` and ``result`` records are counted, not written.

Events are told apart by ``parent_tool_use_id``: a subagent's stream runs beside the
main thread's.
"""

from __future__ import annotations

from typing import Any

import orjson

from ...guard import as_key
from ...replayers import Replayer
from ...textsafe import short
from ..wire import joined
from .assemble import Assembler
from .known import STREAM_EVENTS, STREAM_FIELDS, STREAM_SYSTEM_SUBTYPES, STREAM_TYPES

__all__ = ["StreamReplayer"]


class _Open:
    """A response being rebuilt from its stream events."""

    __slots__ = ("blocks", "json", "line", "message", "record")

    def __init__(self, line: int, record: dict, message: dict):
        self.line = line
        self.record = record
        self.message = message
        self.blocks: dict[int, dict] = {}
        self.json: dict[int, list[str]] = {}


class StreamReplayer(Replayer):
    known_types = STREAM_TYPES
    time_key = "\x00"  # stream-json records carry no time stamp to order by
    id_keys = ()

    def __init__(self, emit: Any, sink: Any = None):
        super().__init__(emit, sink)
        self._open: dict[Any, _Open] = {}
        self._rebuilt: set[str] = set()
        self._lines = Assembler()
        self.result: dict | None = None

    def feed(self, line: int, event: dict, valid: bool = True) -> None:
        self.line = line
        stats = self.stats
        stats.events += 1
        kind = event.get("type")
        if type(kind) is not str:
            # a record of a kind no release msgcli knows wrote, without a type
            stats.unknown[short(kind)] += 1
            self.emit("K015", "a stream-json record without a type msgcli knows: counted")
            return
        if kind not in self.known_types:
            stats.unknown[kind] += 1
            self.emit(
                "K015",
                f"stream-json record type {short(kind)} is not one msgcli knows: counted",
                "/type",
            )
            return
        stats.by_type[kind] += 1
        if not event.keys() <= STREAM_FIELDS:
            for key in event:
                if key not in STREAM_FIELDS:
                    self.emit(
                        "U002",
                        f"field {short(key)} is not one msgcli knows on stream-json records: kept",
                        "/" + key.replace("~", "~0").replace("/", "~1"),
                    )
        self.apply(kind, event)

    def apply(self, kind: str, event: dict) -> None:
        if kind == "stream_event":
            self._event(event)
        elif kind in ("assistant", "user"):
            self._line(event)
        elif kind == "system":
            sub = event.get("subtype")
            if type(sub) is str and sub not in STREAM_SYSTEM_SUBTYPES:
                self.emit(
                    "K015",
                    f"stream-json system subtype {short(sub)} is not one msgcli knows: counted",
                    "/subtype",
                )
        elif kind == "result":
            self.result = event
            reason = event.get("subtype")
            if type(reason) is str:
                self.stats.finished_reasons[reason] += 1
                self.stats.completed += 1

    # -- assistant and user lines -------------------------------------------------

    def _line(self, record: dict) -> None:
        message = record.get("message")
        mid = message.get("id") if isinstance(message, dict) else None
        if record.get("type") == "assistant" and as_key(mid) in self._rebuilt:
            return  # this response is rebuilt from its stream events
        for line, obj in self._lines.feed(self.line, record):
            self.write(line, obj)

    # -- stream events --------------------------------------------------------------

    def _event(self, record: dict) -> None:
        event = record.get("event")
        if not isinstance(event, dict):
            return
        etype = event.get("type")
        key = as_key(record.get("parent_tool_use_id"))
        current = self._open.get(key)
        if etype == "message_start":
            message = event.get("message")
            if not isinstance(message, dict):
                return
            if current is not None:
                self._cut(current)
            message = dict(message)
            message["content"] = []
            shell = {
                "type": "assistant",
                "message": message,
                "parent_tool_use_id": key,
                "session_id": record.get("session_id"),
            }
            self._open[key] = _Open(self.line, shell, message)
            mid = message.get("id")
            if type(mid) is str:
                self._rebuilt.add(as_key(mid))
            return
        if as_key(etype) not in STREAM_EVENTS:
            self.emit(
                "K015",
                f"stream event type {short(etype)} is not one msgcli knows: skipped",
                "/event/type",
            )
            return
        if etype in ("ping", "error"):
            return
        if current is None:
            self.emit(
                "E002",
                f"a {short(etype)} event comes before its response's message_start",
                "/event",
            )
            return
        index = event.get("index")
        if etype == "content_block_start":
            block = event.get("content_block")
            if isinstance(block, dict) and type(index) is int:
                current.blocks[index] = dict(block)
                if block.get("type") in ("tool_use", "server_tool_use"):
                    current.json[index] = []
        elif etype == "content_block_delta":
            self._delta(current, index, event.get("delta"))
        elif etype == "content_block_stop":
            if type(index) is not int or index not in current.blocks:
                self.emit("E002", f"content_block_stop for block {short(index)} that never started")
                return
            block = current.blocks.pop(index)
            parts = current.json.pop(index, None)
            if parts is not None:
                text = "".join(parts)
                try:
                    block["input"] = orjson.loads(text) if text else {}
                except orjson.JSONDecodeError:
                    self.emit(
                        "E006",
                        f"the streamed input of tool call {short(block.get('id'))} is not JSON",
                    )
                    block["input"] = {}
            current.message["content"].append(block)
        elif etype == "message_delta":
            delta = event.get("delta")
            if isinstance(delta, dict):
                for k in ("stop_reason", "stop_sequence"):
                    if k in delta:
                        current.message[k] = delta[k]
            usage = event.get("usage")
            if isinstance(usage, dict):
                # (message_start's usage may be no object: the counts start afresh, as the
                # Anthropic replay's do)
                mine = current.message.get("usage")
                merged = dict(mine) if isinstance(mine, dict) else {}
                merged.update(usage)
                current.message["usage"] = merged
        elif etype == "message_stop":
            del self._open[key]
            self.write(current.line, current.record)

    def _delta(self, current: _Open, index: Any, delta: Any) -> None:
        block = current.blocks.get(index) if type(index) is int else None
        if block is None or not isinstance(delta, dict):
            self.emit("E002", f"a delta for block {short(index)} that never started", "/event")
            return
        dtype = delta.get("type")
        if dtype == "text_delta":
            block["text"] = joined(block.get("text"), delta.get("text"))
        elif dtype == "thinking_delta":
            block["thinking"] = joined(block.get("thinking"), delta.get("thinking"))
        elif dtype == "signature_delta":
            block["signature"] = joined(block.get("signature"), delta.get("signature"))
        elif dtype == "input_json_delta":
            # (a piece that is no text adds none, as in the Anthropic replay)
            piece = delta.get("partial_json")
            if type(piece) is str:
                current.json.setdefault(index, []).append(piece)
        elif dtype == "citations_delta":
            block.setdefault("citations", []).append(delta.get("citation"))
        else:
            self.emit(
                "K015",
                f"stream delta type {short(dtype)} is not one msgcli knows: skipped",
                "/event/delta/type",
            )

    def _cut(self, current: _Open) -> None:
        mid = current.message.get("id")
        self.emit(
            "K011",
            f"response {short(mid)} stops streaming before message_stop: the run was cut here",
            line=self.line,
        )
        content = current.message["content"]
        for index in sorted(current.blocks):
            content.append(current.blocks[index])
        self.stats.cut += 1
        self.write(current.line, current.record)

    def open_messages(self) -> list[dict]:
        return [o.record for o in self._open.values()]

    def finish(self, line: int, cut: bool = False) -> None:
        for line_, obj in self._lines.finish():
            self.write(line_, obj)
        for current in list(self._open.values()):
            self._cut(current)
        self._open.clear()
