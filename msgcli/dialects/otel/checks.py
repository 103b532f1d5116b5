"""Validation of OTLP files against the GenAI semantic conventions (rules ``O``).

Each record (an export batch) is checked on its own as it is read: the OTLP envelope
(ids, attribute values, times), the required GenAI attributes, the shape of every message
and part (the conventions' published JSON Schemas for ``gen_ai.input.messages``,
``gen_ai.output.messages`` and ``gen_ai.system_instructions``), usage attributes that are
numbers. At the end of the file, what takes several records: parents that exist, tool
calls answered by id, spans exported twice. What is merely new (a part type, a role, an
event name, a ``gen_ai.*`` attribute) is an info finding.
"""

from __future__ import annotations

from typing import Any

import orjson

from ...textsafe import short
from .assemble import Trace, messages_of_span
from .genai import KNOWN_EVENTS, KNOWN_PARTS, ROLES, is_genai, is_usage_key, loads, operation_of
from .otlp import attributes, hex_id, logs_of, spans_of

__all__ = ["TraceChecker"]

#: ``gen_ai.*`` attributes msgcli knows, and the prefixes of the families it knows
KNOWN_ATTRIBUTES = frozenset(
    {
        "gen_ai.operation.name",
        "gen_ai.provider.name",
        "gen_ai.system",
        "gen_ai.input.messages",
        "gen_ai.output.messages",
        "gen_ai.system_instructions",
        "gen_ai.conversation.id",
        "gen_ai.output.type",
        "gen_ai.token.type",
        "gen_ai.is_streaming",
        "gen_ai.data_source.id",
    }
)
KNOWN_PREFIXES = (
    "gen_ai.usage.",
    "gen_ai.aggregated_usage.",
    "gen_ai.request.",
    "gen_ai.response.",
    "gen_ai.prompt.",
    "gen_ai.completion.",
    "gen_ai.tool.",
    "gen_ai.agent.",
    "gen_ai.openai.",
    "gen_ai.evaluation.",
    "gen_ai.embeddings.",
    "gen_ai.client.",
    "gen_ai.server.",
    "gen_ai.orchestrator.",
)
_MESSAGE_ATTRS = ("gen_ai.input.messages", "gen_ai.output.messages")


def _index_of(raw_attrs: Any, key: str) -> int | None:
    if type(raw_attrs) is list:
        for index, kv in enumerate(raw_attrs):
            if type(kv) is dict and kv.get("key") == key:
                return index
    return None


