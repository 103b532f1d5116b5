"""``msgcli export``: logs of any dialect as tables (Parquet, SQLite, DuckDB, CSV)."""

from __future__ import annotations

import os
from typing import Annotated

import typer

from .common import check_outputs, configured_scheduler, dask_client, fail, remote_errors
from .options import DialectOption, RedactOption, SchedulerOption, TracebackOption

command = typer.Typer(rich_markup_mode=None, add_completion=False)


@command.command("export")
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
        str | None,
        typer.Option(
            "--to",
            metavar="FILE",
            help="Where to write, in the format its suffix names: .parquet (a directory, one "
            "file a table), .sqlite or .db (with full-text indexes), .duckdb, .csv (a directory).",
            show_default=False,
        ),
    ] = None,
    otlp: Annotated[
        str | None,
        typer.Option(
            "--otlp",
            metavar="URL",
            help="Send the logs, converted to OpenTelemetry GenAI spans, to this OTLP/HTTP "
            "endpoint (http://host:4318 posts to /v1/traces; a URL with a path is used as "
            "it is) instead of writing tables.",
            show_default=False,
        ),
    ] = None,
    protobuf: Annotated[
        bool,
        typer.Option(
            "--protobuf",
            help="With --otlp: send protobuf (application/x-protobuf) rather than OTLP JSON "
            "(needs the otel extra: pip install 'msgcli[otel]').",
        ),
    ] = False,
    header: Annotated[
        list[str] | None,
        typer.Option(
            "--header",
            metavar="NAME=VALUE",
            help="With --otlp: an HTTP header to send (an API key); repeatable.",
            show_default=False,
        ),
    ] = None,
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
    redact: RedactOption = False,
    scheduler: SchedulerOption = None,
    traceback: TracebackOption = False,
) -> None:
    """Flatten logs into the tables messages, blocks, tool_calls and findings.

    One row a message, a block, a tool call (paired with its result: status,
    result text, latency) and a finding of 'msgcli validate'. Event logs are
    replayed first. Memory stays bounded: rows are written in batches. Parquet
    and DuckDB need the tables extra: pip install 'msgcli[tables]'.

    With --scheduler, a task per file writes TO/<table>/part-NNNNN.parquet (TO may be a
    URL such as s3://bucket/tables/): a dataset DuckDB, Spark and Athena read as it is.
    """
    if otlp is not None:
        if to is not None:
            raise fail("give --to FILE or --otlp URL, not both")
        _send_otlp(paths, otlp, protobuf, header or [], quiet, dialect)
        return
    if to is None:
        raise fail("give --to FILE (tables) or --otlp URL (OpenTelemetry spans)")
    from ..api import run_export
    from ..cluster import chosen_scheduler
    from ..engine import Options
    from ..remote import is_url, mask
    from ..tablewriters import MissingExtra, format_of, open_writer
    from ..textsafe import visible

    shown = visible(mask(to))
    address = chosen_scheduler(scheduler, None if scheduler else configured_scheduler())
    if address is not None:
        _export_on_cluster(paths, to, shown, address, overwrite, findings, quiet, dialect, redact)
        return
    if is_url(to):
        raise fail(f"cannot write {shown}: a URL target needs --scheduler (Parquet, a file a task)")
    if format_of(to) is None:
        raise fail(
            f"cannot tell the format of {shown} from its suffix: "
            "use .parquet, .sqlite, .db, .duckdb or .csv"
        )
    check_outputs([to], paths)
    target = os.path.abspath(to)
    parent = os.path.dirname(target)
    if not os.path.isdir(parent):
        raise fail(f"cannot write {shown}: no such directory {visible(parent)}")
    if os.path.lexists(to) and not overwrite:
        raise fail(f"{shown} exists: remove it or add --overwrite")
    try:
        writer = open_writer(to)
    except MissingExtra as exc:
        raise fail(str(exc)) from None
    except OSError as exc:
        raise fail(f"cannot write {shown}: {exc.strerror or exc}") from None
    try:
        counts = run_export(
            paths, writer.write, Options(dialect=dialect, redact=redact), findings=findings
        )
    except BaseException:
        writer.abort()
        raise
    try:
        writer.close(replace=overwrite)
    except OSError as exc:
        writer.abort()
        raise fail(f"cannot write {shown}: {exc.strerror or exc}") from None
    for name, why in counts.unreadable:
        typer.echo(f"msgcli: {visible(name)}: {visible(why)}", err=True)
    if not quiet:
        rows = ", ".join(f"{table} {n}" for table, n in counts.rows.items())
        files = "1 file" if counts.files == 1 else f"{counts.files} files"
        typer.echo(f"msgcli: wrote {shown} from {files}: {rows}", err=True)
    raise typer.Exit(2 if counts.unreadable else 0)


