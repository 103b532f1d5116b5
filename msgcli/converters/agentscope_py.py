"""Writing a turn as AgentScope Python 2.x records: one message, the tool results inside
the message that made the calls (the reply's blocks in order, ids made where the source
has none, times as the writer's local time)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

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
    Turn,
    Usage,
    pointer,
)
from .base import (
    TOOL_CALL_STATES,
    Out,
    Writer,
    answered,
    message_metadata,
    no_kind,
    recast,
    result_state,
    role_or_assistant,
)
from .text import (
    arguments_text,
    as_text,
    as_uuid,
    id_key,
    json_text,
    kind_of,
    made_id,
    media_type_of,
    naive,
    parts_text,
)

__all__ = ["WRITER"]

TITLE = "AgentScope Python"
#: the block kinds each role may hold, where the dialect restricts them
_ROLE_BLOCKS = {"user": ("text", "data"), "system": ("text",)}


class AgentScopePyWriter(Writer):
    # AgentScope Python 1.x writes tool results as system messages
    result_roles = frozenset({"system"})
    stamps = True

    def turn_fields(self, msg: Message) -> dict[str, Any]:
        return {k: v for k, v in msg.fields.items() if k != "usage"}

    def __call__(self, turn: Turn, out: Out) -> list[dict]:
        return [out.dialect.write(_message(turn, out))]


WRITER = AgentScopePyWriter()


def _time(when: datetime | None, out: Out) -> str | None:
    return naive(when, out.local, utc=False).isoformat() if when is not None else None


def _id(value: Any, *seed: Any) -> str:
    u = as_uuid(value)
    if u is not None:
        return u
    if isinstance(value, str) and value:
        return value
    return made_id(*seed)


def _message(turn: Turn, out: Out) -> Message:
    head = turn.head
    role = turn.role
    if role == "tool":
        role = "assistant"  # Python has no tool role: results sit in assistant messages
    elif not (isinstance(role, str) and role in ("user", "assistant", "system")):
        role = role_or_assistant(turn, ("user", "assistant", "system"), out, TITLE)
    stamp = _time(turn.when, out)
    msg_id = out.unique(_id(head.id, turn.source, turn.place(), "message"), turn.line)
    allowed = _ROLE_BLOCKS.get(role)
    result_ids = answered(turn)
    content: list[Block] = []
    for index, (at, block) in enumerate(turn.parts()):
        line = turn.lines[at]
        kind = kind_of(block)
        if allowed is not None and kind not in allowed:
            block = recast(
                block,
                line,
                out,
                f"a {kind} block may not stand in a {role} message in AgentScope "
                "Python: written as text",
            )
            kind = "text"
        content.append(_block(block, line, index, msg_id, stamp, result_ids, out))
    name = head.name if isinstance(head.name, str) else role
    own = turn.source == out.dialect.name
    fields = dict(turn.fields) if own else {}
    fields.setdefault("finished_at", stamp if not own and role == "assistant" else None)
    metadata = message_metadata(head.metadata, turn, head.usage, out)
    return Message(
        dialect=out.dialect.name,
        role=role,
        name=name,
        id=msg_id,
        content=content,
        metadata=metadata,
        timestamp=stamp,
        usage=_usage(head.usage),
        variant="2.x",
        fields=fields,
    )


def _usage(usage: Usage | None) -> Usage | None:
    if usage is None:
        return None
    return Usage(
        input_tokens=usage.input_tokens if usage.input_tokens is not None else 0,
        output_tokens=usage.output_tokens if usage.output_tokens is not None else 0,
        cached_tokens=usage.cached_tokens if usage.cached_tokens is not None else 0,
        cache_creation_tokens=(
            usage.cache_creation_tokens if usage.cache_creation_tokens is not None else 0
        ),
        total_tokens=usage.total_tokens,
        time=usage.time,
    )


def _stamps(block: Block, stamp: str | None, done: bool) -> dict[str, Any]:
    times = {k: v for k, v in block.fields.items() if k in ("created_at", "finished_at")}
    if times.get("created_at") is not None:
        return {"created_at": times["created_at"], "finished_at": times.get("finished_at")}
    return {"created_at": stamp, "finished_at": stamp if done else None}


def _block(
    block: Block,
    line: int,
    index: int,
    msg_id: str,
    stamp: str | None,
    result_ids: set,
    out: Out,
) -> Block:
    def bid(value: Any, *more: Any) -> str:
        return _id(value, msg_id, index, *more)

    if isinstance(block, TextBlock):
        return TextBlock(
            type="text",
            id=bid(block.id),
            fields=_stamps(block, stamp, False),
            text=block.text if isinstance(block.text, str) else as_text(block),
        )
    if isinstance(block, ThinkingBlock):
        return ThinkingBlock(
            type="thinking",
            id=bid(block.id),
            fields=_stamps(block, stamp, False),
            thinking=block.thinking,
        )
    if isinstance(block, HintBlock):
        source = block.source
        if source is not None and not isinstance(source, str):
            source = json_text(source)
        return HintBlock(
            type="hint",
            id=bid(block.id),
            fields=_stamps(block, stamp, True),
            hint=block.hint if isinstance(block.hint, (str, list)) else parts_text(block.hint),
            source=source,
        )
    if isinstance(block, ToolCallBlock):
        state = block.state
        if state not in TOOL_CALL_STATES:
            state = "finished" if id_key(block.id) in result_ids else "pending"
        fields = _stamps(block, stamp, id_key(block.id) in result_ids)
        rules = block.fields.get("suggested_rules")
        fields["suggested_rules"] = _rules(rules, line, out) if isinstance(rules, list) else []
        return ToolCallBlock(
            type="tool_call",
            id=block.id if isinstance(block.id, str) else bid(block.id, "call"),
            fields=fields,
            name=block.name,
            input=arguments_text(block),
            state=state,
        )
    if isinstance(block, ToolResultBlock):
        output = block.output
        if isinstance(output, list):
            output = [
                _nested(b, block, line, i, msg_id, index, stamp, out) for i, b in enumerate(output)
            ]
        elif output is not None and not isinstance(output, str):
            output = parts_text(output)
        fields = _stamps(block, stamp, True)
        metadata = block.fields.get("metadata")
        fields["metadata"] = dict(metadata) if isinstance(metadata, dict) else {}
        return ToolResultBlock(
            type="tool_result",
            id=block.id,
            fields=fields,
            name=block.name,
            output=output,
            state=result_state(block.state),
        )
    if isinstance(block, DataBlock):
        return _data(block, bid(block.id), stamp)
    return TextBlock(
        type="text",
        id=bid(None),
        fields=_stamps(block, stamp, False),
        text=recast(block, line, out, no_kind(block, TITLE)).text,
    )


def _rules(rules: list, line: int, out: Out) -> list:
    """A tool call's suggested permission rules, each with the four keys AgentScope writes:
    a rule without ``rule_content`` (an AG-UI event leaves out what is null) gets null, the
    framework's value for a rule that covers the whole tool."""
    if all(not isinstance(r, dict) or "rule_content" in r for r in rules):
        return rules
    out.fill(
        line,
        "tool call(s) with a suggested permission rule that has no rule_content: written as "
        "null (the rule covers the whole tool)",
    )
    filled = []
    for rule in rules:
        if isinstance(rule, dict) and "rule_content" not in rule:
            items = list(rule.items())
            at = 1 if items and items[0][0] == "tool_name" else len(items)
            rule = dict([*items[:at], ("rule_content", None), *items[at:]])
        filled.append(rule)
    return filled


