"""Words for people: counts with their nouns."""

from __future__ import annotations

__all__ = ["plural"]


def plural(n: int, word: str) -> str:
    """``1 file``, ``2 files``: the count and its noun, with an ``s`` unless it is one."""
    return f"{n} {word}{'' if n == 1 else 's'}"
