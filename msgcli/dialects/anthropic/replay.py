"""Rebuilding Anthropic Messages streams, as the SDK's ``accumulate_event`` does.

``message_start`` opens a message (a copy of its ``message``); blocks are appended at
``content_block_start``; text and thinking deltas are joined, ``signature_delta`` replaces
the signature, citations are appended; a tool call's ``input_json_delta`` text is
collected and parsed when its block stops; ``message_delta`` sets the stop reason and the
cumulative usage; ``message_stop`` ends the message. ``ping`` is skipped.

Where the SDK raises (a delta before its block started, an event before
``message_start``, an ``error`` event, a cut stream, tool input that is not JSON), the
replay reports it at its line and still writes what arrived, marked.
"""

from __future__ import annotations

from collections.abc import Callable
from itertools import chain
from typing import Any

import orjson

from ...guard import as_key, nests_deeper
from ...textsafe import short
from ..wire import WireReplayer, joined
from .dialect import KNOWN_BLOCKS

_KNOWN = frozenset(
    {
        "message_start",
        "content_block_start",
        "content_block_delta",
        "content_block_stop",
        "message_delta",
        "message_stop",
        "ping",
        "error",
    }
)
#: the top-level keys of each event type (any other: an info finding, U002, and the event
#: goes the whole way rather than a fast path)
_KEYS = {
    "message_start": frozenset({"type", "message"}),
    "content_block_start": frozenset({"type", "index", "content_block"}),
    "content_block_delta": frozenset({"type", "index", "delta"}),
    "content_block_stop": frozenset({"type", "index"}),
    "message_delta": frozenset({"type", "delta", "usage", "context_management"}),
    "message_stop": frozenset({"type"}),
    "ping": frozenset({"type"}),
    "error": frozenset({"type", "error", "request_id"}),
}
_MESSAGE_DELTA_KEYS = _KEYS["message_delta"]
_NO_USAGE = object()
_DELTAS = frozenset(
    {"text_delta", "input_json_delta", "thinking_delta", "signature_delta", "citations_delta"}
)


