"""The AgentScope Python formatters' rules (PyPI ``agentscope`` 2.0.10, ``agentscope/formatter``).

``OpenAIChatFormatter`` / ``OpenAIMultiAgentFormatter``, ``DashScopeChatFormatter`` /
``DashScopeMultiAgentFormatter`` (the OpenAI-compatible DashScope endpoint) and
``AnthropicChatFormatter`` / ``AnthropicMultiAgentFormatter``, each with its default
``input_types`` (no model card), and the Anthropic model's move of a leading system
turn into the ``system`` parameter.

LoongFlow logs are formatted with these rules too, after :func:`prepare` maps their
elements onto AgentScope Python's blocks.

Where the framework fetches bytes (a remote URL it downloads, a ``file://`` path it
reads, base64 tool output it saves to a temporary file), msgcli does not: it keeps
the reference and says so in a note.
"""

from __future__ import annotations

import mimetypes
from dataclasses import replace
from fnmatch import fnmatch
from typing import Any

import orjson

from ..model import (
    Block,
    DataBlock,
    EvolveResultBlock,
    HintBlock,
    Message,
    Source,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
    ToolResultBlock,
    ValueBlock,
    pointer,
)
from ..records import loads_exact
from ._common import (
    HISTORY_PROMPT,
    Context,
    Formatter,
    as_text,
    compact_json,
    json_text,
    kind_of,
    normalize_block,
    shown,
    unsendable,
)

__all__ = [
    "ANTHROPIC",
    "DASHSCOPE",
    "HISTORY_PROMPT",
    "OPENAI",
    "anthropic",
    "dashscope",
    "openai",
    "prepare",
]

OPENAI_TYPES = ("image/*", "audio/*", "application/pdf")
DASHSCOPE_TYPES = ("image/*", "audio/*", "video/*")
ANTHROPIC_TYPES = ("image/*", "application/pdf")
_ROLES = ("system", "user", "assistant")


# -- LoongFlow and Python 1.x onto the Python 2.x blocks ------------------------------


def prepare(msgs: list[Message], dialect: str, ctx: Context) -> list[Message]:
    """The messages as AgentScope Python 2.x would hold them.

    LoongFlow: a role other than system/user/assistant becomes ``user`` once its
    tool outputs are taken out (AgentScope has no other roles; the tool outputs
    become tool messages anyway); a tool call's ``arguments`` object becomes the
    JSON text Python keeps in ``input``; JSON content becomes a text holding the
    JSON. Python 1.x: the blocks are read as 2.x blocks (1.x has its own
    formatters, which msgcli does not model), and a note says so once.
    """
    out: list[Message] = []
    v1_noted = False
    for msg in msgs:
        if msg.variant == "1.x" and not v1_noted:
            ctx.note(msg, "an AgentScope Python 1.x log: formatted with the 2.x formatters' rules")
            v1_noted = True
        role = msg.role
        if role not in _ROLES:
            if not all(isinstance(b, ToolResultBlock) for b in msg.content):
                ctx.note(msg, f"role {shown(role)} has no AgentScope equivalent: sent as user")
            role = "user"
        out.append(
            replace(msg, role=role, content=[_prepare_block(b, msg, ctx) for b in msg.content])
        )
    return out


def _prepare_block(block: Block, msg: Message, ctx: Context) -> Block:
    if isinstance(block, ToolCallBlock) and not isinstance(block.input, str):
        args = block.arguments if block.arguments is not None else {}
        why = unsendable(args)
        if why and why.startswith("is nested"):
            ctx.note(msg, f"a tool call's arguments object {why}: its JSON text is cut there")
        return replace(block, input=json_text(args))
    if isinstance(block, ValueBlock):
        mime = block.mime_type if isinstance(block.mime_type, str) and block.mime_type else None
        ctx.note(msg, f"{mime[:60] if mime else 'structured'} content is sent as its JSON text")
        why = unsendable(block.value)
        if why and why.startswith("is nested"):
            ctx.note(msg, f"the content {why}: its JSON text is cut there")
        text = json_text(block.value)
        return TextBlock(type="text", id=block.id, path=block.path, text=text)
    if isinstance(block, ToolResultBlock) and isinstance(block.output, list):
        return replace(block, output=[_prepare_block(b, msg, ctx) for b in block.output])
    return block


# -- shared ---------------------------------------------------------------------------


