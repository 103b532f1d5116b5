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

import contextlib
import gzip
import io
import os
import re
import stat
import sys
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

import orjson

from .guard import nests_deeper
from .records import (
    BOM,
    GZIP_MAGIC,
    TOO_DEEP,
    Problem,
    Record,
    Truncated,
    line_problem,
    loads_exact,
    not_object,
    parsed_record,
    part_records,
    read_jsonl,
)
from .suffixes import LOG_SUFFIXES

__all__ = [
    "Problem",
    "ReadError",
    "Record",
    "container_of",
    "json_file_is_log",
    "open_input",
    "part_records",
    "read_records",
]


class ReadError(Exception):
    """The input cannot be opened or read at all (a missing file, bad gzip)."""


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
        head = raw.peek(4)[:4]
    elif raw.seekable():
        where = raw.tell()
        head = raw.read(4)
        raw.seek(where)
    else:
        head = b""
    if head[:2] == GZIP_MAGIC:
        return gzip.GzipFile(fileobj=raw, mode="rb")  # type: ignore[return-value]
    if head == ZSTD_MAGIC:
        return _zstd_reader(raw)
    return raw


#: the first bytes of a Zstandard frame (Codex CLI's ``rollout-*.jsonl.zst``)
ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"


class Decoded(io.BufferedReader):
    """A decompressed stream (its lines are not the file's bytes: no reader takes over)."""


def _zstd_reader(raw: Any) -> IO[bytes]:
    try:
        import zstandard  # the zstd extra: imported only for a compressed input
    except ImportError:
        raise ReadError(
            "a Zstandard-compressed file: reading it needs the zstd extra "
            "(pip install 'msgcli[zstd]')"
        ) from None
    return Decoded(_ZstdFrames(raw, zstandard))


class _ZstdFrames(io.RawIOBase):
    """The bytes of every Zstandard frame of a file, one after another. A file that ends
    inside a frame raises ``EOFError`` and corrupt data ``OSError`` (what the line reader
    reports as a P009 at the line it reached), never a silent end or a library error."""

    def __init__(self, raw: Any, zstandard: Any):
        self._raw = raw
        self._zstd = zstandard
        self._obj = zstandard.ZstdDecompressor().decompressobj()
        self._pending = b""
        self._started = False
        self._done = False

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        while not self._pending and not self._done:
            chunk = self._raw.read(1 << 17)
            if not chunk:
                self._done = True
                if self._started and not self._obj.eof:
                    raise EOFError("the Zstandard stream ends inside a frame")
                break
            self._started = True
            try:
                self._pending = self._obj.decompress(chunk)
                while self._obj.eof and self._obj.unused_data:
                    rest = self._obj.unused_data
                    self._obj = self._zstd.ZstdDecompressor().decompressobj()
                    self._pending += self._obj.decompress(rest)
            except self._zstd.ZstdError as exc:
                raise OSError(f"Zstandard: {exc}") from None
        size = min(len(buffer), len(self._pending))
        buffer[:size] = self._pending[:size]
        self._pending = self._pending[size:]
        return size


def read_records(source: str | Path | IO[bytes]) -> Iterator[Record]:
    """Every record of a log, in order. Raises :class:`ReadError` only if it cannot be opened.

    A file with no record at all gives a single record with a ``P008``
    problem and line 0. A gzip stream that breaks off gives a ``P009``
    problem on the line where it stopped.
    """
    part = _document_part(source)
    if part is not None:
        yield from _read_part(*part)
        return
    container = container_of(source)
    if container is not None:
        from .containers import Unreadable

        try:
            yield from container.load()(str(source))
        except Unreadable as exc:
            raise ReadError(str(exc)) from None
        return
    if isinstance(source, str) and "://" in source:
        remote = _remote_container(source)
        if remote is not None:
            yield from _read_remote_container(source, remote)
            return
    stream = open_input(source)
    try:
        yield from _read_stream(stream)
    finally:
        if stream is not sys.stdin.buffer and not hasattr(source, "read"):
            stream.close()


def _document_part(source: str | Path | IO[bytes]) -> tuple[str, str] | None:
    """``(file, JSON pointer)`` of a name ``<file>#/<pointer>`` that names a part of a log
    that is one JSON document (an ATIF trajectory's embedded subagent, which ``show`` nests
    under the step that refers to it), when no file has that whole name."""
    if hasattr(source, "read"):
        return None
    name = str(source)
    if "#/" not in name or "://" in name:
        return None
    import os

    if os.path.exists(name):
        return None
    base, _, fragment = name.partition("#")
    return (base, fragment) if os.path.isfile(base) else None


