"""What every provider rule set needs: notes located by log line, and small value helpers.

The rule sets work on the dialect-neutral model, which does not validate: a text may
be missing or not a string, a source may be absent. :func:`normalize` first gives every
field the frameworks hold as a string (or an object) a value of that type, with a note
where it had to change one; the helpers here turn what is left (a missing text, no
source) into what the framework would have had at hand, so the rules can stay close to
the framework's own logic.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

import orjson

from ..dialects import Dialect, get_dialect
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

__all__ = [
    "HISTORY_PROMPT",
    "Context",
    "Formatter",
    "Note",
    "as_text",
    "compact_json",
    "json_text",
    "kind_of",
    "normalize",
    "normalize_block",
    "shown",
    "source_of",
    "unsendable",
]

#: what the multi-agent formatters of both frameworks put before the merged history
HISTORY_PROMPT = (
    "# Conversation History\n"
    "The content between <history></history> tags contains your conversation history\n"
)

# Deeper than this, a value from the log is cut (JSON encoders stop at about 255 levels;
# the request wraps a value in a few levels of its own).
MAX_DEPTH = 200


@dataclass(slots=True)
class Note:
    """Something the request could not carry as the log has it, at a log line."""

    line: int | None
    message: str


@dataclass(slots=True)
class Context:
    """Where the notes go, and the log line of each message (by identity)."""

    lines: dict[int, int] = field(default_factory=dict)
    notes: list[Note] = field(default_factory=list)
    _seen: set[tuple[int | None, str]] = field(default_factory=set, init=False, repr=False)

    def note(self, msg: Message | None, message: str) -> None:
        line = self.lines.get(id(msg)) if msg is not None else None
        if (line, message) in self._seen:  # one note per line and text, however often
            return
        self._seen.add((line, message))
        self.notes.append(Note(line, message))


@dataclass(frozen=True, slots=True)
class Formatter:
    """One framework's formatter for one provider, as a dialect names it in its
    ``formatters``: ``prepare(messages, dialect, ctx)`` gives the messages as the framework
    holds them, ``build(messages, multi_agent, ctx)`` the request body."""

    framework: str  # "AgentScope Java"
    provider: str  # the provider's part of the class name: "OpenAI"
    prepare: Callable[[list[Message], str, Context], list[Message]]
    build: Callable[[list[Message], bool, Context], dict]

    def name(self, multi_agent: bool) -> str:
        """The framework class whose rules apply, e.g. ``AgentScope Java OpenAIChatFormatter``."""
        kind = "MultiAgentFormatter" if multi_agent else "ChatFormatter"
        return f"{self.framework} {self.provider}{kind}"


# -- values -----------------------------------------------------------------------------


def kind_of(value: Any) -> str:
    """The JSON type of a value, with its article: ``a list``, ``an object``..."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list | tuple):
        return "a list"
    if isinstance(value, dict):
        return "an object"
    return f"a {type(value).__name__}"


def shown(text: str, width: int = 40) -> str:
    """A log string for a note: quoted, and cut when long."""
    return repr(text if len(text) <= width else text[:width] + "…")


def as_text(value: Any) -> str:
    """A text field as a string: ``None`` is empty, anything else not a string is JSON."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    return compact_json(value)


def compact_json(value: Any) -> str:
    """JSON without spaces, keys in their order (how the frameworks serialise arguments).

    Never fails: a value nested too deeply is cut at :data:`MAX_DEPTH` levels, and
    integers beyond 64 bits are written in full."""
    try:
        return orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS).decode()
    except TypeError:
        return _dumps(value, (",", ":"))


def json_text(value: Any) -> str:
    """``json.dumps(value, ensure_ascii=False)``, as AgentScope Python writes a JSON text;
    never fails (a value nested too deeply is cut at :data:`MAX_DEPTH` levels)."""
    try:
        return json.dumps(value, ensure_ascii=False)
    except (RecursionError, TypeError, ValueError):
        return _dumps(value, None)


def _dumps(value: Any, separators: tuple[str, str] | None) -> str:
    return json.dumps(
        _clip(value, MAX_DEPTH), ensure_ascii=False, separators=separators, default=str
    )


def _clip(value: Any, depth: int) -> Any:
    if isinstance(value, list | tuple):
        return [_clip(v, depth - 1) for v in value] if depth > 0 else "…"
    if isinstance(value, dict):
        return {str(k): _clip(v, depth - 1) for k, v in value.items()} if depth > 0 else "…"
    return value


def unsendable(value: Any) -> str | None:
    """Why a JSON value from the log cannot go into the request as it is (JSON encoders
    do not take it), or ``None``: nested more than :data:`MAX_DEPTH` levels deep. (An
    integer beyond 64 bits goes as it is: the frameworks' encoders write it in full.)"""
    stack = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict | list):
            if depth >= MAX_DEPTH:
                return f"is nested more than {MAX_DEPTH} levels deep"
            items = item.values() if isinstance(item, dict) else item
            stack.extend((v, depth + 1) for v in items)
    return None


def source_of(block: Block) -> Source | None:
    """The source of a data block, if it has a usable one."""
    if isinstance(block, DataBlock) and isinstance(block.source, Source):
        return block.source
    return None


def media_type_of(source: Source) -> str | None:
    mt = source.media_type
    return mt if isinstance(mt, str) and mt else None


