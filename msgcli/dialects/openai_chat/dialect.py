"""The ``openai-chat`` dialect: what the Chat Completions API sends and returns.

Records: ``chat.completion.chunk`` events (``chunk.to_json()`` / ``model_dump_json()``
lines, or the raw SSE body), messages (``{"role", "content", "tool_calls", ...}``),
``chat.completion`` objects, and conversations: request bodies, request + answer lines,
and fine-tuning lines (``{"messages": [...], "tools": [...]}``), with the checks of
OpenAI's data-preparation guide."""

from __future__ import annotations

from typing import Any

from ...guard import as_key, json_text
from ...model import (
    Message,
    TextBlock,
    ToolCallBlock,
    ToolResultBlock,
    UnknownBlock,
    Usage,
)
from ...textsafe import short
from ..base import EVENT, MESSAGE, Emit
from ..wire import Pairing, WireDialect, parse_arguments, reasoning_tokens

NAME = "openai-chat"

ROLES = frozenset({"system", "developer", "user", "assistant", "tool", "function"})
_MESSAGE_KEYS = frozenset(
    {
        "role",
        "content",
        "name",
        "tool_calls",
        "tool_call_id",
        "refusal",
        "annotations",
        "audio",
        "function_call",
        "parsed",
        "weight",
        "reasoning_content",
    }
)
_PART_TYPES = frozenset({"text", "image_url", "input_audio", "file", "refusal"})
#: the token limit of a fine-tuning example (the guide's default context length)
TOKEN_LIMIT = 65536


def _chat_content(content: Any) -> bool:
    if content is None or isinstance(content, str):
        return True
    return (
        isinstance(content, list)
        and bool(content)
        and all(isinstance(p, dict) and as_key(p.get("type")) in _PART_TYPES for p in content)
    )


