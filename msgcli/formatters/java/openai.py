"""AgentScope Java's ``OpenAIChatFormatter`` / ``OpenAIMultiAgentFormatter``."""

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
    media_type_of,
)
from .common import (
    NAME_ILLEGAL,
    THOUGHT_SIGNATURE_KEY,
    Failed,
    bypasses_merge,
    checked_arguments,
    extract_text,
    first_block,
    has_block,
    has_media,
    media_kind,
    mime_of,
    note_dropped,
    output_blocks,
    prepare,
    role_of,
    runs,
    text_part,
    tool_result_text,
)


def _sanitize(name: Any) -> str:
    cleaned = NAME_ILLEGAL.sub("_", as_text(name))[:64]
    return cleaned or "agent"


def _data_url(source: Source, default_type: str) -> str:
    if source.kind == "url":
        url = as_text(source.url)
        if not url:
            raise Failed("URLSource has null or empty URL")
        return url
    data = as_text(source.data)
    if not data:
        raise Failed("Base64Source has null or empty data")
    return f"data:{media_type_of(source) or default_type};base64,{data}"


def _audio_format(mt: str | None) -> str:
    if mt is None:
        return "mp3"
    for fmt in ("wav", "mp3", "opus", "flac"):
        if fmt in mt:
            return fmt
    return "mp3"


def _openai_parts(blocks: list[Block], ctx: Context, msg: Message, where: str) -> list[dict]:
    """``OpenAIMessageConverter.convertContentBlocks``."""
    parts: list[dict] = []
    for block in blocks:
        if isinstance(block, TextBlock):
            parts.append(text_part(as_text(block.text)))
        elif isinstance(block, HintBlock):
            parts.append(text_part(as_text(block.hint)))
        elif isinstance(block, ThinkingBlock):
            continue
        elif isinstance(block, DataBlock):
            part = _openai_media_part(block, ctx, msg)
            if part is not None:
                parts.append(part)
        else:
            note_dropped(ctx, msg, block, where)
    return parts


def _openai_media_part(block: DataBlock, ctx: Context, msg: Message) -> dict | None:
    kind = media_kind(block)
    source = block.source
    label = {"image": "Image", "audio": "Audio", "video": "Video"}.get(kind, "Media")
    if source is None:
        if kind == "audio":
            return text_part("[Audio - source missing]")
        ctx.note(msg, f"a {kind} block without a source is skipped (as the framework does)")
        return None
    try:
        if kind == "image":
            return {"type": "image_url", "image_url": {"url": _data_url(source, "image/png")}}
        if kind == "video":
            return {"type": "video_url", "video_url": {"url": _data_url(source, "video/mp4")}}
        if kind == "audio":
            if source.kind == "base64":
                if not as_text(source.data):
                    return text_part("[Audio - data missing]")
                mt = media_type_of(source)
                return {
                    "type": "input_audio",
                    "input_audio": {
                        "data": as_text(source.data),
                        "format": _audio_format(mt) if mt else "wav",
                    },
                }
            url = as_text(source.url)
            if not url:
                return text_part("[Audio URL - missing]")
            ctx.note(msg, "an audio URL cannot be sent as input_audio: sent as a text reference")
            return text_part(f"[Audio URL: {url}]")
        mime = mime_of(source)
        if mime.startswith("image/"):
            return {"type": "image_url", "image_url": {"url": _data_url(source, "image/png")}}
        if mime.startswith("video/"):
            return {"type": "video_url", "video_url": {"url": _data_url(source, "video/mp4")}}
        if mime.startswith("audio/"):
            if source.kind == "base64":
                return {
                    "type": "input_audio",
                    "input_audio": {"data": as_text(source.data), "format": _audio_format(mime)},
                }
            ctx.note(msg, "an audio URL cannot be sent as input_audio: sent as a text reference")
            return text_part(f"[Audio URL: {as_text(source.url)}]")
        ctx.note(msg, f"media type {mime} cannot be sent to OpenAI: replaced by a text")
        return text_part(f"[Media - unsupported MIME type: {mime}]")
    except Failed as exc:
        ctx.note(msg, f"a {kind} block cannot be converted ({exc}): replaced by a text")
        return text_part(f"[{label} - processing failed: {exc}]")


