"""The GenAI semantic conventions: the messages a span records, whichever attribute
family its emitter writes, brought to one form (the current conventions' ``{role, parts}``
messages), and what is known of them.

Families read: ``gen_ai.input.messages``/``gen_ai.output.messages``/
``gen_ai.system_instructions`` (JSON strings or structured values), the older per-message
events (``gen_ai.system.message``, ``gen_ai.user.message``, ``gen_ai.assistant.message``,
``gen_ai.tool.message``, ``gen_ai.choice``), OpenLLMetry's flattened ``gen_ai.prompt.N.*``
and ``gen_ai.completion.N.*``, and OpenInference's ``llm.input_messages.N.message.*``.
"""

from __future__ import annotations

from typing import Any

import orjson

from ...records import loads_exact

__all__ = [
    "AGGREGATED",
    "KNOWN_PARTS",
    "MESSAGE_EVENTS",
    "event_messages",
    "flat_messages",
    "is_genai",
    "json_messages",
    "operation_of",
    "usage_of",
]

#: the part types of the published JSON Schemas, with the key each one needs
KNOWN_PARTS = {
    "text": ("content",),
    "thinking": ("content",),
    "reasoning": ("content",),
    "tool_call": ("name",),
    "tool_call_response": ("response",),
    "server_tool_call": ("name",),
    "server_tool_call_response": (),
    "blob": ("content", "modality"),
    "uri": ("uri", "modality"),
    "file": ("file_id", "modality"),
}
ROLES = frozenset({"system", "user", "assistant", "tool", "developer"})
#: event (and log record) names of the older conventions that carry one message each
MESSAGE_EVENTS = {
    "gen_ai.system.message": "system",
    "gen_ai.user.message": "user",
    "gen_ai.assistant.message": "assistant",
    "gen_ai.tool.message": "tool",
    "gen_ai.choice": "assistant",
}
DETAILS_EVENT = "gen_ai.client.inference.operation.details"
#: span and log event names msgcli knows (others in the gen_ai namespace are new: info)
KNOWN_EVENTS = frozenset(
    {
        *MESSAGE_EVENTS,
        DETAILS_EVENT,
        "gen_ai.content.prompt",
        "gen_ai.content.completion",
        "gen_ai.content.completion.chunk",
        "gen_ai.evaluation.result",
        "exception",
    }
)
AGGREGATED = "gen_ai.aggregated_usage."
CHAT_OPERATIONS = frozenset({"chat", "text_completion", "generate_content", "completion"})


def operation_of(attrs: dict) -> str | None:
    """What a span does: ``chat`` (a model call), ``invoke_agent``, ``execute_tool``, any
    other operation its ``gen_ai.operation.name`` says, or ``None`` (no GenAI span)."""
    op = attrs.get("gen_ai.operation.name")
    if type(op) is str and op:
        return "chat" if op in CHAT_OPERATIONS else op
    request = attrs.get("llm.request.type")  # OpenLLMetry before the operation name
    if request in ("chat", "completion"):
        return "chat"
    kind = attrs.get("openinference.span.kind")
    if type(kind) is str:
        return {"LLM": "chat", "AGENT": "invoke_agent", "TOOL": "execute_tool"}.get(
            kind, kind.lower()
        )
    if "gen_ai.system" in attrs or "gen_ai.provider.name" in attrs:
        return "chat"
    return None


def is_genai(attrs: dict) -> bool:
    return operation_of(attrs) is not None or any(
        k.startswith("gen_ai.") or k.startswith("llm.") for k in attrs
    )


def loads(value: Any) -> Any:
    """A JSON string's value; anything else as it is."""
    if type(value) is str:
        return loads_exact(value)
    return value


def json_messages(value: Any) -> list[dict]:
    """The messages of a ``gen_ai.*.messages`` value (a JSON string or a structured value);
    ``ValueError`` when it holds none."""
    found = loads(value)
    if type(found) is not list:
        raise ValueError("not a list of messages")
    return found


def instructions(value: Any) -> dict | None:
    """``gen_ai.system_instructions`` (a list of parts, a JSON string of one, or plain
    text) as a system message."""
    try:
        found = loads(value)
    except orjson.JSONDecodeError:
        found = value
    if type(found) is str:
        return {"role": "system", "parts": [{"type": "text", "content": found}]}
    if type(found) is list:
        return {"role": "system", "parts": found}
    return None


def _tree(attrs: dict, prefix: str) -> dict:
    """``prefix.N.a.b`` keys as nested dicts ``{N: {a: {b: value}}}`` (N, M... as ints)."""
    root: dict = {}
    size = len(prefix)
    for key, value in attrs.items():
        if not key.startswith(prefix):
            continue
        parts = key[size:].split(".")
        node = root
        for part in parts[:-1]:
            part_key: Any = int(part) if part.isdigit() else part
            child = node.get(part_key)
            if type(child) is not dict:
                child = node[part_key] = {}
            node = child
        last = parts[-1]
        node[int(last) if last.isdigit() else last] = value
    return root


def _ordered(tree: Any) -> list:
    if type(tree) is not dict:
        return []
    return [tree[k] for k in sorted(k for k in tree if type(k) is int)]


def _args(value: Any) -> Any:
    return value


