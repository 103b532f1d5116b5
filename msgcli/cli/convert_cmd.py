"""``msgcli convert``: a log in another dialect.

The mapping is :mod:`msgcli.converters`; this module parses the options,
writes the records (standard output, a file, gzip) and reports what could not
be carried over, as ``validate`` reports its findings.
"""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from .common import fail, open_output, parse_zone, resolve
from .options import (
    ConfigOption,
    DialectOption,
    FindingsFormatOption,
    IgnoreOption,
    NoConfigOption,
    OutputOption,
    QuietOption,
    SelectOption,
    StrictOption,
    TracebackOption,
    dialect_choice,
)

command = typer.Typer(rich_markup_mode=None, add_completion=False)


@command.command("convert")
def convert(
    paths: Annotated[
        list[str],
        typer.Argument(
            help="Message logs, or event logs (replayed first); directories are searched; "
            "'-' reads standard input.",
            show_default=False,
            metavar="PATH...",
        ),
    ],
    to: Annotated[
        str,
        typer.Option(
            "--to",
            "-t",
            click_type=dialect_choice(),
            help="The dialect to write.",
            show_default=False,
        ),
    ],
    output: OutputOption = None,
    zone: Annotated[
        str,
        typer.Option(
            "--zone",
            metavar="ZONE",
            help="The zone of AgentScope's local times (Java timestamp, Python created_at) "
            "when LoongFlow's UTC times are on the other side: 'local' (this machine's), "
            "'UTC', +02:00, or a name like Europe/Zurich.",
        ),
    ] = "local",
    carry: Annotated[
        bool,
        typer.Option(
            "--carry/--no-carry",
            help="Keep what the target has no place for in metadata._msgcli, so converting "
            "back gives the original records; --no-carry drops it and reports each loss (X002).",
        ),
    ] = True,
    redact: Annotated[
        bool,
        typer.Option(
            "--redact",
            help="Mask secrets (API keys, tokens, private keys, passwords, Authorization "
            "headers) in the records written.",
        ),
    ] = False,
    dialect: DialectOption = None,
    output_format: FindingsFormatOption = "text",
    select: SelectOption = None,
    ignore: IgnoreOption = None,
    strict: StrictOption = None,
    quiet: QuietOption = False,
    config: ConfigOption = None,
    no_config: NoConfigOption = False,
    traceback: TracebackOption = False,
) -> None:
    """Convert message logs to another dialect: AgentScope Java, AgentScope Python,
    LoongFlow (AgentScope 1.x logs become 2.x), the provider forms, ATIF.

    The records are written as JSONL, in order; an ATIF trajectory is one JSON document
    per log and session (indented when there is one, else one per line). Tool results
    move between the assistant message (Python) and tool messages of their own (Java,
    LoongFlow); blocks the target has no type for are written as the nearest
    one (X001). What the target cannot hold is kept in metadata._msgcli, so
    converting back gives the original records; findings go to standard error.

    Exit status as for validate: 0 no errors, 1 errors (unreadable lines; or
    warnings with --strict), 2 usage error or unreadable path.
    """
    try:
        local = parse_zone(zone)
    except ValueError as exc:
        raise fail(str(exc)) from None
    from ..dialects import get_dialect

    if get_dialect(to).writer is None:
        title = get_dialect(to).title
        raise fail(f"--to {to}: msgcli reads {title} files, it does not write them")
    options = resolve(
        config=config,
        no_config=no_config,
        dialect=dialect,
        select=select,
        ignore=ignore,
        strict=strict,
        expectations=False,
    ).top()
    from ..api import run_convert
    from ..render.words import plural
    from ..report import get_reporter

    out = open_output(output, paths)
    with out:
        if get_dialect(to).load_writer().document:
            # one document per log (an ATIF trajectory): indented when it is the only one,
            # else one per line
            documents: list[dict] = []
            run = run_convert(
                paths, to, documents.append, options, carry=carry, redact=redact, local=local
            )
            for document in documents:
                (out.document if len(documents) == 1 else out.write)(document)
        else:
            run = run_convert(
                paths, to, out.write, options, carry=carry, redact=redact, local=local
            )
    if output_format == "text":
        get_reporter("text")(run, sys.stderr, quiet=True)
        if not quiet:
            s = run.summary
            typer.echo(
                f"Converted {plural(s.records, 'record')} into "
                f"{out.count} {to} record{'s' if out.count != 1 else ''}"
                f" ({plural(s.errors, 'error')}, "
                f"{plural(s.warnings, 'warning')})"
                + (
                    f"; {plural(s.excluded, 'file')} excluded by the configuration."
                    if s.excluded
                    else "."
                ),
                err=True,
            )
    else:
        get_reporter(output_format)(run, sys.stderr, quiet=quiet)
    raise typer.Exit(run.exit_code)