def _openai_message(msg: Message, ctx: Context) -> dict:
    """``OpenAIMessageConverter.convertToMessage``."""
    role = role_of(msg)
    if role == "tool" or (role == "system" and has_block(msg, ToolResultBlock)):
        return _openai_tool(msg, ctx)
    if role == "system":
        out: dict[str, Any] = {"role": "system", "content": extract_text(msg)}
        if msg.name is not None:
            out["name"] = _sanitize(msg.name)
        for block in msg.content:
            if not isinstance(block, TextBlock | HintBlock | ThinkingBlock):
                note_dropped(ctx, msg, block, "a system message")
        return out
    if role == "assistant":
        return _openai_assistant(msg, ctx)
    out = {"role": "user"}
    blocks = msg.content
    if not has_media(blocks) and len(blocks) == 1 and isinstance(blocks[0], TextBlock):
        out["content"] = as_text(blocks[0].text)
    else:
        out["content"] = _openai_parts(blocks, ctx, msg, "a user message") or ""
    if msg.name is not None:
        out["name"] = _sanitize(msg.name)
    return out


def _openai_assistant(msg: Message, ctx: Context) -> dict:
    out: dict[str, Any] = {"role": "assistant", "content": extract_text(msg)}
    if msg.name is not None:
        out["name"] = _sanitize(msg.name)
    calls = [b for b in msg.content if isinstance(b, ToolCallBlock)]
    if calls:
        fallback = None
        for call in calls:
            sig = _signature(call)
            if sig:
                fallback = sig
                break
        tool_calls = []
        for call in calls:
            if call.id is None or call.name is None:
                ctx.note(msg, "a tool call without an id or a name is skipped (as the framework)")
                continue
            function: dict[str, Any] = {
                "name": as_text(call.name),
                "arguments": checked_arguments(call, ctx, msg),
            }
            sig = _signature(call)
            if sig is None:
                sig = fallback
            if sig is not None:
                function["thought_signature"] = sig
            tool_calls.append({"id": as_text(call.id), "type": "function", "function": function})
        out["tool_calls"] = tool_calls
    thinking = first_block(msg, ThinkingBlock)
    if thinking is not None and isinstance(thinking.thinking, str) and thinking.thinking:
        out["reasoning_content"] = thinking.thinking
    for block in msg.content:
        if isinstance(block, DataBlock):
            ctx.note(msg, "media in an assistant message is not sent (the framework sends text)")
    return out


def _signature(call: ToolCallBlock) -> str | None:
    meta = call.fields.get("metadata")
    sig = meta.get(THOUGHT_SIGNATURE_KEY) if isinstance(meta, dict) else None
    return sig if isinstance(sig, str) else None


def _openai_tool(msg: Message, ctx: Context) -> dict:
    results = [b for b in msg.content if isinstance(b, ToolResultBlock)]
    result = results[0] if results else None
    if len(results) > 1:
        ctx.note(msg, "only the first tool result of a message is sent (as the framework does)")
    if result is not None and result.id is not None:
        call_id = as_text(result.id)
    else:
        call_id = "tool_call_<millis>"
        ctx.note(msg, "a tool message without a result id: the framework invents tool_call_<ms>")
    out: dict[str, Any] = {"role": "tool"}
    if result is not None and has_media(result.output):
        ctx.note(
            msg,
            "the tool result holds media: sent as content parts of the tool message, "
            "which OpenAI's API takes as text only",
        )
        out["content"] = _openai_parts(output_blocks(result.output), ctx, msg, "a tool result")
    elif result is not None:
        out["content"] = tool_result_text(result.output, ctx, msg)
    else:
        out["content"] = extract_text(msg)
    out["tool_call_id"] = call_id
    return out


