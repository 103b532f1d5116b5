"""The message filters ``msgcli query`` and ``msgcli show`` share, declared once."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, TypeVar

import typer

if TYPE_CHECKING:
    from ..filters import Filter

F = TypeVar("F", bound="Filter")

RoleOption = Annotated[
    list[str] | None,
    typer.Option("--role", "-r", help="Only messages of this role (repeat for several)."),
]
NameOption = Annotated[
    list[str] | None,
    typer.Option("--name", "-n", help="Only messages from this sender (repeat for several)."),
]
ToolOption = Annotated[
    list[str] | None,
    typer.Option(
        "--tool",
        metavar="NAME",
        help="Only messages holding a call of this tool or a result of such a call.",
    ),
]
ErrorsOption = Annotated[
    bool,
    typer.Option(
        "--errors",
        help="Only failed tool results, replies that ended in error (or were interrupted), "
        "and records 'msgcli validate' finds an error in.",
    ),
]
GrepOption = Annotated[
    list[str] | None,
    typer.Option(
        "--grep",
        "-g",
        metavar="REGEX",
        help="Only messages whose text, thinking, tool arguments or results match "
        "(repeat: all must match).",
    ),
]
IgnoreCaseOption = Annotated[bool, typer.Option("--ignore-case", "-i", help="--grep ignores case.")]
SinceOption = Annotated[
    str | None,
    typer.Option(
        "--since",
        metavar="TIME",
        help="Only messages from this time on: ISO (2026-11-22T11:54) or a duration ago "
        "(30m, 12h, 7d).",
    ),
]
UntilOption = Annotated[
    str | None,
    typer.Option("--until", metavar="TIME", help="Only messages up to this time (as --since)."),
]
FinishOption = Annotated[
    list[str] | None,
    typer.Option(
        "--finish",
        metavar="REASON",
        help="Only replies with this finish reason (completed, error, MODEL_STOP...).",
    ),
]
IdOption = Annotated[
    list[str] | None,
    typer.Option(
        "--id",
        metavar="ID",
        help="Only the message with this id, or id prefix (the short id a header shows "
        "is unique in its file).",
    ),
]
SessionOption = Annotated[
    list[str] | None,
    typer.Option(
        "--session",
        "--conversation",
        metavar="ID",
        help="Only messages of this session or conversation (LoongFlow conversation_id or "
        "trace_id; a session_id in the metadata).",
    ),
]
WhereOption = Annotated[
    str | None,
    typer.Option(
        "--where",
        metavar="EXPR",
        help="Only messages for which this JMESPath expression over the neutral JSON "
        '(see --neutral) is true, e.g. "usage.output_tokens > `100`".',
    ),
]


def make_filter(cls: type[F], **values: object) -> F:
    """The filter (of class ``cls``) the options ask for; a bad value ends the command
    (exit 2)."""
    from ..filters import FilterError
    from .common import fail

    try:
        return cls.build(**values)  # type: ignore[arg-type,return-value]
    except FilterError as exc:
        raise fail(str(exc)) from None