def _skip(ctx: Context, msg: Message, block: Block) -> None:
    what = "an evolve_result" if isinstance(block, EvolveResultBlock) else f"a {block.type} block"
    ctx.note(msg, f"{what} is not sent: the formatter skips block types it does not know")


def _media_type(block: DataBlock, ctx: Context, msg: Message) -> tuple[Source, str] | None:
    source = block.source
    if not isinstance(source, Source):
        ctx.note(msg, "a data block without a usable source is not sent")
        return None
    if (source.url if source.kind == "url" else source.data) is None:
        what = "URL" if source.kind == "url" else "data"
        ctx.note(msg, f"a data block whose source has no {what} is not sent")
        return None
    mt = source.media_type if isinstance(source.media_type, str) and source.media_type else None
    if mt is None and source.kind == "url":
        mt = mimetypes.guess_type(as_text(source.url))[0]
        if mt is not None:
            ctx.note(msg, f"a data block has no media type: {mt} guessed from its URL")
    if mt is None:
        ctx.note(msg, "a data block without a media type is not sent")
        return None
    return source, mt


def _supported(mt: str, types: tuple[str, ...]) -> bool:
    return any(fnmatch(mt, pattern) for pattern in types)


def _fetched(ctx: Context, msg: Message, url: str) -> None:
    if url.startswith("file://"):
        ctx.note(msg, f"the framework reads {url} and sends its bytes; msgcli keeps the URL")
    else:
        ctx.note(msg, f"the framework downloads {url} and sends its bytes; msgcli keeps the URL")


def _hint_blocks(hint: Any, ctx: Context, msg: Message) -> list[Block]:
    """A hint given as a list of blocks (raw JSON in the model) as text and data blocks."""
    blocks: list[Block] = []
    for item in hint if isinstance(hint, list) else []:
        if not isinstance(item, dict):
            ctx.note(msg, f"a hint item is {kind_of(item)}, not a block: not sent")
            continue
        if item.get("type") == "text":
            blocks.append(TextBlock(type="text", text=item.get("text")))
        elif item.get("type") == "data" and isinstance(item.get("source"), dict):
            raw = item["source"]
            kind = raw.get("type")
            source = Source(
                kind=kind if kind in ("url", "base64") else "url",
                url=raw.get("url"),
                data=raw.get("data"),
                media_type=raw.get("media_type"),
            )
            blocks.append(DataBlock(type="data", id=item.get("id"), source=source))
        else:
            ctx.note(msg, "a hint item that is neither a text nor a data block is not sent")
    return [normalize_block(b, "agentscope-py", ctx, msg) for b in blocks]


def _tool_result_text(
    output: Any, types: tuple[str, ...], ctx: Context, msg: Message
) -> tuple[str, list[Block]]:
    """``FormatterBase.convert_tool_result_to_string``: the text and the media to promote."""
    if isinstance(output, str):
        return output, []
    if output is None:
        return "", []
    texts: list[str] = []
    promoted: list[Block] = []
    for block in output if isinstance(output, list) else []:
        if isinstance(block, TextBlock):
            texts.append(as_text(block.text))
        elif isinstance(block, DataBlock):
            found = _media_type(block, ctx, msg)
            if found is None:
                continue
            source, mt = found
            main = mt.split("/")[0]
            if _supported(mt, types):
                ident = block.id if block.id is not None else pointer(block.path)
                texts.append(
                    f"<system-reminder>A(n) {main} file is returned and will be presented "
                    f"to you with the identifier [{ident}].</system-reminder>"
                )
                promoted.extend([TextBlock(type="text", text=f"- {ident} ({main} file): "), block])
            elif source.kind == "url":
                texts.append(
                    f"<system-reminder>A(n) {main} file is returned and can be accessed "
                    f"at the URL: {as_text(source.url)}.</system-reminder>"
                )
            else:
                ext = mimetypes.guess_extension(mt) or ""
                texts.append(
                    f"<system-reminder>A(n) {main} file is returned and saved locally at: "
                    f"<temporary file{(' *' + ext) if ext else ''}>.</system-reminder>"
                )
                ctx.note(
                    msg,
                    f"a tool returned base64 {mt} the provider cannot take: the framework "
                    "saves it to a temporary file and sends the path; msgcli shows a placeholder",
                )
        else:
            _skip(ctx, msg, block)
    if promoted:
        promoted = [
            TextBlock(
                type="text",
                text="<system-reminder>The multimodal data and their identifiers are "
                "listed as follows:",
            ),
            *promoted,
            TextBlock(type="text", text="</system-reminder>"),
        ]
    return "\n".join(texts), promoted


