"""The AgentScope Java formatters' rules (``agentscope-ai/agentscope-java`` @ ``c2d43f86e``).

One function per provider and mode builds the request the Java formatter would
build: ``OpenAIChatFormatter`` / ``OpenAIMultiAgentFormatter``,
``DashScopeChatFormatter`` / ``DashScopeMultiAgentFormatter`` (their ``format``
path, used for the text-generation API) and ``AnthropicChatFormatter`` /
``AnthropicMultiAgentFormatter`` (plus the separate ``system`` parameter the
Anthropic model takes from the first system message).

The Java formatters read local files, download nothing, and write base64 tool
output to temporary files. msgcli touches neither the file system nor the
network: a local path stays a path, a temporary file is shown as a placeholder,
and a note says so.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import replace
from typing import Any
from urllib.parse import urlsplit

import orjson

from ..model import (
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
from ._common import (
    HISTORY_PROMPT,
    Context,
    as_text,
    compact_json,
    kind_of,
    media_type_of,
    shown,
    unsendable,
)

__all__ = ["HISTORY_PROMPT", "anthropic", "dashscope", "openai", "prepare"]

BYPASS_KEY = "_bypass_multiagent_history_merge"
THOUGHT_SIGNATURE_KEY = "thoughtSignature"

_IMAGE_EXTENSIONS = ["png", "jpg", "jpeg", "gif", "webp", "heic", "heif"]
_VIDEO_EXTENSIONS = ["mp4", "mpeg", "mpg", "mov", "avi", "webm", "wmv", "flv", "3gp", "3gpp"]
_EXTENSION_TYPES = {
    "jpg": "image/jpeg",
    "jpeg": "image/jpeg",
    "png": "image/png",
    "gif": "image/gif",
    "webp": "image/webp",
    "heic": "image/heic",
    "heif": "image/heif",
    "mp3": "audio/mp3",
    "wav": "audio/wav",
    "aiff": "audio/aiff",
    "aac": "audio/aac",
    "ogg": "audio/ogg",
    "flac": "audio/flac",
    "mp4": "video/mp4",
    "mpeg": "video/mpeg",
    "mpg": "video/mpeg",
    "mov": "video/quicktime",
    "avi": "video/x-msvideo",
    "webm": "video/webm",
    "wmv": "video/x-ms-wmv",
    "flv": "video/x-flv",
    "3gpp": "video/3gpp",
    "3gp": "video/3gpp",
}
_NAME_ILLEGAL = re.compile(r"[^a-zA-Z0-9_-]")
_ROLES = ("system", "user", "assistant", "tool")


class _Failed(Exception):
    """A conversion the Java formatter would fail (and replace by a text)."""


# -- shared helpers (AbstractBaseFormatter, MediaUtils) ---------------------------------


def prepare(msgs: list[Message], ctx: Context) -> list[Message]:
    """The messages as AgentScope Java would hold them: a role the Java ``MsgRole`` does
    not have is sent as ``user`` (noted)."""
    out: list[Message] = []
    for msg in msgs:
        if _role(msg) in _ROLES:
            out.append(msg)
            continue
        role = shown(_role(msg))
        ctx.note(msg, f"role {role} is not an AgentScope Java role: sent as a user message")
        out.append(replace(msg, role="user"))
    return out


def _role(msg: Message) -> str:
    return msg.role if isinstance(msg.role, str) else ""


def _has(msg: Message, kind: type) -> bool:
    return any(isinstance(b, kind) for b in msg.content)


def _first(msg: Message, kind: type) -> Any:
    return next((b for b in msg.content if isinstance(b, kind)), None)


def _has_media(blocks: Any) -> bool:
    return isinstance(blocks, list) and any(isinstance(b, DataBlock) for b in blocks)


def _output_blocks(output: Any) -> list[Block]:
    """A tool result's output as blocks (Java always holds a list; a text is one block)."""
    if isinstance(output, list):
        return output
    if output is None:
        return []
    return [TextBlock(type="text", text=as_text(output))]


