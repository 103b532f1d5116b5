"""The dialect registry and per-record detection."""

from __future__ import annotations

from .agentscope_java import DIALECT as AGENTSCOPE_JAVA
from .agentscope_py import DIALECT as AGENTSCOPE_PY
from .anthropic import DIALECT as ANTHROPIC
from .base import EVENT, MESSAGE, Dialect
from .loongflow import DIALECT as LOONGFLOW
from .openai_chat import DIALECT as OPENAI_CHAT
from .openai_responses import DIALECT as OPENAI_RESPONSES

__all__ = ["DIALECTS", "EVENT", "MESSAGE", "Dialect", "classify", "get_dialect"]

#: in detection order: the most specific signatures first
DIALECTS: dict[str, Dialect] = {d.name: d for d in (AGENTSCOPE_JAVA, AGENTSCOPE_PY, LOONGFLOW)}
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
