"""The dialect-neutral message model.

Every dialect reader maps one JSON record onto these classes and every
dialect writer maps them back. Nothing is dropped on the way: fields that
only one dialect has (Python's ``finished_reason``, LoongFlow's ``trace_id``,
Java's raw tool-call ``content``...) live in ``fields`` under their own JSON
names, and keys the framework does not know at all are kept in ``extra``, in
their original order, so they can be reported and written back.

Blocks remember where they stand in the record (``path``, a tuple of JSON
keys and indexes), so a finding about a block can point at it with a JSON
pointer without the rule knowing the dialect's key names.

The classes are plain slotted dataclasses with no validation: the JSON
Schemas decide what is valid, the model only carries what was there.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

__all__ = [
    "WAITING_STATES",
    "Block",
    "DataBlock",
    "EvolveResultBlock",
    "HintBlock",
    "Message",
    "ResponseUsage",
    "Source",
    "TextBlock",
    "ThinkingBlock",
    "ToolCallBlock",
    "ToolResultBlock",
    "Turn",
    "UnknownBlock",
    "Usage",
    "ValueBlock",
    "pointer",
]

#: the states (``ToolCallBlock.state``) of a tool call that waits by design, so no result is
#: expected yet; "parked" stands for a call whose message says it waits (``Dialect.parked``)
WAITING_STATES = frozenset({"asking", "submitted", "parked"})

Path = tuple  # tuple[str | int, ...]


def pointer(path: Path, *more: str | int) -> str:
    """Render a JSON pointer (RFC 6901) for ``path`` followed by ``more``."""
    parts = (*path, *more)
    if not parts:
        return ""
    return "/" + "/".join(str(p).replace("~", "~0").replace("/", "~1") for p in parts)


@dataclass(slots=True)
class Source:
    """Where the bytes of a media or data block are.

    ``kind`` is ``"url"`` or ``"base64"``. A LoongFlow ``data:`` URI is kind
    ``"base64"`` with ``data_uri=True`` (the data is the part after the comma).
    """

    kind: str
    url: str | None = None
    data: str | None = None
    media_type: str | None = None
    data_uri: bool = False
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass(slots=True)
class Usage:
    """Token usage. Counts are ``None`` where the record has no such field."""

    input_tokens: int | float | None = None
    output_tokens: int | float | None = None
    cached_tokens: int | float | None = None
    cache_creation_tokens: int | float | None = None
    total_tokens: int | float | None = None
    time: float | None = None
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass(slots=True)
class ResponseUsage:
    """What one model response used, as the provider billed it: the unit ``msgcli usage``
    and ``msgcli stats`` count. A dialect gives one per model response it records
    (:meth:`msgcli.dialects.base.Dialect.responses`), once, however often its log repeats it.

    The token kinds do not overlap, so their sum is every token billed:

    - ``input``: input tokens at the base rate, neither read from nor written to a cache
      (OpenAI's ``prompt_tokens`` less its cached tokens; Anthropic's ``input_tokens``);
    - ``cache_read``: input tokens read from the provider's prompt cache;
    - ``cache_write``: input tokens written to the cache (Anthropic's cache creation);
    - ``output``: output tokens, reasoning included, as billed;
    - ``reasoning``: how many of ``output`` were reasoning or thinking (already counted in
      ``output``; reported apart, never added again).
    """

    model: str | None = None
    input: int = 0
    output: int = 0
    cache_read: int = 0
    cache_write: int = 0
    reasoning: int = 0
    #: when the response was made: an aware datetime, or ``None`` when the log does not say
    time: datetime | None = None
    #: the session (or conversation) and project (a working folder, a repository) it belongs
    #: to, where the log records them
    session: str | None = None
    project: str | None = None
    #: the sub-agent that made it (its id or name); ``None``: the main thread
    agent: str | None = None
    #: the provider that billed it, where the log says (``anthropic``, ``openai``,
    #: ``google``...); prices are looked up by model, and by provider where given
    provider: str | None = None
    #: what makes two records the same response (counted once across every file read);
    #: ``None``: the record is its own response
    key: Any = None


@dataclass(slots=True)
class Block:
    """Base of every content block. ``type`` is the neutral type name."""

    type: str = "unknown"
    id: str | None = None
    path: Path = ()
    fields: dict[str, Any] = field(default_factory=dict)
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass(slots=True)
class TextBlock(Block):
    text: Any = ""  # a string in every record the frameworks accept


@dataclass(slots=True)
class ThinkingBlock(Block):
    thinking: Any = ""  # a string in every record the frameworks accept


@dataclass(slots=True)
class HintBlock(Block):
    hint: Any = None
    source: Any = None


@dataclass(slots=True)
class ToolCallBlock(Block):
    """A request to run a tool.

    ``input`` is the arguments as the dialect holds them: a JSON text
    (AgentScope Python 2.x, Java's raw ``content``) or an object. ``arguments``
    is the parsed object when the record holds one (Java ``input``, Python 1.x,
    LoongFlow ``arguments``). ``fields["as_text"]``, where a dialect sets it, is the
    input as a person reads it (Codex's ``apply_patch``: the patch), which show, HTML and
    Markdown give as text rather than as JSON.
    """

    name: str | None = None
    input: Any = None
    arguments: Any = None
    state: str | None = None


@dataclass(slots=True)
class ToolResultBlock(Block):
    """The answer to a tool call, paired with it by ``id``."""

    name: str | None = None
    output: Any = None  # a string, or a list of blocks
    state: str | None = None


@dataclass(slots=True)
class DataBlock(Block):
    """An image, audio, video or other binary payload.

    ``kind`` keeps the dialect's own block type (``image``, ``audio``,
    ``video``, ``data``, or LoongFlow's ``content``).
    """

    kind: Any = "data"
    source: Source | None = None
    name: str | None = None


@dataclass(slots=True)
class ValueBlock(Block):
    """A structured (non-text, non-media) value, e.g. LoongFlow JSON content."""

    value: Any = None
    mime_type: str | None = None


@dataclass(slots=True)
class EvolveResultBlock(Block):
    """LoongFlow's summary of an evolution run.

    Its keys (``best_score``, ``best_solution``, ...) are in ``fields``;
    ``variant`` names the shape: ``"current"`` or ``"0.0.1"``.
    """

    variant: str | None = None


@dataclass(slots=True)
class UnknownBlock(Block):
    """A block whose type the reader does not know; ``raw`` is kept whole."""

    raw: Any = None


@dataclass(slots=True)
class Message:
    """One message of a conversation, in any dialect.

    ``role`` is the dialect's role in lower case (``user``, ``assistant``,
    ``system``, ``tool``, or any other string LoongFlow allows);
    ``timestamp`` is the dialect's creation time text as written.
    """

    dialect: str
    role: Any = None
    name: Any = None
    id: Any = None
    content: list[Block] = field(default_factory=list)
    metadata: Any = None
    timestamp: Any = None
    usage: Usage | None = None
    variant: str | None = None
    fields: dict[str, Any] = field(default_factory=dict)
    extra: dict[str, Any] = field(default_factory=dict)

    def blocks(self):
        """Every block, depth first, tool-result outputs included."""
        stack = list(reversed(self.content))
        while stack:
            block = stack.pop()
            yield block
            if isinstance(block, ToolResultBlock) and isinstance(block.output, list):
                stack.extend(reversed(block.output))


@dataclass(slots=True)
class Turn:
    """A message and the tool messages after it that answer its calls: what ``msgcli
    convert`` takes from one dialect to another at a time (one dialect keeps tool results
    in the message of their calls, another gives each result a message of its own).

    ``messages[0]`` is the turn's own message, the others hold tool results; ``lines`` are
    their log lines and ``times`` their times as aware datetimes (``None``: not known).
    ``role`` is the turn's role: the first message's, or ``"tool"`` for a tool message on
    its own. ``fields`` is what the source dialect records of the reply beside the model's
    attributes (AgentScope Python's reply fields, LoongFlow's trace ids), for a target that
    has a place for it; ``usage_in_metadata``: the source keeps the token usage in the
    metadata as well. ``block_times`` holds the aware time of each block that records its
    own, by the block's ``id()``. ``ordinals`` says, for a line that holds several messages
    (a request's ``messages``, a JSON document), where on it each message stands (0: the
    first; empty: every message is the first of its line).
    """

    messages: list[Message]
    lines: list[int]
    times: list[datetime | None]
    role: Any
    fields: dict[str, Any] = field(default_factory=dict)
    usage_in_metadata: bool = False
    block_times: dict[int, datetime] = field(default_factory=dict)
    ordinals: list[int] = field(default_factory=list)

    @property
    def head(self) -> Message:
        """The turn's own message."""
        return self.messages[0]

    @property
    def source(self) -> str:
        """The dialect the turn was read from."""
        return self.messages[0].dialect

    @property
    def line(self) -> int:
        return self.lines[0]

    @property
    def when(self) -> datetime | None:
        return self.times[0]

    def place(self, index: int = 0) -> Any:
        """Where the message at ``index`` stands in the log, as the seed of an id made for it:
        its line, and for a message after the first on its line, its place there too."""
        line = self.lines[index]
        ordinal = self.ordinals[index] if index < len(self.ordinals) else 0
        return f"{line}.{ordinal}" if ordinal else line

    def parts(self) -> Iterator[tuple[int, Block]]:
        """``(index of its message, block)`` for every block of the turn, in order."""
        for index, msg in enumerate(self.messages):
            for block in msg.content:
                yield index, block

    def answers(self, index: int) -> bool:
        """Whether the message at ``index`` is a tool message of its own (it answers calls)."""
        return index > 0 or self.role == "tool"