def _openai_merge(msgs: list[Message], ctx: Context) -> dict:
    """``OpenAIConversationMerger.mergeToUserMessage``."""
    parts: list[dict] = []
    buffer = [HISTORY_PROMPT, "<history>\n"]
    prefix = len(msgs) > 1

    def flush() -> None:
        if buffer:
            parts.append(text_part("".join(buffer)))
            buffer.clear()

    for msg in msgs:
        name = msg.name if isinstance(msg.name, str) else None
        head = f"{name}: " if prefix and name else ""
        for block in msg.content:
            if isinstance(block, TextBlock):
                buffer.append(f"{head}{as_text(block.text)}\n")
            elif isinstance(block, HintBlock):
                buffer.append(f"{head}{as_text(block.hint)}\n")
            elif isinstance(block, ThinkingBlock):
                thinking = as_text(block.thinking)
                buffer.append(head)
                if thinking:
                    buffer.append(f"[Thinking]: {thinking}\n")
            elif isinstance(block, DataBlock):
                flush()
                text = _openai_merge_media(block, ctx, msg, parts)
                if text is not None:
                    buffer.append(f"{head}{text}\n")
            elif isinstance(block, ToolResultBlock):
                result = tool_result_text(block.output, ctx, msg) or "[Empty tool result]"
                tool = "null" if block.name is None else block.name  # Java prints a null as "null"
                buffer.append(f"{'null' if name is None else name} ({tool}): {result}\n")
            else:
                note_dropped(ctx, msg, block, "the conversation history")
    buffer.append("</history>\n")
    flush()
    return {"role": "user", "content": parts}


def _openai_merge_media(
    block: DataBlock, ctx: Context, msg: Message, parts: list[dict]
) -> str | None:
    """A media block of the merged history: a part, or the text line that replaces it."""
    kind = media_kind(block)
    source = block.source
    label = {"image": "Image", "audio": "Audio", "video": "Video"}.get(kind, "Data")
    if source is None:
        return f"[{label} - null source]"
    try:
        if kind == "image":
            parts.append(
                {"type": "image_url", "image_url": {"url": _data_url(source, "image/png")}}
            )
            return None
        if kind == "video":
            parts.append(
                {"type": "video_url", "video_url": {"url": _data_url(source, "video/mp4")}}
            )
            return None
        if kind == "audio":
            if source.kind == "base64":
                if not as_text(source.data):
                    return "[Audio - null or empty data]"
                fmt = _audio_format(media_type_of(source))
                parts.append(
                    {"type": "input_audio", "input_audio": {"data": source.data, "format": fmt}}
                )
                return None
            url = as_text(source.url)
            return f"[Audio URL: {url}]" if url else "[Audio - null or empty URL]"
        mime = mime_of(source)
        if mime.startswith("image/"):
            parts.append(
                {"type": "image_url", "image_url": {"url": _data_url(source, "image/png")}}
            )
            return None
        if mime.startswith("video/"):
            parts.append(
                {"type": "video_url", "video_url": {"url": _data_url(source, "video/mp4")}}
            )
            return None
        if mime.startswith("audio/"):
            if source.kind == "base64":
                parts.append(
                    {
                        "type": "input_audio",
                        "input_audio": {"data": source.data, "format": _audio_format(mime)},
                    }
                )
                return None
            return f"[Audio URL: {as_text(source.url)}]"
        ctx.note(msg, f"media type {mime} cannot be sent to OpenAI: replaced by a text")
        return f"[Media - unsupported MIME type: {mime}]"
    except Failed as exc:
        ctx.note(msg, f"a {kind} block cannot be converted ({exc}): replaced by a text")
        return f"[{label if label != 'Data' else 'Media'} - processing failed: {exc}]"


def _openai_group(msg: Message) -> str:
    if bypasses_merge(msg):
        return "bypass"
    role = role_of(msg)
    if role == "system":
        return "system"
    if role == "tool":
        return "tool"
    if has_block(msg, ToolCallBlock):
        return "tool"
    return "agent"


def openai(msgs: list[Message], multi_agent: bool, ctx: Context) -> dict:
    """``OpenAIChatFormatter`` or ``OpenAIMultiAgentFormatter``: ``{"messages": [...]}``."""
    if not multi_agent:
        return {"messages": [_openai_message(m, ctx) for m in msgs]}
    out: list[dict] = []
    for kind, group in runs(msgs, _openai_group, single={"system", "bypass"}):
        if kind in ("system", "bypass"):
            out.append(_openai_message(group[0], ctx))
        elif kind == "tool":
            for m in group:
                if role_of(m) in ("assistant", "tool"):
                    out.append(_openai_message(m, ctx))
                else:
                    ctx.note(m, "a user message in a tool sequence is not sent (as the framework)")
        else:
            out.append(_openai_merge(group, ctx))
    return {"messages": out}


FORMATTER = Formatter("AgentScope Java", "OpenAI", prepare, openai)
