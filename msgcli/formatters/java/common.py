"""What the AgentScope Java formatters share (``AbstractBaseFormatter``, ``MediaUtils``):
the roles Java holds, a message's text, tool output as text, media types and the notes
about what a request cannot carry."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import replace
from typing import Any
from urllib.parse import urlsplit

import orjson

from ...model import (
    Block,
    DataBlock,
    HintBlock,
    Message,
    Source,
    TextBlock,
    ToolCallBlock,
    ToolResultBlock,
)
from .._common import (
    Context,
    as_text,
    compact_json,
    media_type_of,
    shown,
    unsendable,
)

BYPASS_KEY = "_bypass_multiagent_history_merge"
THOUGHT_SIGNATURE_KEY = "thoughtSignature"
IMAGE_EXTENSIONS = ["png", "jpg", "jpeg", "gif", "webp", "heic", "heif"]
VIDEO_EXTENSIONS = ["mp4", "mpeg", "mpg", "mov", "avi", "webm", "wmv", "flv", "3gp", "3gpp"]
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
NAME_ILLEGAL = re.compile(r"[^a-zA-Z0-9_-]")
_ROLES = ("system", "user", "assistant", "tool")


class Failed(Exception):
    """A conversion the Java formatter would fail (and replace by a text)."""


def prepare(msgs: list[Message], dialect: str, ctx: Context) -> list[Message]:
    """The messages as AgentScope Java would hold them: a role the Java ``MsgRole`` does
    not have is sent as ``user`` (noted)."""
    out: list[Message] = []
    for msg in msgs:
        if role_of(msg) in _ROLES:
            out.append(msg)
            continue
        role = shown(role_of(msg))
        ctx.note(msg, f"role {role} is not an AgentScope Java role: sent as a user message")
        out.append(replace(msg, role="user"))
    return out


def role_of(msg: Message) -> str:
    return msg.role if isinstance(msg.role, str) else ""


def has_block(msg: Message, kind: type) -> bool:
    return any(isinstance(b, kind) for b in msg.content)


def first_block(msg: Message, kind: type) -> Any:
    return next((b for b in msg.content if isinstance(b, kind)), None)


def has_media(blocks: Any) -> bool:
    return isinstance(blocks, list) and any(isinstance(b, DataBlock) for b in blocks)


def output_blocks(output: Any) -> list[Block]:
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


def mime_of(source: Source | None) -> str:
    """``MediaUtils.resolveMimeType``: the media type, or one inferred from the URL."""
    if source is None:
        raise Failed("source is null")
    if source.kind == "base64":
        mt = media_type_of(source)
        if mt is None:
            raise Failed("base64 source has no media type")
        return mt
    mt = media_type_of(source)
    if mt is not None:
        return mt
    url = as_text(source.url)
    inferred = _EXTENSION_TYPES.get(_extension(url).lower())
    if inferred is None:
        raise Failed(
            f"Cannot determine MIME type for URL '{url}'; set URLSource.mimeType explicitly"
        )
    return inferred


def check_extension(url: str, allowed: list[str], what: str) -> None:
    ext = _extension(url).lower()
    if ext not in allowed:
        if what == "image":
            raise Failed(f'"{url}" should end with one of [{", ".join(allowed)}]')
        raise Failed(
            f"Unsupported {what} file extension: {ext}, [{', '.join(allowed)}] are supported"
        )


def note_local(ctx: Context, msg: Message, url: str) -> None:
    if _is_local(url):
        ctx.note(
            msg,
            f"{url!r} is a local path: the framework reads the file (or sends it as a "
            "file:// URL) on the machine that sends the request; msgcli keeps the path",
        )


def media_kind(block: DataBlock) -> str:
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
                as_text(b.text) for b in output_blocks(block.output) if isinstance(b, TextBlock)
            )
    return "\n".join(parts)


def tool_result_text(output: Any, ctx: Context, msg: Message) -> str:
    """``AbstractBaseFormatter.convertToolResultToString``."""
    items: list[str] = []
    for block in output_blocks(output):
        if isinstance(block, TextBlock):
            items.append(as_text(block.text))
        elif isinstance(block, DataBlock):
            kind = media_kind(block)
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


def checked_arguments(block: ToolCallBlock, ctx: Context, msg: Message) -> str:
    text = _arguments(block)
    if text is not block.input:  # from the arguments object
        why = unsendable(block.arguments)
        if why and why.startswith("is nested"):
            ctx.note(msg, f"a tool call's input {why}: its JSON text is cut there")
    return text


def bypasses_merge(msg: Message) -> bool:
    return isinstance(msg.metadata, dict) and msg.metadata.get(BYPASS_KEY) is True


def note_dropped(ctx: Context, msg: Message, block: Block, where: str) -> None:
    ctx.note(msg, f"a {block.type} block is not sent in {where} (the framework skips it)")


def text_part(text: str) -> dict:
    return {"type": "text", "text": text}


def runs(
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