def _read_part(path: str, pointer: str) -> Iterator[Record]:
    """The records of the part of a JSON document at ``pointer``, as its dialect makes
    records of a document (:meth:`msgcli.dialects.Dialect.document_records`), each on its
    line of the whole file and with its pointer into it."""
    from .dialects import split_document

    stream = open_input(path)
    try:
        data = stream.read()
    finally:
        stream.close()
    try:
        value: Any = orjson.loads(data)
    except orjson.JSONDecodeError as exc:
        line, problem = _document_problem(data, exc)
        yield Record(line, None, problem)
        return
    for key in pointer.split("/")[1:]:
        key = key.replace("~1", "/").replace("~0", "~")
        if isinstance(value, dict):
            value = value.get(key)
        elif isinstance(value, list) and key.isdigit() and int(key) < len(value):
            value = value[int(key)]
        else:
            value = None
    parts = split_document(value) if type(value) is dict else None
    if parts is None:
        yield Record(1, None, Problem("P011", f"{pointer} of the document holds no log"))
        return
    lines = _pointer_lines(data, {pointer + where for where, _ in parts})
    for where, record in parts:
        yield Record(lines.get(pointer + where, 1), record, None, where=pointer + where)


def _remote_container(url: str) -> Any:
    """The container (:mod:`msgcli.containers`) an object in storage is, by its name."""
    from .containers import CONTAINERS

    name = url.rstrip("/").rsplit("/", 1)[-1]
    return next((c for c in CONTAINERS if c.names and c.takes_name(name)), None)


def _read_remote_container(url: str, container: Any) -> Iterator[Record]:
    """The records of a container kept in object storage: its reader needs a local file (a
    database is opened by its path), so the object, and the files that go with it (a
    SQLite database's write-ahead log), are copied into a temporary folder first, removed
    once the records are read."""
    import shutil
    import tempfile

    from .containers import Unreadable
    from .remote import RemoteError, is_url, open_binary

    if not is_url(url):
        raise ReadError("no such file")
    with tempfile.TemporaryDirectory(prefix="msgcli-") as folder:
        local = os.path.join(folder, url.rstrip("/").rsplit("/", 1)[-1])
        for suffix in ("", *container.companions):
            try:
                with open_binary(url + suffix) as src, open(local + suffix, "wb") as dst:
                    shutil.copyfileobj(src, dst, 1 << 20)
            except FileNotFoundError:
                if not suffix:
                    raise ReadError("no such file") from None
            except (OSError, RemoteError) as exc:
                if not suffix:
                    raise ReadError(str(exc)) from None
        try:
            yield from container.load()(local)
        except Unreadable as exc:
            raise ReadError(str(exc)) from None


def container_of(source: str | Path | IO[bytes]) -> Any:
    """The container (:mod:`msgcli.containers`) a local file is, by its first bytes or its
    name; ``None`` for every JSON log (and for standard input, a stream or a URL)."""
    from .containers import CONTAINERS, container_for

    if not CONTAINERS or hasattr(source, "read") or str(source) == "-" or "://" in str(source):
        return None
    name = str(source)
    if name.endswith(LOG_SUFFIXES) or all(c.magic is None for c in CONTAINERS):
        # (a JSON log's name, or containers told by their names alone: not opened to look)
        return container_for(name, b"")
    try:
        if not stat.S_ISREG(os.stat(source).st_mode):
            return container_for(name, b"")  # (a pipe's first bytes are not read twice)
        with open(source, "rb") as file:
            head = file.read(16)
    except OSError:
        return None  # (opening it again says why)
    return container_for(name, head)


def _read_stream(stream: IO[bytes]) -> Iterator[Record]:
    lines = _lines(stream)
    # Look at the first non-blank line to choose the framing.
    first: list[tuple[int, bytes]] = []
    try:
        for number, raw in lines:
            if number == 1 and raw.startswith(BOM):
                raw = raw[len(BOM) :]
            first.append((number, raw))
            if raw.strip():
                break
        else:
            yield Record(0, None, Problem("P008", "the file is empty: it holds no records"))
            return
    except Truncated as exc:
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
        direct = (
            None if isinstance(stream, (gzip.GzipFile, Decoded)) or len(first) > looked else stream
        )
        yield from read_jsonl(_chain(first, lines), direct=direct)


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
    except Truncated:
        return False
    return True


