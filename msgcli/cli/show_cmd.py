"""``msgcli show``: read a log like a chat."""

from __future__ import annotations

import sys
from enum import Enum
from typing import Annotated

import typer

from . import DialectOption, TracebackOption, _fail, app
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


class Thinking(str, Enum):
    fold = "fold"
    full = "full"


@app.command()
def show(
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
    head: Annotated[
        int | None, typer.Option("--head", min=1, metavar="N", help="Only the first N messages.")
    ] = None,
    tail: Annotated[
        int | None, typer.Option("--tail", min=1, metavar="N", help="Only the last N messages.")
    ] = None,
    markdown: Annotated[
        bool, typer.Option("--markdown", help="Render text blocks as Markdown.")
    ] = False,
    thinking: Annotated[
        Thinking,
        typer.Option("--thinking", help="Thinking and hints folded to their first lines, or full."),
    ] = Thinking.fold,
    no_thinking: Annotated[
        bool, typer.Option("--no-thinking", help="Hide thinking and hint blocks.")
    ] = False,
    metadata: Annotated[bool, typer.Option("--metadata", help="Show message metadata.")] = False,
    max_chars: Annotated[
        int,
        typer.Option(
            "--max-chars", min=0, metavar="N", help="Cut longer texts, visibly (0: never)."
        ),
    ] = 20_000,
    width: Annotated[
        int | None, typer.Option("--width", min=20, metavar="COLUMNS", help="Output width.")
    ] = None,
    pager: Annotated[
        bool,
        typer.Option(
            "--pager/--no-pager",
            help="Page long output on a terminal ($MSGCLI_PAGER, $PAGER or less).",
        ),
    ] = True,
    follow: Annotated[
        bool,
        typer.Option(
            "--follow",
            "-f",
            help="Keep reading a log that is being written, showing replies as they stream.",
        ),
    ] = False,
    idle_timeout: Annotated[
        float | None,
        typer.Option(
            "--idle-timeout",
            min=0,
            metavar="SECONDS",
            help="With --follow: stop after this long without new lines.",
        ),
    ] = None,
    export_html: Annotated[
        str | None,
        typer.Option(
            "--export-html", metavar="FILE", help="Write one self-contained HTML page instead."
        ),
    ] = None,
    export_svg: Annotated[
        str | None,
        typer.Option("--export-svg", metavar="FILE", help="Write an SVG picture instead."),
    ] = None,
    dialect: DialectOption = None,
    traceback: TracebackOption = False,
) -> None:
    """Show messages and event logs as a conversation.

    Each message gets a header (role, sender, time, short id, line); thinking
    and hints are folded; a tool call shows its arguments and, under it, the
    result that answers it (even from a later message); images and other data
    are one line each, never their bytes. Event logs are replayed first.
    Everything from the log is printed literally: markup is not interpreted
    and control characters are shown as escapes.
    """
    if head is not None and tail is not None:
        raise _fail("--head and --tail cannot be used together")
    if follow and (tail is not None or export_html or export_svg):
        raise _fail("--follow cannot be used with --tail or an export")
    if follow and (len(paths) != 1 or paths[0] == "-"):
        raise _fail("--follow needs exactly one file")
    from ..render.thread import ShowOptions
    from ..render.view import Filters, View, console_for, open_pager
    from ..report.text import use_colour

    options = ShowOptions(
        thinking="hide" if no_thinking else thinking.value,
        markdown=markdown,
        metadata=metadata,
        max_chars=max_chars,
    )
    filters = make_filter(
        Filters,
        roles=role,
        names=name,
        tools=tool,
        errors=errors,
        grep=grep,
        ignore_case=ignore_case,
        since=since,
        until=until,
        finish=finish,
        ids=message_id,
        sessions=session,
        where=where,
    )
    chosen = dialect.value if dialect else None
    stdout = sys.stdout
    terminal = stdout.isatty()
    colour = use_colour(stdout)

    if export_html or export_svg:
        import io

        console = console_for(io.StringIO(), colour=True, width=width or 100, record=True)
        view = View(console, options, filters, head=head, tail=tail)
        code = view.run(paths, chosen)
        for target, save in ((export_html, _save_html), (export_svg, _save_svg)):
            if target:
                try:
                    save(console, target, " ".join(paths))
                except OSError as exc:
                    raise _fail(f"cannot write {target}: {exc.strerror or exc}") from None
                typer.echo(f"msgcli: wrote {target}", err=True)
        raise typer.Exit(code)

    if follow:
        console = console_for(stdout, colour=colour, width=width)
        view = View(console, options, filters, head=head)
        try:
            code = view.follow(paths[0], chosen, idle=idle_timeout, live=terminal)
        except KeyboardInterrupt:
            code = 0
        raise typer.Exit(code)

    paging = pager and terminal
    with open_pager(stdout if not paging else None) as (out, is_pager):
        console = console_for(out, colour=colour, width=width, terminal_width=is_pager or terminal)
        view = View(console, options, filters, head=head, tail=tail)
        code = view.run(paths, chosen)
    raise typer.Exit(code)


def _save_html(console, target: str, title: str) -> None:
    # keep the record for the SVG too: both exports may be asked for at once
    html = console.export_html(inline_styles=True, clear=False)
    with open(target, "w", encoding="utf-8") as out:
        out.write(html)


def _save_svg(console, target: str, title: str) -> None:
    from ..textsafe import visible

    svg = console.export_svg(title=f"msgcli show {visible(title)}", clear=False)
    with open(target, "w", encoding="utf-8") as out:
        out.write(svg)
