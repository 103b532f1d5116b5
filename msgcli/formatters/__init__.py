"""What a model provider is sent for a logged conversation, as AgentScope formats it.

:func:`format_request` takes the messages of a log in the dialect-neutral model and
returns the request body the framework's formatter would build for a provider:

- AgentScope Java logs follow the Java formatters (:mod:`.java`, a module per provider);
- AgentScope Python logs follow AgentScope Python's formatters (:mod:`.python`);
- LoongFlow logs follow the AgentScope Python rules too: LoongFlow's elements map onto
  the same blocks, and the neutral model holds them that way.

Each dialect names its formatters (``Dialect.formatters``: provider -> where the
:class:`._common.Formatter` lives); the dialects and providers offered here are read from
the dialect registry.

The result is pure data: ``{"messages": [...]}`` for OpenAI and DashScope, and
``{"system": ..., "messages": [...]}`` for Anthropic (``system`` only when there is
one). What the request could not carry as the log has it (a media type the
provider does not take, an unknown block, bytes the framework would fetch) is
handled as the framework handles it and reported as a :class:`Note` at its log line.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..dialects import DIALECTS as _REGISTRY
from ..dialects import load_installed
from ..model import Message
from ._common import Context, Note, normalize

__all__ = [
    "DIALECTS",
    "PROVIDERS",
    "Formatted",
    "Note",
    "format_request",
    "formatted_dialects",
    "formatter_name",
    "is_multi_agent",
    "providers",
]


def formatted_dialects() -> tuple[str, ...]:
    """The dialects msgcli formats, in the registry's order (installed dialects included)."""
    load_installed()
    return tuple(name for name, d in _REGISTRY.items() if d.formatters)


def providers() -> tuple[str, ...]:
    """The providers the dialects have formatters for."""
    return tuple(
        dict.fromkeys(p for name in formatted_dialects() for p in _REGISTRY[name].formatters)
    )


def __getattr__(name: str) -> Any:
    # ``DIALECTS`` and ``PROVIDERS`` are read from the registry when asked for, so that a
    # dialect registered later (an installed package) is offered too
    if name == "DIALECTS":
        return formatted_dialects()
    if name == "PROVIDERS":
        return providers()
    raise AttributeError(name)


@dataclass(slots=True)
class Formatted:
    """A request body, the notes about it, and which formatter built it."""

    request: dict
    notes: list[Note]
    multi_agent: bool
    formatter: str


def is_multi_agent(messages: Sequence[Message]) -> bool:
    """Whether the log is a multi-agent conversation: more than one sender among the
    assistant messages, or more than one among the user messages."""
    speakers: dict[str, set[str]] = {"user": set(), "assistant": set()}
    for msg in messages:
        role, name = msg.role, msg.name
        if isinstance(role, str) and role in speakers and isinstance(name, str) and name:
            speakers[role].add(name)
    return any(len(names) > 1 for names in speakers.values())


def formatter_name(dialect: str, provider: str, multi_agent: bool) -> str:
    """The framework class whose rules apply, e.g. ``AgentScope Java OpenAIChatFormatter``."""
    formatter: Any = _REGISTRY[dialect].load_formatter(provider)
    return str(formatter.name(multi_agent))


def format_request(
    messages: Sequence[Message],
    dialect: str,
    provider: str,
    multi_agent: bool | None = None,
    lines: Sequence[int] | None = None,
) -> Formatted:
    """The request body ``provider`` is sent for ``messages`` (a log of ``dialect``).

    ``multi_agent=None`` decides by :func:`is_multi_agent`. ``lines`` gives each
    message's log line, for the notes.

    The messages need not be valid: a field of the wrong JSON type is read as the
    framework would best have it (see :func:`._common.normalize`) and noted at its line;
    the request is always JSON that :mod:`json` and :func:`msgcli.writer.dumps` can write
    (an integer beyond 64 bits is kept whole, which :mod:`orjson` alone does not write).
    """
    known = providers()
    if provider not in known:
        raise ValueError(f"unknown provider {provider!r} (one of {', '.join(known)})")
    formatted = formatted_dialects()
    if dialect not in formatted:
        raise ValueError(f"unknown dialect {dialect!r} (one of {', '.join(formatted)})")
    msgs = list(messages)
    multi = is_multi_agent(msgs) if multi_agent is None else multi_agent
    ctx = Context()
    if lines is not None:
        ctx.lines = {id(m): line for m, line in zip(msgs, lines, strict=False)}
    formatter = _REGISTRY[dialect].load_formatter(provider)
    kept = [msgs]  # every generation stays alive: the lines are keyed by identity

    def step(new: list[Message]) -> list[Message]:
        for old, msg in zip(kept[-1], new, strict=True):
            if msg is not old and id(old) in ctx.lines:
                ctx.lines[id(msg)] = ctx.lines[id(old)]
        kept.append(new)
        return new

    msgs = step(normalize(msgs, dialect, ctx))
    msgs = step(formatter.prepare(msgs, dialect, ctx))
    request = formatter.build(msgs, multi, ctx)
    notes = sorted(ctx.notes, key=lambda n: -1 if n.line is None else n.line)
    return Formatted(request, notes, multi, formatter.name(multi))