class ChatDialect(WireDialect):
    name = NAME
    title = "OpenAI Chat Completions"
    usage_cache_in_input = True
    writer = "msgcli.converters.wire:OPENAI_CHAT"
    tool_input_key = "arguments"
    tool_result_roles = frozenset({"tool", "function"})
    replayer_class = "msgcli.dialects.openai_chat.replay:ChatReplayer"

    def classify(self, obj: dict) -> str | None:
        if not isinstance(obj, dict):
            return None
        kind = obj.get("object")
        if kind == "chat.completion.chunk":
            return EVENT
        if kind == "chat.completion":
            return MESSAGE
        messages = obj.get("messages")
        if (
            isinstance(messages, list)
            and "role" not in obj
            and "content" not in obj
            and "system" not in obj  # Anthropic's top-level system prompt
            and all(not isinstance(m, dict) or _chat_content(m.get("content")) for m in messages)
        ):
            return MESSAGE
        role = as_key(obj.get("role"))
        if (
            role in ROLES
            and ("content" in obj or "tool_calls" in obj)
            and obj.keys() <= _MESSAGE_KEYS
            and _chat_content(obj.get("content"))
        ):
            return MESSAGE
        return None

    def conversation(self, obj: dict) -> list[tuple[tuple, dict]] | None:
        if obj.get("object") == "chat.completion":
            choices = obj.get("choices")
            out = []
            for i, choice in enumerate(choices if isinstance(choices, list) else ()):
                if isinstance(choice, dict) and isinstance(choice.get("message"), dict):
                    out.append((("choices", i, "message"), choice["message"]))
            return out
        messages = obj.get("messages")
        if not isinstance(messages, list) or "role" in obj:
            return None
        return [(("messages", i), m) for i, m in enumerate(messages) if isinstance(m, dict)]

    def read(self, obj: dict) -> Message:
        msg = super().read(obj)
        if isinstance(obj, dict) and obj.get("object") == "chat.completion":
            choices = obj.get("choices")
            msg.fields["finish_reason"] = [
                c.get("finish_reason")
                for c in (choices if isinstance(choices, list) else ())
                if isinstance(c, dict)
            ]
        return msg

    def expand(self, obj: dict) -> list[dict]:
        found = self.conversation(obj)
        if found is None:
            return [obj]
        if obj.get("object") == "chat.completion":
            # the answer keeps what the completion says of it
            out: list[dict] = []
            for path, message in found:
                choice = obj["choices"][path[1]]
                extra = {"finish_reason": choice.get("finish_reason")}
                if not out:  # the completion's usage, counted once
                    extra["usage"] = obj.get("usage")
                if obj.get("id") is not None:
                    extra["id"] = obj["id"]
                if obj.get("model") is not None:
                    extra["model"] = obj["model"]
                out.append({**message, "msgcli_completion": extra})
            return out
        return [m for _, m in found]

    def read_usage(self, usage: dict) -> Usage:
        details = usage.get("prompt_tokens_details")
        cached = details.get("cached_tokens") if isinstance(details, dict) else None
        out = Usage(
            input_tokens=usage.get("prompt_tokens"),
            output_tokens=usage.get("completion_tokens"),
            cached_tokens=cached,
            total_tokens=usage.get("total_tokens"),
        )
        return out

    def read_message(self, obj: dict, path: tuple = ()) -> Message:
        msg = Message(dialect=NAME, role=as_key(obj.get("role")), name=obj.get("name"))
        completion = obj.get("msgcli_completion")
        for key, value in obj.items():
            if key not in (
                "role",
                "content",
                "name",
                "tool_calls",
                "tool_call_id",
                "msgcli_completion",
            ):
                msg.fields[key] = value
        if isinstance(completion, dict):
            msg.id = completion.get("id")
            msg.fields["finish_reason"] = completion.get("finish_reason")
            if completion.get("model") is not None:
                msg.fields["model"] = completion["model"]
            if isinstance(completion.get("usage"), dict):
                msg.usage = self.read_usage(completion["usage"])
                msg.fields["reasoning_tokens"] = reasoning_tokens(completion["usage"])
        content = obj.get("content")
        role = as_key(obj.get("role"))
        if role in ("tool", "function"):
            output: Any = content
            if isinstance(content, list):
                output = [
                    TextBlock(type="text", path=(*path, "content", i), text=p.get("text"))
                    for i, p in enumerate(content)
                    if isinstance(p, dict)
                ]
            msg.content.append(
                ToolResultBlock(
                    type="tool_result",
                    id=obj.get("tool_call_id") if role == "tool" else obj.get("name"),
                    path=(*path,),
                    name=obj.get("name"),
                    output=output,
                )
            )
        elif isinstance(content, str):
            msg.content.append(TextBlock(type="text", path=(*path, "content"), text=content))
            msg.fields["content_is_text"] = True
        elif isinstance(content, list):
            for i, part in enumerate(content):
                where = (*path, "content", i)
                if isinstance(part, dict) and as_key(part.get("type")) == "text":
                    msg.content.append(TextBlock(type="text", path=where, text=part.get("text")))
                else:
                    msg.content.append(
                        UnknownBlock(type=str(as_key(_type(part))), path=where, raw=part)
                    )
        calls = obj.get("tool_calls")
        if isinstance(calls, list):
            for i, call in enumerate(calls):
                if not isinstance(call, dict):
                    continue
                function = call.get("function")
                function = function if isinstance(function, dict) else {}
                arguments, _ = parse_arguments(function.get("arguments"))
                msg.content.append(
                    ToolCallBlock(
                        type="tool_call",
                        id=call.get("id"),
                        path=(*path, "tool_calls", i, "function"),
                        name=function.get("name"),
                        input=function.get("arguments"),
                        arguments=arguments,
                    )
                )
        return msg

    def finish_reason(self, msg: Message) -> Any:
        return msg.fields.get("finish_reason")

    def check_conversation(self, obj: dict, found: list[tuple[tuple, dict]], emit: Emit) -> None:
        if obj.get("object") == "chat.completion":
            return
        check_chat(obj, emit)


