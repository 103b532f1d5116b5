"""The conversations a trace records, put together from its spans and log records.

Every span of the file (and every log record: the per-message events of the older
conventions, the inference details records of the current ones) is gathered first; at
the end of the file, the spans of one trace make one conversation, and traces that
continue each other (a tool run the instrumentation wrote as one trace per model call,
joined by their tool call ids, or one ``gen_ai.conversation.id``) are joined. Within a
conversation, the model calls in time order give the messages: each call's input less
what came before it (every call repeats the whole history), then its output, with the
call's usage, model and latency on its first output message. Agent spans and spans that
are not about GenAI give records outside the conversation (``show --all``).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable
from datetime import UTC, datetime
from typing import Any

import orjson

from ...records import loads_exact
from .genai import (
    AGGREGATED,
    DETAILS_EVENT,
    MESSAGE_EVENTS,
    event_message,
    event_messages,
    flat_messages,
    instructions,
    json_messages,
    operation_of,
    usage_of,
)
from .otlp import LogRecord, Span, logs_of, spans_of

__all__ = ["Assembler", "Trace", "gather", "messages_of_span"]

MARK = "otel"  # the key that marks a record this dialect put together
#: msgcli's own attribute: how many messages come before a span's input messages
OFFSET = "msgcli.input.messages.offset"
#: msgcli's own attribute: the input tokens as a source log that counts the cached ones apart
#: counts them (``gen_ai.usage.input_tokens`` holds the conventions' total)
OWN_INPUT = "msgcli.usage.input_tokens"


def iso(nanos: int | None) -> str | None:
    if nanos is None:
        return None
    when = datetime.fromtimestamp(nanos // 1_000_000_000, UTC).replace(
        microsecond=(nanos % 1_000_000_000) // 1000
    )
    return when.isoformat().replace("+00:00", "Z")


class Trace:
    """Everything read from one file: its spans and its log records."""

    def __init__(self) -> None:
        self.spans: list[Span] = []
        self.logs: list[LogRecord] = []
        self._seen: set[tuple] = set()

    def feed(self, line: int, obj: dict) -> None:
        for span in spans_of(obj, line):
            key = (span.trace, span.span)
            if span.span is not None and key in self._seen:
                continue  # (the same span exported again)
            self._seen.add(key)
            self.spans.append(span)
        self.logs.extend(logs_of(obj, line))

    def attach_logs(self) -> None:
        """Each log record onto its span; records of no span onto the model call nearest
        before them, or onto a span made for them (a file of log records alone)."""
        by_id: dict[tuple, Span] = {(s.trace, s.span): s for s in self.spans if s.span}
        by_span: dict[Any, Span] = {s.span: s for s in self.spans if s.span}
        made: dict[tuple, Span] = {}
        loose = []
        for record in self.logs:
            span = by_id.get((record.trace, record.span)) or by_span.get(record.span)
            if span is None and record.span is not None:
                key = (record.trace, record.span)
                span = made.get(key)
                if span is None:
                    span = made[key] = _made_span(
                        record.line,
                        record.ptr,
                        record.trace,
                        record.span,
                        record.event,
                        record.time,
                        record.scope,
                    )
            if span is None:
                loose.append(record)
                continue
            span.logs.append(record)
            if record.time is not None and span in made.values():
                span.end = max(span.end or record.time, record.time)
        self.spans.extend(made.values())
        chats = sorted(
            (s for s in self.spans if operation_of(s.attrs) == "chat"),
            key=lambda s: s.start or 0,
        )
        if loose and not chats:
            # (log records of no span, and no model call to give them to: one of their own)
            first = loose[0]
            chats = [
                _made_span(first.line, first.ptr, None, None, first.event, first.time, first.scope)
            ]
            self.spans.extend(chats)
        for record in loose:
            before = [s for s in chats if (s.start or 0) <= (record.time or 0)]
            target = before[-1] if before else chats[-1]
            target.logs.append(record)


def _made_span(
    line: int,
    ptr: str,
    trace: str | None,
    span: str | None,
    event: str | None,
    time: int | None,
    scope: str | None,
) -> Span:
    """The model call that log records of no span in the file stand for."""
    return Span(
        line=line,
        ptr=ptr,
        trace=trace,
        span=span,
        parent=None,
        name=event or "log",
        kind=None,
        start=time,
        end=time,
        status=0,
        status_message=None,
        attrs={"gen_ai.operation.name": "chat"},
        events=[],
        scope=scope,
        service=None,
        raw={},
    )


def messages_of_span(span: Span) -> tuple[list[dict], list[dict], str]:
    """``(input, output, where)`` messages a model-call span records, and the attribute
    family they were read from."""
    attrs = span.attrs
    details = [r for r in span.logs if r.event == DETAILS_EVENT]
    sources = [attrs] + [r.attrs for r in details]
    for source in sources:
        if "gen_ai.input.messages" in source or "gen_ai.output.messages" in source:
            inputs = _safe(source.get("gen_ai.input.messages"))
            outputs = _safe(source.get("gen_ai.output.messages"))
            system = source.get("gen_ai.system_instructions")
            if system is not None:
                found = instructions(system)
                if found is not None:
                    inputs = [found, *inputs]
            return inputs, outputs, "gen_ai.input.messages"
    events = [(name, attrs_) for name, _, attrs_ in span.events if name in MESSAGE_EVENTS]
    events += [(r.event, r.body) for r in span.logs if r.event in MESSAGE_EVENTS]
    if events:
        inputs, outputs = event_messages(events)
        return inputs, outputs, "events"
    if any(k.startswith("gen_ai.prompt.") or k.startswith("gen_ai.completion.") for k in attrs):
        return (
            flat_messages(attrs, "gen_ai.prompt."),
            flat_messages(attrs, "gen_ai.completion."),
            "gen_ai.prompt",
        )
    if any(
        k.startswith("llm.input_messages.") or k.startswith("llm.output_messages.") for k in attrs
    ):
        return (
            flat_messages(attrs, "llm.input_messages."),
            flat_messages(attrs, "llm.output_messages."),
            "llm.input_messages",
        )
    if "input.value" in attrs or "output.value" in attrs:
        return (
            _value_messages(attrs.get("input.value"), "user"),
            _value_messages(attrs.get("output.value"), "assistant"),
            "input.value",
        )
    return [], [], ""


def _value_messages(value: Any, role: str) -> list[dict]:
    """OpenInference's ``input.value``/``output.value`` where no flattened messages are:
    a request body (``messages``), a response (``choices``), a list of chat messages, or
    plain text."""
    if type(value) is not str or not value.strip():
        return []
    try:
        found = loads_exact(value)
    except orjson.JSONDecodeError:
        return [{"role": role, "parts": [{"type": "text", "content": value}]}]
    if type(found) is dict and type(found.get("messages")) is list:
        found = found["messages"]
    elif type(found) is dict and type(found.get("choices")) is list:
        found = [c.get("message") for c in found["choices"] if type(c) is dict]
    if type(found) is not list:
        return [] if type(found) is not str else _value_messages(found, role)
    out = []
    for item in found:
        if type(item) is not dict:
            continue
        if type(item.get("parts")) is list:
            out.append(item)
            continue
        kind = "gen_ai.tool.message" if item.get("role") == "tool" else "gen_ai.user.message"
        out.append(event_message(kind, item))
    return out


def _safe(value: Any) -> list[dict]:
    if value is None:
        return []
    try:
        found = json_messages(value)
    except (ValueError, orjson.JSONDecodeError):
        return []
    return [m for m in found if type(m) is dict]


def _norm_part(part: Any) -> Any:
    if type(part) is not dict:
        return part
    out = {k: v for k, v in part.items()}
    args = out.get("arguments")
    if type(args) is str:
        with contextlib.suppress(orjson.JSONDecodeError):
            out["arguments"] = loads_exact(args)
    if out.get("type") == "tool_call_response" and "result" in out and "response" not in out:
        out["response"] = out.pop("result")
    return out


def signature(message: dict) -> bytes:
    parts = message.get("parts")
    parts = [_norm_part(p) for p in parts] if type(parts) is list else parts
    role = message.get("role")
    try:
        return orjson.dumps([role, parts], option=orjson.OPT_SORT_KEYS, default=str)
    except TypeError:  # (an integer beyond 64 bits, read exactly)
        import json

        return json.dumps([role, parts], sort_keys=True, default=str).encode()


def _calls(messages: Iterable[dict]) -> set:
    return {
        p.get("id")
        for m in messages
        for p in (m["parts"] if type(m.get("parts")) is list else ())
        if type(p) is dict and p.get("type") == "tool_call" and p.get("id")
    }


def _answers(messages: Iterable[dict]) -> set:
    return {
        p.get("id")
        for m in messages
        for p in (m["parts"] if type(m.get("parts")) is list else ())
        if type(p) is dict and p.get("type") == "tool_call_response" and p.get("id")
    }


class _Union:
    def __init__(self) -> None:
        self.parent: dict = {}

    def find(self, key: Any) -> Any:
        parent = self.parent.setdefault(key, key)
        while parent != key:
            self.parent[key] = self.parent.setdefault(parent, parent)
            key, parent = parent, self.parent[parent]
        return key

    def join(self, a: Any, b: Any) -> None:
        ra, rb = self.find(a), self.find(b)
        if ra != rb:
            self.parent[rb] = ra


def _str(value: Any) -> str | None:
    return value if type(value) is str else None


def _base(span: Span) -> dict:
    """What every record made of this span holds."""
    record: dict = {MARK: span.name, "trace": span.trace, "span": span.span}
    if span.parent:
        record["parent"] = span.parent
    when = iso(span.start)
    if when:
        record["time"] = when
    return record


def conversations(trace: Trace) -> list[list[Span]]:
    """The spans of the file, one list per conversation, in time order."""
    union = _Union()
    firsts: dict = {}
    call_trace: dict = {}
    for span in trace.spans:
        key = span.trace or f"line{span.line}"
        union.find(key)
        conv = _str(span.attrs.get("gen_ai.conversation.id"))
        if conv:
            union.join(key, ("conversation", conv))
    spans = sorted(trace.spans, key=lambda s: (s.start or 0, s.line))
    for span in spans:
        key = span.trace or f"line{span.line}"
        if operation_of(span.attrs) != "chat":
            continue
        inputs, outputs, _ = messages_of_span(span)
        for answered in _answers(inputs):
            earlier = call_trace.get(answered)
            if earlier is not None:
                union.join(earlier, key)
        for call in _calls(outputs):
            call_trace.setdefault(call, key)
    groups: dict = {}
    for span in spans:
        root = union.find(span.trace or f"line{span.line}")
        groups.setdefault(root, []).append(span)
        firsts.setdefault(root, span.start or 0)
    return list(groups.values())


def records_of(trace: Trace) -> list[tuple[int, dict]]:
    """``(line, message record)`` of every conversation of the file, in order."""
    trace.attach_logs()
    out: list[tuple[int, dict]] = []
    for spans in conversations(trace):
        records = _conversation(spans)
        # (one conversation, one session: the conversation id its spans name, else the
        # first trace's id, also for the traces joined to it by their tool call ids)
        session = next(
            (r["conversation"] for _, r in records if type(r.get("conversation")) is str),
            spans[0].trace,
        )
        for _, record in records:
            if session is not None:
                record.setdefault("conversation", session)
        out.extend(records)
    _name_results(out)
    return out


def _name_results(records: list[tuple[int, dict]]) -> None:
    """A tool result the emitter wrote without its tool's name takes the name of its call
    (the frameworks a conversion writes to want it)."""
    names: dict = {}
    for _, record in records:
        parts = record.get("parts")
        if type(parts) is not list:
            continue
        for index, part in enumerate(parts):
            if type(part) is not dict:
                continue
            kind = part.get("type")
            if kind == "tool_call" and type(part.get("name")) is str:
                names[part.get("id")] = part["name"]
            elif kind == "tool_call_response" and "name" not in part:
                name = names.get(part.get("id")) or record.get("tool")
                if name is not None:
                    parts[index] = {**part, "name": name}


def _conversation(spans: list[Span]) -> list[tuple[int, dict]]:
    out: list[tuple[int, dict]] = []
    history: list[bytes] = []
    emitted_calls: set = set()
    emitted_answers: set = set()
    pending: list[tuple[Span, dict]] = []  # tool runs whose result no later input holds yet
    chats_below: dict = {}
    for span in spans:
        if operation_of(span.attrs) == "chat" and span.parent:
            chats_below[span.parent] = chats_below.get(span.parent, 0) + 1
    content = any(any(messages_of_span(s)[:2]) for s in spans if operation_of(s.attrs) == "chat")
    for span in spans:
        op = operation_of(span.attrs)
        if op == "chat":
            inputs, outputs, family = messages_of_span(span)
            offset = span.attrs.get(OFFSET)
            if type(offset) is int:  # (msgcli's own: the input holds only what is new)
                new = inputs
                inputs = [*[{}] * offset, *inputs]
            else:
                new = _new_inputs(history, inputs)
            answered = _answers(new)
            for tool_span, record in pending:
                part = record["parts"][0]
                if part.get("id") not in answered:
                    out.append((tool_span.line, record))
                    emitted_answers.add(part.get("id"))
            pending = []
            for index, message in enumerate(new):
                record = _message(span, message, family)
                record["id"] = f"{span.span}.in{len(inputs) - len(new) + index}"
                out.append((span.line, record))
            emitted_calls |= _calls(new)
            emitted_answers |= _answers(new)
            history = history[: len(inputs) - len(new)] + [signature(m) for m in new]
            first = True
            for index, message in enumerate(outputs or [{"role": "assistant", "parts": []}]):
                record = _message(span, message, family)
                if index:
                    record["id"] = f"{span.span}.out{index}"
                if "name" not in record and "agent" in record:
                    record["name"] = record["agent"]  # (the agent that made the response)
                done = iso(span.end)
                if done:
                    record["time"] = done  # (a response is made when its call ends)
                if first:
                    _call_fields(span, record)
                    first = False
                out.append((span.line, record))
            emitted_calls |= _calls(outputs)
            history += [signature(m) for m in outputs]
        elif op == "execute_tool":
            found = _tool_record(span)
            call_id = found["parts"][0].get("id") if found else None
            if found is not None and call_id is None:
                call_id = _call_of_run(span, found, out)
            if found is not None and call_id not in emitted_answers:
                pending.append((span, found))
            out.append((span.line, _aside(span, "execute_tool")))
        elif op == "invoke_agent" or op == "create_agent":
            record = _aside(span, "invoke_agent")
            if not chats_below.get(span.span) or not content:
                # an agent turn whose model calls are not recorded (or recorded without
                # their messages): the messages the agent span holds
                messages = _agent_messages(span)
                if type(span.attrs.get(OFFSET)) is not int:
                    messages = _new_inputs(history, messages)
                for index, message in enumerate(messages):
                    said = _message(span, message, "invoke_agent")
                    said["id"] = f"{span.span}.in{index}"
                    out.append((span.line, said))
                history += [signature(m) for m in messages]
                answered = _answers(messages)
                emitted_answers |= answered
                pending = [p for p in pending if p[1]["parts"][0].get("id") not in answered]
            out.append((span.line, record))
        else:
            out.append((span.line, _aside(span, "span" if op is None else op)))
    for tool_span, record in pending:
        out.append((tool_span.line, record))
    return out


def _call_of_run(span: Span, result: dict, out: list[tuple[int, dict]]) -> str | None:
    """A tool run that names no call id (OpenInference's TOOL span), whose call the model's
    recorded output does not hold either: the span records the call (the tool's name and
    arguments) as well as its result. The call is read into the latest response before the
    run, under the span's id, which the result takes too (so the two pair up)."""
    for _, record in reversed(out):
        if record.get("role") == "assistant" and type(record.get("parts")) is list:
            break
    else:
        return None
    attrs = span.attrs
    arguments = attrs.get("gen_ai.tool.call.arguments", attrs.get("input.value"))
    call = {"type": "tool_call", "id": span.span, "name": result.get("tool")}
    if arguments is not None:
        call["arguments"] = arguments
    record["parts"] = [*record["parts"], call]
    result["parts"][0]["id"] = span.span
    return span.span


def _agent_messages(span: Span) -> list[dict]:
    """The messages an agent span holds: ``gen_ai.input.messages`` and
    ``gen_ai.output.messages``, or pydantic-ai's ``pydantic_ai.all_messages``, after its
    ``gen_ai.system_instructions``."""
    attrs = span.attrs
    messages = _safe(attrs.get("gen_ai.input.messages")) + _safe(
        attrs.get("gen_ai.output.messages")
    )
    if not messages:
        messages = _safe(attrs.get("pydantic_ai.all_messages"))
    system = attrs.get("gen_ai.system_instructions")
    if messages and system is not None:
        found = instructions(system)
        if found is not None:
            messages = [found, *messages]
    return messages


def _new_inputs(history: list[bytes], inputs: list[dict]) -> list[dict]:
    """The input messages past what the conversation already holds (its common start)."""
    size = 0
    for have, message in zip(history, inputs, strict=False):
        if have != signature(message):
            break
        size += 1
    if size < len(history) and size < len(inputs):
        # (a history that does not go on from the last call's: the rest is new)
        return inputs[size:]
    return inputs[size:]


def _message(span: Span, message: dict, family: str) -> dict:
    record = _base(span)
    record["role"] = message.get("role")
    parts = message.get("parts")
    record["parts"] = parts if type(parts) is list else []
    for key in ("name", "finish_reason"):
        if message.get(key) is not None:
            record[key] = message[key]
    agent = _str(span.attrs.get("gen_ai.agent.name"))
    if agent:
        record["agent"] = agent
    conv = _str(span.attrs.get("gen_ai.conversation.id"))
    if conv:
        record["conversation"] = conv
    record["from"] = family
    return record


def _call_fields(span: Span, record: dict) -> None:
    """What the model call records: its model, provider, response id, usage, latency,
    error."""
    attrs = span.attrs
    for key, name in (
        ("gen_ai.response.model", "model"),
        ("gen_ai.response.id", "response_id"),
        ("gen_ai.provider.name", "provider"),
        ("gen_ai.request.model", "request_model"),
    ):
        value = _str(attrs.get(key))
        if value:
            record[name] = value
    if "model" not in record:
        model = _str(attrs.get("llm.model_name")) or _str(attrs.get("gen_ai.request.model"))
        if model:
            record["model"] = model
    if "provider" not in record:
        provider = _str(attrs.get("gen_ai.system")) or _str(attrs.get("llm.system"))
        if provider:
            record["provider"] = provider
    details = [r.attrs for r in span.logs if r.event == DETAILS_EVENT]
    usage = usage_of(attrs)
    for more in details:
        usage = usage or usage_of(more)
    if usage:
        own = attrs.get(OWN_INPUT)
        if type(own) is int:
            # (msgcli's own, written from a log that counts the cached tokens apart: the
            # input as that log counts it, the conventions' total in gen_ai.usage.*)
            usage["input"] = own
            record["cache_apart"] = True
        record["usage"] = usage
    reasons = attrs.get("gen_ai.response.finish_reasons")
    if type(reasons) is list and reasons and "finish_reason" not in record:
        record["finish_reason"] = reasons[0]
    elif _str(attrs.get("llm.finish_reason")) and "finish_reason" not in record:
        record["finish_reason"] = attrs["llm.finish_reason"]
    if span.start is not None and span.end is not None and span.end >= span.start:
        record["latency_ms"] = round((span.end - span.start) / 1e6, 3)
    _error(span, record)
    record["call"] = True


def _error(span: Span, record: dict) -> None:
    if span.status == 2 or "error.type" in span.attrs:
        error: dict = {}
        if span.attrs.get("error.type") is not None:
            error["type"] = span.attrs["error.type"]
        else:
            for name, _, attrs in span.events:
                if name == "exception" and _str(attrs.get("exception.type")):
                    error["type"] = attrs["exception.type"]
                    break
        if span.status_message:
            error["message"] = span.status_message
        record["error"] = error or {"type": "error"}


def _tool_record(span: Span) -> dict | None:
    """The tool message an ``execute_tool`` span makes: its result, under its call id."""
    attrs = span.attrs
    call_id = attrs.get("gen_ai.tool.call.id")
    if "gen_ai.tool.call.result" in attrs:
        result = attrs["gen_ai.tool.call.result"]
    elif "tool_response" in attrs:
        result = attrs["tool_response"]
    elif "output.value" in attrs:
        result = attrs["output.value"]
    else:
        return None
    record = _base(span)
    record["role"] = "tool"
    record["parts"] = [{"type": "tool_call_response", "id": call_id, "response": result}]
    record["from"] = "execute_tool"
    name = _str(attrs.get("gen_ai.tool.name")) or _str(attrs.get("tool.name"))
    if name:
        record["tool"] = name
    return record


def _aside(span: Span, role: str) -> dict:
    """A record outside the conversation: an agent run, a tool run, another span."""
    record = _base(span)
    record["role"] = role
    record["aside"] = True
    attrs = span.attrs
    if role == "execute_tool":
        name = _str(attrs.get("gen_ai.tool.name")) or _str(attrs.get("tool.name"))
    else:
        name = _str(attrs.get("gen_ai.agent.name")) or _str(attrs.get("agent_name"))
    name = name or span.name
    record["name"] = name
    record["span_name"] = span.name
    if role == "execute_tool":
        for key, short in (
            ("gen_ai.tool.call.id", "call_id"),
            ("gen_ai.tool.call.arguments", "arguments"),
            ("tool_arguments", "arguments"),
        ):
            if attrs.get(key) is not None:
                record[short] = attrs[key]
    aggregated = {k[len(AGGREGATED) :]: v for k, v in attrs.items() if k.startswith(AGGREGATED)}
    if aggregated:
        record["aggregated_usage"] = aggregated  # (the sum of its calls: never counted again)
    if span.start is not None and span.end is not None and span.end >= span.start:
        record["latency_ms"] = round((span.end - span.start) / 1e6, 3)
    _error(span, record)
    return record


class Assembler:
    """Holds every record of the file and hands on its conversations at the end (see
    :meth:`msgcli.dialects.base.Dialect.assembler`)."""

    def __init__(self) -> None:
        self.trace = Trace()
        self.holding: int | None = None

    def feed(self, line: int, obj: dict) -> list[tuple[int, dict]]:
        if self.holding is None:
            self.holding = line
        self.trace.feed(line, obj)
        return []

    def finish(self) -> list[tuple[int, dict]]:
        self.holding = None
        return records_of(self.trace)


def gather(records: Iterable[tuple[int, dict]]) -> list[tuple[int, dict]]:
    """The message records of a file's export records ``(line, record)``."""
    assembler = Assembler()
    for line, obj in records:
        assembler.feed(line, obj)
    return assembler.finish()
