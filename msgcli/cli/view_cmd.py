"""``msgcli view``: a folder of logs as a static site of HTML pages with an index."""

from __future__ import annotations

import os
from typing import Annotated

import typer

from .common import check_outputs, fail
from .options import DialectOption, RedactOption, TracebackOption

command = typer.Typer(rich_markup_mode=None, add_completion=False)


@command.command("view")
def view(
    paths: Annotated[
        list[str],
        typer.Argument(
            help="Message or event logs (directories are searched); '-' reads standard input.",
            show_default=False,
            metavar="PATH...",
        ),
    ],
    output: Annotated[
        str,
        typer.Option(
            "--output",
            "-o",
            metavar="DIR",
            help="Write the pages here (made if missing): one per log and index.html.",
        ),
    ],
    findings: Annotated[
        bool, typer.Option("--findings", help="Show validate's findings beside the messages.")
    ] = False,
    media: Annotated[
        bool, typer.Option("--media/--no-media", help="Draw inline images, audio and video.")
    ] = True,
    media_limit: Annotated[
        int,
        typer.Option(
            "--media-limit", min=0, metavar="BYTES", help="Leave out media larger than this."
        ),
    ] = 2 * 1024 * 1024,
    max_chars: Annotated[
        int,
        typer.Option(
            "--max-chars", min=0, metavar="N", help="Cut longer texts, visibly (0: never)."
        ),
    ] = 200_000,
    redact: RedactOption = False,
    dialect: DialectOption = None,
    traceback: TracebackOption = False,
) -> None:
    """Write every log as a self-contained HTML page, and an index page linking them.

    Each page opens offline in any browser (no network, no script from the log):
    one card per message, tool results under their calls, media drawn, a search
    box and filters. Event logs are replayed first. Host the folder as a static
    site or send a page on its own.
    """
    from urllib.parse import quote

    from .. import outputs
    from ..inputs import expand_paths
    from ..render.export import findings_by_line, write_html
    from ..render.html import INDEX_JS, HtmlOptions, one_line, page_head, page_tail
    from ..render.thread import human_size
    from ..render.words import plural

    if "-" in paths and findings:
        raise fail("standard input can be read only once: --findings needs files")
    chosen = dialect
    try:
        os.makedirs(output, exist_ok=True)
    except OSError as exc:
        raise fail(f"cannot make {output}: {exc.strerror or exc}") from None

    pages: list[tuple[str, str, str]] = []  # (log name, page file, problem or "")
    taken: set[str] = set()
    for arg in paths:
        for name, source, problem in expand_paths([arg]):
            if source is None:
                pages.append((name, "", "no such file" if problem == "missing" else "no logs"))
                continue
            if name == arg or source == "-":
                rel = "stdin" if source == "-" else os.path.basename(name)
            else:
                rel = os.path.relpath(name, arg)
                if len(paths) > 1:
                    rel = os.path.join(os.path.basename(os.path.normpath(arg)), rel)
            page = rel + ".html"
            n = 2
            while page in taken:
                page, n = f"{rel}-{n}.html", n + 1
            taken.add(page)
            pages.append((name, page, ""))

    code = 0
    rows: list[str] = []
    total = 0
    for name, page, problem in pages:
        if problem:
            code = 2
            rows.append(
                f"<tr><td>{one_line(name)}</td><td colspan=6>cannot read: {problem}</td></tr>"
            )
            continue
        target = os.path.join(output, page)
        check_outputs([target], paths)
        os.makedirs(os.path.dirname(target) or ".", exist_ok=True)
        options = HtmlOptions(
            title=name,
            media=media,
            media_limit=media_limit,
            max_chars=max_chars,
            findings=findings_by_line([name], chosen, redact) if findings else None,
        )
        try:
            with outputs.PendingFile(target, text=True, errors="replace") as out:
                status, tally = write_html([name], out.stream, options, chosen, redact=redact)
        except OSError as exc:
            raise fail(f"cannot write {target}: {exc.strerror or exc}") from None
        code = max(code, status)
        total += tally.messages
        found = sum(len(v) for v in (options.findings or {}).values())
        problems = tally.notices + tally.unreadable + found
        size = os.path.getsize(name) if name != "-" and os.path.isfile(name) else None
        # (a file name that is not UTF-8: its own bytes, percent-encoded)
        href = quote(page.replace(os.sep, "/"), errors="surrogateescape")
        rows.append(
            f'<tr><td><a href="{href}">{one_line(name)}</a></td>'
            f'<td class="n">{tally.messages:,}</td><td class="n">{tally.tool_calls:,}</td>'
            f"<td>{one_line(tally.first_time or '')}</td><td>{one_line(tally.last_time or '')}</td>"
            f'<td class="n">{problems:,}</td>'
            f'<td class="n">{human_size(size) if size is not None else ""}</td></tr>'
        )
    title = f"msgcli view: {plural(len(rows), 'log')}, {total:,} messages"
    index = os.path.join(output, "index.html")
    check_outputs([index], paths)
    head = (
        '<table class="index"><thead><tr><th>log</th><th>messages</th><th>tool calls</th>'
        "<th>first</th><th>last</th><th>problems</th><th>size</th></tr></thead><tbody>"
    )
    bar = (
        f'<div id="bar" role="search"><h1>{one_line(title)}</h1>'
        '<input id="q" type="search" placeholder="Filter logs" aria-label="Filter logs">'
        '<span id="count"></span></div>\n'
    )
    try:
        with outputs.PendingFile(index, text=True) as out:
            out.stream.write(page_head(title, INDEX_JS))
            out.stream.write(head + "\n".join(rows) + "</tbody></table>\n")
            out.stream.write(page_tail(bar, INDEX_JS))
    except OSError as exc:
        raise fail(f"cannot write {index}: {exc.strerror or exc}") from None
    typer.echo(f"msgcli: wrote {len(rows)} page(s) and {index}", err=True)
    raise typer.Exit(code)
