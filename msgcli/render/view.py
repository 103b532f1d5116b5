"""Driving the conversation view: files in, filters, head/tail, pager, live follow."""

from __future__ import annotations

import contextlib
import os
import shlex
import stat
import subprocess
import sys
import time
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass
from typing import IO, Any

from rich.console import Console, ConsoleOptions, Group, RenderResult
from rich.rule import Rule
from rich.segment import Segment
from rich.text import Text

from ..dialects import DIALECTS
from ..engine import Options
from ..filters import Filter, error_lines
from ..guard import deep_recursion
from ..reader import ReadError
from ..stream import Item, LogReader, open_log
from ..textsafe import visible
from .thread import (
    ShowOptions,
    Thread,
    Unit,
    Unprintable,
    flat_lines,
    lay_out,
    render_notice,
    render_unit,
    short_ids,
)

__all__ = ["Filters", "View", "console_for", "open_pager", "pipe_closed"]


class SafeConsole(Console):
    """A console that writes no control character it did not make itself: every piece of
    text is passed through :func:`msgcli.textsafe.visible` once more as it is written,
    whatever renderable it came from (a renderer that forgot a field cannot let an escape
    sequence through). Its own styles and line breaks are left alone."""

    #: the width it was made with (None: the terminal's, asked again at every print)
    fixed_width: int | None = None

    def _render_buffer(self, buffer: Any) -> str:
        return super()._render_buffer(
            segment
            if segment.control
            else segment._replace(text=visible(segment.text, multiline=True))
            for segment in buffer
        )


def console_for(
    out: IO[str],
    *,
    colour: bool,
    width: int | None = None,
    record: bool = False,
    terminal_width: bool = False,
) -> Console:
    """A console that never interprets markup and never guesses styles from text."""
    if width is None and not terminal_width:
        # a file or a pipe: $COLUMNS when set, else 100 columns (wide enough for JSON
        # arguments, the same every run)
        columns = os.environ.get("COLUMNS", "")
        width = int(columns) if columns.isdecimal() and 20 <= int(columns) <= 10_000 else 100
    console = SafeConsole(
        file=out,
        markup=False,
        highlight=False,
        emoji=False,
        force_terminal=colour,
        no_color=not colour,
        color_system="auto" if colour else None,
        width=width,
        record=record,
        legacy_windows=False,
    )
    console.on_broken_pipe = pipe_closed  # type: ignore[method-assign]
    console.fixed_width = width
    return console


class Trimmed:
    """A renderable whose lines end at their last visible character: no spaces padding a
    line out to the width, or left where a long line was wrapped."""

    def __init__(self, renderable: Any):
        self.renderable = renderable

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        newline = Segment.line()
        for line in console.render_lines(self.renderable, options, pad=False):
            while line and not line[-1].control:
                last = line[-1]
                text = last.text.rstrip(" ")
                if text:
                    line[-1] = Segment(text, last.style, last.control)
                    break
                line.pop()
            yield from line
            yield newline


class _Lines:
    """Laid-out lines, printed as they are: each shifted ``left`` columns, with no spaces
    after its last visible character."""

    def __init__(self, lines: list[list[Segment]], left: int = 0):
        self.lines = lines
        self.left = left

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        newline = Segment.line()
        margin = Segment(" " * self.left) if self.left else None
        out: list[Segment] = []
        extend = out.extend
        append = out.append
        for line in self.lines:
            if margin is not None:
                line.insert(0, margin)
            while line:
                last = line[-1]
                if last.control:
                    break
                text = last.text
                if text[-1:] != " ":
                    if text:
                        break
                    line.pop()
                    continue
                text = text.rstrip(" ")
                if text:
                    line[-1] = Segment(text, last.style, last.control)
                    break
                line.pop()
            extend(line)
            append(newline)
        return out


def _writes_directly(console: Console, settled: bool = False) -> bool:
    """Whether what ``console.print`` writes can be written to the console's file directly:
    a :class:`SafeConsole` that neither records nor shows a live display (render hooks), nor
    buffers, nor renders for Jupyter or a legacy Windows console. ``settled``: what does not
    change over a console's life is known to hold (only the rest is asked)."""
    return (
        settled
        or (
            type(console) is SafeConsole
            and not console.record
            and not console.is_jupyter
            and not console.legacy_windows
            and not (console.no_color and console.color_system is not None)
            and sys.platform != "win32"
        )
    ) and not (console.quiet or console._render_hooks or console._buffer_index)


