"""``msgcli query``: the messages that match, as JSONL for jq, a file or another command."""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from .common import fail, open_output
from .filter_opts import (
    ErrorsOption,
    FinishOption,
    GrepOption,
    IdOption,
    IgnoreCaseOption,
    NameOption,
    RoleOption,
    SessionOption,
    SinceOption,
    ToolOption,
    UntilOption,
    WhereOption,
    make_filter,
)
from .options import DialectOption, OutputOption, RedactOption, TracebackOption

command = typer.Typer(rich_markup_mode=None, add_completion=False)


@command.command("query")
def query(
    paths: Annotated[
        list[str],
        typer.Argument(
            help="Message or event logs (directories are searched); '-' reads standard input.",
            show_default=False,
            metavar="PATH...",
        ),
    ],
    role: RoleOption = None,
    name: NameOption = None,
    tool: ToolOption = None,
    errors: ErrorsOption = False,
    grep: GrepOption = None,
    ignore_case: IgnoreCaseOption = False,
    since: SinceOption = None,
    until: UntilOption = None,
    finish: FinishOption = None,
    message_id: IdOption = None,
    session: SessionOption = None,
    where: WhereOption = None,
    neutral: Annotated[
        bool,
        typer.Option(
            "--neutral",
            help="Write each message in the neutral JSON form (the same keys in every "
            "dialect, with file and line) instead of its own dialect's.",
        ),
    ] = False,
    show: Annotated[
        bool, typer.Option("--show", help="Show the messages as 'msgcli show' does.")
    ] = False,
    count: Annotated[
        bool, typer.Option("--count", "-c", help="Print only how many messages match.")
    ] = False,
    output: OutputOption = None,
    dialect: DialectOption = None,
    redact: RedactOption = False,
    traceback: TracebackOption = False,
) -> None:
    """Write the messages that match every filter given, one JSON record a line.

    Records are written in their own dialect (an event log's messages as the
    replay rebuilds them), so the output is a log 'msgcli validate' reads. Each
    filter may be repeated: any of its values matches. Lines that cannot be read
    are reported on standard error. Exit status as grep: 0 when a message
    matched, 1 when none did, 2 when a path could not be read or an option is wrong.
    """
    if sum((neutral, show, count)) > 1:
        raise fail("choose one of --neutral, --show and --count")
    chosen = dialect
    values = {
        "roles": role,
        "names": name,
        "tools": tool,
        "errors": errors,
        "grep": grep,
        "ignore_case": ignore_case,
        "since": since,
        "until": until,
        "finish": finish,
        "ids": message_id,
        "sessions": session,
        "where": where,
    }
    if show:
        _show(paths, chosen, values, redact)
        return
    from ..api import select_messages
    from ..engine import Options
    from ..filters import Filter
    from ..filters import neutral as to_neutral
    from ..textsafe import visible

    selection = select_messages(
        make_filter(Filter, **values), Options(dialect=chosen, redact=redact)
    )
    matched = 0
    if count:
        for _ in selection.run(paths):
            matched += 1
    else:
        with open_output(output, paths) as out:
            for match in selection.run(paths):
                if neutral:
                    out.write(to_neutral(match.message, match.dialect, match.path, match.line))
                else:
                    raw = match.raw
                    if raw is not None and match.dialect is not None:
                        raw = match.dialect.record_out(raw)
                    out.write(raw)
                matched += 1
    for path, line, why in selection.problems:
        where_at = f"{path}:{line}" if line else path
        typer.echo(f"msgcli: {visible(where_at)}: {visible(why)}", err=True)
    if count:
        typer.echo(str(matched))
    if selection.unreadable:
        raise typer.Exit(2)
    raise typer.Exit(0 if matched else 1)


def _show(paths: list[str], dialect: str | None, values: dict, redact: bool = False) -> None:
    from ..render.thread import ShowOptions
    from ..render.view import Filters, View, console_for
    from ..report.text import use_colour

    filters = make_filter(Filters, **values)
    console = console_for(sys.stdout, colour=use_colour(sys.stdout))
    view = View(console, ShowOptions(), filters, redact=redact)
    code = view.run(paths, dialect)
    if code:
        raise typer.Exit(code)
    raise typer.Exit(0 if view.shown else 1)
