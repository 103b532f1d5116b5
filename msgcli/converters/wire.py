"""The writers of the provider wire forms (``openai-chat`` messages, ``openai-responses``
input items, ``anthropic`` messages): each writes a turn through
:func:`msgcli.dialects.wire_write.write_turn`. Provider messages have no metadata, so a
conversion to them keeps nothing for the way back."""

from __future__ import annotations

from ..dialects.wire_write import write_turn
from ..model import Turn
from .base import Out, Writer

__all__ = ["ANTHROPIC", "OPENAI_CHAT", "OPENAI_RESPONSES"]


class WireWriter(Writer):
    has_metadata = False
    hands_over_calls = True

    def __init__(self, result_roles: frozenset[str] = frozenset()):
        self.result_roles = result_roles

    def __call__(self, turn: Turn, out: Out) -> list[dict]:
        return write_turn(turn, out.dialect.name, out.note)


OPENAI_CHAT = WireWriter()
OPENAI_RESPONSES = WireWriter()
# Anthropic sends tool results in user turns
ANTHROPIC = WireWriter(frozenset({"user"}))
