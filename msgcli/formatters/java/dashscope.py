"""AgentScope Java's ``DashScopeChatFormatter`` / ``DashScopeMultiAgentFormatter`` (their
``format`` path, used for the text-generation API)."""

from __future__ import annotations

from typing import Any

from ...model import (
    Block,
    DataBlock,
    HintBlock,
    Message,
    Source,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
    ToolResultBlock,
)
from .._common import (
    HISTORY_PROMPT,
    Context,
    Formatter,
    as_text,
    kind_of,
    media_type_of,
    unsendable,
)
from .common import (
    IMAGE_EXTENSIONS,
    VIDEO_EXTENSIONS,
    Failed,
    check_extension,
    checked_arguments,
    extract_text,
    first_block,
    has_block,
    has_media,
    media_kind,
    mime_of,
    note_dropped,
    note_local,
    output_blocks,
    prepare,
    role_of,
    runs,
    tool_result_text,
)


def _protocol_url(url: str, ctx: Context, msg: Message) -> str:
    note_local(ctx, msg, url)
    return url


def _ds_source_url(source: Source, ctx: Context, msg: Message) -> str:
    if source.kind == "url":
        return _protocol_url(as_text(source.url), ctx, msg)
    return f"data:{media_type_of(source) or 'null'};base64,{as_text(source.data)}"


def _ds_media_part(block: DataBlock, ctx: Context, msg: Message) -> dict:
    """``DashScopeMediaConverter``: an image/audio/video part (raises ``Failed``)."""
    kind = media_kind(block)
    source = block.source
    if source is None:
        raise Failed("source is null")
    if kind == "image":
        if source.kind == "url":
            check_extension(as_text(source.url), IMAGE_EXTENSIONS, "image")
        return _with_limits({"image": _ds_source_url(source, ctx, msg)}, block, ctx, msg)
    if kind == "video":
        if source.kind == "url":
            check_extension(as_text(source.url), VIDEO_EXTENSIONS, "video")
        return _with_limits({"video": _ds_source_url(source, ctx, msg)}, block, ctx, msg)
    if kind == "audio":
        return {"audio": _ds_source_url(source, ctx, msg)}
    mime = mime_of(source)
    for prefix in ("image", "audio", "video"):
        if mime.startswith(prefix + "/"):
            return {prefix: _ds_source_url(source, ctx, msg)}
    raise Failed(f"Cannot route DataBlock: unrecognised MIME type '{mime}'")


_LIMITS = {
    "fps": "fps",
    "maxFrames": "max_frames",
    "minPixels": "min_pixels",
    "maxPixels": "max_pixels",
    "totalPixels": "total_pixels",
}


def _with_limits(part: dict, block: DataBlock, ctx: Context, msg: Message) -> dict:
    for key, wire in _LIMITS.items():
        value = block.fields.get(key)
        if value is None:
            continue
        if isinstance(value, bool) or not isinstance(value, int | float) or unsendable(value):
            ctx.note(
                msg, f"a {block.kind} block's {key} is {kind_of(value)}, not a number: not sent"
            )
            continue
        part[wire] = value
    return part


def _ds_parts(blocks: list[Block], ctx: Context, msg: Message, with_results: bool) -> list[dict]:
    parts: list[dict] = []
    for block in blocks:
        if isinstance(block, TextBlock):
            parts.append({"text": as_text(block.text)})
        elif isinstance(block, HintBlock) and with_results:
            parts.append({"text": as_text(block.hint)})
        elif isinstance(block, DataBlock):
            label = {"image": "Image", "audio": "Audio", "video": "Video"}.get(
                media_kind(block), "Media"
            )
            try:
                parts.append(_ds_media_part(block, ctx, msg))
            except Failed as exc:
                ctx.note(msg, f"a {block.kind} block cannot be converted ({exc}): a text instead")
                parts.append({"text": f"[{label} - processing failed: {exc}]"})
        elif isinstance(block, ThinkingBlock | ToolCallBlock):
            continue
        elif isinstance(block, ToolResultBlock) and with_results:
            text = tool_result_text(block.output, ctx, msg)
            if text:
                parts.append({"text": text})
        else:
            note_dropped(ctx, msg, block, "a DashScope message")
    return parts


def _ds_text(msg: Message) -> str:
    """``DashScopeMessageConverter.extractTextContent``: texts and hints only."""
    parts = []
    for block in msg.content:
        if isinstance(block, TextBlock):
            parts.append(as_text(block.text))
        elif isinstance(block, HintBlock):
            parts.append(as_text(block.hint))
    return "\n".join(parts)


def _ds_tool_calls(msg: Message, ctx: Context) -> list[dict]:
    return [
        {
            "id": call.id,
            "type": "function",
            "function": {"name": call.name, "arguments": checked_arguments(call, ctx, msg)},
        }
        for call in msg.content
        if isinstance(call, ToolCallBlock)
    ]


