"""The report of ``msgcli usage`` as a table, or as CSV.

Everything taken from a log (models, sessions, projects, agents) is made visible with
:func:`msgcli.textsafe.visible` before it reaches the console; the table is laid out by a
:class:`msgcli.render.view.SafeConsole`, which lets no control character through.
"""

from __future__ import annotations

import csv
import sys
from typing import TYPE_CHECKING, Any, TextIO

if TYPE_CHECKING:
    from ..usage import Totals, UsageReport

_COUNTS = ("responses", "input", "output", "cache_read", "cache_write", "reasoning", "tokens")
_TITLES = ("Responses", "Input", "Output", "Cache read", "Cache write", "Reasoning", "Tokens")


def _safe(value: Any) -> str:
    from ..textsafe import visible

    if value is None:
        return "(none)"
    return visible(value if isinstance(value, str) else str(value))


def _cost(t: Totals) -> str:
    if t.unpriced >= t.responses and t.responses:
        return "unpriced"
    text = f"${t.cost:,.2f}"
    if t.unpriced:
        text += f" + {t.unpriced} unpriced"
    return text


def _cells(t: Totals) -> list[str]:
    return [f"{getattr(t, name):,}" for name in _COUNTS] + [_cost(t)]


def print_usage(report: UsageReport, out: TextIO | None = None) -> None:
    """The report as a table with its total on ``out`` (standard output)."""
    from rich.table import Table

    from ..report.text import use_colour
    from .view import SafeConsole

    out = out or sys.stdout
    colour = use_colour(out)
    console = SafeConsole(
        file=out,
        markup=False,
        highlight=False,
        emoji=False,
        color_system="standard" if colour else None,
        force_terminal=colour,
        no_color=not colour,
        width=200 if not colour else None,
    )
    table = Table(show_footer=True, box=None, pad_edge=False)
    by = report.by
    for i, name in enumerate(by):
        table.add_column(name.capitalize(), footer="Total" if i == 0 else "")
    total = _cells(report.total)
    for title, foot in zip((*_TITLES, "Cost (USD)"), total, strict=True):
        table.add_column(title, justify="right", footer=foot)
    for key, totals in report.sorted_rows():
        cells = [
            "(main)" if v is None and name == "agent" else _safe(v)
            for name, v in zip(by, key, strict=True)
        ]
        table.add_row(*cells, *_cells(totals))
        for model, per in sorted((totals.models or {}).items()):
            table.add_row(*[""] * (len(by) - 1), "  " + _safe(model or None), *_cells(per))
    console.print(table)
    notes = []
    if report.prices:
        notes.append("prices: " + ", ".join(report.prices))
    if report.total.unpriced:
        models = ", ".join(_safe(m or None) for m in sorted(report.total.unpriced_models))
        notes.append(f"{report.total.unpriced} responses unpriced (no known price: {models})")
    notes.append(f"days in the time zone: {report.zone}")
    for note in notes:
        out.write(note + "\n")


def write_csv(report: UsageReport, out: TextIO | None = None) -> None:
    """One line a row (and, with ``--breakdown``, a line a model of each row), then the
    total; columns: the groups, ``model_breakdown``, the counts, ``cost``, ``unpriced``."""
    out = out or sys.stdout
    writer = csv.writer(out, lineterminator="\n")
    breakdown = any(t.models is not None for t in report.rows.values())
    header = [*report.by, *(["model_breakdown"] if breakdown else []), *_COUNTS, "cost"]
    writer.writerow([*header, "unpriced"])

    def line(key: list, t: Totals, model: str | None) -> list:
        cost = "" if t.responses and t.unpriced >= t.responses else f"{t.cost:.6f}"
        extra = [model or ""] if breakdown else []
        return [*key, *extra, *(getattr(t, n) for n in _COUNTS), cost, t.unpriced]

    for key, totals in report.sorted_rows():
        cells = ["" if v is None else str(v) for v in key]
        writer.writerow(line(cells, totals, None))
        for model, per in sorted((totals.models or {}).items()):
            writer.writerow(line(cells, per, model or "(none)"))
    first = ["total", *[""] * (len(report.by) - 1)]
    writer.writerow(line(first, report.total, None))
