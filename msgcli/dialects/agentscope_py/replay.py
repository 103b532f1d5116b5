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

from ...guard import as_key
from ...replayers import Emit, Replayer, Sink, listed, mark
from ...replayers.typed import TypedReplay
from ...schemas import load_schema, type_branches
from ...textsafe import named, short
from .events import is_agui, is_stream_wrapper

__all__ = ["EVENT_TYPES", "PyReplayer"]

#: the event types the dialect's event schema names; any other is skipped (E009)
EVENT_TYPES = frozenset(type_branches(load_schema("agentscope-py/event")) or ())

_PARKING = frozenset({"REQUIRE_USER_CONFIRM", "REQUIRE_EXTERNAL_EXECUTION"})
_RESUMING = frozenset({"USER_CONFIRM_RESULT", "EXTERNAL_EXECUTION_RESULT"})
_WORD = {"text": "text block", "thinking": "thinking block", "data": "data block"}


#: the ids a native event made from another form may carry
_NATIVE_IDS = ("reply_id", "block_id", "tool_call_id", "id", "parent_id")


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


class PyReplayer(TypedReplay, Replayer):
    known_types = EVENT_TYPES
    id_keys = ("reply_id", "block_id", "tool_call_id")
    typed = "msgcli.dialects.agentscope_py.typed_events:typed_events"

    def __init__(self, emit: Emit, sink: Sink | None = None) -> None:
        super().__init__(emit, sink)
        self.replies: dict[str, _Reply] = {}
        self.ended: dict[str, int] = {}  # reply id -> line of its REPLY_END
        self.agui: _AGUI | None = None  # the AG-UI form's state, once one is seen
        # the 1.x streaming wrapper: message id -> (line, latest snapshot) not yet complete
        self.snapshots: dict[Any, tuple[int, dict]] = {}

    def feed(self, line: int, event: dict, valid: bool = True) -> None:
        if is_agui(event):
            if self.agui is None:
                self.agui = _AGUI(self)
            self.agui.feed(line, event, valid)
            return
        if is_stream_wrapper(event):
            self._snapshot(line, event)
            return
        super().feed(line, event, valid)

    def native(self, line: int, event: dict) -> None:
        """Apply a native event made from another form (no time, no event id)."""
        self.line = line
        self.stamp = event.get("created_at")
        kind = event["type"]
        if kind in self.known_types:
            # no schema checked these: an id of another JSON type is made a key here
            for key in _NATIVE_IDS:
                if key in event:
                    event[key] = as_key(event[key])
            self.apply(kind, event)

    def _snapshot(self, line: int, event: dict) -> None:
        """One item of AgentScope 1.x's ``stream_printing_messages``: the message as it
        stands (``last`` false), then whole (``last`` true), which is what is kept."""
        self.line = line
        stats = self.stats
        stats.events += 1
        stats.by_type["last" if event.get("last") is True else "snapshot"] += 1
        msg = event["msg"]
        mid = msg.get("id")
        key = mid if type(mid) in (str, int) else None
        if event.get("last") is True:
            self.snapshots.pop(key, None)
            stats.completed += 1
            self.write(line, msg)
        else:
            self.snapshots[key] = (line, msg)

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
        if self.agui is not None:
            self.agui.finish(line, cut)
        for key, (first, msg) in list(self.snapshots.items()):
            del self.snapshots[key]
            msg = dict(msg)
            metadata = msg.get("metadata")
            msg["metadata"] = metadata = dict(metadata) if type(metadata) is dict else {}
            if cut:
                mark(metadata, "open", ["message"], line)
            else:
                self.stats.cut += 1
                self.emit(
                    "E007",
                    f"the log ends before message {short(key)} (streamed from line {first}) "
                    "was complete (no snapshot with last true): its last snapshot is kept, "
                    "marked 'cut' in its metadata",
                    line=line,
                )
                mark(metadata, "cut", ["message"], line)
            self.write(line, msg)
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
        said = named(reason, 40)
        if reason != "error":
            items = reply.open_items()
            if items:
                self.emit("E015", f"the reply ends ({said}) with {', '.join(items)} still open")
        rid = msg["id"]
        del self.replies[rid]
        self.ended[rid] = self.line
        self.stats.completed += 1
        self.stats.finished_reasons[said] += 1
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
            if text and type(text) is str and not is_json_object(text):
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
        if not any(key in event for key in USAGE_KEYS):
            return  # a model call's end with no counts (the AG-UI form carries none)
        counts = tuple(_count(event.get(key, 0)) for key in USAGE_KEYS)
        if usage is None:
            reply.msg["usage"] = dict(zip(USAGE_KEYS, counts, strict=True))
        else:
            for key, value in zip(USAGE_KEYS, counts, strict=True):
                usage[key] += value


