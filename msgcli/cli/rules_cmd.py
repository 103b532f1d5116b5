"""``msgcli rules``: every rule, or one explained."""

from __future__ import annotations

from typing import Annotated

import typer

from .common import fail, pipe_closed
from .options import ListFormat

command = typer.Typer(rich_markup_mode=None, add_completion=False)


@command.command("rules")
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
    from ..dialects import DIALECTS  # noqa: F401 - registering them adds their rules
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
    console.on_broken_pipe = pipe_closed  # type: ignore[method-assign]
    console.print(table)


def _explain_rule(code: str, output_format: ListFormat) -> None:
    """``msgcli rules T001``: one rule, as ``ruff rule`` explains one."""
    from ..dialects import DIALECTS  # noqa: F401 - registering them adds their rules
    from ..rule_docs import EXPLAINED, how_to_ignore
    from ..rules import RETIRED, RULES
    from ..textsafe import visible

    wanted = code.strip().upper()
    rule = RULES.get(wanted) or next((r for r in RULES.values() if r.name == code.strip()), None)
    if rule is None:
        if wanted in RETIRED:
            raise fail(f"{wanted} is retired and never reused: {RETIRED[wanted]}")
        import difflib

        near = difflib.get_close_matches(wanted, list(RULES), n=3, cutoff=0.5)
        hint = f" (did you mean {', '.join(near)}?)" if near else ""
        raise fail(f"no rule {visible(code)!r}{hint}; 'msgcli rules' lists them all")
    explained = EXPLAINED.get(rule.code)
    if explained is None:
        from ..dialects import rule_explained

        explained = rule_explained(rule.code) or ("", "")
    example, fix = explained
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
