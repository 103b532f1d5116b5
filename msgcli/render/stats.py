"""The text report of ``msgcli stats``: the counts of :mod:`msgcli.stats` as tables.

Everything taken from a log (names, kinds, paths, times) is made visible with
:func:`msgcli.textsafe.visible` before it reaches the console.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any, TextIO

from .words import plural

if TYPE_CHECKING:
    from collections import Counter

    from rich.console import Console

    from ..stats import FileStats, StatsReport


def _safe(text: Any) -> str:
    from ..textsafe import visible

    return visible(text if isinstance(text, str) else str(text))


def _named(text: str) -> str:
    """A counter key as shown: what the log says, made safe; ``(none)`` for nothing."""
    return _safe(text) if text else "(none)"


def _counts(counter: Counter) -> str:
    """``success 2, error 1``: most frequent first."""
    return ", ".join(f"{_named(k)} {v}" for k, v in counter.most_common())


def _number(value: float) -> str:
    return f"{value:,}" if isinstance(value, int) else f"{value:,.2f}"


def _duration(seconds: float) -> str:
    if seconds < 60:
        return f"{seconds:.3f} s"
    minutes, secs = divmod(round(seconds), 60)
    if minutes < 60:
        return f"{minutes} min {secs} s"
    hours, minutes = divmod(minutes, 60)
    if hours < 48:
        return f"{hours} h {minutes} min"
    days, hours = divmod(hours, 24)
    return f"{days} days {hours} h"


def print_stats(report: StatsReport, out: TextIO | None = None) -> None:
    """The counts of ``report`` as tables on ``out`` (standard output): a section per file
    when there are several, then the totals. Coloured on a terminal (see
    :func:`msgcli.report.text.use_colour`); a pipe gets whole lines.

    Without colour, a section whose every line fits the width is laid out here, as rich
    lays out its tables (:func:`_plain_lines`): rich took some 7 ms a file, minutes for a
    folder of thousands of sessions. Coloured, or too wide, it goes through rich."""
    import io
    import os

    from ..report.text import use_colour

    if out is None:
        out = sys.stdout
    colour = use_colour(out)
    width = 1000  # a pipe gets whole lines, not lines folded at 80 columns
    if getattr(out, "isatty", None) and out.isatty():
        try:
            width = os.get_terminal_size(out.fileno()).columns
        except (OSError, ValueError):
            width = 0
        if width < 40:  # a terminal that does not tell its size (or a tiny one)
            width = 80
    buffer = io.StringIO()
    console = _console(buffer, colour, width)

    def section(items: list) -> None:
        lines = None if colour else _plain_lines(items, width)
        if lines is None:
            _print_items(console, items)
        else:
            buffer.write("".join(f"{line}\n" for line in lines))

    several = len(report.files) > 1
    for fs in report.files:
        items: list = [_Bold(f"== {_safe(fs.path)}")] if several else []
        items += _file_items(fs)
        if several:
            items.append(None)
        section(items)
    if several:
        total = report.total
        dialects = ", ".join(f"{name} {n}" for name, n in report.dialects().items())
        title = f"Total: {plural(len(report.files), 'file')}"
        if dialects:
            title += f" ({dialects})"
        if report.unreadable:
            title += f", {report.unreadable} unreadable"
        section([_Bold(title), *_file_items(total)])
    for line in buffer.getvalue().splitlines():
        out.write(line.rstrip() + "\n")


def _console(buffer: TextIO, colour: bool, width: int) -> Console:
    """The console a report is laid out on by rich."""
    from .view import SafeConsole

    return SafeConsole(
        file=buffer,
        markup=False,
        highlight=False,
        emoji=False,
        color_system="standard" if colour else None,
        force_terminal=colour,
        no_color=not colour,
        width=width,
    )


class _Bold(str):
    """A line printed bold (a title)."""


class _Grid:
    """A table of the report: ``columns`` as ``(name, right-aligned)``, rows of text."""

    __slots__ = ("columns", "header", "rows")

    def __init__(self, *columns: str, header: bool = True):
        # numbers right-aligned; the first column and "results" hold text; a grid without
        # a header (the summary: its labels bold) holds text only
        self.columns = [
            (name, header and not (i == 0 or name == "results")) for i, name in enumerate(columns)
        ]
        self.rows: list[tuple[str, ...]] = []
        #: the header row shown (bold)
        self.header = header

    def add_row(self, *cells: str) -> None:
        self.rows.append(cells)


def _describe(fs: FileStats) -> str:
    if not fs.readable and fs.kind == "unknown" and not fs.records:
        return fs.problem or "cannot read"
    kind = {"messages": "message log", "events": "event log"}.get(fs.kind, "no known records")
    what = f"{fs.dialect} {kind}" if fs.dialect else kind
    parts = [what, plural(fs.records, "record")]
    if fs.placed:
        shown = ", ".join(f"{_safe(ptr)} (line {line})" for line, ptr in fs.placed[:4])
        more = f" and {len(fs.placed) - 4} more" if len(fs.placed) > 4 else ""
        parts.append(f"messages inside the file (a JSON document, a database), at {shown}{more}")
    if fs.unreadable_lines:
        parts.append(f"{plural(fs.unreadable_lines, 'unreadable line')}")
    if fs.stream_errors:
        parts.append(f"{plural(fs.stream_errors, 'stream error')} (see msgcli validate)")
    if not fs.readable and fs.problem:
        parts.append(fs.problem)
    return ", ".join(parts)


def _file_items(fs: FileStats) -> list:
    """What the report says of one file (or of the totals), in order: lines of text
    (:class:`_Bold` ones bold), ``None`` for a blank line, a :class:`_Grid`, or a tuple of
    grids side by side."""
    items: list = []
    if fs.path:
        items.append(_describe(fs))
    else:  # the totals
        items.append(
            ", ".join(
                [plural(fs.records, "record")]
                + ([plural(fs.unreadable_lines, "unreadable line")] if fs.unreadable_lines else [])
                + ([plural(fs.stream_errors, "stream error")] if fs.stream_errors else [])
            )
        )
    if not fs.readable and not fs.records:
        return items

    summary = _Grid("", "", header=False)
    summary.add_row("messages", str(fs.messages))
    if fs.structured_outputs:
        summary.add_row("structured outputs", str(fs.structured_outputs))
    tokens = fs.tokens
    if tokens.messages:
        summary.add_row(
            "tokens",
            f"input {_number(tokens.input)}, output {_number(tokens.output)}, "
            f"cached {_number(tokens.cached)}"
            + (f", reasoning {_number(tokens.reasoning)}" if tokens.reasoning else "")
            + f" ({plural(tokens.messages, 'message')} with usage)",
        )
    for key, value in (fs.details or {}).items():
        for label, text in _details(value):
            summary.add_row(f"{key.replace('_', ' ')} {label}", text)
    if fs.first_time is not None and fs.last_time is not None and fs.seconds is not None:
        summary.add_row(
            "time",
            f"{_safe(fs.first_time[1])} to {_safe(fs.last_time[1])} ({_duration(fs.seconds)})",
        )
    if fs.finish_reasons:
        summary.add_row("finish reasons", _counts(fs.finish_reasons))
    events = fs.events
    if events is not None:
        summary.add_row("events", str(events.events))
        summary.add_row(
            "replies",
            f"{events.completed} completed, {events.parked} parked, {events.cut} cut off",
        )
        if events.unknown:
            summary.add_row("unknown events", _counts(events.unknown))
    items.append(summary)

    if fs.messages:
        who = _Grid("role", "messages")
        for role, n in fs.roles.most_common():
            who.add_row(_named(role), str(n))
        senders = _Grid("sender", "messages")
        for sender, n in fs.senders.most_common():
            senders.add_row(_named(sender), str(n))
        blocks = _Grid("block", "count")
        for kind, n in fs.blocks.most_common():
            blocks.add_row(_named(kind), str(n))
            nested = fs.nested.get(kind, 0)
            if nested:  # how many of them are inside tool results, indented
                blocks.add_row("  in tool results", str(nested))
            if kind == "data":  # then its media families, indented
                for family, m in fs.media.most_common():
                    blocks.add_row(f"  {_named(family)}", str(m))
        items += [None, (who, senders, blocks)]

    if fs.tools:
        tools = _Grid("tool", "calls", "results", "no result")
        for name in sorted(fs.tools, key=lambda n: -fs.tools[n].calls):
            tool = fs.tools[name]
            tools.add_row(
                _named(name), str(tool.calls), _counts(tool.results) or "-", str(tool.no_result)
            )
        items += [None, tools]

    if events is not None and events.by_type:
        by_type = _Grid("event", "count")
        for kind, n in events.by_type.items():  # in the order they first came
            by_type.add_row(_named(kind), str(n))
        for kind, n in events.unknown.items():
            by_type.add_row(f"{_named(kind)} (unknown)", str(n))
        items += [None, by_type]
    return items


def _print_items(console: Console, items: list) -> None:
    """The items of :func:`_file_items` through rich (colour, and lines folded to the
    terminal's width)."""
    for item in items:
        if item is None:
            console.print()
        elif isinstance(item, _Bold):
            console.print(str(item), style="bold")
        elif isinstance(item, str):
            console.print(item)
        elif isinstance(item, tuple):
            console.print(_side_by_side(*[_rich_table(grid) for grid in item]))
        else:
            console.print(_rich_table(item))


def _rich_table(grid: _Grid) -> Any:
    from rich.table import Table

    if not grid.header:  # (the summary: its labels bold)
        table = Table(box=None, pad_edge=False, show_header=False)
        table.add_column(style="bold")
        table.add_column(overflow="fold")
    else:
        table = Table(box=None, pad_edge=False, show_edge=False, header_style="bold")
        for name, right in grid.columns:
            table.add_column(name, justify="right" if right else "left", overflow="fold")
    for row in grid.rows:
        table.add_row(*row)
    return table


def _plain_lines(items: list, width: int) -> list[str] | None:
    """The items' lines without colour, laid out as rich lays out :func:`_rich_table` and
    :func:`_side_by_side` (columns two spaces apart, tables side by side four, the rest of
    a line blank); None when a line would not fit ``width`` (rich folds it)."""
    from rich.cells import cell_len

    lines: list[str] = []
    for item in items:
        if item is None:
            lines.append("")
        elif isinstance(item, str):
            lines.append(item)
        elif isinstance(item, tuple):
            tables = [_grid_lines(grid, cell_len) for grid in item]
            height = max(len(table) for table in tables)
            for i in range(height):
                lines.append(
                    "    ".join(
                        table[i] if i < len(table) else " " * cell_len(table[0]) for table in tables
                    )
                )
        else:
            lines += _grid_lines(item, cell_len)
    if any(cell_len(line) > width for line in lines):  # (padding too: rich would fold)
        return None
    return [line.rstrip() for line in lines]


def _grid_lines(grid: _Grid, cell_len: Any) -> list[str]:
    """A grid's lines, each as wide as the grid (its cells padded to their column)."""
    rows = [tuple(name for name, _ in grid.columns), *grid.rows] if grid.header else grid.rows
    widths = [max(cell_len(row[i]) for row in rows) for i in range(len(grid.columns))]
    out = []
    for row in rows:
        cells = []
        for (_, right), cell, size in zip(grid.columns, row, widths, strict=True):
            pad = " " * (size - cell_len(cell))
            cells.append(pad + cell if right else cell + pad)
        out.append("  ".join(cells))
    return out


def _details(value: Any) -> list[tuple[str, str]]:
    """A dialect's own counts as ``(label, text)`` rows: numbers of a table on one row,
    each nested table on a row of its own."""
    if not isinstance(value, dict):
        return [("", _safe(value))]
    flat = ", ".join(
        f"{_safe(k).replace('_', ' ')} {_number(v) if isinstance(v, (int, float)) else _safe(v)}"
        for k, v in value.items()
        if not isinstance(v, dict)
    )
    rows = [("", flat)] if flat else []
    for k, v in value.items():
        if isinstance(v, dict):
            name = _safe(k).replace("_", " ")
            rows += [(f"{name} {label}".strip(), text) for label, text in _details(v)]
    return rows


def _side_by_side(*tables: Any) -> Any:
    """Tables next to each other, a gap between them."""
    from rich.table import Table

    grid = Table.grid(padding=(0, 4))
    for _ in tables:
        grid.add_column(vertical="top")
    grid.add_row(*tables)
    return grid