def _is_local(url: str) -> bool:
    return bool(url) and not url.startswith(
        ("http://", "https://", "ftp://", "file://", "oss://", "data:")
    )


def _extension(url: str) -> str:
    path = url if _is_local(url) else urlsplit(url).path
    name = path.rstrip("/").rsplit("/", 1)[-1]
    dot = name.rfind(".")
    return name[dot + 1 :] if 0 <= dot < len(name) - 1 else ""


def _mime(source: Source | None) -> str:
    """``MediaUtils.resolveMimeType``: the media type, or one inferred from the URL."""
    if source is None:
        raise _Failed("source is null")
    if source.kind == "base64":
        mt = media_type_of(source)
        if mt is None:
            raise _Failed("base64 source has no media type")
        return mt
    mt = media_type_of(source)
    if mt is not None:
        return mt
    url = as_text(source.url)
    inferred = _EXTENSION_TYPES.get(_extension(url).lower())
    if inferred is None:
        raise _Failed(
            f"Cannot determine MIME type for URL '{url}'; set URLSource.mimeType explicitly"
        )
    return inferred


def _check_extension(url: str, allowed: list[str], what: str) -> None:
    ext = _extension(url).lower()
    if ext not in allowed:
        if what == "image":
            raise _Failed(f'"{url}" should end with one of [{", ".join(allowed)}]')
        raise _Failed(
            f"Unsupported {what} file extension: {ext}, [{', '.join(allowed)}] are supported"
        )


def _note_local(ctx: Context, msg: Message, url: str) -> None:
    if _is_local(url):
        ctx.note(
            msg,
            f"{url!r} is a local path: the framework reads the file (or sends it as a "
            "file:// URL) on the machine that sends the request; msgcli keeps the path",
        )


def _media_kind(block: DataBlock) -> str:
    kind = block.kind if isinstance(block.kind, str) else "data"
    return kind if kind in ("image", "audio", "video") else "data"


def extract_text(msg: Message) -> str:
    """``AbstractBaseFormatter.extractTextContent``: texts, hints and tool-result texts."""
    parts: list[str] = []
    for block in msg.content:
        if isinstance(block, TextBlock):
            parts.append(as_text(block.text))
        elif isinstance(block, HintBlock):
            parts.append(as_text(block.hint))
        elif isinstance(block, ToolResultBlock):
            parts.extend(
                as_text(b.text) for b in _output_blocks(block.output) if isinstance(b, TextBlock)
            )
    return "\n".join(parts)


def tool_result_text(output: Any, ctx: Context, msg: Message) -> str:
    """``AbstractBaseFormatter.convertToolResultToString``."""
    items: list[str] = []
    for block in _output_blocks(output):
        if isinstance(block, TextBlock):
            items.append(as_text(block.text))
        elif isinstance(block, DataBlock):
            kind = _media_kind(block)
            source = block.source
            if source is not None and source.kind == "url":
                items.append(f"The returned {kind} can be found at: {as_text(source.url)}")
            elif source is not None and source.kind == "base64":
                mt = media_type_of(source) or ""
                ext = "." + (mt.split("/")[1] if "/" in mt else mt)
                items.append(
                    f"The returned {kind} can be found at: <temporary file agentscope_*{ext}>"
                )
                ctx.note(
                    msg,
                    f"a tool returned base64 {kind} data: the framework writes it to a "
                    "temporary file and sends that file's path; msgcli shows a placeholder",
                )
            else:
                items.append(f"[{kind} - unsupported source type]")
    if len(items) == 1:
        return items[0]
    return "\n".join("- " + s for s in items)


def _arguments(block: ToolCallBlock) -> str:
    """``JsonUtils.resolveToolCallArgsJson``: the raw JSON if it is an object, else the input."""
    raw = block.input
    if isinstance(raw, str) and raw:
        try:
            if isinstance(orjson.loads(raw), dict):
                return raw
        except orjson.JSONDecodeError:
            pass
    return compact_json(block.arguments if block.arguments is not None else {})


