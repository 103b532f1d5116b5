"""AgentScope Python 2.x: rebuild replies as the framework's ``Msg.append_event`` does.

One reply is one assistant message whose id is the ``reply_id``. The first
``REPLY_START`` creates it; every later event of that reply is applied in
order; ``REPLY_END`` completes it, and it is written at once. A second
``REPLY_START`` with the same id resumes a reply parked for a user's
confirmation (the framework's chat service sends one after the
``USER_CONFIRM_RESULT``).

Where the framework stamps the wall clock (block ``created_at``, the hint's
``finished_at``, the message's ``created_at``), the replay takes the time of
the event that caused it, so the same log always gives the same messages.
Text blocks the framework creates with a random id inside a tool result get
the id of the event that created them.

Where the framework drops an event it cannot place (a delta for a block that
never started, a reply that never started), the replay keeps its content in
a block or message of its own and reports it.
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Callable
from typing import Any

import orjson

from ..schemas import load_schema, type_branches
from ..textsafe import short
from . import Emit, Replayer, Sink, listed, mark

__all__ = ["EVENT_TYPES", "PyReplayer"]

#: the event types the dialect's event schema names; any other is skipped (E009)
EVENT_TYPES = frozenset(type_branches(load_schema("agentscope-py/event")) or ())

_PARKING = frozenset({"REQUIRE_USER_CONFIRM", "REQUIRE_EXTERNAL_EXECUTION"})
_RESUMING = frozenset({"USER_CONFIRM_RESULT", "EXTERNAL_EXECUTION_RESULT"})
_WORD = {"text": "text block", "thinking": "thinking block", "data": "data block"}


class _Reply:
    """One reply being rebuilt."""

    __slots__ = (
        "after_resume",
        "blocks",
        "calls",
        "event_ids",
        "implicit",
        "last_type",
        "line",
        "model_open",
        "msg",
        "open",
        "results",
        "unchecked",
    )

    def __init__(self, msg: dict, line: int):
        self.msg = msg
        self.line = line
        # the first block of each (type, id): where the framework applies deltas and ends
        self.blocks: dict[tuple[str, Any], dict] = {}
        self.calls: dict[Any, dict] = {}  # tool-call id -> its first tool_call block
        self.results: dict[Any, dict] = {}  # tool-call id -> its first tool_result block
        # what started and has not ended: ("text", id), ("tool_call", id), ("tool_result", id)
        self.open: dict[tuple[str, Any], int] = {}
        self.model_open = 0  # line of the open MODEL_CALL_START, 0 if none
        self.last_type = ""
        self.after_resume = False
        self.event_ids: set[str] = set()
        # blocks and results opened by a delta that came before their START
        self.implicit: set[tuple[str, Any]] = set()
        # tool calls whose arguments are judged once their model call is over -> last END line
        self.unchecked: dict[Any, int] = {}

    def open_items(self) -> list[str]:
        items = [f"{_WORD.get(kind, kind.replace('_', ' '))} {bid}" for kind, bid in self.open]
        if self.model_open:
            items.append("model call")
        return items


class PyReplayer(Replayer):
    known_types = EVENT_TYPES
    id_keys = ("reply_id", "block_id", "tool_call_id")

    def __init__(self, emit: Emit, sink: Sink | None = None) -> None:
        super().__init__(emit, sink)
        self.replies: dict[str, _Reply] = {}
        self.ended: dict[str, int] = {}  # reply id -> line of its REPLY_END

    # -- the event loop --------------------------------------------------------

    def apply(self, kind: str, event: dict) -> None:
        if kind == "CUSTOM":
            return  # belongs to no reply
        rid = event.get("reply_id")
        if type(rid) is not str:
            return
        reply = self.replies.get(rid)
        if kind == "REPLY_START":
            self._start(rid, reply, event)
            return
        if reply is None:
            if rid in self.ended:
                self.emit(
                    "E004",
                    f"{kind} for reply {short(rid)} after it ended on line {self.ended[rid]}: "
                    "not applied to the written message",
                )
                return
            self.emit(
                "E001",
                f"{kind} for reply {short(rid)}, which never started (no REPLY_START): "
                "kept in a message of its own",
            )
            reply = self._open(rid, "", event, orphan=True)
        self.note_event_id(reply.event_ids, event, "reply")
        handler = _HANDLERS.get(kind)
        if handler is not None:
            handler(self, reply, event)
        if kind in _RESUMING:
            reply.after_resume = True
        reply.last_type = kind

    def finish(self, line: int, cut: bool = False) -> None:
        for rid, reply in list(self.replies.items()):
            del self.replies[rid]
            self._judge_arguments(reply)
            items = reply.open_items()
            if not cut and any(
                b.get("state") in ("asking", "submitted") for b in reply.calls.values()
            ):
                # waiting for a user's confirmation or an external result: a reply parked
                # this way ends without REPLY_END (concurrent tools may still finish after)
                self.stats.parked += 1
                self.write(line, reply.msg)
                continue
            if cut:
                mark(reply.msg["metadata"], "open", items, line)
            else:
                self.stats.cut += 1
                what = f" with {', '.join(items)} still open" if items else ""
                self.emit(
                    "E007",
                    f"the log ends inside reply {short(rid)} (started on line {reply.line})"
                    f"{what}: the stream stopped here; what arrived is kept, marked "
                    "'cut' in its metadata",
                    line=line,
                )
                mark(reply.msg["metadata"], "cut", items, line)
            self.write(line, reply.msg)

    def open_messages(self) -> list[dict]:
        """The replies still being built, as they stand (for a live view)."""
        return [reply.msg for reply in self.replies.values()]

    # -- replies ---------------------------------------------------------------

    def _open(self, rid: str, name: Any, event: dict, orphan: bool = False) -> _Reply:
        msg: dict[str, Any] = {
            "name": name if type(name) is str else "",
            "content": [],
            "role": "assistant",
            "id": rid,
            "metadata": {},
            "created_at": event.get("created_at"),
            "usage": None,
            "finished_at": None,
            "finished_reason": None,
            "structured_output": None,
            "error": None,
        }
        reply = _Reply(msg, self.line)
        if orphan:
            mark(msg["metadata"], "orphan", [], self.line)
        self.replies[rid] = reply
        return reply

    def _start(self, rid: str, reply: _Reply | None, event: dict) -> None:
        if reply is None:
            if rid in self.ended:
                self.emit(
                    "E004",
                    f"REPLY_START for reply {short(rid)}, which already ended on line "
                    f"{self.ended[rid]}: its later events are not applied",
                )
                return
            self._open(rid, event.get("name"), event)
            return
        # a resume marker: legal after a confirmation or external-execution result
        if not (reply.after_resume or reply.last_type in _PARKING):
            self.emit(
                "E003",
                f"REPLY_START again for reply {short(rid)} (started on line {reply.line}) "
                "without a confirmation or external-execution result before it",
            )
        reply.after_resume = False
        reply.last_type = "REPLY_START"

    def _end(self, reply: _Reply, event: dict) -> None:
        msg = reply.msg
        reason = event.get("finished_reason", "completed")
        msg["finished_at"] = event.get("created_at")
        msg["finished_reason"] = reason
        msg["error"] = event.get("error")
        self._judge_arguments(reply)
        if reason != "error":
            items = reply.open_items()
            if items:
                self.emit(
                    "E015",
                    f"the reply ends ({reason}) with {', '.join(items)} still open",
                )
        rid = msg["id"]
        del self.replies[rid]
        self.ended[rid] = self.line
        self.stats.completed += 1
        self.stats.finished_reasons[reason if type(reason) is str else short(reason, 40)] += 1
        self.write(self.line, msg)

    # -- blocks ----------------------------------------------------------------

    def _block_start(self, reply: _Reply, event: dict, kind: str, implicit: bool = False) -> dict:
        bid = event.get("block_id")
        key = (kind, bid)
        if key in reply.implicit:
            # the START of a block whose delta came first (reported then): same block
            reply.implicit.discard(key)
            return reply.blocks[key]
        if implicit:
            reply.implicit.add(key)
        if key in reply.open:
            self.emit(
                "E003",
                f"{_WORD[kind]} {short(bid)} starts again while it is open "
                f"(since line {reply.open[key]})",
                "/block_id",
            )
        reply.open[key] = self.line
        stamp = event.get("created_at")
        if kind == "text":
            block = {
                "type": "text",
                "text": "",
                "id": bid,
                "created_at": stamp,
                "finished_at": None,
            }
        elif kind == "thinking":
            block = {
                "type": "thinking",
                "thinking": "",
                "id": bid,
                "created_at": stamp,
                "finished_at": None,
            }
        else:
            block = {
                "type": "data",
                "id": bid,
                "source": {"type": "base64", "data": "", "media_type": event.get("media_type")},
                "name": event.get("name"),
                "created_at": stamp,
                "finished_at": None,
            }
        reply.msg["content"].append(block)
        reply.blocks.setdefault(key, block)
        return block

    def _block(self, reply: _Reply, event: dict, kind: str, end: bool) -> dict | None:
        """The block a delta or end applies to; one started here if there is none."""
        bid = event.get("block_id")
        key = (kind, bid)
        block = reply.blocks.get(key)
        if block is None:
            what = "end" if end else "delta"
            self.emit(
                "E002",
                f"a {what} for {_WORD[kind]} {short(bid)}, which never started"
                + ("" if end else ": its content is kept in a block started here"),
                "/block_id",
            )
            if end and not (kind == "text" and event.get("text") is not None):
                return None
            block = self._block_start(reply, event, kind, implicit=not end)
        if end:
            reply.open.pop(key, None)
        return block

    def _text(self, reply: _Reply, event: dict) -> None:
        kind = event["type"]
        if kind.endswith("_START"):
            self._block_start(reply, event, "text")
            return
        end = kind.endswith("_END")
        block = self._block(reply, event, "text", end)
        if block is None:
            return
        if end:
            if type(event.get("text")) is str:
                block["text"] = event["text"]
            block["finished_at"] = event.get("created_at")
        else:
            block["text"] += _str(event.get("delta"))

    def _thinking(self, reply: _Reply, event: dict) -> None:
        kind = event["type"]
        if kind.endswith("_START"):
            self._block_start(reply, event, "thinking")
            return
        end = kind.endswith("_END")
        block = self._block(reply, event, "thinking", end)
        if block is None:
            return
        if end:
            block["finished_at"] = event.get("created_at")
        else:
            block["thinking"] += _str(event.get("delta"))

    def _data(self, reply: _Reply, event: dict) -> None:
        kind = event["type"]
        if kind.endswith("_START"):
            self._block_start(reply, event, "data")
            return
        end = kind.endswith("_END")
        block = self._block(reply, event, "data", end)
        if block is None:
            return
        if end:
            block["finished_at"] = event.get("created_at")
            return
        url, data = event.get("url"), event.get("data")
        if url:
            block["source"] = {
                "type": "url",
                "url": normal_url(url),
                "media_type": event.get("media_type"),
            }
        elif data:
            source = block["source"]
            joined, proper = _join_base64(source.get("data") or "", data)
            if not proper:
                self.emit(
                    "M001",
                    "this base64 chunk does not decode; decoded leniently as the framework "
                    "does, which drops what is not base64",
                    "/data",
                )
            if source.get("type") == "base64":
                source["data"] = joined
            else:
                block["source"] = {
                    "type": "base64",
                    "data": data,
                    "media_type": event.get("media_type"),
                }

    def _hint(self, reply: _Reply, event: dict) -> None:
        stamp = event.get("created_at")
        reply.msg["content"].append(
            {
                "type": "hint",
                "hint": event.get("hint"),
                "id": event.get("block_id"),
                "source": event.get("source"),
                "created_at": stamp,
                "finished_at": stamp,
            }
        )

    # -- tool calls and results ------------------------------------------------

    def _call_start(self, reply: _Reply, event: dict, name: Any = None) -> dict:
        cid = event.get("tool_call_id")
        # a repeated start is what interleaved argument fragments produce: legal
        reply.open[("tool_call", cid)] = self.line
        block: dict[str, Any] = {
            "type": "tool_call",
            "id": cid,
            "name": event.get("tool_call_name", name) if name is None else name,
            "input": "",
            "state": "pending",
            "suggested_rules": [],
            "created_at": event.get("created_at"),
            "finished_at": None,
        }
        reply.msg["content"].append(block)
        reply.calls.setdefault(cid, block)
        return block

    def _tool_call(self, reply: _Reply, event: dict) -> None:
        kind = event["type"]
        if kind == "TOOL_CALL_START":
            self._call_start(reply, event)
            return
        cid = event.get("tool_call_id")
        block = reply.calls.get(cid)
        end = kind == "TOOL_CALL_END"
        if block is None:
            self.emit(
                "E002",
                f"a {'end' if end else 'delta'} for tool call {short(cid)}, which never started"
                + ("" if end else ": its arguments are kept in a tool call started here"),
                "/tool_call_id",
            )
            if end:
                return
            block = self._call_start(reply, event, name="")
        if not end:
            block["input"] += _str(event.get("delta"))
            return
        reply.open.pop(("tool_call", cid), None)
        block["finished_at"] = event.get("created_at")
        # interleaved fragments end a call and start it again: judge its arguments
        # when the model call is over, at its last end
        reply.unchecked[cid] = self.line

    def _judge_arguments(self, reply: _Reply) -> None:
        for cid, line in reply.unchecked.items():
            block = reply.calls.get(cid)
            if block is None:
                continue
            text = block["input"]
            if text and type(text) is str and not _is_json_object(text):
                self.emit(
                    "E006",
                    f"the arguments of tool call {short(cid)} ({short(block['name'])}) are not "
                    f"a JSON object: {short(text, 80)}",
                    "/tool_call_id",
                    line=line,
                )
        reply.unchecked.clear()

    def _result_start(self, reply: _Reply, event: dict, implicit: bool = False) -> dict:
        cid = event.get("tool_call_id")
        key = ("tool_result", cid)
        if key in reply.implicit:
            reply.implicit.discard(key)
            return reply.results[cid]
        if implicit:
            reply.implicit.add(key)
        if key in reply.open:
            self.emit(
                "E003",
                f"the result of tool call {short(cid)} starts again while it is open "
                f"(since line {reply.open[key]})",
                "/tool_call_id",
            )
        elif cid not in reply.calls:
            self.emit(
                "E005",
                f"a result for tool call {short(cid)}, which this reply never made",
                "/tool_call_id",
            )
        reply.open[key] = self.line
        block = {
            "type": "tool_result",
            "id": cid,
            "name": event.get("tool_call_name", ""),
            "output": [],
            "state": "running",
            "metadata": {},
            "created_at": event.get("created_at"),
            "finished_at": None,
        }
        reply.msg["content"].append(block)
        reply.results.setdefault(cid, block)
        return block

    def _tool_result(self, reply: _Reply, event: dict) -> None:
        kind = event["type"]
        if kind == "TOOL_RESULT_START":
            self._result_start(reply, event)
            return
        cid = event.get("tool_call_id")
        block = reply.results.get(cid)
        end = kind == "TOOL_RESULT_END"
        if block is None:
            self.emit(
                "E002",
                f"{'an end' if end else 'output'} for the result of tool call {short(cid)}, "
                "which never started: kept in a result started here",
                "/tool_call_id",
            )
            block = self._result_start(reply, event, implicit=not end)
        output = block["output"]
        if type(output) is str:
            output = block["output"] = [_text_block(output, "", None)]
        if kind == "TOOL_RESULT_TEXT_DELTA":
            delta = _str(event.get("delta"))
            if output and output[-1].get("type") == "text":
                output[-1]["text"] += delta
            else:
                output.append(_text_block(delta, event.get("id"), event.get("created_at")))
        elif kind == "TOOL_RESULT_DATA_DELTA":
            self._result_data(block, event)
        else:
            reply.open.pop(("tool_result", cid), None)
            block["state"] = event.get("state")
            block["metadata"] = event.get("metadata", {})
            block["finished_at"] = event.get("created_at")
            call = reply.calls.get(cid)
            if call is not None:
                call["state"] = "finished"

    def _result_data(self, block: dict, event: dict) -> None:
        bid = event.get("block_id")
        data = event.get("data")
        media_type = event.get("media_type")
        if data is not None:
            for item in block["output"]:
                source = item.get("source")
                if (
                    item.get("type") == "data"
                    and item.get("id") == bid
                    and type(source) is dict
                    and source.get("type") == "base64"
                ):
                    joined, proper = _join_base64(source.get("data") or "", data)
                    if not proper:
                        self.emit(
                            "M001",
                            "this base64 chunk does not decode; decoded leniently as the "
                            "framework does, which drops what is not base64",
                            "/data",
                        )
                    source["data"] = joined
                    source["media_type"] = media_type or source.get("media_type")
                    return
            source = {"type": "base64", "data": data, "media_type": media_type}
        else:
            source = {"type": "url", "url": normal_url(event.get("url")), "media_type": media_type}
        block["output"].append(
            {
                "type": "data",
                "id": bid,
                "source": source,
                "name": None,
                "created_at": event.get("created_at"),
                "finished_at": None,
            }
        )

    # -- human in the loop -----------------------------------------------------

    def _require(self, reply: _Reply, event: dict) -> None:
        asking = event["type"] == "REQUIRE_USER_CONFIRM"
        for call in listed(event.get("tool_calls")):
            cid = call.get("id") if type(call) is dict else None
            block = reply.calls.get(cid) if type(cid) is str else None
            if block is None:
                self.emit(
                    "E005",
                    f"{event['type']} names tool call {short(cid)}, which this reply never made",
                    "/tool_calls",
                )
                continue
            if asking:
                block["state"] = "asking"
                block["suggested_rules"] = call.get("suggested_rules", [])
            else:
                block["state"] = "submitted"

    def _confirmed(self, reply: _Reply, event: dict) -> None:
        for result in listed(event.get("confirm_results")):
            call = result.get("tool_call") if type(result) is dict else None
            cid = call.get("id") if type(call) is dict else None
            block = reply.calls.get(cid) if type(cid) is str else None
            if block is None or block["state"] != "asking":
                state = "unknown" if block is None else f"in state {block['state']!r}"
                self.emit(
                    "E013",
                    f"a confirmation for tool call {short(cid)}, which is {state}, "
                    "not waiting for one: not applied",
                    "/confirm_results",
                )
                continue
            block["state"] = "allowed" if result.get("confirmed") else "finished"

    def _executed(self, reply: _Reply, event: dict) -> None:
        present = {b.get("id") for b in reply.msg["content"] if b.get("type") == "tool_result"}
        for result in listed(event.get("execution_results")):
            if type(result) is not dict:
                continue
            cid = result.get("id")
            call = reply.calls.get(cid)
            if call is None or call["state"] != "submitted":
                self.emit(
                    "E013",
                    f"an external result for tool call {short(cid)}, which was not submitted "
                    "for external execution",
                    "/execution_results",
                )
            if cid in present:
                continue
            block = dict(result)
            if block.get("finished_at") is None:
                block["finished_at"] = event.get("created_at")
            reply.msg["content"].append(block)
            reply.results.setdefault(cid, block)

    # -- model calls -----------------------------------------------------------

    def _model(self, reply: _Reply, event: dict) -> None:
        if event["type"] == "MODEL_CALL_START":
            if reply.model_open:
                self.emit(
                    "E003",
                    f"a model call starts while the one started on line {reply.model_open} "
                    "has not ended",
                )
            reply.model_open = self.line
            return
        if not reply.model_open:
            self.emit("E002", "MODEL_CALL_END without a MODEL_CALL_START")
        reply.model_open = 0
        self._judge_arguments(reply)
        usage = reply.msg["usage"]
        counts = tuple(_count(event.get(key, 0)) for key in _USAGE_KEYS)
        if usage is None:
            reply.msg["usage"] = dict(zip(_USAGE_KEYS, counts, strict=True))
        else:
            for key, value in zip(_USAGE_KEYS, counts, strict=True):
                usage[key] += value


_USAGE_KEYS = ("input_tokens", "output_tokens", "cache_input_tokens", "cache_creation_input_tokens")


def _count(value: Any) -> int:
    """A token count as pydantic reads it in lax mode (``7``, ``7.0``, ``true``, ``"7"``,
    ``" 1_800.00 "``); anything else (reported by the schema) counts 0."""
    if type(value) is int or type(value) is bool:
        return int(value)
    if type(value) is float and value.is_integer():
        return int(value)
    if type(value) is str:
        match = _LAX_INT.fullmatch(value.strip())
        if match:
            return int(match.group(1).replace("_", ""))
    return 0


_LAX_INT = re.compile(r"([+-]?[0-9]+(?:_[0-9]+)*)(?:\.0*)?")


def _str(value: Any) -> str:
    return value if type(value) is str else ""


def _text_block(text: str, bid: Any, stamp: Any) -> dict:
    return {"type": "text", "text": text, "id": bid, "created_at": stamp, "finished_at": None}


def normal_url(url: Any) -> Any:
    """A URL as the framework stores it: pydantic's ``AnyUrl`` lower-cases the scheme
    and host and gives an empty path a ``/`` (``https://Example.COM`` ->
    ``https://example.com/``). Anything else is kept as written."""
    if type(url) is not str or "://" not in url:
        return url
    scheme, _, rest = url.partition("://")
    authority, _, tail = rest.partition("/")
    if not authority or any(c in authority for c in "?#"):
        return url
    user, at, host = authority.rpartition("@")
    return f"{scheme.lower()}://{user}{at}{host.lower()}/{tail}"


def _is_json_object(text: str) -> bool:
    try:
        return type(orjson.loads(text)) is dict
    except orjson.JSONDecodeError:
        return False


def _join_base64(first: str, second: Any) -> tuple[str, bool]:
    """Decode both chunks, join the bytes, encode again (chunks carry their own padding).

    Returns the joined text and whether ``second`` is proper base64. The framework
    decodes leniently (characters outside the alphabet are dropped), and so does this.
    """
    if type(second) is not str:
        return first, False
    try:
        base64.b64decode(second, validate=True)
        proper = True
    except (binascii.Error, ValueError):
        proper = False
    try:
        head = base64.b64decode(first) if first else b""
        tail = base64.b64decode(second)
    except (binascii.Error, ValueError):
        return first, False
    return base64.b64encode(head + tail).decode("ascii"), proper


_HANDLERS: dict[str, Callable[[PyReplayer, _Reply, dict], None]] = {
    "REPLY_END": PyReplayer._end,
    "MODEL_CALL_START": PyReplayer._model,
    "MODEL_CALL_END": PyReplayer._model,
    "TEXT_BLOCK_START": PyReplayer._text,
    "TEXT_BLOCK_DELTA": PyReplayer._text,
    "TEXT_BLOCK_END": PyReplayer._text,
    "THINKING_BLOCK_START": PyReplayer._thinking,
    "THINKING_BLOCK_DELTA": PyReplayer._thinking,
    "THINKING_BLOCK_END": PyReplayer._thinking,
    "DATA_BLOCK_START": PyReplayer._data,
    "DATA_BLOCK_DELTA": PyReplayer._data,
    "DATA_BLOCK_END": PyReplayer._data,
    "HINT_BLOCK": PyReplayer._hint,
    "TOOL_CALL_START": PyReplayer._tool_call,
    "TOOL_CALL_DELTA": PyReplayer._tool_call,
    "TOOL_CALL_END": PyReplayer._tool_call,
    "TOOL_RESULT_START": PyReplayer._tool_result,
    "TOOL_RESULT_TEXT_DELTA": PyReplayer._tool_result,
    "TOOL_RESULT_DATA_DELTA": PyReplayer._tool_result,
    "TOOL_RESULT_END": PyReplayer._tool_result,
    "REQUIRE_USER_CONFIRM": PyReplayer._require,
    "REQUIRE_EXTERNAL_EXECUTION": PyReplayer._require,
    "USER_CONFIRM_RESULT": PyReplayer._confirmed,
    "EXTERNAL_EXECUTION_RESULT": PyReplayer._executed,
}