# -- OpenAI and DashScope (OpenAI-compatible) ----------------------------------------------


class _Chat:
    """``OpenAIChatFormatter`` (``dashscope=False``) or ``DashScopeChatFormatter``."""

    def __init__(self, ctx: Context, dashscope: bool):
        self.ctx = ctx
        self.dashscope = dashscope
        self.types = DASHSCOPE_TYPES if dashscope else OPENAI_TYPES

    def data(self, block: DataBlock, msg: Message) -> dict | None:
        ctx = self.ctx
        found = _media_type(block, ctx, msg)
        if found is None:
            return None
        source, mt = found
        if not _supported(mt, self.types):
            ctx.note(msg, f"media type {mt} is not supported by the formatter: not sent")
            return None
        main = mt.split("/")[0]
        if main == "image":
            return {"type": "image_url", "image_url": {"url": self.url(source, mt, msg)}}
        if main == "video" and self.dashscope:
            return {"type": "video_url", "video_url": {"url": self.url(source, mt, msg)}}
        if main == "audio":
            return self.audio(source, mt, msg)
        if mt == "application/pdf" and not self.dashscope:
            if source.kind == "base64":
                data = f"data:{mt};base64,{as_text(source.data)}"
            else:
                data = as_text(source.url)
                _fetched(ctx, msg, data)
            return {
                "type": "file",
                "file": {"filename": block.name or "document.pdf", "file_data": data},
            }
        ctx.note(msg, f"media type {mt} is not supported by the formatter: not sent")
        return None

    def url(self, source: Source, mt: str, msg: Message) -> str:
        if source.kind == "base64":
            return f"data:{mt};base64,{as_text(source.data)}"
        url = as_text(source.url)
        if url.startswith("file://"):
            _fetched(self.ctx, msg, url)
        return url

    def audio(self, source: Source, mt: str, msg: Message) -> dict | None:
        if self.dashscope:
            fmt = mt.split("/")[-1]
            fmt = "mp3" if fmt == "mpeg" else fmt
            if source.kind == "base64":
                data = f"data:;base64,{as_text(source.data)}"
            else:
                data = as_text(source.url)
                if data.startswith("file://"):
                    _fetched(self.ctx, msg, data)
            return {"type": "input_audio", "input_audio": {"data": data, "format": fmt}}
        formats = {"audio/wav": "wav", "audio/mp3": "mp3", "audio/mpeg": "mp3"}
        if mt not in formats:
            self.ctx.note(
                msg, f"the framework fails on audio of type {mt} (only WAV and MP3): not sent"
            )
            return None
        if source.kind == "base64":
            data = as_text(source.data)
        else:
            data = as_text(source.url)
            _fetched(self.ctx, msg, data)
        return {"type": "input_audio", "input_audio": {"data": data, "format": formats[mt]}}

    def turn(self, msg: Message, content: list, calls: list, thinking: list) -> dict:
        out: dict[str, Any] = {"role": msg.role}
        if not self.dashscope:
            out["name"] = msg.name
        out["content"] = content or None
        if calls:
            out["tool_calls"] = calls
        if thinking:
            out["reasoning_content"] = "\n".join(thinking)
        return out

    def hint(self, block: HintBlock, msg: Message) -> dict | None:
        if isinstance(block.hint, str):
            return {"role": "user", "content": [{"type": "text", "text": block.hint}]}
        parts: list[dict] = []
        for sub in _hint_blocks(block.hint, self.ctx, msg):
            if isinstance(sub, TextBlock):
                parts.append({"type": "text", "text": as_text(sub.text)})
            elif isinstance(sub, DataBlock):
                part = self.data(sub, msg)
                if part is not None:
                    parts.append(part)
        return {"role": "user", "content": parts} if parts else None

    def format(self, msgs: list[Message]) -> list[dict]:
        ctx = self.ctx
        messages: list[dict] = []
        for msg in msgs:
            content: list[dict] = []
            calls: list[dict] = []
            thinking: list[str] = []
            pending: list[dict] = []
            for block in msg.content:
                if pending and not isinstance(block, ToolResultBlock):
                    messages.extend(pending)
                    pending = []
                if isinstance(block, TextBlock):
                    content.append({"type": "text", "text": as_text(block.text)})
                elif isinstance(block, DataBlock):
                    part = self.data(block, msg)
                    if part is not None:
                        content.append(part)
                elif isinstance(block, HintBlock):
                    if content or calls or thinking:
                        messages.append(self.turn(msg, content, calls, thinking))
                        content, calls, thinking = [], [], []
                    hint = self.hint(block, msg)
                    if hint is not None:
                        messages.append(hint)
                elif isinstance(block, ToolCallBlock):
                    calls.append(
                        {
                            "id": block.id,
                            "type": "function",
                            "function": {"name": block.name, "arguments": block.input},
                        }
                    )
                elif isinstance(block, ToolResultBlock):
                    if content or calls or thinking:
                        messages.append(self.turn(msg, content, calls, thinking))
                        content, calls, thinking = [], [], []
                    text, promoted = _tool_result_text(block.output, self.types, ctx, msg)
                    messages.append(
                        {
                            "role": "tool",
                            "tool_call_id": block.id,
                            "content": text,
                            "name": block.name,
                        }
                    )
                    parts: list[dict] = []
                    for item in promoted:
                        if isinstance(item, TextBlock):
                            parts.append({"type": "text", "text": as_text(item.text)})
                        elif isinstance(item, DataBlock):
                            part = self.data(item, msg)
                            if part is not None:
                                parts.append(part)
                    if parts:
                        reminder: dict[str, Any] = {"role": "user"}
                        if not self.dashscope:
                            reminder["name"] = "system-reminder"
                        reminder["content"] = parts
                        pending.append(reminder)
                elif isinstance(block, ThinkingBlock):
                    continue  # not sent back (DashScope: unless the model card says so)
                else:
                    _skip(ctx, msg, block)
            messages.extend(pending)
            turn = self.turn(msg, content, calls, thinking)
            if turn["content"] or turn.get("tool_calls") or turn.get("reasoning_content"):
                messages.append(turn)
        return messages

    def merge(self, msgs: list[Message], first: bool) -> list[dict]:
        """``_format_agent_message``: one user turn holding the ``<history>``."""
        lines: list[str] = []
        media: list[dict] = []
        for msg in msgs:
            for block in msg.content:
                if isinstance(block, TextBlock):
                    lines.append(f"{msg.name}: {as_text(block.text)}")
                elif isinstance(block, DataBlock):
                    part = self.data(block, msg)
                    if part is not None:
                        media.append(part)
                elif isinstance(block, HintBlock | ThinkingBlock):
                    self.ctx.note(msg, f"a {block.type} block is not sent in the merged history")
                else:
                    _skip(self.ctx, msg, block)
        content: list[dict] = []
        if lines:
            prompt = HISTORY_PROMPT if first else ""
            text = prompt + "<history>\n" + "\n".join(lines) + "\n</history>"
            content.append({"type": "text", "text": text})
        content.extend(media)
        return [{"role": "user", "content": content}] if content else []