def _nested(
    item: Any,
    result: ToolResultBlock,
    line: int,
    i: int,
    msg_id: str,
    index: int,
    stamp: str | None,
    out: Out,
) -> Block:
    bid = _id(getattr(item, "id", None), msg_id, index, "output", i)
    if isinstance(item, DataBlock):
        return _data(item, bid, stamp)
    if isinstance(item, TextBlock) and isinstance(item.text, str):
        return TextBlock(type="text", id=bid, fields=_stamps(item, stamp, False), text=item.text)
    text = as_text(item) if isinstance(item, Block) else json_text(item)
    if not isinstance(item, TextBlock):
        out.note(
            line,
            f"{pointer(result.path)}/output/{i}",
            "a tool output item of a kind AgentScope Python has no place for: written as text",
        )
    return TextBlock(
        type="text", id=bid, fields={"created_at": stamp, "finished_at": None}, text=text
    )


def _data(block: DataBlock, bid: str, stamp: str | None) -> DataBlock:
    source = block.source
    fields = _stamps(block, stamp, False)
    if source is None:
        return DataBlock(
            type="data",
            id=bid,
            fields=fields,
            kind="data",
            name=block.name,
            source=Source(kind="url", url="", media_type=media_type_of(block)),
        )
    return DataBlock(
        type="data",
        id=bid,
        fields=fields,
        kind="data",
        name=block.name if isinstance(block.name, str) else None,
        source=Source(
            kind=source.kind,
            url=source.url if source.kind == "url" else None,
            data=source.data if source.kind == "base64" else None,
            media_type=media_type_of(block),
        ),
    )
