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
    import orjson

    from ..formatters import format_request as build
    from ..reader import ReadError
    from ..stream import LogReader
    from ..textsafe import visible

    check_outputs([output], [path])
    name = "<stdin>" if path == "-" else path
    reader = LogReader(name, dialect)
    messages = []
    lines = []
    notices = []
    try:
        for item in reader.items(path):
            if item.message is not None:
                messages.append(item.message)
                lines.append(item.line)
            else:
                notices.append(item)
    except ReadError as exc:
        raise fail(f"{visible(name)}: cannot read: {visible(str(exc))}") from None
    except OSError as exc:
        raise fail(f"{visible(name)}: cannot read: {visible(exc.strerror or str(exc))}") from None
    # what could not be read, then what the request could not carry, in line order
    report: list[tuple[int | None, str]] = [(item.line, item.notice) for item in notices]
    if reader.dialect is None:
        for line, message in report:
            typer.echo(f"{visible(name)}:{line}: {visible(message)}", err=True)
        raise fail(f"{visible(name)}: no messages of a known dialect")

    from ..formatters import DIALECTS as FORMATTED

    if reader.dialect.name not in FORMATTED:
        raise fail(
            f"{visible(name)}: msgcli format follows the formatters of "
            f"{', '.join(FORMATTED)}; {reader.dialect.title} logs are not formatted"
        )
    result = build(messages, reader.dialect.name, provider, multi_agent, lines)
    report += [(note.line, note.message) for note in result.notes]
    report.sort(key=lambda item: -1 if item[0] is None else item[0])
    text = orjson.dumps(result.request, option=orjson.OPT_INDENT_2).decode() + "\n"
    if output is None:
        sys.stdout.write(text)
    else:
        from ..outputs import PendingFile

        try:
            with PendingFile(output, text=True) as out:
                out.stream.write(text)
        except OSError as exc:
            raise fail(f"cannot write {visible(output)}: {exc.strerror or exc}") from None
    for line, message in report:
        where = visible(name) if line is None else f"{visible(name)}:{line}"
        typer.echo(f"{where}: {visible(message)}", err=True)
    if not quiet:
        sent = len(result.request.get("messages") or ()) + (
            1 if result.request.get("system") else 0
        )
        summary = (
            f"Formatted {_plural(len(messages), 'log message')} as {sent} {provider} "
            f"request message{'' if sent == 1 else 's'} ({result.formatter})"
        )
        if result.notes:
            summary += f"; {_plural(len(result.notes), 'note')} on what it could not carry"
        if notices:
            summary += f"; {_plural(len(notices), 'line')} could not be read"
        typer.echo(summary + ".", err=True)
    raise typer.Exit(1 if notices else 0)


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"
