"""Writing any log as OTLP JSON under the current GenAI conventions (``convert --to
otel``), and sending it to an OTLP/HTTP endpoint (``export --otlp URL``).

The log becomes one trace per agent turn (a user's prompt and every model response and
tool run up to the next prompt): an ``invoke_agent`` span at the root, under it a
``chat`` span per model response (``gen_ai.input.messages``: the messages since the response
before it, with ``msgcli.input.messages.offset`` saying how many came before them;
``gen_ai.output.messages``: the response; its usage, model, provider, finish reason)
and an ``execute_tool`` span per tool result (call id, arguments, result). Times come from
the log (a message without one takes the time of the one before it); ids are lowercase
hex, made from the log's content so that a conversion written twice is the same. Each
trace is one line of ``{"resourceSpans": [...]}``, as the OTLP JSON file exporter writes.
Messages after the last model response are kept on a last ``invoke_agent`` span.
"""

from __future__ import annotations

import hashlib
from datetime import UTC, datetime
from typing import Any

import orjson

from ...converters.base import Out, Writer
from ...guard import deep_dumps
from ...model import (
    WAITING_STATES,
    Block,
    DataBlock,
    HintBlock,
    Message,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
    ToolResultBlock,
    Turn,
    UnknownBlock,
    ValueBlock,
)
from .. import get_dialect
from .genai import KNOWN_PARTS

__all__ = ["WRITER", "OtelWriter", "value", "write_log"]

SCOPE = {"name": "msgcli", "version": "1"}
#: how many messages of the conversation come before a span's ``gen_ai.input.messages``
#: (which holds only what that call adds: repeating the whole history in every call would
#: make a long session's trace grow with the square of its length)
OFFSET = "msgcli.input.messages.offset"
#: the input tokens as a source that counts the cached ones apart counts them
OWN_INPUT = "msgcli.usage.input_tokens"
UTC = UTC


def value(obj: Any) -> dict:
    """A Python value as an OTLP ``AnyValue``."""
    if obj is None:
        return {}
    if isinstance(obj, bool):
        return {"boolValue": obj}
    if isinstance(obj, int):
        return {"intValue": str(obj)}
    if isinstance(obj, float):
        return {"doubleValue": obj}
    if isinstance(obj, str):
        return {"stringValue": obj}
    if isinstance(obj, (list, tuple)):
        return {"arrayValue": {"values": [value(v) for v in obj]}}
    if isinstance(obj, dict):
        return {
            "kvlistValue": {"values": [{"key": str(k), "value": value(v)} for k, v in obj.items()]}
        }
    return {"stringValue": str(obj)}


def _attrs(pairs: dict) -> list[dict]:
    return [{"key": k, "value": value(v)} for k, v in pairs.items() if v is not None]


def _json(obj: Any) -> str:
    try:
        return orjson.dumps(obj, default=str).decode()
    except TypeError:  # (an integer beyond 64 bits, a value nested past orjson's 255 levels)
        return deep_dumps(obj)


def _nanos(when: datetime) -> int:
    return int(when.timestamp()) * 1_000_000_000 + when.microsecond * 1000