def _write(console: Console, text: str, flush: bool = True) -> None:
    """Write and flush as the console does after each print (a reader who went away ends the
    command as the console's ``on_broken_pipe`` says); ``flush=False``: leave the text to
    the file's buffer."""
    try:
        with console._lock:
            file = console.file
            file.write(text)
            if flush:
                file.flush()
    except BrokenPipeError:
        console.on_broken_pipe()


def _read_later(file: Any) -> bool:
    """Whether what is written to ``file`` is read only once it is all there, so it need not
    be flushed as it is written: a regular file, or a device that is not a terminal (the
    null device). A terminal, a pipe (a pager) or a stream of another kind is flushed after
    every message."""
    try:
        fd = file.fileno()
        mode = os.fstat(fd).st_mode
    except (AttributeError, OSError, ValueError):
        return False
    return stat.S_ISREG(mode) or (stat.S_ISCHR(mode) and not os.isatty(fd))


def pipe_closed() -> None:
    """A console's reader went away: the command ends quietly, with status 0 (rich's own
    handling exits with 1)."""
    raise BrokenPipeError


@contextlib.contextmanager
def open_pager(out: IO[str] | None) -> Iterator[tuple[IO[str], bool]]:
    """``(stream, is_pager)``: ``out`` itself, or (for ``None``) a pager's input.

    The pager is ``$MSGCLI_PAGER``, ``$PAGER`` or ``less`` (with ``LESS=FRX`` unless
    set: quit at once when the text fits the screen, keep colours). Output is
    written as it is made, so the first screen shows before the log is read.
    """
    if out is not None:
        yield out, False
        return
    command = os.environ.get("MSGCLI_PAGER") or os.environ.get("PAGER") or "less"
    env = dict(os.environ)
    env.setdefault("LESS", "FRX")
    try:
        proc = subprocess.Popen(shlex.split(command), stdin=subprocess.PIPE, env=env)
    except (OSError, ValueError):
        yield sys.stdout, False
        return
    assert proc.stdin is not None
    import io

    stream = io.TextIOWrapper(proc.stdin, encoding="utf-8", errors="replace", line_buffering=False)
    try:
        yield stream, True
    except BrokenPipeError:
        pass  # the reader quit the pager: stop quietly
    finally:
        with contextlib.suppress(BrokenPipeError, OSError):
            stream.close()
        with contextlib.suppress(KeyboardInterrupt):
            proc.wait()


@dataclass(slots=True)
class Filters(Filter):
    """The filters of ``msgcli query`` (:class:`msgcli.filters.Filter`), asked about an item:
    a notice is always shown."""

    #: also the records a dialect keeps aside from the conversation (``show --all``)
    every: bool = False

    def __call__(self, item: Item) -> bool:  # type: ignore[override]
        msg = item.message
        if msg is None:
            return True
        if not self.every and _aside(msg):
            return False
        if not self.active:
            return True
        return Filter.__call__(self, msg, msg.dialect, item.line, item.path)

    def start(self, name: str, source: Any, dialect: str | None) -> None:
        """A new file begins (``--errors`` first asks ``validate`` which lines are bad)."""
        self.reset()
        if self.errors and str(source) != "-":
            self.finding_lines = error_lines(source, name, dialect)


def _aside(msg: Any) -> bool:
    dialect = DIALECTS.get(msg.dialect)
    return dialect is not None and dialect.aside(msg)


#: files up to this size are read once for their ids before they are shown, so each header
#: can show the shortest id prefix that is unique in the file (about 0.4 s at this size)
SHORT_ID_READ_LIMIT = 16 * 1024 * 1024


def _size(source: Any) -> int:
    """About how much a file holds (a gzip file, ten times its size)."""
    try:
        from ..remote import is_url
        from ..remote import size as size_of

        # (a URL's size is in the listing of its prefix, or one request away; 0: not known)
        size = (size_of(source) or SHORT_ID_READ_LIMIT + 1) if is_url(source) else None
        if size is None:
            size = os.stat(source).st_size
        return size * 10 if str(source).endswith(".gz") else size
    except (OSError, TypeError, ValueError):
        return SHORT_ID_READ_LIMIT + 1


