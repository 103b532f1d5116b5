"""``msgcli replay``: the messages an event log's events build, as the framework builds them."""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from .common import fail, jobs_or_default, open_output, parse_zone, resolve
from .options import (
    ConfigOption,
    DialectOption,
    FindingsFormatOption,
    IgnoreOption,
    NoConfigOption,
    OutputOption,
    QuietOption,
    ReplayJobsOption,
    SelectOption,
    StrictOption,
    TracebackOption,
)

command = typer.Typer(rich_markup_mode=None, add_completion=False)


@command.command("replay")
def replay(
    paths: Annotated[
        list[str],
        typer.Argument(
            help="Event logs (JSONL, SSE, gzip; directories are searched); '-' reads "
            "standard input.",
            show_default=False,
            metavar="EVENTS...",
        ),
    ],
    output: OutputOption = None,
    until: Annotated[
        str | None,
        typer.Option(
            "--until",
            metavar="N|EVENT_ID",
            help="Stop after N events, or after the event with this id, and write the state "
            "at that point (what is unfinished is marked 'open' in its metadata).",
        ),
    ] = None,
    zone: Annotated[
        str | None,
        typer.Option(
            "--zone",
            metavar="ZONE",
            help="Write AgentScope Java message times in this zone, as the JVM that made the "
            "log writes them: 'local' (this machine's), 'UTC', +08:00, or a name like "
            "Asia/Shanghai. Default: UTC, the zone of the events' own stamps.",
        ),
    ] = None,
    dialect: DialectOption = None,
    jobs: ReplayJobsOption = None,
    output_format: FindingsFormatOption = "text",
    select: SelectOption = None,
    ignore: IgnoreOption = None,
    strict: StrictOption = None,
    quiet: QuietOption = False,
    config: ConfigOption = None,
    no_config: NoConfigOption = False,
    traceback: TracebackOption = False,
) -> None:
    """Rebuild the messages of AgentScope event logs, as the framework does, and the
    responses of OpenAI and Anthropic streams (Claude Code's stream-json output too), as
    their SDKs do.

    The messages are written as JSONL in the log's own dialect, one per line,
    in the order they complete. Stream problems (a delta that never started,
    a log that stops mid-reply, ...) are reported on standard error; what
    arrived before a break is still written, marked in its metadata.

    Exit status as for validate: 0 no errors, 1 errors (or warnings with
    --strict), 2 usage error, unreadable path, or a log that holds no events.
    """
    stop: int | str | None = None
    if until is not None:
        stop = int(until) if until.isdecimal() and len(until) < 12 else until
        if stop == 0 or stop == "":
            raise fail("--until needs a positive event count or an event id")
    tz = None
    if zone is not None:
        try:
            tz = parse_zone(zone)
        except ValueError as exc:
            raise fail(str(exc)) from None
        if tz is None:  # 'local'
            from datetime import datetime

            tz = datetime.now().astimezone().tzinfo
    options = resolve(
        config=config,
        no_config=no_config,
        dialect=dialect,
        select=select,
        ignore=ignore,
        strict=strict,
        expectations=False,
        until=stop,
        events_only=True,
        zone=tz,
        jobs=jobs_or_default(jobs),
    ).top()
    from ..api import run_replay
    from ..report import get_reporter

    out = open_output(output, paths)
    from ..progress import progress

    with out, progress(paths, enabled=output_format == "text") as bar:
        run = run_replay(paths, options, out.message, tracker=bar)
    get_reporter(output_format)(run, sys.stderr, quiet=quiet)
    code = run.exit_code
    for fr in run.files:
        fs = fr.summary
        if fs.readable and fs.kind == "messages":
            typer.echo(
                f"msgcli: {fs.path} is a message log, not an event log: nothing to replay",
                err=True,
            )
            code = 2
        if fs.until_missed:
            typer.echo(
                f"msgcli: {fs.path}: no event with id {until!r} (or fewer events): "
                "replayed the whole log",
                err=True,
            )
            code = 2
    raise typer.Exit(code)
