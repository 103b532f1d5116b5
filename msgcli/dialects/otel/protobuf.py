"""OTLP protobuf bodies (``.pb``: an ``ExportTraceServiceRequest`` or
``ExportLogsServiceRequest`` as an OTLP/HTTP exporter posts it), read through
``opentelemetry-proto`` (the ``otel`` extra, imported only for such a file) into the OTLP
JSON form the rest of the dialect reads: ids as hex, enums as integers."""

from __future__ import annotations

import base64
import binascii
import contextlib
from collections.abc import Iterator
from typing import Any

__all__ = ["hex_to_base64", "read_protobuf", "to_protobuf"]


def _fix_ids(obj: Any) -> Any:
    """Protobuf's JSON mapping writes ids as base64: OTLP JSON writes them as hex."""
    if type(obj) is dict:
        for key, value in obj.items():
            if key in ("traceId", "spanId", "parentSpanId") and type(value) is str:
                with contextlib.suppress(binascii.Error, ValueError):
                    obj[key] = base64.b64decode(value).hex()
            else:
                _fix_ids(value)
    elif type(obj) is list:
        for item in obj:
            _fix_ids(item)
    return obj


def read_protobuf(path: str) -> Iterator[Any]:
    """The records of an OTLP protobuf body (``ExportTraceServiceRequest`` or
    ``ExportLogsServiceRequest``): one, on line 1, in the OTLP JSON form."""
    from ...reader import ReadError
    from ...records import Problem, Record

    try:
        with open(path, "rb") as handle:
            data = handle.read()
    except OSError as exc:
        raise ReadError(str(exc)) from None
    try:
        from google.protobuf.json_format import MessageToDict
        from google.protobuf.message import DecodeError
        from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import (
            ExportLogsServiceRequest,
        )
        from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
            ExportTraceServiceRequest,
        )
    except ImportError:
        raise ReadError(
            "an OTLP protobuf body needs opentelemetry-proto: pip install 'msgcli[otel]'"
        ) from None
    if not data:
        yield Record(0, problem=Problem("P008", "the file is empty"))
        return
    from opentelemetry.proto.trace.v1.trace_pb2 import ResourceSpans

    # (the kinds share their first field: the one whose spans have ids of the right size is it)
    for kind in (ExportTraceServiceRequest, ResourceSpans, ExportLogsServiceRequest):
        message = kind()
        try:
            message.ParseFromString(data)
        except DecodeError:
            continue
        obj = MessageToDict(message, use_integers_for_enums=True)
        if _plausible(obj):
            yield Record(1, obj=_fix_ids(obj))
            return
    yield Record(
        1,
        problem=Problem(
            "P001",
            "not an OTLP protobuf body (an ExportTraceServiceRequest, ResourceSpans or "
            "ExportLogsServiceRequest)",
        ),
    )


def _plausible(obj: dict) -> bool:
    """Whether a decoded body holds what its kind says: spans with 16-byte trace ids, or
    log records."""
    resources = obj.get("resourceSpans")
    if resources is None and "scopeSpans" in obj:
        resources = [obj]
    if type(resources) is list:
        spans = [
            span
            for resource in resources
            for scope in resource.get("scopeSpans", ())
            for span in scope.get("spans", ())
        ]
        return bool(spans) and all(
            len(base64.b64decode(span.get("traceId", ""))) == 16 for span in spans
        )
    logs = obj.get("resourceLogs")
    return type(logs) is list and any(
        scope.get("logRecords") for resource in logs for scope in resource.get("scopeLogs", ())
    )


def hex_to_base64(obj: Any) -> Any:
    """A copy of OTLP JSON with its hex ids as base64, as protobuf's JSON mapping reads
    them."""
    if type(obj) is dict:
        out = {}
        for key, value in obj.items():
            if key in ("traceId", "spanId", "parentSpanId") and type(value) is str:
                try:
                    out[key] = base64.b64encode(bytes.fromhex(value)).decode()
                except ValueError:
                    out[key] = value
            else:
                out[key] = hex_to_base64(value)
        return out
    if type(obj) is list:
        return [hex_to_base64(item) for item in obj]
    return obj


def to_protobuf(obj: dict) -> Any:
    """An OTLP JSON export request of traces as an ``ExportTraceServiceRequest`` (raises
    ``google.protobuf.json_format.ParseError`` where it is not one)."""
    from google.protobuf.json_format import ParseDict
    from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
        ExportTraceServiceRequest,
    )

    return ParseDict(hex_to_base64(obj), ExportTraceServiceRequest())
