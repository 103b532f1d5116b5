"""What every provider rule set needs: notes located by log line, and small value helpers.

The rule sets work on the dialect-neutral model, which does not validate: a text may
be missing or not a string, a source may be absent. The helpers here turn such values
into what the framework would have had at hand (an empty string, no source) so the
rules can stay close to the framework's own logic.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import orjson

from ..model import Block, DataBlock, Message, Source

__all__ = ["Context", "Note", "as_text", "compact_json", "source_of"]


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

    def note(self, msg: Message | None, message: str) -> None:
        line = self.lines.get(id(msg)) if msg is not None else None
        for seen in self.notes:  # one note per line and text, however often it applies
            if seen.line == line and seen.message == message:
                return
        self.notes.append(Note(line, message))


def as_text(value: Any) -> str:
    """A text field as a string: ``None`` is empty, anything else not a string is JSON."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    return compact_json(value)


def compact_json(value: Any) -> str:
    """JSON without spaces, keys in their order (how the frameworks serialise arguments)."""
    try:
        return orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS).decode()
    except TypeError:
        return str(value)


def source_of(block: Block) -> Source | None:
    """The source of a data block, if it has a usable one."""
    if isinstance(block, DataBlock) and isinstance(block.source, Source):
        return block.source
    return None


def media_type_of(source: Source) -> str | None:
    mt = source.media_type
    return mt if isinstance(mt, str) and mt else None
