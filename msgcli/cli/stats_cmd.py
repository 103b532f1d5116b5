"""``msgcli stats``: what happened in a log, at a glance.

The counting is :mod:`msgcli.stats`; this module parses the options and
prints the counts, as tables (one section per file when there are several,
then the totals) or as the JSON document of :meth:`StatsReport.to_dict`.
"""

from __future__ import annotations

import sys
from enum import Enum
from typing import Annotated

import typer

from ..suffixes import suffix_list
from .common import configured_scheduler, dask_client, remote_errors
from .options import DialectOption, SchedulerOption, TracebackOption


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
    from ..api import run_stats
    from ..cluster import chosen_scheduler
    from ..engine import Options
    from ..progress import progress

    address = chosen_scheduler(scheduler, None if scheduler else configured_scheduler())
    with (
        remote_errors(),
        dask_client(address) as client,
        progress(paths, enabled=client is not None) as bar,
    ):
        report = run_stats(paths, Options(dialect=dialect), client=client, tracker=bar)
    if output_format is StatsFormat.json:
        from ..report.json import document_text

        sys.stdout.write(document_text(report.to_dict()))
        sys.stdout.write("\n")
    else:
        from ..render.stats import print_stats

        print_stats(report)
    from ..textsafe import visible

    for fs in report.files:
        if not fs.readable:
            typer.echo(f"msgcli: {visible(fs.path)}: {fs.problem}", err=True)
    raise typer.Exit(report.exit_code)
