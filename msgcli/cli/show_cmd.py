"""``msgcli show``: read a log like a chat."""

from __future__ import annotations

import sys
from enum import Enum
from typing import Annotated

import typer

from .common import check_outputs, fail
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
from .options import DialectOption, TracebackOption


class Thinking(str, Enum):
    fold = "fold"
    full = "full"


command = typer.Typer(rich_markup_mode=None, add_completion=False)


@command.command("show")
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
        Thinking | None,
        typer.Option(
            "--thinking",
            help="Thinking and hints folded to their first lines, or full. [default: fold]",
            show_default=False,
        ),
    ] = None,
    no_thinking: Annotated[
        bool, typer.Option("--no-thinking", help="Hide thinking and hint blocks.")
    ] = False,
    redact: Annotated[
        bool,
        typer.Option(
            "--redact",
            help="Mask secrets (API keys, tokens, private keys, passwords, Authorization "
            "headers) before showing or exporting.",
        ),
    ] = False,
    metadata: Annotated[bool, typer.Option("--metadata", help="Show message metadata.")] = False,
    full: Annotated[
        bool,
        typer.Option(
            "--full",
            help="Fold nothing: long tool results (and thinking) in full, not their first lines.",
        ),
    ] = False,
    every: Annotated[
        bool,
        typer.Option(
            "--all",
            help="Also the records that are not part of the conversation (Claude Code's "
            "attachments, queue operations, titles, snapshots, ...).",
        ),
    ] = False,
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
            "--export-html",
            metavar="FILE",
            help="Write one self-contained HTML page instead (search, filters, media; "
            "opens offline).",
        ),
    ] = None,
    export_markdown: Annotated[
        str | None,
        typer.Option(
            "--export-markdown",
            metavar="FILE",
            help="Write the conversation as GitHub-flavoured Markdown instead ('-': stdout).",
        ),
    ] = None,
    findings: Annotated[
        bool,
        typer.Option("--findings", help="With --export-html: show validate's findings too."),
    ] = False,
    media: Annotated[
        bool,
        typer.Option("--media/--no-media", help="With --export-html: draw inline media."),
    ] = True,
    media_limit: Annotated[
        int,
        typer.Option(
            "--media-limit",
            min=0,
            metavar="BYTES",
            help="With --export-html: leave out media larger than this.",
        ),
    ] = 2 * 1024 * 1024,
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
        raise fail("--head and --tail cannot be used together")
    if no_thinking and thinking is not None:
        raise fail(f"--no-thinking and --thinking {thinking.value} contradict each other: give one")
    if full and thinking is Thinking.fold:
        raise fail("--full and --thinking fold contradict each other: give one")
    if idle_timeout is not None and not follow:
        raise fail("--idle-timeout is for --follow: give both, or neither")
    if follow and (tail is not None or export_html or export_svg or export_markdown):
        raise fail("--follow cannot be used with --tail or an export")
    if follow and (len(paths) != 1 or paths[0] == "-"):
        raise fail("--follow needs exactly one file")
    check_outputs([export_html, export_svg, export_markdown], paths)

    from ..render.thread import ShowOptions
    from ..render.view import Filters, View, console_for, open_pager
    from ..report.text import use_colour

    options = ShowOptions(
        thinking="hide" if no_thinking else (thinking or Thinking.fold).value,
        markdown=markdown,
        metadata=metadata,
        max_chars=max_chars,
        full=full,
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
    filters.every = every
    chosen = dialect
    stdout = sys.stdout
    terminal = stdout.isatty()
    colour = use_colour(stdout)

    if findings and not export_html:
        raise fail("--findings works with --export-html")
    if export_svg and (export_html or export_markdown) and "-" in paths:
        raise fail("standard input can be read only once: write one export")
    if export_html or export_markdown:
        from .exports import run_exports

        code = run_exports(
            paths,
            chosen,
            filters,
            head,
            tail,
            html=export_html,
            markdown=export_markdown,
            findings=findings,
            media=media,
            media_limit=media_limit,
            max_chars=max_chars,
            redact=redact,
        )
        if not export_svg:
            raise typer.Exit(code)

    if export_svg:
        import io

        console = console_for(io.StringIO(), colour=True, width=width or 100, record=True)
        view = View(console, options, filters, head=head, tail=tail, redact=redact)
        code = view.run(paths, chosen)
        try:
            _save_svg(console, export_svg, " ".join(paths))
        except OSError as exc:
            raise fail(f"cannot write {export_svg}: {exc.strerror or exc}") from None
        typer.echo(f"msgcli: wrote {export_svg}", err=True)
        _say_how_ids_matched(filters)
        raise typer.Exit(code)

    if follow:
        console = console_for(stdout, colour=colour, width=width, terminal_width=terminal)
        view = View(console, options, filters, head=head, redact=redact)
        try:
            code = view.follow(paths[0], chosen, idle=idle_timeout, live=terminal)
        except KeyboardInterrupt:
            code = 0
        _say_how_ids_matched(filters)
        raise typer.Exit(code)

    paging = pager and terminal
    with open_pager(stdout if not paging else None) as (out, is_pager):
        console = console_for(out, colour=colour, width=width, terminal_width=is_pager or terminal)
        view = View(console, options, filters, head=head, tail=tail, redact=redact)
        code = view.run(paths, chosen)
    _say_how_ids_matched(filters)
    raise typer.Exit(code)


def _say_how_ids_matched(filters) -> None:
    """An ``--id`` prefix that matched several messages, or none, is said on standard error
    (the messages it matched are shown)."""
    from ..textsafe import visible

    for prefix in filters.ids:
        found = sorted(filters.matched.get(prefix, ()))
        if not found:
            typer.echo(f"msgcli: --id {visible(prefix)} matches no message", err=True)
        elif len(found) > 1:
            listed = ", ".join(visible(i) for i in found[:5]) + (", ..." if len(found) > 5 else "")
            typer.echo(
                f"msgcli: --id {visible(prefix)} matches {len(found)} messages ({listed}): "
                "all are shown; give more of the id to pick one",
                err=True,
            )


def _save_svg(console, target: str, title: str) -> None:
    from ..outputs import PendingFile
    from ..render.svg import widen
    from ..textsafe import visible

    svg = widen(console.export_svg(title=f"msgcli show {visible(title)}", clear=False))
    with PendingFile(target, text=True) as out:
        out.stream.write(svg)
