"""``msgcli validate``: check logs against their dialect's schemas and rules."""

from __future__ import annotations

import os
import sys
from typing import Annotated

import typer

from ..suffixes import suffix_list
from .common import (
    check_outputs,
    dask_client,
    fail,
    jobs_or_default,
    refuse_together,
    remote_errors,
    resolve,
)
from .options import (
    ConfigOption,
    DialectOption,
    IgnoreOption,
    JobsOption,
    NoConfigOption,
    QuietOption,
    SchedulerOption,
    SelectOption,
    StrictOption,
    TracebackOption,
    report_choice,
    report_formats,
)

command = typer.Typer(rich_markup_mode=None, add_completion=False)


@command.command("validate")
def validate(
    paths: Annotated[
        list[str],
        typer.Argument(
            help=f"Log files or directories (every {suffix_list()} file below); '-' reads "
            "standard input.",
            show_default=False,
            metavar="PATH...",
        ),
    ],
    dialect: DialectOption = None,
    output_format: Annotated[
        str | None,
        typer.Option(
            "--format",
            "-f",
            click_type=report_choice(),
            help="How to write the findings: text, json, github (workflow annotations), junit "
            "(XML test report) or sarif (SARIF 2.1.0). [default: text]",
            show_default=False,
        ),
    ] = None,
    outputs: Annotated[
        list[str] | None,
        typer.Option(
            "--output",
            "-o",
            metavar="[FORMAT:]FILE",
            help="Write the --format report to FILE (without --format, the one its suffix "
            "names: .json, .xml JUnit, .sarif), and the text report to the terminal. With a "
            "FORMAT: prefix (e.g. sarif:msgcli.sarif), write that report to FILE while "
            "--format still goes to the terminal. Repeat for several reports. Never over an "
            "input.",
        ),
    ] = None,
    select: SelectOption = None,
    ignore: IgnoreOption = None,
    strict: StrictOption = None,
    expect_invalid: Annotated[
        bool,
        typer.Option(
            "--expect-invalid",
            help="The files are negative fixtures: each passes when it has an error, or "
            "exactly the findings its .expect sidecar lists (LINE CODE lines, '# expect: "
            "CODES'). What does not meet the expectation is reported as F001-F004.",
        ),
    ] = False,
    max_errors: Annotated[
        int | None,
        typer.Option(
            "--max-errors",
            min=1,
            metavar="N",
            help="Stop after this many errors (checks in one process).",
        ),
    ] = None,
    jobs: JobsOption = None,
    scheduler: SchedulerOption = None,
    quiet: QuietOption = False,
    verbose: Annotated[
        bool,
        typer.Option(
            "--verbose", "-v", help="Also print a line per file: dialect, version, count."
        ),
    ] = False,
    config: ConfigOption = None,
    no_config: NoConfigOption = False,
    traceback: TracebackOption = False,
) -> None:
    """Check message and event logs against the dialect's JSON Schemas and across records
    (event logs are replayed on the way, so stream problems are found too).

    Settings come from [tool.msgcli] in pyproject.toml or a msgcli.toml (see
    'msgcli config'); options given here win.

    Exit status: 0 no errors (warnings allowed), 1 errors found (or warnings
    with --strict), 2 usage error, bad configuration, or a path that cannot be read.
    """
    refuse_together(("--quiet", quiet), ("--verbose", verbose))
    resolver = resolve(
        config=config,
        no_config=no_config,
        dialect=dialect,
        select=select,
        ignore=ignore,
        strict=strict,
        expect_invalid=expect_invalid,
        max_errors=max_errors,
        jobs=jobs_or_default(jobs),
    )
    options = resolver.top()
    from ..api import run_validate
    from ..cluster import chosen_scheduler
    from ..report import get_reporter

    # --max-errors counts errors in one process, as with -j
    address = None if max_errors else chosen_scheduler(scheduler, resolver.config.scheduler)
    terminal, files = _report_outputs(output_format, outputs or [], paths)
    from ..progress import progress

    try:
        with (
            remote_errors(),
            dask_client(address) as client,
            progress(paths, enabled=terminal == "text") as bar,
        ):
            run = run_validate(paths, options, client=client, tracker=bar)
        for fmt, pending in files:
            get_reporter(fmt)(run, pending.stream, quiet=quiet, verbose=verbose, color=False)
    except BaseException:
        for _, pending in files:
            pending.discard()
        raise
    for _, pending in files:
        pending.commit()
    get_reporter(terminal)(run, sys.stdout, quiet=quiet, verbose=verbose)
    raise typer.Exit(run.exit_code)


def _report_outputs(chosen: str | None, outputs: list[str], inputs: list[str]) -> tuple[str, list]:
    """The terminal's format, and ``(format, PendingFile)`` for every ``--output``.

    ``FORMAT:FILE`` writes that report; a plain FILE writes ``--format``'s report, or
    without ``--format`` the one its suffix names (``.json``, ``.xml`` JUnit, ``.sarif``;
    text otherwise). Every file is checked against the inputs and opened before the run,
    so a path that cannot be written fails at once."""
    terminal = chosen or "text"
    if not outputs:
        return terminal, []
    from ..outputs import PendingFile
    from ..report import suffix_formats
    from ..textsafe import visible

    known = report_formats()
    by_suffix = suffix_formats()
    planned: list[tuple[str, str]] = []
    for spec in outputs:
        shown = visible(spec)
        head, sep, tail = spec.partition(":")
        if sep and head in known and tail:
            planned.append((head, tail))
            continue
        if sep and head in known:
            raise fail(f"--output {shown}: name the file after the colon, e.g. {head}:report")
        if sep and len(head) > 1 and head.isalnum():
            raise fail(
                f"--output {shown}: unknown report format {head!r} (known: "
                f"{', '.join(known)}); to name a file with a colon, write ./{shown}"
            )
        suffix = os.path.splitext(spec)[1].lower()
        named = by_suffix.get(suffix)
        if chosen is not None and named is not None and named != chosen:
            raise fail(
                f"--output {shown} names a {named} report by its suffix, but --format is "
                f"{chosen}: write {chosen}:{shown} or {named}:{shown}"
            )
        planned.append((chosen or named or "text", spec))
        terminal = "text"  # the unprefixed output took --format: the terminal reads text
    check_outputs([path for _, path in planned], inputs)
    files: list = []
    try:
        for fmt, path in planned:
            try:
                files.append((fmt, PendingFile(path, text=True)))
            except OSError as exc:
                raise fail(f"cannot write {visible(path)}: {exc.strerror or exc}") from None
    except BaseException:
        for _, pending in files:
            pending.discard()
        raise
    return terminal, files
