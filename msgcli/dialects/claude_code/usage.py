"""The usage of each API response of a Claude Code session, for ``msgcli usage``.

The responses are those ``msgcli stats`` counts (:mod:`.stats`): one per API response
(the records of one ``message.id`` merged, the usage of the last of them), a response met
again in the same file not counted again, the synthetic records Claude Code writes itself
skipped. Across files a response is one by its ``message.id`` and ``requestId``
(:attr:`msgcli.model.ResponseUsage.key`), as a resumed session copies the responses of the
one it resumes.

:func:`scan` is the lean path: it finds the records that carry a usage in the file's
bytes and decodes only those, into a type that declares only the keys it needs (the
content of a response is skipped by the decoder, never built). It gives the same responses
as reading every record (:class:`.assemble.Assembler` and :func:`responses`) and answers
``None``, so that the file is read whole, wherever that could differ: a record it cannot
decode, an ``assistant`` record without usage between two records of one response, or a
response held open behind many records.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import msgspec
import orjson

from ...model import Message, ResponseUsage
from .known import REPEATED, SYNTHETIC_MODEL

__all__ = ["record_time", "response_key", "responses", "scan"]

PROVIDER = "anthropic"
#: the most records held behind an open response (:data:`.assemble._MAX_HELD`): past it the
#: lean path hands the file to the whole path
_HELD = 10_000
_CHUNK = 8 << 20
_USAGE = b'"usage"'
#: (a file of spaced JSON is no file for the lean path: see :func:`_is_session`)
_USER = b'"type":"user"'
_ASSISTANT = b'"type":"assistant"'


def _count(value: Any) -> int:
    return value if type(value) is int and value > 0 else 0


def record_time(value: Any) -> datetime | None:
    """A record's ``timestamp`` as an aware datetime."""
    if type(value) is not str:
        return None
    if value.endswith("Z"):  # (read by fromisoformat from Python 3.11 on only)
        value = value[:-1] + "+00:00"
    try:
        when = datetime.fromisoformat(value)
    except ValueError:
        return None
    return when if when.tzinfo is not None else when.replace(tzinfo=UTC)


def response_key(mid: str, request: Any) -> str:
    """What makes a response the same in every file: its message id and request id (one
    string, the lightest key to hold for every response of a large folder)."""
    return f"claude-code\x00{mid}\x00{request if isinstance(request, str) else ''}"


def _agent(agent: Any, side: Any) -> str | None:
    if isinstance(agent, str) and agent:
        return agent
    return "subagent" if side is True else None


def responses(msg: Message) -> list[ResponseUsage]:
    if msg.role != "assistant" or msg.usage is None:
        return []
    fields = msg.fields
    model = fields.get("model")
    if model == SYNTHETIC_MODEL or fields.get(REPEATED):
        return []
    usage = msg.usage
    request = fields.get("requestId")
    session = fields.get("sessionId")
    project = fields.get("cwd")
    return [
        ResponseUsage(
            model=model if isinstance(model, str) else None,
            input=_count(usage.input_tokens),
            output=_count(usage.output_tokens),
            cache_read=_count(usage.cached_tokens),
            cache_write=_count(usage.cache_creation_tokens),
            time=record_time(msg.timestamp),
            session=session if isinstance(session, str) else None,
            project=project if isinstance(project, str) else None,
            agent=_agent(fields.get("agentId"), fields.get("isSidechain")),
            provider=PROVIDER,
            key=response_key(msg.id, request) if isinstance(msg.id, str) and msg.id else None,
        )
    ]


# -- the lean path ------------------------------------------------------------------------


class _Usage(msgspec.Struct, gc=False):
    input_tokens: int | None = None
    output_tokens: int | None = None
    cache_read_input_tokens: int | None = None
    cache_creation_input_tokens: int | None = None


class _Message(msgspec.Struct, gc=False):
    id: str | None = None
    model: str | None = None
    usage: _Usage | None = None


class _Record(msgspec.Struct, gc=False):
    type: str | None = None
    message: _Message | None = None
    requestId: str | None = None
    timestamp: str | None = None
    sessionId: str | None = None
    cwd: str | None = None
    agentId: str | None = None
    isSidechain: bool | None = None


_decode = msgspec.json.Decoder(_Record).decode


class _Unsure(Exception):
    """The lean path cannot tell what the whole path would count: read the file whole."""


def _is_prompt_line(line: bytes) -> bool:
    """Whether a ``user`` record starts a new turn (the rule of :mod:`.assemble`)."""
    try:
        obj = orjson.loads(line)
    except orjson.JSONDecodeError:
        raise _Unsure from None
    if type(obj) is not dict or obj.get("type") != "user":
        return False
    message = obj.get("message")
    content = message.get("content") if isinstance(message, dict) else None
    if isinstance(content, list):
        return not any(isinstance(b, dict) and b.get("type") == "tool_result" for b in content)
    return True


