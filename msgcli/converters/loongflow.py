"""Writing a turn as LoongFlow records: a message per tool result (``"tool"``), times in
UTC, call ids as UUIDs, the trace ids of the source where it has them, usage in the
message's metadata."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from ..model import (
    Block,
    DataBlock,
    EvolveResultBlock,
    Message,
    Source,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
    ToolResultBlock,
    Turn,
    Usage,
    ValueBlock,
    pointer,
)
from .base import Out, block_metadata, no_kind, output_items, recast
from .split import SplitWriter
from .text import (
    arguments_object,
    as_text,
    as_uuid,
    dashed,
    id_key,
    json_text,
    made_id,
    media_type_of,
    naive,
)

__all__ = ["WRITER"]

TITLE = "LoongFlow"
_STATUS = ("success", "error", "in_progress")


class LoongFlowWriter(SplitWriter):
    title = TITLE
    stamps = True
    utc = True
    usage_in_metadata = True

    def turn_fields(self, msg: Message) -> dict[str, Any]:
        return dict(msg.fields)

    def time_text(self, when: datetime | None, out: Out) -> str | None:
        if when is None:
            return None
        return naive(when, out.local, utc=True).isoformat()

    def uuid_text(self, value: Any, *seed: Any) -> str:
        u = as_uuid(value)
        if u is not None:
            return dashed(u)
        return dashed(made_id(value, *seed) if isinstance(value, str) and value else made_id(*seed))

    def dress(
        self, turn: Turn, usage: Usage | None, metadata: dict, name: Any
    ) -> tuple[dict[str, Any], Any]:
        fields = {k: turn.fields.get(k, "") for k in ("trace_id", "conversation_id")}
        if usage is not None and "usage" not in metadata:
            metadata["usage"] = _usage(usage)
        return fields, name if isinstance(name, str) else ""

    def block(self, block: Block, line: int, role: Any, result_ids: set, out: Out) -> Block:
        meta = {"metadata": block_metadata(block) or {}}
        if isinstance(block, TextBlock) and isinstance(block.text, str):
            return TextBlock(
                type="text", text=block.text, fields={"mime_type": "text/plain", **meta}
            )
        if isinstance(block, ThinkingBlock):
            return ThinkingBlock(type="thinking", thinking=block.thinking, fields=meta)
        if isinstance(block, ToolCallBlock):
            arguments, whole = arguments_object(block)
            if not whole:
                out.note(
                    line,
                    pointer(block.path),
                    "the tool call's arguments are not a JSON object, "
                    "which LoongFlow needs: written as {}",
                )
            if (
                block.state in ("pending", "asking", "allowed", "submitted")
                and id_key(block.id) not in result_ids
            ):
                out.note(
                    line,
                    pointer(block.path),
                    f"tool call state {block.state!r} has no LoongFlow "
                    "counterpart (LoongFlow calls have no state): a call still waiting for "
                    "its result reads as unanswered there (T002)",
                )
            return ToolCallBlock(
                type="tool_call",
                id=_call_id(block.id),
                name=block.name,
                arguments=arguments,
                fields=meta,
            )
        if isinstance(block, ToolResultBlock):
            at = pointer(block.path)
            result = [_item(b, line, at, i, out) for i, b in enumerate(output_items(block))]
            state = block.state
            if state == "running":
                status = "in_progress"
            elif state in _STATUS:
                status = state
            else:
                status = "error" if state in ("interrupted", "denied") else "success"
                if state is not None:
                    out.note(
                        line,
                        at,
                        f"tool result state {state!r} has no "
                        f"LoongFlow counterpart: written as {status!r}",
                    )
            return ToolResultBlock(
                type="tool_result",
                id=_call_id(block.id),
                name=block.name,
                output=result,
                state=status,
                fields=meta,
            )
        if isinstance(block, DataBlock):
            return _data(block, meta)
        if isinstance(block, EvolveResultBlock):
            return EvolveResultBlock(
                type="evolve_result", fields=dict(block.fields), variant=block.variant
            )
        if isinstance(block, ValueBlock):
            return ValueBlock(
                type="value", value=block.value, mime_type=block.mime_type, fields=meta
            )
        return TextBlock(
            type="text",
            text=recast(block, line, out, no_kind(block, TITLE)).text,
            fields={"mime_type": "text/plain", "metadata": {}},
        )


WRITER = LoongFlowWriter()


def _usage(usage: Usage) -> dict[str, Any]:
    inp, outp = usage.input_tokens or 0, usage.output_tokens or 0
    if usage.total_tokens is not None:
        total = usage.total_tokens
    elif all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in (inp, outp)):
        total = inp + outp
    else:
        total = None  # a count that is no number (a malformed record) gives no sum
    return {"completion_tokens": outp, "prompt_tokens": inp, "total_tokens": total}


def _item(item: Any, line: int, at: str, i: int, out: Out) -> Block:
    if isinstance(item, DataBlock):
        return _data(item, {"type": "content", "metadata": {}})
    if isinstance(item, TextBlock) and isinstance(item.text, str):
        return TextBlock(
            type="text",
            text=item.text,
            fields={"type": "content", "mime_type": "text/plain", "metadata": {}},
        )
    if isinstance(item, ValueBlock):
        return ValueBlock(
            type="value",
            value=item.value,
            mime_type=item.mime_type,
            fields={"type": "content", "metadata": {}},
        )
    out.note(
        line,
        f"{at}/output/{i}",
        "a tool output item of a kind LoongFlow has no place for: written as text",
    )
    return TextBlock(
        type="text",
        text=as_text(item) if isinstance(item, Block) else json_text(item),
        fields={"type": "content", "mime_type": "text/plain", "metadata": {}},
    )


def _call_id(value: Any) -> str:
    """LoongFlow pairs calls and results by a UUID ``call_id``: a provider's call id
    (``call_…``) becomes a UUID made from it, the same for the call and its result."""
    u = as_uuid(value)
    if u is not None:
        return dashed(u)
    return dashed(made_id("call", value))


def _data(block: DataBlock, meta: dict) -> DataBlock:
    source = block.source
    media_type = media_type_of(block)
    if source is None:
        new = Source(kind="url", url="", media_type=media_type)
    elif source.kind == "url":
        new = Source(kind="url", url=source.url, media_type=media_type)
    else:
        new = Source(kind="base64", data=source.data, media_type=media_type, data_uri=True)
    return DataBlock(
        type="data", kind="content", source=new, fields={"mime_type": media_type, **meta}
    )
