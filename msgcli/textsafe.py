"""Making text from a log safe to print on a terminal.

Logs are written by programs we do not control. Printed as is, a log could
clear the screen, set the window title, or hide text with bidirectional
overrides. Everything from a log goes through :func:`visible` first: control
characters become visible escapes, and the text is otherwise left alone.
"""

from __future__ import annotations

import re
from typing import Any

import orjson

__all__ = ["short", "visible"]

# C0 controls (tab and newline handled by the caller's choice), DEL, C1 controls,
# and the Unicode bidirectional controls that reorder what a reader sees.
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069]")
_CONTROL_AND_NEWLINE = re.compile("[\x00-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069]")
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t", "\x1b": "\\e"}


def _escape(match: re.Match) -> str:
    char = match.group()
    named = _NAMED.get(char)
    if named:
        return named
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def visible(text: str, *, multiline: bool = False) -> str:
    """``text`` with every control character shown as an escape (``\\e``, ``\\x07``, ``\\u202e``).

    With ``multiline=True``, newlines and tabs are kept as they are.
    """
    pattern = _CONTROL if multiline else _CONTROL_AND_NEWLINE
    if not pattern.search(text):
        return text
    return pattern.sub(_escape, text)


def short(value: Any, limit: int = 60) -> str:
    """A value as JSON, cut to ``limit`` characters for a one-line message."""
    try:
        text = orjson.dumps(value).decode()
    except TypeError:
        text = repr(value)
    if len(text) > limit:
        text = text[: limit - 1] + "…"
    return text
