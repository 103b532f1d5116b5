"""The ``openai-responses`` dialect: what the Responses API sends and returns.

Records: stream events (``response.created`` ... ``response.completed``), input items
(messages, ``function_call``, ``function_call_output``, ``reasoning``), ``response``
objects, and conversations (request bodies with an ``input`` list, request + answer
lines). Every input item reads as one message."""

from __future__ import annotations

from typing import Any

from ...guard import as_key
from ...model import (
    Message,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
    ToolResultBlock,
    UnknownBlock,
    Usage,
)
from ...textsafe import short
from ..base import EVENT, MESSAGE, Emit
from ..wire import Pairing, WireDialect, parse_arguments, reasoning_tokens

NAME = "openai-responses"

ITEM_TYPES = frozenset(
    {
        "message",
        "function_call",
        "function_call_output",
        "reasoning",
        "web_search_call",
        "file_search_call",
        "computer_call",
        "computer_call_output",
        "custom_tool_call",
        "custom_tool_call_output",
        "item_reference",
    }
)
_TEXT_PARTS = frozenset({"input_text", "output_text"})
ROLES = frozenset({"user", "assistant", "system", "developer"})


class ResponsesDialect(WireDialect):
    name = NAME
    title = "OpenAI Responses"
    usage_cache_in_input = True
    writer = "msgcli.converters.wire:OPENAI_RESPONSES"
    tool_input_key = "arguments"
    tool_result_roles = frozenset({"tool"})
    tool_call_id_key = "call_id"
    replayer_class = "msgcli.dialects.openai_responses.replay:ResponsesReplayer"

    def classify(self, obj: dict) -> str | None:
        if not isinstance(obj, dict):
            return None
        kind = as_key(obj.get("type"))
        if isinstance(kind, str):
            if kind.startswith("response."):
                return EVENT
            if kind == "error" and "sequence_number" in obj:
                return EVENT
            if kind in ITEM_TYPES and kind != "message":
                return MESSAGE if ("call_id" in obj or "id" in obj or "summary" in obj) else None
            if kind == "message" and _responses_content(obj.get("content")):
                return MESSAGE
        if obj.get("object") == "response":
            return MESSAGE
        items = obj.get("input")
        if "role" not in obj and (
            isinstance(items, list) or (isinstance(items, str) and "model" in obj)
        ):
            return MESSAGE
        return None

    def conversation(self, obj: dict) -> list[tuple[tuple, dict]] | None:
        if obj.get("object") == "response":
            output = obj.get("output")
            if not isinstance(output, list):
                return []  # (the schema says what it holds instead)
            return [(("output", i), m) for i, m in enumerate(output) if isinstance(m, dict)]
        items = obj.get("input")
        if isinstance(items, str) and "role" not in obj and "type" not in obj:
            items = [{"role": "user", "content": items}]
        if not isinstance(items, list) or "role" in obj or "type" in obj:
            return None
        out: list[tuple[tuple, dict]] = []
        instructions = obj.get("instructions")
        if isinstance(instructions, str):
            out.append((("instructions",), {"role": "system", "content": instructions}))
        out.extend((("input", i), m) for i, m in enumerate(items) if isinstance(m, dict))
        return out

    def expand(self, obj: dict) -> list[dict]:
        found = self.conversation(obj)
        if found is None:
            return [obj]
        if obj.get("object") == "response":
            extra = {k: obj.get(k) for k in ("id", "model", "status") if obj.get(k) is not None}
            out = [{**m, "msgcli_response": extra} for _, m in found]
            if out and obj.get("usage") is not None:  # the response's usage, counted once
                out[-1]["msgcli_response"] = {**extra, "usage": obj["usage"]}
            return out
        return [m for _, m in found]

    def read_usage(self, usage: dict) -> Usage:
        details = usage.get("input_tokens_details")
        out = Usage(
            input_tokens=usage.get("input_tokens"),
            output_tokens=usage.get("output_tokens"),
            cached_tokens=details.get("cached_tokens") if isinstance(details, dict) else None,
            total_tokens=usage.get("total_tokens"),
        )
        return out

    def read_message(self, obj: dict, path: tuple = ()) -> Message:
        kind = obj.get("type", "message")
        msg = Message(dialect=NAME, id=obj.get("id"))
        response = obj.get("msgcli_response")
        if isinstance(response, dict):
            msg.fields["response"] = response.get("id")
            msg.fields["finish_reason"] = response.get("status")
            if isinstance(response.get("usage"), dict) and isinstance(response.get("model"), str):
                msg.fields["model"] = response["model"]  # (what msgcli usage prices it by)
            if isinstance(response.get("usage"), dict):
                msg.usage = self.read_usage(response["usage"])
                msg.fields["reasoning_tokens"] = reasoning_tokens(response["usage"])
        for key, value in obj.items():
            if key not in (
                "role",
                "content",
                "id",
                "msgcli_response",
                "arguments",
                "output",
                "summary",
            ):
                msg.fields[key] = value
        if kind == "message":
            msg.role = as_key(obj.get("role"))
            content = obj.get("content")
            if isinstance(content, str):
                msg.content.append(TextBlock(type="text", path=(*path, "content"), text=content))
                msg.fields["content_is_text"] = True
            elif isinstance(content, list):
                for i, part in enumerate(content):
                    where = (*path, "content", i)
                    if isinstance(part, dict) and as_key(part.get("type")) in _TEXT_PARTS:
                        msg.content.append(
                            TextBlock(type="text", path=where, text=part.get("text"))
                        )
                    elif isinstance(part, dict) and as_key(part.get("type")) == "refusal":
                        msg.content.append(
                            TextBlock(type="text", path=where, text=part.get("refusal"))
                        )
                    else:
                        msg.content.append(
                            UnknownBlock(type=str(as_key(_type(part))), path=where, raw=part)
                        )
        elif kind == "function_call":
            msg.role = "assistant"
            arguments, _ = parse_arguments(obj.get("arguments"))
            msg.content.append(
                ToolCallBlock(
                    type="tool_call",
                    id=obj.get("call_id"),
                    path=path,
                    name=obj.get("name"),
                    input=obj.get("arguments"),
                    arguments=arguments,
                )
            )
        elif kind == "function_call_output":
            msg.role = "tool"
            output = obj.get("output")
            if isinstance(output, list):
                output = [
                    TextBlock(type="text", path=(*path, "output", i), text=p.get("text"))
                    for i, p in enumerate(output)
                    if isinstance(p, dict)
                ]
            msg.content.append(
                ToolResultBlock(type="tool_result", id=obj.get("call_id"), path=path, output=output)
            )
        elif kind == "reasoning":
            msg.role = "assistant"
            summary = obj.get("summary")
            for i, part in enumerate(summary if isinstance(summary, list) else ()):
                if isinstance(part, dict):
                    msg.content.append(
                        ThinkingBlock(
                            type="thinking", path=(*path, "summary", i), thinking=part.get("text")
                        )
                    )
            if not msg.content:
                msg.content.append(ThinkingBlock(type="thinking", path=path, thinking=""))
        else:
            msg.role = "assistant"
            msg.content.append(UnknownBlock(type=str(as_key(kind)), path=path, raw=obj))
        return msg

    def finish_reason(self, msg: Message) -> Any:
        return msg.fields.get("finish_reason")

    def check_conversation(self, obj: dict, found: list[tuple[tuple, dict]], emit: Emit) -> None:
        if obj.get("object") == "response":
            return
        items = obj["input"]
        if isinstance(items, str):
            return
        if not items:
            emit("B010", "the input list is empty", "/input")
            return
        pairing = Pairing(emit)
        for i, item in enumerate(items):
            where = f"/input/{i}"
            if not isinstance(item, dict):
                emit("S001", f"input item {i} is not an object", where)
                continue
            kind = item.get("type", "message")
            if kind == "message":
                role = as_key(item.get("role"))
                if role not in ROLES:
                    emit(
                        "B007",
                        f"role {short(role)} is not one of {', '.join(sorted(ROLES))}",
                        f"{where}/role",
                    )
                if item.get("content") in (None, "", []):
                    emit("B008", f"a {short(role)} message without content", f"{where}/content")
            elif kind == "function_call":
                pairing.call(item.get("call_id"), item.get("name"), where)
                _, wrong = parse_arguments(item.get("arguments"))
                if wrong is not None:
                    emit(
                        "T004",
                        f"the arguments of function call {short(item.get('call_id'))} {wrong}",
                        f"{where}/arguments",
                    )
            elif kind == "function_call_output":
                pairing.result(item.get("call_id"), where)
        pairing.finish()


def _type(part: Any) -> Any:
    return as_key(part.get("type")) if isinstance(part, dict) else type(part).__name__


def _responses_content(content: Any) -> bool:
    return isinstance(content, list) and any(
        isinstance(p, dict)
        and as_key(p.get("type")) in ("input_text", "output_text", "input_image", "refusal")
        for p in content
    )


DIALECT = ResponsesDialect()