class AnthropicReplayer(WireReplayer):
    known_types = _KNOWN
    lean_types = _KNOWN
    message: dict | None  # the message being built
    blocks: dict[Any, dict]  # event index -> block (in the message's content)
    json: dict[Any, list[str]]  # event index -> input_json_delta pieces
    json_line: dict[Any, int]
    stopped: set[Any]

    def fast_paths(self) -> dict[str, Callable[[dict, int], bool]]:
        # each applies the common case exactly as event() would, and leaves anything with
        # something to report (or an unusual shape) untouched for the whole way
        return {
            "content_block_delta": self._fast_delta,
            "content_block_start": self._fast_start,
            "content_block_stop": self._fast_stop,
            "message_delta": self._fast_message_delta,
            "message_stop": self._fast_message_stop,
            "message_start": self._fast_message_start,
            "ping": _ping,
        }

    def _lean(self, lines: Any, check: Any) -> int:
        """The loop of :meth:`WireReplayer._lean`, with the common events applied inline
        rather than by a call: a text, thinking or tool-input delta (over half of a stream's
        events), a block's start, ``message_start``, ``message_delta``, and a block's or the
        message's stop written in the SDKs' own bytes (known without parsing the line). Each
        has exactly the checks of its fast path (:meth:`fast_paths`): a missing key, or a
        value of another type than those, leaves the event to its fast path and then the
        whole way, as there. Each statement here runs once an event, a million times for a
        million events, so the loop keeps to as few as it can."""
        from ...guard import RECORD_DEPTH, exact_loads, may_hold_big_int
        from ...records import Record, not_object, records_of_lines, too_deep

        loads = orjson.loads
        big = may_hold_big_int
        bad_json = orjson.JSONDecodeError
        valid = check.event_schema.is_valid_typed
        summary = check.summary
        stats = self.stats
        by_type = stats.by_type
        event = self.event
        quick = self.quick
        fast = self.fast_paths()
        own = self.lean_types
        take = check.take
        count = 0  # the records read that no fast path applied (those are counted in tally)
        last = check.last  # the line of the last record counted
        fast_last = 0  # the line of the last event a fast path applied
        # events the fast paths applied, by type, in the order the types first came; added
        # to the stats before anything else counts (so they keep that order). The deltas
        # are counted in ``deltas`` and added to their place in ``tally`` (held by a 0 put
        # there at the first of them).
        tally: dict[str, int] = {}
        deltas = 0
        fasted = 0
        DELTA = "content_block_delta"
        STOP = "content_block_stop"
        START = "content_block_start"
        MESSAGE_START = "message_start"
        MESSAGE_DELTA = "message_delta"
        MESSAGE_STOP = "message_stop"
        plain_start = _plain_start
        plain_block = _plain_block
        message_delta = _message_delta
        done = self.done
        # the key strings orjson makes (it keeps one of each short key and gives it every
        # time): a lookup with the very object finds it at once, without comparing text
        K_TYPE, K_DELTA, K_INDEX, K_TEXT, K_PARTIAL, K_THINKING = loads(
            b'{"type":0,"delta":0,"index":0,"text":0,"partial_json":0,"thinking":0}'
        )

        def counted() -> int:
            if deltas:
                tally[DELTA] += deltas
            n = 0
            for kind, k in tally.items():
                by_type[kind] += k
                n += k
            tally.clear()
            return n

        short = _SHORT_LINES
        short_length = _SHORT
        for number, raw in lines:
            size = len(raw)
            if size < short_length:
                stop = short.get(raw)
                # a block's stop and the message's, in the very bytes the SDKs write them:
                # such a line is that event (of that index) and no other, so it needs no
                # parsing to be applied as its fast path would (_fast_message_stop and
                # _stop_message, _fast_stop and _stop_block); else it is read as any other
                if stop is not None:
                    if stop < 0:
                        message = self.message
                        if message is not None and len(self.stopped) == len(self.blocks):
                            self.message = None
                            done(number, message, message.get("stop_reason"))
                            try:
                                tally[MESSAGE_STOP] += 1
                            except KeyError:
                                tally[MESSAGE_STOP] = 1
                            fast_last = number
                            continue
                    elif self.message is not None and stop in self.blocks and stop not in self.json:
                        self.stopped.add(stop)
                        try:
                            tally[STOP] += 1
                        except KeyError:
                            tally[STOP] = 1
                        fast_last = number
                        continue
            try:
                obj = loads(raw)
            except bad_json:
                if not raw.strip():
                    continue
                fasted += counted()
                deltas = 0
                # the rest the reader's way: it says precisely what is wrong with a line
                for record in records_of_lines(chain([(number, raw)], lines)):
                    count += 1
                    last = take(record) or last
                break
            try:
                kind = obj[K_TYPE]
            except KeyError:
                kind = None
            except TypeError:  # a JSON value that is no object (only an object takes a name)
                fasted += counted()
                deltas = 0
                count += 1
                last = take(Record(number, None, not_object(obj))) or last
                continue
            # (a line shorter than the depth limit cannot nest past it)
            if size > RECORD_DEPTH and nests_deeper(obj, raw=raw):
                fasted += counted()
                deltas = 0
                count += 1
                last = take(Record(number, None, too_deep())) or last
                continue
            # an integer beyond 64 bits is read exactly, as the reader does: a delta's fast
            # path keeps no number but its index (an int: a float leaves the fast path), so
            # a delta is read again only when it leaves it
            if kind != DELTA and big(raw):
                obj = exact_loads(raw, obj)
            if kind == DELTA and len(obj) == 3:  # (type, index and delta: no other key)
                try:
                    delta = obj[K_DELTA]
                    index = obj[K_INDEX]
                    if type(index) is int and index >= 0 and self.message is not None:
                        block = self.blocks[index]
                        what = delta[K_TYPE]  # (only an object takes a name)
                        if what == "text_delta":
                            text = delta[K_TEXT]
                            if type(text) is str:
                                # (the block's own value, joined only if a string: any other
                                # JSON value and a string make a TypeError, before the store)
                                block[K_TEXT] = block[K_TEXT] + text
                                if not deltas:
                                    tally.setdefault(DELTA, 0)
                                deltas += 1
                                fast_last = number
                                continue
                        elif what == "input_json_delta":
                            piece = delta[K_PARTIAL]
                            if type(piece) is str:
                                pieces = self.json.get(index)
                                if pieces is None:
                                    self.json[index] = [piece]
                                    self.json_line[index] = number
                                else:
                                    pieces.append(piece)
                                if not deltas:
                                    tally.setdefault(DELTA, 0)
                                deltas += 1
                                fast_last = number
                                continue
                        elif what == "thinking_delta":
                            text = delta[K_THINKING]
                            if type(text) is str:
                                # (the block's own value, joined only if a string: any other
                                # JSON value and a string make a TypeError, before the store)
                                block[K_THINKING] = block[K_THINKING] + text
                                if not deltas:
                                    tally.setdefault(DELTA, 0)
                                deltas += 1
                                fast_last = number
                                continue
                except (KeyError, TypeError):
                    pass
            elif kind == START and len(obj) == 3:  # _fast_start and _start_block
                index = obj.get("index")
                block = obj.get("content_block")
                message = self.message
                if (
                    type(index) is int
                    and type(block) is dict
                    and message is not None
                    and index == len(message["content"])
                    and index not in self.blocks
                    and plain_block(block)
                ):
                    message["content"].append(block)
                    self.blocks[index] = block
                    try:
                        tally[START] += 1
                    except KeyError:
                        tally[START] = 1
                    fast_last = number
                    continue
            elif kind == MESSAGE_START and len(obj) == 2:  # _fast_message_start, _start_message
                message = obj.get("message")
                if self.message is None and type(message) is dict and plain_start(message):
                    self.message = message
                    self.blocks, self.json, self.json_line, self.stopped = {}, {}, {}, set()
                    self.start = number
                    try:
                        tally[MESSAGE_START] += 1
                    except KeyError:
                        tally[MESSAGE_START] = 1
                    fast_last = number
                    continue
            elif kind == MESSAGE_DELTA and obj.keys() <= _MESSAGE_DELTA_KEYS:  # _fast_message_delta
                message = self.message
                delta = obj.get("delta")
                usage = obj.get("usage", _NO_USAGE)
                if (
                    message is not None
                    and type(delta) is dict
                    and (usage is _NO_USAGE or type(usage) is dict)
                ):
                    message_delta(message, delta, usage)
                    try:
                        tally[MESSAGE_DELTA] += 1
                    except KeyError:
                        tally[MESSAGE_DELTA] = 1
                    fast_last = number
                    continue
            if kind == DELTA and big(raw):
                obj = exact_loads(raw, obj)
            try:
                apply = fast.get(kind)
            except TypeError:  # a type that is no name (a list, an object)
                apply = None
            if apply is not None and apply(obj, number):
                try:
                    tally[kind] += 1
                except KeyError:
                    tally[kind] = 1
                fast_last = number
                continue
            fasted += counted()
            deltas = 0
            count += 1
            if type(kind) is str and kind in own and (quick(kind, obj) or valid(obj)):
                check.line = number
                summary.records += 1
                self.line = last = number
                stats.events += 1
                event(number, obj)
                continue
            last = take(Record(number, obj, None, raw)) or last
        fasted += counted()
        summary.records += fasted
        stats.events += fasted
        # the last record counted, and the last event applied (where a cut stream is reported)
        check.last = max(last, fast_last)
        self.line = max(self.line, fast_last)
        return count + fasted

    def _fast_message_start(self, event: dict, line: int) -> bool:
        return len(event) == 2 and self._start_message(event.get("message"), line)

    def _fast_delta(self, event: dict, line: int) -> bool:
        if self.message is None or len(event) != 3:
            return False
        delta = event.get("delta")
        index = event.get("index")
        if type(delta) is not dict or type(index) is not int or index < 0:
            return False
        block = self.blocks.get(index)
        if block is None:
            return False
        what = delta.get("type")
        if what == "text_delta":
            text = delta.get("text")
            old = block.get("text")
            if type(text) is not str or type(old) is not str:
                return False
            block["text"] = old + text
            return True
        if what == "input_json_delta":
            piece = delta.get("partial_json")
            if type(piece) is not str:
                return False
            self._json_piece(index, piece, line)
            return True
        if what == "thinking_delta":
            text = delta.get("thinking")
            old = block.get("thinking")
            if type(text) is not str or type(old) is not str:
                return False
            block["thinking"] = old + text
            return True
        if what == "signature_delta":
            block["signature"] = delta.get("signature")
            return True
        return False

    def _fast_start(self, event: dict, line: int) -> bool:
        index = event.get("index")
        block = event.get("content_block")
        if type(index) is not int or type(block) is not dict or len(event) != 3:
            return False
        # (the fast paths take events parsed for them alone: their values become the message's)
        return self._start_block(index, block)

    def _fast_stop(self, event: dict, line: int) -> bool:
        index = event.get("index")
        if type(index) is not int or index < 0 or len(event) != 2:
            return False
        return self._stop_block(index)

    def _fast_message_delta(self, event: dict, line: int) -> bool:
        message = self.message
        delta = event.get("delta")
        if message is None or type(delta) is not dict or not event.keys() <= _MESSAGE_DELTA_KEYS:
            return False
        usage = event.get("usage", _NO_USAGE)
        if usage is not _NO_USAGE and type(usage) is not dict:
            return False
        _message_delta(message, delta, usage)
        return True

    def _fast_message_stop(self, event: dict, line: int) -> bool:
        return len(event) == 1 and self._stop_message(line)

    def _start_message(self, message: Any, line: int) -> bool:
        """A message that starts as it should (``message``, of an event parsed for the fast
        path alone, becomes the one being built: its content is an empty list)."""
        if self.message is not None:
            return False  # the message before is cut: reported the whole way
        if type(message) is not dict or not _plain_start(message):
            return False
        self.message = message
        self.blocks, self.json, self.json_line, self.stopped = {}, {}, {}, set()
        self.start = line
        return True

    def _json_piece(self, index: int, piece: str, line: int) -> None:
        pieces = self.json.get(index)
        if pieces is None:
            self.json[index] = [piece]
            self.json_line[index] = line
        else:
            pieces.append(piece)

    def _start_block(self, index: int, block: dict) -> bool:
        """A block that starts where it should, of a common kind and shape (``block`` is
        the message's own copy)."""
        message = self.message
        if message is None:
            return False
        content = message["content"]
        if index != len(content) or index in self.blocks or not _plain_block(block):
            return False
        content.append(block)
        self.blocks[index] = block
        return True

    def _stop_block(self, index: int) -> bool:
        if self.message is None or index not in self.blocks:
            return False
        pieces = self.json.get(index)
        if pieces:
            text = "".join(pieces)
            if text:
                try:
                    value = orjson.loads(text)
                except orjson.JSONDecodeError:
                    return False  # reported the whole way
                self.blocks[index]["input"] = value
            del self.json[index]
            del self.json_line[index]
        elif pieces is not None:
            del self.json[index]
            del self.json_line[index]
        self.stopped.add(index)
        return True

    def _stop_message(self, line: int) -> bool:
        message = self.message
        if message is None or len(self.stopped) != len(self.blocks):
            return False
        self.message = None
        self.done(line, message, message.get("stop_reason"))
        return True

    def quick(self, kind: str, event: dict) -> bool:
        # what the event schema asks of the common events, checked here
        if kind == "message_stop" or kind == "ping":
            return True
        index = event.get("index")
        if kind == "content_block_stop":
            return type(index) is int and index >= 0
        if kind == "content_block_delta":
            delta = event.get("delta")
            if type(index) is not int or index < 0 or type(delta) is not dict:
                return False
            what = delta.get("type")
            return type(what) is str and what in _DELTAS
        if kind == "message_delta":
            usage = event.get("usage", _NO_USAGE)
            return type(event.get("delta")) is dict and (usage is _NO_USAGE or type(usage) is dict)
        if kind == "content_block_start":
            block = event.get("content_block")
            if type(index) is not int or index < 0 or type(block) is not dict:
                return False
            what = block.get("type")
            if what == "text":
                return type(block.get("text")) is str and type(block.get("citations", [])) in (
                    list,
                    type(None),
                )
            if what == "tool_use":
                return (
                    type(block.get("id")) is str
                    and type(block.get("name")) is str
                    and bool(block["id"])
                    and bool(block["name"])
                    and type(block.get("input")) is dict
                )
            if what == "thinking":
                return (
                    type(block.get("thinking")) is str and type(block.get("signature", "")) is str
                )
        return False

    def __init__(self, emit, sink=None):
        super().__init__(emit, sink)
        self.message: dict | None = None
        self.blocks: dict[Any, dict] = {}  # event index -> block (in the message's content)
        self.json: dict[Any, list[str]] = {}  # event index -> input_json_delta pieces
        self.json_line: dict[Any, int] = {}
        self.stopped: set[Any] = set()

    def event(self, line: int, event: dict) -> None:
        kind = event.get("type")
        if kind == "content_block_delta":
            self.stats.by_type[kind] += 1
            if len(event) != 3:
                self.new_keys(event, _KEYS[kind])
            self._delta(event)
            return
        if type(kind) is not str or kind not in _KNOWN:
            self.unknown(as_key(kind))
            return
        self.stats.by_type[kind] += 1
        self.new_keys(event, _KEYS[kind])
        if kind == "ping":
            return
        if kind == "message_start":
            if self.message is not None:
                self.close(line - 1, "cut")
            message = event.get("message")
            self.message = dict(message) if type(message) is dict else {}
            content = self.message.get("content")
            self.message["content"] = list(content) if type(content) is list else []
            if type(self.message.get("usage")) is dict:
                self.message["usage"] = dict(self.message["usage"])
            self.blocks, self.json, self.json_line, self.stopped = {}, {}, {}, set()
            self.start = line
            return
        if kind == "error":
            error = event.get("error")
            what = error if type(error) is dict else {}
            self.emit(
                "E016",
                f"the stream reports an error ({short(what.get('type'))}: "
                f"{short(what.get('message'))}); the message ends here",
                "/error",
            )
            if self.message is not None:
                self.close(line, "error", report=False)
            return
        message = self.message
        if message is None:
            self.emit(
                "E002",
                f"a {kind} event before message_start: no message is open (the SDK's "
                "accumulate_event raises here; its stream helper leaves the event out)",
                "/type",
            )
            return
        if kind == "content_block_start":
            index = event.get("index")
            if type(index) is not int:
                index = as_key(index)
            block = event.get("content_block")
            block = dict(block) if type(block) is dict else {}
            new = block.get("type")
            if type(new) is str and new not in KNOWN_BLOCKS:
                # a block type the API added later: the SDK appends it as it came, as here
                self.emit(
                    "U003",
                    f"block type {short(new)} is not one msgcli knows: kept as written",
                    "/content_block/type",
                )
            if index in self.blocks:
                self.emit("E003", f"block {short(index)} starts a second time", "/index")
            elif index != len(message["content"]):
                self.emit(
                    "E002",
                    f"block {short(index)} starts while the message holds "
                    f"{len(message['content'])} block(s): an index skipped ahead",
                    "/index",
                )
            message["content"].append(block)
            self.blocks[index] = block
        elif kind == "content_block_stop":
            index = event.get("index")
            if type(index) is not int:
                index = as_key(index)
            if index not in self.blocks:
                self.emit("E002", f"block {short(index)} stops but never started", "/index")
                return
            self.stopped.add(index)
            self._parse_input(index)
        elif kind == "message_delta":
            _message_delta(message, event.get("delta"), event.get("usage"))
        elif kind == "message_stop":
            open_blocks = [i for i in self.blocks if i not in self.stopped]
            if open_blocks:
                self.emit(
                    "E015",
                    f"block(s) {', '.join(map(str, open_blocks))} never stopped before "
                    "message_stop",
                )
                for index in open_blocks:
                    self._parse_input(index)
            self.message = None
            self.done(line, message, message.get("stop_reason"))

    def _delta(self, event: dict) -> None:
        message = self.message
        index = event.get("index")
        if type(index) is not int:
            index = as_key(index)
        delta = event.get("delta")
        if type(delta) is not dict:
            return
        if message is None:
            self.emit(
                "E002",
                "a content_block_delta before message_start: no message is open (the SDK's "
                "accumulate_event raises here; its stream helper leaves the event out)",
                "/type",
            )
            return
        block = self.blocks.get(index)
        kind = delta.get("type")
        if type(kind) is not str:
            kind = as_key(kind)
        if block is None:
            self.emit(
                "E002",
                f"a {short(kind)} for block {short(index)}, which never started "
                "(the SDK raises IndexError here); kept in a block of its own",
                "/index",
            )
            block = {"type": _BLOCK_OF.get(kind, "text")}
            message["content"].append(block)
            self.blocks[index] = block
        if kind == "text_delta":
            block["text"] = joined(block.get("text"), delta.get("text"))
        elif kind == "input_json_delta":
            piece = delta.get("partial_json")
            if isinstance(piece, str):
                self.json.setdefault(index, []).append(piece)
                self.json_line.setdefault(index, self.line)
        elif kind == "thinking_delta":
            block["thinking"] = joined(block.get("thinking"), delta.get("thinking"))
        elif kind == "signature_delta":
            block["signature"] = delta.get("signature")
        elif kind == "citations_delta":
            citations = block.get("citations")
            if type(citations) is not list:
                citations = block["citations"] = []
            citations.append(delta.get("citation"))
        else:
            # a delta type the API added later: the SDK's accumulate_event passes over it
            self.stats.unknown[str(kind)] += 1
            self.emit(
                "U005",
                f"delta type {short(kind)} is not one msgcli knows: skipped, as the SDK does",
                "/delta/type",
            )

    def _parse_input(self, index: Any) -> None:
        pieces = self.json.pop(index, None)
        line = self.json_line.pop(index, self.line)
        if not pieces:
            return
        text = "".join(pieces)
        block = self.blocks[index]
        if not text:
            return
        try:
            block["input"] = orjson.loads(text)
        except orjson.JSONDecodeError:
            self.emit(
                "E006",
                f"the input streamed for tool call {short(block.get('id'))} "
                f"({short(block.get('name'))}) is not valid JSON: {short(text)} (the SDK raises "
                "'Unable to parse tool parameter JSON from model'); the text is kept in "
                "msgcli_partial_json",
                line=line,
            )
            block["msgcli_partial_json"] = text

    def close(self, line: int, state: str, report: bool = True) -> None:
        message = self.message
        if message is None:
            return
        self.message = None
        if report and state == "cut":
            self.emit(
                "E007",
                f"the stream ends before message_stop: the message begun on line {self.start} "
                "is cut off (written as far as it arrived, marked)",
                line=line,
            )
        for index in list(self.json):
            if index in self.blocks:
                _partial_input(self.blocks[index], "".join(self.json.pop(index)))
        self.done(line, message, message.get("stop_reason"), state)

    def open_messages(self) -> list[dict]:
        return [] if self.message is None else [self.message]

    @staticmethod
    def opens_stream(raw: bytes) -> bool:
        # a message_start with nothing to report (the fast path's plain start): whatever
        # came before, it closes the message still open on the line before it (as cut) and
        # starts anew, and nothing else of the stream before reaches past it
        if b"message_start" not in raw:
            return False
        try:
            event = orjson.loads(raw)
        except orjson.JSONDecodeError:
            return False
        if type(event) is not dict or event.get("type") != "message_start":
            return False
        message = event.get("message")
        return type(message) is dict and _plain_start(message) and not nests_deeper(event, raw=raw)

    def cut_before(self, line: int) -> None:
        if self.message is not None:  # as event() at a message_start
            self.close(line - 1, "cut")