def _type(part: Any) -> Any:
    return as_key(part.get("type")) if isinstance(part, dict) else type(part).__name__


def check_chat(obj: dict, emit: Emit) -> None:
    """The checks of a chat conversation: a request body, a request + answer line, or a
    fine-tuning example (OpenAI's data-preparation checks, each at its message)."""
    messages = obj["messages"]
    if not messages:
        emit("B010", "the messages list is empty", "/messages")
        return
    # a line with no model is a fine-tuning example (or one saved like it): the guide's checks
    training = "model" not in obj
    pairing = Pairing(emit)
    assistant = False
    open_calls: list[Any] = []  # calls of the latest assistant message not answered yet
    tokens = 0
    for i, message in enumerate(messages):
        where = f"/messages/{i}"
        if not isinstance(message, dict):
            emit("S001", f"message {i} is not an object", where)
            continue
        role = as_key(message.get("role"))
        if role not in ROLES:
            emit(
                "B007",
                f"role {short(role)} is not one of {', '.join(sorted(ROLES))}",
                f"{where}/role",
            )
            continue
        content = message.get("content")
        calls = message.get("tool_calls")
        if role == "assistant":
            assistant = True
            if (
                (content is None or content == "")
                and not calls
                and not message.get("function_call")
                and not message.get("refusal")
            ):
                emit(
                    "B008",
                    "an assistant message with neither content nor tool calls",
                    f"{where}/content",
                )
        elif "content" not in message or content is None:
            emit("B008", f"a {role} message without content", f"{where}/content")
        if "weight" in message and training:
            weight = message["weight"]
            if role != "assistant":
                emit(
                    "B009",
                    f"weight on a {role} message: only assistant messages take a weight",
                    f"{where}/weight",
                )
            elif weight not in (0, 1) or isinstance(weight, bool):
                emit("B009", f"weight {short(weight)}: it must be 0 or 1", f"{where}/weight")
        if role == "tool":
            cid = message.get("tool_call_id")
            if cid not in open_calls:
                if not open_calls and cid is not None:
                    emit(
                        "B005",
                        f"tool message {short(cid)} does not follow an assistant message with "
                        "tool calls",
                        where,
                    )
            else:
                open_calls.remove(cid)
            pairing.result(cid, where)
        else:
            if open_calls and role != "tool":
                for cid in open_calls:
                    emit(
                        "B005",
                        f"tool call {short(cid)} is not answered before the next {role} message",
                        where,
                    )
                open_calls = []
        if isinstance(calls, list):
            for j, call in enumerate(calls):
                ptr = f"{where}/tool_calls/{j}"
                if not isinstance(call, dict):
                    continue
                found = call.get("function")
                function: dict = found if isinstance(found, dict) else {}
                pairing.call(call.get("id"), function.get("name"), ptr)
                open_calls.append(call.get("id"))
                _, wrong = parse_arguments(function.get("arguments"))
                if wrong is not None:
                    emit(
                        "T004",
                        f"the arguments of tool call {short(call.get('id'))} {wrong}",
                        f"{ptr}/function/arguments",
                    )
        tokens += _estimate(message)
    if not assistant and training:
        emit("B006", "no assistant message: the example has nothing to learn from", "/messages")
    pairing.finish()
    if training and tokens > TOKEN_LIMIT:
        emit(
            "B011",
            f"about {tokens} tokens (estimated), over the {TOKEN_LIMIT} a training example "
            "may hold: it would be truncated",
            "/messages",
        )


def _estimate(message: dict) -> int:
    """Tokens of a message, estimated as the guide counts them (3 per message, the text at
    about 4 characters a token)."""
    size = 0
    for value in message.values():
        if isinstance(value, str):
            size += len(value)
        elif isinstance(value, (list, dict)):
            size += len(json_text(value))
    return 3 + size // 4


DIALECT = ChatDialect()
