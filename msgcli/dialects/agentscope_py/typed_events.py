"""The typed events of AgentScope Python 2.x replies, and their fast paths (see
:mod:`msgcli.replayers.typed`).

The types hold the events the framework writes most (``json.dumps(event.model_dump())``):
the reply, model-call, text, thinking, hint, tool-call and tool-result events and
``CUSTOM``, each with exactly the keys the framework writes, each of the type the event
schema asks for. Any other event (data blocks, the human-in-the-loop events, an event with
a key more or less, the AG-UI form, the 1.x streaming wrapper) takes the whole way.

Each fast path applies its event as :meth:`PyReplayer.apply` does when nothing about it is
reported, after checking that nothing is: its reply is open, its block or call started,
its event id is new in the reply, its time is not earlier than the latest before it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any, Literal

import msgspec
from msgspec import Meta, Raw, Struct

from ...replayers.typed import EMPTY_OBJECT, FastPath, in_time, object_of
from .replay import _USAGE_KEYS, _is_json_object

if TYPE_CHECKING:  # pragma: no cover
    from .replay import PyReplayer, _Reply

__all__ = ["EVENTS", "typed_events"]

#: a token count: an integer within 64 bits (the whole way reads any other form)
Count = Annotated[int, Meta(ge=-(2**63), le=2**63 - 1)]


class _Event(Struct, tag_field="type", forbid_unknown_fields=True, gc=False):
    """The keys of every event: its id, time and metadata (an object, kept as written)."""

    id: str
    created_at: str
    metadata: Raw


class _InReply(_Event):
    reply_id: str


class ReplyStart(_InReply, tag="REPLY_START"):
    session_id: str
    name: str
    role: Literal["user", "assistant", "system"] = "assistant"


class ReplyEnd(_InReply, tag="REPLY_END"):
    session_id: str
    finished_reason: Literal["completed", "interrupted", "exceed_max_iters", "error"] = "completed"
    #: an error object takes the whole way
    error: None = None


class ModelCallStart(_InReply, tag="MODEL_CALL_START"):
    model_name: str


class ModelCallEnd(_InReply, tag="MODEL_CALL_END"):
    input_tokens: Count
    output_tokens: Count
    cache_input_tokens: Count = 0
    cache_creation_input_tokens: Count = 0
    finished_reason: Literal["completed", "interrupted"] = "completed"


class TextStart(_InReply, tag="TEXT_BLOCK_START"):
    block_id: str


class TextDelta(_InReply, tag="TEXT_BLOCK_DELTA"):
    block_id: str
    delta: str


class TextEnd(_InReply, tag="TEXT_BLOCK_END"):
    block_id: str
    text: str | None = None


class ThinkingStart(_InReply, tag="THINKING_BLOCK_START"):
    block_id: str


class ThinkingDelta(_InReply, tag="THINKING_BLOCK_DELTA"):
    block_id: str
    delta: str


class ThinkingEnd(_InReply, tag="THINKING_BLOCK_END"):
    block_id: str


class Hint(_InReply, tag="HINT_BLOCK"):
    block_id: str
    #: a hint made of blocks takes the whole way
    hint: str
    source: str | None = None


class CallStart(_InReply, tag="TOOL_CALL_START"):
    tool_call_id: str
    tool_call_name: str


class CallDelta(_InReply, tag="TOOL_CALL_DELTA"):
    tool_call_id: str
    delta: str


class CallEnd(_InReply, tag="TOOL_CALL_END"):
    tool_call_id: str


class ResultStart(_InReply, tag="TOOL_RESULT_START"):
    tool_call_id: str
    tool_call_name: str


class ResultText(_InReply, tag="TOOL_RESULT_TEXT_DELTA"):
    tool_call_id: str
    delta: str


class ResultEnd(_InReply, tag="TOOL_RESULT_END"):
    tool_call_id: str
    state: Literal["success", "error", "interrupted", "denied", "running"]


class MaxIters(_InReply, tag="EXCEED_MAX_ITERS"):
    name: str


class Custom(_Event, tag="CUSTOM"):
    name: str
    value: Raw = msgspec.UNSET  # type: ignore[assignment]


#: every typed event
EVENTS = (
    ReplyStart,
    ReplyEnd,
    ModelCallStart,
    ModelCallEnd,
    TextStart,
    TextDelta,
    TextEnd,
    ThinkingStart,
    ThinkingDelta,
    ThinkingEnd,
    Hint,
    CallStart,
    CallDelta,
    CallEnd,
    ResultStart,
    ResultText,
    ResultEnd,
    MaxIters,
    Custom,
)

_DECODE: Any = None


def typed_events(rp: PyReplayer) -> tuple[Any, dict[type, FastPath]]:
    """``(decode, fast)`` for the replayer ``rp`` (see ``TypedReplay.typed_events``)."""
    global _DECODE
    if _DECODE is None:
        from typing import Union

        _DECODE = msgspec.json.Decoder(Union[EVENTS]).decode  # noqa: UP007
    replies = rp.replies
    ended = rp.ended
    stats = rp.stats
    by_type = stats.by_type
    write = rp.write

    def clock(event: Any, line: int) -> bool:
        """The time check of ``Replayer.check_time`` when it has nothing to say (the
        event is not earlier than the latest before it); ``False`` changes nothing."""
        stamp = event.created_at
        key = stamp[:-1] if stamp[-1:] == "Z" else stamp
        last = rp._last_time
        if last is None or key >= last:
            if key != last:
                rp._last_time = key
                rp._last_seconds = None
            rp._last_time_line = rp.line = line
        elif not in_time(rp, key, last):
            return False
        else:
            rp.line = line
        rp.stamp = stamp
        return True

    def open_reply(event: Any, line: int) -> _Reply | None:
        """The event's reply, when it is open, the event's id is new in it and its
        metadata an object (else ``None``: the event takes the whole way)."""
        reply = replies.get(event.reply_id)
        if reply is None or event.id in reply.event_ids:
            return None
        if bytes(event.metadata) != EMPTY_OBJECT and object_of(event.metadata) is None:
            return None
        return reply

    def judged(reply: _Reply) -> bool:
        """Whether the arguments of every call still to be judged are a JSON object (so
        ``_judge_arguments`` has nothing to report)."""
        calls = reply.calls
        for cid in reply.unchecked:
            block = calls.get(cid)
            if block is not None:
                text = block["input"]
                if text and type(text) is str and not _is_json_object(text):
                    return False
        return True

    def applied(reply: _Reply, event: Any, kind: str) -> None:
        reply.event_ids.add(event.id)
        reply.last_type = kind
        by_type[kind] += 1

    def reply_start(event: ReplyStart, line: int) -> bool:
        rid = event.reply_id
        reply = replies.get(rid)
        if reply is None:
            if rid in ended:
                return False
        elif not (reply.after_resume or reply.last_type in _PARKING):
            return False
        if bytes(event.metadata) != EMPTY_OBJECT and object_of(event.metadata) is None:
            return False
        if not clock(event, line):
            return False
        by_type["REPLY_START"] += 1
        if reply is None:
            rp._open(rid, event.name, {"created_at": event.created_at})
        else:  # a resume marker, after a confirmation or external-execution result
            reply.after_resume = False
            reply.last_type = "REPLY_START"
        return True

    def reply_end(event: ReplyEnd, line: int) -> bool:
        reply = open_reply(event, line)
        if reply is None or not judged(reply):
            return False
        reason = event.finished_reason
        if reason != "error" and (reply.open or reply.model_open):
            return False  # E015
        if not clock(event, line):
            return False
        applied(reply, event, "REPLY_END")
        reply.unchecked.clear()
        msg = reply.msg
        msg["finished_at"] = event.created_at
        msg["finished_reason"] = reason
        msg["error"] = None
        rid = msg["id"]
        del replies[rid]
        ended[rid] = line
        stats.completed += 1
        stats.finished_reasons[reason] += 1
        write(line, msg)
        return True

    def model_start(event: ModelCallStart, line: int) -> bool:
        reply = open_reply(event, line)
        if reply is None or reply.model_open or not clock(event, line):
            return False
        applied(reply, event, "MODEL_CALL_START")
        reply.model_open = line
        return True

    def model_end(event: ModelCallEnd, line: int) -> bool:
        reply = open_reply(event, line)
        if reply is None or not reply.model_open or not judged(reply):
            return False
        if not clock(event, line):
            return False
        applied(reply, event, "MODEL_CALL_END")
        reply.model_open = 0
        reply.unchecked.clear()
        counts = (
            event.input_tokens,
            event.output_tokens,
            event.cache_input_tokens,
            event.cache_creation_input_tokens,
        )
        msg = reply.msg
        usage = msg["usage"]
        if usage is None:
            msg["usage"] = dict(zip(_USAGE_KEYS, counts, strict=True))
        else:
            for key, value in zip(_USAGE_KEYS, counts, strict=True):
                usage[key] += value
        return True

    def block_start(kind: str, word: str, name: str) -> FastPath:
        def start(event: Any, line: int) -> bool:
            reply = open_reply(event, line)
            if reply is None:
                return False
            bid = event.block_id
            key = (word, bid)
            if key in reply.implicit or key in reply.open or not clock(event, line):
                return False
            applied(reply, event, kind)
            reply.open[key] = line
            block = {
                "type": word,
                name: "",
                "id": bid,
                "created_at": event.created_at,
                "finished_at": None,
            }
            reply.msg["content"].append(block)
            reply.blocks.setdefault(key, block)
            return True

        return start

    def block_delta(kind: str, word: str, name: str) -> FastPath:
        def delta(event: Any, line: int) -> bool:
            reply = open_reply(event, line)
            if reply is None:
                return False
            block = reply.blocks.get((word, event.block_id))
            if block is None or not clock(event, line):
                return False
            applied(reply, event, kind)
            block[name] += event.delta
            return True

        return delta

    def block_end(kind: str, word: str) -> FastPath:
        def end(event: Any, line: int) -> bool:
            reply = open_reply(event, line)
            if reply is None:
                return False
            key = (word, event.block_id)
            block = reply.blocks.get(key)
            if block is None or not clock(event, line):
                return False
            applied(reply, event, kind)
            reply.open.pop(key, None)
            if word == "text" and type(event.text) is str:
                block["text"] = event.text
            block["finished_at"] = event.created_at
            return True

        return end

    def hint(event: Hint, line: int) -> bool:
        reply = open_reply(event, line)
        if reply is None or not clock(event, line):
            return False
        applied(reply, event, "HINT_BLOCK")
        stamp = event.created_at
        reply.msg["content"].append(
            {
                "type": "hint",
                "hint": event.hint,
                "id": event.block_id,
                "source": event.source,
                "created_at": stamp,
                "finished_at": stamp,
            }
        )
        return True

    def call_start(event: CallStart, line: int) -> bool:
        reply = open_reply(event, line)
        if reply is None or not clock(event, line):
            return False
        applied(reply, event, "TOOL_CALL_START")
        cid = event.tool_call_id
        reply.open[("tool_call", cid)] = line
        block: dict[str, Any] = {
            "type": "tool_call",
            "id": cid,
            "name": event.tool_call_name,
            "input": "",
            "state": "pending",
            "suggested_rules": [],
            "created_at": event.created_at,
            "finished_at": None,
        }
        reply.msg["content"].append(block)
        reply.calls.setdefault(cid, block)
        return True

    def call_delta(event: CallDelta, line: int) -> bool:
        reply = open_reply(event, line)
        if reply is None:
            return False
        block = reply.calls.get(event.tool_call_id)
        if block is None or not clock(event, line):
            return False
        applied(reply, event, "TOOL_CALL_DELTA")
        block["input"] += event.delta
        return True

    def call_end(event: CallEnd, line: int) -> bool:
        reply = open_reply(event, line)
        if reply is None:
            return False
        cid = event.tool_call_id
        block = reply.calls.get(cid)
        if block is None or not clock(event, line):
            return False
        applied(reply, event, "TOOL_CALL_END")
        reply.open.pop(("tool_call", cid), None)
        block["finished_at"] = event.created_at
        reply.unchecked[cid] = line
        return True

    def result_start(event: ResultStart, line: int) -> bool:
        reply = open_reply(event, line)
        if reply is None:
            return False
        cid = event.tool_call_id
        key = ("tool_result", cid)
        if key in reply.implicit or key in reply.open or cid not in reply.calls:
            return False
        if not clock(event, line):
            return False
        applied(reply, event, "TOOL_RESULT_START")
        reply.open[key] = line
        block: dict[str, Any] = {
            "type": "tool_result",
            "id": cid,
            "name": event.tool_call_name,
            "output": [],
            "state": "running",
            "metadata": {},
            "created_at": event.created_at,
            "finished_at": None,
        }
        reply.msg["content"].append(block)
        reply.results.setdefault(cid, block)
        return True

    def result_text(event: ResultText, line: int) -> bool:
        reply = open_reply(event, line)
        if reply is None:
            return False
        block = reply.results.get(event.tool_call_id)
        if block is None:
            return False
        output = block["output"]
        if type(output) is not list or not clock(event, line):
            return False
        applied(reply, event, "TOOL_RESULT_TEXT_DELTA")
        if output and output[-1].get("type") == "text":
            output[-1]["text"] += event.delta
        else:
            output.append(
                {
                    "type": "text",
                    "text": event.delta,
                    "id": event.id,
                    "created_at": event.created_at,
                    "finished_at": None,
                }
            )
        return True

    def result_end(event: ResultEnd, line: int) -> bool:
        reply = replies.get(event.reply_id)
        if reply is None or event.id in reply.event_ids:
            return False
        metadata = object_of(event.metadata)
        if metadata is None:
            return False
        cid = event.tool_call_id
        block = reply.results.get(cid)
        if block is None or type(block["output"]) is not list or not clock(event, line):
            return False
        applied(reply, event, "TOOL_RESULT_END")
        reply.open.pop(("tool_result", cid), None)
        block["state"] = event.state
        block["metadata"] = metadata
        block["finished_at"] = event.created_at
        call = reply.calls.get(cid)
        if call is not None:
            call["state"] = "finished"
        return True

    def max_iters(event: MaxIters, line: int) -> bool:
        reply = open_reply(event, line)
        if reply is None or not clock(event, line):
            return False
        applied(reply, event, "EXCEED_MAX_ITERS")
        return True

    def custom(event: Custom, line: int) -> bool:
        # belongs to no reply; its value an object, if it has one
        if bytes(event.metadata) != EMPTY_OBJECT and object_of(event.metadata) is None:
            return False
        value = event.value
        if value is not msgspec.UNSET and object_of(value) is None:
            return False
        if not clock(event, line):
            return False
        by_type["CUSTOM"] += 1
        return True

    fast: dict[type, FastPath] = {
        ReplyStart: reply_start,
        ReplyEnd: reply_end,
        ModelCallStart: model_start,
        ModelCallEnd: model_end,
        TextStart: block_start("TEXT_BLOCK_START", "text", "text"),
        TextDelta: block_delta("TEXT_BLOCK_DELTA", "text", "text"),
        TextEnd: block_end("TEXT_BLOCK_END", "text"),
        ThinkingStart: block_start("THINKING_BLOCK_START", "thinking", "thinking"),
        ThinkingDelta: block_delta("THINKING_BLOCK_DELTA", "thinking", "thinking"),
        ThinkingEnd: block_end("THINKING_BLOCK_END", "thinking"),
        Hint: hint,
        CallStart: call_start,
        CallDelta: call_delta,
        CallEnd: call_end,
        ResultStart: result_start,
        ResultText: result_text,
        ResultEnd: result_end,
        MaxIters: max_iters,
        Custom: custom,
    }
    return _DECODE, fast


_PARKING = frozenset({"REQUIRE_USER_CONFIRM", "REQUIRE_EXTERNAL_EXECUTION"})
