"""What every conversion writer builds on: the turn it writes, read from a group of
neutral messages, and the class a dialect's writer is an instance of.

A conversion reads a *group* of source messages (a message and the tool messages that
answer it) into a :class:`msgcli.model.Turn` and hands it to the target dialect's writer,
which gives that dialect's records. Each dialect that ``convert`` writes names its writer
in ``Dialect.writer``; the same object says what the converter must know of that
dialect's messages when they are the source (its time zone, which messages only answer
tool calls, which of a message's fields a target may map).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import tzinfo
from typing import Any

from ..dialects import Dialect, get_dialect
from ..model import Block, Message, TextBlock, ToolCallBlock, ToolResultBlock, Turn, pointer
from .text import as_text, aware, id_key, kind_of, made_id, parts_text

__all__ = ["LogFacts", "Note", "Out", "Writer", "is_tool_message", "read_turn", "writer_of"]

Note = Callable[[int, str, str], None]  # note(line, pointer, text)

TOOL_CALL_STATES = ("pending", "asking", "allowed", "submitted", "finished")
_TOOL_RESULT_STATES = ("success", "error", "interrupted", "denied", "running")
#: the states of a call that waits for its result by design
_WAITING = ("asking", "submitted")


@dataclass(slots=True)
class Out:
    """Where a writer writes: the target dialect, the zone of local times (``None``: this
    machine's), where notes of what has no place go, and the message ids the conversion has
    written so far (``None``: ids are not kept apart, as on a way back)."""

    dialect: Dialect
    local: tzinfo | None
    note: Note
    taken: set[str] | None = None
    #: ``fill(line, what)``: the record on ``line`` is given a stand-in the source has no
    #: value for (X003, counted by ``what``)
    fill: Callable[[int, str], None] = lambda line, what: None

    def unique(self, msg_id: str, line: int, shape: Callable[[str], str] = str) -> str:
        """``msg_id``, or where an earlier message of the conversion was written with it (a
        source that writes one message in parts under one id, which the target does not
        allow) an id made from it, in the target's form (``shape`` of 32 hex digits): noted
        (X001), the original kept for the way back."""
        taken = self.taken
        if taken is None:
            return msg_id
        if msg_id in taken:
            made = shape(made_id(msg_id, "again", len(taken)))
            self.note(
                line,
                "/id",
                f"the message id {msg_id!r} is already that of an earlier message (the source "
                f"writes a message in parts under one id, {self.dialect.title} gives each "
                f"message its own): written as {made!r}",
            )
            msg_id = made
        taken.add(msg_id)
        return msg_id


class Writer:
    """A dialect's conversion writer: ``writer(turn, out)`` gives the dialect's records
    for a turn. The attributes describe the dialect's messages as a source; a dialect
    without a writer is read with these defaults."""

    #: whether the dialect writes times in UTC (else in the writer's local zone)
    utc: bool = False
    #: the roles, besides ``tool``, of a message that only answers tool calls
    result_roles: frozenset[str] = frozenset()
    #: whether the dialect keeps a message's token usage inside its metadata as well
    usage_in_metadata: bool = False
    #: whether the records have metadata, where a conversion keeps what they cannot hold
    has_metadata: bool = True
    #: whether the dialect's log is one JSON document (an ATIF trajectory), which
    #: :meth:`whole` makes of the records written for one log
    document: bool = False

    def whole(self, records: list[dict], facts: Any) -> dict:
        """The document of one log, from the records written for it (a
        :attr:`document` writer's; ``facts``: a :class:`LogFacts` of the log's messages)."""
        raise NotImplementedError

    #: whether ``convert`` converts the records written back to the source to find what
    #: they lost (a writer whose records hold a whole log rather than a turn's messages
    #: cannot be read back a turn at a time: it says itself what has no place)
    checks_back: bool = True

    def session(self) -> Writer:
        """The writer of one log: a writer that keeps state across the turns of a log (the
        trace a turn's spans belong to, the conversation so far) gives a fresh one."""
        return self

    def finish(self, out: Out) -> list[dict]:
        """The records still held once every turn of the log was written (default: none)."""
        return []

    #: whether every message of the dialect has a time: where the source has none, the
    #: conversion writes a stand-in (X003)
    stamps: bool = False
    #: whether the dialect's tool calls are handed to the application (a provider's
    #: response): a call with no result after it waits for one (read as ``submitted``)
    hands_over_calls: bool = False

    def turn_fields(self, msg: Message) -> dict[str, Any]:
        """What of a message's ``fields`` a target may map (default: nothing)."""
        return {}

    def __call__(self, turn: Turn, out: Out) -> list[dict]:
        raise NotImplementedError


_READ_ONLY = Writer()


class LogFacts:
    """What a document writer needs of a whole log that its records may not say: the
    source dialect, its release (a message's variant), the session and the model, from the
    first messages that tell (:meth:`note` is given every message converted)."""

    def __init__(self) -> None:
        self.dialect: str | None = None
        self.version: str | None = None
        self.session: str | None = None
        self.model: str | None = None
        #: the records of the log outside its conversation (what ``Dialect.aside`` says
        #: of: an ATIF trajectory's own record), as read
        self.aside: list[dict] = []
        #: set by the writer that kept them in the document (nothing is lost)
        self.kept = False

    def note(self, dialect: Dialect, msg: Message, record: Any = None) -> None:
        if dialect.aside(msg):
            if isinstance(record, dict):
                self.aside.append(record)
            return
        if self.dialect is None:
            self.dialect = msg.dialect
        if self.version is None:
            variant = msg.variant
            if variant is None and isinstance(record, dict):
                variant = dialect.variant(record)
            if isinstance(variant, str):
                self.version = variant
        if self.session is None:
            session = dialect.thread_of(msg)[0]
            if isinstance(session, str) and session:
                self.session = session
        if self.model is None and msg.role == "assistant":
            model = msg.fields.get("model")
            if isinstance(model, str) and model:
                self.model = model


def writer_of(dialect: str) -> Writer:
    """The writer of a dialect (for a dialect msgcli does not write: what describes its
    messages as a source)."""
    found = get_dialect(dialect)
    return _READ_ONLY if found.writer is None else found.load_writer()


# -- reading a group ---------------------------------------------------------------


def is_tool_message(msg: Message, source: Writer) -> bool:
    """Whether a message only answers tool calls (it joins the turn before it)."""
    role = msg.role.lower() if isinstance(msg.role, str) else msg.role
    if not msg.content or not all(isinstance(b, ToolResultBlock) for b in msg.content):
        return False
    # AgentScope Python 1.x writes tool results as system messages, Anthropic as user turns
    return isinstance(role, str) and (role == "tool" or role in source.result_roles)


def read_turn(
    group: list[tuple[int, Message]],
    source: Writer,
    local: tzinfo | None,
    strip: Callable[[Any], Any],
    ordinals: list[int] | None = None,
) -> Turn:
    """The turn of a group: its first message, with the tool messages after it.
    ``strip(metadata)`` takes out what a conversion keeps for itself; ``source`` is the
    writer of the group's dialect; ``ordinals`` where on its line each message stands."""
    first = group[0][1]
    dialect = get_dialect(first.dialect)
    utc = source.utc
    role = first.role  # the model holds roles in lower case already (Java's included)
    if len(group) == 1 and is_tool_message(first, source):
        role = "tool"
    messages: list[Message] = []
    times = []
    block_times = {}
    results = {id_key(b.id) for _, m in group for b in m.content if isinstance(b, ToolResultBlock)}
    for _, msg in group:
        metadata = strip(msg.metadata)
        if metadata is not msg.metadata:
            msg = replace(msg, metadata=metadata)
        msg = _waiting(msg, dialect, source, results)
        messages.append(msg)
        times.append(aware(dialect.parse_time(msg.timestamp), local, utc))
        for block in msg.content:
            stamp = block.fields.get("created_at")
            if stamp is not None:
                when = aware(dialect.parse_time(stamp), local, utc)
                if when is not None:
                    block_times[id(block)] = when
    return Turn(
        messages=messages,
        lines=[line for line, _ in group],
        times=times,
        role=role,
        fields=source.turn_fields(first),
        usage_in_metadata=source.usage_in_metadata,
        block_times=block_times,
        ordinals=ordinals if ordinals is not None and any(ordinals) else [],
    )


def _waiting(msg: Message, dialect: Dialect, source: Writer, results: set) -> Message:
    """The message with ``submitted`` as the state of each call it hands over that has no
    result in its turn: the calls of a provider's response (handed to the application),
    and those of a message its dialect says waits for them (``Dialect.parked``: a paused
    session), which a target reads by the state alone."""
    handed = source.hands_over_calls
    if not handed and not dialect.parked(msg.metadata):
        return msg
    changed = False
    content: list[Block] = []
    for block in msg.content:
        if (
            isinstance(block, ToolCallBlock)
            and block.state not in _WAITING
            and (block.state is None or not handed)
            and id_key(block.id) not in results
        ):
            block = replace(block, state="submitted")
            changed = True
        content.append(block)
    return replace(msg, content=content) if changed else msg


# -- what the writers share -------------------------------------------------------


def answered(turn: Turn) -> set:
    """The ids of the tool calls the turn holds results for."""
    return {id_key(b.id) for _, b in turn.parts() if isinstance(b, ToolResultBlock)}


def role_or_assistant(turn: Turn, allowed: tuple[str, ...], out: Out, target: str) -> str:
    """The turn's role, or ``assistant`` (noted) where ``target`` has no such role."""
    role = turn.role
    if isinstance(role, str) and role in allowed:
        return role
    out.note(
        turn.line,
        "/role",
        f"role {role!r} has no {target} counterpart: written as 'assistant'",
    )
    return "assistant"


def recast(block: Block, line: int, out: Out, why: str) -> TextBlock:
    """A block the target has no place for, as a text block (noted)."""
    out.note(line, pointer(block.path), why)
    return TextBlock(type="text", text=as_text(block))


def no_kind(block: Block, target: str) -> str:
    """What the note says of a block ``target`` has no kind for."""
    kind = kind_of(block)
    if kind == "unknown":
        return f"a block of unknown type cannot be written in {target}: kept as its JSON text"
    words = {
        "evolve_result": "an evolve_result element",
        "value": "a structured content element",
        "hint": "a hint block",
    }
    return f"{words.get(kind, 'a ' + kind + ' block')} has no {target} counterpart: written as text"


def result_state(state: Any) -> Any:
    """A result state for AgentScope (LoongFlow's ``in_progress`` is ``running``)."""
    if state == "in_progress":
        return "running"
    if state in _TOOL_RESULT_STATES:
        return state
    return "success" if state is None else "error"


def output_items(block: ToolResultBlock) -> list:
    """A tool result's output as a list of items: a bare string is one text item."""
    output = block.output
    if isinstance(output, list):
        return output
    return [] if output is None else [TextBlock(type="text", text=parts_text(output))]


def block_metadata(block: Block) -> Any:
    """A copy of a block's metadata object (``None``: it has none)."""
    metadata = block.fields.get("metadata")
    return dict(metadata) if isinstance(metadata, dict) else None


def message_metadata(metadata: Any, turn: Turn, usage: Any, out: Out) -> dict:
    """A copy of a message's metadata; the usage a source keeps in its metadata (as well as
    where the model holds it) leaves it for a target that keeps it elsewhere."""
    copy = dict(metadata) if isinstance(metadata, dict) else {}
    if turn.usage_in_metadata and turn.source != out.dialect.name and usage is not None:
        copy.pop("usage", None)
    return copy