# -- the types the frameworks hold -----------------------------------------------------------


def normalize(msgs: list[Message], dialect: str, ctx: Context) -> list[Message]:
    """The messages with every field the formatters read of the type the framework holds.

    The framework would reject such a record; msgcli formats it as well as it can:

    - a role that is not a string is taken as ``user``;
    - a name, an id or a tool name that is not a string, a text, a thought or a hint
      that is not one (or, in AgentScope Python, a list of blocks), a tool call's input
      that is not a JSON text, and a tool result's output that is neither a text nor a
      list of blocks are taken as their JSON text;
    - a source's url, data or media type that is not a string, and a tool call's
      arguments that are not an object, are taken as missing.

    Each change is noted at the message's line. Messages and blocks that need no
    change are returned as they are.
    """
    out: list[Message] = []
    for msg in msgs:
        changes: dict[str, Any] = {}
        role = msg.role
        if not isinstance(role, str):
            ctx.note(msg, f"role is {kind_of(role)}, not a string: sent as a user message")
            changes["role"] = "user"
        if msg.name is not None and not isinstance(msg.name, str):
            key = get_dialect(dialect).sender_key
            ctx.note(msg, f"the {key} is {kind_of(msg.name)}, not a string: used as its JSON text")
            changes["name"] = compact_json(msg.name)
        content = _normalize_blocks(msg.content, dialect, ctx, msg)
        if content is not msg.content:
            changes["content"] = content
        out.append(replace(msg, **changes) if changes else msg)
    return out


def _normalize_blocks(blocks: list[Block], dialect: str, ctx: Context, msg: Message) -> list:
    fixed = [normalize_block(b, dialect, ctx, msg) for b in blocks]
    return blocks if all(a is b for a, b in zip(fixed, blocks, strict=True)) else fixed


_OWNER = {
    TextBlock: "a text block's",
    ThinkingBlock: "a thinking block's",
    HintBlock: "a hint block's",
    ToolCallBlock: "a tool call's",
    ToolResultBlock: "a tool result's",
    DataBlock: "a data block's",
}
_FIELD = {"name": "name", "id": "id", "text": "text", "thinking": "thought", "hint": "hint"}


def _call_keys(dialect: str, msg: Message) -> tuple[str, str]:
    """What a tool call's ``input`` (a JSON text) and ``arguments`` (an object) are
    called in the record, for the notes."""
    keys = get_dialect(dialect).call_keys
    if keys == Dialect.call_keys and msg.variant == "1.x":
        return "raw_input", "input"
    return keys


def _text_field(
    block: Block, key: str, value: Any, dialect: str, ctx: Context, msg: Message
) -> str:
    if key == "input":
        what = f"a tool call's {_call_keys(dialect, msg)[0]} field"
    else:
        owner = _OWNER.get(type(block), "a block's")
        what = f"{owner} {_FIELD.get(key, key)}"
    ctx.note(msg, f"{what} is {kind_of(value)}, not a string: used as its JSON text")
    return compact_json(value)


def normalize_block(block: Block, dialect: str, ctx: Context, msg: Message) -> Block:
    """One block as :func:`normalize` leaves it (tool-result outputs included)."""
    changes: dict[str, Any] = {}

    def text(key: str, allow_list: bool = False) -> None:
        value = getattr(block, key)
        if value is None or isinstance(value, str) or (allow_list and isinstance(value, list)):
            return
        changes[key] = _text_field(block, key, value, dialect, ctx, msg)

    if isinstance(block, TextBlock):
        text("text")
    elif isinstance(block, ThinkingBlock):
        text("thinking")
    elif isinstance(block, HintBlock):
        text("hint", allow_list=get_dialect(dialect).hint_lists)
    elif isinstance(block, ToolCallBlock):
        text("id")
        text("name")
        text("input")
        args = block.arguments
        if args is not None and not isinstance(args, dict):
            where = _call_keys(dialect, msg)[1]
            ctx.note(
                msg,
                f"a tool call's {where} field is {kind_of(args)}, not an object: taken as missing",
            )
            changes["arguments"] = None
    elif isinstance(block, ToolResultBlock):
        text("id")
        text("name")
        output = block.output
        if isinstance(output, list):
            fixed = _normalize_blocks(output, dialect, ctx, msg)
            if fixed is not output:
                changes["output"] = fixed
        elif output is not None and not isinstance(output, str):
            ctx.note(
                msg,
                f"a tool result's output is {kind_of(output)}, not a text or a list of "
                "blocks: sent as its JSON text",
            )
            changes["output"] = compact_json(output)
    elif isinstance(block, DataBlock):
        text("id")
        text("name")
        if isinstance(block.source, Source):
            source = _normalize_source(block.source, ctx, msg)
            if source is not block.source:
                changes["source"] = source
    return replace(block, **changes) if changes else block


def _normalize_source(source: Source, ctx: Context, msg: Message) -> Source:
    changes: dict[str, Any] = {}
    for key in ("url", "data", "media_type"):
        value = getattr(source, key)
        if value is not None and not isinstance(value, str):
            what = key.replace("_", " ")
            ctx.note(
                msg, f"a data block's {what} is {kind_of(value)}, not a string: taken as missing"
            )
            changes[key] = None
    return replace(source, **changes) if changes else source
