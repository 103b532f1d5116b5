"""Reading records out of bytes: framing, decoding, line numbers.

A log is read as a stream of :class:`Record` objects, one per JSON value,
each with the 1-based line it starts on. Three framings are recognised from
the first bytes of the input:

- JSONL (the default): one JSON value per line; blank lines, a UTF-8 byte
  order mark and CRLF line ends are fine;
- a JSON array of records (LoongFlow's FileStorage), when the first
  non-blank byte is ``[`` and the whole input parses as one array;
- Server-Sent Events, as AgentScope's server sends an event stream:
  ``data: <json>`` lines, events separated by blank lines, ``:`` comments;
- one JSON document, when the first non-blank byte is ``{`` and that line is
  no whole object: a pretty-printed file. A known record is read as one; a
  state file (AgentScope's ``AgentState``, its 1.x session file, AgentScope
  Java's ``agent_state.json``) gives the messages inside it, each with its JSON
  pointer into the document (:attr:`Record.where`) and its line; anything else
  is one ``P011`` for the whole file.

Gzip input is recognised by its magic bytes, whatever the file is called.
Nothing here raises on bad content: every problem becomes a
:class:`Problem` on the record of the line it was found on, and reading goes
on with the next line.
"""

from __future__ import annotations

import gzip
import io
import re
import sys
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

import orjson

from .guard import RECORD_DEPTH, has_lone_surrogate, json_int, nests_deeper

__all__ = [
    "Problem",
    "ReadError",
    "Record",
    "json_file_is_log",
    "open_input",
    "part_records",
    "read_records",
]

_BOM = b"\xef\xbb\xbf"
_GZIP_MAGIC = b"\x1f\x8b"
# Bytes that never occur in JSON text outside a string, and that a text
# writer does not produce: their presence means binary data, not a typo.
_BINARY = re.compile(rb"[\x00-\x08\x0e-\x1f\x7f]")


class ReadError(Exception):
    """The input cannot be opened or read at all (a missing file, bad gzip)."""


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


#: how standard input and an unnamed stream are named in findings
STDIN_NAME = "<stdin>"
STREAM_NAME = "<stream>"


def source_name(source: str | Path | IO[bytes]) -> str:
    """The name a source is reported under: its path, ``<stdin>`` for ``-``, or a
    stream's own name (``<stream>`` when it has none)."""
    if hasattr(source, "read"):
        return str(getattr(source, "name", None) or STREAM_NAME)
    return STDIN_NAME if str(source) == "-" else str(source)


def open_input(source: str | Path | IO[bytes]) -> IO[bytes]:
    """Open a path (``-`` for standard input) as a binary stream, un-gzipping if needed."""
    raw: Any
    if hasattr(source, "read"):
        raw = source
    elif str(source) == "-":
        raw = sys.stdin.buffer
    elif isinstance(source, str) and "://" in source:
        from .remote import RemoteError, is_url, open_binary

        try:
            raw = open_binary(source) if is_url(source) else open(source, "rb")  # noqa: SIM115
        except FileNotFoundError:
            raise ReadError("no such file") from None
        except (OSError, RemoteError) as exc:
            raise ReadError(str(exc)) from None
    else:
        try:
            raw = open(source, "rb")  # noqa: SIM115 - the caller closes it
        except IsADirectoryError:
            raise ReadError("is a directory") from None
        except FileNotFoundError:
            raise ReadError("no such file") from None
        except PermissionError:
            raise ReadError("permission denied") from None
        except OSError as exc:
            raise ReadError(exc.strerror or str(exc)) from None
    if isinstance(raw, io.RawIOBase):
        raw = io.BufferedReader(raw)
    if hasattr(raw, "peek"):
        head = raw.peek(2)[:2]
    elif raw.seekable():
        where = raw.tell()
        head = raw.read(2)
        raw.seek(where)
    else:
        head = b""
    if head == _GZIP_MAGIC:
        return gzip.GzipFile(fileobj=raw, mode="rb")  # type: ignore[return-value]
    return raw


def read_records(source: str | Path | IO[bytes]) -> Iterator[Record]:
    """Every record of a log, in order. Raises :class:`ReadError` only if it cannot be opened.

    A file with no record at all gives a single record with a ``P008``
    problem and line 0. A gzip stream that breaks off gives a ``P009``
    problem on the line where it stopped.
    """
    stream = open_input(source)
    try:
        yield from _read_stream(stream)
    finally:
        if stream is not sys.stdin.buffer and not hasattr(source, "read"):
            stream.close()


