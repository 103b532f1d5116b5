"""Driving the conversation view: files in, filters, head/tail, pager, live follow."""

from __future__ import annotations

import contextlib
import os
import shlex
import subprocess
import sys
import time
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import IO, Any

from rich.console import Console, Group
from rich.rule import Rule
from rich.text import Text

from ..guard import deep_recursion
from ..model import HintBlock, TextBlock, ThinkingBlock, ToolCallBlock, ToolResultBlock
from ..reader import ReadError
from ..stream import Item, LogReader
from ..textsafe import visible
from .thread import ShowOptions, Thread, Unit, render_notice, render_unit

__all__ = ["Filters", "View", "console_for", "open_pager"]


class SafeConsole(Console):
    """A console that writes no control character it did not make itself: every piece of
    text is passed through :func:`msgcli.textsafe.visible` once more as it is written,
    whatever renderable it came from (a renderer that forgot a field cannot let an escape
    sequence through). Its own styles and line breaks are left alone."""

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
        width = 100  # a file or a pipe: wide enough for JSON arguments, the same every run
    return SafeConsole(
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
class Filters:
    roles: set[str] = field(default_factory=set)
    names: set[str] = field(default_factory=set)
    pattern: Any = None  # a compiled regex over the message's text
    ids: list[str] = field(default_factory=list)

    def __call__(self, item: Item) -> bool:
        msg = item.message
        if msg is None:
            return True
        if self.roles and str(msg.role).lower() not in self.roles:
            return False
        if self.names and str(msg.name) not in self.names:
            return False
        if self.ids and not any(str(msg.id).startswith(prefix) for prefix in self.ids):
            return False
        if self.pattern is not None:
            return any(self.pattern.search(text) for text in _texts(msg))
        return True


def _texts(msg: Any) -> Iterator[str]:
    for block in msg.blocks():
        if isinstance(block, TextBlock) and isinstance(block.text, str):
            yield block.text
        elif isinstance(block, ThinkingBlock) and isinstance(block.thinking, str):
            yield block.thinking
        elif isinstance(block, HintBlock) and isinstance(block.hint, str):
            yield block.hint
        elif isinstance(block, ToolCallBlock) and isinstance(block.input, str):
            yield block.input
        elif isinstance(block, ToolResultBlock) and isinstance(block.output, str):
            yield block.output


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
    ):
        self.console = console
        self.options = options
        self.filters = filters or Filters()
        self.head = head
        self.tail: deque[Unit] | None = deque(maxlen=tail) if tail else None
        self.shown = 0
        self.unreadable = 0

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
            self.console.print(render_notice(unit.item))
            return
        with deep_recursion():  # rich walks the renderables (msgcli.guard)
            self.console.print(render_unit(unit, self.options))
        self.console.print()

    def run(self, paths: list[str], dialect: str | None) -> int:
        """Show every log the paths name; the exit status."""
        from ..pipeline import expand_paths

        sources = list(expand_paths(paths))
        several = len(sources) > 1
        try:
            for name, source, problem in sources:
                if several:
                    self.console.print(Rule(Text(visible(name)), style="dim"))
                if source is None:
                    self._unreadable(name, "no such file" if problem == "missing" else "no logs")
                    continue
                thread = Thread(self._emit, self.filters)
                try:
                    for item in LogReader(name, dialect).items(source):
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

    def _unreadable(self, name: str, why: str) -> None:
        self.unreadable += 1
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
        reader = LogReader(path, dialect)
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
