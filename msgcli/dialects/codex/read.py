"""A rollout record (or a response the assembler joined) onto a neutral message."""

from __future__ import annotations

from typing import Any

from ...guard import deep_recursion
from ...model import Block, Message, TextBlock, ToolResultBlock
from .assemble import THREAD, TOOL
from .items import is_context, item_blocks, usage_of
from .known import REPEATED, RESPONSE

__all__ = ["describe", "read"]

_THREAD_FIELDS = (
    "id",
    "session_id",
    "parent_thread_id",
    "forked_from_id",
    "agent_path",
    "agent_nickname",
    "cwd",
    "model_provider",
)


def _thread_fields(obj: dict) -> dict[str, Any]:
    thread = obj.get(THREAD)
    fields: dict[str, Any] = {"ordinal": obj.get("ordinal")}
    if isinstance(thread, dict):
        for key in _THREAD_FIELDS:
            if key in thread:
                fields["thread_id" if key == "id" else key] = thread[key]
    return fields


def read(obj: dict) -> Message:
    kind = obj.get("type")
    payload = obj.get("payload")
    if not isinstance(payload, dict):
        payload = {}
    fields = _thread_fields(obj)
    if "thread_id" not in fields and isinstance(payload.get("thread_id"), str):
        fields["thread_id"] = payload["thread_id"]  # a record msgcli wrote
    if kind == RESPONSE:
        return _response(obj, payload, fields)
    ptype = payload.get("type")
    if kind == "session_meta" and not fields.get("thread_id"):
        for key, name in (("id", "thread_id"), ("session_id", "session_id")):
            if isinstance(payload.get(key), str):
                fields[name] = payload[key]
    fields["record_type"] = kind
    if kind == "response_item":
        blocks = item_blocks(payload, ("payload",))
        if ptype == "message":
            role = payload.get("role")
            texts = [b.text for b in blocks if isinstance(b, TextBlock) and isinstance(b.text, str)]
            if role == "developer" or (role == "user" and is_context(texts)):
                fields["aside"] = True
            return Message(
                "codex",
                role=role if isinstance(role, str) else "user",
                id=payload.get("id"),
                content=blocks,
                timestamp=obj.get("timestamp"),
                fields=fields,
            )
        if ptype in ("function_call_output", "custom_tool_call_output", "tool_search_output"):
            tool = obj.get(TOOL, payload.get("name"))
            for block in blocks:
                if isinstance(block, ToolResultBlock) and isinstance(tool, str):
                    block.name = tool
            return Message(
                "codex",
                role="tool",
                id=payload.get("id"),
                content=blocks,
                timestamp=obj.get("timestamp"),
                fields=fields,
            )
        if ptype == "agent_message":
            fields["recipient"] = payload.get("recipient")
            return Message(
                "codex",
                role="user",
                name=payload.get("author"),
                id=payload.get("id"),
                content=blocks,
                timestamp=obj.get("timestamp"),
                fields=fields,
            )
        # an item the assembler did not join (a newer item type): shown with --all
        fields["aside"] = True
        return Message(
            "codex",
            role=f"item:{ptype}",
            id=payload.get("id"),
            content=blocks,
            timestamp=obj.get("timestamp"),
            fields=fields,
        )
    role = kind if isinstance(kind, str) else "record"
    if kind == "event_msg" and isinstance(ptype, str):
        role = ptype
    text = describe(obj)
    error = _error_of(kind, payload)
    if error is not None:
        fields["error"] = error
        role = "error"
        text = error
    elif kind == "compacted":
        role = "compacted"
    else:
        fields["aside"] = True
    content: list[Block] = [TextBlock("text", path=(), text=text)] if text else []
    return Message(
        "codex",
        role=role,
        id=payload.get("id") if isinstance(payload.get("id"), str) else None,
        content=content,
        timestamp=obj.get("timestamp"),
        fields=fields,
    )


def _error_of(kind: Any, payload: dict) -> str | None:
    if kind != "event_msg":
        return None
    ptype = payload.get("type")
    if ptype == "task_complete":
        error = payload.get("error")
        if isinstance(error, dict):
            message = error.get("message")
            return message if isinstance(message, str) else "the turn failed"
        return None
    if ptype in ("error", "stream_error", "turn_aborted"):
        message = payload.get("message") or payload.get("reason")
        return f"{ptype}: {message}" if isinstance(message, str) else str(ptype)
    return None


def _response(obj: dict, payload: dict, fields: dict) -> Message:
    blocks: list[Block] = []
    statuses = []
    for i, item in enumerate(payload.get("items") or ()):
        blocks.extend(item_blocks(item, ("payload", "items", i)))
        if isinstance(item, dict) and isinstance(item.get("status"), str):
            statuses.append(item["status"])
    raw = payload.get("usage")
    usage = usage_of(raw)
    if isinstance(raw, dict):
        reasoning = raw.get("reasoning_output_tokens")
        if isinstance(reasoning, int):
            fields["reasoning_tokens"] = reasoning
    fields["model"] = payload.get("model")
    fields["turn_id"] = payload.get("turn_id")
    if statuses:
        fields["status"] = statuses[-1]
    if obj.get(REPEATED):
        fields["repeated"] = True
    rid = payload.get("response_id")
    return Message(
        "codex",
        role="assistant",
        id=rid,
        content=blocks,
        timestamp=obj.get("timestamp"),
        usage=usage,
        fields=fields,
    )


def describe(obj: dict) -> str:
    """A one-line account of a record that is not part of the conversation (``show --all``)."""
    with deep_recursion():
        return _describe(obj)


def _describe(obj: dict) -> str:
    kind = obj.get("type")
    payload = obj.get("payload")
    if not isinstance(payload, dict):
        return str(kind)
    if kind == "session_meta":
        words = [f"thread {payload.get('id')}"]
        if payload.get("forked_from_id"):
            words.append(
                f"forked from thread {payload.get('forked_from_id')} before ordinal "
                f"{payload.get('forked_from_ordinal_exclusive')}"
            )
        if payload.get("parent_thread_id"):
            words.append(f"sub-agent of thread {payload.get('parent_thread_id')}")
        version = payload.get("cli_version")
        if version:
            words.append(f"Codex {version}")
        return ", ".join(str(w) for w in words)
    if kind == "turn_context":
        return f"model {payload.get('model')}, cwd {payload.get('cwd')}"
    if kind == "token_usage_record":
        return f"usage of {payload.get('response_id')}: {payload.get('usage')}"
    if kind == "compacted":
        message = payload.get("message")
        return message if isinstance(message, str) else "context compacted"
    if kind == "event_msg":
        ptype = payload.get("type")
        item = payload.get("item")
        if ptype == "item_completed" and isinstance(item, dict):
            return f"item_completed {item.get('type')} {item.get('id')}"
        if ptype == "task_complete":
            return f"task_complete: {payload.get('last_agent_message')}"
        return str(ptype)
    return str(kind)
