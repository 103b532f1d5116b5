"""AgentScope Java 2.x: rebuild what the engine persists from its ``AgentEvent`` stream.

An agent run (``AGENT_START`` .. ``AGENT_END``) holds model calls and acting
phases, each with a reply id of its own. The engine persists:

- one ``ASSISTANT`` message per model call: ``[thinking][text][tool_use...]``,
  text and thinking deltas concatenated, tool-call argument fragments grouped
  by tool-call id (a fragment with an empty id or a ``__`` placeholder name
  belongs to the latest call) and parsed as a JSON object at the end. It is
  written at ``MODEL_CALL_END``;
- one ``TOOL`` message per tool result, written at its ``TOOL_RESULT_END``.

``AGENT_RESULT`` carries the run's final message: it is compared with the
last message rebuilt from the events.

The events do not carry the message ids (the provider's response id) nor the
wall-clock time the engine stamps: a rebuilt assistant message takes its
model call's reply id, a tool message ``<reply id>:<tool call id>``, and both
the time of the event that completed them (UTC). Events of a forwarded
subagent (``source``) are replayed as a stream of their own.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import orjson

from ..dialects.agentscope_java import EVENT_ALIASES as ALIASES
from ..schemas import load_schema, type_branches
from ..textsafe import short
from . import Emit, Replayer, Sink, listed, mark

__all__ = ["ALIASES", "EVENT_TYPES", "JavaReplayer", "java_timestamp"]

#: the event types the dialect's event schema names; any other is skipped (E009)
EVENT_TYPES = frozenset(type_branches(load_schema("agentscope-java/event")) or ())


def java_timestamp(instant: Any) -> Any:
    """``2026-08-22T15:15:55.901234Z`` -> ``2026-08-22 15:15:55.901`` (Msg.timestamp's form)."""
    if type(instant) is not str or len(instant) < 19:
        return None
    day, _, time = instant.rstrip("Z").partition("T")
    whole, _, fraction = time.partition(".")
    return f"{day} {whole}.{(fraction + '000')[:3]}"


class _Call:
    """One model call being rebuilt."""

    __slots__ = (
        "agent",
        "ended",
        "last_tool",
        "line",
        "open_text",
        "open_thinking",
        "rid",
        "summary",
        "text",
        "thinking",
        "tools",
    )

    def __init__(self, rid: str, agent: Any, line: int, summary: bool):
        self.rid = rid
        self.agent = agent
        self.line = line
        self.summary = summary
        self.text: list[str] = []
        self.thinking: list[str] = []
        self.open_text = 0  # line of the open TEXT_BLOCK_START, 0 if closed
        self.open_thinking = 0
        self.tools: dict[str, dict] = {}  # key -> {"id", "name", "raw": [..], "open": line}
        self.last_tool: str | None = None

    def open_items(self) -> list[str]:
        items = []
        if self.open_text:
            items.append("text block")
        if self.open_thinking:
            items.append("thinking block")
        items += [f"tool call {t['id'] or key}" for key, t in self.tools.items() if t["open"]]
        return items

    def cut_at(self) -> str:
        """Where an open model call stops: its open blocks, and the argument text that
        arrived for an open tool call (for E007)."""
        parts = []
        if self.open_text:
            parts.append("a text block")
        if self.open_thinking:
            parts.append("a thinking block")
        for key, tool in self.tools.items():
            if tool["open"]:
                raw = "".join(tool["raw"])
                got = f"after the arguments {short(raw, 80)}" if raw else "before any argument"
                parts.append(f"tool call {short(tool['id'] or key)} {got}")
        return ", ".join(parts)


class _Result:
    __slots__ = ("cid", "line", "metadata", "name", "output", "rid")

    def __init__(self, rid: str, cid: str, name: Any, line: int, metadata: Any):
        self.rid = rid
        self.cid = cid
        self.name = name
        self.line = line
        self.output: list[dict] = []
        self.metadata = metadata


class _Stream:
    """One agent's events: the main agent's, or one forwarded subagent's (``source``)."""

    __slots__ = (
        "agent",
        "calls",
        "ended_calls",
        "event_ids",
        "hints",
        "last_line",
        "last_message",
        "max_iters",
        "results",
        "run",
        "run_line",
        "source",
        "tool_ids",
    )

    def __init__(self, source: Any) -> None:
        self.source = source
        self.run: str | None = None  # the open run's reply id
        self.run_line = 0
        self.agent: Any = None
        self.calls: dict[str, _Call] = {}
        self.ended_calls: dict[str, int] = {}  # model calls of this run that ended -> line
        self.results: dict[str, _Result] = {}  # open tool results by tool-call id
        self.tool_ids: set[str] = set()  # tool calls made in this run
        self.last_message: dict | None = None
        self.last_line = 0
        self.hints: list[dict] = []  # HINT_BLOCKs waiting for the next event of this stream
        self.max_iters = False
        self.event_ids: set[str] = set()


class JavaReplayer(Replayer):
    known_types = EVENT_TYPES
    time_key = "createdAt"
    id_keys = ("replyId", "blockId", "toolCallId")

    def __init__(self, emit: Emit, sink: Sink | None = None) -> None:
        super().__init__(emit, sink)
        self.streams: dict[Any, _Stream] = {}
        # REQUIRE_* reply id -> {tool-call id: tool_use block}, waiting for a *_RESULT
        self.pending: dict[str, dict[str, dict]] = {}

    # -- the event loop --------------------------------------------------------

    def apply(self, kind: str, event: dict) -> None:
        source = event.get("source")
        if type(source) is not str:
            source = None
        stream = self.streams.get(source)
        if stream is None:
            stream = self.streams[source] = _Stream(source)
        if stream.hints and kind != "HINT_BLOCK":
            self._write_hints(stream)
        self.note_event_id(stream.event_ids, event, "run")
        handler = _HANDLERS.get(kind)
        if handler is not None:
            handler(self, stream, event)

    def finish(self, line: int, cut: bool = False) -> None:
        self.stats.parked += len(self.pending)
        for stream in self.streams.values():
            if stream.hints:
                self._write_hints(stream)
            where = "; ".join(filter(None, (call.cut_at() for call in stream.calls.values())))
            for call in list(stream.calls.values()):
                items = call.open_items() or ["model call"]
                self._finalise(stream, call, line, mark_as=("open" if cut else "cut", items))
            for result in list(stream.results.values()):
                self._tool_message(stream, result, "running", line, ("open" if cut else "cut"))
            if stream.run is not None and not cut:
                self.stats.cut += 1
                self.emit(
                    "E007",
                    f"the log ends inside the run that started on line {stream.run_line}"
                    f"{_of(stream)} (no AGENT_END)"
                    + (f", inside {where}" if where else "")
                    + ": the run failed or its stream was cut here; "
                    "what arrived is kept, marked 'cut' in metadata",
                    line=line,
                )
        self.streams.clear()

    def open_messages(self) -> list[dict]:
        """The messages still being built, as they stand (for a live view)."""
        out = []
        for stream in self.streams.values():
            for call in stream.calls.values():
                out.append(self._message(call.rid, call.agent, "ASSISTANT", _content(call)))
            for result in stream.results.values():
                out.append(self._tool_result_message(stream, result, "running", {}))
        return out

    def _message(
        self, mid: Any, name: Any, role: str, content: list, metadata: Any = None, usage: Any = None
    ) -> dict:
        """A message as Jackson writes it, stamped with the time of the event being applied."""
        return {
            "id": mid,
            "name": name,
            "role": role,
            "content": content,
            "metadata": {} if metadata is None else metadata,
            "timestamp": java_timestamp(self.stamp),
            "usage": usage,
        }

    def _tool_result_message(
        self, stream: _Stream, result: _Result, state: Any, metadata: dict
    ) -> dict:
        """The TOOL message the engine stores for one tool result."""
        block = {
            "type": "tool_result",
            "id": result.cid,
            "name": result.name,
            "output": result.output,
            "metadata": result.metadata if type(result.metadata) is dict else {},
            "state": state,
        }
        return self._message(f"{result.rid}:{result.cid}", stream.agent, "TOOL", [block], metadata)

    # -- runs ------------------------------------------------------------------

    def _agent_start(self, stream: _Stream, event: dict) -> None:
        if stream.run is not None:
            self._close_run(stream, "a new AGENT_START")
        stream.run = event.get("replyId") or ""
        stream.run_line = self.line
        stream.agent = event.get("name")
        stream.ended_calls.clear()
        stream.tool_ids.clear()
        stream.event_ids = {event["id"]} if type(event.get("id")) is str else set()
        stream.last_message = None
        stream.max_iters = False

    def _close_run(self, stream: _Stream, why: str) -> None:
        """A run ends (``AGENT_END``), or a new one starts over it."""
        for call in list(stream.calls.values()):
            self.emit(
                "E015",
                f"the model call started on line {call.line} is still open at {why}",
            )
            self._finalise(stream, call, self.line, mark_as=("cut", call.open_items()))
        for result in list(stream.results.values()):
            self.emit(
                "E015",
                f"the result of tool call {short(result.cid)} (started on line {result.line}) "
                f"is still open at {why}",
            )
            self._tool_message(stream, result, "running", self.line, "cut")
        if why != "AGENT_END" and stream.run is not None:
            self.stats.cut += 1
            self.emit(
                "E007",
                f"the run that started on line {stream.run_line} never ended (no AGENT_END "
                "before the next AGENT_START): it failed or its stream was cut",
            )

    def _agent_end(self, stream: _Stream, event: dict) -> None:
        if stream.run is None:
            self.emit("E002", "AGENT_END without an AGENT_START")
            return
        self._close_run(stream, "AGENT_END")
        stream.run = None
        self.stats.completed += 1

    def _agent_result(self, stream: _Stream, event: dict) -> None:
        result = event.get("result")
        if type(result) is not dict:
            return
        metadata = result.get("metadata")
        reason = metadata.get("agentscope_generate_reason") if type(metadata) is dict else None
        # how the run ended (no generate reason: the model stopped)
        reason = reason or "MODEL_STOP"
        self.stats.finished_reasons[reason if type(reason) is str else short(reason, 40)] += 1
        if reason == "INTERRUPTED":
            # the engine keeps the interrupted model call as it stands, and adds a recovery
            # message that no other event carries: write both
            for call in list(stream.calls.values()):
                self._finalise(stream, call, self.line)
            self.write(self.line, result)
            return
        if reason == "TOOL_SUSPENDED":
            return  # a message made for the caller (calls + pending results), never stored
        rebuilt = stream.last_message
        if rebuilt is None:
            self.emit(
                "E011",
                "AGENT_RESULT reports a final message, but no model call of this run was "
                "rebuilt to compare it with",
                "/result",
            )
            return
        differences = _differences(result, rebuilt)
        if differences:
            shown = "; ".join(differences[:3]) + ("; ..." if len(differences) > 3 else "")
            self.emit(
                "E011",
                "AGENT_RESULT differs from the message rebuilt from this run's events "
                f"(completed on line {stream.last_line}): {shown}",
                "/result",
            )

    # -- model calls -------------------------------------------------------------

    def _call(self, stream: _Stream, event: dict) -> _Call | None:
        """The open model call of a block or tool-call event (one started here if none)."""
        rid = event.get("replyId")
        call = stream.calls.get(rid) if type(rid) is str else None
        if call is not None:
            return call
        if type(rid) is str and rid in stream.ended_calls:
            self.emit(
                "E004",
                f"{event['type']} for model call {short(rid)} after it ended on line "
                f"{stream.ended_calls[rid]}: not applied to the written message",
            )
            return None
        self.emit(
            "E001",
            f"{event['type']} for model call {short(rid)}, which never started "
            "(no MODEL_CALL_START): kept in a message of its own",
        )
        return self._model_start(stream, event, quiet=True)

    def _model_start(self, stream: _Stream, event: dict, quiet: bool = False) -> _Call:
        rid = event.get("replyId")
        rid = rid if type(rid) is str else ""
        old = stream.calls.get(rid)
        if old is not None and not quiet:
            self.emit(
                "E003",
                f"model call {short(rid)} starts again while the start on line {old.line} "
                "has not ended",
            )
            return old
        call = _Call(rid, stream.agent, self.line, stream.max_iters)
        stream.calls[rid] = call
        return call

    def _model_end(self, stream: _Stream, event: dict) -> None:
        rid = event.get("replyId")
        call = stream.calls.get(rid) if type(rid) is str else None
        if call is None:
            if type(rid) is str and rid in stream.ended_calls:
                self.emit("E004", f"MODEL_CALL_END again for model call {short(rid)}")
            else:
                self.emit(
                    "E002", f"MODEL_CALL_END for model call {short(rid)}, which never started"
                )
            return
        items = call.open_items()
        if items:
            self.emit("E015", f"the model call ends with {', '.join(items)} still open")
        self._finalise(stream, call, self.line, usage=event.get("usage"))

    def _finalise(
        self,
        stream: _Stream,
        call: _Call,
        line: int,
        usage: Any = None,
        mark_as: tuple[str, list[str]] | None = None,
    ) -> None:
        del stream.calls[call.rid]
        stream.ended_calls[call.rid] = line
        content = _content(call, cut=mark_as is not None)
        for key, tool in call.tools.items():
            raw = "".join(tool["raw"])
            if raw and _parse_object(raw) is None and not tool["open"]:
                self.emit(
                    "E006",
                    f"the arguments of tool call {short(tool['id'] or key)} "
                    f"({short(tool['name'])}) are not a JSON object: {short(raw, 80)}; "
                    "the engine keeps '{}'",
                    "/toolCallId",
                    line=tool["ended"] or line,
                )
            if tool["id"]:
                stream.tool_ids.add(tool["id"])
        if not content and mark_as is None:
            return  # the engine persists no message without blocks
        metadata: dict = {}
        if type(usage) is dict and any(
            _positive(usage.get(k)) for k in ("inputTokens", "outputTokens", "cachedTokens", "time")
        ):
            metadata["_chat_usage"] = usage
        else:
            usage = None
        if call.summary:
            # (after _chat_usage: the order Java's HashMap gives these two keys)
            metadata["agentscope_generate_reason"] = "MAX_ITERATIONS"
        if mark_as is not None:
            mark(metadata, mark_as[0], mark_as[1], line)
        message = self._message(call.rid, call.agent, "ASSISTANT", content, metadata, usage)
        stream.last_message = message
        stream.last_line = line
        self.write(line, message)

    # -- blocks ------------------------------------------------------------------

    def _text(self, stream: _Stream, event: dict) -> None:
        call = self._call(stream, event)
        if call is None:
            return
        kind = event["type"]
        thinking = kind.startswith("THINKING")
        attr = "open_thinking" if thinking else "open_text"
        word = "thinking block" if thinking else "text block"
        opened = getattr(call, attr)
        if kind.endswith("_START"):
            if opened:
                self.emit(
                    "E003", f"the {word} starts again while open (since line {opened})", "/blockId"
                )
            setattr(call, attr, self.line)
        elif kind.endswith("_END"):
            if not opened:
                self.emit("E002", f"the end of a {word} that is not open", "/blockId")
            setattr(call, attr, 0)
        else:
            if not opened:
                self.emit(
                    "E002",
                    f"a delta for a {word} that is not open: its text is kept",
                    "/blockId",
                )
            delta = event.get("delta")
            if type(delta) is str:
                (call.thinking if thinking else call.text).append(delta)

    def _tool_call(self, stream: _Stream, event: dict) -> None:
        call = self._call(stream, event)
        if call is None:
            return
        kind = event["type"]
        cid = event.get("toolCallId") or ""
        name = event.get("toolCallName")
        real = type(name) is str and not name.startswith("__")
        if cid:
            key = cid
        elif real:
            key = f"name:{name}"
        elif call.last_tool is not None:
            key = call.last_tool
        else:
            key = "index:0"
        tool = call.tools.get(key)
        if kind == "TOOL_CALL_START":
            if tool is None:
                tool = call.tools[key] = _new_tool(cid, name if real else None)
            elif real:
                tool["name"] = name
            tool["open"] = self.line
            call.last_tool = key
            return
        if tool is None:
            if kind == "TOOL_CALL_END" or (cid and real):
                # a START is only left out for placeholder fragments
                self.emit(
                    "E002",
                    f"{'an end' if kind == 'TOOL_CALL_END' else 'a delta'} for tool call "
                    f"{short(cid or key)}, which never started",
                    "/toolCallId",
                )
                if kind == "TOOL_CALL_END":
                    return
            tool = call.tools[key] = _new_tool(cid, name if real else None)
        elif real:
            tool["name"] = name
        call.last_tool = key
        if kind == "TOOL_CALL_DELTA":
            delta = event.get("delta")
            if type(delta) is str:
                tool["raw"].append(delta)
            return
        tool["open"] = 0
        tool["ended"] = self.line  # its arguments are judged when the model call is over

    # -- acting ------------------------------------------------------------------

    def _result_start(self, stream: _Stream, event: dict) -> _Result:
        cid = event.get("toolCallId")
        cid = cid if type(cid) is str else ""
        old = stream.results.get(cid)
        if old is not None:
            self.emit(
                "E003",
                f"the result of tool call {short(cid)} starts again while open "
                f"(since line {old.line})",
                "/toolCallId",
            )
            return old
        if cid not in stream.tool_ids and not any(cid in p for p in self.pending.values()):
            self.emit(
                "E005",
                f"a result for tool call {short(cid)}, which no model call of this run made",
                "/toolCallId",
            )
        result = _Result(
            event.get("replyId") or "",
            cid,
            event.get("toolCallName"),
            self.line,
            event.get("metadata"),
        )
        stream.results[cid] = result
        return result

    def _tool_result(self, stream: _Stream, event: dict) -> None:
        kind = event["type"]
        if kind == "TOOL_RESULT_START":
            self._result_start(stream, event)
            return
        cid = event.get("toolCallId")
        result = stream.results.get(cid) if type(cid) is str else None
        if result is None:
            self.emit(
                "E002",
                f"{'an end' if kind == 'TOOL_RESULT_END' else 'output'} for the result of tool "
                f"call {short(cid)}, which never started: kept in a result started here",
                "/toolCallId",
            )
            result = self._result_start(stream, event)
        output = result.output
        if kind == "TOOL_RESULT_TEXT_DELTA":
            delta = event.get("delta")
            if type(delta) is str:
                if output and output[-1].get("type") == "text":
                    output[-1]["text"] += delta
                else:
                    output.append({"type": "text", "text": delta})
        elif kind == "TOOL_RESULT_DATA_DELTA":
            data = event.get("data")
            if type(data) is dict:
                output.append(data)
        else:
            if "metadata" in event:
                result.metadata = event["metadata"]
            metadata = result.metadata
            if (
                event.get("state") == "running"
                and type(metadata) is dict
                and metadata.get("agentscope_suspended") is True
            ):
                # left to the caller to run: the engine stores no message for it; the
                # result comes back in EXTERNAL_EXECUTION_RESULT
                del stream.results[result.cid]
                return
            self._tool_message(stream, result, event.get("state"), self.line, None)

    def _tool_message(
        self, stream: _Stream, result: _Result, state: Any, line: int, mark_as: str | None
    ) -> None:
        del stream.results[result.cid]
        metadata: dict = {}
        if mark_as is not None:
            mark(metadata, mark_as, [f"result of tool call {result.cid}"], line)
        self.write(line, self._tool_result_message(stream, result, state, metadata))

    # -- human in the loop ---------------------------------------------------------

    def _require(self, stream: _Stream, event: dict) -> None:
        rid = event.get("replyId")
        calls = {}
        for call in listed(event.get("toolCalls")):
            if type(call) is dict and type(call.get("id")) is str:
                calls[call["id"]] = call
        if type(rid) is str:
            self.pending[rid] = calls

    def _resume(self, stream: _Stream, event: dict) -> None:
        rid = event.get("replyId")
        waiting = self.pending.pop(rid, None) if type(rid) is str else None
        if waiting is None:
            self.emit(
                "E013",
                f"{event['type']} answers request {short(rid)}, but no REQUIRE_* event "
                "with that replyId is waiting",
                "/replyId",
            )
            waiting = {}
        if event["type"] == "USER_CONFIRM_RESULT":
            for item in listed(event.get("confirmResults")):
                use = item.get("toolCall") if type(item) is dict else None
                if type(use) is not dict or type(use.get("id")) is not str:
                    continue
                cid = use["id"]
                stream.tool_ids.add(cid)
                if item.get("confirmed") is not True:
                    # a declined call: the engine stores a denial, with no event of its own
                    result = _Result(rid or "", cid, use.get("name"), self.line, {})
                    result.output = [{"type": "text", "text": "Permission denied by user"}]
                    stream.results[cid] = result
                    self._tool_message(stream, result, "denied", self.line, None)
            return
        # the caller's own message with the results is what the engine stores
        results = [b for b in listed(event.get("toolResults")) if type(b) is dict]
        for block in results:
            if type(block.get("id")) is str:
                stream.tool_ids.add(block["id"])
        mid = f"{rid}:results" if type(rid) is str else None
        self.write(self.line, self._message(mid, None, "TOOL", results))

    def _hint(self, stream: _Stream, event: dict) -> None:
        stream.hints.append(
            {
                "type": "hint",
                "id": event.get("blockId"),
                "hint": event.get("hint"),
                "source": event.get("hintSource"),
            }
        )

    def _write_hints(self, stream: _Stream) -> None:
        """The engine stores hints before the next model call, as an assistant message of
        their own (or added to this agent's last message, which a stream cannot change
        once written: then they are a message of their own here too)."""
        hints, stream.hints = stream.hints, []
        self.write(self.line, self._message(hints[0]["id"], stream.agent, "ASSISTANT", hints))

    def _max_iters(self, stream: _Stream, event: dict) -> None:
        stream.max_iters = True


def _of(stream: _Stream) -> str:
    return f" (subagent {short(stream.source)})" if stream.source is not None else ""


def _content(call: _Call, cut: bool = True) -> list[dict]:
    """A model call's blocks as the engine builds them: [thinking][text][tool_use...]."""
    content: list[dict] = []
    thinking = "".join(call.thinking)
    if thinking:
        content.append({"type": "thinking", "thinking": thinking, "metadata": None})
    text = "".join(call.text)
    if text:
        content.append({"type": "text", "text": text})
    for key, tool in call.tools.items():
        raw = "".join(tool["raw"])
        parsed = _parse_object(raw)
        content.append(
            {
                "type": "tool_use",
                "id": tool["id"] or f"tool_call_{key}",
                "name": tool["name"],
                "input": java_hash_order(parsed) if parsed else {},
                # a call still open when the stream stopped keeps the argument text that
                # arrived (as the Python replayer keeps a cut call's partial input); a
                # finished call whose arguments are no object gets the engine's '{}'
                "content": raw if parsed is not None or (cut and raw) else "{}",
                "metadata": {},
                "state": "pending",
            }
        )
    return content


def _new_tool(cid: str, name: Any) -> dict:
    return {"id": cid, "name": name, "raw": [], "open": 0, "ended": 0}


def java_hash_order(obj: dict) -> dict:
    """``obj`` with its keys in the order a ``java.util.HashMap`` iterates them.

    The engine parses tool-call arguments into a HashMap, so Jackson writes ``input``
    in hash order, not in the order the model wrote the keys. Order: bucket by bucket
    (``String.hashCode``, spread as HashMap does, table grown from 16 at load 0.75),
    insertion order within a bucket.
    """
    if len(obj) < 2:
        return obj
    size = 16
    while len(obj) > size * 0.75:
        size *= 2
    return {key: obj[key] for key in sorted(obj, key=lambda k: _java_bucket(k, size))}


def _java_bucket(key: Any, size: int) -> int:
    data = str(key).encode("utf-16-be", "surrogatepass")
    h = 0
    for i in range(0, len(data), 2):
        h = (31 * h + (data[i] << 8 | data[i + 1])) & 0xFFFFFFFF
    return (h ^ (h >> 16)) & (size - 1)


def _positive(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and value > 0


def _parse_object(raw: str) -> dict | None:
    if not raw:
        return None
    try:
        value = orjson.loads(raw)
    except orjson.JSONDecodeError:
        return None
    return value if type(value) is dict else None


def _differences(reported: dict, rebuilt: dict) -> list[str]:
    """Where the content of two messages differs: their text, thinking and tool calls (id,
    name, arguments), in order. States, metadata, usage, ids and times are left out: the
    engine edits them after the model call (calls become ``allowed`` or ``asking``, pause
    metadata is added), and the events do not carry ids and times."""
    out: list[str] = []
    _diff(_essence(reported), _essence(rebuilt), "/content", out)
    if reported.get("name") != rebuilt.get("name"):
        _diff(reported.get("name"), rebuilt.get("name"), "/name", out)
    return out


def _essence(message: dict) -> list:
    blocks = message.get("content")
    out: list = []
    for block in blocks if type(blocks) is list else ():
        if type(block) is not dict:
            continue
        kind = block.get("type")
        if kind == "text":
            out.append({"type": kind, "text": block.get("text")})
        elif kind == "thinking":
            out.append({"type": kind, "thinking": block.get("thinking")})
        elif kind == "tool_use":
            out.append(
                {
                    "type": kind,
                    "id": block.get("id"),
                    "name": block.get("name"),
                    "input": block.get("input"),
                }
            )
    return out


_MISSING = object()


def _diff(a: Any, b: Any, path: str, out: list[str]) -> None:
    if type(a) is dict and type(b) is dict:
        for key in sorted(set(a) | set(b), key=str):
            _diff(a.get(key, _MISSING), b.get(key, _MISSING), f"{path}/{key}", out)
    elif type(a) is list and type(b) is list and len(a) == len(b):
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            _diff(x, y, f"{path}/{i}", out)
    elif a != b or type(a) is not type(b):
        if a is _MISSING:
            out.append(f"{path} is missing from AGENT_RESULT")
        elif b is _MISSING:
            out.append(f"{path} is in AGENT_RESULT only")
        else:
            out.append(f"{path} is {short(a, 40)} in AGENT_RESULT, {short(b, 40)} rebuilt")


_HANDLERS: dict[str, Callable[[JavaReplayer, _Stream, dict], object]] = {
    "AGENT_START": JavaReplayer._agent_start,
    "AGENT_END": JavaReplayer._agent_end,
    "AGENT_RESULT": JavaReplayer._agent_result,
    "MODEL_CALL_START": JavaReplayer._model_start,
    "MODEL_CALL_END": JavaReplayer._model_end,
    "TEXT_BLOCK_START": JavaReplayer._text,
    "TEXT_BLOCK_DELTA": JavaReplayer._text,
    "TEXT_BLOCK_END": JavaReplayer._text,
    "THINKING_BLOCK_START": JavaReplayer._text,
    "THINKING_BLOCK_DELTA": JavaReplayer._text,
    "THINKING_BLOCK_END": JavaReplayer._text,
    "TOOL_CALL_START": JavaReplayer._tool_call,
    "TOOL_CALL_DELTA": JavaReplayer._tool_call,
    "TOOL_CALL_END": JavaReplayer._tool_call,
    "TOOL_RESULT_START": JavaReplayer._tool_result,
    "TOOL_RESULT_TEXT_DELTA": JavaReplayer._tool_result,
    "TOOL_RESULT_DATA_DELTA": JavaReplayer._tool_result,
    "TOOL_RESULT_END": JavaReplayer._tool_result,
    "REQUIRE_USER_CONFIRM": JavaReplayer._require,
    "REQUIRE_EXTERNAL_EXECUTION": JavaReplayer._require,
    "USER_CONFIRM_RESULT": JavaReplayer._resume,
    "EXTERNAL_EXECUTION_RESULT": JavaReplayer._resume,
    "EXCEED_MAX_ITERS": JavaReplayer._max_iters,
    "HINT_BLOCK": JavaReplayer._hint,
}