def _checked_arguments(block: ToolCallBlock, ctx: Context, msg: Message) -> str:
    text = _arguments(block)
    if text is not block.input:  # from the arguments object
        why = unsendable(block.arguments)
        if why and why.startswith("is nested"):
            ctx.note(msg, f"a tool call's input {why}: its JSON text is cut there")
    return text


def _bypass(msg: Message) -> bool:
    return isinstance(msg.metadata, dict) and msg.metadata.get(BYPASS_KEY) is True


def _note_dropped(ctx: Context, msg: Message, block: Block, where: str) -> None:
    ctx.note(msg, f"a {block.type} block is not sent in {where} (the framework skips it)")


# -- OpenAI -------------------------------------------------------------------------------


def _sanitize(name: Any) -> str:
    cleaned = _NAME_ILLEGAL.sub("_", as_text(name))[:64]
    return cleaned or "agent"


def _data_url(source: Source, default_type: str) -> str:
    if source.kind == "url":
        url = as_text(source.url)
        if not url:
            raise _Failed("URLSource has null or empty URL")
        return url
    data = as_text(source.data)
    if not data:
        raise _Failed("Base64Source has null or empty data")
    return f"data:{media_type_of(source) or default_type};base64,{data}"


def _audio_format(mt: str | None) -> str:
    if mt is None:
        return "mp3"
    for fmt in ("wav", "mp3", "opus", "flac"):
        if fmt in mt:
            return fmt
    return "mp3"


def _text_part(text: str) -> dict:
    return {"type": "text", "text": text}


def _openai_parts(blocks: list[Block], ctx: Context, msg: Message, where: str) -> list[dict]:
    """``OpenAIMessageConverter.convertContentBlocks``."""
    parts: list[dict] = []
    for block in blocks:
        if isinstance(block, TextBlock):
            parts.append(_text_part(as_text(block.text)))
        elif isinstance(block, HintBlock):
            parts.append(_text_part(as_text(block.hint)))
        elif isinstance(block, ThinkingBlock):
            continue
        elif isinstance(block, DataBlock):
            part = _openai_media_part(block, ctx, msg)
            if part is not None:
                parts.append(part)
        else:
            _note_dropped(ctx, msg, block, where)
    return parts


def _openai_media_part(block: DataBlock, ctx: Context, msg: Message) -> dict | None:
    kind = _media_kind(block)
    source = block.source
    label = {"image": "Image", "audio": "Audio", "video": "Video"}.get(kind, "Media")
    if source is None:
        if kind == "audio":
            return _text_part("[Audio - source missing]")
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
                    return _text_part("[Audio - data missing]")
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
                return _text_part("[Audio URL - missing]")
            ctx.note(msg, "an audio URL cannot be sent as input_audio: sent as a text reference")
            return _text_part(f"[Audio URL: {url}]")
        mime = _mime(source)
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
            return _text_part(f"[Audio URL: {as_text(source.url)}]")
        ctx.note(msg, f"media type {mime} cannot be sent to OpenAI: replaced by a text")
        return _text_part(f"[Media - unsupported MIME type: {mime}]")
    except _Failed as exc:
        ctx.note(msg, f"a {kind} block cannot be converted ({exc}): replaced by a text")
        return _text_part(f"[{label} - processing failed: {exc}]")