class _Scan:
    __slots__ = ("held", "names", "open", "out", "run", "seen")

    def __init__(self) -> None:
        #: the models, sessions, folders and agents met, each held once however often said
        self.names: dict[str, str] = {}
        self.out: list[ResponseUsage] = []
        self.seen: set[str] = set()
        self.open: str | None = None  # the message id of the open response
        self.run: list[Any] | None = None  # [first record, last usage] of the open response
        self.held = 0  # records held behind it

    def gap(self, buf: bytes, start: int, end: int) -> None:
        """What lies between two records that carry usage: an ``assistant`` record without
        usage there, the lean path cannot place (it would open a response of its own)."""
        if start < end and buf.find(_ASSISTANT, start, end) >= 0:
            raise _Unsure

    def closes(self, buf: bytes, start: int, end: int) -> bool:
        """Whether what lies in ``buf[start:end]`` closes the open response: a prompt, or so
        many records held behind it that the whole path would close it (then the lean path
        is unsure). Asked only where it matters: before a record of the open response, and
        at the end of a chunk (whose bytes are then let go)."""
        self.held += buf.count(b"\n", start, end)
        if self.held >= _HELD:
            raise _Unsure
        at = buf.find(_USER, start, end)
        while at >= 0:
            first = max(buf.rfind(b"\n", start, at) + 1, start)
            last = buf.find(b"\n", at, end)
            last = end if last < 0 else last
            if _is_prompt_line(buf[first:last]):
                return True
            at = buf.find(_USER, last, end)
        return False

    def passing(self, buf: bytes, gap: int, end: int) -> None:
        """A record that is no response (a prompt that happens to say "usage"), and what lies
        before it: they may close the open response."""
        if self.open is not None and self.closes(buf, gap, min(end + 1, len(buf))):
            self.close()

    def close(self) -> None:
        run = self.run
        if run is not None and run[1] is not None:
            self.out.append(_response(run[0], run[1], self.names, run[2]))
        self.open = self.run = None
        self.held = 0

    def record(self, buf: bytes, start: int, end: int, gap: int) -> None:
        """The record in ``buf[start:end]``, which follows what lies in ``buf[gap:start]``."""
        line = memoryview(buf)[start:end]
        try:
            rec = _decode(line)
        except msgspec.ValidationError:
            try:
                obj = orjson.loads(line)
            except orjson.JSONDecodeError:
                raise _Unsure from None
            if type(obj) is dict and obj.get("type") == "assistant":
                raise _Unsure from None
            self.passing(buf, gap, end)
            return
        except msgspec.DecodeError:
            raise _Unsure from None
        if rec.type != "assistant":
            self.passing(buf, gap, end)
            return
        message = rec.message
        if message is None or rec.sessionId is None:
            raise _Unsure
        mid = message.id or None
        if mid is not None and mid == self.open and not self.closes(buf, gap, start):
            if message.usage is not None and self.run is not None:
                self.run[1] = message.usage
            return
        if mid is None:  # no response of its own to merge: counted as it is
            if message.model != SYNTHETIC_MODEL and message.usage is not None:
                self.out.append(_response(rec, message.usage, self.names))
            return
        self.close()
        self.open = mid
        key = response_key(mid, rec.requestId)
        if key in self.seen or message.model == SYNTHETIC_MODEL:
            self.seen.add(key)
            return  # a response met again, or synthetic: held open, never counted
        self.seen.add(key)
        self.run = [rec, message.usage, key]  # (its usage may come with a later record)


def _response(
    rec: _Record, usage: _Usage, names: dict[str, str], key: str | None = None
) -> ResponseUsage:
    message = rec.message
    assert message is not None
    model, session, project = message.model, rec.sessionId, rec.cwd
    return ResponseUsage(
        model=names.setdefault(model, model) if model is not None else None,
        input=_count(usage.input_tokens),
        output=_count(usage.output_tokens),
        cache_read=_count(usage.cache_read_input_tokens),
        cache_write=_count(usage.cache_creation_input_tokens),
        time=record_time(rec.timestamp),
        session=names.setdefault(session, session) if session is not None else None,
        project=names.setdefault(project, project) if project is not None else None,
        agent=_agent(rec.agentId, rec.isSidechain),
        provider=PROVIDER,
        key=key,
    )


def _is_session(head: bytes, classify: Any) -> bool:
    """Whether the file's first record is one of a Claude Code session file (``classify``:
    the dialect's) and the file is plain JSON lines (not compressed, no byte order mark)."""
    from ..base import MESSAGE

    line = head.split(b"\n", 1)[0].strip()
    if not line.startswith(b"{"):
        return False
    try:
        obj = orjson.loads(line)
    except orjson.JSONDecodeError:
        return False
    if b'": ' in line:
        return False  # (spaced JSON: the patterns the lean path looks for are compact)
    return classify(obj) == MESSAGE and "agentType" not in obj


def scan(path: str, classify: Any) -> list[ResponseUsage] | None:
    """The responses of the session file at ``path`` by the lean path, or ``None``;
    ``classify``: the dialect's :meth:`~msgcli.dialects.base.Dialect.classify`."""
    try:
        with open(path, "rb") as stream:
            head = stream.read(1 << 16)
            if not _is_session(head, classify):
                return None
            stream.seek(0)
            return _scan(stream)
    except (OSError, _Unsure):
        return None


def _scan(stream: Any) -> list[ResponseUsage]:
    state = _Scan()
    carry = b""
    while True:
        chunk = stream.read(_CHUNK)
        if not chunk:
            buf, final = carry, True
        else:
            buf = carry + chunk if carry else chunk
            final = False
        end = len(buf) if final else buf.rfind(b"\n") + 1
        if end <= 0 and not final:
            carry = buf
            continue
        pos = 0
        while True:
            at = buf.find(_USAGE, pos, end)
            if at < 0:
                state.gap(buf, pos, end)
                if state.open is not None and state.closes(buf, pos, end):
                    state.close()
                break
            first = buf.rfind(b"\n", pos, at) + 1
            if first < pos:
                first = pos
            last = buf.find(b"\n", at, end)
            if last < 0:
                last = end
            state.gap(buf, pos, first)
            state.record(buf, first, last, pos)
            pos = last + 1
        if final:
            break
        carry = buf[end:]
    state.close()
    return state.out
