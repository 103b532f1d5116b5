"""The checks every dialect shares, written once over the neutral model.

:func:`check_message` looks at one message on its own; :class:`CrossChecks`
keeps what the checks across records need (tool calls waiting for a result,
ids seen, the last time per group) and reports at :meth:`CrossChecks.finish`
what is still open at the end of the file.

Each check calls ``emit(code, message, pointer, line=None)``; ``line`` is
given only when a finding belongs to another line than the current record.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import orjson

from .dialects.base import DIGEST_CALL as _CALL
from .dialects.base import DIGEST_RESULT as _RESULT
from .dialects.base import Dialect, micros
from .dialects.media import check_source, unknown_key
from .guard import json_text
from .model import (
    WAITING_STATES,
    DataBlock,
    Message,
    TextBlock,
    ToolCallBlock,
    ToolResultBlock,
    pointer,
)
from .textsafe import short

__all__ = ["CrossChecks", "check_message", "digest"]

#: how far back in time a message may go before C002 speaks (clock skew between writers)
TIME_TOLERANCE = timedelta(seconds=1)
_TOLERANCE_US = TIME_TOLERANCE // timedelta(microseconds=1)
#: ids of these forms are kept as numbers, about half the memory of the text
_HEX_DIGITS = b"0123456789abcdef"
#: lower-case hex digits as 0 (every other byte as itself), and a UUID's text so read
_AS_ZERO = bytes.maketrans(_HEX_DIGITS, b"0" * len(_HEX_DIGITS))
_UUID_SHAPE = b"00000000-0000-0000-0000-000000000000"
#: hex text of each length (up to 64) so read
_ZEROS = [b"0" * size for size in range(65)]


def check_message(dialect: Dialect, msg: Message, obj: dict, emit) -> None:
    """The checks on one message (``obj`` is its record) that need nothing from other records."""
    keeps = dialect.keeps_extra_on
    for key in msg.extra:
        emit("S003", unknown_key(key, "message"), pointer((), key))
    if msg.usage is not None:
        for key in msg.usage.extra:
            emit("S003", unknown_key(key, "usage"), pointer(("usage",), key))

    empty = True
    result_roles = dialect.tool_result_roles
    role = msg.role if isinstance(msg.role, str) else None  # else a schema error already
    for block in msg.blocks():
        if block.extra and block.type not in keeps:
            where = f"{_own_type(obj, block)} {dialect.block_word}"
            for key in block.extra:
                emit("S003", unknown_key(key, where), pointer(block.path, key))
        if isinstance(block, TextBlock):
            if block.text and (not isinstance(block.text, str) or block.text.strip()):
                empty = False
            continue
        empty = False
        if isinstance(block, ToolCallBlock):
            _check_tool_input(block, dialect.tool_input_key_of(block), emit)
            name = block.name
            if isinstance(name, str) and name.startswith("__"):
                emit(
                    "T008",
                    f"tool call {short(block.id)} is named {short(name)}, a streaming placeholder: "
                    "the real name was lost when the message was assembled",
                    pointer(block.path, dialect.tool_call_name_key),
                )
        elif isinstance(block, ToolResultBlock):
            if (
                result_roles is not None
                and len(block.path) == 2  # a top-level block, not one nested in an output
                and role is not None
                and role not in result_roles
            ):
                allowed = " or ".join(sorted(result_roles))
                emit(
                    "T007",
                    f"a tool result in a {short(role)} message; {dialect.title} keeps tool "
                    f"results in {allowed} messages",
                    pointer(block.path),
                )
        elif isinstance(block, DataBlock) and block.source is not None:
            check_source(block, emit)
    content = obj.get("content", 0)
    # content of another type (or none at all) is a schema error already; null reads as []
    if empty and (content is None or isinstance(content, (list, str))):
        emit(
            "B001",
            "the message has no content"
            if not msg.content
            else "the message holds only empty text",
            "/content",
        )


def _own_type(obj: dict, block) -> str:
    """The block's type as the record writes it (``tool_use`` in Java, not ``tool_call``)."""
    node: Any = obj
    try:
        for part in block.path:
            node = node[part]
    except (KeyError, IndexError, TypeError):
        return block.type
    kind = node.get("type") if isinstance(node, dict) else None
    return kind if isinstance(kind, str) else block.type


