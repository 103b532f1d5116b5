"""Following a log that is still being written (``msgcli show --follow``)."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator

__all__ = ["TailFile"]


class TailFile:
    """A file read as it grows: at its end, wait for more instead of stopping.

    Lines are handed out whole (a line being written is waited for). Reading
    ends when ``stop()`` says so, or after ``idle`` seconds with nothing new.
    """

    def __init__(
        self,
        path: str,
        idle: float | None = None,
        poll: float = 0.1,
        stop: Callable[[], bool] = lambda: False,
    ):
        self._file = open(path, "rb")  # noqa: SIM115 - closed by close()
        self._idle = idle
        self._poll = poll
        self._stop = stop
        self._partial = b""

    def read(self, size: int = -1) -> bytes:
        return b"".join(self._lines())

    def peek(self, size: int = 1) -> bytes:
        # framing is chosen from the first line; gzip cannot be followed
        return b""

    def __iter__(self) -> Iterator[bytes]:
        return self._lines()

    def _lines(self) -> Iterator[bytes]:
        waited = 0.0
        while True:
            chunk = self._file.readline()
            if chunk:
                waited = 0.0
                self._partial += chunk
                if chunk.endswith(b"\n"):
                    line, self._partial = self._partial, b""
                    yield line
                continue
            if self._stop() or (self._idle is not None and waited >= self._idle):
                if self._partial:
                    line, self._partial = self._partial, b""
                    yield line
                return
            time.sleep(self._poll)
            waited += self._poll

    def close(self) -> None:
        self._file.close()