def _part(block: Block) -> dict:
    if isinstance(block, TextBlock):
        return {"type": "text", "content": block.text}
    if isinstance(block, ThinkingBlock):
        return {"type": "reasoning", "content": block.thinking}
    if isinstance(block, ToolCallBlock):
        args = block.arguments if block.arguments is not None else block.input
        return {"type": "tool_call", "id": block.id, "name": block.name, "arguments": args}
    if isinstance(block, ToolResultBlock):
        output = block.output
        if isinstance(output, list):
            output = [_part(b) if isinstance(b, Block) else b for b in output]
        part = {"type": "tool_call_response", "id": block.id, "response": output}
        if block.name:
            part["name"] = block.name
        return part
    if isinstance(block, DataBlock):
        source = block.source
        modality = block.kind if isinstance(block.kind, str) else "data"
        if source is not None and source.kind == "url" and source.url is not None:
            part = {"type": "uri", "modality": modality, "uri": source.url}
        else:
            part = {
                "type": "blob",
                "modality": modality,
                "content": source.data if source is not None else None,
            }
        if source is not None and source.media_type:
            part["mime_type"] = source.media_type
        return part
    if isinstance(block, HintBlock):
        return {
            "type": "text",
            "content": block.hint if isinstance(block.hint, str) else _json(block.hint),
        }
    if isinstance(block, ValueBlock):
        return {
            "type": "text",
            "content": block.value if isinstance(block.value, str) else _json(block.value),
        }
    if isinstance(block, UnknownBlock) and isinstance(block.raw, dict) and "type" in block.raw:
        needs = KNOWN_PARTS.get(block.raw["type"]) if isinstance(block.raw["type"], str) else None
        if needs is None or all(k in block.raw for k in needs):
            return dict(block.raw)
        # a part of the source named as a GenAI part is, but not that part (OpenAI's
        # ``file`` holds no ``file_id``): kept whole under a type of its own
        return {"type": "unknown", "content": block.raw}
    raw = block.raw if isinstance(block, UnknownBlock) else None
    return {"type": str(block.type or "unknown"), "content": raw}


def genai_message(msg: Message, role: str | None = None) -> dict:
    """A neutral message as a GenAI ``{role, parts}`` message."""
    out: dict = {"role": role or (msg.role if isinstance(msg.role, str) else "user")}
    if isinstance(msg.name, str) and msg.name:
        out["name"] = msg.name
    out["parts"] = [_part(b) for b in msg.content]
    return out


