"""Writing messages as JSONL: to standard output, a file, or a gzip file."""

from __future__ import annotations

import gzip
import sys
from typing import IO, Any, cast

import orjson

__all__ = ["JsonlOutput", "open_output"]


class JsonlOutput:
    """A JSONL destination. ``message(path, line, obj)`` is a replay sink."""

    def __init__(self, stream: IO[bytes], close: bool):
        self._stream = stream
        self._close = close
        self.count = 0

    def write(self, obj: Any) -> None:
        self._stream.write(orjson.dumps(obj) + b"\n")
        self.count += 1

    def message(self, path: str, line: int, obj: dict) -> None:
        self.write(obj)

    def __enter__(self) -> JsonlOutput:
        return self

    def __exit__(self, *exc: object) -> None:
        if self._close:
            self._stream.close()
        else:
            self._stream.flush()


def open_output(path: str | None) -> JsonlOutput:
    """Standard output for ``None`` or ``-``; a file otherwise (gzip for ``*.gz``)."""
    if path is None or path == "-":
        return JsonlOutput(sys.stdout.buffer, close=False)
    if path.endswith(".gz"):
        return JsonlOutput(cast(IO[bytes], gzip.open(path, "wb")), close=True)
    return JsonlOutput(open(path, "wb"), close=True)
