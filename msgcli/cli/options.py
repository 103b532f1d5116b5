"""The options several commands share, declared once so they read the same everywhere.

Every list of choices is read from its registry when a command is built or its value is
checked, never copied: the dialects from :data:`msgcli.dialects.DIALECTS`, the report
formats from :data:`msgcli.report.REPORTERS`, the providers from the formatters the
dialects name. A dialect, reporter or provider added there is a choice here with no edit.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from enum import Enum
from typing import Annotated, Any

import typer
from typer.main import TyperChoice

from .common import want_traceback


class RegistryChoice(TyperChoice):
    """A choice among the names a registry holds, read each time they are asked for
    (listed in ``--help``, or checked against a value given): the type typer gives an
    ``Enum`` option, without the enum's copy of the list."""

    def __init__(self, names: Callable[[], Iterable[str]]) -> None:
        self._names = names
        super().__init__((), case_sensitive=True)

    @property  # type: ignore[override]
    def choices(self) -> tuple[str, ...]:
        return tuple(self._names())

    @choices.setter
    def choices(self, value: Any) -> None:
        """(the names are the registry's: a value set here is not kept)"""


def dialect_names() -> list[str]:
    from ..dialects import dialect_names as names

    return names()


def report_formats() -> tuple[str, ...]:
    from ..report import REPORTERS

    return tuple(REPORTERS)


def providers() -> list[str]:
    """The providers the dialects' formatters are for, in the order the dialects name them."""
    from ..dialects import DIALECTS, load_installed

    load_installed()
    return list(dict.fromkeys(p for d in DIALECTS.values() for p in d.formatters))


def dialect_choice() -> RegistryChoice:
    return RegistryChoice(dialect_names)


def report_choice() -> RegistryChoice:
    return RegistryChoice(report_formats)


def provider_choice() -> RegistryChoice:
    return RegistryChoice(providers)


class ListFormat(str, Enum):
    text = "text"
    json = "json"
    markdown = "markdown"


DialectOption = Annotated[
    str | None,
    typer.Option(
        "--dialect",
        "-d",
        click_type=dialect_choice(),
        help="Read every file as this dialect (default: detect).",
    ),
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
RedactOption = Annotated[
    bool,
    typer.Option(
        "--redact",
        help="Mask secrets (API keys, tokens, private keys, passwords, Authorization "
        "headers) in everything written, as 'msgcli show --redact' does.",
    ),
]
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
    str,
    typer.Option(
        "--format",
        "-f",
        click_type=report_choice(),
        help="How to write the findings (on standard error).",
    ),
]
ReplayJobsOption = Annotated[
    int | None,
    typer.Option(
        "--jobs",
        "-j",
        min=1,
        metavar="N",
        help="Worker processes (default: one per core). A large log of provider streams "
        "(Anthropic) is cut where a stream starts and its parts replayed side by side; the "
        "messages, findings and counts are a single pass's.",
        show_default=False,
    ),
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
TracebackOption = Annotated[
    bool,
    typer.Option(
        "--traceback", callback=want_traceback, help="Show the traceback of an internal error."
    ),
]
