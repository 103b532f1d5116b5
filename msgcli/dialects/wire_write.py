"""Writing a conversion's turn (:class:`msgcli.model.Turn`) as provider
messages, one record per message: ``openai-chat`` messages, ``openai-responses`` input
items, ``anthropic`` messages.

Text, tool calls (id, name, arguments) and tool results (call id, text) have a place in
every provider form. What a form has no place for is noted (X001, written as its nearest
counterpart: a block of another kind as text, a role as the nearest role). Anthropic's
messages have no system role: a system prompt is written as the request holds it, its
top-level ``system``, on a line of its own (``{"system": "..."}``).
"""

from __future__ import annotations

from typing import Any

import orjson

from ..model import TextBlock, ThinkingBlock, ToolCallBlock, ToolResultBlock, pointer

Note = Any  # note(line, pointer, text)


def write_turn(turn: Any, target: str, note: Note) -> list[dict]:
    from ..converters.text import arguments_object, arguments_text, as_text, parts_text

    role = turn.role if isinstance(turn.role, str) else "assistant"
    out: list[dict] = []
    texts: list[tuple[str, str]] = []  # (kind, text): kind "text" or "thinking"
    calls: list[dict] = []
    results: list[dict] = []

    def flush() -> None:
        if not texts and not calls:
            return
        out.extend(_message(target, role, texts, calls, turn, note))
        texts.clear()
        calls.clear()

    for at, block in turn.parts():
        if isinstance(block, ToolResultBlock):
            if texts or calls:
                flush()
            error = block.state == "error" or block.fields.get("is_error") is True
            results.append(
                {
                    "id": block.id,
                    "text": parts_text(block.output),
                    "error": error,
                    "line": turn.lines[at],
                }
            )
            continue
        if results:
            out.extend(_results(target, results))
            results.clear()
        if isinstance(block, TextBlock):
            texts.append(("text", as_text(block)))
        elif isinstance(block, ThinkingBlock):
            texts.append(("thinking", as_text(block)))
        elif isinstance(block, ToolCallBlock):
            arguments, _ = arguments_object(block)
            calls.append(
                {
                    "id": block.id,
                    "name": block.name,
                    "text": arguments_text(block),
                    "object": arguments,
                }
            )
        else:
            note(
                turn.lines[at],
                pointer(block.path),
                f"a {block.type} block has no {target} counterpart: written as text",
            )
            texts.append(("text", as_text(block)))
    flush()
    if results:
        out.extend(_results(target, results))
    if not out:
        out.extend(_message(target, role, [("text", "")], [], turn, note))
    return out


def _message(target: str, role: str, texts, calls, turn, note) -> list[dict]:
    if target == "openai-chat":
        return [_chat(role, texts, calls, turn, note)]
    if target == "anthropic":
        return [_anthropic(role, texts, calls, turn, note)]
    return _responses(role, texts, calls, turn, note)


def _chat(role: str, texts, calls, turn, note) -> dict:
    if role not in ("system", "developer", "user", "assistant"):
        note(
            turn.line,
            "/role",
            f"role {role!r} has no openai-chat counterpart: written as 'assistant'",
        )
        role = "assistant"
    plain = [text for kind, text in texts if kind == "text"]
    thoughts = [text for kind, text in texts if kind == "thinking"]
    message: dict[str, Any] = {"role": role}
    if len(plain) == 1:
        message["content"] = plain[0]
    elif plain:
        message["content"] = [{"type": "text", "text": text} for text in plain]
    else:
        message["content"] = None if calls else ""
    if thoughts:
        note(
            turn.line,
            "",
            "thinking has no openai-chat counterpart: written as reasoning_content "
            "(the key some OpenAI-compatible APIs use)",
        )
        message["reasoning_content"] = "\n".join(thoughts)
    if calls:
        if role != "assistant":
            message["role"] = "assistant"
        message["tool_calls"] = [
            {
                "id": call["id"],
                "type": "function",
                "function": {"name": call["name"], "arguments": call["text"]},
            }
            for call in calls
        ]
    return message


def _anthropic(role: str, texts, calls, turn, note) -> dict:
    if role in ("system", "developer") and not calls and all(k == "text" for k, _ in texts):
        # Anthropic's messages have no system role: a system prompt is the request's
        # top-level "system", written on a line of its own as {"system": ...}
        if role == "developer":
            note(
                turn.line,
                "/role",
                "role 'developer' has no anthropic counterpart: written as the system prompt",
            )
        if len(texts) == 1:
            return {"system": texts[0][1]}
        return {"system": [{"type": "text", "text": text} for _, text in texts]}
    if role not in ("user", "assistant"):
        note(
            turn.line,
            "/role",
            f"role {role!r} has no counterpart in Anthropic's messages (a system prompt is the "
            "request's 'system', text only): written as 'user'"
            if role in ("system", "developer")
            else f"role {role!r} has no anthropic counterpart: written as 'assistant'",
        )
        role = "user" if role in ("system", "developer") else "assistant"
    content: list[dict] = []
    for kind, text in texts:
        if kind == "thinking":
            content.append({"type": "thinking", "thinking": text, "signature": ""})
        else:
            content.append({"type": "text", "text": text})
    for call in calls:
        content.append(
            {"type": "tool_use", "id": call["id"], "name": call["name"], "input": call["object"]}
        )
    if calls and role != "assistant":
        role = "assistant"
    if len(content) == 1 and content[0]["type"] == "text" and not calls:
        return {"role": role, "content": content[0]["text"]}
    return {"role": role, "content": content}


def _responses(role: str, texts, calls, turn, note) -> list[dict]:
    if role not in ("system", "developer", "user", "assistant"):
        note(
            turn.line,
            "/role",
            f"role {role!r} has no openai-responses counterpart: written as 'assistant'",
        )
        role = "assistant"
    out: list[dict] = []
    kind_of_text = "output_text" if role == "assistant" else "input_text"
    parts: list[dict] = []
    for kind, text in texts:
        if kind == "thinking":
            if parts:
                out.append({"type": "message", "role": role, "content": parts})
                parts = []
            out.append({"type": "reasoning", "summary": [{"type": "summary_text", "text": text}]})
        else:
            parts.append({"type": kind_of_text, "text": text})
    if parts:
        out.append({"type": "message", "role": role, "content": parts})
    for call in calls:
        out.append(
            {
                "type": "function_call",
                "call_id": call["id"],
                "name": call["name"],
                "arguments": call["text"],
            }
        )
    return out


def _results(target: str, results: list[dict]) -> list[dict]:
    if target == "openai-chat":
        return [{"role": "tool", "tool_call_id": r["id"], "content": r["text"]} for r in results]
    if target == "anthropic":
        blocks = []
        for r in results:
            block: dict[str, Any] = {
                "type": "tool_result",
                "tool_use_id": r["id"],
                "content": r["text"],
            }
            if r["error"]:
                block["is_error"] = True
            blocks.append(block)
        return [{"role": "user", "content": blocks}]
    return [
        {"type": "function_call_output", "call_id": r["id"], "output": r["text"]} for r in results
    ]


def dumps(value: Any) -> str:
    return orjson.dumps(value).decode()