def _read_stream(stream: IO[bytes]) -> Iterator[Record]:
    lines = _lines(stream)
    # Look at the first non-blank line to choose the framing.
    first: list[tuple[int, bytes]] = []
    try:
        for number, raw in lines:
            if number == 1 and raw.startswith(_BOM):
                raw = raw[len(_BOM) :]
            first.append((number, raw))
            if raw.strip():
                break
        else:
            yield Record(0, None, Problem("P008", "the file is empty: it holds no records"))
            return
    except _Truncated as exc:
        yield Record(exc.line, None, Problem("P009", exc.reason))
        return
    start = first[-1][1].lstrip()
    looked = len(first)
    if start.startswith(b"["):
        yield from _read_array(first, lines)
    elif start.startswith(b"{") and _opens_document(start):
        yield from _read_document(first, lines)
    elif start.startswith(b"{") and _holds_messages(start) and _alone(first, lines):
        # a state file written on one line; a first line of JSONL may hold messages too
        # (a converted record carrying its original in its metadata), but not alone
        yield from _read_document(first, lines)
    elif start.startswith((b"data:", b":", b"event:", b"id:", b"retry:")):
        yield from _read_sse(_chain(first, lines))
    else:
        # (a plain file's lines can be read straight from it by a consumer that takes over)
        # (not when lines past the first record were read ahead: they are in ``first``)
        direct = None if isinstance(stream, gzip.GzipFile) or len(first) > looked else stream
        yield from _read_jsonl(_chain(first, lines), direct=direct)


def _chain(first, rest):
    yield from first
    yield from rest


def _alone(first: list[tuple[int, bytes]], lines: Iterator[tuple[int, bytes]]) -> bool:
    """Whether no other record follows the first one; the lines read to find out are kept
    in ``first``."""
    try:
        for number, raw in lines:
            first.append((number, raw))
            if raw.strip():
                return False
    except _Truncated:
        return False
    return True


class _Truncated(Exception):
    def __init__(self, line: int, reason: str):
        self.line = line
        self.reason = reason


def _lines(stream: IO[bytes]) -> Iterator[tuple[int, bytes]]:
    """Numbered lines; a broken gzip stream ends the iteration with a problem record."""
    number = 0
    try:
        for number, raw in enumerate(stream, 1):
            yield number, raw
    except (EOFError, gzip.BadGzipFile, zlib.error, OSError) as exc:
        raise _Truncated(number + 1, _gzip_reason(exc)) from None


def _gzip_reason(exc: BaseException) -> str:
    if isinstance(exc, EOFError):
        return "the gzip stream ends before its end marker (the file is cut off)"
    return f"the gzip stream is corrupt ({exc})"


def part_records(data: bytes, first: bool) -> Iterator[Record]:
    """The records of JSONL lines cut out of a file at line starts (``first``: the
    file's first part, which may open with a byte order mark).

    Lines are numbered from 1 within the part; the caller adds the lines before it.
    A part is not the whole file, so having no record is no problem of its own.
    """
    if first and data.startswith(_BOM):
        data = data[len(_BOM) :]
    yield from _read_jsonl(enumerate(io.BytesIO(data), 1), whole=False)


def _read_jsonl(lines, whole: bool = True, direct: Any = None) -> Iterator[Record]:
    loads = orjson.loads
    JSONDecodeError = orjson.JSONDecodeError
    count = 0
    pending = None  # the previous failed line, held back: it may be the truncated last one
    try:
        for number, raw in lines:
            if pending is not None:
                yield _problem_record(*pending, last=False)
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
            if type(obj) is not dict:
                yield Record(number, None, _not_object(obj))
            elif nests_deeper(obj, raw=raw):
                yield Record(number, None, _TOO_DEEP)
            else:
                reader = yield Record(number, obj, None, raw)
                if reader is not None:
                    # the consumer reads the rest of the lines itself (see take_over)
                    rest = lines if direct is None else enumerate(direct, number + 1)
                    count += reader(rest)
                    break
    except _Truncated as exc:
        if pending is not None:
            yield _problem_record(*pending, last=False)
            pending = None
        yield Record(exc.line, None, Problem("P009", exc.reason))
    if pending is not None:
        yield _problem_record(*pending, last=True)
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


