"""The ``anthropic`` dialect: what the Anthropic Messages API sends and returns.

Records: stream events (``message_start`` ... ``message_stop``, as ``event.to_json()`` or
``model_dump_json()`` lines, or the raw SSE body), messages (``{"role", "content"}``),
final ``Message`` objects, and conversations (request bodies, request + answer lines)."""

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
    pointer,
)
from ...textsafe import short
from ..base import EVENT, MESSAGE, Emit
from ..wire import Pairing, WireDialect

NAME = "anthropic"

EVENT_TYPES = frozenset(
    {
        "message_start",
        "content_block_start",
        "content_block_delta",
        "content_block_stop",
        "message_delta",
        "message_stop",
        "ping",
    }
)
#: block types only Anthropic's content lists hold
BLOCK_TYPES = frozenset(
    {
        "tool_use",
        "tool_result",
        "thinking",
        "redacted_thinking",
        "server_tool_use",
        "web_search_tool_result",
        "document",
        "search_result",
        "container_upload",
        "mcp_tool_use",
        "mcp_tool_result",
    }
)
_ALL_BLOCKS = BLOCK_TYPES | {"text", "image"}
_MESSAGE_KEYS = frozenset({"role", "content"})
_RESPONSE_KEYS = frozenset(
    {
        "id",
        "type",
        "role",
        "content",
        "model",
        "stop_reason",
        "stop_sequence",
        "stop_details",
        "usage",
        "container",
        "diagnostics",
    }
)
ROLES = frozenset({"user", "assistant"})
#: every content block type the Messages API documents (what an info finding, U003, is
#: not given for)
KNOWN_BLOCKS = _ALL_BLOCKS | {
    "web_fetch_tool_result",
    "code_execution_tool_result",
    "bash_code_execution_tool_result",
    "text_editor_code_execution_tool_result",
    "tool_search_tool_result",
    "tool_reference",
}


def _anthropic_content(content: Any, strong: bool) -> bool:
    """Whether a content value fits Anthropic (``strong``: and only Anthropic)."""
    if isinstance(content, str):
        return not strong
    if not isinstance(content, list):
        return False
    seen_own = False
    for block in content:
        if not isinstance(block, dict):
            return False
        kind = as_key(block.get("type"))
        if kind not in _ALL_BLOCKS:
            return False
        if kind in BLOCK_TYPES or (kind == "image" and "source" in block):
            seen_own = True
    return seen_own or not strong


def is_system_prompt(obj: dict) -> bool:
    """A record that holds only a request's ``system`` (a text, or text blocks): how a
    message log in this dialect keeps a system prompt (Anthropic's messages have no system
    role), on a line of its own before the messages it comes with."""
    if obj.keys() != {"system"}:
        return False
    system = obj["system"]
    return isinstance(system, str) or (isinstance(system, list) and _only_text(system))


def _only_text(content: list) -> bool:
    return all(
        isinstance(b, dict) and as_key(b.get("type")) == "text" and "text" in b for b in content
    )


def _messages_are_anthropic(messages: list) -> bool:
    for message in messages:
        if isinstance(message, dict) and _anthropic_content(message.get("content"), True):
            content = message.get("content")
            if isinstance(content, list) and _only_text(content):
                continue  # text parts alone: OpenAI chat takes them too
            return True
    return False


