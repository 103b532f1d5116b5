"""Values as a conversion writes them where the target has no place for them as they are:
a block as text, tool arguments as text or an object, a media type, made ids, times.

Pure functions of the neutral model (:mod:`msgcli.model`), shared by every writer.
"""

from __future__ import annotations

import hashlib
import mimetypes
import re
from datetime import UTC, datetime, tzinfo
from typing import Any

import orjson

from ..model import (
    Block,
    DataBlock,
    EvolveResultBlock,
    HintBlock,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
    ToolResultBlock,
    UnknownBlock,
    ValueBlock,
)
from ..records import loads_exact
from ..writer import dumps

__all__ = [
    "arguments_object",
    "arguments_text",
    "as_text",
    "as_uuid",
    "aware",
    "dashed",
    "id_key",
    "json_text",
    "kind_of",
    "made_id",
    "media_type_of",
    "naive",
    "parts_text",
]

_UUID_TEXT = re.compile(
    r"[0-9a-fA-F]{32}|[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"
)

# -- times and ids ----------------------------------------------------------------


def aware(naive: datetime | None, local: tzinfo | None, utc: bool) -> datetime | None:
    """A dialect's naive time as an aware one: UTC for a dialect that writes UTC, else the
    writer's local zone (``local``; ``None``: this machine's)."""
    if naive is None:
        return None
    if utc:
        return naive.replace(tzinfo=UTC)
    if local is None:
        try:
            return naive.astimezone()
        except (OverflowError, OSError, ValueError):
            return naive.replace(tzinfo=UTC)
    return naive.replace(tzinfo=local)


def naive(when: datetime, local: tzinfo | None, utc: bool) -> datetime:
    try:
        if utc:
            return when.astimezone(UTC).replace(tzinfo=None)
        return when.astimezone(local).replace(tzinfo=None)
    except (OverflowError, OSError, ValueError):
        return when.replace(tzinfo=None)


def as_uuid(value: Any) -> str | None:
    """A UUID id (32 hex digits or the dashed form, any case) as 32 lower-case hex digits."""
    if isinstance(value, str) and _UUID_TEXT.fullmatch(value):
        return value.replace("-", "").lower()
    return None


def dashed(hex32: str) -> str:
    """32 hex digits in the dashed UUID form."""
    h = hex32
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"


def made_id(*seed: Any) -> str:
    """An id made from what it stands for (32 hex digits, a version-8 UUID), so converting
    the same log twice gives the same ids."""
    digest = bytearray(
        hashlib.blake2b("\x1f".join(str(s) for s in seed).encode(), digest_size=16).digest()
    )
    digest[6] = (digest[6] & 0x0F) | 0x80  # version 8: made by the application
    digest[8] = (digest[8] & 0x3F) | 0x80  # the RFC 4122 variant
    return digest.hex()


def id_key(value: Any) -> Any:
    """An id as a set member (a malformed record may hold any JSON value there)."""
    return value if isinstance(value, (str, int, float, bool, type(None))) else json_text(value)


# -- text for what has no place ----------------------------------------------------


def as_text(block: Block) -> str:
    """A block the target has no kind for, as the text of a text block."""
    if isinstance(block, TextBlock):
        return block.text if isinstance(block.text, str) else json_text(block.text)
    if isinstance(block, ThinkingBlock):
        return block.thinking if isinstance(block.thinking, str) else json_text(block.thinking)
    if isinstance(block, HintBlock):
        return parts_text(block.hint)
    if isinstance(block, ValueBlock):
        return block.value if isinstance(block.value, str) else json_text(block.value)
    if isinstance(block, EvolveResultBlock):
        return json_text(block.fields)
    if isinstance(block, ToolCallBlock):
        return f"{block.name}({arguments_text(block)})"
    if isinstance(block, ToolResultBlock):
        return parts_text(block.output)
    if isinstance(block, DataBlock):
        source = block.source
        where = (source.url if source.kind == "url" else "inline data") if source else "no source"
        return f"[{block.kind}: {where}]"
    if isinstance(block, UnknownBlock):
        return json_text(block.raw)
    return ""


def json_text(value: Any) -> str:
    """A value as compact JSON text."""
    return dumps(value).decode()


def parts_text(value: Any) -> str:
    """A hint or a tool output (a text, or a list of blocks) as one text."""
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return "\n".join(as_text(b) if isinstance(b, Block) else _item_text(b) for b in value)
    return "" if value is None else json_text(value)


def _item_text(item: Any) -> str:
    if isinstance(item, dict) and isinstance(item.get("text"), str):
        return item["text"]
    return json_text(item)


def arguments_text(block: ToolCallBlock) -> str:
    """The argument text of a call: as the model wrote it where the record keeps it."""
    if isinstance(block.input, str):
        return block.input
    if block.arguments is not None:
        return json_text(block.arguments)
    return "{}"


def arguments_object(block: ToolCallBlock) -> tuple[dict, bool]:
    """The arguments as an object, and whether the record's arguments were one."""
    if isinstance(block.arguments, dict):
        return block.arguments, True
    if isinstance(block.input, str):
        try:
            parsed = loads_exact(block.input)
        except orjson.JSONDecodeError:
            return {}, False
        if isinstance(parsed, dict):
            return parsed, True
    return {}, False


def media_type_of(block: DataBlock) -> str:
    """A data block's media type; guessed from the URL, then the block's kind, when the
    record does not say."""
    source = block.source
    if source is not None and isinstance(source.media_type, str) and source.media_type:
        return source.media_type
    if source is not None and isinstance(source.url, str):
        guessed, _ = mimetypes.guess_type(source.url, strict=False)
        if guessed:
            return guessed
    kind = block.kind if block.kind in ("image", "audio", "video") else "application"
    return f"{kind}/octet-stream" if kind == "application" else f"{kind}/unknown"


_KINDS: dict[type, str] = {
    TextBlock: "text",
    DataBlock: "data",
    ThinkingBlock: "thinking",
    HintBlock: "hint",
    ToolCallBlock: "tool_call",
    ToolResultBlock: "tool_result",
    EvolveResultBlock: "evolve_result",
    ValueBlock: "value",
}


def kind_of(block: Block) -> str:
    """A block's neutral kind (``unknown`` for a block of no kind msgcli knows)."""
    return _KINDS.get(type(block), "unknown")
