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
    :func:`msgcli.report.text.use_colour`); a pipe gets whole lines."""
    import io
    import os

    from ..report.text import use_colour
    from .view import SafeConsole

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
    console = SafeConsole(
        file=buffer,
        markup=False,
        highlight=False,
        emoji=False,
        color_system="standard" if colour else None,
        force_terminal=colour,
        no_color=not colour,
        width=width,
    )
    several = len(report.files) > 1
    for fs in report.files:
        if several:
            _section_title(console, fs)
        _print_file(console, fs)
        if several:
            console.print()
    if several:
        total = report.total
        dialects = ", ".join(f"{name} {n}" for name, n in report.dialects().items())
        title = f"Total: {plural(len(report.files), 'file')}"
        if dialects:
            title += f" ({dialects})"
        if report.unreadable:
            title += f", {report.unreadable} unreadable"
        console.print(title, style="bold")
        _print_file(console, total)
    for line in buffer.getvalue().splitlines():
        out.write(line.rstrip() + "\n")


def _section_title(console: Console, fs: FileStats) -> None:
    console.print(f"== {_safe(fs.path)}", style="bold")


def _describe(fs: FileStats) -> str:
    if not fs.readable and fs.kind == "unknown" and not fs.records:
        return fs.problem or "cannot read"
    kind = {"messages": "message log", "events": "event log"}.get(fs.kind, "no known records")
    what = f"{fs.dialect} {kind}" if fs.dialect else kind
    parts = [what, plural(fs.records, "record")]
    if fs.placed:
        shown = ", ".join(f"{_safe(ptr)} (line {line})" for line, ptr in fs.placed[:4])
        more = f" and {len(fs.placed) - 4} more" if len(fs.placed) > 4 else ""
        parts.append(f"the messages of a JSON document, at {shown}{more}")
    if fs.unreadable_lines:
        parts.append(f"{plural(fs.unreadable_lines, 'unreadable line')}")
    if fs.stream_errors:
        parts.append(f"{plural(fs.stream_errors, 'stream error')} (see msgcli validate)")
    if not fs.readable and fs.problem:
        parts.append(fs.problem)
    return ", ".join(parts)


def _print_file(console: Console, fs: FileStats) -> None:
    from rich.table import Table

    if fs.path:
        console.print(_describe(fs))
    else:  # the totals
        console.print(
            ", ".join(
                [plural(fs.records, "record")]
                + ([plural(fs.unreadable_lines, "unreadable line")] if fs.unreadable_lines else [])
                + ([plural(fs.stream_errors, "stream error")] if fs.stream_errors else [])
            )
        )
    if not fs.readable and not fs.records:
        return

    def table(*columns: str) -> Table:
        """Numbers right-aligned; a column named in ``left`` holds text."""
        t = Table(box=None, pad_edge=False, show_edge=False, header_style="bold")
        for i, name in enumerate(columns):
            left = i == 0 or name == "results"
            t.add_column(name, justify="left" if left else "right", overflow="fold")
        return t

    summary = Table(box=None, pad_edge=False, show_header=False)
    summary.add_column(style="bold")
    summary.add_column(overflow="fold")
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
    console.print(summary)

    if fs.messages:
        console.print()
        who = table("role", "messages")
        for role, n in fs.roles.most_common():
            who.add_row(_named(role), str(n))
        senders = table("sender", "messages")
        for sender, n in fs.senders.most_common():
            senders.add_row(_named(sender), str(n))
        blocks = table("block", "count")
        for kind, n in fs.blocks.most_common():
            blocks.add_row(_named(kind), str(n))
            nested = fs.nested.get(kind, 0)
            if nested:  # how many of them are inside tool results, indented
                blocks.add_row("  in tool results", str(nested))
            if kind == "data":  # then its media families, indented
                for family, m in fs.media.most_common():
                    blocks.add_row(f"  {_named(family)}", str(m))
        console.print(_side_by_side(who, senders, blocks))

    if fs.tools:
        console.print()
        tools = table("tool", "calls", "results", "no result")
        for name in sorted(fs.tools, key=lambda n: -fs.tools[n].calls):
            tool = fs.tools[name]
            tools.add_row(
                _named(name), str(tool.calls), _counts(tool.results) or "-", str(tool.no_result)
            )
        console.print(tools)

    if events is not None and events.by_type:
        console.print()
        by_type = table("event", "count")
        for kind, n in events.by_type.items():  # in the order they first came
            by_type.add_row(_named(kind), str(n))
        for kind, n in events.unknown.items():
            by_type.add_row(f"{_named(kind)} (unknown)", str(n))
        console.print(by_type)


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
