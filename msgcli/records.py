"""One JSON record per line: :class:`Record`, :class:`Problem`, and how a JSONL line is read.

This is the part of reading that knows nothing of dialects: the framings of a whole
input (:mod:`msgcli.reader`) and a dialect's own lean loop over an event stream's lines
both read JSONL lines here, and say every problem of a line the same way.
"""

from __future__ import annotations

import gc
import io
import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import orjson

from .guard import (
    RECORD_DEPTH,
    exact_loads,
    has_lone_surrogate,
    json_int,
    may_hold_big_int,
    nests_deeper,
)

__all__ = [
    "BOM",
    "GZIP_MAGIC",
    "TOO_DEEP",
    "Problem",
    "Record",
    "Truncated",
    "line_problem",
    "not_object",
    "part_records",
    "read_jsonl",
    "records_of_lines",
    "take_over",
    "too_deep",
]

BOM = b"\xef\xbb\xbf"
GZIP_MAGIC = b"\x1f\x8b"
# Bytes that never occur in JSON text outside a string, and that a text
# writer does not produce: their presence means binary data, not a typo.
_BINARY = re.compile(rb"[\x00-\x08\x0e-\x1f\x7f]")


@dataclass(slots=True, frozen=True)
class Problem:
    """Why a line is not a usable record, as a rule code and a message."""

    code: str
    message: str
    pointer: str = ""


@dataclass(slots=True)
class Record:
    """One JSON value read from the input.

    ``obj`` is the parsed value, or ``None`` when the line could not be
    parsed. ``problem`` says what was wrong; a record can have both (a line
    with a ``NaN`` token is parsed, and the token reported).
    """

    line: int
    obj: Any = None
    problem: Problem | None = None
    #: the record's JSON text (JSONL and SSE input), for checks orjson cannot make
    raw: bytes = b""
    #: where a record inside a JSON document sits in it (a JSON pointer; "" otherwise)
    where: str = ""


class Truncated(Exception):
    """A compressed input broke off at ``line``; ``reason`` says how."""

    def __init__(self, line: int, reason: str):
        self.line = line
        self.reason = reason


def part_records(data: bytes, first: bool, start: int = 1) -> Iterator[Record]:
    """The records of JSONL lines cut out of a file at line starts (``first``: the
    file's first part, which may open with a byte order mark).

    Lines are numbered from ``start`` (by default from 1 within the part: the caller adds
    the lines before it). A part is not the whole file, so having no record is no problem
    of its own.
    """
    if first and data.startswith(BOM):
        data = data[len(BOM) :]
    yield from read_jsonl(enumerate(io.BytesIO(data), start), whole=False)


def read_jsonl(lines, whole: bool = True, direct: Any = None) -> Iterator[Record]:
    loads = orjson.loads
    JSONDecodeError = orjson.JSONDecodeError
    # an integer beyond 64 bits (which orjson reads as a float) is read exactly, by the
    # standard library's parser, on the line that holds one (see msgcli.guard)
    big = may_hold_big_int
    count = 0
    pending = None  # the previous failed line, held back: it may be the truncated last one
    try:
        for number, raw in lines:
            if pending is not None:
                yield line_problem(*pending, last=False)
                pending = None
            try:
                obj = loads(raw)
            except JSONDecodeError as exc:
                if not raw.strip():
                    continue
                pending = (number, raw, exc)
                count += 1
                continue
            count += 1
            if big(raw):
                obj = exact_loads(raw, obj)
            if type(obj) is not dict:
                yield Record(number, None, not_object(obj))
            elif nests_deeper(obj, raw=raw):
                yield Record(number, None, TOO_DEEP)
            else:
                reader = yield Record(number, obj, None, raw)
                if reader is not None:
                    # the consumer reads the rest of the lines itself (see take_over)
                    rest = lines if direct is None else enumerate(direct, number + 1)
                    count += reader(rest)
                    break
    except Truncated as exc:
        if pending is not None:
            yield line_problem(*pending, last=False)
            pending = None
        yield Record(exc.line, None, Problem("P009", exc.reason))
    if pending is not None:
        yield line_problem(*pending, last=True)
    if count == 0 and whole:
        yield Record(0, None, Problem("P008", "the file is empty: it holds only blank lines"))


def take_over(records: Iterator[Record], reader: Any) -> Record | None:
    """Let ``reader(lines)`` read the rest of a JSONL input's numbered lines ``(number, raw)``
    itself, after the record ``records`` gave last (a loop that has no use for a Record per
    line). It returns how many records it read, and hands each line it cannot take to
    :func:`records_of_lines`. Other framings go on as they were: the record they give next
    is returned (``None``: the input is done)."""
    try:
        return records.send(reader)  # type: ignore[attr-defined]
    except StopIteration:
        return None


def parsed_record(number: int, raw: bytes) -> Record:
    """The record of a JSONL line as the reader makes it: the object, or a located problem
    (no object, nested too deep). Raises ``orjson.JSONDecodeError`` for a line that does not
    parse (:func:`line_problem` says why, once it is known whether the line is the last)."""
    obj = loads_exact(raw)
    if type(obj) is not dict:
        return Record(number, None, not_object(obj))
    if nests_deeper(obj, raw=raw):
        return Record(number, None, TOO_DEEP)
    return Record(number, obj, None, raw)


def loads_exact(raw: bytes | str) -> Any:
    """``orjson.loads``, an integer beyond 64 bits read as the integer it is (see
    :mod:`msgcli.guard`). Raises ``orjson.JSONDecodeError`` as it does."""
    obj = orjson.loads(raw)
    # (a text orjson took is valid UTF-8: no lone surrogate)
    data = raw.encode() if isinstance(raw, str) else raw
    return exact_loads(data, obj) if may_hold_big_int(data) else obj


