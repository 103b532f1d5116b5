"""What the provider wire-form dialects share (``openai-chat``, ``openai-responses``,
``anthropic``): the replayer base, and the checks over a conversation held in one record.

A provider stream holds one response after another (one per streamed API call); the
replayer keeps only the response being built, and writes each one, as the provider's
SDK would return it, as soon as the next begins or the log ends.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..model import Message, Usage, pointer
from ..records import loads_exact
from ..replayers import MARK_KEY, Replayer, Sink
from ..textsafe import short
from .base import MESSAGE, Dialect

Emit = Callable[..., None]


class WireReplayer(Replayer):
    """A provider stream's state machine: :meth:`event` applies one event."""

    def __init__(self, emit: Emit, sink: Sink | None = None):
        super().__init__(emit, sink)
        self.start = 0  # the line of the event that opened the response being built

    def feed(self, line: int, event: dict, valid: bool = True) -> None:
        self.line = line
        self.stats.events += 1
        self.event(line, event)

    #: the key and the values that make a record one of this stream's events for sure
    lean_key = "type"
    lean_types: frozenset[str] = frozenset()

    def quick(self, kind: str, event: dict) -> bool:
        """Whether an event is certainly valid without the schema (its common shape)."""
        return False

    def fast_paths(self) -> dict[str, Callable[[dict, int], bool]]:
        """Per event type, a function ``(event, line)`` that applies an event of that type in
        place when it is certainly valid and has nothing to report, and says so (``True``);
        ``False`` leaves the event untouched for the whole way (schema, then :meth:`event`)."""
        return {}

    def lean(self, lines: Any, check: Any) -> int:
        """Replay the rest of a JSONL log from its numbered lines, in a loop of its own;
        ``check`` (the file's checker) keeps the rest: each event of this stream goes to its
        fast path (:meth:`fast_paths`), else is checked against its schema (or :meth:`quick`)
        and applied by :meth:`event`; any other line goes to ``check.take`` as a record.
        Returns how many records it read; ``check.last`` is the line of the last one."""
        from ..records import collector_paused

        # the loop makes no reference cycles (parsed events, the message being built)
        with collector_paused():
            return self._lean(lines, check)

    def _lean(self, lines: Any, check: Any) -> int:
        import orjson

        from ..guard import RECORD_DEPTH, exact_loads, may_hold_big_int, nests_deeper
        from ..records import Record, not_object, records_of_lines, too_deep

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
        key = self.lean_key
        take = check.take
        count = 0
        last = check.last  # the line of the last record counted
        fast_last = 0  # the line of the last event a fast path applied
        # events the fast paths applied, by type, in the order the types first came; added
        # to the stats before anything else counts (so they keep that order)
        tally: dict[str, int] = {}
        fasted = 0

        def counted() -> int:
            n = 0
            for kind, k in tally.items():
                by_type[kind] += k
                n += k
            tally.clear()
            return n

        for number, raw in lines:
            try:
                obj = loads(raw)
            except bad_json:
                if not raw.strip():
                    continue
                fasted += counted()
                # the rest the reader's way: it says precisely what is wrong with a line
                for record in records_of_lines(_chain([(number, raw)], lines)):
                    count += 1
                    last = take(record) or last
                break
            count += 1
            try:
                kind = obj.get(key)
                apply = fast.get(kind)
            except AttributeError:  # a JSON value that is no object
                fasted += counted()
                last = take(Record(number, None, not_object(obj))) or last
                continue
            except TypeError:  # a type that is no name (a list, an object)
                apply = None
            # (a line shorter than the depth limit cannot nest past it)
            if len(raw) > RECORD_DEPTH and nests_deeper(obj, raw=raw):
                fasted += counted()
                last = take(Record(number, None, too_deep())) or last
                continue
            if apply is not None and apply(obj, number):
                try:
                    tally[kind] += 1
                except KeyError:
                    tally[kind] = 1
                fast_last = number
                continue
            fasted += counted()
            if big(raw):  # (an integer beyond 64 bits, read exactly as the reader does)
                obj = exact_loads(raw, obj)
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
        return count

    def count(self, kind: str) -> None:
        self.stats.by_type[kind] += 1

    #: the top-level keys msgcli knows on this stream's events (any other is kept, or
    #: passed over as the SDK passes over it: an info finding, U002)
    event_keys: frozenset[str] = frozenset()

    def new_keys(self, event: dict, known: frozenset[str] | None = None) -> None:
        """An info finding (U002) for each key of ``event`` msgcli does not know."""
        known = self.event_keys if known is None else known
        if event.keys() <= known:
            return
        for key in event:
            if key not in known:
                self.emit(
                    "U002",
                    f"field {short(key)} is not one msgcli knows on this event: passed over, "
                    "as the SDK does",
                    "/" + escape(key),
                )

    def unknown(self, kind: Any) -> None:
        """An event of a type msgcli does not know: counted and skipped, as the provider's
        SDK skips it (an info finding: the API adds event types)."""
        self.stats.unknown[str(kind)] += 1
        what = "an event without a type" if kind is None else f"event type {short(kind)}"
        self.emit("U004", f"{what} is not one msgcli knows: skipped, as the SDK does", "/type")

    def event(self, line: int, event: dict) -> None:
        raise NotImplementedError

    def done(self, line: int, response: dict, reason: Any, state: str | None = None) -> None:
        """Write a response. ``state`` (``cut``, ``error``, ``open``) marks one that did
        not finish, with the line where it stopped."""
        stats = self.stats
        if state is None:
            stats.completed += 1
            if type(reason) is str:  # (the common case first: a string is its own name)
                stats.finished_reasons[reason] += 1
            else:
                scalar = reason is None or type(reason) in (int, float, bool)
                # (a reason may be a value nested as deep as the reader takes: shown short)
                stats.finished_reasons[str(reason) if scalar else short(reason, 40)] += 1
        else:
            stats.cut += 1
            response[MARK_KEY] = {"state": state, "line": line, "from": self.start}
        # (Replayer.write, written out: this runs once a response)
        stats.messages += 1
        sink = self._sink
        if sink is not None:
            sink(line, response)

    def finish(self, line: int, cut: bool = False) -> None:
        self.close(line, "open" if cut else "cut")

    def close(self, line: int, state: str) -> None:
        """The log ends (or a new response begins) while a response is open."""
        raise NotImplementedError


