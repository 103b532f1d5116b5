"""The ``msgcli`` command line: a thin layer over the library.

Each command parses its options, calls the library, picks a reporter and
returns an exit code: 0 clean, 1 findings of error severity, 2 a usage error
or a path that cannot be read. An unexpected internal error is reported in
one line and exits 2; ``--traceback`` (or ``MSGCLI_TRACEBACK=1``) shows it.

Heavy modules (rich, jsonschema, the schemas) are imported inside the
commands, so ``msgcli --help`` starts fast.
"""

from __future__ import annotations

import contextlib
import os
import sys
from enum import Enum
from typing import TYPE_CHECKING, Annotated

import typer

from .. import __version__
from ..inputs import suffix_list

if TYPE_CHECKING:
    from ..writer import JsonlOutput


def _reader_gone() -> None:
    """Standard output's reader went away (``msgcli ... | head``): what is still buffered
    goes nowhere, quietly, rather than into an error at exit."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass


def _pipe_closed() -> None:
    """For a rich console: its reader went away (rich itself would exit with status 1)."""
    raise BrokenPipeError


class _Group(typer.core.TyperGroup):
    """The command group; a closed pipe on standard output ends any command with status 0,
    as it does ``cat`` or ``grep``: the reader had all it wanted."""

    def invoke(self, ctx):
        try:
            return super().invoke(ctx)
        except BrokenPipeError:
            _reader_gone()
            raise typer.Exit(0) from None


app = typer.Typer(
    name="msgcli",
    cls=_Group,
    help="Check, replay and read the message and event logs that LLM-agent frameworks "
    "record (AgentScope Java and Python, LoongFlow).",
    no_args_is_help=True,
    add_completion=True,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
    context_settings={"help_option_names": ["-h", "--help"]},
)
schema_app = typer.Typer(
    help="List and print the published JSON Schemas.",
    no_args_is_help=True,
    rich_markup_mode=None,
)
app.add_typer(schema_app, name="schema")

_state = {"traceback": bool(os.environ.get("MSGCLI_TRACEBACK"))}


class Format(str, Enum):
    text = "text"
    json = "json"
    github = "github"
    junit = "junit"
    sarif = "sarif"


class DialectName(str, Enum):
    agentscope_java = "agentscope-java"
    agentscope_py = "agentscope-py"
    loongflow = "loongflow"
    openai_chat = "openai-chat"
    openai_responses = "openai-responses"
    anthropic = "anthropic"
    claude_code = "claude-code"


class ListFormat(str, Enum):
    text = "text"
    json = "json"
    markdown = "markdown"


# options several commands share, declared once so they read the same everywhere
DialectOption = Annotated[
    DialectName | None,
    typer.Option("--dialect", "-d", help="Read every file as this dialect (default: detect)."),
]
SelectOption = Annotated[
    list[str] | None,
    typer.Option(
        "--select",
        metavar="CODES",
        help="Only these rule codes or prefixes (e.g. T,I001). Repeat or separate with commas.",
    ),
]
IgnoreOption = Annotated[
    list[str] | None,
    typer.Option(
        "--ignore",
        metavar="CODES",
        help="Leave out these rule codes or prefixes (e.g. C002,M).",
    ),
]
StrictOption = Annotated[
    bool | None,
    typer.Option(
        "--strict/--no-strict",
        help="Warnings fail the run too (exit 1). [default: no-strict, or the configuration's]",
        show_default=False,
    ),
]
ConfigOption = Annotated[
    str | None,
    typer.Option(
        "--config",
        metavar="FILE",
        help="Read settings from this msgcli.toml or pyproject.toml ([tool.msgcli]) instead "
        "of the one found from the current directory up.",
    ),
]
NoConfigOption = Annotated[bool, typer.Option("--no-config", help="Ignore any configuration file.")]
QuietOption = Annotated[
    bool, typer.Option("--quiet", "-q", help="Print the findings only, no summary.")
]
OutputOption = Annotated[
    str | None,
    typer.Option(
        "--output",
        "-o",
        metavar="FILE",
        help="Write to FILE (gzip if it ends in .gz) instead of standard output; never over "
        "an input (exit 2), and only when done (an interrupted run leaves FILE as it was).",
    ),
]
FindingsFormatOption = Annotated[
    Format,
    typer.Option("--format", "-f", help="How to write the findings (on standard error)."),
]
JobsOption = Annotated[
    int | None,
    typer.Option(
        "--jobs",
        "-j",
        min=1,
        metavar="N",
        help="Worker processes (default: one per core). Files are shared out among them, "
        "and a large message log is split at line boundaries; the checks across records "
        "stay exact.",
        show_default=False,
    ),
]
SchedulerOption = Annotated[
    str | None,
    typer.Option(
        "--scheduler",
        metavar="ADDRESS",
        help="Run on a Dask cluster: tcp://HOST:PORT (a running 'dask scheduler'), local "
        "(a LocalCluster, a worker per core) or local:N. Default: $MSGCLI_SCHEDULER, else "
        "'scheduler' in the configuration, else this machine. Needs pip install "
        "'msgcli[dask]'.",
        show_default=False,
    ),
]


@contextlib.contextmanager
def _remote_errors():
    """A URL or a scheduler that cannot be used ends the run with one line and exit 2."""
    from ..remote import RemoteError

    try:
        yield
    except RemoteError as exc:
        raise _fail(str(exc)) from None
    except Exception as exc:
        if type(exc).__name__ == "ClusterError":
            raise _fail(str(exc)) from None
        raise


@contextlib.contextmanager
def _client(address: str | None):
    """A Dask client for ``address`` (None: no scheduler, yields None)."""
    if address is None:
        yield None
        return
    from ..cluster import ClusterError, connect

    try:
        with connect(address) as client:
            yield client
    except ClusterError as exc:
        raise _fail(str(exc)) from None


def _configured_scheduler() -> str | None:
    """The configuration's ``scheduler`` (for the commands that read no other setting)."""
    from ..config import ConfigError, load

    try:
        return load(None, use=True).scheduler
    except ConfigError:
        return None