def records_of_lines(lines: Any) -> Iterator[Record]:
    """The records of numbered JSONL lines, every problem said as for a whole file (the rest
    of an input that a :func:`take_over` reader hands back)."""
    return _read_jsonl(lines, whole=False)


def not_object(obj: Any) -> Problem:
    """The problem of a JSONL line that is a JSON value but no object."""
    return _not_object(obj)


def too_deep() -> Problem:
    """The problem of a record nested deeper than msgcli reads (see :mod:`msgcli.guard`)."""
    return _TOO_DEEP


#: a record deeper than the parser takes, or than msgcli reads (see :mod:`msgcli.guard`)
_TOO_DEEP = Problem(
    "P005",
    f"the record nests deeper than {RECORD_DEPTH:,} levels: msgcli reads no record this deep "
    "(JSON parsers stop at 1,024 levels; what msgcli writes of a record must stay within that)",
)


def _not_object(obj: Any) -> Problem:
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


def _problem_record(number: int, raw: bytes, error: orjson.JSONDecodeError, last: bool) -> Record:
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
        return Record(number, None, _TOO_DEEP)
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
        return Record(number, None, problem if type(obj) is not dict else _TOO_DEEP)
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


# -- JSON array framing ------------------------------------------------------


def _read_array(first, rest) -> Iterator[Record]:
    chunks = [raw for _, raw in first]
    truncated = None
    try:
        for _, raw in rest:
            chunks.append(raw)
    except _Truncated as exc:
        truncated = exc
    data = b"".join(chunks)
    try:
        value = orjson.loads(data)
    except orjson.JSONDecodeError:
        value = None
    if not isinstance(value, list):
        # Not one array: read it as JSONL (a line may be an array, which is then reported).
        # (lines end at "\n" only, as everywhere else, so the numbers agree)
        yield from _read_jsonl(enumerate(io.BytesIO(data), 1))
    else:
        starts = _element_lines(data)
        if not value:
            yield Record(0, None, Problem("P008", "the file is an empty JSON array: no records"))
        for index, obj in enumerate(value):
            line = starts[index] if index < len(starts) else 1
            if type(obj) is not dict:
                yield Record(line, None, _not_object(obj))
            elif nests_deeper(obj):
                yield Record(line, None, _TOO_DEEP)
            else:
                yield Record(line, obj)
    if truncated is not None:
        yield Record(truncated.line, None, Problem("P009", truncated.reason))


_TOKENS = re.compile(rb'[\[\]{}",\n\\]')


def _element_lines(data: bytes) -> list[int]:
    """The 1-based line on which each top-level element of a JSON array starts."""
    starts: list[int] = []
    depth = 0
    line = 1
    in_string = False
    escaped = False
    expect_value = False
    pos = 0
    size = len(data)
    while pos < size:
        if expect_value:
            # Skip blanks to the element's first byte.
            while pos < size and data[pos] in b" \t\r\n":
                if data[pos] == 0x0A:
                    line += 1
                pos += 1
            if pos < size and data[pos] != 0x5D:  # not "]"
                starts.append(line)
            expect_value = False
            continue
        match = _TOKENS.search(data, pos)
        if match is None:
            break
        char = match.group()
        pos = match.end()
        if char == b"\n":
            line += 1
            continue
        if in_string:
            if escaped:
                escaped = False
            elif char == b"\\":
                escaped = True
            elif char == b'"':
                in_string = False
            continue
        if char == b'"':
            in_string = True
        elif char in (b"[", b"{"):
            depth += 1
            if depth == 1 and char == b"[":
                expect_value = True
        elif char in (b"]", b"}"):
            depth -= 1
        elif char == b"," and depth == 1:
            expect_value = True
    return starts


# -- Server-Sent Events framing -----------------------------------------------


