"""What a record may hold once it is read, and the room every later stage needs for it.

Records enter msgcli in one place, :mod:`msgcli.reader`, and leave it checked there:

- **nesting**: a record may nest up to :data:`RECORD_DEPTH` levels (a deeper one is
  ``P005``), a little less than the 1,024 the parser takes, so that whatever msgcli
  writes of a record can be read back. Everything after the reader that walks a value, writes
  it as JSON, or shows it (the schema explanations, the renderers, the converters,
  the formatters) does so inside :func:`deep_recursion`, which gives Python room for
  that depth, so no stage needs a limit of its own;
- **numbers**: an integer beyond 64 bits is read as the integer it is. orjson would make a
  float of it, so a line that may hold one (:func:`may_hold_big_int`, at C speed) is read
  again by the standard library's parser (:func:`exact_loads`), that line only; writing
  goes through the standard library where orjson refuses such an integer
  (:func:`deep_dumps`), so every command writes it back unchanged;
- **text**: a string holding a lone surrogate is no text: orjson refuses such a line
  (``P001``) and the reader's other path refuses it the same way.

:func:`json_text` writes any value that passed the reader as JSON text, whatever its
depth.
"""

from __future__ import annotations

import json
import sys
from typing import Any

import orjson

__all__ = [
    "MAX_DEPTH",
    "RECORD_DEPTH",
    "deep_dumps",
    "deep_recursion",
    "exact_loads",
    "has_lone_surrogate",
    "json_int",
    "json_text",
    "may_hold_big_int",
    "may_nest_deeper",
    "nests_deeper",
]

#: the deepest nesting JSON readers take (orjson's limit; Python's json about the same)
MAX_DEPTH = 1024
#: the deepest nesting a record may have: below :data:`MAX_DEPTH`, so that what msgcli
#: writes of a record (a conversion wraps what it keeps for the way back in a few levels
#: of metadata) stays within what JSON readers take
RECORD_DEPTH = 1010
#: how deep the Python-level walks may recurse: a dozen frames a level, and some to spare
_DEEP = 20_000


def deep_recursion() -> _DeepRecursion:
    """Room for recursing through the deepest JSON a record may hold (a context manager)."""
    return _DeepRecursion()


class _DeepRecursion:
    """The recursion limit raised to :data:`_DEEP` inside, set back to what it was after.
    (A class rather than a generator: it is entered for every message ``show`` prints.)"""

    __slots__ = ("limit",)

    def __enter__(self) -> None:
        self.limit = limit = sys.getrecursionlimit()
        if limit < _DEEP:
            sys.setrecursionlimit(_DEEP)

    def __exit__(self, *exc: object) -> None:
        if sys.getrecursionlimit() != self.limit:
            sys.setrecursionlimit(self.limit)


def may_nest_deeper(raw: bytes, limit: int = RECORD_DEPTH) -> bool:
    """Whether the JSON text ``raw`` could nest more than ``limit`` levels, at C speed: each
    level opens a bracket and closes it, so a text of fewer than twice that many bytes cannot,
    nor one with no more brackets than the limit."""
    return len(raw) > 2 * limit + 1 and raw.count(b"[") + raw.count(b"{") > limit


def nests_deeper(value: Any, limit: int = RECORD_DEPTH, raw: bytes | None = None) -> bool:
    """Whether ``value`` nests more than ``limit`` levels (a scalar is level 0). ``raw``,
    its JSON text, answers at C speed for the common record: it cannot nest deeper than it
    has brackets."""
    if raw is not None and not may_nest_deeper(raw, limit):
        return False
    stack = [(value, 1)]
    while stack:
        item, level = stack.pop()
        if isinstance(item, dict):
            children: Any = item.values()
        elif isinstance(item, list):
            children = item
        else:
            continue
        if level > limit:
            return True
        stack.extend((child, level + 1) for child in children if isinstance(child, (dict, list)))
    return False


def json_int(text: str) -> int:
    """A JSON integer, exact however long (as :func:`exact_loads` reads it)."""
    return int(text)


#: every digit as "0", every other byte as it is: a run of digits becomes a run of zeros
_DIGITS_AS_ZERO = bytes(0x30 if 0x30 <= i <= 0x39 else i for i in range(256))
#: the shortest run of digits an integer beyond 64 bits has (-2**63 - 1 has 19)
_LONG_RUN = b"0" * 19
_BIG_INT: Any = None  # the pattern of such an integer's text, compiled when first needed


def may_hold_big_int(raw: bytes) -> bool:
    """Whether the JSON text ``raw`` may hold an integer beyond 64 bits, which orjson reads
    as a float: 20 digits in a row, or 19 after a minus sign. At C speed (a translation and
    a search) for the common line, which has no 19 digits in a row."""
    global _BIG_INT
    if _LONG_RUN not in raw.translate(_DIGITS_AS_ZERO):
        return False
    if _BIG_INT is None:
        import re

        _BIG_INT = re.compile(rb"[0-9]{20}|-[0-9]{19}")
    return _BIG_INT.search(raw) is not None


def exact_loads(raw: bytes | str, parsed: Any) -> Any:
    """The JSON text ``raw``, which orjson parsed into ``parsed``, read again with its
    integers exact (the standard library's parser); ``parsed`` where that parser does
    not take the text as orjson did."""
    try:
        with deep_recursion():
            value = json.loads(raw, parse_constant=_no_constant)
    except (ValueError, RecursionError):
        return parsed
    return value


def _no_constant(token: str) -> Any:
    raise ValueError(f"{token} is no JSON")


def has_lone_surrogate(value: Any) -> bool:
    """Whether a string anywhere in ``value`` (keys too) holds a lone surrogate."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            if not item.isascii():
                try:
                    item.encode("utf-8")
                except UnicodeEncodeError:
                    return True
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return False


def _json_safe(value: Any) -> Any:
    """``value`` with NaN and the infinities as ``null``, as orjson writes them."""
    if isinstance(value, float):
        return value if value == value and value not in (_INF, -_INF) else None
    if isinstance(value, dict):
        return {key: _json_safe(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_json_safe(item) for item in value]
    return value


_INF = float("inf")


def deep_dumps(value: Any, indent: bool = False) -> str:
    """JSON text of a value orjson will not write (nested past its 255 levels): the
    standard library's, with orjson's conventions (UTF-8 text, NaN as ``null``)."""
    with deep_recursion():
        return json.dumps(
            _json_safe(value),
            ensure_ascii=False,
            allow_nan=False,
            indent=2 if indent else None,
            separators=None if indent else (",", ":"),
        )


def json_text(value: Any, indent: bool = False) -> str:
    """``value`` as JSON text (indented by two with ``indent``); never raises for a value the
    reader gave. orjson writes 255 levels; deeper values go through the standard library,
    and anything JSON has no form for is written as its ``repr``."""
    try:
        return orjson.dumps(value, option=orjson.OPT_INDENT_2 if indent else 0).decode()
    except TypeError:
        pass
    try:
        return deep_dumps(value, indent)
    except (TypeError, ValueError, RecursionError):
        with deep_recursion():
            try:
                return repr(value)
            except RecursionError:
                return f"<a {type(value).__name__} nested too deep to show>"


def as_key(value: Any) -> Any:
    """``value`` as a dict key or set member: a record may put a list or an object (nested
    as deep as the reader takes) where an id or a name belongs."""
    return value if value is None or isinstance(value, (str, int, float)) else json_text(value)
