"""The dialect registry and per-record detection."""

from __future__ import annotations

from .agentscope_java import DIALECT as AGENTSCOPE_JAVA
from .agentscope_py import DIALECT as AGENTSCOPE_PY
from .anthropic import DIALECT as ANTHROPIC
from .base import EVENT, MESSAGE, Dialect
from .claude_code import DIALECT as CLAUDE_CODE
from .loongflow import DIALECT as LOONGFLOW
from .openai_chat import DIALECT as OPENAI_CHAT
from .openai_responses import DIALECT as OPENAI_RESPONSES

__all__ = ["DIALECTS", "EVENT", "MESSAGE", "Dialect", "classify", "fits", "get_dialect", "is_plain"]

#: in detection order: the most specific signatures first
DIALECTS: dict[str, Dialect] = {
    d.name: d for d in (AGENTSCOPE_JAVA, AGENTSCOPE_PY, LOONGFLOW, CLAUDE_CODE)
}
#: the provider wire forms (their signatures are exact keys and type names: tried first)
PROVIDERS: tuple[Dialect, ...] = (ANTHROPIC, OPENAI_RESPONSES, OPENAI_CHAT)
DIALECTS.update((d.name, d) for d in PROVIDERS)
_ORDER = (*PROVIDERS, *(d for d in DIALECTS.values() if d not in PROVIDERS))


def get_dialect(name: str) -> Dialect:
    try:
        return DIALECTS[name]
    except KeyError:
        known = ", ".join(DIALECTS)
        raise ValueError(f"unknown dialect {name!r} (known: {known})") from None


def classify(obj: dict) -> tuple[Dialect, str] | None:
    """The dialect and kind (``"message"`` or ``"event"``) of one record, or ``None``."""
    for d in _ORDER:
        kind = d.classify(obj)
        if kind is not None:
            return d, kind
    return None


def fits(dialect: Dialect, obj: dict) -> str | None:
    """The kind of ``obj`` as a record of ``dialect``, also when it is a plain message that
    several dialects take (``{"role": "user", "content": "..."}``) and detection gave it to
    another one."""
    kind = dialect.classify(obj)
    if kind is None and dialect in PROVIDERS and is_plain(obj):
        return MESSAGE
    return kind


_PLAIN_KEYS = frozenset({"role", "content"})
_PLAIN_ROLES = frozenset({"user", "assistant", "system", "developer"})


def is_plain(obj: dict) -> bool:
    """A message every provider form takes: a role and text (a string or text parts) only.
    A file that begins with such messages is of the dialect of its first other record."""
    if not obj.keys() <= _PLAIN_KEYS or obj.get("role") not in _PLAIN_ROLES:
        return False
    content = obj.get("content")
    if isinstance(content, str):
        return True
    return isinstance(content, list) and all(
        isinstance(p, dict) and p.get("type") == "text" and p.keys() <= {"type", "text"}
        for p in content
    )
