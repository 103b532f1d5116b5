"""``msgcli diff``: compare two conversations, as ``diff`` compares two files."""

from __future__ import annotations

import sys
from enum import Enum
from typing import Annotated

import typer

from .common import fail
from .options import DialectOption, RedactOption, TracebackOption, dialect_choice


class DiffFormat(str, Enum):
    text = "text"
    json = "json"
    github = "github"


class Match(str, Enum):
    strict = "strict"
    tools = "tools"
    unordered = "unordered"
    subset = "subset"


command = typer.Typer(rich_markup_mode=None, add_completion=False)


@command.command("diff")
def diff(
    a: Annotated[
        str,
        typer.Argument(
            help="The log to compare from (message or event log; '-' reads standard input).",
            show_default=False,
            metavar="A",
        ),
    ],
    b: Annotated[
        str,
        typer.Argument(help="The log to compare with.", show_default=False, metavar="B"),
    ],
    match: Annotated[
        Match,
        typer.Option(
            "--match",
            "-m",
            help="strict: the same messages in order; tools: only the sequence of tool calls "
            "and their arguments; unordered: the tool calls of a turn (and their results) in "
            "any order; subset: B holds A's messages, in order, among others.",
        ),
    ] = Match.strict,
    compare: Annotated[
        list[str] | None,
        typer.Option(
            "--compare",
            metavar="WHAT",
            help="Also compare these, left out by default: usage, ids, times, metadata "
            "(separate with commas or repeat).",
        ),
    ] = None,
    ignore_path: Annotated[
        list[str] | None,
        typer.Option(
            "--ignore-path",
            metavar="POINTER",
            help="Leave out the fields at this JSON pointer of the compared form (globs "
            "allowed), e.g. /metadata/session_id or '/content/*/arguments/request_id'. Repeat "
            "for several.",
        ),
    ] = None,
    output_format: Annotated[
        DiffFormat,
        typer.Option(
            "--format",
            "-f",
            help="text: a unified view of the two threads; json: every difference with both "
            "lines and JSON pointers; github: workflow annotations on B's lines.",
        ),
    ] = DiffFormat.text,
    stat: Annotated[
        bool,
        typer.Option(
            "--stat", help="Print one summary line: messages added, removed, changed; tool calls."
        ),
    ] = False,
    dialect: DialectOption = None,
    dialect_b: Annotated[
        str | None,
        typer.Option(
            "--dialect-b",
            click_type=dialect_choice(),
            help="Read B as this dialect (default: as --dialect, or detect).",
        ),
    ] = None,
    width: Annotated[
        int | None, typer.Option("--width", min=20, metavar="COLUMNS", help="Output width.")
    ] = None,
    max_chars: Annotated[
        int,
        typer.Option(
            "--max-chars", min=0, metavar="N", help="Cut longer texts, visibly (0: never)."
        ),
    ] = 2_000,
    redact: RedactOption = False,
    traceback: TracebackOption = False,
) -> None:
    """Compare two message or event logs as conversations, of any dialects.

    Messages are read into the dialect-neutral model (event logs are replayed first)
    and aligned by a longest common subsequence over role, sender, block kinds and tool
    names, so an inserted message is one insertion. Compared: role, sender, and each
    block (text, thinking, tool calls by name and arguments as JSON, tool results,
    media by type and digest). Ids, times, token usage and metadata are left out
    unless --compare names them.

    Exit status, as for diff: 0 the same, 1 different, 2 trouble (a log that cannot
    be read, or lines of it that cannot).
    """
    from ..api import run_diff
    from ..compare import DiffError
    from ..engine import Options
    from ..textsafe import visible

    if a == "-" and b == "-":
        raise fail("A and B cannot both be standard input")
    try:
        result = run_diff(
            a,
            b,
            Options(dialect=dialect, redact=redact),
            Options(dialect=dialect_b, redact=redact) if dialect_b else None,
            match=match.value,
            compare=compare or (),
            ignore_paths=ignore_path or (),
        )
    except DiffError as exc:
        raise fail(visible(str(exc))) from None
    except ValueError as exc:
        raise fail(visible(str(exc))) from None
    for problem in result.problems:
        typer.echo(f"msgcli: {visible(problem)}", err=True)
    out = sys.stdout
    if stat:
        typer.echo(f"{visible(result.a)} → {visible(result.b)}: {result.stat_line()}")
    elif output_format is DiffFormat.json:
        import orjson

        document = result.as_dict()
        try:
            text = orjson.dumps(document, option=orjson.OPT_INDENT_2, default=str).decode()
        except TypeError:  # a value of the logs nested past orjson's 255 levels
            from ..guard import json_text

            text = json_text(document, indent=True)
        out.write(text)
        out.write("\n")
    elif output_format is DiffFormat.github:
        from ..report.github import write_diff

        write_diff(result, out)
    else:
        from ..render.diff import print_diff
        from ..render.view import console_for
        from ..report.text import use_colour

        colour = use_colour(out)
        console = console_for(out, colour=colour, width=width, terminal_width=out.isatty())
        print_diff(console, result, marks=not colour, max_chars=max_chars)
    raise typer.Exit(result.exit_code)
