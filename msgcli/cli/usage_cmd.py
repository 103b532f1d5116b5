"""``msgcli usage``: tokens and cost by day, week, month, session, model, project or agent.

The counting is :mod:`msgcli.usage`, the prices :mod:`msgcli.prices`; this module parses
the options and prints the report: a table, JSON or CSV.
"""

from __future__ import annotations

import sys
from enum import Enum
from typing import Annotated

import typer

from ..suffixes import suffix_list
from .common import fail
from .options import TracebackOption


class UsageFormat(str, Enum):
    text = "text"
    json = "json"
    csv = "csv"


class Subagents(str, Enum):
    in_ = "in"
    apart = "apart"


command = typer.Typer(rich_markup_mode=None, add_completion=False)


@command.command("usage")
def usage(
    paths: Annotated[
        list[str],
        typer.Argument(
            help=f"Logs, or directories (every {suffix_list()} file below: "
            "~/.claude/projects, say).",
            show_default=False,
            metavar="PATH...",
        ),
    ],
    by: Annotated[
        str,
        typer.Option(
            "--by",
            help="Rows by day, week, month, session, model, project or agent; several "
            "joined by commas (day,model).",
            metavar="GROUPS",
        ),
    ] = "day",
    since: Annotated[
        str | None,
        typer.Option(
            "--since", help="Only responses on or after this day (YYYY-MM-DD).", metavar="DAY"
        ),
    ] = None,
    until: Annotated[
        str | None,
        typer.Option(
            "--until", help="Only responses on or before this day (YYYY-MM-DD).", metavar="DAY"
        ),
    ] = None,
    zone: Annotated[
        str | None,
        typer.Option(
            "--tz",
            help="The time zone days are counted in (Europe/Paris, UTC). Default: the local one.",
            metavar="ZONE",
        ),
    ] = None,
    subagents: Annotated[
        Subagents,
        typer.Option(
            "--subagents",
            help="in: a sub-agent's responses in its session's rows; apart: rows of their own.",
        ),
    ] = Subagents.in_,
    breakdown: Annotated[
        bool, typer.Option("--breakdown", help="Each row's tokens and cost per model.")
    ] = False,
    prices: Annotated[
        str | None,
        typer.Option(
            "--prices",
            help="Your own price table (JSON, see the README), before the bundled one.",
            metavar="FILE",
        ),
    ] = None,
    output_format: Annotated[
        UsageFormat, typer.Option("--format", "-f", help="text (a table), json or csv.")
    ] = UsageFormat.text,
    jobs: Annotated[
        int | None,
        typer.Option(
            "--jobs",
            "-j",
            min=1,
            metavar="N",
            help="Worker processes (default: one per core).",
            show_default=False,
        ),
    ] = None,
    traceback: TracebackOption = False,
) -> None:
    """Tokens (input, output, cache read, cache write, reasoning) and their cost, counted
    once per model response, grouped by day, week, month, session, model, project or
    agent.

    Exit status: 0, or 2 when a path cannot be read.
    """
    from ..prices import PriceError
    from ..usage import GROUPS, collect_usage, parse_day

    groups = tuple(g.strip() for g in by.split(",") if g.strip())
    wrong = [g for g in groups if g not in GROUPS]
    if wrong or not groups:
        raise fail(f"--by: choose among {', '.join(GROUPS)} (not {', '.join(wrong) or 'none'})")
    if len(set(groups)) != len(groups):
        raise fail("--by: a group is named twice")
    days = []
    for name, text in (("--since", since), ("--until", until)):
        try:
            days.append(parse_day(text) if text else None)
        except ValueError:
            raise fail(f"{name}: not a day (YYYY-MM-DD): {text}") from None
    tz = None
    if zone:
        from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

        try:
            tz = ZoneInfo(zone)
        except (ZoneInfoNotFoundError, ValueError):
            raise fail(f"--tz: no such time zone: {zone}") from None
    try:
        report = collect_usage(
            paths,
            by=groups,
            zone=tz,
            since=days[0],
            until=days[1],
            subagents=subagents.value,
            breakdown=breakdown,
            prices=prices,
            jobs=jobs,
        )
    except PriceError as exc:
        raise fail(f"--prices: {exc}") from None
    if output_format is UsageFormat.json:
        from ..report.json import document_text

        sys.stdout.write(document_text(report.to_dict()))
        sys.stdout.write("\n")
    elif output_format is UsageFormat.csv:
        from ..render.usage import write_csv

        write_csv(report)
    else:
        from ..render.usage import print_usage

        print_usage(report)
    from ..textsafe import visible

    for name, why in report.unreadable:
        typer.echo(f"msgcli: {visible(name)}: {why}", err=True)
    raise typer.Exit(report.exit_code)