def _read_sse(lines) -> Iterator[Record]:
    """Events as the OpenAI and Anthropic SDKs decode them: lines end at CR, LF or CRLF;
    ``:`` lines are comments; several ``data:`` lines join with a newline; an event ends at
    a blank line. ``data: [DONE]`` (OpenAI's end marker) and frames with empty data carry
    no record; ``event:`` names are left to the JSON ``type`` each frame holds."""
    data: list[bytes] = []
    start = 0
    count = 0
    try:
        for number, raw in lines:
            body = raw.rstrip(b"\n")
            if body.endswith(b"\r"):
                body = body[:-1]
            for piece in body.split(b"\r") if b"\r" in body else (body,):
                if not piece.strip():
                    if data:
                        count += 1
                        record = _sse_record(start, data)
                        if record is not None:
                            yield record
                        data = []
                    continue
                if piece.startswith(b":"):
                    continue  # a comment or heartbeat
                field, _, value = piece.partition(b":")
                if field == b"data":
                    if not data:
                        start = number
                    data.append(value[1:] if value.startswith(b" ") else value)
                # "event:", "id:", "retry:" and unknown fields carry nothing we rebuild from.
    except _Truncated as exc:
        yield Record(exc.line, None, Problem("P009", exc.reason))
    if data:
        count += 1
        record = _sse_record(start, data, last=True)
        if record is not None:
            yield record
    if count == 0:
        yield Record(0, None, Problem("P008", "the event stream holds no data records"))


def _sse_record(line: int, data: list[bytes], last: bool = False) -> Record | None:
    payload = b"\n".join(data)
    if payload == b"[DONE]" or not payload.strip():
        return None  # OpenAI's end marker, or a frame with no data (the SDKs skip both)
    try:
        obj = orjson.loads(payload)
    except orjson.JSONDecodeError as exc:
        return _problem_record(line, payload, exc, last=last)
    if type(obj) is not dict:
        return Record(line, None, _not_object(obj))
    if nests_deeper(obj, raw=payload):
        return Record(line, None, _TOO_DEEP)
    return Record(line, obj, None, payload)


# -- one JSON document ----------------------------------------------------------


def json_file_is_log(path: str | Path) -> bool:
    """Whether a ``*.json`` file is worth checking as a log: a JSON document holding a known
    record or messages, an array, or JSONL whose first record is of a known dialect (one
    that does not parse is a broken log, and is checked)."""
    from .dialects import classify

    records = read_records(path)
    try:
        first = next(records, None)
    except ReadError:
        return True
    finally:
        close = getattr(records, "close", None)
        if close is not None:
            close()
    if first is None:
        return True
    if first.problem is not None and first.problem.code == "P011":
        return False
    return first.obj is None or first.where != "" or classify(first.obj) is not None


def _holds_messages(line: bytes) -> bool:
    """Whether a first line that is a whole object is a state file written on one line (an
    AgentScope 1.x session file: ``json.dumps(state_dicts)``): no record of a known dialect
    itself, messages inside."""
    from .dialects import classify

    try:
        value = orjson.loads(line)
    except orjson.JSONDecodeError:
        return False
    return type(value) is dict and classify(value) is None and bool(document_messages(value))


def _opens_document(line: bytes) -> bool:
    """Whether a first line that starts with ``{`` opens an object over several lines:
    it is no object by itself, and ends where a pretty-printer breaks a line."""
    try:
        orjson.loads(line)
        return False
    except orjson.JSONDecodeError:
        pass
    body = line.rstrip()
    return body == b"{" or body.endswith((b"{", b"[", b","))


#: how deep below the top a document's messages are looked for
_DOCUMENT_DEPTH = 6


def _read_document(first, rest) -> Iterator[Record]:
    chunks = [raw for _, raw in first]
    truncated = None
    try:
        for _, raw in rest:
            chunks.append(raw)
    except _Truncated as exc:
        truncated = exc
    data = b"".join(chunks)
    start = first[-1][0]
    try:
        value = orjson.loads(data)
    except orjson.JSONDecodeError as exc:
        value = None
        problem = _document_problem(data, exc)
        yield Record(max(start, problem[0]), None, problem[1])
    if type(value) is dict:
        yield from _document_records(data, value, start)
    if truncated is not None:
        yield Record(truncated.line, None, Problem("P009", truncated.reason))