def _openai_message(msg: Message, ctx: Context) -> dict:
    """``OpenAIMessageConverter.convertToMessage``."""
    role = _role(msg)
    if role == "tool" or (role == "system" and _has(msg, ToolResultBlock)):
        return _openai_tool(msg, ctx)
    if role == "system":
        out: dict[str, Any] = {"role": "system", "content": extract_text(msg)}
        if msg.name is not None:
            out["name"] = _sanitize(msg.name)
        for block in msg.content:
            if not isinstance(block, TextBlock | HintBlock | ThinkingBlock):
                _note_dropped(ctx, msg, block, "a system message")
        return out
    if role == "assistant":
        return _openai_assistant(msg, ctx)
    out = {"role": "user"}
    blocks = msg.content
    if not _has_media(blocks) and len(blocks) == 1 and isinstance(blocks[0], TextBlock):
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
                "arguments": _checked_arguments(call, ctx, msg),
            }
            sig = _signature(call)
            if sig is None:
                sig = fallback
            if sig is not None:
                function["thought_signature"] = sig
            tool_calls.append({"id": as_text(call.id), "type": "function", "function": function})
        out["tool_calls"] = tool_calls
    thinking = _first(msg, ThinkingBlock)
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
    if result is not None and _has_media(result.output):
        ctx.note(
            msg,
            "the tool result holds media: sent as content parts of the tool message, "
            "which OpenAI's API takes as text only",
        )
        out["content"] = _openai_parts(_output_blocks(result.output), ctx, msg, "a tool result")
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
            parts.append(_text_part("".join(buffer)))
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
                _note_dropped(ctx, msg, block, "the conversation history")
    buffer.append("</history>\n")
    flush()
    return {"role": "user", "content": parts}


def _openai_merge_media(
    block: DataBlock, ctx: Context, msg: Message, parts: list[dict]
) -> str | None:
    """A media block of the merged history: a part, or the text line that replaces it."""
    kind = _media_kind(block)
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
        mime = _mime(source)
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
    except _Failed as exc:
        ctx.note(msg, f"a {kind} block cannot be converted ({exc}): replaced by a text")
        return f"[{label if label != 'Data' else 'Media'} - processing failed: {exc}]"


def _openai_group(msg: Message) -> str:
    if _bypass(msg):
        return "bypass"
    role = _role(msg)
    if role == "system":
        return "system"
    if role == "tool":
        return "tool"
    if _has(msg, ToolCallBlock):
        return "tool"
    return "agent"


def openai(msgs: list[Message], multi_agent: bool, ctx: Context) -> dict:
    """``OpenAIChatFormatter`` or ``OpenAIMultiAgentFormatter``: ``{"messages": [...]}``."""
    if not multi_agent:
        return {"messages": [_openai_message(m, ctx) for m in msgs]}
    out: list[dict] = []
    for kind, group in _runs(msgs, _openai_group, single={"system", "bypass"}):
        if kind in ("system", "bypass"):
            out.append(_openai_message(group[0], ctx))
        elif kind == "tool":
            for m in group:
                if _role(m) in ("assistant", "tool"):
                    out.append(_openai_message(m, ctx))
                else:
                    ctx.note(m, "a user message in a tool sequence is not sent (as the framework)")
        else:
            out.append(_openai_merge(group, ctx))
    return {"messages": out}


def _runs(
    msgs: list[Message],
    kind_of: Callable[[Message], str],
    single: frozenset[str] | set[str] = frozenset(),
) -> list[tuple[str, list[Message]]]:
    """Consecutive messages of one kind; a kind in ``single`` is always a group of its own."""
    groups: list[tuple[str, list[Message]]] = []
    for msg in msgs:
        kind = kind_of(msg)
        if groups and groups[-1][0] == kind and kind not in single:
            groups[-1][1].append(msg)
        else:
            groups.append((kind, [msg]))
    return groups


# -- DashScope ----------------------------------------------------------------------------


def _protocol_url(url: str, ctx: Context, msg: Message) -> str:
    _note_local(ctx, msg, url)
    return url


def _ds_source_url(source: Source, ctx: Context, msg: Message) -> str:
    if source.kind == "url":
        return _protocol_url(as_text(source.url), ctx, msg)
    return f"data:{media_type_of(source) or 'null'};base64,{as_text(source.data)}"