def _multi(msgs: list[Message], chat: Any, system: Any, merge: Any) -> list[dict]:
    """The multi-agent formatters' shared frame: system first, then runs of agent
    messages (merged) and tool sequences (formatted as a chat)."""
    out: list[dict] = []
    rest = msgs
    if msgs and msgs[0].role == "system":
        out.append(system(msgs[0]))
        rest = msgs[1:]
    first = True
    for kind, group in _groups(rest):
        if kind == "tool":
            out.extend(chat(group))
        else:
            merged = merge(group, first)
            out.extend(merged)
            if merged:
                first = False
    return out


def _groups(msgs: list[Message]) -> list[tuple[str, list[Message]]]:
    groups: list[tuple[str, list[Message]]] = []
    for msg in msgs:
        tools = any(isinstance(b, ToolCallBlock | ToolResultBlock) for b in msg.content)
        kind = "tool" if tools else "agent"
        if groups and groups[-1][0] == kind:
            groups[-1][1].append(msg)
        else:
            groups.append((kind, [msg]))
    return groups


def _text_content(msg: Message) -> str | None:
    texts = [as_text(b.text) for b in msg.content if isinstance(b, TextBlock)]
    return "\n".join(texts) if texts else None


def _openai_like(msgs: list[Message], multi_agent: bool, ctx: Context, dashscope: bool) -> dict:
    chat = _Chat(ctx, dashscope)
    if not multi_agent:
        return {"messages": chat.format(msgs)}

    def system(msg: Message) -> dict:
        return {"role": "system", "content": _text_content(msg)}

    return {"messages": _multi(msgs, chat.format, system, chat.merge)}


