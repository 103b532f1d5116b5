"""Writing a turn as AgentScope Java records: a message per tool result (``TOOL``), roles
in upper case, times as the writer's local ``yyyy-MM-dd HH:mm:ss.SSS``, usage in the
message's ``usage``."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from ..model import (
    Block,
    DataBlock,
    HintBlock,
    Source,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
    ToolResultBlock,
    Usage,
    pointer,
)
from .base import (
    TOOL_CALL_STATES,
    Out,
    block_metadata,
    no_kind,
    output_items,
    recast,
    result_state,
)
from .split import SplitWriter
from .text import (
    arguments_object,
    arguments_text,
    as_text,
    as_uuid,
    dashed,
    id_key,
    json_text,
    kind_of,
    made_id,
    media_type_of,
    naive,
    parts_text,
)

__all__ = ["WRITER"]

TITLE = "AgentScope Java"
#: the block kinds each role may hold, where the dialect restricts them
_ROLE_BLOCKS = {"user": ("text", "data"), "system": ("text",)}


class AgentScopeJavaWriter(SplitWriter):
    title = TITLE
    stamps = True
    roles = ("user", "assistant", "system", "tool")
    variant = "2.x"

    def time_text(self, when: datetime | None, out: Out) -> str | None:
        if when is None:
            return None
        local = naive(when, out.local, utc=False)
        return local.strftime("%Y-%m-%d %H:%M:%S.") + f"{local.microsecond // 1000:03d}"

    def uuid_text(self, value: Any, *seed: Any) -> str:
        u = as_uuid(value)
        if u is not None:
            return dashed(u)
        if isinstance(value, str) and value:
            return value
        return dashed(made_id(*seed))

    def role_text(self, role: Any) -> Any:
        return role.upper() if isinstance(role, str) else role

    def usage(self, usage: Usage | None, line: int, out: Out) -> Usage | None:
        if usage is None:
            return None

        def count(value: Any) -> Any:
            return value if isinstance(value, (int, float)) and not isinstance(value, bool) else 0

        inp, outp = count(usage.input_tokens), count(usage.output_tokens)
        total = usage.total_tokens if usage.total_tokens is not None else inp + outp
        if total != inp + outp and usage.extra:
            # the source counts tokens beside input and output in its total (Gemini's
            # thoughts and tool prompts, in ``extra``), which AgentScope Java has no field
            # for and recomputes as input + output on reading: written as Java reads it
            out.note(
                line,
                "/usage/totalTokens",
                f"the total of {total} tokens counts {', '.join(sorted(usage.extra))} tokens "
                "beside input and output, which AgentScope Java has no field for (it recomputes "
                f"the total as input + output): written as {inp + outp}",
            )
            total = inp + outp
        time = usage.time if isinstance(usage.time, (int, float)) else 0.0
        return Usage(
            input_tokens=inp,
            output_tokens=outp,
            cached_tokens=count(usage.cached_tokens),
            total_tokens=total,
            time=time,
        )

    def block(self, block: Block, line: int, role: Any, result_ids: set, out: Out) -> Block:
        original = block
        allowed = _ROLE_BLOCKS.get(role)
        kind = kind_of(block)
        if allowed is not None and kind not in allowed:
            block = recast(
                block,
                line,
                out,
                f"a {kind} block may not stand in a {role} message in AgentScope Java: "
                "written as text",
            )
        if isinstance(block, TextBlock):
            return TextBlock(
                type="text", text=block.text if isinstance(block.text, str) else as_text(block)
            )
        if isinstance(block, ThinkingBlock):
            return ThinkingBlock(
                type="thinking", thinking=block.thinking, fields={"metadata": block_metadata(block)}
            )
        if isinstance(block, HintBlock):
            source = block.source
            if source is not None and not isinstance(source, str):
                source = json_text(source)
            return HintBlock(
                type="hint",
                id=block.id if isinstance(block.id, str) else None,
                hint=parts_text(block.hint) if block.hint is not None else None,
                source=source,
            )
        if isinstance(block, ToolCallBlock):
            arguments, _ = arguments_object(block)
            state = (
                block.state
                if block.state in TOOL_CALL_STATES
                else ("finished" if id_key(block.id) in result_ids else "pending")
            )
            return ToolCallBlock(
                type="tool_call",
                id=block.id,
                name=block.name,
                input=arguments_text(block),
                arguments=arguments,
                state=state,
                fields={"metadata": block_metadata(block) or {}},
            )
        if isinstance(block, ToolResultBlock):
            at = pointer(original.path)
            nested = [_nested(b, line, at, i, out) for i, b in enumerate(output_items(block))]
            return ToolResultBlock(
                type="tool_result",
                id=block.id,
                name=block.name,
                output=nested,
                state=result_state(block.state),
                fields={"metadata": block_metadata(block) or {}},
            )
        if isinstance(block, DataBlock):
            return _data(block, line, pointer(original.path))
        return TextBlock(type="text", text=recast(block, line, out, no_kind(block, TITLE)).text)


WRITER = AgentScopeJavaWriter()


def _nested(item: Any, line: int, at: str, i: int, out: Out) -> Block:
    if isinstance(item, DataBlock):
        return _data(item, line, at, i)
    if isinstance(item, TextBlock) and isinstance(item.text, str):
        return TextBlock(type="text", text=item.text)
    if isinstance(item, ThinkingBlock):
        return ThinkingBlock(type="thinking", thinking=item.thinking, fields={"metadata": None})
    out.note(
        line,
        f"{at}/output/{i}",
        "a tool output item of a kind AgentScope Java has no place for: written as text",
    )
    return TextBlock(
        type="text", text=as_text(item) if isinstance(item, Block) else json_text(item)
    )


def _data(block: DataBlock, *seed: Any) -> DataBlock:
    kind = block.kind if block.kind in ("image", "audio", "video", "data") else "data"
    source = block.source
    new_source = None
    if source is not None:
        if source.kind == "url":
            new_source = Source(kind="url", url=source.url, media_type=source.media_type)
        else:
            new_source = Source(kind="base64", data=source.data, media_type=media_type_of(block))
    block_id = None
    if kind == "data":  # Java writes a data block's id always
        block_id = block.id if isinstance(block.id, str) else dashed(made_id(*seed))
    return DataBlock(
        type="data",
        kind=kind,
        source=new_source,
        id=block_id,
        name=block.name if kind == "data" and isinstance(block.name, str) else None,
    )