def _ds_message(msg: Message, ctx: Context) -> dict:
    """``DashScopeMessageConverter.convertToMessage`` (multimodal parts when it holds media)."""
    role = role_of(msg)
    if has_media(msg.content):
        if role == "tool":
            return _ds_tool_role(msg, ctx)
        out: dict[str, Any] = {
            "role": role,
            "content": _ds_parts(msg.content, ctx, msg, True) or [{"text": ""}],
        }
        if role == "assistant" and has_block(msg, ToolCallBlock):
            out["tool_calls"] = _ds_tool_calls(msg, ctx)
        return out
    result = first_block(msg, ToolResultBlock)
    if result is not None and role in ("tool", "system"):
        _note_extra_results(msg, ctx)
        return {
            "role": "tool",
            "content": tool_result_text(result.output, ctx, msg),
            "name": result.name,
            "tool_call_id": result.id,
        }
    out = {"role": role}
    if role == "assistant" and has_block(msg, ToolCallBlock):
        out["content"] = _ds_text(msg)
        out["tool_calls"] = _ds_tool_calls(msg, ctx)
    else:
        out["content"] = _ds_text(msg)
    for block in msg.content:
        if isinstance(block, ToolResultBlock):
            ctx.note(msg, f"a tool result in a {role} message is not sent (the framework skips it)")
        elif not isinstance(block, TextBlock | HintBlock | ThinkingBlock | ToolCallBlock):
            note_dropped(ctx, msg, block, "a DashScope message")
    return out


def _note_extra_results(msg: Message, ctx: Context) -> None:
    if sum(isinstance(b, ToolResultBlock) for b in msg.content) > 1:
        ctx.note(msg, "only the first tool result of a message is sent (as the framework does)")


def _ds_tool_role(msg: Message, ctx: Context) -> dict:
    result = first_block(msg, ToolResultBlock)
    if result is None:
        return {"role": "tool", "content": [{"text": extract_text(msg)}]}
    _note_extra_results(msg, ctx)
    if has_media(result.output):
        content = _ds_parts(output_blocks(result.output), ctx, msg, False)
    else:
        content = [{"text": tool_result_text(result.output, ctx, msg)}]
    return {"role": "tool", "content": content, "name": result.name, "tool_call_id": result.id}


def _ds_merge(msgs: list[Message], prompt: str, ctx: Context) -> dict:
    """``DashScopeConversationMerger.mergeToMessage``."""
    text = [prompt, "<history>\n"]
    media: list[dict] = []
    for msg in msgs:
        name = as_text(msg.name) if msg.name is not None else "Unknown"
        for block in msg.content:
            if isinstance(block, TextBlock):
                text.append(f"{name}: {as_text(block.text)}\n")
            elif isinstance(block, HintBlock):
                text.append(f"{name}: {as_text(block.hint)}\n")
            elif isinstance(block, DataBlock):
                kind = media_kind(block)
                try:
                    if kind == "video":
                        url = _ds_media_part(block, ctx, msg)["video"]
                        text.append(f"{name}: [Video: {url}]\n")
                    elif kind == "audio":
                        ctx.note(msg, "audio in the merged history is not sent (the framework)")
                    else:
                        media.append(_ds_media_part(block, ctx, msg))
                        text.append(f"{name}: [{'Image' if kind == 'image' else 'Data'}]\n")
                except Failed as exc:
                    ctx.note(msg, f"a {block.kind} block cannot be converted ({exc})")
                    label = {"image": "Image", "video": "Video"}.get(kind, "Data")
                    text.append(f"{name}: [{label} - processing failed]\n")
            elif isinstance(block, ThinkingBlock):
                continue
            elif isinstance(block, ToolResultBlock):
                result = tool_result_text(block.output, ctx, msg) or "[Empty tool result]"
                text.append(f"{name} ({block.name}): {result}\n")
            else:
                note_dropped(ctx, msg, block, "the conversation history")
    text.append("</history>")
    joined = "".join(text)
    if not media:
        return {"role": "user", "content": joined}
    return {"role": "user", "content": [{"text": joined}, *media]}


def _ds_group(msg: Message) -> str:
    if role_of(msg) == "tool" or has_block(msg, ToolCallBlock) or has_block(msg, ToolResultBlock):
        return "tool"
    return "agent"


def dashscope(msgs: list[Message], multi_agent: bool, ctx: Context) -> dict:
    """``DashScopeChatFormatter.format`` or ``DashScopeMultiAgentFormatter.format``."""
    if not multi_agent:
        return {"messages": [_ds_message(m, ctx) for m in msgs]}
    out: list[dict] = []
    rest = msgs
    if msgs and role_of(msgs[0]) == "system":
        out.append({"role": "system", "content": extract_text(msgs[0])})
        rest = msgs[1:]
    first = True
    for kind, group in runs(rest, _ds_group):
        if kind == "agent":
            out.append(_ds_merge(group, HISTORY_PROMPT if first else "", ctx))
            first = False
            continue
        for m in group:
            role = role_of(m)
            if role == "assistant":
                entry: dict[str, Any] = {"role": "assistant", "content": extract_text(m)}
                if has_block(m, ToolCallBlock):
                    entry["tool_calls"] = _ds_tool_calls(m, ctx)
                out.append(entry)
            elif role == "tool" or (role == "system" and has_block(m, ToolResultBlock)):
                result = first_block(m, ToolResultBlock)
                if result is None:
                    ctx.note(m, "a tool message without a result: the framework invents an id")
                    out.append(
                        {
                            "role": "tool",
                            "content": extract_text(m),
                            "tool_call_id": "tool_call_<millis>",
                        }
                    )
                else:
                    _note_extra_results(m, ctx)
                    out.append(
                        {
                            "role": "tool",
                            "content": tool_result_text(result.output, ctx, m),
                            "name": result.name,
                            "tool_call_id": result.id,
                        }
                    )
            else:
                ctx.note(m, f"a {role} message in a tool sequence is not sent (as the framework)")
    return {"messages": out}


FORMATTER = Formatter("AgentScope Java", "DashScope", prepare, dashscope)