#: how much laid-out text is held back at most for a file read once it is all there
_HELD = 64 * 1024

#: subagents nest no deeper than this in the view
_MAX_DEPTH = 8


class _Enough(Exception):
    """--head is reached: stop reading."""


class View:
    def __init__(
        self,
        console: Console,
        options: ShowOptions,
        filters: Filters | None = None,
        head: int | None = None,
        tail: int | None = None,
        redact: bool = False,
    ):
        self.console = console
        self.redact = redact
        self.options = options
        options.styles = console.color_system is not None
        self.filters = filters or Filters()
        self.head = head
        self.tail: deque[Unit] | None = deque(maxlen=tail) if tail else None
        self.shown = 0
        self.unreadable = 0
        #: how deep the log being shown is nested (a subagent's under its parent's call)
        self.depth = 0
        #: the options a unit is printed with (made again when the width changes)
        self._options: ConsoleOptions | None = None
        #: whether each message is flushed as it is written (see :func:`_read_later`)
        self._flush = not _read_later(console.file)
        #: text laid out for a file read only once it is all there, not yet handed to it:
        #: written in pieces of at least :data:`_HELD`, not a write per message
        self._held: list[str] = []
        self._held_size = 0
        #: whether the console is of a kind whose output may be written directly
        self._direct = _writes_directly(console)

    def _emit(self, unit: Unit) -> None:
        if unit.item.message is not None:
            if self.tail is not None:
                self.tail.append(unit)
                return
            if self.head is not None and self.shown >= self.head:
                raise _Enough
            self.shown += 1
        self._print(unit)

    def _print(self, unit: Unit) -> None:
        if unit.item.message is None:
            self._release()
            self.console.print(Trimmed(render_notice(unit.item)))
            return
        with deep_recursion():  # rich walks the renderables (msgcli.guard)
            self._out(render_unit(unit, self.options), blank=True)
        self._nested(unit)

    def _out(self, renderable: Any, blank: bool = False) -> None:
        """Print a unit's renderable, nested ``depth`` levels in, each line ending at its
        last visible character (as ``Trimmed`` prints it), then a blank line if ``blank``.

        Each block is laid out once (:func:`msgcli.render.thread.flat_lines`) and, on a
        console that only writes to its file, the lines are written at once, as the console
        would have written them."""
        console = self.console
        left = 4 * self.depth
        width = getattr(console, "fixed_width", None) or console.width
        if width - left >= 1:  # (nested deeper than the screen is wide: as rich pads it)
            if self._options is None or self._options.max_width != width:
                self._options = console.options.update(
                    justify=None,
                    overflow=None,
                    height=None,
                    no_wrap=None,
                    markup=None,
                    highlight=None,
                )
            options = self._options
            if self._direct and _writes_directly(console, settled=True):
                try:
                    flat = flat_lines(console, renderable, width - left, options, " " * left)
                except Unprintable:
                    pass
                else:
                    if blank:
                        flat.append("")
                    flat.append("")
                    text = "\n".join(flat)
                    if self._flush:
                        _write(console, text)
                    else:
                        self._hold(text)
                    return
            self._release()
            laid = lay_out(console, renderable, width - left, options)
            console.print(_Lines(laid, left), crop=False)
        else:
            from rich.padding import Padding

            self._release()
            console.print(Trimmed(Padding(renderable, (0, 0, 0, left))))
        if blank:
            console.print()

    def _nested(self, unit: Unit) -> None:
        """Show the logs the dialect nests under this message (a subagent's transcript)."""
        msg = unit.item.message
        assert msg is not None
        dialect = DIALECTS.get(msg.dialect)
        if dialect is None or self.depth >= _MAX_DEPTH:
            return
        for title, path in dialect.nested_logs(unit.item.path, msg):
            self.depth += 1
            try:
                self._out(Text(visible(title), style="bold magenta"))
                thread = Thread(self._print, self.filters)
                try:
                    for item in open_log(path, Options(msg.dialect, redact=self.redact)):
                        thread.add(item)
                except ReadError as exc:
                    self._unreadable(path, str(exc))
                thread.close()
            finally:
                self.depth -= 1

    def run(self, paths: list[str], dialect: str | None) -> int:
        """Show every log the paths name; the exit status. A subagent file whose session is
        among them is shown under the Agent call that started it, not again on its own."""
        from ..inputs import expand_paths
        from .thread import without_nested

        sources = without_nested(expand_paths(paths))
        try:
            return self._run(sources, dialect)
        finally:
            self._release()

    def _run(self, sources: list[tuple[str, Any, str]], dialect: str | None) -> int:
        several = len(sources) > 1
        try:
            for name, source, problem in sources:
                if several:
                    self._release()
                    self.console.print(Rule(Text(visible(name)), style="dim"))
                if source is None:
                    self._unreadable(name, "no such file" if problem == "missing" else "no logs")
                    continue
                self.options.short_ids = None
                if source != "-" and _size(source) <= SHORT_ID_READ_LIMIT:
                    self.options.short_ids = self._short_ids(name, source, dialect)
                self.filters.start(name, source, dialect)
                thread = Thread(self._emit, self.filters)
                try:
                    options = Options(dialect, redact=self.redact)
                    for item in open_log(source, options, name=name):
                        thread.add(item)
                except ReadError as exc:
                    self._unreadable(name, str(exc))
                thread.close()
        except _Enough:
            pass
        if self.tail is not None:
            for unit in self.tail:
                self._print(unit)
        return 2 if self.unreadable else 0

    def _hold(self, text: str) -> None:
        self._held.append(text)
        self._held_size += len(text)
        if self._held_size >= _HELD:
            self._release(flush=False)

    def _release(self, flush: bool = True) -> None:
        """Hand the text held back to the file (before anything else is written to it), and
        with ``flush`` flush the file."""
        if self._held or flush:
            text = "".join(self._held)
            self._held.clear()
            self._held_size = 0
            _write(self.console, text, flush)

    @staticmethod
    def _short_ids(name: str, source: Any, dialect: str | None) -> dict[str, str] | None:
        """The short id of each message in a file: a first reading, for the ids alone."""
        try:
            with deep_recursion():  # an id may nest as deep as the reader takes (msgcli.guard)
                log = open_log(source, Options(dialect), name=name)
                log.ids_only = True  # (the messages are not read whole)
                ids = [
                    str(item.message.id)
                    for item in log
                    if item.message is not None and item.message.id
                ]
                ids.extend([str(i) for i in log.ids if i])
        except (ReadError, OSError):
            return None
        return short_ids(ids)

    def _unreadable(self, name: str, why: str) -> None:
        self.unreadable += 1
        self._release()
        self.console.print(Text(f"{visible(name)}: cannot read: {visible(why)}", style="bold red"))

    def follow(
        self, path: str, dialect: str | None, idle: float | None = None, live: bool = True
    ) -> int:
        """Show a log as it is written; replies stream in as their events arrive."""
        from .follow import TailFile

        try:
            tail = TailFile(path, idle=idle)
        except OSError as exc:
            self._unreadable(path, exc.strerror or str(exc))
            return 2
        reader = LogReader(path, dialect, self.redact)
        self._flush = True  # (each message as soon as it is complete)
        self.filters.reset()
        thread = Thread(self._emit, self.filters)
        try:
            if not live:
                for item in reader.items(tail):
                    thread.add(item)
                thread.close()
                return 0
            from rich.live import Live

            with Live(console=self.console, auto_refresh=False, transient=True) as view:
                last = 0.0

                def redraw() -> None:
                    nonlocal last
                    now = time.monotonic()
                    if now - last < 0.05:
                        return
                    last = now
                    building = [
                        render_unit(Unit(Item(path, reader.replayer.line, msg)), self.options)
                        for msg in reader.open_messages()
                    ]
                    view.update(Group(*building), refresh=True)

                for item in reader.items(tail, on_record=redraw):
                    thread.add(item)
                    view.update(Group(), refresh=True)
                thread.close()
        except _Enough:
            pass
        finally:
            tail.close()
        return 0
