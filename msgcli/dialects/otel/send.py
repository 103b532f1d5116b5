"""Sending OTLP to an OTLP/HTTP endpoint (``msgcli export --otlp URL``): a collector,
Langfuse, Phoenix, any receiver of ``POST /v1/traces``.

The export lines a conversion writes (one ``{"resourceSpans": [...]}`` per agent turn)
are joined into requests of at most :data:`BATCH` lines, sent as OTLP JSON
(``application/json``) or, asked for, as a protobuf ``ExportTraceServiceRequest``
(``application/x-protobuf``, through ``opentelemetry-proto``: the ``otel`` extra).
"""

from __future__ import annotations

import urllib.error
import urllib.request
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from urllib.parse import urlsplit, urlunsplit

from ...writer import dumps

__all__ = ["BATCH", "SendError", "Sent", "bodies", "endpoint", "send"]

#: export lines joined into one request
BATCH = 100


class SendError(Exception):
    """The endpoint could not be reached, or refused a request."""


@dataclass
class Sent:
    requests: int = 0
    spans: int = 0
    statuses: list[int] = field(default_factory=list)


def endpoint(url: str) -> str:
    """The traces endpoint of ``url``: as given when it names a path, else
    ``<url>/v1/traces`` (the OTLP/HTTP default)."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise SendError(f"{url!r} is not an http:// or https:// URL")
    if parts.path in ("", "/"):
        parts = parts._replace(path="/v1/traces")
    return urlunsplit(parts)


def _spans(line: dict) -> int:
    return sum(
        len(scope.get("spans", ()))
        for resource in line.get("resourceSpans", ())
        for scope in resource.get("scopeSpans", ())
    )


def bodies(lines: Iterable[dict], protobuf: bool = False) -> Iterator[tuple[bytes, int]]:
    """``(request body, spans in it)`` for the export lines, :data:`BATCH` lines a
    request."""
    batch: list[dict] = []

    def body() -> tuple[bytes, int]:
        request = {"resourceSpans": [rs for line in batch for rs in line["resourceSpans"]]}
        count = sum(_spans(line) for line in batch)
        if protobuf:
            from .protobuf import to_protobuf

            return to_protobuf(request).SerializeToString(), count
        return dumps(request), count

    for line in lines:
        if not line.get("resourceSpans"):
            continue
        batch.append(line)
        if len(batch) >= BATCH:
            yield body()
            batch = []
    if batch:
        yield body()


def send(
    url: str,
    lines: Iterable[dict],
    *,
    protobuf: bool = False,
    headers: dict[str, str] | None = None,
    timeout: float = 30.0,
) -> Sent:
    """POST the export lines to the OTLP/HTTP endpoint of ``url``; :class:`SendError`
    when a request fails."""
    target = endpoint(url)
    kind = "application/x-protobuf" if protobuf else "application/json"
    sent = Sent()
    for data, count in bodies(lines, protobuf):
        request = urllib.request.Request(
            target,
            data=data,
            method="POST",
            headers={"Content-Type": kind, **(headers or {})},
        )
        try:
            with urllib.request.urlopen(request, timeout=timeout) as answer:
                answer.read()
                sent.statuses.append(answer.status)
        except urllib.error.HTTPError as exc:
            raise SendError(f"{target} answered {exc.code} {exc.reason}") from None
        except (urllib.error.URLError, OSError) as exc:
            reason = getattr(exc, "reason", exc)
            raise SendError(f"cannot reach {target}: {reason}") from None
        sent.requests += 1
        sent.spans += count
    return sent
