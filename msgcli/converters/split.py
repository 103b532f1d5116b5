"""Writing a turn as the records of a dialect that gives each tool result a message of its
own (AgentScope Java's ``TOOL``, LoongFlow's ``"tool"``): the message, a tool message per
run of results, and a further message of the turn's role for what the reply says after
them. The dialect's writer says how its messages, times and blocks are written."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from ..model import Block, Message, ToolResultBlock, Turn, Usage
from .base import Out, Writer, answered, message_metadata, role_or_assistant
from .text import dashed, made_id

__all__ = ["SplitWriter"]


class SplitWriter(Writer):
    """A writer for a dialect with a message per tool result (see the module docstring)."""

    #: the dialect's name in notes
    title: str = ""
    #: the roles the dialect has (``None``: any role)
    roles: tuple[str, ...] | None = None
    #: the ``variant`` of the messages written
    variant: str | None = None

    def __call__(self, turn: Turn, out: Out) -> list[dict]:
        write = out.dialect.write
        return [write(m) for m in self.messages(turn, out)]

    # -- what each dialect says --------------------------------------------------------

    def block(self, block: Block, line: int, role: Any, result_ids: set, out: Out) -> Block:
        """A block of the turn as the dialect writes it, in a message of ``role``."""
        raise NotImplementedError

    def time_text(self, when: datetime | None, out: Out) -> str | None:
        raise NotImplementedError

    def uuid_text(self, value: Any, *seed: Any) -> str:
        """A message id: a UUID in the dashed form, or one made from ``seed``."""
        raise NotImplementedError

    def role_text(self, role: Any) -> Any:
        return role

    def usage(self, usage: Usage | None, line: int, out: Out) -> Usage | None:
        """The usage the model holds for the message (default: none); ``line`` is where a
        change to it is noted."""
        return None

    def dress(
        self, turn: Turn, usage: Usage | None, metadata: dict, name: Any
    ) -> tuple[dict[str, Any], Any]:
        """A message's ``fields`` and name, with what the dialect keeps in its metadata
        added there (default: no fields, the name as it is)."""
        return {}, name

    # -- the messages -------------------------------------------------------------------

    def messages(self, turn: Turn, out: Out) -> list[Message]:
        messages: list[Message] = []
        role = turn.role
        if self.roles is not None and not (isinstance(role, str) and role in self.roles):
            role = role_or_assistant(turn, self.roles, out, self.title)
        current: Message | None = None
        current_home: int | None = None
        in_tool = False
        segment = 0
        result_ids = answered(turn)
        base = out.unique(
            self.uuid_text(turn.head.id, turn.source, turn.place(), "message"), turn.line, dashed
        )
        for at, block in turn.parts():
            line = turn.lines[at]
            home = at if turn.answers(at) else None
            if isinstance(block, ToolResultBlock) and (role != "tool" or home is not None):
                if current is None or not in_tool or current_home != home:
                    current = self._tool_message(turn, block, home, out, len(messages), base)
                    current_home = home
                    in_tool = True
                    messages.append(current)
                current.content.append(self.block(block, line, "tool", result_ids, out))
                continue
            if current is None or in_tool:
                when = turn.block_times.get(id(block)) if segment else None
                current = self._segment(turn, role, out, segment, base, when)
                current_home = None
                in_tool = False
                segment += 1
                messages.append(current)
            current.content.append(self.block(block, line, role, result_ids, out))
        if not messages:
            messages.append(self._segment(turn, role, out, 0, base))
        return messages

    def _segment(
        self,
        turn: Turn,
        role: Any,
        out: Out,
        index: int,
        base: str,
        when: datetime | None = None,
    ) -> Message:
        head = turn.head
        msg_id = base if index == 0 else dashed(made_id(base, "part", index))
        usage = head.usage if index == 0 else None
        return self._message(
            turn,
            self.role_text(role),
            msg_id,
            head.name,
            when or turn.when,
            head.metadata,
            usage,
            out,
        )

    def _tool_message(
        self, turn: Turn, block: Block, home: int | None, out: Out, index: int, base: str
    ) -> Message:
        if home is not None:
            msg = turn.messages[home]
            msg_id = out.unique(
                self.uuid_text(msg.id, turn.source, turn.place(home), "message"),
                turn.lines[home],
                dashed,
            )
            name, when, metadata, usage = msg.name, turn.times[home], msg.metadata, msg.usage
        else:
            msg_id = dashed(made_id(base, "result", block.id, index))
            name = (
                turn.head.name
            )  # the agent that ran the tool, as AgentScope and LoongFlow write it
            when, metadata, usage = turn.block_times.get(id(block)) or turn.when, None, None
        return self._message(turn, self.role_text("tool"), msg_id, name, when, metadata, usage, out)

    def _message(
        self,
        turn: Turn,
        role: Any,
        msg_id: str,
        name: Any,
        when: datetime | None,
        metadata: Any,
        usage: Usage | None,
        out: Out,
    ) -> Message:
        kept = message_metadata(metadata, turn, usage, out)
        fields, name = self.dress(turn, usage, kept, name)
        return Message(
            dialect=out.dialect.name,
            role=role,
            name=name,
            id=msg_id,
            content=[],
            metadata=kept,
            timestamp=self.time_text(when, out),
            usage=self.usage(usage, turn.lines[0], out),
            variant=self.variant,
            fields=fields,
        )
