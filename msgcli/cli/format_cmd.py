"""``msgcli format``: the request a model provider is sent for the conversation in a log.

The formatting is :mod:`msgcli.formatters`; this module reads the log, picks the
mode, writes the request as JSON and reports on standard error what the request
could not carry, each at its log line.
"""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from .common import check_outputs, fail
from .options import DialectOption, TracebackOption, provider_choice

command = typer.Typer(rich_markup_mode=None, add_completion=False)


@command.command("format")
def format_request(
    path: Annotated[
        str,
        typer.Argument(
            help="A message or event log (JSONL, JSON array, SSE, gzip); '-' reads standard input.",
            show_default=False,
            metavar="PATH",
        ),
    ],
    provider: Annotated[
        str,
        typer.Option(
            "--provider",
            "-p",
            click_type=provider_choice(),
            help="The model provider whose request to build.",
        ),
    ] = "openai",
    multi_agent: Annotated[
        bool | None,
        typer.Option(
            "--multi-agent/--single-agent",
            help="Use the framework's multi-agent formatter (history merged into <history>) or "
            "its chat formatter. Default: multi-agent when more than one sender speaks as "
            "assistant (or as user).",
            show_default=False,
        ),
    ] = None,
    dialect: DialectOption = None,
    quiet: Annotated[
        bool,
        typer.Option("--quiet", "-q", help="Print the notes only, no summary line."),
    ] = False,
    output: Annotated[
        str | None,
        typer.Option("--output", "-o", metavar="FILE", help="Write the JSON to FILE."),
    ] = None,
    traceback: TracebackOption = False,
) -> None:
    """Print the request messages AgentScope's formatter would send to a provider for the
    conversation in a log, as JSON: {"messages": [...]} for openai and dashscope,
    {"system": ..., "messages": [...]} for anthropic.

    AgentScope Java logs follow the Java formatters; AgentScope Python and LoongFlow logs
    follow AgentScope Python's. What the request cannot carry as the log has it is
    reported on standard error as PATH:LINE: message, in line order with the lines that
    could not be read; a record the framework would reject (a field of the wrong type)
    is formatted as far as it goes, and what was made of it is reported the same way.

    Exit status: 0, 1 when lines of the log could not be read (the rest is formatted),
    2 on a usage error, a path that cannot be read, or a log with no messages of a known
    dialect.
    """
    from ..api import format_log
    from ..engine import Options
    from ..reader import ReadError
    from ..render.request import format_summary, note_lines, request_text
    from ..textsafe import visible

    check_outputs([output], [path])
    name = "<stdin>" if path == "-" else path
    try:
        log = format_log(path, Options(dialect=dialect), provider, multi_agent)
    except ReadError as exc:
        raise fail(f"{visible(name)}: cannot read: {visible(str(exc))}") from None
    except OSError as exc:
        raise fail(f"{visible(name)}: cannot read: {visible(exc.strerror or str(exc))}") from None
    if log.dialect is None:
        for line, message in log.unreadable:
            typer.echo(f"{visible(name)}:{line}: {visible(message)}", err=True)
        raise fail(f"{visible(name)}: no messages of a known dialect")
    if log.formatted is None:
        from ..formatters import DIALECTS as FORMATTED

        raise fail(
            f"{visible(name)}: msgcli format follows the formatters of "
            f"{', '.join(FORMATTED)}; {log.dialect.title} logs are not formatted"
        )
    result = log.formatted
    text = request_text(result.request)
    if output is None:
        sys.stdout.write(text)
    else:
        from ..outputs import PendingFile

        try:
            with PendingFile(output, text=True) as out:
                out.stream.write(text)
        except OSError as exc:
            raise fail(f"cannot write {visible(output)}: {exc.strerror or exc}") from None
    # what could not be read, then what the request could not carry, in line order
    notes = log.unreadable + [(note.line, note.message) for note in result.notes]
    for shown in note_lines(name, notes):
        typer.echo(shown, err=True)
    if not quiet:
        typer.echo(format_summary(log.messages, provider, result, len(log.unreadable)), err=True)
    raise typer.Exit(1 if log.unreadable else 0)
