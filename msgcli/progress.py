"""A progress bar on standard error while a large input is checked or replayed.

The bar is drawn by a thread of its own a few times a second, from counters
the checking code keeps anyway (bytes of the files finished, the position of
the file being read, the records counted), so it costs the records nothing.
It is shown only on a terminal, only for the text report, and only when the
inputs are large (:data:`LARGE_BYTES`); it is gone from the screen when the run
ends, before the findings are printed.

:func:`progress` makes the bar for a block of code; the :class:`Tracker` it shows
is handed to the code that reads the inputs (``validate_paths(..., tracker=...)``),
which moves it; :func:`tracker` names the bar of the block a run is made in.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import IO, Any

__all__ = ["LARGE_BYTES", "Tracker", "drawing_paused", "input_bytes", "progress", "tracker"]

#: inputs smaller than this in all are done before a bar would help
LARGE_BYTES = 32 << 20


class Tracker:
    """How far a run has got: bytes and records of the inputs done, plus the one being read."""

    def __init__(self, total: int):
        self.total = total
        self.bytes_done = 0
        self.records_done = 0
        self._stream: IO[bytes] | None = None
        self._summary: Any = None
        #: the thread drawing the bar (see drawing_paused)
        self.drawing: _Drawing | None = None

    def reading(self, stream: IO[bytes] | None, summary: Any) -> None:
        """The file read in this process now (``None``: none), and its summary."""
        self._stream, self._summary = stream, summary

    def done(self, size: int, records: int) -> None:
        self.bytes_done += size
        self.records_done += records

    @contextmanager
    def paused(self) -> Iterator[None]:
        """No drawing thread runs inside the block: worker processes are forked there, and
        a fork copies no other thread, but would copy a lock such a thread held."""
        drawing = self.drawing
        if drawing is None:
            yield
            return
        drawing.stop()
        try:
            yield
        finally:
            drawing.start()

    def position(self) -> tuple[int, int]:
        at, records = self.bytes_done, self.records_done
        stream, summary = self._stream, self._summary
        if stream is not None:
            with suppress(OSError, ValueError):  # closed meanwhile
                at += stream.tell()
        if summary is not None:
            records += summary.records
        return min(at, self.total), records


#: the tracker of the run in progress in this process, if a bar is shown
_current: Tracker | None = None


def tracker() -> Tracker | None:
    """The bar of the :func:`progress` block in progress, if one is shown."""
    return _current


def input_bytes(paths: Iterable[str | Path]) -> int:
    """The size of every file the paths name (directories searched as a run would)."""
    from .inputs import expand_paths
    from .remote import size

    total = 0
    for _, source, _ in expand_paths(paths):
        if source is not None and source != "-":
            with suppress(OSError):
                total += size(source)
    return total


@contextmanager
def progress(paths: list[str], enabled: bool) -> Iterator[Tracker | None]:
    """Show a bar for the run inside the block, if ``enabled`` and the inputs are large;
    the block is given its :class:`Tracker` (None: no bar)."""
    global _current
    if not enabled or not sys.stderr.isatty() or "-" in paths:
        yield None
        return
    total = input_bytes(paths)
    if total < LARGE_BYTES:
        yield None
        return
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        DownloadColumn,
        Progress,
        TextColumn,
        TimeRemainingColumn,
        TransferSpeedColumn,
    )

    state = Tracker(total)
    console = Console(stderr=True, markup=False, highlight=False, emoji=False)
    bar = Progress(
        TextColumn("checking"),
        BarColumn(),
        DownloadColumn(),
        TransferSpeedColumn(),
        TextColumn("{task.fields[records]:,} records, {task.fields[rate]:,.0f}/s"),
        TimeRemainingColumn(),
        console=console,
        transient=True,
        auto_refresh=False,
    )
    task = bar.add_task("", total=total, records=0, rate=0.0)

    def draw(stop: threading.Event) -> None:
        while not stop.wait(0.2):
            at, records = state.position()
            elapsed = bar.tasks[0].elapsed or 0.0
            rate = records / elapsed if elapsed > 0 else 0.0
            bar.update(task, completed=at, records=records, rate=rate)
            bar.refresh()

    _current = state
    with bar:
        state.drawing = _Drawing(draw)
        try:
            yield state
        finally:
            state.drawing.stop()
            _current = None


class _Drawing:
    """The thread that redraws the bar, which can be stopped and started again."""

    def __init__(self, draw: Callable[[threading.Event], None]):
        self._draw = draw
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.start()

    def start(self) -> None:
        self._stop = threading.Event()
        self._thread = threading.Thread(
            target=self._draw, args=(self._stop,), name="msgcli-progress", daemon=True
        )
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
            self._thread = None


@contextmanager
def drawing_paused() -> Iterator[None]:
    """:meth:`Tracker.paused` of the bar shown, if any."""
    if _current is None:
        yield
        return
    with _current.paused():
        yield
