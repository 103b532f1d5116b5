"""The OTLP envelope: export requests as JSON (the file exporter's lines, OTLP/HTTP JSON
bodies, bare ``ResourceSpans``) and as protobuf bodies, read into plain spans and log
records.

OTLP JSON writes trace and span ids as hex, 64-bit integers as strings and enums as
integers; a protobuf body read through ``opentelemetry-proto`` gives ids as base64 and one
exporter writes enums by name: both are taken and brought to the hex and integer form.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

__all__ = [
    "LogRecord",
    "Span",
    "any_value",
    "attributes",
    "hex_id",
    "is_otlp",
    "logs_of",
    "spans_of",
]

_HEX = frozenset("0123456789abcdef")
KIND_NAMES = {
    "SPAN_KIND_UNSPECIFIED": 0,
    "SPAN_KIND_INTERNAL": 1,
    "SPAN_KIND_SERVER": 2,
    "SPAN_KIND_CLIENT": 3,
    "SPAN_KIND_PRODUCER": 4,
    "SPAN_KIND_CONSUMER": 5,
}
STATUS_NAMES = {"STATUS_CODE_UNSET": 0, "STATUS_CODE_OK": 1, "STATUS_CODE_ERROR": 2}
_VALUE_KEYS = (
    "stringValue",
    "intValue",
    "doubleValue",
    "boolValue",
    "arrayValue",
    "kvlistValue",
    "bytesValue",
)


def is_otlp(obj: dict) -> bool:
    """Whether a JSON record is an OTLP export (request, TracesData, LogsData) or a bare
    ``ResourceSpans``/``ResourceLogs``."""
    for key in ("resourceSpans", "resourceLogs", "resource_spans", "resource_logs"):
        if type(obj.get(key)) is list:
            return True
    return type(obj.get("scopeSpans")) is list or type(obj.get("scopeLogs")) is list


class BadValue(ValueError):
    """An attribute value that is no OTLP ``AnyValue``."""


def any_value(value: Any) -> Any:
    """An OTLP ``AnyValue`` as a Python value (``{}``, the empty value: ``None``);
    :class:`BadValue` when it is none."""
    if type(value) is not dict:
        raise BadValue(f"an attribute value is {type(value).__name__}, not an AnyValue object")
    if not value:
        return None
    for key in _VALUE_KEYS:
        if key in value:
            raw = value[key]
            break
    else:
        raise BadValue(f"an AnyValue with none of its keys ({', '.join(sorted(value))})")
    if key == "stringValue":
        if type(raw) is not str:
            raise BadValue("stringValue is not a string")
        return raw
    if key == "intValue":
        if type(raw) is int:
            return raw
        if type(raw) is str:
            try:
                return int(raw)
            except ValueError:
                raise BadValue(f"intValue {raw!r} is not an integer") from None
        raise BadValue("intValue is neither a string of digits nor a number")
    if key == "doubleValue":
        if type(raw) in (int, float):
            return float(raw)
        if raw in ("NaN", "Infinity", "-Infinity"):
            return float(raw)
        raise BadValue("doubleValue is not a number")
    if key == "boolValue":
        if type(raw) is not bool:
            raise BadValue("boolValue is not true or false")
        return raw
    if key == "arrayValue":
        items = raw.get("values", []) if type(raw) is dict else None
        if type(items) is not list:
            raise BadValue("arrayValue has no list of values")
        return [any_value(v) for v in items]
    if key == "kvlistValue":
        items = raw.get("values", []) if type(raw) is dict else None
        if type(items) is not list:
            raise BadValue("kvlistValue has no list of values")
        return {
            kv["key"]: any_value(kv.get("value", {}))
            for kv in items
            if type(kv) is dict and type(kv.get("key")) is str
        }
    return raw  # bytesValue: base64 text as written


def attributes(items: Any, bad: list | None = None) -> dict[str, Any]:
    """A list of ``{key, value}`` as a dict, in order; values that are no AnyValue are left
    out and ``(index, key, why)`` of each goes to ``bad``."""
    out: dict[str, Any] = {}
    if type(items) is not list:
        return out
    for index, kv in enumerate(items):
        if type(kv) is not dict or type(kv.get("key")) is not str:
            if bad is not None:
                bad.append((index, None, "an attribute without a key"))
            continue
        try:
            out[kv["key"]] = any_value(kv.get("value", {}))
        except BadValue as exc:
            if bad is not None:
                bad.append((index, kv["key"], str(exc)))
        except RecursionError:
            if bad is not None:
                bad.append((index, kv["key"], "nested too deeply"))
    return out


def hex_id(value: Any, size: int) -> tuple[str | None, bool]:
    """``(id as lowercase hex, written as OTLP JSON says)``; a base64 id (protobuf's JSON
    mapping) is brought to hex, with ``False``. ``(None, False)``: no id."""
    if type(value) is not str or not value:
        return None, False
    low = value.lower()
    if len(value) == size * 2 and set(low) <= _HEX:
        return low, value == low
    try:
        raw = base64.b64decode(value, validate=True)
    except (binascii.Error, ValueError):
        return None, False
    if len(raw) != size:
        return None, False
    return raw.hex(), False


def _nanos(value: Any) -> int | None:
    if type(value) is int:
        return value
    if type(value) is str and value.isdigit():
        return int(value)
    return None


@dataclass(slots=True)
class Span:
    """One span, its attributes decoded; where it is: ``line`` of the file and ``ptr`` a
    JSON pointer into that line's record."""

    line: int
    ptr: str
    trace: str | None
    span: str | None
    parent: str | None
    name: str
    kind: int | None
    start: int | None
    end: int | None
    status: int
    status_message: str | None
    attrs: dict[str, Any]
    events: list[tuple[str, int | None, dict[str, Any]]]
    scope: str | None
    service: str | None
    raw: dict
    #: the log records tied to this span (event name, time, body, attributes)
    logs: list[LogRecord] = field(default_factory=list)