def _lines(stream: IO[bytes]) -> Iterator[tuple[int, bytes]]:
    """Numbered lines; a broken gzip stream ends the iteration with a problem record."""
    number = 0
    try:
        for number, raw in enumerate(stream, 1):
            yield number, raw
    except (EOFError, gzip.BadGzipFile, zlib.error, OSError) as exc:
        raise Truncated(number + 1, _gzip_reason(exc)) from None


def _gzip_reason(exc: BaseException) -> str:
    kind = "Zstandard" if "Zstandard" in str(exc) else "gzip"
    if isinstance(exc, EOFError):
        return f"the {kind} stream ends before its end marker (the file is cut off)"
    return f"the {kind} stream is corrupt ({exc})"


# -- JSON array framing ------------------------------------------------------


def _read_array(first, rest) -> Iterator[Record]:
    chunks = [raw for _, raw in first]
    truncated = None
    try:
        for _, raw in rest:
            chunks.append(raw)
    except Truncated as exc:
        truncated = exc
    data = b"".join(chunks)
    try:
        value = loads_exact(data)
    except orjson.JSONDecodeError:
        value = None
    if not isinstance(value, list):
        # Not one array: read it as JSONL (a line may be an array, which is then reported).
        # (lines end at "\n" only, as everywhere else, so the numbers agree)
        yield from read_jsonl(enumerate(io.BytesIO(data), 1))
    else:
        starts = _element_lines(data)
        if not value:
            yield Record(0, None, Problem("P008", "the file is an empty JSON array: no records"))
        for index, obj in enumerate(value):
            line = starts[index] if index < len(starts) else 1
            if type(obj) is not dict:
                yield Record(line, None, not_object(obj))
            elif nests_deeper(obj):
                yield Record(line, None, TOO_DEEP)
            else:
                # where the element sits in the document, as for a state file's messages
                # (LoongFlow's FileStorage writes its memory as one array: a message's
                # pointer is its index)
                yield Record(line, obj, where=f"/{index}")
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
    except Truncated as exc:
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
        return parsed_record(line, payload)
    except orjson.JSONDecodeError as exc:
        return line_problem(line, payload, exc, last=last)


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
#: the keys that hold a provider request body's conversation
_REQUEST_KEYS = frozenset({"messages", "input"})


def _read_document(first, rest) -> Iterator[Record]:
    chunks = [raw for _, raw in first]
    truncated = None
    try:
        for _, raw in rest:
            chunks.append(raw)
    except Truncated as exc:
        truncated = exc
    data = b"".join(chunks)
    start = first[-1][0]
    try:
        value = loads_exact(data)
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
        return line, TOO_DEEP
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
    from .dialects import MESSAGE, classify, is_plain

    found: list[tuple[str, dict]] = []

    def is_message(item: dict) -> bool:
        kind = classify(item)
        return kind is not None and kind[1] == MESSAGE

    def is_request(item: dict) -> bool:
        """A request body of a known API whose conversation holds messages only."""
        if not is_message(item):
            return False
        for key in _REQUEST_KEYS.intersection(item):
            held = item[key]
            if isinstance(held, list) and not (
                all(isinstance(child, dict) and is_message(child) for child in held)
                and one_dialect(held)
            ):
                return False
        return True

    def one_dialect(objects: list[dict]) -> bool:
        kinds = [classify(item) for item in objects if not is_plain(item)]
        return len({kind[0] for kind in kinds if kind is not None}) <= 1

    def walk(item: Any, pointer: str, depth: int) -> None:
        if isinstance(item, dict):
            if depth and _REQUEST_KEYS.intersection(item) and is_request(item):
                # a provider's request body kept in a document (a test harness's record of
                # the call it made): one record, read as its API's, as a request.json is
                found.append((pointer, item))
            elif depth < _DOCUMENT_DEPTH:
                for key, child in item.items():
                    if isinstance(child, (dict, list)):
                        walk(child, f"{pointer}/{_escape_key(key)}", depth + 1)
        elif isinstance(item, list) and depth < _DOCUMENT_DEPTH:
            # messages are kept in lists (a context, a memory, a pair); a list whose objects
            # are messages and something else, or messages of several dialects (a test
            # harness's wrapped objects, say), is no conversation: read partly, its tool
            # results would answer nothing
            objects = [child for child in item if isinstance(child, dict)]
            messages = [is_message(child) for child in objects]
            if not any(messages) or (all(messages) and one_dialect(objects)):
                taken = iter(messages)
                for index, child in enumerate(item):
                    if isinstance(child, dict) and next(taken):
                        found.append((f"{pointer}/{index}", child))
                    elif isinstance(child, (dict, list)):
                        walk(child, f"{pointer}/{index}", depth + 1)

    walk(value, "", 0)
    return found


