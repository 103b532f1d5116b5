"""Writing messages as JSONL: to standard output, a file, or a gzip file."""

from __future__ import annotations

import sys
from typing import IO, Any, cast

import orjson

from .guard import deep_dumps, deep_recursion
from .outputs import PendingFile

__all__ = ["JsonlOutput", "deep_recursion", "dumps", "open_output"]


def dumps(obj: Any) -> bytes:
    """Compact JSON of a record. orjson writes up to 255 levels of nesting; a record the
    reader accepted may hold more (up to 1,010: msgcli.guard), which the standard library then
    writes, NaN as null as orjson does."""
    try:
        return orjson.dumps(obj)
    except TypeError:
        return deep_dumps(obj).encode()


def dumps_line(obj: Any) -> bytes:
    """:func:`dumps` and a newline."""
    try:
        return orjson.dumps(obj, option=orjson.OPT_APPEND_NEWLINE)
    except TypeError:
        return deep_dumps(obj).encode() + b"\n"


class JsonlOutput:
    """A JSONL destination. ``message(path, line, obj)`` is a replay sink.

    A file is written through a :class:`~msgcli.outputs.PendingFile`: it takes its place
    when the ``with`` block ends normally, and is not there at all if it ends by an
    exception."""

    def __init__(self, stream: IO[bytes], close: bool, pending: PendingFile | None = None):
        self._stream = stream
        self._close = close
        self._pending = pending
        self.count = 0

    def write(self, obj: Any) -> None:
        self._stream.write(dumps_line(obj))
        self.count += 1

    def document(self, obj: Any) -> None:
        """One JSON document, indented as a person reads it (a whole log, where it is the
        only one written: an ATIF ``trajectory.json``)."""
        try:
            data = orjson.dumps(obj, option=orjson.OPT_INDENT_2 | orjson.OPT_APPEND_NEWLINE)
        except TypeError:
            import json

            with deep_recursion():
                data = (json.dumps(obj, indent=2, ensure_ascii=False) + "\n").encode()
        self._stream.write(data)
        self.count += 1

    def message(self, path: str, line: int, obj: dict) -> None:
        # (write() written out: a replay sends every message it rebuilds here)
        try:
            data = orjson.dumps(obj, option=orjson.OPT_APPEND_NEWLINE)
        except TypeError:
            data = deep_dumps(obj).encode() + b"\n"
        self._stream.write(data)
        self.count += 1

    def lines(self, data: bytes, count: int) -> None:
        """``count`` messages at once, written as :meth:`message` writes each (by
        :func:`dumps_line`: a part of a replay done in another process)."""
        self._stream.write(data)
        self.count += count

    def __enter__(self) -> JsonlOutput:
        return self

    def __exit__(self, kind: object, *exc: object) -> None:
        if self._pending is not None:
            if kind is None:
                self._pending.commit()
            else:
                self._pending.discard()
        elif self._close:
            self._stream.close()
        else:
            self._stream.flush()


def open_output(path: str | None) -> JsonlOutput:
    """Standard output for ``None`` or ``-``; a file otherwise (gzip for ``*.gz``), written
    beside its place and renamed into it when done (see :mod:`msgcli.outputs`)."""
    if path is None or path == "-":
        return JsonlOutput(sys.stdout.buffer, close=False)
    pending = PendingFile(path)
    return JsonlOutput(cast(IO[bytes], pending.stream), close=True, pending=pending)