def _send_otlp(
    paths: list[str], url: str, protobuf: bool, header: list[str], quiet: bool, dialect
) -> None:
    """``export --otlp URL``: every log as OpenTelemetry GenAI spans, posted to ``url``."""
    from ..api import run_otlp
    from ..dialects.otel.send import SendError
    from ..engine import Options
    from ..textsafe import visible

    headers = {}
    for item in header:
        name, sep, value = item.partition("=")
        if not sep or not name.strip():
            raise fail(f"--header {visible(item)}: write it as NAME=VALUE")
        headers[name.strip()] = value.strip()
    try:
        report, sent = run_otlp(
            paths, url, Options(dialect=dialect), protobuf=protobuf, headers=headers
        )
    except SendError as exc:
        raise fail(visible(str(exc))) from None
    except ImportError:
        raise fail("--protobuf needs opentelemetry-proto: pip install 'msgcli[otel]'") from None
    unreadable = [f for f in report.files if not f.summary.readable]
    for found in report.files:
        for finding in found.findings:
            if finding.severity.value == "error":
                typer.echo(
                    f"msgcli: {visible(finding.path)}:{finding.line}: {finding.code} "
                    f"{visible(finding.message)}",
                    err=True,
                )
    if not quiet:
        files = "1 file" if len(report.files) == 1 else f"{len(report.files)} files"
        typer.echo(
            f"msgcli: sent {sent.spans} spans from {files} to {visible(url)} in "
            f"{sent.requests} request(s)",
            err=True,
        )
    raise typer.Exit(2 if unreadable else 0)


def _export_on_cluster(
    paths: list[str],
    to: str,
    shown: str,
    address: str,
    overwrite: bool,
    findings: bool,
    quiet: bool,
    dialect,
    redact: bool = False,
) -> None:
    """``export --scheduler``: a Parquet dataset, a file per task and table."""
    from ..remote import is_url
    from ..tablewriters import MissingExtra, check_installed, format_of
    from ..textsafe import visible

    if not (format_of(to) == "parquet" or to.endswith("/")):
        raise fail(
            f"with --scheduler, export writes Parquet files: give a directory ending in "
            f".parquet or / (not {shown})"
        )
    if "-" in paths:
        raise fail("with --scheduler, standard input cannot be exported: name files")
    try:
        check_installed("pyarrow")
    except MissingExtra as exc:
        raise fail(str(exc)) from None
    for path in paths:
        if path.rstrip("/") == to.rstrip("/") or (
            not is_url(path) and not is_url(to) and os.path.abspath(path) == os.path.abspath(to)
        ):
            raise fail(f"{shown} is one of the inputs: choose another target")
    with remote_errors():
        _clear_target(to, shown, overwrite)
        from ..api import run_export
        from ..engine import Options

        with dask_client(address) as client:
            counts = run_export(
                paths,
                _no_rows,
                Options(dialect=dialect, redact=redact),
                findings=findings,
                target=to,
                client=client,
            )
    for name, why in counts.unreadable:
        typer.echo(f"msgcli: {visible(name)}: {visible(why)}", err=True)
    if not quiet:
        rows = ", ".join(f"{table} {n}" for table, n in counts.rows.items())
        files = "1 file" if counts.files == 1 else f"{counts.files} files"
        typer.echo(f"msgcli: wrote {shown} from {files}: {rows}", err=True)
    raise typer.Exit(2 if counts.unreadable else 0)


def _clear_target(to: str, shown: str, overwrite: bool) -> None:
    """A target that exists is kept unless --overwrite, which removes it first."""
    from ..remote import is_url

    if is_url(to):
        from ..remote import clear_target

        exists = clear_target(to, shown, overwrite)
    else:
        exists = os.path.lexists(to)
        parent = os.path.dirname(os.path.abspath(to))
        if not os.path.isdir(parent):
            raise fail(f"cannot write {shown}: no such directory")
        if exists and overwrite:
            import shutil

            if os.path.isdir(to) and not os.path.islink(to):
                shutil.rmtree(to)
            else:
                os.remove(to)
    if exists and not overwrite:
        raise fail(f"{shown} exists: remove it or add --overwrite")


def _no_rows(table: str, rows: list[tuple]) -> None:
    """(with a scheduler, the tasks write the rows themselves)"""
