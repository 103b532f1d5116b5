"""The typed events of AgentScope Java 2.x (``AgentEvent`` as Jackson writes it), and their
fast paths (see :mod:`msgcli.replayers.typed`).

The types hold the events of a run: its start, end and final message (``AGENT_RESULT``, its
message kept as written and checked against the message schema), model calls, text and
thinking blocks, tool calls and tool results, hints, the iteration limit, stop requests,
subagents exposed and ``CUSTOM``, each with the keys Jackson writes (``type`` twice: a
second one that differs from the first does not decode), each of the type the event schema
asks for. Any other event (the human-in-the-loop events, data blocks, a legacy type name,
the deprecated coarse ``Event``, an event with an unknown key) takes the whole way.

Each fast path applies its event as :meth:`JavaReplayer.apply` does when nothing about it
is reported, after checking that nothing is: its model call or tool result is open, its
block in the state the event expects, its event id new in the run, its ``createdAt`` an
``Instant`` as the schema reads it and not earlier than the latest before it, its final
message the one rebuilt.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Annotated, Any, Literal

import msgspec
from msgspec import Meta, Raw, Struct

from ...replayers.typed import FastPath, in_time, object_of
from ...textsafe import named
from .replay import (
    RESULT_GOES_ON,
    AgentStream,
    ModelCall,
    ToolResult,
    message_differences,
    new_tool,
    same_message,
    tool_key,
)

if TYPE_CHECKING:  # pragma: no cover
    from .replay import JavaReplayer

__all__ = ["EVENTS", "typed_events"]

_UNSET: Any = msgspec.UNSET


class _Event(Struct, tag_field="type", forbid_unknown_fields=True, gc=False):
    """The keys of every event."""

    id: str | None
    createdAt: str
    replyId: str | None = None
    source: str | None = None
    #: an object or null, kept as written (unset: the event has no ``metadata``)
    metadata: Raw = _UNSET


class AgentStart(_Event, tag="AGENT_START"):
    sessionId: str | None = None
    name: str | None = None
    role: str | None = None


class AgentEnd(_Event, tag="AGENT_END"):
    pass


class AgentResult(_Event, tag="AGENT_RESULT"):
    #: the run's final message (or null), kept as written
    result: Raw = _UNSET


class ModelCallStart(_Event, tag="MODEL_CALL_START"):
    pass


class ModelCallEnd(_Event, tag="MODEL_CALL_END"):
    #: a ``ChatUsage`` object or null, kept as written
    usage: Raw = _UNSET


class TextStart(_Event, tag="TEXT_BLOCK_START"):
    blockId: str | None = None


class TextDelta(_Event, tag="TEXT_BLOCK_DELTA"):
    blockId: str | None = None
    delta: str | None = None


class TextEnd(_Event, tag="TEXT_BLOCK_END"):
    blockId: str | None = None


class ThinkingStart(_Event, tag="THINKING_BLOCK_START"):
    blockId: str | None = None


class ThinkingDelta(_Event, tag="THINKING_BLOCK_DELTA"):
    blockId: str | None = None
    delta: str | None = None


class ThinkingEnd(_Event, tag="THINKING_BLOCK_END"):
    blockId: str | None = None


class CallStart(_Event, tag="TOOL_CALL_START"):
    toolCallId: str | None = None
    toolCallName: str | None = None


class CallDelta(_Event, tag="TOOL_CALL_DELTA"):
    toolCallId: str | None = None
    toolCallName: str | None = None
    delta: str | None = None


class CallEnd(_Event, tag="TOOL_CALL_END"):
    toolCallId: str | None = None
    toolCallName: str | None = None


class ResultStart(_Event, tag="TOOL_RESULT_START"):
    toolCallId: str | None = None
    toolCallName: str | None = None


class ResultText(_Event, tag="TOOL_RESULT_TEXT_DELTA"):
    toolCallId: str | None = None
    toolCallName: str | None = None
    delta: str | None = None


class ResultEnd(_Event, tag="TOOL_RESULT_END"):
    toolCallId: str | None = None
    toolCallName: str | None = None
    state: Literal["success", "error", "interrupted", "denied", "running", None] = None


#: a Java ``int`` (or null)
Int32 = Annotated[int, Meta(ge=-(2**31), le=2**31 - 1)]


class MaxIters(_Event, tag="EXCEED_MAX_ITERS"):
    maxIters: Int32 | None = None
    currentIter: Int32 | None = None


class Hint(_Event, tag="HINT_BLOCK"):
    blockId: str | None = None
    hintSource: str | None = None
    hint: str | None = None


class RequestStop(_Event, tag="REQUEST_STOP"):
    reason: str | None = None
    generateReason: (
        Literal[
            "MODEL_STOP",
            "TOOL_CALLS",
            "STRUCTURED_OUTPUT",
            "TOOL_SUSPENDED",
            "REASONING_STOP_REQUESTED",
            "ACTING_STOP_REQUESTED",
            "PERMISSION_ASKING",
            "MIDDLEWARE_STOP_REQUESTED",
            "ALL_TOOLS_DENIED",
            "INTERRUPTED",
            "MAX_ITERATIONS",
        ]
        | None
    ) = None


class SubagentExposed(_Event, tag="SUBAGENT_EXPOSED"):
    subagentId: str | None = None
    agentId: str | None = None
    sessionId: str | None = None
    label: str | None = None


class Custom(_Event, tag="CUSTOM"):
    name: str | None = None
    #: an object or null, kept as written
    value: Raw = _UNSET


#: every typed event
EVENTS = (
    AgentStart,
    AgentEnd,
    AgentResult,
    ModelCallStart,
    ModelCallEnd,
    TextStart,
    TextDelta,
    TextEnd,
    ThinkingStart,
    ThinkingDelta,
    ThinkingEnd,
    CallStart,
    CallDelta,
    CallEnd,
    ResultStart,
    ResultText,
    ResultEnd,
    MaxIters,
    Hint,
    RequestStop,
    SubagentExposed,
    Custom,
)

#: the digits of an ASCII text as 0, and the forms of an ``Instant`` the schema reads
_SHAPE = bytes.maketrans(b"0123456789", b"0000000000")
_INSTANTS = frozenset(
    {
        b"0000-00-00T00:00:00Z",
        b"0000-00-00T00:00:00.000Z",
        b"0000-00-00T00:00:00.000000Z",
        b"0000-00-00T00:00:00.000000000Z",
    }
)
_INT32 = (-(2**31), 2**31 - 1)


def is_instant(stamp: str) -> bool:
    """Whether ``stamp`` is an ``Instant`` as the event schema reads it (its pattern)."""
    return stamp.isascii() and stamp.encode().translate(_SHAPE) in _INSTANTS


def _metadata(raw: Any) -> tuple[bool, Any]:
    """``(fine, value)`` of an event's ``metadata`` held as written: an object or null."""
    if raw is _UNSET:
        return True, None
    text = bytes(raw)
    if text == b"null":
        return True, None
    value = object_of(text)
    return value is not None, value