def openai(msgs: list[Message], multi_agent: bool, ctx: Context) -> dict:
    """``OpenAIChatFormatter`` or ``OpenAIMultiAgentFormatter``: ``{"messages": [...]}``."""
    return _openai_like(msgs, multi_agent, ctx, dashscope=False)


def dashscope(msgs: list[Message], multi_agent: bool, ctx: Context) -> dict:
    """``DashScopeChatFormatter`` or ``DashScopeMultiAgentFormatter``."""
    return _openai_like(msgs, multi_agent, ctx, dashscope=True)


# -- Anthropic ----------------------------------------------------------------------------


class _Anthropic:
    def __init__(self, ctx: Context):
        self.ctx = ctx

    def data(self, block: DataBlock, msg: Message) -> dict | None:
        found = _media_type(block, self.ctx, msg)
        if found is None:
            return None
        source, mt = found
        if not _supported(mt, ANTHROPIC_TYPES):
            self.ctx.note(msg, f"media type {mt} is not supported by the formatter: not sent")
            return None
        kind = "image" if mt.startswith("image/") else "document"
        if source.kind == "base64":
            return {
                "type": kind,
                "source": {"type": "base64", "media_type": mt, "data": as_text(source.data)},
            }
        url = as_text(source.url)
        _fetched(self.ctx, msg, url)
        return {"type": kind, "source": {"type": "url", "url": url}}

    def tool_input(self, block: ToolCallBlock, msg: Message) -> Any:
        raw = block.input if isinstance(block.input, str) and block.input else "{}"
        if not raw.strip():
            return {}
        try:
            value = loads_exact(raw)
        except orjson.JSONDecodeError:
            value = None
        if not isinstance(value, dict):
            self.ctx.note(
                msg,
                "tool-call input is not a JSON object: the framework repairs it (or fails); "
                "msgcli sends {}",
            )
            return {}
        why = unsendable(value)
        if why:
            self.ctx.note(msg, f"a tool call's input {why}: msgcli sends {{}}")
            return {}
        return value

    def result(self, block: ToolResultBlock, msg: Message) -> dict:
        content: list[dict] = []
        output = block.output
        if isinstance(output, str):
            if output:
                content.append({"type": "text", "text": output})
        else:
            for item in output if isinstance(output, list) else []:
                if isinstance(item, TextBlock):
                    if item.text:
                        content.append({"type": "text", "text": as_text(item.text)})
                elif isinstance(item, DataBlock):
                    part = self.data(item, msg)
                    if part is not None:
                        content.append(part)
                        continue
                    found = _media_type(item, self.ctx, msg)
                    if found is None:
                        continue
                    source, mt = found
                    main = mt.split("/")[0]
                    if source.kind == "url":
                        text = f"[{main} file returned, URL: {as_text(source.url)}]"
                    else:
                        text = f"[{main} file returned, type: {mt}]"
                    content.append({"type": "text", "text": text})
                else:
                    _skip(self.ctx, msg, item)
        if not content:
            content.append({"type": "text", "text": "(empty tool output)"})
        return {"type": "tool_result", "tool_use_id": block.id, "content": content}

    def hint(self, block: HintBlock, msg: Message) -> list[dict]:
        if isinstance(block.hint, str):
            return [{"type": "text", "text": block.hint}] if block.hint else []
        parts: list[dict] = []
        for sub in _hint_blocks(block.hint, self.ctx, msg):
            if isinstance(sub, TextBlock):
                if sub.text:
                    parts.append({"type": "text", "text": as_text(sub.text)})
            elif isinstance(sub, DataBlock):
                part = self.data(sub, msg)
                if part is not None:
                    parts.append(part)
        return parts

    def format(self, msgs: list[Message]) -> list[dict]:
        """``_AnthropicFormatterBase._format_messages``."""
        messages: list[dict] = []
        for msg in msgs:
            content: list[dict] = []
            has_result = False
            for block in msg.content:
                if has_result and content and not isinstance(block, ToolResultBlock):
                    messages.append({"role": "user", "content": content})
                    content = []
                    has_result = False
                if isinstance(block, TextBlock):
                    if block.text:
                        content.append({"type": "text", "text": as_text(block.text)})
                elif isinstance(block, ThinkingBlock):
                    redacted = _opaque(block, "redacted_thinking_data", self.ctx, msg)
                    signature = _opaque(block, "signature", self.ctx, msg)
                    if redacted is not None:
                        content.append({"type": "redacted_thinking", "data": redacted})
                    elif signature:
                        content.append(
                            {
                                "type": "thinking",
                                "thinking": as_text(block.thinking),
                                "signature": signature,
                            }
                        )
                    else:
                        self.ctx.note(
                            msg, "thinking without a signature is not sent (Anthropic needs one)"
                        )
                elif isinstance(block, HintBlock):
                    parts = self.hint(block, msg)
                    if parts:
                        if content:
                            role = "user" if has_result else msg.role
                            messages.append({"role": role, "content": content})
                            content = []
                            has_result = False
                        messages.append({"role": "user", "content": parts})
                elif isinstance(block, DataBlock):
                    part = self.data(block, msg)
                    if part is not None:
                        content.append(part)
                elif isinstance(block, ToolCallBlock):
                    content.append(
                        {
                            "type": "tool_use",
                            "id": block.id,
                            "name": block.name,
                            "input": self.tool_input(block, msg),
                        }
                    )
                elif isinstance(block, ToolResultBlock):
                    if content and not has_result:
                        messages.append({"role": msg.role, "content": content})
                        content = []
                    content.append(self.result(block, msg))
                    has_result = True
                else:
                    _skip(self.ctx, msg, block)
            if content:
                messages.append({"role": "user" if has_result else msg.role, "content": content})
        return messages

    def merge(self, msgs: list[Message], first: bool) -> list[dict]:
        """``AnthropicMultiAgentFormatter._format_agent_message``."""
        blocks: list[dict] = []
        lines: list[str] = []
        for msg in msgs:
            name = msg.name or "Agent"
            texts: list[str] = []
            for block in msg.content:
                if isinstance(block, TextBlock):
                    texts.append(as_text(block.text))
                elif isinstance(block, DataBlock):
                    part = self.data(block, msg)
                    if part is not None:
                        if lines:
                            blocks.append({"type": "text", "text": "\n".join(lines)})
                            lines = []
                        blocks.append(part)
                elif isinstance(block, HintBlock | ThinkingBlock):
                    self.ctx.note(msg, f"a {block.type} block is not sent in the merged history")
                else:
                    _skip(self.ctx, msg, block)
            if texts:
                lines.append(f"{name}: {' '.join(texts)}")
        if lines:
            blocks.append({"type": "text", "text": "\n".join(lines)})
        if blocks and first:
            if blocks[0].get("text"):
                blocks[0]["text"] = HISTORY_PROMPT + "<history>\n" + blocks[0]["text"]
            else:
                blocks.insert(0, {"type": "text", "text": HISTORY_PROMPT + "<history>\n"})
            if blocks[-1].get("text"):
                blocks[-1]["text"] += "\n</history>"
            else:
                blocks.append({"type": "text", "text": "</history>"})
        return [{"role": "user", "content": blocks}] if blocks else []