def _chain(first: list, rest: Any) -> Any:
    yield from first
    yield from rest


def joined(text: Any, piece: Any) -> str:
    """A streamed text with one more delta (what is not text on either side counts as none)."""
    text = text if isinstance(text, str) else ""
    return text + piece if isinstance(piece, str) else text


def parse_arguments(text: Any) -> tuple[Any, str | None]:
    """A tool call's argument text parsed, and what is wrong with it (``None``: a JSON object)."""
    import orjson

    if not isinstance(text, str):
        return None, "are not a string"
    if not text.strip():
        return {}, None
    try:
        value = loads_exact(text)
    except orjson.JSONDecodeError:
        return None, f"are not valid JSON: {short(text)}"
    if type(value) is not dict:
        return value, "are JSON but not an object"
    return value, None


class Pairing:
    """Tool calls and their results inside one conversation (one record).

    ``call(id, name, pointer)`` and ``result(id, pointer)`` in message order;
    ``finish()`` reports calls that never got a result. Every finding points into
    the record.
    """

    __slots__ = ("_answered", "_emit", "_open")

    def __init__(self, emit: Emit):
        self._emit = emit
        self._open: dict[Any, tuple[Any, str]] = {}
        self._answered: dict[Any, str] = {}

    def call(self, cid: Any, name: Any, ptr: str) -> None:
        if not isinstance(cid, str) or not cid:
            return
        if cid in self._open or cid in self._answered:
            self._emit("I002", f"tool call id {short(cid)} is used twice", ptr)
            return
        self._open[cid] = (name, ptr)

    def result(self, cid: Any, ptr: str) -> None:
        if not isinstance(cid, str) or not cid:
            return
        if cid in self._open:
            del self._open[cid]
            self._answered[cid] = ptr
        elif cid in self._answered:
            self._emit(
                "T010",
                f"tool call {short(cid)} is answered a second time (first at "
                f"{self._answered[cid]})",
                ptr,
            )
        else:
            self._emit("T001", f"tool result {short(cid)} answers no tool call before it", ptr)

    def pending(self) -> list[Any]:
        return list(self._open)

    def finish(self) -> None:
        for cid, (name, ptr) in self._open.items():
            self._emit("T002", f"tool call {short(cid)} ({short(name)}) never gets a result", ptr)
        self._open.clear()


# -- the dialects ---------------------------------------------------------------