def _ds_media_part(block: DataBlock, ctx: Context, msg: Message) -> dict:
    """``DashScopeMediaConverter``: an image/audio/video part (raises ``_Failed``)."""
    kind = _media_kind(block)
    source = block.source
    if source is None:
        raise _Failed("source is null")
    if kind == "image":
        if source.kind == "url":
            _check_extension(as_text(source.url), _IMAGE_EXTENSIONS, "image")
        return _with_limits({"image": _ds_source_url(source, ctx, msg)}, block, ctx, msg)
    if kind == "video":
        if source.kind == "url":
            _check_extension(as_text(source.url), _VIDEO_EXTENSIONS, "video")
        return _with_limits({"video": _ds_source_url(source, ctx, msg)}, block, ctx, msg)
    if kind == "audio":
        return {"audio": _ds_source_url(source, ctx, msg)}
    mime = _mime(source)
    for prefix in ("image", "audio", "video"):
        if mime.startswith(prefix + "/"):
            return {prefix: _ds_source_url(source, ctx, msg)}
    raise _Failed(f"Cannot route DataBlock: unrecognised MIME type '{mime}'")


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
                _media_kind(block), "Media"
            )
            try:
                parts.append(_ds_media_part(block, ctx, msg))
            except _Failed as exc:
                ctx.note(msg, f"a {block.kind} block cannot be converted ({exc}): a text instead")
                parts.append({"text": f"[{label} - processing failed: {exc}]"})
        elif isinstance(block, ThinkingBlock | ToolCallBlock):
            continue
        elif isinstance(block, ToolResultBlock) and with_results:
            text = tool_result_text(block.output, ctx, msg)
            if text:
                parts.append({"text": text})
        else:
            _note_dropped(ctx, msg, block, "a DashScope message")
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
            "function": {"name": call.name, "arguments": _checked_arguments(call, ctx, msg)},
        }
        for call in msg.content
        if isinstance(call, ToolCallBlock)
    ]


def _ds_message(msg: Message, ctx: Context) -> dict:
    """``DashScopeMessageConverter.convertToMessage`` (multimodal parts when it holds media)."""
    role = _role(msg)
    if _has_media(msg.content):
        if role == "tool":
            return _ds_tool_role(msg, ctx)
        out: dict[str, Any] = {
            "role": role,
            "content": _ds_parts(msg.content, ctx, msg, True) or [{"text": ""}],
        }
        if role == "assistant" and _has(msg, ToolCallBlock):
            out["tool_calls"] = _ds_tool_calls(msg, ctx)
        return out
    result = _first(msg, ToolResultBlock)
    if result is not None and role in ("tool", "system"):
        _note_extra_results(msg, ctx)
        return {
            "role": "tool",
            "content": tool_result_text(result.output, ctx, msg),
            "name": result.name,
            "tool_call_id": result.id,
        }
    out = {"role": role}
    if role == "assistant" and _has(msg, ToolCallBlock):
        out["content"] = _ds_text(msg)
        out["tool_calls"] = _ds_tool_calls(msg, ctx)
    else:
        out["content"] = _ds_text(msg)
    for block in msg.content:
        if isinstance(block, ToolResultBlock):
            ctx.note(msg, f"a tool result in a {role} message is not sent (the framework skips it)")
        elif not isinstance(block, TextBlock | HintBlock | ThinkingBlock | ToolCallBlock):
            _note_dropped(ctx, msg, block, "a DashScope message")
    return out


def _note_extra_results(msg: Message, ctx: Context) -> None:
    if sum(isinstance(b, ToolResultBlock) for b in msg.content) > 1:
        ctx.note(msg, "only the first tool result of a message is sent (as the framework does)")