@dataclass(slots=True)
class LogRecord:
    line: int
    ptr: str
    trace: str | None
    span: str | None
    event: str | None
    time: int | None
    body: Any
    attrs: dict[str, Any]
    scope: str | None


def _scope_name(scope: Any) -> str | None:
    if type(scope) is dict and type(scope.get("name")) is str:
        return scope["name"]
    return None


def _service(resource: Any) -> str | None:
    if type(resource) is not dict:
        return None
    found = attributes(resource.get("attributes")).get("service.name")
    return found if type(found) is str else None


def _resources(obj: dict, plural: str, snake: str, scoped: str) -> Iterator[tuple[str, dict]]:
    items = obj.get(plural)
    key = plural
    if items is None:
        items, key = obj.get(snake), snake
    if type(items) is list:
        for index, item in enumerate(items):
            if type(item) is dict:
                yield f"/{key}/{index}", item
    elif type(obj.get(scoped)) is list:
        yield "", obj


def spans_of(obj: dict, line: int) -> Iterator[Span]:
    """The spans of one record (an export request or a bare ``ResourceSpans``)."""
    for base, resource_spans in _resources(obj, "resourceSpans", "resource_spans", "scopeSpans"):
        service = _service(resource_spans.get("resource"))
        scopes = resource_spans.get("scopeSpans")
        if type(scopes) is not list:
            continue
        for si, scope_spans in enumerate(scopes):
            if type(scope_spans) is not dict:
                continue
            scope = _scope_name(scope_spans.get("scope"))
            spans = scope_spans.get("spans")
            if type(spans) is not list:
                continue
            for pi, raw in enumerate(spans):
                if type(raw) is not dict:
                    continue
                yield read_span(raw, line, f"{base}/scopeSpans/{si}/spans/{pi}", scope, service)


def read_span(raw: dict, line: int, ptr: str, scope: str | None, service: str | None) -> Span:
    status = raw.get("status")
    code: Any = status.get("code", 0) if type(status) is dict else 0
    if type(code) is str:
        code = STATUS_NAMES.get(code, 0)
    message = status.get("message") if type(status) is dict else None
    kind = raw.get("kind")
    if type(kind) is str:
        kind = KIND_NAMES.get(kind)
    events = []
    for event in raw.get("events") or ():
        if type(event) is dict:
            events.append(
                (
                    str(event.get("name", "")),
                    _nanos(event.get("timeUnixNano")),
                    attributes(event.get("attributes")),
                )
            )
    name = raw.get("name")
    return Span(
        line=line,
        ptr=ptr,
        trace=hex_id(raw.get("traceId"), 16)[0],
        span=hex_id(raw.get("spanId"), 8)[0],
        parent=hex_id(raw.get("parentSpanId"), 8)[0],
        name=name if type(name) is str else "",
        kind=kind if type(kind) is int else None,
        start=_nanos(raw.get("startTimeUnixNano")),
        end=_nanos(raw.get("endTimeUnixNano")),
        status=code if type(code) is int else 0,
        status_message=message if type(message) is str else None,
        attrs=attributes(raw.get("attributes")),
        events=events,
        scope=scope,
        service=service,
        raw=raw,
    )


def logs_of(obj: dict, line: int) -> Iterator[LogRecord]:
    """The log records of one record (an export request or a bare ``ResourceLogs``)."""
    for base, resource_logs in _resources(obj, "resourceLogs", "resource_logs", "scopeLogs"):
        scopes = resource_logs.get("scopeLogs")
        if type(scopes) is not list:
            continue
        for si, scope_logs in enumerate(scopes):
            if type(scope_logs) is not dict:
                continue
            scope = _scope_name(scope_logs.get("scope"))
            records = scope_logs.get("logRecords")
            if type(records) is not list:
                continue
            for ri, raw in enumerate(records):
                if type(raw) is not dict:
                    continue
                attrs = attributes(raw.get("attributes"))
                event = raw.get("eventName")
                if type(event) is not str or not event:
                    found = attrs.get("event.name")
                    event = found if type(found) is str else None
                try:
                    body = any_value(raw["body"]) if "body" in raw else None
                except (BadValue, RecursionError):
                    body = None
                yield LogRecord(
                    line=line,
                    ptr=f"{base}/scopeLogs/{si}/logRecords/{ri}",
                    trace=hex_id(raw.get("traceId"), 16)[0],
                    span=hex_id(raw.get("spanId"), 8)[0],
                    event=event,
                    time=_nanos(raw.get("timeUnixNano")) or _nanos(raw.get("observedTimeUnixNano")),
                    body=body,
                    attrs=attrs,
                    scope=scope,
                )
