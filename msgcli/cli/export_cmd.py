"""``msgcli export``: logs of any dialect as tables (Parquet, SQLite, DuckDB, CSV)."""

from __future__ import annotations

import os
from typing import Annotated

import typer

from . import DialectOption, TracebackOption, _check_outputs, _fail, app


@app.command()
def export(
    paths: Annotated[
        list[str],
        typer.Argument(
            help="Message or event logs (directories are searched); '-' reads standard input.",
            show_default=False,
            metavar="PATH...",
        ),
    ],
    to: Annotated[
        str,
        typer.Option(
            "--to",
            metavar="FILE",
            help="Where to write, in the format its suffix names: .parquet (a directory, one "
            "file a table), .sqlite or .db (with full-text indexes), .duckdb, .csv (a directory).",
            show_default=False,
        ),
    ],
    overwrite: Annotated[
        bool, typer.Option("--overwrite", help="Replace the target if it exists.")
    ] = False,
    findings: Annotated[
        bool,
        typer.Option(
            "--findings/--no-findings",
            help="Fill the findings table with what 'msgcli validate' finds (reads each "
            "file a second time).",
        ),
    ] = True,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No summary.")] = False,
    dialect: DialectOption = None,
    traceback: TracebackOption = False,
) -> None:
    """Flatten logs into the tables messages, blocks, tool_calls and findings.

    One row a message, a block, a tool call (paired with its result: status,
    result text, latency) and a finding of 'msgcli validate'. Event logs are
    replayed first. Memory stays bounded: rows are written in batches. Parquet
    and DuckDB need the tables extra: pip install 'msgcli[tables]'.
    """
    from ..tables import table_rows
    from ..tablewriters import MissingExtra, format_of, open_writer
    from ..textsafe import visible

    shown = visible(to)
    if format_of(to) is None:
        raise _fail(
            f"cannot tell the format of {shown} from its suffix: "
            "use .parquet, .sqlite, .db, .duckdb or .csv"
        )
    _check_outputs([to], paths)
    target = os.path.abspath(to)
    parent = os.path.dirname(target)
    if not os.path.isdir(parent):
        raise _fail(f"cannot write {shown}: no such directory {visible(parent)}")
    if os.path.lexists(to) and not overwrite:
        raise _fail(f"{shown} exists: remove it or add --overwrite")
    try:
        writer = open_writer(to)
    except MissingExtra as exc:
        raise _fail(str(exc)) from None
    except OSError as exc:
        raise _fail(f"cannot write {shown}: {exc.strerror or exc}") from None
    try:
        counts = table_rows(
            paths, writer.write, dialect=dialect.value if dialect else None, findings=findings
        )
    except BaseException:
        writer.abort()
        raise
    try:
        writer.close(replace=overwrite)
    except OSError as exc:
        writer.abort()
        raise _fail(f"cannot write {shown}: {exc.strerror or exc}") from None
    for name, why in counts.unreadable:
        typer.echo(f"msgcli: {visible(name)}: {visible(why)}", err=True)
    if not quiet:
        rows = ", ".join(f"{table} {n}" for table, n in counts.rows.items())
        files = "1 file" if counts.files == 1 else f"{counts.files} files"
        typer.echo(f"msgcli: wrote {shown} from {files}: {rows}", err=True)
    raise typer.Exit(2 if counts.unreadable else 0)
