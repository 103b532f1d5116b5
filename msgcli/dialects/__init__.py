"""The dialect registry and per-record detection."""

from __future__ import annotations

from .agentscope_java import DIALECT as AGENTSCOPE_JAVA
from .agentscope_py import DIALECT as AGENTSCOPE_PY
from .base import EVENT, MESSAGE, Dialect
from .claude_code import DIALECT as CLAUDE_CODE
from .loongflow import DIALECT as LOONGFLOW

__all__ = ["DIALECTS", "EVENT", "MESSAGE", "Dialect", "classify", "get_dialect"]

#: in detection order: the most specific signatures first
DIALECTS: dict[str, Dialect] = {
    d.name: d for d in (AGENTSCOPE_JAVA, AGENTSCOPE_PY, LOONGFLOW, CLAUDE_CODE)
}
_ORDER = tuple(DIALECTS.values())


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