class AnthropicDialect(WireDialect):
    name = NAME
    title = "Anthropic Messages"
    usage_cache_in_input = False
    writer = "msgcli.converters.wire:ANTHROPIC"
    tool_input_key = None
    tool_arguments_key = "input"
    tool_result_roles = frozenset({"user"})
    replayer_class = "msgcli.dialects.anthropic.replay:AnthropicReplayer"
    #: input_tokens leave out the cache reads and writes
    input_counts_cache = False
    roles = ROLES
    message_keys = _MESSAGE_KEYS | _RESPONSE_KEYS
    block_types = KNOWN_BLOCKS

    def check_new(self, message: dict, where: str, emit: Emit) -> None:
        if not is_system_prompt(message):
            super().check_new(message, where, emit)

    def classify(self, obj: dict) -> str | None:
        if not isinstance(obj, dict):
            return None
        kind = as_key(obj.get("type"))
        if kind in EVENT_TYPES:
            return EVENT
        if kind == "error" and isinstance(obj.get("error"), dict) and "sequence_number" not in obj:
            return EVENT
        messages = obj.get("messages")
        if isinstance(messages, list) and "content" not in obj and "role" not in obj:
            system = obj.get("system")
            if "system" in obj and isinstance(system, (list, str)):
                return MESSAGE
            model = obj.get("model")
            if isinstance(model, str) and model.startswith("claude"):
                return MESSAGE
            tools = obj.get("tools")
            if _messages_are_anthropic(messages) or (
                isinstance(tools, list)
                and tools
                and all(isinstance(t, dict) and "input_schema" in t for t in tools)
            ):
                return MESSAGE
            return None
        if is_system_prompt(obj):
            return MESSAGE
        role = as_key(obj.get("role"))
        if role not in ROLES:
            return None
        if (
            kind == "message"
            and "model" in obj
            and obj.keys() <= _RESPONSE_KEYS
            and _anthropic_content(obj.get("content"), False)
        ):
            return MESSAGE
        if obj.keys() <= _MESSAGE_KEYS and _anthropic_content(obj.get("content"), True):
            return MESSAGE
        return None

    # -- conversations ----------------------------------------------------------

    def conversation(self, obj: dict) -> list[tuple[tuple, dict]] | None:
        messages = obj.get("messages")
        if not isinstance(messages, list) or "role" in obj:
            return None
        out: list[tuple[tuple, dict]] = []
        system = obj.get("system")
        if isinstance(system, (str, list)):
            out.append((("system",), {"role": "system", "content": system}))
        for i, message in enumerate(messages):
            if isinstance(message, dict):
                out.append((("messages", i), message))
        return out

    def read_usage(self, usage: dict) -> Usage:
        return Usage(
            input_tokens=usage.get("input_tokens"),
            output_tokens=usage.get("output_tokens"),
            cached_tokens=usage.get("cache_read_input_tokens"),
            cache_creation_tokens=usage.get("cache_creation_input_tokens"),
        )

    def read_message(self, obj: dict, path: tuple = ()) -> Message:
        if is_system_prompt(obj):
            # the request's system prompt on a line of its own: a system message, its text
            # at /system
            msg = self.read_message({"role": "system", "content": obj["system"]}, path)
            for block in msg.blocks():
                if block.path[: len(path) + 1] == (*path, "content"):
                    block.path = (*path, "system", *block.path[len(path) + 1 :])
            return msg
        msg = Message(dialect=NAME, role=as_key(obj.get("role")), id=obj.get("id"))
        for key, value in obj.items():
            if key not in ("role", "content", "id", "usage"):
                msg.fields[key] = value
        usage = obj.get("usage")
        if isinstance(usage, dict):
            msg.usage = self.read_usage(usage)
        content = obj.get("content")
        # a response's tool calls are handed to the application: their results come later
        waiting = "submitted" if as_key(obj.get("type")) == "message" else None
        if isinstance(content, str):
            msg.content.append(TextBlock(type="text", path=(*path, "content"), text=content))
            msg.fields["content_is_text"] = True
            return msg
        if not isinstance(content, list):
            return msg
        for i, block in enumerate(content):
            where = (*path, "content", i)
            if not isinstance(block, dict):
                msg.content.append(UnknownBlock(path=where, raw=block))
                continue
            kind = as_key(block.get("type"))
            rest = {k: v for k, v in block.items() if k not in _BLOCK_CORE.get(kind, ("type",))}
            if kind == "text":
                msg.content.append(
                    TextBlock(type="text", path=where, text=block.get("text"), fields=rest)
                )
            elif kind == "thinking":
                msg.content.append(
                    ThinkingBlock(
                        type="thinking", path=where, thinking=block.get("thinking"), fields=rest
                    )
                )
            elif kind in ("tool_use", "server_tool_use", "mcp_tool_use"):
                msg.content.append(
                    ToolCallBlock(
                        type="tool_call",
                        id=block.get("id"),
                        path=where,
                        name=block.get("name"),
                        arguments=block.get("input"),
                        state=waiting,
                        fields={"kind": kind, **rest},
                    )
                )
            elif kind == "tool_result":
                output = block.get("content")
                if isinstance(output, list):
                    output = _read_output(output, (*where, "content"))
                msg.content.append(
                    ToolResultBlock(
                        type="tool_result",
                        id=block.get("tool_use_id"),
                        path=where,
                        output=output,
                        state="error" if block.get("is_error") else None,
                        fields=rest,
                    )
                )
            else:
                msg.content.append(UnknownBlock(type=str(as_key(kind)), path=where, raw=block))
        return msg

    def token_counts(self, msg: Message) -> tuple[Any, Any, Any] | None:
        usage = msg.usage
        if usage is None:
            return None
        return usage.input_tokens, usage.output_tokens, usage.cached_tokens

    def finish_reason(self, msg: Message) -> Any:
        return msg.fields.get("stop_reason")

    def check_conversation(self, obj: dict, found: list[tuple[tuple, dict]], emit: Emit) -> None:
        pairing = Pairing(emit)
        previous: Any = None
        waiting: list[Any] = []  # the tool calls of the assistant turn before
        first = True
        for path, message in found:
            if path == ("system",):
                continue
            role = as_key(message.get("role"))
            where = pointer(path)
            if role not in ROLES:
                emit(
                    "B007",
                    f"role {short(role)}: Anthropic messages are user or assistant",
                    f"{where}/role",
                )
                continue
            content = message.get("content")
            last = path[-1] == len(obj["messages"]) - 1
            if content in (None, "", []) and not (role == "assistant" and last):
                emit("B008", f"a {role} message without content", f"{where}/content")
            if first and role != "user":
                emit("B005", "the first message must be the user's", f"{where}/role")
            first = False
            if role == previous:
                emit(
                    "B005",
                    f"two {role} messages in a row: Anthropic's turns alternate (the API joins "
                    "them into one turn)",
                    f"{where}/role",
                )
            blocks = content if isinstance(content, list) else []
            results_done = False
            for i, block in enumerate(blocks):
                if not isinstance(block, dict):
                    continue
                kind = as_key(block.get("type"))
                ptr = f"{where}/content/{i}"
                if kind == "tool_use":
                    if role != "assistant":
                        emit("B005", "a tool_use block in a user message", ptr)
                    pairing.call(block.get("id"), block.get("name"), ptr)
                    if not isinstance(block.get("input"), dict):
                        emit(
                            "T004",
                            f"the input of tool call {short(block.get('id'))} is not an object",
                            f"{ptr}/input",
                        )
                elif kind == "tool_result":
                    if role != "user":
                        emit("B005", "a tool_result block in an assistant message", ptr)
                    elif results_done:
                        emit(
                            "B005",
                            "a tool_result block after other content: tool results come first "
                            "in the user turn that answers the calls",
                            ptr,
                        )
                    pairing.result(block.get("tool_use_id"), ptr)
                    cid = block.get("tool_use_id")
                    if cid in waiting:
                        waiting.remove(cid)
                else:
                    results_done = True
            if role == "assistant":
                waiting = [
                    b.get("id")
                    for b in blocks
                    if isinstance(b, dict) and as_key(b.get("type")) == "tool_use"
                ]
            elif waiting:
                for cid in waiting:
                    emit(
                        "B005",
                        f"tool call {short(cid)} is not answered in the user turn right after it",
                        where,
                    )
                waiting = []
            previous = role
        pairing.finish()


_BLOCK_CORE = {
    "text": ("type", "text"),
    "thinking": ("type", "thinking"),
    "tool_use": ("type", "id", "name", "input"),
    "server_tool_use": ("type", "id", "name", "input"),
    "mcp_tool_use": ("type", "id", "name", "input"),
    "tool_result": ("type", "tool_use_id", "content", "is_error"),
}


def _read_output(output: list, path: tuple) -> list:
    out: list = []
    for i, block in enumerate(output):
        if isinstance(block, dict) and as_key(block.get("type")) == "text":
            out.append(TextBlock(type="text", path=(*path, i), text=block.get("text")))
        else:
            out.append(UnknownBlock(path=(*path, i), raw=block))
    return out


DIALECT = AnthropicDialect()
