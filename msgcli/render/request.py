"""The output of ``msgcli format``: the request as JSON, the notes at their log lines, and
the summary line."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ..textsafe import visible
from .words import plural


def request_text(request: dict) -> str:
    """The request body as indented JSON, with a final newline (an integer beyond 64 bits
    written in full)."""
    from ..guard import json_text

    return json_text(request, indent=True) + "\n"


def note_lines(name: str, notes: Iterable[tuple[int | None, str]]) -> list[str]:
    """``PATH:LINE: message`` for each ``(line, message)`` (``PATH: message`` without a
    line), in line order, the notes without a line first; text from the log made visible."""
    shown = visible(name)
    ordered = sorted(notes, key=lambda item: -1 if item[0] is None else item[0])
    return [
        f"{shown if line is None else f'{shown}:{line}'}: {visible(message)}"
        for line, message in ordered
    ]


def format_summary(messages: int, provider: str, formatted: Any, unreadable: int) -> str:
    """``Formatted 3 log messages as 4 openai request messages (...)``; the notes on what
    the request could not carry, and the lines that could not be read, when there are."""
    request = formatted.request
    sent = len(request.get("messages") or ()) + (1 if request.get("system") else 0)
    summary = (
        f"Formatted {plural(messages, 'log message')} as {sent} {provider} "
        f"request message{'' if sent == 1 else 's'} ({formatted.formatter})"
    )
    if formatted.notes:
        summary += f"; {plural(len(formatted.notes), 'note')} on what it could not carry"
    if unreadable:
        summary += f"; {plural(unreadable, 'line')} could not be read"
    return summary + "."