#: the lines of a block's stop (the value: its index) and of the message's stop (-1), as the
#: SDKs write them (``to_json()`` and ``model_dump_json()`` alike), the last line of a file
#: perhaps without its line end
_SHORT_LINES = {
    line + end: index
    for index, line in [
        (-1, b'{"type":"message_stop"}'),
        *((i, b'{"index":%d,"type":"content_block_stop"}' % i) for i in range(64)),
    ]
    for end in (b"\n", b"")
}
_SHORT = max(map(len, _SHORT_LINES)) + 1

_BLOCK_OF = {
    "text_delta": "text",
    "thinking_delta": "thinking",
    "signature_delta": "thinking",
    "input_json_delta": "tool_use",
    "citations_delta": "text",
}


def _ping(event: dict, line: int) -> bool:
    return len(event) == 1


def _plain_start(message: dict) -> bool:
    """Whether the message of a ``message_start`` is certainly what the schema asks (a
    response with no content yet, its usage counts whole numbers); else the schema says.
    (Written out key by key: it runs for every message of a stream.)"""
    get = message.get
    try:
        if (
            message["type"] != "message"
            or message["role"] != "assistant"
            or type(message["id"]) is not str
            or type(message["model"]) is not str
            or message["content"] != []
        ):
            return False
    except KeyError:
        return False
    value = get("stop_reason")
    if value is not None and type(value) is not str:
        return False
    value = get("stop_sequence")
    if value is not None and type(value) is not str:
        return False
    usage = get("usage")
    if usage is None:
        return "usage" not in message
    if type(usage) is not dict:
        return False
    get = usage.get
    value = get("input_tokens")
    if value is not None and type(value) is not int:
        return False
    value = get("output_tokens")
    if value is not None and type(value) is not int:
        return False
    value = get("cache_creation_input_tokens")
    if value is not None and type(value) is not int:
        return False
    value = get("cache_read_input_tokens")
    return value is None or type(value) is int


