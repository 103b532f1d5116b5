"""Writing the HTML and Markdown exports for ``msgcli show`` (and pages for ``msgcli view``)."""

from __future__ import annotations

import sys
from typing import Any

import typer

from .common import check_outputs, fail


def open_target(target: str, paths: list[str]) -> Any:
    """A pending file to write ``target`` in (``None`` for ``-``, standard output); never one
    of the inputs (exit 2 before anything is written)."""
    if target == "-":
        return None
    from ..outputs import PendingFile

    check_outputs([target], paths)
    try:
        return PendingFile(target, text=True, errors="replace")
    except OSError as exc:
        raise fail(f"cannot write {target}: {exc.strerror or exc}") from None


def run_exports(
    paths: list[str],
    dialect: str | None,
    filters: Any,
    head: int | None,
    tail: int | None,
    *,
    html: str | None,
    markdown: str | None,
    findings: bool,
    media: bool,
    media_limit: int,
    max_chars: int,
    redact: bool = False,
) -> int:
    from ..render.export import findings_by_line, write_html, write_markdown
    from ..render.html import HtmlOptions
    from ..textsafe import visible

    if "-" in paths and (findings or (html and markdown)):
        raise fail("standard input can be read only once: write one export, without --findings")
    if html == "-":
        raise fail("--export-html needs a file name")
    title = "msgcli show " + " ".join(visible(p) for p in paths)
    code = 0
    if html:
        found = findings_by_line(paths, dialect, redact) if findings else None
        options = HtmlOptions(
            title=title,
            media=media,
            media_limit=media_limit,
            max_chars=max_chars,
            findings=found,
        )
        with open_target(html, paths) as out:
            code, _ = write_html(paths, out.stream, options, dialect, filters, head, tail, redact)
        typer.echo(f"msgcli: wrote {html}", err=True)
    if markdown:
        pending = open_target(markdown, paths)
        if pending is None:
            code = max(
                code, write_markdown(paths, sys.stdout, dialect, filters, head, tail, redact=redact)
            )
            sys.stdout.flush()
        else:
            with pending as out:
                code = max(
                    code,
                    write_markdown(paths, out.stream, dialect, filters, head, tail, redact=redact),
                )
            typer.echo(f"msgcli: wrote {markdown}", err=True)
    return code