def _opaque(block: ThinkingBlock, key: str, ctx: Context, msg: Message) -> str | None:
    """A signature or redacted thought, which Anthropic takes as a string."""
    value = block.extra.get(key)
    if value is None or isinstance(value, str):
        return value
    ctx.note(
        msg, f"a thinking block's {key} is {kind_of(value)}, not a string: its JSON text is sent"
    )
    return compact_json(value)


def anthropic(msgs: list[Message], multi_agent: bool, ctx: Context) -> dict:
    """``AnthropicChatFormatter`` / ``AnthropicMultiAgentFormatter``, then the model's move
    of a leading system turn into ``system``: ``{"system": [...], "messages": [...]}``."""
    fmt = _Anthropic(ctx)
    if multi_agent:

        def system(msg: Message) -> dict:
            texts = [as_text(b.text) for b in msg.content if isinstance(b, TextBlock)]
            return {"role": "system", "content": [{"type": "text", "text": "\n".join(texts)}]}

        messages = _multi(msgs, fmt.format, system, fmt.merge)
    else:
        messages = fmt.format(msgs)
    out: dict[str, Any] = {}
    if messages and messages[0]["role"] == "system":
        out["system"] = messages[0]["content"]
        messages = messages[1:]
    for m in messages:
        if m["role"] not in ("user", "assistant"):
            ctx.note(
                None, f"a {m['role']} turn after the first message cannot be sent to Anthropic"
            )
            break
    out["messages"] = messages
    return out


OPENAI = Formatter("AgentScope Python", "OpenAI", prepare, openai)
DASHSCOPE = Formatter("AgentScope Python", "DashScope", prepare, dashscope)
ANTHROPIC = Formatter("AgentScope Python", "Anthropic", prepare, anthropic)