def _plain_block(block: dict) -> bool:
    """Whether the block of a ``content_block_start`` is of a common kind and shape."""
    what = block.get("type")
    if what == "text":
        return type(block.get("text")) is str and type(block.get("citations", [])) in (
            list,
            type(None),
        )
    if what == "tool_use":
        name = block.get("name")
        ident = block.get("id")
        return (
            type(ident) is str
            and type(name) is str
            and bool(ident)
            and bool(name)
            and type(block.get("input")) is dict
        )
    if what == "thinking":
        return type(block.get("thinking")) is str and type(block.get("signature", "")) is str
    return False


def _message_delta(message: dict, delta: Any, usage: Any) -> None:
    """``message_delta``: the stop reason, and the usage counts it carries."""
    if type(delta) is dict:
        message["stop_reason"] = delta.get("stop_reason")
        message["stop_sequence"] = delta.get("stop_sequence")
        if "stop_details" in delta:
            message["stop_details"] = delta["stop_details"]
        if delta.get("container") is not None:
            message["container"] = delta["container"]
    if type(usage) is dict:
        mine = message.get("usage")
        if type(mine) is not dict:
            mine = message["usage"] = {}
        get = usage.get
        mine["output_tokens"] = get("output_tokens")
        # the counts it overwrites only when it carries them, in this order (written out:
        # this runs for every message)
        value = get("input_tokens")
        if value is not None:
            mine["input_tokens"] = value
        value = get("cache_creation_input_tokens")
        if value is not None:
            mine["cache_creation_input_tokens"] = value
        value = get("cache_read_input_tokens")
        if value is not None:
            mine["cache_read_input_tokens"] = value
        value = get("server_tool_use")
        if value is not None:
            mine["server_tool_use"] = value
        value = get("output_tokens_details")
        if value is not None:
            mine["output_tokens_details"] = value


def _partial_input(block: dict, text: str) -> None:
    """A cut tool call keeps the argument text that arrived (and its value, if it parses)."""
    try:
        block["input"] = orjson.loads(text)
    except orjson.JSONDecodeError:
        block["msgcli_partial_json"] = text