USAGE_KEYS = ("input_tokens", "output_tokens", "cache_input_tokens", "cache_creation_input_tokens")


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


def is_json_object(text: str) -> bool:
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
    if type(first) is not str:
        first = ""  # an earlier chunk that was no text at all (its own line says so)
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


# -- the AG-UI form -------------------------------------------------------------------

#: AG-UI event -> the native event it stands for (AgentScope 2.0.11,
#: app/middleware/_protocol/_agui.py, AGUIProtocolMiddleware._to_agui_event)
_AGUI_BLOCKS = {
    "TEXT_MESSAGE_START": "TEXT_BLOCK_START",
    "TEXT_MESSAGE_CONTENT": "TEXT_BLOCK_DELTA",
    "TEXT_MESSAGE_END": "TEXT_BLOCK_END",
    "REASONING_MESSAGE_START": "THINKING_BLOCK_START",
    "REASONING_MESSAGE_CONTENT": "THINKING_BLOCK_DELTA",
    "REASONING_MESSAGE_END": "THINKING_BLOCK_END",
    "THINKING_TEXT_MESSAGE_START": "THINKING_BLOCK_START",
    "THINKING_TEXT_MESSAGE_CONTENT": "THINKING_BLOCK_DELTA",
    "THINKING_TEXT_MESSAGE_END": "THINKING_BLOCK_END",
}
_AGUI_CALLS = {
    "TOOL_CALL_START": "TOOL_CALL_START",
    "TOOL_CALL_ARGS": "TOOL_CALL_DELTA",
    "TOOL_CALL_END": "TOOL_CALL_END",
}
#: the states a tool result can end in (ToolResultState)
_RESULT_STATES = frozenset({"success", "error", "interrupted", "denied", "running"})