def _document_problem(data: bytes, exc: orjson.JSONDecodeError) -> tuple[int, Problem]:
    line = getattr(exc, "lineno", 1) or 1
    message = str(exc)
    if "depth limit" in message:
        return line, _TOO_DEEP
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as bad:
        line = data.count(b"\n", 0, bad.start) + 1
        return line, Problem(
            "P002",
            f"invalid UTF-8: byte 0x{data[bad.start]:02x} cannot start or continue a character",
        )
    found = re.sub(r": line \d+ column (\d+) \(char \d+\)", r" at column \1", message)
    return line, Problem("P001", f"invalid JSON in the document that starts on line 1: {found}")


def document_messages(value: dict) -> list[tuple[str, dict]]:
    """``(JSON pointer, message)`` for every message of a known dialect held in a document
    (its lists and objects, up to a few levels down; a message is not looked into)."""
    from .dialects import MESSAGE, classify

    found: list[tuple[str, dict]] = []

    def walk(item: Any, pointer: str, depth: int, listed: bool) -> None:
        if isinstance(item, dict):
            if listed:  # messages are kept in lists (a context, a memory, a pair)
                kind = classify(item)
                if kind is not None and kind[1] == MESSAGE:
                    found.append((pointer, item))
                    return
            if depth < _DOCUMENT_DEPTH:
                for key, child in item.items():
                    if isinstance(child, (dict, list)):
                        walk(child, f"{pointer}/{_escape_key(key)}", depth + 1, False)
        elif isinstance(item, list) and depth < _DOCUMENT_DEPTH:
            for index, child in enumerate(item):
                if isinstance(child, (dict, list)):
                    walk(child, f"{pointer}/{index}", depth + 1, True)

    walk(value, "", 0, False)
    return found


def document_kind(value: Any) -> str | None:
    """``"record"`` (a known record), ``"messages"`` (a state file holding messages) or
    ``None`` (no log) for a parsed JSON document."""
    from .dialects import MESSAGE, classify

    if type(value) is not dict:
        return None
    found = classify(value)
    if found is not None and found[1] == MESSAGE:
        return "record"  # a message record of its own (a provider's request body, say)
    if document_messages(value):
        return "messages"  # a state file: its own keys may look like an event's
    return "record" if found is not None else None


def _document_records(data: bytes, value: dict, start: int) -> Iterator[Record]:
    kind = document_kind(value)
    if nests_deeper(value, raw=data):
        yield Record(start, None, _TOO_DEEP)
    elif kind == "record":
        yield Record(start, value, None)
    elif kind == "messages":
        found = document_messages(value)
        lines = _pointer_lines(data, {pointer for pointer, _ in found})
        for pointer, message in found:
            yield Record(lines.get(pointer, start), message, None, where=pointer)
    else:
        keys = ", ".join(_escape_key(k) for k in list(value)[:8]) or "no keys"
        yield Record(
            start,
            None,
            Problem(
                "P011",
                f"a single JSON document, not a log (keys: {keys}): it holds no message or "
                "event of a known dialect",
            ),
        )


def _escape_key(key: str) -> str:
    return key.replace("~", "~0").replace("/", "~1")


_SCAN = re.compile(rb'"(?:[^"\\]|\\.)*"|[\[\]{},\n]')


def _pointer_lines(data: bytes, wanted: set[str]) -> dict[str, int]:
    """The 1-based line on which the value at each of the ``wanted`` JSON pointers starts
    (objects and arrays only), by one pass over the document's text."""
    out: dict[str, int] = {}
    line = 1
    # one frame per open container: [kind, key or index of the current member, expects a key]
    stack: list[list[Any]] = []
    for match in _SCAN.finditer(data):
        token = match.group()
        first = token[:1]
        if first == b"\n":
            line += 1
        elif first == b'"':
            if stack and stack[-1][2]:
                try:
                    stack[-1][1] = _escape_key(orjson.loads(token))
                except orjson.JSONDecodeError:
                    stack[-1][1] = ""
                stack[-1][2] = False
        elif first in b"[{":
            pointer = "".join(f"/{frame[1]}" for frame in stack)
            if pointer in wanted:
                out[pointer] = line
                if len(out) == len(wanted):
                    break
            stack.append([first, 0 if first == b"[" else "", first == b"{"])
        elif first in b"]}":
            if stack:
                stack.pop()
        elif first == b"," and stack:
            frame = stack[-1]
            if frame[0] == b"[":
                frame[1] += 1
            else:
                frame[2] = True
    return out