def _check_tool_input(block: ToolCallBlock, input_key: str | None, emit) -> None:
    text = block.input
    if input_key is None or not isinstance(text, str):
        return
    if not text.strip():
        emit(
            "T005",
            f"tool call {short(block.id)} has empty argument text",
            pointer(block.path, input_key),
        )
        return
    try:
        value = orjson.loads(text)
    except orjson.JSONDecodeError as exc:
        emit(
            "T004",
            f"the arguments of tool call {short(block.id)} are not valid JSON ({exc.msg}): "
            f"{short(text)}",
            pointer(block.path, input_key),
        )
        return
    if not isinstance(value, dict):
        kind = "an array" if isinstance(value, list) else f"{short(value)}"
        emit(
            "T004",
            f"the arguments of tool call {short(block.id)} are {kind}, not a JSON object",
            pointer(block.path, input_key),
        )


class CrossChecks:
    """The checks across the records of one file.

    What is kept, per file: every message id and tool-call id seen (with the
    line it was first seen on), the calls still waiting for a result, results
    seen before their call, and the last time per time group. An answered call
    keeps only its id, first line and tool name.

    A message enters as a *digest* (:func:`digest`): the few values these
    checks read, in a tuple that is cheap to send between processes. A worker
    that checks one part of a large file sends its digests to the process that
    owns the file, which feeds them here in file order, so the checks across
    parts are exactly those of a single pass. Every finding names its line.
    """

    __slots__ = (
        "_dialect",
        "_early",
        "_emit",
        "_last_time",
        "_message_ids",
        "_open",
        "_seen",
    )

    def __init__(self, dialect: Dialect, emit):
        self._dialect = dialect
        self._emit = emit
        # message key -> where it was first seen, and the parts seen of it (see
        # Dialect.message_part): its line (a message without parts); a part as
        # ``(sender, first block, unfinished, time, line)``; or ``[line, set of parts]``
        # for a message seen in more than one part (one dict, one value per message: a
        # million messages are held in as little memory as it can)
        self._message_ids: dict[Any, Any] = {}
        # call key -> (line first seen, tool name, id as written) of the latest call with it
        self._seen: dict[Any, tuple] = {}
        # call key -> [(line, path, name, state, id)] calls waiting for a result, oldest first
        self._open: dict[Any, list[tuple]] = {}
        # call key -> [(line, path, name, id)] results that came before any call with their id
        self._early: dict[Any, list[tuple]] = {}
        # time group -> [latest time, its line]
        self._last_time: dict[Any, list] = {}

    def feed(self, line: int, msg: Message) -> None:
        self.feed_digest(line, digest(self._dialect, msg))

    def feed_digest(self, line: int, digest: tuple) -> None:
        """Take in one message, as :func:`digest` made it, read on ``line``."""
        key = digest[0]
        when = digest[2]
        if key is not None:
            # (_compact, written out for the common key: hex or UUID text)
            ckey: Any = key
            if type(key) is str:
                size = len(key)
                if 0 < size <= 64 and key.isascii():
                    shape = key.encode().translate(_AS_ZERO)
                    if shape == _ZEROS[size]:
                        ckey = int("1" + key, 16)
                    elif shape == _UUID_SHAPE:
                        ckey = int("2" + key.replace("-", ""), 16)
            else:
                ckey = _compact(key)
            ids = self._message_ids
            seen = ids.get(ckey)
            if seen is None:
                ids[ckey] = _kept(digest[5], when, line) if len(digest) > 5 else line
            elif (first := _first_line(seen)) == line:
                # (records of one line: the messages of a JSON document written on one line)
                if len(digest) > 5:
                    ids[ckey] = _kept(digest[5], when, line)
            elif not self._another_part(ckey, seen, digest, when):
                self._emit(
                    "I001",
                    f"message id {short(digest[1])} was already used on line {first}",
                    "/id",
                    line=line,
                )
        if when is not None:
            group = digest[3]
            if type(group) is tuple:
                # a message that follows: compared with the latest time before it, which it
                # does not move (Dialect.time_follows)
                last = self._last_time.get(group[0])
                if last is not None and when < last[0] - _TOLERANCE_US:
                    self._older(line, when, last)
            else:
                last = self._last_time.get(group)
                if last is None:
                    self._last_time[group] = [when, line]
                elif when > last[0]:
                    # (the latest time of a group, set in place: no new value per message)
                    last[0] = when
                    last[1] = line
                elif when < last[0] - _TOLERANCE_US:
                    self._older(line, when, last)
        tools = digest[4]
        if tools:
            for item in tools:
                if item[0] == _CALL:
                    self._call(line, item)
                else:
                    self._result(line, item)

    def _another_part(self, ckey: Any, seen: Any, digest: tuple, when: Any) -> bool:
        """Whether a record with an id seen before (``seen``: what is kept of it) is another
        part of that message: its framework wrote the message in parts (the same sender;
        parts that start with different blocks; split from a reply still going on, or
        copies of one message made at one time), not the same record twice nor another
        message."""
        if len(digest) <= 5 or (type(seen) is int and seen < _PACKED):
            return False
        if type(seen) is list:
            first_line, parts = seen
        else:
            *part, first_line = _unpacked(seen)
            parts = {tuple(part)}
        who, first, _open = digest[5]
        if any(s[1] == first for s in parts):
            return False  # the same part again
        if not any(s[0] == who and (s[2] or (when is not None and s[3] == when)) for s in parts):
            return False
        parts.add((who, first, _open, when))
        self._message_ids[ckey] = [first_line, parts]
        return True

    def _older(self, line: int, when: int, last: list[int]) -> None:
        """C002: the message on ``line`` is older than the latest before it, ``last``."""
        span = _span(timedelta(microseconds=last[0] - when))
        self._emit(
            "C002",
            f"this message is {span} older than the one on line {last[1]}",
            "",
            line=line,
        )

    def _call(self, line: int, item: tuple) -> None:
        """A tool call (``(_CALL, key, path, name, state, id)``) on ``line``."""
        _, key, path, name, state, cid = item
        key = _compact(key)
        seen = self._seen.get(key)
        if seen is not None:
            self._emit(
                "I002",
                f"tool call id {short(cid)} was already used on line {seen[0]}",
                pointer(path, self._dialect.tool_call_id_key),
                line=line,
            )
        self._seen[key] = (line, name, cid)
        early = self._early.pop(key, None) if self._early else None
        if early is None:
            waiting = self._open.get(key)
            if waiting is None:
                self._open[key] = [(line, path, name, state, cid)]
            else:
                waiting.append((line, path, name, state, cid))
            return
        for r_line, r_path, r_name, _ in early:
            self._emit(
                "T003",
                f"this result comes before the call it answers ({short(cid)}, line {line})",
                pointer(r_path),
                line=r_line,
            )
            self._check_name(r_line, r_path, r_name, line, name, cid)

    def _result(self, line: int, item: tuple) -> None:
        """A tool result (``(_RESULT, key, path, name, id)``) on ``line``."""
        _, key, path, name, rid = item
        key = _compact(key)
        waiting = self._open.get(key)
        if waiting:
            c_line, _, c_name, _, c_id = waiting.pop(0)
            if not waiting:
                del self._open[key]
        elif key in self._seen:
            # another result for an answered call (e.g. LoongFlow's in_progress, then the final)
            c_line, c_name, c_id = self._seen[key]
        else:
            self._early.setdefault(key, []).append((line, path, name, rid))
            return
        if name is not c_name and name != c_name:  # (the same name: nothing to say)
            self._check_name(line, path, name, c_line, c_name, c_id)

    def _check_name(self, line, path, name, call_line, call_name, call_id) -> None:
        if (
            isinstance(name, str)
            and isinstance(call_name, str)
            and name
            and call_name
            and name != call_name
        ):
            self._emit(
                "T006",
                f"this result names tool {short(name)} but call {short(call_id)} "
                f"(line {call_line}) is for {short(call_name)}",
                pointer(path),
                line=line,
            )

    def finish(self) -> None:
        emit = self._emit
        for results in self._early.values():
            for line, path, name, rid in results:
                emit(
                    "T001",
                    f"tool result {short(rid)} ({short(name)}) answers no tool call in this file",
                    pointer(path),
                    line=line,
                )
        for calls in self._open.values():
            for line, path, name, state, cid in calls:
                if not (isinstance(state, str) and state in WAITING_STATES):
                    emit(
                        "T002",
                        f"tool call {short(cid)} ({short(name)}) never gets a result",
                        pointer(path),
                        line=line,
                    )