def _want_traceback(value: bool) -> bool:
    if value:
        _state["traceback"] = True
    return value


TracebackOption = Annotated[
    bool,
    typer.Option(
        "--traceback", callback=_want_traceback, help="Show the traceback of an internal error."
    ),
]


def _version(value: bool) -> None:
    if value:
        typer.echo(f"msgcli {__version__}")
        raise typer.Exit()


@app.callback()
def _main(
    version: Annotated[
        bool,
        typer.Option("--version", callback=_version, is_eager=True, help="Print the version."),
    ] = False,
    traceback: TracebackOption = False,
) -> None:
    """(the options every command takes)"""


def _jobs(jobs: int | None) -> int:
    if jobs is not None:
        return jobs
    from ..parallel import default_jobs

    return default_jobs()


def _check_outputs(outputs: list[str | None], inputs: list[str]) -> None:
    """Refuse (exit 2, before anything is opened for writing) an output that is the same
    file as an input, or as another output: see :mod:`msgcli.outputs`."""
    if not any(out not in (None, "-") for out in outputs):
        return
    from ..outputs import SameFileError, check_outputs
    from ..textsafe import visible

    try:
        check_outputs(outputs, inputs)
    except SameFileError as exc:
        raise _fail(visible(str(exc))) from None


def _open_output(path: str | None, inputs: list[str]) -> JsonlOutput:
    """Where ``-o`` points (standard output without it); a path that cannot be written, or
    that is one of the ``inputs``, is a usage error."""
    from ..writer import open_output

    _check_outputs([path], inputs)
    try:
        return open_output(path)
    except OSError as exc:
        raise _fail(f"cannot write {path}: {exc.strerror or exc}") from None


def _resolver(
    *,
    config: str | None,
    no_config: bool,
    dialect: DialectName | None,
    select: list[str] | None,
    ignore: list[str] | None,
    strict: bool | None,
    expect_invalid: bool = False,
    expectations: bool = True,
    **base,
):
    """The per-file settings of a run (a :class:`msgcli.config.Resolver`). A configuration
    that cannot be used, or an unknown rule code, is a usage error."""
    if config is not None and no_config:
        raise _fail("--config and --no-config contradict each other: give one")
    from ..config import ConfigError, Layer, Resolver, load
    from ..pipeline import Options

    try:
        project = load(config, use=not no_config)
    except ConfigError as exc:
        raise _fail(str(exc)) from None
    command_line = Layer(
        "command line",
        dialect=dialect.value if dialect else None,
        select=tuple(select) if select else None,
        ignore=tuple(ignore) if ignore else None,
        strict=strict,
        expect="invalid" if expect_invalid else None,
    )
    try:
        return Resolver(project, command_line, Options(**base), expectations=expectations)
    except ValueError as exc:
        raise _fail(str(exc)) from None


def _refuse_together(*given: tuple[str, object]) -> None:
    """Options that contradict each other are a usage error, before anything is read."""
    named = [name for name, value in given if value]
    if len(named) > 1:
        raise _fail(f"{' and '.join(named)} contradict each other: give one")


