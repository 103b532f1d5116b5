"""A Responses API item of a rollout onto neutral blocks, and what Codex writes in its
tool outputs and context messages."""

from __future__ import annotations

import re
from typing import Any

import orjson

from ...model import (
    Block,
    DataBlock,
    Source,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
    ToolResultBlock,
    UnknownBlock,
    Usage,
)
from ..base import usage_from

__all__ = ["arguments_of", "exit_status", "is_context", "item_blocks", "usage_of"]

#: the exit status Codex writes in a tool output
_EXIT = re.compile(r"(?:Process exited with code|Exit code:) (-?\d+)")
#: what Codex itself puts in a user message (context, not a prompt)
_CONTEXT_TAGS = ("<environment_context", "<permissions", "<user_instructions", "<skills_")


def exit_status(output: Any) -> int | None:
    """The exit status a Codex tool output reports, if it does."""
    if not isinstance(output, str):
        return None
    found = _EXIT.search(output, 0, 400)
    return int(found.group(1)) if found else None


def is_context(texts: list[str]) -> bool:
    """Whether a user message is context Codex wrote itself (no prompt a person typed)."""
    return bool(texts) and all(t.lstrip().startswith(_CONTEXT_TAGS) for t in texts)


def arguments_of(text: Any) -> Any:
    """A function call's argument text, parsed (as written when it is no JSON object)."""
    if not isinstance(text, str):
        return text
    try:
        value = orjson.loads(text)
    except orjson.JSONDecodeError:
        return text
    return value if isinstance(value, dict) else text


def usage_of(raw: Any) -> Usage | None:
    return usage_from(
        raw,
        input_tokens="input_tokens",
        output_tokens="output_tokens",
        cached_tokens="cached_input_tokens",
        cache_creation_tokens="cache_write_input_tokens",
        total_tokens="total_tokens",
    )


def item_blocks(item: Any, path: tuple) -> list[Block]:
    """The blocks of one Responses API item of a rollout."""
    if not isinstance(item, dict):
        return [UnknownBlock("unknown", path=path, raw=item)]
    kind = item.get("type")
    if kind == "message":
        out: list[Block] = []
        content = item.get("content")
        if isinstance(content, str):
            return [TextBlock("text", path=(*path, "content"), text=content)]
        for i, part in enumerate(content if isinstance(content, list) else ()):
            where = (*path, "content", i)
            ptype = part.get("type") if isinstance(part, dict) else None
            if ptype in ("input_text", "output_text", "text"):
                out.append(TextBlock("text", path=where, text=part.get("text", "")))
            elif ptype == "input_image":
                url = part.get("image_url")
                src = None
                if isinstance(url, str) and url.startswith("data:"):
                    head, _, data = url.partition(",")
                    media = head[5:].split(";")[0] or None
                    src = Source("base64", data=data, media_type=media)
                elif isinstance(url, str):
                    src = Source("url", url=url)
                out.append(DataBlock("data", path=where, kind="image", source=src))
            elif ptype == "refusal":
                out.append(TextBlock("text", path=where, text=part.get("refusal", "")))
            else:
                out.append(UnknownBlock("unknown", path=where, raw=part))
        return out
    if kind == "reasoning":
        texts: list[str] = []
        for key in ("summary", "content"):
            parts = item.get(key)
            for part in parts if isinstance(parts, list) else ():
                text = part.get("text") if isinstance(part, dict) else None
                if isinstance(text, str):
                    texts.append(text)
        if not texts:
            return []
        return [
            ThinkingBlock("thinking", id=item.get("id"), path=path, thinking="\n\n".join(texts))
        ]
    if kind == "function_call":
        args = item.get("arguments")
        return [
            ToolCallBlock(
                "tool_call",
                id=item.get("call_id"),
                path=path,
                name=item.get("name"),
                input=args,
                arguments=arguments_of(args),
            )
        ]
    if kind == "custom_tool_call":
        text = item.get("input")
        return [
            ToolCallBlock(
                "tool_call",
                id=item.get("call_id"),
                path=path,
                name=item.get("name"),
                input=orjson.dumps({"input": text}).decode() if isinstance(text, str) else text,
                arguments={"input": text},
                # (show, HTML and Markdown give a patch as the text it is)
                fields={"as_text": text} if isinstance(text, str) else {},
            )
        ]
    if kind == "local_shell_call":
        action = item.get("action")
        return [
            ToolCallBlock(
                "tool_call",
                id=item.get("call_id"),
                path=path,
                name="local_shell",
                input=action,
                arguments=action,
            )
        ]
    if kind in ("function_call_output", "custom_tool_call_output"):
        output = item.get("output")
        status = exit_status(output)
        return [
            ToolResultBlock(
                "tool_result",
                id=item.get("call_id"),
                path=path,
                output=output,
                state=None if status is None else ("success" if status == 0 else "error"),
            )
        ]
    if kind == "agent_message":
        content = item.get("content")
        if isinstance(content, str):
            return [TextBlock("text", path=(*path, "content"), text=content)]
        said = (
            [p.get("text") for p in content if isinstance(p, dict)]
            if isinstance(content, list)
            else []
        )
        words = [t for t in said if isinstance(t, str)]
        return [TextBlock("text", path=(*path, "content"), text="\n".join(words))]
    return [UnknownBlock("unknown", path=path, raw=item)]
