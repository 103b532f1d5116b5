"""``msgcli stats``: what happened in a log, at a glance.

The counting is :mod:`msgcli.stats`; this module parses the options and
prints the counts, as tables (one section per file when there are several,
then the totals) or as the JSON document of :meth:`StatsReport.to_dict`.
"""

from __future__ import annotations

import sys
from enum import Enum
from typing import TYPE_CHECKING, Annotated, Any

import typer

from ..findings import suffix_list
from .common import configured_scheduler, dask_client, remote_errors
from .options import DialectOption, SchedulerOption, TracebackOption

if TYPE_CHECKING:
    from collections import Counter

    from rich.console import Console

    from ..stats import FileStats, StatsReport


class StatsFormat(str, Enum):
    text = "text"
    json = "json"


command = typer.Typer(rich_markup_mode=None, add_completion=False)


@command.command("stats")
def stats(
    paths: Annotated[
        list[str],
        typer.Argument(
            help=f"Message or event logs, or directories (every {suffix_list()} file "
            "below); '-' reads standard input.",
            show_default=False,
            metavar="PATH...",
        ),
    ],
    output_format: Annotated[
        StatsFormat, typer.Option("--format", "-f", help="text (tables) or json.")
    ] = StatsFormat.text,
    dialect: DialectOption = None,
    scheduler: SchedulerOption = None,
    traceback: TracebackOption = False,
) -> None:
    """Count what happened in logs: messages by role and sender, blocks, tool calls and
    how they were answered, tokens, time span, finish reasons, and for event logs the
    events by type and how the replies ended.

    Exit status: 0, or 2 when a path cannot be read.
    """
    from ..cluster import chosen_scheduler
    from ..progress import progress
    from ..stats import collect_stats

    address = chosen_scheduler(scheduler, None if scheduler else configured_scheduler())
    chosen = dialect
    with remote_errors(), dask_client(address) as client:
        if client is None:
            report = collect_stats(paths, chosen)
        else:
            from ..cluster import collect_stats_cluster

            with progress(paths, enabled=True):
                report = collect_stats_cluster(paths, chosen, client)
    if output_format is StatsFormat.json:
        import orjson

        sys.stdout.write(orjson.dumps(report.to_dict(), option=orjson.OPT_INDENT_2).decode())
        sys.stdout.write("\n")
    else:
        _print_text(report)
    for fs in report.files:
        if not fs.readable:
            typer.echo(f"msgcli: {_safe(fs.path)}: {fs.problem}", err=True)
    raise typer.Exit(report.exit_code)


# -- the text report ----------------------------------------------------------------


def _safe(text: Any) -> str:
    from ..textsafe import visible

    return visible(text if isinstance(text, str) else str(text))


def _named(text: str) -> str:
    """A counter key as shown: what the log says, made safe; ``(none)`` for nothing."""
    return _safe(text) if text else "(none)"


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


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


def _print_text(report: StatsReport) -> None:
    import io
    import os

    from ..render.view import SafeConsole
    from ..report.text import use_colour

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
        title = f"Total: {_plural(len(report.files), 'file')}"
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
    parts = [what, _plural(fs.records, "record")]
    if fs.placed:
        shown = ", ".join(f"{_safe(ptr)} (line {line})" for line, ptr in fs.placed[:4])
        more = f" and {len(fs.placed) - 4} more" if len(fs.placed) > 4 else ""
        parts.append(f"the messages of a JSON document, at {shown}{more}")
    if fs.unreadable_lines:
        parts.append(f"{_plural(fs.unreadable_lines, 'unreadable line')}")
    if fs.stream_errors:
        parts.append(f"{_plural(fs.stream_errors, 'stream error')} (see msgcli validate)")
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
                [_plural(fs.records, "record")]
                + ([_plural(fs.unreadable_lines, "unreadable line")] if fs.unreadable_lines else [])
                + ([_plural(fs.stream_errors, "stream error")] if fs.stream_errors else [])
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
            + f" ({_plural(tokens.messages, 'message')} with usage)",
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