def _fail(message: str, code: int = 2) -> typer.Exit:
    typer.echo(f"msgcli: {message}", err=True)
    return typer.Exit(code)


@app.command()
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
        Format | None,
        typer.Option(
            "--format",
            "-f",
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
    _refuse_together(("--quiet", quiet), ("--verbose", verbose))
    resolver = _resolver(
        config=config,
        no_config=no_config,
        dialect=dialect,
        select=select,
        ignore=ignore,
        strict=strict,
        expect_invalid=expect_invalid,
        max_errors=max_errors,
        jobs=_jobs(jobs),
    )
    options = resolver.top()
    from ..cluster import chosen_scheduler
    from ..pipeline import validate_paths
    from ..report import get_reporter

    # --max-errors counts errors in one process, as with -j
    address = None if max_errors else chosen_scheduler(scheduler, resolver.config.scheduler)
    terminal, files = _report_outputs(output_format, outputs or [], paths)
    from ..progress import progress

    try:
        with (
            _remote_errors(),
            _client(address) as client,
            progress(paths, enabled=terminal is Format.text) as bar,
        ):
            run = validate_paths(paths, options, tracker=bar, client=client)
        for fmt, pending in files:
            get_reporter(fmt.value)(run, pending.stream, quiet=quiet, verbose=verbose, color=False)
    except BaseException:
        for _, pending in files:
            pending.discard()
        raise
    for _, pending in files:
        pending.commit()
    get_reporter(terminal.value)(run, sys.stdout, quiet=quiet, verbose=verbose)
    raise typer.Exit(run.exit_code)


#: the report an unprefixed ``-o FILE`` writes, by the file's suffix
_SUFFIX_FORMATS = {".json": Format.json, ".xml": Format.junit, ".sarif": Format.sarif}


def _report_outputs(
    chosen: Format | None, outputs: list[str], inputs: list[str]
) -> tuple[Format, list]:
    """The terminal's format, and ``(format, PendingFile)`` for every ``--output``.

    ``FORMAT:FILE`` writes that report; a plain FILE writes ``--format``'s report, or
    without ``--format`` the one its suffix names (``.json``, ``.xml`` JUnit, ``.sarif``;
    text otherwise). Every file is checked against the inputs and opened before the run,
    so a path that cannot be written fails at once."""
    terminal = chosen or Format.text
    if not outputs:
        return terminal, []
    from ..outputs import PendingFile
    from ..textsafe import visible

    planned: list[tuple[Format, str]] = []
    for spec in outputs:
        shown = visible(spec)
        head, sep, tail = spec.partition(":")
        if sep and head in Format.__members__ and tail:
            planned.append((Format(head), tail))
            continue
        if sep and head in Format.__members__:
            raise _fail(f"--output {shown}: name the file after the colon, e.g. {head}:report")
        if sep and len(head) > 1 and head.isalnum():
            raise _fail(
                f"--output {shown}: unknown report format {head!r} (known: "
                f"{', '.join(Format.__members__)}); to name a file with a colon, write ./{shown}"
            )
        suffix = os.path.splitext(spec)[1].lower()
        named = _SUFFIX_FORMATS.get(suffix)
        if chosen is not None and named is not None and named is not chosen:
            raise _fail(
                f"--output {shown} names a {named.value} report by its suffix, but --format is "
                f"{chosen.value}: write {chosen.value}:{shown} or {named.value}:{shown}"
            )
        planned.append((chosen or named or Format.text, spec))
        terminal = Format.text  # the unprefixed output took --format: the terminal reads text
    _check_outputs([path for _, path in planned], inputs)
    files: list = []
    try:
        for fmt, path in planned:
            try:
                files.append((fmt, PendingFile(path, text=True)))
            except OSError as exc:
                raise _fail(f"cannot write {visible(path)}: {exc.strerror or exc}") from None
    except BaseException:
        for _, pending in files:
            pending.discard()
        raise
    return terminal, files


@app.command()
def replay(
    paths: Annotated[
        list[str],
        typer.Argument(
            help="Event logs (JSONL, SSE, gzip; directories are searched); '-' reads "
            "standard input.",
            show_default=False,
            metavar="EVENTS...",
        ),
    ],
    output: OutputOption = None,
    until: Annotated[
        str | None,
        typer.Option(
            "--until",
            metavar="N|EVENT_ID",
            help="Stop after N events, or after the event with this id, and write the state "
            "at that point (what is unfinished is marked 'open' in its metadata).",
        ),
    ] = None,
    zone: Annotated[
        str | None,
        typer.Option(
            "--zone",
            metavar="ZONE",
            help="Write AgentScope Java message times in this zone, as the JVM that made the "
            "log writes them: 'local' (this machine's), 'UTC', +08:00, or a name like "
            "Asia/Shanghai. Default: UTC, the zone of the events' own stamps.",
        ),
    ] = None,
    dialect: DialectOption = None,
    output_format: FindingsFormatOption = Format.text,
    select: SelectOption = None,
    ignore: IgnoreOption = None,
    strict: StrictOption = None,
    quiet: QuietOption = False,
    config: ConfigOption = None,
    no_config: NoConfigOption = False,
    traceback: TracebackOption = False,
) -> None:
    """Rebuild the messages of AgentScope event logs, as the framework does, and the
    responses of OpenAI and Anthropic streams, as their SDKs do.

    The messages are written as JSONL in the log's own dialect, one per line,
    in the order they complete. Stream problems (a delta that never started,
    a log that stops mid-reply, ...) are reported on standard error; what
    arrived before a break is still written, marked in its metadata.

    Exit status as for validate: 0 no errors, 1 errors (or warnings with
    --strict), 2 usage error, unreadable path, or a log that holds no events.
    """
    stop: int | str | None = None
    if until is not None:
        stop = int(until) if until.isdecimal() and len(until) < 12 else until
        if stop == 0 or stop == "":
            raise _fail("--until needs a positive event count or an event id")
    tz = None
    if zone is not None:
        from .convert_cmd import parse_zone

        try:
            tz = parse_zone(zone)
        except ValueError as exc:
            raise _fail(str(exc)) from None
        if tz is None:  # 'local'
            from datetime import datetime

            tz = datetime.now().astimezone().tzinfo
    options = _resolver(
        config=config,
        no_config=no_config,
        dialect=dialect,
        select=select,
        ignore=ignore,
        strict=strict,
        expectations=False,
        until=stop,
        events_only=True,
        zone=tz,
    ).top()
    from ..pipeline import validate_paths
    from ..report import get_reporter

    out = _open_output(output, paths)
    from ..progress import progress

    with out, progress(paths, enabled=output_format is Format.text) as bar:
        run = validate_paths(paths, options, sink=out.message, tracker=bar)
    get_reporter(output_format.value)(run, sys.stderr, quiet=quiet)
    code = run.exit_code
    for fr in run.files:
        fs = fr.summary
        if fs.readable and fs.kind == "messages":
            typer.echo(
                f"msgcli: {fs.path} is a message log, not an event log: nothing to replay",
                err=True,
            )
            code = 2
        if fs.until_missed:
            typer.echo(
                f"msgcli: {fs.path}: no event with id {until!r} (or fewer events): "
                "replayed the whole log",
                err=True,
            )
            code = 2
    raise typer.Exit(code)


@app.command()
def rules(
    code: Annotated[
        str | None,
        typer.Argument(
            help="A rule code (e.g. T001): explain that rule.", show_default=False, metavar="CODE"
        ),
    ] = None,
    output_format: Annotated[
        ListFormat, typer.Option("--format", "-f", help="text, json, or markdown (a table).")
    ] = ListFormat.text,
) -> None:
    """List every rule: code, name, default severity and what it checks; or, given a CODE,
    explain that rule: what it finds, an example, how to fix it and how to ignore it."""
    from ..rules import RULES, markdown_table

    if code is not None:
        _explain_rule(code, output_format)
        return
    if output_format is ListFormat.markdown:
        typer.echo(markdown_table())
        return
    if output_format is ListFormat.json:
        import orjson

        doc = [
            {"code": r.code, "name": r.name, "severity": r.severity.value, "summary": r.summary}
            for r in RULES.values()
        ]
        typer.echo(orjson.dumps(doc, option=orjson.OPT_INDENT_2).decode())
        return
    from rich.console import Console
    from rich.table import Table

    table = Table(box=None, pad_edge=False, show_edge=False)
    for column in ("code", "name", "severity", "what it checks"):
        table.add_column(column, overflow="fold")
    for r in RULES.values():
        table.add_row(r.code, r.name, r.severity.value, r.summary)
    console = Console(markup=False, highlight=False)
    console.on_broken_pipe = _pipe_closed  # type: ignore[method-assign]
    console.print(table)


def _explain_rule(code: str, output_format: ListFormat) -> None:
    """``msgcli rules T001``: one rule, as ``ruff rule`` explains one."""
    from ..rule_docs import EXPLAINED, how_to_ignore
    from ..rules import RETIRED, RULES
    from ..textsafe import visible

    wanted = code.strip().upper()
    rule = RULES.get(wanted) or next((r for r in RULES.values() if r.name == code.strip()), None)
    if rule is None:
        if wanted in RETIRED:
            raise _fail(f"{wanted} is retired and never reused: {RETIRED[wanted]}")
        import difflib

        near = difflib.get_close_matches(wanted, list(RULES), n=3, cutoff=0.5)
        hint = f" (did you mean {', '.join(near)}?)" if near else ""
        raise _fail(f"no rule {visible(code)!r}{hint}; 'msgcli rules' lists them all")
    example, fix = EXPLAINED[rule.code]
    if output_format is ListFormat.json:
        import orjson

        doc = {
            "code": rule.code,
            "name": rule.name,
            "severity": rule.severity.value,
            "summary": rule.summary,
            "example": example,
            "fix": fix,
            "ignore": how_to_ignore(rule.code).splitlines(),
        }
        typer.echo(orjson.dumps(doc, option=orjson.OPT_INDENT_2).decode())
        return
    import textwrap

    def indented(text: str) -> str:
        return "\n".join("  " + line for line in text.splitlines())

    def wrapped(text: str) -> str:
        return "\n".join(textwrap.wrap(text, 90, initial_indent="  ", subsequent_indent="  "))

    if output_format is ListFormat.markdown:
        typer.echo(
            f"## {rule.code} {rule.name} ({rule.severity.value})\n\n{rule.summary}\n\n"
            f"**Example**\n\n```\n{example}\n```\n\n**How to fix**: {fix}\n\n"
            f"**How to ignore**\n\n```\n{textwrap.dedent(how_to_ignore(rule.code))}\n```"
        )
        return
    typer.echo(
        f"{rule.code} {rule.name} ({rule.severity.value} by default)\n\n"
        f"{wrapped(rule.summary)}\n\n"
        f"Example:\n{indented(example)}\n\n"
        f"How to fix:\n{wrapped(fix)}\n\n"
        f"How to ignore:\n{how_to_ignore(rule.code)}"
    )


@schema_app.command("list")
def schema_list() -> None:
    """List the schemas shipped with msgcli, as DIALECT/KIND."""
    from ..dialects import load_installed
    from ..schemas import list_schemas, load_schema

    load_installed()  # the schemas of installed dialects too
    for name in list_schemas():
        title = load_schema(name).get("title", "")
        typer.echo(f"{name}\t{title}")


@schema_app.command("show")
def schema_show(
    name: Annotated[
        str, typer.Argument(help="A schema name from 'msgcli schema list' (or just a dialect).")
    ],
) -> None:
    """Print one schema as JSON, to use with any JSON Schema tool."""
    from ..dialects import load_installed
    from ..schemas import schema_path

    load_installed()
    try:
        path = schema_path(name if "/" in name else f"{name}/message")
    except KeyError as exc:
        raise _fail(exc.args[0]) from None
    sys.stdout.write(path.read_text(encoding="utf-8"))


def main(argv: list[str] | None = None) -> None:
    """Entry point of the ``msgcli`` script."""
    try:
        app(args=argv, prog_name="msgcli", standalone_mode=True)
    except SystemExit:
        raise
    except KeyboardInterrupt:
        sys.stderr.write("msgcli: interrupted\n")
        sys.exit(130)
    except BrokenPipeError:
        # The reader went away (msgcli ... | head): not an error of ours.
        _reader_gone()
        sys.exit(0)
    except Exception as exc:  # an internal error: one line, or the whole story on request
        if type(exc).__name__ in ("RemoteError", "ClusterError") and not _state["traceback"]:
            # a URL or a scheduler that cannot be used, in any command: one line, exit 2
            sys.stderr.write(f"msgcli: {exc}\n")
            sys.exit(2)
        if _state["traceback"] or "--traceback" in (argv or sys.argv):
            raise
        sys.stderr.write(
            f"msgcli: internal error: {type(exc).__name__}: {exc} "
            "(run again with --traceback to see where)\n"
        )
        sys.exit(2)


# commands kept in modules of their own; importing them registers them on ``app``
from . import (  # noqa: E402,F401
    config_cmd,
    convert_cmd,
    diff_cmd,
    export_cmd,
    format_cmd,
    query_cmd,
    show_cmd,
    sql_cmd,
    stats_cmd,
    view_cmd,
)