def _ds_tool_role(msg: Message, ctx: Context) -> dict:
    result = _first(msg, ToolResultBlock)
    if result is None:
        return {"role": "tool", "content": [{"text": extract_text(msg)}]}
    _note_extra_results(msg, ctx)
    if _has_media(result.output):
        content = _ds_parts(_output_blocks(result.output), ctx, msg, False)
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
                kind = _media_kind(block)
                try:
                    if kind == "video":
                        url = _ds_media_part(block, ctx, msg)["video"]
                        text.append(f"{name}: [Video: {url}]\n")
                    elif kind == "audio":
                        ctx.note(msg, "audio in the merged history is not sent (the framework)")
                    else:
                        media.append(_ds_media_part(block, ctx, msg))
                        text.append(f"{name}: [{'Image' if kind == 'image' else 'Data'}]\n")
                except _Failed as exc:
                    ctx.note(msg, f"a {block.kind} block cannot be converted ({exc})")
                    label = {"image": "Image", "video": "Video"}.get(kind, "Data")
                    text.append(f"{name}: [{label} - processing failed]\n")
            elif isinstance(block, ThinkingBlock):
                continue
            elif isinstance(block, ToolResultBlock):
                result = tool_result_text(block.output, ctx, msg) or "[Empty tool result]"
                text.append(f"{name} ({block.name}): {result}\n")
            else:
                _note_dropped(ctx, msg, block, "the conversation history")
    text.append("</history>")
    joined = "".join(text)
    if not media:
        return {"role": "user", "content": joined}
    return {"role": "user", "content": [{"text": joined}, *media]}


def _ds_group(msg: Message) -> str:
    if _role(msg) == "tool" or _has(msg, ToolCallBlock) or _has(msg, ToolResultBlock):
        return "tool"
    return "agent"


def dashscope(msgs: list[Message], multi_agent: bool, ctx: Context) -> dict:
    """``DashScopeChatFormatter.format`` or ``DashScopeMultiAgentFormatter.format``."""
    if not multi_agent:
        return {"messages": [_ds_message(m, ctx) for m in msgs]}
    out: list[dict] = []
    rest = msgs
    if msgs and _role(msgs[0]) == "system":
        out.append({"role": "system", "content": extract_text(msgs[0])})
        rest = msgs[1:]
    first = True
    for kind, group in _runs(rest, _ds_group):
        if kind == "agent":
            out.append(_ds_merge(group, HISTORY_PROMPT if first else "", ctx))
            first = False
            continue
        for m in group:
            role = _role(m)
            if role == "assistant":
                entry: dict[str, Any] = {"role": "assistant", "content": extract_text(m)}
                if _has(m, ToolCallBlock):
                    entry["tool_calls"] = _ds_tool_calls(m, ctx)
                out.append(entry)
            elif role == "tool" or (role == "system" and _has(m, ToolResultBlock)):
                result = _first(m, ToolResultBlock)
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


# -- Anthropic ----------------------------------------------------------------------------


def _anthropic_image(block: DataBlock, ctx: Context, msg: Message) -> dict:
    """``AnthropicMediaConverter``: an image block (raises ``_Failed``)."""
    source = block.source
    if source is None:
        raise _Failed("source is null")
    if _media_kind(block) == "image":
        if source.kind == "url":
            url = as_text(source.url)
            _check_extension(url, _IMAGE_EXTENSIONS, "image")
            _note_local(ctx, msg, url)
            return {"type": "image", "source": {"type": "url", "url": url}}
        media_type = media_type_of(source) or "image/png"
    else:
        if _media_kind(block) != "data":
            raise _Failed(f"{block.kind} blocks are not sent to Anthropic")
        media_type = _mime(source)
        if not media_type.startswith("image/"):
            raise _Failed(
                f"Anthropic API only supports image DataBlocks; got MIME type: {media_type}"
            )
        if source.kind == "url":
            url = as_text(source.url)
            _note_local(ctx, msg, url)
            return {"type": "image", "source": {"type": "url", "url": url}}
    return {
        "type": "image",
        "source": {"type": "base64", "media_type": media_type, "data": as_text(source.data)},
    }


