"""``msgcli schema``: the published JSON Schemas."""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from .common import fail

command = typer.Typer(
    help="List and print the published JSON Schemas.",
    no_args_is_help=True,
    rich_markup_mode=None,
    add_completion=False,
)


@command.command("list")
def schema_list() -> None:
    """List the schemas shipped with msgcli, as DIALECT/KIND."""
    from ..dialects import load_installed
    from ..schemas import list_schemas, load_schema

    load_installed()  # the schemas of installed dialects too

    for name in list_schemas():
        title = load_schema(name).get("title", "")
        typer.echo(f"{name}\t{title}")


@command.command("show")
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
        raise fail(exc.args[0]) from None
    sys.stdout.write(path.read_text(encoding="utf-8"))
