"""``msgcli sql``: DuckDB SQL over the tables of logs, built on the fly."""

from __future__ import annotations

import re
import sys
from enum import Enum
from typing import Annotated, Any

import typer

from .common import fail
from .options import DialectOption, RedactOption, TracebackOption


class SqlFormat(str, Enum):
    table = "table"
    json = "json"
    csv = "csv"


command = typer.Typer(rich_markup_mode=None, add_completion=False)

#: a value of the table on the terminal is cut past this many characters (--full: never);
#: a message's text can run to megabytes, which no one reads in a table cell
CELL_CHARS = 2_000


@command.command("sql")
def sql(
    statement: Annotated[
        str,
        typer.Argument(
            help="A DuckDB SQL query over the tables messages, blocks, tool_calls, findings.",
            show_default=False,
            metavar="SQL",
        ),
    ],
    paths: Annotated[
        list[str],
        typer.Argument(
            help="Message or event logs (directories are searched); '-' reads standard input.",
            show_default=False,
            metavar="PATH...",
        ),
    ],
    fmt: Annotated[
        SqlFormat,
        typer.Option(
            "--format",
            "-f",
            help="A table for reading, JSON (one object a row, a line each) or CSV.",
        ),
    ] = SqlFormat.table,
    findings: Annotated[
        bool | None,
        typer.Option(
            "--findings/--no-findings",
            help="Fill the findings table, which reads each file a second time "
            "[default: when the query names it].",
            show_default=False,
        ),
    ] = None,
    full: Annotated[
        bool,
        typer.Option(
            "--full",
            help=f"Every value of the table whole (by default one of more than "
            f"{CELL_CHARS:,} characters is cut, and says how much more it holds; JSON and CSV "
            "are always whole).",
        ),
    ] = False,
    redact: RedactOption = False,
    dialect: DialectOption = None,
    traceback: TracebackOption = False,
) -> None:
    """Answer a question of the logs in SQL.

    The logs become the tables of 'msgcli export' (in a temporary directory,
    removed afterwards), which the query reads by name, e.g.
    msgcli sql "SELECT name, count(*) FROM tool_calls GROUP BY name" logs/
    Needs the tables extra: pip install 'msgcli[tables]'.
    """
    from ..api import open_sql
    from ..engine import Options
    from ..tablewriters import MissingExtra, check_installed, require
    from ..textsafe import visible

    if findings is None:
        findings = re.search(r"\bfindings\b", statement, re.IGNORECASE) is not None
    try:
        check_installed("duckdb")
        check_installed("pyarrow")
    except MissingExtra as exc:
        raise fail(str(exc)) from None
    try:
        with open_sql(paths, Options(dialect=dialect, redact=redact), findings=findings) as (
            db,
            counts,
        ):
            for name, why in counts.unreadable:
                typer.echo(f"msgcli: {visible(name)}: {visible(why)}", err=True)
            try:
                cursor = db.execute(statement)
            except require("duckdb").Error as exc:
                raise fail(f"SQL: {' '.join(str(exc).split())}") from None
            columns = [d[0] for d in cursor.description or ()]
            rows = cursor.fetchall()
    except MissingExtra as exc:
        raise fail(str(exc)) from None
    if fmt is SqlFormat.json:
        _json(columns, rows)
    elif fmt is SqlFormat.csv:
        _csv(columns, rows)
    else:
        _table(columns, rows, full)
    raise typer.Exit(2 if counts.unreadable else 0)


def _plain(value: Any) -> Any:
    """A value JSON can hold: times as ISO text, decimals as numbers, the rest as text."""
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    if hasattr(value, "isoformat"):
        return value.isoformat()
    import decimal

    if isinstance(value, decimal.Decimal):
        return float(value)
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    return str(value)


def _json(columns: list[str], rows: list[tuple]) -> None:
    from ..writer import dumps

    out = sys.stdout.buffer
    for row in rows:
        out.write(dumps({c: _plain(v) for c, v in zip(columns, row, strict=True)}) + b"\n")
    out.flush()


def _csv(columns: list[str], rows: list[tuple]) -> None:
    import csv

    writer = csv.writer(sys.stdout, lineterminator="\n")
    # (a lone carriage return is no line end to a writer whose lines end in "\n", so it leaves
    # the field unquoted; to a reader it ends the row: such a row is written all quoted)
    quoted = csv.writer(sys.stdout, lineterminator="\n", quoting=csv.QUOTE_ALL)
    writer.writerow(columns)
    for row in rows:
        cells = ["" if v is None else _plain(v) for v in row]
        carriage = any(type(cell) is str and "\r" in cell for cell in cells)
        (quoted if carriage else writer).writerow(cells)


def _table(columns: list[str], rows: list[tuple], full: bool) -> None:
    from rich.table import Table

    from ..render.view import console_for
    from ..render.words import plural
    from ..report.text import use_colour
    from ..textsafe import visible

    table = Table(*[visible(c) for c in columns])
    cut = 0
    for row in rows:
        cells = []
        for value in row:
            text = "" if value is None else visible(str(_plain(value)))
            if not full and len(text) > CELL_CHARS:
                cut += 1
                text = f"{text[:CELL_CHARS]}… [{len(text) - CELL_CHARS:,} more characters]"
            cells.append(text)
        table.add_row(*cells)
    console_for(
        sys.stdout, colour=use_colour(sys.stdout), terminal_width=sys.stdout.isatty()
    ).print(table)
    typer.echo(f"({plural(len(rows), 'row')})", err=True)
    if cut:
        typer.echo(
            f"({plural(cut, 'value')} cut: --full shows them whole, --format csv or json "
            "writes them whole)",
            err=True,
        )