def _anthropic_content(msg: Message, blocks: list[Block], ctx: Context) -> dict | None:
    """``AnthropicMessageConverter.convertMessageContent``."""
    role = "assistant" if _role(msg) == "assistant" else "user"
    content: list[dict] = []
    for block in blocks:
        if isinstance(block, TextBlock):
            content.append(_text_part(as_text(block.text)))
        elif isinstance(block, HintBlock):
            content.append(_text_part(as_text(block.hint)))
        elif isinstance(block, ThinkingBlock):
            content.append(_text_part(as_text(block.thinking)))
        elif isinstance(block, DataBlock):
            if _media_kind(block) in ("audio", "video"):
                ctx.note(msg, f"{block.kind} is not sent to Anthropic (the framework skips it)")
                continue
            label = "Image" if _media_kind(block) == "image" else "Media"
            try:
                content.append(_anthropic_image(block, ctx, msg))
            except _Failed as exc:
                ctx.note(msg, f"a {block.kind} block cannot be sent ({exc}): a text instead")
                content.append(_text_part(f"[{label} - processing failed: {exc}]"))
        elif isinstance(block, ToolCallBlock):
            content.append(
                {
                    "type": "tool_use",
                    "id": block.id,
                    "name": block.name,
                    "input": _anthropic_input(block, ctx, msg),
                }
            )
        else:
            _note_dropped(ctx, msg, block, "an Anthropic message")
    if not content:
        return None
    return {"role": role, "content": content}


def _anthropic_input(block: ToolCallBlock, ctx: Context, msg: Message) -> Any:
    """A tool call's input as the object Anthropic takes (``{}`` when there is none)."""
    args = block.arguments
    if args is None and isinstance(block.input, str):
        try:
            args = orjson.loads(block.input)
        except orjson.JSONDecodeError:
            args = None
        if args is not None and not isinstance(args, dict):
            ctx.note(
                msg,
                f"a tool call's JSON text holds {kind_of(args)}, not an object: msgcli sends {{}}",
            )
            return {}
    if args is None:
        return {}
    why = unsendable(args)
    if why:
        ctx.note(msg, f"a tool call's input {why}: msgcli sends {{}}")
        return {}
    return args


def _anthropic_result(result: ToolResultBlock, ctx: Context, msg: Message) -> dict:
    content: list[dict] = []
    output = result.output
    if output is None:
        content.append({"type": "text", "text": None})
    elif isinstance(output, list):
        for block in output:
            if isinstance(block, TextBlock):
                content.append(_text_part(as_text(block.text)))
            elif isinstance(block, DataBlock):
                try:
                    content.append(_anthropic_image(block, ctx, msg))
                except _Failed as exc:
                    ctx.note(msg, f"tool output dropped: {exc} (the framework drops it silently)")
    else:
        content.append(_text_part(as_text(output)))
    block_out = {"type": "tool_result", "tool_use_id": result.id, "content": content}
    return {"role": "user", "content": [block_out]}


def _anthropic_convert(msgs: list[Message], ctx: Context) -> list[dict]:
    """``AnthropicMessageConverter.convert``."""
    out: list[dict] = []
    i = 0
    while i < len(msgs):
        msg = msgs[i]
        calls = [b for b in msg.content if isinstance(b, ToolCallBlock)]
        if _role(msg) == "assistant" and len(calls) > 1:
            by_id, used = _split_results(msgs, i + 1)
            ids = [c.id for c in calls]
            if (
                used
                and all(isinstance(x, str) and x.strip() for x in ids)
                and len(by_id) == len(ids)
                and all(x in by_id for x in ids)
            ):
                leading = [b for b in msg.content if not isinstance(b, ToolCallBlock)]
                for n, call in enumerate(calls):
                    blocks: list[Block] = [*leading, call] if n == 0 else [call]
                    converted = _anthropic_content(msg, blocks, ctx)
                    if converted is not None:
                        out.append(converted)
                    result_msg, result = by_id[call.id]
                    out.append(_anthropic_result(result, ctx, result_msg))
                i += 1 + used
                continue
        if _has(msg, ToolResultBlock):
            others = [b for b in msg.content if not isinstance(b, ToolResultBlock)]
            if others:
                converted = _anthropic_content(msg, others, ctx)
                if converted is not None:
                    out.append(converted)
            for block in msg.content:
                if isinstance(block, ToolResultBlock):
                    out.append(_anthropic_result(block, ctx, msg))
        else:
            converted = _anthropic_content(msg, msg.content, ctx)
            if converted is not None:
                out.append(converted)
        i += 1
    return out