class _AGUI:
    """Reads the AG-UI form of AgentScope's events as the native events they were made from.

    AgentScope's service turns each native event into one AG-UI event: REPLY_START into
    RUN_STARTED (runId = the reply id), model calls into steps, text and thinking blocks
    into text and reasoning messages (messageId = the block id), tool calls into tool
    calls, the end of a tool result into TOOL_CALL_RESULT, and everything AG-UI has no
    event for (the start and output of tool results, hints, data blocks, the pauses) into
    CUSTOM events whose value is the native event itself. So the replay applies the
    native events again, with AG-UI's own order rules checked on the way: a run starts
    before anything else and finishes with no message or tool call open.

    What the AG-UI form does not carry stays unknown: the agent's name, token usage, the
    times of the events (so of the message and its blocks), why a reply ended unless it hit
    the iteration limit (RUN_FINISHED reads as completed), and the state and metadata a tool
    result ended with when it has output (taken as success, as AG-UI clients show it).
    """

    __slots__ = (
        "line",
        "open",
        "outside",
        "replayer",
        "results",
        "run",
        "run_line",
        "started",
        "thread",
    )

    def __init__(self, replayer: PyReplayer) -> None:
        self.replayer = replayer
        self.run: str | None = None
        self.thread: Any = None
        self.run_line = 0
        self.line = 0
        self.open: dict[Any, tuple[str, int]] = {}  # messages and calls open -> (what, line)
        self.started: set[Any] = set()  # tool results whose start came (as CUSTOM)
        self.results: dict[Any, bool] = {}  # tool call id -> output text seen
        self.outside = False  # events outside a run were reported

    def feed(self, line: int, event: dict, valid: bool) -> None:
        rp = self.replayer
        rp.line = self.line = line
        rp.stamp = None
        rp.stats.events += 1
        kind = event["type"]
        rp.stats.by_type[kind] += 1
        if not valid and kind != "CUSTOM":
            return  # reported by the schema; too broken to apply
        if kind == "RUN_STARTED":
            if self.run is not None:
                rp.emit(
                    "E003",
                    f"RUN_STARTED while the run started on line {self.run_line} has not "
                    "finished (AG-UI: a run must finish before the next starts)",
                )
                self._end_run("completed")
            self.run, self.thread, self.run_line = event.get("runId"), event.get("threadId"), line
            self.outside = False
            self._native(
                "REPLY_START",
                session_id=self.thread,
                name=None,
                role="assistant",
            )
            return
        if kind == "CUSTOM":
            value = event.get("value")
            if type(value) is dict and type(value.get("type")) is str and value.get("reply_id"):
                if value["type"] == "TOOL_RESULT_START":
                    self.started.add(as_key(value.get("tool_call_id")))
                elif value["type"] in ("TOOL_RESULT_TEXT_DELTA", "TOOL_RESULT_DATA_DELTA"):
                    self.results[as_key(value.get("tool_call_id"))] = True
                rp.native(line, value)
            return
        if kind in ("RAW", "STATE_SNAPSHOT", "STATE_DELTA", "MESSAGES_SNAPSHOT"):
            return  # no part of a message
        if self.run is None:
            if not self.outside:  # once until the next RUN_STARTED
                rp.emit(
                    "E002",
                    f"{kind} outside a run (AG-UI: the first event of a run is RUN_STARTED): "
                    "it and what follows until the next RUN_STARTED are not applied",
                )
            self.outside = True
            return
        if kind in ("RUN_FINISHED", "RUN_ERROR"):
            reply = rp.replies.get(as_key(self.run))
            if kind == "RUN_FINISHED" and self.open and reply is not None and reply.model_open:
                # a reply that failed inside a model call: AgentScope's service closes it
                # with REPLY_END(finished_reason="error") and leaves its open blocks open
                # (app/_service/_chat.py, ChatService._close_failed_reply), and the AG-UI
                # middleware turns every REPLY_END but the iteration limit's into
                # RUN_FINISHED (app/middleware/_protocol/_agui.py, _to_agui_event); an
                # interrupt ends the open blocks and the model call first. Read as the
                # failed reply it is (AG-UI carries no error).
                self._end_run("error")
                return
            for what, since in self.open.values():
                rp.emit(
                    "E015",
                    f"{kind} while {what} (started on line {since}) is still open "
                    "(AG-UI: every message and tool call ends before the run does)",
                )
            reason = "completed"
            if kind == "RUN_ERROR":
                reason = "exceed_max_iters" if event.get("code") == "exceed_max_iters" else "error"
            self._end_run(reason)
            return
        if kind == "STEP_STARTED":
            self._native("MODEL_CALL_START", model_name=event.get("stepName"))
        elif kind == "STEP_FINISHED":
            self._native("MODEL_CALL_END")
        elif kind in _AGUI_BLOCKS:
            native = _AGUI_BLOCKS[kind]
            mid = event.get("messageId")
            self._track(kind, mid, "message")
            fields: dict = {"block_id": mid}
            if native.endswith("_DELTA"):
                fields["delta"] = event.get("delta")
            self._native(native, **fields)
        elif kind in _AGUI_CALLS:
            native = _AGUI_CALLS[kind]
            cid = event.get("toolCallId")
            self._track(kind, cid, "tool call")
            fields = {"tool_call_id": cid}
            if kind == "TOOL_CALL_START":
                fields["tool_call_name"] = event.get("toolCallName")
                parent = event.get("parentMessageId")
                if type(parent) is str and parent:
                    fields["reply_id"] = parent
            elif kind == "TOOL_CALL_ARGS":
                fields["delta"] = event.get("delta")
            self._native(native, **fields)
        elif kind == "TOOL_CALL_RESULT":
            self._result(event)

    def _track(self, kind: str, key: Any, what: str) -> None:
        if kind.endswith("_START"):
            self.open[key] = (f"{what} {short(key)}", self.line)
        elif kind.endswith("_END"):
            self.open.pop(key, None)

    def _result(self, event: dict) -> None:
        cid = event.get("toolCallId")
        content = event.get("content")
        had_output = self.results.pop(as_key(cid), False)
        if as_key(cid) not in self.started:
            # a stream without AgentScope's CUSTOM events: the result is all there is
            self._native("TOOL_RESULT_START", tool_call_id=cid, tool_call_name=None)
            if type(content) is str and content:
                self._native("TOOL_RESULT_TEXT_DELTA", tool_call_id=cid, delta=content)
                had_output = True
        self.started.discard(as_key(cid))
        # AgentScope sends the output text, or the state when there is no output
        state = content if not had_output and content in _RESULT_STATES else "success"
        self._native("TOOL_RESULT_END", tool_call_id=cid, state=state)

    def _end_run(self, reason: str) -> None:
        self._native("REPLY_END", session_id=self.thread, finished_reason=reason, error=None)
        self.run = None
        self.open.clear()

    def _native(self, kind: str, **fields: Any) -> None:
        event = {"type": kind, "reply_id": self.run, **fields}
        self.replayer.native(self.line, event)

    def finish(self, line: int, cut: bool) -> None:
        """What is open is closed by the replay itself (see :meth:`PyReplayer.finish`)."""