class WireDialect(Dialect):
    """A provider's wire forms. A record is an event of a stream, one message, or a
    *conversation*: a request body, a ``conversations.jsonl`` line, a fine-tuning line or
    a final response object, which holds several messages (:meth:`expand`)."""

    block_word = "block"
    wire_form = True
    # the SDKs skip an event or delta type they do not know and keep a field or block they
    # do not know: what is merely new is an info finding (see Dialect.tolerant)
    tolerant = True
    own_rules = frozenset({"B005", "B006", "B007", "B008", "B009", "B010", "B011"})

    def conversation(self, obj: dict) -> list[tuple[tuple, dict]] | None:
        """``[(path, message)]`` of a record that holds several messages, else ``None``."""
        raise NotImplementedError

    def read_message(self, obj: dict, path: tuple = ()) -> Message:
        raise NotImplementedError

    def expand(self, obj: dict) -> list[dict]:
        """The messages of a record, each as this dialect's message JSON."""
        found = self.conversation(obj)
        return [obj] if found is None else [m for _, m in found]

    def read_in(self, obj: dict) -> list[tuple[dict, Message]]:
        """The messages of a record (:meth:`expand`), each read with the pointers of its
        blocks into the record (``/messages/3/content/0``), as the findings give them."""
        found = self.conversation(obj) if isinstance(obj, dict) else None
        if found is None:
            return [(obj, self.read(obj))]
        expanded = self.expand(obj)
        if len(expanded) != len(found):
            return [(one, self.read(one)) for one in expanded]
        out = []
        for (path, _), one in zip(found, expanded, strict=True):
            msg = self.read_message(one, path)
            if len(path) == 1 and not isinstance(obj.get(path[0]), dict):
                # a message made of a field (a system prompt, instructions): its content is there
                inner = (*path, "content")
                for block in msg.blocks():
                    if block.path[:2] == inner:
                        block.path = (*path, *block.path[2:])
            out.append((one, msg))
        return out

    def read(self, obj: dict) -> Message:
        if not isinstance(obj, dict):
            return Message(dialect=self.name)
        found = self.conversation(obj)
        if found is None:
            return self.read_message(obj)
        # a whole conversation: its checks run in check(); the file-wide ones see nothing
        msg = Message(dialect=self.name, role=None)
        msg.fields["messages"] = len(found)
        usage = obj.get("usage")
        if isinstance(usage, dict):
            msg.usage = self.read_usage(usage)
        return msg

    def read_usage(self, usage: dict) -> Usage:
        return Usage()

    def same_turn(self, before: Message, msg: Message) -> bool:
        # a reply in Responses is one output item each for its reasoning, its text and every
        # call; Anthropic joins consecutive turns of one role; chat may split one likewise
        return before.role == "assistant" and msg.role == "assistant"

    #: the keys msgcli knows on a message of this dialect, and the types of content blocks
    #: (parts) it knows: any other is kept, an info finding (U002, U003)
    message_keys: frozenset[str] = frozenset()
    block_types: frozenset[str] = frozenset()

    def claims(self, obj: dict) -> str | None:
        # a message (a role and content), or a conversation (a list of messages), that
        # holds a key or a block type msgcli does not know
        if "messages" in obj:
            messages = obj["messages"]
            return MESSAGE if isinstance(messages, list) and "role" not in obj else None
        role = obj.get("role")
        if type(role) is str and role in self.roles and ("content" in obj or "tool_calls" in obj):
            return MESSAGE
        return None

    def is_new(self, obj: dict) -> bool:
        # a record with a role is a message, whatever is wrong with it
        return "role" not in obj

    #: the roles of this dialect's messages (what :meth:`claims` takes)
    roles: frozenset[str] = frozenset()

    def check(self, obj: dict, msg: Message, emit: Emit) -> None:
        found = self.conversation(obj)
        if found is None:
            self.check_new(obj, "", emit)
            return
        for path, message in found:
            if message is not obj.get(path[0]) and len(path) == 1:
                continue  # (a system prompt or instructions made into a message)
            self.check_new(message, pointer(path), emit)
        self.check_conversation(obj, found, emit)

    def check_new(self, message: dict, where: str, emit: Emit) -> None:
        """What is merely new in one message: a key msgcli does not know (U002), a content
        block of a type it does not know (U003). Both are kept as written."""
        known = self.message_keys
        if not message.keys() <= known:
            for key in message:
                if key not in known:
                    emit(
                        "U002",
                        f"field {short(key)} is not one msgcli knows on {self.title} messages: "
                        "kept",
                        f"{where}/{escape(key)}",
                    )
        content = message.get("content")
        if type(content) is list:
            types = self.block_types
            for i, block in enumerate(content):
                kind = block.get("type") if type(block) is dict else None
                if type(kind) is str and kind not in types:
                    emit(
                        "U003",
                        f"block type {short(kind)} is not one msgcli knows: kept as written",
                        f"{where}/content/{i}/type",
                    )

    def check_conversation(self, obj: dict, found: list[tuple[tuple, dict]], emit: Emit) -> None:
        pass


def escape(key: str) -> str:
    """A key as a JSON pointer's step."""
    return key.replace("~", "~0").replace("/", "~1")


def reasoning_tokens(usage: Any) -> Any:
    """The reasoning tokens an OpenAI usage object counts (chat or Responses), or None."""
    if not isinstance(usage, dict):
        return None
    for key in ("completion_tokens_details", "output_tokens_details"):
        details = usage.get(key)
        if isinstance(details, dict) and details.get("reasoning_tokens") is not None:
            return details["reasoning_tokens"]
    return None