def document_kind(value: Any) -> str | None:
    """``"record"`` (a known record), ``"messages"`` (a state file holding messages),
    ``"records"`` (a log that is one document, made records by its dialect) or ``None`` (no
    log) for a parsed JSON document."""
    from .dialects import MESSAGE, classify

    if type(value) is not dict:
        return None
    from .dialects import split_document

    if split_document(value) is not None:
        return "records"  # a log that is one document (an ATIF trajectory)
    found = classify(value)
    if found is not None and found[1] == MESSAGE:
        return "record"  # a message record of its own (a provider's request body, say)
    if document_messages(value):
        return "messages"  # a state file: its own keys may look like an event's
    return "record" if found is not None else None


def _document_records(data: bytes, value: dict, start: int) -> Iterator[Record]:
    from .dialects import split_document

    if nests_deeper(value, raw=data):
        yield Record(start, None, TOO_DEEP)
        return
    parts = split_document(value)
    if parts is not None:
        # a log that is one document (an ATIF trajectory): its dialect's records, each on
        # the line its value starts on
        lines = _pointer_lines(data, {pointer for pointer, _ in parts if pointer})
        for pointer, record in parts:
            yield Record(
                lines.get(pointer, start) if pointer else start, record, None, where=pointer
            )
        return
    kind = document_kind(value)
    if kind == "record":
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


_BLANK = re.compile(r"[ \t\n\r]*")


def _after_blank(text: str, pos: int) -> int:
    """The offset of the first character at or after ``pos`` that is no JSON white space."""
    found = _BLANK.match(text, pos)
    return pos if found is None else found.end()


def _pointer_lines(data: bytes, wanted: set[str]) -> dict[str, int]:
    """The 1-based line on which the value at each of the ``wanted`` JSON pointers starts
    (objects and arrays only), by one pass over the document's text: the containers on the
    way to a wanted value are walked member by member, every other value is passed over
    by the standard library's JSON scanner (a trajectory of many thousand steps is read at
    the scanner's speed); lines are counted only where a value is found."""
    import json

    out: dict[str, int] = {}
    if not wanted:
        return out
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return out
    parents: set[str] = set()
    for pointer in wanted:
        parts = pointer.split("/")
        parents.update("/".join(parts[:i]) for i in range(1, len(parts)))
    skip = json.JSONDecoder().raw_decode
    scan = json.decoder.scanstring  # type: ignore[attr-defined]
    where = [1, 0]  # the line, and the offset up to which its newlines are counted

    def found(pointer: str, pos: int) -> None:
        where[0] += text.count("\n", where[1], pos)
        where[1] = pos
        out[pointer] = where[0]

    def walk(pos: int, pointer: str) -> int:
        """The value at ``pos`` (``pointer``) walked; the offset after it."""
        if pointer in wanted:
            found(pointer, pos)
        opening = text[pos]
        if pointer not in parents or opening not in "{[":
            return skip(text, pos)[1]
        closing = "}" if opening == "{" else "]"
        pos = _after_blank(text, pos + 1)
        if text[pos] == closing:
            return pos + 1
        index = 0
        while True:
            if opening == "{":
                key, pos = scan(text, pos + 1)
                pos = _after_blank(text, pos) + 1  # past the ":"
                pos = _after_blank(text, pos)
                child = f"{pointer}/{_escape_key(key)}"
            else:
                child = f"{pointer}/{index}"
                index += 1
            deeper = child in wanted or child in parents
            pos = walk(pos, child) if deeper else skip(text, pos)[1]
            pos = _after_blank(text, pos)
            if text[pos] != ",":
                return pos + 1
            pos = _after_blank(text, pos + 1)

    with contextlib.suppress(ValueError, IndexError, RecursionError):
        # (a document that does not parse: what was found so far; the others start on
        # the document's first line)
        walk(_after_blank(text, 1 if text.startswith("\ufeff") else 0), "")
    return out