def _usage(raw: Any) -> tuple[bool, Any]:
    """``(fine, value)`` of a model call's ``usage``: a ``ChatUsage`` object as the schema
    reads it, or null."""
    if raw is _UNSET:
        return True, None
    text = bytes(raw)
    if text == b"null":
        return True, None
    usage = object_of(text)
    if usage is None:
        return False, None
    low, high = _INT32
    for key in ("inputTokens", "outputTokens", "cachedTokens"):
        if key in usage:
            count = usage[key]
            if count is not None and (type(count) is not int or not low <= count <= high):
                return False, None
    if "time" in usage:
        time = usage["time"]
        if time is not None and type(time) is not int and type(time) is not float:
            return False, None
    return True, usage


def typed_message(typed: tuple[Any, Any], raw: Any) -> bool:
    """Whether the typed path of message validation takes a message held as written."""
    decode, digest = typed
    try:
        return digest(decode(raw)) is not None
    except (msgspec.ValidationError, msgspec.DecodeError, RecursionError):
        return False


_DECODE: Any = None

#: what a fast path does once the event's stream, id and time are known to be fine:
#: ``body(stream, event, line)`` checks what the event's handler in :class:`JavaReplayer`
#: would report and changes nothing (``False``), or calls ``before(stream, kind, cid)`` and
#: applies the event as the handler does (``True``)
Body = Callable[[AgentStream, Any, int], bool]


