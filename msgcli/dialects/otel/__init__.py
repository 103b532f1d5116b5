"""OpenTelemetry traces that carry the GenAI semantic conventions (OTLP JSON and protobuf).

An OTLP file holds export batches (``{"resourceSpans": [...]}``/``{"resourceLogs":
[...]}`` per line as the file exporter writes them, an OTLP/HTTP JSON body, a bare
``ResourceSpans`` per line, or a protobuf body read through ``opentelemetry-proto``).
:mod:`.assemble` puts the conversation together from the spans at the end of the file:
each model call span (``chat``, or an older emitter's inference span) gives its new input
messages and its output, with the call's usage; ``invoke_agent`` and ``execute_tool``
spans and spans that are not about GenAI are records outside the conversation
(``show --all``), counted by ``stats``. :mod:`.checks` validates the file against the
conventions (rules ``O``); :mod:`.write` writes any log as OTLP JSON and sends it to an
OTLP/HTTP endpoint.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import orjson

from ...containers import Container
from ...guard import deep_dumps
from ...model import (
    Block,
    DataBlock,
    Message,
    ResponseUsage,
    Source,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
    ToolResultBlock,
    UnknownBlock,
    Usage,
)
from ...records import loads_exact
from ..base import MESSAGE, Dialect
from .assemble import MARK
from .otlp import is_otlp
from .rules import RULES

__all__ = ["DIALECT", "OtelDialect"]


class OtelDialect(Dialect):
    name = "otel"
    title = "OpenTelemetry GenAI trace (OTLP)"
    distinct = True
    splittable = False
    stats_details = True
    ids_need_joining = True
    writer = "msgcli.dialects.otel.write:WRITER"
    own_rules = frozenset(rule.code for rule in RULES)
    #: the conventions' ``gen_ai.usage.input_tokens`` counts the cached tokens too (a file
    #: msgcli wrote from a log that keeps them apart says so on each call: ``cache_apart``)
    usage_cache_in_input = True
    rules = RULES
    rule_docs = "msgcli.dialects.otel.rules:EXPLAINED"
    containers = (Container(names=(".pb",), reader="msgcli.dialects.otel.protobuf:read_protobuf"),)

    def classify(self, obj: dict) -> str | None:
        if type(obj) is not dict:
            return None
        if is_otlp(obj) or MARK in obj:
            return MESSAGE
        return None

    def assembler(self) -> Any:
        from .assemble import Assembler

        return Assembler()

    def record_checker(self, emit: Any, name: str) -> Any:
        from .checks import TraceChecker

        return TraceChecker(emit, name)

    def message_id(self, obj: dict) -> Any:
        return obj.get("span") if MARK in obj else None

    def read(self, obj: dict) -> Message:
        if MARK not in obj:
            return Message(self.name, role="export", fields={"aside": True})
        role = obj.get("role")
        fields = {k: v for k, v in obj.items() if k not in ("role", "parts", "name", "usage", MARK)}
        fields["span_name"] = obj.get("span_name", obj.get(MARK))
        msg = Message(
            self.name,
            role=role,
            name=obj.get("name"),
            id=obj.get("id", obj.get("span")),
            timestamp=obj.get("time"),
            fields=fields,
        )
        parts = obj.get("parts")
        if type(parts) is list:
            for index, part in enumerate(parts):
                msg.content.append(_block(part, ("parts", index)))
        usage = obj.get("usage")
        if type(usage) is dict:
            msg.usage = Usage(
                input_tokens=usage.get("input"),
                output_tokens=usage.get("output"),
                cached_tokens=usage.get("cache_read"),
                cache_creation_tokens=usage.get("cache_creation"),
                total_tokens=usage.get("total"),
                extra={"reasoning": usage["reasoning"]} if "reasoning" in usage else {},
            )
            if "reasoning" in usage:
                msg.fields["reasoning_tokens"] = usage["reasoning"]
        return msg

    def carry_record(self, record: dict) -> Any:
        """What a conversion keeps of a span's message: where it was (trace, span, time)
        and what the call recorded, not its parts (which the target holds)."""
        return {k: v for k, v in record.items() if k != "parts"}

    def aside(self, msg: Message) -> bool:
        return msg.fields.get("aside") is True

    def finish_reason(self, msg: Message) -> Any:
        return msg.fields.get("finish_reason")

    def parse_time(self, value: Any) -> datetime | None:
        if type(value) is not str:
            return None
        try:
            when = datetime.fromisoformat(value.replace("Z", "+00:00"))
        except ValueError:
            return None
        return when.replace(tzinfo=None) if when.tzinfo is not None else when

    def token_counts(self, msg: Message) -> tuple[Any, Any, Any] | None:
        if msg.usage is None or msg.fields.get("aside"):
            return None  # (an agent span's aggregated usage is its calls' sum)
        return Dialect.token_counts(self, msg)

    def thread_of(self, msg: Message) -> tuple[Any, Any, Any]:
        fields = msg.fields
        session = fields.get("conversation") or fields.get("trace")
        agent = fields.get("agent")
        return (
            session if isinstance(session, str) else None,
            agent if isinstance(agent, str) else None,
            None,
        )

    def responses(self, msg: Message) -> list[ResponseUsage]:
        """One per model-call span (never an agent span's aggregated usage). OTLP's input
        tokens include the cached ones (the conventions' ``gen_ai.usage.input_tokens``):
        the base-rate input is what is left."""
        fields = msg.fields
        if not fields.get("call") or fields.get("aside"):
            return []
        usage = msg.usage
        if usage is None:
            return []

        def count(value: Any) -> int:
            return int(value) if isinstance(value, (int, float)) else 0

        cache_read = count(usage.cached_tokens)
        cache_write = count(usage.cache_creation_tokens)
        base = count(usage.input_tokens)
        if not fields.get("cache_apart"):
            base -= cache_read + cache_write
        when = None
        stamp = self.parse_time(msg.timestamp)
        if stamp is not None:
            when = stamp.replace(tzinfo=UTC)
        provider = fields.get("provider")
        session, agent, _ = self.thread_of(msg)
        return [
            ResponseUsage(
                model=fields.get("model") if isinstance(fields.get("model"), str) else None,
                input=max(base, 0),
                output=count(usage.output_tokens),
                cache_read=cache_read,
                cache_write=cache_write,
                reasoning=count(usage.extra.get("reasoning")),
                time=when,
                session=session,
                agent=agent,
                provider=provider if isinstance(provider, str) else None,
                key=("otel", fields.get("trace"), msg.id),
            )
        ]

    def note_stats(self, msg: Message, details: dict) -> None:
        from .stats import note

        note(msg, details)


def _text(value: Any) -> Any:
    return value


def _block(part: Any, path: tuple) -> Block:
    if type(part) is not dict:
        return UnknownBlock(type=type(part).__name__, path=path, raw=part)
    kind = part.get("type")
    if kind == "text":
        return TextBlock("text", path=path, text=part.get("content"))
    if kind in ("reasoning", "thinking"):
        return ThinkingBlock("thinking", path=path, thinking=part.get("content"))
    if kind == "tool_call":
        raw = part.get("arguments")
        arguments = raw
        if type(raw) is str:
            try:
                arguments = loads_exact(raw)
            except orjson.JSONDecodeError:
                arguments = raw
        return ToolCallBlock(
            "tool_call",
            id=part.get("id"),
            path=path,
            name=part.get("name"),
            input=raw if type(raw) is str else None,
            arguments=arguments,
        )
    if kind == "tool_call_response":
        response = part.get("response", part.get("result"))
        if type(response) is list and all(
            type(p) is dict and type(p.get("type")) is str for p in response
        ):
            output = [_block(p, (*path, "response", i)) for i, p in enumerate(response)]
            return ToolResultBlock(
                "tool_result", id=part.get("id"), path=path, name=part.get("name"), output=output
            )
        if response is not None and type(response) is not str:
            try:
                response = orjson.dumps(response, default=str).decode()
            except TypeError:  # (an integer beyond 64 bits, read exactly)
                response = deep_dumps(response)
        return ToolResultBlock(
            "tool_result", id=part.get("id"), path=path, name=part.get("name"), output=response
        )
    if kind in ("blob", "uri", "file"):
        source = None
        if kind == "blob":
            source = Source("base64", data=part.get("content"), media_type=part.get("mime_type"))
        elif kind == "uri":
            source = Source("url", url=part.get("uri"), media_type=part.get("mime_type"))
        block = DataBlock(
            "data",
            path=path,
            kind=part.get("modality") or "data",
            source=source,
        )
        if kind == "file":
            block.fields["file_id"] = part.get("file_id")
        return block
    return UnknownBlock(type=str(kind), path=path, raw=part)


DIALECT = OtelDialect()
