"""``msgcli show``: read a log like a chat."""

from __future__ import annotations

import re
import sys
from enum import Enum
from typing import Annotated

import typer

from . import DialectOption, TracebackOption, _fail, app


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
    role: Annotated[
        list[str] | None,
        typer.Option("--role", "-r", help="Only messages of this role (repeat for several)."),
    ] = None,
    name: Annotated[
        list[str] | None,
        typer.Option("--name", "-n", help="Only messages from this sender (repeat for several)."),
    ] = None,
    grep: Annotated[
        str | None,
        typer.Option("--grep", "-g", metavar="REGEX", help="Only messages whose text matches."),
    ] = None,
    message_id: Annotated[
        list[str] | None,
        typer.Option("--id", metavar="ID", help="Only the message with this id (or id prefix)."),
    ] = None,
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
    redact: Annotated[
        bool,
        typer.Option(
            "--redact",
            help="Mask secrets (API keys, tokens, private keys, passwords, Authorization "
            "headers) before showing or exporting.",
        ),
    ] = False,
    metadata: Annotated[bool, typer.Option("--metadata", help="Show message metadata.")] = False,
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
    pattern = None
    if grep is not None:
        try:
            pattern = re.compile(grep)
        except re.error as exc:
            raise _fail(f"--grep: not a regular expression: {exc}") from None

    from ..render.thread import ShowOptions
    from ..render.view import Filters, View, console_for, open_pager
    from ..report.text import use_colour

    options = ShowOptions(
        thinking="hide" if no_thinking else thinking.value,
        markdown=markdown,
        metadata=metadata,
        max_chars=max_chars,
    )
    filters = Filters(
        roles={r.lower() for r in role or ()},
        names=set(name or ()),
        pattern=pattern,
        ids=list(message_id or ()),
        every=every,
    )
    chosen = dialect.value if dialect else None
    stdout = sys.stdout
    terminal = stdout.isatty()
    colour = use_colour(stdout)

    if export_html or export_svg:
        import io

        console = console_for(io.StringIO(), colour=True, width=width or 100, record=True)
        view = View(console, options, filters, head=head, tail=tail, redact=redact)
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
        view = View(console, options, filters, head=head, redact=redact)
        try:
            code = view.follow(paths[0], chosen, idle=idle_timeout, live=terminal)
        except KeyboardInterrupt:
            code = 0
        raise typer.Exit(code)

    paging = pager and terminal
    with open_pager(stdout if not paging else None) as (out, is_pager):
        console = console_for(out, colour=colour, width=width, terminal_width=is_pager or terminal)
        view = View(console, options, filters, head=head, tail=tail, redact=redact)
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