class OtelWriter(Writer):
    """Keeps the log's conversation across its turns; writes each agent turn's trace when
    the next one begins, and the last one at :meth:`finish`."""

    utc = True
    has_metadata = False
    checks_back = False
    #: pydantic-ai (format 5) sends tool results in a user message
    result_roles = frozenset({"user"})

    def __init__(self) -> None:
        #: how many messages of the conversation were written before :attr:`trailing`
        self.sent = 0
        self.agent: dict | None = None
        self.spans: list[dict] = []
        self.trace = ""
        self.turns = 0
        self.seed = hashlib.sha256()
        self.clock: datetime | None = None
        self.calls: dict[Any, tuple[ToolCallBlock, datetime]] = {}
        self.trailing: list[dict] = []
        self.conversation: str | None = None
        self.agent_name = "msgcli"

    def session(self) -> OtelWriter:
        return OtelWriter()

    # -- ids and times ------------------------------------------------------------------

    def _id(self, size: int, *salt: Any) -> str:
        digest = self.seed.copy()
        digest.update(_json([self.turns, len(self.spans), *salt]).encode())
        return digest.hexdigest()[: size * 2]

    def _when(self, when: datetime | None) -> datetime:
        if when is None:
            when = self.clock or datetime(2000, 1, 1, tzinfo=UTC)
        elif self.clock is not None and when < self.clock:
            when = self.clock  # (a time before the one before it: spans stay in order)
        self.clock = when
        return when

    def _span(
        self, name: str, kind: int, start: datetime, end: datetime, attrs: dict, parent: str | None
    ) -> dict:
        span = {
            "traceId": self.trace,
            "spanId": self._id(8, name),
            "name": name,
            "kind": kind,
            "startTimeUnixNano": str(_nanos(start)),
            "endTimeUnixNano": str(_nanos(max(start, end))),
            "attributes": _attrs(attrs),
            "status": {},
        }
        if parent:
            span["parentSpanId"] = parent
        self.spans.append(span)
        return span

    # -- turns --------------------------------------------------------------------------

    def __call__(self, turn: Turn, out: Out) -> list[dict]:
        done: list[dict] = []
        for index, msg in enumerate(turn.messages):
            when = turn.times[index] if index < len(turn.times) else None
            self.seed.update(_json([msg.role, msg.id, str(when)]).encode())
            done.extend(self._message(msg, when))
            if msg.role == "assistant":
                self._waiting(msg, turn.lines[index], out)
        return done

    def _waiting(self, msg: Message, line: int, out: Out) -> None:
        """Say so where tool calls wait by design (a provider's response hands them to the
        application; a paused agent waits for a confirmation or an external run): a trace
        has no state for that, so it reads them as calls no execute_tool span answers."""
        waiting = [
            b.id for b in msg.content if isinstance(b, ToolCallBlock) and b.state in WAITING_STATES
        ]
        if waiting:
            out.note(
                line,
                "",
                f"{len(waiting)} tool call(s) wait by design for a result the log does not hold "
                f"({', '.join(repr(i) for i in waiting[:3])}): a trace has no state for a "
                "waiting call, so it reads them as unanswered (O010)",
            )

    def _message(self, msg: Message, when: datetime | None) -> list[dict]:
        done: list[dict] = []
        role = msg.role if isinstance(msg.role, str) else "user"
        prompt = role == "user" and not all(isinstance(b, ToolResultBlock) for b in msg.content)
        if prompt or self.agent is None:
            done.extend(self._close())
            self._open(msg, when)
        start = self.clock
        at = self._when(when)
        message = genai_message(msg)
        if role == "assistant":
            self._chat(msg, message, start or at, at)
        else:
            self.trailing.append(message)
            for block in msg.content:
                if isinstance(block, ToolResultBlock):
                    self._tool(block, at)
        return done

    def _open(self, msg: Message, when: datetime | None) -> None:
        self.turns += 1
        self.trace = self._id(16, "trace")
        start = self._when(when)
        if self.conversation is None:
            self.conversation = self._id(16, "conversation")
        self.agent = self._span(
            f"invoke_agent {self.agent_name}",
            1,
            start,
            start,
            {
                "gen_ai.operation.name": "invoke_agent",
                "gen_ai.agent.name": self.agent_name,
                "gen_ai.conversation.id": self.conversation,
            },
            None,
        )

    def _chat(self, msg: Message, message: dict, start: datetime, at: datetime) -> None:
        assert self.agent is not None
        fields = msg.fields
        model = fields.get("model") if isinstance(fields.get("model"), str) else None
        usage = msg.usage
        attrs: dict = {
            "gen_ai.operation.name": "chat",
            "gen_ai.provider.name": _provider(msg),
            "gen_ai.request.model": model,
            "gen_ai.response.model": model,
            "gen_ai.conversation.id": self.conversation,
        }
        if isinstance(msg.name, str) and msg.name:
            attrs["gen_ai.agent.name"] = msg.name
        if isinstance(msg.id, str) and msg.id:
            attrs["gen_ai.response.id"] = msg.id
        reason = fields.get("finish_reason", fields.get("stop_reason"))
        if isinstance(reason, str):
            attrs["gen_ai.response.finish_reasons"] = [reason]
        if usage is not None:
            total, own = _input_tokens(msg)
            if own is not None:
                attrs[OWN_INPUT] = own
            for key, count in (
                ("gen_ai.usage.input_tokens", total),
                ("gen_ai.usage.output_tokens", usage.output_tokens),
                ("gen_ai.usage.cache_read.input_tokens", usage.cached_tokens),
                ("gen_ai.usage.cache_creation.input_tokens", usage.cache_creation_tokens),
            ):
                if isinstance(count, (int, float)) and not isinstance(count, bool):
                    attrs[key] = count
        attrs["gen_ai.input.messages"] = _json(self.trailing)
        attrs[OFFSET] = self.sent
        attrs["gen_ai.output.messages"] = _json([message])
        name = f"chat {model}" if model else "chat"
        self._span(name, 3, start, at, attrs, self.agent["spanId"])
        self.sent += len(self.trailing) + 1
        self.trailing = []
        self.clock = at
        for block in msg.content:
            if isinstance(block, ToolCallBlock):
                self.calls[block.id] = (block, at)

    def _tool(self, block: ToolResultBlock, at: datetime) -> None:
        assert self.agent is not None
        call = self.calls.get(block.id)
        start = call[1] if call is not None else at
        name = call[0].name if call is not None else block.name
        output = block.output
        if isinstance(output, list):
            output = [_part(b) if isinstance(b, Block) else b for b in output]
        arguments = None
        if call is not None:
            args = call[0].arguments if call[0].arguments is not None else call[0].input
            arguments = args if isinstance(args, str) else _json(args)
        self._span(
            f"execute_tool {name}" if name else "execute_tool",
            1,
            start,
            at,
            {
                "gen_ai.operation.name": "execute_tool",
                "gen_ai.tool.name": name,
                "gen_ai.tool.call.id": block.id,
                "gen_ai.tool.call.arguments": arguments,
                "gen_ai.tool.call.result": output if isinstance(output, str) else _json(output),
                "gen_ai.conversation.id": self.conversation,
            },
            self.agent["spanId"],
        )

    def _close(self) -> list[dict]:
        """The trace of the agent turn being written, as one export line."""
        if self.agent is None:
            return []
        end = self.clock
        if end is not None:
            self.agent["endTimeUnixNano"] = str(
                max(_nanos(end), int(self.agent["startTimeUnixNano"]))
            )
        spans, self.spans, self.agent = self.spans, [], None
        return [_export(spans)]

    def finish(self, out: Out) -> list[dict]:
        """The last trace, and the messages after the last model response (on an
        ``invoke_agent`` span of their own, as its input messages)."""
        trailing = self.trailing
        done = []
        if trailing and self.agent is not None:
            at = self.clock or datetime(2000, 1, 1, tzinfo=UTC)
            has_chat = any(s["name"].startswith("chat") for s in self.spans)
            if has_chat:
                done.extend(self._close())
                self.turns += 1
                self.trace = self._id(16, "trace")
                self._span(
                    f"invoke_agent {self.agent_name}",
                    1,
                    at,
                    at,
                    {
                        "gen_ai.operation.name": "invoke_agent",
                        "gen_ai.agent.name": self.agent_name,
                        "gen_ai.conversation.id": self.conversation,
                        "gen_ai.input.messages": _json(trailing),
                        OFFSET: self.sent,
                    },
                    None,
                )
                self.agent = self.spans[-1]
            else:
                self.agent["attributes"].extend(
                    _attrs({"gen_ai.input.messages": _json(trailing), OFFSET: self.sent})
                )
        done.extend(self._close())
        return done


