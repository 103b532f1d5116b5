"""AgentScope Java 2.x: rebuild what the engine persists from its ``AgentEvent`` stream.

An agent run (``AGENT_START`` .. ``AGENT_END``) holds model calls and acting
phases, each with a reply id of its own. The engine persists:

- one ``ASSISTANT`` message per model call: ``[thinking][text][tool_use...]``,
  text and thinking deltas concatenated, tool-call argument fragments grouped
  by tool-call id (a fragment with an empty id or a ``__`` placeholder name
  belongs to the latest call) and parsed as a JSON object at the end. It is
  written at ``MODEL_CALL_END``;
- one ``TOOL`` message per tool result, written at its ``TOOL_RESULT_END``.

The engine edits a model call's ``tool_use`` states in memory after the call
(agentscope-ai/agentscope-java, agentscope-core/.../ReActAgent.java: ``actingStream``
2834-2895, ``updateToolCallStates`` 3889-3918, ``applyConfirmResults`` 1974-2006,
``runToolBatch`` 2924-2960, ``persistPendingRequestReplyId`` 1928-1937):
a call that runs (or is handed to the caller) becomes ``allowed``, one denied by
the permission rules stays ``pending``, one that waits for the user's
confirmation is ``asking`` (and the message gets the request's reply id in its
metadata until the resume). So a message with tool calls is held back until
its calls are decided, and the tool messages after it wait behind it.

``AGENT_RESULT`` carries the run's final message: it is compared with the
last message rebuilt from the events.

The events do not carry the message ids (the provider's response id) nor the
wall-clock time the engine stamps: a rebuilt assistant message takes its
model call's reply id, a tool message ``<reply id>:<tool call id>``, and both
the time of the event that completed them (UTC). Events of a forwarded
subagent (``source``) are replayed as a stream of their own.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from datetime import UTC
from typing import Any

import orjson

from ...guard import as_key
from ...replayers import Emit, Replayer, Sink, listed, mark
from ...replayers.typed import TypedReplay
from ...schemas import load_schema, type_branches
from ...textsafe import named, short
from .events import EVENT_ALIASES as ALIASES

__all__ = ["ALIASES", "EVENT_TYPES", "JavaReplayer", "java_timestamp"]

#: the event types the dialect's event schema names; any other is skipped (E009)
EVENT_TYPES = frozenset(type_branches(load_schema("agentscope-java/event")) or ())


def java_timestamp(instant: Any, zone: Any = None) -> Any:
    """``2026-08-22T15:15:55.901234Z`` -> ``2026-08-22 15:15:55.901`` (Msg.timestamp's form),
    in UTC, or in ``zone`` (a ``tzinfo``) as the engine writes it: the JVM's local time."""
    if type(instant) is not str or len(instant) < 19:
        return None
    if zone is not None:
        instant = _in_zone(instant, zone)
        if instant is None:
            return None
    day, _, time = instant.rstrip("Z").partition("T")
    whole, _, fraction = time.partition(".")
    return f"{day} {whole}.{(fraction + '000')[:3]}"


def _in_zone(instant: str, zone: Any) -> str | None:
    """An ``Instant.toString()`` text as the local time of ``zone`` (same form, no ``Z``)."""
    from datetime import datetime

    head, _dot, fraction = instant.rstrip("Z").partition(".")
    try:
        moment = datetime.fromisoformat(head).replace(tzinfo=UTC)
    except ValueError:
        return None
    local = moment.astimezone(zone).replace(tzinfo=None).isoformat()
    return f"{local}.{fraction}" if fraction else local


class ModelCall:
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


class ToolResult:
    __slots__ = ("cid", "line", "metadata", "name", "output", "rid")

    def __init__(self, rid: str, cid: str, name: Any, line: int, metadata: Any):
        self.rid = rid
        self.cid = cid
        self.name = name
        self.line = line
        self.output: list[dict] = []
        self.metadata = metadata


class AgentStream:
    """One agent's events: the main agent's, or one forwarded subagent's (``source``)."""

    __slots__ = (
        "agent",
        "calls",
        "ended_calls",
        "event_ids",
        "held",
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
        self.calls: dict[str, ModelCall] = {}
        self.ended_calls: dict[str, int] = {}  # model calls of this run that ended -> line
        self.results: dict[str, ToolResult] = {}  # open tool results by tool-call id
        self.tool_ids: set[str] = set()  # tool calls made in this run
        self.last_message: dict | None = None
        self.last_line = 0
        self.hints: list[dict] = []  # HINT_BLOCKs waiting for the next event of this stream
        self.max_iters = False
        self.event_ids: set[str] = set()
        self.held: _Held | None = None  # a message whose tool-call states are not decided


class _Held:
    """An assistant message with tool calls, held until the engine's edits of their states
    are known, and the messages completed after it (written once it is)."""

    __slots__ = ("line", "message", "paused", "queue", "suspending", "tentative", "undecided")

    def __init__(self, line: int, message: dict) -> None:
        self.line = line
        self.message = message
        self.queue: list[tuple[int, dict]] = []
        self.undecided = {
            b["id"]: b
            for b in message["content"]
            if type(b) is dict and b.get("type") == "tool_use"
        }
        self.paused: str | None = None  # metadata key of a pending confirmation or execution
        # the call whose result just started: "allowed", unless its result ends "denied" next
        self.tentative: Any = None
        self.suspending = False  # a result was handed to the caller: a request follows

    def settled(self) -> bool:
        return not (self.undecided or self.paused or self.suspending) and self.tentative is None

    def blocks(self, cid: Any) -> list[dict]:
        return [
            b
            for b in self.message["content"]
            if type(b) is dict and b.get("type") == "tool_use" and b.get("id") == cid
        ]


class JavaReplayer(TypedReplay, Replayer):
    known_types = EVENT_TYPES
    time_key = "createdAt"
    id_keys = ("replyId", "blockId", "toolCallId")
    typed = "msgcli.dialects.agentscope_java.typed_events:typed_events"

    def __init__(self, emit: Emit, sink: Sink | None = None, zone: Any = None) -> None:
        super().__init__(emit, sink)
        self.zone = zone  # the zone the rebuilt messages' times are written in (None: UTC)
        self.streams: dict[Any, AgentStream] = {}
        # the deprecated coarse stream: (message id, chunks) of the reply being streamed
        self.chunks: dict[Any, tuple[Any, list[dict]]] = {}
        # REQUIRE_* reply id -> {tool-call id: tool_use block}, waiting for a *_RESULT
        self.pending: dict[str, dict[str, dict]] = {}
        #: whether a held message may have a tentative decision (``_Held.tentative``)
        self.tentative = False
        #: whether a held message may have been decided since the typed loop last looked
        #: (see :mod:`.typed_events`): after any event the whole way
        self.settle = True

    def feed(self, line: int, event: dict, valid: bool = True) -> None:
        self.settle = True
        if "isLast" in event and "createdAt" not in event:
            self.line = line
            self.stats.events += 1
            kind = event.get("type")
            if type(kind) is str and kind in LEGACY_TYPES:
                self.stats.by_type[kind] += 1
                self._legacy(kind, event)
            elif type(kind) is str and valid:
                self.stats.unknown[kind] += 1
                self.emit("E009", f"unknown event type {short(kind)}: skipped", "/type")
            return
        super().feed(line, event, valid)

    # -- the event loop --------------------------------------------------------

    def apply(self, kind: str, event: dict) -> None:
        source = event.get("source")
        if type(source) is not str:
            source = None
        stream = self.streams.get(source)
        if stream is None:
            stream = self.streams[source] = AgentStream(source)
        if stream.hints and kind != "HINT_BLOCK":
            self._write_hints(stream)
        self.note_event_id(stream.event_ids, event, "run")
        for other in self.streams.values():
            held = other.held
            # a denied call's result is START, its text, END "denied", one after the other
            if (
                held is not None
                and held.tentative is not None
                and not (
                    other is stream
                    and kind in RESULT_GOES_ON
                    and event.get("toolCallId") == held.tentative
                )
            ):
                held.tentative = None
        handler = _HANDLERS.get(kind)
        if handler is not None:
            handler(self, stream, event)
        for other in list(self.streams.values()):
            if other.held is not None and other.held.settled():
                # every call is decided: written now, in the order the engine's context has
                self._release(other)

    def finish(self, line: int, cut: bool = False) -> None:
        for key in list(self.chunks):
            self._legacy_flush(key, line)
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
            self._release(stream)
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
            if stream.held is not None:
                out.append(stream.held.message)
                out += [message for _line, message in stream.held.queue]
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
            "timestamp": java_timestamp(self.stamp, self.zone),
            "usage": usage,
        }

    def _tool_result_message(
        self, stream: AgentStream, result: ToolResult, state: Any, metadata: dict
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

    def _put(self, stream: AgentStream, line: int, message: dict) -> None:
        """Write a message of this stream, behind the message held back (if any)."""
        held = stream.held
        if held is not None:
            held.queue.append((line, message))
        else:
            self.write(line, message)

    def _release(self, stream: AgentStream) -> None:
        """Write the held message as its tool calls now stand, and what waited behind it."""
        held = stream.held
        if held is None:
            return
        stream.held = None
        self.write(held.line, held.message)
        for line, message in held.queue:
            self.write(line, message)

    def _decide(self, stream: AgentStream, cid: Any, state: str) -> None:
        """A tool call of the held message was decided (``updateToolCallStates``)."""
        held = stream.held
        if held is None:
            return
        for block in held.blocks(cid):
            block["state"] = state
        held.undecided.pop(cid, None)

    def _pause(self, stream: AgentStream, key: str, rid: Any) -> None:
        """``persistPendingRequestReplyId``: the paused request's reply id is kept in the
        metadata of the message that holds its calls, until the resume."""
        held = stream.held
        if held is None:
            return
        metadata = held.message.get("metadata")
        metadata = dict(metadata) if type(metadata) is dict else {}
        metadata[key] = rid
        held.message["metadata"] = java_hash_order(metadata)  # a new HashMap
        held.paused = key

    def _unpause(self, stream: AgentStream, key: str) -> _Held | None:
        """``clearPendingRequestReplyId``: the resume was accepted."""
        held = stream.held
        if held is None or held.paused != key:
            return None
        metadata = held.message.get("metadata")
        if type(metadata) is dict:
            metadata.pop(key, None)
        held.paused = None
        return held

    # -- runs ------------------------------------------------------------------

    def _agent_start(self, stream: AgentStream, event: dict) -> None:
        if stream.run is not None:
            self._close_run(stream, "a new AGENT_START")
        if stream.held is not None and stream.held.paused is None:
            self._release(stream)
        stream.run = event.get("replyId") or ""
        stream.run_line = self.line
        stream.agent = event.get("name")
        stream.ended_calls.clear()
        stream.tool_ids.clear()
        stream.event_ids = {event["id"]} if type(event.get("id")) is str else set()
        stream.last_message = None
        stream.max_iters = False

    def _close_run(self, stream: AgentStream, why: str) -> None:
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

    def _agent_end(self, stream: AgentStream, event: dict) -> None:
        if stream.run is None:
            self.emit("E002", "AGENT_END without an AGENT_START")
            return
        self._close_run(stream, "AGENT_END")
        stream.run = None
        if stream.held is not None and stream.held.paused is None:
            self._release(stream)
        self.stats.completed += 1

    def _agent_result(self, stream: AgentStream, event: dict) -> None:
        result = event.get("result")
        if type(result) is not dict:
            return
        metadata = result.get("metadata")
        reason = metadata.get("agentscope_generate_reason") if type(metadata) is dict else None
        # how the run ended (no generate reason: the model stopped)
        reason = reason or "MODEL_STOP"
        self.stats.finished_reasons[named(reason, 40)] += 1
        if reason == "INTERRUPTED":
            # the engine keeps the interrupted model call as it stands, and adds a recovery
            # message that no other event carries: write both
            for call in list(stream.calls.values()):
                self._finalise(stream, call, self.line)
            self._release(stream)
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
        differences = message_differences(result, rebuilt)
        if differences:
            shown = "; ".join(differences[:3]) + ("; ..." if len(differences) > 3 else "")
            self.emit(
                "E011",
                "AGENT_RESULT differs from the message rebuilt from this run's events "
                f"(completed on line {stream.last_line}): {shown}",
                "/result",
            )

    # -- model calls -------------------------------------------------------------

    def _call(self, stream: AgentStream, event: dict) -> ModelCall | None:
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

    def _model_start(self, stream: AgentStream, event: dict, quiet: bool = False) -> ModelCall:
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
        self._release(stream)
        call = ModelCall(rid, stream.agent, self.line, stream.max_iters)
        stream.calls[rid] = call
        return call

    def _model_end(self, stream: AgentStream, event: dict) -> None:
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
        stream: AgentStream,
        call: ModelCall,
        line: int,
        usage: Any = None,
        mark_as: tuple[str, list[str]] | None = None,
    ) -> None:
        rid = call.rid
        del stream.calls[rid]
        stream.ended_calls[rid] = line
        tools = call.tools
        unparsed: set[str] = set()  # the calls whose argument text is no JSON object
        content = _content(call, cut=mark_as is not None, unparsed=unparsed)
        if tools:
            tool_ids = stream.tool_ids
            for key, tool in tools.items():
                if unparsed and key in unparsed and not tool["open"]:
                    raw = "".join(tool["raw"])
                    self.emit(
                        "E006",
                        f"the arguments of tool call {short(tool['id'] or key)} "
                        f"({short(tool['name'])}) are not a JSON object: {short(raw, 80)}; "
                        "the engine keeps '{}'",
                        "/toolCallId",
                        line=tool["ended"] or line,
                    )
                if tool["id"]:
                    tool_ids.add(tool["id"])
        if not content and mark_as is None:
            return  # the engine persists no message without blocks
        metadata: dict = {}
        if type(usage) is dict and _any_positive(usage):
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
        if stream.held is not None:
            self._release(stream)
        # (a tool_use block in the content for each of the call's tools)
        if mark_as is None and tools:
            stream.held = _Held(line, message)
        else:
            self.write(line, message)

    # -- blocks ------------------------------------------------------------------

    def _text(self, stream: AgentStream, event: dict) -> None:
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

    def _tool_call(self, stream: AgentStream, event: dict) -> None:
        call = self._call(stream, event)
        if call is None:
            return
        kind = event["type"]
        cid = event.get("toolCallId") or ""
        name = event.get("toolCallName")
        real, key = tool_key(call, cid, name)
        tool = call.tools.get(key)
        if kind == "TOOL_CALL_START":
            if tool is None:
                tool = call.tools[key] = new_tool(cid, name if real else None)
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
            tool = call.tools[key] = new_tool(cid, name if real else None)
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

    def _result_start(self, stream: AgentStream, event: dict) -> ToolResult:
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
        result = ToolResult(
            event.get("replyId") or "",
            cid,
            event.get("toolCallName"),
            self.line,
            event.get("metadata"),
        )
        stream.results[cid] = result
        # the call was let through (or handed to the caller): ALLOWED (actingStream)
        if stream.held is not None and cid in stream.held.undecided:
            self._decide(stream, cid, "allowed")
            stream.held.tentative = cid
            self.tentative = True
        return result

    def _tool_result(self, stream: AgentStream, event: dict) -> None:
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
            held = stream.held
            if held is not None and held.tentative == result.cid:
                held.tentative = None
                if event.get("state") == "denied":
                    # runToolBatch's result for a call the permission rules deny: the call
                    # itself gets no state update, it stays "pending"
                    for block in held.blocks(result.cid):
                        block["state"] = "pending"
            metadata = result.metadata
            if (
                event.get("state") == "running"
                and type(metadata) is dict
                and metadata.get("agentscope_suspended") is True
            ):
                # left to the caller to run: the engine stores no message for it; the
                # result comes back in EXTERNAL_EXECUTION_RESULT
                del stream.results[result.cid]
                if held is not None:
                    held.suspending = True  # REQUIRE_EXTERNAL_EXECUTION follows
                return
            self._tool_message(stream, result, event.get("state"), self.line, None)

    def _tool_message(
        self, stream: AgentStream, result: ToolResult, state: Any, line: int, mark_as: str | None
    ) -> None:
        del stream.results[result.cid]
        metadata: dict = {}
        if mark_as is not None:
            mark(metadata, mark_as, [f"result of tool call {result.cid}"], line)
        self._put(stream, line, self._tool_result_message(stream, result, state, metadata))

    # -- human in the loop ---------------------------------------------------------

    def _require(self, stream: AgentStream, event: dict) -> None:
        rid = event.get("replyId")
        calls = {}
        for call in listed(event.get("toolCalls")):
            if type(call) is dict and type(call.get("id")) is str:
                calls[call["id"]] = call
        if type(rid) is str:
            self.pending[rid] = calls
        held = stream.held
        if held is None:
            return
        if event["type"] == "REQUIRE_USER_CONFIRM":
            # actingStream: the calls waiting for the user are ASKING, every other call of
            # the batch ALLOWED (a call the rules deny on this path stays "pending", but it
            # leaves no event to tell it by)
            for cid in calls:
                self._decide(stream, cid, "asking")
            for cid in list(held.undecided):
                self._decide(stream, cid, "allowed")
            self._pause(stream, "agentscope_confirm_request_reply_id", rid)
        else:
            held.suspending = False
            self._pause(stream, "agentscope_external_execution_request_reply_id", rid)

    def _resume(self, stream: AgentStream, event: dict) -> None:
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
            held = self._unpause(stream, "agentscope_confirm_request_reply_id")
            for item in listed(event.get("confirmResults")):
                use = item.get("toolCall") if type(item) is dict else None
                if type(use) is not dict or type(use.get("id")) is not str:
                    continue
                cid = use["id"]
                stream.tool_ids.add(cid)
                if item.get("confirmed") is True and held is not None:
                    # applyConfirmResults: the call is replaced by the one the user
                    # confirmed (edited arguments included), state ALLOWED; a declined
                    # call keeps its state ("asking")
                    content = held.message["content"]
                    for i, block in enumerate(content):
                        if block.get("type") == "tool_use" and block.get("id") == cid:
                            content[i] = {**use, "state": "allowed"}
                    held.undecided.pop(cid, None)
                if item.get("confirmed") is not True:
                    # a declined call: the engine stores a denial, with no event of its own
                    result = ToolResult(rid or "", cid, use.get("name"), self.line, {})
                    result.output = [{"type": "text", "text": "Permission denied by user"}]
                    stream.results[cid] = result
                    self._tool_message(stream, result, "denied", self.line, None)
            return
        self._unpause(stream, "agentscope_external_execution_request_reply_id")
        # the caller's own message with the results is what the engine stores
        results = [b for b in listed(event.get("toolResults")) if type(b) is dict]
        for block in results:
            if type(block.get("id")) is str:
                stream.tool_ids.add(block["id"])
        mid = f"{rid}:results" if type(rid) is str else None
        self._put(stream, self.line, self._message(mid, None, "TOOL", results))

    def _hint(self, stream: AgentStream, event: dict) -> None:
        stream.hints.append(
            {
                "type": "hint",
                "id": event.get("blockId"),
                "hint": event.get("hint"),
                "source": event.get("hintSource"),
            }
        )

    def _write_hints(self, stream: AgentStream) -> None:
        """The engine stores hints before the next model call, as an assistant message of
        their own (or added to this agent's last message, which a stream cannot change
        once written: then they are a message of their own here too)."""
        hints, stream.hints = stream.hints, []
        self._put(
            stream, self.line, self._message(hints[0]["id"], stream.agent, "ASSISTANT", hints)
        )

    def _max_iters(self, stream: AgentStream, event: dict) -> None:
        stream.max_iters = True

    # -- the deprecated coarse stream ----------------------------------------------

    def _legacy(self, kind: str, event: dict) -> None:
        """One event of the deprecated coarse stream (``io.agentscope.core.agent.Event``, made
        by ``StreamingHook``, agentscope-core/.../agent/StreamingHook.java:69-160): a message
        snapshot. REASONING and SUMMARY come as chunks
        (``isLast`` false: the pieces of one reply, tool calls as argument fragments) and then,
        unless the stream was asked to leave it out, the whole message (``isLast`` true,
        ``PostReasoningEvent``): that is the message the engine keeps. TOOL_RESULT with
        ``isLast`` true is a tool's result, in a message made for the stream (named
        ``"system"``, ``StreamingHook.createToolMessage``); the engine stores the result under
        the agent's name. AGENT_RESULT repeats the run's last message."""
        key = _legacy_source(event)
        stream = self.streams.get(key)
        if stream is None:
            stream = self.streams[key] = AgentStream(key)
        message = event.get("message")
        if type(message) is not dict:
            return
        last = event.get("isLast") is True
        mid = message.get("id")
        if kind in ("REASONING", "SUMMARY"):
            open_ = self.chunks.get(key)
            if open_ is not None and open_[0] != mid:
                self._legacy_flush(key, self.line)  # a reply whose whole message never came
            if not last:
                self.chunks.setdefault(key, (mid, []))[1].append(message)
                return
            self.chunks.pop(key, None)
            self._legacy_message(stream, dict(message))
            return
        self._legacy_flush(key, self.line)
        if kind == "TOOL_RESULT":
            if not last:
                return  # a piece of a streaming tool's output: the whole result follows
            stored = dict(message)
            if stored.get("name") == "system" and stream.agent is not None:
                stored["name"] = stream.agent  # ToolResultMessageBuilder: the agent's name
            held = stream.held
            for block in listed(stored.get("content")):
                # (a result whose id is no text decides no call)
                if (
                    type(block) is dict
                    and block.get("type") == "tool_result"
                    and held is not None
                    and type(block.get("id")) is str
                ):
                    cid = block["id"]
                    state = "pending" if block.get("state") == "denied" else "allowed"
                    for use in held.blocks(cid):
                        use["state"] = state
                    held.undecided.pop(cid, None)
            self._put(stream, self.line, stored)
            if stream.held is not None and stream.held.settled():
                self._release(stream)
            return
        if kind == "AGENT_RESULT":
            held = stream.held
            if held is not None and held.message.get("id") == mid:
                # a paused run: its last message as the engine holds it (calls "asking", the
                # request's reply id in metadata)
                states = {
                    b["id"]: b.get("state")
                    for b in listed(message.get("content"))
                    if type(b) is dict and b.get("type") == "tool_use" and type(b.get("id")) is str
                }
                for block in held.message["content"]:
                    if (
                        type(block) is dict
                        and block.get("type") == "tool_use"
                        and block.get("id") in states
                    ):
                        block["state"] = states[block["id"]]
                        held.undecided.pop(block["id"], None)
                metadata = message.get("metadata")
                for pause in _PAUSE_KEYS:
                    if type(metadata) is dict and pause in metadata:
                        self._pause(stream, pause, metadata[pause])
            self.stats.finished_reasons[str(_reason(message) or "MODEL_STOP")] += 1
            self.stats.completed += 1
            return
        self._legacy_message(stream, dict(message))  # HINT

    def _legacy_message(self, stream: AgentStream, message: dict) -> None:
        """A whole message of the coarse stream: written, or held while its calls are open."""
        self._release(stream)
        if message.get("role") == "ASSISTANT" and message.get("name") is not None:
            stream.agent = message.get("name")
        content = message.get("content")
        calls = (
            [b for b in content if type(b) is dict and b.get("type") == "tool_use"]
            if type(content) is list
            else []
        )
        if calls and type(content) is list and all(type(b.get("id")) is str for b in calls):
            message["content"] = [dict(b) if type(b) is dict else b for b in content]
            stream.held = _Held(self.line, message)
        else:
            self.write(self.line, message)
        stream.last_message = message
        stream.last_line = self.line

    def _legacy_flush(self, key: Any, line: int) -> None:
        """The chunks of a reply whose whole message never came, put together as the engine's
        accumulator does (text and thinking joined, tool-call fragments joined per call)."""
        open_ = self.chunks.pop(key, None)
        if open_ is None:
            return
        mid, chunks = open_
        first = chunks[0]
        thinking: list[str] = []
        text: list[str] = []
        tools: dict[Any, dict] = {}
        last_tool: Any = None
        for chunk in chunks:
            for block in listed(chunk.get("content")):
                if type(block) is not dict:
                    continue
                kind = block.get("type")
                if kind == "thinking" and type(block.get("thinking")) is str:
                    thinking.append(block["thinking"])
                elif kind == "text" and type(block.get("text")) is str:
                    text.append(block["text"])
                elif kind == "tool_use":
                    cid = block.get("id") or last_tool
                    # (an id may be a list or an object: the call is kept under its JSON text)
                    tool = tools.setdefault(as_key(cid), {"id": cid, "name": None, "raw": []})
                    name = block.get("name")
                    if type(name) is str and not name.startswith("__"):
                        tool["name"] = name
                    if type(block.get("content")) is str:
                        tool["raw"].append(block["content"])
                    last_tool = cid
        content: list[dict] = []
        if thinking:
            content.append({"type": "thinking", "thinking": "".join(thinking), "metadata": None})
        if text:
            content.append({"type": "text", "text": "".join(text)})
        for tool in tools.values():
            raw = "".join(tool["raw"])
            parsed = _parse_object(raw)
            content.append(
                {
                    "type": "tool_use",
                    "id": tool["id"],
                    "name": tool["name"],
                    "input": parsed or {},
                    "content": raw if parsed is not None else "{}",
                    "metadata": {},
                    "state": "pending",
                }
            )
        message = {**first, "id": mid, "content": content}
        stream = self.streams.get(key)
        if stream is None:
            stream = self.streams[key] = AgentStream(key)
        saved, self.line = self.line, line
        self._legacy_message(stream, message)
        self.line = saved


#: the types of the deprecated coarse ``Event`` (``io.agentscope.core.agent.EventType``)
LEGACY_TYPES = frozenset({"REASONING", "TOOL_RESULT", "HINT", "AGENT_RESULT", "SUMMARY"})


def _legacy_source(event: dict) -> Any:
    source = event.get("source")
    if type(source) is dict:
        path = source.get("path")
        return path if type(path) is str else orjson.dumps(source, option=orjson.OPT_SORT_KEYS)
    return None


_PAUSE_KEYS = (
    "agentscope_confirm_request_reply_id",
    "agentscope_external_execution_request_reply_id",
)


def _reason(message: dict) -> Any:
    metadata = message.get("metadata")
    return metadata.get("agentscope_generate_reason") if type(metadata) is dict else None


def _of(stream: AgentStream) -> str:
    return f" (subagent {short(stream.source)})" if stream.source is not None else ""


def _content(call: ModelCall, cut: bool = True, unparsed: set[str] | None = None) -> list[dict]:
    """A model call's blocks as the engine builds them: [thinking][text][tool_use...].
    ``unparsed`` gets the keys of the calls whose argument text is there but no JSON
    object."""
    content: list[dict] = []
    thinking = "".join(call.thinking)
    if thinking:
        content.append({"type": "thinking", "thinking": thinking, "metadata": None})
    text = "".join(call.text)
    if text:
        content.append({"type": "text", "text": text})
    for key, tool in call.tools.items():
        raw = "".join(tool["raw"])
        parsed = _parse_object(raw) if raw else None
        if unparsed is not None and raw and parsed is None:
            unparsed.add(key)
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


def tool_key(call: ModelCall, cid: str, name: Any) -> tuple[bool, str]:
    """``(real, key)`` of a tool-call event in ``call``: whether it names a real tool (not a
    ``__`` placeholder fragment), and the key its tool is kept under (its id, else its name,
    else the tool the call's last event was about)."""
    real = type(name) is str and not name.startswith("__")
    if cid:
        return real, cid
    if real:
        return real, f"name:{name}"
    if call.last_tool is not None:
        return real, call.last_tool
    return real, "index:0"


def new_tool(cid: str, name: Any) -> dict:
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
    keys = tuple(obj)
    order = _ORDERS.get(keys)
    if order is None:
        size = 16
        while len(obj) > size * 0.75:
            size *= 2
        order = tuple(sorted(keys, key=lambda k: _java_bucket(k, size)))
        # (the same argument names come again and again: their order is kept, for a
        # bounded number of short key sets)
        if sum(len(str(key)) for key in keys) <= 1024:
            if len(_ORDERS) >= 4096:
                _ORDERS.clear()
            _ORDERS[keys] = order
    return {key: obj[key] for key in order}


#: the HashMap order of key sets seen (keys in insertion order -> in hash order)
_ORDERS: dict[tuple, tuple] = {}


def _java_bucket(key: Any, size: int) -> int:
    text = str(key)
    # (the names of tool arguments and metadata keys repeat: a short one is hashed once)
    spread = _spread(text) if len(text) <= 64 else _spread.__wrapped__(text)
    return spread & (size - 1)


@functools.lru_cache(maxsize=4096)
def _spread(text: str) -> int:
    """``String.hashCode`` of ``text``, spread as ``HashMap`` does."""
    data = text.encode("utf-16-be", "surrogatepass")
    h = 0
    for i in range(0, len(data), 2):
        h = (31 * h + (data[i] << 8 | data[i + 1])) & 0xFFFFFFFF
    return h ^ (h >> 16)


def _positive(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and value > 0


def _any_positive(usage: dict) -> bool:
    """Whether a ``ChatUsage`` counts anything (a token count or time above zero)."""
    for key in ("inputTokens", "outputTokens", "cachedTokens", "time"):
        value = usage.get(key)
        if value is not None and _positive(value):
            return True
    return False


def _parse_object(raw: str) -> dict | None:
    if not raw:
        return None
    try:
        value = orjson.loads(raw)
    except orjson.JSONDecodeError:
        return None
    return value if type(value) is dict else None


def message_differences(reported: dict, rebuilt: dict) -> list[str]:
    """Where the content of two messages differs: their text, thinking and tool calls (id,
    name, arguments), in order. States, metadata, usage, ids and times are left out: the
    engine edits them after the model call (calls become ``allowed`` or ``asking``, pause
    metadata is added), and the events do not carry ids and times."""
    out: list[str] = []
    _diff(_essence(reported), _essence(rebuilt), "/content", out)
    if reported.get("name") != rebuilt.get("name"):
        _diff(reported.get("name"), rebuilt.get("name"), "/name", out)
    return out


def same_message(reported: dict, rebuilt: dict) -> bool:
    """Whether two messages have the same content as :func:`message_differences` compares
    it, with their values of the same JSON types (so it finds no difference); ``False``
    says nothing (they may still not differ there)."""
    name = reported.get("name")
    other = rebuilt.get("name")
    if name != other or type(name) is not type(other):
        return False
    try:
        return _sorted_json(_essence(reported)) == _sorted_json(_essence(rebuilt))
    except TypeError:  # (nested deeper than orjson writes)
        return False


def _sorted_json(value: Any) -> bytes:
    return orjson.dumps(value, option=orjson.OPT_SORT_KEYS)


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


#: the events that continue a tool result
RESULT_GOES_ON = frozenset({"TOOL_RESULT_TEXT_DELTA", "TOOL_RESULT_DATA_DELTA", "TOOL_RESULT_END"})

_HANDLERS: dict[str, Callable[[JavaReplayer, AgentStream, dict], object]] = {
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