#: what is kept of a message part (see CrossChecks._message_ids) packed in one int: the
#: line in the lowest 40 bits, then ``unfinished`` (1 bit), the first block and the sender
#: (32 bits each), the time (62 bits), and a 1 above them all
_LINE_BITS, _KEY_BITS, _TIME_BITS = 40, 32, 62
_TOP = 2 * _KEY_BITS + _TIME_BITS
_PACKED = 1 << (_LINE_BITS + 1 + _TOP)
_HIGH = 1 << _TOP
#: where each value of a packed part starts (see _kept)
_PACKED_FIRST = _LINE_BITS + 1
_PACKED_WHO = _PACKED_FIRST + _KEY_BITS
_PACKED_TIME = _PACKED_WHO + _KEY_BITS
_PACKED_HIGH = _HIGH << _PACKED_FIRST


def _kept(part: tuple, when: Any, line: int) -> Any:
    """A message part as it is kept: one int when its values fit (the common case, in a
    quarter of the memory of a tuple of them), else ``(sender, first, unfinished, time,
    line)``."""
    who, first, unfinished = part
    # (a non-negative int below 2**n is one that n bits shifted off leave 0: a negative
    # one leaves -1; a bool is no int here; a line is an int)
    if (
        type(who) is type(first) is type(when) is int
        and type(unfinished) is bool
        and not ((who | first) >> _KEY_BITS | when >> _TIME_BITS | line >> _LINE_BITS)
    ):
        return (
            _PACKED_HIGH
            | when << _PACKED_TIME
            | who << _PACKED_WHO
            | first << _PACKED_FIRST
            | unfinished << _LINE_BITS
            | line
        )
    return (who, first, unfinished, when, line)