def _input_tokens(msg: Message) -> tuple[Any, Any]:
    """``(the conventions' gen_ai.usage.input_tokens, the source's own count)``: the
    conventions count every input token, cached ones too; a log that keeps the cached ones
    apart (Anthropic, Claude Code, AgentScope) has its own count kept beside (else None)."""
    usage = msg.usage
    assert usage is not None
    source = get_dialect(msg.dialect)
    found = source.responses(msg)
    if len(found) != 1 or not isinstance(usage.input_tokens, int):
        return usage.input_tokens, None
    total = found[0].input + found[0].cache_read + found[0].cache_write
    if total == usage.input_tokens:
        return total, None
    return total, usage.input_tokens


def _provider(msg: Message) -> str:
    provider = msg.fields.get("provider")
    if isinstance(provider, str) and provider:
        return provider
    return {
        "claude-code": "anthropic",
        "anthropic": "anthropic",
        "openai-chat": "openai",
        "openai-responses": "openai",
    }.get(msg.dialect, msg.dialect)


def _export(spans: list[dict]) -> dict:
    return {
        "resourceSpans": [
            {
                "resource": {"attributes": _attrs({"service.name": "msgcli"})},
                "scopeSpans": [{"scope": SCOPE, "spans": spans}],
            }
        ]
    }


WRITER = OtelWriter()


def write_log(messages: list[tuple[int, Message]]) -> list[dict]:
    """The OTLP JSON lines of a list of neutral messages ``(line, message)``."""
    from ...converters import Converter

    converter = Converter("otel")
    out = []
    for line, message in messages:
        out.extend(converter.feed(line, message, {}))
    out.extend(converter.finish())
    return out