class TraceChecker:
    """The rules of one OTLP file (see :meth:`msgcli.dialects.base.Dialect.record_checker`)."""

    def __init__(self, emit: Any, name: str):
        self.emit = emit
        self.name = name
        self.trace = Trace()
        self.digests: list | None = None
        self.new_keys: set[str] = set()
        self.seen: dict[tuple, int] = {}

    # -- per record ---------------------------------------------------------------------

    def check(self, line: int, obj: dict, recovered: bool = False) -> None:
        emit = self.emit
        if not self._envelope(obj):
            emit("O001", "no resourceSpans, resourceLogs or scopeSpans list", "")
            return
        for span in spans_of(obj, line):
            self._span(span)
        for record in logs_of(obj, line):
            raw = self._raw_log(obj, record.ptr)
            bad: list = []
            attributes(raw.get("attributes"), bad)
            for index, key, why in bad:
                emit(
                    "O001",
                    f"log record: attribute {short(key)}: {why}",
                    f"{record.ptr}/attributes/{index}",
                )
            for key in ("traceId", "spanId"):
                if key in raw:
                    found, clean = hex_id(raw[key], 16 if key == "traceId" else 8)
                    if found is None:
                        emit(
                            "O001",
                            f"log record: {key} {short(raw[key])} is no id",
                            f"{record.ptr}/{key}",
                        )
                    elif not clean:
                        emit(
                            "O002",
                            f"log record: {key} {short(raw[key])} is not lowercase hex",
                            f"{record.ptr}/{key}",
                        )
            event = record.event
            if event and event.startswith("gen_ai.") and event not in KNOWN_EVENTS:
                emit(
                    "O008",
                    f"log record: event {short(event)} is new to msgcli (kept)",
                    f"{record.ptr}/eventName",
                )
            where = f"log record {record.span or ''}".rstrip()
            self._attrs(where, record.attrs, raw.get("attributes"), f"{record.ptr}/attributes")
        self.trace.feed(line, obj)

    @staticmethod
    def _envelope(obj: dict) -> bool:
        for key in (
            "resourceSpans",
            "resourceLogs",
            "scopeSpans",
            "scopeLogs",
            "resource_spans",
            "resource_logs",
        ):
            if type(obj.get(key)) is list:
                return True
        return False

    @staticmethod
    def _raw_log(obj: dict, ptr: str) -> dict:
        node: Any = obj
        for part in ptr.strip("/").split("/"):
            if type(node) is list:
                node = node[int(part)]
            elif type(node) is dict:
                node = node.get(part)
        return node if type(node) is dict else {}

    def _span(self, span: Any) -> None:
        emit = self.emit
        raw = span.raw
        label = f"span {span.span or '?'} ({short(span.name)})"
        for key, size in (("traceId", 16), ("spanId", 8), ("parentSpanId", 8)):
            if key not in raw:
                if key != "parentSpanId":
                    emit("O001", f"{label}: no {key}", span.ptr)
                continue
            if key == "parentSpanId" and raw[key] == "":
                continue
            found, clean = hex_id(raw[key], size)
            if found is None:
                emit(
                    "O001",
                    f"{label}: {key} {short(raw[key])} is not an id of {size} bytes",
                    f"{span.ptr}/{key}",
                )
            elif not clean:
                emit(
                    "O002",
                    f"{label}: {key} {short(raw[key])} is not lowercase hex",
                    f"{span.ptr}/{key}",
                )
        for key in ("startTimeUnixNano", "endTimeUnixNano"):
            value = raw.get(key)
            if value is not None and not (
                (type(value) is str and value.isdigit()) or (type(value) is int and value >= 0)
            ):
                emit(
                    "O001",
                    f"{label}: {key} {short(value)} is no count of nanoseconds",
                    f"{span.ptr}/{key}",
                )
        bad: list = []
        attributes(raw.get("attributes"), bad)
        for index, key, why in bad:
            emit(
                "O001", f"{label}: attribute {short(key)}: {why}", f"{span.ptr}/attributes/{index}"
            )
        twice = (span.trace, span.span)
        if span.span is not None:
            if twice in self.seen:
                emit(
                    "O014",
                    f"{label} was exported before, on line {self.seen[twice]}: read once",
                    span.ptr,
                )
            else:
                self.seen[twice] = span.line
        attrs = span.attrs
        for index, (name, _, _event_attrs) in enumerate(span.events):
            if name.startswith("gen_ai.") and name not in KNOWN_EVENTS:
                emit(
                    "O008",
                    f"{label}: event {short(name)} is new to msgcli (kept)",
                    f"{span.ptr}/events/{index}",
                )
        if not is_genai(attrs):
            return  # (a span not about GenAI: kept and counted)
        op = operation_of(attrs)
        pointer = f"{span.ptr}/attributes"
        if "gen_ai.operation.name" not in attrs and op is not None:
            emit("O003", f"{label}: no gen_ai.operation.name (read as {op})", pointer)
        if op == "chat" and "gen_ai.provider.name" not in attrs:
            older = next((k for k in ("gen_ai.system", "llm.system") if k in attrs), None)
            said = f" ({older} says {short(attrs[older])})" if older else ""
            emit("O004", f"{label}: no gen_ai.provider.name{said}", pointer)
        self._attrs(label, attrs, raw.get("attributes"), pointer)

    def _attrs(self, label: str, attrs: dict, raw_attrs: Any, pointer: str) -> None:
        emit = self.emit
        for key, value in attrs.items():
            where = _index_of(raw_attrs, key)
            ptr = f"{pointer}/{where}" if where is not None else pointer
            if is_usage_key(key):
                if type(value) not in (int, float):
                    emit("O009", f"{label}: {key} is {short(value)}, not a number", ptr)
                continue
            if key in _MESSAGE_ATTRS:
                self._messages(label, key, value, ptr)
            elif key == "gen_ai.system_instructions":
                self._instructions(label, value, ptr)
            elif (
                key.startswith("gen_ai.")
                and key not in KNOWN_ATTRIBUTES
                and not key.startswith(KNOWN_PREFIXES)
                and key not in self.new_keys
            ):
                self.new_keys.add(key)
                emit("O008", f"{label}: attribute {key} is new to msgcli (kept)", ptr)

    def _messages(self, label: str, key: str, value: Any, ptr: str) -> None:
        emit = self.emit
        try:
            found = loads(value)
        except orjson.JSONDecodeError as exc:
            emit("O005", f"{label}: {key} is not JSON ({exc})", ptr)
            return
        if type(found) is not list:
            emit("O005", f"{label}: {key} is {type(found).__name__}, not a list of messages", ptr)
            return
        for index, message in enumerate(found):
            at = f"{label}: {key}[{index}]"
            if type(message) is not dict:
                emit("O005", f"{at} is not a message object", ptr)
                continue
            role = message.get("role")
            if type(role) is not str:
                emit("O005", f"{at} has no role", ptr)
            elif role not in ROLES:
                emit("O008", f"{at}: role {short(role)} is new to msgcli (kept)", ptr)
            parts = message.get("parts")
            if type(parts) is not list:
                more = " (it has 'content': the older form)" if "content" in message else ""
                emit("O005", f"{at} has no parts list{more}", ptr)
                continue
            self._parts(at, parts, ptr)

    def _instructions(self, label: str, value: Any, ptr: str) -> None:
        try:
            found = loads(value)
        except orjson.JSONDecodeError:
            return  # (plain text instructions: read as one text part)
        if type(found) is str:
            return
        if type(found) is not list:
            self.emit(
                "O005",
                f"{label}: gen_ai.system_instructions is {type(found).__name__}, "
                "not a list of parts",
                ptr,
            )
            return
        self._parts(f"{label}: gen_ai.system_instructions", found, ptr)

    def _parts(self, at: str, parts: list, ptr: str) -> None:
        emit = self.emit
        for pi, part in enumerate(parts):
            where = f"{at}.parts[{pi}]"
            if type(part) is not dict or type(part.get("type")) is not str:
                emit("O005", f"{where} has no type", ptr)
                continue
            kind = part["type"]
            needs = KNOWN_PARTS.get(kind)
            if needs is None:
                emit("O008", f"{where}: part type {short(kind)} is new to msgcli (kept)", ptr)
                continue
            for field in needs:
                if field == "response" and "response" not in part and "result" in part:
                    emit(
                        "O007",
                        f"{where}: the tool's output is under 'result', the schema says 'response'",
                        ptr,
                    )
                    continue
                if field not in part:
                    emit("O006", f"{where}: a {kind} part without {field}", ptr)
            if kind == "tool_call_response" and "id" not in part:
                emit("O006", f"{where}: a tool_call_response part without id", ptr)
            if kind == "tool_call":
                args = part.get("arguments")
                if type(args) is str:
                    try:
                        ok = type(orjson.loads(args)) is dict
                    except orjson.JSONDecodeError:
                        ok = False
                    if not ok:
                        emit("O013", f"{where}: arguments {short(args)} are no JSON object", ptr)

    # -- across records -----------------------------------------------------------------

    def feed_digest(self, line: int, item: Any) -> None:
        pass

    def finish(self) -> None:
        emit = self.emit
        trace = self.trace
        trace.attach_logs()
        ids = {s.span for s in trace.spans if s.span}
        for span in trace.spans:
            if span.parent and span.parent not in ids and span.raw:
                emit(
                    "O012",
                    f"span {span.span} ({short(span.name)}): parent {span.parent} is no "
                    "span of this file",
                    f"{span.ptr}/parentSpanId",
                    line=span.line,
                )
        calls: dict = {}
        answers: dict = {}
        for span in sorted(trace.spans, key=lambda s: (s.start or 0, s.line)):
            op = operation_of(span.attrs)
            if op == "chat":
                inputs, outputs, _ = messages_of_span(span)
                for message in (*inputs, *outputs):
                    for part in message.get("parts") or ():
                        if type(part) is not dict or not part.get("id"):
                            continue
                        if part.get("type") == "tool_call":
                            calls.setdefault(part["id"], span)
                        elif part.get("type") == "tool_call_response":
                            answers.setdefault(part["id"], span)
            elif op == "execute_tool":
                call_id = span.attrs.get("gen_ai.tool.call.id")
                if type(call_id) is str and call_id:
                    answers.setdefault(call_id, span)
        for call_id, span in calls.items():
            if call_id not in answers:
                emit(
                    "O010",
                    f"span {span.span} ({short(span.name)}): tool call {short(call_id)} is "
                    "answered by no later message or execute_tool span",
                    span.ptr,
                    line=span.line,
                )
        for call_id, span in answers.items():
            if call_id not in calls:
                emit(
                    "O011",
                    f"span {span.span} ({short(span.name)}): the answer to tool call "
                    f"{short(call_id)} has no call in this file",
                    span.ptr,
                    line=span.line,
                )
