"""``msgcli config``: the settings in effect, and where each one came from."""

from __future__ import annotations

from typing import Annotated

import typer

from .common import resolve
from .options import (
    ConfigOption,
    DialectOption,
    IgnoreOption,
    ListFormat,
    NoConfigOption,
    SelectOption,
    StrictOption,
)

command = typer.Typer(rich_markup_mode=None, add_completion=False)


@command.command("config")
def config_cmd(
    paths: Annotated[
        list[str] | None,
        typer.Argument(
            help="Show what applies to these files (their per-path overrides, or that they "
            "are excluded).",
            show_default=False,
            metavar="[PATH...]",
        ),
    ] = None,
    dialect: DialectOption = None,
    select: SelectOption = None,
    ignore: IgnoreOption = None,
    strict: StrictOption = None,
    expect_invalid: Annotated[
        bool, typer.Option("--expect-invalid", help="As for validate.")
    ] = False,
    config: ConfigOption = None,
    no_config: NoConfigOption = False,
    output_format: Annotated[
        ListFormat, typer.Option("--format", "-f", help="text or json.")
    ] = ListFormat.text,
) -> None:
    """Print the effective configuration: the file found ([tool.msgcli] in pyproject.toml,
    or msgcli.toml, from the current directory up), each setting with where it came from,
    and, for each PATH, what applies to that file.

    The options are validate's: give them to see how they combine with the file.
    Exit status: 0, or 2 when the configuration cannot be used.
    """
    resolver = resolve(
        config=config,
        no_config=no_config,
        dialect=dialect,
        select=select,
        ignore=ignore,
        strict=strict,
        expect_invalid=expect_invalid,
    )
    from ..api import config_document

    doc = config_document(resolver, paths or [])
    if output_format is ListFormat.json:
        import orjson

        typer.echo(orjson.dumps(doc, option=orjson.OPT_INDENT_2).decode())
        return
    typer.echo(_text(doc))


def _text(doc: dict) -> str:
    from ..textsafe import visible

    out = []
    if doc["file"]:
        where = f"{doc['file']}" + (f" {doc['table']}" if doc["table"] else "")
        out.append(f"configuration: {visible(where)}")
        out.append(f"paths are relative to: {visible(doc['root'])}")
    else:
        out.append(
            "configuration: none found ([tool.msgcli] in pyproject.toml, or msgcli.toml, "
            "from the current directory up)"
        )
    out.append("")
    out += _settings_text(doc["settings"], "")
    if doc["exclude"]:
        out.append(f"exclude  {visible(', '.join(doc['exclude']))}")
    for o in doc["overrides"]:
        values = ", ".join(
            f"{key} = {_value(o[key])}"
            for key in ("dialect", "select", "ignore", "strict", "expect")
            if key in o
        )
        out.append(f"override #{o['number']}  {visible(', '.join(o['paths']))}: {values}")
    for entry in doc["paths"]:
        out.append("")
        if entry["excluded"]:
            out.append(f"{visible(entry['path'])}: excluded")
            continue
        numbers = ", ".join(f"#{n}" for n in entry["overrides"]) or "none"
        out.append(f"{visible(entry['path'])}: overrides {numbers}")
        out += _settings_text(entry["settings"], "  ")
    return "\n".join(out)


def _settings_text(settings: dict, indent: str) -> list[str]:
    from ..textsafe import visible

    rules = settings["rules"]
    off = rules["off"]
    shown = ", ".join(off[:12]) + (f", ... ({len(off)} in all)" if len(off) > 12 else "")
    rows = [
        ("dialect", settings["dialect"]["value"] or "detect", settings["dialect"]["source"]),
        ("rules", f"{rules['on']} on" + (f"; off: {shown}" if off else ""), rules["source"]),
        ("strict", _value(settings["strict"]["value"]), settings["strict"]["source"]),
        (
            "expect",
            settings["expect"]["value"] or "valid",
            settings["expect"]["source"],
        ),
    ]
    lines = [
        f"{indent}{key:<8} {visible(value):<40} from {visible(source)}"
        for key, value, source in rows
    ]
    for step in rules["steps"] if len(rules["steps"]) > 1 else ():
        codes = visible(", ".join(step["codes"]))
        lines.append(f"{indent}  {step['step']} {codes}  ({visible(step['source'])})")
    return lines


def _value(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list):
        return "[" + ", ".join(f'"{v}"' for v in value) + "]"
    return f'"{value}"'
