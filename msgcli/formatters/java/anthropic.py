"""AgentScope Java's ``AnthropicChatFormatter`` / ``AnthropicMultiAgentFormatter``, plus the
separate ``system`` parameter the Anthropic model takes from the first system message."""

from __future__ import annotations

from typing import Any

import orjson

from ...model import (
    Block,
    DataBlock,
    HintBlock,
    Message,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
    ToolResultBlock,
)
from ...records import loads_exact
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
    Failed,
    check_extension,
    has_block,
    media_kind,
    mime_of,
    note_dropped,
    note_local,
    prepare,
    role_of,
    runs,
    text_part,
)


def _anthropic_image(block: DataBlock, ctx: Context, msg: Message) -> dict:
    """``AnthropicMediaConverter``: an image block (raises ``Failed``)."""
    source = block.source
    if source is None:
        raise Failed("source is null")
    if media_kind(block) == "image":
        if source.kind == "url":
            url = as_text(source.url)
            check_extension(url, IMAGE_EXTENSIONS, "image")
            note_local(ctx, msg, url)
            return {"type": "image", "source": {"type": "url", "url": url}}
        media_type = media_type_of(source) or "image/png"
    else:
        if media_kind(block) != "data":
            raise Failed(f"{block.kind} blocks are not sent to Anthropic")
        media_type = mime_of(source)
        if not media_type.startswith("image/"):
            raise Failed(
                f"Anthropic API only supports image DataBlocks; got MIME type: {media_type}"
            )
        if source.kind == "url":
            url = as_text(source.url)
            note_local(ctx, msg, url)
            return {"type": "image", "source": {"type": "url", "url": url}}
    return {
        "type": "image",
        "source": {"type": "base64", "media_type": media_type, "data": as_text(source.data)},
    }


def _anthropic_content(msg: Message, blocks: list[Block], ctx: Context) -> dict | None:
    """``AnthropicMessageConverter.convertMessageContent``."""
    role = "assistant" if role_of(msg) == "assistant" else "user"
    content: list[dict] = []
    for block in blocks:
        if isinstance(block, TextBlock):
            content.append(text_part(as_text(block.text)))
        elif isinstance(block, HintBlock):
            content.append(text_part(as_text(block.hint)))
        elif isinstance(block, ThinkingBlock):
            content.append(text_part(as_text(block.thinking)))
        elif isinstance(block, DataBlock):
            if media_kind(block) in ("audio", "video"):
                ctx.note(msg, f"{block.kind} is not sent to Anthropic (the framework skips it)")
                continue
            label = "Image" if media_kind(block) == "image" else "Media"
            try:
                content.append(_anthropic_image(block, ctx, msg))
            except Failed as exc:
                ctx.note(msg, f"a {block.kind} block cannot be sent ({exc}): a text instead")
                content.append(text_part(f"[{label} - processing failed: {exc}]"))
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
            note_dropped(ctx, msg, block, "an Anthropic message")
    if not content:
        return None
    return {"role": role, "content": content}


def _anthropic_input(block: ToolCallBlock, ctx: Context, msg: Message) -> Any:
    """A tool call's input as the object Anthropic takes (``{}`` when there is none)."""
    args = block.arguments
    if args is None and isinstance(block.input, str):
        try:
            args = loads_exact(block.input)
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
                content.append(text_part(as_text(block.text)))
            elif isinstance(block, DataBlock):
                try:
                    content.append(_anthropic_image(block, ctx, msg))
                except Failed as exc:
                    ctx.note(msg, f"tool output dropped: {exc} (the framework drops it silently)")
    else:
        content.append(text_part(as_text(output)))
    block_out = {"type": "tool_result", "tool_use_id": result.id, "content": content}
    return {"role": "user", "content": [block_out]}


def _anthropic_convert(msgs: list[Message], ctx: Context) -> list[dict]:
    """``AnthropicMessageConverter.convert``."""
    out: list[dict] = []
    i = 0
    while i < len(msgs):
        msg = msgs[i]
        calls = [b for b in msg.content if isinstance(b, ToolCallBlock)]
        if role_of(msg) == "assistant" and len(calls) > 1:
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
        if has_block(msg, ToolResultBlock):
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
    if not msgs or role_of(msgs[0]) != "system":
        return None
    text = "\n".join(as_text(b.text) for b in msgs[0].content if isinstance(b, TextBlock))
    return text or None


def _anthropic_merge(msgs: list[Message], prompt: str, ctx: Context) -> list[dict]:
    """``AnthropicConversationMerger.mergeConversation`` and the formatter around it."""
    pieces: list[Any] = []
    lines: list[str] = []
    for msg in msgs:
        name = as_text(msg.name) if msg.name is not None else role_of(msg).upper()
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
                note_dropped(ctx, msg, block, "the conversation history")
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
            content.append(text_part(piece))
            continue
        msg, block = piece
        try:
            content.append(_anthropic_image(block, ctx, msg))
        except Failed as exc:
            ctx.note(msg, f"a {block.kind} block is dropped: {exc} (the framework drops it)")
    return [{"role": "user", "content": content}] if content else []


def _anthropic_group(msg: Message) -> str:
    if role_of(msg) == "system" and msg.content and not isinstance(msg.content[0], ToolResultBlock):
        return "system"
    if has_block(msg, ToolCallBlock) or has_block(msg, ToolResultBlock):
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
    for kind, group in runs(msgs, _anthropic_group, single={"system"}):
        if kind in ("system", "tool"):
            messages.extend(_anthropic_convert(group, ctx))
        else:
            messages.extend(_anthropic_merge(group, HISTORY_PROMPT if first else "", ctx))
            first = False
    out["messages"] = messages
    return out


FORMATTER = Formatter("AgentScope Java", "Anthropic", prepare, anthropic)
