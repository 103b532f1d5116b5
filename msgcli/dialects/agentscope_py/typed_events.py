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

from collections.abc import Callable
from typing import TYPE_CHECKING, Annotated, Any, Literal

import msgspec
from msgspec import Meta, Raw, Struct

from ...replayers.typed import FastPath, in_time, object_of
from .replay import USAGE_KEYS, is_json_object

if TYPE_CHECKING:  # pragma: no cover
    from .replay import PyReplayer, _Reply

__all__ = ["EVENTS", "typed_events"]

#: a token count: an integer within 64 bits (the whole way reads any other form)
Count = Annotated[int, Meta(ge=-(2**63), le=2**63 - 1)]


class _Nothing(Struct, forbid_unknown_fields=True, gc=False):
    """An empty object (the metadata of an event but a tool result's end: any other takes
    the whole way)."""


class _Event(Struct, tag_field="type", forbid_unknown_fields=True, gc=False):
    """The keys of every event: its id, time and metadata."""

    id: str
    created_at: str
    metadata: _Nothing


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
    #: the tool result's metadata, an object kept as written
    metadata: Raw  # type: ignore[assignment]
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

#: what a fast path of an event of a reply does once the reply, the event's id and time are
#: known to be fine: ``body(reply, event, line)`` applies the event's own part (its handler
#: in :class:`PyReplayer`) and says so, or changes nothing (``False``)
Body = Callable[["_Reply", Any, int], bool]


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
    #: the commonest events are counted in the fast paths themselves and added to
    #: ``by_type`` when the loop ends (each kind's first one at once, so the kinds keep
    #: the order they came in)
    tallies: list[Callable[[], None]] = []
    rp.tallies = tallies

    def later(stamp: str) -> str | None:
        """The key ``Replayer.check_time`` compares ``stamp`` by, when it has nothing to say
        of it (not earlier than the latest time, or within the tolerance), else ``None``."""
        key = stamp[:-1] if stamp[-1:] == "Z" else stamp
        last = rp._last_time
        if last is None or key >= last or in_time(rp, key, last):
            return key
        return None

    def timed(key: str, stamp: str, line: int) -> None:
        """What ``Replayer.feed`` keeps of the event's time (``key`` from :func:`later`)."""
        last = rp._last_time
        if last is None or key >= last:
            if key != last:
                rp._last_time = key
                rp._last_seconds = None
            rp._last_time_line = line
        rp.stamp = stamp

    def in_reply(kind: str, body: Body) -> FastPath:
        """The fast path of an event of a reply: ``apply`` with nothing to report (its
        reply is open, its id new in the reply, its time not earlier than the latest), then
        the event's own part (``body``)."""

        uncounted = 0  # events of this kind not yet in by_type (see tally)
        seen = False

        def fast(event: Any, line: int) -> bool:
            nonlocal uncounted, seen
            reply = replies.get(event.reply_id)
            if reply is None:
                return False
            eid = event.id
            ids = reply.event_ids
            if eid in ids:
                return False
            stamp = event.created_at
            key = stamp[:-1] if stamp[-1:] == "Z" else stamp
            last = rp._last_time
            if last is None or key >= last:
                rp.line = line
                if not body(reply, event, line):
                    return False
                if key != last:
                    rp._last_time = key
                    rp._last_seconds = None
                rp._last_time_line = line
            elif in_time(rp, key, last):
                rp.line = line
                if not body(reply, event, line):
                    return False
            else:
                return False
            rp.stamp = stamp
            ids.add(eid)
            reply.last_type = kind
            if seen:
                uncounted += 1
            else:
                seen = True
                by_type[kind] += 1
            return True

        def count() -> None:
            nonlocal uncounted
            if uncounted:
                by_type[kind] += uncounted
                uncounted = 0

        tallies.append(count)
        return fast

    # The deltas (the most common events) have fast paths of their own: ``in_reply`` and
    # the body in one, the block the delta goes to found before anything is changed.

    def block_delta(kind: str, word: str, name: str) -> FastPath:
        uncounted = 0
        seen = False

        def fast(event: Any, line: int) -> bool:
            nonlocal uncounted, seen
            reply = replies.get(event.reply_id)
            if reply is None:
                return False
            eid = event.id
            ids = reply.event_ids
            if eid in ids:
                return False
            block = reply.blocks.get((word, event.block_id))
            if block is None:
                return False  # E002
            stamp = event.created_at
            key = stamp[:-1] if stamp[-1:] == "Z" else stamp
            last = rp._last_time
            if last is None or key >= last:
                if key != last:
                    rp._last_time = key
                    rp._last_seconds = None
                rp._last_time_line = line
            elif not in_time(rp, key, last):
                return False
            rp.line = line
            block[name] += event.delta
            rp.stamp = stamp
            ids.add(eid)
            reply.last_type = kind
            if seen:
                uncounted += 1
            else:
                seen = True
                by_type[kind] += 1
            return True

        def count() -> None:
            nonlocal uncounted
            if uncounted:
                by_type[kind] += uncounted
                uncounted = 0

        tallies.append(count)
        return fast

    def call_delta_path() -> FastPath:
        uncounted = 0
        seen = False

        def fast(event: CallDelta, line: int) -> bool:
            nonlocal uncounted, seen
            reply = replies.get(event.reply_id)
            if reply is None:
                return False
            eid = event.id
            ids = reply.event_ids
            if eid in ids:
                return False
            block = reply.calls.get(event.tool_call_id)
            if block is None:
                return False  # E002
            stamp = event.created_at
            key = stamp[:-1] if stamp[-1:] == "Z" else stamp
            last = rp._last_time
            if last is None or key >= last:
                if key != last:
                    rp._last_time = key
                    rp._last_seconds = None
                rp._last_time_line = line
            elif not in_time(rp, key, last):
                return False
            rp.line = line
            block["input"] += event.delta
            rp.stamp = stamp
            ids.add(eid)
            reply.last_type = "TOOL_CALL_DELTA"
            if seen:
                uncounted += 1
            else:
                seen = True
                by_type["TOOL_CALL_DELTA"] += 1
            return True

        def count() -> None:
            nonlocal uncounted
            if uncounted:
                by_type["TOOL_CALL_DELTA"] += uncounted
                uncounted = 0

        tallies.append(count)
        return fast

    def result_text_path() -> FastPath:
        uncounted = 0
        seen = False

        def fast(event: ResultText, line: int) -> bool:
            nonlocal uncounted, seen
            reply = replies.get(event.reply_id)
            if reply is None:
                return False
            eid = event.id
            ids = reply.event_ids
            if eid in ids:
                return False
            block = reply.results.get(event.tool_call_id)
            if block is None:
                return False  # E002
            output = block["output"]
            if type(output) is not list:
                return False
            stamp = event.created_at
            key = stamp[:-1] if stamp[-1:] == "Z" else stamp
            last = rp._last_time
            if last is None or key >= last:
                if key != last:
                    rp._last_time = key
                    rp._last_seconds = None
                rp._last_time_line = line
            elif not in_time(rp, key, last):
                return False
            rp.line = line
            if output and output[-1].get("type") == "text":
                output[-1]["text"] += event.delta
            else:
                output.append(
                    {
                        "type": "text",
                        "text": event.delta,
                        "id": eid,
                        "created_at": stamp,
                        "finished_at": None,
                    }
                )
            rp.stamp = stamp
            ids.add(eid)
            reply.last_type = "TOOL_RESULT_TEXT_DELTA"
            if seen:
                uncounted += 1
            else:
                seen = True
                by_type["TOOL_RESULT_TEXT_DELTA"] += 1
            return True

        def count() -> None:
            nonlocal uncounted
            if uncounted:
                by_type["TOOL_RESULT_TEXT_DELTA"] += uncounted
                uncounted = 0

        tallies.append(count)
        return fast

    def judged(reply: _Reply) -> bool:
        """Whether the arguments of every call still to be judged are a JSON object (so
        ``_judge_arguments`` has nothing to report)."""
        calls = reply.calls
        for cid in reply.unchecked:
            block = calls.get(cid)
            if block is not None:
                text = block["input"]
                if text and type(text) is str and not is_json_object(text):
                    return False
        return True

    def reply_start(event: ReplyStart, line: int) -> bool:
        rid = event.reply_id
        reply = replies.get(rid)
        if reply is None:
            if rid in ended:
                return False
        elif not (reply.after_resume or reply.last_type in _PARKING):
            return False
        stamp = event.created_at
        key = later(stamp)
        if key is None:
            return False
        rp.line = line
        timed(key, stamp, line)
        by_type["REPLY_START"] += 1
        if reply is None:
            rp._open(rid, event.name, {"created_at": stamp})
        else:  # a resume marker, after a confirmation or external-execution result
            reply.after_resume = False
            reply.last_type = "REPLY_START"
        return True

    def reply_end(reply: _Reply, event: ReplyEnd, line: int) -> bool:
        reason = event.finished_reason
        if not judged(reply) or (reason != "error" and (reply.open or reply.model_open)):
            return False  # E006, E015
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

    def model_start(reply: _Reply, event: ModelCallStart, line: int) -> bool:
        if reply.model_open:
            return False  # E003
        reply.model_open = line
        return True

    def model_end(reply: _Reply, event: ModelCallEnd, line: int) -> bool:
        if not reply.model_open or not judged(reply):
            return False  # E002, E006
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
            msg["usage"] = dict(zip(USAGE_KEYS, counts, strict=True))
        else:
            for key, value in zip(USAGE_KEYS, counts, strict=True):
                usage[key] += value
        return True

    def block_start(word: str, name: str) -> Body:
        def start(reply: _Reply, event: Any, line: int) -> bool:
            bid = event.block_id
            key = (word, bid)
            if key in reply.implicit or key in reply.open:
                return False  # (E003)
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

    def block_end(word: str) -> Body:
        def end(reply: _Reply, event: Any, line: int) -> bool:
            key = (word, event.block_id)
            block = reply.blocks.get(key)
            if block is None:
                return False  # E002
            reply.open.pop(key, None)
            if word == "text" and type(event.text) is str:
                block["text"] = event.text
            block["finished_at"] = event.created_at
            return True

        return end

    def hint(reply: _Reply, event: Hint, line: int) -> bool:
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

    def call_start(reply: _Reply, event: CallStart, line: int) -> bool:
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

    def call_end(reply: _Reply, event: CallEnd, line: int) -> bool:
        cid = event.tool_call_id
        block = reply.calls.get(cid)
        if block is None:
            return False  # E002
        reply.open.pop(("tool_call", cid), None)
        block["finished_at"] = event.created_at
        reply.unchecked[cid] = line
        return True

    def result_start(reply: _Reply, event: ResultStart, line: int) -> bool:
        cid = event.tool_call_id
        key = ("tool_result", cid)
        if key in reply.implicit or key in reply.open or cid not in reply.calls:
            return False  # E003, E005
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

    def result_end(reply: _Reply, event: ResultEnd, line: int) -> bool:
        cid = event.tool_call_id
        block = reply.results.get(cid)
        if block is None or type(block["output"]) is not list:
            return False  # E002
        metadata = object_of(event.metadata)
        if metadata is None:
            return False
        reply.open.pop(("tool_result", cid), None)
        block["state"] = event.state
        block["metadata"] = metadata
        block["finished_at"] = event.created_at
        call = reply.calls.get(cid)
        if call is not None:
            call["state"] = "finished"
        return True

    def max_iters(reply: _Reply, event: MaxIters, line: int) -> bool:
        return True

    def custom(event: Custom, line: int) -> bool:
        # belongs to no reply; its value an object, if it has one
        value = event.value
        if value is not msgspec.UNSET and object_of(value) is None:
            return False
        stamp = event.created_at
        key = later(stamp)
        if key is None:
            return False
        rp.line = line
        timed(key, stamp, line)
        by_type["CUSTOM"] += 1
        return True

    fast: dict[type, FastPath] = {
        ReplyStart: reply_start,
        ReplyEnd: in_reply("REPLY_END", reply_end),
        ModelCallStart: in_reply("MODEL_CALL_START", model_start),
        ModelCallEnd: in_reply("MODEL_CALL_END", model_end),
        TextStart: in_reply("TEXT_BLOCK_START", block_start("text", "text")),
        TextDelta: block_delta("TEXT_BLOCK_DELTA", "text", "text"),
        TextEnd: in_reply("TEXT_BLOCK_END", block_end("text")),
        ThinkingStart: in_reply("THINKING_BLOCK_START", block_start("thinking", "thinking")),
        ThinkingDelta: block_delta("THINKING_BLOCK_DELTA", "thinking", "thinking"),
        ThinkingEnd: in_reply("THINKING_BLOCK_END", block_end("thinking")),
        Hint: in_reply("HINT_BLOCK", hint),
        CallStart: in_reply("TOOL_CALL_START", call_start),
        CallDelta: call_delta_path(),
        CallEnd: in_reply("TOOL_CALL_END", call_end),
        ResultStart: in_reply("TOOL_RESULT_START", result_start),
        ResultText: result_text_path(),
        ResultEnd: in_reply("TOOL_RESULT_END", result_end),
        MaxIters: in_reply("EXCEED_MAX_ITERS", max_iters),
        Custom: custom,
    }
    return _DECODE, fast


_PARKING = frozenset({"REQUIRE_USER_CONFIRM", "REQUIRE_EXTERNAL_EXECUTION"})