def _unpacked(seen: Any) -> tuple:
    """``(sender, first, unfinished, time, line)`` of a part kept by :func:`_kept`."""
    if type(seen) is tuple:
        return seen
    line = seen & ((1 << _LINE_BITS) - 1)
    rest = seen >> _LINE_BITS
    unfinished = bool(rest & 1)
    rest >>= 1
    key_mask = (1 << _KEY_BITS) - 1
    first = rest & key_mask
    who = (rest >> _KEY_BITS) & key_mask
    when = (rest >> (2 * _KEY_BITS)) & ((1 << _TIME_BITS) - 1)
    return who, first, unfinished, when, line


def _first_line(seen: Any) -> int:
    """The line a message id was first seen on, from what is kept of it."""
    if type(seen) is int:
        return seen if seen < _PACKED else seen & ((1 << _LINE_BITS) - 1)
    return seen[-1] if type(seen) is tuple else seen[0]


def _compact(key: Any) -> Any:
    """``key`` in the form it is kept in: lower-case hex and UUID text become numbers.

    The leading 1 or 2 keeps leading zeros and tells the two forms apart; any other
    text stays text, and an int key stays an int (``digest`` keys are str or int), so
    two keys are equal exactly when their compact forms are.
    """
    if type(key) is str:
        size = len(key)
        if 0 < size <= 64 and key.isascii():
            # (one pass tells both forms: each hex digit read as 0, anything else as itself)
            shape = key.encode().translate(_AS_ZERO)
            if shape == _ZEROS[size]:
                return int("1" + key, 16)
            if shape == _UUID_SHAPE:
                return int("2" + key.replace("-", ""), 16)
    elif type(key) is int:
        return ("int", key)
    return key


def _pair_key(dialect: Dialect, value: Any) -> Any:
    """The form in which an id is compared, or ``None`` when there is no usable id."""
    if value is None or value == "" or not isinstance(value, (str, int)):
        return None
    key = dialect.pair_key(value)
    return key if isinstance(key, (str, int)) else None


def digest(dialect: Dialect, msg: Message) -> tuple:
    """What :class:`CrossChecks` needs of a message: ``(id key, id, time, time group, tools)``
    (a time group in a 1-tuple: the message follows, see ``Dialect.time_follows``).

    ``tools`` lists the message's tool calls and results in block order, each
    as ``(_CALL, key, path, name, state, id)`` or ``(_RESULT, key, path, name, id)``;
    those with no usable id are left out, as the checks skip them.
    """
    when = None
    group_key: Any = None
    if msg.timestamp is not None:
        parsed = dialect.parse_time(msg.timestamp)
        if parsed is not None:
            when = micros(parsed)
            group = dialect.time_group(msg)
            group_key = (
                group if group is None or isinstance(group, (str, int)) else json_text(group)
            )
            if dialect.time_follows(msg):
                group_key = (group_key,)  # (see CrossChecks.feed_digest)
    tools: list[tuple] = []
    parked = dialect.parked(msg.metadata)
    for block in msg.blocks():
        if isinstance(block, ToolCallBlock):
            key = _pair_key(dialect, block.id)
            if key is not None:
                state = "parked" if parked else block.state
                tools.append((_CALL, key, block.path, block.name, state, block.id))
        elif isinstance(block, ToolResultBlock):
            key = _pair_key(dialect, block.id)
            if key is not None:
                tools.append((_RESULT, key, block.path, block.name, block.id))
    part = dialect.message_part(msg)
    out = (_pair_key(dialect, msg.id), msg.id, when, group_key, tuple(tools))
    return out if part is None else (*out, part)


def _span(delta: timedelta) -> str:
    seconds = delta.total_seconds()
    if seconds < 120:
        return f"{seconds:.1f} s"
    if seconds < 7200:
        return f"{seconds / 60:.0f} min"
    if seconds < 172800:
        return f"{seconds / 3600:.1f} h"
    return f"{seconds / 86400:.0f} days"