def typed_events(rp: JavaReplayer) -> tuple[Any, dict[type, FastPath]]:
    """``(decode, fast)`` for the replayer ``rp`` (see ``TypedReplay.typed_events``)."""
    global _DECODE
    if _DECODE is None:
        from typing import Union

        _DECODE = msgspec.json.Decoder(Union[EVENTS]).decode  # noqa: UP007
    streams = rp.streams
    stats = rp.stats
    by_type = stats.by_type
    #: the events of a stream are counted in their fast paths and added to ``by_type``
    #: when the loop ends (each kind's first one at once, so the kinds keep the order
    #: they came in)
    tallies: list[Callable[[], None]] = []
    rp.tallies = tallies

    def before(stream: AgentStream, kind: str, cid: Any) -> None:
        """What ``apply`` does before the event's handler: the hints waiting in the stream
        are written before its next event, and a tool result's tentative decision lasts
        only while that result goes on."""
        if stream.hints and kind != "HINT_BLOCK":
            rp._write_hints(stream)
        if rp.tentative:
            left = False
            for other in streams.values():
                held = other.held
                if held is not None and held.tentative is not None:
                    if other is stream and kind in RESULT_GOES_ON and cid == held.tentative:
                        left = True
                    else:
                        held.tentative = None
                        rp.settle = True
            rp.tentative = left

    def after() -> None:
        """What ``apply`` does after the event's handler: a held message whose calls are
        all decided is written."""
        for other in streams.values():
            held = other.held
            if held is not None and held.settled():
                rp._release(other)

    def in_stream(kind: str, body: Body) -> FastPath:
        """The fast path of an event of a stream: ``apply`` with nothing to report (its
        ``createdAt`` an ``Instant``, its stream known, its id new in the run, its time not
        earlier than the latest), then the event's own part."""

        uncounted = 0  # events of this kind not yet in by_type (see tally)
        seen = False

        def fast(event: Any, line: int) -> bool:
            nonlocal uncounted, seen
            stamp = event.createdAt
            if not (stamp.isascii() and stamp.encode().translate(_SHAPE) in _INSTANTS):
                return False
            stream = streams.get(event.source)
            if stream is None:
                return False
            eid = event.id
            if eid is not None and eid in stream.event_ids:
                return False
            key = stamp[:-1]
            last = rp._last_time
            if last is None or key >= last:
                rp.line = line
                rp.stamp = stamp
                if not body(stream, event, line):
                    return False
                if key != last:
                    rp._last_time = key
                    rp._last_seconds = None
                rp._last_time_line = line
            elif in_time(rp, key, last):
                rp.line = line
                rp.stamp = stamp
                if not body(stream, event, line):
                    return False
            else:
                return False
            if seen:
                uncounted += 1
            else:
                seen = True
                by_type[kind] += 1
            if eid is not None:
                stream.event_ids.add(eid)
            if rp.settle:
                # (a held message may have been decided by this event)
                rp.settle = False
                for other in streams.values():
                    held = other.held
                    if held is not None and held.settled():
                        rp._release(other)
            return True

        def count() -> None:
            nonlocal uncounted
            if uncounted:
                by_type[kind] += uncounted
                uncounted = 0

        tallies.append(count)
        return fast

    def agent_start(event: AgentStart, line: int) -> bool:
        stamp = event.createdAt
        if not is_instant(stamp):
            return False
        source = event.source
        stream = streams.get(source)
        eid = event.id
        if stream is not None and (
            stream.run is not None or (eid is not None and eid in stream.event_ids)
        ):
            return False  # E014, E007
        if not metadata_fine(event):
            return False
        key = stamp[:-1]
        last = rp._last_time
        if last is None or key >= last:
            if key != last:
                rp._last_time = key
                rp._last_seconds = None
            rp._last_time_line = line
        elif not in_time(rp, key, last):
            return False
        rp.line = line
        rp.stamp = stamp
        if stream is None:
            stream = streams[source] = AgentStream(source)
        by_type["AGENT_START"] += 1
        if stream.hints or rp.tentative:
            before(stream, "AGENT_START", None)
        if stream.held is not None and stream.held.paused is None:
            rp._release(stream)
        stream.run = event.replyId or ""
        stream.run_line = line
        stream.agent = event.name
        stream.ended_calls.clear()
        stream.tool_ids.clear()
        stream.event_ids = {eid} if eid is not None else set()
        stream.last_message = None
        stream.max_iters = False
        after()
        return True

    def metadata_fine(event: Any) -> bool:
        return event.metadata is _UNSET or _metadata(event.metadata)[0]

    def agent_end(stream: AgentStream, event: AgentEnd, line: int) -> bool:
        if stream.run is None or stream.calls or stream.results or not metadata_fine(event):
            return False  # E002, E015
        if stream.hints or rp.tentative:
            before(stream, "AGENT_END", None)
        stream.run = None
        if stream.held is not None and stream.held.paused is None:
            rp._release(stream)
        stats.completed += 1
        return True

    message_valid: Any = None
    message_typed: Any = None

    def agent_result(stream: AgentStream, event: AgentResult, line: int) -> bool:
        nonlocal message_valid, message_typed
        raw = event.result
        result = None
        if raw is not _UNSET and bytes(raw) != b"null":
            result = object_of(raw)
            if result is None:
                return False
            if message_valid is None:
                from ...schemas import compiled
                from .typed import typed_path

                message_valid = compiled("agentscope-java/message").is_valid
                message_typed = typed_path()
            # a message the typed path of validation takes is valid against the message
            # schema (tests/test_typed_path.py holds it so); any other is asked of the schema
            if not (typed_message(message_typed, raw) or message_valid(result)):
                return False
        if not metadata_fine(event):
            return False
        reason: Any = None
        if result is not None:
            metadata = result.get("metadata")
            reason = metadata.get("agentscope_generate_reason") if type(metadata) is dict else None
            reason = reason or "MODEL_STOP"
            if reason == "INTERRUPTED":
                return False  # (its model calls are finalised: E006 may be said)
            if reason != "TOOL_SUSPENDED":
                rebuilt = stream.last_message
                if rebuilt is None or not (
                    same_message(result, rebuilt) or not message_differences(result, rebuilt)
                ):
                    return False  # E011
        if stream.hints or rp.tentative:
            before(stream, "AGENT_RESULT", None)
        if result is not None:
            stats.finished_reasons[named(reason, 40)] += 1
        return True

    def model_start(stream: AgentStream, event: ModelCallStart, line: int) -> bool:
        rid = event.replyId
        rid = "" if rid is None else rid
        if rid in stream.calls or not metadata_fine(event):
            return False  # E003
        if stream.hints or rp.tentative:
            before(stream, "MODEL_CALL_START", None)
        rp._release(stream)
        stream.calls[rid] = ModelCall(rid, stream.agent, line, stream.max_iters)
        return True

    def model_end(stream: AgentStream, event: ModelCallEnd, line: int) -> bool:
        # (a model call's key is text: a null reply id finds none)
        call = stream.calls.get(event.replyId)  # type: ignore[arg-type]
        if call is None or call.open_text or call.open_thinking:
            return False  # E002, E015
        for tool in call.tools.values():
            if tool["open"]:
                return False  # E015
        # (arguments that are no JSON object are reported by _finalise, at the line where
        # their call ended, as on the whole way)
        fine, usage = _usage(event.usage)
        if not fine or not metadata_fine(event):
            return False
        if stream.hints or rp.tentative:
            before(stream, "MODEL_CALL_END", None)
        rp._finalise(stream, call, line, usage=usage)
        return True

    def text(kind: str, thinking: bool, part: str) -> Body:
        if part == "delta":

            def delta(stream: AgentStream, event: Any, line: int) -> bool:
                call = stream.calls.get(event.replyId)
                if call is None:
                    return False  # E001, E004
                if not (call.open_thinking if thinking else call.open_text):
                    return False  # E002
                if event.metadata is not _UNSET and not _metadata(event.metadata)[0]:
                    return False
                if stream.hints or rp.tentative:
                    before(stream, kind, None)
                text = event.delta
                if text is not None:
                    (call.thinking if thinking else call.text).append(text)
                return True

            return delta

        starts = part == "start"

        def bound(stream: AgentStream, event: Any, line: int) -> bool:
            call = stream.calls.get(event.replyId)
            if call is None:
                return False  # E001, E004
            opened = call.open_thinking if thinking else call.open_text
            if opened if starts else not opened:
                return False  # E003, E002
            if event.metadata is not _UNSET and not _metadata(event.metadata)[0]:
                return False
            if stream.hints or rp.tentative:
                before(stream, kind, None)
            opened = line if starts else 0
            if thinking:
                call.open_thinking = opened
            else:
                call.open_text = opened
            return True

        return bound

    def tool_call(kind: str) -> Body:
        starts = kind == "TOOL_CALL_START"
        ends = kind == "TOOL_CALL_END"

        def apply(stream: AgentStream, event: Any, line: int) -> bool:
            call = stream.calls.get(event.replyId)
            if call is None:
                return False  # E001, E004
            cid = event.toolCallId or ""
            name = event.toolCallName
            real, key = tool_key(call, cid, name)
            tools = call.tools
            tool = tools.get(key)
            if tool is None and not starts and (ends or (cid and real)):
                return False  # E002
            if event.metadata is not _UNSET and not _metadata(event.metadata)[0]:
                return False
            if stream.hints or rp.tentative:
                before(stream, kind, event.toolCallId)
            if tool is None:
                tool = tools[key] = new_tool(cid, name if real else None)
            elif real:
                tool["name"] = name
            call.last_tool = key
            if starts:
                tool["open"] = line
            elif ends:
                tool["open"] = 0
                tool["ended"] = line
            else:
                delta = event.delta
                if delta is not None:
                    tool["raw"].append(delta)
            return True

        return apply

    def result_start(stream: AgentStream, event: ResultStart, line: int) -> bool:
        cid = event.toolCallId
        cid = "" if cid is None else cid
        if cid in stream.results:
            return False  # E003
        if cid not in stream.tool_ids and not any(cid in p for p in rp.pending.values()):
            return False  # E005
        fine, metadata = _metadata(event.metadata)
        if not fine:
            return False
        if stream.hints or rp.tentative:
            before(stream, "TOOL_RESULT_START", event.toolCallId)
        result = ToolResult(event.replyId or "", cid, event.toolCallName, line, metadata)
        stream.results[cid] = result
        rp.settle = True
        held = stream.held
        if held is not None and cid in held.undecided:
            rp._decide(stream, cid, "allowed")
            held.tentative = cid
            rp.tentative = True
        return True

    def result_text(stream: AgentStream, event: ResultText, line: int) -> bool:
        cid = event.toolCallId
        result = None if cid is None else stream.results.get(cid)
        if result is None or not metadata_fine(event):
            return False  # E002
        if stream.hints or rp.tentative:
            before(stream, "TOOL_RESULT_TEXT_DELTA", cid)
        delta = event.delta
        if delta is not None:
            output = result.output
            if output and output[-1].get("type") == "text":
                output[-1]["text"] += delta
            else:
                output.append({"type": "text", "text": delta})
        return True

    def result_end(stream: AgentStream, event: ResultEnd, line: int) -> bool:
        cid = event.toolCallId
        result = None if cid is None else stream.results.get(cid)
        if result is None:
            return False  # E002
        fine, metadata = _metadata(event.metadata)
        if not fine:
            return False
        if stream.hints or rp.tentative:
            before(stream, "TOOL_RESULT_END", cid)
        if event.metadata is not _UNSET:
            result.metadata = metadata
        state = event.state
        held = stream.held
        rp.settle = True
        if held is not None and held.tentative == result.cid:
            held.tentative = None
            if state == "denied":
                for block in held.blocks(result.cid):
                    block["state"] = "pending"
        metadata = result.metadata
        if (
            state == "running"
            and type(metadata) is dict
            and metadata.get("agentscope_suspended") is True
        ):
            del stream.results[result.cid]
            if held is not None:
                held.suspending = True
        else:
            rp._tool_message(stream, result, state, line, None)
        return True

    def plain(kind: str) -> Body:
        """An event whose handler only notes what it says (or has none)."""

        def apply(stream: AgentStream, event: Any, line: int) -> bool:
            if not metadata_fine(event):
                return False
            if kind == "CUSTOM" and event.value is not _UNSET and not _metadata(event.value)[0]:
                return False
            if stream.hints or rp.tentative:
                before(stream, kind, None)
            if kind == "EXCEED_MAX_ITERS":
                stream.max_iters = True
            elif kind == "HINT_BLOCK":
                stream.hints.append(
                    {
                        "type": "hint",
                        "id": event.blockId,
                        "hint": event.hint,
                        "source": event.hintSource,
                    }
                )
            return True

        return apply

    fast: dict[type, FastPath] = {
        AgentStart: agent_start,
        AgentEnd: in_stream("AGENT_END", agent_end),
        AgentResult: in_stream("AGENT_RESULT", agent_result),
        ModelCallStart: in_stream("MODEL_CALL_START", model_start),
        ModelCallEnd: in_stream("MODEL_CALL_END", model_end),
        TextStart: in_stream("TEXT_BLOCK_START", text("TEXT_BLOCK_START", False, "start")),
        TextDelta: in_stream("TEXT_BLOCK_DELTA", text("TEXT_BLOCK_DELTA", False, "delta")),
        TextEnd: in_stream("TEXT_BLOCK_END", text("TEXT_BLOCK_END", False, "end")),
        ThinkingStart: in_stream(
            "THINKING_BLOCK_START", text("THINKING_BLOCK_START", True, "start")
        ),
        ThinkingDelta: in_stream(
            "THINKING_BLOCK_DELTA", text("THINKING_BLOCK_DELTA", True, "delta")
        ),
        ThinkingEnd: in_stream("THINKING_BLOCK_END", text("THINKING_BLOCK_END", True, "end")),
        CallStart: in_stream("TOOL_CALL_START", tool_call("TOOL_CALL_START")),
        CallDelta: in_stream("TOOL_CALL_DELTA", tool_call("TOOL_CALL_DELTA")),
        CallEnd: in_stream("TOOL_CALL_END", tool_call("TOOL_CALL_END")),
        ResultStart: in_stream("TOOL_RESULT_START", result_start),
        ResultText: in_stream("TOOL_RESULT_TEXT_DELTA", result_text),
        ResultEnd: in_stream("TOOL_RESULT_END", result_end),
        MaxIters: in_stream("EXCEED_MAX_ITERS", plain("EXCEED_MAX_ITERS")),
        Hint: in_stream("HINT_BLOCK", plain("HINT_BLOCK")),
        RequestStop: in_stream("REQUEST_STOP", plain("REQUEST_STOP")),
        SubagentExposed: in_stream("SUBAGENT_EXPOSED", plain("SUBAGENT_EXPOSED")),
        Custom: in_stream("CUSTOM", plain("CUSTOM")),
    }
    return _DECODE, fast