def _split_results(
    msgs: list[Message], start: int
) -> tuple[dict[Any, tuple[Message, ToolResultBlock]], int]:
    by_id: dict[Any, tuple[Message, ToolResultBlock]] = {}
    used = 0
    for msg in msgs[start:]:
        results = [b for b in msg.content if isinstance(b, ToolResultBlock)]
        if not results or len(results) != len(msg.content):
            break
        used += 1
        for result in results:
            if result.id is not None and result.id not in by_id:
                by_id[result.id] = (msg, result)
    return by_id, used


def _anthropic_system(msgs: list[Message]) -> str | None:
    if not msgs or _role(msgs[0]) != "system":
        return None
    text = "\n".join(as_text(b.text) for b in msgs[0].content if isinstance(b, TextBlock))
    return text or None


def _anthropic_merge(msgs: list[Message], prompt: str, ctx: Context) -> list[dict]:
    """``AnthropicConversationMerger.mergeConversation`` and the formatter around it."""
    pieces: list[Any] = []
    lines: list[str] = []
    for msg in msgs:
        name = as_text(msg.name) if msg.name is not None else _role(msg).upper()
        for block in msg.content:
            if isinstance(block, TextBlock):
                lines.append(f"{name}: {as_text(block.text)}")
            elif isinstance(block, HintBlock):
                lines.append(f"{name}: {as_text(block.hint)}")
            elif isinstance(block, DataBlock):
                if lines:
                    pieces.append("\n".join(lines))
                    lines = []
                pieces.append((msg, block))
            elif isinstance(block, ThinkingBlock):
                ctx.note(msg, "thinking is not sent in the merged history (the framework skips it)")
            else:
                _note_dropped(ctx, msg, block, "the conversation history")
    if lines:
        pieces.append("\n".join(lines))
    if not pieces:
        return []
    if isinstance(pieces[0], str):
        pieces[0] = prompt + "<history>\n" + pieces[0]
    else:
        pieces.insert(0, prompt + "<history>\n")
    if isinstance(pieces[-1], str):
        pieces[-1] = pieces[-1] + "\n</history>"
    else:
        pieces.append("</history>")
    content: list[dict] = []
    for piece in pieces:
        if isinstance(piece, str):
            content.append(_text_part(piece))
            continue
        msg, block = piece
        try:
            content.append(_anthropic_image(block, ctx, msg))
        except _Failed as exc:
            ctx.note(msg, f"a {block.kind} block is dropped: {exc} (the framework drops it)")
    return [{"role": "user", "content": content}] if content else []


def _anthropic_group(msg: Message) -> str:
    if _role(msg) == "system" and msg.content and not isinstance(msg.content[0], ToolResultBlock):
        return "system"
    if _has(msg, ToolCallBlock) or _has(msg, ToolResultBlock):
        return "tool"
    return "agent"


def anthropic(msgs: list[Message], multi_agent: bool, ctx: Context) -> dict:
    """``AnthropicChatFormatter`` / ``AnthropicMultiAgentFormatter`` and the system parameter.

    The Java formatter sends the first system message twice: as the ``system``
    parameter and, like every system message, as a user turn.
    """
    out: dict[str, Any] = {}
    system = _anthropic_system(msgs)
    if system is not None:
        out["system"] = system
    if not multi_agent:
        out["messages"] = _anthropic_convert(msgs, ctx)
        return out
    messages: list[dict] = []
    first = True
    for kind, group in _runs(msgs, _anthropic_group, single={"system"}):
        if kind in ("system", "tool"):
            messages.extend(_anthropic_convert(group, ctx))
        else:
            messages.extend(_anthropic_merge(group, HISTORY_PROMPT if first else "", ctx))
            first = False
    out["messages"] = messages
    return out
