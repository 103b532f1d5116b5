"""Making text from a log safe to print on a terminal.

Logs are written by programs we do not control. Printed as is, a log could
clear the screen, set the window title, or hide text with bidirectional
overrides. Everything from a log goes through :func:`visible` first, and the
consoles msgcli prints through apply it once more to every piece of text they
write (:func:`msgcli.render.view.console_for`).

One rule, everywhere:

- **line separators are line breaks**: newline, CR LF, U+2028 LINE SEPARATOR,
  U+2029 PARAGRAPH SEPARATOR and U+0085 NEXT LINE end a line when text is shown
  over several lines (``multiline=True``; :func:`lines` splits there and nowhere
  else), and are escapes like any other control on a one-line field;
- **every other control is escaped**: C0 controls but tab (a lone CR, VT, FF, ESC,
  NUL …), DEL, C1 controls, the bidirectional controls, and lone surrogates (which
  no terminal encoding can write) become visible escapes (``\\e``, ``\\x0b``,
  ``\\u202e``, ``\\ud800``);
- everything else is left as it is.
"""

from __future__ import annotations

import re
from typing import Any

__all__ = ["lines", "name_text", "short", "shown_as_is", "visible"]

# what a multi-line display breaks lines at
_BREAK = re.compile("\r\n|[\n\u2028\u2029\x85]")
# C0 controls but tab and newline, DEL, C1 controls, the Unicode bidirectional controls,
# lone surrogates
_OTHER = "\x00-\x08\x0b-\x1f\x7f-\x84\x86-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069\ud800-\udfff"
_CONTROL = re.compile(f"[{_OTHER}]")
# the line separators but newline (a CR LF starts with one of them)
_OTHER_BREAKS = re.compile("[\r\x85\u2028\u2029]")
_CONTROL_AND_BREAKS = re.compile(f"[{_OTHER}\t\n\x85\u2028\u2029]")
# what visible(..., multiline=True) changes: a control, a line break other than a newline
_CHANGED_MULTILINE = re.compile(f"[{_OTHER}\x85\u2028\u2029]")
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t", "\x1b": "\\e"}


def _escape(match: re.Match) -> str:
    char = match.group()
    named = _NAMED.get(char)
    if named:
        return named
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


_SURROGATE = re.compile("[\ud800-\udfff]")


def name_text(name: str) -> str:
    """A file name (or a text that names one) as text any writer takes: a name that is
    not UTF-8 (Python keeps its bytes as lone surrogates) has each of them as an escape,
    ``\\udcff``, as :func:`visible` shows it; any other text as it is."""
    if _SURROGATE.search(name) is None:
        return name
    return _SURROGATE.sub(_escape, name)


def visible(text: str, *, multiline: bool = False) -> str:
    """``text`` with every control character shown as an escape (``\\e``, ``\\x07``, ``\\u202e``).

    With ``multiline=True``, line separators become newlines and tabs are kept.
    """
    if text.isprintable():
        return text  # (no control, separator or tab: nothing to change, either way)
    if multiline:
        if _CHANGED_MULTILINE.search(text) is None:
            return text  # (the most common text: one scan)
        if _BREAK.search(text):
            text = "\n".join(_BREAK.split(text))
        if not _CONTROL.search(text):
            return text
        return _CONTROL.sub(_escape, text)
    if not _CONTROL_AND_BREAKS.search(text):
        return text
    return _CONTROL_AND_BREAKS.sub(_escape, text)


def shown_as_is(text: str) -> bool:
    """Whether ``visible(text, multiline=True)`` is ``text`` itself (then so it is for every
    piece of it): a console may write such a text without escaping it piece by piece."""
    return _CHANGED_MULTILINE.search(text) is None


def lines(text: str) -> list[str]:
    """``text`` split at its line separators (the same ones :func:`visible` breaks at)."""
    if _OTHER_BREAKS.search(text) is None:
        return text.split("\n")
    return _BREAK.split(text)


def named(value: Any, limit: int = 60) -> str:
    """A value of a log as it is when it is text, else as :func:`short` names it (a reason,
    a state or an item a record may hold as any JSON value)."""
    return value if type(value) is str else short(value, limit)


def short(value: Any, limit: int = 60) -> str:
    """A value as JSON, cut to ``limit`` characters for a one-line message."""
    from .guard import json_text

    text = json_text(value)
    if len(text) > limit:
        text = text[: limit - 1] + "…"
    return text