def flat_messages(attrs: dict, prefix: str) -> list[dict]:
    """OpenLLMetry's ``gen_ai.prompt.N.*``/``gen_ai.completion.N.*`` or OpenInference's
    ``llm.input_messages.N.message.*`` as ``{role, parts}`` messages."""
    out = []
    for item in _ordered(_tree(attrs, prefix)):
        if type(item) is not dict:
            continue
        if type(item.get("message")) is dict:  # OpenInference
            item = item["message"]
        role = item.get("role")
        parts: list[dict] = []
        contents = _ordered(item.get("contents"))
        for content in contents:
            content = content.get("message_content", content) if type(content) is dict else {}
            kind = content.get("type")
            if kind == "text":
                parts.append({"type": "text", "content": content.get("text")})
            elif kind == "image":
                image = content.get("image")
                image = image.get("image", image) if type(image) is dict else {}
                url = image.get("url") if type(image) is dict else None
                parts.append({"type": "uri", "modality": "image", "uri": url})
            elif content:
                parts.append({"type": str(kind), **content})
        text = item.get("content")
        call_id = item.get("tool_call_id")
        if role == "tool" and call_id is not None:
            parts.append({"type": "tool_call_response", "id": call_id, "response": text})
        elif text is not None and text != "":
            parts.append({"type": "text", "content": text})
        for call in _ordered(item.get("tool_calls")):
            if type(call) is not dict:
                continue
            call = call.get("tool_call", call)
            function = call.get("function") if type(call.get("function")) is dict else call
            parts.append(
                {
                    "type": "tool_call",
                    "id": call.get("id"),
                    "name": function.get("name"),
                    "arguments": function.get("arguments"),
                }
            )
        message: dict = {"role": role, "parts": parts}
        if item.get("finish_reason") is not None:
            message["finish_reason"] = item["finish_reason"]
        out.append(message)
    return out


def event_message(name: str, body: Any) -> dict:
    """One older-convention event's body as a ``{role, parts}`` message."""
    role = MESSAGE_EVENTS[name]
    body = body if type(body) is dict else {"content": body}
    message = body
    if name == "gen_ai.choice" and type(body.get("message")) is dict:
        message = {**body["message"], **{k: v for k, v in body.items() if k == "tool_calls"}}
    if type(message.get("role")) is str:
        role = message["role"]
    parts: list[dict] = []
    content = message.get("content")
    if role == "tool":
        call_id = message.get("id", message.get("tool_call_id"))
        parts.append({"type": "tool_call_response", "id": call_id, "response": content})
    elif type(content) is str and content:
        parts.append({"type": "text", "content": content})
    elif type(content) is list:
        for item in content:
            if type(item) is dict and item.get("type") == "text":
                parts.append({"type": "text", "content": item.get("text")})
            elif item is not None:
                parts.append({"type": "text", "content": item} if type(item) is str else item)
    for call in message.get("tool_calls") or ():
        if type(call) is not dict:
            continue
        function: dict = call["function"] if type(call.get("function")) is dict else call
        parts.append(
            {
                "type": "tool_call",
                "id": call.get("id"),
                "name": function.get("name"),
                "arguments": function.get("arguments"),
            }
        )
    out: dict = {"role": role, "parts": parts}
    if name == "gen_ai.choice" and body.get("finish_reason") is not None:
        out["finish_reason"] = body["finish_reason"]
    return out


def event_messages(events: list[tuple[str, Any]]) -> tuple[list[dict], list[dict]]:
    """``(input, output)`` messages of a span's older-convention events ``(name, body)``;
    a tool message without an id answers the calls before it, in order."""
    inputs: list[dict] = []
    outputs: list[dict] = []
    waiting: list[Any] = []
    for name, body in events:
        if name not in MESSAGE_EVENTS:
            continue
        message = event_message(name, body)
        for part in message["parts"]:
            if part.get("type") == "tool_call":
                waiting.append(part.get("id"))
            elif part.get("type") == "tool_call_response":
                if part.get("id") is None and waiting:
                    part["id"] = waiting.pop(0)
                elif part.get("id") in waiting:
                    waiting.remove(part.get("id"))
        (outputs if name == "gen_ai.choice" else inputs).append(message)
    return inputs, outputs


#: usage attribute -> the neutral count it gives, per family (first found wins)
USAGE_KEYS = {
    "input": (
        "gen_ai.usage.input_tokens",
        "gen_ai.usage.prompt_tokens",
        "llm.token_count.prompt",
    ),
    "output": (
        "gen_ai.usage.output_tokens",
        "gen_ai.usage.completion_tokens",
        "llm.token_count.completion",
    ),
    "cache_read": (
        "gen_ai.usage.cache_read.input_tokens",
        "gen_ai.usage.cache_read_input_tokens",
        "llm.token_count.prompt_details.cache_read",
    ),
    "cache_creation": (
        "gen_ai.usage.cache_creation.input_tokens",
        "gen_ai.usage.cache_creation_input_tokens",
        "llm.token_count.prompt_details.cache_write",
    ),
    "reasoning": (
        "gen_ai.usage.reasoning_tokens",
        "gen_ai.usage.details.reasoning_tokens",
        "gen_ai.usage.reasoning.output_tokens",
        "llm.token_count.completion_details.reasoning",
    ),
    "total": ("gen_ai.usage.total_tokens", "llm.usage.total_tokens", "llm.token_count.total"),
}


def _number(value: Any) -> Any:
    return value if type(value) in (int, float) else None


def usage_of(attrs: dict) -> dict[str, Any] | None:
    """The usage a model-call span records (never the aggregated usage of an agent span)."""
    out: dict[str, Any] = {}
    for name, keys in USAGE_KEYS.items():
        for key in keys:
            value = _number(attrs.get(key))
            if value is not None:
                out[name] = value
                break
    return out or None


def is_usage_key(key: str) -> bool:
    return (
        key.startswith("gen_ai.usage.")
        or key.startswith(AGGREGATED)
        or key.startswith("llm.token_count.")
        or key == "llm.usage.total_tokens"
    )