@contextmanager
def collector_paused() -> Iterator[None]:
    """The cycle collector held off while a record loop runs (a loop that makes no reference
    cycles: the many short-lived values would set the collector off again and again, some
    15% of the loop's time)."""
    collecting = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if collecting:
            gc.enable()


def records_of_lines(lines: Any) -> Iterator[Record]:
    """The records of numbered JSONL lines, every problem said as for a whole file (the rest
    of an input that a :func:`take_over` reader hands back)."""
    return read_jsonl(lines, whole=False)


def too_deep() -> Problem:
    """The problem of a record nested deeper than msgcli reads (see :mod:`msgcli.guard`)."""
    return TOO_DEEP


#: a record deeper than the parser takes, or than msgcli reads (see :mod:`msgcli.guard`)
TOO_DEEP = Problem(
    "P005",
    f"the record nests deeper than {RECORD_DEPTH:,} levels: msgcli reads no record this deep "
    "(JSON parsers stop at 1,024 levels; what msgcli writes of a record must stay within that)",
)


def not_object(obj: Any) -> Problem:
    """The problem of a JSONL line that is a JSON value but no object."""
    kind = _json_type(obj)
    return Problem("P003", f"the record is a JSON {kind}, not an object")


def _json_type(obj: Any) -> str:
    if obj is None:
        return "null"
    if isinstance(obj, bool):
        return "boolean"
    if isinstance(obj, (int, float)):
        return "number"
    if isinstance(obj, str):
        return "string"
    if isinstance(obj, list):
        return "array"
    return "object"


def line_problem(number: int, raw: bytes, error: orjson.JSONDecodeError, last: bool) -> Record:
    """Say precisely why a line did not parse (``error`` is the parser's word), and recover
    what can be recovered."""
    ends_line = raw.endswith(b"\n")
    body = raw.rstrip(b"\r\n")
    if _BINARY.search(body) and _looks_binary(body):
        return Record(number, None, Problem("P007", "the line holds binary data, not JSON text"))
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError as exc:
        return Record(
            number,
            None,
            Problem(
                "P002",
                f"invalid UTF-8: byte 0x{body[exc.start]:02x} at column {exc.start + 1} "
                "cannot start or continue a character",
            ),
        )
    message, position = str(error), error.pos
    if "depth limit" in message or "recursion" in message.lower():
        return Record(number, None, TOO_DEEP)
    recovered = _with_constants(text)
    if recovered is not None:
        obj, tokens = recovered
        names = ", ".join(f"{tok} (at {ptr or 'the top'})" for tok, ptr in tokens[:5])
        more = f" and {len(tokens) - 5} more" if len(tokens) > 5 else ""
        problem = Problem(
            "P006",
            f"non-standard JSON number token {names}{more}: JSON has no NaN or Infinity; "
            "most JSON readers reject the line",
            tokens[0][1],
        )
        if type(obj) is dict and not nests_deeper(obj):
            return Record(number, obj, problem)
        return Record(number, None, problem if type(obj) is not dict else TOO_DEEP)
    if last and not ends_line and ("end of data" in message or position >= len(text)):
        return Record(
            number,
            None,
            Problem(
                "P004",
                f"the last line is cut off after {len(body)} bytes: "
                "the writer stopped in the middle of a record",
            ),
        )
    return Record(number, None, Problem("P001", f"invalid JSON: {_tidy(message)}"))


def _looks_binary(body: bytes) -> bool:
    if b"\x00" in body:
        return True
    odd = len(_BINARY.findall(body))
    return odd * 20 > len(body)  # more than 5% control bytes


def _tidy(message: str) -> str:
    # orjson says "unexpected character: line 1 column 9 (char 8)"; the line is ours to name.
    return re.sub(r": line 1 column (\d+) \(char \d+\)", r" at column \1", message)


def _with_constants(text: str) -> tuple[Any, list[tuple[str, str]]] | None:
    """Parse a line that has NaN/Infinity tokens, and say where they are."""
    if "NaN" not in text and "Infinity" not in text:
        return None
    import json

    found: list[str] = []

    def constant(token: str) -> float:
        found.append(token)
        return float(token.replace("Infinity", "inf"))

    try:
        # the guard orjson applies on the common path: numbers as orjson reads them, and
        # no lone surrogate (orjson refuses such a line; so does this path)
        obj = json.loads(text, parse_constant=constant, parse_int=json_int)
    except (ValueError, RecursionError):
        return None
    if not found or has_lone_surrogate(obj):
        return None
    return obj, _constant_pointers(obj, found)


def _constant_pointers(obj: Any, tokens: list[str]) -> list[tuple[str, str]]:
    # a loop, not a recursion: the value may nest as deep as the parser allowed, which is
    # deeper than the interpreter's recursion limit on some Pythons
    out: list[tuple[str, str]] = []
    stack: list[tuple[Any, str]] = [(obj, "")]
    while stack:
        value, path = stack.pop()
        if isinstance(value, float) and (value != value or value in (float("inf"), float("-inf"))):
            out.append(
                ("NaN" if value != value else ("-Infinity" if value < 0 else "Infinity"), path)
            )
        elif isinstance(value, dict):
            stack.extend(
                (item, f"{path}/{str(key).replace('~', '~0').replace('/', '~1')}")
                for key, item in reversed(list(value.items()))
            )
        elif isinstance(value, list):
            stack.extend(
                (item, f"{path}/{index}") for index, item in reversed(list(enumerate(value)))
            )
    return out or [(tokens[0], "")]
